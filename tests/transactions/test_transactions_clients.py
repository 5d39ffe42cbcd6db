"""Transactions with real clients against one broker (issue 14's done-when points).

- Java: commit and abort interleaved, a read_committed consumer sees exactly the committed
  records in order and a read_uncommitted one all of them; consume-transform-produce with
  ``sendOffsetsToTransaction`` (aborts included) moves every record exactly once, checked by
  an independent reader (kafka-python's record parser on the segment files) of both logs and
  of the group's committed offsets in ``__consumer_offsets``; a second producer with the same
  transactional id fences the first.
- confluent-kafka, kafka-python and aiokafka: the same commit/abort/read_committed check
  with each client's own transaction API.
- kill -9 with open transactions: after the restart the coordinator aborts them when their
  timeout passes, read_committed consumers get past them and never see their records.
"""

from __future__ import annotations

import asyncio
import struct
import time
import uuid
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic
from kafka.record import MemoryRecords

from tests.support.broker_process import BrokerProcess
from tests.support.java_client import JavaClient, require_java
from tests.transactions.txn_logs import (
    ABORT,
    check_txn_indexes_rebuilt,
    markers,
    wait_for_state,
)

pytestmark = pytest.mark.integration

TIMEOUT_S = 60
# The consume-transform-produce run: the 100,000 records (about 10 s here).
EOS_RECORDS = 100_000


@pytest.fixture(scope="module")
def txn_broker(tmp_path_factory: pytest.TempPathFactory):
    b = BrokerProcess(
        tmp_path_factory.mktemp("txn-broker") / "data",
        {
            "num.partitions": "3",
            "transaction.state.log.num.partitions": "5",
            "offsets.topic.num.partitions": "5",
            "group.initial.rebalance.delay.ms": "0",
        },
    )
    b.start()
    yield b
    if b.alive():
        b.stop()


def create_topic(bootstrap: str, name: str, partitions: int = 3) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(name, partitions, 1)])[name].result(TIMEOUT_S)


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def consume_all(bootstrap: str, topic: str, isolation: str, expect: int, idle_s: float = 3.0) -> list[Any]:
    """(partition, offset, value) read with confluent-kafka until ``expect`` records and
    then ``idle_s`` of nothing more (so extra records would be seen)."""
    c = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": unique("reader"),
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "isolation.level": isolation,
        }
    )
    c.subscribe([topic])

    def poll() -> Seen:
        m = c.poll(0.2)
        if m is None or m.error():
            return []
        return [(m.partition(), m.offset(), m.value().decode())]

    try:
        return read_until_idle(poll, expect, idle_s)
    finally:
        c.close()


Seen = list[tuple[int, int, str]]  # (partition, offset, value) in the order consumed


def read_until_idle(poll: Callable[[], Seen], expect: int, idle_s: float) -> Seen:
    """Call ``poll`` (records got within about 0.2 s, maybe none) until at least ``expect``
    records came, then ``idle_s`` of nothing more (so extra records would be seen), or
    ``TIMEOUT_S`` passed."""
    out: Seen = []
    deadline = time.monotonic() + TIMEOUT_S
    last_new = time.monotonic()
    while time.monotonic() < deadline:
        got = poll()
        if got:
            out.extend(got)
            last_new = time.monotonic()
        elif len(out) >= expect and time.monotonic() - last_new > idle_s:
            break
    return out


def kafka_python_consume_all(
    bootstrap: str, topic: str, isolation: str, expect: int, idle_s: float = 3.0
) -> Seen:
    """As :func:`consume_all`, with kafka-python's consumer (its own ``isolation_level``)."""
    from kafka import KafkaConsumer

    c = KafkaConsumer(
        topic,
        bootstrap_servers=bootstrap,
        isolation_level=isolation,
        auto_offset_reset="earliest",
        enable_auto_commit=False,
    )

    def poll() -> Seen:
        polled = c.poll(timeout_ms=200)
        return [(r.partition, r.offset, r.value.decode()) for rs in polled.values() for r in rs]

    try:
        return read_until_idle(poll, expect, idle_s)
    finally:
        c.close()


