"""A partition that exists in the cluster but has no replica on the broker asked.

Kafka's ``ReplicaManager.getPartitionOrError``: ``HostedPartition.None`` with the partition in
the metadata cache answers NOT_LEADER_OR_FOLLOWER ("forces clients to refresh metadata to
find the new location", e.g. after a reassignment); UNKNOWN_TOPIC_OR_PARTITION only when the
metadata does not know the partition. Fetch, ListOffsets and OffsetForLeaderEpoch all go
through it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from protocol.errors import ErrorCode
from protocol.messages import (
    CreateTopicsRequest,
    FetchRequest,
    ListOffsetsRequest,
    OffsetForLeaderEpochRequest,
)
from tests.cluster.zk_cluster_checks import controller_index
from tests.cluster.zk_cluster_checks import raw_metadata as metadata
from tests.support.cluster import Cluster
from tests.support.polling import wait_until
from tests.support.wire_client import WireClient
from tests.support.zookeeper_server import zookeeper_shared  # noqa: F401

pytestmark = pytest.mark.integration
TOPIC = "elsewhere"


@pytest.fixture(scope="module")
def cluster(zookeeper_shared, tmp_path_factory) -> Iterator[Cluster]:  # noqa: F811
    c = Cluster(
        2,
        zookeeper=zookeeper_shared,
        zk_chroot="/hosted_elsewhere",
        base_dir=tmp_path_factory.mktemp("hosted-elsewhere"),
        overrides={"offsets.topic.num.partitions": "1"},
    )
    c.start()
    try:
        yield c
    finally:
        c.close()


@pytest.fixture(scope="module")
def placed(cluster: Cluster) -> tuple[int, int]:
    """(index of the broker without a replica, index of the one with it)."""
    ctrl = controller_index(cluster)
    holder, other = 1, 0
    with WireClient("127.0.0.1", cluster.port(ctrl)) as client:
        resp = client.request(
            CreateTopicsRequest(
                topics=[
                    CreateTopicsRequest.CreatableTopic(
                        name=TOPIC,
                        num_partitions=-1,
                        replication_factor=-1,
                        assignments=[
                            CreateTopicsRequest.CreatableReplicaAssignment(
                                partition_index=0, broker_ids=[cluster.broker_id(holder)]
                            )
                        ],
                    )
                ],
                timeout_ms=30000,
            ),
            7,
        )
    assert resp.topics[0].error_code == 0

    def known_by_other():
        (t,) = metadata(cluster, other, [TOPIC]).topics
        return t.error_code == 0 and t.partitions and t.partitions[0].leader_id == cluster.broker_id(holder)

    wait_until(known_by_other, "the topic in the other broker's metadata")
    return other, holder


def test_fetch_of_a_partition_hosted_elsewhere_is_not_leader_or_follower(cluster: Cluster, placed) -> None:
    other, _ = placed
    with WireClient("127.0.0.1", cluster.port(other)) as client:
        resp = client.request(
            FetchRequest(
                replica_id=-1,
                max_wait_ms=0,
                min_bytes=1,
                max_bytes=1 << 20,
                isolation_level=0,
                session_id=0,
                session_epoch=-1,
                topics=[
                    FetchRequest.FetchTopic(
                        topic=TOPIC,
                        partitions=[
                            FetchRequest.FetchPartition(
                                partition=0, fetch_offset=0, log_start_offset=-1, partition_max_bytes=1 << 20
                            )
                        ],
                    )
                ],
                forgotten_topics_data=[],
                rack_id="",
            ),
            12,
        )
    [t] = resp.responses
    [p] = t.partitions
    assert p.error_code == ErrorCode.NOT_LEADER_OR_FOLLOWER.code


def test_list_offsets_of_a_partition_hosted_elsewhere_is_not_leader_or_follower(
    cluster: Cluster, placed
) -> None:
    other, _ = placed
    with WireClient("127.0.0.1", cluster.port(other)) as client:
        resp = client.request(
            ListOffsetsRequest(
                replica_id=-1,
                isolation_level=0,
                topics=[
                    ListOffsetsRequest.ListOffsetsTopic(
                        name=TOPIC,
                        partitions=[ListOffsetsRequest.ListOffsetsPartition(partition_index=0, timestamp=-1)],
                    )
                ],
            ),
            5,
        )
    [t] = resp.topics
    [p] = t.partitions
    assert p.error_code == ErrorCode.NOT_LEADER_OR_FOLLOWER.code


def test_offset_for_leader_epoch_of_a_partition_hosted_elsewhere_is_not_leader_or_follower(
    cluster: Cluster, placed
) -> None:
    other, _ = placed
    with WireClient("127.0.0.1", cluster.port(other)) as client:
        resp = client.request(
            OffsetForLeaderEpochRequest(
                replica_id=-1,
                topics=[
                    OffsetForLeaderEpochRequest.OffsetForLeaderTopic(
                        topic=TOPIC,
                        partitions=[
                            OffsetForLeaderEpochRequest.OffsetForLeaderPartition(
                                partition=0, current_leader_epoch=-1, leader_epoch=0
                            )
                        ],
                    )
                ],
            ),
            4,
        )
    [t] = resp.topics
    [p] = t.partitions
    assert p.error_code == ErrorCode.NOT_LEADER_OR_FOLLOWER.code
