"""Transactions on a compacted RF 3 topic: the cleaner on every replica, then a leader kill."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

from tests.support.polling import wait_until
from tests.support.zookeeper_server import zookeeper_shared

from .helpers import clean_every_replica, create_topic, leader_of, make_cluster, pstate, records

__all__ = ["zookeeper_shared"]
pytestmark = pytest.mark.integration


def read_committed(cluster: Any, topic: str, end: int) -> list[tuple[int, bytes | None, bytes | None]]:
    consumer = Consumer(
        {
            "bootstrap.servers": cluster.bootstrap,
            "group.id": f"g-{uuid.uuid4().hex[:6]}",
            "isolation.level": "read_committed",
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
        }
    )
    out = []
    try:
        consumer.assign([TopicPartition(topic, 0, 0)])
        import time

        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is not None and msg.error() is None:
                out.append((msg.offset(), msg.key(), msg.value()))
            pos = consumer.position([TopicPartition(topic, 0)])[0].offset
            if pos >= end:
                break
    finally:
        consumer.close()
    return out


def test_read_committed_after_cleaning_and_leader_kill(tmp_path: Path, zookeeper_shared: Any) -> None:
    """Kafka ``Cleaner`` with ``CleanedTransactionMetadata`` (aborted records removed on each
    replica, markers kept within ``delete.retention.ms``) and ``UnifiedLog.collectAbortedTransactions``
    for a read_committed fetch on the new leader: exactly the committed records are read."""
    c = make_cluster(tmp_path, zookeeper_shared)
    try:
        topic = "txc"
        create_topic(
            c,
            topic,
            3,
            **{
                "cleanup.policy": "compact",
                "segment.bytes": "800",
                "min.cleanable.dirty.ratio": "0.01",
                "min.insync.replicas": "2",
            },
        )
        p = Producer(
            {
                "bootstrap.servers": c.bootstrap,
                "transactional.id": "tx-1",
                "linger.ms": 0,
                "batch.num.messages": 1,
            }
        )
        p.init_transactions(30)
        committed: dict[bytes, bytes] = {}
        aborted_values: set[bytes] = set()
        for r in range(8):
            p.begin_transaction()
            batch = {}
            for k in range(4):
                key = b"k%d" % ((r + k) % 6)
                val = b"r%d-%s" % (r, key) + b"x" * 30
                p.produce(topic, key=key, value=val, partition=0)
                p.flush(30)
                batch[key] = val
            if r % 3 == 1:
                p.abort_transaction(30)
                aborted_values.update(batch.values())
            else:
                p.commit_transaction(30)
                committed.update(batch)
        p.flush(30)
        lead = leader_of(c, topic)
        end = pstate(c, lead, topic)["end"]
        wait_until(lambda: all(pstate(c, i, topic)["hw"] == end for i in range(3)), "all hw")
        for i, cp in enumerate(clean_every_replica(c, topic)):
            kept = [(o, v) for o, _, v in records(c, i, topic) if o < cp and v in aborted_values]
            assert cp > 0 and not kept, f"broker {i} kept aborted records below {cp}: {kept}"
        c.kill(lead)
        leader_of(c, topic, not_=lead)
        got = read_committed(c, topic, end)
        vals = [v for _, _, v in got]
        assert not set(vals) & aborted_values, "aborted values read"
        latest = {}
        for _, k, v in got:
            latest[k] = v
        assert latest == committed
    finally:
        c.close()
