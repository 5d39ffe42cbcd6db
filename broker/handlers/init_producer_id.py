"""InitProducerId (key 22), versions 0-5.

Behaviour, for idempotent producers (``transactional_id`` null): a fresh
producer id from the broker's ProducerIdManager with epoch 0, whatever
producer id and epoch a v3+ request carries (Kafka's
``TransactionCoordinator.handleInitProducerId``: "if the transactional id is
null, then always blindly accept the request and return a new producerId").
Ids come from blocks leased from ZooKeeper or the local lease file, so no two
producers of the cluster share one, even across restarts.

With a transactional id (Kafka's ``TransactionCoordinator.handleInitProducerId``,
``coordinator.transaction_coordinator``): the id gets a producer id on first use and
a bumped epoch on every re-init (fencing the previous producer of the id); an ongoing
transaction is aborted first (CONCURRENT_TRANSACTIONS until that is done, the client
retries); an exhausted epoch moves the id to a new producer id; v3+ requests with a
producer id and epoch are KIP-360 bumps (a retry of the last bump gets the same epoch).

Errors:
- a producer id without an epoch or an epoch without a producer id -> INVALID_REQUEST
  (KafkaApis, before the coordinator is asked, for both kinds of producer).
- ``transactional_id`` "" -> INVALID_REQUEST (TransactionCoordinator).
- ``transaction_timeout_ms`` not in 1..``transaction.max.timeout.ms`` ->
  INVALID_TRANSACTION_TIMEOUT.
- not this id's coordinator -> NOT_COORDINATOR; its partition loading ->
  COORDINATOR_LOAD_IN_PROGRESS; ``__transaction_state`` not writable ->
  COORDINATOR_NOT_AVAILABLE.
- a stale producer id/epoch (v3+) -> PRODUCER_FENCED, answered as
  INVALID_PRODUCER_EPOCH before v4 (KafkaApis, KIP-588).
- no block of ids at hand (the next block is still being leased, ZooKeeper is
  away) -> COORDINATOR_LOAD_IN_PROGRESS, retriable: clients try again
  (RPCProducerIdManager does the same).
- producer ids fatally exhausted -> UNKNOWN_SERVER_ERROR, as Kafka.
Error responses carry producer id -1 and epoch -1 (``initTransactionError``).

Version notes: v1 is v0; v2 is flexible; v3 adds ProducerId/ProducerEpoch
(KIP-360, ignored without a transactional id); v4 lets the coordinator answer
PRODUCER_FENCED (KIP-588) and v5 TRANSACTION_ABORTABLE (KIP-890). v6 (KIP-939
two-phase commit) is not served.

Authorization (before anything else, as ``KafkaApis``): a transactional id needs Write on it
(TRANSACTIONAL_ID_AUTHORIZATION_FAILED); an idempotent producer IdempotentWrite on the cluster
or Write on at least one topic (KIP-679), else CLUSTER_AUTHORIZATION_FAILED.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable

from broker.authorization import init_producer_id_error
from broker.handlers import RequestContext, handler
from protocol.errors import ErrorCode, KafkaError
from protocol.messages import ApiKey, InitProducerIdRequest, InitProducerIdResponse

log = logging.getLogger(__name__)

NO_PRODUCER_ID = -1
NO_PRODUCER_EPOCH = -1


def _error(error: ErrorCode) -> InitProducerIdResponse:
    return InitProducerIdResponse(
        throttle_time_ms=0,
        error_code=error.code,
        producer_id=NO_PRODUCER_ID,
        producer_epoch=NO_PRODUCER_EPOCH,
    )


@handler(ApiKey.INIT_PRODUCER_ID, versions=(0, 5))
def handle_init_producer_id(
    ctx: RequestContext, request: InitProducerIdRequest
) -> InitProducerIdResponse | Awaitable[InitProducerIdResponse]:
    transactional_id = request.transactional_id
    denied = init_producer_id_error(ctx, transactional_id)  # TransactionalId Write / IdempotentWrite
    if denied is not None:
        return _error(denied)
    if (request.producer_id == NO_PRODUCER_ID) != (request.producer_epoch == NO_PRODUCER_EPOCH):
        # KafkaApis.handleInitProducerIdRequest: a producer id without an epoch, or the
        # reverse, is no request a client makes.
        return _error(ErrorCode.INVALID_REQUEST)
    if transactional_id is not None:
        # Only the coordinator's answer waits (a write to __transaction_state, an abort): an
        # idempotent producer's id is answered at once, with no task of its own.
        return _init_transactional(ctx, request, transactional_id)
    try:
        producer_id = ctx.broker.producer_ids.generate_producer_id()
    except KafkaError as exc:
        if not exc.error.retriable:
            log.error("InitProducerId from %s failed: %s", ctx.peer, exc)
        return _error(exc.error)
    return InitProducerIdResponse(throttle_time_ms=0, error_code=0, producer_id=producer_id, producer_epoch=0)


async def _init_transactional(
    ctx: RequestContext, request: InitProducerIdRequest, transactional_id: str
) -> InitProducerIdResponse:
    expected = None
    if ctx.api_version >= 3 and request.producer_id != NO_PRODUCER_ID:
        expected = (request.producer_id, request.producer_epoch)
    try:
        result = await ctx.broker.transactions.init_producer_id(
            transactional_id, request.transaction_timeout_ms, expected
        )
    except KafkaError as exc:  # producer ids exhausted or not leased yet
        if not exc.error.retriable:
            log.error("InitProducerId from %s failed: %s", ctx.peer, exc)
        return _error(exc.error)
    error = result.error
    if error is ErrorCode.PRODUCER_FENCED and ctx.api_version < 4:
        error = ErrorCode.INVALID_PRODUCER_EPOCH
    if error is not ErrorCode.NONE:
        return _error(error)
    return InitProducerIdResponse(
        throttle_time_ms=0,
        error_code=0,
        producer_id=result.producer_id,
        producer_epoch=result.producer_epoch,
    )
