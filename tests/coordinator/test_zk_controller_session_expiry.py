"""ZooKeeper session expiry (not a kill) of a broker and of the controller, with the real
KafkaController against a real ZooKeeper and fake brokers (tests/coordinator/zk_cluster_fakes)."""

from __future__ import annotations

import asyncio

import pytest
from kazoo.client import KazooClient

from coordinator.zk_admin import AdminZkClient
from coordinator.zk_controller import KafkaController
from protocol.messages import LeaderAndIsrRequest
from tests.coordinator.test_zk_controller import (
    _noop,
    connect,
    create,
    run,
    start_brokers,
    state_of,
    stop_all,
    wait_state,
)
from tests.coordinator.zk_cluster_fakes import INTER_BROKER, until
from tests.support.zookeeper_server import zookeeper_shared

pytestmark = pytest.mark.zookeeper
__all__ = ["connect", "zookeeper_shared"]  # the fixtures


def expire_session(zk) -> None:
    """Close the broker's session from a second client with its id and password: ZooKeeper
    ends it (ephemerals gone) and the broker's own client sees it expired on reconnect."""
    kz = zk.kazoo
    other = KazooClient(hosts=zk.hosts + (zk.chroot or ""), client_id=kz.client_id)
    other.start(timeout=30)
    other.stop()
    other.close()


def test_broker_session_expiry_is_a_bounce_with_a_new_broker_epoch(connect):
    """``KafkaController.processBrokerChange`` / ``KafkaZkClient.registerBroker``: a broker
    whose session expired re-registers (new czxid = new broker epoch, KIP-380); the controller
    handles it as failed then started: the partitions it led get a new leader, and it gets
    LeaderAndIsr carrying its new broker epoch."""

    async def scenario():
        brokers = await start_brokers(connect, (1, 2, 3), auto_leader_rebalance_enable=False)
        try:
            zk = brokers[1].zk
            c = brokers[1].controller
            await create(AdminZkClient(zk), "t", [[2, 3]])
            before = await wait_state(zk, "t", 0, lambda s: s.leader == 2)
            old_epoch = brokers[2].epoch
            await asyncio.to_thread(expire_session, brokers[2].zk)
            await until(lambda: brokers[2].zk.broker_epoch not in (None, old_epoch), what="re-registration")
            new_epoch = brokers[2].epoch
            await until(
                lambda: 2 in c.ctx.brokers and c.ctx.brokers[2].epoch == new_epoch,
                what="the controller seeing the new epoch",
            )
            await c._call("sync", _noop)
            after = await state_of(zk, "t", 0)
            assert after.leader == 3 and after.leader_epoch > before.leader_epoch
            sent = [r for _, r in brokers[1].channel.of_type(LeaderAndIsrRequest, 2)]
            assert sent and sent[-1].broker_epoch == new_epoch
        finally:
            await stop_all(brokers)

    run(scenario())


def test_controller_session_expiry_moves_the_controller_and_old_one_resigns(connect):
    """``KafkaController.processExpire`` then ``RegisterBrokerAndReelect``: the expired
    controller resigns, another broker is elected with a higher controller epoch, and the
    old controller's broker re-registers with a new broker epoch that the new controller uses."""

    async def scenario():
        brokers = await start_brokers(connect, (1, 2, 3), auto_leader_rebalance_enable=False)
        try:
            b2 = brokers[2]
            b2.controller = KafkaController(
                2,
                b2.zk,
                b2.channel,
                time_ms=lambda: 1,
                inter_broker_listener=INTER_BROKER,
                auto_leader_rebalance_enable=False,
            )
            await b2.controller.startup()
            await until(lambda: b2.controller.active_controller_id == 1, what="controller known")
            c1 = brokers[1].controller
            await create(AdminZkClient(b2.zk), "t", [[1, 3]])
            await wait_state(b2.zk, "t", 0, lambda s: s.leader == 1)
            old_epoch = brokers[1].epoch
            old_controller_epoch = c1.epoch
            await asyncio.to_thread(expire_session, brokers[1].zk)
            await until(lambda: b2.controller.active, what="broker 2 becoming the controller")
            assert b2.controller.epoch > old_controller_epoch
            await until(lambda: not c1.active, what="the expired controller resigning")
            await until(lambda: brokers[1].zk.broker_epoch not in (None, old_epoch), what="re-registration")
            new_epoch = brokers[1].epoch
            await until(
                lambda: 1 in b2.controller.ctx.brokers and b2.controller.ctx.brokers[1].epoch == new_epoch,
                what="the new controller seeing broker 1 again",
            )
            await b2.controller._call("sync", _noop)
            sent = [r for _, r in b2.channel.of_type(LeaderAndIsrRequest, 1)]
            assert sent and sent[-1].broker_epoch == new_epoch and sent[-1].controller_id == 2
            assert c1.active_controller_id == 2
        finally:
            await stop_all(brokers)

    run(scenario())
