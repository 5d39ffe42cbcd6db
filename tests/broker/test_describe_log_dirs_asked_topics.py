"""DescribeLogDirs as Kafka 3.9's ReplicaManager.describeLogDirs answers it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from protocol.messages import CreateTopicsRequest, DescribeLogDirsRequest
from tests.support.cluster import Cluster
from tests.support.wire_client import WireClient


@pytest.fixture(scope="module")
def cluster(tmp_path_factory) -> Iterator[Cluster]:
    c = Cluster(1, base_dir=tmp_path_factory.mktemp("describe-log-dirs"))
    c.start()
    try:
        yield c
    finally:
        c.close()


def call(cluster: Cluster, message: Any, version: int) -> Any:
    with WireClient("127.0.0.1", cluster.port(0)) as client:
        return client.request(message, version)


def create(cluster: Cluster, name: str) -> None:
    topic = CreateTopicsRequest.CreatableTopic(name=name, num_partitions=2, replication_factor=1)
    (result,) = call(cluster, CreateTopicsRequest(topics=[topic], timeout_ms=10_000), 7).topics
    assert result.error_code == 0, result.error_message


def test_topics_without_an_asked_partition_are_not_listed(cluster):
    """Kafka 3.9 ReplicaManager.describeLogDirs (KAFKA-16807): the topics of a dir are
    ``.filterNot(_.partitions().isEmpty)``, so a topic none of whose partitions was asked
    for is not in the answer."""
    create(cluster, "asked")
    create(cluster, "other")
    for version in (1, 2, 3, 4):
        resp = call(
            cluster,
            DescribeLogDirsRequest(
                topics=[DescribeLogDirsRequest.DescribableLogDirTopic(topic="asked", partitions=[1])]
            ),
            version,
        )
        (result,) = resp.results
        assert [(t.name, [p.partition_index for p in t.partitions]) for t in result.topics] == [
            ("asked", [1])
        ], version
    # Without a topic list every partition of every topic is described.
    (result,) = call(cluster, DescribeLogDirsRequest(topics=None), 4).results
    listed = {t.name: [p.partition_index for p in t.partitions] for t in result.topics}
    assert listed["asked"] == listed["other"] == [0, 1]
