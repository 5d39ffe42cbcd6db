"""The authorizer's audit line (kafka.authorizer.logger, AclAuthorizer.logAuditMessage) as
requests write it: the request's API name and the action's reference count end it, and a
check Kafka makes with ``logIfDenied = false`` is not audited at INFO."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from broker.handlers import RequestContext
from coordinator.acl_authorizer import AclAuthorizer
from coordinator.acl_model import AclOperation, ResourceType
from coordinator.acl_store import FileAclStore
from coordinator.principal import KafkaPrincipal
from protocol.messages import ApiKey, InitProducerIdRequest, MetadataRequest
from tests.security.authz_broker import Secured, unique
from tests.support.wire_client import WireClient

AUDIT = "kafka.authorizer.logger"


@pytest.fixture(scope="module")
def secured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Secured]:
    b = Secured(tmp_path_factory.mktemp("authz-audit"))
    yield b
    b.close()


@pytest.fixture
def alice(secured: Secured) -> Iterator[WireClient]:
    with secured.client("alice") as c:
        yield c


def test_denied_audit_line_names_the_request_and_ref_count(
    alice: WireClient, caplog: pytest.LogCaptureFixture
) -> None:
    """AclAuthorizer.logAuditMessage writes "Principal = User:alice is Denied Operation =
    Describe from host = 127.0.0.1 on resource = Topic:LITERAL:<t> for request = METADATA
    with resourceRefCount = 1" (the request's ApiKeys name and the Action's reference count
    end every line; log tooling keys on them)."""
    name = unique("audit")
    with caplog.at_level(logging.INFO, logger=AUDIT):
        alice.request(MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name=name)]), 9)
    lines = [r.getMessage() for r in caplog.records if r.name == AUDIT]
    assert (
        f"Principal = User:alice is Denied Operation = Describe from host = 127.0.0.1 on resource = "
        f"Topic:LITERAL:{name} for request = METADATA with resourceRefCount = 1"
    ) in lines, lines


def test_filter_counts_each_names_references(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """AuthHelper.filterByAuthorized makes one Action per distinct name whose
    ``resourceReferenceCount`` is the times the request names it: a topic named twice in a
    Produce is audited once, with resourceRefCount = 2."""
    authorizer = AclAuthorizer(FileAclStore(tmp_path / "acls.json"))
    ctx = RequestContext(
        broker=SimpleNamespace(authorizer=authorizer),
        api_key=ApiKey.PRODUCE,
        api_version=11,
        correlation_id=1,
        client_id="c",
        peer="10.0.0.1:5000",
        connection_id=1,
        listener="SASL_PLAINTEXT",
        principal=KafkaPrincipal("User", "alice"),
    )
    with caplog.at_level(logging.INFO, logger=AUDIT):
        assert ctx.authorized(AclOperation.WRITE, ResourceType.TOPIC, ["t", "u", "t"]) == set()
    lines = sorted(r.getMessage() for r in caplog.records if r.name == AUDIT)
    head = (
        "Principal = User:alice is Denied Operation = Write from host = 10.0.0.1 on resource = Topic:LITERAL:"
    )
    assert lines == [
        f"{head}t for request = PRODUCE with resourceRefCount = 2",
        f"{head}u for request = PRODUCE with resourceRefCount = 1",
    ]


def test_idempotent_write_check_is_not_audited_as_denied(
    secured: Secured, alice: WireClient, caplog: pytest.LogCaptureFixture
) -> None:
    """KafkaApis.handleInitProducerIdRequest asks IdempotentWrite on the cluster with
    ``logIfAllowed = true, logIfDenied = false`` before falling back to KIP-679's
    authorizeByResourceType(WRITE, TOPIC): an idempotent producer allowed through Write on a
    topic leaves no INFO "Denied" line for IdempotentWrite."""
    secured.grant(ResourceType.TOPIC, unique("w"), AclOperation.WRITE)
    try:
        with caplog.at_level(logging.INFO, logger=AUDIT):
            r = alice.request(
                InitProducerIdRequest(
                    transactional_id=None, transaction_timeout_ms=60_000, producer_id=-1, producer_epoch=-1
                ),
                4,
            )
        assert r.error_code == 0
        denied = [r.getMessage() for r in caplog.records if r.name == AUDIT and r.levelno >= logging.INFO]
        assert denied == []
    finally:
        secured.revoke_all()
