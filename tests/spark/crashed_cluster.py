"""A replicated cluster's log dirs after failures, for tests/spark/test_replicated_source_failures.py.

A 3-broker ZooKeeper-mode cluster of real broker processes (SIGKILLs are real), RF 3,
min.insync.replicas 2, small segments. An idempotent acks=all producer writes all along
while the leader of partition 0 is SIGKILLed and restarted several times (so replicas
were truncated, leader epochs moved, checkpoints were left stale by the kills). A follower
of ``behind`` misses records deleted by DeleteRecords and restarts from the leader's log
start. A transactional producer commits and aborts transactions. Ground truth: what a
Kafka consumer (librdkafka, read_committed) reads from the live cluster. Then the leader
of partition 0 is SIGKILLed and not restarted, the other two stop cleanly.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import confluent_kafka
from confluent_kafka import TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from storage.checkpoints import HIGH_WATERMARK_CHECKPOINT, OffsetCheckpointFile
from tests.cluster.zk_cluster_checks import agreed_metadata, live_brokers
from tests.support.cluster import Cluster
from tests.support.polling import wait_until

TOPIC = "kills"
TXN_TOPIC = "txn"
BEHIND = "behind"
DELETED_BEFORE = 1000  # DeleteRecords on kills-1: inside its first segment, no segment file goes
OVERRIDES = {
    "zookeeper.session.timeout.ms": "6000",
    "group.initial.rebalance.delay.ms": "0",
    "offsets.topic.num.partitions": "1",
    "transaction.state.log.num.partitions": "1",
    "replica.lag.time.max.ms": "3000",
    "replica.fetch.backoff.ms": "200",
}


def view_of(cluster: Cluster, topic: str) -> Any:
    """The partitions of ``topic`` as every live broker agrees, each led by a live broker."""
    live = live_brokers(cluster)
    v = agreed_metadata(cluster, [topic])
    if v is None or v.topic_errors.get(topic) != 0:
        return None
    parts = v.topic(topic)
    if not parts or any(p.error != 0 or p.leader not in live for p in parts.values()):
        return None
    return parts


def fully_in_sync(cluster: Cluster, topic: str) -> bool:
    parts = view_of(cluster, topic)
    return bool(parts) and all(len(p.isr) == 3 for p in parts.values())


class BackgroundProducer:
    """An idempotent acks=all producer writing unique values to partitions 0 and 1."""

    def __init__(self, bootstrap: str) -> None:
        self.producer = confluent_kafka.Producer(
            {
                "bootstrap.servers": bootstrap,
                "acks": "all",
                "enable.idempotence": True,
                "linger.ms": 5,
                "batch.size": 2000,
                "message.timeout.ms": 300000,
                "retry.backoff.ms": 100,
            }
        )
        self.acked: list[tuple[int, int, bytes]] = []
        self.errors: list[Any] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.n = 0

    def _report(self, err: Any, msg: Any) -> None:
        if err is not None:
            self.errors.append(err)
        else:
            self.acked.append((msg.partition(), msg.offset(), msg.value()))

    def _run(self) -> None:
        while not self._stop.is_set():
            for _ in range(20):
                self.producer.produce(
                    TOPIC, value=b"v%08d" % self.n, partition=self.n % 2, on_delivery=self._report
                )
                self.n += 1
            self.producer.poll(0.02)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        assert self.producer.flush(240) == 0
        assert not self.errors, self.errors[:5]


def consume_all(bootstrap: str, topic: str, partitions: int) -> list[tuple[int, int, bytes]]:
    """Every record a read_committed Kafka consumer reads, (partition, offset, value), sorted."""
    consumer = confluent_kafka.Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"truth-{topic}",
            "enable.auto.commit": False,
            "isolation.level": "read_committed",
        }
    )
    ends = {
        p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=30)[1] for p in range(partitions)
    }
    consumer.assign([TopicPartition(topic, p, confluent_kafka.OFFSET_BEGINNING) for p in ends])
    got: list[tuple[int, int, bytes]] = []
    done: set[int] = set()
    position: dict[int, int] = {}
    deadline = time.monotonic() + 120
    while len(done) < len(ends) and time.monotonic() < deadline:
        msg = consumer.poll(0.5)
        for p in ends:
            pos = consumer.position([TopicPartition(topic, p)])[0].offset
            if pos >= ends[p] or (p in position and position[p] >= ends[p] - 1):
                done.add(p)
        if msg is None or msg.error():
            continue
        got.append((msg.partition(), msg.offset(), msg.value()))
        position[msg.partition()] = msg.offset()
    consumer.close()
    assert len(done) == len(ends), (done, ends)
    return sorted(got)


def run_failures(base: Path) -> dict[str, Any]:
    """Run the scenario in ``base``; the log dirs, ground truths and who was killed."""
    cluster = Cluster(3, zookeeper=True, mode="subprocess", overrides=OVERRIDES, base_dir=base)
    cluster.start()
    try:
        wait_until(
            lambda: (v := agreed_metadata(cluster)) is not None and v.controller >= 0 and len(v.brokers) == 3,
            "the brokers agreeing",
            90,
        )
        admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
        cfg = {"min.insync.replicas": "2", "segment.bytes": "32768"}
        topics = [NewTopic(TOPIC, 2, 3, config=cfg), NewTopic(TXN_TOPIC, 1, 3, config=cfg)]
        topics.append(NewTopic(BEHIND, 1, 3, config=cfg))
        for f in admin.create_topics(topics, operation_timeout=30).values():
            f.result(60)
        wait_until(
            lambda: fully_in_sync(cluster, TOPIC) and fully_in_sync(cluster, TXN_TOPIC), "topics ready", 90
        )

        producer = BackgroundProducer(cluster.bootstrap)
        producer.start()
        for n in range(3):
            wait_until(lambda n=n: len(producer.acked) > 300 * (n + 1), "records acknowledged", 90)
            leader = view_of(cluster, TOPIC)[0].leader
            cluster.kill(leader)
            wait_until(
                lambda leader=leader: (p := view_of(cluster, TOPIC)) and p[0].leader != leader,
                "a new leader of partition 0",
                90,
            )
            acked = len(producer.acked)
            wait_until(
                lambda acked=acked: len(producer.acked) > acked + 200,
                "records acknowledged by the new leader",
                90,
            )
            cluster.start_broker(leader)
            wait_until(lambda: fully_in_sync(cluster, TOPIC), "partitions back in sync", 120)
        producer.stop()

        # A follower of "behind" falls behind the leader's log start: SIGKILLed, records
        # produced and deleted (DeleteRecords) past its log end, then restarted (it must
        # truncate fully and start at the leader's log start offset).
        plain = confluent_kafka.Producer(
            {
                "bootstrap.servers": cluster.bootstrap,
                "acks": "all",
                "enable.idempotence": True,
                "batch.size": 2000,
            }
        )

        def produce_behind(lo: int, hi: int) -> None:
            for n in range(lo, hi):
                plain.produce(BEHIND, value=b"b%08d" % n, partition=0)
                plain.poll(0)
            assert plain.flush(120) == 0

        produce_behind(0, 500)
        view = view_of(cluster, BEHIND)[0]
        follower = next(r for r in view.replicas if r != view.leader)
        cluster.kill(follower)
        wait_until(
            lambda: (p := view_of(cluster, BEHIND)) and follower not in p[0].isr, "the ISR shrinking", 90
        )
        produce_behind(500, 4500)
        for f in admin.delete_records([TopicPartition(BEHIND, 0, 4000)], operation_timeout=30).values():
            f.result(60)
        cluster.start_broker(follower)
        wait_until(lambda: fully_in_sync(cluster, BEHIND), "the follower back in sync", 120)
        produce_behind(4500, 4600)
        behind_truth = consume_all(cluster.bootstrap, BEHIND, 1)
        assert [o for _p, o, _v in behind_truth] == list(range(4000, 4600))

        # A transactional producer: committed, aborted, committed, aborted, committed.
        txp = confluent_kafka.Producer(
            {"bootstrap.servers": cluster.bootstrap, "transactional.id": "review-tx", "acks": "all"}
        )
        txp.init_transactions(60)
        for n, commit in enumerate([True, False, True, False, True]):
            txp.begin_transaction()
            for j in range(30):
                txp.produce(TXN_TOPIC, value=b"t%d-%d-%s" % (n, j, b"c" if commit else b"a"), partition=0)
            assert txp.flush(60) == 0  # abort_transaction would purge what is still queued
            if commit:
                txp.commit_transaction(60)
            else:
                txp.abort_transaction(60)
        assert txp.flush(60) == 0

        ends = {p: max(o for q, o, _v in producer.acked if q == p) + 1 for p in (0, 1)}
        wait_until(
            lambda: all(
                OffsetCheckpointFile(cluster.log_dir(i) / HIGH_WATERMARK_CHECKPOINT).read().get((TOPIC, p))
                == ends[p]
                for i in range(cluster.n)
                for p in (0, 1)
            ),
            "every broker checkpointing the final high watermarks",
            90,
        )
        for f in admin.delete_records(
            [TopicPartition(TOPIC, 1, DELETED_BEFORE)], operation_timeout=30
        ).values():
            f.result(60)
        truth = consume_all(cluster.bootstrap, TOPIC, 2)
        txn_truth = consume_all(cluster.bootstrap, TXN_TOPIC, 1)
        acked = sorted(producer.acked)

        # The last failure: the leader of partition 0 is SIGKILLed and not restarted, the other
        # two stop cleanly (checkpointing their high watermarks).
        last = view_of(cluster, TOPIC)[0].leader
        cluster.kill(last)
        wait_until(
            lambda: (p := view_of(cluster, TOPIC)) and p[0].leader != last, "a leader after the last kill", 90
        )
        for i in range(cluster.n):
            if cluster.alive(i):
                cluster.stop(i)
        dirs = [cluster.log_dir(i) for i in range(cluster.n)]
    finally:
        cluster.close()
    return {
        "dirs": dirs,
        "truth": truth,
        "acked": acked,
        "txn_truth": txn_truth,
        "killed": last,
        "behind_truth": behind_truth,
        "behind_follower": follower,
    }
