"""The authentication gate, byte by byte (issue 15): an in-process broker with the four
listeners, driven by raw Kafka frames, with the principal each connection ends up with."""

from __future__ import annotations

import base64
import socket
import ssl
import time

import pytest

from broker.broker import Broker
from broker.config import BrokerConfig
from broker.security.scram import SCRAM_SHA_256, SCRAM_SHA_512, ScramSaslClient
from broker.testing.inprocess import LoopThread
from coordinator.principal import ANONYMOUS, KafkaPrincipal
from protocol.errors import ErrorCode
from protocol.messages import (
    ApiVersionsRequest,
    MetadataRequest,
    SaslAuthenticateRequest,
    SaslHandshakeRequest,
)
from tests.security.conftest import (
    ADMIN,
    ADMIN_PASSWORD,
    ALICE,
    ALICE_PASSWORD,
    CLIENT_DN,
    LISTENERS,
    add_scram_users,
    security_properties,
)
from tests.support.polling import wait_until
from tests.support.wire_client import WireClient


class InProcessBroker:
    def __init__(self, log_dir, props) -> None:
        self.thread = LoopThread("security-test")
        self.broker = Broker(BrokerConfig({"log.dirs": str(log_dir), **props}))
        self.thread.call(self.broker.start())
        self.ports = {a.name: a.port for a in self.broker.advertised}

    def client(self, listener: str, tls: ssl.SSLContext | None = None) -> WireClient:
        c = WireClient("127.0.0.1", self.ports[listener])
        if tls is not None:
            c.sock = tls.wrap_socket(c.sock, server_hostname="localhost")
        return c

    def principals(self, listener: str) -> list[KafkaPrincipal]:
        async def read() -> list[KafkaPrincipal]:
            conns = self.broker.server.connections
            return [c.auth.principal for c in conns if c.listener == listener]

        return self.thread.call(read())

    def close(self) -> None:
        self.thread.call(self.broker.stop())
        self.thread.close()


@pytest.fixture
def broker_factory(tmp_path, certs):
    made: list[InProcessBroker] = []

    def make(**extra: str) -> InProcessBroker:
        log_dir = tmp_path / f"data-{len(made)}"
        add_scram_users(log_dir, {ADMIN: ADMIN_PASSWORD, ALICE: ALICE_PASSWORD})
        b = InProcessBroker(log_dir, security_properties(certs, **extra))
        made.append(b)
        return b

    yield make
    for b in made:
        b.close()


@pytest.fixture
def broker(broker_factory) -> InProcessBroker:
    return broker_factory()


def _tls(certs, *, client_cert: bool) -> ssl.SSLContext:
    ctx = ssl.create_default_context(cafile=str(certs.ca))
    if client_cert:
        ctx.load_cert_chain(str(certs.client_cert), str(certs.client_key))
    return ctx


def _plain_login(c: WireClient, user: str, password: str, version: int = 2):
    assert c.request(SaslHandshakeRequest(mechanism="PLAIN"), 1).error_code == 0
    return c.request(SaslAuthenticateRequest(auth_bytes=f"\0{user}\0{password}".encode()), version)


def _scram_login(c: WireClient, mechanism, user: str, password: str, version: int = 2):
    assert c.request(SaslHandshakeRequest(mechanism=mechanism.name), 1).error_code == 0
    client = ScramSaslClient(mechanism, user, password)
    first = c.request(SaslAuthenticateRequest(auth_bytes=client.first_message()), version)
    assert first.error_code == 0, first.error_message
    final = c.request(SaslAuthenticateRequest(auth_bytes=client.final_message(first.auth_bytes)), version)
    if final.error_code == 0:
        client.check_server_final(final.auth_bytes)
    return final


def _until(predicate, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.01)


