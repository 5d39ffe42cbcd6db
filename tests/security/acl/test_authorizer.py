"""AclAuthorizer semantics (Kafka's AclAuthorizerTest): implied operations, Deny wins,
prefixed and wildcard patterns, super users, allow.everyone.if.no.acl.found, hosts, and the
file store a lone broker keeps its ACLs in."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from coordinator.acl_authorizer import AclAuthorizer, parse_super_users
from coordinator.acl_model import (
    CLUSTER_NAME,
    AccessControlEntry,
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourcePattern,
    ResourceType,
)
from coordinator.acl_store import FileAclStore
from coordinator.principal import KafkaPrincipal

ALICE = KafkaPrincipal("User", "alice")
BOB = KafkaPrincipal("User", "bob")
HOST = "10.0.0.1"
Op = AclOperation
ALLOW, DENY = AclPermissionType.ALLOW, AclPermissionType.DENY
TOPIC, GROUP, CLUSTER, TXN = (
    ResourceType.TOPIC,
    ResourceType.GROUP,
    ResourceType.CLUSTER,
    ResourceType.TRANSACTIONAL_ID,
)
LITERAL, PREFIXED = PatternType.LITERAL, PatternType.PREFIXED


def binding(
    rtype: ResourceType,
    name: str,
    op: AclOperation,
    perm: AclPermissionType = ALLOW,
    *,
    principal: str = "User:alice",
    host: str = "*",
    pattern: PatternType = LITERAL,
) -> AclBinding:
    return AclBinding(ResourcePattern(rtype, name, pattern), AccessControlEntry(principal, host, op, perm))


def everything() -> AclBindingFilter:
    return AclBindingFilter(
        ResourceType.ANY, None, PatternType.ANY, None, None, AclOperation.ANY, AclPermissionType.ANY
    )


def make(tmp_path: Path, *acls: AclBinding, **kw) -> AclAuthorizer:
    tmp_path.mkdir(parents=True, exist_ok=True)
    authorizer = AclAuthorizer(FileAclStore(tmp_path / "acls.json"), **kw)

    async def go() -> None:
        await authorizer.start()
        if acls:
            assert await authorizer.create_acls(list(acls)) == [None] * len(acls)

    asyncio.run(go())
    return authorizer


def test_no_acl_denies_unless_allow_everyone(tmp_path: Path) -> None:
    assert not make(tmp_path).authorize(ALICE, HOST, Op.READ, TOPIC, "t")
    assert make(tmp_path / "b", allow_everyone_if_no_acl_found=True).authorize(
        ALICE, HOST, Op.READ, TOPIC, "t"
    )
    # an ACL on the resource for someone else: allow.everyone no longer applies
    a = make(
        tmp_path / "c",
        binding(TOPIC, "t", Op.READ, principal="User:bob"),
        allow_everyone_if_no_acl_found=True,
    )
    assert not a.authorize(ALICE, HOST, Op.READ, TOPIC, "t")
    assert a.authorize(BOB, HOST, Op.READ, TOPIC, "t")
    assert a.authorize(ALICE, HOST, Op.READ, TOPIC, "other")


@pytest.mark.parametrize("granted", [Op.READ, Op.WRITE, Op.DELETE, Op.ALTER, Op.DESCRIBE])
def test_describe_is_implied(tmp_path: Path, granted: AclOperation) -> None:
    a = make(tmp_path, binding(TOPIC, "t", granted))
    assert a.authorize(ALICE, HOST, Op.DESCRIBE, TOPIC, "t")
    assert a.authorize(ALICE, HOST, granted, TOPIC, "t")
    others = {Op.READ, Op.WRITE, Op.DELETE, Op.ALTER, Op.CREATE, Op.ALTER_CONFIGS} - {granted}
    assert not any(a.authorize(ALICE, HOST, op, TOPIC, "t") for op in others)


def test_describe_configs_implied_by_alter_configs_only(tmp_path: Path) -> None:
    a = make(tmp_path, binding(TOPIC, "t", Op.ALTER_CONFIGS), binding(TOPIC, "u", Op.DESCRIBE_CONFIGS))
    assert a.authorize(ALICE, HOST, Op.DESCRIBE_CONFIGS, TOPIC, "t")
    assert not a.authorize(ALICE, HOST, Op.ALTER_CONFIGS, TOPIC, "u")
    assert not a.authorize(ALICE, HOST, Op.DESCRIBE, TOPIC, "t")  # AlterConfigs does not imply Describe


def test_all_grants_every_operation(tmp_path: Path) -> None:
    a = make(tmp_path, binding(CLUSTER, CLUSTER_NAME, Op.ALL))
    for op in (Op.CREATE, Op.CLUSTER_ACTION, Op.IDEMPOTENT_WRITE, Op.ALTER, Op.DESCRIBE_CONFIGS):
        assert a.authorize(ALICE, HOST, op, CLUSTER, CLUSTER_NAME)


def test_deny_wins(tmp_path: Path) -> None:
    a = make(
        tmp_path,
        binding(TOPIC, "t", Op.ALL),
        binding(TOPIC, "t", Op.WRITE, DENY),
        binding(TOPIC, "*", Op.READ, DENY, principal="User:*", host="10.0.0.9"),
    )
    assert not a.authorize(ALICE, HOST, Op.WRITE, TOPIC, "t")
    assert a.authorize(ALICE, HOST, Op.READ, TOPIC, "t")
    assert a.authorize(ALICE, HOST, Op.DESCRIBE, TOPIC, "t")  # a Deny of Write does not deny Describe
    assert not a.authorize(ALICE, "10.0.0.9", Op.READ, TOPIC, "t")  # wildcard principal, that host
    # a Deny of All denies the implied Describe too
    b = make(tmp_path / "b", binding(TOPIC, "t", Op.READ), binding(TOPIC, "t", Op.ALL, DENY))
    assert not b.authorize(ALICE, HOST, Op.DESCRIBE, TOPIC, "t")


def test_prefixed_and_wildcard(tmp_path: Path) -> None:
    a = make(
        tmp_path,
        binding(TOPIC, "orders-", Op.READ, pattern=PREFIXED),
        binding(TOPIC, "orders-secret", Op.READ, DENY, pattern=PREFIXED),
        binding(GROUP, "*", Op.READ),
    )
    assert a.authorize(ALICE, HOST, Op.READ, TOPIC, "orders-eu")
    assert a.authorize(ALICE, HOST, Op.READ, TOPIC, "orders-")
    assert not a.authorize(ALICE, HOST, Op.READ, TOPIC, "orders")
    assert not a.authorize(ALICE, HOST, Op.READ, TOPIC, "orders-secret-1")
    assert not a.authorize(ALICE, HOST, Op.READ, TOPIC, "payments")
    assert a.authorize(ALICE, HOST, Op.READ, GROUP, "any-group")
    assert not a.authorize(BOB, HOST, Op.READ, GROUP, "any-group")


def test_hosts(tmp_path: Path) -> None:
    a = make(tmp_path, binding(TOPIC, "t", Op.READ, host=HOST))
    assert a.authorize(ALICE, HOST, Op.READ, TOPIC, "t")
    assert not a.authorize(ALICE, "10.0.0.2", Op.READ, TOPIC, "t")


def test_super_users(tmp_path: Path) -> None:
    supers = parse_super_users(" User:admin ; User:ops;")
    assert supers == {KafkaPrincipal("User", "admin"), KafkaPrincipal("User", "ops")}
    a = make(tmp_path, binding(TOPIC, "t", Op.ALL, DENY, principal="User:*"), super_users=supers)
    assert a.authorize(KafkaPrincipal("User", "admin"), HOST, Op.WRITE, TOPIC, "t")
    assert not a.authorize(ALICE, HOST, Op.WRITE, TOPIC, "t")
    with pytest.raises(ValueError):
        parse_super_users("admin")


def test_authorize_by_resource_type(tmp_path: Path) -> None:
    a = make(tmp_path)
    assert not a.authorize_by_resource_type(ALICE, HOST, Op.WRITE, TOPIC)
    b = make(tmp_path / "b", binding(TOPIC, "t", Op.WRITE))
    assert b.authorize_by_resource_type(ALICE, HOST, Op.WRITE, TOPIC)
    assert not b.authorize_by_resource_type(BOB, HOST, Op.WRITE, TOPIC)
    c = make(tmp_path / "c", binding(TOPIC, "t", Op.WRITE), binding(TOPIC, "t", Op.WRITE, DENY))
    assert not c.authorize_by_resource_type(ALICE, HOST, Op.WRITE, TOPIC)
    d = make(
        tmp_path / "d",
        binding(TOPIC, "abc", Op.WRITE, pattern=PREFIXED),
        binding(TOPIC, "ab", Op.WRITE, DENY, pattern=PREFIXED),
    )
    assert not d.authorize_by_resource_type(ALICE, HOST, Op.WRITE, TOPIC)
    e = make(tmp_path / "e", binding(TOPIC, "t", Op.WRITE), binding(TOPIC, "*", Op.WRITE, DENY))
    assert not e.authorize_by_resource_type(ALICE, HOST, Op.WRITE, TOPIC)


def test_create_describe_delete_and_file_format(tmp_path: Path) -> None:
    a = make(
        tmp_path,
        binding(TOPIC, "t", Op.READ),
        binding(TOPIC, "t", Op.WRITE, principal="User:bob"),
        binding(TOPIC, "t-", Op.READ, pattern=PREFIXED),
        binding(TXN, "tx", Op.WRITE),
    )
    assert len(a.acls(everything())) == 4
    by_bob = everything()._replace(principal="User:bob")
    assert [b.entry.operation for b in a.acls(by_bob)] == [Op.WRITE]
    # MATCH: the patterns that apply to topic t-1
    match = everything()._replace(resource_type=TOPIC, name="t-1", pattern_type=PatternType.MATCH)
    assert [b.pattern.name for b in a.acls(match)] == ["t-"]

    doc = json.loads((tmp_path / "acls.json").read_text())
    assert doc["version"] == 1
    topic_t = next(r for r in doc["resources"] if r["name"] == "t")
    assert topic_t["resourceType"] == "Topic" and topic_t["patternType"] == "LITERAL"
    assert {"principal": "User:bob", "permissionType": "Allow", "operation": "Write", "host": "*"} in topic_t[
        "acls"
    ]

    (deleted,) = asyncio.run(a.delete_acls([everything()._replace(resource_type=TOPIC, operation=Op.READ)]))
    assert sorted(b.pattern.name for b, error in deleted if error is None) == ["t", "t-"]
    assert len(a.acls(everything())) == 2

    # a restart reads the file back
    again = make(tmp_path)
    assert set(again.acls(everything())) == set(a.acls(everything()))
    assert again.authorize(BOB, HOST, Op.WRITE, TOPIC, "t")


def test_invalid_bindings_refused(tmp_path: Path) -> None:
    a = make(tmp_path)
    results = asyncio.run(
        a.create_acls(
            [
                binding(CLUSTER, "other", Op.ALTER),
                binding(TOPIC, "", Op.READ),
                binding(TOPIC, "a/b", Op.READ),
                binding(TOPIC, "t", Op.ANY),
                binding(TOPIC, "t", Op.READ, principal="alice"),
                binding(TOPIC, "t", Op.READ),
            ]
        )
    )
    assert [r is not None and r.invalid for r in results] == [True] * 5 + [False]
    assert len(a.acls(everything())) == 1


def test_denials_are_audited_unless_only_filtering(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    a = make(tmp_path)
    with caplog.at_level("INFO", logger="kafka.authorizer.logger"):
        assert not a.authorize(ALICE, HOST, Op.READ, TOPIC, "t", log_denied=False)
        assert not caplog.records
        assert not a.authorize(ALICE, HOST, Op.READ, TOPIC, "t")
    (record,) = caplog.records
    assert record.getMessage() == (
        "Principal = User:alice is Denied Operation = Read from host = 10.0.0.1 on resource = Topic:LITERAL:t"
    )
