"""The ZooKeeper-mode controller against a real ZooKeeper, with fake brokers and channels."""

from __future__ import annotations

import asyncio
import json
import random
import uuid

import pytest
from kazoo.exceptions import NoNodeError

from coordinator import zk_data as zd
from coordinator.zk_admin import AdminZkClient
from coordinator.zk_controller import ElectionType, KafkaController
from coordinator.zookeeper import ControllerMovedError, fenced_multi_many
from protocol.errors import ErrorCode
from protocol.messages import (
    AlterPartitionRequest,
    LeaderAndIsrRequest,
    StopReplicaRequest,
    UpdateMetadataRequest,
)
from tests.coordinator.zk_cluster_fakes import INTER_BROKER, FakeBroker, until, zk_get
from tests.support.zookeeper_server import ZooKeeperServer, zookeeper_shared

pytestmark = pytest.mark.zookeeper
__all__ = ["zookeeper_shared"]  # the module's ZooKeeper fixture


@pytest.fixture
def connect(zookeeper_shared, request) -> str:
    """``zookeeper.connect`` with a chroot of this test's own."""
    name = "".join(c if c.isalnum() else "_" for c in request.node.name)[:80]
    return zookeeper_shared.connect(f"/{name}_{uuid.uuid4().hex[:8]}")


# Generous bounds to catch a stall: on a loaded machine each ZooKeeper round trip, session
# set-up and (here) ZooKeeper JVM start can take seconds. pytest's own timeout is 300 s.
SCENARIO_DEADLINE_S = 240
STATE_DEADLINE_S = 60


async def _noop() -> None:
    return None


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, SCENARIO_DEADLINE_S))


async def start_brokers(connect: str, ids, *, controller_on=(1,), **config) -> dict[int, FakeBroker]:
    brokers = {}
    for i in ids:  # registrations first, so the controller finds them all at failover
        brokers[i] = await FakeBroker(connect, i).start()
    for n, i in enumerate(controller_on):
        b = brokers[i]
        b.controller = KafkaController(
            i, b.zk, b.channel, time_ms=lambda: 1732417000000, inter_broker_listener=INTER_BROKER, **config
        )
        await b.controller.startup()
        if n == 0:  # the first one wins
            c = b.controller
            await until(lambda c=c: c.active, what="controller active")
        else:
            await until(
                lambda b=b: b.controller.active_controller_id == controller_on[0], what="controller known"
            )
    return brokers


async def stop_all(brokers) -> None:
    for b in brokers.values():
        if b.zk.kazoo is not None:
            await b.kill()


async def state_of(zk, topic: str, p: int) -> zd.LeaderIsrAndEpoch | None:
    found = await zk_get(zk, zd.partition_state_path(topic, p))
    return zd.decode_partition_state(found[0], found[1].version) if found else None


async def wait_state(zk, topic, p, pred, what="state") -> zd.LeaderIsrAndEpoch:
    result = {}

    async def poll():
        while True:
            s = await state_of(zk, topic, p)
            if s is not None and pred(s):
                result["s"] = s
                return
            await asyncio.sleep(0.02)

    await asyncio.wait_for(poll(), STATE_DEADLINE_S)
    return result["s"]


async def create(admin: AdminZkClient, name: str, assignments) -> None:
    await admin.create_topic(
        name,
        -1,
        -1,
        {},
        default_partitions=1,
        default_replication=1,
        assignments=list(enumerate(assignments)),
    )


# ---------------------------------------------------------------------- election and fencing


def test_election_race_one_winner_then_failover(connect):

    async def scenario():
        brokers = {i: await FakeBroker(connect, i).start() for i in (1, 2, 3)}
        for b in brokers.values():
            b.controller = KafkaController(
                b.broker_id,
                b.zk,
                b.channel,
                time_ms=lambda: 1732417000000,
                inter_broker_listener=INTER_BROKER,
            )
        await asyncio.gather(*(b.controller.startup() for b in brokers.values()))
        await until(lambda: sum(b.controller.active for b in brokers.values()) == 1, what="a controller")
        winner = next(b for b in brokers.values() if b.controller.active)
        others = [b for b in brokers.values() if b is not winner]
        await until(lambda: all(o.controller.active_controller_id == winner.broker_id for o in others))
        assert winner.controller.epoch == 1
        data, stat = await zk_get(winner.zk, zd.CONTROLLER_EPOCH_PATH)
        assert data == b"1" and stat.version == 1
        assert winner.controller.ctx.epoch_zk_version == 1
        data, stat = await zk_get(winner.zk, zd.CONTROLLER_PATH)
        assert json.loads(data) == {
            "version": 2,
            "brokerid": winner.broker_id,
            "timestamp": "1732417000000",
            "kraftControllerEpoch": -1,
        }
        assert stat.ephemeralOwner == winner.zk.session_id
        old_version = winner.controller.ctx.epoch_zk_version
        # the winner dies: one of the others takes over with epoch 2
        await winner.kill()
        await until(lambda: sum(o.controller.active for o in others) == 1, what="a new controller")
        new = next(o for o in others if o.controller.active)
        assert new.controller.epoch == 2
        data, _ = await zk_get(new.zk, zd.CONTROLLER_EPOCH_PATH)
        assert data == b"2"
        loser = next(o for o in others if o is not new)
        await until(lambda: loser.controller.active_controller_id == new.broker_id)
        assert not loser.controller.active
        # a write fenced with the old controller's epoch version fails atomically
        with pytest.raises(ControllerMovedError):
            await asyncio.to_thread(
                fenced_multi_many, loser.zk, [("create", "/fenced_probe", b"", False)], old_version
            )
        assert await zk_get(loser.zk, "/fenced_probe") is None
        await stop_all(brokers)

    run(scenario())


