"""Produce (key 0), versions 3-11 (advertised from 0).

Behaviour:
- Versions 0-2 are advertised, as Kafka 4 does (KAFKA-18659: librdkafka before
  2.12 stops compressing if Produce v0 is missing), but refused when sent: the
  connection is closed, like Kafka's rejection of removed versions.
- acks must be -1, 0 or 1 (INVALID_REQUIRED_ACKS for every partition otherwise).
  acks=1 answers once the leader appended. acks=-1 first needs an ISR of at least
  the topic's min.insync.replicas, capped at the replication factor (Kafka's
  ``effectiveMinIsr``; NOT_ENOUGH_REPLICAS, nothing appended, otherwise), then
  waits in the replica manager's DelayedProduce purgatory until the high watermark
  passes each partition's append (the followers in the ISR fetched it): at
  ``timeout_ms`` the partitions still waiting answer REQUEST_TIMED_OUT; one whose
  ISR fell below min.insync.replicas meanwhile NOT_ENOUGH_REPLICAS_AFTER_APPEND;
  one whose leadership moved NOT_LEADER_OR_FOLLOWER (Kafka's ``DelayedProduce``).
  The records stay appended in every case, as in Kafka. While it waits only its
  connection is parked, and responses keep the request order. The answer is built and
  written where the wait ends, inside the follower's fetch that moved the high watermark
  (``answers_inline``, broker/inline_answer.py; Kafka's ``DelayedProduce.onComplete``).
- The partitions go to the replica manager (``append_records``): each one's
  records go through the request's framing checks (one magic-2 batch, zstd from
  v7), the log's validation (CRC, counts, sizes, timestamps, codecs) and the
  idempotent-producer checks (duplicate, epoch, sequence), then are appended.
  Internal topics (``__consumer_offsets``, ``__transaction_state``) are refused
  with INVALID_TOPIC_EXCEPTION ("Cannot append to internal topic ..."), as
  Kafka's ReplicaManager refuses client appends to them. The partition result
  carries the base offset (a duplicate's original one), log append time and log
  start offset, or an error code, record errors and message (v8+).
  A batch whose validation is more than the event loop's share of the request (many
  compressed records, a large inflation or recompression: ``storage.log_validator``'s
  ``InlineBudget``) is validated on the replica manager's worker thread, as Kafka does it
  on a request handler thread; its partition's later appends wait for it, in order.
- Transactional batches need the request's transactional id
  (TRANSACTIONAL_ID_AUTHORIZATION_FAILED otherwise, as Kafka's KafkaApis). The first one
  of a producer on a partition where it has no open transaction is verified with the
  transaction coordinator first (KIP-890 part 1, ``broker/txn_partitions.py``):
  INVALID_TXN_STATE when the partition was not added to the transaction, NOT_ENOUGH_REPLICAS
  (retriable) while the coordinator cannot answer, INVALID_PRODUCER_EPOCH when fenced.
  ``transaction.partition.verification.enable=false`` skips the check, as Kafka does.
- Authorization (``broker.authorization.produce_denials``): a request with a transactional
  batch needs Write on its transactional id (else every partition is
  TRANSACTIONAL_ID_AUTHORIZATION_FAILED); each topic needs Write (else its partitions are
  TOPIC_AUTHORIZATION_FAILED and are not appended).
- zstd below v7: UNSUPPORTED_COMPRESSION_TYPE. Unknown topic or partition:
  UNKNOWN_TOPIC_OR_PARTITION (topics are auto-created by Metadata, as in Kafka).
- A partition whose log dir failed or is full: KAFKA_STORAGE_ERROR (retriable);
  v3 gets NOT_LEADER_OR_FOLLOWER instead (KAFKA_STORAGE_ERROR is v4+).
- A partition named twice in one request is appended once, with its last records, and
  answered once (Kafka collects the request's partitions into a map).
- acks=0 sends no response; if a partition failed the connection is closed so
  the client notices (Kafka's KafkaApis does the same).

Version notes: v3 brings transactional_id and magic 2; v5 log_start_offset;
v7 zstd; v8 record errors and error message; v9 flexible; v10 the KIP-951 leader
hints: a partition answered NOT_LEADER_OR_FOLLOWER carries ``CurrentLeader`` {leader id,
leader epoch} (from the hosted partition, else the MetadataCache, else -1/-1) and the
response's ``NodeEndpoints`` lists that leader on the request's listener if it is alive
(Kafka's ``KafkaApis.handleProduceRequest`` / ``getCurrentLeader``); v11
TRANSACTION_ABORTABLE (a verification answer kept as is from v11). v12+ (transaction v2, topic ids) are not served.
"""

