"""Helpers of the transaction failure scenarios: an in-process 3-broker ZooKeeper cluster with
one ``__transaction_state`` and one ``__consumer_offsets`` partition (RF 3), finding the
coordinator, reading each replica's segment files (kafka-python's parser), read_committed."""

from __future__ import annotations

import struct
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, Producer
from kafka.record import MemoryRecords

from tests.cluster.failure_scenarios import BASE_OVERRIDES, chroot, formed, wait_until
from tests.support.cluster import Cluster

TIMEOUT_S = 60
COMMIT, ABORT = 1, 0

OVERRIDES = {
    **BASE_OVERRIDES,
    # a follower cut from its leader's fetches stays in the ISR for the whole scenario
    "replica.lag.time.max.ms": "30000",
    "transaction.state.log.num.partitions": "1",
    "offsets.topic.num.partitions": "1",
    "transaction.abort.timed.out.transaction.cleanup.interval.ms": "500",
    "group.initial.rebalance.delay.ms": "0",
    "default.replication.factor": "3",
}


def start(zookeeper: Any, tmp_path: Path, broker_overrides: Any = None, **extra: str) -> Cluster:
    c = Cluster(
        3,
        zookeeper=zookeeper,
        zk_chroot=chroot("txnrev"),
        base_dir=tmp_path,
        overrides={**OVERRIDES, **extra},
        broker_overrides=broker_overrides,
    )
    c.start()
    try:
        wait_until(lambda: formed(c), "the cluster formed")
    except BaseException:
        c.close()
        raise
    return c


def leader_of(cluster: Cluster, topic: str, partition: int = 0) -> int | None:
    """The leader every live broker's metadata agrees on (alive), else None."""
    seen = set()
    for i in range(cluster.n):
        if not cluster.alive(i):
            continue
        s = cluster.run(lambda i=i: cluster.broker(i).metadata_cache.partition_state(topic, partition))
        seen.add(None if s is None else s.leader)
    if len(seen) != 1:
        return None
    leader = seen.pop()
    return leader if leader is not None and leader >= 0 and cluster.alive(leader) else None


def coordinator(cluster: Cluster, not_: int | None = None) -> int:
    """The broker whose transaction coordinator owns (loaded) ``__transaction_state``-0."""

    def owner() -> int | None:
        for i in range(cluster.n):
            if not cluster.alive(i) or i == not_:
                continue
            owned = cluster.run(lambda i=i: cluster.broker(i).transactions.owned_partitions)
            if owned and 0 in owned:
                return i + 1
        return None

    return wait_until(owner, "a loaded transaction coordinator", TIMEOUT_S) - 1


def describe(cluster: Cluster, i: int, txn_id: str) -> Any:
    return cluster.run(lambda: cluster.broker(i).transactions.describe(txn_id))


def wait_state(cluster: Cluster, i: int, txn_id: str, state: str) -> Any:
    return wait_until(
        lambda: (d := describe(cluster, i, txn_id)).state == state and d,
        f"{txn_id} in {state} at broker {i}",
        TIMEOUT_S,
    )


def txn_producer(cluster: Cluster, txn_id: str, **conf: Any) -> Producer:
    return Producer(
        {"bootstrap.servers": cluster.bootstrap, "transactional.id": txn_id, "linger.ms": 2, **conf}
    )


def batches(log_dir: Path, topic: str, partition: int) -> list[tuple[int, int, int, int | None, list]]:
    """(base offset, producer id, producer epoch, COMMIT=1/ABORT=0 for a control batch else
    None, [values]) of each batch of one replica's segment files."""
    out = []
    for segment in sorted((log_dir / f"{topic}-{partition}").glob("*.log")):
        records = MemoryRecords(segment.read_bytes())
        while records.has_next():
            batch = records.next_batch()
            assert batch.validate_crc(), f"corrupt batch in {segment}"
            kind = None
            values = []
            if batch.is_control_batch:
                (_v, kind) = struct.unpack(">hh", next(iter(batch)).key[:4])
            else:
                values = [r.value for r in batch]
            out.append((batch.base_offset, batch.producer_id, batch.producer_epoch, kind, values))
    return out


def markers(log_dir: Path, topic: str, partition: int) -> list[tuple[int, int, int]]:
    return [
        (pid, epoch, kind)
        for _, pid, epoch, kind, _ in batches(log_dir, topic, partition)
        if kind is not None
    ]


def values(log_dir: Path, topic: str, partition: int) -> list[bytes]:
    return [v for *_, vs in batches(log_dir, topic, partition) for v in vs]


def log_end(cluster: Cluster, i: int, topic: str, partition: int = 0) -> tuple[int, int] | None:
    def look() -> tuple[int, int] | None:
        p = cluster.broker(i).replica_manager.get_partition(topic, partition)
        return None if p is None else (p.log.log_end_offset, p.log.high_watermark)

    return cluster.run(look)


def converged(cluster: Cluster, topic: str, partitions: int = 1) -> None:
    """Every replica of every partition at one log end and high watermark."""

    def same() -> bool:
        for p in range(partitions):
            ends = {log_end(cluster, i, topic, p) for i in range(cluster.n)}
            if len(ends) != 1 or None in ends:
                return False
        return True

    wait_until(same, "every replica at one end and high watermark", 90)


def read_committed(bootstrap: str, topic: str, expect: int, idle_s: float = 2.0) -> list[bytes]:
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
    seen: list[bytes] = []
    deadline = time.monotonic() + TIMEOUT_S
    last = time.monotonic()
    try:
        while time.monotonic() < deadline:
            m = c.poll(0.2)
            if m is None or m.error():
                if len(seen) >= expect and time.monotonic() - last > idle_s:
                    break
                continue
            seen.append(m.value())
            last = time.monotonic()
    finally:
        c.close()
    return seen


def once(seen: list[bytes]) -> Counter:
    return Counter(seen)
