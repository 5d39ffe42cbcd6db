"""Produce (key 0), versions 3-11 (advertised from 0).

Behaviour:
- Versions 0-2 are advertised, as Kafka 4 does (KAFKA-18659: librdkafka before
  2.12 stops compressing if Produce v0 is missing), but refused when sent: the
  connection is closed, like Kafka's rejection of removed versions.
- acks must be -1, 0 or 1 (INVALID_REQUIRED_ACKS for every partition otherwise).
  With one replica -1 equals 1, unless the topic's min.insync.replicas is above
  1 (NOT_ENOUGH_REPLICAS). timeout_ms is accepted; nothing waits on followers.
- Each partition's records go through the log's validation (one magic-2
  batch, CRC, counts, sizes, timestamps, codecs) and the idempotent-producer
  checks (duplicate, epoch, sequence), then are appended; the partition result
  carries the base offset (a duplicate's original one), log append time and log
  start offset, or an error code, record errors and message (v8+).
- Transactional batches: TRANSACTIONAL_ID_AUTHORIZATION_FAILED (no
  transactions yet; InitProducerId refuses transactional ids the same way).
- zstd below v7: UNSUPPORTED_COMPRESSION_TYPE. Unknown topic or partition:
  UNKNOWN_TOPIC_OR_PARTITION (topics are auto-created by Metadata, as in Kafka).
- acks=0 sends no response; if a partition failed the connection is closed so
  the client notices (Kafka's KafkaApis does the same).

Version notes: v3 brings transactional_id and magic 2; v5 log_start_offset;
v7 zstd; v8 record errors and error message; v9 flexible; v10 the current-leader
tag (not sent: this broker is always the leader); v11 TRANSACTION_ABORTABLE
(no transactions yet). v12+ (transaction v2, topic ids) are not served.
"""

from __future__ import annotations

from broker.handlers import CloseConnection, RequestContext, handler
from protocol.errors import ErrorCode, KafkaError
from protocol.messages import ApiKey, ProduceRequest, ProduceResponse
from protocol.record_batch import TRANSACTIONAL_MASK
from storage.log_validator import validate_produce_records

PartitionResponse = ProduceResponse.PartitionProduceResponse
TopicResponse = ProduceResponse.TopicProduceResponse
BatchIndexAndErrorMessage = ProduceResponse.BatchIndexAndErrorMessage


def _error(index: int, exc: KafkaError) -> PartitionResponse:
    record_errors = [
        BatchIndexAndErrorMessage(batch_index=i, batch_index_error_message=m)
        for i, m in (getattr(exc, "record_errors", None) or ())
    ]
    return PartitionResponse(
        index=index,
        error_code=exc.code,
        base_offset=-1,
        log_append_time_ms=-1,
        log_start_offset=-1,
        record_errors=record_errors,
        error_message=exc.message,
    )


@handler(ApiKey.PRODUCE, versions=(3, 11), advertise_from=0)
def handle_produce(ctx: RequestContext, request: ProduceRequest) -> ProduceResponse | None:
    rm = ctx.broker.replica_manager
    acks = request.acks
    version = ctx.api_version
    bad_acks = acks not in (-1, 0, 1)
    failed = False
    topics = []
    for t in request.topic_data:
        partitions = []
        for p in t.partition_data:
            try:
                if bad_acks:
                    raise KafkaError(ErrorCode.INVALID_REQUIRED_ACKS)
                # KafkaApis.handleProduceRequest: unknown partitions before record checks
                plog = rm.get_log(t.name, p.index)
                records = p.records
                # ProduceRequest.validateRecords: one magic-2 batch, zstd only from v7
                attributes = validate_produce_records(records, version)
                if attributes & TRANSACTIONAL_MASK:
                    # No transaction coordinator exists, so no producer can hold a
                    # transactional id (InitProducerId refuses them with the same code);
                    # accepting the batch would open a transaction nothing could end.
                    raise KafkaError(
                        ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
                        "Transactional records are not supported by this broker",
                    )
                info = rm.append(plog, records, required_acks=acks)
                partitions.append(
                    PartitionResponse(
                        index=p.index,
                        error_code=0,
                        base_offset=info.base_offset,
                        log_append_time_ms=info.log_append_time,
                        log_start_offset=info.log_start_offset,
                    )
                )
            except KafkaError as exc:
                failed = True
                partitions.append(_error(p.index, exc))
        topics.append(TopicResponse(name=t.name, partition_responses=partitions))
    if acks == 0:
        if failed:
            errors = {
                ErrorCode.for_code(pr.error_code).name for tr in topics for pr in tr.partition_responses
            }
            raise CloseConnection(f"acks=0 produce failed ({', '.join(sorted(errors - {'NONE'}))})")
        return None
    return ProduceResponse(responses=topics, throttle_time_ms=0)
