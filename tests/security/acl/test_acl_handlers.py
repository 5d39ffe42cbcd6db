"""The ACL APIs' handlers and the request checks of broker/authorization.py, called directly
with a real AclAuthorizer (file store): Kafka's error codes for each refusal."""

from __future__ import annotations

import asyncio
import struct
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from broker.authorization import fetch_denied_topics, init_producer_id_error, produce_denials
from broker.handlers import RequestContext
from broker.handlers.create_acls import handle_create_acls
from broker.handlers.delete_acls import handle_delete_acls
from broker.handlers.describe_acls import handle_describe_acls
from coordinator.acl_authorizer import AclAuthorizer, AllowAll
from coordinator.acl_model import (
    CLUSTER_NAME,
    AccessControlEntry,
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourcePattern,
    ResourceType,
)
from coordinator.acl_store import FileAclStore
from coordinator.principal import KafkaPrincipal
from protocol.errors import ErrorCode
from protocol.messages import (
    CreateAclsRequest,
    DeleteAclsRequest,
    DescribeAclsRequest,
    ProduceRequest,
)

ALICE = KafkaPrincipal("User", "alice")
ADMIN = KafkaPrincipal("User", "admin")
Op, Perm = AclOperation, AclPermissionType


def grant(
    rtype: ResourceType, name: str, op: AclOperation, pattern: PatternType = PatternType.LITERAL
) -> AclBinding:
    return AclBinding(
        ResourcePattern(rtype, name, pattern), AccessControlEntry("User:alice", "*", op, Perm.ALLOW)
    )


@pytest.fixture
def authorizer(tmp_path: Path) -> AclAuthorizer:
    a = AclAuthorizer(FileAclStore(tmp_path / "acls.json"), super_users=[ADMIN])
    asyncio.run(a.start())
    return a


def ctx(authorizer: Any, principal: KafkaPrincipal = ALICE, api_key: int = 0) -> RequestContext:
    broker = SimpleNamespace(authorizer=authorizer)
    return RequestContext(broker, api_key, 3, 1, "test", "10.0.0.7:4242", 1, "SASL_PLAINTEXT", principal)  # type: ignore[arg-type]


def describe_all() -> DescribeAclsRequest:
    return DescribeAclsRequest(
        resource_type_filter=1,
        resource_name_filter=None,
        pattern_type_filter=1,
        principal_filter=None,
        host_filter=None,
        operation=1,
        permission_type=1,
    )


def creation(**kw: Any) -> CreateAclsRequest.AclCreation:
    fields = dict(
        resource_type=2,
        resource_name="t",
        resource_pattern_type=3,
        principal="User:bob",
        host="*",
        operation=3,
        permission_type=3,
    )
    fields.update(kw)
    return CreateAclsRequest.AclCreation(**fields)


def test_acl_apis_need_cluster_alter_or_describe(authorizer: AclAuthorizer) -> None:
    async def scenario() -> None:
        created = await handle_create_acls(ctx(authorizer), CreateAclsRequest(creations=[creation()]))
        assert [r.error_code for r in created.results] == [ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code]
        described = handle_describe_acls(ctx(authorizer), describe_all())
        assert described.error_code == ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code
        deleted = await handle_delete_acls(
            ctx(authorizer), DeleteAclsRequest(filters=[DeleteAclsRequest.DeleteAclsFilter(**_any_filter())])
        )
        assert [r.error_code for r in deleted.filter_results] == [ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code]
        # Alter on the cluster lets alice create; Describe (implied by Alter) lets her list
        await authorizer.create_acls([grant(ResourceType.CLUSTER, CLUSTER_NAME, Op.ALTER)])
        created = await handle_create_acls(
            ctx(authorizer),
            CreateAclsRequest(
                creations=[creation(), creation(resource_type=4, resource_name="x"), creation(host="")]
            ),
        )
        assert [r.error_code for r in created.results] == [
            0,
            ErrorCode.INVALID_REQUEST.code,
            ErrorCode.INVALID_REQUEST.code,
        ]
        described = handle_describe_acls(ctx(authorizer), describe_all())
        assert described.error_code == 0
        assert sorted((r.resource_type, r.resource_name, len(r.acls)) for r in described.resources) == [
            (2, "t", 1),
            (4, CLUSTER_NAME, 1),
        ]

    asyncio.run(scenario())


def _any_filter(**kw: Any) -> dict[str, Any]:
    fields = dict(
        resource_type_filter=1,
        resource_name_filter=None,
        pattern_type_filter=1,
        principal_filter=None,
        host_filter=None,
        operation=1,
        permission_type=1,
    )
    fields.update(kw)
    return fields


