"""The broker's own compression with real clients: a topic's ``compression.type`` (gzip,
snappy, lz4, zstd, uncompressed) rewrites what producers send, as Kafka's ``LogValidator``
does, and Kafka's Java consumer, librdkafka and kafka-python read every record back; the
segment files hold the topic's codec (read with kafka-python's record parser).

Also the log cleaner's rewritten lz4 batches: Kafka's Java client refuses an LZ4 frame of
linked blocks ("Dependent block stream is unsupported"), so a compacted lz4 topic must be
readable by it after cleaning.
"""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from kafka.record import MemoryRecords

from tests.support.broker_process import BrokerProcess

pytestmark = pytest.mark.integration

CODECS = {"uncompressed": 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}
COUNT = 300


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    with BrokerProcess(
        tmp_path_factory.mktemp("compression") / "data", {"log.cleaner.backoff.ms": "100"}
    ) as b:
        yield b


def create_topic(bootstrap: str, name: str, **configs: str) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.create_topics(
        [NewTopic(name, 1, 1, config={k.replace("_", "."): v for k, v in configs.items()})],
        operation_timeout=30,
    )
    futures[name].result(60)


def produce(
    bootstrap: str, topic: str, values: list[bytes], codec: str, keys: list[bytes] | None = None
) -> None:
    """Idempotent, in batches of at most 16 KB (so a batch fits a small segment)."""
    producer = Producer(
        {
            "bootstrap.servers": bootstrap,
            "enable.idempotence": True,
            "compression.type": codec,
            "linger.ms": 20,
            "batch.size": 16_000,
        }
    )
    errors: list = []
    for i, value in enumerate(values):
        key = keys[i] if keys is not None else str(i).encode()
        producer.produce(
            topic, key=key, value=value, partition=0, on_delivery=lambda e, _m: e and errors.append(e)
        )
        producer.poll(0)
    assert producer.flush(60) == 0
    assert not errors, errors


def codecs_on_disk(data: Path, topic: str) -> set[int]:
    """The codecs of the partition's batches holding records (a batch the cleaner emptied but
    kept for its producer's state is written uncompressed, as Kafka's writeEmptyHeader)."""
    found = set()
    for segment in (data / f"{topic}-0").glob("*.log"):
        records = MemoryRecords(segment.read_bytes())
        while records.has_next():
            batch = records.next_batch()
            assert batch.validate_crc()
            if list(batch):
                found.add(batch.compression_type)
    return found


def records_on_disk(data: Path, topic: str) -> list[tuple[bytes, bytes]]:
    """(key, value) of every record in the partition's segment files, in offset order."""
    out = []
    for segment in sorted((data / f"{topic}-0").glob("*.log")):
        records = MemoryRecords(segment.read_bytes())
        while records.has_next():
            out.extend((r.key, r.value) for r in records.next_batch())
    return out


def read_with_librdkafka(bootstrap: str, topic: str, count: int) -> list[tuple[bytes, bytes]]:
    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": f"g-{uuid.uuid4()}", "enable.auto.commit": False}
    )
    out: list[tuple[bytes, bytes]] = []
    try:
        consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
        deadline = time.monotonic() + 60
        while len(out) < count and time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is None:
                continue
            assert msg.error() is None, msg.error()
            out.append((msg.key(), msg.value()))
    finally:
        consumer.close()
    return out


def read_with_kafka_python(bootstrap: str, topic: str, count: int) -> list[tuple[bytes, bytes]]:
    from kafka import KafkaConsumer
    from kafka import TopicPartition as KTopicPartition

    consumer = KafkaConsumer(
        bootstrap_servers=bootstrap, enable_auto_commit=False, consumer_timeout_ms=20_000
    )
    try:
        tp = KTopicPartition(topic, 0)
        consumer.assign([tp])
        consumer.seek_to_beginning(tp)
        out = []
        for msg in consumer:
            out.append((msg.key, msg.value))
            if len(out) >= count:
                break
        return out
    finally:
        consumer.close()


@pytest.mark.parametrize("target", sorted(CODECS))
def test_the_topics_codec_is_written_and_every_client_reads_it(broker: BrokerProcess, target: str) -> None:
    from tests.support.java_client import JavaClient, require_java

    require_java()
    topic = f"codec-{target}"
    create_topic(broker.bootstrap, topic, compression_type=target)
    values = [f"{target}-{n}-".encode() + b"v" * (n % 50) for n in range(COUNT)]
    half = COUNT // 2
    produce(broker.bootstrap, topic, values[:half], "none")
    produce(broker.bootstrap, topic, values[half:], "gzip" if target != "gzip" else "zstd")
    assert codecs_on_disk(broker.log_dir, topic) == {CODECS[target]}
    expected = [(str(i % half if i < half else i - half).encode(), v) for i, v in enumerate(values)]
    assert read_with_librdkafka(broker.bootstrap, topic, COUNT) == expected
    assert read_with_kafka_python(broker.bootstrap, topic, COUNT) == expected
    result = JavaClient(broker.bootstrap).consume(topic, assign=[0], expect=COUNT)
    assert [r["v"] for r in result.records()] == [v.decode() for v in values]


def test_a_compacted_lz4_topic_is_readable_by_the_java_client_after_cleaning(broker: BrokerProcess) -> None:
    """The cleaner rewrites batches that lost records in their codec: for lz4, Kafka's frame of
    independent blocks (the Java client refuses linked ones)."""
    from storage.checkpoints import CheckpointError, OffsetCheckpointFile
    from storage.log_cleaner_manager import CLEANER_OFFSET_CHECKPOINT
    from tests.support.java_client import JavaClient, require_java

    require_java()
    topic = "compact-lz4"
    create_topic(
        broker.bootstrap,
        topic,
        cleanup_policy="compact",
        segment_bytes=str(64 * 1024),
        min_cleanable_dirty_ratio="0.01",
    )
    keys = [f"k{n % 40}".encode() for n in range(2000)]
    # values that compress (librdkafka sends a batch uncompressed when it would not shrink)
    # but not so much that the records stay within one 64 KiB segment
    values = [f"value-{n}-".encode() + os.urandom(60).hex().encode() + b"x" * 100 for n in range(2000)]
    produce(broker.bootstrap, topic, values, "lz4", keys=keys)

    def cleaned() -> int | None:
        try:
            return OffsetCheckpointFile(broker.log_dir / CLEANER_OFFSET_CHECKPOINT).read().get((topic, 0))
        except (FileNotFoundError, CheckpointError):
            return None

    deadline = time.monotonic() + 120
    while (cleaned() or 0) < 1000:
        assert time.monotonic() < deadline, "the cleaner did not clean the topic"
        time.sleep(0.1)
    assert codecs_on_disk(broker.log_dir, topic) == {CODECS["lz4"]}
    on_disk = records_on_disk(broker.log_dir, topic)
    assert len(on_disk) < len(values)  # the cleaner removed records: batches were rewritten
    result = JavaClient(broker.bootstrap).consume(topic, assign=[0], expect=len(on_disk))
    assert [(r["k"], r["v"]) for r in result.records()] == [(k.decode(), v.decode()) for k, v in on_disk]
    latest = dict(zip(keys, values, strict=True))
    assert {r["k"]: r["v"] for r in result.records()} == {k.decode(): v.decode() for k, v in latest.items()}