from __future__ import annotations

import struct
from collections.abc import Awaitable, Mapping

from broker.authorization import produce_denials
from broker.handlers import CloseConnection, RequestContext, handler
from broker.replica_manager import AppendOrigin, PartitionAppendResult, TopicPartition
from protocol.errors import ErrorCode, KafkaError
from protocol.messages import ApiKey, ProduceRequest, ProduceResponse
from protocol.messages._base import _new

PartitionResponse = ProduceResponse.PartitionProduceResponse
TopicResponse = ProduceResponse.TopicProduceResponse
BatchIndexAndErrorMessage = ProduceResponse.BatchIndexAndErrorMessage
LeaderIdAndEpoch = ProduceResponse.LeaderIdAndEpoch
NodeEndpoint = ProduceResponse.NodeEndpoint
AppendResults = Mapping[TopicPartition, PartitionAppendResult]
PartitionData = ProduceRequest.PartitionProduceData
TopicData = ProduceRequest.TopicProduceData

_I16 = struct.Struct(">h")
_I32 = struct.Struct(">i")
_ACKS_TIMEOUT = struct.Struct(">hi")
_ZERO_UUID = TopicData().topic_id
_NO_LEADER = LeaderIdAndEpoch()
_NO_RECORD_ERRORS: list[BatchIndexAndErrorMessage] = []


def decode_produce_request(frame: memoryview, version: int) -> tuple[str | None, ProduceRequest] | None:
    """The client id and the request of a Produce frame (header and body read in one pass),
    or None when the frame is not of the plain shape read here: tagged fields, a length over
    the frame, a string that is not UTF-8, more than 127 topics or partitions (flexible
    versions). The caller then decodes it with the generic decoders, which give the same
    objects for a frame read here and the errors for one that is not."""
    end = len(frame)
    try:
        (n,) = _I16.unpack_from(frame, 8)
        pos = 10
        client_id = None
        if n >= 0:
            client_id = str(frame[pos : pos + n], "utf-8", "replace")
            pos += n
            if pos > end:
                return None
        elif n != -1:
            return None
        if version >= 9:
            if frame[pos]:  # the header's tagged fields
                return None
            pos += 1
            n = frame[pos] - 1  # transactional id: compact nullable string (one-byte length)
            pos += 1
            transactional_id = None
            if n >= 0x7F:
                return None
            if n >= 0:
                transactional_id = str(frame[pos : pos + n], "utf-8", "replace")
                pos += n
            acks, timeout_ms = _ACKS_TIMEOUT.unpack_from(frame, pos)
            pos += 6
            topic_count = frame[pos] - 1
            pos += 1
            if not 0 <= topic_count < 0x7F:
                return None
            topics = []
            for _ in range(topic_count):
                n = frame[pos] - 1
                pos += 1
                if not 0 <= n < 0x7F:
                    return None
                name = str(frame[pos : pos + n], "utf-8", "replace")
                pos += n
                partition_count = frame[pos] - 1
                pos += 1
                if not 0 <= partition_count < 0x7F:
                    return None
                partitions = []
                for _ in range(partition_count):
                    (index,) = _I32.unpack_from(frame, pos)
                    pos += 4
                    # records: compact nullable bytes, an unsigned varint length (+1)
                    size = 0
                    shift = 0
                    while True:
                        b = frame[pos]
                        pos += 1
                        size |= (b & 0x7F) << shift
                        if b < 0x80:
                            break
                        shift += 7
                        if shift > 28:
                            return None
                    if size == 0 or pos + size - 1 > end or frame[pos + size - 1]:  # null, or tags
                        return None
                    partition = _new(PartitionData)
                    partition.index = index
                    partition.records = frame[pos : pos + size - 1]
                    partition.unknown_tagged_fields = None
                    partitions.append(partition)
                    pos += size
                if frame[pos]:  # the topic's tagged fields
                    return None
                pos += 1
                topic = _new(TopicData)
                topic.name = name
                topic.topic_id = _ZERO_UUID
                topic.partition_data = partitions
                topic.unknown_tagged_fields = None
                topics.append(topic)
            if frame[pos]:  # the request's tagged fields
                return None
        else:
            (n,) = _I16.unpack_from(frame, pos)
            pos += 2
            transactional_id = None
            if n >= 0:
                transactional_id = str(frame[pos : pos + n], "utf-8", "replace")
                pos += n
            elif n != -1:
                return None
            acks, timeout_ms = _ACKS_TIMEOUT.unpack_from(frame, pos)
            pos += 6
            (topic_count,) = _I32.unpack_from(frame, pos)
            pos += 4
            if topic_count < 0 or topic_count > end:
                return None
            topics = []
            for _ in range(topic_count):
                (n,) = _I16.unpack_from(frame, pos)
                pos += 2
                if n < 0:
                    return None
                name = str(frame[pos : pos + n], "utf-8", "replace")
                pos += n
                (partition_count,) = _I32.unpack_from(frame, pos)
                pos += 4
                if partition_count < 0 or partition_count > end:
                    return None
                partitions = []
                for _ in range(partition_count):
                    index, size = struct.unpack_from(">ii", frame, pos)
                    pos += 8
                    if size < 0 or pos + size > end:
                        return None
                    partition = _new(PartitionData)
                    partition.index = index
                    partition.records = frame[pos : pos + size]
                    partition.unknown_tagged_fields = None
                    partitions.append(partition)
                    pos += size
                topic = _new(TopicData)
                topic.name = name
                topic.topic_id = _ZERO_UUID
                topic.partition_data = partitions
                topic.unknown_tagged_fields = None
                topics.append(topic)
        if pos > end:
            return None
    except (struct.error, IndexError, UnicodeDecodeError):
        return None
    request = _new(ProduceRequest)
    request.transactional_id = transactional_id
    request.acks = acks
    request.timeout_ms = timeout_ms
    request.topic_data = topics
    request.unknown_tagged_fields = None
    return client_id, request


