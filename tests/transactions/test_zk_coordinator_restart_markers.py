"""A lone ZooKeeper-mode broker restarted with a transaction in PrepareCommit.

Kafka's TransactionStateManager.loadTransactionsForTxnTopicPartition resumes PrepareCommit
by sending the markers again (TransactionMarkerChannelManager.addTxnMarkersToSend); only a
partition whose leader the metadata cache does not know is taken as deleted and skipped. A
broker that just started learns the partition states from the controller's UpdateMetadata,
which follows the LeaderAndIsr that makes it the coordinator: until then its markers wait.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from coordinator.transaction_seams import TxnMarker
from protocol.errors import ErrorCode
from tests.cluster.zk_cluster_checks import OVERRIDES, wait_until
from tests.support.cluster import Cluster
from tests.support.zookeeper_server import zookeeper_shared  # noqa: F401

pytestmark = [pytest.mark.integration, pytest.mark.zookeeper]

TIMEOUT_S = 60


class HoldMarkers:
    """Every marker answered NOT_ENOUGH_REPLICAS (retried by the coordinator, never written)."""

    async def write_txn_markers(self, broker_id: int, markers: Sequence[TxnMarker]):
        return [dict.fromkeys(m.partitions, ErrorCode.NOT_ENOUGH_REPLICAS) for m in markers]


def test_prepared_commit_of_a_restarted_lone_zk_broker_writes_its_markers(zookeeper_shared: Any, tmp_path):  # noqa: F811
    """TransactionStateManager.loadTransactionsForTxnTopicPartition + TransactionMarkerChannelManager:
    after the coordinator restarts, a transaction loaded in PrepareCommit gets its COMMIT markers
    written to its partitions (which still exist) before CompleteCommit; its records become
    readable with read_committed (the partition's last stable offset reaches its end)."""
    overrides = {
        **OVERRIDES,
        "default.replication.factor": "1",
        "transaction.state.log.num.partitions": "1",
        "transaction.state.log.replication.factor": "1",
        "offsets.topic.num.partitions": "1",
        "offsets.topic.replication.factor": "1",
    }
    with Cluster(
        1,
        zookeeper=zookeeper_shared,
        zk_chroot=f"/txncold_{uuid.uuid4().hex[:8]}",
        base_dir=tmp_path,
        overrides=overrides,
    ) as cluster:
        topic = "cold"
        admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
        assert admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(TIMEOUT_S) is None
        p = Producer({"bootstrap.servers": cluster.bootstrap, "transactional.id": "cold"})
        p.init_transactions(TIMEOUT_S)

        def state() -> str:
            return cluster.run(lambda: cluster.broker(0).transactions.describe("cold").state)

        def offsets() -> tuple[int, int] | None:
            def read() -> tuple[int, int] | None:
                part = cluster.broker(0).replica_manager.get_partition(topic, 0)
                return None if part is None else (part.log.last_stable_offset, part.log.log_end_offset)

            return cluster.run(read)

        cluster.run(lambda: setattr(cluster.broker(0).transactions.markers, "writer", HoldMarkers()))
        p.begin_transaction()
        for i in range(3):
            p.produce(topic, value=f"v{i}".encode(), partition=0)
        assert p.flush(TIMEOUT_S) == 0
        p.commit_transaction(TIMEOUT_S)  # answered once PrepareCommit is durable
        assert state() == "PrepareCommit"
        lso, end = offsets()
        assert lso == 0 and end == 3  # the transaction is open on the partition

        cluster.restart(0)  # a clean restart: the same broker is the coordinator again
        wait_until(lambda: state() == "CompleteCommit", "CompleteCommit after the restart", TIMEOUT_S)
        # The COMMIT marker was written (offset 3), so the LSO moves past it.
        wait_until(
            lambda: (o := offsets()) is not None and o[0] == o[1] == 4,
            "the COMMIT marker",
            10,
            detail=offsets,
        )
