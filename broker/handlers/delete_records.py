"""DeleteRecords (key 21), versions 0-2.

Behaviour (Kafka's ``KafkaApis.handleDeleteRecordsRequest`` / ``ReplicaManager.deleteRecords``
/ ``Partition.deleteRecordsOnLeader``): per partition, the leader's log start offset moves to
the requested offset (-1: the high watermark) and the answer's ``low_watermark`` is the new
log start offset. Whole segments below it are deleted by the next retention pass; fetches
and ListOffsets(earliest) see the new start at once.

Errors per partition, in Kafka's order: TOPIC_AUTHORIZATION_FAILED, UNKNOWN_TOPIC_OR_PARTITION
(not in the metadata; ``KafkaApis.handleDeleteRecordsRequest`` checks it before the replica
manager, so a partition ``__consumer_offsets`` does not have answers this too),
INVALID_TOPIC_EXCEPTION (an internal topic, ``ReplicaManager.deleteRecordsOnLocalLog``),
NOT_LEADER_OR_FOLLOWER (known but not led here), OFFSET_OUT_OF_RANGE (below 0 other than -1,
or past the high watermark), POLICY_VIOLATION (``cleanup.policy`` without ``delete``),
KAFKA_STORAGE_ERROR (offline log dir); ``low_watermark`` is -1 with an error. A partition
named twice is answered once per entry (Kafka keys the request by partition; the later offset
wins there).

Version notes: v1 is the same (throttling before the answer); v2 is flexible.

Differs from Kafka: Kafka waits (``DelayedDeleteRecords``, up to ``timeout_ms``) until every
replica's log start offset has reached the new one, and answers the smallest; Moldau answers
the leader's at once; the followers take the new log start offset from their next fetch
response (``Partition.update_follower_high_watermark``). Authorization: Delete on each topic, else
TOPIC_AUTHORIZATION_FAILED for its partitions.
"""

from __future__ import annotations

from broker.handlers import RequestContext, handler
from coordinator.acl_model import AclOperation, ResourceType
from coordinator.cluster_state import INTERNAL_TOPICS
from protocol.errors import ErrorCode, KafkaError
from protocol.messages import ApiKey, DeleteRecordsRequest, DeleteRecordsResponse

TopicResult = DeleteRecordsResponse.DeleteRecordsTopicResult
PartitionResult = DeleteRecordsResponse.DeleteRecordsPartitionResult


def _delete(ctx: RequestContext, topic: str, partition: int, offset: int) -> int:
    broker = ctx.broker
    rm = broker.replica_manager
    if broker.metadata_cache.partition_state(topic, partition) is None:
        # KafkaApis.handleDeleteRecordsRequest: !metadataCache.contains(tp), before the replica manager
        raise KafkaError(
            ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic-partition."
        )
    if topic in INTERNAL_TOPICS:
        # ReplicaManager.deleteRecordsOnLocalLog, before its other checks.
        raise KafkaError(
            ErrorCode.INVALID_TOPIC_EXCEPTION, f"Cannot delete records of internal topic {topic}"
        )
    if rm.get_partition(topic, partition) is None:
        raise KafkaError(
            ErrorCode.NOT_LEADER_OR_FOLLOWER,
            f"Leader not local for partition {topic}-{partition} on broker {broker.broker_id}",
        )
    rm.get_partition_or_error(topic, partition).local_log()  # leadership before the policy
    config = rm.get_log_config(topic, partition)
    if config is not None and "delete" not in config.cleanup_policy:
        # Partition.deleteRecordsOnLeader: only logs with the delete policy may lose records.
        raise KafkaError(
            ErrorCode.POLICY_VIOLATION,
            f"Records of partition {topic}-{partition} can not be deleted up to offset {offset} "
            "since the cleanup policy is set to compact",
        )
    return rm.delete_records(topic, partition, offset)


@handler(ApiKey.DELETE_RECORDS, versions=(0, 2))
def handle_delete_records(ctx: RequestContext, request: DeleteRecordsRequest) -> DeleteRecordsResponse:
    topics = []
    deletable = ctx.authorized(AclOperation.DELETE, ResourceType.TOPIC, (t.name for t in request.topics))
    for t in request.topics:
        parts = []
        for p in t.partitions:
            try:
                if t.name not in deletable:
                    raise KafkaError(ErrorCode.TOPIC_AUTHORIZATION_FAILED)
                low = _delete(ctx, t.name, p.partition_index, p.offset)
            except KafkaError as exc:
                parts.append(
                    PartitionResult(partition_index=p.partition_index, low_watermark=-1, error_code=exc.code)
                )
                continue
            parts.append(PartitionResult(partition_index=p.partition_index, low_watermark=low, error_code=0))
        topics.append(TopicResult(name=t.name, partitions=parts))
    return DeleteRecordsResponse(throttle_time_ms=0, topics=topics)
