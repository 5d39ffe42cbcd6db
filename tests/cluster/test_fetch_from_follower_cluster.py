"""KIP-392, consumers reading from the replica in their rack, with real consumers.

Three in-process brokers with a real ZooKeeper, racks ``rack-0``..``rack-2`` and Kafka's
``RackAwareReplicaSelector``; a topic of replication factor 3. A consumer with
``client.rack`` set to a follower's rack is told by the leader to read from that follower
(``preferred_read_replica``) and does: the follower's own counters show the bytes it served
(a follower serves no replication fetches, so every byte it sent went to the consumer).
librdkafka (confluent-kafka) and Kafka's Java consumer both implement the client side.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, KafkaException, TopicPartition

from broker.replica_selector import RACK_AWARE_REPLICA_SELECTOR
from tests.cluster.test_replication import (
    cluster_formed,
    create_topic,
    leader_of,
    produce,
    replicas_in_sync,
    wait_until,
)
from tests.support.cluster import Cluster

pytestmark = pytest.mark.integration


@pytest.fixture
def cluster(tmp_path: Path, zookeeper_shared: Any):
    with Cluster(
        3,
        zookeeper=zookeeper_shared,
        zk_chroot=f"/follower_fetch_{uuid.uuid4().hex[:8]}",
        base_dir=tmp_path,
        overrides={
            "offsets.topic.num.partitions": "1",
            "replica.selector.class": RACK_AWARE_REPLICA_SELECTOR,
            "replica.lag.time.max.ms": "3000",
            "zookeeper.session.timeout.ms": "6000",
        },
        broker_overrides={i: {"broker.rack": f"rack-{i}"} for i in range(3)},
    ) as c:
        wait_until(lambda: cluster_formed(c), "every broker knowing the controller and its peers")
        yield c


def bytes_served(cluster: Cluster, i: int, topic: str) -> int:
    """The record bytes broker ``i`` answered fetches of ``topic`` with."""
    return cluster.run(lambda: cluster.broker(i).replica_manager.topic_stats.topic(topic).bytes_out)


def topic_with_records(cluster: Cluster, topic: str, count: int) -> tuple[int, list[int], list[bytes]]:
    """A replication-factor-3 topic holding ``count`` records on every replica; (leader,
    followers, values)."""
    create_topic(cluster, topic)
    leader = leader_of(cluster, topic)
    values = [f"{topic}-{n}".encode() for n in range(count)]
    assert produce(cluster, topic, values) == list(range(count))
    wait_until(lambda: replicas_in_sync(cluster, topic, 0, [0, 1, 2]), "every replica at the high watermark")
    return leader, [i for i in range(3) if i != leader], values


def poll_values(consumer: Consumer, count: int, timeout: float = 60.0) -> list[tuple[int, bytes]]:
    out: list[tuple[int, bytes]] = []
    deadline = time.monotonic() + timeout
    while len(out) < count and time.monotonic() < deadline:
        msg = consumer.poll(0.5)
        if msg is None:
            continue
        if msg.error():
            if msg.error().retriable() or not msg.error().fatal():
                continue
            raise KafkaException(msg.error())
        out.append((msg.offset(), msg.value()))
    return out


def test_librdkafka_reads_from_the_follower_in_its_rack_and_back_from_the_leader_when_it_dies(
    cluster: Cluster,
) -> None:
    """confluent-kafka with ``client.rack`` of a follower: the records come from that follower
    (the other follower serves nothing); records produced while it reads reach it through
    the follower's long polls; once that follower is killed the consumer goes back to the
    leader and reads the rest, every record once and in order."""
    topic = "near"
    _, (near, far), values = topic_with_records(cluster, topic, 300)
    served_before = {i: bytes_served(cluster, i, topic) for i in (near, far)}
    consumer = Consumer(
        {
            "bootstrap.servers": cluster.bootstrap,
            "group.id": f"g-{uuid.uuid4()}",
            "enable.auto.commit": False,
            "client.rack": f"rack-{near}",
            "fetch.wait.max.ms": 200,
            "topic.metadata.refresh.interval.ms": 1000,
        }
    )
    try:
        consumer.assign([TopicPartition(topic, 0, 0)])
        got = poll_values(consumer, 300)
        assert got == list(enumerate(values))
        assert bytes_served(cluster, near, topic) > served_before[near]
        assert bytes_served(cluster, far, topic) == served_before[far]

        more = [f"{topic}-{n}".encode() for n in range(300, 400)]
        assert produce(cluster, topic, more) == list(range(300, 400))
        got += poll_values(consumer, 100)
        assert got == list(enumerate(values + more))

        cluster.kill(near)
        rest = [f"{topic}-{n}".encode() for n in range(400, 450)]
        assert produce(cluster, topic, rest) == list(range(400, 450))
        got += poll_values(consumer, 50, timeout=90)
        assert got == list(enumerate(values + more + rest))
    finally:
        consumer.close()


def test_the_java_consumer_reads_from_the_follower_in_its_rack(cluster: Cluster) -> None:
    """Kafka's Java consumer (kafka-clients 4.3) with ``client.rack``: every record, from the
    follower of that rack."""
    from tests.support.java_client import JavaClient, require_java

    require_java()
    topic = "near-java"
    _, (near, far), values = topic_with_records(cluster, topic, 200)
    served_before = {i: bytes_served(cluster, i, topic) for i in (near, far)}
    result = JavaClient(cluster.bootstrap).consume(
        topic, assign=[0], expect=200, properties={"client.rack": f"rack-{far}"}
    )
    assert [(r["o"], r["v"]) for r in result.records()] == [(n, v.decode()) for n, v in enumerate(values)]
    assert bytes_served(cluster, far, topic) > served_before[far]
    assert bytes_served(cluster, near, topic) == served_before[near]


def test_a_consumer_in_the_leaders_rack_or_none_reads_from_the_leader(cluster: Cluster) -> None:
    """RackAwareReplicaSelector picks the leader when it shares the consumer's rack, and
    consumers without ``client.rack`` are never redirected: no follower serves them."""
    topic = "leader-rack"
    leader, followers, values = topic_with_records(cluster, topic, 100)
    for rack in (f"rack-{leader}", None):
        conf = {
            "bootstrap.servers": cluster.bootstrap,
            "group.id": f"g-{uuid.uuid4()}",
            "enable.auto.commit": False,
        }
        if rack is not None:
            conf["client.rack"] = rack
        consumer = Consumer(conf)
        try:
            consumer.assign([TopicPartition(topic, 0, 0)])
            assert poll_values(consumer, 100) == list(enumerate(values))
        finally:
            consumer.close()
    assert [bytes_served(cluster, i, topic) for i in followers] == [0, 0]


def test_a_fetch_parked_on_a_follower_is_answered_when_its_high_watermark_moves(cluster: Cluster) -> None:
    """A consumer's Fetch v12 waiting on a follower (max_wait_ms 60 s) is answered with the next
    record as soon as the follower's replica fetcher moves its high watermark (Kafka's
    ``ReplicaFetcherThread`` calling ``completeDelayedFetchRequests``), not at its timeout."""
    from protocol.messages import FetchRequest
    from tests.support.wire_client import WireClient

    topic = "parked"
    _, (near, _), _ = topic_with_records(cluster, topic, 10)
    request = FetchRequest(
        replica_id=-1,
        max_wait_ms=60_000,
        min_bytes=1,
        max_bytes=1 << 20,
        isolation_level=0,
        session_id=0,
        session_epoch=-1,
        topics=[
            FetchRequest.FetchTopic(
                topic=topic,
                partitions=[
                    FetchRequest.FetchPartition(
                        partition=0, fetch_offset=10, log_start_offset=-1, partition_max_bytes=1 << 20
                    )
                ],
            )
        ],
        forgotten_topics_data=[],
        rack_id=f"rack-{near}",
    )
    purgatory = lambda: cluster.run(lambda: len(cluster.broker(near).replica_manager.fetch_purgatory))  # noqa: E731
    with WireClient("127.0.0.1", cluster.port(near), timeout=30) as client:
        client.send(request, 12)
        wait_until(lambda: purgatory() == 1, "the consumer's fetch parked on the follower")
        assert produce(cluster, topic, [b"late"]) == [10]
        _, response = client.recv(1, 12)
    [partition] = response.responses[0].partitions
    assert partition.error_code == 0 and partition.high_watermark == 11
    assert partition.records is not None and b"late" in bytes(partition.records)
