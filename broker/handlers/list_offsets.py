"""ListOffsets (key 2), versions 1-8.

Behaviour (Kafka's ``ReplicaManager.fetchOffsetForTimestamp`` / ``UnifiedLog.fetchOffsetByTimestamp``):
- timestamp -2 (earliest): the log start offset; -4 (earliest local, KIP-405)
  the same, as there is no tiered storage; -1 (latest): the high watermark
  (read_uncommitted) or last stable offset (read_committed); -3 (max
  timestamp, KIP-734, v7+): the offset of the record with the largest
  timestamp; any other value: the first offset whose timestamp is at or after
  it, found through the time index, or offset -1 / timestamp -1 when there is
  none below the high watermark.
- ``replica_id``: -1 (a consumer) as above; a broker id or -2 (debugging) has no isolation
  level: latest is the log end offset, never OFFSET_NOT_AVAILABLE; -2 may be answered by a
  follower (Kafka's ``fetchOnlyFromLeader``).
- ``current_leader_epoch`` (v4+) fenced as in Fetch; the answer carries the
  leader epoch of the returned offset (v4+).
- A special timestamp the request's version does not know (-3 before v7, -4 before v8,
  -5 (latest tiered, v9) always, any other negative value): UNSUPPORTED_VERSION for the
  partition, as Kafka's ``isListOffsetsTimestampUnsupported``.
- A new leader whose high watermark has not reached its epoch's start yet:
  OFFSET_NOT_AVAILABLE from v5, LEADER_NOT_AVAILABLE before (Kafka's ``fetchOffset``).
- Unknown partitions: UNKNOWN_TOPIC_OR_PARTITION; partitions the cluster has but this broker
  hosts no replica of: NOT_LEADER_OR_FOLLOWER. A partition asked for twice: INVALID_REQUEST
  for it.

Authorization: Describe on each topic, else TOPIC_AUTHORIZATION_FAILED for its partitions.

Version notes: v1 returns one offset with its timestamp (v0's list is gone);
v2 isolation level; v4 leader epochs; v6 flexible; v7 max timestamp; v8
earliest local timestamp. v9+ are not served.
"""

from __future__ import annotations

from broker.handlers import RequestContext, handler
from broker.replica_manager import FetchIsolation
from coordinator.acl_model import AclOperation, ResourceType
from protocol.errors import ErrorCode, KafkaError
from protocol.messages import ApiKey, ListOffsetsRequest, ListOffsetsResponse

READ_COMMITTED = 1
CONSUMER_REPLICA_ID = -1  # ListOffsetsRequest.CONSUMER_REPLICA_ID
DEBUGGING_REPLICA_ID = -2  # ListOffsetsRequest.DEBUGGING_REPLICA_ID
# ReplicaManager.timestampMinSupportedVersion: the first version that knows each special
# timestamp; an older version, or a negative timestamp Kafka does not define, answers
# UNSUPPORTED_VERSION for the partition (isListOffsetsTimestampUnsupported).
_MIN_VERSION_OF_SPECIAL_TIMESTAMP = {-1: 1, -2: 1, -3: 7, -4: 8, -5: 9}
_NEVER = 1 << 15
TopicResponse = ListOffsetsResponse.ListOffsetsTopicResponse
PartitionResponse = ListOffsetsResponse.ListOffsetsPartitionResponse


@handler(ApiKey.LIST_OFFSETS, versions=(1, 8))
def handle_list_offsets(ctx: RequestContext, request: ListOffsetsRequest) -> ListOffsetsResponse:
    rm = ctx.broker.replica_manager
    version = ctx.api_version
    committed = version >= 2 and request.isolation_level == READ_COMMITTED
    isolation = FetchIsolation.TXN_COMMITTED if committed else FetchIsolation.HIGH_WATERMARK
    if request.replica_id != CONSUMER_REPLICA_ID:
        # KafkaApis.handleListOffsetRequest: only a consumer's request has an isolation level;
        # a replica's or a debugging one (-2) reads to the log end, and -2 may ask a follower.
        isolation = FetchIsolation.LOG_END
    from_leader_only = request.replica_id != DEBUGGING_REPLICA_ID
    seen: set[tuple[str, int]] = set()
    describable = ctx.authorized(AclOperation.DESCRIBE, ResourceType.TOPIC, (t.name for t in request.topics))
    topics = []
    for t in request.topics:
        parts = []
        for p in t.partitions:
            if t.name not in describable:
                parts.append(
                    PartitionResponse(
                        partition_index=p.partition_index,
                        error_code=ErrorCode.TOPIC_AUTHORIZATION_FAILED.code,
                        timestamp=-1,
                        offset=-1,
                    )
                )
                continue
            key = (t.name, p.partition_index)
            if key in seen:
                parts.append(
                    PartitionResponse(
                        partition_index=p.partition_index, error_code=ErrorCode.INVALID_REQUEST.code
                    )
                )
                continue
            seen.add(key)
            if p.timestamp < 0 and version < _MIN_VERSION_OF_SPECIAL_TIMESTAMP.get(p.timestamp, _NEVER):
                parts.append(
                    PartitionResponse(
                        partition_index=p.partition_index,
                        error_code=ErrorCode.UNSUPPORTED_VERSION.code,
                        timestamp=-1,
                        offset=-1,
                    )
                )
                continue
            try:
                found = rm.fetch_offset_for_timestamp(
                    t.name,
                    p.partition_index,
                    p.timestamp,
                    isolation=isolation,
                    current_leader_epoch=p.current_leader_epoch if version >= 4 else -1,
                    fetch_only_from_leader=from_leader_only,
                )
            except KafkaError as exc:
                code = exc.code
                if code == ErrorCode.OFFSET_NOT_AVAILABLE.code and version < 5:
                    code = ErrorCode.LEADER_NOT_AVAILABLE.code  # what these versions retry on
                parts.append(
                    PartitionResponse(
                        partition_index=p.partition_index, error_code=code, timestamp=-1, offset=-1
                    )
                )
                continue
            parts.append(
                PartitionResponse(
                    partition_index=p.partition_index,
                    error_code=0,
                    timestamp=found.timestamp,
                    offset=found.offset,
                    leader_epoch=found.leader_epoch,
                )
            )
        topics.append(TopicResponse(name=t.name, partitions=parts))
    return ListOffsetsResponse(throttle_time_ms=0, topics=topics)