def aiokafka_consume_all(
    bootstrap: str, topic: str, isolation: str, expect: int, idle_s: float = 3.0
) -> Seen:
    """As :func:`consume_all`, with aiokafka's consumer (its own ``isolation_level``)."""
    from aiokafka import AIOKafkaConsumer

    async def start() -> AIOKafkaConsumer:
        c = AIOKafkaConsumer(
            topic,
            bootstrap_servers=bootstrap,
            isolation_level=isolation,
            auto_offset_reset="earliest",
            enable_auto_commit=False,
        )
        await c.start()
        return c

    with asyncio.Runner() as runner:  # one loop for the consumer, driven poll by poll
        c = runner.run(start())

        def poll() -> Seen:
            polled = runner.run(c.getmany(timeout_ms=200))
            return [(r.partition, r.offset, r.value.decode()) for rs in polled.values() for r in rs]

        try:
            return read_until_idle(poll, expect, idle_s)
        finally:
            runner.run(c.stop())


def assert_in_send_order(
    seen: Seen, sent: list[str], partition_of: Callable[[str], int] | None = None
) -> None:
    """``seen`` holds exactly the ``sent`` values, and per partition they arrived in the order
    they were sent (``sent`` is in send order; one producer, so a partition's records are in
    its send order). ``partition_of`` is the partition each value was sent to; without it the
    partition each value arrived in is taken, and checked to be the same for all values of
    one key (the value's text after its last ``-``)."""
    assert sorted(v for _, _, v in seen) == sorted(sent)
    arrived = {v: p for p, _, v in seen}
    if partition_of is None:
        by_key: dict[str, set[int]] = defaultdict(set)
        for v, p in arrived.items():
            by_key[v.rsplit("-", 1)[1]].add(p)
        assert all(len(ps) == 1 for ps in by_key.values()), by_key
    else:
        assert arrived == {v: partition_of(v) for v in sent}
    by_partition: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for p, o, v in seen:
        by_partition[p].append((o, v))
    for p, records in by_partition.items():
        assert [v for _, v in records] == [v for v in sent if arrived[v] == p], f"partition {p}"
        offsets = [o for o, _ in records]
        assert offsets == sorted(offsets) and len(set(offsets)) == len(offsets)


def check_committed_view(
    bootstrap: str,
    topic: str,
    committed: list[str],
    aborted: list[str],
    partition_of: Callable[[str], int] | None = None,
    consume: Callable[[str, str, str, int], Seen] = consume_all,
) -> None:
    """A read_committed consumer sees exactly the committed values, per partition in send
    order; a read_uncommitted one sees every value written (aborted ones too)."""
    rc = consume(bootstrap, topic, "read_committed", len(committed))
    assert_in_send_order(rc, committed, partition_of)
    ru = consume(bootstrap, topic, "read_uncommitted", len(committed) + len(aborted))
    assert sorted(v for _, _, v in ru) == sorted(committed + aborted)


def by_sequence(value: str) -> int:
    """The partition of a ``<client><txn>-<j>`` value: its sequence number ``j`` modulo 3."""
    return int(value.rsplit("-", 1)[1]) % 3


# ---------------------------------------------------------------------- independent reader


def read_log(log_dir: Path, topic: str, partition: int) -> list[tuple[int, bytes | None, bytes | None]]:
    """Committed data records of a partition read from its segment files with kafka-python's
    parser: transactional records count at their producer's COMMIT marker, go at ABORT."""
    out: list[tuple[int, bytes | None, bytes | None]] = []
    pending: dict[int, list[tuple[int, bytes | None, bytes | None]]] = defaultdict(list)
    for segment in sorted((log_dir / f"{topic}-{partition}").glob("*.log")):
        records = MemoryRecords(segment.read_bytes())
        while records.has_next():
            batch = records.next_batch()
            assert batch.validate_crc()
            if batch.is_control_batch:
                marker = next(iter(batch))
                _version, kind = struct.unpack(">hh", marker.key[:4])
                done = pending.pop(batch.producer_id, [])
                if kind == 1:  # COMMIT
                    out.extend(done)
                continue
            recs = [(r.offset, r.key, r.value) for r in batch]
            if batch.is_transactional:
                pending[batch.producer_id].extend(recs)
            else:
                out.extend(recs)
    return out


