"""Idempotent produce with the real clients (issue 4, "Done when": real clients).

Java kafka-clients 4.3 (acks=all, max.in.flight 5), confluent-kafka (librdkafka 2.x),
kafka-python, aiokafka and kcat (librdkafka 2.0.2) produce keyed records with
``enable.idempotence`` to a 3-partition topic; every codec once with Java and once with
confluent-kafka. Afterwards the log, fetched on the wire and decoded with
``protocol.records``, must hold every record exactly once and in send order per partition;
the batches of each producer must carry unbroken sequences from 0, the batches must use the
codec asked for, and DescribeProducers (key 61) must show each producer with the epoch, last
sequence and last timestamp of its last batch.

Every client writes values in the Java driver's format (``m1|<instance>|<key index>|<seq>|``,
key ``k<key index>``, record n has key index n % keys and seq n // keys), so one checker
(``tests.support.java_client.check_exactly_once``) reads them all.

The helpers here (topic creation, reading and checking a log, one producer function per
Python client) are shared with the fault and DUPLICATE_SEQUENCE_NUMBER test modules.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from protocol.compression import BY_NAME as CODEC_IDS
from protocol.errors import ErrorCode
from protocol.messages import (
    CreateTopicsRequest,
    DescribeProducersRequest,
    FetchRequest,
    InitProducerIdRequest,
    ProduceRequest,
    ProduceResponse,
)
from protocol.record_batch import INT32_MAX, BatchHeader
from protocol.records import Record, build_batch, decode_all
from tests.support.broker_process import BrokerProcess
from tests.support.java_client import JavaClient, check_exactly_once, parse_value, require_java
from tests.support.kcat import Kcat, require_kcat
from tests.support.wire_client import WireClient

pytestmark = pytest.mark.integration

PARTITIONS = 3
KEYS = 16
CODECS = ("none", "gzip", "snappy", "lz4", "zstd")


# ---------------------------------------------------------------------------------- topics


def wire(b: BrokerProcess, client_id: str = "idempotence-test") -> WireClient:
    assert b.port is not None
    return WireClient(b.host, b.port, client_id=client_id)


def unique_topic(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def create_topic(
    b: BrokerProcess, name: str, partitions: int = PARTITIONS, configs: Mapping[str, str] | None = None
) -> None:
    """CreateTopics v4 on the wire; fails the test unless the topic is new."""
    topic = CreateTopicsRequest.CreatableTopic(
        name=name,
        num_partitions=partitions,
        replication_factor=1,
        configs=[
            CreateTopicsRequest.CreatableTopicConfig(name=k, value=v) for k, v in (configs or {}).items()
        ],
    )
    with wire(b) as c:
        resp = c.request(CreateTopicsRequest(topics=[topic], timeout_ms=10_000), 4)
    assert resp.topics[0].error_code == ErrorCode.NONE.code, resp


# ---------------------------------------------------------------------------------- the log


@dataclass(frozen=True)
class LogBatch:
    """One batch of a partition as the broker serves it."""

    partition: int
    header: BatchHeader
    records: list[Record]


def read_partition(b: BrokerProcess, topic: str, partition: int) -> list[LogBatch]:
    """Every batch of one partition from offset 0 to the high watermark (Fetch v12)."""
    out: list[LogBatch] = []
    offset = 0
    with wire(b, "log-reader") as c:
        while True:
            req = FetchRequest(
                max_wait_ms=0,
                min_bytes=0,
                max_bytes=8 * 1024 * 1024,
                topics=[
                    FetchRequest.FetchTopic(
                        topic=topic,
                        partitions=[
                            FetchRequest.FetchPartition(
                                partition=partition, fetch_offset=offset, partition_max_bytes=4 * 1024 * 1024
                            )
                        ],
                    )
                ],
            )
            p = c.request(req, 12).responses[0].partitions[0]
            assert p.error_code == ErrorCode.NONE.code, f"fetch {topic}-{partition}@{offset}: {p}"
            batches = decode_all(p.records or b"")
            for header, records in batches:
                if header.last_offset >= offset:
                    out.append(LogBatch(partition, header, records))
            if batches:
                offset = max(offset, batches[-1][0].next_offset)
            if offset >= p.high_watermark:
                return out
            assert batches, f"fetch {topic}-{partition}@{offset} returned nothing below {p.high_watermark}"


def read_log(b: BrokerProcess, topic: str, partitions: int = PARTITIONS) -> list[LogBatch]:
    return [batch for p in range(partitions) for batch in read_partition(b, topic, p)]


def log_records(batches: Sequence[LogBatch]) -> list[tuple[int, int, bytes | None]]:
    return [(batch.partition, r.offset, r.value) for batch in batches for r in batch.records]


def check_log(
    batches: Sequence[LogBatch],
    expected: Mapping[str, tuple[int, int]],
    *,
    epoch_bumps_allowed: bool = False,
) -> None:
    """Every record of every producer instance exactly once and in send order per partition,
    and each producer's batches in a partition numbered without a gap.

    ``expected`` maps instance -> (count, keys), as for ``check_exactly_once``. Within a
    partition, the records of one instance must appear in increasing send index
    (seq * keys + key index), a stronger check than the per-key order. Sequence numbers:
    the first batch of a producer id in a partition starts at 0, each next batch of the same
    epoch follows the last one (wrapping at 2^31-1), and a new epoch (only if
    ``epoch_bumps_allowed``) starts again at 0 (KIP-360).
    """
    report = check_exactly_once(log_records(batches), expected)
    assert report.ok, f"log is not exactly once: {report}"
    assert report.foreign == 0, f"{report.foreign} records not written by the test"

    last_index: dict[tuple[int, str], tuple[int, int]] = {}
    for partition, offset, value in sorted(log_records(batches)):
        pv = parse_value(value)
        assert pv is not None
        keys = expected[pv.instance][1]
        index = pv.seq * keys + int(pv.key) if keys > 0 else pv.seq
        prev = last_index.get((partition, pv.instance))
        assert prev is None or prev[0] < index, (
            f"partition {partition}: record {index} of {pv.instance} at offset {offset} after "
            f"record {prev[0]} at offset {prev[1]}"
        )
        last_index[(partition, pv.instance)] = (index, offset)

    last_batch: dict[tuple[int, int], BatchHeader] = {}
    for batch in sorted(batches, key=lambda x: (x.partition, x.header.base_offset)):
        h = batch.header
        assert h.producer_id >= 0, f"partition {batch.partition}: batch at {h.base_offset} has no producer id"
        prev_h = last_batch.get((batch.partition, h.producer_id))
        where = f"partition {batch.partition}, producer {h.producer_id}, offset {h.base_offset}"
        if prev_h is None:
            assert h.base_sequence == 0, f"{where}: first batch starts at sequence {h.base_sequence}"
        elif h.producer_epoch == prev_h.producer_epoch:
            expected_seq = 0 if prev_h.last_sequence == INT32_MAX else prev_h.last_sequence + 1
            assert h.base_sequence == expected_seq, (
                f"{where}: sequence {h.base_sequence} after {prev_h.last_sequence}"
            )
        else:
            assert epoch_bumps_allowed, f"{where}: epoch {prev_h.producer_epoch} -> {h.producer_epoch}"
            assert h.producer_epoch > prev_h.producer_epoch, f"{where}: epoch went down"
            assert h.base_sequence == 0, f"{where}: new epoch starts at sequence {h.base_sequence}"
        last_batch[(batch.partition, h.producer_id)] = h


def check_describe_producers(b: BrokerProcess, topic: str, batches: Sequence[LogBatch]) -> dict[int, Any]:
    """DescribeProducers shows, per partition, each producer id of the log with the epoch,
    last sequence and last timestamp of its last batch (no transaction); returns partition ->
    {producer id: ProducerState}."""
    expected: dict[int, dict[int, BatchHeader]] = defaultdict(dict)
    for batch in sorted(batches, key=lambda x: (x.partition, x.header.base_offset)):
        expected[batch.partition][batch.header.producer_id] = batch.header
    partitions = sorted({batch.partition for batch in batches})
    with wire(b) as c:
        resp = c.request(
            DescribeProducersRequest(
                topics=[DescribeProducersRequest.TopicRequest(name=topic, partition_indexes=partitions)]
            ),
            0,
        )
    got: dict[int, Any] = {}
    for p in resp.topics[0].partitions:
        assert p.error_code == ErrorCode.NONE.code, p
        states = {s.producer_id: s for s in p.active_producers}
        got[p.partition_index] = states
        want = expected[p.partition_index]
        assert set(states) == set(want), f"partition {p.partition_index}: {states} != {sorted(want)}"
        for pid, h in want.items():
            s = states[pid]
            assert (s.producer_epoch, s.last_sequence, s.last_timestamp) == (
                h.producer_epoch,
                h.last_sequence,
                h.max_timestamp,
            ), f"partition {p.partition_index} producer {pid}: {s} vs last batch {h}"
            assert s.current_txn_start_offset == -1, s
    assert sorted(got) == partitions
    return got


def codecs_in_log(batches: Sequence[LogBatch]) -> set[int]:
    return {batch.header.compression for batch in batches}


# ---------------------------------------------------------------------------------- the wire


def init_producer_id(b: BrokerProcess) -> tuple[int, int]:
    """InitProducerId v4 for an idempotent producer: (producer id, epoch)."""
    with wire(b) as c:
        resp = c.request(InitProducerIdRequest(transactional_id=None, transaction_timeout_ms=60_000), 4)
    assert resp.error_code == ErrorCode.NONE.code, resp
    return resp.producer_id, resp.producer_epoch


def idempotent_batch(
    producer_id: int,
    epoch: int,
    base_sequence: int,
    count: int = 1,
    *,
    tag: str = "w",
    **kw: Any,
) -> bytes:
    """A batch of ``count`` records as an idempotent producer sends it (values name the
    producer, epoch and sequence, so a test can see which attempt landed)."""
    records = [
        (b"k", f"{tag}|{producer_id}|{epoch}|{(base_sequence + i) % (INT32_MAX + 1)}".encode())
        for i in range(count)
    ]
    return build_batch(
        records, producer_id=producer_id, producer_epoch=epoch, base_sequence=base_sequence, **kw
    )


def produce_request(
    topic: str, partition: int, records: bytes | None, *, acks: int = -1, timeout_ms: int = 10_000
) -> ProduceRequest:
    return ProduceRequest(
        acks=acks,
        timeout_ms=timeout_ms,
        topic_data=[
            ProduceRequest.TopicProduceData(
                name=topic,
                partition_data=[ProduceRequest.PartitionProduceData(index=partition, records=records)],
            )
        ],
    )


def produce_on(
    c: WireClient, topic: str, partition: int, records: bytes | None, *, acks: int = -1, version: int = 9
) -> ProduceResponse.PartitionProduceResponse:
    """One partition's result of a Produce request sent on ``c``."""
    resp = c.request(produce_request(topic, partition, records, acks=acks), version)
    assert len(resp.responses) == 1 and len(resp.responses[0].partition_responses) == 1, resp
    return resp.responses[0].partition_responses[0]


