"""TxnOffsetCommit, then the group coordinator's broker killed before the transaction ends."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from confluent_kafka import Consumer, TopicPartition

from tests.cluster.failure_scenarios import create_topic, wait_until
from tests.cluster.txn_failure_scenarios import (
    TIMEOUT_S,
    coordinator,
    leader_of,
    start,
    txn_producer,
    wait_state,
)

pytestmark = [pytest.mark.integration, pytest.mark.zookeeper]

OFFSETS = "__consumer_offsets"


@pytest.fixture
def cluster(zookeeper_shared: Any, tmp_path):
    c = start(zookeeper_shared, tmp_path)
    try:
        yield c
    finally:
        c.close()


def group_view(cluster, i: int, group: str, topic: str) -> tuple[bool, int | None] | None:
    """(pending transactional commit?, committed offset) at broker i, None if not loaded there."""

    def look() -> tuple[bool, int | None] | None:
        g = cluster.broker(i).groups
        try:
            [(_, _, om)] = g.fetch_offsets(group, [(topic, 0)])
        except Exception:
            return None
        return g.has_pending_txn_offset(group, topic, 0), None if om is None else om.committed_offset

    return cluster.run(look)


def leader(cluster, not_: int | None = None) -> int:
    def look() -> int | None:
        x = leader_of(cluster, OFFSETS)
        return None if x is None or x == not_ else x + 1

    return wait_until(look, "the group coordinator", TIMEOUT_S) - 1


def committed_stable(cluster, group: str, topic: str) -> int:
    c = Consumer(
        {
            "bootstrap.servers": cluster.bootstrap,
            "group.id": group,
            "isolation.level": "read_committed",
            "enable.auto.commit": False,
        }
    )
    try:
        [tp] = c.committed([TopicPartition(topic, 0)], timeout=TIMEOUT_S)
        return tp.offset
    finally:
        c.close()


def test_txn_offsets_follow_the_group_coordinator_move(cluster) -> None:
    """GroupMetadataManager.loadGroupsAndOffsets (pending transactional offsets of an open
    transaction) + handleTxnCompletion on the new coordinator: offsets committed in a
    transaction whose group coordinator died before the COMMIT marker become visible on the
    new coordinator exactly when the marker lands; those of an aborted transaction never."""
    src, out = "src", "out"
    group = f"g-{uuid.uuid4().hex[:6]}"
    p = txn_producer(cluster, "offsets")
    p.init_transactions(TIMEOUT_S)
    c = coordinator(cluster)
    a, b = [i for i in range(3) if i != c]
    create_topic(cluster, src, [[a, b, c]], {})
    create_topic(cluster, out, [[b, a, c]], {"min.insync.replicas": "2"})
    meta = Consumer({"bootstrap.servers": cluster.bootstrap, "group.id": group}).consumer_group_metadata()

    def one_round(offset: int, commit: bool) -> None:
        p.begin_transaction()
        p.produce(out, value=f"o{offset}".encode(), partition=0)
        p.send_offsets_to_transaction([TopicPartition(src, 0, offset)], meta, TIMEOUT_S)
        assert p.flush(TIMEOUT_S) == 0
        g = leader(cluster)
        wait_until(lambda: (group_view(cluster, g, group, src) or (False,))[0], "the pending offset")
        cluster.kill(g)
        g2 = leader(cluster, not_=g)
        loaded = wait_until(
            lambda: group_view(cluster, g2, group, src), "the group loaded on the new coordinator"
        )
        assert loaded[0], loaded  # still pending: not visible before the marker
        if commit:
            p.commit_transaction(TIMEOUT_S)
        else:
            p.abort_transaction(TIMEOUT_S)
        wait_state(cluster, coordinator(cluster), "offsets", "CompleteCommit" if commit else "CompleteAbort")
        wait_until(lambda: group_view(cluster, g2, group, src)[0] is False, "the pending offset resolved")
        cluster.start_broker(g)

    one_round(42, commit=True)
    g = leader(cluster)
    assert group_view(cluster, g, group, src) == (False, 42)
    assert committed_stable(cluster, group, src) == 42
    one_round(99, commit=False)
    g = leader(cluster)
    assert group_view(cluster, g, group, src) == (False, 42)
    assert committed_stable(cluster, group, src) == 42
