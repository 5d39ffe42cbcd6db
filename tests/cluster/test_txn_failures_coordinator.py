"""The transaction coordinator's broker killed at awkward moments (in-process kill -9)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from confluent_kafka import KafkaException

from broker.testing.interception import Close
from protocol.messages import ApiKey
from tests.cluster.failure_scenarios import create_topic, wait_until
from tests.cluster.txn_failure_scenarios import (
    ABORT,
    COMMIT,
    TIMEOUT_S,
    converged,
    coordinator,
    describe,
    markers,
    read_committed,
    start,
    txn_producer,
    values,
    wait_state,
)

pytestmark = [pytest.mark.integration, pytest.mark.zookeeper]


@pytest.fixture
def cluster(zookeeper_shared: Any, tmp_path):
    c = start(zookeeper_shared, tmp_path)
    try:
        yield c
    finally:
        c.close()


def test_commit_with_partial_markers_completed_by_new_coordinator(cluster) -> None:
    """TransactionStateManager.loadTransactionsForTxnTopicPartition + TransactionMarkerChannelManager:
    EndTxn(commit) answered, the COMMIT marker written to one partition only, then the
    coordinator is killed: the next coordinator sends the markers of PrepareCommit again,
    every partition gets a COMMIT marker on every replica, read_committed sees each record once."""
    topic = "partial"
    p = txn_producer(cluster, "partial")
    p.init_transactions(TIMEOUT_S)
    c = coordinator(cluster)
    a, b = [i for i in range(3) if i != c]
    create_topic(cluster, topic, [[a, b, c], [b, a, c]], {"min.insync.replicas": "2"})
    # markers to b's partition are refused (connection closed) until the crash
    cluster.control(b, ApiKey.WRITE_TXN_MARKERS, lambda r: Close(), keep=True)
    p.begin_transaction()
    sent = [f"v{i}".encode() for i in range(10)]
    for i, v in enumerate(sent):
        p.produce(topic, value=v, partition=i % 2)
    assert p.flush(TIMEOUT_S) == 0
    p.commit_transaction(TIMEOUT_S)
    pid = describe(cluster, c, "partial").producer_id
    wait_until(
        lambda: [k for (q, _, k) in markers(cluster.log_dir(a), topic, 0) if q == pid] == [COMMIT],
        "the COMMIT marker on partition 0",
        TIMEOUT_S,
    )
    assert markers(cluster.log_dir(b), topic, 1) == []
    cluster.kill(c)
    cluster.clear_controls()
    new = coordinator(cluster, not_=c)
    wait_state(cluster, new, "partial", "CompleteCommit")
    assert Counter(read_committed(cluster.bootstrap, topic, 10)) == Counter(sent)
    cluster.start_broker(c)
    converged(cluster, topic, 2)
    for part in range(2):
        for i in range(3):
            kinds = {k for (q, _, k) in markers(cluster.log_dir(i), topic, part) if q == pid}
            assert kinds == {COMMIT}, (part, i, markers(cluster.log_dir(i), topic, part))
            vs = values(cluster.log_dir(i), topic, part)
            assert Counter(vs) == Counter(sent[part::2]), (part, i)


def test_zombie_fenced_across_a_coordinator_move(cluster) -> None:
    """TransactionCoordinator.handleInitProducerId (prepareFenceProducerEpoch + abort of the
    ongoing transaction) on the coordinator that took over: the new instance's
    InitProducerId aborts the zombie's open transaction (ABORT markers with the bumped
    epoch), the zombie's EndTxn(commit) is fenced, and only the new instance's records are
    read_committed."""
    topic = "zombie"
    old = txn_producer(cluster, "zombie")
    old.init_transactions(TIMEOUT_S)
    c = coordinator(cluster)
    a, b = [i for i in range(3) if i != c]
    create_topic(cluster, topic, [[a, b, c], [b, a, c]], {"min.insync.replicas": "2"})
    d = describe(cluster, c, "zombie")
    pid, epoch0 = d.producer_id, d.producer_epoch
    old.begin_transaction()
    for i in range(6):
        old.produce(topic, value=f"zombie-{i}".encode(), partition=i % 2)
    assert old.flush(TIMEOUT_S) == 0
    cluster.kill(c)
    new_c = coordinator(cluster, not_=c)
    new = txn_producer(cluster, "zombie")
    new.init_transactions(TIMEOUT_S)
    d = describe(cluster, new_c, "zombie")
    assert d.producer_id == pid
    assert d.producer_epoch == epoch0 + 2, d
    with pytest.raises(KafkaException) as err:
        old.commit_transaction(TIMEOUT_S)
    assert err.value.args[0].fatal() or "fenced" in str(err.value).lower(), err.value
    new.begin_transaction()
    fresh = [f"new-{i}".encode() for i in range(4)]
    for i, v in enumerate(fresh):
        new.produce(topic, value=v, partition=i % 2)
    new.commit_transaction(TIMEOUT_S)
    assert Counter(read_committed(cluster.bootstrap, topic, 4)) == Counter(fresh)
    cluster.start_broker(c)
    converged(cluster, topic, 2)
    for part in range(2):
        for i in range(3):
            ms = [(e, k) for (q, e, k) in markers(cluster.log_dir(i), topic, part) if q == pid]
            assert ms == [(epoch0 + 1, ABORT), (epoch0 + 2, COMMIT)], (part, i, ms)


def test_timeout_abort_while_the_coordinator_moves(cluster) -> None:
    """TransactionCoordinator.abortTimedOutTransactions on the coordinator that loaded the
    ongoing transaction: it is aborted once (one ABORT marker per partition, epoch bumped),
    the producer is fenced, nothing of it is read_committed."""
    topic = "timeout"
    p = txn_producer(cluster, "late", **{"transaction.timeout.ms": 4000, "message.timeout.ms": 4000})
    p.init_transactions(TIMEOUT_S)
    c = coordinator(cluster)
    a, b = [i for i in range(3) if i != c]
    create_topic(cluster, topic, [[a, b, c], [b, a, c]], {"min.insync.replicas": "2"})
    d = describe(cluster, c, "late")
    pid, epoch0 = d.producer_id, d.producer_epoch
    p.begin_transaction()
    for i in range(6):
        p.produce(topic, value=f"late-{i}".encode(), partition=i % 2)
    assert p.flush(TIMEOUT_S) == 0
    cluster.kill(c)
    new_c = coordinator(cluster, not_=c)
    d = wait_state(cluster, new_c, "late", "CompleteAbort")
    assert d.producer_epoch == epoch0 + 1, d
    with pytest.raises(KafkaException):
        p.commit_transaction(TIMEOUT_S)
    assert read_committed(cluster.bootstrap, topic, 0) == []
    cluster.start_broker(c)
    converged(cluster, topic, 2)
    for part in range(2):
        for i in range(3):
            ms = [(e, k) for (q, e, k) in markers(cluster.log_dir(i), topic, part) if q == pid]
            assert ms == [(epoch0 + 1, ABORT)], (part, i, ms)
    d = describe(cluster, new_c, "late")
    assert d.state == "CompleteAbort" and d.producer_epoch == epoch0 + 1, d


def test_timeout_abort_prepared_then_coordinator_killed(cluster) -> None:
    """TransactionCoordinator.abortTimedOutTransactions writes PrepareAbort with the bumped
    epoch; its markers are held and the coordinator dies; the successor loads PrepareAbort
    (TransactionStateManager.loadTransactionsForTxnTopicPartition) and completes the abort
    with the same bumped epoch; a new instance of the producer then gets epoch + 2; the old
    producer's commit is fenced; one ABORT per partition on every replica."""
    topic = "timeout2"
    p = txn_producer(cluster, "late2", **{"transaction.timeout.ms": 3000, "message.timeout.ms": 3000})
    p.init_transactions(TIMEOUT_S)
    c = coordinator(cluster)
    a, b = [i for i in range(3) if i != c]
    create_topic(cluster, topic, [[a, b, c], [b, a, c]], {"min.insync.replicas": "2"})
    d = describe(cluster, c, "late2")
    pid, epoch0 = d.producer_id, d.producer_epoch
    cluster.control(None, ApiKey.WRITE_TXN_MARKERS, lambda r: Close(), keep=True)
    p.begin_transaction()
    for i in range(6):
        p.produce(topic, value=f"late-{i}".encode(), partition=i % 2)
    assert p.flush(TIMEOUT_S) == 0
    d = wait_state(cluster, c, "late2", "PrepareAbort")
    assert d.producer_epoch == epoch0 + 1
    cluster.kill(c)
    cluster.clear_controls()
    new_c = coordinator(cluster, not_=c)
    d = wait_state(cluster, new_c, "late2", "CompleteAbort")
    assert d.producer_epoch == epoch0 + 1, d
    with pytest.raises(KafkaException):
        p.commit_transaction(TIMEOUT_S)
    again = txn_producer(cluster, "late2")
    again.init_transactions(TIMEOUT_S)
    assert describe(cluster, new_c, "late2").producer_epoch == epoch0 + 2
    again.begin_transaction()
    again.produce(topic, value=b"fresh", partition=0)
    again.commit_transaction(TIMEOUT_S)
    assert read_committed(cluster.bootstrap, topic, 1) == [b"fresh"]
    cluster.start_broker(c)
    converged(cluster, topic, 2)
    for part in range(2):
        for i in range(3):
            ms = [(e, k) for (q, e, k) in markers(cluster.log_dir(i), topic, part) if q == pid]
            want = [(epoch0 + 1, ABORT)] + ([(epoch0 + 2, COMMIT)] if part == 0 else [])
            assert ms == want, (part, i, ms)
