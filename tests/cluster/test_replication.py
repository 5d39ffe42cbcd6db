"""Replication in a ZooKeeper-mode cluster of in-process brokers, with real clients.

confluent-kafka produces to replication-factor-3 topics with acks=all and consumes; the
replicas' logs are then read independently (kafka-python's record parser over each
broker's segment files) and must hold the same records at the same offsets. Faults: a
follower cut off leaves the ISR after ``replica.lag.time.max.ms`` and returns once healed;
a killed leader loses no acknowledged record.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from kafka.record import MemoryRecords

from tests.cluster.zk_cluster_checks import try_metadata
from tests.support.cluster import Cluster

pytestmark = pytest.mark.integration

Record = tuple[int, bytes | None, bytes | None]


def wait_until(condition: Callable[[], Any], what: str, timeout: float = 60.0) -> Any:
    """Poll ``condition`` until it returns something other than None or False (0 counts)."""
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if result is not None and result is not False:
            return result
        assert time.monotonic() < deadline, f"no {what} within {timeout} s"
        time.sleep(0.05)


def replica_records(log_dir: Path, topic: str, partition: int) -> list[Record]:
    """Every record of one replica, read from its segment files (not through the broker)."""
    directory = log_dir / f"{topic}-{partition}"
    out: list[Record] = []
    for segment in sorted(directory.glob("*.log")):
        records = MemoryRecords(segment.read_bytes())
        while records.has_next():
            batch = records.next_batch()
            assert batch.validate_crc(), f"corrupt batch in {segment}"
            out.extend((r.offset, r.key, r.value) for r in batch)
    return out


def create_topic(
    cluster: Cluster, name: str, partitions: int = 1, config: dict[str, str] | None = None
) -> None:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    futures = admin.create_topics(
        [NewTopic(name, partitions, 3, config=config or {})], operation_timeout=30, request_timeout=40
    )
    futures[name].result(60)


def partition_view(cluster: Cluster, i: int, topic: str, partition: int = 0) -> tuple | None:
    """(leader, leader epoch, ISR, log end offset, high watermark) of broker i's replica."""

    def look() -> tuple | None:
        p = cluster.broker(i).replica_manager.get_partition(topic, partition)
        if p is None:
            return None
        return p.leader_id, p.leader_epoch, tuple(sorted(p.isr)), p.log.log_end_offset, p.log.high_watermark

    return cluster.run(look)


def leader_of(cluster: Cluster, topic: str, partition: int = 0) -> int:
    def find() -> int | None:
        for i in range(cluster.n):
            if cluster.alive(i):
                view = partition_view(cluster, i, topic, partition)
                if view is not None and view[0] == i:
                    return i
        return None

    return wait_until(find, f"a leader of {topic}-{partition}")


def replicas_in_sync(cluster: Cluster, topic: str, partition: int, brokers: list[int]) -> bool:
    """Every replica has the leader's log end offset and high watermark."""
    views = [partition_view(cluster, i, topic, partition) for i in brokers]
    if any(v is None for v in views):
        return False
    ends = {(v[3], v[4]) for v in views}
    return len(ends) == 1


def produce(cluster: Cluster, topic: str, values: list[bytes], **conf: Any) -> list[int]:
    """acks=all, idempotent; returns the offsets acknowledged (raises if one failed)."""
    producer = Producer(
        {
            "bootstrap.servers": cluster.bootstrap,
            "acks": "all",
            "enable.idempotence": True,
            "linger.ms": 5,
            **conf,
        }
    )
    acked: list[int] = []
    errors: list[Any] = []

    def report(err: Any, msg: Any) -> None:
        if err is not None:
            errors.append(err)
        else:
            acked.append(msg.offset())

    for i, value in enumerate(values):
        producer.produce(topic, key=str(i).encode(), value=value, partition=0, on_delivery=report)
        producer.poll(0)
    assert producer.flush(60) == 0
    assert not errors, errors
    return acked


def consume_all(cluster: Cluster, topic: str, count: int, timeout: float = 60.0) -> list[Record]:
    consumer = Consumer(
        {
            "bootstrap.servers": cluster.bootstrap,
            "group.id": f"g-{uuid.uuid4()}",
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
        }
    )
    consumer.assign([TopicPartition(topic, 0, 0)])
    out: list[Record] = []
    deadline = time.monotonic() + timeout
    try:
        while len(out) < count and time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is None:
                continue
            if msg.error():
                if msg.error().retriable() or not msg.error().fatal():
                    continue
                raise KafkaException(msg.error())
            out.append((msg.offset(), msg.key(), msg.value()))
    finally:
        consumer.close()
    return out


