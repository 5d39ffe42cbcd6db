"""Helpers of the compaction and retention tests on a cluster (in-process 3-broker cluster)."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from storage.checkpoints import OffsetCheckpointFile
from storage.log_cleaner_manager import CLEANER_OFFSET_CHECKPOINT
from tests.cluster.failure_scenarios import replica_records
from tests.support.cluster import Cluster
from tests.support.polling import wait_until

BASE = {
    "offsets.topic.num.partitions": "1",
    "transaction.state.log.num.partitions": "1",
    "replica.fetch.backoff.ms": "200",
    "replica.lag.time.max.ms": "3000",
    "auto.leader.rebalance.enable": "false",
    "auto.create.topics.enable": "false",
    "log.cleaner.backoff.ms": "100",
    "group.initial.rebalance.delay.ms": "0",
}


def make_cluster(tmp_path: Path, zk: Any, n: int = 3, **overrides: str) -> Cluster:
    c = Cluster(
        n,
        zookeeper=zk,
        zk_chroot=f"/compaction_{uuid.uuid4().hex[:8]}",
        base_dir=tmp_path,
        overrides={**BASE, **overrides},
    )
    c.start()

    def formed() -> bool:
        caches = [c.broker(i).metadata_cache for i in range(c.n)]
        return all(x.controller_id >= 0 and len(x.get_alive_brokers()) == c.n for x in caches)

    wait_until(lambda: c.run(formed), "cluster formed")
    return c


def pstate(cluster: Cluster, i: int, topic: str, partition: int = 0) -> dict | None:
    def look() -> dict | None:
        p = cluster.broker(i).replica_manager.get_partition(topic, partition)
        if p is None:
            return None
        lg = p.log
        return {
            "leader": p.leader_id,
            "isr": tuple(sorted(p.isr)),
            "start": lg.log_start_offset,
            "end": lg.log_end_offset,
            "hw": lg.high_watermark,
            "segments": len(lg.segments()),
        }

    if not cluster.alive(i):
        return None
    return cluster.run(look)


def create_topic(
    cluster: Cluster, topic: str, rf: int, assignment: list[int] | None = None, **configs: str
) -> None:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    if assignment is not None:
        nt = NewTopic(topic, replica_assignment=[assignment], config=configs)
    else:
        nt = NewTopic(topic, 1, rf, config=configs)
    admin.create_topics([nt])[topic].result(60)
    n = rf if assignment is None else len(assignment)
    wait_until(
        lambda: (
            sum(
                1
                for i in range(cluster.n)
                if (s := pstate(cluster, i, topic)) and s["leader"] >= 0 and len(s["isr"]) == n
            )
            == n
        ),
        f"{topic} in sync",
    )


def leader_of(cluster: Cluster, topic: str, not_: int | None = None) -> int:
    """The broker that leads ``topic``-0 by its own state (another than ``not_``: after a kill)."""

    def look() -> tuple | None:
        for i in range(cluster.n):
            s = pstate(cluster, i, topic)
            if i != not_ and s is not None and s["leader"] == i:
                return (i,)
        return None

    return wait_until(look, f"leader of {topic}")[0]


def produce(
    cluster: Cluster, topic: str, items: list[tuple[bytes | None, bytes | None]], **conf: Any
) -> None:
    p = Producer(
        {
            "bootstrap.servers": cluster.bootstrap,
            "acks": "all",
            "linger.ms": 0,
            "batch.num.messages": 1,
            **conf,
        }
    )
    errors = []
    for k, v in items:
        p.produce(topic, key=k, value=v, partition=0, on_delivery=lambda e, m: e and errors.append(e))
        p.poll(0)
    assert p.flush(60) == 0
    assert not errors, errors


def records(cluster: Cluster, i: int, topic: str) -> list[tuple[int, bytes | None, bytes | None]]:
    """Broker i's copy, read from its files on the brokers' loop: the live cleaners swap
    segments on the loop, so a read there never lists a segment a swap then deletes."""
    return cluster.run(lambda: replica_records(cluster.log_dir(i), topic, 0))


async def retention(cluster: Cluster, i: int) -> None:
    await cluster.broker(i).log_manager.background.retention_pass()


async def clean_all(cluster: Cluster, i: int) -> int:
    """Clean broker i's logs until none is dirty enough; the rounds done."""
    cleaner = cluster.broker(i).log_manager.cleaner
    rounds = 0
    while await cleaner.clean_filthiest_log() is not None:
        rounds += 1
    return rounds


KEYS = 12


def workload(rounds: int) -> list[tuple[bytes, bytes | None]]:
    items: list[tuple[bytes, bytes | None]] = []
    for r in range(rounds):
        for k in range(KEYS):
            value = None if (k % 4 == 0 and r == rounds - 1) else b"r%d-k%d" % (r, k) + b"x" * 20
            items.append((b"key-%02d" % k, value))
    return items


def check_replica(
    recs: list[tuple[int, bytes | None, bytes | None]], original: dict[int, tuple], checkpoint: int
) -> None:
    seen: set[bytes] = set()
    for o, k, v in recs:
        assert original.get(o) == (k, v), f"offset {o}: {(k, v)} was {original.get(o)}"
        if o < checkpoint:
            assert k not in seen, f"key {k!r} twice below the cleaned offset {checkpoint}"
            seen.add(k)
    latest: dict[bytes, int] = {}
    for o, (k, _v) in sorted(original.items()):
        latest[k] = o
    offsets = {o for o, _, _ in recs}
    missing = [o for o in latest.values() if o not in offsets]
    assert not missing, f"latest records missing: {missing}"


def cleaner_checkpoint(log_dir: Path, topic: str) -> int:
    return OffsetCheckpointFile(log_dir / CLEANER_OFFSET_CHECKPOINT).read().get((topic, 0), 0)


COMPACTED = {"cleanup.policy": "compact", "segment.bytes": "600", "min.cleanable.dirty.ratio": "0.01"}


def write_compacted(cluster: Cluster, topic: str, rounds: int = 6) -> dict[int, tuple]:
    """An RF 3 compacted topic written with ``workload(rounds)``, every replica's high watermark
    at its end; the records by offset."""
    create_topic(cluster, topic, 3, **COMPACTED)
    items = workload(rounds)
    produce(cluster, topic, items)
    wait_until(lambda: all(pstate(cluster, i, topic)["hw"] == len(items) for i in range(3)), "all hw")
    return dict(enumerate(items))


def clean_every_replica(cluster: Cluster, topic: str) -> list[int]:
    """Every broker's cleaner run until nothing is dirty enough, its checkpoint written; each
    broker's cleaner checkpoint of ``topic``-0."""
    for i in range(cluster.n):
        cluster.run(clean_all(cluster, i))
    cluster.run(
        lambda: [
            cluster.broker(i).log_manager.cleaner.write_checkpoints_now([(topic, 0)])
            for i in range(cluster.n)
        ]
    )
    return [cleaner_checkpoint(cluster.log_dir(i), topic) for i in range(cluster.n)]
