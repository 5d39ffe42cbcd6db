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
  A partition error carries an empty record set, never null, as Kafka's (librdkafka
  drops a whole response holding a null one).
- ``current_leader_epoch`` (v9+) is checked: FENCED_LEADER_EPOCH below ours,
  UNKNOWN_LEADER_EPOCH above. ``last_fetched_epoch`` (v12) reports a diverging
  epoch from the leader-epoch cache, as KIP-320 describes.
- Long poll: when fewer than ``min_bytes`` are available the request waits
  (parking only its connection) in the replica manager's fetch purgatory until
  high-watermark moves make ``min_bytes`` readable or ``max_wait_ms`` passes;
  nothing polls.
- A partition in an offline log dir: KAFKA_STORAGE_ERROR (v6+; NOT_LEADER_OR_FOLLOWER
  for v4-v5, which do not know it).
- preferred_read_replica is -1 (no follower fetching, KIP-392).
- Replica fetches (``replica_id`` >= 0, a follower broker; Kafka's ``isFromFollower``) read
  up to the log end offset, not the high watermark, from the leader only, and each one
  records that follower's position in the partition (its log end offset and catch-up time),
  which may move the high watermark and the ISR; the answer carries the leader's high
  watermark and log start offset. ``fetch.max.bytes`` caps them too. Consumers fetching
  from a follower get NOT_LEADER_OR_FOLLOWER (no KIP-392).

Authorization: a consumer needs Read on each topic, a follower ClusterAction on the cluster;
the partitions refused are TOPIC_AUTHORIZATION_FAILED and are not read.

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

from collections.abc import Awaitable, Sequence

from broker.authorization import fetch_denied_topics, with_denied_fetches
from broker.handlers import RequestContext, handler
from broker.replica_manager import FetchIsolation, FetchParams, FetchPartitionData, FetchPartitionInfo
from protocol.errors import ErrorCode
from protocol.messages import ApiKey, FetchRequest, FetchResponse

TopicResponse = FetchResponse.FetchableTopicResponse
PartitionData = FetchResponse.PartitionData
EpochEndOffset = FetchResponse.EpochEndOffset
READ_COMMITTED = 1


def _response(topics: list[TopicResponse], error: ErrorCode = ErrorCode.NONE) -> FetchResponse:
    return FetchResponse(throttle_time_ms=0, error_code=error.code, session_id=0, responses=topics)


def _build(
    request: FetchRequest, results: Sequence[FetchPartitionData], committed: bool, version: int
) -> FetchResponse:
    """The answer, in the request's topic and partition order."""
    it = iter(results)
    topics = []
    for t in request.topics:
        parts = []
        for p in t.partitions:
            r = next(it)
            error = r.error
            if error is ErrorCode.KAFKA_STORAGE_ERROR and version < 6:
                # FetchResponse.json: KAFKA_STORAGE_ERROR only from v6; older clients get
                # NOT_LEADER_OR_FOLLOWER (and refresh their metadata).
                error = ErrorCode.NOT_LEADER_OR_FOLLOWER
            data = PartitionData(
                partition_index=p.partition,
                error_code=error.code,
                high_watermark=r.high_watermark,
                last_stable_offset=r.last_stable_offset,
                log_start_offset=r.log_start_offset,
                preferred_read_replica=-1,
                records=r.records,
            )
            if r.error is ErrorCode.NONE:
                data.aborted_transactions = [] if committed else None
            if r.diverging_epoch is not None:
                data.diverging_epoch = EpochEndOffset(
                    epoch=r.diverging_epoch[0], end_offset=r.diverging_epoch[1]
                )
            parts.append(data)
        topics.append(TopicResponse(topic=t.topic, partitions=parts))
    return _response(topics)


async def _respond_when_ready(
    request: FetchRequest, pending: Awaitable[list[FetchPartitionData]], committed: bool, version: int
) -> FetchResponse:
    return _build(request, await pending, committed, version)


@handler(ApiKey.FETCH, versions=(4, 12))
def handle_fetch(ctx: RequestContext, request: FetchRequest):  # -> FetchResponse | Awaitable[FetchResponse]
    version = ctx.api_version
    if version >= 7:
        if request.session_id != 0:
            return _response([], ErrorCode.FETCH_SESSION_ID_NOT_FOUND)
        if request.session_epoch not in (0, -1):
            return _response([], ErrorCode.INVALID_FETCH_SESSION_EPOCH)
    committed = request.isolation_level == READ_COMMITTED
    denied = fetch_denied_topics(ctx, request)  # Read on each topic; ClusterAction for followers
    params = FetchParams(
        max_wait_ms=request.max_wait_ms,
        min_bytes=request.min_bytes,
        # KIP-541: fetch.max.bytes caps what a consumer may ask for
        max_bytes=min(request.max_bytes, ctx.broker.config["fetch.max.bytes"]),
        isolation=(
            FetchIsolation.LOG_END
            if request.replica_id >= 0
            else FetchIsolation.TXN_COMMITTED
            if committed
            else FetchIsolation.HIGH_WATERMARK
        ),
        replica_id=max(request.replica_id, -1),
    )
    infos = [
        (
            (t.topic, p.partition),
            FetchPartitionInfo(
                fetch_offset=p.fetch_offset,
                max_bytes=p.partition_max_bytes,
                current_leader_epoch=p.current_leader_epoch if version >= 9 else -1,
                last_fetched_epoch=p.last_fetched_epoch if version >= 12 else -1,
                log_start_offset=p.log_start_offset if version >= 5 else -1,
            ),
        )
        for t in request.topics
        if t.topic not in denied
        for p in t.partitions
    ]
    results = ctx.broker.replica_manager.fetch_messages(params, infos) if infos or not denied else []
    if denied:
        results = with_denied_fetches(request, results, denied)
    if isinstance(results, list):
        return _build(request, results, committed, version)
    return _respond_when_ready(request, results, committed, version)
