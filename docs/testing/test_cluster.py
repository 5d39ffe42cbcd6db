"""A replicated cluster: three brokers sharing a ZooKeeper, a crash and a network cut."""

import pytest
from confluent_kafka import Consumer, Producer


def produce(cluster, topic, values):
    """Write ``values`` with acks=all (every in-sync replica has them when acknowledged)."""
    producer = Producer(
        {"bootstrap.servers": cluster.bootstrap_servers, "acks": "all", "enable.idempotence": True}
    )
    for value in values:
        producer.produce(topic, value=value)
    assert producer.flush(60) == 0


def consume(cluster, topic, count):
    consumer = Consumer(
        {
            "bootstrap.servers": cluster.bootstrap_servers,
            "group.id": "checker",
            "auto.offset.reset": "earliest",
        }
    )
    consumer.subscribe([topic])
    values = []
    while len(values) < count:
        message = consumer.poll(10)
        assert message is not None, f"only {len(values)} of {count} records arrived"
        assert message.error() is None, message.error()
        values.append(message.value())
    consumer.close()
    return values


def test_acknowledged_records_survive_the_leaders_crash(moldau_cluster):
    moldau_cluster.create_topic("ledger", partitions=1, replication_factor=3)
    produce(moldau_cluster, "ledger", [b"entry-%d" % i for i in range(50)])

    leader = moldau_cluster.leader("ledger")
    moldau_cluster.kill(leader)  # a crash: a follower in the ISR takes over
    assert moldau_cluster.leader("ledger") != leader
    produce(moldau_cluster, "ledger", [b"entry-%d" % i for i in range(50, 100)])

    moldau_cluster.start_broker(leader)  # recovers its log and follows the new leader
    moldau_cluster.wait_in_sync("ledger")
    assert consume(moldau_cluster, "ledger", 100) == [b"entry-%d" % i for i in range(100)]


@pytest.mark.moldau_cluster(brokers=3, overrides={"replica.lag.time.max.ms": 1000})
def test_a_follower_cut_off_from_its_leader_leaves_the_isr_and_comes_back(moldau_cluster):
    moldau_cluster.create_topic("events", replication_factor=3)
    leader = moldau_cluster.leader("events")
    controller = moldau_cluster.controller()  # the leader must still reach it, to shrink the ISR
    follower = next(b for b in moldau_cluster.partition("events").replicas if b not in (leader, controller))

    moldau_cluster.cut_link(leader, follower)  # their requests are lost, both ways
    produce(moldau_cluster, "events", [b"while-cut"])  # acks=all: the ISR shrinks first
    assert follower not in moldau_cluster.partition("events", broker=leader).isr

    moldau_cluster.heal_link(leader, follower)
    moldau_cluster.wait_in_sync("events")  # it caught up and is back in the ISR
