"""Jepsen-style: transactional producers committing and aborting while brokers are killed and
restarted one at a time; read_committed must show every committed transaction whole and once,
no aborted record, and every transaction all-or-nothing; replicas agree."""

from __future__ import annotations

import os
import random
import threading
from collections import Counter
from typing import Any

import pytest
from confluent_kafka import KafkaError, KafkaException

from tests.cluster.failure_scenarios import create_topic, formed, wait_until
from tests.cluster.txn_failure_scenarios import (
    TIMEOUT_S,
    converged,
    coordinator,
    leader_of,
    read_committed,
    start,
    txn_producer,
    values,
)

pytestmark = [pytest.mark.integration, pytest.mark.zookeeper]

PARTS = 3


@pytest.fixture
def cluster(zookeeper_shared: Any, tmp_path):
    c = start(zookeeper_shared, tmp_path)
    try:
        yield c
    finally:
        c.close()


class Worker:
    def __init__(self, cluster: Any, name: str, topic: str) -> None:
        self.cluster = cluster
        self.name = name
        self.topic = topic
        self.committed: list[list[bytes]] = []
        self.aborted: list[list[bytes]] = []
        self.unknown: list[list[bytes]] = []
        self.errors: list[str] = []
        self.stop = threading.Event()
        self.done = 0
        self.thread = threading.Thread(target=self.run, daemon=True)

    def new_producer(self) -> Any:
        p = txn_producer(self.cluster, self.name, **{"transaction.timeout.ms": 20000})
        while True:
            try:
                p.init_transactions(TIMEOUT_S)
                return p
            except KafkaException as exc:
                self.errors.append(f"init: {exc}")
                if not exc.args[0].retriable():
                    p = txn_producer(self.cluster, self.name, **{"transaction.timeout.ms": 20000})

    def run(self) -> None:
        p = self.new_producer()
        n = 0
        while not self.stop.is_set():
            commit = n % 3 != 2
            vals = [f"{self.name}-t{n}-p{q}-{'c' if commit else 'a'}".encode() for q in range(PARTS)]
            n += 1
            try:
                p.begin_transaction()
                for q, v in enumerate(vals):
                    p.produce(self.topic, value=v, partition=q)
                if commit:
                    while True:
                        try:
                            p.commit_transaction(TIMEOUT_S)
                            break
                        except KafkaException as exc:
                            if exc.args[0].retriable():
                                continue
                            raise
                    self.committed.append(vals)
                else:
                    p.flush(TIMEOUT_S)
                    while True:
                        try:
                            p.abort_transaction(TIMEOUT_S)
                            break
                        except KafkaException as exc:
                            if exc.args[0].retriable():
                                continue
                            raise
                    self.aborted.append(vals)
            except KafkaException as exc:
                err: KafkaError = exc.args[0]
                self.errors.append(str(err))
                if err.txn_requires_abort():
                    try:
                        p.abort_transaction(TIMEOUT_S)
                        self.aborted.append(vals)
                    except KafkaException as exc2:
                        self.errors.append(f"abort: {exc2}")
                        self.unknown.append(vals)
                        p = self.new_producer()
                else:
                    self.unknown.append(vals)
                    p = self.new_producer()
            self.done += 1


def test_transactions_under_broker_kills(cluster) -> None:
    """TransactionCoordinator / TransactionMarkerChannelManager / ProducerStateManager under
    crashes: atomic, exactly-once visibility of committed transactions (Kafka's guarantee)."""
    topic = "nemesis"
    p = txn_producer(cluster, "warmup")
    p.init_transactions(TIMEOUT_S)
    create_topic(cluster, topic, [[0, 1, 2], [1, 2, 0], [2, 0, 1]], {"min.insync.replicas": "2"})
    workers = [Worker(cluster, f"w{i}", topic) for i in range(2)]
    for w in workers:
        w.thread.start()
    rnd = random.Random(int(os.environ.get("NEMESIS_SEED", "7")))
    try:
        for round_ in range(int(os.environ.get("NEMESIS_ROUNDS", "4"))):
            base = sum(w.done for w in workers)
            wait_until(lambda base=base: sum(w.done for w in workers) >= base + 4, "progress", 90)
            if round_ % 2 == 0:
                victim = coordinator(cluster)
            else:
                victim = rnd.choice([leader_of(cluster, topic, q) for q in range(PARTS)] or [0])
                if victim is None:
                    victim = rnd.randrange(3)
            cluster.kill(victim)
            base = sum(w.done for w in workers)
            wait_until(
                lambda base=base: sum(w.done for w in workers) >= base + 3, "progress with a broker down", 90
            )
            cluster.start_broker(victim)
            wait_until(lambda: formed(cluster), "the cluster formed again", 60)
    finally:
        for w in workers:
            w.stop.set()
        for w in workers:
            w.thread.join(150)
    committed = [v for w in workers for t in w.committed for v in t]
    aborted = {v for w in workers for t in w.aborted for v in t}
    unknown = [t for w in workers for t in w.unknown]
    seen = read_committed(cluster.bootstrap, topic, len(committed), idle_s=3)
    counts = Counter(seen)
    dup = {v: n for v, n in counts.items() if n > 1}
    assert not dup, f"records read twice: {list(dup.items())[:5]}"
    missing = [v for v in committed if v not in counts]
    assert not missing, f"committed records missing: {missing[:5]}"
    visible_aborted = [v for v in aborted if v in counts]
    assert not visible_aborted, f"aborted records visible: {visible_aborted[:5]}"
    for t in unknown:
        present = [v in counts for v in t]
        assert all(present) or not any(present), f"transaction half visible: {t} {present}"
    converged(cluster, topic, PARTS)
    for q in range(PARTS):
        logs = [values(cluster.log_dir(i), topic, q) for i in range(3)]
        assert logs[0] == logs[1] == logs[2], f"replicas of partition {q} differ"
        idx = [
            {f.name: f.read_bytes() for f in sorted((cluster.log_dir(i) / f"{topic}-{q}").glob("*.txnindex"))}
            for i in range(3)
        ]
        assert idx[0] == idx[1] == idx[2], f".txnindex of partition {q} differ: {idx}"

    def lsos() -> list[tuple[int, int]]:
        out = []
        for q in range(PARTS):
            lead = leader_of(cluster, topic, q)
            if lead is None:
                return []
            out.append(
                cluster.run(
                    lambda lead=lead, q=q: (
                        (
                            pp := cluster.broker(lead).replica_manager.get_partition(topic, q)
                        ).log.last_stable_offset,
                        pp.log.high_watermark,
                    )
                )
            )
        return out

    wait_until(lambda: (x := lsos()) and all(a == b for a, b in x), "no transaction left open", 60)
    print(
        "committed",
        len(committed),
        "aborted",
        len(aborted),
        "unknown",
        len(unknown),
        "errors",
        [e for w in workers for e in w.errors][:20],
    )