def produce_wire(
    b: BrokerProcess, topic: str, partition: int, records: bytes | None, **kw: Any
) -> ProduceResponse.PartitionProduceResponse:
    """``produce_on`` over a fresh connection."""
    with wire(b) as c:
        return produce_on(c, topic, partition, records, **kw)


def producer_states(b: BrokerProcess, topic: str, partition: int = 0) -> dict[int, Any]:
    """DescribeProducers for one partition: producer id -> ProducerState."""
    with wire(b) as c:
        resp = c.request(
            DescribeProducersRequest(
                topics=[DescribeProducersRequest.TopicRequest(name=topic, partition_indexes=[partition])]
            ),
            0,
        )
    p = resp.topics[0].partitions[0]
    assert p.error_code == ErrorCode.NONE.code, p
    return {s.producer_id: s for s in p.active_producers}


# ---------------------------------------------------------------------------------- producers


def record_key(n: int, keys: int = KEYS) -> bytes:
    return f"k{n % keys}".encode()


def record_value(instance: str, n: int, keys: int = KEYS) -> bytes:
    """The Java driver's value format, so ``check_exactly_once`` reads every client's records."""
    return f"m1|{instance}|{n % keys}|{n // keys}|".encode()


@dataclass
class Delivery:
    """What a client reported for record n."""

    n: int
    error: str | None
    partition: int | None
    offset: int | None