def committed_offsets(log_dir: Path, group: str) -> dict[tuple[str, int], int]:
    """The group's committed offsets from ``__consumer_offsets``' segment files (OffsetCommitKey
    v0/v1, OffsetCommitValue: int16 version, int64 offset), transactions resolved."""
    offsets: dict[tuple[str, int], int] = {}
    for d in sorted(log_dir.glob("__consumer_offsets-*")):
        partition = int(d.name.rsplit("-", 1)[1])
        for _, key, value in sorted(read_log(log_dir, "__consumer_offsets", partition)):
            if key is None:
                continue
            (version,) = struct.unpack_from(">h", key)
            if version not in (0, 1):
                continue
            pos = 2
            (glen,) = struct.unpack_from(">h", key, pos)
            g = key[pos + 2 : pos + 2 + glen].decode()
            pos += 2 + glen
            (tlen,) = struct.unpack_from(">h", key, pos)
            t = key[pos + 2 : pos + 2 + tlen].decode()
            pos += 2 + tlen
            (p,) = struct.unpack_from(">i", key, pos)
            if g != group:
                continue
            if value is None:
                offsets.pop((t, p), None)
            else:
                offsets[(t, p)] = struct.unpack_from(">q", value, 2)[0]
    return offsets


def wait_until(condition: Callable[[], Any], what: str, timeout: float = TIMEOUT_S) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if result:
            return result
        assert time.monotonic() < deadline, f"no {what} within {timeout} s"
        time.sleep(0.1)


# ---------------------------------------------------------------------- Java


def test_java_commit_and_abort_interleaved(txn_broker):
    require_java()
    topic = unique("java-txn")
    create_topic(txn_broker.bootstrap, topic)
    java = JavaClient(txn_broker.bootstrap)
    result = java.run(
        "txn-produce",
        "--topic",
        topic,
        "--transactional-id",
        unique("jtx"),
        "--transactions",
        "12",
        "--records-per-txn",
        "6",
        "--abort-every",
        "3",
    ).last
    assert len(result["committed"]) == 48 and len(result["aborted"]) == 24
    check_committed_view(txn_broker.bootstrap, topic, result["committed"], result["aborted"])
    # the Java consumer too, read_committed
    rc = java.consume(
        topic,
        assign="all",
        expect=48,
        timeout_ms=30_000,
        properties={"isolation.level": "read_committed"},
    )
    seen = [(r["p"], r["o"], r["v"]) for r in rc.records()]
    assert_in_send_order(seen, result["committed"])


def test_java_second_producer_fences_the_first(txn_broker):
    require_java()
    topic = unique("java-fence")
    create_topic(txn_broker.bootstrap, topic, 1)
    r = (
        JavaClient(txn_broker.bootstrap)
        .run("txn-fence", "--topic", topic, "--transactional-id", unique("fence"))
        .last
    )
    assert r["fenced_error"] in ("ProducerFencedException", "InvalidProducerEpochException"), r
    assert [v for _, _, v in consume_all(txn_broker.bootstrap, topic, "read_committed", 1)] == ["winner"]


def test_java_consume_transform_produce_exactly_once(txn_broker):
    require_java()
    source, sink, group = unique("eos-in"), unique("eos-out"), unique("eos-group")
    create_topic(txn_broker.bootstrap, source)
    create_topic(txn_broker.bootstrap, sink)
    p = Producer({"bootstrap.servers": txn_broker.bootstrap, "enable.idempotence": True, "linger.ms": 20})
    for i in range(EOS_RECORDS):
        p.produce(source, key=str(i % 97).encode(), value=f"r{i}".encode())
        if i % 5000 == 0:
            p.poll(0)
    assert p.flush(TIMEOUT_S) == 0
    started = time.monotonic()
    r = (
        JavaClient(txn_broker.bootstrap)
        .run(
            "txn-copy",
            "--input",
            source,
            "--output",
            sink,
            "--group",
            group,
            "--transactional-id",
            unique("copier"),
            "--expect",
            str(EOS_RECORDS),
            "--abort-every",
            "7",
            "--timeout-ms",
            "120000",
            timeout=200,
        )
        .last
    )
    assert r["copied"] == EOS_RECORDS and r["aborts"] > 0, r
    print(f"the copy took {time.monotonic() - started:.0f} s")  # the run's timeout bounds it

    log_dir = txn_broker.log_dir

    def complete() -> bool:
        # the last commit's markers land just after EndTxn answers
        return sum(len(read_log(log_dir, sink, q)) for q in range(3)) == EOS_RECORDS

    wait_until(complete, "every copied record committed in the output log")
    for q in range(3):
        inputs = read_log(log_dir, source, q)
        outputs = read_log(log_dir, sink, q)
        # exactly once, in order: the output partition is the input partition's values, copied
        assert [v for _, _, v in outputs] == [b"copied:" + v for _, _, v in inputs]
        assert [k for _, k, _ in outputs] == [k for _, k, _ in inputs]
    ends = {(source, q): max(o for o, _, _ in read_log(log_dir, source, q)) + 1 for q in range(3)}
    assert wait_until(lambda: committed_offsets(log_dir, group) == ends or None, "the committed offsets")


