"""Error codes an ACL-less SASL user gets from the brokers of a secured cluster."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from protocol.errors import ErrorCode
from protocol.messages import (
    CreatePartitionsRequest,
    CreateTopicsRequest,
    DeleteTopicsRequest,
    MetadataRequest,
)
from tests.cluster.secured_cluster import make_secured_cluster, plain_client
from tests.support.cluster import Cluster

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def cluster(zookeeper_shared, tmp_path_factory) -> Iterator[Cluster]:
    c = make_secured_cluster(zookeeper_shared, tmp_path_factory.mktemp("secerr"))
    try:
        yield c
    finally:
        c.close()


def _non_controller(cluster: Cluster) -> int:
    with plain_client(cluster, 0, "admin") as c:
        controller = c.request(MetadataRequest(topics=[], allow_auto_topic_creation=False), 9).controller_id
    return next(i for i in range(3) if i != controller)


def test_topic_admin_on_a_non_controller_answers_not_controller_before_authorizing(cluster) -> None:
    """ZooKeeper-mode KafkaApis.handleCreateTopicsRequest / handleDeleteTopicsRequest /
    handleCreatePartitionsRequest answer NOT_CONTROLLER for every topic when
    ``!zkSupport.controller.isActive``, before any authorization: an unauthorized client
    that reached a non-controller broker is sent to the controller (where it then gets
    TOPIC_AUTHORIZATION_FAILED), and no denial is audited on the other broker."""
    other = _non_controller(cluster)
    name = f"nc-{uuid.uuid4().hex[:6]}"
    with plain_client(cluster, other, "alice") as alice:
        created = alice.request(
            CreateTopicsRequest(
                topics=[
                    CreateTopicsRequest.CreatableTopic(
                        name=name, num_partitions=1, replication_factor=1, assignments=[], configs=[]
                    )
                ],
                timeout_ms=10_000,
                validate_only=False,
            ),
            7,
        )
        deleted = alice.request(
            DeleteTopicsRequest(topics=[DeleteTopicsRequest.DeleteTopicState(name=name)], timeout_ms=10_000),
            6,
        )
        grown = alice.request(
            CreatePartitionsRequest(
                topics=[CreatePartitionsRequest.CreatePartitionsTopic(name=name, count=2, assignments=None)],
                timeout_ms=10_000,
                validate_only=False,
            ),
            3,
        )
    codes = (
        created.topics[0].error_code,
        deleted.responses[0].error_code,
        grown.results[0].error_code,
    )
    assert codes == (ErrorCode.NOT_CONTROLLER.code,) * 3, codes
