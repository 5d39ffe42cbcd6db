"""A follower whose log dir fails stops fetching its partitions there (Kafka's
ReplicaManager.handleLogDirFailure: replicaFetcherManager.removeFetcherForPartitions)."""

from __future__ import annotations

import errno
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from tests.support.cluster import Cluster

pytestmark = [pytest.mark.integration, pytest.mark.zookeeper]


def _poll(condition: Callable[[], Any], what: str, timeout: float) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if result:
            return result
        assert time.monotonic() < deadline, f"no {what} within {timeout} s"
        time.sleep(0.05)


def test_a_failed_dir_removes_its_partitions_from_the_replica_fetchers(zookeeper_shared, tmp_path: Path):
    """Kafka ReplicaManager.handleLogDirFailure: the partitions of the failed dir are marked
    offline and ``replicaFetcherManager.removeFetcherForPartitions(newOfflinePartitions)``; the
    follower no longer fetches them (rather than every replica.fetch.backoff.ms, each answer
    failing the append with a WARNING line)."""
    cluster = Cluster(
        2,
        zookeeper=zookeeper_shared,
        zk_chroot=f"/t_offline_fetch_{id(tmp_path)}",
        overrides={"zookeeper.session.timeout.ms": "6000", "offsets.topic.num.partitions": "1"},
        base_dir=tmp_path,
    )
    cluster.start()
    try:
        admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
        fut = admin.create_topics([NewTopic("f", 1, replica_assignment=[[0, 1]])], operation_timeout=30)
        fut["f"].result(60)
        key = ("f", 0)

        def follower_fetching() -> bool:
            def look() -> bool:
                rm = cluster.broker(1).replica_manager
                return rm.replication is not None and rm.replication.fetchers.fetcher_for(key) is not None

            return cluster.run(look)

        _poll(follower_fetching, "fetcher on the follower", 60)

        def fail_dir() -> None:
            plog = cluster.broker(1).log_manager.get_log("f", 0)
            plog.dir_state.report(OSError(errno.EIO, "Input/output error"), "testing")

        cluster.run(fail_dir)
        _poll(lambda: not follower_fetching(), "fetcher removal after the dir failure", 10)
    finally:
        cluster.close()
