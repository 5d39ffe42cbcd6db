"""kill -9 of the leader while its cleaner is under way, then restart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.polling import wait_until
from tests.support.zookeeper_server import zookeeper_shared

from .helpers import check_replica, leader_of, make_cluster, produce, pstate, records, write_compacted

__all__ = ["zookeeper_shared"]
pytestmark = pytest.mark.integration


def test_leader_killed_while_cleaning_comes_back_with_the_latest_records(
    tmp_path: Path, zookeeper_shared: Any
) -> None:
    """Kafka ``LogCleaner`` crash safety (``.cleaned``/``.swap`` recovered by ``LogLoader``) plus
    the fetcher's truncation on the restarted old leader: every replica keeps each key's latest
    record at the leader's offsets."""
    c = make_cluster(tmp_path, zookeeper_shared, **{"log.cleaner.io.max.bytes.per.second": "3000"})
    try:
        topic = "kc"
        original = write_compacted(c, topic)
        n = len(original)
        lead = leader_of(c, topic)
        wait_until(
            lambda: c.run(lambda: c.broker(lead).log_manager.cleaner.manager.is_in_progress(topic, 0)),
            "leader cleaning",
            30,
        )
        c.kill(lead)
        new = leader_of(c, topic, not_=lead)
        produce(c, topic, [(b"key-00", b"after-kill")])
        original[n] = (b"key-00", b"after-kill")
        c.start_broker(lead)
        wait_until(
            lambda: (
                (s := pstate(c, lead, topic)) is not None
                and s["end"] == n + 1
                and len(pstate(c, new, topic)["isr"]) == 3
            ),
            "old leader back in sync",
            60,
        )
        for i in range(3):
            check_replica(records(c, i, topic), original, 0)
    finally:
        c.close()
