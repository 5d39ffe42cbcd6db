"""A ZooKeeper error while a newly elected controller initializes (``KafkaController.elect``
-> ``onControllerFailover``) or in the middle of a state change. Kafka's ZooKeeper client
retries requests failing with CONNECTIONLOSS once connected (``KafkaZkClient
.retryRequestsUntilConnected``); on any other error ``elect`` calls ``triggerControllerMove``
(resign and delete ``/controller``) so that a new election follows. The cluster is never
left with ``/controller`` held by a broker that is not acting as the controller."""

from __future__ import annotations

import asyncio

import pytest
from kazoo.exceptions import ConnectionLoss as ConnectionLossError

from coordinator.zk_admin import AdminZkClient
from coordinator.zk_controller import KafkaController
from coordinator.zookeeper import ZooKeeperError
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


def _flaky_once(fn, error: type[Exception] = ConnectionLossError):
    """The first call fails with ``error`` (by default as a request in flight when the
    connection drops does)."""
    calls = []

    def flaky(*args, **kwargs):
        if not calls:
            calls.append(1)
            raise error()
        return fn(*args, **kwargs)

    flaky.failed = calls
    return flaky


def _failed(c: KafkaController, name: str) -> bool:
    return bool(getattr(c, name).__dict__.get("failed"))


async def _reconnected(c: KafkaController) -> None:
    """What kazoo's CONNECTED event after the drop makes the controller do."""
    c._put("Reconnected", c._process_reconnected)
    await c._call("sync", _noop)


