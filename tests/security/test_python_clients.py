"""kafka-python and aiokafka over SASL_PLAINTEXT with PLAIN and SCRAM (issue 15): records go
through, and a wrong password fails with an authentication error."""

from __future__ import annotations

import asyncio
import logging
import uuid

import pytest
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.errors import KafkaConnectionError
from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer
from kafka import errors as kafka_errors

from tests.security.conftest import ALICE, ALICE_PASSWORD

pytestmark = pytest.mark.integration
MECHANISMS = ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"]


def _kafka_python_sasl(mechanism: str, password: str = ALICE_PASSWORD) -> dict:
    return {
        "security_protocol": "SASL_PLAINTEXT",
        "sasl_mechanism": mechanism,
        "sasl_plain_username": ALICE,
        "sasl_plain_password": password,
    }


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_kafka_python_produces_and_consumes(secure_broker, mechanism):
    bootstrap = secure_broker.address("SASL_PLAINTEXT")
    topic = f"kp-{mechanism.lower()}-{uuid.uuid4().hex[:6]}"
    producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", **_kafka_python_sasl(mechanism))
    try:
        for i in range(5):
            producer.send(topic, f"v{i}".encode()).get(timeout=30)
    finally:
        producer.close()
    consumer = KafkaConsumer(
        topic,
        bootstrap_servers=bootstrap,
        group_id=f"g-{topic}",
        auto_offset_reset="earliest",
        consumer_timeout_ms=20_000,
        **_kafka_python_sasl(mechanism),
    )
    try:
        values = []
        for record in consumer:
            values.append(record.value)
            if len(values) == 5:
                break
    finally:
        consumer.close()
    assert values == [f"v{i}".encode() for i in range(5)]


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_kafka_python_wrong_password_is_an_authentication_error(secure_broker, mechanism, caplog):
    # kafka-python keeps retrying its bootstrap until bootstrap_timeout_ms; each attempt
    # fails with the broker's SASL_AUTHENTICATION_FAILED (error 58) and its message.
    caplog.set_level(logging.WARNING, logger="kafka.net.manager")
    with pytest.raises(kafka_errors.KafkaTimeoutError):
        KafkaAdminClient(
            bootstrap_servers=secure_broker.address("SASL_PLAINTEXT"),
            bootstrap_timeout_ms=3_000,
            **_kafka_python_sasl(mechanism, "wrong"),
        )
    failures = [r.getMessage() for r in caplog.records if "Bootstrap connection" in r.getMessage()]
    assert failures, caplog.text
    assert all("SaslAuthenticationFailedError" in f and "Authentication failed" in f for f in failures), (
        failures
    )


async def _aiokafka_round_trip(bootstrap: str, mechanism: str) -> list[bytes]:
    sasl = {
        "security_protocol": "SASL_PLAINTEXT",
        "sasl_mechanism": mechanism,
        "sasl_plain_username": ALICE,
        "sasl_plain_password": ALICE_PASSWORD,
    }
    topic = f"aio-{mechanism.lower()}-{uuid.uuid4().hex[:6]}"
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", **sasl)
    await producer.start()
    try:
        for i in range(5):
            await producer.send_and_wait(topic, f"v{i}".encode())
    finally:
        await producer.stop()
    consumer = AIOKafkaConsumer(topic, bootstrap_servers=bootstrap, auto_offset_reset="earliest", **sasl)
    await consumer.start()
    try:
        values = []
        async with asyncio.timeout(30):
            async for record in consumer:
                values.append(record.value)
                if len(values) == 5:
                    break
    finally:
        await consumer.stop()
    return values


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_aiokafka_produces_and_consumes(secure_broker, mechanism):
    values = asyncio.run(_aiokafka_round_trip(secure_broker.address("SASL_PLAINTEXT"), mechanism))
    assert values == [f"v{i}".encode() for i in range(5)]


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_aiokafka_wrong_password_is_an_authentication_error(secure_broker, mechanism, caplog):
    # aiokafka gives up its bootstrap at once and logs the broker's error 58 with its message.
    caplog.set_level(logging.ERROR, logger="aiokafka")

    async def connect() -> None:
        producer = AIOKafkaProducer(
            bootstrap_servers=secure_broker.address("SASL_PLAINTEXT"),
            security_protocol="SASL_PLAINTEXT",
            sasl_mechanism=mechanism,
            sasl_plain_username=ALICE,
            sasl_plain_password="wrong",
        )
        try:
            await producer.start()
        finally:
            await producer.stop()

    with pytest.raises(KafkaConnectionError, match="Unable to bootstrap"):
        asyncio.run(connect())
    errors = [r.getMessage() for r in caplog.records if r.name == "aiokafka"]
    assert errors and all(
        "[Error 58] SaslAuthenticationFailed: Authentication failed" in e for e in errors
    ), errors