def produce_confluent(
    bootstrap: str,
    topic: str,
    count: int,
    *,
    instance: str,
    keys: int = KEYS,
    config: Mapping[str, Any] | None = None,
    pause_s: float = 0.0,
    flush_timeout: float = 60.0,
) -> list[Delivery]:
    """confluent-kafka with idempotence: records 0..count-1 and their delivery reports
    (``pause_s`` spaces the sends so that they go out in several requests)."""
    from confluent_kafka import Producer

    producer = Producer(
        {"bootstrap.servers": bootstrap, "enable.idempotence": True, "linger.ms": 5, **(config or {})}
    )
    reports: list[Delivery] = []

    def report(n: int) -> Any:
        def cb(err: Any, msg: Any) -> None:
            reports.append(Delivery(n, None if err is None else str(err), msg.partition(), msg.offset()))

        return cb

    for n in range(count):
        producer.produce(
            topic, key=record_key(n, keys), value=record_value(instance, n, keys), on_delivery=report(n)
        )
        producer.poll(pause_s)
    left = producer.flush(flush_timeout)
    assert left == 0, f"{left} records still queued after {flush_timeout}s"
    return sorted(reports, key=lambda d: d.n)


def produce_kafka_python(
    bootstrap: str,
    topic: str,
    count: int,
    *,
    instance: str,
    keys: int = KEYS,
    config: Mapping[str, Any] | None = None,
    pause_s: float = 0.0,
) -> list[Delivery]:
    """kafka-python's KafkaProducer with enable_idempotence; one Delivery per record."""
    from kafka import KafkaProducer

    producer = KafkaProducer(
        **{
            "bootstrap_servers": bootstrap,
            "enable_idempotence": True,
            "acks": "all",
            "linger_ms": 5,
            **(config or {}),
        }
    )
    try:
        futures = []
        for n in range(count):
            futures.append(
                producer.send(topic, key=record_key(n, keys), value=record_value(instance, n, keys))
            )
            if pause_s:
                time.sleep(pause_s)
        producer.flush(60)
        out = []
        for n, f in enumerate(futures):
            try:
                md = f.get(timeout=60)
                out.append(Delivery(n, None, md.partition, md.offset))
            except Exception as exc:
                out.append(Delivery(n, repr(exc), None, None))
        return out
    finally:
        producer.close(10)


