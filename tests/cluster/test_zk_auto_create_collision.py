"""Metadata auto-creation in ZooKeeper mode of a name that collides with an existing topic ('.' vs '_')
answers INVALID_TOPIC_EXCEPTION at once, as Kafka 3.9
(AutoTopicCreationManager.createTopicsInZk -> ZkAdminManager.createTopics ->
AdminZkClient.validateTopicCreate: "Topic 'ev.ents' collides with existing topic: ev_ents"), not
LEADER_NOT_AVAILABLE on every request."""

from __future__ import annotations

import pytest

from broker.testing.cluster import request_once
from protocol.errors import ErrorCode
from protocol.messages import MetadataRequest


@pytest.mark.moldau_cluster(brokers=1)
def test_zk_auto_create_of_colliding_name_is_invalid_topic_exception(moldau_cluster):
    moldau_cluster.create_topic("ev_ents", 1, 1)
    request = MetadataRequest(
        topics=[MetadataRequest.MetadataRequestTopic(name="ev.ents")], allow_auto_topic_creation=True
    )
    response = request_once(moldau_cluster.port(0), request, 12, 10)
    assert [(t.name, t.error_code) for t in response.topics] == [
        ("ev.ents", ErrorCode.INVALID_TOPIC_EXCEPTION.code)
    ]
