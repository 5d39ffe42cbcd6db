"""Fetch (key 1), versions 4-12.

Behaviour (Kafka's ``KafkaApis.handleFetchRequest`` / ``ReplicaManager.fetchMessages``):
- Each partition returns whole batches starting with the batch that contains
  the fetch offset (clients skip the records before it), read straight from
  the segment file without decoding, up to ``partition_max_bytes``; the whole
  response stays within ``max_bytes`` (capped by ``fetch.max.bytes``, KIP-541),
  except that the first partition with data returns at least one whole batch
  even above the limits (KIP-74).
- Consumers read up to the high watermark (read_uncommitted) or the last stable
  offset (read_committed: equal to the high watermark until transactions exist;
  ``aborted_transactions`` is then an empty list, null for read_uncommitted).
- A fetch offset below the log start offset or above the log end offset:
  OFFSET_OUT_OF_RANGE (with the partition's offsets so the client can reset).
- ``current_leader_epoch`` (v9+) is checked: FENCED_LEADER_EPOCH below ours,
  UNKNOWN_LEADER_EPOCH above. ``last_fetched_epoch`` (v12) reports a diverging
  epoch from the leader-epoch cache, as KIP-320 describes.
- Long poll: when fewer than ``min_bytes`` are available the request waits
  (parking only its connection) until appends bring ``min_bytes`` or
  ``max_wait_ms`` passes; appends wake it directly, nothing polls.
- preferred_read_replica is -1 (no follower fetching, KIP-392).

Version notes: v4 isolation level and aborted transactions; v5 log start
offset; v7 fetch sessions (KIP-227) and a top-level error code; v9 current
leader epoch; v11 rack id and preferred replica; v12 flexible, diverging epoch.
v13+ (topic ids) are not served: Java clients then keep using v12 with names.

Fetch sessions: every fetch is served sessionless. A full fetch (session id 0,
epoch 0 or -1) gets session id 0 back, which tells the client that no session
was created, so it keeps sending full fetches; an incremental fetch naming a
session answers FETCH_SESSION_ID_NOT_FOUND. Documented in docs/COMPATIBILITY.md.
"""

from __future__ import annotations

from typing import Any

from broker.handlers import RequestContext, handler
from protocol.errors import ErrorCode, KafkaError
from protocol.messages import ApiKey, FetchRequest, FetchResponse

TopicResponse = FetchResponse.FetchableTopicResponse
PartitionData = FetchResponse.PartitionData
EpochEndOffset = FetchResponse.EpochEndOffset
READ_COMMITTED = 1


def _partition_error(index: int, code: int, plog: Any = None) -> PartitionData:
    return PartitionData(
        partition_index=index,
        error_code=code,
        high_watermark=plog.high_watermark if plog is not None else -1,
        last_stable_offset=plog.last_stable_offset if plog is not None else -1,
        log_start_offset=plog.log_start_offset if plog is not None else -1,
        preferred_read_replica=-1,
        records=None,
    )


def read_partitions(ctx: RequestContext, request: FetchRequest) -> tuple[list[TopicResponse], int, bool]:
    """Read every requested partition now: (topic responses, bytes read, any error)."""
    rm = ctx.broker.replica_manager
    version = ctx.api_version
    committed = version >= 4 and request.isolation_level == READ_COMMITTED
    budget = request.max_bytes if version >= 3 else 0x7FFFFFFF
    budget = min(budget, ctx.broker.config["fetch.max.bytes"])
    min_one = True
    total = 0
    errors = False
    topics = []
    for t in request.topics:
        parts = []
        for p in t.partitions:
            plog = None
            try:
                plog = rm.get_log(t.topic, p.partition)
                if version >= 9:
                    rm.check_leader_epoch(p.current_leader_epoch)
                max_offset = plog.last_stable_offset if committed else plog.high_watermark
                limit = min(p.partition_max_bytes, budget)
                info = plog.read(p.fetch_offset, limit, max_offset=max_offset, min_one_batch=min_one)
            except KafkaError as exc:
                errors = True
                parts.append(_partition_error(p.partition, exc.code, plog))
                continue
            records = info.records
            n = len(records)
            if n:
                min_one = False
                total += n
                budget = max(budget - n, 0)
            data = PartitionData(
                partition_index=p.partition,
                error_code=0,
                high_watermark=plog.high_watermark,
                last_stable_offset=plog.last_stable_offset,
                log_start_offset=plog.log_start_offset,
                aborted_transactions=[] if committed else None,
                preferred_read_replica=-1,
                records=records,
            )
            if version >= 12 and p.last_fetched_epoch >= 0:
                epoch, end = plog.end_offset_for_epoch(p.last_fetched_epoch)
                if epoch != p.last_fetched_epoch or end < p.fetch_offset:
                    data.diverging_epoch = EpochEndOffset(epoch=epoch, end_offset=end)
            parts.append(data)
        topics.append(TopicResponse(topic=t.topic, partitions=parts))
    return topics, total, errors


def _response(topics: list[TopicResponse], error: ErrorCode = ErrorCode.NONE) -> FetchResponse:
    return FetchResponse(throttle_time_ms=0, error_code=error.code, session_id=0, responses=topics)


async def _fetch_when_ready(ctx: RequestContext, request: FetchRequest) -> FetchResponse:
    keys = [(t.topic, p.partition) for t in request.topics for p in t.partitions]
    purgatory = ctx.broker.replica_manager.fetch_purgatory
    with purgatory.watch(keys, request.min_bytes, request.max_wait_ms) as waiter:
        # This task starts a loop turn after the handler's first read; read again now
        # that the waiter is registered, so appends made meanwhile count and later
        # ones wake it.
        topics, total, errors = read_partitions(ctx, request)
        if total >= request.min_bytes or errors:
            return _response(topics)
        waiter.accumulated = total
        await waiter.future
    topics, _, _ = read_partitions(ctx, request)
    return _response(topics)


@handler(ApiKey.FETCH, versions=(4, 12))
def handle_fetch(ctx: RequestContext, request: FetchRequest):  # -> FetchResponse | Awaitable[FetchResponse]
    if ctx.api_version >= 7:
        if request.session_id != 0:
            return _response([], ErrorCode.FETCH_SESSION_ID_NOT_FOUND)
        if request.session_epoch not in (0, -1):
            return _response([], ErrorCode.INVALID_FETCH_SESSION_EPOCH)
    topics, total, errors = read_partitions(ctx, request)
    if total >= request.min_bytes or request.max_wait_ms <= 0 or errors or not topics:
        return _response(topics)
    return _fetch_when_ready(ctx, request)
