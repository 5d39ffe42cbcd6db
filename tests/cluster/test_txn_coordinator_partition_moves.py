"""A ``__transaction_state`` partition reassigned away from the broker that coordinates it.

Kafka's controller moves the leader to a target replica (the old leader gets no LeaderAndIsr,
its replica is not in the target set), then sends the old replica StopReplica (delete=false,
then delete=true). KafkaApis.handleStopReplicaRequest calls TransactionCoordinator.onResignation
for a deleted ``__transaction_state`` partition (as GroupCoordinator.onResignation for
``__consumer_offsets``): the old broker drops its transactional ids (NOT_COORDINATOR from then
on) and stops sending their markers (removeMarkersForTxnTopicPartition).
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer
from kafka import TopicPartition as KTopicPartition
from kafka.admin import KafkaAdminClient

from protocol.errors import ErrorCode
from tests.cluster.zk_cluster_checks import OVERRIDES, agreed_metadata, wait_until
from tests.support.cluster import Cluster

pytestmark = [pytest.mark.integration, pytest.mark.zookeeper]

TXN_TOPIC = "__transaction_state"
TIMEOUT_S = 60
OVERRIDES_ONE_TXN_PARTITION = {
    **OVERRIDES,
    "default.replication.factor": "1",
    "transaction.state.log.num.partitions": "1",
    "transaction.state.log.replication.factor": "1",
    "offsets.topic.num.partitions": "1",
    "offsets.topic.replication.factor": "1",
    "auto.leader.rebalance.enable": "false",
}


@contextlib.contextmanager
def _two_brokers_with_a_coordinator(
    zookeeper: Any, tmp_path: Path, txn_id: str
) -> Iterator[tuple[Cluster, int]]:
    """Two brokers, one ``__transaction_state`` partition of one replica, and the index of
    the broker coordinating ``txn_id`` (initialized by a transactional producer)."""
    with Cluster(
        2,
        zookeeper=zookeeper,
        zk_chroot=f"/txnmove_{uuid.uuid4().hex[:8]}",
        base_dir=tmp_path,
        overrides=OVERRIDES_ONE_TXN_PARTITION,
    ) as cluster:
        wait_until(
            lambda: (v := agreed_metadata(cluster)) is not None and v.controller >= 0 and len(v.brokers) == 2,
            "two brokers agreeing on a controller",
            TIMEOUT_S,
        )
        p = Producer({"bootstrap.servers": cluster.bootstrap, "transactional.id": txn_id})
        p.init_transactions(TIMEOUT_S)
        wait_until(lambda: _owner(cluster) is not None, "the coordinator", TIMEOUT_S)
        owner = _owner(cluster)
        assert owner is not None
        yield cluster, owner


def _owner(cluster: Cluster) -> int | None:
    """The broker whose transaction coordinator owns ``__transaction_state``-0."""
    for i in range(2):
        owned = cluster.run(lambda i=i: cluster.broker(i).transactions.owned_partitions)
        if owned and 0 in owned:
            return i
    return None


def test_old_coordinator_resigns_when_its_partition_is_reassigned_away(zookeeper_shared: Any, tmp_path):
    """KafkaApis.handleStopReplicaRequest -> TransactionCoordinator.onResignation
    (TransactionStateManager.removeTransactionsForTxnTopicPartition): after the reassignment
    the old leader answers NOT_COORDINATOR for the ids of the moved partition and lists none
    of them (a StopReplica that resigned only the group coordinator left the old broker
    serving the stale transactional ids)."""
    with _two_brokers_with_a_coordinator(zookeeper_shared, tmp_path, "moved") as (cluster, old):
        new = 1 - old

        def describe(i: int) -> Any:
            return cluster.run(lambda: cluster.broker(i).transactions.describe("moved"))

        assert describe(old).error is ErrorCode.NONE
        admin = KafkaAdminClient(bootstrap_servers=cluster.bootstrap, request_timeout_ms=30_000)
        try:
            tp = KTopicPartition(TXN_TOPIC, 0)
            assert admin.alter_partition_reassignments({tp: [cluster.broker_id(new)]}) == {tp: None}
        finally:
            admin.close()
        wait_until(lambda: describe(new).error is ErrorCode.NONE, "the new coordinator loaded", TIMEOUT_S)
        wait_until(
            lambda: (
                cluster.run(lambda: cluster.broker(old).replica_manager.get_partition(TXN_TOPIC, 0)) is None
            ),
            "the old replica deleted",
            TIMEOUT_S,
        )
        assert describe(old).error is ErrorCode.NOT_COORDINATOR
        _, _, listed = cluster.run(lambda: cluster.broker(old).transactions.list_transactions([], []))
        assert listed == []


def test_adding_a_replica_does_not_reload_the_coordinator(zookeeper_shared: Any, tmp_path):
    """ReplicaManager.makeLeaders / Partition.makeLeader: onLeadershipChange (and so
    TransactionCoordinator.onElection, which unloads and reloads the partition) hears only of
    partitions whose broker was not their leader (``isNewLeader``). A reassignment that adds a
    replica to a ``__transaction_state`` partition keeps its leader and only bumps the leader
    epoch: Kafka's coordinator keeps serving. A reload on every epoch bump of a partition it
    already leads would answer in-flight writes NOT_COORDINATOR and every id of the partition
    COORDINATOR_LOAD_IN_PROGRESS until the reload ends, and cancel and resend the markers."""
    with _two_brokers_with_a_coordinator(zookeeper_shared, tmp_path, "stays") as (cluster, leader):
        other = 1 - leader
        reloads: list[int] = []

        def count_reloads() -> None:
            txns = cluster.broker(leader).transactions
            real = txns._start_load

            def start_load(partition: int) -> None:
                reloads.append(partition)
                real(partition)

            txns._start_load = start_load  # type: ignore[method-assign]

        cluster.run(count_reloads)
        admin = KafkaAdminClient(bootstrap_servers=cluster.bootstrap, request_timeout_ms=30_000)
        try:
            tp = KTopicPartition(TXN_TOPIC, 0)
            target = [cluster.broker_id(leader), cluster.broker_id(other)]
            assert admin.alter_partition_reassignments({tp: target}) == {tp: None}
            wait_until(lambda: admin.list_partition_reassignments() == {}, "the reassignment done", TIMEOUT_S)
        finally:
            admin.close()
        wait_until(
            lambda: (
                cluster.run(lambda: cluster.broker(other).replica_manager.get_partition(TXN_TOPIC, 0))
                is not None
            ),
            "the added replica",
            TIMEOUT_S,
        )
        assert _owner(cluster) == leader
        assert reloads == []
