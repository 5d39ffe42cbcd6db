"""OffsetDelete (key 47), version 0.

Behaviour (Kafka's ``KafkaApis.handleOffsetDeleteRequest`` and
``GroupCoordinator.handleDeleteOffsets``, through ``coordinator.groups``): a group's committed
offsets of the named partitions are removed (tombstones go to ``__consumer_offsets`` with
acks=0, as ``GroupMetadataManager.cleanupGroupMetadata``: a short ISR does not keep them out),
and a commit of them still being written is not cached when it completes
(``GroupMetadata.removeOffsets`` drops it from ``pendingOffsetCommits``).
Partitions of topics that do not exist: UNKNOWN_TOPIC_OR_PARTITION. An Empty group loses
them all; a consumer group that is rebalancing or Stable keeps those of topics its members
subscribe to (GROUP_SUBSCRIBED_TO_TOPIC) and loses the others; any other group answers
NON_EMPTY_GROUP. Group errors (INVALID_GROUP_ID for "", GROUP_ID_NOT_FOUND,
NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS, NON_EMPTY_GROUP)
are the response's top-level error with no topics, as Kafka's ``getErrorResponse``.
A group left Empty with no offsets is removed.

Authorization: Delete on the group (else GROUP_AUTHORIZATION_FAILED at the top) and Read on
each topic (else its partitions are TOPIC_AUTHORIZATION_FAILED), as KafkaApis.
"""

from __future__ import annotations

from broker.handlers import RequestContext, handler
from coordinator.acl_model import AclOperation, ResourceType
from protocol.errors import ErrorCode
from protocol.messages import ApiKey, OffsetDeleteRequest, OffsetDeleteResponse

TopicResult = OffsetDeleteResponse.OffsetDeleteResponseTopic
PartitionResult = OffsetDeleteResponse.OffsetDeleteResponsePartition


@handler(ApiKey.OFFSET_DELETE, versions=(0, 0))
def handle_offset_delete(ctx: RequestContext, request: OffsetDeleteRequest) -> OffsetDeleteResponse:
    cache = ctx.broker.metadata_cache
    if not ctx.authorize(AclOperation.DELETE, ResourceType.GROUP, request.group_id):
        return OffsetDeleteResponse(error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED.code, throttle_time_ms=0)
    readable = ctx.authorized(AclOperation.READ, ResourceType.TOPIC, (t.name for t in request.topics))
    errors: dict[tuple[str, int], ErrorCode] = {}
    known: list[tuple[str, int]] = []
    for t in request.topics:
        for p in t.partitions:
            tp = (t.name, p.partition_index)
            if t.name not in readable:
                errors[tp] = ErrorCode.TOPIC_AUTHORIZATION_FAILED
            elif cache.partition_state(*tp) is None:
                errors[tp] = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
            else:
                known.append(tp)
    group_error, results = ctx.broker.groups.delete_offsets(request.group_id, known)
    if group_error is not ErrorCode.NONE:
        return OffsetDeleteResponse(error_code=group_error.code, throttle_time_ms=0)
    errors.update(results)
    by_topic: dict[str, list[PartitionResult]] = {}
    for (topic, partition), error in errors.items():
        by_topic.setdefault(topic, []).append(
            PartitionResult(partition_index=partition, error_code=error.code)
        )
    return OffsetDeleteResponse(
        error_code=0,
        throttle_time_ms=0,
        topics=[TopicResult(name=name, partitions=parts) for name, parts in by_topic.items()],
    )
