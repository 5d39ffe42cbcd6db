"""onBrokerStartup resumes only the reassignments whose *target* replicas include a new
broker (Kafka: ``maybeResumeReassignments { (_, a) => a.targetReplicas.exists(newBrokersSet.contains) }``);
a broker that is only being removed coming back does not bump the leader epoch."""

from __future__ import annotations

import pytest

from coordinator.zk_admin import AdminZkClient
from protocol.errors import ErrorCode
from tests.coordinator.test_zk_controller import (  # noqa: F401
    _noop,
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


def test_removing_replica_restart_does_not_resume_the_move(connect):  # noqa: F811
    async def scenario():
        brokers = await start_brokers(connect, (1, 2, 3, 4), auto_leader_rebalance_enable=False)
        try:
            zk = brokers[1].zk
            c = brokers[1].controller
            await create(AdminZkClient(zk), "t", [[1, 2, 3]])
            await wait_state(zk, "t", 0, lambda s: True)
            res = await c.alter_partition_reassignments({("t", 0): [1, 2, 4]})
            assert res == {("t", 0): (ErrorCode.NONE, None)}  # broker 4 never catches up (fake)
            await brokers[3].kill()
            await wait_state(zk, "t", 0, lambda s: 3 not in s.isr)
            await until(lambda: 3 not in c.ctx.brokers, what="broker 3 gone")
            await c._call("sync", _noop)
            before = await state_of(zk, "t", 0)
            brokers[3] = await FakeBroker(connect, 3).start()
            await until(lambda: 3 in c.ctx.brokers, what="broker 3 back")
            await c._call("sync", _noop)  # the broker-change event has finished
            after = await state_of(zk, "t", 0)
            assert c.ctx.full_assignment(("t", 0)).removing == (3,)
            assert after.leader_epoch == before.leader_epoch
        finally:
            await stop_all(brokers)

    run(scenario())
