"""Security configuration as Kafka reads it: the protocol map, per-listener keys, JAAS
entries, key stores; unusable values stop the broker with a one-line ConfigError."""

from __future__ import annotations

import socket
import ssl
import threading

import pytest

from broker.config import BrokerConfig
from broker.security.jaas import parse_jaas_config
from broker.security.manager import BrokerSecurity
from broker.security.plain import plain_users
from broker.security.ssl_factory import distinguished_name, openssl_cipher_name
from storage.config_def import ConfigError
from tests.security.conftest import PLAIN_JAAS, security_properties


def _security(props: dict[str, str]) -> BrokerSecurity:
    return BrokerSecurity.from_config(BrokerConfig({"log.dirs": "/tmp/unused", **props}), lambda: 0.0)


def test_jaas_entries():
    (module,) = parse_jaas_config(PLAIN_JAAS)
    assert module.name == "org.apache.kafka.common.security.plain.PlainLoginModule"
    assert module.flag == "required"
    assert plain_users(module.options) == {"admin": "admin-secret", "alice": "alice-secret"}
    (quoted,) = parse_jaas_config(r'x.Y required username=bare password="a \"q\" ; b";')
    assert quoted.options == {"username": "bare", "password": 'a "q" ; b'}
    for bad in ("x.Y required", "x.Y maybe a=b;", 'x.Y required a="b" c;', ""):
        with pytest.raises(ConfigError):
            parse_jaas_config(bad)


def test_distinguished_names_as_x500principal_writes_them():
    subject = ((("countryName", "US"),), (("organizationName", "Acme, Inc."),), (("commonName", "alice"),))
    assert distinguished_name(subject) == r"CN=alice,O=Acme\, Inc.,C=US"
    multi = ((("commonName", "a"), ("userId", "7")),)
    assert distinguished_name(multi) == "CN=a+UID=7"


def test_cipher_suite_names():
    assert openssl_cipher_name("TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384") == "ECDHE-RSA-AES256-GCM-SHA384"
    assert openssl_cipher_name("TLS_RSA_WITH_AES_128_GCM_SHA256") == "AES128-GCM-SHA256"
    assert (
        openssl_cipher_name("TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256")
        == "ECDHE-ECDSA-CHACHA20-POLY1305"
    )
    assert openssl_cipher_name("ECDHE-RSA-AES128-GCM-SHA256") == "ECDHE-RSA-AES128-GCM-SHA256"


def test_listeners_with_the_default_protocol_map(certs):
    security = _security(security_properties(certs))
    assert {n: s.protocol for n, s in security.listeners.items()} == {
        "PLAINTEXT": "PLAINTEXT",
        "SASL_PLAINTEXT": "SASL_PLAINTEXT",
        "SSL": "SSL",
        "SASL_SSL": "SASL_SSL",
    }
    assert security.server_ssl_context("PLAINTEXT") is None
    ssl_ctx = security.server_ssl_context("SSL")
    assert ssl_ctx.verify_mode == ssl.CERT_OPTIONAL  # listener.name.ssl.ssl.client.auth=requested
    # KIP-684: the broker-wide ssl.client.auth does not apply to SASL_SSL, only a prefixed one
    assert security.server_ssl_context("SASL_SSL").verify_mode == ssl.CERT_NONE


