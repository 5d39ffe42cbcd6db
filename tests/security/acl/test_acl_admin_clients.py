"""CreateAcls / DescribeAcls / DeleteAcls through real admin clients: the Java Admin
(kafka-clients 4.3), confluent-kafka's AdminClient and kafka-python's KafkaAdminClient, against
a broker with ``authorizer.class.name`` (ACLs in its ``acls.json``), and SECURITY_DISABLED from
a broker without an authorizer. On PLAINTEXT every client is ``User:ANONYMOUS``, a super user
here so it may manage ACLs."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

import pytest
from confluent_kafka import KafkaException
from confluent_kafka.admin import (
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    AdminClient,
    ResourcePatternType,
    ResourceType,
)
from kafka.admin import (
    ACL,
    ACLFilter,
    ACLOperation,
    ACLPermissionType,
    ACLResourcePatternType,
    KafkaAdminClient,
    ResourcePattern,
    ResourcePatternFilter,
)
from kafka.admin import ResourceType as KResourceType

from tests.support.broker_process import BrokerProcess
from tests.support.java_client import JavaClient, require_java

pytestmark = pytest.mark.integration

ACL_AUTHORIZER = "kafka.security.authorizer.AclAuthorizer"
TIMEOUT_S = 30


@pytest.fixture(scope="module")
def acl_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    b = BrokerProcess(
        tmp_path_factory.mktemp("acl-broker") / "data",
        {"authorizer.class.name": ACL_AUTHORIZER, "super.users": "User:ANONYMOUS"},
    )
    b.start()
    yield b
    if b.alive():
        b.stop()


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def confluent_admin(broker: BrokerProcess) -> AdminClient:
    return AdminClient({"bootstrap.servers": broker.bootstrap})


def test_confluent_admin_manages_acls(acl_broker: BrokerProcess) -> None:
    admin = confluent_admin(acl_broker)
    topic, group = unique("cf-topic"), unique("cf-group")
    bindings = [
        AclBinding(
            ResourceType.TOPIC,
            topic,
            ResourcePatternType.LITERAL,
            "User:alice",
            "*",
            AclOperation.READ,
            AclPermissionType.ALLOW,
        ),
        AclBinding(
            ResourceType.TOPIC,
            topic[:6],
            ResourcePatternType.PREFIXED,
            "User:bob",
            "10.0.0.1",
            AclOperation.WRITE,
            AclPermissionType.DENY,
        ),
        AclBinding(
            ResourceType.GROUP,
            group,
            ResourcePatternType.LITERAL,
            "User:alice",
            "*",
            AclOperation.ALL,
            AclPermissionType.ALLOW,
        ),
    ]
    for future in admin.create_acls(bindings, request_timeout=TIMEOUT_S).values():
        assert future.result(timeout=TIMEOUT_S) is None

    by_name = AclBindingFilter(
        ResourceType.ANY,
        None,
        ResourcePatternType.ANY,
        "User:alice",
        None,
        AclOperation.ANY,
        AclPermissionType.ANY,
    )
    described = admin.describe_acls(by_name, request_timeout=TIMEOUT_S).result(timeout=TIMEOUT_S)
    assert {(b.restype, b.name, b.operation) for b in described} >= {
        (ResourceType.TOPIC, topic, AclOperation.READ),
        (ResourceType.GROUP, group, AclOperation.ALL),
    }
    # MATCH: the ACLs that apply to the topic, literal and prefixed
    match = AclBindingFilter(
        ResourceType.TOPIC,
        topic,
        ResourcePatternType.MATCH,
        None,
        None,
        AclOperation.ANY,
        AclPermissionType.ANY,
    )
    applying = admin.describe_acls(match, request_timeout=TIMEOUT_S).result(timeout=TIMEOUT_S)
    assert {(b.name, b.resource_pattern_type, b.principal, b.host) for b in applying} == {
        (topic, ResourcePatternType.LITERAL, "User:alice", "*"),
        (topic[:6], ResourcePatternType.PREFIXED, "User:bob", "10.0.0.1"),
    }

    deny_filter = AclBindingFilter(
        ResourceType.TOPIC,
        None,
        ResourcePatternType.PREFIXED,
        "User:bob",
        None,
        AclOperation.ANY,
        AclPermissionType.DENY,
    )
    (deleted_future,) = admin.delete_acls([deny_filter], request_timeout=TIMEOUT_S).values()
    deleted = deleted_future.result(timeout=TIMEOUT_S)
    assert [(b.name, b.operation, b.permission_type) for b in deleted] == [
        (topic[:6], AclOperation.WRITE, AclPermissionType.DENY)
    ]
    remaining = admin.describe_acls(match, request_timeout=TIMEOUT_S).result(timeout=TIMEOUT_S)
    assert [b.principal for b in remaining] == ["User:alice"]

    # the authorizer refuses a Cluster resource not named kafka-cluster (INVALID_REQUEST)
    bad = AclBinding(
        ResourceType.BROKER,
        "other",
        ResourcePatternType.LITERAL,
        "User:x",
        "*",
        AclOperation.ALTER,
        AclPermissionType.ALLOW,
    )
    (bad_future,) = admin.create_acls([bad], request_timeout=TIMEOUT_S).values()
    with pytest.raises(KafkaException) as info:
        bad_future.result(timeout=TIMEOUT_S)
    assert info.value.args[0].name() == "INVALID_REQUEST"


def test_kafka_python_admin_manages_acls(acl_broker: BrokerProcess) -> None:
    admin = KafkaAdminClient(bootstrap_servers=acl_broker.bootstrap, request_timeout_ms=TIMEOUT_S * 1000)
    try:
        topic = unique("kp-topic")
        acl = ACL(
            principal="User:carol",
            host="*",
            operation=ACLOperation.WRITE,
            permission_type=ACLPermissionType.ALLOW,
            resource_pattern=ResourcePattern(KResourceType.TOPIC, topic, ACLResourcePatternType.LITERAL),
        )
        result = admin.create_acls([acl])
        assert result["failed"] == [] and len(result["succeeded"]) == 1

        acl_filter = ACLFilter(
            principal="User:carol",
            host=None,
            operation=ACLOperation.ANY,
            permission_type=ACLPermissionType.ANY,
            resource_pattern=ResourcePatternFilter(
                KResourceType.TOPIC, topic, ACLResourcePatternType.LITERAL
            ),
        )
        acls, error = admin.describe_acls(acl_filter)
        assert error.errno == 0
        assert [(a.principal, a.operation, a.resource_pattern.resource_name) for a in acls] == [
            ("User:carol", ACLOperation.WRITE, topic)
        ]
        ((_, deleted, delete_error),) = admin.delete_acls([acl_filter])
        assert delete_error.errno == 0
        assert [(a.principal, a.operation) for a in deleted] == [("User:carol", ACLOperation.WRITE)]
        acls, _ = admin.describe_acls(acl_filter)
        assert acls == []
    finally:
        admin.close()


def test_java_admin_manages_acls(acl_broker: BrokerProcess) -> None:
    java = JavaClient(acl_broker.bootstrap, runtime=require_java())
    topic = unique("java-topic")
    created = java.run(
        "create-acls",
        "--acl",
        f"topic,literal,{topic},User:dave,*,read,allow",
        "--acl",
        "cluster,literal,kafka-cluster,User:dave,*,idempotent_write,allow",
        "--acl",
        f"transactional_id,prefixed,{topic},User:dave,*,write,allow",
        "--acl",
        "cluster,literal,not-the-cluster,User:dave,*,alter,allow",
    ).last
    results = created["results"]
    assert [r["ok"] for r in results] == [True, True, True, False]
    assert results[3]["error_code"] == "INVALID_REQUEST"

    described = java.run("describe-acls", "--filter", "any,any,-,User:dave,-,any,any").last
    assert described["ok"]
    assert sorted((a["resource_type"], a["pattern_type"], a["operation"]) for a in described["acls"]) == [
        ("CLUSTER", "LITERAL", "IDEMPOTENT_WRITE"),
        ("TOPIC", "LITERAL", "READ"),
        ("TRANSACTIONAL_ID", "PREFIXED", "WRITE"),
    ]
    deleted = java.run("delete-acls", "--filter", "any,any,-,User:dave,-,any,any").last
    (only,) = deleted["filters"]
    assert only["ok"] and len(only["deleted"]) == 3
    assert java.run("describe-acls", "--filter", "any,any,-,User:dave,-,any,any").last["acls"] == []


def test_acls_survive_a_restart_in_the_documented_file(acl_broker: BrokerProcess) -> None:
    admin = confluent_admin(acl_broker)
    topic = unique("kept")
    binding = AclBinding(
        ResourceType.TOPIC,
        topic,
        ResourcePatternType.LITERAL,
        "User:erin",
        "*",
        AclOperation.DESCRIBE,
        AclPermissionType.ALLOW,
    )
    for future in admin.create_acls([binding], request_timeout=TIMEOUT_S).values():
        future.result(timeout=TIMEOUT_S)
    doc = json.loads((acl_broker.log_dir / "acls.json").read_text())
    assert {
        "resourceType": "Topic",
        "patternType": "LITERAL",
        "name": topic,
        "acls": [{"principal": "User:erin", "permissionType": "Allow", "operation": "Describe", "host": "*"}],
    } in doc["resources"]
    acl_broker.stop()
    acl_broker.start()
    admin = confluent_admin(acl_broker)
    match = AclBindingFilter(
        ResourceType.TOPIC,
        topic,
        ResourcePatternType.LITERAL,
        None,
        None,
        AclOperation.ANY,
        AclPermissionType.ANY,
    )
    assert [
        b.principal for b in admin.describe_acls(match, request_timeout=TIMEOUT_S).result(timeout=TIMEOUT_S)
    ] == ["User:erin"]


def test_security_disabled_without_an_authorizer(broker: BrokerProcess) -> None:
    admin = confluent_admin(broker)
    binding = AclBinding(
        ResourceType.TOPIC,
        "t",
        ResourcePatternType.LITERAL,
        "User:x",
        "*",
        AclOperation.READ,
        AclPermissionType.ALLOW,
    )
    for future in admin.create_acls([binding], request_timeout=TIMEOUT_S).values():
        with pytest.raises(KafkaException) as info:
            future.result(timeout=TIMEOUT_S)
        assert info.value.args[0].name() == "SECURITY_DISABLED"
    # (librdkafka's describe_acls ignores the response's top-level error; kafka-python reads it)
    kp = KafkaAdminClient(bootstrap_servers=broker.bootstrap, request_timeout_ms=TIMEOUT_S * 1000)
    try:
        any_acl = ACLFilter(
            principal=None,
            host=None,
            operation=ACLOperation.ANY,
            permission_type=ACLPermissionType.ANY,
            resource_pattern=ResourcePatternFilter(KResourceType.ANY, None, ACLResourcePatternType.ANY),
        )
        with pytest.raises(Exception, match="SecurityDisabled"):
            kp.describe_acls(any_acl)
    finally:
        kp.close()
    java = JavaClient(broker.bootstrap, runtime=require_java())
    created = java.run("create-acls", "--acl", "topic,literal,t,User:x,*,read,allow").last
    assert created["results"][0]["error_code"] == "SECURITY_DISABLED"
    described = java.run("describe-acls").last
    assert described["error_code"] == "SECURITY_DISABLED"