def test_each_listener_gives_its_principal(broker, certs):
    with (
        broker.client("PLAINTEXT") as plain,
        broker.client("SSL", _tls(certs, client_cert=True)) as with_cert,
        broker.client("SASL_PLAINTEXT") as sasl,
        broker.client("SASL_SSL", _tls(certs, client_cert=False)) as sasl_ssl,
    ):
        plain.request(MetadataRequest(topics=[]), 12)
        with_cert.request(MetadataRequest(topics=[]), 12)
        assert _plain_login(sasl, ALICE, ALICE_PASSWORD).error_code == 0
        assert _scram_login(sasl_ssl, SCRAM_SHA_512, ADMIN, ADMIN_PASSWORD).error_code == 0
        sasl.request(MetadataRequest(topics=[]), 12)
        assert broker.principals("PLAINTEXT") == [ANONYMOUS]
        assert broker.principals("SSL") == [KafkaPrincipal("User", CLIENT_DN)]
        assert broker.principals("SASL_PLAINTEXT") == [KafkaPrincipal("User", ALICE)]
        assert broker.principals("SASL_SSL") == [KafkaPrincipal("User", ADMIN)]
    with broker.client("SSL", _tls(certs, client_cert=False)) as no_cert:
        no_cert.request(MetadataRequest(topics=[]), 12)
        assert broker.principals("SSL") == [ANONYMOUS]  # ssl.client.auth=requested, none sent


def test_required_client_certificate(broker_factory, certs):
    broker = broker_factory(**{"listener.name.ssl.ssl.client.auth": "required"})
    with broker.client("SSL", _tls(certs, client_cert=True)) as ok:
        ok.request(MetadataRequest(topics=[]), 12)
    with (
        pytest.raises((ssl.SSLError, ConnectionError, OSError)),
        broker.client("SSL", _tls(certs, client_cert=False)) as refused,
    ):
        refused.request(MetadataRequest(topics=[]), 12)


def test_requests_before_authentication_close_the_connection(broker):
    with broker.client("SASL_PLAINTEXT") as c:
        assert (
            c.request(ApiVersionsRequest(client_software_name="t", client_software_version="1"), 3).error_code
            == 0
        )
        c.send(MetadataRequest(topics=[]), 12)
        assert c.is_closed_by_peer()
    with broker.client("SASL_PLAINTEXT") as c:  # after the handshake only SaslAuthenticate
        assert c.request(SaslHandshakeRequest(mechanism="PLAIN"), 1).error_code == 0
        c.request(MetadataRequest(topics=[]), 12)  # answered (ILLEGAL_SASL_STATE), then closed
        assert c.is_closed_by_peer()


def test_handshake_answers(broker):
    with broker.client("PLAINTEXT") as c:  # not a SASL listener: KafkaApis' answer
        r = c.request(SaslHandshakeRequest(mechanism="PLAIN"), 1)
        assert (r.error_code, r.mechanisms) == (ErrorCode.ILLEGAL_SASL_STATE.code, [])
    with broker.client("SASL_PLAINTEXT") as c:
        r = c.request(SaslHandshakeRequest(mechanism="GSSAPI"), 1)
        assert r.error_code == ErrorCode.UNSUPPORTED_SASL_MECHANISM.code
        assert r.mechanisms == ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"]
        assert c.is_closed_by_peer()
    with broker.client("SASL_PLAINTEXT") as c:  # authenticated: a second exchange is refused
        assert _plain_login(c, ALICE, ALICE_PASSWORD, version=0).error_code == 0
        again = c.request(SaslAuthenticateRequest(auth_bytes=b"\0alice\0alice-secret"), 0)
        assert again.error_code == ErrorCode.ILLEGAL_SASL_STATE.code
        # a v0 client does not re-authenticate: a new handshake is refused too
        assert (
            c.request(SaslHandshakeRequest(mechanism="PLAIN"), 1).error_code
            == ErrorCode.ILLEGAL_SASL_STATE.code
        )
        c.request(MetadataRequest(topics=[]), 12)