# ---------------------------------------------------------------------- other clients


def test_confluent_kafka_transactions(txn_broker):
    topic = unique("ck-txn")
    create_topic(txn_broker.bootstrap, topic)
    p = Producer({"bootstrap.servers": txn_broker.bootstrap, "transactional.id": unique("ck")})
    p.init_transactions(TIMEOUT_S)
    committed, aborted = [], []
    for i in range(8):
        p.begin_transaction()
        values = [f"ck{i}-{j}" for j in range(5)]
        for j, v in enumerate(values):
            p.produce(topic, partition=by_sequence(v), key=str(j % 3).encode(), value=v.encode())
        if i % 2:
            p.flush(TIMEOUT_S)  # written, then aborted (unflushed records are just purged)
            p.abort_transaction(TIMEOUT_S)
            aborted += values
        else:
            p.commit_transaction(TIMEOUT_S)
            committed += values
    check_committed_view(txn_broker.bootstrap, topic, committed, aborted, by_sequence)


def test_kafka_python_transactions(txn_broker):
    from kafka import KafkaProducer

    topic = unique("kp-txn")
    create_topic(txn_broker.bootstrap, topic)
    p = KafkaProducer(bootstrap_servers=txn_broker.bootstrap, transactional_id=unique("kp"))
    p.init_transactions()
    committed, aborted = [], []
    for i in range(6):
        p.begin_transaction()
        values = [f"kp{i}-{j}" for j in range(6)]
        for j, v in enumerate(values):
            p.send(topic, partition=by_sequence(v), key=str(j % 3).encode(), value=v.encode())
        if i % 3 == 2:
            p.flush()
            p.abort_transaction()
            aborted += values
        else:
            p.commit_transaction()
            committed += values
    p.close()
    check_committed_view(
        txn_broker.bootstrap, topic, committed, aborted, by_sequence, kafka_python_consume_all
    )


def test_aiokafka_transactions(txn_broker):
    from aiokafka import AIOKafkaProducer

    topic = unique("aio-txn")
    create_topic(txn_broker.bootstrap, topic)
    committed, aborted = [], []

    async def produce() -> None:
        p = AIOKafkaProducer(bootstrap_servers=txn_broker.bootstrap, transactional_id=unique("aio"))
        await p.start()
        try:
            for i in range(6):
                values = [f"aio{i}-{j}" for j in range(6)]
                if i % 2:
                    await p.begin_transaction()
                    for j, v in enumerate(values):
                        await p.send_and_wait(
                            topic, partition=by_sequence(v), key=str(j % 3).encode(), value=v.encode()
                        )
                    await p.abort_transaction()
                    aborted.extend(values)
                else:
                    async with p.transaction():
                        for j, v in enumerate(values):
                            await p.send(
                                topic, partition=by_sequence(v), key=str(j % 3).encode(), value=v.encode()
                            )
                    committed.extend(values)
        finally:
            await p.stop()

    asyncio.run(produce())
    check_committed_view(txn_broker.bootstrap, topic, committed, aborted, by_sequence, aiokafka_consume_all)


# ---------------------------------------------------------------------- kill -9


