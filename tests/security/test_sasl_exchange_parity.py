"""The SASL exchange of one connection against Kafka's ``SaslServerAuthenticator`` and
``KafkaChannel``: no re-authentication without a session lifetime, the receive size limit on
a frame's size prefix, and the answer to an unexpected request during the exchange."""

from __future__ import annotations

import struct

import pytest

from protocol.errors import ErrorCode
from protocol.messages import MetadataRequest, SaslAuthenticateRequest, SaslHandshakeRequest
from tests.security.conftest import (
    ADMIN,
    ADMIN_PASSWORD,
    ALICE,
    ALICE_PASSWORD,
    add_scram_users,
    security_properties,
)
from tests.security.test_authentication import InProcessBroker


@pytest.fixture
def sasl_broker(tmp_path, certs):
    """``sasl_broker(**overrides)``: an in-process broker with the four listeners."""
    made: list[InProcessBroker] = []

    def make(**extra: str) -> InProcessBroker:
        log_dir = tmp_path / f"data-{len(made)}"
        add_scram_users(log_dir, {ADMIN: ADMIN_PASSWORD, ALICE: ALICE_PASSWORD})
        made.append(InProcessBroker(log_dir, security_properties(certs, **extra)))
        return made[-1]

    yield make
    for b in made:
        b.close()


def _plain_login(c, user: str, password: str, version: int):
    assert c.request(SaslHandshakeRequest(mechanism="PLAIN"), 1).error_code == 0
    return c.request(SaslAuthenticateRequest(auth_bytes=f"\0{user}\0{password}".encode()), version)


def test_handshake_after_authentication_without_session_lifetime_is_illegal_sasl_state(sasl_broker):
    """connections.max.reauth.ms=0 (the default): the session has no expiry, so
    KafkaChannel.maybeBeginServerReauthentication returns false and the SaslHandshake reaches
    KafkaApis.handleSaslHandshakeRequest: ILLEGAL_SASL_STATE, even for a client that spoke
    SaslAuthenticate v1+ (one that could re-authenticate)."""
    broker = sasl_broker()
    with broker.client("SASL_PLAINTEXT") as c:
        first = _plain_login(c, ALICE, ALICE_PASSWORD, version=2)
        assert (first.error_code, first.session_lifetime_ms) == (0, 0)
        again = c.request(SaslHandshakeRequest(mechanism="PLAIN"), 1)
        assert (again.error_code, again.mechanisms) == (ErrorCode.ILLEGAL_SASL_STATE.code, [])
        # no exchange began: the connection serves requests as before
        assert c.request(MetadataRequest(topics=[]), 12).topics == []


def test_oversized_frame_before_authentication_closes_on_its_size_prefix(sasl_broker):
    """Kafka reads the frames of a SASL exchange with NetworkReceive(sasl.server.max.receive.size):
    a size prefix above it fails at once (InvalidReceiveException), so an unauthenticated client
    cannot make the broker buffer up to socket.request.max.bytes. Only the prefix and the start
    of the body are sent: the connection closes without waiting for the rest."""
    broker = sasl_broker(**{"sasl.server.max.receive.size": "1000"})
    with broker.client("SASL_PLAINTEXT") as c:
        c.send_raw(struct.pack(">i", 50_000_000) + b"\0" * 64)
        assert c.is_closed_by_peer()
    with broker.client("SASL_PLAINTEXT") as c:  # the same in the middle of the exchange
        assert c.request(SaslHandshakeRequest(mechanism="PLAIN"), 1).error_code == 0
        c.send_raw(struct.pack(">i", 50_000_000) + b"\0" * 64)
        assert c.is_closed_by_peer()


def test_frames_above_the_sasl_receive_size_pass_once_authenticated(sasl_broker):
    """The limit applies to the exchange only: authenticated, the connection takes frames up to
    socket.request.max.bytes again."""
    broker = sasl_broker(**{"sasl.server.max.receive.size": "1000"})
    with broker.client("SASL_PLAINTEXT") as c:
        assert _plain_login(c, ALICE, ALICE_PASSWORD, version=2).error_code == 0
        names = [f"absent-topic-{i:04d}" for i in range(200)]  # a request of some 4 KB
        asked = MetadataRequest(
            topics=[MetadataRequest.MetadataRequestTopic(name=n) for n in names],
            allow_auto_topic_creation=False,
        )
        assert len(c.encode_request(asked, 12)) > 1000
        answer = c.request(asked, 12)
        assert [t.name for t in answer.topics] == names


def test_request_other_than_sasl_authenticate_during_the_exchange_is_answered_then_closed(sasl_broker):
    """After a SaslHandshake v1 only SaslAuthenticate may come. Kafka's
    SaslServerAuthenticator.handleSaslToken answers another request with its error response
    (IllegalSaslStateException: ILLEGAL_SASL_STATE, buildResponseOnAuthenticateFailure), then
    closes the connection."""
    broker = sasl_broker()
    with broker.client("SASL_PLAINTEXT") as c:
        assert c.request(SaslHandshakeRequest(mechanism="PLAIN"), 1).error_code == 0
        again = c.request(SaslHandshakeRequest(mechanism="PLAIN"), 1)
        assert (again.error_code, again.mechanisms) == (ErrorCode.ILLEGAL_SASL_STATE.code, [])
        assert c.is_closed_by_peer()
    with broker.client("SASL_PLAINTEXT") as c:  # a flexible version: its response header too
        assert c.request(SaslHandshakeRequest(mechanism="PLAIN"), 1).error_code == 0
        answer = c.request(MetadataRequest(topics=[]), 12)
        assert answer.topics == [] and answer.brokers == []
        assert c.is_closed_by_peer()