def test_deposed_controller_write_is_fenced_and_it_resigns(connect):
    """A controller that has not yet seen a newer election: its next write fails on the
    /controller_epoch check (ControllerMovedError) and it resigns."""

    async def scenario():
        brokers = await start_brokers(connect, (1, 2, 3))
        c = brokers[1].controller
        admin = AdminZkClient(brokers[2].zk)
        await create(admin, "t", [[2, 3, 1]])
        await wait_state(brokers[1].zk, "t", 0, lambda s: True)
        # stop the controller's queue, then elect "broker 9" behind its back
        gate = asyncio.Event()
        c._put("Blocked", gate.wait)
        before = await state_of(brokers[1].zk, "t", 0)
        tid = c.ctx.topic_ids["t"]
        request = alter(brokers[2], tid, 0, before.leader_epoch, [2, 3], before.partition_epoch)
        results = asyncio.ensure_future(c.alter_partition(request, 3))
        kz = brokers[2].zk.kazoo
        _, estat = await asyncio.to_thread(kz.get, zd.CONTROLLER_EPOCH_PATH)
        tx = kz.transaction()
        tx.delete(zd.CONTROLLER_PATH)
        tx.create(zd.CONTROLLER_PATH, zd.encode_controller(9, 1))
        tx.set_data(zd.CONTROLLER_EPOCH_PATH, b"2", version=estat.version)
        assert not any(isinstance(r, Exception) for r in await asyncio.to_thread(tx.commit))
        brokers[1].channel.clear()
        gate.set()  # the queued AlterPartition runs before the watch event: its write is fenced
        assert (await results).error_code == ErrorCode.NOT_CONTROLLER.code
        await until(lambda: not c.active, what="resignation")
        assert c.active_controller_id == 9
        assert await state_of(brokers[1].zk, "t", 0) == before  # nothing written
        assert not brokers[1].channel.sent
        await stop_all(brokers)

    run(scenario())


# ---------------------------------------------------------------------- topic creation


