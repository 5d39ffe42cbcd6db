"""Incremental fetch sessions (KIP-227) with real consumers, watched on the wire.

The Java consumer opens a session per broker and then sends incremental fetches; the
broker's answers leave out unchanged partitions. A broker restart, or the eviction of its
session by a follower's (privileged) one, sends it back to full fetches without losing or
repeating a record. librdkafka (2.16) sends sessionless fetches (epoch -1) at Fetch v12: it
must get every partition it names and never take a session slot.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from protocol.errors import ErrorCode
from protocol.messages import ApiKey, FetchRequest
from tests.support.cluster import Cluster, cluster_factory
from tests.support.interception import InterceptedRequest, Transform
from tests.support.java_client import JavaClient, check_exactly_once, consume_args, produce_args, require_java
from tests.support.wire_client import WireClient

pytestmark = pytest.mark.integration
__all__ = ["cluster_factory"]  # the fixture

TOPICS = ("fs-a", "fs-b")
PARTITIONS = 40  # per topic
COUNT = 1500  # records per produce round and topic


@dataclass
class SeenFetch:
    session_id: int
    epoch: int
    named: int  # partitions named by the request
    forgotten: int
    answered_session: int = -1
    error: int = -1
    answered: int = -1  # partitions in the answer


@dataclass
class FetchLog:
    """Every client fetch a broker got, with what it answered."""

    fetches: list[SeenFetch] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def control(self, r: InterceptedRequest) -> Transform | None:
        if r.source_broker is not None:
            return None
        req = r.request
        seen = SeenFetch(
            req.session_id,
            req.session_epoch,
            sum(len(t.partitions) for t in req.topics),
            sum(len(t.partitions) for t in req.forgotten_topics_data or ()),
        )
        with self.lock:
            self.fetches.append(seen)

        def answered(resp):
            seen.answered_session = resp.session_id
            seen.error = resp.error_code
            seen.answered = sum(len(t.partitions) for t in resp.responses)
            return resp

        return Transform(answered)

    def since(self, start: int) -> list[SeenFetch]:
        with self.lock:
            return [f for f in self.fetches[start:] if f.error != -1]

    def __len__(self) -> int:
        with self.lock:
            return len(self.fetches)


def wait_until(condition: Callable[[], object], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"no {what} within {timeout} s"
        time.sleep(0.05)


def create_topics(cluster: Cluster) -> None:
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": cluster.address(0)})
    for f in admin.create_topics([NewTopic(t, PARTITIONS, 1) for t in TOPICS]).values():
        f.result(30)


def incremental(fetches: list[SeenFetch]) -> list[SeenFetch]:
    return [f for f in fetches if f.session_id > 0 and f.epoch > 0 and f.error == 0]


@pytest.mark.java
def test_java_consumer_fetches_incrementally_and_falls_back_to_full_fetches(cluster_factory):
    require_java()
    cluster = cluster_factory(1, overrides={"max.incremental.fetch.session.cache.slots": "1"})
    create_topics(cluster)
    log = FetchLog()
    cluster.control(0, ApiKey.FETCH, log.control, keep=True)
    client = JavaClient(cluster.address(0))
    with client.session() as producer:
        _consume_through_eviction_and_restart(cluster, client, producer, log)


def _consume_through_eviction_and_restart(
    cluster: Cluster, client: JavaClient, producer: JavaClient, log: FetchLog
) -> None:
    def produce(instance: str) -> None:
        for topic in TOPICS:
            args = produce_args(topic=topic, count=COUNT, keys=200, instance=f"{instance}-{topic}")
            producer.run("produce", *args)

    produce("r1")
    args = consume_args(topic=",".join(TOPICS), assign="all", expect=3 * 2 * COUNT, timeout_ms=90_000)
    with client.start("consume", *args) as consumer:

        def consumed() -> int:
            return sum(1 for line in list(consumer.lines) if "o" in line)

        wait_until(lambda: consumed() >= 2 * COUNT, "the first round")
        # Caught up: incremental fetches that name nothing and are answered with nothing.
        wait_until(
            lambda: any(f.named == 0 and f.answered == 0 for f in incremental(log.since(0))), "idle fetches"
        )
        first = log.since(0)
        full = [f for f in first if f.epoch == 0]
        assert full and full[0].named == 2 * PARTITIONS and full[0].answered_session > 0
        inc = incremental(first)
        assert inc and all(f.session_id == full[0].answered_session for f in inc)
        # Incremental answers leave partitions out; requests name only partitions that moved.
        assert any(0 < f.answered < 2 * PARTITIONS for f in inc) or any(f.answered == 0 for f in inc)
        assert all(f.named < 2 * PARTITIONS for f in inc)

        # A follower's (privileged) full fetch takes the only slot: the consumer's session is
        # evicted, its next incremental fetch is refused, and it fetches in full.
        mark = len(log)
        with WireClient("127.0.0.1", cluster.port(0)) as follower:
            req = FetchRequest(
                replica_id=7,
                max_wait_ms=0,
                min_bytes=0,
                max_bytes=1 << 20,
                session_id=0,
                session_epoch=0,
                topics=[
                    FetchRequest.FetchTopic(
                        topic=TOPICS[0],
                        partitions=[
                            FetchRequest.FetchPartition(partition=0, fetch_offset=0, partition_max_bytes=100)
                        ],
                    )
                ],
                forgotten_topics_data=[],
            )
            evictor = follower.request(req, 12).session_id
        assert evictor > 0
        assert cluster.run(lambda: cluster.broker(0).fetch_manager.cache.evictions) == 1
        produce("r2")
        wait_until(lambda: consumed() >= 4 * COUNT, "the second round")
        after_eviction = log.since(mark)
        assert any(f.error == ErrorCode.FETCH_SESSION_ID_NOT_FOUND.code for f in after_eviction)
        # The slot is the follower's: the consumer's full fetches now get no session.
        assert any(f.epoch == 0 and f.answered_session == 0 for f in after_eviction)

        # A restart forgets every session: the consumer goes back to a full fetch, then
        # (the slot free again) to a new session and incremental fetches.
        mark = len(log)
        cluster.restart(0)
        wait_until(lambda: incremental(log.since(mark)), "incremental fetches after the restart")
        after_restart = log.since(mark)
        new_full = [f for f in after_restart if f.epoch == 0 and f.answered_session > 0]
        # The Java consumer names in a fetch only the partitions fetchable at that moment
        # (AbstractFetch.fetchablePartitions): after the reconnect some may still wait (seen:
        # 16 of 40 in the first full fetch); the others join the new session incrementally.
        assert new_full and 0 < new_full[0].named <= 2 * PARTITIONS
        produce("r3")
        wait_until(lambda: consumed() >= 6 * COUNT, "the third round")
        # Every partition was fetched in the new session: named in its full fetch or added later.
        session = new_full[0].answered_session
        in_session = [f for f in log.since(mark) if f.session_id == session and f.error == 0]
        assert new_full[0].named + sum(f.named for f in in_session) >= 2 * PARTITIONS
        result = consumer.wait()
    records = [(r["t"], r["p"], r["o"], r["v"]) for r in result.records()]
    assert len({(t, p, o) for t, p, o, _ in records}) == len(records) == 6 * COUNT
    for topic in TOPICS:
        report = check_exactly_once(
            [(p, o, v) for t, p, o, v in records if t == topic],
            {f"{rnd}-{topic}": (COUNT, 200) for rnd in ("r1", "r2", "r3")},
        )
        assert report.ok, report


def test_librdkafka_fetches_sessionless_and_reads_every_partition(cluster_factory):
    from confluent_kafka import Consumer, Producer, TopicPartition

    cluster = cluster_factory(1)
    create_topics(cluster)
    log = FetchLog()
    cluster.control(0, ApiKey.FETCH, log.control, keep=True)
    producer = Producer({"bootstrap.servers": cluster.address(0), "linger.ms": 5})
    expected = set()
    for topic in TOPICS:
        for i in range(COUNT):
            value = f"{topic}-{i}".encode()
            producer.produce(topic, value, partition=i % PARTITIONS)
            expected.add(value)
    assert producer.flush(30) == 0
    consumer = Consumer(
        {"bootstrap.servers": cluster.address(0), "group.id": "fs-rdkafka", "fetch.wait.max.ms": 100}
    )
    try:
        consumer.assign([TopicPartition(t, p, 0) for t in TOPICS for p in range(PARTITIONS)])
        got: list[tuple[str, int, int, bytes]] = []
        deadline = time.monotonic() + 60
        while len(got) < len(expected) and time.monotonic() < deadline:
            msg = consumer.poll(0.2)
            if msg is not None and msg.error() is None:
                got.append((msg.topic(), msg.partition(), msg.offset(), msg.value()))
    finally:
        consumer.close()
    assert len(got) == len({(t, p, o) for t, p, o, _ in got}) == len(expected)
    assert {v for *_, v in got} == expected
    fetches = log.since(0)
    assert fetches and all(f.epoch == -1 and f.answered_session == 0 for f in fetches)
    assert all(f.answered == f.named for f in fetches if f.error == 0)
    assert cluster.run(lambda: len(cluster.broker(0).fetch_manager.cache)) == 0