@pytest.mark.parametrize(
    ("mechanism", "user", "password", "message"),
    [
        ("PLAIN", ALICE, "wrong", "Authentication failed: Invalid username or password"),
        ("PLAIN", "nobody", "x", "Authentication failed: Invalid username or password"),
        (
            "SCRAM-SHA-256",
            ALICE,
            "wrong",
            "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256",
        ),
    ],
)
def test_failed_authentication_answers_then_closes(broker, mechanism, user, password, message):
    with broker.client("SASL_PLAINTEXT") as c:
        if mechanism == "PLAIN":
            r = _plain_login(c, user, password)
        else:
            r = _scram_login(c, SCRAM_SHA_256, user, password)
        assert (r.error_code, r.error_message) == (ErrorCode.SASL_AUTHENTICATION_FAILED.code, message)
        assert c.is_closed_by_peer()
    _until(lambda: broker.principals("SASL_PLAINTEXT") == [])


def test_scram_unknown_user_and_token_authentication_are_refused(broker):
    generic = "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512"
    for first in (b"n,,n=nobody,r=abcdef", b"n,,n=alice,r=abcdef,tokenauth=true"):
        with broker.client("SASL_PLAINTEXT") as c:
            assert c.request(SaslHandshakeRequest(mechanism="SCRAM-SHA-512"), 1).error_code == 0
            r = c.request(SaslAuthenticateRequest(auth_bytes=first), 2)
            assert (r.error_code, r.error_message) == (ErrorCode.SASL_AUTHENTICATION_FAILED.code, generic)
    with broker.client("SASL_PLAINTEXT") as c:  # an authzid other than the user
        assert c.request(SaslHandshakeRequest(mechanism="SCRAM-SHA-512"), 1).error_code == 0
        r = c.request(SaslAuthenticateRequest(auth_bytes=b"n,a=admin,n=alice,r=abcdef"), 2)
        assert r.error_message == (
            "Authentication failed: Client requested an authorization id that is different from username"
        )
    with broker.client("SASL_PLAINTEXT") as c:  # other extensions are ignored
        assert c.request(SaslHandshakeRequest(mechanism="SCRAM-SHA-512"), 1).error_code == 0
        r = c.request(SaslAuthenticateRequest(auth_bytes=b"n,,n=alice,r=abcdef,foo=bar"), 2)
        assert r.error_code == 0 and r.auth_bytes.startswith(b"r=abcdef")


def _raw(c: WireClient, token: bytes) -> bytes:
    c.send_frame(token)
    return c.recv_frame()


def test_raw_tokens_after_a_v0_handshake(broker):
    with broker.client("SASL_PLAINTEXT") as c:
        assert c.request(SaslHandshakeRequest(mechanism="PLAIN"), 0).error_code == 0
        assert _raw(c, b"\0alice\0alice-secret") == b""
        c.request(MetadataRequest(topics=[]), 12)
    _until(lambda: broker.principals("SASL_PLAINTEXT") == [])  # closed by the with
    with broker.client("SASL_PLAINTEXT") as c:
        assert c.request(SaslHandshakeRequest(mechanism="SCRAM-SHA-256"), 0).error_code == 0
        client = ScramSaslClient(SCRAM_SHA_256, ADMIN, ADMIN_PASSWORD)
        server_first = _raw(c, client.first_message())
        client.check_server_final(_raw(c, client.final_message(server_first)))
        c.request(MetadataRequest(topics=[]), 12)
        assert broker.principals("SASL_PLAINTEXT") == [KafkaPrincipal("User", ADMIN)]
    with broker.client("SASL_PLAINTEXT") as c:  # a raw exchange that fails is just closed
        assert c.request(SaslHandshakeRequest(mechanism="PLAIN"), 0).error_code == 0
        c.send_frame(b"\0alice\0wrong")
        assert c.is_closed_by_peer()


