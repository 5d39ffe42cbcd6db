"""Produce request edge cases against Kafka 3.9's KafkaApis / ReplicaManager."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import ListOffsetsRequest, ProduceRequest
from protocol.records import build_batch
from tests.support.wire_broker import client, cluster, create_topic, unique  # noqa: F401 (fixtures)

E = ErrorCode


def _log_end(wire, topic: str, partition: int = 0) -> int:
    req = ListOffsetsRequest(
        replica_id=-1,
        topics=[
            ListOffsetsRequest.ListOffsetsTopic(
                name=topic,
                partitions=[ListOffsetsRequest.ListOffsetsPartition(partition_index=partition, timestamp=-1)],
            )
        ],
    )
    (p,) = wire.request(req, 5).topics[0].partitions
    assert p.error_code == 0
    return p.offset


def test_same_partition_twice_in_one_produce_is_appended_once_and_answered_once(client):  # noqa: F811
    """KafkaApis.handleProduceRequest collects the partitions into
    ``authorizedRequestInfo: mutable.Map[TopicPartition, MemoryRecords]``: a partition named
    twice in one request is appended once (the last records win) and the ProduceResponse,
    built from a Map, has one answer for it."""
    topic = unique("dup-part")
    create_topic(client, topic)
    first = build_batch([(None, b"first")])
    second = build_batch([(None, b"second")])
    req = ProduceRequest(
        acks=1,
        timeout_ms=10_000,
        topic_data=[
            ProduceRequest.TopicProduceData(
                name=topic,
                partition_data=[
                    ProduceRequest.PartitionProduceData(index=0, records=first),
                    ProduceRequest.PartitionProduceData(index=0, records=second),
                ],
            )
        ],
    )
    resp = client.request(req, 9)
    answers = [(t.name, p.index, p.error_code) for t in resp.responses for p in t.partition_responses]
    assert _log_end(client, topic) == 1  # one batch of one record, not two
    assert answers == [(topic, 0, 0)]
