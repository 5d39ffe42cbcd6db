"""ACLs enforced on real clients (issue 15's acceptance): two SASL/PLAIN users, ``alice`` and
``bob``, and a super user ``admin`` who manages topics and ACLs, on one broker with Kafka's
AclAuthorizer; plus ``User:ANONYMOUS`` on its PLAINTEXT listener, and host-matched ACLs.

- a user with Write but not Read on a topic produces, and its consumer gets
  TOPIC_AUTHORIZATION_FAILED; another user with Read consumes what it wrote;
- a group ACL gates joins and commits (GROUP_AUTHORIZATION_FAILED);
- IdempotentWrite on the cluster (or Write on some topic, KIP-679) gates InitProducerId of an
  idempotent producer, Write on the transactional id a transactional one;
- a prefixed ACL covers a family of topics; Deny beats Allow; super users pass;
- Metadata lists only the topics a principal may describe;
- the authorized operations of topics, the cluster and groups (KIP-430) are the ACLs granted
  with their implied operations, and every supported operation for a super user.
"""

from __future__ import annotations

import re
import socket
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from confluent_kafka import (
    Consumer,
    KafkaError,
    KafkaException,
    Producer,
    TopicCollection,
    TopicPartition,
)
from confluent_kafka.admin import (
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    AdminClient,
    NewTopic,
    ResourcePatternType,
    ResourceType,
)
from kafka import KafkaConsumer
from kafka import TopicPartition as KTopicPartition
from kafka.errors import TopicAuthorizationFailedError

from protocol.errors import ErrorCode
from protocol.messages import (
    InitProducerIdRequest,
    MetadataRequest,
    SaslAuthenticateRequest,
    SaslHandshakeRequest,
)
from tests.support.broker_process import BrokerProcess
from tests.support.java_client import JavaClient, produce_args, require_java
from tests.support.wire_client import WireClient

pytestmark = pytest.mark.integration

# carol is used only by the authorized-operations tests (they grant her cluster ACLs)
PASSWORDS = {"admin": "admin-secret", "alice": "alice-secret", "bob": "bob-secret", "carol": "carol-secret"}
JAAS = (
    "org.apache.kafka.common.security.plain.PlainLoginModule required "
    + " ".join(f'user_{u}="{p}"' for u, p in PASSWORDS.items())
    + ";"
)
TIMEOUT_S = 30


class SecureBroker:
    """The broker and how each user reaches it."""

    def __init__(self, process: BrokerProcess) -> None:
        self.process = process
        line = process.wait_for_log(r"listening on SASL_PLAINTEXT://")
        self._admin: AdminClient | None = None
        self.sasl_port = int(re.search(r"SASL_PLAINTEXT://[^:]+:(\d+)", line).group(1))  # type: ignore[union-attr]

    @property
    def sasl_bootstrap(self) -> str:
        return f"127.0.0.1:{self.sasl_port}"

    def conf(self, user: str, **extra: Any) -> dict[str, Any]:
        return {
            "bootstrap.servers": self.sasl_bootstrap,
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "PLAIN",
            "sasl.username": user,
            "sasl.password": PASSWORDS[user],
            **extra,
        }

    def admin(self) -> AdminClient:
        """The super user's admin client (kept: librdkafka fails the futures of a destroyed one)."""
        if self._admin is None:
            self._admin = AdminClient(self.conf("admin"))
        return self._admin

    def allow(self, *bindings: AclBinding) -> None:
        for future in self.admin().create_acls(list(bindings), request_timeout=TIMEOUT_S).values():
            future.result(timeout=TIMEOUT_S)

    def revoke(self, binding: AclBinding) -> None:
        f = AclBindingFilter(
            binding.restype,
            binding.name,
            binding.resource_pattern_type,
            binding.principal,
            binding.host,
            binding.operation,
            binding.permission_type,
        )
        for future in self.admin().delete_acls([f], request_timeout=TIMEOUT_S).values():
            assert future.result(timeout=TIMEOUT_S)

    def create_topics(self, *names: str) -> None:
        futures = self.admin().create_topics([NewTopic(n, 1, 1) for n in names], request_timeout=TIMEOUT_S)
        for future in futures.values():
            future.result(timeout=TIMEOUT_S)