def test_session_lifetime_and_reauthentication(broker_factory):
    broker = broker_factory(**{"connections.max.reauth.ms": "1500"})
    with broker.client("SASL_PLAINTEXT") as c:
        first = _plain_login(c, ALICE, ALICE_PASSWORD, version=1)
        assert (first.error_code, first.session_lifetime_ms) == (0, 1500)
        # KIP-368: the same mechanism and principal again, on the same connection
        again = _plain_login(c, ALICE, ALICE_PASSWORD, version=1)
        assert (again.error_code, again.session_lifetime_ms) == (0, 1500)
        c.request(MetadataRequest(topics=[]), 12)
        other = _plain_login(c, ADMIN, ADMIN_PASSWORD, version=1)
        assert other.error_code == ErrorCode.SASL_AUTHENTICATION_FAILED.code
        assert (
            other.error_message
            == "Cannot change principals during re-authentication from User.alice: User.admin"
        )
        assert c.is_closed_by_peer()
    with broker.client("SASL_PLAINTEXT") as c:
        assert _plain_login(c, ALICE, ALICE_PASSWORD, version=1).error_code == 0
        time.sleep(1.6)  # the session's deadline passes (a lifetime: nothing to await)
        c.send(MetadataRequest(topics=[]), 12)
        assert c.is_closed_by_peer()


def test_large_frames_before_authentication_close(broker_factory):
    broker = broker_factory(**{"sasl.server.max.receive.size": "1000"})
    with broker.client("SASL_PLAINTEXT") as c:
        assert c.request(SaslHandshakeRequest(mechanism="PLAIN"), 1).error_code == 0
        c.send(SaslAuthenticateRequest(auth_bytes=b"x" * 2000), 2)
        assert c.is_closed_by_peer()


def test_listener_prefixed_jaas_users(broker_factory):
    jaas = 'org.apache.kafka.common.security.plain.PlainLoginModule required user_carol="carol-secret";'
    broker = broker_factory(**{"listener.name.sasl_ssl.plain.sasl.jaas.config": jaas})
    assert broker.ports  # started
    with broker.client("SASL_PLAINTEXT") as c:  # the other listener keeps its own users
        assert (
            _plain_login(c, "carol", "carol-secret").error_code == ErrorCode.SASL_AUTHENTICATION_FAILED.code
        )


def test_ports_of_every_listener_are_advertised(broker):
    assert set(broker.ports) == set(LISTENERS)
    for name in LISTENERS:
        with socket.create_connection(("127.0.0.1", broker.ports[name]), timeout=5):
            pass