def _error(index: int, exc: KafkaError, version: int) -> PartitionResponse:
    record_errors = [
        BatchIndexAndErrorMessage(batch_index=i, batch_index_error_message=m)
        for i, m in (getattr(exc, "record_errors", None) or ())
    ]
    return PartitionResponse(
        index=index,
        # ProduceResponse.json: KAFKA_STORAGE_ERROR only from v4; v3 gets NOT_LEADER_OR_FOLLOWER.
        error_code=(
            ErrorCode.NOT_LEADER_OR_FOLLOWER.code
            if version < 4 and exc.error is ErrorCode.KAFKA_STORAGE_ERROR
            else exc.code
        ),
        base_offset=-1,
        log_append_time_ms=-1,
        log_start_offset=-1,
        record_errors=record_errors,
        error_message=exc.message,
    )


def _current_leader(ctx: RequestContext, topic: str, index: int) -> tuple[int, int]:
    """Kafka's ``KafkaApis.getCurrentLeader``: (leader id, leader epoch) from the hosted
    partition, else from the metadata cache, else (-1, -1)."""
    broker = ctx.broker
    partition = broker.replica_manager.get_partition(topic, index)
    if partition is not None:
        return partition.leader_id, partition.leader_epoch
    state = broker.metadata_cache.partition_state(topic, index)
    if state is not None:
        return state.leader, state.leader_epoch
    return -1, -1


def _add_leader_hint(
    ctx: RequestContext, topic: str, response: PartitionResponse, nodes: dict[int, NodeEndpoint]
) -> None:
    """KIP-951 on NOT_LEADER_OR_FOLLOWER (v10+): the current leader and its endpoint."""
    leader_id, leader_epoch = _current_leader(ctx, topic, response.index)
    response.current_leader = LeaderIdAndEpoch(leader_id=leader_id, leader_epoch=leader_epoch)
    if leader_id < 0 or leader_id in nodes:
        return
    cache = ctx.broker.metadata_cache
    endpoint = cache.endpoint(leader_id, ctx.listener)
    if endpoint is not None:
        broker = cache.get_alive_broker(leader_id)
        nodes[leader_id] = NodeEndpoint(
            node_id=leader_id,
            host=endpoint.host,
            port=endpoint.port,
            rack=broker.rack if broker is not None else None,
        )


