"""The controller owns the topic registry and publishes every change to its listeners."""

from __future__ import annotations

import uuid

import pytest

from coordinator.cluster_state import BrokerEndpoint, LiveBroker, PartitionState, TopicMetadata
from coordinator.controller import Controller, ControllerTopicStore
from protocol.errors import ErrorCode, KafkaError
from storage.log_manager import LogManager

ME = LiveBroker(7, (BrokerEndpoint("PLAINTEXT", "127.0.0.1", 9092),))


class RecordingListener:
    def __init__(self) -> None:
        self.events: list[tuple] = []

    def on_brokers_changed(self, brokers):
        self.events.append(("brokers", [b.broker_id for b in brokers]))

    def on_topics_changed(self, topics, states):
        self.events.append(("topics", dict(topics), list(states)))

    def on_topic_deleted(self, topic):
        self.events.append(("deleted", topic))


def log_manager(path) -> LogManager:
    lm = LogManager([path], {}, time_ms=lambda: 1_000)
    lm.startup()
    return lm


def leader_state(topic: str, p: int) -> PartitionState:
    return PartitionState(topic, p, leader=7, leader_epoch=0, isr=(7,), replicas=(7,))


def controller(lm: LogManager, *listeners) -> Controller:
    c = Controller(lm, 7, time_ms=lambda: 1_000)
    c.load_from_logs()
    for listener in listeners:
        c.register_listener(listener)
    return c


def test_startup_publishes_the_topics_on_disk_then_the_live_brokers(tmp_path):
    lm = log_manager(tmp_path)
    tid = uuid.uuid4()
    lm.create_topic("orders", 2, tid, {"retention.ms": 1234})
    lm.shutdown()
    lm = log_manager(tmp_path)  # a restart: the registry is loaded from the log dirs
    a, b = RecordingListener(), RecordingListener()
    c = controller(lm, a, b)
    assert a.events == []  # nothing before startup
    c.startup()
    c.update_live_brokers([ME])
    for listener in (a, b):
        kind, topics, states = listener.events[0]
        assert kind == "topics"
        assert topics == {"orders": TopicMetadata("orders", tid, 2, {"retention.ms": 1234})}
        assert states == [leader_state("orders", 0), leader_state("orders", 1)]
        assert listener.events[1] == ("brokers", [7])
    assert [b.broker_id for b in c.live_brokers] == [7]
    lm.shutdown()


def test_create_grow_delete_are_published_in_registration_order(tmp_path):
    lm = log_manager(tmp_path)
    order: list[str] = []

    class Named(RecordingListener):
        def __init__(self, name):
            super().__init__()
            self.name = name

        def on_topics_changed(self, topics, states):
            order.append(self.name)
            super().on_topics_changed(topics, states)

    a, b = Named("a"), Named("b")
    c = controller(lm, a, b)
    c.startup()
    c.update_live_brokers([ME])
    a.events.clear()
    order.clear()

    t = c.create_topic("t", 2, {})
    assert order == ["a", "b"]
    _, topics, states = a.events[-1]
    assert topics["t"].topic_id == t.topic_id and topics["t"].partitions == 2
    assert states == [leader_state("t", 0), leader_state("t", 1)]
    assert lm.get_log("t", 1) is not None  # this broker hosts what it leads

    published = topics["t"]
    c.add_partitions("t", 3)
    assert published.partitions == 2  # what a listener got is its own, unchanged copy
    _, topics, states = a.events[-1]
    assert topics["t"].partitions == 3
    assert states == [leader_state("t", 2)]  # only the new partition
    assert c.topic("t").partitions == 3
    assert c.partition_state("t", 2) == leader_state("t", 2)
    for total, message in [  # ZkAdminManager.createPartitions' two messages
        (3, "Topic already has 3 partitions."),
        (2, "Topic currently has 3 partitions, which is higher than the requested 2."),
    ]:
        with pytest.raises(KafkaError) as refused:
            c.add_partitions("t", total)
        assert (refused.value.error, refused.value.message) == (ErrorCode.INVALID_PARTITIONS, message)

    deleted = c.delete_topic("t")
    assert a.events[-1] == ("deleted", deleted) and b.events[-1] == ("deleted", deleted)
    assert deleted.topic_id == t.topic_id
    assert c.topic("t") is None and c.topic_by_id(t.topic_id) is None
    assert c.partition_state("t", 0) is None
    assert lm.get_log("t", 0) is None
    lm.shutdown()


def test_the_registry_is_the_controllers_not_the_log_dirs(tmp_path):
    lm = log_manager(tmp_path)
    c = controller(lm)
    c.startup()
    c.update_live_brokers([ME])
    # a log created behind the controller's back is hosted, but is not a topic of the cluster
    lm.create_topic("stray", 1, uuid.uuid4(), {})
    assert c.topic("stray") is None
    assert "stray" not in c.topics()
    lm.shutdown()


def test_clients_cannot_create_internal_topics(tmp_path):
    lm = log_manager(tmp_path)
    c = controller(lm)
    c.startup()
    c.update_live_brokers([ME])
    for name in ("__consumer_offsets", "__transaction_state"):
        with pytest.raises(KafkaError) as err:
            c.check_create(
                name, 1, 1, {"cleanup.policy": "delete"}, default_partitions=1, default_replication=1
            )
        assert err.value.error is ErrorCode.INVALID_REQUEST
        assert err.value.message == f"Creation of internal topic {name} is prohibited."
    lm.shutdown()


def test_replication_and_assignments_are_checked_against_the_live_brokers(tmp_path):
    lm = log_manager(tmp_path)
    c = controller(lm)
    c.startup()
    c.update_live_brokers([ME])
    with pytest.raises(KafkaError) as err:
        c.check_create("t", 1, 2, {}, default_partitions=1, default_replication=1)
    assert err.value.error is ErrorCode.INVALID_REPLICATION_FACTOR
    with pytest.raises(KafkaError) as err:
        c.check_create("t", -1, -1, {}, default_partitions=1, default_replication=1, assignments=[(0, [8])])
    assert err.value.error is ErrorCode.INVALID_REPLICA_ASSIGNMENT
    assert c.check_create(
        "t", -1, -1, {}, default_partitions=1, default_replication=1, assignments=[(0, [7])]
    )[:2] == (1, 1)
    lm.shutdown()


def test_the_group_coordinators_topic_store_creates_through_the_controller(tmp_path):
    lm = log_manager(tmp_path)
    listener = RecordingListener()
    c = controller(lm, listener)
    c.startup()
    c.update_live_brokers([ME])
    store = ControllerTopicStore(lm, c)
    tid = uuid.uuid4()
    logs = store.create_topic("__consumer_offsets", 1, tid, {"cleanup.policy": "compact"})
    assert [plog.partition for plog in logs] == [0]
    store.add_partitions("__consumer_offsets", 3)
    assert store.topics()["__consumer_offsets"].partitions == 3
    assert store.topics()["__consumer_offsets"].topic_id == tid
    assert store.get_log("__consumer_offsets", 2) is not None
    _, topics, states = listener.events[-1]
    assert topics["__consumer_offsets"].is_internal
    assert topics["__consumer_offsets"].overrides == {"cleanup.policy": "compact"}
    assert states == [leader_state("__consumer_offsets", 1), leader_state("__consumer_offsets", 2)]
    lm.shutdown()
