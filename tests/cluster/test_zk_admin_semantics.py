"""ZooKeeper-mode admin semantics on three in-process brokers: unclean election enabled by a topic
config change, zero-timeout admin requests, a deletion with a replica down."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from protocol.errors import ErrorCode
from protocol.messages import (
    CreatePartitionsRequest,
    CreateTopicsRequest,
    DeleteTopicsRequest,
    IncrementalAlterConfigsRequest,
)
from tests.cluster.zk_cluster_checks import controller_index
from tests.cluster.zk_cluster_checks import raw_metadata as metadata
from tests.support.cluster import Cluster
from tests.support.polling import wait_until
from tests.support.wire_client import WireClient
from tests.support.zookeeper_server import zookeeper_shared  # noqa: F401

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def cluster(zookeeper_shared, tmp_path_factory) -> Iterator[Cluster]:  # noqa: F811
    c = Cluster(
        3,
        zookeeper=zookeeper_shared,
        zk_chroot="/zk_admin_semantics",
        base_dir=tmp_path_factory.mktemp("zk-admin-semantics"),
        overrides={"offsets.topic.num.partitions": "1", "group.initial.rebalance.delay.ms": "0"},
    )
    c.start()
    try:
        yield c
    finally:
        c.close()


def partition0(cluster: Cluster, i: int, topic: str) -> Any:
    (t,) = metadata(cluster, i, [topic]).topics
    return t.partitions[0] if t.error_code == 0 and t.partitions else None


def create(cluster: Cluster, ctrl: int, name: str, replicas: list[int], timeout_ms: int = 30000) -> Any:
    with WireClient("127.0.0.1", cluster.port(ctrl)) as client:
        return client.request(
            CreateTopicsRequest(
                topics=[
                    CreateTopicsRequest.CreatableTopic(
                        name=name,
                        num_partitions=-1,
                        replication_factor=-1,
                        assignments=[
                            CreateTopicsRequest.CreatableReplicaAssignment(
                                partition_index=0, broker_ids=replicas
                            )
                        ],
                    )
                ],
                timeout_ms=timeout_ms,
            ),
            7,
        ).topics[0]


def test_enabling_unclean_election_on_a_topic_elects_its_offline_partition(cluster: Cluster) -> None:
    """Kafka's TopicConfigHandler.processConfigChanges calls
    KafkaController.enableTopicUncleanLeaderElection when a topic's
    unclean.leader.election.enable becomes true: the controller runs an (unclean) election for
    the topic's offline partitions at once (TopicUncleanLeaderElectionEnable event)."""
    ctrl = controller_index(cluster)
    a, b = [i for i in range(cluster.n) if i != ctrl]
    ida, idb = cluster.broker_id(a), cluster.broker_id(b)
    assert create(cluster, ctrl, "unclean-t", [ida, idb]).error_code == 0
    try:
        cluster.kill(b)
        wait_until(
            lambda: (p := partition0(cluster, ctrl, "unclean-t")) and list(p.isr_nodes) == [ida], "ISR [a]"
        )
        cluster.kill(a)
        wait_until(
            lambda: (p := partition0(cluster, ctrl, "unclean-t")) and p.leader_id == -1,
            "the partition offline",
        )
        cluster.start_broker(b)
        wait_until(
            lambda: idb in {x.node_id for x in metadata(cluster, ctrl, []).brokers},
            "broker b registered again",
        )
        with WireClient("127.0.0.1", cluster.port(ctrl)) as client:
            altered = client.request(
                IncrementalAlterConfigsRequest(
                    resources=[
                        IncrementalAlterConfigsRequest.AlterConfigsResource(
                            resource_type=2,
                            resource_name="unclean-t",
                            configs=[
                                IncrementalAlterConfigsRequest.AlterableConfig(
                                    name="unclean.leader.election.enable", config_operation=0, value="true"
                                )
                            ],
                        )
                    ]
                ),
                1,
            )
        assert [r.error_code for r in altered.responses] == [0]
        wait_until(
            lambda: (p := partition0(cluster, ctrl, "unclean-t")) and p.leader_id == idb,
            "an unclean leader after the topic config change",
        )
    finally:
        for i in (a, b):
            if not cluster.alive(i):
                cluster.start_broker(i)


def test_zero_timeout_answers_request_timed_out(cluster: Cluster) -> None:
    """ZkAdminManager.createTopics / createPartitions / deleteTopics: with timeout <= 0 (and not
    validate-only) an accepted topic answers REQUEST_TIMED_OUT at once (the znodes are written:
    AutoTopicCreationManager relies on exactly this)."""
    ctrl = controller_index(cluster)
    ids = [cluster.broker_id(i) for i in range(cluster.n)]
    created = create(cluster, ctrl, "zero-timeout", [ids[0]], timeout_ms=0)
    wait_until(lambda: partition0(cluster, ctrl, "zero-timeout"), "the topic created anyway")
    with WireClient("127.0.0.1", cluster.port(ctrl)) as client:
        grown = client.request(
            CreatePartitionsRequest(
                topics=[CreatePartitionsRequest.CreatePartitionsTopic(name="zero-timeout", count=2)],
                timeout_ms=0,
            ),
            3,
        )
        wait_until(
            lambda: len(metadata(cluster, ctrl, ["zero-timeout"]).topics[0].partitions) == 2, "two partitions"
        )
        deleted = client.request(
            DeleteTopicsRequest(
                topics=[DeleteTopicsRequest.DeleteTopicState(name="zero-timeout")], timeout_ms=0
            ),
            6,
        )
    assert (created.error_code, grown.results[0].error_code, deleted.responses[0].error_code) == (
        ErrorCode.REQUEST_TIMED_OUT.code,
    ) * 3


def test_delete_topics_with_a_replica_down_unpublishes_the_topic(cluster: Cluster) -> None:
    """Kafka: deleting a topic while one of its replicas' brokers is down still sends
    UpdateMetadata with LeaderDuringDelete (TopicDeletionManager.onTopicDeletion), so
    DeleteTopics completes (DelayedDeleteTopics waits for the metadata cache only) and
    Metadata answers UNKNOWN_TOPIC_OR_PARTITION; the znodes stay until the broker returns."""
    ctrl = controller_index(cluster)
    a, b = [i for i in range(cluster.n) if i != ctrl]
    assert create(cluster, ctrl, "del-down", [cluster.broker_id(a), cluster.broker_id(b)]).error_code == 0
    wait_until(lambda: partition0(cluster, ctrl, "del-down"), "created")
    try:
        cluster.kill(b)
        wait_until(
            lambda: (
                (p := partition0(cluster, ctrl, "del-down")) and list(p.isr_nodes) == [cluster.broker_id(a)]
            ),
            "ISR [a]",
        )
        with WireClient("127.0.0.1", cluster.port(ctrl)) as client:
            client.sock.settimeout(30)
            deleted = client.request(
                DeleteTopicsRequest(
                    topics=[DeleteTopicsRequest.DeleteTopicState(name="del-down")], timeout_ms=15000
                ),
                6,
            )
        assert deleted.responses[0].error_code == 0
        (t,) = metadata(cluster, ctrl, ["del-down"]).topics
        assert t.error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code
    finally:
        if not cluster.alive(b):
            cluster.start_broker(b)
