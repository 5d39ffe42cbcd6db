"""confluent-kafka (librdkafka) against a broker of the test's own."""

from confluent_kafka import Consumer, Producer


def test_produce_then_consume_in_a_group(moldau_broker):
    moldau_broker.create_topic("orders", partitions=3)

    producer = Producer({"bootstrap.servers": moldau_broker.bootstrap_servers})
    for i in range(30):
        producer.produce("orders", key=f"customer-{i % 5}", value=f"order-{i}")
    assert producer.flush(10) == 0  # every record acknowledged

    consumer = Consumer(
        {
            "bootstrap.servers": moldau_broker.bootstrap_servers,
            "group.id": "billing",
            "auto.offset.reset": "earliest",
        }
    )
    consumer.subscribe(["orders"])
    values = []
    while len(values) < 30:
        message = consumer.poll(10)
        assert message is not None, f"only {len(values)} of 30 records arrived"
        assert message.error() is None, message.error()
        values.append(message.value().decode())
    consumer.close()
    assert sorted(values) == sorted(f"order-{i}" for i in range(30))
