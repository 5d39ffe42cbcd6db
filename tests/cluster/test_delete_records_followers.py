"""DeleteRecords and the log start offset across replicas (ZooKeeper mode)."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from protocol.messages import DeleteRecordsRequest, ListOffsetsRequest
from tests.support.cluster import Cluster
from tests.support.polling import wait_until
from tests.support.wire_client import WireClient
from tests.support.zookeeper_server import zookeeper_shared

__all__ = ["zookeeper_shared"]

pytestmark = pytest.mark.integration
TOPIC = "dr"


def view(cluster: Cluster, i: int) -> tuple | None:
    def look() -> tuple | None:
        p = cluster.broker(i).replica_manager.get_partition(TOPIC, 0)
        if p is None:
            return None
        log = p.log
        return p.leader_id, log.log_start_offset, log.log_end_offset, log.high_watermark, len(log.segments())

    return cluster.run(look)


@pytest.fixture
def cluster(tmp_path: Path, zookeeper_shared: Any):
    overrides = {"offsets.topic.num.partitions": "1", "replica.fetch.backoff.ms": "200"}
    with Cluster(
        2,
        zookeeper=zookeeper_shared,
        zk_chroot=f"/delete_records_{uuid.uuid4().hex[:8]}",
        base_dir=tmp_path,
        overrides=overrides,
    ) as c:

        def formed() -> bool:
            caches = [c.broker(i).metadata_cache for i in range(c.n)]
            return all(x.controller_id >= 0 and len(x.get_alive_brokers()) == c.n for x in caches)

        wait_until(lambda: c.run(formed), "cluster formed")
        yield c


def test_followers_take_the_new_log_start_and_a_new_leader_answers_it(cluster: Cluster) -> None:
    """Kafka ``Partition.deleteRecordsOnLeader`` + ``ReplicaFetcherThread.processPartitionData``
    (``maybeIncrementLogStartOffset(leaderLogStartOffset)``) + ``deleteLogStartOffsetBreachedSegments``
    on the follower; after a leader change ListOffsets(earliest) answers the deleted-up-to offset."""
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    admin.create_topics([NewTopic(TOPIC, 1, 2, config={"segment.bytes": "300"})])[TOPIC].result(60)
    producer = Producer({"bootstrap.servers": cluster.bootstrap, "acks": "all", "linger.ms": 0})
    for i in range(20):
        producer.produce(TOPIC, key=b"k%d" % i, value=b"v" * 50, partition=0)
        producer.flush(30)
    (leader,) = wait_until(  # a 1-tuple: broker 0 is a falsy id
        lambda: next(((i,) for i in range(2) if (v := view(cluster, i)) and v[0] == i and v[3] == 20), None),
        "leader with hw 20",
    )
    follower = 1 - leader
    wait_until(lambda: (v := view(cluster, follower)) is not None and v[3] == 20, "follower hw 20")
    request = DeleteRecordsRequest(
        topics=[
            DeleteRecordsRequest.DeleteRecordsTopic(
                name=TOPIC,
                partitions=[DeleteRecordsRequest.DeleteRecordsPartition(partition_index=0, offset=10)],
            )
        ],
        timeout_ms=10_000,
    )
    with WireClient("127.0.0.1", cluster.port(leader)) as client:
        (p,) = client.request(request, 2).topics[0].partitions
    assert (p.error_code, p.low_watermark) == (0, 10)
    wait_until(lambda: view(cluster, follower)[1] == 10, "follower log start 10")
    segments_before = view(cluster, follower)[4]
    cluster.run(cluster.broker(follower).log_manager.background.retention_pass())
    assert view(cluster, follower)[4] < segments_before
    cluster.stop(leader)
    wait_until(lambda: view(cluster, follower)[0] == follower, "follower leads")
    list_offsets = ListOffsetsRequest(
        replica_id=-1,
        isolation_level=0,
        topics=[
            ListOffsetsRequest.ListOffsetsTopic(
                name=TOPIC,
                partitions=[ListOffsetsRequest.ListOffsetsPartition(partition_index=0, timestamp=-2)],
            )
        ],
    )

    def earliest() -> int | None:
        with WireClient("127.0.0.1", cluster.port(follower)) as client:
            (q,) = client.request(list_offsets, 7).topics[0].partitions
        return q.offset if q.error_code == 0 else None

    assert wait_until(earliest, "earliest offset") == 10
