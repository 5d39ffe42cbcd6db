"""kill -9 of a broker subprocess while a transaction is in PrepareCommit.

The kill must land after PrepareCommit is durable in ``__transaction_state`` and before any
COMMIT marker reached the data partitions, every time, not by timing. The broker runs with a
fault hook on its marker path (``tests/transactions/marker_hold_broker.py``): while a flag
file exists every marker is answered NOT_ENOUGH_REPLICAS and the coordinator retries it.
``commit_transaction()`` returns once PrepareCommit is written (Kafka answers EndTxn then),
the hook logs that it held a marker, DescribeTransactions shows PrepareCommit and the segment
files show no marker of the producer: then SIGKILL.

The broker is restarted as plain ``python -m broker``: its coordinator loads PrepareCommit
from ``__transaction_state`` and sends the markers again; the transaction completes
(CompleteCommit, one COMMIT marker per partition) and a read_committed consumer sees each of
its records exactly once, and never those of a transaction aborted before the crash. The
``.txnindex`` holds the aborted transaction as Kafka's 34-byte entry, and the same bytes after
a recovery rebuilds it.
"""

from __future__ import annotations

import uuid
from collections import Counter
from pathlib import Path

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from tests.support.broker_process import BrokerProcess
from tests.transactions.test_transactions_clients import consume_all
from tests.transactions.txn_logs import (
    ABORT,
    COMMIT,
    check_txn_indexes_rebuilt,
    markers,
    transaction_state,
    wait_for_state,
)

pytestmark = pytest.mark.integration

TIMEOUT_S = 60


class MarkerHoldBroker(BrokerProcess):
    """A broker subprocess started through the marker hook while ``hold`` is set."""

    def __init__(self, log_dir: Path, overrides: dict[str, str], flag: Path) -> None:
        super().__init__(log_dir, overrides)
        self.flag = flag
        self.hold = True

    def command(self) -> list[str]:
        cmd = super().command()
        if self.hold:
            assert cmd[1:3] == ["-m", "broker"], cmd
            cmd[1:3] = ["-m", "tests.transactions.marker_hold_broker", str(self.flag)]
        return cmd


def test_kill_9_in_prepare_commit(tmp_path):
    flag = tmp_path / "hold-markers"
    overrides = {
        "transaction.state.log.num.partitions": "3",
        "offsets.topic.num.partitions": "3",
        "group.initial.rebalance.delay.ms": "0",
    }
    b = MarkerHoldBroker(tmp_path / "data", overrides, flag)
    b.start()
    try:
        run_kill_in_prepare_commit(b, flag)
    finally:
        if b.alive():
            b.stop()


def run_kill_in_prepare_commit(b: MarkerHoldBroker, flag: Path) -> None:
    topic = f"prepared-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": b.bootstrap})
    admin.create_topics([NewTopic(topic, 2, 1)])[topic].result(TIMEOUT_S)

    aborted = Producer({"bootstrap.servers": b.bootstrap, "transactional.id": "kill-aborted"})
    aborted.init_transactions(TIMEOUT_S)
    aborted.begin_transaction()
    for i in range(10):
        aborted.produce(topic, partition=i % 2, value=f"aborted-{i}".encode())
    assert aborted.flush(TIMEOUT_S) == 0  # in the log (librdkafka's abort purges unsent ones)
    aborted.abort_transaction(TIMEOUT_S)
    aborted_pid = wait_for_state(b.bootstrap, "kill-aborted", "CompleteAbort")

    prepared = Producer({"bootstrap.servers": b.bootstrap, "transactional.id": "kill-prepared"})
    prepared.init_transactions(TIMEOUT_S)
    prepared.begin_transaction()
    committed = [f"committed-{i}" for i in range(20)]
    for i, value in enumerate(committed):
        prepared.produce(topic, partition=i % 2, value=value.encode())
    assert prepared.flush(TIMEOUT_S) == 0
    flag.touch()  # from here markers are refused
    prepared.commit_transaction(TIMEOUT_S)  # answered once PrepareCommit is written

    b.wait_for_log("markers held")
    prepared_pid = wait_for_state(b.bootstrap, "kill-prepared", "PrepareCommit")
    for p in range(2):  # no COMMIT marker reached the log
        assert markers(b.log_dir, topic, p) == [(aborted_pid, ABORT)]
    assert consume_all(b.bootstrap, topic, "read_committed", 0, idle_s=1.0) == []
    assert transaction_state(b.bootstrap, "kill-prepared")[0] == "PrepareCommit"  # still

    b.kill()  # SIGKILL of the broker process
    assert b.proc is not None and b.proc.returncode == -9
    b.hold = False
    b.start()  # plain python -m broker on the same data
    assert wait_for_state(b.bootstrap, "kill-prepared", "CompleteCommit") == prepared_pid

    for p in range(2):
        assert markers(b.log_dir, topic, p) == [(aborted_pid, ABORT), (prepared_pid, COMMIT)]
    seen = consume_all(b.bootstrap, topic, "read_committed", len(committed))
    assert Counter(v for _, _, v in seen) == Counter(committed)  # each once, none aborted
    everything = consume_all(b.bootstrap, topic, "read_uncommitted", 30)
    assert sorted(v for _, _, v in everything) == sorted(committed + [f"aborted-{i}" for i in range(10)])

    # .txnindex: the aborted transaction, once per partition (Kafka's 34-byte AbortedTxn;
    # no other transaction was open at its marker, so its LSO is the marker's offset + 1),
    # and the same bytes after a rebuild
    check_txn_indexes_rebuilt(b, topic, 2)
