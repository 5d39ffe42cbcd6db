"""CreateTopics and the DescribeConfigs gate on what the answer reveals (KafkaApis /
ZkAdminManager)."""

from __future__ import annotations

from coordinator.acl_model import AclOperation as Op
from coordinator.acl_model import ResourceType as T
from protocol.errors import ErrorCode
from protocol.messages import CreateTopicsRequest
from protocol.primitives import ZERO_UUID
from tests.security.authz_broker import Secured, create_topic, secured_fixtures, unique
from tests.support.wire_client import WireClient

secured, admin, alice, clean_acls = secured_fixtures("authz-create-topics")


TOPIC_AUTH = ErrorCode.TOPIC_AUTHORIZATION_FAILED.code


def _create(client: WireClient, name: str, version: int = 7) -> CreateTopicsRequest:
    topic = CreateTopicsRequest.CreatableTopic(name=name, num_partitions=3, replication_factor=1)
    return client.request(CreateTopicsRequest(topics=[topic], timeout_ms=30_000), version)


def test_created_topic_metadata_hidden_without_describe_configs(secured: Secured, alice: WireClient) -> None:
    """KafkaApis.handleCreateTopicsRequest passes only the topics authorized for
    DescribeConfigs to ZkAdminManager.createTopics as ``includeConfigsAndMetadata``;
    ``maybePopulateMetadataAndConfigs`` / ``populateIds`` fill configs, NumPartitions,
    ReplicationFactor and TopicId only for those. A topic created with Create but without
    DescribeConfigs answers NumPartitions -1, ReplicationFactor -1 and a zero TopicId
    (the schema's defaults) with TopicConfigErrorCode TOPIC_AUTHORIZATION_FAILED."""
    name = unique("cfg-hidden")
    secured.grant(T.TOPIC, name, Op.CREATE)
    r = _create(alice, name)
    (t,) = r.topics
    assert t.error_code == 0
    assert t.topic_config_error_code == TOPIC_AUTH
    assert t.configs == []
    assert (t.num_partitions, t.replication_factor, t.topic_id) == (-1, -1, ZERO_UUID)


def test_failed_creation_resets_topic_config_error(
    secured: Secured, admin: WireClient, alice: WireClient
) -> None:
    """KafkaApis.handleCreateTopicsRequest ``handleCreateTopicsResults``: a topic whose
    creation failed (here TOPIC_ALREADY_EXISTS) has its TopicConfigErrorCode reset to NONE,
    whatever DescribeConfigs said."""
    name = unique("cfg-exists")
    create_topic(admin, name)
    secured.grant(T.TOPIC, name, Op.CREATE)
    r = _create(alice, name)
    (t,) = r.topics
    assert t.error_code == ErrorCode.TOPIC_ALREADY_EXISTS.code
    assert t.topic_config_error_code == 0
