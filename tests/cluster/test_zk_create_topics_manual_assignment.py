"""CreateTopics with a manual replica assignment on a ZooKeeper-mode cluster."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from tests.support.cluster import Cluster
from tests.support.polling import wait_until
from tests.support.zookeeper_server import zookeeper_shared  # noqa: F401

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def zk_cluster(zookeeper_shared, tmp_path_factory) -> Iterator[Cluster]:  # noqa: F811
    c = Cluster(
        2,
        zookeeper=zookeeper_shared,
        zk_chroot=f"/manual_assignment_{uuid.uuid4().hex[:8]}",
        base_dir=tmp_path_factory.mktemp("zk-manual-assignment"),
        overrides={"offsets.topic.num.partitions": "1"},
    )
    c.start()
    try:
        yield c
    finally:
        c.close()


def test_manual_assignment_may_name_an_unregistered_broker(zk_cluster: Cluster) -> None:
    """Kafka's ZkAdminManager.createTopics does not check a manual replica assignment against
    the registered brokers ("we don't check that replicaAssignment contains unknown brokers -
    unlike in add-partitions case, this follows the existing logic in TopicCommand"); only
    AdminZkClient.validateTopicCreate's checks apply. A partition [live, 7] (more replicas
    than registered brokers too) is created and led by the live broker
    (KafkaController.onNewPartitionCreation elects among the live replicas)."""
    topic = f"assign-unknown-{uuid.uuid4().hex[:8]}"
    live = zk_cluster.broker_id(0)
    other = zk_cluster.broker_id(1)
    admin = AdminClient({"bootstrap.servers": zk_cluster.bootstrap})
    admin.create_topics([NewTopic(topic, 2, replica_assignment=[[live, 7], [other, live]])])[topic].result(30)

    def published():
        t = admin.list_topics(topic, timeout=10).topics[topic]
        if t.error is not None or len(t.partitions) != 2 or any(p.leader < 0 for p in t.partitions.values()):
            return None
        return {p.id: (p.leader, list(p.replicas)) for p in t.partitions.values()}

    assert wait_until(published, f"{topic} published") == {0: (live, [live, 7]), 1: (other, [other, live])}
    # Three replicas on two registered brokers: no INVALID_REPLICATION_FACTOR either.
    wide = topic + "-wide"
    admin.create_topics([NewTopic(wide, 1, replica_assignment=[[live, other, 7]])])[wide].result(30)
