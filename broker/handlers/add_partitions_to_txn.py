"""AddPartitionsToTxn (key 24), versions 0-5.

Behaviour (Kafka's ``KafkaApis.handleAddPartitionsToTxnRequest`` and
``TransactionCoordinator.handleAddPartitionsToTransaction``):
- v0-3 (clients): one transaction. Partitions that do not exist get
  UNKNOWN_TOPIC_OR_PARTITION and the others OPERATION_NOT_ATTEMPTED (nothing is
  added); else the coordinator adds them all (the transaction becomes Ongoing,
  written to ``__transaction_state``) and every partition carries its one answer:
  NONE, INVALID_PRODUCER_ID_MAPPING, PRODUCER_FENCED (INVALID_PRODUCER_EPOCH before
  v2), CONCURRENT_TRANSACTIONS (a commit or abort is completing), NOT_COORDINATOR,
  COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE.
- v4+ (brokers, KIP-890 part 1): a batch of transactions. ``verify_only`` asks
  whether each partition is already in the transaction (NONE, or
  TRANSACTION_ABORTABLE, as Kafka 3.8+) without adding it; otherwise the partitions are added as
  above.
- Authorization (Kafka's ``handleAddPartitionsToTxnRequest``): v0-3 need Write on the
  transactional id (else TRANSACTIONAL_ID_AUTHORIZATION_FAILED for every partition), then
  Write on each topic; internal topics are never writable here (as Kafka, with or without an
  authorizer). Refused topics' partitions get TOPIC_AUTHORIZATION_FAILED, unknown ones
  UNKNOWN_TOPIC_OR_PARTITION and the rest OPERATION_NOT_ATTEMPTED. v4+ (broker to broker)
  needs ClusterAction on the cluster: else the top-level CLUSTER_AUTHORIZATION_FAILED.

Version notes: v2 adds PRODUCER_FENCED; v3 is flexible; v4 batches
transactions, with a top-level error code; v5 may answer TRANSACTION_ABORTABLE
(never sent here: the transaction version 2 feature is not enabled).
"""

from __future__ import annotations

from broker.handlers import RequestContext, handler
from coordinator.acl_model import AclOperation, ResourceType
from coordinator.cluster_state import INTERNAL_TOPICS
from protocol.errors import ErrorCode
from protocol.messages import AddPartitionsToTxnRequest, AddPartitionsToTxnResponse, ApiKey

R = AddPartitionsToTxnResponse


def _topic_results(topics: list, errors: dict[tuple[str, int], ErrorCode]) -> list:
    return [
        R.AddPartitionsToTxnTopicResult(
            name=t.name,
            results_by_partition=[
                R.AddPartitionsToTxnPartitionResult(
                    partition_index=p, partition_error_code=errors[(t.name, p)].code
                )
                for p in t.partitions
            ],
        )
        for t in topics
    ]


async def _add(
    ctx: RequestContext,
    transactional_id: str,
    producer_id: int,
    producer_epoch: int,
    topics: list,
    verify_only: bool,
) -> dict[tuple[str, int], ErrorCode]:
    partitions = [(t.name, p) for t in topics for p in t.partitions]
    txns = ctx.broker.transactions
    from_client = ctx.api_version < 4
    if from_client and not ctx.authorize(AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, transactional_id):
        return dict.fromkeys(partitions, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
    writable = {t.name for t in topics}
    if from_client:  # only clients need Write on the topics (KafkaApis filters internal ones out first)
        writable = ctx.authorized(AclOperation.WRITE, ResourceType.TOPIC, writable - INTERNAL_TOPICS)
    cache = ctx.broker.metadata_cache
    refused = {
        tp: ErrorCode.TOPIC_AUTHORIZATION_FAILED
        if tp[0] not in writable
        else ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
        for tp in partitions
        if tp[0] not in writable or cache.partition_state(*tp) is None
    }
    if refused:
        return {tp: refused.get(tp, ErrorCode.OPERATION_NOT_ATTEMPTED) for tp in partitions}
    if verify_only:  # after the partitions' checks, as KafkaApis.handleAddPartitionsToTxnRequest
        return txns.verify_partitions(transactional_id, producer_id, producer_epoch, partitions)
    error = await txns.add_partitions(transactional_id, producer_id, producer_epoch, partitions)
    if error is ErrorCode.PRODUCER_FENCED and ctx.api_version < 2:
        error = ErrorCode.INVALID_PRODUCER_EPOCH
    return dict.fromkeys(partitions, error)


@handler(ApiKey.ADD_PARTITIONS_TO_TXN, versions=(0, 5))
async def handle_add_partitions_to_txn(
    ctx: RequestContext, request: AddPartitionsToTxnRequest
) -> AddPartitionsToTxnResponse:
    if ctx.api_version < 4:
        errors = await _add(
            ctx,
            request.v3_and_below_transactional_id,
            request.v3_and_below_producer_id,
            request.v3_and_below_producer_epoch,
            request.v3_and_below_topics,
            False,
        )
        return R(
            throttle_time_ms=0,
            results_by_topic_v3_and_below=_topic_results(request.v3_and_below_topics, errors),
        )
    if not ctx.authorize(AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER):
        return R(
            throttle_time_ms=0,
            error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code,
            results_by_transaction=[],
        )
    results = []
    for txn in request.transactions:
        errors = await _add(
            ctx, txn.transactional_id, txn.producer_id, txn.producer_epoch, txn.topics, txn.verify_only
        )
        results.append(
            R.AddPartitionsToTxnResult(
                transactional_id=txn.transactional_id, topic_results=_topic_results(txn.topics, errors)
            )
        )
    return R(throttle_time_ms=0, error_code=0, results_by_transaction=results)