def test_topic_creation_writes_states_and_sends_requests(connect):

    async def scenario():
        brokers = await start_brokers(connect, (1, 2, 3))
        ch = brokers[1].channel
        # "active" is set before the failover's own UpdateMetadata goes out: under load it
        # came after the clear and before the topic's LeaderAndIsr.
        await until(lambda: len(ch.of_type(UpdateMetadataRequest)) >= 3, what="the failover's UpdateMetadata")
        ch.clear()
        admin = AdminZkClient(brokers[2].zk, rng=random.Random(7))
        assignment = await admin.create_topic(
            "orders", 2, 2, {"retention.ms": "1000"}, default_partitions=1, default_replication=1
        )
        assert sorted(assignment) == [0, 1] and all(len(r) == 2 for r in assignment.values())
        zk = brokers[1].zk
        for p, replicas in assignment.items():
            s = await wait_state(zk, "orders", p, lambda s: True)
            data, stat = await zk_get(zk, zd.partition_state_path("orders", p))
            assert json.loads(data) == {
                "controller_epoch": 1,
                "leader": replicas[0],
                "version": 1,
                "leader_epoch": 0,
                "isr": replicas,
            }
            assert list(json.loads(data)) == ["controller_epoch", "leader", "version", "leader_epoch", "isr"]
            assert stat.version == 0 and s.partition_epoch == 0
        data, _ = await zk_get(zk, zd.config_entity_path("topics", "orders"))
        assert json.loads(data) == {"version": 1, "config": {"retention.ms": "1000"}}
        data, _ = await zk_get(zk, zd.topic_path("orders"))
        topic = zd.decode_topic(data)
        assert topic.partitions == {p: tuple(r) for p, r in assignment.items()}
        c = brokers[1].controller
        assert c.ctx.topic_ids["orders"] == topic.topic_id
        await until(lambda: len(ch.of_type(UpdateMetadataRequest)) >= 3)
        # LeaderAndIsr to exactly the replicas, with Kafka's fields
        for b in (1, 2, 3):
            expected = sorted(p for p, r in assignment.items() if b in r)
            states = ch.leader_and_isr_states(b)
            assert sorted(s.partition_index for s in states) == expected
            for _, req in ch.of_type(LeaderAndIsrRequest, b):
                assert req.controller_id == 1 and req.controller_epoch == 1
                assert req.broker_epoch == brokers[b].epoch and req.is_kraft_controller is False
                assert req.topic_states[0].topic_id == topic.topic_id
                for ll in req.live_leaders:
                    assert (ll.host_name, ll.port) == ("127.0.0.1", 9100 + ll.broker_id)
            for s in states:
                r = assignment[s.partition_index]
                assert (s.leader, s.leader_epoch, s.isr, s.replicas) == (r[0], 0, r, r)
                assert s.is_new is True and s.partition_epoch == 0 and s.controller_epoch == 1
            # LeaderAndIsr comes before UpdateMetadata to the same broker
            kinds = [type(r) for bb, r, _ in ch.sent if bb == b]
            if LeaderAndIsrRequest in kinds:
                assert kinds.index(LeaderAndIsrRequest) < kinds.index(UpdateMetadataRequest)
        versions = {type(r).__name__: v for _, r, v in ch.sent}
        assert versions == {"LeaderAndIsrRequest": 7, "UpdateMetadataRequest": 8}
        # UpdateMetadata to every broker: every live broker with every endpoint, both partitions
        for b in (1, 2, 3):
            (_, um), *_ = ch.of_type(UpdateMetadataRequest, b)
            assert um.broker_epoch == brokers[b].epoch and um.controller_epoch == 1
            assert [lb.id for lb in um.live_brokers] == [1, 2, 3]
            for lb in um.live_brokers:
                eps = {(e.listener, e.host, e.port, e.security_protocol) for e in lb.endpoints}
                assert eps == {
                    ("PLAINTEXT", "127.0.0.1", 9000 + lb.id, 0),
                    (INTER_BROKER, "127.0.0.1", 9100 + lb.id, 2),
                }
            assert sorted(s.partition_index for s in ch.metadata_states(b)) == [0, 1]
            for s in ch.metadata_states(b):
                assert s.offline_replicas == [] and s.leader == assignment[s.partition_index][0]
        await stop_all(brokers)

    run(scenario())


# ---------------------------------------------------------------------- broker failure


def test_broker_death_elects_from_isr_and_shrinks(connect):

    async def scenario():
        brokers = await start_brokers(connect, (1, 2, 3))
        zk = brokers[1].zk
        admin = AdminZkClient(brokers[3].zk)
        await create(admin, "t", [[2, 3, 1], [3, 2, 1]])
        await wait_state(zk, "t", 0, lambda s: True)
        await wait_state(zk, "t", 1, lambda s: True)
        ch = brokers[1].channel
        ch.clear()
        await brokers[2].kill()
        s0 = await wait_state(zk, "t", 0, lambda s: s.leader != 2, "new leader")
        assert (s0.leader, s0.leader_epoch, s0.isr, s0.controller_epoch) == (3, 1, (3, 1), 1)
        assert s0.partition_epoch == 1
        s1 = await wait_state(zk, "t", 1, lambda s: 2 not in s.isr, "ISR shrink")
        assert (s1.leader, s1.leader_epoch, s1.isr) == (3, 1, (3, 1))
        await until(lambda: len(ch.leader_and_isr_states(3)) >= 2)
        for b in (1, 3):
            latest = {s.partition_index: s for s in ch.leader_and_isr_states(b)}
            assert latest[0].leader == 3 and latest[0].leader_epoch == 1 and latest[0].isr == [3, 1]
            assert latest[0].partition_epoch == 1
        assert not ch.of_type(LeaderAndIsrRequest, 2)  # dead: nothing sent
        (_, um), *_ = ch.of_type(UpdateMetadataRequest, 1)
        assert [lb.id for lb in um.live_brokers] == [1, 3]
        await until(lambda: any(s.offline_replicas == [2] for s in ch.metadata_states(3)))
        await stop_all(brokers)

    run(scenario())


