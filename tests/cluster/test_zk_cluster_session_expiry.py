"""ZooKeeper session expiry of a broker in a running in-process cluster (not a kill): Kafka's
broker re-registers (new broker epoch, KIP-380), the controller handles it as a bounced
broker (``KafkaController.processBrokerChange``), and the broker goes on: it accepts the
controller's requests carrying its new epoch, catches up and rejoins every ISR."""

from __future__ import annotations

import uuid

import pytest
from kazoo.client import KazooClient

from broker.testing.cluster import InProcessCluster

pytestmark = pytest.mark.zookeeper


def _expire(cluster: InProcessCluster, i: int) -> int:
    """Close broker i's session from a second client; returns its old broker epoch."""

    def ids():
        zk = cluster.broker(i).zookeeper
        return zk.hosts + (zk.chroot or ""), zk.kazoo.client_id, zk.broker_epoch

    hosts, client_id, epoch = cluster.run(ids)
    other = KazooClient(hosts=hosts, client_id=client_id)
    other.start(timeout=30)
    other.stop()
    other.close()
    return epoch


def test_a_broker_whose_session_expired_rejoins_with_a_new_epoch(zookeeper_shared, tmp_path):
    """``KafkaZkClient.registerBroker`` after ``processExpire`` / ``processBrokerChange``
    (bounced broker): new broker epoch, leaderships moved away, then back in the ISR."""
    connect = zookeeper_shared.connect(f"/expiry_{uuid.uuid4().hex[:8]}")
    with InProcessCluster(3, connect, tmp_path, {"auto.leader.rebalance.enable": "false"}) as cluster:
        controller = cluster.controller()
        victim = next(i for i in range(3) if i != controller)
        cluster.create_topic("x", partitions=3, replication_factor=3)
        cluster.wait_in_sync("x", 3)
        old_epoch = _expire(cluster, victim)
        cluster._wait(
            lambda: (
                cluster.run(lambda: cluster.broker(victim).zookeeper.broker_epoch) not in (None, old_epoch)
            ),
            "re-registration",
            60,
        )

        # the controller saw it bounce: every replica is back in every ISR afterwards
        def bounced_and_back() -> bool:
            c = cluster.broker(controller).kafka_controller
            info = c.ctx.brokers.get(victim)
            return info is not None and info.epoch != old_epoch

        cluster._wait(lambda: cluster.run(bounced_and_back), "the controller seeing the new epoch", 60)
        cluster.wait_in_sync("x", 3, timeout=60)
        # the victim hosts all three partitions with the controller's latest leader epochs
        for p in range(3):
            state = cluster.partition("x", p, broker=controller)
            hosted = cluster.run(lambda p=p: cluster.broker(victim).replica_manager.get_partition("x", p))
            assert hosted is not None and hosted.leader_epoch == state.leader_epoch


def test_the_controllers_session_expiry_moves_the_controller(zookeeper_shared, tmp_path):
    """``KafkaController.processExpire`` (``onControllerResignation``) then
    ``RegisterBrokerAndReelect``: a controller whose session expired resigns, a controller
    with a higher epoch takes over, and the old one's broker rejoins every ISR."""
    connect = zookeeper_shared.connect(f"/expiry_c_{uuid.uuid4().hex[:8]}")
    with InProcessCluster(3, connect, tmp_path, {"auto.leader.rebalance.enable": "false"}) as cluster:
        old = cluster.controller()
        old_epoch = cluster.run(lambda: cluster.broker(old).kafka_controller.epoch)
        cluster.create_topic("y", partitions=3, replication_factor=3)
        cluster.wait_in_sync("y", 3)
        _expire(cluster, old)

        def moved():
            epochs = [cluster.broker(i).kafka_controller for i in range(3)]
            active = [c for c in epochs if c.active]
            return len(active) == 1 and active[0].epoch > old_epoch

        cluster._wait(lambda: cluster.run(moved), "a new controller epoch", 60)
        cluster.create_topic("y2", partitions=1, replication_factor=3)
        cluster.wait_in_sync("y", 3, timeout=60)
        cluster.wait_in_sync("y2", 1, timeout=60)