def test_named_listeners_and_prefixed_keys(certs):
    props = security_properties(
        certs,
        **{
            "listeners": "CLIENTS://127.0.0.1:0,REPLICATION://127.0.0.1:0",
            "listener.security.protocol.map": "CLIENTS:SASL_SSL,REPLICATION:SSL",
            "inter.broker.listener.name": "REPLICATION",
            "listener.name.clients.sasl.enabled.mechanisms": "SCRAM-SHA-512",
            "listener.name.replication.ssl.client.auth": "required",
            "ssl.enabled.protocols": "TLSv1.3",
        },
    )
    security = _security(props)
    assert security.listeners["CLIENTS"].mechanisms == ["SCRAM-SHA-512"]
    assert security.server_ssl_context("REPLICATION").verify_mode == ssl.CERT_REQUIRED
    assert security.server_ssl_context("CLIENTS").minimum_version == ssl.TLSVersion.TLSv1_3
    assert security.inter_broker.protocol == "SSL" and security.inter_broker.ssl_context is not None


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"listeners": "CLIENTS://127.0.0.1:0"}, "no security protocol defined for listener CLIENTS"),
        ({"listener.security.protocol.map": "PLAINTEXT:TLS"}, "is not LISTENER:PROTOCOL"),
        ({"sasl.enabled.mechanisms": "GSSAPI"}, "GSSAPI not supported"),
        ({"listener.name.sasl_plaintext.plain.sasl.jaas.config": "x.Y required;"}, "PlainLoginModule entry"),
        ({"ssl.keystore.type": "JKS"}, "ssl.keystore.type=JKS is not supported"),
        ({"ssl.keystore.type": "PKCS12"}, "ssl.keystore.type=PKCS12 is not supported"),
        ({"ssl.keystore.location": "/nonexistent.pem"}, "cannot load the key store"),
        ({"ssl.cipher.suites": "NO-SUCH-SUITE"}, "ssl.cipher.suites"),
        (
            {"inter.broker.listener.name": "SASL_SSL", "security.inter.broker.protocol": "SASL_SSL"},
            "Only one of inter.broker.listener.name and security.inter.broker.protocol",
        ),
        (
            {
                "security.inter.broker.protocol": "SASL_SSL",
                "sasl.mechanism.inter.broker.protocol": "PLAIN",
                "listener.name.sasl_ssl.plain.sasl.jaas.config": PLAIN_JAAS.replace(' username="admin"', ""),
            },
            "username and password",
        ),
    ],
)
def test_unusable_configs_are_refused(certs, extra, message):
    with pytest.raises(ConfigError, match=message):
        _security(security_properties(certs, **extra))


def test_inline_pem_key_store(certs):
    chain = certs.client_cert.read_text()
    key = certs.client_key.read_text()
    props = security_properties(certs)
    del props["ssl.keystore.location"]
    props["ssl.keystore.certificate.chain"] = chain
    props["ssl.keystore.key"] = key
    assert _security(props).server_ssl_context("SSL") is not None


def _handshake(server_ctx: ssl.SSLContext, client_ctx: ssl.SSLContext) -> str | None:
    """A real TLS handshake over a socket pair: the negotiated cipher, None when refused."""
    a, b = socket.socketpair()
    a.settimeout(10)
    b.settimeout(10)
    server_error: list[BaseException] = []

    def serve() -> None:
        try:
            with server_ctx.wrap_socket(a, server_side=True):
                pass
        except (ssl.SSLError, OSError) as exc:
            server_error.append(exc)

    t = threading.Thread(target=serve)
    t.start()
    try:
        with client_ctx.wrap_socket(b, server_hostname="localhost") as tls:
            return tls.cipher()[0]
    except (ssl.SSLError, OSError):
        return None
    finally:
        t.join(10)
        a.close()
        b.close()


def _client(certs, *, max_version=ssl.TLSVersion.TLSv1_3, ciphers: str | None = None) -> ssl.SSLContext:
    ctx = ssl.create_default_context(cafile=str(certs.ca))
    ctx.maximum_version = max_version
    if ciphers is not None:
        ctx.set_ciphers(ciphers)
    return ctx


def test_tls12_client_refused_when_only_tls13_is_enabled(certs):
    server = _security(security_properties(certs, **{"ssl.enabled.protocols": "TLSv1.3"})).server_ssl_context(
        "SSL"
    )
    assert _handshake(server, _client(certs, max_version=ssl.TLSVersion.TLSv1_2)) is None
    assert _handshake(server, _client(certs)) is not None  # a TLSv1.3 client gets in


def test_cipher_suites_narrow_the_context(certs):
    props = security_properties(
        certs,
        **{
            "ssl.enabled.protocols": "TLSv1.2",
            "ssl.cipher.suites": "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
        },
    )
    server = _security(props).server_ssl_context("SSL")
    tls12 = {c["name"] for c in server.get_ciphers() if c["protocol"] == "TLSv1.2"}
    assert tls12 == {"ECDHE-RSA-AES128-GCM-SHA256"}
    tls12_client = ssl.TLSVersion.TLSv1_2
    assert _handshake(server, _client(certs, max_version=tls12_client)) == "ECDHE-RSA-AES128-GCM-SHA256"
    assert (
        _handshake(server, _client(certs, max_version=tls12_client, ciphers="ECDHE-RSA-AES256-GCM-SHA384"))
        is None
    )
