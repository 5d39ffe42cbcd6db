"""Adding partitions (CreatePartitions) with each admin client: the Java Admin, confluent-kafka
and kafka-python grow a topic on a lone broker; Metadata shows the new partitions, a record
produced to the last one is read back from it, and shrinking is refused with Kafka's error.
(On a ZooKeeper-mode cluster: tests/cluster/test_zk_topic_admin.py.)
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka import TopicPartition as CTopicPartition
from confluent_kafka.admin import AdminClient, NewPartitions
from kafka.admin import KafkaAdminClient
from kafka.admin import NewPartitions as KNewPartitions

from broker.testing.embedded import InProcessBroker
from tests.support.java_client import JavaClient, require_java

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def kafka(tmp_path_factory) -> Iterator[InProcessBroker]:
    with InProcessBroker(tmp_path_factory.mktemp("grow")) as broker:
        yield broker


def grow_java(kafka: InProcessBroker, topic: str, count: int) -> str:
    line = JavaClient(kafka.bootstrap_servers, runtime=require_java()).create_partitions(topic, count)
    return "NONE" if line.get("ok") else line["error_code"]


def grow_confluent(kafka: InProcessBroker, topic: str, count: int) -> str:
    admin = AdminClient({"bootstrap.servers": kafka.bootstrap_servers})
    try:
        admin.create_partitions([NewPartitions(topic, count)], operation_timeout=30)[topic].result(30)
    except Exception as exc:  # KafkaException carrying a KafkaError
        return exc.args[0].name()
    return "NONE"


def grow_kafka_python(kafka: InProcessBroker, topic: str, count: int) -> str:
    admin = KafkaAdminClient(bootstrap_servers=kafka.bootstrap_servers)
    try:
        admin.create_partitions({topic: KNewPartitions(count)})
    except Exception as exc:  # kafka.errors.*Error
        return type(exc).__name__
    finally:
        admin.close()
    return "NONE"


GROWERS: dict[str, Callable[[InProcessBroker, str, int], str]] = {
    "java": grow_java,
    "confluent-kafka": grow_confluent,
    "kafka-python": grow_kafka_python,
}
REFUSED = {
    "java": "INVALID_PARTITIONS",
    "confluent-kafka": "INVALID_PARTITIONS",
    "kafka-python": "InvalidPartitionsError",
}


@pytest.mark.parametrize("client", GROWERS)
def test_each_admin_client_adds_partitions(client: str, kafka: InProcessBroker) -> None:
    topic = f"grow-{client}-{uuid.uuid4().hex[:6]}"
    kafka.create_topic(topic, partitions=1)
    assert GROWERS[client](kafka, topic, 3) == "NONE"

    admin = AdminClient({"bootstrap.servers": kafka.bootstrap_servers})
    assert sorted(admin.list_topics(topic, timeout=30).topics[topic].partitions) == [0, 1, 2]
    producer = Producer({"bootstrap.servers": kafka.bootstrap_servers})
    producer.produce(topic, value=b"in-the-new-partition", partition=2)
    assert producer.flush(30) == 0
    consumer = Consumer({"bootstrap.servers": kafka.bootstrap_servers, "group.id": topic})
    consumer.assign([CTopicPartition(topic, 2, 0)])
    message = consumer.poll(10)
    consumer.close()
    assert message is not None and message.error() is None and message.value() == b"in-the-new-partition"

    assert GROWERS[client](kafka, topic, 2) == REFUSED[client]  # fewer than it has


def test_the_refusals_say_what_kafka_says(kafka: InProcessBroker) -> None:
    """ZkAdminManager.createPartitions' two messages: the current count, and fewer than it."""
    from confluent_kafka import KafkaException

    topic = f"grow-messages-{uuid.uuid4().hex[:6]}"
    kafka.create_topic(topic, partitions=2)
    admin = AdminClient({"bootstrap.servers": kafka.bootstrap_servers})
    said = {}
    for count in (2, 1):
        (future,) = admin.create_partitions([NewPartitions(topic, count)]).values()
        with pytest.raises(KafkaException) as refused:
            future.result(30)
        said[count] = refused.value.args[0].str()
    assert said == {
        2: "Topic already has 2 partitions.",
        1: "Topic currently has 2 partitions, which is higher than the requested 1.",
    }
