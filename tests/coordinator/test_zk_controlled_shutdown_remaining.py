"""Controlled shutdown: the partitions answered as remaining are Kafka's
``ControllerContext.partitionLeadersOnBroker`` (replicated partitions of topics not being
deleted), so a broker leading an RF=1 partition can still complete a controlled shutdown."""

from __future__ import annotations

import pytest

from coordinator.zk_admin import AdminZkClient
from protocol.errors import ErrorCode
from tests.coordinator.test_zk_controller import connect, create, run, start_brokers, stop_all, wait_state  # noqa: F401
from tests.coordinator.zk_cluster_fakes import until
from tests.support.zookeeper_server import zookeeper_shared  # noqa: F401

pytestmark = pytest.mark.zookeeper


def test_single_replica_partition_is_not_remaining(connect):  # noqa: F811
    async def scenario():
        brokers = await start_brokers(connect, (1, 2, 3))
        try:
            zk = brokers[1].zk
            c = brokers[1].controller
            admin = AdminZkClient(zk)
            await create(admin, "led", [[2, 3, 1]])
            await create(admin, "single", [[2]])
            for t in ("led", "single"):
                await wait_state(zk, t, 0, lambda s: True)
            error, remaining = await c.controlled_shutdown(2, brokers[2].epoch)
            # Kafka: partitionLeadersOnBroker filters partitionReplicaAssignment(tp).size > 1,
            # so only "led" could remain (and it moved): nothing remains.
            assert error is ErrorCode.NONE
            assert remaining == []
        finally:
            await stop_all(brokers)

    run(scenario())


def test_partition_of_topic_being_deleted_is_not_remaining(connect):  # noqa: F811
    async def scenario():
        brokers = await start_brokers(connect, (1, 2, 3))
        try:
            zk = brokers[1].zk
            c = brokers[1].controller
            admin = AdminZkClient(zk)
            await create(admin, "doomed", [[2, 1]])
            await wait_state(zk, "doomed", 0, lambda s: True)
            # a reassignment in progress (broker 3 never catches up: fake brokers) keeps the
            # topic's deletion pending, as in Kafka
            results = await c.alter_partition_reassignments({("doomed", 0): [2, 1, 3]})
            assert results == {("doomed", 0): (ErrorCode.NONE, None)}
            await admin.delete_topic("doomed")
            await until(lambda: "doomed" in c.ctx.topics_to_delete, what="deletion queued")
            error, remaining = await c.controlled_shutdown(2, brokers[2].epoch)
            # Kafka: partitionLeadersOnBroker leaves out topics queued for deletion
            assert error is ErrorCode.NONE
            assert remaining == []
        finally:
            await stop_all(brokers)

    run(scenario())
