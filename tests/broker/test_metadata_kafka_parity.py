"""Metadata and DescribeCluster answers as Kafka 3.9 gives them: invalid names, endpoint types, the
controller id, topic ids asked twice, auto-creation past max.partitions.per.request, and the
all-topics cache under topic churn."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from broker.handlers import RequestContext
from broker.handlers.describe_cluster import handle_describe_cluster
from broker.metadata_cache import MetadataCache
from coordinator.acl_authorizer import AllowAll
from coordinator.cluster_state import BrokerEndpoint, LiveBroker
from protocol.errors import ErrorCode
from protocol.messages import DescribeClusterRequest, MetadataRequest
from tests.support.wire_client import WireClient


def _metadata(port: int, names: list[str], version: int, allow_auto: bool):
    with WireClient("127.0.0.1", port) as client:
        return client.request(
            MetadataRequest(
                topics=[MetadataRequest.MetadataRequestTopic(name=n) for n in names],
                allow_auto_topic_creation=allow_auto,
            ),
            version,
        )


@pytest.mark.parametrize("name", ["bad name!", "", "x" * 250, ".."])
def test_invalid_topic_name_without_auto_creation_is_invalid_topic_exception(broker_factory, name):
    # KafkaApis.getTopicMetadata: a missing topic not auto-created is Topic.validate'd:
    # INVALID_TOPIC_EXCEPTION for an illegal name, UNKNOWN_TOPIC_OR_PARTITION otherwise.
    b = broker_factory({"auto.create.topics.enable": "false"})
    response = _metadata(b.port, [name, "legal-missing"], 12, allow_auto=True)
    errors = {t.name: t.error_code for t in response.topics}
    assert errors["legal-missing"] == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code
    assert errors[name] == ErrorCode.INVALID_TOPIC_EXCEPTION.code


def test_invalid_topic_name_with_allow_auto_false_is_invalid_topic_exception(broker):
    # The Java consumer (allow.auto.create.topics=false) and many admin paths send v4+
    # with allow_auto_topic_creation=false.
    response = _metadata(broker.port, ["bad/name"], 9, allow_auto=False)
    assert [(t.name, t.error_code) for t in response.topics] == [
        ("bad/name", ErrorCode.INVALID_TOPIC_EXCEPTION.code)
    ]


# ---------------------------------------------------------------------- DescribeCluster


def _ctx(cache: MetadataCache, version: int) -> RequestContext:
    broker = SimpleNamespace(authorizer=AllowAll(), metadata_cache=cache, config={})
    return RequestContext(broker, 60, version, 1, "test", "peer", 1, "PLAINTEXT")  # type: ignore[arg-type]


def _cache(controller: int, brokers: list[LiveBroker]) -> MetadataCache:
    cache = MetadataCache(1, "cluster", controller_id=controller)
    cache.on_brokers_changed(brokers)
    return cache


def test_describe_cluster_unknown_endpoint_type_is_unsupported_endpoint_type():
    # AuthHelper.computeDescribeClusterResponse: EndpointType.fromId -> UNKNOWN for ids other
    # than 1 and 2: UNSUPPORTED_ENDPOINT_TYPE (v1+) "Unsupported endpoint type <n>".
    cache = _cache(1, [LiveBroker(1, (BrokerEndpoint("PLAINTEXT", "h", 1),), None)])
    for endpoint_type in (0, 3):
        r = handle_describe_cluster(_ctx(cache, 1), DescribeClusterRequest(endpoint_type=endpoint_type))
        assert r.error_code == ErrorCode.UNSUPPORTED_ENDPOINT_TYPE.code, endpoint_type


def test_describe_cluster_controller_without_endpoint_on_listener_is_minus_one():
    # AuthHelper.computeDescribeClusterResponse: "If the provided controller ID is not in the
    # node list, return -1 instead to avoid confusing the client."
    cache = _cache(
        2,
        [
            LiveBroker(1, (BrokerEndpoint("PLAINTEXT", "h", 1),), None),
            LiveBroker(2, (BrokerEndpoint("INTERNAL", "h", 2),), None),  # no PLAINTEXT endpoint
        ],
    )
    r = handle_describe_cluster(_ctx(cache, 1), DescribeClusterRequest(endpoint_type=1))
    assert [b.broker_id for b in r.brokers] == [1]
    assert r.controller_id == -1


# ---------------------------------------------------------------------- v12 topic ids


def _by_ids(port: int, ids, version: int = 12):
    with WireClient("127.0.0.1", port) as client:
        return client.request(
            MetadataRequest(
                topics=[MetadataRequest.MetadataRequestTopic(name=None, topic_id=i) for i in ids],
                allow_auto_topic_creation=False,
            ),
            version,
        )


def test_v12_topic_ids_are_deduplicated(broker):
    # KafkaApis.handleTopicMetadataRequest: topicIds = metadataRequest.topicIds.asScala.toSet:
    # an id named twice is answered once (as a name named twice is, here too).
    import uuid

    from tests.support.polling import wait_until

    _metadata(broker.port, ["dup-id"], 12, allow_auto=True)  # auto-create it

    def created():
        (t,) = _metadata(broker.port, ["dup-id"], 12, allow_auto=False).topics
        return t.topic_id if t.error_code == 0 else None

    topic_id = wait_until(created, "topic dup-id created", timeout=30)
    unknown = uuid.uuid4()
    response = _by_ids(broker.port, [topic_id, topic_id, unknown, unknown])
    answered = sorted((str(t.topic_id), t.error_code) for t in response.topics)
    assert answered == sorted([(str(topic_id), 0), (str(unknown), ErrorCode.UNKNOWN_TOPIC_ID.code)])


def test_auto_create_of_topic_larger_than_the_request_budget_is_not_left_pending(broker_factory):
    # num.partitions above max.partitions.per.request: the first auto-creation of a request
    # always goes (Kafka has no such bound); before, a single topic bigger than the
    # whole budget is refused (LEADER_NOT_AVAILABLE) on every request, so a producer waits
    # forever. Kafka (no such limit) creates it; CreateTopics here answers POLICY_VIOLATION.
    from tests.support.polling import wait_until

    b = broker_factory({"num.partitions": "5", "max.partitions.per.request": "2"})

    def settled():
        (t,) = _metadata(b.port, ["big-auto"], 12, allow_auto=True).topics
        return (
            (t.error_code, len(t.partitions)) if t.error_code != ErrorCode.LEADER_NOT_AVAILABLE.code else None
        )

    assert wait_until(settled, "big-auto created") == (0, 5)


# ---------------------------------------------------------------------- memory with topic churn


def test_all_topics_entries_of_deleted_topics_are_not_kept_forever():
    # The all-topics answer's encoded entries (MetadataCache.derived) are dropped only when the
    # brokers change: on a broker whose brokers never change (a lone broker), every topic ever
    # created and deleted keeps its encoded entry per (version, listener, ops) for ever, and
    # its MetadataCache._topic_changed counter too: memory grows with topic churn.
    import uuid

    from broker.handlers.metadata import handle_metadata
    from coordinator.cluster_state import PartitionState, TopicMetadata

    cache = _cache(0, [LiveBroker(0, (BrokerEndpoint("PLAINTEXT", "h", 1),), None)])
    broker = SimpleNamespace(
        authorizer=AllowAll(),
        metadata_cache=cache,
        config={"auto.create.topics.enable": False, "max.partitions.per.request": 1000},
    )
    ctx = RequestContext(broker, 3, 12, 1, "test", "peer", 1, "PLAINTEXT")  # type: ignore[arg-type]

    async def churn() -> None:
        for i in range(200):
            name = f"tmp-{i}"
            topic = TopicMetadata(name, uuid.uuid4(), 1)
            cache.on_topics_changed({name: topic}, [PartitionState(name, 0, 0, 0, (0,), (0,))])
            await handle_metadata(ctx, MetadataRequest(topics=None))
            cache.on_topic_deleted(topic)
        await handle_metadata(ctx, MetadataRequest(topics=None))

    asyncio.run(churn())
    assert cache.topic_names() == []
    kept = sum(len(v) for v in cache.derived.values() if isinstance(v, dict))
    assert kept == 0, f"{kept} encoded entries of deleted topics kept"
