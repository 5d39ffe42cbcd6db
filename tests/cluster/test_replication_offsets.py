"""Committed offsets in a replicated ``__consumer_offsets`` (issue 13, point 7).

As Kafka's ``GroupMetadataManager.storeOffsets`` with ``offsets.commit.required.acks=-1``:
an OffsetCommit is answered once the high watermark of the group's partition passed the
commit's records, so an acknowledged commit is on every in-sync replica; with the ISR
below ``min.insync.replicas`` the commit fails with a retriable error
(COORDINATOR_NOT_AVAILABLE, mapped from NOT_ENOUGH_REPLICAS(_AFTER_APPEND), or
REQUEST_TIMED_OUT as it is) and is not visible to OffsetFetch; once the follower is back, commits
succeed again. The group metadata written at SyncGroup waits the same way.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, TopicPartition
from kafka.record import MemoryRecords

from coordinator.group_offsets import (
    OFFSETS_TOPIC,
    GroupKey,
    OffsetKey,
    decode_key,
    decode_offset_value,
)
from protocol.errors import ErrorCode
from protocol.messages import (
    FindCoordinatorRequest,
    OffsetCommitRequest,
    OffsetFetchRequest,
)
from tests.cluster.test_replication import (
    cluster_formed,
    create_topic,
    follower_not_controller,
    partition_view,
    produce,
    wait_until,
)
from tests.support.cluster import Cluster
from tests.support.wire_client import WireClient

pytestmark = pytest.mark.integration

DATA = "commits"


@pytest.fixture
def cluster(tmp_path: Path, zookeeper_shared: Any):
    overrides = {
        "offsets.topic.num.partitions": "1",
        "offsets.topic.replication.factor": "3",
        # Every broker's default, so __consumer_offsets has it too (Kafka gives the
        # internal topic no min.insync.replicas of its own).
        "min.insync.replicas": "3",
        "offsets.commit.timeout.ms": "4000",
        "replica.lag.time.max.ms": "2000",
        "replica.fetch.backoff.ms": "200",
        "zookeeper.session.timeout.ms": "6000",
    }
    with Cluster(
        3,
        zookeeper=zookeeper_shared,
        zk_chroot=f"/offs_{uuid.uuid4().hex[:8]}",
        base_dir=tmp_path,
        overrides=overrides,
    ) as c:
        wait_until(lambda: cluster_formed(c), "every broker knowing the controller and its peers")
        yield c


def coordinator_of(cluster: Cluster, group: str) -> int:
    def ask() -> int | None:
        with WireClient("127.0.0.1", cluster.port(0)) as c:
            resp = c.request(FindCoordinatorRequest(key=group), 2)
        return resp.node_id if resp.error_code == 0 else None

    node = wait_until(ask, f"the coordinator of {group}")
    return next(i for i in range(cluster.n) if cluster.broker_id(i) == node)


def commit(cluster: Cluster, broker: int, group: str, offset: int) -> int:
    """One OffsetCommit v8 of partition 0 of DATA as a simple group; its error code."""
    request = OffsetCommitRequest(
        group_id=group,
        generation_id_or_member_epoch=-1,
        member_id="",
        topics=[
            OffsetCommitRequest.OffsetCommitRequestTopic(
                name=DATA,
                partitions=[
                    OffsetCommitRequest.OffsetCommitRequestPartition(
                        partition_index=0, committed_offset=offset, committed_metadata="m"
                    )
                ],
            )
        ],
    )
    with WireClient("127.0.0.1", cluster.port(broker), timeout=30) as c:
        resp = c.request(request, 8)
    return resp.topics[0].partitions[0].error_code


def fetch_committed(cluster: Cluster, broker: int, group: str) -> int:
    request = OffsetFetchRequest(
        group_id=group, topics=[OffsetFetchRequest.OffsetFetchRequestTopic(name=DATA, partition_indexes=[0])]
    )
    with WireClient("127.0.0.1", cluster.port(broker)) as c:
        resp = c.request(request, 7)
    assert resp.error_code == 0
    return resp.topics[0].partitions[0].committed_offset


def stored_commits(log_dir: Path, group: str) -> list[int]:
    """The offsets committed for (group, DATA, 0) in one replica's segment files, in order."""
    out: list[int] = []
    for segment in sorted((log_dir / f"{OFFSETS_TOPIC}-0").glob("*.log")):
        records = MemoryRecords(segment.read_bytes())
        while records.has_next():
            batch = records.next_batch()
            for r in batch:
                key = decode_key(r.key)
                if key == OffsetKey(group, DATA, 0) and r.value is not None:
                    out.append(decode_offset_value(r.value).committed_offset)
    return out


def stored_group_records(log_dir: Path, group: str) -> int:
    count = 0
    for segment in sorted((log_dir / f"{OFFSETS_TOPIC}-0").glob("*.log")):
        records = MemoryRecords(segment.read_bytes())
        while records.has_next():
            count += sum(1 for r in records.next_batch() if decode_key(r.key) == GroupKey(group))
    return count