@pytest.mark.parametrize("unclean", [False, True, "enabled later"])
def test_no_isr_left_goes_offline_unless_unclean(connect, unclean):

    async def scenario():
        brokers = await start_brokers(connect, (1, 2, 3))
        zk = brokers[1].zk
        admin = AdminZkClient(brokers[1].zk)
        configs = {"unclean.leader.election.enable": "true"} if unclean is True else {}
        await admin.create_topic(
            "u", -1, -1, configs, default_partitions=1, default_replication=1, assignments=[(0, [2, 3])]
        )
        await wait_state(zk, "u", 0, lambda s: True)
        await brokers[3].kill()
        s = await wait_state(zk, "u", 0, lambda s: s.isr == (2,), "ISR [2]")
        assert (s.leader, s.leader_epoch) == (2, 1)
        # broker 3 comes back: a replica, not in the ISR (no AlterPartition)
        brokers[3] = await FakeBroker(connect, 3).start()
        await until(lambda: 3 in brokers[1].controller.ctx.brokers)
        await brokers[2].kill()
        if unclean is True:
            s = await wait_state(zk, "u", 0, lambda s: s.leader == 3, "unclean leader")
            assert (s.isr, s.leader_epoch, s.leader_recovery_state) == ((3,), 2, zd.RECOVERING)
        else:
            s = await wait_state(zk, "u", 0, lambda s: s.leader == -1, "offline")
            # the last ISR member is kept (clean candidate), epoch bumped
            assert (s.isr, s.leader_epoch) == ((2,), 2)
            c = brokers[1].controller
            if unclean == "enabled later":  # the topic config changes: the controller elects
                await admin.change_topic_config("u", {"unclean.leader.election.enable": "true"})
                c.enable_topic_unclean_leader_election("u")
                await c._call("Barrier", _noop)  # the election's event has been processed
                s = await state_of(zk, "u", 0)
                assert (s.leader, s.isr, s.leader_epoch, s.leader_recovery_state) == (
                    3,
                    (3,),
                    3,
                    zd.RECOVERING,
                )
                await stop_all(brokers)
                return
            # ElectLeaders UNCLEAN from the admin client elects the out-of-sync replica
            assert await c.elect_leaders(ElectionType.UNCLEAN, [("u", 0)]) == {
                ("u", 0): (ErrorCode.NONE, None)
            }
            s = await state_of(zk, "u", 0)
            assert (s.leader, s.isr, s.leader_epoch, s.leader_recovery_state) == (3, (3,), 3, zd.RECOVERING)
            again = await c.elect_leaders(ElectionType.UNCLEAN, [("u", 0)])
            assert again[("u", 0)][0] is ErrorCode.ELECTION_NOT_NEEDED
        await stop_all(brokers)

    run(scenario())


# ---------------------------------------------------------------------- controlled shutdown


def test_controlled_shutdown_moves_leadership(connect):

    async def scenario():
        brokers = await start_brokers(connect, (1, 2, 3))
        zk = brokers[1].zk
        c = brokers[1].controller
        admin = AdminZkClient(zk)
        await create(admin, "led", [[2, 3, 1]])
        await create(admin, "followed", [[3, 2, 1]])
        await create(admin, "single", [[2]])
        for t in ("led", "followed", "single"):
            await wait_state(zk, t, 0, lambda s: True)
        assert await c.controlled_shutdown(2, brokers[2].epoch - 1) == (ErrorCode.STALE_BROKER_EPOCH, [])
        assert await c.controlled_shutdown(7, -1) == (ErrorCode.BROKER_NOT_AVAILABLE, [])
        ch = brokers[1].channel
        ch.clear()
        error, remaining = await c.controlled_shutdown(2, brokers[2].epoch)
        # single-0 has one replica: still led by 2, yet not remaining (partitionLeadersOnBroker)
        assert error is ErrorCode.NONE and remaining == []
        s = await state_of(zk, "led", 0)
        assert (s.leader, s.isr, s.leader_epoch) == (3, (3, 1), 1)
        s = await state_of(zk, "followed", 0)
        assert (s.leader, s.isr, s.leader_epoch) == (3, (3, 1), 1)
        s = await state_of(zk, "single", 0)
        assert (s.leader, s.isr, s.leader_epoch) == (2, (2,), 0)
        # the follower replica is stopped (no delete); the shutting-down broker still gets requests
        stops = ch.of_type(StopReplicaRequest, 2)
        assert [
            (t.topic_name, p.partition_index, p.delete_partition)
            for _, r in stops
            for t in r.topic_states
            for p in t.partition_states
        ] == [("followed", 0, False)]
        led = [s for s in ch.leader_and_isr_states(3) if s.topic_name == "led"]
        assert led and led[-1].leader == 3 and led[-1].isr == [3, 1]
        assert 2 in c.ctx.shutting_down and 2 not in c.ctx.live()
        # metadata shows broker 2's replicas offline but keeps it among the brokers
        um = ch.of_type(UpdateMetadataRequest, 1)[-1][1]
        assert 2 in [lb.id for lb in um.live_brokers]
        # asking again is idempotent
        assert await c.controlled_shutdown(2, -1) == (ErrorCode.NONE, [])
        await stop_all(brokers)

    run(scenario())


