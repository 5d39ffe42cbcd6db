"""A fast secured broker for the request-level authorization tests: one embedded (no
ZooKeeper) broker with Kafka's AclAuthorizer (file store), a SASL_PLAINTEXT listener,
``admin`` the super user and ``alice`` a user without ACLs. Each test module makes its own:
``secured, admin, alice, clean_acls = secured_fixtures("name")``."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from broker.broker import Broker
from broker.config import BrokerConfig
from broker.testing.inprocess import LoopThread
from coordinator.acl_model import (
    AccessControlEntry,
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourcePattern,
    ResourceType,
)
from protocol.messages import (
    CreateTopicsRequest,
    MetadataRequest,
    SaslAuthenticateRequest,
    SaslHandshakeRequest,
)
from tests.support.polling import wait_until
from tests.support.wire_client import WireClient

PASSWORDS = {"admin": "admin-secret", "alice": "alice-secret"}
JAAS = (
    "org.apache.kafka.common.security.plain.PlainLoginModule required "
    'username="admin" password="admin-secret" '
    + " ".join(f'user_{u}="{p}"' for u, p in PASSWORDS.items())
    + ";"
)


class Secured:
    def __init__(self, log_dir: Any, **extra: str) -> None:
        self.thread = LoopThread("authz")
        props = {
            "log.dirs": str(log_dir),
            "broker.id": "0",
            "listeners": "SASL_PLAINTEXT://127.0.0.1:0",
            "inter.broker.listener.name": "SASL_PLAINTEXT",
            "sasl.enabled.mechanisms": "PLAIN",
            "sasl.mechanism.inter.broker.protocol": "PLAIN",
            "listener.name.sasl_plaintext.plain.sasl.jaas.config": JAAS,
            "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
            "super.users": "User:admin",
            "offsets.topic.num.partitions": "1",
            "offsets.topic.replication.factor": "1",
            "transaction.state.log.num.partitions": "1",
            "transaction.state.log.replication.factor": "1",
            "transaction.state.log.min.isr": "1",
            "group.initial.rebalance.delay.ms": "0",
        }
        props.update(extra)
        self.broker = Broker(BrokerConfig(props))
        self.thread.call(self.broker.start())
        self.port = self.broker.advertised[0].port

    def client(self, user: str) -> WireClient:
        c = WireClient("127.0.0.1", self.port)
        assert c.request(SaslHandshakeRequest(mechanism="PLAIN"), 1).error_code == 0
        auth = c.request(SaslAuthenticateRequest(auth_bytes=f"\0{user}\0{PASSWORDS[user]}".encode()), 2)
        assert auth.error_code == 0, auth.error_message
        return c

    def grant(
        self,
        rtype: ResourceType,
        name: str,
        *ops: AclOperation,
        user: str = "alice",
        pattern: PatternType = PatternType.LITERAL,
        permission: AclPermissionType = AclPermissionType.ALLOW,
    ) -> None:
        bindings = [
            AclBinding(
                ResourcePattern(rtype, name, pattern),
                AccessControlEntry(f"User:{user}", "*", op, permission),
            )
            for op in ops
        ]
        assert self.thread.call(self.broker.authorizer.create_acls(bindings)) == [None] * len(bindings)

    def revoke_all(self) -> None:
        """Delete every ACL (ANY filter, as Kafka's AclBindingFilter.ANY)."""
        any_filter = AclBindingFilter.from_wire(1, None, 1, None, None, 1, 1)
        self.thread.call(self.broker.authorizer.delete_acls([any_filter]))

    def close(self) -> None:
        self.thread.call(self.broker.stop())
        self.thread.close()


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def create_topic(admin: WireClient, name: str, partitions: int = 1) -> None:
    topic = CreateTopicsRequest.CreatableTopic(name=name, num_partitions=partitions, replication_factor=1)
    r = admin.request(CreateTopicsRequest(topics=[topic], timeout_ms=30_000), 5)
    assert [t.error_code for t in r.topics] == [0], r.topics

    def has_leader() -> bool:
        m = admin.request(MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name=name)]), 9)
        return m.topics[0].error_code == 0 and all(p.leader_id == 0 for p in m.topics[0].partitions)

    wait_until(has_leader, f"{name} has a leader")


def secured_fixtures(name: str) -> tuple[Any, Any, Any, Any]:
    """Module fixtures over one ``Secured`` broker: ``secured`` (module scope), ``admin``
    (module scope) and ``alice`` clients, and ``clean_acls`` (autouse: each test's ACLs are
    revoked after it)."""

    @pytest.fixture(scope="module", name="secured")
    def secured_fixture(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Secured]:
        b = Secured(tmp_path_factory.mktemp(name))
        yield b
        b.close()

    @pytest.fixture(scope="module", name="admin")
    def admin_fixture(secured: Secured) -> Iterator[WireClient]:
        with secured.client("admin") as c:
            yield c

    @pytest.fixture(name="alice")
    def alice_fixture(secured: Secured) -> Iterator[WireClient]:
        with secured.client("alice") as c:
            yield c

    @pytest.fixture(autouse=True, name="clean_acls")
    def clean_acls_fixture(secured: Secured) -> Iterator[None]:
        yield
        secured.revoke_all()

    return secured_fixture, admin_fixture, alice_fixture, clean_acls_fixture