def cluster_formed(cluster: Cluster) -> bool:
    def formed() -> bool:
        caches = [cluster.broker(i).metadata_cache for i in range(cluster.n)]
        return all(c.controller_id >= 0 and len(c.get_alive_brokers()) == cluster.n for c in caches)

    return cluster.run(formed)


@pytest.fixture
def cluster(tmp_path: Path, zookeeper_shared: Any, request: Any):
    overrides = {
        "offsets.topic.num.partitions": "1",
        "replica.lag.time.max.ms": "3000",
        "replica.fetch.backoff.ms": "200",
        "zookeeper.session.timeout.ms": "6000",
    }
    overrides.update(getattr(request, "param", {}))
    with Cluster(
        3,
        zookeeper=zookeeper_shared,
        zk_chroot=f"/repl_{uuid.uuid4().hex[:8]}",
        base_dir=tmp_path,
        overrides=overrides,
    ) as c:
        # Clients asking before the controller's first UpdateMetadata would learn of no
        # controller (librdkafka's admin client then waits for it without asking again).
        wait_until(lambda: cluster_formed(c), "every broker knowing the controller and its peers")
        yield c


def follower_not_controller(cluster: Cluster, leader: int) -> int:
    """A follower whose link to the leader can be cut while the leader still reaches the
    controller (its ISR change, AlterPartition, must get through: as in Kafka)."""
    controller = cluster.broker(leader).metadata_cache.controller_id
    return next(i for i in range(3) if i != leader and cluster.broker_id(i) != controller)


def test_acks_all_records_reach_every_replica_at_the_same_offsets(cluster: Cluster) -> None:
    create_topic(cluster, "rf3", config={"min.insync.replicas": "2"})
    values = [f"value-{i}".encode() * (1 + i % 7) for i in range(500)]
    acked = produce(cluster, "rf3", values)
    assert sorted(acked) == list(range(500))
    consumed = consume_all(cluster, "rf3", 500)
    assert [(o, v) for o, _, v in consumed] == list(enumerate(values))

    wait_until(lambda: replicas_in_sync(cluster, "rf3", 0, [0, 1, 2]), "every replica at the leader's end")
    logs = [replica_records(cluster.log_dir(i), "rf3", 0) for i in range(3)]
    assert logs[0] == logs[1] == logs[2]
    assert [(o, v) for o, _, v in logs[0]] == list(enumerate(values))
    leader = leader_of(cluster, "rf3")
    # every follower holds the leader's producer state, so a retry would be a duplicate anywhere
    states = cluster.run(
        lambda: [
            {
                pid: (e.producer_epoch, e.last_seq, e.last_data_offset)
                for pid, e in cluster.broker(i)
                .replica_manager.get_partition("rf3", 0)
                .log.producer_state.active_producers()
                .items()
            }
            for i in range(3)
        ]
    )
    assert states[0] == states[1] == states[2] and len(states[leader]) == 1
    epochs = cluster.run(
        lambda: [
            cluster.broker(i).replica_manager.get_partition("rf3", 0).log.leader_epoch_cache.entries()
            for i in range(3)
        ]
    )
    assert epochs[0] == epochs[1] == epochs[2]


def test_acknowledged_records_survive_the_leaders_crash(cluster: Cluster) -> None:
    create_topic(cluster, "crash", config={"min.insync.replicas": "2"})
    first = [f"before-{i}".encode() for i in range(300)]
    assert len(produce(cluster, "crash", first)) == 300
    old_leader = leader_of(cluster, "crash")
    cluster.kill(old_leader)
    survivors = [i for i in range(3) if i != old_leader]
    new_leader = wait_until(
        lambda: next(
            (i for i in survivors if (v := partition_view(cluster, i, "crash")) and v[0] == i),
            None,
        ),
        "a new leader",
    )
    assert new_leader != old_leader
    # the new leader serves every acknowledged record, and takes more with acks=all
    second = [f"after-{i}".encode() for i in range(100)]
    assert len(produce(cluster, "crash", second)) == 100
    consumed = consume_all(cluster, "crash", 400)
    assert [v for _, _, v in consumed] == first + second
    assert [o for o, _, _ in consumed] == list(range(400))
    # the crashed broker comes back as a follower and catches up to the same log
    cluster.start_broker(old_leader)
    wait_until(lambda: replicas_in_sync(cluster, "crash", 0, [0, 1, 2]), "the restarted replica caught up")
    logs = [replica_records(cluster.log_dir(i), "crash", 0) for i in range(3)]
    assert logs[0] == logs[1] == logs[2]
    assert [v for _, _, v in logs[0]] == first + second


