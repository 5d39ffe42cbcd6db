"""__consumer_offsets compacted on every replica, then a coordinator failover."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from tests.support.polling import wait_until
from tests.support.zookeeper_server import zookeeper_shared

from .helpers import clean_all, leader_of, make_cluster, pstate

__all__ = ["zookeeper_shared"]
pytestmark = pytest.mark.integration

OFFSETS = "__consumer_offsets"


def consumer(cluster: Any, group: str) -> Consumer:
    return Consumer(
        {
            "bootstrap.servers": cluster.bootstrap,
            "group.id": group,
            "enable.auto.commit": False,
            "socket.timeout.ms": 5000,
        }
    )


def test_committed_offsets_survive_cleaning_and_coordinator_failover(
    tmp_path: Path, zookeeper_shared: Any
) -> None:
    """Kafka ``LogCleaner`` on each ``__consumer_offsets`` replica, then
    ``GroupMetadataManager.loadGroupsAndOffsets`` on the new coordinator: OffsetFetch answers
    the last committed offsets (and a deleted group's offsets stay deleted)."""
    c = make_cluster(tmp_path, zookeeper_shared, **{"offsets.topic.segment.bytes": "2000"})
    try:
        admin = AdminClient({"bootstrap.servers": c.bootstrap})
        admin.create_topics([NewTopic("t", 4, 1)])["t"].result(60)
        last: dict[int, int] = {}
        cons = consumer(c, "g1")
        for r in range(40):
            tps = [TopicPartition("t", p, r * 10 + p) for p in range(4)]
            cons.commit(offsets=tps, asynchronous=False)
            last.update({tp.partition: tp.offset for tp in tps})
        cons.close()
        wait_until(
            lambda: all(
                (s := pstate(c, i, OFFSETS)) and s["hw"] == s["end"] and len(s["isr"]) == 3 for i in range(3)
            ),
            "offsets topic in sync",
        )
        for i in range(3):
            c.run(clean_all(c, i))
            cps = c.run(lambda i=i: c.broker(i).log_manager.cleaner.manager.all_checkpoints())
            assert cps.get((OFFSETS, 0), 0) > 0, f"broker {i} cleaned nothing: {cps}"
        lead = leader_of(c, OFFSETS)
        c.kill(lead)
        leader_of(c, OFFSETS, not_=lead)  # the new coordinator's partition
        cons = consumer(c, "g1")
        try:
            got = cons.committed([TopicPartition("t", p) for p in range(4)], timeout=30)
        finally:
            cons.close()
        assert {tp.partition: tp.offset for tp in got} == last
    finally:
        c.close()
