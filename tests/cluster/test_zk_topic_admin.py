"""Topic administration on a ZooKeeper-mode cluster (three in-process brokers, real ZooKeeper).

CreateTopics, CreatePartitions and DeleteTopics are the active controller's (NOT_CONTROLLER
on the others, as ZooKeeper-mode Kafka answers without forwarding); topic configs live in
``/config/topics/<t>`` (no local overrides file) and every broker reads them from there, at
DescribeConfigs and when it loads its logs; ``__consumer_offsets`` is one topic of the
cluster with the offsets topic's replication factor.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient, NewPartitions, NewTopic
from kazoo.client import KazooClient

from protocol.errors import ErrorCode
from protocol.messages import (
    CreatePartitionsRequest,
    CreateTopicsRequest,
    DeleteTopicsRequest,
    DescribeConfigsRequest,
    FindCoordinatorRequest,
    MetadataRequest,
)
from storage.log_manager import TOPIC_OVERRIDES_FILE
from tests.cluster.zk_cluster_checks import controller_index
from tests.cluster.zk_cluster_checks import raw_metadata as metadata
from tests.support.cluster import Cluster
from tests.support.polling import wait_until
from tests.support.wire_client import WireClient

pytestmark = pytest.mark.integration

TOPIC_CONFIG_SOURCE = 1  # DescribeConfigsResponse ConfigSource.TOPIC_CONFIG


@pytest.fixture(scope="module")
def cluster(zookeeper_shared, tmp_path_factory) -> Iterator[Cluster]:
    c = Cluster(
        3,
        zookeeper=zookeeper_shared,
        zk_chroot="/topic_admin",
        base_dir=tmp_path_factory.mktemp("topic-admin"),
        overrides={"offsets.topic.num.partitions": "3", "group.initial.rebalance.delay.ms": "0"},
    )
    c.start()
    try:
        yield c
    finally:
        c.close()


@pytest.fixture(scope="module")
def kazoo(zookeeper_shared) -> Iterator[KazooClient]:
    zk = KazooClient(hosts=zookeeper_shared.connect("/topic_admin"))
    zk.start(timeout=30)
    try:
        yield zk
    finally:
        zk.stop()
        zk.close()


def led_everywhere(cluster: Cluster, topic: str, partitions: int) -> bool:
    for i in range(cluster.n):
        (t,) = metadata(cluster, i, [topic]).topics
        if t.error_code != 0 or len(t.partitions) != partitions or any(p.leader_id < 0 for p in t.partitions):
            return False
    return True


def test_controller_requests_answer_not_controller_elsewhere(cluster: Cluster) -> None:
    ctrl = controller_index(cluster)
    other = (ctrl + 1) % cluster.n
    with WireClient("127.0.0.1", cluster.port(other)) as client:
        created = client.request(
            CreateTopicsRequest(
                topics=[
                    CreateTopicsRequest.CreatableTopic(
                        name="not-here", num_partitions=1, replication_factor=1
                    )
                ],
                timeout_ms=5000,
            ),
            7,
        )
        assert [t.error_code for t in created.topics] == [ErrorCode.NOT_CONTROLLER.code]
        grown = client.request(
            CreatePartitionsRequest(
                topics=[CreatePartitionsRequest.CreatePartitionsTopic(name="not-here", count=2)],
                timeout_ms=5000,
            ),
            3,
        )
        assert [r.error_code for r in grown.results] == [ErrorCode.NOT_CONTROLLER.code]
        deleted = client.request(
            DeleteTopicsRequest(
                topics=[DeleteTopicsRequest.DeleteTopicState(name="not-here")], timeout_ms=5000
            ),
            6,
        )
        assert [r.error_code for r in deleted.responses] == [ErrorCode.NOT_CONTROLLER.code]
    assert (
        metadata(cluster, ctrl, ["not-here"]).topics[0].error_code
        == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code
    )


def test_topic_configs_live_in_zookeeper(cluster: Cluster, kazoo: KazooClient) -> None:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    futures = admin.create_topics(
        [NewTopic("configured", 3, 3, config={"segment.bytes": "1048576", "retention.ms": "3600000"})],
        operation_timeout=30,
    )
    futures["configured"].result(60)
    # The answer waited for the leaders in the controller's metadata; the others follow.
    (t,) = metadata(cluster, controller_index(cluster), ["configured"]).topics
    assert t.error_code == 0 and all(p.leader_id >= 0 for p in t.partitions)
    wait_until(lambda: led_everywhere(cluster, "configured", 3), "leaders on every broker")
    data, _ = kazoo.get("/config/topics/configured")
    assert json.loads(data) == {
        "version": 1,
        "config": {"segment.bytes": "1048576", "retention.ms": "3600000"},
    }
    for i in range(cluster.n):
        with WireClient("127.0.0.1", cluster.port(i)) as client:
            described = client.request(
                DescribeConfigsRequest(
                    resources=[
                        DescribeConfigsRequest.DescribeConfigsResource(
                            resource_type=2, resource_name="configured", configuration_keys=["segment.bytes"]
                        )
                    ]
                ),
                4,
            )
        (result,) = described.results
        assert result.error_code == 0
        (entry,) = result.configs
        assert (entry.value, entry.config_source) == ("1048576", TOPIC_CONFIG_SOURCE)
        assert not (cluster.log_dir(i) / TOPIC_OVERRIDES_FILE).exists()
        # The logs were made with the topic's config (LeaderAndIsr reads /config/topics).
        log = cluster.broker(i).log_manager.get_log("configured", 0)
        assert log is not None and log.config.segment_bytes == 1048576

    # A restarted broker loads its logs with the configs from ZooKeeper.
    cluster.restart(2)
    wait_until(lambda: led_everywhere(cluster, "configured", 3), "leaders after the restart")
    log = cluster.broker(2).log_manager.get_log("configured", 1)
    assert log is not None and log.config.retention_ms == 3_600_000
    assert not (cluster.log_dir(2) / TOPIC_OVERRIDES_FILE).exists()


def test_partitions_grow_and_topics_go_on_every_broker(cluster: Cluster, kazoo: KazooClient) -> None:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    admin.create_topics([NewTopic("growing", 2, 2)], operation_timeout=30)["growing"].result(60)
    admin.create_partitions([NewPartitions("growing", 5)], operation_timeout=30)["growing"].result(60)
    wait_until(lambda: led_everywhere(cluster, "growing", 5), "the new partitions on every broker")
    assignment = json.loads(kazoo.get("/brokers/topics/growing")[0])["partitions"]
    assert sorted(assignment) == ["0", "1", "2", "3", "4"]
    assert all(len(replicas) == 2 for replicas in assignment.values())
    hosting = {
        i for i in range(cluster.n) for p in range(5) if cluster.broker(i).log_manager.get_log("growing", p)
    }
    assert len(hosting) >= 2

    admin.delete_topics(["growing"], operation_timeout=30)["growing"].result(60)
    (t,) = metadata(cluster, controller_index(cluster), ["growing"]).topics
    assert t.error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code
    wait_until(
        lambda: all(
            metadata(cluster, i, ["growing"]).topics[0].error_code
            == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code
            for i in range(cluster.n)
        ),
        "the topic gone from every broker",
    )
    wait_until(
        lambda: (
            not any(
                cluster.broker(i).log_manager.get_log("growing", p)
                for i in range(cluster.n)
                for p in range(5)
            )
        ),
        "replicas removed by StopReplica",
    )
    wait_until(lambda: not kazoo.exists("/brokers/topics/growing"), "the deletion completed in ZooKeeper")
    assert not kazoo.exists("/admin/delete_topics/growing")


def test_the_offsets_topic_is_one_replicated_topic(cluster: Cluster, kazoo: KazooClient) -> None:
    def coordinator_found() -> bool:
        with WireClient("127.0.0.1", cluster.port(0)) as client:
            found = client.request(FindCoordinatorRequest(key="a-group", key_type=0), 3)
        return found.error_code == 0

    wait_until(coordinator_found, "a group coordinator")
    ids = set()
    for i in range(cluster.n):
        (t,) = metadata(cluster, i, ["__consumer_offsets"]).topics
        assert t.error_code == 0 and t.is_internal
        assert all(len(p.replica_nodes) == 3 for p in t.partitions)
        ids.add(t.topic_id)
    assert len(ids) == 1
    stored = json.loads(kazoo.get("/brokers/topics/__consumer_offsets")[0])
    assert len(stored["partitions"]) == 3
    config = json.loads(kazoo.get("/config/topics/__consumer_offsets")[0])["config"]
    assert config["cleanup.policy"] == "compact"


def test_auto_creation_works_from_any_broker(cluster: Cluster, kazoo: KazooClient) -> None:
    ctrl = controller_index(cluster)
    other = (ctrl + 2) % cluster.n

    def created() -> bool:
        with WireClient("127.0.0.1", cluster.port(other)) as client:
            response = client.request(
                MetadataRequest(
                    topics=[MetadataRequest.MetadataRequestTopic(name="auto-made")],
                    allow_auto_topic_creation=True,
                ),
                12,
            )
        (t,) = response.topics
        assert t.error_code in (0, ErrorCode.LEADER_NOT_AVAILABLE.code), t.error_code
        return t.error_code == 0 and all(p.leader_id >= 0 for p in t.partitions)

    wait_until(created, "the auto-created topic")
    assert kazoo.exists("/brokers/topics/auto-made")


def test_the_offsets_topic_replication_factor_is_capped_at_the_live_brokers(
    zookeeper_shared: Any, tmp_path_factory: Any
) -> None:
    """offsets.topic.replication.factor=3 with only two brokers alive: Moldau creates
    ``__consumer_offsets`` with two replicas per partition (ClusterInternalTopics caps it),
    so groups work at once. Kafka 3.x differs: ``AutoTopicCreationManager.hasEnoughLiveBrokers``
    refuses the creation (FindCoordinator answers COORDINATOR_NOT_AVAILABLE) until three
    brokers are alive; see docs/COMPATIBILITY.md."""
    with Cluster(
        2,
        zookeeper=zookeeper_shared,
        zk_chroot="/topic_admin_capped",
        base_dir=tmp_path_factory.mktemp("topic-admin-capped"),
        overrides={"offsets.topic.num.partitions": "2", "offsets.topic.replication.factor": "3"},
    ) as cluster:

        def coordinator_found() -> bool:
            with WireClient("127.0.0.1", cluster.port(0)) as client:
                found = client.request(FindCoordinatorRequest(key="a-group", key_type=0), 3)
            return found.error_code == 0

        wait_until(coordinator_found, "a group coordinator")
        for i in range(cluster.n):
            (t,) = metadata(cluster, i, ["__consumer_offsets"]).topics
            assert t.error_code == 0 and len(t.partitions) == 2
            assert all(sorted(p.replica_nodes) == [0, 1] for p in t.partitions)
        zk = KazooClient(hosts=zookeeper_shared.connect("/topic_admin_capped"))
        zk.start(timeout=30)
        try:
            stored = json.loads(zk.get("/brokers/topics/__consumer_offsets")[0])
        finally:
            zk.stop()
            zk.close()
        assert [len(r) for r in stored["partitions"].values()] == [2, 2]


def test_a_name_pending_deletion_is_refused_then_auto_created_once_free(
    cluster: Cluster, kazoo: KazooClient
) -> None:
    """DeleteTopics while a replica's broker is down leaves the deletion pending
    (``/admin/delete_topics/<t>``). Meanwhile CreateTopics answers TOPIC_ALREADY_EXISTS with
    "is marked for deletion." (AdminZkClient.validateTopicCreate checks the mark before
    topicExists) and an auto-creating Metadata request LEADER_NOT_AVAILABLE; once the broker
    returns and the deletion completes, the name is free at once: UNKNOWN_TOPIC_OR_PARTITION
    without auto-creation, and the next auto-creating request creates it (ZooKeeper-mode
    AutoTopicCreationManager tries on every request; no 30 s busy mark left behind)."""
    name = "pending-then-free"
    ctrl = controller_index(cluster)
    down = (ctrl + 1) % cluster.n
    other = (ctrl + 2) % cluster.n

    def request(i: int, req: Any, version: int) -> Any:
        with WireClient("127.0.0.1", cluster.port(i)) as client:
            return client.request(req, version)

    def create() -> Any:
        topic = CreateTopicsRequest.CreatableTopic(name=name, num_partitions=1, replication_factor=3)
        return request(ctrl, CreateTopicsRequest(topics=[topic], timeout_ms=30_000), 7).topics[0]

    def lookup(i: int, auto: bool) -> int:
        topic = MetadataRequest.MetadataRequestTopic(name=name)
        return (
            request(i, MetadataRequest(topics=[topic], allow_auto_topic_creation=auto), 12)
            .topics[0]
            .error_code
        )

    assert create().error_code == 0
    wait_until(lambda: led_everywhere(cluster, name, 1), "the topic on every broker")
    cluster.kill(down)
    try:
        wait_until(lambda: len(metadata(cluster, ctrl, []).brokers) == 2, "the killed broker gone")
        deleted = request(ctrl, DeleteTopicsRequest(topic_names=[name], timeout_ms=15_000), 4).responses[0]
        assert deleted.error_code == 0
        assert kazoo.exists(f"/admin/delete_topics/{name}") is not None
        refused = create()
        assert (refused.error_code, refused.error_message) == (
            ErrorCode.TOPIC_ALREADY_EXISTS.code,
            f"Topic '{name}' is marked for deletion.",
        )
        for i in (ctrl, other):
            assert lookup(i, auto=True) == ErrorCode.LEADER_NOT_AVAILABLE.code
    finally:
        cluster.start_broker(down)
    wait_until(lambda: kazoo.exists(f"/admin/delete_topics/{name}") is None, "the deletion completed", 40)
    assert lookup(other, auto=False) == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code
    assert lookup(other, auto=True) == ErrorCode.LEADER_NOT_AVAILABLE.code
    wait_until(lambda: kazoo.exists(f"/brokers/topics/{name}") is not None, "the name auto-created again")
