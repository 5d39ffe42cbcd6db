"""Config changes on a ZooKeeper-mode cluster (three in-process brokers, real ZooKeeper).

AlterConfigs and IncrementalAlterConfigs are answered by any broker (ZooKeeper-mode Kafka's
``ZkAdminManager``: no controller needed): the broker writes ``/config/topics/<t>`` or
``/config/brokers/<entity>`` and a ``/config/changes`` notification; every broker's config
change listener (Kafka's ``ZkConfigManager``) applies it to the logs it hosts, including a
broker that was down at the time, once it starts again.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from kazoo.client import KazooClient

from broker.dynamic_config import TopicConfigHandler
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


def stored_default(kazoo: KazooClient) -> dict[str, str]:
    if not kazoo.exists("/config/brokers/<default>"):
        return {}
    return json.loads(kazoo.get("/config/brokers/<default>")[0])["config"]


def set_stored_default(cluster: Cluster, kazoo: KazooClient, config: dict[str, str]) -> None:
    """Write the cluster default as Kafka's own tools would (``kafka-configs.sh --zookeeper``:
    the entity's znode, then a version 2 notification) and wait until every broker has it."""
    data = json.dumps({"version": 1, "config": config}).encode()
    kazoo.ensure_path("/config/brokers")
    if kazoo.exists("/config/brokers/<default>"):
        kazoo.set("/config/brokers/<default>", data)
    else:
        kazoo.create("/config/brokers/<default>", data)
    note = json.dumps({"version": 2, "entity_path": "brokers/<default>"}).encode()
    kazoo.create("/config/changes/config_change_", note, sequence=True)
    wait_until(
        lambda: all(
            cluster.run(lambda i=i: cluster.broker(i).dynamic_config.current("")) == config
            for i in range(cluster.n)
        ),
        "every broker with the stored cluster default",
    )


def test_a_cluster_default_change_starts_from_the_stored_set(cluster: Cluster, kazoo: KazooClient) -> None:
    """``ZkAdminManager.incrementalAlterConfigs`` of a broker resource starts from the set
    stored in ZooKeeper (``fetchEntityConfig``), not from what the answering broker has
    applied: a key just set through broker 0 is kept by a change through broker 1 whose
    change listener has not applied it yet (held here)."""
    set_stored_default(cluster, kazoo, {})
    held: list[str] = []

    def hold() -> None:
        cluster.broker(1).dynamic_config.process_config_changes = lambda name, config: held.append(name)

    def release() -> None:
        del cluster.broker(1).dynamic_config.process_config_changes

    cluster.run(hold)
    try:
        first = incremental(cluster, 0, BROKER, "", ("log.retention.ms", SET, "654321"))
        assert first.error_code == 0, first.error_message
        second = incremental(cluster, 1, BROKER, "", ("log.retention.bytes", SET, "99999999"))
        assert second.error_code == 0, second.error_message
        assert stored_default(kazoo) == {"log.retention.ms": "654321", "log.retention.bytes": "99999999"}
    finally:
        cluster.run(release)
        set_stored_default(cluster, kazoo, {})


def test_a_stored_config_moldau_does_not_apply_blocks_no_other_change(
    cluster: Cluster, kazoo: KazooClient
) -> None:
    """``DynamicBrokerConfig.validateConfigs``: ``num.io.threads`` is dynamic in Kafka, so a
    cluster default holding it (stored by Kafka's tools) does not fail a later change of
    another key. Moldau refuses only what a request sets and cannot apply; the stored key is
    kept, and still ignored."""
    set_stored_default(cluster, kazoo, {"num.io.threads": "16"})
    try:
        result = incremental(cluster, 0, BROKER, "", ("log.retention.ms", SET, "654321"))
        assert (result.error_code, result.error_message) == (0, None)
        assert stored_default(kazoo) == {"num.io.threads": "16", "log.retention.ms": "654321"}
        refused = incremental(cluster, 0, BROKER, "", ("num.io.threads", SET, "8"))
        assert refused.error_code == ErrorCode.INVALID_REQUEST.code
        assert refused.error_message == "Cannot update these configs dynamically: Set(num.io.threads)"
    finally:
        set_stored_default(cluster, kazoo, {})


def test_a_change_while_a_replica_makes_its_log_reaches_that_log(
    cluster: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Kafka's ``LogManager.initializingLog`` / ``topicConfigUpdated`` /
    ``finishedInitializingLog``: a topic's config change that comes while a replica makes its
    log (the overrides read, the log not hosted yet, so the change listener finds nothing to
    apply it to) is read again once the log exists. Broker 2's read of the new topic's
    config is held while retention.ms changes."""
    topic, slow = "dyn-init-race", 2
    read_done, go = threading.Event(), threading.Event()
    zk2 = cluster.broker(slow).zookeeper
    original_read = zk2.read_topic_config

    def read_then_wait(name: str) -> Any:
        found = original_read(name)
        if name == topic and not read_done.is_set():
            read_done.set()
            go.wait(30)
        return found

    monkeypatch.setattr(zk2, "read_topic_config", read_then_wait)
    handled: list[Any] = []  # the log managers whose change listener ran the topic's change
    original_handler = TopicConfigHandler.process_config_changes

    def recording(self: TopicConfigHandler, entity_name: str, config: Any) -> None:
        original_handler(self, entity_name, config)
        if entity_name == topic:
            handled.append(self.log_manager)

    monkeypatch.setattr(TopicConfigHandler, "process_config_changes", recording)
    created: list[Any] = []
    ctrl = controller_index(cluster)

    def create() -> None:
        creatable = CreateTopicsRequest.CreatableTopic(name=topic, num_partitions=1, replication_factor=3)
        created.append(request(cluster, ctrl, CreateTopicsRequest(topics=[creatable], timeout_ms=30_000), 7))

    creator = threading.Thread(target=create, daemon=True)
    creator.start()
    try:
        assert read_done.wait(30), "broker 2 did not read the topic's config"
        result = incremental(cluster, (slow + 1) % cluster.n, TOPIC, topic, ("retention.ms", SET, "123456"))
        assert result.error_code == 0, result.error_message
        log_manager = cluster.broker(slow).log_manager
        wait_until(lambda: any(m is log_manager for m in handled), "broker 2's listener had the change")
        assert log_config(cluster, slow, topic) is None  # not hosted yet: nothing to apply it to
    finally:
        go.set()
    creator.join(60)
    assert [t.error_code for t in created[0].topics] == [0]
    wait_until(
        lambda: all(
            (c := log_config(cluster, i, topic)) and c.retention_ms == 123456 for i in range(cluster.n)
        ),
        "the change on every replica",
    )
