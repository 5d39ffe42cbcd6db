"""The ZooKeeper-mode controller's partition reassignment against Kafka 3.9's KafkaController:
the per-partition error messages and the ``/admin/reassign_partitions`` trigger
(real ZooKeeper, fake brokers: tests/coordinator/zk_cluster_fakes.py)."""

from __future__ import annotations

import asyncio
import json

import pytest

from coordinator import zk_data as zd
from coordinator.zk_admin import AdminZkClient
from protocol.errors import ErrorCode
from tests.coordinator.test_zk_controller import (  # noqa: F401 (fixtures)
    _noop,
    connect,
    create,
    run,
    start_brokers,
    state_of,
    stop_all,
    wait_state,
)
from tests.coordinator.zk_cluster_fakes import until
from tests.support.zookeeper_server import zookeeper_shared  # noqa: F401

pytestmark = pytest.mark.zookeeper


def test_cancel_without_reassignment_carries_kafkas_default_message(connect):  # noqa: F811
    """Kafka's KafkaController.processApiPartitionReassignment answers a cancellation (null
    replicas) of a partition not being reassigned with ``new ApiError(Errors.NO_REASSIGNMENT_IN_PROGRESS)``,
    whose message is the error's default ("No partition reassignment is in progress."), and
    KafkaApis.handleAlterPartitionReassignmentsRequest puts ``error.message`` on the wire."""

    async def scenario():
        brokers = await start_brokers(connect, (1, 2), auto_leader_rebalance_enable=False)
        try:
            zk = brokers[1].zk
            c = brokers[1].controller
            await create(AdminZkClient(zk), "t", [[1, 2]])
            await wait_state(zk, "t", 0, lambda s: True)
            res = await c.alter_partition_reassignments({("t", 0): None})
        finally:
            await stop_all(brokers)
        assert res == {
            ("t", 0): (ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, "No partition reassignment is in progress.")
        }

    run(scenario())


def test_failed_reassignment_carries_kafkas_default_message(connect):  # noqa: F811
    """Kafka's KafkaController.maybeTriggerPartitionReassignment answers a partition whose
    onPartitionReassignment throws with ``new ApiError(Errors.UNKNOWN_SERVER_ERROR)``: the
    error's default message, not null."""

    async def scenario():
        brokers = await start_brokers(connect, (1, 2), auto_leader_rebalance_enable=False)
        try:
            zk = brokers[1].zk
            c = brokers[1].controller
            await create(AdminZkClient(zk), "t", [[1, 2]])
            await wait_state(zk, "t", 0, lambda s: True)

            async def broken(tp, assignment):
                raise RuntimeError("boom")

            c._on_partition_reassignment = broken
            res = await c.alter_partition_reassignments({("t", 0): [2, 1]})
        finally:
            await stop_all(brokers)
        assert res == {
            ("t", 0): (
                ErrorCode.UNKNOWN_SERVER_ERROR,
                "The server experienced an unexpected error when processing the request.",
            )
        }

    run(scenario())


def test_reassign_znode_created_again_right_after_the_controller_deleted_it_is_processed(connect):  # noqa: F811
    """Kafka's KafkaController.maybeRemoveFromZkReassignment deletes ``/admin/reassign_partitions``
    once its last partition completes and then queues ``ZkPartitionReassignment`` ("Ensure we
    detect future reassignments"): processZkPartitionReassignment re-registers the watch *and
    reads the znode if it exists*, so a reassignment an operator writes right after the
    deletion is carried out. Here the next znode is written just after the controller's delete
    (before its re-watch runs)."""

    async def scenario():
        brokers = await start_brokers(connect, (1, 2), auto_leader_rebalance_enable=False)
        try:
            zk = brokers[1].zk
            c = brokers[1].controller
            admin = AdminZkClient(zk)
            await create(admin, "t", [[1, 2]])
            await create(admin, "u", [[1, 2]])
            await wait_state(zk, "t", 0, lambda s: s.isr == (1, 2))
            await wait_state(zk, "u", 0, lambda s: s.isr == (1, 2))
            nxt = json.dumps(
                {"version": 1, "partitions": [{"topic": "u", "partition": 0, "replicas": [2, 1]}]}
            )
            original = c._fenced
            written = asyncio.Event()

            async def fenced(ops):
                results = await original(ops)
                deleting = any(op[0] == "delete" and op[1] == zd.REASSIGN_PARTITIONS_PATH for op in ops)
                if deleting and not written.is_set():
                    written.set()
                    # the operator's next kafka-reassign-partitions --zookeeper run
                    await asyncio.to_thread(zk.create_node, zd.REASSIGN_PARTITIONS_PATH, nxt.encode())
                return results

            c._fenced = fenced
            first = json.dumps(
                {"version": 1, "partitions": [{"topic": "t", "partition": 0, "replicas": [2, 1]}]}
            )
            await asyncio.to_thread(zk.create_node, zd.REASSIGN_PARTITIONS_PATH, first.encode())
            await until(lambda: c.ctx.replicas(("t", 0)) == (2, 1), what="t-0 reassigned")
            await asyncio.wait_for(written.wait(), 30)
            deadline = asyncio.get_running_loop().time() + 8
            while c.ctx.replicas(("u", 0)) != (2, 1) and asyncio.get_running_loop().time() < deadline:
                await asyncio.sleep(0.05)
            u_replicas = c.ctx.replicas(("u", 0))
        finally:
            await stop_all(brokers)
        assert u_replicas == (2, 1), "the reassignment written after the deletion was never carried out"

    run(scenario())