def test_kill_9_with_open_transactions(broker_factory):
    b = broker_factory(
        {
            "transaction.state.log.num.partitions": "3",
            "offsets.topic.num.partitions": "3",
            "transaction.abort.timed.out.transaction.cleanup.interval.ms": "500",
            "group.initial.rebalance.delay.ms": "0",
        }
    )
    topic = unique("crash")
    create_topic(b.bootstrap, topic)
    done = Producer({"bootstrap.servers": b.bootstrap, "transactional.id": "crash-done"})
    done.init_transactions(TIMEOUT_S)
    done.begin_transaction()
    for i in range(10):
        done.produce(topic, key=str(i).encode(), value=f"committed-{i}".encode())
    done.commit_transaction(TIMEOUT_S)
    open_producers = []
    for n in range(2):
        p = Producer(
            {
                "bootstrap.servers": b.bootstrap,
                "transactional.id": f"crash-open-{n}",
                "transaction.timeout.ms": 5000,
            }
        )
        p.init_transactions(TIMEOUT_S)
        p.begin_transaction()
        for i in range(10):  # every partition in both open transactions
            p.produce(topic, partition=i % 3, key=str(i).encode(), value=f"open-{n}-{i}".encode())
        assert p.flush(TIMEOUT_S) == 0  # in the log, uncommitted
        open_producers.append(p)
    b.restart(clean=False)  # kill -9
    # after the restart the coordinator aborts both on timeout: an ABORT marker of each open
    # producer in each partition, and each aborted transaction in the partition's .txnindex
    open_pids = [wait_for_state(b.bootstrap, f"crash-open-{n}", "CompleteAbort") for n in range(2)]
    for q in range(3):
        wait_until(
            lambda q=q: all((pid, ABORT) in markers(b.log_dir, topic, q) for pid in open_pids),
            f"the ABORT markers in partition {q}",
        )
    # read_committed gets past them
    later = Producer({"bootstrap.servers": b.bootstrap, "transactional.id": "crash-done"})
    later.init_transactions(TIMEOUT_S)
    later.begin_transaction()
    later.produce(topic, key=b"x", value=b"after-restart")
    later.commit_transaction(TIMEOUT_S)
    seen = consume_all(b.bootstrap, topic, "read_committed", 11)
    values = sorted(v for _, _, v in seen)
    assert values == sorted([f"committed-{i}" for i in range(10)] + ["after-restart"])
    everything = consume_all(b.bootstrap, topic, "read_uncommitted", 31)
    assert len(everything) == 31
    assert len(open_producers) == 2  # kept alive (never closed) until here

    indexes = check_txn_indexes_rebuilt(b, topic, 3)
    for q in range(3):  # both aborted transactions, in one .txnindex per partition
        assert sorted(pid for pid, kind in markers(b.log_dir, topic, q) if kind == ABORT) == sorted(open_pids)
        assert len(indexes[q]) == 1 and len(next(iter(indexes[q].values()))) == 2 * 34


def test_confluent_kafka_send_offsets_to_transaction(txn_broker):
    """librdkafka's consume-transform-produce: AddOffsetsToTxn and TxnOffsetCommit through its
    group coordinator lookup; an aborted round rewinds, the committed offsets match the copy."""
    from confluent_kafka import TopicPartition

    source, sink, group = unique("ck-in"), unique("ck-out"), unique("ck-group")
    create_topic(txn_broker.bootstrap, source, 1)
    create_topic(txn_broker.bootstrap, sink, 1)
    p = Producer({"bootstrap.servers": txn_broker.bootstrap})
    for i in range(300):
        p.produce(source, value=f"s{i}".encode())
    assert p.flush(TIMEOUT_S) == 0
    consumer = Consumer(
        {
            "bootstrap.servers": txn_broker.bootstrap,
            "group.id": group,
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "isolation.level": "read_committed",
        }
    )
    consumer.subscribe([source])
    producer = Producer({"bootstrap.servers": txn_broker.bootstrap, "transactional.id": unique("ck-eos")})
    producer.init_transactions(TIMEOUT_S)
    copied, rounds = 0, 0
    deadline = time.monotonic() + TIMEOUT_S
    try:
        while copied < 300 and time.monotonic() < deadline:
            batch = [m for m in consumer.consume(100, 0.5) if not m.error()]
            if not batch:
                continue
            rounds += 1
            producer.begin_transaction()
            for m in batch:
                producer.produce(sink, value=b"copied:" + m.value())
            positions = [TopicPartition(source, 0, batch[-1].offset() + 1)]
            producer.send_offsets_to_transaction(positions, consumer.consumer_group_metadata(), TIMEOUT_S)
            if rounds == 2:
                producer.abort_transaction(TIMEOUT_S)
                consumer.seek(TopicPartition(source, 0, batch[0].offset()))
            else:
                producer.commit_transaction(TIMEOUT_S)
                copied += len(batch)
    finally:
        consumer.close()
    assert copied == 300 and rounds > 2
    out = consume_all(txn_broker.bootstrap, sink, "read_committed", 300)
    assert sorted(v for _, _, v in out) == sorted(f"copied:s{i}" for i in range(300))
    assert wait_until(
        lambda: committed_offsets(txn_broker.log_dir, group) == {(source, 0): 300} or None, "offsets"
    )
