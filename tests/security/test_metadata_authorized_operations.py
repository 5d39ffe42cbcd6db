"""Metadata's topic authorized operations (KIP-430) for topics the principal may describe but
that do not exist, as Kafka's ``KafkaApis.handleTopicMetadataRequest``: every entry of its
``getTopicMetadata`` carries them; only the topics the principal may not describe (or may not
auto-create) keep Integer.MIN_VALUE."""

from __future__ import annotations

import json

import pytest

from broker.broker import Broker
from broker.config import BrokerConfig
from broker.testing.inprocess import LoopThread
from protocol.errors import ErrorCode
from protocol.messages import MetadataRequest
from tests.support.wire_client import WireClient

READ, CREATE, DESCRIBE = 3, 5, 8
MIN_VALUE = -(1 << 31)


def _allow(operation: str) -> dict:
    return {"principal": "User:ANONYMOUS", "permissionType": "Allow", "operation": operation, "host": "*"}


@pytest.fixture
def broker_factory(tmp_path):
    made: list[tuple[LoopThread, Broker]] = []

    def make(**extra: str) -> Broker:
        log_dir = tmp_path / f"data-{len(made)}"
        log_dir.mkdir()
        resources = [
            {"resourceType": "Topic", "patternType": "LITERAL", "name": "ghost", "acls": [_allow("Read")]},
            {
                "resourceType": "Topic",
                "patternType": "LITERAL",
                "name": "born",
                "acls": [_allow("Read"), _allow("Create")],
            },
        ]
        (log_dir / "acls.json").write_text(json.dumps({"version": 1, "resources": resources}))
        thread = LoopThread("metadata-ops")
        props = {
            "log.dirs": str(log_dir),
            "listeners": "PLAINTEXT://127.0.0.1:0",
            "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
            **extra,
        }
        broker = Broker(BrokerConfig(props))
        thread.call(broker.start())
        made.append((thread, broker))
        return broker

    yield make
    for thread, broker in made:
        thread.call(broker.stop())
        thread.close()


def _metadata(broker: Broker, names: list[str], *, auto_create: bool) -> list:
    with WireClient("127.0.0.1", broker.advertised[0].port) as c:
        return c.request(
            MetadataRequest(
                topics=[MetadataRequest.MetadataRequestTopic(name=n) for n in names],
                allow_auto_topic_creation=auto_create,
                include_topic_authorized_operations=True,
            ),
            9,
        ).topics


def test_missing_describable_topic_carries_its_authorized_operations(broker_factory):
    broker = broker_factory(**{"auto.create.topics.enable": "false"})
    ghost, other = _metadata(broker, ["ghost", "other"], auto_create=False)
    assert ghost.error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code
    assert ghost.topic_authorized_operations == (1 << READ) | (1 << DESCRIBE)
    assert other.error_code == ErrorCode.TOPIC_AUTHORIZATION_FAILED.code
    assert other.topic_authorized_operations == MIN_VALUE


def test_topic_not_auto_created_for_want_of_create_keeps_min_value(broker_factory):
    """Describable but not creatable: Kafka's unauthorizedForCreateTopicMetadata, not part of
    getTopicMetadata, so no authorized operations."""
    broker = broker_factory(**{"auto.create.topics.enable": "true"})
    (ghost,) = _metadata(broker, ["ghost"], auto_create=True)
    assert ghost.error_code == ErrorCode.TOPIC_AUTHORIZATION_FAILED.code
    assert ghost.topic_authorized_operations == MIN_VALUE


def test_auto_created_topic_carries_its_authorized_operations(broker_factory):
    """Being created (LEADER_NOT_AVAILABLE until published): an entry of getTopicMetadata."""
    broker = broker_factory(**{"auto.create.topics.enable": "true"})
    (born,) = _metadata(broker, ["born"], auto_create=True)
    assert born.error_code in (ErrorCode.LEADER_NOT_AVAILABLE.code, ErrorCode.NONE.code)
    assert born.topic_authorized_operations == (1 << READ) | (1 << CREATE) | (1 << DESCRIBE)
