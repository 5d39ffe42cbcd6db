"""Fetch (key 1), versions 4-12.

Behaviour (Kafka's ``KafkaApis.handleFetchRequest`` / ``ReplicaManager.fetchMessages``):
- Each partition returns whole batches starting with the batch that contains
  the fetch offset (clients skip the records before it), left in the segment
  file (``FileRecords``, sent with ``os.sendfile`` by the connection when
  ``ctx.sends_file_records``) or read as bytes, never decoded, up to
  ``partition_max_bytes``; the whole
  response stays within ``max_bytes`` (capped by ``fetch.max.bytes``, KIP-541),
  except that the first partition with data returns at least one whole batch
  even above the limits (KIP-74).
- Consumers read up to the high watermark (read_uncommitted) or the last stable
  offset (read_committed: the first offset of the oldest open transaction, else the high
  watermark), whole batches only. read_committed answers carry ``aborted_transactions``:
  (producer id, first offset) of each aborted transaction overlapping the records returned,
  from the segments' ``.txnindex`` (Kafka's ``collectAbortedTxns``); null for
  read_uncommitted. ``last_stable_offset`` is the partition's LSO in every version.
- A fetch offset below the log start offset or above the log end offset:
  OFFSET_OUT_OF_RANGE (with the partition's offsets so the client can reset).
  A partition error carries an empty record set, never null, as Kafka's (librdkafka
  drops a whole response holding a null one).
- ``current_leader_epoch`` (v9+) is checked (a negative one is not given): FENCED_LEADER_EPOCH below ours,
  UNKNOWN_LEADER_EPOCH above. ``last_fetched_epoch`` (v12) reports a diverging
  epoch from the leader-epoch cache, as KIP-320 describes.
- Long poll: when fewer than ``min_bytes`` are available the request waits
  (parking only its connection) in the replica manager's fetch purgatory until
  high-watermark moves make ``min_bytes`` readable or ``max_wait_ms`` passes;
  nothing polls. ``min_bytes`` is capped at the response's ``max_bytes``, and a partition
  whose read stopped at its limit (its ``partition_max_bytes`` or what is left of
  ``max_bytes``) with a whole batch not fitting counts as that limit (Kafka's read fills it
  with a partial batch), so a full response is answered at once. The bytes a parked fetch
  counts are those below the high watermark (read_committed: the last stable offset), as
  Kafka's ``DelayedFetch``, including records the log held before the partition was
  hosted. A follower's parked fetch completes once the produces read with the append it
  waited for are handled (the replica manager's ``ActionQueue``), and the answer is read
  and written right there (``answers_inline``, broker/inline_answer.py); so does a
  consumer's when the append moved the high watermark (a leader alone in its ISR).
- A partition in an offline log dir: KAFKA_STORAGE_ERROR (v6+; NOT_LEADER_OR_FOLLOWER
  for v4-v5, which do not know it).
- Fetch v4-v9 of a topic whose ``compression.type`` is zstd (KIP-110): the partition is
  answered UNSUPPORTED_COMPRESSION_TYPE (offsets -1, no records), as Kafka decides from the
  topic's config, not from the batches; v10+ never looks at the config.
- Fetch from the closest replica (KIP-392, v11+): with ``replica.selector.class`` set, a
  leader asked by a consumer whose ``rack_id`` names a follower's rack answers that in-sync
  follower's id as ``preferred_read_replica`` with no records (Kafka's
  ``findPreferredReadReplica``; broker/replica_selector.py), at once; -1 otherwise.
- Replica fetches (``replica_id`` >= 0, a follower broker; Kafka's ``isFromFollower``) read
  up to the log end offset, not the high watermark, from the leader only, and each one
  records that follower's position in the partition (its log end offset and catch-up time),
  which may move the high watermark and the ISR; the answer carries the leader's high
  watermark and log start offset. ``fetch.max.bytes`` caps them too. A consumer's Fetch
  v11+ is served by a follower too, up to the follower's high watermark (Kafka's
  ``FetchParams.fetchOnlyLeader``); older versions get NOT_LEADER_OR_FOLLOWER there.

Authorization: a consumer needs Read on each topic, a follower ClusterAction on the cluster;
the partitions refused are TOPIC_AUTHORIZATION_FAILED and are not read.

Version notes: v4 isolation level and aborted transactions; v5 log start
offset; v7 fetch sessions (KIP-227) and a top-level error code; v9 current
leader epoch; v11 rack id and preferred replica; v12 flexible, diverging epoch.
v13+ (topic ids) are not served: Java clients then keep using v12 with names.

Fetch sessions (KIP-227, v7+; broker/fetch_session.py): a full fetch (epoch 0) creates a
session when the cache has room and answers its id; incremental fetches (epoch > 0) name
only changed partitions and ``forgotten_topics_data``, and their answers leave out the
session's partitions with nothing new. Session errors (FETCH_SESSION_ID_NOT_FOUND,
INVALID_FETCH_SESSION_EPOCH) answer no partitions and session id 0. Epoch -1 and v4-v6 are
sessionless. Followers' fetches may use sessions too (privileged in the cache).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from broker.authorization import fetch_denied_topics, with_denied_fetches
from broker.fetch_params import ClientMetadata, FetchParams, FetchPartitionData, FetchPartitionInfo
from broker.fetch_session import FetchContext, SessionPartition
from broker.handlers import RequestContext, handler
from broker.replica_manager import FetchIsolation, ReplicaManager
from protocol.errors import ErrorCode
from protocol.messages import ApiKey, FetchRequest, FetchResponse

TopicResponse = FetchResponse.FetchableTopicResponse
PartitionData = FetchResponse.PartitionData
EpochEndOffset = FetchResponse.EpochEndOffset
AbortedTransaction = FetchResponse.AbortedTransaction
READ_COMMITTED = 1


def _response(
    topics: list[TopicResponse], error: ErrorCode = ErrorCode.NONE, session_id: int = 0
) -> FetchResponse:
    return FetchResponse(throttle_time_ms=0, error_code=error.code, session_id=session_id, responses=topics)


ZstdCheck = Callable[[str, int], bool]


def _zstd_check(replica_manager: ReplicaManager) -> ZstdCheck:
    """Whether a partition's topic has ``compression.type`` zstd (KIP-110), as Kafka's
    ``maybeConvertFetchedData`` asks: the topic's config (a partition hosted here), not the
    batches read."""

    def is_zstd(topic: str, partition: int) -> bool:
        config = replica_manager.get_log_config(topic, partition)
        return config is not None and config.compression_type == "zstd"

    return is_zstd


def _build(
    context: FetchContext | FetchRequest,
    results: Sequence[FetchPartitionData],
    committed: bool,
    version: int,
    zstd: ZstdCheck | None = None,
) -> FetchResponse:
    """The answer: the partitions the session context keeps, in its order (consecutive
    partitions of one topic under one topic entry, as Kafka's ``FetchResponse.of``). Given a
    FetchRequest instead, every partition it names, sessionless (replica fetcher tests).
    ``zstd`` (Fetch v4-v9 only) names the partitions answered UNSUPPORTED_COMPRESSION_TYPE."""
    if isinstance(context, FetchRequest):
        context = FetchContext(_fetch_data(context, version), ErrorCode.NONE)
    session_error, session_id, send = context.answer(results)
    topics: list[TopicResponse] = []
    parts: list[PartitionData] = []
    for i in send:
        p = context.partitions[i][0]
        r = results[i]
        if not topics or topics[-1].topic != p.topic:
            parts = []
            topics.append(TopicResponse(topic=p.topic, partitions=parts))
        if zstd is not None and r.error is not ErrorCode.KAFKA_STORAGE_ERROR and zstd(p.topic, p.partition):
            # KafkaApis.handleFetchRequest (maybeConvertFetchedData): a topic whose
            # compression.type is zstd is not sent to a client older than Fetch v10, whatever
            # was read (FetchResponse.partitionResponse: offsets -1, no records); a partition
            # in an offline log dir has no config there (getLogConfig: online logs only).
            if not isinstance(r.records, (bytes, bytearray, memoryview)):
                r.records.close()  # FileRecords not sent: give its descriptors back
            parts.append(
                PartitionData(
                    partition_index=p.partition,
                    error_code=ErrorCode.UNSUPPORTED_COMPRESSION_TYPE.code,
                    high_watermark=-1,
                    last_stable_offset=-1,
                    log_start_offset=-1,
                    records=b"",
                )
            )
            continue
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
            preferred_read_replica=r.preferred_read_replica,
            records=r.records,
        )
        if r.error is ErrorCode.NONE:
            data.aborted_transactions = _aborted(r) if committed else None
        if r.diverging_epoch is not None:
            data.diverging_epoch = EpochEndOffset(epoch=r.diverging_epoch[0], end_offset=r.diverging_epoch[1])
        parts.append(data)
    return _response(topics, session_error, session_id)


def _aborted(r: FetchPartitionData) -> list[AbortedTransaction]:
    """read_committed: the aborted transactions overlapping the records returned."""
    return [
        AbortedTransaction(producer_id=t.producer_id, first_offset=t.first_offset)
        for t in r.aborted_transactions or ()
    ]


async def _respond_when_ready(
    context: FetchContext,
    pending: Awaitable[list[FetchPartitionData]],
    committed: bool,
    version: int,
    zstd: ZstdCheck | None,
) -> FetchResponse:
    return _build(context, await pending, committed, version, zstd)


@handler(ApiKey.FETCH, versions=(4, 12), answers_inline=True)
def handle_fetch(ctx: RequestContext, request: FetchRequest):  # -> FetchResponse | Awaitable[FetchResponse]
    version = ctx.api_version
    context = _session_context(ctx, request)
    if context.error is not ErrorCode.NONE:
        return _response([], context.error)
    committed = request.isolation_level == READ_COMMITTED
    # Read on each topic of the session context; ClusterAction for followers
    denied = fetch_denied_topics(ctx, request.replica_id, (p.topic for p, _ in context.partitions))
    # KIP-541: fetch.max.bytes caps what a consumer may ask for
    max_bytes = min(request.max_bytes, ctx.broker.config["fetch.max.bytes"])
    params = FetchParams(
        max_wait_ms=request.max_wait_ms,
        # KafkaApis.handleFetchRequest: fetchMinBytes = min(minBytes, fetchMaxBytes), so a full
        # answer is never held back for bytes it could not carry
        min_bytes=min(request.min_bytes, max_bytes),
        max_bytes=max_bytes,
        isolation=(
            FetchIsolation.LOG_END
            if request.replica_id >= 0
            else FetchIsolation.TXN_COMMITTED
            if committed
            else FetchIsolation.HIGH_WATERMARK
        ),
        replica_id=max(request.replica_id, -1),
        file_records=ctx.sends_file_records,
        # KafkaApis.handleFetchRequest: a consumer's v11+ fetch carries its rack (KIP-392)
        client_metadata=(
            ClientMetadata(request.rack_id or "", ctx.listener)
            if version >= 11 and request.replica_id < 0
            else None
        ),
    )
    replica_manager = ctx.broker.replica_manager
    infos = [((p.topic, p.partition), info) for p, info in context.partitions if p.topic not in denied]
    results = replica_manager.fetch_messages(params, infos) if infos or not denied else []
    if denied:
        results = with_denied_fetches([p.topic for p, _ in context.partitions], results, denied)
    # Fetch v10 brought zstd (KIP-110): only older versions look at the topics' configs
    zstd = _zstd_check(replica_manager) if version < 10 else None
    if isinstance(results, list):
        return _build(context, results, committed, version, zstd)
    return _respond_when_ready(context, results, committed, version, zstd)


def _fetch_data(request: FetchRequest, version: int) -> list[tuple[SessionPartition, FetchPartitionInfo]]:
    return [
        (
            SessionPartition(t.topic, None, p.partition),
            FetchPartitionInfo(
                fetch_offset=p.fetch_offset,
                max_bytes=p.partition_max_bytes,
                # FetchRequest.optionalEpoch: any negative epoch is "not given" in a Fetch
                current_leader_epoch=max(p.current_leader_epoch, -1) if version >= 9 else -1,
                last_fetched_epoch=p.last_fetched_epoch if version >= 12 else -1,
                log_start_offset=p.log_start_offset if version >= 5 else -1,
            ),
        )
        for t in request.topics
        for p in t.partitions
    ]


def _session_context(ctx: RequestContext, request: FetchRequest) -> FetchContext:
    """The fetch's session context: what to read (the request's partitions, or its
    session's) and how to answer (broker/fetch_session.py)."""
    version = ctx.api_version
    fetch_data = _fetch_data(request, version)
    forgotten = [
        SessionPartition(t.topic, None, p) for t in request.forgotten_topics_data or () for p in t.partitions
    ]
    return ctx.broker.fetch_manager.new_context(
        version, request.session_id, request.session_epoch, request.replica_id >= 0, fetch_data, forgotten
    )
