"""DescribeUserScramCredentials / AlterUserScramCredentials (KIP-554) through confluent-kafka's
admin client on a broker without ZooKeeper (the local credentials file): Kafka's per-user
errors, credentials that authenticate at once and survive a restart."""

from __future__ import annotations

import pytest
from confluent_kafka import KafkaError, KafkaException, Producer
from confluent_kafka.admin import (
    AdminClient,
    ScramCredentialInfo,
    ScramMechanism,
    UserScramCredentialDeletion,
    UserScramCredentialUpsertion,
)

from broker.security.credential_store import CREDENTIALS_FILE
from tests.security.conftest import ADMIN, ADMIN_PASSWORD, SecureBroker

pytestmark = pytest.mark.integration


def _sasl(user: str, password: str, mechanism: str = "SCRAM-SHA-256") -> dict:
    return {
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": mechanism,
        "sasl.username": user,
        "sasl.password": password,
    }


def _authenticates(bootstrap: str, user: str, password: str, mechanism: str = "SCRAM-SHA-256") -> bool:
    errors: list[KafkaError] = []
    producer = Producer(
        {"bootstrap.servers": bootstrap, "error_cb": errors.append, **_sasl(user, password, mechanism)}
    )
    producer.produce("scram-api", b"x")
    for _ in range(150):
        if producer.flush(0.1) == 0:
            return True
        if any(e.code() == KafkaError._AUTHENTICATION for e in errors):
            return False
    raise AssertionError(f"neither delivered nor refused: {errors}")


def _error(future) -> KafkaError | None:
    try:
        future.result(30)
    except KafkaException as exc:
        return exc.args[0]
    return None


def test_alter_and_describe_users(secure_broker):
    bootstrap = secure_broker.address("SASL_PLAINTEXT")
    admin = AdminClient({"bootstrap.servers": bootstrap, **_sasl(ADMIN, ADMIN_PASSWORD)})
    sha256 = ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096)
    sha512 = ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 10000)
    results = admin.alter_user_scram_credentials(
        [
            UserScramCredentialUpsertion("dave", sha256, b"dave-secret"),
            UserScramCredentialUpsertion("dave", sha512, b"dave-secret"),
            UserScramCredentialUpsertion(
                "weak", ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 1000), b"p"
            ),
            UserScramCredentialUpsertion("twice", sha256, b"a"),
            UserScramCredentialUpsertion("twice", sha256, b"b"),
            UserScramCredentialDeletion("ghost", ScramMechanism.SCRAM_SHA_512),
        ]
    )
    assert _error(results["dave"]) is None
    assert _error(results["weak"]).code() == KafkaError.UNACCEPTABLE_CREDENTIAL
    assert _error(results["twice"]).code() == KafkaError.DUPLICATE_RESOURCE
    assert _error(results["ghost"]).code() == KafkaError.RESOURCE_NOT_FOUND

    described = admin.describe_user_scram_credentials(["dave", "ghost"])
    infos = described["dave"].result(30).scram_credential_infos
    assert sorted((i.mechanism, i.iterations) for i in infos) == [
        (ScramMechanism.SCRAM_SHA_256, 4096),
        (ScramMechanism.SCRAM_SHA_512, 10000),
    ]
    assert _error(described["ghost"]).code() == KafkaError.RESOURCE_NOT_FOUND
    everyone = admin.describe_user_scram_credentials().result(30)
    assert {"admin", "alice", "dave"} <= set(everyone) and "weak" not in everyone

    assert _authenticates(bootstrap, "dave", "dave-secret", "SCRAM-SHA-512")
    assert not _authenticates(bootstrap, "dave", "wrong", "SCRAM-SHA-512")

    # deleting one mechanism leaves the other
    results = admin.alter_user_scram_credentials(
        [UserScramCredentialDeletion("dave", ScramMechanism.SCRAM_SHA_512)]
    )
    assert _error(results["dave"]) is None
    assert not _authenticates(bootstrap, "dave", "dave-secret", "SCRAM-SHA-512")
    assert _authenticates(bootstrap, "dave", "dave-secret", "SCRAM-SHA-256")


def test_credentials_survive_a_restart(secure_broker):
    admin = AdminClient(
        {"bootstrap.servers": secure_broker.address("SASL_PLAINTEXT"), **_sasl(ADMIN, ADMIN_PASSWORD)}
    )
    info = ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096)
    assert (
        _error(
            admin.alter_user_scram_credentials([UserScramCredentialUpsertion("erin", info, b"erin-pw")])[
                "erin"
            ]
        )
        is None
    )
    process = secure_broker.process
    assert "erin" in (process.log_dir / CREDENTIALS_FILE).read_text()
    process.restart()
    restarted = SecureBroker(process)
    assert _authenticates(restarted.address("SASL_PLAINTEXT"), "erin", "erin-pw")
