"""ElectLeaders UNCLEAN that finds no eligible leader: Kafka's message names the strategy
as Scala prints the case class, ``OfflinePartitionLeaderElectionStrategy(true)``."""

from __future__ import annotations

import pytest

from coordinator.zk_admin import AdminZkClient
from coordinator.zk_controller import ElectionType
from protocol.errors import ErrorCode
from tests.coordinator.test_zk_controller import connect, create, run, start_brokers, stop_all, wait_state  # noqa: F401
from tests.support.zookeeper_server import zookeeper_shared  # noqa: F401

pytestmark = pytest.mark.zookeeper


def test_unclean_election_failure_message_is_kafkas(connect):  # noqa: F811
    async def scenario():
        brokers = await start_brokers(connect, (1, 2), auto_leader_rebalance_enable=False)
        try:
            zk = brokers[1].zk
            c = brokers[1].controller
            await create(AdminZkClient(zk), "t", [[2]])
            await wait_state(zk, "t", 0, lambda s: s.leader == 2)
            await brokers[2].kill()
            await wait_state(zk, "t", 0, lambda s: s.leader == -1)
            res = await c.elect_leaders(ElectionType.UNCLEAN, [("t", 0)])
            # PartitionStateMachine.doElectLeaderForPartitions: s"Failed to elect leader for
            # partition $partition under strategy $partitionLeaderElectionStrategy", the
            # strategy being the case class OfflinePartitionLeaderElectionStrategy(allowUnclean = true)
            assert res == {
                ("t", 0): (
                    ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE,
                    "Failed to elect leader for partition t-0 under strategy "
                    "OfflinePartitionLeaderElectionStrategy(true)",
                )
            }
        finally:
            await stop_all(brokers)

    run(scenario())
