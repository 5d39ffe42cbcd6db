"""Compaction on every replica of an RF 3 topic: each replica's surviving records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.polling import wait_until
from tests.support.zookeeper_server import zookeeper_shared

from .helpers import (
    check_replica,
    clean_all,
    clean_every_replica,
    create_topic,
    leader_of,
    make_cluster,
    produce,
    pstate,
    records,
    workload,
    write_compacted,
)

__all__ = ["zookeeper_shared"]
pytestmark = pytest.mark.integration


def test_every_replica_compacts_to_the_same_surviving_records(tmp_path: Path, zookeeper_shared: Any) -> None:
    """Kafka ``LogCleaner``/``Cleaner.cleanSegments`` on each replica, bounded by
    ``LogCleanerManager.cleanableOffsets``: every replica keeps the latest record of each
    key (tombstones within ``delete.retention.ms`` too), at the leader's offsets."""
    c = make_cluster(tmp_path, zookeeper_shared)
    try:
        topic = "cmp"
        original = write_compacted(c, topic)
        n = len(original)
        for i, cp in enumerate(clean_every_replica(c, topic)):
            assert cp > 0, f"broker {i} did not clean"
            check_replica(records(c, i, topic), original, cp)
        # the leader dies; the new leader's log serves the same records
        lead = leader_of(c, topic)
        c.kill(lead)
        new = leader_of(c, topic, not_=lead)
        c.start_broker(lead)
        wait_until(
            lambda: (
                (s := pstate(c, lead, topic)) is not None
                and s["end"] == n
                and len(pstate(c, new, topic)["isr"]) == 3
            ),
            "old leader back in sync",
        )
        for i in range(3):
            check_replica(records(c, i, topic), original, 0)
    finally:
        c.close()


def test_follower_down_while_leader_compacts_catches_up_through_gaps(
    tmp_path: Path, zookeeper_shared: Any
) -> None:
    """Kafka ``ReplicaFetcherThread`` fetching a compacted region (offset gaps) after a restart,
    then ``LogCleaner`` on that follower: its records are the leader's at the same offsets, and
    it rejoins the ISR."""
    c = make_cluster(tmp_path, zookeeper_shared)
    try:
        topic = "cmpd"
        create_topic(
            c,
            topic,
            3,
            **{
                "cleanup.policy": "compact",
                "segment.bytes": "600",
                "min.cleanable.dirty.ratio": "0.01",
                "min.insync.replicas": "1",
            },
        )
        first = workload(1)
        produce(c, topic, first)
        lead = leader_of(c, topic)
        follower = next(i for i in range(3) if i != lead)
        wait_until(lambda: pstate(c, follower, topic)["end"] == len(first), "follower caught up")
        c.stop(follower)
        rest = workload(7)[len(first) :]
        produce(c, topic, rest)
        items = first + rest
        original = {o: kv for o, kv in enumerate(items)}
        n = len(items)
        c.run(clean_all(c, lead))
        c.start_broker(follower)
        wait_until(
            lambda: (
                (s := pstate(c, follower, topic)) is not None
                and s["end"] == n
                and len(pstate(c, lead, topic)["isr"]) == 3
            ),
            "follower back in sync",
            30,
        )
        c.run(clean_all(c, follower))
        for i in range(3):
            check_replica(records(c, i, topic), original, 0)
        theirs = {o: (k, v) for o, k, v in records(c, lead, topic)}
        mine = records(c, follower, topic)
        assert all(theirs.get(o, original[o]) == (k, v) for o, k, v in mine)
    finally:
        c.close()