def test_a_cut_off_follower_leaves_the_isr_and_returns_after_healing(cluster: Cluster) -> None:
    create_topic(cluster, "isr", config={"min.insync.replicas": "2"})
    leader = leader_of(cluster, "isr")
    follower = follower_not_controller(cluster, leader)
    produce(cluster, "isr", [b"a"] * 10)
    wait_until(lambda: partition_view(cluster, leader, "isr")[2] == (0, 1, 2), "the full ISR")
    cluster.cut_link(leader, follower)
    # A follower with the leader's whole log stays caught up (Replica.isCaughtUp): a write
    # it cannot fetch starts its lag.
    produce(cluster, "isr", [b"c"] * 5, acks="1", **{"enable.idempotence": False})
    expected = tuple(sorted(i for i in range(3) if i != follower))
    wait_until(lambda: partition_view(cluster, leader, "isr")[2] == expected, "the follower out of the ISR")
    # acks=all still works with two in sync (min.insync.replicas=2)
    assert len(produce(cluster, "isr", [b"b"] * 10)) == 10
    assert partition_view(cluster, follower, "isr")[3] == 10  # it got nothing meanwhile
    cluster.heal_link(leader, follower)
    wait_until(lambda: partition_view(cluster, leader, "isr")[2] == (0, 1, 2), "the follower back in the ISR")
    wait_until(lambda: replicas_in_sync(cluster, "isr", 0, [0, 1, 2]), "every replica at the leader's end")
    logs = [replica_records(cluster.log_dir(i), "isr", 0) for i in range(3)]
    assert logs[0] == logs[1] == logs[2] and len(logs[0]) == 25


def test_an_idempotent_producer_streams_through_a_leader_crash_without_loss_or_duplicates(
    cluster: Cluster,
) -> None:
    """acks=all, idempotent: the leader is killed mid-stream and restarted. Every
    acknowledged record is in the log exactly once, in order, and the replicas (the
    restarted one truncated to the new leader's history, KIP-101) end identical."""
    import threading

    create_topic(cluster, "stream", config={"min.insync.replicas": "2"})
    total = 3000
    producer = Producer(
        {
            "bootstrap.servers": cluster.bootstrap,
            "acks": "all",
            "enable.idempotence": True,
            "linger.ms": 2,
            "message.timeout.ms": 120_000,
        }
    )
    acked: dict[bytes, int] = {}
    errors: list[Any] = []
    halfway = threading.Event()
    killed = threading.Event()  # the last third is produced only after the crash

    def report(err: Any, msg: Any) -> None:
        if err is not None:
            errors.append(err)
        else:
            acked[msg.value()] = msg.offset()
            if len(acked) >= total // 3:
                halfway.set()

    def stream() -> None:
        for i in range(total):
            if i == 2 * total // 3:
                deadline = time.monotonic() + 120
                while not killed.is_set() and time.monotonic() < deadline:
                    producer.poll(0.1)  # delivery callbacks run in poll
            producer.produce("stream", value=b"r%06d" % i, partition=0, on_delivery=report)
            producer.poll(0)
            if i % 50 == 0:
                time.sleep(0.01)
        producer.flush(120)

    writer = threading.Thread(target=stream)
    writer.start()
    assert halfway.wait(60)
    old_leader = leader_of(cluster, "stream")
    cluster.kill(old_leader)
    killed.set()
    assert len(acked) < total  # the crash came mid-stream
    writer.join(180)
    assert not writer.is_alive()
    assert not errors, errors[:5]
    assert len(acked) == total
    cluster.start_broker(old_leader)
    wait_until(
        lambda: replicas_in_sync(cluster, "stream", 0, [0, 1, 2]), "the restarted replica caught up", 120
    )
    logs = [replica_records(cluster.log_dir(i), "stream", 0) for i in range(3)]
    assert logs[0] == logs[1] == logs[2]
    values = [v for _, _, v in logs[0]]
    assert values == sorted(values) and len(values) == len(set(values)) == total  # once each, in order
    assert {v: o for o, _, v in logs[0]} == acked  # at the offsets acknowledged


