"""Kafka's answers where Moldau used to differ, each sent over the wire, with another client
unaffected afterwards:

- internal topics belong to the broker: a client cannot create ``__consumer_offsets`` or
  ``__transaction_state`` (CreateTopics or Metadata auto-creation), and the broker's group
  coordinator then creates ``__consumer_offsets`` with ``offsets.topic.*``;
- Metadata v10 and v11 naming a topic by id only get Kafka's INVALID_REQUEST (they used to
  close the connection); v12 answers UNKNOWN_TOPIC_ID;
- a transactional producer's ``init_transactions`` succeeds (it used to hang in
  librdkafka, then failed with TRANSACTIONAL_ID_AUTHORIZATION_FAILED while there was no
  transaction coordinator).
"""

from __future__ import annotations

import time
import uuid

import pytest

from protocol.errors import ErrorCode
from protocol.messages import MetadataRequest
from protocol.primitives import ZERO_UUID
from tests.support.wire_client import WireClient

pytestmark = pytest.mark.integration

TIMEOUT_S = 20
OFFSETS = "__consumer_offsets"
TXN_STATE = "__transaction_state"


def _auto_created(c: WireClient, name: str, version: int):
    """Metadata for ``name`` once its auto-creation has finished (LEADER_NOT_AVAILABLE until then)."""
    deadline = time.monotonic() + 20
    while True:
        r = c.request(MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name=name)]), version)
        if r.topics[0].error_code != ErrorCode.LEADER_NOT_AVAILABLE.code or time.monotonic() > deadline:
            return r
        time.sleep(0.05)


@pytest.fixture
def small_broker(broker_factory):
    return broker_factory({"offsets.topic.num.partitions": "3", "offsets.topic.segment.bytes": "1048576"})


def admin(bootstrap: str):
    from confluent_kafka.admin import AdminClient

    return AdminClient({"bootstrap.servers": bootstrap})


def create_error(client, name: str, partitions: int, config: dict[str, str]) -> tuple[ErrorCode, str]:
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import NewTopic

    future = client.create_topics(
        [NewTopic(name, partitions, 1, config=config)], operation_timeout=TIMEOUT_S
    )[name]
    try:
        future.result(timeout=TIMEOUT_S)
    except KafkaException as exc:
        return ErrorCode.for_code(exc.args[0].code()), exc.args[0].str()
    return ErrorCode.NONE, ""


def topic_configs(client, name: str) -> dict[str, str]:
    from confluent_kafka.admin import ConfigResource, ResourceType

    resource = ConfigResource(ResourceType.TOPIC, name)
    entries = client.describe_configs([resource], request_timeout=TIMEOUT_S)[resource].result(
        timeout=TIMEOUT_S
    )
    return {n: e.value for n, e in entries.items()}


def metadata_topic(bootstrap_port: int, name: str, version: int = 9):
    with WireClient("127.0.0.1", bootstrap_port) as c:
        r = c.request(
            MetadataRequest(
                topics=[MetadataRequest.MetadataRequestTopic(name=name)], allow_auto_topic_creation=True
            ),
            version,
        )
    (topic,) = r.topics
    return topic


def commit_offset(bootstrap: str, group: str, topic: str, offset: int) -> list:
    """A consumer of ``group`` commits ``offset`` (this creates ``__consumer_offsets``) and reads it back."""
    from confluent_kafka import Consumer, TopicPartition

    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False})
    try:
        c.commit(offsets=[TopicPartition(topic, 0, offset)], asynchronous=False)
        return [tp.offset for tp in c.committed([TopicPartition(topic, 0)], timeout=TIMEOUT_S)]
    finally:
        c.close()


