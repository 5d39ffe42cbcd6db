"""SCRAM user management (KIP-554) through the Java Admin client and kafka-python's
KafkaAdminClient: a user created through each authenticates, a deleted one no longer does."""

from __future__ import annotations

import uuid

import pytest
from kafka.admin import (
    KafkaAdminClient,
    ScramMechanism,
    UserScramCredentialDeletion,
    UserScramCredentialUpsertion,
)

from tests.security.conftest import ADMIN, ADMIN_PASSWORD, scram_jaas
from tests.security.test_scram_credentials_api import _authenticates
from tests.support.java_client import JavaClient, require_java

pytestmark = pytest.mark.integration


def test_java_admin_manages_scram_users(secure_broker) -> None:
    require_java()
    bootstrap = secure_broker.address("SASL_PLAINTEXT")
    java = JavaClient(
        bootstrap,
        properties={
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "SCRAM-SHA-512",
            "sasl.jaas.config": scram_jaas(ADMIN, ADMIN_PASSWORD),
        },
    )
    user = f"java-{uuid.uuid4().hex[:6]}"
    with java.session() as admin:
        made = admin.alter_scram_users(upsert={user: ("SCRAM-SHA-512", 8192, "java-secret")})
        assert made["users"] == {user: {"ok": True}}, made
        assert _authenticates(bootstrap, user, "java-secret", "SCRAM-SHA-512")
        assert not _authenticates(bootstrap, user, "wrong", "SCRAM-SHA-512")
        described = admin.describe_scram_users(user)
        assert described["users"][user]["credentials"] == [{"mechanism": "SCRAM-SHA-512", "iterations": 8192}]

        deleted = admin.alter_scram_users(delete={user: "SCRAM-SHA-512"})
        assert deleted["users"] == {user: {"ok": True}}, deleted
        assert not _authenticates(bootstrap, user, "java-secret", "SCRAM-SHA-512")
        gone = admin.describe_scram_users(user)["users"][user]
        assert gone["error_code"] == "RESOURCE_NOT_FOUND", (
            gone
        )  # Kafka's answer for a user without credentials


def test_kafka_python_admin_manages_scram_users(secure_broker) -> None:
    bootstrap = secure_broker.address("SASL_PLAINTEXT")
    admin = KafkaAdminClient(
        bootstrap_servers=bootstrap,
        security_protocol="SASL_PLAINTEXT",
        sasl_mechanism="SCRAM-SHA-256",
        sasl_plain_username=ADMIN,
        sasl_plain_password=ADMIN_PASSWORD,
    )
    user = f"kp-{uuid.uuid4().hex[:6]}"
    try:
        made = admin.alter_user_scram_credentials(
            [UserScramCredentialUpsertion(user, ScramMechanism.SCRAM_SHA_256, "kp-secret", iterations=4096)]
        )
        assert made == {user: None}, made
        assert _authenticates(bootstrap, user, "kp-secret", "SCRAM-SHA-256")
        described = admin.describe_user_scram_credentials([user])[user]
        assert described["error"] is None
        assert [(c["mechanism"], c["iterations"]) for c in described["credential_infos"]] == [
            (ScramMechanism.SCRAM_SHA_256, 4096)
        ]

        deleted = admin.alter_user_scram_credentials(
            [UserScramCredentialDeletion(user, ScramMechanism.SCRAM_SHA_256)]
        )
        assert deleted == {user: None}, deleted
        assert not _authenticates(bootstrap, user, "kp-secret", "SCRAM-SHA-256")
        assert admin.describe_user_scram_credentials([user])[user]["error"] is not None
    finally:
        admin.close()
