"""Produce (key 0), versions 3-11 (advertised from 0).

Behaviour:
- Versions 0-2 are advertised, as Kafka 4 does (KAFKA-18659: librdkafka before
  2.12 stops compressing if Produce v0 is missing), but refused when sent: the
  connection is closed, like Kafka's rejection of removed versions.
- acks must be -1, 0 or 1 (INVALID_REQUIRED_ACKS for every partition otherwise).
  With one replica -1 equals 1, unless the topic's min.insync.replicas is above
  1 (NOT_ENOUGH_REPLICAS). timeout_ms is accepted; nothing waits on followers.
- The partitions go to the replica manager (``append_records``): each one's
  records go through the request's framing checks (one magic-2 batch, zstd from
  v7), the log's validation (CRC, counts, sizes, timestamps, codecs) and the
  idempotent-producer checks (duplicate, epoch, sequence), then are appended.
  Internal topics (``__consumer_offsets``, ``__transaction_state``) are refused
  with INVALID_TOPIC_EXCEPTION ("Cannot append to internal topic ..."), as
  Kafka's ReplicaManager refuses client appends to them. The partition result
  carries the base offset (a duplicate's original one), log append time and log
  start offset, or an error code, record errors and message (v8+).
- Transactional batches: TRANSACTIONAL_ID_AUTHORIZATION_FAILED (no
  transactions yet; InitProducerId refuses transactional ids the same way).
- zstd below v7: UNSUPPORTED_COMPRESSION_TYPE. Unknown topic or partition:
  UNKNOWN_TOPIC_OR_PARTITION (topics are auto-created by Metadata, as in Kafka).
- A partition whose log dir failed or is full: KAFKA_STORAGE_ERROR (retriable);
  v3 gets NOT_LEADER_OR_FOLLOWER instead (KAFKA_STORAGE_ERROR is v4+).
- acks=0 sends no response; if a partition failed the connection is closed so
  the client notices (Kafka's KafkaApis does the same).

Version notes: v3 brings transactional_id and magic 2; v5 log_start_offset;
v7 zstd; v8 record errors and error message; v9 flexible; v10 the current-leader
tag (not sent: this broker is always the leader); v11 TRANSACTION_ABORTABLE
(no transactions yet). v12+ (transaction v2, topic ids) are not served.
"""

from __future__ import annotations

from collections.abc import Awaitable, Mapping

from broker.handlers import CloseConnection, RequestContext, handler
from broker.replica_manager import AppendOrigin, PartitionAppendResult, TopicPartition
from protocol.errors import ErrorCode, KafkaError
from protocol.messages import ApiKey, ProduceRequest, ProduceResponse

PartitionResponse = ProduceResponse.PartitionProduceResponse
TopicResponse = ProduceResponse.TopicProduceResponse
BatchIndexAndErrorMessage = ProduceResponse.BatchIndexAndErrorMessage
AppendResults = Mapping[TopicPartition, PartitionAppendResult]


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


def _build(request: ProduceRequest, results: AppendResults, version: int) -> ProduceResponse | None:
    """The answer in the request's order; None for acks=0 (CloseConnection if a partition failed)."""
    failed = False
    topics = []
    for t in request.topic_data:
        partitions = []
        for p in t.partition_data:
            result = results[(t.name, p.index)]
            if result.error is not None:
                failed = True
                partitions.append(_error(p.index, result.error, version))
                continue
            info = result.info
            partitions.append(
                PartitionResponse(
                    index=p.index,
                    error_code=0,
                    base_offset=info.base_offset,
                    log_append_time_ms=info.log_append_time,
                    log_start_offset=info.log_start_offset,
                )
            )
        topics.append(TopicResponse(name=t.name, partition_responses=partitions))
    if request.acks == 0:
        if failed:
            errors = {
                ErrorCode.for_code(pr.error_code).name for tr in topics for pr in tr.partition_responses
            }
            raise CloseConnection(f"acks=0 produce failed ({', '.join(sorted(errors - {'NONE'}))})")
        return None
    return ProduceResponse(responses=topics, throttle_time_ms=0)


async def _respond_when_appended(
    request: ProduceRequest, pending: Awaitable[AppendResults], version: int
) -> ProduceResponse | None:
    return _build(request, await pending, version)


@handler(ApiKey.PRODUCE, versions=(3, 11), advertise_from=0)
def handle_produce(
    ctx: RequestContext, request: ProduceRequest
):  # -> ProduceResponse | None | Awaitable[...]
    entries = [((t.name, p.index), p.records) for t in request.topic_data for p in t.partition_data]
    results = ctx.broker.replica_manager.append_records(
        entries,
        required_acks=request.acks,
        origin=AppendOrigin.CLIENT,
        timeout_ms=request.timeout_ms,
        produce_version=ctx.api_version,
    )
    if isinstance(results, dict):
        return _build(request, results, ctx.api_version)
    return _respond_when_appended(request, results, ctx.api_version)