def test_clients_cannot_create_internal_topics_and_the_broker_creates_them_its_way(small_broker):
    client = admin(small_broker.bootstrap)
    # The first to ask for __consumer_offsets, with settings that would lose committed offsets.
    for name in (OFFSETS, TXN_STATE):
        error, message = create_error(client, name, 1, {"cleanup.policy": "delete", "retention.ms": "1000"})
        assert error is ErrorCode.INVALID_REQUEST
        assert f"Creation of internal topic {name} is prohibited." in message
        # nor through Metadata's auto-creation
        topic = metadata_topic(small_broker.port, name)
        assert topic.error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code
        assert topic.is_internal
    topics = client.list_topics(timeout=TIMEOUT_S).topics
    assert OFFSETS not in topics and TXN_STATE not in topics

    # Another client is unaffected: its group commits, and the broker's own
    # __consumer_offsets appears with offsets.topic.* and compaction.
    assert create_error(client, "orders", 1, {}) == (ErrorCode.NONE, "")
    assert commit_offset(small_broker.bootstrap, "g1", "orders", 5) == [5]
    topics = client.list_topics(timeout=TIMEOUT_S).topics
    assert len(topics[OFFSETS].partitions) == 3
    configs = topic_configs(client, OFFSETS)
    assert configs["cleanup.policy"] == "compact"
    assert configs["segment.bytes"] == "1048576"
    assert configs["retention.ms"] == "604800000"  # the default, not the client's 1000
    # and once it exists, a client still cannot create it (nor change its partitions)
    assert create_error(client, OFFSETS, 50, {"cleanup.policy": "delete"})[0] is ErrorCode.INVALID_REQUEST
    assert len(client.list_topics(timeout=TIMEOUT_S).topics[OFFSETS].partitions) == 3


@pytest.mark.parametrize("version", [10, 11])
def test_metadata_v10_v11_by_topic_id_is_an_invalid_request(broker, version):
    unknown = uuid.uuid4()
    with WireClient("127.0.0.1", broker.port) as c:
        request = MetadataRequest(
            topics=[
                MetadataRequest.MetadataRequestTopic(name=None, topic_id=unknown),
                MetadataRequest.MetadataRequestTopic(name="some-topic"),
            ],
            allow_auto_topic_creation=True,
        )
        r = c.request(request, version)
        # KafkaApis: InvalidRequestException -> MetadataRequest.getErrorResponse for every topic
        assert [(t.error_code, t.name, t.topic_id) for t in r.topics] == [
            (ErrorCode.INVALID_REQUEST.code, "", unknown),
            (ErrorCode.INVALID_REQUEST.code, "some-topic", ZERO_UUID),
        ]
        assert r.brokers == []
        # the connection still serves, and nothing was auto-created by the refused request
        r = c.request(MetadataRequest(topics=None), version)
        assert "some-topic" not in [t.name for t in r.topics]
        assert [b.port for b in r.brokers] == [broker.port]
    # another client is unaffected
    with WireClient("127.0.0.1", broker.port) as other:
        r = _auto_created(other, "t", version)
        assert r.topics[0].error_code == 0 and r.topics[0].name == "t"


def test_metadata_v12_by_topic_id(broker):
    unknown = uuid.uuid4()
    with WireClient("127.0.0.1", broker.port) as c:
        created = _auto_created(c, "t", 12)
        known = created.topics[0].topic_id
        r = c.request(
            MetadataRequest(
                topics=[
                    MetadataRequest.MetadataRequestTopic(name=None, topic_id=unknown),
                    MetadataRequest.MetadataRequestTopic(name=None, topic_id=known),
                ]
            ),
            12,
        )
        assert [(t.error_code, t.name, t.topic_id) for t in r.topics] == [
            (ErrorCode.UNKNOWN_TOPIC_ID.code, None, unknown),
            (0, "t", known),
        ]
        assert len(r.topics[1].partitions) == 1


def test_transactional_producer_init_transactions_succeeds(broker):
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": broker.bootstrap, "transactional.id": "txn-1"})
    producer.init_transactions(TIMEOUT_S)

    # an idempotent producer next to it is unaffected
    ok = Producer({"bootstrap.servers": broker.bootstrap, "enable.idempotence": True})
    delivered: list = []
    ok.produce("plain", b"v", on_delivery=lambda e, m: delivered.append(e))
    ok.flush(TIMEOUT_S)
    assert delivered == [None]
