"""All-topics Metadata answers reuse encoded topic entries: byte-identical to a plain encoding."""

from __future__ import annotations

import uuid

import pytest

from broker.handlers.metadata import _AllTopicsResponse, encode_topic
from protocol.messages import MetadataResponse

Topic = MetadataResponse.MetadataResponseTopic
Partition = MetadataResponse.MetadataResponsePartition


def topics(n: int) -> list[Topic]:
    return [
        Topic(
            error_code=0,
            name=f"t{t}",
            topic_id=uuid.uuid4(),
            is_internal=t == 0,
            partitions=[
                Partition(
                    partition_index=p,
                    leader_id=p % 2,
                    leader_epoch=3,
                    replica_nodes=[0, 1],
                    isr_nodes=[p % 2],
                    offline_replicas=[],
                )
                for p in range(3)
            ],
            topic_authorized_operations=1234,
        )
        for t in range(n)
    ]


@pytest.mark.parametrize("version", range(13))
@pytest.mark.parametrize("count", [0, 1, 130])  # 130: a compact array length of two bytes
def test_encoded_entries_give_the_plain_encoding(version, count):
    ts = topics(count)
    fields = dict(
        throttle_time_ms=5,
        brokers=[MetadataResponse.MetadataResponseBroker(node_id=0, host="h", port=1, rack="r")],
        cluster_id="c",
        controller_id=0,
        topics=ts,
        cluster_authorized_operations=7,
    )
    plain = bytes(MetadataResponse(**fields).encode(version))
    # Some topics encoded ahead; bytes stored for another object under a topic's id are not
    # used for it (they serve only the very object they were made from).
    encoded = {id(t): (t, encode_topic(t, version)) for t in ts[: count // 2 + 1]}
    if count:
        encoded[id(ts[-1])] = (Topic(name="other"), b"not this topic")
    assert bytes(_AllTopicsResponse(encoded=encoded, **fields).encode(version)) == plain
    assert bytes(_AllTopicsResponse(encoded={}, **fields).encode(version)) == plain
