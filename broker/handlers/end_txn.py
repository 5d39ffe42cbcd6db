"""EndTxn (key 26), versions 0-4.

Behaviour (Kafka's ``TransactionCoordinator.handleEndTransaction``): commit or abort
the producer's ongoing transaction. PrepareCommit/PrepareAbort is written to
``__transaction_state`` (acks=-1) and the answer follows; the COMMIT/ABORT markers
then go to each partition's leader and CompleteCommit/CompleteAbort is written once
all are in (``coordinator.transaction_markers``).

Errors: INVALID_REQUEST (empty id), INVALID_PRODUCER_ID_MAPPING, PRODUCER_FENCED
(INVALID_PRODUCER_EPOCH before v2), CONCURRENT_TRANSACTIONS (the same end is still
completing), INVALID_TXN_STATE (nothing to end, or the other end is completing),
NONE for a retry of an end already completed; NOT_COORDINATOR,
COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE.

Authorization (Kafka's ``handleEndTxnRequest``): Write on the transactional id, else
TRANSACTIONAL_ID_AUTHORIZATION_FAILED.

Version notes: v2 adds PRODUCER_FENCED; v3 is flexible; v4 may answer
TRANSACTION_ABORTABLE (never sent here). v5 (KIP-890 part 2, an epoch bump per
transaction) is not served: the transaction version 2 feature is not enabled.
"""

from __future__ import annotations

from broker.handlers import RequestContext, handler
from coordinator.acl_model import AclOperation, ResourceType
from protocol.errors import ErrorCode
from protocol.messages import ApiKey, EndTxnRequest, EndTxnResponse


@handler(ApiKey.END_TXN, versions=(0, 4))
async def handle_end_txn(ctx: RequestContext, request: EndTxnRequest) -> EndTxnResponse:
    if not ctx.authorize(AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, request.transactional_id):
        return EndTxnResponse(
            throttle_time_ms=0, error_code=ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code
        )
    error = await ctx.broker.transactions.end_txn(
        request.transactional_id, request.producer_id, request.producer_epoch, request.committed
    )
    if error is ErrorCode.PRODUCER_FENCED and ctx.api_version < 2:
        error = ErrorCode.INVALID_PRODUCER_EPOCH
    return EndTxnResponse(throttle_time_ms=0, error_code=error.code)