@pytest.fixture(scope="module")
def secure(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SecureBroker]:
    process = BrokerProcess(
        tmp_path_factory.mktemp("acl-enforcement") / "data",
        {
            "listeners": "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
            "sasl.enabled.mechanisms": "PLAIN",
            "listener.name.sasl_plaintext.plain.sasl.jaas.config": JAAS,
            "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
            "super.users": "User:admin",
            "offsets.topic.num.partitions": "1",
            "group.initial.rebalance.delay.ms": "0",
        },
    )
    process.start()
    yield SecureBroker(process)
    if process.alive():
        process.stop()


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def acl(
    rtype: ResourceType,
    name: str,
    user: str,
    op: AclOperation,
    perm: AclPermissionType = AclPermissionType.ALLOW,
    pattern: ResourcePatternType = ResourcePatternType.LITERAL,
    host: str = "*",
) -> AclBinding:
    return AclBinding(rtype, name, pattern, f"User:{user}", host, op, perm)


def produce(conf: dict[str, Any], topic: str, n: int = 3) -> list[KafkaError | None]:
    """Produce ``n`` records; the delivery error of each (None: delivered)."""
    producer = Producer({**conf, "message.timeout.ms": 15_000, "retries": 0})
    errors: list[KafkaError | None] = []
    for i in range(n):
        producer.produce(topic, f"v{i}".encode(), on_delivery=lambda err, _msg: errors.append(err))
    assert producer.flush(TIMEOUT_S) == 0
    return errors


