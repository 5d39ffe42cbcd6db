"""ListTransactions v2's transactional id pattern must not stall the broker."""

from __future__ import annotations

import pytest

from protocol.messages import (
    ApiVersionsRequest,
    FindCoordinatorRequest,
    InitProducerIdRequest,
    ListTransactionsRequest,
)
from tests.support.broker_process import BrokerProcess
from tests.support.polling import wait_until
from tests.support.wire_broker import OVERRIDES
from tests.support.wire_client import WireClient


@pytest.fixture
def lone_broker(tmp_path):
    # A subprocess: a broker stuck in a regular expression cannot be stopped, only killed.
    b = BrokerProcess(tmp_path / "data", OVERRIDES)
    b.start()
    yield b
    b.kill()


def test_catastrophic_transactional_id_pattern_does_not_hold_the_broker(lone_broker):
    """Kafka (KIP-1152, ``TransactionStateManager.listTransactionStates``) matches the
    pattern on a request handler thread (with RE2J, linear time): the other connections of
    the broker are still served meanwhile. Matched with Python's backtracking ``re`` on the
    event loop, a pattern such as ``(a|a)*b`` against a 40-character id would stop the whole
    broker (``coordinator.transaction_listing`` matches with RE2). Here a
    second connection's ApiVersions must be answered (within the client's 10 s timeout)
    while that ListTransactions is in flight."""
    with WireClient(lone_broker.host, lone_broker.port) as c:
        find = FindCoordinatorRequest(key="a", key_type=1)
        wait_until(lambda: c.request(find, 2).error_code == 0, "a transaction coordinator")
        txn = "a" * 40
        init = c.request(InitProducerIdRequest(transactional_id=txn, transaction_timeout_ms=60_000), 4)
        assert init.error_code == 0
        c.send(ListTransactionsRequest(transactional_id_pattern="(a|a)*b"), 2)
        with WireClient(lone_broker.host, lone_broker.port, timeout=10.0) as other:
            assert other.request(ApiVersionsRequest(), 0).error_code == 0
