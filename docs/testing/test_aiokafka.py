"""aiokafka against a broker of the test's own (no asyncio plugin needed)."""

import asyncio

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer


def test_produce_then_consume(moldau_broker):
    moldau_broker.create_topic("clicks")

    async def produce_then_consume():
        producer = AIOKafkaProducer(bootstrap_servers=moldau_broker.bootstrap_servers)
        await producer.start()
        try:
            for i in range(10):
                await producer.send_and_wait("clicks", f"click-{i}".encode())
        finally:
            await producer.stop()

        consumer = AIOKafkaConsumer(
            "clicks",
            bootstrap_servers=moldau_broker.bootstrap_servers,
            group_id="ui",
            auto_offset_reset="earliest",
        )
        await consumer.start()
        try:
            return [(await asyncio.wait_for(consumer.getone(), 10)).value.decode() for _ in range(10)]
        finally:
            await consumer.stop()

    assert asyncio.run(produce_then_consume()) == [f"click-{i}" for i in range(10)]