# ---------------------------------------------------------------------- preferred election, AlterPartition


def alter(
    broker: FakeBroker, topic_id, p, leader_epoch, isr, partition_epoch, *, version=3, recovery=0, name=""
):
    pd = AlterPartitionRequest.PartitionData(
        partition_index=p,
        leader_epoch=leader_epoch,
        leader_recovery_state=recovery,
        partition_epoch=partition_epoch,
    )
    if version >= 3:
        pd.new_isr_with_epochs = [
            AlterPartitionRequest.BrokerState(broker_id=b, broker_epoch=-1) for b in isr
        ]
    else:
        pd.new_isr = list(isr)
    return AlterPartitionRequest(
        broker_id=broker.broker_id,
        broker_epoch=broker.epoch,
        topics=[AlterPartitionRequest.TopicData(topic_name=name, topic_id=topic_id, partitions=[pd])],
    )


def only(response):
    assert response.error_code == 0, response.error_code
    return response.topics[0].partitions[0]


def test_alter_partition_and_preferred_election(connect):

    async def scenario():
        brokers = await start_brokers(
            connect, (1, 2, 3), controller_on=(1, 3), auto_leader_rebalance_enable=False
        )
        zk = brokers[1].zk
        c = brokers[1].controller
        admin = AdminZkClient(zk)
        await create(admin, "t", [[2, 3, 1]])
        await wait_state(zk, "t", 0, lambda s: True)
        tid = c.ctx.topic_ids["t"]
        await brokers[2].kill()
        await wait_state(zk, "t", 0, lambda s: s.leader == 3)
        brokers[2] = await FakeBroker(connect, 2).start()
        await until(lambda: 2 in c.ctx.brokers)
        s = await state_of(zk, "t", 0)
        assert (s.leader, s.isr, s.leader_epoch, s.partition_epoch) == (3, (3, 1), 1, 1)
        # preferred replica 2 is not in the ISR: election not possible
        res = await c.elect_leaders(ElectionType.PREFERRED, [("t", 0), ("t", 9), ("nope", 0)])
        assert res[("t", 0)][0] is ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE
        assert res[("t", 9)] == (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "The partition does not exist.")
        assert res[("nope", 0)][0] is ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
        b3 = brokers[3]
        # AlterPartition rejections (facts §7, in Kafka's order)
        stale = alter(b3, tid, 0, 1, [3, 1, 2], 1)
        stale.broker_epoch = b3.epoch - 1
        assert (await c.alter_partition(stale, 3)).error_code == ErrorCode.STALE_BROKER_EPOCH.code
        r = await brokers[3].controller.alter_partition(alter(b3, tid, 0, 1, [3, 1, 2], 1), 3)
        assert r.error_code == ErrorCode.NOT_CONTROLLER.code
        cases = [
            (alter(b3, uuid.uuid4(), 0, 1, [3, 1, 2], 1), 3, ErrorCode.UNKNOWN_TOPIC_ID),
            (alter(b3, tid, 5, 1, [3, 1, 2], 1), 3, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION),
            (
                alter(b3, None, 0, 1, [3, 1, 2], 1, version=1, name="zz"),
                1,
                ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
            ),
            (alter(b3, tid, 0, 1, [3, 1, 2], 2), 3, ErrorCode.NOT_CONTROLLER),
            (alter(b3, tid, 0, 2, [3, 1, 2], 1), 3, ErrorCode.NOT_CONTROLLER),
            (alter(b3, tid, 0, 0, [3, 1, 2], 1), 3, ErrorCode.FENCED_LEADER_EPOCH),
            (alter(b3, tid, 0, 1, [3, 1, 2], 0), 3, ErrorCode.INVALID_UPDATE_VERSION),
            (alter(b3, tid, 0, 1, [3], 1, recovery=1), 3, ErrorCode.INVALID_REQUEST),
            (alter(b3, tid, 0, 1, [3, 1, 4], 1), 3, ErrorCode.INELIGIBLE_REPLICA),
            (alter(b3, None, 0, 1, [3, 1, 4], 1, version=1, name="t"), 1, ErrorCode.OPERATION_NOT_ATTEMPTED),
        ]
        for request, version, expected in cases:
            got = only(await c.alter_partition(request, version))
            assert got.error_code == expected.code, (expected, got.error_code)
        assert await state_of(zk, "t", 0) == s  # nothing written by the rejections
        # success: broker 2 caught up, the leader adds it
        ch = brokers[1].channel
        ch.clear()
        ok = only(await c.alter_partition(alter(b3, tid, 0, 1, [3, 1, 2], 1), 3))
        assert (ok.error_code, ok.leader_id, ok.leader_epoch, ok.isr, ok.partition_epoch) == (
            0,
            3,
            1,
            [3, 1, 2],
            2,
        )
        s = await state_of(zk, "t", 0)
        assert (s.leader, s.isr, s.leader_epoch, s.partition_epoch, s.controller_epoch) == (
            3,
            (3, 1, 2),
            1,
            2,
            1,
        )
        assert not ch.of_type(LeaderAndIsrRequest)  # UpdateMetadata only
        assert any(ps.isr == [3, 1, 2] for ps in ch.metadata_states(2))
        # the same request again: idempotent success with the current state
        again = only(await c.alter_partition(alter(b3, tid, 0, 1, [3, 1, 2], 1), 3))
        assert (again.error_code, again.partition_epoch, again.isr) == (0, 2, [3, 1, 2])
        # now the preferred election brings leadership back to 2
        res = await c.elect_leaders(ElectionType.PREFERRED, [("t", 0)])
        assert res == {("t", 0): (ErrorCode.NONE, None)}
        s = await state_of(zk, "t", 0)
        assert (s.leader, s.isr, s.leader_epoch) == (2, (3, 1, 2), 2)
        assert (await c.elect_leaders(ElectionType.PREFERRED, [("t", 0)]))[("t", 0)][
            0
        ] is ErrorCode.ELECTION_NOT_NEEDED
        assert await c.elect_leaders(ElectionType.PREFERRED, None) == {}  # not-needed ones dropped
        # the leader's AlterPartition with the old leader epoch is fenced now
        fenced = only(await c.alter_partition(alter(b3, tid, 0, 1, [3, 1], 2), 3))
        assert fenced.error_code == ErrorCode.FENCED_LEADER_EPOCH.code
        # the non-controller answers NOT_CONTROLLER per partition
        assert await brokers[3].controller.elect_leaders(0, [("t", 0)]) == {
            ("t", 0): (ErrorCode.NOT_CONTROLLER, None)
        }
        await stop_all(brokers)

    run(scenario())


