"""Fixtures of the security tests: test certificates (made with the ``openssl`` command-line
tool), SCRAM users, and brokers with PLAINTEXT, SASL_PLAINTEXT, SSL and SASL_SSL listeners."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from broker.security.scram_users import main as scram_users
from tests.support.broker_process import BrokerProcess

LISTENERS = ("PLAINTEXT", "SASL_PLAINTEXT", "SSL", "SASL_SSL")
ADMIN, ADMIN_PASSWORD = "admin", "admin-secret"
ALICE, ALICE_PASSWORD = "alice", "alice-secret"
BOB, BOB_PASSWORD = "bob", "bob-secret"
CLIENT_DN = "CN=alice,OU=Test,O=Moldau,C=US"  # RFC 2253 form of the client certificate's subject
PLAIN_JAAS = (
    "org.apache.kafka.common.security.plain.PlainLoginModule required"
    f' username="{ADMIN}" password="{ADMIN_PASSWORD}"'
    f' user_{ADMIN}="{ADMIN_PASSWORD}" user_{ALICE}="{ALICE_PASSWORD}";'
)


def scram_jaas(user: str, password: str) -> str:
    return f'org.apache.kafka.common.security.scram.ScramLoginModule required username="{user}" password="{password}";'


@dataclass(frozen=True)
class Certs:
    dir: Path
    ca: Path  # CA certificate (PEM): the trust store of brokers and clients
    broker_keystore: Path  # broker certificate (SAN localhost, 127.0.0.1) and key, one PEM file
    client_cert: Path  # client certificate, subject /C=US/O=Moldau/OU=Test/CN=alice
    client_key: Path
    client_keystore: Path  # client key and certificate, one PEM file (Java's PEM key store)


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_certs(d: Path) -> Certs:
    if shutil.which("openssl") is None:
        pytest.fail("the openssl command-line tool is required (Debian package openssl)")
    d.mkdir(parents=True, exist_ok=True)
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
             "-days", "2", "-subj", "/CN=Moldau Test CA", cwd=d)  # fmt: skip
    (d / "san.ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    for name, subject, ext in (
        ("broker", "/CN=localhost", ["-extfile", "san.ext"]),
        ("client", "/C=US/O=Moldau/OU=Test/CN=alice", []),
    ):
        _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out", f"{name}.csr",
                 "-subj", subject, cwd=d)  # fmt: skip
        _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                 "-out", f"{name}.pem", "-days", "2", *ext, cwd=d)  # fmt: skip
        (d / f"{name}-keystore.pem").write_text(
            (d / f"{name}.key").read_text() + (d / f"{name}.pem").read_text()
        )
    return Certs(
        d,
        d / "ca.pem",
        d / "broker-keystore.pem",
        d / "client.pem",
        d / "client.key",
        d / "client-keystore.pem",
    )


@pytest.fixture(scope="session")
def certs(tmp_path_factory) -> Certs:
    return make_certs(tmp_path_factory.mktemp("certs"))


def add_scram_users(
    log_dir: Path, users: dict[str, str], mechanisms=("SCRAM-SHA-256", "SCRAM-SHA-512")
) -> None:
    for user, password in users.items():
        config = ",".join(f"{m}=[iterations=4096,password={password}]" for m in mechanisms)
        assert scram_users(["--log-dir", str(log_dir), "--entity-name", user, "--add-config", config]) == 0


def security_properties(certs: Certs, **extra: str) -> dict[str, str]:
    """Four listeners on ephemeral ports; SASL with PLAIN and both SCRAMs; TLS with client certificates requested."""
    return {
        "listeners": ",".join(f"{name}://127.0.0.1:0" for name in LISTENERS),
        "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
        "listener.name.sasl_plaintext.plain.sasl.jaas.config": PLAIN_JAAS,
        "listener.name.sasl_ssl.plain.sasl.jaas.config": PLAIN_JAAS,
        "ssl.keystore.type": "PEM",
        "ssl.keystore.location": str(certs.broker_keystore),
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": str(certs.ca),
        "listener.name.ssl.ssl.client.auth": "requested",
        **extra,
    }


class SecureBroker:
    """A broker subprocess with the four listeners; ``address(listener)`` is host:port."""

    def __init__(self, process: BrokerProcess) -> None:
        self.process = process
        self.ports = {}
        for name in LISTENERS:
            line = process.wait_for_log(rf"listening on {name}://")
            self.ports[name] = int(re.search(rf"{name}://[^ \"]*:(\d+)", line).group(1))

    def address(self, listener: str) -> str:
        return f"127.0.0.1:{self.ports[listener]}"


@pytest.fixture
def secure_broker_factory(tmp_path, certs):
    made: list[BrokerProcess] = []

    def make(**extra: str) -> SecureBroker:
        log_dir = tmp_path / f"data-{len(made)}"
        add_scram_users(log_dir, {ADMIN: ADMIN_PASSWORD, ALICE: ALICE_PASSWORD})
        bp = BrokerProcess(log_dir, security_properties(certs, **extra))
        made.append(bp)
        bp.start()
        return SecureBroker(bp)

    yield make
    for bp in made:
        bp.stop()


@pytest.fixture
def secure_broker(secure_broker_factory) -> SecureBroker:
    return secure_broker_factory()
