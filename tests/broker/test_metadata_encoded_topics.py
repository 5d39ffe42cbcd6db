"""All-topics Metadata answers reuse encoded topic entries: byte-identical to a plain encoding."""

from __future__ import annotations

import asyncio
import uuid
from types import SimpleNamespace

import pytest

from broker.handlers import RequestContext
from broker.handlers.metadata import _AllTopicsResponse, encode_topic, handle_metadata
from broker.metadata_cache import MetadataCache
from coordinator.acl_authorizer import AllowAll
from coordinator.cluster_state import BrokerEndpoint, LiveBroker, PartitionState, TopicMetadata
from protocol.messages import MetadataRequest, MetadataResponse

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


def test_reused_entries_follow_every_change_of_the_cluster_view():
    def broker(i: int, port: int = 9090) -> LiveBroker:
        return LiveBroker(i, (BrokerEndpoint("PLAINTEXT", "127.0.0.1", port + i),), None)

    cache = MetadataCache(0, "cluster", controller_id=0)
    cache.on_brokers_changed([broker(0), broker(1)])
    ctx = RequestContext(
        SimpleNamespace(metadata_cache=cache, config={}, authorizer=AllowAll()),  # type: ignore[arg-type]
        3,
        12,
        1,
        "test",
        "peer",
        1,
        "PLAINTEXT",
    )

    def view() -> dict:
        response = asyncio.run(handle_metadata(ctx, MetadataRequest(topics=None)))
        decoded = MetadataResponse.decode(bytes(response.encode(12)), 12)
        return {
            (t.name, p.partition_index): (p.error_code, p.leader_id, p.leader_epoch, list(p.isr_nodes))
            for t in decoded.topics
            for p in t.partitions
        }

    def state(topic: str, p: int, leader: int, epoch: int) -> PartitionState:
        return PartitionState(topic, p, leader=leader, leader_epoch=epoch, isr=(leader,), replicas=(0, 1))

    a, b = TopicMetadata("a", uuid.uuid4(), 2), TopicMetadata("b", uuid.uuid4(), 1)
    cache.on_topics_changed({"a": a, "b": b}, [state("a", 0, 0, 0), state("a", 1, 1, 0), state("b", 0, 0, 0)])
    assert view() == view() == {("a", 0): (0, 0, 0, [0]), ("a", 1): (0, 1, 0, [1]), ("b", 0): (0, 0, 0, [0])}
    # A leader change of one partition (UpdateMetadata, the other topic untouched).
    cache.update_metadata(0, [broker(0), broker(1)], {"a": a.topic_id}, [state("a", 1, 0, 1)])
    assert view()[("a", 1)] == (0, 0, 1, [0])
    # A broker gone: its partitions answer LEADER_NOT_AVAILABLE with leader -1.
    cache.update_metadata(0, [broker(0)], {}, [])
    assert view()[("a", 0)] == (0, 0, 0, [0]) and view()[("b", 0)][:2] == (0, 0)
    cache.update_metadata(0, [broker(1)], {}, [])
    assert view()[("b", 0)][:2] == (5, -1)  # LEADER_NOT_AVAILABLE
    # A deleted topic goes, a new one comes.
    cache.on_topic_deleted(b)
    c = TopicMetadata("c", uuid.uuid4(), 1)
    cache.on_topics_changed({"c": c}, [state("c", 0, 1, 0)])
    assert sorted({t for t, _ in view()}) == ["a", "c"]
