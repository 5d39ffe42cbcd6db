"""A data partition's leader killed while a transaction is open or its markers are written."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from broker.testing.interception import Drop
from protocol.messages import ApiKey
from tests.cluster.failure_scenarios import create_topic, produce_acked, wait_until
from tests.cluster.txn_failure_scenarios import (
    ABORT,
    COMMIT,
    TIMEOUT_S,
    converged,
    coordinator,
    describe,
    leader_of,
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


def lso(cluster, i: int, topic: str, partition: int = 0) -> tuple[int, int, int] | None:
    def look() -> tuple[int, int, int] | None:
        p = cluster.broker(i).replica_manager.get_partition(topic, partition)
        if p is None:
            return None
        return p.log.last_stable_offset, p.log.high_watermark, p.log.log_end_offset

    return cluster.run(look)


def txn_indexes(cluster, topic: str) -> list[dict[str, bytes]]:
    return [
        {f.name: f.read_bytes() for f in sorted((cluster.log_dir(i) / f"{topic}-0").glob("*.txnindex"))}
        for i in range(3)
    ]


@pytest.mark.parametrize("commit", [True, False])
def test_unreplicated_commit_marker_on_a_killed_leader(cluster, commit: bool) -> None:
    """TransactionMarkerRequestCompletionHandler (NOT_LEADER_OR_FOLLOWER / timeouts retried at
    the new leader) + UnifiedLog truncation: the COMMIT marker is appended on the leader but
    not replicated, the leader is killed; the coordinator writes the marker at the new
    leader, the old leader truncates its copy on return: every replica has the records once
    and one COMMIT marker; read_committed sees each record once."""
    topic = "unrepl"
    p = txn_producer(cluster, "unrepl")
    p.init_transactions(TIMEOUT_S)
    c = coordinator(cluster)
    lead, f = [i for i in range(3) if i != c]
    create_topic(cluster, topic, [[lead, f, c]], {"min.insync.replicas": "2"})
    p.begin_transaction()
    sent = [f"u{i}".encode() for i in range(5)]
    for v in sent:
        p.produce(topic, value=v, partition=0)
    assert p.flush(TIMEOUT_S) == 0
    wait_until(lambda: lso(cluster, f, topic) == (0, 5, 5) and lso(cluster, c, topic)[2] == 5, "replicated")
    pid = describe(cluster, c, "unrepl").producer_id
    # the followers' fetches of the topic are lost at the leader from now on
    dropped: set[int] = set()

    def drop(r: Any) -> Any:
        if r.source_broker is None:
            return None
        dropped.add(r.source_broker)
        return Drop()

    cluster.control(lead, ApiKey.FETCH, drop, keep=True)
    # a fetch parked before the control would still be answered: wait for both followers'
    # next fetch to be lost
    wait_until(lambda: dropped >= {f, c}, "both followers' fetches lost")
    kind = COMMIT if commit else ABORT
    if commit:
        p.commit_transaction(TIMEOUT_S)
    else:
        p.abort_transaction(TIMEOUT_S)
    wait_until(
        lambda: markers(cluster.log_dir(lead), topic, 0) == [(pid, 0, kind)], "the marker on the leader"
    )
    assert markers(cluster.log_dir(f), topic, 0) == []
    cluster.kill(lead)
    cluster.clear_controls()
    wait_until(lambda: leader_of(cluster, topic) in (f, c), "a new leader")
    wait_state(cluster, c, "unrepl", "CompleteCommit" if commit else "CompleteAbort")
    want = sent if commit else []
    assert Counter(read_committed(cluster.bootstrap, topic, len(want))) == Counter(want)
    cluster.start_broker(lead)
    converged(cluster, topic)
    for i in range(3):
        assert markers(cluster.log_dir(i), topic, 0) == [(pid, 0, kind)], i
        assert values(cluster.log_dir(i), topic, 0) == sent, i
    idx = txn_indexes(cluster, topic)
    assert idx[0] == idx[1] == idx[2], idx


def test_lso_of_a_new_leader_holds_an_open_transaction(cluster) -> None:
    """ProducerStateManager on a follower (append as follower keeps ongoing transactions) and
    UnifiedLog.lastStableOffset after Partition.makeLeader: the new leader's LSO stays at the
    open transaction's first offset, a read_committed consumer sees neither the open
    transaction nor what follows it; after the abort it sees only the non-transactional
    records, never the aborted ones."""
    topic = "lso"
    p = txn_producer(cluster, "lso")
    p.init_transactions(TIMEOUT_S)
    c = coordinator(cluster)
    lead, f = [i for i in range(3) if i != c]
    create_topic(cluster, topic, [[lead, f, c]], {"min.insync.replicas": "2"})
    plain0 = [f"before-{i}".encode() for i in range(3)]
    produce_acked(cluster, topic, plain0)
    p.begin_transaction()
    for i in range(4):
        p.produce(topic, value=f"open-{i}".encode(), partition=0)
    assert p.flush(TIMEOUT_S) == 0
    plain1 = [f"after-{i}".encode() for i in range(3)]
    produce_acked(cluster, topic, plain1)
    wait_until(lambda: lso(cluster, lead, topic) == (3, 10, 10), "the LSO at the open transaction")
    wait_until(lambda: lso(cluster, f, topic)[2] == 10 and lso(cluster, c, topic)[2] == 10, "replicated")
    cluster.kill(lead)
    new = wait_until(lambda: (x := leader_of(cluster, topic)) is not None and x + 1, "a new leader") - 1
    assert new in (f, c)
    wait_until(lambda: lso(cluster, new, topic)[1] == 10, "the new leader's high watermark")
    assert lso(cluster, new, topic) == (3, 10, 10)
    assert Counter(read_committed(cluster.bootstrap, topic, 3)) == Counter(plain0)
    p.abort_transaction(TIMEOUT_S)
    wait_state(cluster, c, "lso", "CompleteAbort")
    wait_until(lambda: lso(cluster, new, topic) == (11, 11, 11), "the LSO after the abort")
    assert Counter(read_committed(cluster.bootstrap, topic, 6)) == Counter(plain0 + plain1)
    pid = describe(cluster, c, "lso").producer_id
    cluster.start_broker(lead)
    converged(cluster, topic)
    for i in range(3):
        assert markers(cluster.log_dir(i), topic, 0) == [(pid, 0, ABORT)], i


def test_open_transaction_survives_unclean_restarts_of_every_replica(cluster) -> None:
    """ProducerStateManager snapshot load + replay (LogLoader) after kill -9, follower
    truncation on return (UnifiedLog.truncateTo reloading producer state), then
    Partition.makeLeader: each replica, restarted uncleanly and then made leader, holds the LSO
    at the open transaction's first offset; after the abort the LSO passes the marker and
    read_committed sees only the non-transactional records."""
    topic = "restarts"
    p = txn_producer(cluster, "restarts")
    p.init_transactions(TIMEOUT_S)
    c = coordinator(cluster)
    a, b = [i for i in range(3) if i != c]
    create_topic(cluster, topic, [[a, b, c]], {"min.insync.replicas": "2"})
    plain0 = [f"before-{i}".encode() for i in range(3)]
    produce_acked(cluster, topic, plain0)
    p.begin_transaction()
    for i in range(4):
        p.produce(topic, value=f"open-{i}".encode(), partition=0)
    assert p.flush(TIMEOUT_S) == 0
    plain1 = [f"after-{i}".encode() for i in range(3)]
    produce_acked(cluster, topic, plain1)
    converged(cluster, topic)
    assert lso(cluster, a, topic) == (3, 10, 10)

    def lead_by(i: int) -> None:
        wait_until(lambda: leader_of(cluster, topic) == i, f"broker {i} leading")
        wait_until(lambda: lso(cluster, i, topic)[1] == 10, "its high watermark")

    # b restarted uncleanly, then made leader (a killed)
    cluster.kill(b)
    cluster.start_broker(b)
    converged(cluster, topic)
    cluster.kill(a)
    lead_by(b)
    assert lso(cluster, b, topic) == (3, 10, 10)
    # a restarted uncleanly, then leader again (b killed)
    cluster.start_broker(a)
    converged(cluster, topic)
    cluster.kill(b)
    lead_by(a)
    assert lso(cluster, a, topic) == (3, 10, 10)
    assert Counter(read_committed(cluster.bootstrap, topic, 3)) == Counter(plain0)
    p.abort_transaction(TIMEOUT_S)
    wait_state(cluster, c, "restarts", "CompleteAbort")
    wait_until(lambda: lso(cluster, a, topic) == (11, 11, 11), "the LSO after the abort")
    assert Counter(read_committed(cluster.bootstrap, topic, 6)) == Counter(plain0 + plain1)
    cluster.start_broker(b)
    converged(cluster, topic)
    pid = describe(cluster, c, "restarts").producer_id
    for i in range(3):
        assert markers(cluster.log_dir(i), topic, 0) == [(pid, 0, ABORT)], i


def read_from(cluster, topic: str, rack: str, expect: int) -> list[bytes]:
    import time
    import uuid

    from confluent_kafka import Consumer

    c = Consumer(
        {
            "bootstrap.servers": cluster.bootstrap,
            "group.id": f"rack-{uuid.uuid4().hex[:6]}",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "isolation.level": "read_committed",
            "client.rack": rack,
        }
    )
    c.subscribe([topic])
    seen: list[bytes] = []
    deadline = time.monotonic() + TIMEOUT_S
    last = time.monotonic()
    try:
        while time.monotonic() < deadline:
            m = c.poll(0.2)
            if m is None or m.error():
                if len(seen) >= expect and time.monotonic() - last > 2:
                    break
                continue
            seen.append(m.value())
            last = time.monotonic()
    finally:
        c.close()
    return seen


@pytest.fixture
def rack_cluster(zookeeper_shared: Any, tmp_path):
    from broker.replica_selector import RACK_AWARE_REPLICA_SELECTOR

    c = start(
        zookeeper_shared,
        tmp_path,
        broker_overrides={i: {"broker.rack": f"rack-{i}"} for i in range(3)},
        **{"replica.selector.class": RACK_AWARE_REPLICA_SELECTOR},
    )
    try:
        yield c
    finally:
        c.close()


def test_read_committed_from_a_follower(rack_cluster) -> None:
    """KIP-392 with read_committed (Partition.fetchRecords on a follower: the follower's own
    LSO and .txnindex): a consumer reading from a follower sees nothing of an open
    transaction nor what follows it, and never the aborted records once it ends."""
    cluster = rack_cluster
    topic = "ffollow"
    p = txn_producer(cluster, "ffollow")
    p.init_transactions(TIMEOUT_S)
    c = coordinator(cluster)
    lead, f = [i for i in range(3) if i != c]
    create_topic(cluster, topic, [[lead, f, c]], {"min.insync.replicas": "2"})
    served: list[int] = []
    cluster.control(
        f, ApiKey.FETCH, lambda r: served.append(1) if r.source_broker is None else None, keep=True
    )
    plain0 = [f"before-{i}".encode() for i in range(3)]
    produce_acked(cluster, topic, plain0)
    p.begin_transaction()
    for i in range(4):
        p.produce(topic, value=f"open-{i}".encode(), partition=0)
    assert p.flush(TIMEOUT_S) == 0
    plain1 = [f"after-{i}".encode() for i in range(3)]
    produce_acked(cluster, topic, plain1)
    wait_until(lambda: lso(cluster, f, topic) == (3, 10, 10), "the follower's LSO at the open transaction")
    assert Counter(read_from(cluster, topic, f"rack-{f}", 3)) == Counter(plain0)
    assert served, "no fetch served by the follower"
    p.abort_transaction(TIMEOUT_S)
    plain2 = [f"later-{i}".encode() for i in range(2)]
    produce_acked(cluster, topic, plain2)
    wait_until(lambda: lso(cluster, f, topic) == (13, 13, 13), "the follower's LSO past the abort")
    assert Counter(read_from(cluster, topic, f"rack-{f}", 8)) == Counter(plain0 + plain1 + plain2)