def produce_aiokafka(
    bootstrap: str,
    topic: str,
    count: int,
    *,
    instance: str,
    keys: int = KEYS,
    config: Mapping[str, Any] | None = None,
    pause_s: float = 0.0,
) -> list[Delivery]:
    """aiokafka's AIOKafkaProducer with enable_idempotence; one Delivery per record."""
    from aiokafka import AIOKafkaProducer

    async def run() -> list[Delivery]:
        producer = AIOKafkaProducer(
            **{"bootstrap_servers": bootstrap, "enable_idempotence": True, "linger_ms": 5, **(config or {})}
        )
        await producer.start()
        try:
            futures = []
            for n in range(count):
                futures.append(
                    await producer.send(topic, key=record_key(n, keys), value=record_value(instance, n, keys))
                )
                if pause_s:
                    await asyncio.sleep(pause_s)
            out = []
            for n, f in enumerate(futures):
                try:
                    md = await asyncio.wait_for(f, 60)
                    out.append(Delivery(n, None, md.partition, md.offset))
                except Exception as exc:
                    out.append(Delivery(n, repr(exc), None, None))
            return out
        finally:
            await producer.stop()

    return asyncio.run(run())


def produce_kcat(
    bootstrap: str,
    topic: str,
    count: int,
    *,
    instance: str,
    keys: int = KEYS,
    compression: str | None = None,
    config: Mapping[str, Any] | None = None,
) -> None:
    """kcat -P with enable.idempotence; kcat exits non-zero if a record is not delivered."""
    messages = [
        (record_key(n, keys).decode(), record_value(instance, n, keys).decode()) for n in range(count)
    ]
    Kcat(bootstrap).produce(topic, messages, idempotence=True, compression=compression, config=config)


def assert_all_delivered(deliveries: Sequence[Delivery], count: int) -> None:
    assert [d.n for d in deliveries] == list(range(count))
    failed = [d for d in deliveries if d.error is not None]
    assert not failed, f"{len(failed)} records failed, e.g. {failed[:3]}"


def java_summary(result: Any, count: int) -> dict[str, Any]:
    """The Java driver's summary line, checked for a clean run of ``count`` records."""
    summary = result.last
    assert summary["ok"], summary
    assert (summary["sent"], summary["acked"], summary["failed"]) == (count, count, 0), summary
    return summary


# ---------------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def idem_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    b = BrokerProcess(tmp_path_factory.mktemp("idempotent-produce") / "data", {"num.partitions": "3"})
    b.start()
    yield b
    if b.alive():
        b.stop()


@pytest.fixture
def topic(idem_broker: BrokerProcess, request: pytest.FixtureRequest) -> str:
    name = unique_topic(request.node.name.split("[")[0].removeprefix("test_")[:30].replace("_", "-"))
    create_topic(idem_broker, name)
    return name


# ---------------------------------------------------------------------------------- tests


@pytest.mark.java
def test_java_idempotent_producer_writes_each_record_once_in_order(idem_broker, topic):
    require_java()
    count = 400
    result = JavaClient(idem_broker.bootstrap).produce(
        topic, count, keys=KEYS, instance="java", acks="all", max_in_flight=5, linger_ms=2, batch_size=512
    )
    summary = java_summary(result, count)
    assert sorted(summary["partitions"]) == ["0", "1", "2"], summary
    batches = read_log(idem_broker, topic)
    check_log(batches, {"java": (count, KEYS)})
    assert len(batches) > PARTITIONS, "expected several batches per partition"
    producers = check_describe_producers(idem_broker, topic, batches)
    # One idempotent producer: the same producer id on every partition.
    assert len({pid for states in producers.values() for pid in states}) == 1