def first_error(consumer: Consumer, until: Callable[[Any], bool], timeout: float = TIMEOUT_S) -> Any:
    """Poll until a message (or error event) satisfies ``until``; return it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        msg = consumer.poll(0.5)
        if msg is not None and until(msg):
            return msg
    raise AssertionError("no matching message or error")


def consumer(secure: SecureBroker, user: str, group: str) -> Consumer:
    return Consumer(
        secure.conf(user, **{"group.id": group, "auto.offset.reset": "earliest", "enable.auto.commit": False})
    )


def test_write_without_read_produces_but_cannot_consume(secure: SecureBroker) -> None:
    topic, group = unique("wo"), unique("wo-group")
    secure.create_topics(topic)
    secure.allow(
        acl(ResourceType.TOPIC, topic, "alice", AclOperation.WRITE),
        acl(ResourceType.GROUP, group, "alice", AclOperation.READ),
        acl(ResourceType.TOPIC, topic, "bob", AclOperation.READ),
        acl(ResourceType.GROUP, group, "bob", AclOperation.READ),
    )
    assert produce(secure.conf("alice"), topic) == [None, None, None]
    assert [e.code() for e in produce(secure.conf("bob"), topic, 1)] == [
        KafkaError.TOPIC_AUTHORIZATION_FAILED
    ]

    c = consumer(secure, "alice", group)
    try:
        c.subscribe([topic])
        msg = first_error(
            c, lambda m: m.error() is not None and m.error().code() != KafkaError._PARTITION_EOF
        )
        assert msg.error().code() == KafkaError.TOPIC_AUTHORIZATION_FAILED
    finally:
        c.close()

    # bob may read: he gets what alice wrote
    c = consumer(secure, "bob", group)
    try:
        c.subscribe([topic])
        values = []
        while len(values) < 3:
            msg = first_error(c, lambda m: m.error() is None)
            values.append(msg.value())
        assert values == [b"v0", b"v1", b"v2"]
    finally:
        c.close()

    # kafka-python's consumer: TopicAuthorizationFailedError for alice
    kc = KafkaConsumer(
        bootstrap_servers=secure.sasl_bootstrap,
        security_protocol="SASL_PLAINTEXT",
        sasl_mechanism="PLAIN",
        sasl_plain_username="alice",
        sasl_plain_password=PASSWORDS["alice"],
        auto_offset_reset="earliest",
        consumer_timeout_ms=10_000,
    )
    try:
        kc.assign([KTopicPartition(topic, 0)])
        deadline = time.monotonic() + TIMEOUT_S
        with pytest.raises(TopicAuthorizationFailedError):
            while time.monotonic() < deadline:
                kc.poll(timeout_ms=1_000)
    finally:
        kc.close()


def test_group_acl_gates_joins_and_commits(secure: SecureBroker) -> None:
    topic, group = unique("grp"), unique("grp-group")
    secure.create_topics(topic)
    secure.allow(acl(ResourceType.TOPIC, topic, "alice", AclOperation.ALL))
    assert produce(secure.conf("alice"), topic, 2) == [None, None]

    c = consumer(secure, "alice", group)
    try:
        c.subscribe([topic])
        msg = first_error(c, lambda m: m.error() is not None)
        assert msg.error().code() == KafkaError.GROUP_AUTHORIZATION_FAILED
    finally:
        c.close()

    group_read = acl(ResourceType.GROUP, group, "alice", AclOperation.READ)
    secure.allow(group_read)
    c = consumer(secure, "alice", group)
    try:
        c.subscribe([topic])
        msg = first_error(c, lambda m: m.error() is None)
        assert msg.value() == b"v0"
        c.commit(message=msg, asynchronous=False)
        committed = c.committed([TopicPartition(topic, 0)], timeout=TIMEOUT_S)
        assert committed[0].offset == 1
        secure.revoke(group_read)
        with pytest.raises(KafkaException) as info:
            c.commit(offsets=[TopicPartition(topic, 0, 2)], asynchronous=False)
        assert info.value.args[0].code() == KafkaError.GROUP_AUTHORIZATION_FAILED
    finally:
        c.close()


def test_idempotent_write_gates_init_producer_id(secure: SecureBroker) -> None:
    topic = unique("idem")
    secure.create_topics(topic)
    secure.allow(acl(ResourceType.TOPIC, topic, "bob", AclOperation.DESCRIBE))
    # no Write on any topic and no IdempotentWrite: the idempotent producer fails fatally
    producer = Producer(secure.conf("bob", **{"enable.idempotence": True}))
    producer.produce(topic, b"x")
    deadline = time.monotonic() + TIMEOUT_S
    with pytest.raises(KafkaException) as info:  # librdkafka raises its fatal error from poll()
        while time.monotonic() < deadline:
            producer.poll(0.2)
    fatal = info.value.args[0]
    assert fatal.fatal() and fatal.code() == KafkaError.CLUSTER_AUTHORIZATION_FAILED
    producer.purge()
    with WireClient("127.0.0.1", secure.process.port) as wire:  # ANONYMOUS, the same refusal
        answer = wire.request(InitProducerIdRequest(transactional_id=None, transaction_timeout_ms=60_000), 4)
        assert answer.error_code == ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code

    secure.allow(acl(ResourceType.BROKER, "kafka-cluster", "bob", AclOperation.IDEMPOTENT_WRITE))
    # now InitProducerId passes; the topic itself still needs Write
    producer = Producer(secure.conf("bob", **{"enable.idempotence": True, "message.timeout.ms": 10_000}))
    errors = []
    producer.produce(topic, b"x", on_delivery=lambda err, _m: errors.append(err))
    producer.flush(TIMEOUT_S)
    assert [e.code() for e in errors] == [KafkaError.TOPIC_AUTHORIZATION_FAILED]
    secure.allow(acl(ResourceType.TOPIC, topic, "bob", AclOperation.WRITE))
    producer = Producer(secure.conf("bob", **{"enable.idempotence": True}))
    errors = []
    producer.produce(topic, b"x", on_delivery=lambda err, _m: errors.append(err))
    producer.flush(TIMEOUT_S)
    assert errors == [None]


def test_transactional_id_write_gates_transactions(secure: SecureBroker) -> None:
    producer = Producer(secure.conf("alice", **{"transactional.id": unique("txn")}))
    with pytest.raises(KafkaException) as info:
        producer.init_transactions(TIMEOUT_S)
    assert info.value.args[0].code() == KafkaError.TRANSACTIONAL_ID_AUTHORIZATION_FAILED


def test_java_transactional_producer_needs_write_on_its_transactional_id(secure: SecureBroker) -> None:
    """The Java transactional producer: refused at initTransactions with a
    TransactionalIdAuthorizationException without Write on its transactional id; with it (and
    Write on the topic) its transactions commit and abort (AddPartitionsToTxn, EndTxn)."""
    topic, txn_id = unique("java-txn"), unique("java-txn-id")
    secure.create_topics(topic)
    secure.allow(acl(ResourceType.TOPIC, topic, "alice", AclOperation.WRITE))
    java = JavaClient(
        secure.sasl_bootstrap,
        runtime=require_java(),
        properties={
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "PLAIN",
            "sasl.jaas.config": "org.apache.kafka.common.security.plain.PlainLoginModule required "
            'username="alice" password="alice-secret";',
            "max.block.ms": 20_000,
        },
    )
    args = ("--topic", topic, "--transactional-id", txn_id, "--transactions", "2", "--records-per-txn", "2")
    refused = java.run("txn-produce", *args, "--abort-every", "0", check=False).last
    assert not refused["ok"]
    assert refused["error"] == "TransactionalIdAuthorizationException", refused
    secure.allow(acl(ResourceType.TRANSACTIONAL_ID, txn_id, "alice", AclOperation.WRITE))
    done = java.run("txn-produce", *args, "--abort-every", "2").last
    assert done["ok"] and len(done["committed"]) == 2 and len(done["aborted"]) == 2


def test_java_idempotent_producer_with_write_on_a_topic(secure: SecureBroker) -> None:
    """The Java producer is idempotent by default; Write on some topic lets its InitProducerId
    through without IdempotentWrite (KIP-679), and each topic still needs its own Write."""
    topic, elsewhere = unique("java"), unique("java-other")
    secure.create_topics(topic, elsewhere)
    secure.allow(
        acl(ResourceType.TOPIC, elsewhere, "alice", AclOperation.WRITE),
        acl(ResourceType.TOPIC, topic, "alice", AclOperation.DESCRIBE),
    )
    java = JavaClient(
        secure.sasl_bootstrap,
        runtime=require_java(),
        properties={
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "PLAIN",
            "sasl.jaas.config": "org.apache.kafka.common.security.plain.PlainLoginModule required "
            'username="alice" password="alice-secret";',
        },
    )
    args = produce_args(topic=topic, count=3, delivery_timeout_ms=15_000, request_timeout_ms=10_000)
    refused = java.run("produce", *args).last
    assert not refused["ok"] and refused["acked"] == 0
    assert {e["error_code"] for e in refused["errors"]} == {"TOPIC_AUTHORIZATION_FAILED"}
    secure.allow(acl(ResourceType.TOPIC, topic, "alice", AclOperation.WRITE))
    done = java.run("produce", *args).last
    assert done["ok"] and done["acked"] == 3


def test_prefixed_acl_covers_a_family_of_topics(secure: SecureBroker) -> None:
    family = unique("fam") + "-"
    a, b, other = family + "a", family + "b", unique("other")
    secure.create_topics(a, b, other)
    secure.allow(
        acl(ResourceType.TOPIC, family, "alice", AclOperation.WRITE, pattern=ResourcePatternType.PREFIXED)
    )
    assert produce(secure.conf("alice"), a, 1) == [None]
    assert produce(secure.conf("alice"), b, 1) == [None]
    assert [e.code() for e in produce(secure.conf("alice"), other, 1)] == [
        KafkaError.TOPIC_AUTHORIZATION_FAILED
    ]
    # Metadata lists the family (Describe is implied by Write), not the other topic
    alice = AdminClient(secure.conf("alice"))
    topics = alice.list_topics(timeout=TIMEOUT_S).topics
    assert {a, b} <= set(topics) and other not in topics


def test_deny_beats_allow(secure: SecureBroker) -> None:
    topic, group = unique("deny"), unique("deny-group")
    secure.create_topics(topic)
    secure.allow(
        acl(ResourceType.TOPIC, topic, "alice", AclOperation.ALL),
        acl(ResourceType.TOPIC, topic, "*", AclOperation.WRITE, AclPermissionType.DENY),
        acl(ResourceType.GROUP, group, "alice", AclOperation.READ),
    )
    assert [e.code() for e in produce(secure.conf("alice"), topic, 1)] == [
        KafkaError.TOPIC_AUTHORIZATION_FAILED
    ]
    assert produce(secure.conf("admin"), topic, 1) == [None]  # a super user passes even a Deny
    c = consumer(secure, "alice", group)
    try:
        c.subscribe([topic])
        msg = first_error(c, lambda m: m.error() is None)  # Read is still allowed
        assert msg.value() == b"v0"
    finally:
        c.close()


def test_super_user_passes_without_acls(secure: SecureBroker) -> None:
    topic, group = unique("super"), unique("super-group")
    assert produce(secure.conf("admin"), topic, 2) == [None, None]  # auto-created: Create implied
    c = consumer(secure, "admin", group)
    try:
        c.subscribe([topic])
        assert first_error(c, lambda m: m.error() is None).value() == b"v0"
    finally:
        c.close()


def test_anonymous_on_plaintext_and_host_matching(secure: SecureBroker) -> None:
    """PLAINTEXT is User:ANONYMOUS; an ACL naming a host applies to clients from it only."""
    topic = unique("anon")
    secure.create_topics(topic)
    plaintext = {"bootstrap.servers": secure.process.bootstrap}
    assert [e.code() for e in produce(plaintext, topic, 1)] == [KafkaError.TOPIC_AUTHORIZATION_FAILED]
    secure.allow(acl(ResourceType.TOPIC, topic, "ANONYMOUS", AclOperation.WRITE, host="127.0.0.1"))
    assert produce(plaintext, topic, 1) == [None]

    def metadata_from(source: str) -> int:
        with WireClient("127.0.0.1", secure.process.port) as wire:
            wire.sock.close()
            wire.sock = socket.create_connection(
                ("127.0.0.1", secure.process.port), timeout=10, source_address=(source, 0)
            )
            answer = wire.request(
                MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name=topic)]), 9
            )
            return answer.topics[0].error_code

    assert metadata_from("127.0.0.1") == 0
    assert metadata_from("127.0.0.2") == ErrorCode.TOPIC_AUTHORIZATION_FAILED.code


# -- KIP-430 authorized operations, through confluent-kafka's admin client --------------

TOPIC_OPS = {
    AclOperation.READ, AclOperation.WRITE, AclOperation.CREATE, AclOperation.DELETE,
    AclOperation.ALTER, AclOperation.DESCRIBE, AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS,
}  # fmt: skip  # Kafka's AclEntry.supportedOperations(TOPIC)
CLUSTER_OPS = {
    AclOperation.CREATE, AclOperation.CLUSTER_ACTION, AclOperation.DESCRIBE_CONFIGS,
    AclOperation.ALTER_CONFIGS, AclOperation.IDEMPOTENT_WRITE, AclOperation.ALTER, AclOperation.DESCRIBE,
}  # fmt: skip
GROUP_OPS = {AclOperation.READ, AclOperation.DESCRIBE, AclOperation.DELETE}


def topic_operations(admin: AdminClient, topic: str) -> set[AclOperation]:
    """describe_topics asks Metadata with include_topic_authorized_operations."""
    futures = admin.describe_topics(TopicCollection([topic]), include_authorized_operations=True)
    return set(futures[topic].result(TIMEOUT_S).authorized_operations)


def test_topic_authorized_operations(secure: SecureBroker) -> None:
    topic = unique("ops")
    secure.create_topics(topic)
    secure.allow(acl(ResourceType.TOPIC, topic, "carol", AclOperation.READ))
    carol = AdminClient(secure.conf("carol"))
    assert topic_operations(carol, topic) == {AclOperation.READ, AclOperation.DESCRIBE}  # Describe implied
    secure.allow(acl(ResourceType.TOPIC, topic, "carol", AclOperation.ALTER_CONFIGS))
    assert topic_operations(carol, topic) == {
        AclOperation.READ,
        AclOperation.DESCRIBE,
        AclOperation.ALTER_CONFIGS,
        AclOperation.DESCRIBE_CONFIGS,  # implied by AlterConfigs
    }
    secure.allow(acl(ResourceType.TOPIC, topic, "carol", AclOperation.READ, AclPermissionType.DENY))
    assert topic_operations(carol, topic) == {
        AclOperation.DESCRIBE,
        AclOperation.ALTER_CONFIGS,
        AclOperation.DESCRIBE_CONFIGS,
    }
    assert topic_operations(secure.admin(), topic) == TOPIC_OPS


def test_cluster_authorized_operations(secure: SecureBroker) -> None:
    """describe_cluster asks DescribeCluster with include_cluster_authorized_operations."""

    def cluster_operations(admin: AdminClient) -> set[AclOperation]:
        result = admin.describe_cluster(include_authorized_operations=True).result(TIMEOUT_S)
        return set(result.authorized_operations or ())

    carol = AdminClient(secure.conf("carol"))
    assert cluster_operations(carol) == set()  # KafkaApis: no Describe on the cluster, no operations
    secure.allow(
        acl(ResourceType.BROKER, "kafka-cluster", "carol", AclOperation.DESCRIBE),
        acl(ResourceType.BROKER, "kafka-cluster", "carol", AclOperation.IDEMPOTENT_WRITE),
    )
    assert cluster_operations(carol) == {AclOperation.DESCRIBE, AclOperation.IDEMPOTENT_WRITE}
    assert cluster_operations(secure.admin()) == CLUSTER_OPS

    # Metadata v8-v10 carry the cluster's bits too (KIP-430; v11 dropped the field)
    with WireClient("127.0.0.1", secure.sasl_port) as wire:
        assert wire.request(SaslHandshakeRequest(mechanism="PLAIN"), 1).error_code == 0
        login = SaslAuthenticateRequest(auth_bytes=f"\0carol\0{PASSWORDS['carol']}".encode())
        assert wire.request(login, 2).error_code == 0
        asked = MetadataRequest(topics=[], include_cluster_authorized_operations=True)
        bits = wire.request(asked, 10).cluster_authorized_operations
    assert bits == (1 << 8) | (1 << 12)  # DESCRIBE (8), IDEMPOTENT_WRITE (12): AclOperation codes


def test_group_authorized_operations(secure: SecureBroker) -> None:
    """describe_consumer_groups asks DescribeGroups with include_authorized_operations."""
    topic, group = unique("ops-group-topic"), unique("ops-group")
    secure.create_topics(topic)
    secure.allow(
        acl(ResourceType.TOPIC, topic, "carol", AclOperation.READ),
        acl(ResourceType.GROUP, group, "carol", AclOperation.READ),
    )
    c = consumer(secure, "carol", group)
    try:
        c.subscribe([topic])
        wait_for_assignment = time.monotonic() + TIMEOUT_S
        while not c.assignment():
            assert time.monotonic() < wait_for_assignment, "carol's consumer joined no group"
            c.poll(0.2)

        def group_operations(admin: AdminClient) -> set[AclOperation]:
            futures = admin.describe_consumer_groups([group], include_authorized_operations=True)
            return set(futures[group].result(TIMEOUT_S).authorized_operations)

        assert group_operations(AdminClient(secure.conf("carol"))) == {
            AclOperation.READ,
            AclOperation.DESCRIBE,
        }
        assert group_operations(secure.admin()) == GROUP_OPS
    finally:
        c.close()
