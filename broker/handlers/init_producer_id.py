"""InitProducerId (key 22), versions 0-5.

Behaviour, for idempotent producers (``transactional_id`` null): a fresh
producer id from the broker's ProducerIdManager with epoch 0, whatever
producer id and epoch a v3+ request carries (Kafka's
``TransactionCoordinator.handleInitProducerId``: "if the transactional id is
null, then always blindly accept the request and return a new producerId").
Ids come from blocks leased from ZooKeeper or the local lease file, so no two
producers of the cluster share one, even across restarts.

Errors:
- ``transactional_id`` "" -> INVALID_REQUEST (TransactionCoordinator).
- any other transactional id -> TRANSACTIONAL_ID_AUTHORIZATION_FAILED (53):
  transactions are not implemented, and this is what a Kafka broker answers
  when it refuses transactions for an id (``KafkaApis.handleInitProducerIdRequest``
  without WRITE on the TransactionalId). Every client treats it as fatal at
  once, with no retry loop: the Java producer (``TransactionManager``'s
  InitProducerIdHandler calls ``fatalError``) and librdkafka
  (``rd_kafka_idemp_check_error``). The response has no error message field in
  any version, so the reason is logged. FindCoordinator for a transactional id
  answers the same error, so a client fails the same way on either path.
- no block of ids at hand (the next block is still being leased, ZooKeeper is
  away) -> COORDINATOR_LOAD_IN_PROGRESS, retriable: clients try again
  (RPCProducerIdManager does the same).
- producer ids fatally exhausted -> UNKNOWN_SERVER_ERROR, as Kafka.
Error responses carry producer id -1 and epoch -1 (``initTransactionError``).

Version notes: v1 is v0; v2 is flexible; v3 adds ProducerId/ProducerEpoch
(KIP-360, ignored without a transactional id); v4 lets the coordinator answer
PRODUCER_FENCED (KIP-588) and v5 TRANSACTION_ABORTABLE (KIP-890), neither of
which this broker sends. v6 (KIP-939 two-phase commit) is not served.

Not implemented: transactions (transactional ids, epoch bumps by the
coordinator, transaction timeouts).

Authorization (before anything else, as ``KafkaApis``): a transactional id needs Write on it
(TRANSACTIONAL_ID_AUTHORIZATION_FAILED); an idempotent producer IdempotentWrite on the cluster
or Write on at least one topic (KIP-679), else CLUSTER_AUTHORIZATION_FAILED.
"""

from __future__ import annotations

import logging

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
def handle_init_producer_id(ctx: RequestContext, request: InitProducerIdRequest) -> InitProducerIdResponse:
    transactional_id = request.transactional_id
    denied = init_producer_id_error(ctx, transactional_id)  # TransactionalId Write / IdempotentWrite
    if denied is not None:
        return _error(denied)
    if transactional_id is not None:
        if transactional_id == "":
            return _error(ErrorCode.INVALID_REQUEST)
        log.info(
            "InitProducerId from %s (client %s) for transactional id %r refused with "
            "TRANSACTIONAL_ID_AUTHORIZATION_FAILED: transactions are not supported",
            ctx.peer,
            ctx.client_id,
            transactional_id,
        )
        return _error(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
    try:
        producer_id = ctx.broker.producer_ids.generate_producer_id()
    except KafkaError as exc:
        if not exc.error.retriable:
            log.error("InitProducerId from %s failed: %s", ctx.peer, exc)
        return _error(exc.error)
    return InitProducerIdResponse(throttle_time_ms=0, error_code=0, producer_id=producer_id, producer_epoch=0)