def test_auto_rebalance_and_preferred_election_znode(connect):

    async def scenario():
        brokers = await start_brokers(
            connect, (1, 2, 3), leader_imbalance_check_interval_s=0.2, first_rebalance_delay_s=3600
        )
        zk = brokers[1].zk
        c = brokers[1].controller
        admin = AdminZkClient(zk)
        await create(admin, "a", [[2, 1], [2, 1]])
        await create(admin, "b", [[3, 1]])
        for t, p in (("a", 0), ("a", 1), ("b", 0)):
            await wait_state(zk, t, p, lambda s: True)
        # controlled shutdown moves everything to broker 1; the brokers stay registered
        await c.controlled_shutdown(2, -1)
        await c.controlled_shutdown(3, -1)
        assert (await state_of(zk, "a", 0)).leader == 1
        c.ctx.shutting_down.clear()  # as if they restarted (same session, for the test)
        tid = c.ctx.topic_ids
        for t, p in (("a", 0), ("a", 1), ("b", 0)):  # the followers catch up
            s = await state_of(zk, t, p)
            pref = c.ctx.replicas((t, p))[0]
            ok = only(
                await c.alter_partition(
                    alter(brokers[1], tid[t], p, s.leader_epoch, [1, pref], s.partition_epoch), 3
                )
            )
            assert ok.error_code == 0
        # legacy trigger: /admin/preferred_replica_election for b-0 only
        await asyncio.to_thread(
            brokers[3].zk.create_node,
            zd.PREFERRED_REPLICA_ELECTION_PATH,
            zd.encode_partitions_list([("b", 0)]),
        )
        await wait_state(zk, "b", 0, lambda s: s.leader == 3, "preferred leader of b-0")
        await until(lambda: brokers[1].zk.kazoo.exists(zd.PREFERRED_REPLICA_ELECTION_PATH) is None)
        assert (await state_of(zk, "a", 0)).leader == 1
        # the periodic check: broker 2 prefers 2 partitions and leads none (100% > 10%)
        c._schedule_rebalance(0.05)
        await wait_state(zk, "a", 0, lambda s: s.leader == 2, "rebalanced a-0")
        await wait_state(zk, "a", 1, lambda s: s.leader == 2, "rebalanced a-1")
        await stop_all(brokers)

    run(scenario())


# ---------------------------------------------------------------------- deletion