def test_bad_filters_are_invalid_request(authorizer: AclAuthorizer) -> None:
    async def scenario() -> None:
        admin = ctx(authorizer, ADMIN)
        await handle_create_acls(admin, CreateAclsRequest(creations=[creation()]))
        bad = describe_all()
        bad.operation = 99  # a code this broker does not know
        assert handle_describe_acls(admin, bad).error_code == ErrorCode.INVALID_REQUEST.code
        deleted = await handle_delete_acls(
            admin,
            DeleteAclsRequest(
                filters=[
                    DeleteAclsRequest.DeleteAclsFilter(**_any_filter(pattern_type_filter=0)),
                    DeleteAclsRequest.DeleteAclsFilter(**_any_filter(principal_filter="User:bob")),
                ]
            ),
        )
        assert [r.error_code for r in deleted.filter_results] == [ErrorCode.INVALID_REQUEST.code, 0]
        assert [a.principal for a in deleted.filter_results[1].matching_acls] == ["User:bob"]

    asyncio.run(scenario())


def test_security_disabled_after_the_cluster_check() -> None:
    async def scenario() -> None:
        created = await handle_create_acls(ctx(AllowAll()), CreateAclsRequest(creations=[creation()]))
        assert [r.error_code for r in created.results] == [ErrorCode.SECURITY_DISABLED.code]
        assert (
            handle_describe_acls(ctx(AllowAll()), describe_all()).error_code
            == ErrorCode.SECURITY_DISABLED.code
        )

    asyncio.run(scenario())


def batch(transactional: bool) -> bytes:
    """A v2 batch header with the attributes that matter here (the rest zero)."""
    header = bytearray(61)
    header[16] = 2  # magic
    struct.pack_into(">h", header, 21, 0x10 if transactional else 0)
    return bytes(header)


def produce_request(transactional: bool, transactional_id: str | None = None) -> ProduceRequest:
    return ProduceRequest(
        transactional_id=transactional_id,
        acks=-1,
        timeout_ms=1000,
        topic_data=[
            ProduceRequest.TopicProduceData(
                name=name,
                partition_data=[ProduceRequest.PartitionProduceData(index=0, records=batch(transactional))],
            )
            for name in ("ok", "no")
        ],
    )


def test_produce_denials(authorizer: AclAuthorizer) -> None:
    asyncio.run(authorizer.create_acls([grant(ResourceType.TOPIC, "ok", Op.WRITE)]))
    denied = produce_denials(ctx(authorizer), produce_request(False))
    assert {k: v.error.error for k, v in denied.items()} == {("no", 0): ErrorCode.TOPIC_AUTHORIZATION_FAILED}
    # a transactional batch without Write on the transactional id: every partition
    denied = produce_denials(ctx(authorizer), produce_request(True, "tx"))
    assert {v.error.error for v in denied.values()} == {ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED}
    assert len(denied) == 2
    asyncio.run(authorizer.create_acls([grant(ResourceType.TRANSACTIONAL_ID, "tx", Op.WRITE)]))
    assert set(produce_denials(ctx(authorizer), produce_request(True, "tx"))) == {("no", 0)}
    assert produce_denials(ctx(AllowAll()), produce_request(True, "tx")) == {}


def test_fetch_denials(authorizer: AclAuthorizer) -> None:
    asyncio.run(authorizer.create_acls([grant(ResourceType.TOPIC, "r", Op.READ, PatternType.PREFIXED)]))
    topics = ("r1", "w1")
    assert fetch_denied_topics(ctx(authorizer), -1, topics) == {"w1"}
    # a follower: ClusterAction for everything
    assert fetch_denied_topics(ctx(authorizer), 2, topics) == {"r1", "w1"}
    asyncio.run(authorizer.create_acls([grant(ResourceType.CLUSTER, CLUSTER_NAME, Op.CLUSTER_ACTION)]))
    assert fetch_denied_topics(ctx(authorizer), 2, topics) == set()


def test_init_producer_id(authorizer: AclAuthorizer) -> None:
    assert init_producer_id_error(ctx(authorizer), None) is ErrorCode.CLUSTER_AUTHORIZATION_FAILED
    assert init_producer_id_error(ctx(authorizer), "tx") is ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
    asyncio.run(authorizer.create_acls([grant(ResourceType.TOPIC, "any", Op.WRITE)]))  # KIP-679
    assert init_producer_id_error(ctx(authorizer), None) is None
    assert init_producer_id_error(ctx(authorizer, ADMIN), "tx") is None
