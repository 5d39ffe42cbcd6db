"""Internal topics belong to the broker: clients cannot produce to them.

Kafka's ``ReplicaManager.appendToLocalLog`` refuses an append to an internal topic
(``Topic.isInternal``) unless it comes from a coordinator: INVALID_TOPIC_EXCEPTION with
"Cannot append to internal topic <name>". A real client gets the error, the group's
committed offsets stay as they were, and other clients carry on.
"""

from __future__ import annotations

import pytest

from protocol.errors import ErrorCode
from protocol.messages import ProduceRequest
from protocol.records import build_batch
from tests.integration.test_fetch_and_offsets import create
from tests.support.broker_process import BrokerProcess
from tests.support.wire_client import WireClient

pytestmark = pytest.mark.integration

OFFSETS_TOPIC = "__consumer_offsets"


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    b = BrokerProcess(tmp_path_factory.mktemp("internal") / "data", {"offsets.topic.num.partitions": "1"})
    b.start()
    yield b
    b.stop()


def _commit(bootstrap: str, group: str, topic: str, offset: int) -> None:
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False})
    try:
        consumer.commit(offsets=[TopicPartition(topic, 0, offset)], asynchronous=False)
    finally:
        consumer.close()


def _committed(bootstrap: str, group: str, topic: str) -> int:
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False})
    try:
        return consumer.committed([TopicPartition(topic, 0)], timeout=30)[0].offset
    finally:
        consumer.close()


def _produce_one(bootstrap: str, topic: str, value: bytes):
    """Produce one record with confluent-kafka; returns the delivery error (None on success)."""
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": bootstrap, "message.timeout.ms": 30_000, "retries": 0})
    reports: list[object] = []
    producer.produce(topic, value=value, partition=0, on_delivery=lambda err, msg: reports.append(err))
    assert producer.flush(60) == 0
    assert len(reports) == 1
    return reports[0]


def test_a_client_cannot_produce_to_the_consumer_offsets_topic(broker):
    from confluent_kafka import KafkaError as CKafkaError

    with WireClient(broker.host, broker.port) as c:
        create(c, "data")
    _commit(broker.bootstrap, "owner", "data", 7)  # creates __consumer_offsets

    err = _produce_one(broker.bootstrap, OFFSETS_TOPIC, b"not a coordinator record")
    assert err is not None and err.code() == CKafkaError.TOPIC_EXCEPTION, err

    with WireClient(broker.host, broker.port) as c:
        resp = c.request(_produce(OFFSETS_TOPIC, build_batch([(b"k", b"v")])), 9)
        part = resp.responses[0].partition_responses[0]
        assert part.error_code == ErrorCode.INVALID_TOPIC_EXCEPTION.code
        assert part.error_message == f"Cannot append to internal topic {OFFSETS_TOPIC}"
        assert part.base_offset == -1

    # The group's offsets are untouched, and the coordinator still writes to its topic.
    assert _committed(broker.bootstrap, "owner", "data") == 7
    _commit(broker.bootstrap, "owner", "data", 8)
    assert _committed(broker.bootstrap, "owner", "data") == 8
    # Another client still produces to an ordinary topic.
    assert _produce_one(broker.bootstrap, "data", b"after") is None


def _produce(topic: str, batch: bytes) -> ProduceRequest:
    return ProduceRequest(
        acks=-1,
        timeout_ms=10_000,
        topic_data=[
            ProduceRequest.TopicProduceData(
                name=topic,
                partition_data=[ProduceRequest.PartitionProduceData(index=0, records=batch)],
            )
        ],
    )