def test_topic_deletion_flow(connect):

    async def scenario():
        brokers = await start_brokers(connect, (1, 2, 3))
        zk = brokers[1].zk
        admin = AdminZkClient(brokers[2].zk)
        await create(admin, "gone", [[1, 2], [2, 3]])
        await create(admin, "kept", [[3]])
        await wait_state(zk, "gone", 1, lambda s: True)
        await wait_state(zk, "kept", 0, lambda s: True)
        ch = brokers[1].channel
        ch.clear()
        await admin.delete_topic("gone")
        await admin.delete_topic("gone")  # marking twice is fine
        with pytest.raises(Exception) as exc_info:
            await admin.delete_topic("never")
        assert exc_info.value.error is ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
        kz = brokers[1].zk.kazoo

        def gone():
            return all(
                kz.exists(p) is None
                for p in (
                    zd.topic_path("gone"),
                    zd.config_entity_path("topics", "gone"),
                    zd.delete_topic_path("gone"),
                )
            )

        c = brokers[1].controller
        # The znodes go first (in the executor), then the controller forgets the topic.
        await until(
            lambda: gone() and "gone" not in c.ctx.assignments and ("gone", 0) not in c.ctx.states,
            what="topic znodes deleted and the topic forgotten",
        )
        assert kz.exists(zd.topic_path("kept")) is not None
        # UpdateMetadata with leader -2 to everyone, then StopReplica without and with delete
        for b in (1, 2, 3):
            assert {s.leader for s in ch.metadata_states(b) if s.topic_name == "gone"} == {-2}
        stops = [
            (b, p.partition_index, p.delete_partition, p.leader_epoch)
            for b, r in ch.of_type(StopReplicaRequest)
            for t in r.topic_states
            for p in t.partition_states
        ]
        assert sorted(stops) == sorted(
            (b, p, d, -2) for p, rs in ((0, (1, 2)), (1, (2, 3))) for b in rs for d in (False, True)
        )
        for b in (1, 2, 3):  # no-delete before delete to each broker
            flags = [
                p.delete_partition
                for _, r in ch.of_type(StopReplicaRequest, b)
                for t in r.topic_states
                for p in t.partition_states
            ]
            assert flags == sorted(flags)
        # the name can be used again
        await create(admin, "gone", [[3]])
        await wait_state(zk, "gone", 0, lambda s: s.leader == 3)
        await stop_all(brokers)

    run(scenario())


def test_deletion_waits_for_a_dead_replica(connect):

    async def scenario():
        brokers = await start_brokers(connect, (1, 2, 3))
        zk = brokers[1].zk
        admin = AdminZkClient(zk)
        await create(admin, "d", [[2, 3]])
        await wait_state(zk, "d", 0, lambda s: True)
        await brokers[3].kill()
        await wait_state(zk, "d", 0, lambda s: s.isr == (2,))
        await admin.delete_topic("d")
        c = brokers[1].controller
        await until(lambda: "d" in c.ctx.deletion_ineligible)
        assert brokers[1].zk.kazoo.exists(zd.topic_path("d")) is not None
        brokers[3] = await FakeBroker(connect, 3).start()
        await until(
            lambda: brokers[1].zk.kazoo.exists(zd.topic_path("d")) is None, what="deleted after return"
        )
        await stop_all(brokers)

    run(scenario())


def test_new_controller_resends_state_and_elects_offline(connect):
    """Failover reads the states from ZooKeeper, sends LeaderAndIsr to the live replicas and
    elects for partitions whose leader died meanwhile."""

    async def scenario():
        brokers = await start_brokers(connect, (1, 2, 3), controller_on=(1,))
        zk = brokers[2].zk
        await create(AdminZkClient(zk), "f", [[1, 2, 3]])
        await wait_state(zk, "f", 0, lambda s: True)
        b2 = brokers[2]
        b2.controller = KafkaController(
            2, b2.zk, b2.channel, time_ms=lambda: 1, inter_broker_listener=INTER_BROKER
        )
        await b2.controller.startup()
        await until(lambda: b2.controller.active_controller_id == 1)
        await brokers[1].kill()  # the controller and the partition leader
        await until(lambda: b2.controller.active, what="failover")
        assert b2.controller.epoch == 2
        s = await wait_state(zk, "f", 0, lambda s: s.leader == 2)
        # As Kafka's failover: the dead leader's replica goes offline first (leader -1, epoch
        # 1, ReplicaStateMachine.startup), then the online election (epoch 2).
        assert (s.isr, s.leader_epoch, s.controller_epoch) == ((2, 3), 2, 2)
        await until(lambda: any(ps.leader == 2 for ps in b2.channel.leader_and_isr_states(3)))
        for _, r in b2.channel.of_type(LeaderAndIsrRequest):
            assert r.controller_epoch == 2 and r.controller_id == 2
        await stop_all(brokers)

    run(scenario())


