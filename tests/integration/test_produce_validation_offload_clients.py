"""Large batches of small compressed records from a real client: their validation leaves the
event loop (``NeedsOffload``, the ReplicaManager's worker thread) and nothing changes for the
producer: librdkafka's idempotent producer, five requests in flight, gets every record
acknowledged once, in order, with no sequence error, and the segment files hold them in that
order (read with kafka-python's record parser).

Kafka validates every compressed record (``LogValidator``) on a request handler thread; the
batches here hold far more records than one request may walk on Moldau's event loop.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from kafka.record import MemoryRecords

from storage.log_validator import INLINE_WORK_UNITS
from tests.support.broker_process import BrokerProcess

pytestmark = pytest.mark.integration

COUNT = 200_000


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    with BrokerProcess(tmp_path_factory.mktemp("offload") / "data", {}) as b:
        yield b


def batches_on_disk(data: Path, topic: str) -> list[tuple[int, list[bytes]]]:
    """(records count, values) of every batch of the partition's segment files, in order."""
    out = []
    for segment in sorted((data / f"{topic}-0").glob("*.log")):
        records = MemoryRecords(segment.read_bytes())
        while records.has_next():
            batch = records.next_batch()
            assert batch.validate_crc()
            out.append((batch.compression_type, [r.value for r in batch]))
    return out


@pytest.mark.parametrize("codec", ["gzip", "zstd"])
def test_librdkafka_batches_of_many_compressed_records_are_appended_once_in_order(
    broker: BrokerProcess, codec: str
) -> None:
    topic = f"offload-{codec}-{uuid.uuid4().hex[:6]}"
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(topic, 1, 1)], operation_timeout=30)[topic].result(60)
    producer = Producer(
        {
            "bootstrap.servers": broker.bootstrap,
            "enable.idempotence": True,
            "compression.type": codec,
            "linger.ms": 200,
            "batch.num.messages": 1_000_000,
            "batch.size": 900_000,
        }
    )
    errors: list = []
    for i in range(COUNT):
        while True:
            try:
                producer.produce(
                    topic,
                    value=i.to_bytes(4, "big"),
                    partition=0,
                    on_delivery=lambda e, _m: e and errors.append(e),
                )
                break
            except BufferError:  # the client's queue is full: let it send
                producer.poll(0.1)
        producer.poll(0)
    assert producer.flush(120) == 0
    assert not errors, errors[:5]

    batches = batches_on_disk(broker.log_dir, topic)
    values = [v for _, vs in batches for v in vs]
    assert values == [i.to_bytes(4, "big") for i in range(COUNT)]  # once each, in order
    assert max(len(vs) for _, vs in batches) > INLINE_WORK_UNITS  # batches the loop may not walk

    consumer = Consumer(
        {"bootstrap.servers": broker.bootstrap, "group.id": f"g-{uuid.uuid4()}", "enable.auto.commit": False}
    )
    read = 0
    try:
        consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
        deadline = time.monotonic() + 120
        while read < COUNT and time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is None:
                continue
            assert msg.error() is None, msg.error()
            assert msg.offset() == read and msg.value() == read.to_bytes(4, "big")
            read += 1
    finally:
        consumer.close()
    assert read == COUNT