def _build(
    ctx: RequestContext, request: ProduceRequest, results: AppendResults, deduplicated: bool = False
) -> ProduceResponse | None:
    """The answer in the request's order; None for acks=0 (CloseConnection if a partition failed)."""
    failed = False
    topics = []
    leader_hints = ctx.api_version >= 10
    nodes: dict[int, NodeEndpoint] = {}
    # Only for a request that named a partition twice (answered once).
    answered: set[tuple[str, int]] | None = set() if deduplicated else None
    for t in request.topic_data:
        partitions = []
        for p in t.partition_data:
            if answered is not None:
                if (t.name, p.index) in answered:
                    continue
                answered.add((t.name, p.index))
            result = results[(t.name, p.index)]
            if result.error is not None:
                failed = True
                response = _error(p.index, result.error, ctx.api_version)
                if leader_hints and result.error.error is ErrorCode.NOT_LEADER_OR_FOLLOWER:
                    _add_leader_hint(ctx, t.name, response, nodes)
                partitions.append(response)
                continue
            info = result.info
            # PartitionResponse(...) without its keyword handling and default objects: the
            # leader hint (-1/-1) and the empty record errors are shared, never changed.
            response = _new(PartitionResponse)
            response.index = p.index
            response.error_code = 0
            response.base_offset = info.base_offset
            response.log_append_time_ms = info.log_append_time
            response.log_start_offset = info.log_start_offset
            response.record_errors = _NO_RECORD_ERRORS
            response.error_message = None
            response.current_leader = _NO_LEADER
            response.unknown_tagged_fields = None
            partitions.append(response)
        topic = _new(TopicResponse)
        topic.name = t.name
        topic.topic_id = _ZERO_UUID
        topic.partition_responses = partitions
        topic.unknown_tagged_fields = None
        topics.append(topic)
    if request.acks == 0:
        if failed:
            errors = {
                ErrorCode.for_code(pr.error_code).name for tr in topics for pr in tr.partition_responses
            }
            raise CloseConnection(f"acks=0 produce failed ({', '.join(sorted(errors - {'NONE'}))})")
        return None
    return ProduceResponse(responses=topics, throttle_time_ms=0, node_endpoints=list(nodes.values()))


async def _respond_when_appended(
    ctx: RequestContext,
    request: ProduceRequest,
    pending: Awaitable[AppendResults],
    denied: AppendResults,
    deduplicated: bool,
) -> ProduceResponse | None:
    return _build(ctx, request, {**await pending, **denied}, deduplicated)


@handler(ApiKey.PRODUCE, versions=(3, 11), advertise_from=0, answers_inline=True)
def handle_produce(
    ctx: RequestContext, request: ProduceRequest
):  # -> ProduceResponse | None | Awaitable[...]
    denied = produce_denials(ctx, request)  # Write on each topic (and the transactional id)
    entries = [((t.name, p.index), p.records) for t in request.topic_data for p in t.partition_data]
    deduplicated = len(entries) > 1 and len(unique := dict(entries)) < len(entries)
    if deduplicated:
        # A partition named twice: the last records win and it is answered once, as Kafka's
        # KafkaApis.handleProduceRequest collects the partitions into a map.
        entries = list(unique.items())
    if denied:
        entries = [e for e in entries if e[0] not in denied]
    results = ctx.broker.replica_manager.append_records(
        entries,
        required_acks=request.acks,
        origin=AppendOrigin.CLIENT,
        timeout_ms=request.timeout_ms,
        produce_version=ctx.api_version,
        transactional_id=request.transactional_id,
    )
    if isinstance(results, dict):
        return _build(ctx, request, {**results, **denied} if denied else results, deduplicated)
    return _respond_when_appended(ctx, request, results, denied, deduplicated)
