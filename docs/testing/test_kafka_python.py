"""kafka-python against a broker of the test's own."""

import itertools

from kafka import KafkaConsumer, KafkaProducer


def test_produce_then_consume(moldau_broker):
    moldau_broker.create_topic("events")

    producer = KafkaProducer(bootstrap_servers=moldau_broker.bootstrap_servers)
    for i in range(10):
        producer.send("events", f"event-{i}".encode()).get(timeout=10)
    producer.close()

    consumer = KafkaConsumer(
        "events",
        bootstrap_servers=moldau_broker.bootstrap_servers,
        auto_offset_reset="earliest",
        consumer_timeout_ms=10_000,  # iteration ends after 10 s without a record
    )
    values = [message.value.decode() for message in itertools.islice(consumer, 10)]
    consumer.close()
    assert values == [f"event-{i}" for i in range(10)]
