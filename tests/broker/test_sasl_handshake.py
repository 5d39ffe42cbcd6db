"""SaslHandshake on a PLAINTEXT listener: an ILLEGAL_SASL_STATE answer, as Kafka
gives, so a client configured for SASL says why it cannot connect."""

from __future__ import annotations

import logging
import time

import pytest

from protocol.errors import ErrorCode
from protocol.messages import ApiVersionsRequest, MetadataRequest, SaslHandshakeRequest
from tests.support.wire_client import WireClient

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def plaintext_broker(tmp_path_factory):
    from tests.support.broker_process import BrokerProcess

    b = BrokerProcess(tmp_path_factory.mktemp("sasl") / "data")
    b.start()
    yield b
    b.stop()


@pytest.mark.parametrize("version", [0, 1])
def test_sasl_handshake_gets_illegal_sasl_state_and_no_mechanisms(plaintext_broker, version):
    with WireClient(plaintext_broker.host, plaintext_broker.port) as c:
        versions = c.request(ApiVersionsRequest(), 0)
        advertised = {k.api_key: (k.min_version, k.max_version) for k in versions.api_keys}
        assert advertised[17] == (0, 1)
        resp = c.request(SaslHandshakeRequest(mechanism="PLAIN"), version)
        assert resp.error_code == ErrorCode.ILLEGAL_SASL_STATE.code
        assert resp.mechanisms == []
        # The connection stays open and usable, as in Kafka.
        assert c.request(MetadataRequest(topics=[]), 12).brokers


def test_kafka_python_configured_for_sasl_fails_with_a_clear_error(plaintext_broker, caplog):
    from kafka import KafkaProducer
    from kafka.errors import KafkaError

    caplog.set_level(logging.WARNING, logger="kafka")
    started = time.monotonic()
    with pytest.raises(KafkaError):
        KafkaProducer(
            bootstrap_servers=plaintext_broker.bootstrap,
            security_protocol="SASL_PLAINTEXT",
            sasl_mechanism="PLAIN",
            sasl_plain_username="user",
            sasl_plain_password="secret",
            bootstrap_timeout_ms=5000,
            request_timeout_ms=5000,
        )
    assert time.monotonic() - started < 60  # gives up, does not hang
    assert any("IllegalSaslStateError" in r.getMessage() for r in caplog.records), [
        r.getMessage() for r in caplog.records
    ]
    # Other clients are unaffected.
    from confluent_kafka.admin import AdminClient

    assert AdminClient({"bootstrap.servers": plaintext_broker.bootstrap}).list_topics(timeout=10).brokers
