"""ListTransactions (key 66), versions 0-2.

Behaviour (Kafka's ``TransactionStateManager.listTransactionStates``): the
transactional ids coordinated by this broker, filtered by state names (unknown
names are returned in ``unknown_state_filters`` and match nothing), producer ids,
v1's duration (transactions, in any state, started longer ago than it, in ms; Empty ids
have no start and are always listed; -1: no filter) and v2's transactional id pattern (a
regular expression matched against the whole id, in RE2 syntax so that no pattern can hold
the event loop; INVALID_REGULAR_EXPRESSION if it does not compile). COORDINATOR_LOAD_IN_PROGRESS
while a partition of ``__transaction_state`` loads, with no transactions (as Kafka).

Authorization (Kafka's ``handleListTransactionsRequest``): only the transactional ids the
principal may Describe are listed (the others are left out without an error).
"""

from __future__ import annotations

from broker.handlers import RequestContext, handler
from coordinator.acl_model import AclOperation, ResourceType
from protocol.messages import ApiKey, ListTransactionsRequest, ListTransactionsResponse

R = ListTransactionsResponse


@handler(ApiKey.LIST_TRANSACTIONS, versions=(0, 2))
def handle_list_transactions(
    ctx: RequestContext, request: ListTransactionsRequest
) -> ListTransactionsResponse:
    version = ctx.api_version
    error, unknown, found = ctx.broker.transactions.list_transactions(
        request.state_filters,
        request.producer_id_filters,
        request.duration_filter if version >= 1 else -1,
        request.transactional_id_pattern if version >= 2 else None,
    )
    visible = ctx.authorized(
        AclOperation.DESCRIBE,
        ResourceType.TRANSACTIONAL_ID,
        (t.transactional_id for t in found),
    )
    found = [t for t in found if t.transactional_id in visible]
    return R(
        throttle_time_ms=0,
        error_code=error.code,
        unknown_state_filters=unknown,
        transaction_states=[
            R.TransactionState(
                transactional_id=t.transactional_id, producer_id=t.producer_id, transaction_state=t.state
            )
            for t in found
        ],
    )