async def _poll_state(zk, pred, what: str, timeout: float = 15.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        s = await state_of(zk, "t", 0)
        if s is not None and pred(s):
            return
        assert asyncio.get_running_loop().time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


async def _standby(b, **patches) -> KafkaController:
    c = KafkaController(
        b.broker_id,
        b.zk,
        b.channel,
        time_ms=lambda: 1,
        inter_broker_listener=INTER_BROKER,
        auto_leader_rebalance_enable=False,
    )
    for name, wrap in patches.items():
        setattr(c, name, wrap(getattr(c, name)))
    b.controller = c
    await c.startup()
    return c


def test_a_zookeeper_error_reading_the_context_does_not_leave_the_cluster_without_controller(connect):
    """``KafkaController.elect``: a connection loss in ``onControllerFailover`` (here on the
    first read of ``/brokers/ids``) only delays the failover, so an active controller exists
    again (without the retry, the broker held ``/controller`` but was not active, for good)."""

    async def scenario():
        brokers = await start_brokers(connect, (1, 2, 3), auto_leader_rebalance_enable=False)
        try:
            await create(AdminZkClient(brokers[2].zk), "t", [[2, 3]])
            await wait_state(brokers[2].zk, "t", 0, lambda s: s.leader == 2)
            c3 = await _standby(brokers[3], _read_initial_context=_flaky_once)
            await until(lambda: c3.active_controller_id == 1, what="controller known")
            await brokers[1].kill()
            await until(lambda: _failed(c3, "_read_initial_context"), what="the failing read")
            await _reconnected(c3)
            await until(lambda: c3.active, timeout=15, what="an active controller after the failed read")
        finally:
            await stop_all(brokers)

    run(scenario())


def test_a_zookeeper_error_reading_partition_states_does_not_leave_partitions_unmanaged(connect):
    """The same with the connection loss on the read of the partition states (after the
    controller has marked itself active): every state is loaded, so a later leader failure
    is handled (without the retry the controller stayed active with no state for the
    partition: when its leader died nothing elected a new one)."""

    async def scenario():
        brokers = await start_brokers(connect, (1, 2, 3), auto_leader_rebalance_enable=False)
        try:
            zk = brokers[3].zk
            await create(AdminZkClient(brokers[2].zk), "t", [[2, 3]])
            await wait_state(zk, "t", 0, lambda s: s.leader == 2 and s.isr == (2, 3))
            c3 = await _standby(brokers[3], _read_states=_flaky_once)
            await until(lambda: c3.active_controller_id == 1, what="controller known")
            await brokers[1].kill()
            await until(lambda: c3.active, what="failover")
            await until(lambda: _failed(c3, "_read_states"), what="the failing read")
            await _reconnected(c3)
            await brokers[2].kill()  # the leader dies: 3 (in the ISR) must take over
            await _poll_state(zk, lambda s: s.leader == 3, "broker 3 elected")
        finally:
            await stop_all(brokers)

    run(scenario())


def test_a_zookeeper_error_in_the_middle_of_a_reassignment_does_not_strand_it(connect):
    """``KafkaZkClient.retryRequestsUntilConnected``: a connection loss in the middle of
    ``onPartitionReassignment`` only delays it; the adding replica gets its LeaderAndIsr
    (isNew) once ZooKeeper answers again (without the retry the request answered
    UNKNOWN_SERVER_ERROR after the topic znode already named the move, and nothing short of
    a broker start or a controller failover sent the adding replica its LeaderAndIsr)."""

    async def scenario():
        brokers = await start_brokers(connect, (1, 2, 3), auto_leader_rebalance_enable=False)
        try:
            zk = brokers[1].zk
            c = brokers[1].controller
            await create(AdminZkClient(zk), "t", [[1, 2]])
            await wait_state(zk, "t", 0, lambda s: s.leader == 1)
            await c._call("sync", _noop)
            c._read_states = _flaky_once(c._read_states)
            await c.alter_partition_reassignments({("t", 0): [1, 3]})
            assert _failed(c, "_read_states")
            await _reconnected(c)
            await until(
                lambda: any(ps.is_new for ps in brokers[1].channel.leader_and_isr_states(3)),
                timeout=15,
                what="LeaderAndIsr (isNew) to the adding replica 3",
            )
        finally:
            await stop_all(brokers)

    run(scenario())


@pytest.mark.parametrize("failing", ["_read_initial_context", "_read_states"])
def test_another_failover_error_moves_the_controller(connect, failing):
    """``KafkaController.elect`` -> ``triggerControllerMove``: an error other than a
    connection loss in ``onControllerFailover`` (before or after the controller marked
    itself active) makes it resign and delete ``/controller``; the election that follows
    (here won by the same broker, the only candidate) runs a complete failover with a new
    controller epoch, and the partitions are managed (a leader failure is handled)."""

    async def scenario():
        brokers = await start_brokers(connect, (1, 2, 3), auto_leader_rebalance_enable=False)
        try:
            zk = brokers[3].zk
            await create(AdminZkClient(brokers[2].zk), "t", [[2, 3]])
            await wait_state(zk, "t", 0, lambda s: s.leader == 2 and s.isr == (2, 3))
            old_epoch = brokers[1].controller.epoch
            error = lambda: ZooKeeperError("no answer from ZooKeeper")  # noqa: E731
            c3 = await _standby(brokers[3], **{failing: lambda fn: _flaky_once(fn, error)})
            await until(lambda: c3.active_controller_id == 1, what="controller known")
            await brokers[1].kill()
            await until(lambda: _failed(c3, failing), what="the failing read")
            # (Active from its first election until the failing read makes it resign: wait
            # for the controller of the election after the move.)
            await until(
                lambda: c3.active and c3.epoch > old_epoch + 1,
                timeout=15,
                what="an active controller after the move",
            )
            assert c3.epoch == old_epoch + 2  # elected, moved, elected again
            await brokers[2].kill()
            await _poll_state(zk, lambda s: s.leader == 3, "broker 3 elected")
        finally:
            await stop_all(brokers)

    run(scenario())


def test_a_reconnection_reelects_when_registered_as_controller_but_not_active(connect):
    """A broker holding ``/controller`` must act as the controller (Kafka's ``isActive`` is
    ``activeControllerId == brokerId``). When a failover failed and ``/controller`` could not
    be given up then, the next reconnection gives it up and elects again."""

    async def scenario():
        brokers = await start_brokers(connect, (1, 2), auto_leader_rebalance_enable=False)
        try:
            c1 = brokers[1].controller
            old_epoch = c1.epoch

            async def failed_failover() -> None:  # resigned, /controller still ours
                c1._resign_locally()

            await c1._call("failed failover", failed_failover)
            assert not c1.active
            await _reconnected(c1)
            await until(lambda: c1.active, timeout=15, what="the controller elected again")
            assert c1.epoch > old_epoch
        finally:
            await stop_all(brokers)

    run(scenario())
