"""OffsetForLeaderEpoch (key 23), versions 2-4.

Behaviour: for each partition, the end offset of the requested leader epoch
from the log's leader-epoch cache (Kafka's ``LeaderEpochFileCache.endOffsetFor``):
the start offset of the next larger epoch, or the log end offset for the
current epoch; an epoch below the earliest known answers UNDEFINED_EPOCH (-1)
and offset -1. Clients use it to validate their positions after leader changes
(KIP-320). ``current_leader_epoch`` is fenced as in Fetch. Unknown partitions:
UNKNOWN_TOPIC_OR_PARTITION.

Followers becoming followers ask it too (KIP-101/279, ``replica_id`` = their broker id)
to truncate to their leader's history; as in Kafka 3.9 only the leader answers, for
followers and consumers alike (NOT_LEADER_OR_FOLLOWER elsewhere).

Authorization: ClusterAction on the cluster (followers) allows every topic; otherwise
(consumers, KIP-320) Describe on each topic, else TOPIC_AUTHORIZATION_FAILED.

Version notes: v2 adds current_leader_epoch and throttle time; v3 replica_id
(consumers send -1); v4 is flexible.
"""

from __future__ import annotations

from broker.handlers import RequestContext, handler
from coordinator.acl_model import AclOperation, ResourceType
from protocol.errors import ErrorCode, KafkaError
from protocol.messages import ApiKey, OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse

TopicResult = OffsetForLeaderEpochResponse.OffsetForLeaderTopicResult
EpochEndOffset = OffsetForLeaderEpochResponse.EpochEndOffset


@handler(ApiKey.OFFSET_FOR_LEADER_EPOCH, versions=(2, 4))
def handle_offset_for_leader_epoch(
    ctx: RequestContext, request: OffsetForLeaderEpochRequest
) -> OffsetForLeaderEpochResponse:
    rm = ctx.broker.replica_manager
    topics = []
    # followers need ClusterAction; consumers (KIP-320) Describe on each topic
    if ctx.authorize(AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER, log_denied=False):
        allowed = {t.topic for t in request.topics}
    else:
        allowed = ctx.authorized(AclOperation.DESCRIBE, ResourceType.TOPIC, (t.topic for t in request.topics))
    for t in request.topics:
        parts = []
        for p in t.partitions:
            try:
                if t.topic not in allowed:
                    raise KafkaError(ErrorCode.TOPIC_AUTHORIZATION_FAILED)
                epoch, end = rm.last_offset_for_leader_epoch(
                    t.topic, p.partition, p.leader_epoch, current_leader_epoch=p.current_leader_epoch
                )
            except KafkaError as exc:
                parts.append(
                    EpochEndOffset(partition=p.partition, error_code=exc.code, leader_epoch=-1, end_offset=-1)
                )
                continue
            parts.append(
                EpochEndOffset(partition=p.partition, error_code=0, leader_epoch=epoch, end_offset=end)
            )
        topics.append(TopicResult(topic=t.topic, partitions=parts))
    return OffsetForLeaderEpochResponse(throttle_time_ms=0, topics=topics)