def metadata_isr(cluster: Cluster, broker: int, topic: str) -> tuple[int, ...] | None:
    """The ISR of ``topic``-0 in a Metadata answer of broker ``broker`` (what clients see)."""
    view = try_metadata(cluster, broker, [topic])
    if view is None or view.topic_errors.get(topic) != 0 or (topic, 0) not in view.partitions:
        return None
    return tuple(sorted(view.partitions[(topic, 0)].isr))


def leader_alone_in_the_isr(cluster: Cluster, topic: str) -> tuple[int, int]:
    """An RF 2 topic with min.insync.replicas=2 whose ISR is its leader alone: the follower is
    cut off until the leader drops it (``replica.lag.time.max.ms``), as Metadata shows.
    The leader is the controller, so its ISR change (AlterPartition) still gets through.
    Returns (leader, follower)."""
    controller = cluster.broker(0).metadata_cache.controller_id
    leader = controller
    follower = next(i for i in range(cluster.n) if i != leader)
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    new = NewTopic(topic, 1, replica_assignment=[[leader, follower]], config={"min.insync.replicas": "2"})
    admin.create_topics([new], operation_timeout=30, request_timeout=40)[topic].result(60)
    assert leader_of(cluster, topic) == leader
    assert len(produce(cluster, topic, [b"a"] * 5)) == 5  # acks=all works with both in sync
    wait_until(
        lambda: metadata_isr(cluster, leader, topic) == tuple(sorted((leader, follower))),
        "the full ISR in Metadata",
    )
    cluster.cut_link(leader, follower)
    # A follower with the leader's whole log stays caught up (Replica.isCaughtUp): a write
    # it cannot fetch starts its lag.
    produce(cluster, topic, [b"b"], acks="1", **{"enable.idempotence": False})
    wait_until(lambda: partition_view(cluster, leader, topic)[2] == (leader,), "the follower out of the ISR")
    wait_until(lambda: metadata_isr(cluster, leader, topic) == (leader,), "an ISR of one in Metadata")
    return leader, follower


def heal_and_produce(cluster: Cluster, topic: str, leader: int, follower: int) -> None:
    """Healed, the follower catches up and rejoins the ISR; acks=all is served again."""
    cluster.heal_link(leader, follower)
    wait_until(
        lambda: metadata_isr(cluster, leader, topic) == tuple(sorted((leader, follower))),
        "the follower back in the ISR",
    )
    assert len(produce(cluster, topic, [b"after"] * 3)) == 3
    wait_until(lambda: replicas_in_sync(cluster, topic, 0, [leader, follower]), "both replicas at the end")
    logs = [replica_records(cluster.log_dir(i), topic, 0) for i in (leader, follower)]
    assert logs[0] == logs[1] and [v for _, _, v in logs[0]].count(b"after") == 3


def test_acks_all_below_min_insync_replicas_is_refused(cluster: Cluster) -> None:
    """min.insync.replicas=2 and an ISR of the leader alone: acks=all gets
    NOT_ENOUGH_REPLICAS (19) and nothing is appended (Partition.appendRecordsToLeader);
    acks=1 is still served; healed, acks=all succeeds again."""
    from confluent_kafka import KafkaError as ClientError

    leader, follower = leader_alone_in_the_isr(cluster, "minisr")
    end = partition_view(cluster, leader, "minisr")[3]
    producer = Producer(
        {"bootstrap.servers": cluster.bootstrap, "acks": "all", "retries": 0, "enable.idempotence": False}
    )
    errors: list[Any] = []
    producer.produce("minisr", b"refused", partition=0, on_delivery=lambda err, _m: errors.append(err))
    assert producer.flush(30) == 0
    assert [e.code() for e in errors] == [ClientError.NOT_ENOUGH_REPLICAS] and errors[0].code() == 19
    assert partition_view(cluster, leader, "minisr")[3] == end
    produce(cluster, "minisr", [b"one"], acks="1", **{"enable.idempotence": False})
    assert partition_view(cluster, leader, "minisr")[3] == end + 1
    heal_and_produce(cluster, "minisr", leader, follower)


