"""Consumer-group request edge cases against Kafka 3.9's KafkaApis / GroupCoordinator."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import OffsetCommitRequest
from tests.support.wire_broker import client, cluster, create_topic, unique  # noqa: F401 (fixtures)

E = ErrorCode


def test_offset_commit_group_error_leaves_unknown_partitions_their_own_error(client):  # noqa: F811
    """KafkaApis.handleOffsetCommitRequest answers a partition of an unknown topic
    UNKNOWN_TOPIC_OR_PARTITION in its response builder and sends only the valid partitions
    to the coordinator; GroupCoordinator.handleCommitOffsets reports a group-level error
    (here ILLEGAL_GENERATION: a generation >= 0 for a group that does not exist) for those
    partitions only, and ``responseBuilder.merge(results)`` keeps the unknown topic's
    UNKNOWN_TOPIC_OR_PARTITION (TxnOffsetCommit does the same in Moldau)."""
    topic = unique("oc-known")
    create_topic(client, topic)
    missing = unique("oc-missing")
    req = OffsetCommitRequest(
        group_id=unique("oc-group"),
        generation_id_or_member_epoch=3,
        member_id="someone",
        topics=[
            OffsetCommitRequest.OffsetCommitRequestTopic(
                name=name,
                partitions=[
                    OffsetCommitRequest.OffsetCommitRequestPartition(partition_index=0, committed_offset=1)
                ],
            )
            for name in (topic, missing)
        ],
    )
    resp = client.request(req, 8)
    got = {t.name: [p.error_code for p in t.partitions] for t in resp.topics}
    assert got == {topic: [E.ILLEGAL_GENERATION.code], missing: [E.UNKNOWN_TOPIC_OR_PARTITION.code]}