def test_scram_client_against_rfc7677_vector():
    # RFC 7677 section 3: user "user", password "pencil".
    client = ScramSaslClient(SCRAM_SHA_256, "user", "pencil")
    client._nonce = "rOprNGfwEbeRWgbNEkqO"
    client._client_first_bare = "n=user,r=rOprNGfwEbeRWgbNEkqO"
    final = client.final_message(
        b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
    )
    assert final == (
        b"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
    )
    client.check_server_final(b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")


def test_metadata_answers_the_endpoints_of_the_listener_asked(broker, certs):
    tls = {"SSL": _tls(certs, client_cert=False), "SASL_SSL": _tls(certs, client_cert=False)}
    for name in LISTENERS:
        with broker.client(name, tls.get(name)) as c:
            if name == "SASL_PLAINTEXT":
                assert _plain_login(c, ALICE, ALICE_PASSWORD).error_code == 0
            elif name == "SASL_SSL":
                assert _scram_login(c, SCRAM_SHA_256, ALICE, ALICE_PASSWORD).error_code == 0
            metadata = c.request(MetadataRequest(topics=[]), 12)
            assert [(b.host, b.port) for b in metadata.brokers] == [("127.0.0.1", broker.ports[name])]


def test_scram_accepts_the_nonce_of_librdkafka_before_2_6_1(broker):
    # librdkafka < 2.6.1 answers r=<client nonce><server's r> (Kafka 3.8.1-3.9 accepted it),
    # its proof computed over that client-final-message.
    m = SCRAM_SHA_512
    with broker.client("SASL_PLAINTEXT") as c:
        assert c.request(SaslHandshakeRequest(mechanism=m.name), 1).error_code == 0
        first_bare = "n=alice,r=cnonce"
        server_first = c.request(
            SaslAuthenticateRequest(auth_bytes=f"n,,{first_bare}".encode()), 2
        ).auth_bytes
        fields = dict(item.split("=", 1) for item in server_first.decode().split(","))
        salted = m.salted_password(ALICE_PASSWORD, base64.b64decode(fields["s"]), int(fields["i"]))
        without_proof = f"c=biws,r=cnonce{fields['r']}"
        auth_message = f"{first_bare},{server_first.decode()},{without_proof}".encode()
        client_key = m.hmac(salted, b"Client Key")
        proof = bytes(
            a ^ b for a, b in zip(client_key, m.hmac(m.hash(client_key), auth_message), strict=True)
        )
        final = f"{without_proof},p={base64.b64encode(proof).decode()}".encode()
        answer = c.request(SaslAuthenticateRequest(auth_bytes=final), 2)
        assert answer.error_code == 0, answer.error_message


def test_kafka_python_reauthenticates_on_its_connection(broker_factory):
    from kafka import KafkaProducer

    broker = broker_factory(**{"connections.max.reauth.ms": "2000"})
    producer = KafkaProducer(
        bootstrap_servers=f"127.0.0.1:{broker.ports['SASL_PLAINTEXT']}",
        security_protocol="SASL_PLAINTEXT",
        sasl_mechanism="SCRAM-SHA-256",
        sasl_plain_username=ALICE,
        sasl_plain_password=ALICE_PASSWORD,
        acks="all",
    )

    def reauthenticated() -> list[int]:
        async def read() -> list[int]:
            conns = broker.broker.server.connections
            return [c.auth.reauthentications for c in conns if c.listener == "SASL_PLAINTEXT"]

        return broker.thread.call(read())

    try:
        deadline = time.monotonic() + 30
        sent = 0
        while not any(n >= 2 for n in reauthenticated()):  # two sessions renewed in place
            assert time.monotonic() < deadline, reauthenticated()
            producer.send("reauth", f"v{sent}".encode()).get(timeout=10)
            sent += 1
            time.sleep(0.05)
    finally:
        producer.close()
    assert sent > 0


def test_librdkafka_reauthenticates_on_its_connection(broker_factory):
    """confluent-kafka (librdkafka >= 2.2 implements KIP-368): the session the broker gives
    (connections.max.reauth.ms) is renewed by a second SaslAuthenticate on the same
    connection, and records produced across the boundary are delivered."""
    from confluent_kafka import Producer

    broker = broker_factory(**{"connections.max.reauth.ms": "2000"})
    errors: list = []
    producer = Producer(
        {
            "bootstrap.servers": f"127.0.0.1:{broker.ports['SASL_PLAINTEXT']}",
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "SCRAM-SHA-512",
            "sasl.username": ALICE,
            "sasl.password": ALICE_PASSWORD,
            "error_cb": errors.append,
        }
    )

    def connections() -> list[tuple[int, int]]:
        async def read() -> list[tuple[int, int]]:
            conns = broker.broker.server.connections
            return [(id(c), c.auth.reauthentications) for c in conns if c.listener == "SASL_PLAINTEXT"]

        return broker.thread.call(read())

    delivered: list = []
    sent = 0
    first: set[int] = set()  # the connections open after the first record

    def produced_until_renewed() -> bool:
        nonlocal sent
        producer.produce("reauth-rdkafka", f"v{sent}".encode(), on_delivery=lambda e, m: delivered.append(e))
        assert producer.flush(10) == 0, errors
        sent += 1
        if not first:
            first.update(conn for conn, _ in connections())
        return any(n >= 1 for _, n in connections())  # a session renewed in place

    wait_until(produced_until_renewed, "session renewed on a connection")
    producer.produce("reauth-rdkafka", b"after", on_delivery=lambda e, m: delivered.append(e))
    assert producer.flush(10) == 0
    assert delivered == [None] * (sent + 1), delivered
    # the renewed connection is one that was open before: re-authenticated, not reconnected
    renewed = {conn for conn, n in connections() if n >= 1}
    assert renewed & first, (renewed, first)
