"""The ZooKeeper-mode controller where Kafka's order of steps shows (real ZooKeeper, fake brokers): topic
deletion with a replica down, a bounced broker, the KIP-704 recovery state."""

from __future__ import annotations

import asyncio

import pytest

from coordinator import zk_data as zd
from coordinator.zk_admin import AdminZkClient
from protocol.messages import StopReplicaRequest
from tests.coordinator.test_zk_controller import (  # noqa: F401 (fixtures)
    connect,
    create,
    run,
    start_brokers,
    state_of,
    stop_all,
    wait_state,
)
from tests.coordinator.zk_cluster_fakes import FakeBroker, until
from tests.support.zookeeper_server import zookeeper_shared  # noqa: F401

pytestmark = pytest.mark.zookeeper


async def _noop() -> None:
    return None


def test_deletion_with_a_dead_replica_still_unpublishes_the_topic_and_deletes_live_replicas(connect):  # noqa: F811 (the imported fixture)
    """Kafka's TopicDeletionManager.onTopicDeletion sends UpdateMetadata (leader -2) for every
    partition of a topic queued for deletion and StopReplica(delete) to the live replicas
    (onPartitionDeletion) even when another replica's broker is down; only the dead replicas
    become ReplicaDeletionIneligible. Clients stop seeing the topic at once."""

    async def scenario():
        brokers = await start_brokers(connect, (1, 2, 3))
        zk = brokers[1].zk
        admin = AdminZkClient(zk)
        await create(admin, "d", [[2, 3]])
        await wait_state(zk, "d", 0, lambda s: True)
        await brokers[3].kill()
        await wait_state(zk, "d", 0, lambda s: s.isr == (2,))
        c = brokers[1].controller
        ch = brokers[1].channel
        await until(lambda: 3 not in c.ctx.brokers, what="broker 3 gone")
        ch.clear()
        await admin.delete_topic("d")
        await until(lambda: "d" in c.ctx.topics_to_delete, what="queued")
        await until(lambda: "d" in c.ctx.deletion_ineligible, what="ineligible")
        await c._call("Barrier", _noop)  # every event queued before has been processed
        leaders = {s.leader for b in (1, 2) for s in ch.metadata_states(b) if s.topic_name == "d"}
        stops = [
            (b, p.partition_index, p.delete_partition)
            for b, r in ch.of_type(StopReplicaRequest)
            for t in r.topic_states
            if t.topic_name == "d"
            for p in t.partition_states
        ]
        await stop_all(brokers)
        assert leaders == {zd.LEADER_DURING_DELETE}, "brokers were not told to drop the topic"
        assert (2, 0, True) in stops, "the live replica was not deleted"

    run(scenario())


def test_bounced_leader_gets_one_election_not_a_leaderless_step(connect):  # noqa: F811 (the imported fixture)
    """Kafka's processBrokerChange: a broker whose registration was replaced (newer czxid) is
    removed from the live set *before* onBrokerFailure, so the partitions it led get an offline
    election at once (leader epoch +1, leader from the rest of the ISR); removing it from the
    ISR afterwards finds nothing to do. No leader -1 is ever published for them."""

    async def scenario():
        brokers = await start_brokers(connect, (1, 2, 3))
        zk = brokers[1].zk
        admin = AdminZkClient(zk)
        await create(admin, "b", [[2, 3]])
        before = await wait_state(zk, "b", 0, lambda s: s.leader == 2 and s.isr == (2, 3))
        c = brokers[1].controller
        ch = brokers[1].channel
        gate = asyncio.Event()

        async def blocked() -> None:
            await gate.wait()

        c._put("Block", blocked)  # hold the event queue while broker 2 bounces
        old_epoch = brokers[2].epoch
        await brokers[2].kill()
        brokers[2] = await FakeBroker(connect, 2).start()
        assert brokers[2].epoch > old_epoch
        ch.clear()
        gate.set()
        await until(
            lambda: c.ctx.brokers.get(2) is not None and c.ctx.brokers[2].epoch == brokers[2].epoch,
            what="bounce processed",
        )
        await c._call("Barrier", _noop)
        after = await state_of(zk, "b", 0)
        published = [s.leader for b in (1, 2, 3) for s in ch.metadata_states(b) if s.topic_name == "b"]
        await stop_all(brokers)
        assert (after.leader, after.isr) == (3, (3,))
        assert -1 not in published, "a leaderless state was published"
        assert after.leader_epoch == before.leader_epoch + 1

    run(scenario())


def test_replica_going_offline_keeps_the_recovering_state(connect):  # noqa: F811 (the imported fixture)
    """KIP-704: after an unclean election the state is RECOVERING until the leader reports
    RECOVERED. Kafka's ReplicaStateMachine (removeReplicasFromIsr -> LeaderAndIsr.newLeaderAndIsr)
    and Election.leaderForOffline (leader from the ISR) keep the previous leader recovery state;
    only AlterPartition from the leader clears it."""

    async def scenario():
        from coordinator.zk_controller import ElectionType

        brokers = await start_brokers(connect, (1, 2, 3))
        zk = brokers[1].zk
        admin = AdminZkClient(zk)
        await create(admin, "r", [[2, 3]])
        await wait_state(zk, "r", 0, lambda s: s.isr == (2, 3))
        await brokers[3].kill()
        await wait_state(zk, "r", 0, lambda s: s.isr == (2,))
        await brokers[2].kill()
        await wait_state(zk, "r", 0, lambda s: s.leader == -1)
        brokers[3] = await FakeBroker(connect, 3).start()
        c = brokers[1].controller
        await until(lambda: 3 in c.ctx.brokers, what="3 back")
        results = await c.elect_leaders(ElectionType.UNCLEAN, [("r", 0)])
        assert results[("r", 0)][0].code == 0
        s = await wait_state(zk, "r", 0, lambda s: s.leader == 3)
        assert s.leader_recovery_state == zd.RECOVERING
        await brokers[3].kill()  # the recovering leader dies before it reported RECOVERED
        s = await wait_state(zk, "r", 0, lambda s: s.leader == -1)
        await stop_all(brokers)
        assert (s.isr, s.leader_recovery_state) == ((3,), zd.RECOVERING)

    run(scenario())
