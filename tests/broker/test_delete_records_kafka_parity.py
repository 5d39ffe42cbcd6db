"""DeleteRecords and compaction-lag config checks on a lone in-process broker, raw frames."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from protocol.errors import ErrorCode
from protocol.messages import DeleteRecordsRequest, FindCoordinatorRequest
from tests.support.cluster import Cluster
from tests.support.polling import wait_until
from tests.support.wire_client import WireClient

E = ErrorCode


@pytest.fixture(scope="module")
def cluster(tmp_path_factory) -> Iterator[Cluster]:
    c = Cluster(1, base_dir=tmp_path_factory.mktemp("delete-records"))
    c.start()
    try:
        yield c
    finally:
        c.close()


def call(cluster: Cluster, message: Any, version: int) -> Any:
    with WireClient("127.0.0.1", cluster.port(0)) as client:
        return client.request(message, version)


def delete_records(cluster: Cluster, topic: str, partition: int, offset: int) -> tuple[int, int]:
    request = DeleteRecordsRequest(
        topics=[
            DeleteRecordsRequest.DeleteRecordsTopic(
                name=topic,
                partitions=[
                    DeleteRecordsRequest.DeleteRecordsPartition(partition_index=partition, offset=offset)
                ],
            )
        ],
        timeout_ms=1000,
    )
    ((result,),) = [t.partitions for t in call(cluster, request, 2).topics]
    return result.error_code, result.low_watermark


def test_delete_records_on_an_internal_topic_is_invalid_topic(cluster):
    """Kafka ``ReplicaManager.deleteRecordsOnLocalLog``: "Cannot delete records of internal topic"
    -> INVALID_TOPIC_EXCEPTION for ``__consumer_offsets`` (checked before the policy)."""
    find = FindCoordinatorRequest(key="g", key_type=0)
    wait_until(lambda: call(cluster, find, 2).error_code == 0, "a group coordinator")
    assert delete_records(cluster, "__consumer_offsets", 0, 0) == (E.INVALID_TOPIC_EXCEPTION.code, -1)


def test_create_topic_with_min_compaction_lag_above_max_is_invalid_config(cluster):
    """Kafka ``LogConfig.validateValues`` (called by ``LogConfig.validate`` from
    ``AdminZkClient.validateTopicConfig`` / ``ZkAdminManager.createTopics``): min.compaction.lag.ms
    greater than max.compaction.lag.ms -> InvalidConfigurationException (INVALID_CONFIG)."""
    from protocol.messages import CreateTopicsRequest

    topic = CreateTopicsRequest.CreatableTopic(name="lags", num_partitions=1, replication_factor=1)
    topic.configs = [
        CreateTopicsRequest.CreatableTopicConfig(name="cleanup.policy", value="compact"),
        CreateTopicsRequest.CreatableTopicConfig(name="min.compaction.lag.ms", value="10000"),
        CreateTopicsRequest.CreatableTopicConfig(name="max.compaction.lag.ms", value="1000"),
    ]
    (result,) = call(cluster, CreateTopicsRequest(topics=[topic], timeout_ms=10_000), 7).topics
    assert result.error_code == E.INVALID_CONFIG.code, result.error_message
