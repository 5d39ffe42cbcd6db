"""InitProducerId with only one of ProducerId / ProducerEpoch set (v3+): INVALID_REQUEST, as KafkaApis."""

from __future__ import annotations

import pytest

from protocol.errors import ErrorCode
from protocol.messages import FindCoordinatorRequest, InitProducerIdRequest
from tests.support.polling import wait_until
from tests.support.wire_client import WireClient

pytestmark = pytest.mark.integration


@pytest.fixture
def client(broker):
    with WireClient(broker.host, broker.port) as c:
        request = FindCoordinatorRequest(key="any", key_type=1)
        wait_until(lambda: c.request(request, 1).error_code == 0, "a transaction coordinator")
        yield c


def _init(c, txn_id, pid=-1, epoch=-1):
    return c.request(
        InitProducerIdRequest(
            transactional_id=txn_id, transaction_timeout_ms=60_000, producer_id=pid, producer_epoch=epoch
        ),
        4,
    )


def test_transactional_init_with_a_producer_id_but_no_epoch_is_invalid_request(client):
    first = _init(client, "review-half-pid")
    assert first.error_code == 0 and first.producer_epoch == 0
    # KafkaApis.handleInitProducerIdRequest: (id, NO_PRODUCER_EPOCH) -> INVALID_REQUEST.
    # Here it is taken as a KIP-360 retry and answers the current epoch again, unfenced.
    r = _init(client, "review-half-pid", pid=first.producer_id, epoch=-1)
    assert ErrorCode.for_code(r.error_code) is ErrorCode.INVALID_REQUEST
    assert (r.producer_id, r.producer_epoch) == (-1, -1)


def test_idempotent_init_with_an_epoch_but_no_producer_id_is_invalid_request(client):
    # KafkaApis.handleInitProducerIdRequest: (NO_PRODUCER_ID, epoch) -> INVALID_REQUEST,
    # checked before the coordinator, for idempotent producers too.
    r = _init(client, None, pid=-1, epoch=3)
    assert ErrorCode.for_code(r.error_code) is ErrorCode.INVALID_REQUEST