def test_not_found_paths_are_tolerated(connect):
    """A controller with no topics and an empty cluster still fails over cleanly."""

    async def scenario():
        brokers = await start_brokers(connect, (1,))
        c = brokers[1].controller
        assert c.epoch == 1 and c.ctx.assignments == {}
        with pytest.raises(NoNodeError):
            await asyncio.to_thread(brokers[1].zk.get_data, zd.topic_path("x"))
        await stop_all(brokers)

    run(scenario())


def test_watches_survive_a_zookeeper_restart(tmp_path):
    """kazoo drops watches when the connection drops: the controller watches again once
    reconnected, and still sees a broker die afterwards."""
    # The sessions must outlive the restart, however slow the JVM starts on a loaded machine
    # (one expired under a full suite with 30 s sessions): ticks of 3 s allow 60 s sessions
    # (maxSessionTimeout is 20 ticks). (An expired session would be another scenario: the
    # brokers register anew, and the controller's failover may elect 1 before 3 is back.)
    server = ZooKeeperServer(tmp_path / "zk", tick_time_ms=3000).start()

    async def scenario():
        # kazoo, as ZooKeeper's Java client, waits session timeout / number of hosts for the
        # answer to a connection's handshake: a connection that the restarting server accepted
        # but never answered (seen on a loaded machine) held a reconnection for the whole 60 s.
        # Listed three times, the server is tried again after 20 s.
        connect = ",".join([server.connect_string] * 3) + "/restart"
        brokers = {i: await FakeBroker(connect, i, session_timeout_ms=60_000).start() for i in (1, 2, 3)}
        sessions = {i: b.zk.session_id for i, b in brokers.items()}
        b1 = brokers[1]
        b1.controller = KafkaController(
            1, b1.zk, b1.channel, time_ms=lambda: 1, inter_broker_listener=INTER_BROKER
        )
        await b1.controller.startup()
        await until(lambda: b1.controller.active)
        await create(AdminZkClient(b1.zk), "w", [[2, 3, 1]])
        await wait_state(b1.zk, "w", 0, lambda s: True)
        await asyncio.to_thread(server.restart)
        await until(lambda: all(b.zk.connected for b in brokers.values()), timeout=60, what="reconnected")
        assert {i: b.zk.session_id for i, b in brokers.items()} == sessions  # the same sessions
        await brokers[2].kill()
        s = await wait_state(b1.zk, "w", 0, lambda s: s.leader == 3, "leader moved after the restart")
        assert s.isr == (3, 1)
        await create(AdminZkClient(b1.zk), "w2", [[3]])  # the topic watch works again too
        await wait_state(b1.zk, "w2", 0, lambda s: s.leader == 3)
        await stop_all(brokers)

    try:
        run(scenario())
    finally:
        server.stop()


def test_state_written_by_a_newer_controller_aborts_an_election(connect):
    """The second fence: a partition state carrying a newer controller epoch is not touched."""

    async def scenario():
        brokers = await start_brokers(connect, (1, 2, 3))
        zk = brokers[1].zk
        c = brokers[1].controller
        await create(AdminZkClient(zk), "n", [[2, 1]])
        s = await wait_state(zk, "n", 0, lambda s: True)
        newer = zd.LeaderIsrAndEpoch(1, 5, (1, 2), controller_epoch=7)
        await asyncio.to_thread(
            brokers[3].zk.set_data,
            zd.partition_state_path("n", 0),
            zd.encode_partition_state(newer),
            s.partition_epoch,
        )
        c.ctx.states[("n", 0)] = zd.LeaderIsrAndEpoch(1, 5, (1, 2), 7, partition_epoch=1)
        result = await c.elect_leaders(ElectionType.PREFERRED, [("n", 0)])
        code, message = result[("n", 0)]
        assert code is ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE and "controller epoch 7" in message
        after = await state_of(zk, "n", 0)
        assert (after.leader, after.leader_epoch, after.controller_epoch, after.partition_epoch) == (
            1,
            5,
            7,
            1,
        )
        await stop_all(brokers)

    run(scenario())


def test_own_stale_registration_is_given_up_and_reelected(connect):
    """/controller holding this broker's id from its own session while it is not active (an
    answer lost to a timeout) is deleted, and a clean election follows."""

    async def scenario():
        b1 = await FakeBroker(connect, 1).start()
        await asyncio.to_thread(
            b1.zk.create_node, zd.CONTROLLER_PATH, zd.encode_controller(1, 1), ephemeral=True
        )
        b1.controller = KafkaController(
            1, b1.zk, b1.channel, time_ms=lambda: 2, inter_broker_listener=INTER_BROKER
        )
        await b1.controller.startup()
        await until(lambda: b1.controller.active, what="elected")
        assert b1.controller.epoch == 1
        data, _ = await zk_get(b1.zk, zd.CONTROLLER_PATH)
        assert json.loads(data)["timestamp"] == "2"
        await b1.kill()

    run(scenario())
