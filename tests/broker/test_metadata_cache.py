"""MetadataCache: fed the controller's events, it answers the cluster-view queries."""

from __future__ import annotations

import uuid

from broker.metadata_cache import NO_CONTROLLER, MetadataCache
from coordinator.cluster_state import NO_LEADER, BrokerEndpoint, LiveBroker, PartitionState, TopicMetadata


def broker(broker_id: int, *listeners: str, rack: str | None = None) -> LiveBroker:
    return LiveBroker(
        broker_id,
        tuple(BrokerEndpoint(name, f"host-{broker_id}", 9000 + broker_id) for name in listeners),
        rack,
    )


def state(topic: str, p: int, leader: int, epoch: int = 0, replicas=(1, 2), isr=(1, 2)) -> PartitionState:
    return PartitionState(
        topic, p, leader=leader, leader_epoch=epoch, isr=tuple(isr), replicas=tuple(replicas)
    )


def test_empty_cache_knows_nothing():
    cache = MetadataCache(1, "cid")
    assert cache.controller_id == NO_CONTROLLER
    assert cache.get_alive_brokers() == []
    assert cache.topic_names() == []
    assert cache.get_topic("t") is None
    assert cache.partition_state("t", 0) is None
    assert cache.endpoint(1, "PLAINTEXT") is None
    assert cache.leader_epoch("t", 0) == 0


def test_brokers_and_their_listeners():
    cache = MetadataCache(1, "cid", controller_id=2)
    cache.on_brokers_changed([broker(2, "PLAINTEXT", rack="r2"), broker(1, "PLAINTEXT", "INTERNAL")])
    assert [b.broker_id for b in cache.get_alive_brokers()] == [1, 2]
    assert cache.controller_id == 2
    assert cache.endpoint(1, "INTERNAL") == BrokerEndpoint("INTERNAL", "host-1", 9001)
    assert cache.endpoint(2, "INTERNAL") is None  # broker 2 has no such listener
    assert [b.broker_id for b, _ in cache.alive_endpoints("INTERNAL")] == [1]
    assert cache.get_alive_broker(2).rack == "r2"
    # the complete set each time: broker 2 is gone
    cache.on_brokers_changed([broker(1, "PLAINTEXT")])
    assert cache.get_alive_broker(2) is None
    assert not cache.is_alive(2)
    cache.set_controller(1)
    assert cache.controller_id == 1


def test_topics_partitions_and_ids():
    cache = MetadataCache(1, "cid")
    tid = uuid.uuid4()
    orders = TopicMetadata("orders", tid, 2, {"retention.ms": 1000})
    cache.on_topics_changed({"orders": orders}, [state("orders", 1, 2, epoch=3), state("orders", 0, 1)])
    assert cache.topic_names() == ["orders"]
    assert cache.get_topic("orders") is orders
    assert cache.get_topic_by_id(tid) is orders
    assert [s.partition for s in cache.partition_states("orders")] == [0, 1]
    assert cache.partition_state("orders", 1).leader == 2
    assert cache.leader_epoch("orders", 1) == 3
    # a leadership change alone: states without the topic entry
    cache.on_topics_changed({}, [state("orders", 1, NO_LEADER, epoch=4, isr=(1,))])
    assert cache.partition_state("orders", 1).leader == NO_LEADER
    assert cache.leader_epoch("orders", 1) == 4
    assert cache.get_topic("orders") is orders


def test_leader_endpoint_needs_an_alive_leader_with_the_listener():
    cache = MetadataCache(1, "cid")
    cache.on_brokers_changed([broker(1, "PLAINTEXT")])
    t = TopicMetadata("t", uuid.uuid4(), 3)
    cache.on_topics_changed({"t": t}, [state("t", 0, 1), state("t", 1, 2), state("t", 2, NO_LEADER)])
    assert cache.leader_endpoint("t", 0, "PLAINTEXT") == BrokerEndpoint("PLAINTEXT", "host-1", 9001)
    assert cache.leader_endpoint("t", 0, "OTHER") is None
    assert cache.leader_endpoint("t", 1, "PLAINTEXT") is None  # broker 2 is not alive
    assert cache.leader_endpoint("t", 2, "PLAINTEXT") is None
    assert cache.leader_endpoint("t", 9, "PLAINTEXT") is None


def test_deleted_and_recreated_topics():
    cache = MetadataCache(1, "cid")
    old = TopicMetadata("t", uuid.uuid4(), 1)
    cache.on_topics_changed({"t": old}, [state("t", 0, 1)])
    cache.on_topic_deleted(old)
    assert cache.get_topic("t") is None
    assert cache.get_topic_by_id(old.topic_id) is None
    assert cache.partition_states("t") == []
    new = TopicMetadata("t", uuid.uuid4(), 1)
    cache.on_topics_changed({"t": new}, [state("t", 0, 1)])
    assert cache.get_topic_by_id(new.topic_id) is new
    assert cache.get_topic_by_id(old.topic_id) is None
    # a recreation published without a delete in between replaces the id too
    newer = TopicMetadata("t", uuid.uuid4(), 1)
    cache.on_topics_changed({"t": newer}, [])
    assert cache.get_topic_by_id(new.topic_id) is None
    assert cache.get_topic("t") is newer


def test_topics_colliding_on_dot_and_underscore_are_found_until_deleted():
    cache = MetadataCache(1, "cid")
    dotted = TopicMetadata("ev.ents", uuid.uuid4(), 1)
    cache.on_topics_changed({"ev.ents": dotted}, [state("ev.ents", 0, 1)])
    assert cache.topic_colliding_with("ev_ents") == "ev.ents"
    assert cache.topic_colliding_with("other") is None
    cache.on_topic_deleted(dotted)
    assert cache.topic_colliding_with("ev_ents") is None
    # ZooKeeper mode: UpdateMetadata publishes and removes (leader -2) topics
    cache.update_metadata(1, [broker(1, "PLAINTEXT")], {"a.b": uuid.uuid4()}, [state("a.b", 0, 1)])
    assert cache.topic_colliding_with("a_b") == "a.b"
    cache.update_metadata(1, [broker(1, "PLAINTEXT")], {}, [state("a.b", 0, -2)])
    assert cache.get_topic("a.b") is None and cache.topic_colliding_with("a_b") is None
