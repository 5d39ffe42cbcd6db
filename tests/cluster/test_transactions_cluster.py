"""Transactions on the 3-broker ZooKeeper cluster.

A transaction spanning partitions led by different brokers commits atomically (markers go
to each partition's leader over WriteTxnMarkers), and an open transaction survives the
kill -9 of its coordinator: ``__transaction_state`` (replication factor 3) moves to another
broker, which loads it and completes the commit the producer then asks for. read_committed
consumers see every committed record once and nothing of the aborted transaction. A commit
whose markers could not go out before its coordinator crashed (PrepareCommit durable) is
completed by the next coordinator.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from broker.testing.interception import Close
from protocol.messages import ApiKey
from tests.cluster.zk_cluster_checks import OVERRIDES, agreed_metadata, start_cluster, wait_until
from tests.support.cluster import Cluster

pytestmark = [pytest.mark.integration, pytest.mark.zookeeper]

TIMEOUT_S = 90
PARTITIONS = 3


@pytest.fixture
def zk_cluster(zookeeper_shared: Any, tmp_path: Path):
    c = start_cluster(
        zookeeper_shared,
        f"/txn_{uuid.uuid4().hex[:8]}",
        tmp_path,
        **{
            "transaction.state.log.num.partitions": "1",
            "offsets.topic.num.partitions": "1",
            "transaction.abort.timed.out.transaction.cleanup.interval.ms": "1000",
        },
    )
    try:
        yield c
    finally:
        c.close()


def leaders(cluster: Any, topic: str, partitions: int) -> dict[int, int] | None:
    view = agreed_metadata(cluster, [topic], [i for i in range(cluster.n) if cluster.alive(i)])
    if view is None:
        return None
    found = view.leaders(topic)
    if len(found) != partitions or any(leader < 0 or not cluster.alive(leader) for leader in found.values()):
        return None
    return found


def read_committed(bootstrap: str, topic: str, expect: int) -> list[str]:
    c = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"reader-{uuid.uuid4().hex[:6]}",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "isolation.level": "read_committed",
        }
    )
    c.subscribe([topic])
    seen: list[str] = []
    deadline = time.monotonic() + TIMEOUT_S
    quiet_since = time.monotonic()
    try:
        while time.monotonic() < deadline:
            m = c.poll(0.2)
            if m is None or m.error():
                if len(seen) >= expect and time.monotonic() - quiet_since > 3:
                    break
                continue
            seen.append(m.value().decode())
            quiet_since = time.monotonic()
    finally:
        c.close()
    return seen


def test_transaction_across_leaders_survives_coordinator_failover(zk_cluster):
    bootstrap = zk_cluster.bootstrap
    topic = f"xt-{uuid.uuid4().hex[:6]}"
    admin = AdminClient({"bootstrap.servers": bootstrap})
    assert admin.create_topics([NewTopic(topic, PARTITIONS, 3)])[topic].result(60) is None
    spread = wait_until(lambda: leaders(zk_cluster, topic, PARTITIONS), "leaders of the topic", 60)
    assert len(set(spread.values())) > 1, f"all partitions led by one broker: {spread}"

    p = Producer({"bootstrap.servers": bootstrap, "transactional.id": "spanning", "linger.ms": 5})
    p.init_transactions(TIMEOUT_S)
    committed: list[str] = []
    # 1. commit and abort across the three leaders
    for n, commit in ((0, True), (1, False), (2, True)):
        p.begin_transaction()
        values = [f"t{n}-p{q}" for q in range(PARTITIONS)]
        for q, v in enumerate(values):
            p.produce(topic, value=v.encode(), partition=q)
        p.flush(TIMEOUT_S)
        if commit:
            p.commit_transaction(TIMEOUT_S)
            committed += values
        else:
            p.abort_transaction(TIMEOUT_S)

    # 2. an open transaction, then its coordinator dies
    coordinator = wait_until(lambda: leaders(zk_cluster, "__transaction_state", 1), "the coordinator", 60)[0]
    p.begin_transaction()
    values = [f"failover-p{q}" for q in range(PARTITIONS)]
    for q, v in enumerate(values):
        p.produce(topic, value=v.encode(), partition=q)
    assert p.flush(TIMEOUT_S) == 0
    zk_cluster.kill(coordinator)
    moved = wait_until(
        lambda: (
            (found := leaders(zk_cluster, "__transaction_state", 1)) and found[0] != coordinator and found
        ),
        "a new transaction coordinator",
        TIMEOUT_S,
    )
    assert moved[0] != coordinator
    wait_until(lambda: leaders(zk_cluster, topic, PARTITIONS), "leaders for every partition", TIMEOUT_S)
    p.commit_transaction(TIMEOUT_S)
    committed += values

    seen = read_committed(bootstrap, topic, len(committed))
    assert sorted(seen) == sorted(committed)
    zk_cluster.restart(coordinator)
    # the restarted broker rejoins; a new transaction still works and nothing changed
    p.begin_transaction()
    p.produce(topic, value=b"after-restart", partition=0)
    p.commit_transaction(TIMEOUT_S)
    seen = read_committed(bootstrap, topic, len(committed) + 1)
    assert sorted(seen) == sorted([*committed, "after-restart"])


def test_prepared_commit_completes_after_the_coordinator_crashes(zookeeper_shared, tmp_path):
    """EndTxn answered (PrepareCommit durable) but the markers held back; the coordinator
    crashes; its successor loads PrepareCommit, sends the markers and completes the commit."""
    overrides = {
        **OVERRIDES,
        "transaction.state.log.num.partitions": "1",
        "offsets.topic.num.partitions": "1",
    }
    with Cluster(
        3,
        zookeeper=zookeeper_shared,
        zk_chroot=f"/txnp_{uuid.uuid4().hex[:8]}",
        base_dir=tmp_path,
        overrides=overrides,
    ) as cluster:
        topic = "prepared"
        admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
        assert admin.create_topics([NewTopic(topic, PARTITIONS, 3)])[topic].result(60) is None
        wait_until(lambda: leaders(cluster, topic, PARTITIONS), "leaders of the topic", 60)
        p = Producer({"bootstrap.servers": cluster.bootstrap, "transactional.id": "prepared"})
        p.init_transactions(TIMEOUT_S)
        coordinator = wait_until(lambda: leaders(cluster, "__transaction_state", 1), "the coordinator", 60)[0]
        # every WriteTxnMarkers is refused (the connection closed) until the crash
        cluster.control(None, ApiKey.WRITE_TXN_MARKERS, lambda r: Close(), keep=True)
        p.begin_transaction()
        values = [f"prepared-p{q}" for q in range(PARTITIONS)]
        for q, v in enumerate(values):
            p.produce(topic, value=v.encode(), partition=q)
        p.commit_transaction(TIMEOUT_S)  # answered once PrepareCommit is durable

        def state(i: int) -> str:
            return cluster.run(lambda: cluster.broker(i).transactions.describe("prepared").state)

        assert state(coordinator) == "PrepareCommit"
        cluster.kill(coordinator)
        cluster.clear_controls()
        moved = wait_until(
            lambda: (
                (found := leaders(cluster, "__transaction_state", 1)) and found[0] != coordinator and found
            ),
            "a new transaction coordinator",
            TIMEOUT_S,
        )
        wait_until(
            lambda: state(moved[0]) == "CompleteCommit", "the commit completed by the new coordinator", 60
        )
        assert sorted(read_committed(cluster.bootstrap, topic, PARTITIONS)) == sorted(values)
        cluster.restart(coordinator)
