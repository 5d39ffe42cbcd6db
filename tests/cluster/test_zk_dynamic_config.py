"""Config changes on a ZooKeeper-mode cluster (three in-process brokers, real ZooKeeper).

AlterConfigs and IncrementalAlterConfigs are answered by any broker (ZooKeeper-mode Kafka's
``ZkAdminManager``: no controller needed): the broker writes ``/config/topics/<t>`` or
``/config/brokers/<entity>`` and a ``/config/changes`` notification; every broker's config
change listener (Kafka's ``ZkConfigManager``) applies it to the logs it hosts, including a
broker that was down at the time, once it starts again.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from kazoo.client import KazooClient

from protocol.errors import ErrorCode
from protocol.messages import (
    AlterConfigsRequest,
    CreateTopicsRequest,
    IncrementalAlterConfigsRequest,
    MetadataRequest,
)
from tests.support.cluster import Cluster
from tests.support.polling import wait_until
from tests.support.wire_client import WireClient

pytestmark = pytest.mark.integration

CHROOT = "/dynamic_config"
TOPIC, BROKER = 2, 4
SET, DELETE = 0, 1
DEFAULT_RETENTION_MS = 7 * 24 * 3_600_000


@pytest.fixture(scope="module")
def cluster(zookeeper_shared, tmp_path_factory) -> Iterator[Cluster]:
    c = Cluster(
        3,
        zookeeper=zookeeper_shared,
        zk_chroot=CHROOT,
        base_dir=tmp_path_factory.mktemp("dynamic-config"),
        overrides={"offsets.topic.num.partitions": "1"},
    )
    c.start()
    try:
        yield c
    finally:
        c.close()


@pytest.fixture(scope="module")
def kazoo(zookeeper_shared) -> Iterator[KazooClient]:
    zk = KazooClient(hosts=zookeeper_shared.connect(CHROOT))
    zk.start(timeout=30)
    try:
        yield zk
    finally:
        zk.stop()
        zk.close()


def request(cluster: Cluster, i: int, message: Any, version: int) -> Any:
    with WireClient("127.0.0.1", cluster.port(i)) as client:
        return client.request(message, version)


def controller_index(cluster: Cluster) -> int:
    def agreed() -> int | None:
        ids = {request(cluster, i, MetadataRequest(topics=[]), 12).controller_id for i in range(cluster.n)}
        return ids.pop() if len(ids) == 1 and -1 not in ids else None

    controller_id = wait_until(lambda: (found := agreed()) is not None and (found,), "agreed controller")[0]
    return next(i for i in range(cluster.n) if cluster.broker_id(i) == controller_id)


def create_replicated_topic(cluster: Cluster, name: str, configs: dict[str, str] | None = None) -> None:
    ctrl = controller_index(cluster)
    topic = CreateTopicsRequest.CreatableTopic(name=name, num_partitions=1, replication_factor=3)
    topic.configs = [
        CreateTopicsRequest.CreatableTopicConfig(name=k, value=v) for k, v in (configs or {}).items()
    ]
    created = request(cluster, ctrl, CreateTopicsRequest(topics=[topic], timeout_ms=20_000), 7)
    assert [t.error_code for t in created.topics] == [0]
    wait_until(
        lambda: all(log_config(cluster, i, name) is not None for i in range(cluster.n)), "every replica"
    )


def log_config(cluster: Cluster, i: int, topic: str) -> Any:
    """The LogConfig of broker i's log of ``topic``-0 (None if it hosts none)."""

    def read() -> Any:
        plog = cluster.broker(i).log_manager.get_log(topic, 0)
        return None if plog is None else plog.config

    return cluster.run(read)


def retention_everywhere(cluster: Cluster, topic: str) -> list[int]:
    return [log_config(cluster, i, topic).retention_ms for i in range(cluster.n)]


def incremental(
    cluster: Cluster, i: int, resource_type: int, name: str, *ops: tuple[str, int, str | None]
) -> Any:
    resource = IncrementalAlterConfigsRequest.AlterConfigsResource(
        resource_type=resource_type,
        resource_name=name,
        configs=[
            IncrementalAlterConfigsRequest.AlterableConfig(name=n, config_operation=op, value=v)
            for n, op, v in ops
        ],
    )
    (result,) = request(cluster, i, IncrementalAlterConfigsRequest(resources=[resource]), 1).responses
    return result


