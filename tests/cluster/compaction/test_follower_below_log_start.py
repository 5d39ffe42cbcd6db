"""A follower that was down while the leader moved its log start offset comes back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.polling import wait_until
from tests.support.zookeeper_server import zookeeper_shared

from .helpers import create_topic, leader_of, make_cluster, produce, pstate, records, retention

__all__ = ["zookeeper_shared"]
pytestmark = pytest.mark.integration


@pytest.mark.parametrize("policy", ["delete", "compact,delete"])
def test_follower_down_during_retention_restarts_at_leader_log_start(
    tmp_path: Path, zookeeper_shared: Any, policy: str
) -> None:
    """Kafka ``AbstractFetcherThread.handleOutOfRangeError`` / ``fetchOffsetAndTruncate``
    (``truncateFullyAndStartAt(leaderStartOffset)``) after ``UnifiedLog.deleteRetentionSizeBreachedSegments``
    on the leader: the follower catches up from the leader's log start, its own log start
    moves there, and it rejoins the ISR with the leader's records at the leader's offsets."""
    c = make_cluster(tmp_path, zookeeper_shared)
    try:
        topic = "ret"
        create_topic(
            c,
            topic,
            3,
            **{
                "segment.bytes": "400",
                "retention.bytes": "1200",
                "cleanup.policy": policy,
                "min.insync.replicas": "1",
            },
        )
        produce(c, topic, [(b"k%d" % i, b"v" * 40) for i in range(10)])
        lead = leader_of(c, topic)
        follower = next(i for i in range(3) if i != lead)
        wait_until(lambda: pstate(c, follower, topic)["end"] == 10, "follower caught up")
        c.stop(follower)
        produce(c, topic, [(b"k%d" % i, b"w" * 40) for i in range(10, 80)])

        def retained() -> bool:
            c.run(retention(c, lead))
            return pstate(c, lead, topic)["start"] > 10

        wait_until(retained, "leader retention")
        lstart = pstate(c, lead, topic)["start"]
        c.start_broker(follower)

        def caught_up() -> bool:
            s, lead_state = pstate(c, follower, topic), pstate(c, lead, topic)
            return s is not None and s["end"] == lead_state["end"] == 80 and len(lead_state["isr"]) == 3

        wait_until(caught_up, "follower caught up and in sync", 30)
        s = pstate(c, follower, topic)
        assert s["start"] >= lstart, s
        mine = records(c, follower, topic)
        theirs = {o: (k, v) for o, k, v in records(c, lead, topic)}
        assert mine and all(theirs.get(o) == (k, v) for o, k, v in mine), "follower differs from leader"
    finally:
        c.close()
