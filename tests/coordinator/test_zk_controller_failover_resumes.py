"""A controller that dies in the middle of a topic deletion, a /admin/reassign_partitions
reassignment or a /admin/preferred_replica_election: the next controller resumes from the
znodes (``KafkaController.onControllerFailover``: ``fetchTopicDeletionsInProgress`` +
``topicDeletionManager.tryTopicDeletion``, ``initializePartitionReassignments``,
``fetchPendingPreferredReplicaElections`` + ``onReplicaElection``)."""

from __future__ import annotations

import asyncio

import pytest

from coordinator import zk_data as zd
from coordinator.zk_admin import AdminZkClient
from coordinator.zk_controller import KafkaController
from tests.coordinator.test_zk_controller import (
    _noop,
    alter,
    connect,
    create,
    only,
    run,
    start_brokers,
    state_of,
    stop_all,
    wait_state,
)
from tests.coordinator.zk_cluster_fakes import INTER_BROKER, FakeBroker, until
from tests.support.zookeeper_server import zookeeper_shared

pytestmark = pytest.mark.zookeeper
__all__ = ["connect", "zookeeper_shared"]  # the fixtures


async def start_controller(b: FakeBroker) -> KafkaController:
    b.controller = KafkaController(
        b.broker_id,
        b.zk,
        b.channel,
        time_ms=lambda: 1,
        inter_broker_listener=INTER_BROKER,
        auto_leader_rebalance_enable=False,
    )
    await b.controller.startup()
    return b.controller


def exists(b: FakeBroker, path: str) -> bool:
    return b.zk.kazoo.exists(path) is not None


def test_new_controller_finishes_a_deletion_the_old_one_started(connect):
    """TopicDeletionManager at failover: the marked topic is deleted by the next controller."""

    async def scenario():
        brokers = await start_brokers(connect, (1, 2, 3), auto_leader_rebalance_enable=False)
        try:
            admin = AdminZkClient(brokers[2].zk)
            await create(admin, "d", [[2, 3], [3, 2]])
            await wait_state(brokers[2].zk, "d", 1, lambda s: True)
            brokers[1].channel.stop_replica_error = 56  # KAFKA_STORAGE_ERROR: deletion stalls
            await admin.delete_topic("d")
            c1 = brokers[1].controller
            await until(lambda: "d" in c1.ctx.deletion_ineligible, what="a failed StopReplica")
            c3 = await start_controller(brokers[3])
            await until(lambda: c3.active_controller_id == 1, what="controller known")
            await brokers[1].kill()
            await until(lambda: c3.active, what="failover")
            await until(
                lambda: (
                    not exists(brokers[3], zd.topic_path("d"))
                    and not exists(brokers[3], zd.delete_topic_path("d"))
                ),
                what="the deletion finished by the new controller",
            )
        finally:
            await stop_all(brokers)

    run(scenario())


def test_new_controller_runs_a_pending_preferred_replica_election(connect):
    """``fetchPendingPreferredReplicaElections`` at failover: the znode written while there
    was no controller is acted on and deleted."""

    async def scenario():
        brokers = await start_brokers(connect, (1, 2, 3), auto_leader_rebalance_enable=False)
        try:
            zk = brokers[1].zk
            c1 = brokers[1].controller
            await create(AdminZkClient(zk), "p", [[2, 3]])
            s = await wait_state(zk, "p", 0, lambda s: s.leader == 2)
            # leadership to 3 (preferred election the other way round is not possible: use a
            # controlled shutdown of 2), then 2 back in the ISR through AlterPartition
            await c1.controlled_shutdown(2, brokers[2].epoch)
            s = await wait_state(zk, "p", 0, lambda s: s.leader == 3)
            await brokers[2].kill()
            brokers[2] = await FakeBroker(connect, 2).start()
            await until(lambda: 2 in c1.ctx.brokers and 2 not in c1.ctx.shutting_down, what="2 back")
            await c1._call("sync", _noop)
            s = await state_of(zk, "p", 0)
            tid = c1.ctx.topic_ids["p"]
            only(
                await c1.alter_partition(
                    alter(brokers[3], tid, 0, s.leader_epoch, [3, 2], s.partition_epoch), 3
                )
            )
            await wait_state(zk, "p", 0, lambda s: s.leader == 3 and 2 in s.isr)
            # the controller dies; the election is asked for while there is none
            await brokers[1].kill()
            kz = brokers[3].zk.kazoo
            await asyncio.to_thread(
                kz.create, zd.PREFERRED_REPLICA_ELECTION_PATH, zd.encode_partitions_list([("p", 0)])
            )
            c3 = await start_controller(brokers[3])
            await until(lambda: c3.active, what="failover")
            await wait_state(brokers[3].zk, "p", 0, lambda s: s.leader == 2)
            await until(
                lambda: not exists(brokers[3], zd.PREFERRED_REPLICA_ELECTION_PATH), what="znode deleted"
            )
        finally:
            await stop_all(brokers)

    run(scenario())


def test_new_controller_resumes_a_znode_reassignment(connect):
    """``initializePartitionReassignments``: /admin/reassign_partitions still names the move;
    the new controller resends LeaderAndIsr to the adding replica and completes it once the
    ISR holds the target, removing the partition from the znode (deleted when empty)."""

    async def scenario():
        brokers = await start_brokers(connect, (1, 2, 3, 4), auto_leader_rebalance_enable=False)
        try:
            zk = brokers[2].zk
            c1 = brokers[1].controller
            await create(AdminZkClient(zk), "r", [[2, 4]])
            await wait_state(zk, "r", 0, lambda s: s.leader == 2)
            kz = zk.kazoo
            await asyncio.to_thread(
                kz.create, zd.REASSIGN_PARTITIONS_PATH, zd.encode_reassignment({("r", 0): [2, 3]})
            )
            await until(lambda: ("r", 0) in c1.ctx.being_reassigned, what="the move started")
            c2 = await start_controller(brokers[2])
            await until(lambda: c2.active_controller_id == 1, what="controller known")
            await brokers[1].kill()
            await until(lambda: c2.active, what="failover")
            await until(
                lambda: any(
                    ps.is_new for ps in brokers[2].channel.leader_and_isr_states(3) if ps.topic_name == "r"
                ),
                what="LeaderAndIsr (isNew) to the adding replica",
            )
            await c2._call("sync", _noop)
            s = await state_of(zk, "r", 0)
            tid = c2.ctx.topic_ids["r"]
            only(
                await c2.alter_partition(
                    alter(brokers[2], tid, 0, s.leader_epoch, [2, 4, 3], s.partition_epoch), 3
                )
            )
            await until(lambda: not exists(brokers[2], zd.REASSIGN_PARTITIONS_PATH), what="znode emptied")
            data, _ = await asyncio.to_thread(kz.get, zd.topic_path("r"))
            assert zd.decode_topic(data).partitions == {0: (2, 3)}
        finally:
            await stop_all(brokers)

    run(scenario())