def test_a_topic_change_through_any_broker_reaches_every_replica(
    cluster: Cluster, kazoo: KazooClient
) -> None:
    create_replicated_topic(cluster, "dyn-topic")
    assert retention_everywhere(cluster, "dyn-topic") == [DEFAULT_RETENTION_MS] * 3
    other = (controller_index(cluster) + 1) % cluster.n  # not the controller: any broker writes

    result = incremental(cluster, other, TOPIC, "dyn-topic", ("retention.ms", SET, "123456"))
    assert result.error_code == 0, result.error_message
    wait_until(
        lambda: retention_everywhere(cluster, "dyn-topic") == [123456] * 3, "the change on every replica"
    )
    data, _ = kazoo.get("/config/topics/dyn-topic")
    assert json.loads(data) == {"version": 1, "config": {"retention.ms": "123456"}}
    notes = [json.loads(kazoo.get(f"/config/changes/{c}")[0]) for c in kazoo.get_children("/config/changes")]
    assert {"version": 2, "entity_path": "topics/dyn-topic"} in notes

    # AlterConfigs replaces the whole set: retention.ms goes back to the default.
    legacy = AlterConfigsRequest(
        resources=[
            AlterConfigsRequest.AlterConfigsResource(
                resource_type=TOPIC,
                resource_name="dyn-topic",
                configs=[AlterConfigsRequest.AlterableConfig(name="segment.bytes", value="2048")],
            )
        ]
    )
    (answer,) = request(cluster, (other + 1) % cluster.n, legacy, 2).responses
    assert answer.error_code == 0, answer.error_message

    def replaced() -> bool:
        configs = [log_config(cluster, i, "dyn-topic") for i in range(cluster.n)]
        return all((c.retention_ms, c.segment_bytes) == (DEFAULT_RETENTION_MS, 2048) for c in configs)

    wait_until(replaced, "the replaced set on every replica")

    missing = incremental(cluster, other, TOPIC, "no-such-topic", ("retention.ms", SET, "1"))
    assert missing.error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code
    bad = incremental(cluster, other, TOPIC, "dyn-topic", ("retention.ms", SET, "soon"))
    assert bad.error_code == ErrorCode.INVALID_CONFIG.code


def test_dynamic_broker_configs_cluster_default_and_per_broker(cluster: Cluster, kazoo: KazooClient) -> None:
    create_replicated_topic(cluster, "dyn-broker")
    result = incremental(cluster, 0, BROKER, "", ("log.retention.ms", SET, "654321"))
    assert result.error_code == 0, result.error_message
    wait_until(
        lambda: retention_everywhere(cluster, "dyn-broker") == [654321] * 3, "the cluster default everywhere"
    )
    data, _ = kazoo.get("/config/brokers/<default>")
    assert json.loads(data) == {"version": 1, "config": {"log.retention.ms": "654321"}}

    # Broker 1's own value, set through broker 1 (a broker resource names the broker asked).
    one = cluster.broker_id(1)
    result = incremental(cluster, 1, BROKER, str(one), ("log.retention.ms", SET, "111111"))
    assert result.error_code == 0, result.error_message
    wait_until(
        lambda: retention_everywhere(cluster, "dyn-broker") == [654321, 111111, 654321],
        "broker 1's own value",
    )
    wrong = incremental(cluster, 0, BROKER, str(one), ("log.retention.ms", SET, "1"))
    assert wrong.error_code == ErrorCode.INVALID_REQUEST.code  # not this broker's id
    static = incremental(cluster, 0, BROKER, "", ("num.partitions", SET, "3"))
    assert static.error_code == ErrorCode.INVALID_REQUEST.code

    for i, name in ((1, str(one)), (0, "")):
        assert incremental(cluster, i, BROKER, name, ("log.retention.ms", DELETE, None)).error_code == 0
    wait_until(
        lambda: retention_everywhere(cluster, "dyn-broker") == [DEFAULT_RETENTION_MS] * 3, "the defaults"
    )


def test_a_broker_down_during_a_change_applies_it_when_it_returns(cluster: Cluster) -> None:
    create_replicated_topic(cluster, "dyn-restart")
    down = 2
    cluster.stop(down)
    try:
        result = incremental(cluster, 0, TOPIC, "dyn-restart", ("retention.ms", SET, "222222"))
        assert result.error_code == 0, result.error_message
        wait_until(
            lambda: [log_config(cluster, i, "dyn-restart").retention_ms for i in (0, 1)] == [222222] * 2,
            "the live brokers",
        )
    finally:
        cluster.start_broker(down)
    wait_until(lambda: retention_everywhere(cluster, "dyn-restart") == [222222] * 3, "the returned broker")


def test_delete_records_on_the_leader_reaches_the_followers(cluster: Cluster) -> None:
    """DeleteRecords moves the leader's log start offset; the followers take it from their
    fetch responses (the replication's part)."""
    from confluent_kafka import Producer, TopicPartition
    from confluent_kafka.admin import AdminClient

    create_replicated_topic(cluster, "dyn-delete-records")
    producer = Producer({"bootstrap.servers": cluster.bootstrap, "acks": "all", "linger.ms": 0})
    for i in range(10):
        producer.produce("dyn-delete-records", value=b"%d" % i, partition=0)
    assert producer.flush(30) == 0

    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    (future,) = admin.delete_records([TopicPartition("dyn-delete-records", 0, 6)]).values()
    assert future.result(timeout=30).low_watermark == 6

    def starts() -> list[int]:
        def read(i: int) -> int:
            return cluster.broker(i).log_manager.get_log("dyn-delete-records", 0).log_start_offset

        return [cluster.run(lambda i=i: read(i)) for i in range(cluster.n)]

    wait_until(lambda: starts() == [6, 6, 6], "every replica's log start offset")