def test_the_java_client_gets_not_enough_replicas_below_min_insync(cluster: Cluster) -> None:
    """As above with Kafka's Java producer (acks=all, no retries): NotEnoughReplicasException."""
    from tests.support.java_client import JavaClient, produce_args, require_java

    require_java()
    leader, follower = leader_alone_in_the_isr(cluster, "minisr-java")
    end = partition_view(cluster, leader, "minisr-java")[3]
    result = JavaClient(cluster.bootstrap).run(
        "produce",
        *produce_args(topic="minisr-java", count=1, partition=0, idempotence=False, retries=0),
        timeout=120,
    )
    summary = result.last
    assert not summary["ok"] and summary["failed"] == 1, summary
    assert summary["error_counts"] == {"NotEnoughReplicasException": 1}, summary
    assert partition_view(cluster, leader, "minisr-java")[3] == end
    heal_and_produce(cluster, "minisr-java", leader, follower)


def test_the_java_idempotent_producer_survives_a_leader_crash_exactly_once(cluster: Cluster) -> None:
    """Kafka's Java client, acks=all and idempotent, streams while the leader is killed and
    restarted: every record is in every replica's log exactly once, in order per key."""
    from tests.support.java_client import JavaClient, check_exactly_once, produce_args, require_java

    require_java()
    create_topic(cluster, "java-stream", config={"min.insync.replicas": "2"})
    count, keys = 3000, 8
    leader = leader_of(cluster, "java-stream")
    args = produce_args(
        topic="java-stream",
        count=0,  # until stopped: the stream ends only after the crash and its share of acks
        keys=keys,
        instance="java",
        partition=0,
        linger_ms=2,
        throughput=1500,
        progress_every=100,
        stdin_control=True,
    )
    with JavaClient(cluster.bootstrap).start("produce", *args, properties={"retry.backoff.ms": 50}) as stream:

        def acked() -> int:
            for line in reversed(stream.lines):
                if line.get("event") == "progress":
                    return int(line["acked"])
            return 0

        try:
            wait_until(lambda: acked() >= count // 3, "a third acknowledged")
            cluster.kill(leader)
            killed_at = acked()
            # the crash is mid-stream by construction: the stream goes on past it
            wait_until(lambda: acked() >= max(count, killed_at + count // 3), "acks after the crash", 180)
        finally:
            stream.stop()
        summary = stream.wait(180).last
    sent = summary["sent"]
    assert summary["ok"] and summary["acked"] == sent >= count, summary
    cluster.start_broker(leader)
    wait_until(
        lambda: replicas_in_sync(cluster, "java-stream", 0, [0, 1, 2]), "the restarted replica caught up", 120
    )
    logs = [replica_records(cluster.log_dir(i), "java-stream", 0) for i in range(3)]
    assert logs[0] == logs[1] == logs[2]
    report = check_exactly_once([(0, o, v) for o, _, v in logs[0]], {"java": (sent, keys)})
    assert report.ok, report


def test_kafka_python_idempotent_producer_survives_a_leader_crash(cluster: Cluster) -> None:
    """kafka-python (acks=all, idempotent) sends while the leader is killed: every record it
    had acknowledged is in the new leader's log exactly once, at its acknowledged offset."""
    import threading

    from kafka import KafkaProducer

    create_topic(cluster, "kp-stream", config={"min.insync.replicas": "2"})
    leader = leader_of(cluster, "kp-stream")
    total = 1500
    producer = KafkaProducer(
        bootstrap_servers=cluster.bootstrap,
        acks="all",
        enable_idempotence=True,
        linger_ms=2,
        retries=2**31 - 1,
    )
    futures: list[Any] = []

    def stream() -> None:
        for i in range(total):
            futures.append(producer.send("kp-stream", value=b"kp%06d" % i, partition=0))
            if i % 50 == 0:
                time.sleep(0.01)
        producer.flush(120)

    writer = threading.Thread(target=stream)
    writer.start()
    wait_until(lambda: partition_view(cluster, leader, "kp-stream")[4] >= total // 3, "a third acknowledged")
    cluster.kill(leader)
    writer.join(180)
    assert not writer.is_alive()
    try:
        acked = {b"kp%06d" % i: f.get(timeout=60).offset for i, f in enumerate(futures)}
    finally:
        producer.close(10)
    assert len(acked) == total
    survivors = [i for i in range(3) if i != leader]
    wait_until(lambda: replicas_in_sync(cluster, "kp-stream", 0, survivors), "the survivors in step")
    logs = [replica_records(cluster.log_dir(i), "kp-stream", 0) for i in survivors]
    assert logs[0] == logs[1]
    values = [v for _, _, v in logs[0]]
    assert len(values) == len(set(values)) == total and values == sorted(values)
    assert {v: o for o, _, v in logs[0]} == acked
