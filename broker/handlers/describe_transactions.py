"""DescribeTransactions (key 65), version 0.

Behaviour (Kafka's ``TransactionCoordinator.handleDescribeTransactions``): for each
transactional id coordinated here, its state (Kafka's names: Empty, Ongoing,
PrepareCommit, ...), timeout, start time, producer id and epoch and the partitions of
its transaction. Errors per id: TRANSACTIONAL_ID_NOT_FOUND, NOT_COORDINATOR,
COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, INVALID_REQUEST (empty id).

Authorization (Kafka's ``handleDescribeTransactionsRequest``): an id the principal may not
Describe answers TRANSACTIONAL_ID_AUTHORIZATION_FAILED (no state); the partitions of topics
it may not Describe are left out of a transaction.
"""

from __future__ import annotations

from broker.handlers import RequestContext, handler
from coordinator.acl_model import AclOperation, ResourceType
from protocol.errors import ErrorCode
from protocol.messages import ApiKey, DescribeTransactionsRequest, DescribeTransactionsResponse

R = DescribeTransactionsResponse


@handler(ApiKey.DESCRIBE_TRANSACTIONS, versions=(0, 0))
def handle_describe_transactions(
    ctx: RequestContext, request: DescribeTransactionsRequest
) -> DescribeTransactionsResponse:
    txns = ctx.broker.transactions
    states = []
    for txn_id in request.transactional_ids:
        if not ctx.authorize(AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, txn_id):
            states.append(
                R.TransactionState(
                    error_code=ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code,
                    transactional_id=txn_id,  # the rest keep the schema's defaults, as Kafka's
                )
            )
            continue
        d = txns.describe(txn_id)
        visible = ctx.authorized(AclOperation.DESCRIBE, ResourceType.TOPIC, d.partitions)
        states.append(
            R.TransactionState(
                error_code=d.error.code,
                transactional_id=txn_id,
                transaction_state=d.state,
                transaction_timeout_ms=d.timeout_ms,
                transaction_start_time_ms=d.start_ms,
                producer_id=d.producer_id,
                producer_epoch=d.producer_epoch,
                topics=[
                    R.TopicData(topic=t, partitions=ps) for t, ps in d.partitions.items() if t in visible
                ],
            )
        )
    return R(throttle_time_ms=0, transaction_states=states)