def check_acknowledged_once_in_order(broker, topic: str, deliveries, instance: str, count: int) -> None:
    """Every record was acknowledged, is in the log exactly once and in order, sits at the
    offset the client was told, and DescribeProducers matches the log."""
    assert_all_delivered(deliveries, count)
    batches = read_log(broker, topic)
    check_log(batches, {instance: (count, KEYS)})
    at = {(p, o): v for p, o, v in log_records(batches)}
    for d in deliveries:
        assert at[(d.partition, d.offset)] == record_value(instance, d.n)
    check_describe_producers(broker, topic, batches)


def test_confluent_kafka_idempotent_producer_writes_each_record_once_in_order(idem_broker, topic):
    count = 300
    deliveries = produce_confluent(
        idem_broker.bootstrap, topic, count, instance="ck", config={"batch.num.messages": 10}
    )
    check_acknowledged_once_in_order(idem_broker, topic, deliveries, "ck", count)


def test_kafka_python_idempotent_producer_writes_each_record_once_in_order(idem_broker, topic):
    count = 200
    deliveries = produce_kafka_python(
        idem_broker.bootstrap, topic, count, instance="kp", config={"batch_size": 256}
    )
    check_acknowledged_once_in_order(idem_broker, topic, deliveries, "kp", count)


def test_aiokafka_idempotent_producer_writes_each_record_once_in_order(idem_broker, topic):
    count = 200
    deliveries = produce_aiokafka(
        idem_broker.bootstrap, topic, count, instance="aio", config={"max_batch_size": 256}
    )
    check_acknowledged_once_in_order(idem_broker, topic, deliveries, "aio", count)


def test_kcat_idempotent_producer_writes_each_record_once_in_order(idem_broker, topic):
    require_kcat()
    count = 200
    produce_kcat(idem_broker.bootstrap, topic, count, instance="kcat", config={"batch.num.messages": 10})
    batches = read_log(idem_broker, topic)
    check_log(batches, {"kcat": (count, KEYS)})
    check_describe_producers(idem_broker, topic, batches)


@pytest.mark.java
@pytest.mark.parametrize("codec", CODECS)
def test_java_idempotent_producer_with_each_codec(idem_broker, topic, codec):
    require_java()
    count = 200
    result = JavaClient(idem_broker.bootstrap).produce(
        topic, count, keys=KEYS, instance=f"java-{codec}", compression=codec, linger_ms=5, value_size=64
    )
    java_summary(result, count)
    batches = read_log(idem_broker, topic)
    check_log(batches, {f"java-{codec}": (count, KEYS)})
    assert codecs_in_log(batches) == {CODEC_IDS[codec]}, f"batches were not written with {codec}"
    check_describe_producers(idem_broker, topic, batches)


@pytest.mark.parametrize("codec", CODECS)
def test_confluent_kafka_idempotent_producer_with_each_codec(idem_broker, topic, codec):
    count = 200
    deliveries = produce_confluent(
        idem_broker.bootstrap,
        topic,
        count,
        instance=f"ck-{codec}",
        config={"compression.type": codec, "batch.num.messages": 20},
    )
    assert_all_delivered(deliveries, count)
    batches = read_log(idem_broker, topic)
    check_log(batches, {f"ck-{codec}": (count, KEYS)})
    # librdkafka before 2.12 silently stops compressing if Produce v0 is not advertised
    # (KAFKA-18659); the batches in the log prove the codec was really used.
    assert codecs_in_log(batches) == {CODEC_IDS[codec]}, f"batches were not written with {codec}"
    check_describe_producers(idem_broker, topic, batches)


def test_two_producers_interleaved_on_one_topic(idem_broker, topic):
    """Two confluent-kafka producers (two producer ids) on the same partitions: each keeps its
    own sequences, DescribeProducers lists both."""
    first = produce_confluent(idem_broker.bootstrap, topic, 60, instance="one")
    second = produce_confluent(idem_broker.bootstrap, topic, 60, instance="two")
    assert_all_delivered(first, 60)
    assert_all_delivered(second, 60)
    batches = read_log(idem_broker, topic)
    check_log(batches, {"one": (60, KEYS), "two": (60, KEYS)})
    producers = check_describe_producers(idem_broker, topic, batches)
    assert all(len(states) == 2 for states in producers.values()), producers
