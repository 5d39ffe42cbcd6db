"""DeleteTopics where it once differed from Kafka 3.9's ``KafkaApis.handleDeleteTopicsRequest``
(ZooKeeper mode): a topic named twice in one request, and ``delete.topic.enable=false``.

A lone in-process broker (the handler is the one ZooKeeper mode uses on its controller).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from protocol.errors import ErrorCode
from protocol.messages import CreateTopicsRequest, DeleteTopicsRequest, MetadataRequest
from tests.support.cluster import Cluster
from tests.support.wire_client import WireClient


def start(tmp_path_factory, name: str, overrides: dict[str, str]) -> Iterator[Cluster]:
    c = Cluster(1, base_dir=tmp_path_factory.mktemp(name), overrides=overrides)
    c.start()
    try:
        yield c
    finally:
        c.close()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory) -> Iterator[Cluster]:
    yield from start(tmp_path_factory, "delete-topics", {})


@pytest.fixture(scope="module")
def no_deletion(tmp_path_factory) -> Iterator[Cluster]:
    yield from start(tmp_path_factory, "no-deletion", {"delete.topic.enable": "false"})


def call(cluster: Cluster, message: Any, version: int) -> Any:
    with WireClient("127.0.0.1", cluster.port(0)) as client:
        return client.request(message, version)


def create(cluster: Cluster, name: str) -> None:
    topic = CreateTopicsRequest.CreatableTopic(name=name, num_partitions=1, replication_factor=1)
    (result,) = call(cluster, CreateTopicsRequest(topics=[topic], timeout_ms=10_000), 7).topics
    assert result.error_code == 0, result


def exists(cluster: Cluster, name: str) -> bool:
    request = MetadataRequest(
        topics=[MetadataRequest.MetadataRequestTopic(name=name)], allow_auto_topic_creation=False
    )
    (topic,) = call(cluster, request, 9).topics
    return topic.error_code == 0


@pytest.mark.parametrize("version", [1, 5, 6])
def test_a_topic_named_twice_is_deleted_once_and_both_entries_answer_none(cluster, version):
    """KafkaApis.handleDeleteTopicsRequest checks every entry, then ZkAdminManager.deleteTopics
    deletes the set of names once; each name's outcome goes to its first entry
    (``results.find``) and the duplicate keeps NONE. KafkaJS sends duplicates as given and
    retries an UNKNOWN_TOPIC_OR_PARTITION answer until it gives up."""
    name = f"twice-{version}-{uuid.uuid4().hex[:6]}"
    create(cluster, name)
    if version >= 6:
        request = DeleteTopicsRequest(
            topics=[DeleteTopicsRequest.DeleteTopicState(name=name) for _ in range(2)], timeout_ms=10_000
        )
    else:
        request = DeleteTopicsRequest(topic_names=[name, name], timeout_ms=10_000)
    response = call(cluster, request, version)
    assert [(r.name, r.error_code) for r in response.responses] == [(name, 0), (name, 0)]
    assert not exists(cluster, name)


def test_a_missing_topic_named_twice_answers_unknown_for_both(cluster):
    """Neither entry passes the metadata-cache check: both UNKNOWN_TOPIC_OR_PARTITION."""
    request = DeleteTopicsRequest(topic_names=["never-there", "never-there"], timeout_ms=10_000)
    response = call(cluster, request, 5)
    assert [r.error_code for r in response.responses] == [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code] * 2


def test_deletion_disabled_answers_every_entry_before_ids_are_resolved(no_deletion):
    """delete.topic.enable=false: every entry TOPIC_DELETION_DISABLED, also one naming an
    unknown topic id (KafkaApis checks deleteTopicEnable before it resolves ids), and the
    topic stays."""
    create(no_deletion, "kept")
    unknown_id = uuid.uuid4()
    request = DeleteTopicsRequest(
        topics=[
            DeleteTopicsRequest.DeleteTopicState(name="kept"),
            DeleteTopicsRequest.DeleteTopicState(name=None, topic_id=unknown_id),
        ],
        timeout_ms=10_000,
    )
    response = call(no_deletion, request, 6)
    assert [(r.name, r.topic_id, r.error_code) for r in response.responses] == [
        ("kept", uuid.UUID(int=0), ErrorCode.TOPIC_DELETION_DISABLED.code),
        (None, unknown_id, ErrorCode.TOPIC_DELETION_DISABLED.code),
    ]
    assert exists(no_deletion, "kept")


@pytest.mark.parametrize("version", [1, 2])
def test_deletion_disabled_answers_invalid_request_below_v3(no_deletion, version):
    """KafkaApis: ``if (request.context.apiVersion < 3) Errors.INVALID_REQUEST else
    Errors.TOPIC_DELETION_DISABLED`` (TOPIC_DELETION_DISABLED came with v3)."""
    create(no_deletion, f"kept-v{version}")
    response = call(
        no_deletion, DeleteTopicsRequest(topic_names=[f"kept-v{version}"], timeout_ms=10_000), version
    )
    assert [r.error_code for r in response.responses] == [ErrorCode.INVALID_REQUEST.code]
