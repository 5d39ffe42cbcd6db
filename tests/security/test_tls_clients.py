"""confluent-kafka and the Java client over SASL_SSL with SCRAM-SHA-512 and over SSL with
client certificates (issue 15); a wrong password is an authentication error in both."""

from __future__ import annotations

import uuid

import pytest
from confluent_kafka import Consumer, KafkaError, Producer

from tests.security.conftest import ALICE, ALICE_PASSWORD
from tests.support.java_client import JavaClient, require_java

pytestmark = pytest.mark.integration


def _confluent_sasl_ssl(certs, password: str = ALICE_PASSWORD) -> dict:
    return {
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.username": ALICE,
        "sasl.password": password,
        "ssl.ca.location": str(certs.ca),
    }


def _confluent_ssl(certs) -> dict:
    return {
        "security.protocol": "SSL",
        "ssl.ca.location": str(certs.ca),
        "ssl.certificate.location": str(certs.client_cert),
        "ssl.key.location": str(certs.client_key),
    }


def _confluent_round_trip(bootstrap: str, security: dict) -> list[bytes]:
    topic = f"ck-{uuid.uuid4().hex[:8]}"
    errors: list = []
    producer = Producer(
        {"bootstrap.servers": bootstrap, "acks": "all", "error_cb": errors.append, **security}
    )
    for i in range(5):
        producer.produce(topic, f"v{i}".encode())
    assert producer.flush(30) == 0, errors
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"g-{topic}",
            "auto.offset.reset": "earliest",
            **security,
        }
    )
    consumer.subscribe([topic])
    values: list[bytes] = []
    try:
        for _ in range(60):
            msg = consumer.poll(1.0)
            if msg is not None and msg.error() is None:
                values.append(msg.value())
            if len(values) == 5:
                break
    finally:
        consumer.close()
    return values


@pytest.mark.parametrize("listener", ["SASL_SSL", "SSL"])
def test_confluent_kafka_over_tls(secure_broker, certs, listener):
    security = _confluent_sasl_ssl(certs) if listener == "SASL_SSL" else _confluent_ssl(certs)
    assert _confluent_round_trip(secure_broker.address(listener), security) == [
        f"v{i}".encode() for i in range(5)
    ]


def test_confluent_kafka_wrong_password_is_an_authentication_error(secure_broker, certs):
    errors: list[KafkaError] = []
    producer = Producer(
        {
            "bootstrap.servers": secure_broker.address("SASL_SSL"),
            "error_cb": errors.append,
            **_confluent_sasl_ssl(certs, "wrong"),
        }
    )
    try:
        for _ in range(100):  # up to 10 s of polls; the first connection attempt reports it
            producer.poll(0.1)
            if errors:
                break
    finally:
        producer.flush(0)
    assert errors, "no error reported"
    assert errors[0].code() == KafkaError._AUTHENTICATION, errors[0]
    assert "Authentication failed" in errors[0].str(), errors[0]


def _java_sasl_ssl(certs, password: str = ALICE_PASSWORD) -> dict:
    return {
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.jaas.config": "org.apache.kafka.common.security.scram.ScramLoginModule required"
        f' username="{ALICE}" password="{password}";',
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": str(certs.ca),
    }


def _java_ssl(certs) -> dict:
    return {
        "security.protocol": "SSL",
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": str(certs.ca),
        "ssl.keystore.type": "PEM",
        "ssl.keystore.location": str(certs.client_keystore),
    }


@pytest.mark.parametrize("listener", ["SASL_SSL", "SSL"])
def test_java_client_over_tls(secure_broker, certs, listener):
    require_java()
    security = _java_sasl_ssl(certs) if listener == "SASL_SSL" else _java_ssl(certs)
    client = JavaClient(secure_broker.address(listener), properties=security)
    topic = f"java-{listener.lower()}-{uuid.uuid4().hex[:6]}"
    produced = client.produce(topic, 20)
    assert produced.last["acked"] == 20, produced.last
    consumed = client.consume(topic, group=f"g-{topic}", expect=20)
    assert len(consumed.records()) == 20, consumed.last


def test_java_client_wrong_password_is_an_authentication_error(secure_broker, certs):
    require_java()
    client = JavaClient(secure_broker.address("SASL_SSL"), properties=_java_sasl_ssl(certs, "wrong"))
    result = client.run("list-topics", check=False, timeout=120)
    text = result.stderr + "".join(str(line) for line in result.lines)
    assert "SaslAuthenticationException" in text, text[-3000:]
    assert (
        "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512"
        in text
    )