def test_commits_wait_for_the_isr_and_fail_retriably_below_min_insync(cluster: Cluster) -> None:
    create_topic(cluster, DATA, config={"min.insync.replicas": "1"})
    produce(cluster, DATA, [b"x"] * 10, acks="1", **{"enable.idempotence": False})
    group = "g-acks"
    coord = coordinator_of(cluster, group)
    wait_until(lambda: partition_view(cluster, coord, OFFSETS_TOPIC)[2] == (0, 1, 2), "the full ISR")

    # Acknowledged means on every in-sync replica (read from their segment files).
    assert commit(cluster, coord, group, 3) == 0
    for i in range(3):
        assert stored_commits(cluster.log_dir(i), group) == [3], f"replica {i}"

    follower = follower_not_controller(cluster, coord)
    cluster.cut_link(coord, follower)
    # The first commit the follower cannot fetch waits for it; once the follower leaves the
    # ISR, the ISR is below min.insync.replicas and the high watermark stays (KIP-966), so
    # it fails at offsets.commit.timeout.ms: REQUEST_TIMED_OUT, which Kafka 3.9's
    # GroupMetadataManager.maybeConvertOffsetCommitError passes to the client unchanged.
    assert commit(cluster, coord, group, 5) == ErrorCode.REQUEST_TIMED_OUT.code
    wait_until(
        lambda: len(partition_view(cluster, coord, OFFSETS_TOPIC)[2]) == 2, "the follower out of the ISR"
    )
    end = partition_view(cluster, coord, OFFSETS_TOPIC)[3]
    # ISR 2 < min.insync.replicas 3: refused before appending (NOT_ENOUGH_REPLICAS).
    assert commit(cluster, coord, group, 6) == ErrorCode.COORDINATOR_NOT_AVAILABLE.code
    assert partition_view(cluster, coord, OFFSETS_TOPIC)[3] == end
    # A failed commit is not visible (Kafka fills its cache only after the append succeeded).
    assert fetch_committed(cluster, coord, group) == 3

    cluster.heal_link(coord, follower)
    wait_until(lambda: partition_view(cluster, coord, OFFSETS_TOPIC)[2] == (0, 1, 2), "the follower back")
    assert commit(cluster, coord, group, 7) == 0
    assert fetch_committed(cluster, coord, group) == 7
    for i in range(3):
        # The appended-but-unacknowledged 5 is there (a retry is the client's business);
        # the refused 6 never reached a log.
        assert stored_commits(cluster.log_dir(i), group) == [3, 5, 7], f"replica {i}"


def test_a_consumer_group_commits_through_a_cut_follower_once_it_returns(cluster: Cluster) -> None:
    """confluent-kafka: a group's SyncGroup write and its commits wait for the ISR; with a
    follower cut off they fail retriably, and the consumer's commit succeeds after healing."""
    create_topic(cluster, DATA, config={"min.insync.replicas": "1"})
    produce(cluster, DATA, [b"y"] * 10, acks="1", **{"enable.idempotence": False})
    group = "g-consumer"
    coord = coordinator_of(cluster, group)
    wait_until(lambda: partition_view(cluster, coord, OFFSETS_TOPIC)[2] == (0, 1, 2), "the full ISR")
    consumer = Consumer(
        {
            "bootstrap.servers": cluster.bootstrap,
            "group.id": group,
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
        }
    )
    try:
        consumer.subscribe([DATA])
        got = 0
        wait_until(lambda: (m := consumer.poll(0.5)) is not None and m.error() is None, "a first record")
        got += 1
        # The SyncGroup write (GroupMetadataValue) was acknowledged: every replica has it.
        for i in range(3):
            assert stored_group_records(cluster.log_dir(i), group) >= 1, f"replica {i}"
        consumer.commit(offsets=[TopicPartition(DATA, 0, 4)], asynchronous=False)
        for i in range(3):
            assert stored_commits(cluster.log_dir(i), group) == [4], f"replica {i}"

        follower = follower_not_controller(cluster, coord)
        cluster.cut_link(coord, follower)
        commit(cluster, coord, "g-other", 1)  # a write the follower cannot fetch starts its lag
        wait_until(
            lambda: len(partition_view(cluster, coord, OFFSETS_TOPIC)[2]) == 2, "the follower out of the ISR"
        )
        with pytest.raises(Exception) as refused:
            consumer.commit(offsets=[TopicPartition(DATA, 0, 8)], asynchronous=False)
        assert refused.value.args[0].retriable() or "COORDINATOR" in str(refused.value), refused.value
        cluster.heal_link(coord, follower)
        wait_until(lambda: partition_view(cluster, coord, OFFSETS_TOPIC)[2] == (0, 1, 2), "the follower back")

        def committed() -> bool:
            try:
                consumer.commit(offsets=[TopicPartition(DATA, 0, 9)], asynchronous=False)
            except Exception:
                return False  # the client rediscovers the coordinator first
            return True

        wait_until(committed, "a commit after healing")
        assert fetch_committed(cluster, coord, group) == 9
        for i in range(3):
            assert stored_commits(cluster.log_dir(i), group)[-1] == 9, f"replica {i}"
    finally:
        consumer.close()


def test_offsets_commit_acks_and_timeout_configs() -> None:
    """Kafka's keys and defaults; KafkaConfig refuses acks above the topic's replication."""
    from broker.config import BrokerConfig, ConfigError

    config = BrokerConfig({})
    assert (config["offsets.commit.required.acks"], config["offsets.commit.timeout.ms"]) == (-1, 5000)
    assert BrokerConfig({"offsets.commit.required.acks": "1"})["offsets.commit.required.acks"] == 1
    with pytest.raises(ConfigError, match=r"offsets\.commit\.required\.acks"):
        BrokerConfig({"offsets.commit.required.acks": "4", "offsets.topic.replication.factor": "3"})
    with pytest.raises(ConfigError, match=r"offsets\.commit\.required\.acks"):
        BrokerConfig({"offsets.commit.required.acks": "-2"})
    with pytest.raises(ConfigError, match=r"offsets\.commit\.timeout\.ms"):
        BrokerConfig({"offsets.commit.timeout.ms": "0"})
