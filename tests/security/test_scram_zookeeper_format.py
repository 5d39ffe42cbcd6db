"""SCRAM credentials in ZooKeeper as Kafka stores them (issue 15): ``/config/users/<user>``
holds ``{"version":1,"config":{"SCRAM-SHA-512":"salt=...,stored_key=...,server_key=...,
iterations=N"}}`` (Kafka's ``ScramCredentialUtils.credentialToString``, base64 fields), so a
credential written there by Kafka's tools, or computed here per RFC 5802 without any of
Moldau's code, authenticates, and one the broker writes verifies against its password."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import uuid

import pytest
from confluent_kafka.admin import (
    AdminClient,
    ScramCredentialInfo,
    ScramMechanism,
    UserScramCredentialUpsertion,
)
from kazoo.client import KazooClient

from broker.broker import Broker
from broker.config import BrokerConfig
from broker.testing.inprocess import LoopThread
from tests.security.test_scram_credentials_api import _authenticates
from tests.support.zookeeper_server import zookeeper_shared

__all__ = ["zookeeper_shared"]
pytestmark = pytest.mark.integration


def rfc5802_credential(password: str, salt: bytes, iterations: int) -> str:
    """SaltedPassword = Hi(password, salt, i); StoredKey = H(HMAC(SaltedPassword, "Client Key"));
    ServerKey = HMAC(SaltedPassword, "Server Key"), with SHA-512 (RFC 5802 section 3, RFC 7677)."""
    salted = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, iterations)
    stored_key = hashlib.sha512(hmac.digest(salted, b"Client Key", "sha512")).digest()
    server_key = hmac.digest(salted, b"Server Key", "sha512")

    def b64(b: bytes) -> str:
        return base64.b64encode(b).decode()

    return (
        f"salt={b64(salt)},stored_key={b64(stored_key)},server_key={b64(server_key)},iterations={iterations}"
    )


def test_credentials_in_zookeeper_are_kafkas_format(tmp_path, zookeeper_shared) -> None:
    chroot = f"/scramfmt_{uuid.uuid4().hex[:8]}"
    zk = KazooClient(hosts=zookeeper_shared.connect())
    zk.start()
    thread = LoopThread("scram-format")
    broker = None
    try:
        # written as Kafka's kafka-configs.sh writes it, before the broker starts
        written = {
            "version": 1,
            "config": {"SCRAM-SHA-512": rfc5802_credential("zed-secret", os.urandom(16), 4096)},
        }
        zk.create(f"{chroot}/config/users/zed", json.dumps(written).encode(), makepath=True)

        broker = Broker(
            BrokerConfig(
                {
                    "log.dirs": str(tmp_path / "data"),
                    "broker.id": "0",
                    "zookeeper.connect": zookeeper_shared.connect(chroot),
                    "listeners": "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
                    "inter.broker.listener.name": "PLAINTEXT",
                    "sasl.enabled.mechanisms": "SCRAM-SHA-512",
                    "offsets.topic.num.partitions": "1",
                    "offsets.topic.replication.factor": "1",
                }
            )
        )
        thread.call(broker.start())
        port = next(a.port for a in broker.advertised if a.name == "SASL_PLAINTEXT")
        bootstrap = f"127.0.0.1:{port}"
        assert _authenticates(bootstrap, "zed", "zed-secret", "SCRAM-SHA-512")
        assert not _authenticates(bootstrap, "zed", "wrong", "SCRAM-SHA-512")

        # one the broker writes (AlterUserScramCredentials) is in Kafka's format and
        # verifies against its password
        admin = AdminClient(
            {
                "bootstrap.servers": bootstrap,
                "security.protocol": "SASL_PLAINTEXT",
                "sasl.mechanism": "SCRAM-SHA-512",
                "sasl.username": "zed",
                "sasl.password": "zed-secret",
            }
        )
        info = ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096)
        admin.alter_user_scram_credentials([UserScramCredentialUpsertion("yan", info, b"yan-secret")])[
            "yan"
        ].result(30)
        data, _ = zk.get(f"{chroot}/config/users/yan")
        stored = json.loads(data)
        assert stored["version"] == 1 and list(stored["config"]) == ["SCRAM-SHA-512"], stored
        fields = dict(kv.split("=", 1) for kv in stored["config"]["SCRAM-SHA-512"].split(","))
        assert list(fields) == ["salt", "stored_key", "server_key", "iterations"], fields
        assert fields["iterations"] == "4096"
        salt = base64.b64decode(fields["salt"])
        assert stored["config"]["SCRAM-SHA-512"] == rfc5802_credential("yan-secret", salt, 4096)
        assert _authenticates(bootstrap, "yan", "yan-secret", "SCRAM-SHA-512")
    finally:
        if broker is not None:
            thread.call(broker.stop())
        thread.close()
        zk.stop()
        zk.close()
