"""ElectLeaders from real admin clients (confluent-kafka / librdkafka, kafka-python) against a
broker without ZooKeeper: it leads every partition, so none needs an election."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.integration

TOPIC = "elect-me"


@pytest.fixture
def topic_broker(broker):
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    admin.create_topics([NewTopic(TOPIC, num_partitions=2, replication_factor=1)])[TOPIC].result(30)
    return broker


@pytest.mark.parametrize("kind", ["PREFERRED", "UNCLEAN"])
def test_confluent_admin_elect_leaders(topic_broker, kind):
    from confluent_kafka import ElectionType, KafkaError, TopicPartition
    from confluent_kafka.admin import AdminClient

    admin = AdminClient({"bootstrap.servers": topic_broker.bootstrap})
    election = getattr(ElectionType, kind)
    results = admin.elect_leaders(
        election, [TopicPartition(TOPIC, 0), TopicPartition(TOPIC, 1), TopicPartition(TOPIC, 7)]
    ).result(30)
    codes = {(tp.topic, tp.partition): error.code() for tp, error in results.items()}
    assert codes == {
        (TOPIC, 0): KafkaError.ELECTION_NOT_NEEDED,
        (TOPIC, 1): KafkaError.ELECTION_NOT_NEEDED,
        (TOPIC, 7): KafkaError.UNKNOWN_TOPIC_OR_PART,
    }
    # every partition (null TopicPartitions): none needed an election, none is reported
    assert admin.elect_leaders(election, None).result(30) == {}


def test_kafka_python_admin_elect_leaders(topic_broker):
    from kafka.admin import KafkaAdminClient

    admin = KafkaAdminClient(bootstrap_servers=topic_broker.bootstrap)
    try:
        resp = admin.elect_leaders(
            0, {TOPIC: [0, 1], "no-such-topic": [0]}, timeout_ms=10_000, raise_errors=False
        )
        assert resp.error_code == 0
        got = {
            (r.topic, p.partition_id): p.error_code
            for r in resp.replica_election_results
            for p in r.partition_result
        }
        assert got == {(TOPIC, 0): 84, (TOPIC, 1): 84, ("no-such-topic", 0): 3}
        # a topic's partitions, looked up by the client, need no election: raise_errors
        # ignores ELECTION_NOT_NEEDED
        resp = admin.elect_leaders(1, [TOPIC], timeout_ms=10_000)
        assert {p.error_code for r in resp.replica_election_results for p in r.partition_result} == {84}
    finally:
        admin.close()
