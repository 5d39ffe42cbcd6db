"""Controlled shutdown and ElectLeaders on a real ZooKeeper-mode cluster (three in-process
brokers, each with its KafkaController): a broker's ``controlled_shutdown`` against the real
controller, STALE_CONTROLLER_EPOCH from a broker that is not the controller, and
ElectLeaders from librdkafka's admin client."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from broker.controlled_shutdown import controlled_shutdown
from protocol.errors import ErrorCode
from protocol.messages import ApiKey, ControlledShutdownResponse, MetadataRequest
from tests.support.cluster import Cluster
from tests.support.interception import InterceptedRequest, Transform
from tests.support.polling import wait_until
from tests.support.wire_client import WireClient
from tests.support.zookeeper_server import zookeeper_shared

__all__ = ["zookeeper_shared"]

pytestmark = [pytest.mark.integration, pytest.mark.zookeeper]

TOPIC = "moving"


@pytest.fixture
def cluster(zookeeper_shared, tmp_path, request) -> Iterator[Cluster]:
    name = "".join(c if c.isalnum() else "_" for c in request.node.name)[:60]
    with Cluster(
        3,
        zookeeper=zookeeper_shared,
        zk_chroot=f"/crc_{name}",
        base_dir=tmp_path / "cluster",
        overrides={
            "auto.leader.rebalance.enable": "false",  # leaders stay where the test moved them
            "controlled.shutdown.enable": "false",  # the test runs the one it checks
            "offsets.topic.num.partitions": "1",
        },
    ) as c:
        yield c
        c.clear_controls()


def topic_partitions(cluster: Cluster, i: int) -> list[Any]:
    with WireClient("127.0.0.1", cluster.port(i)) as client:
        request = MetadataRequest(
            topics=[MetadataRequest.MetadataRequestTopic(name=TOPIC)], allow_auto_topic_creation=False
        )
        (topic,) = client.request(request, 12).topics
        return sorted(topic.partitions, key=lambda p: p.partition_index) if topic.error_code == 0 else []


def controller_of(cluster: Cluster) -> int:
    def agreed() -> int | None:
        ids = {cluster.run(lambda i=i: cluster.broker(i).metadata_cache.controller_id) for i in range(3)}
        return ids.pop() if len(ids) == 1 and -1 not in ids else None

    (controller_id,) = wait_until(lambda: (c,) if (c := agreed()) is not None else None, "agreed controller")
    return next(i for i in range(3) if cluster.broker_id(i) == controller_id)


def test_controlled_shutdown_moves_leaders_and_elect_leaders_sees_it(cluster: Cluster) -> None:
    from confluent_kafka import ElectionType, KafkaError, TopicPartition
    from confluent_kafka.admin import AdminClient, NewTopic

    ctrl = controller_of(cluster)
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    admin.create_topics([NewTopic(TOPIC, num_partitions=3, replication_factor=3)])[TOPIC].result(30)
    wait_until(
        lambda: all(
            len(ps) == 3 and all(p.leader_id >= 0 for p in ps)
            for ps in map(lambda i: topic_partitions(cluster, i), range(3))
        ),
        "leaders everywhere",
    )
    # a broker other than the controller that leads something shuts down
    leaders = {p.partition_index: p.leader_id for p in topic_partitions(cluster, ctrl)}
    preferred = {p.partition_index: p.replica_nodes[0] for p in topic_partitions(cluster, ctrl)}
    leaving = next(i for i in range(3) if i != ctrl and cluster.broker_id(i) in leaders.values())
    leaving_id = cluster.broker_id(leaving)
    other = next(i for i in range(3) if i not in (ctrl, leaving))

    # the first attempt goes to a broker that is not the controller, as after a move
    answers: list[int] = []

    def record(req: InterceptedRequest) -> Transform:
        def seen(response: ControlledShutdownResponse) -> ControlledShutdownResponse:
            answers.append(response.error_code)
            return response

        return Transform(seen)

    cluster.control(other, ApiKey.CONTROLLED_SHUTDOWN, record, keep=True)
    broker = cluster.broker(leaving)

    class StaleFirst:
        """The leaving broker's metadata cache, naming a non-controller at the first read."""

        reads = 0

        @property
        def controller_id(self) -> int:
            self.reads += 1
            return cluster.broker_id(other) if self.reads == 1 else broker.metadata_cache.controller_id

        def endpoint(self, broker_id: int, listener: str) -> Any:
            return broker.metadata_cache.endpoint(broker_id, listener)

    done = cluster.run(
        controlled_shutdown(
            StaleFirst(),
            listener=broker.config.inter_broker_listener,
            broker_id=leaving_id,
            broker_epoch=broker.zookeeper.broker_epoch,
            max_retries=3,
            retry_backoff_ms=50,
        ),
        timeout=60,
    )
    assert done is True
    assert answers == [ErrorCode.STALE_CONTROLLER_EPOCH.code]

    # every broker's metadata: the leaving broker leads nothing and left every ISR
    for i in range(3):
        wait_until(
            lambda i=i: all(
                p.leader_id != leaving_id and leaving_id not in p.isr_nodes
                for p in topic_partitions(cluster, i)
            ),
            f"broker {i}'s metadata without broker {leaving_id} leading",
        )

    # ElectLeaders (to the controller): the partitions preferring the leaving broker cannot
    # get it back (shutting down); the others already have their preferred leader
    asked = [TopicPartition(TOPIC, p) for p in range(3)]
    results = admin.elect_leaders(ElectionType.PREFERRED, asked).result(30)
    codes = {tp.partition: err.code() if err is not None else 0 for tp, err in results.items()}
    assert codes == {
        p: KafkaError.PREFERRED_LEADER_NOT_AVAILABLE
        if preferred[p] == leaving_id
        else KafkaError.ELECTION_NOT_NEEDED
        for p in range(3)
    }
    # all partitions: only the failures are reported
    results = admin.elect_leaders(ElectionType.PREFERRED, None).result(30)
    reported = {tp.partition: err.code() for tp, err in results.items() if tp.topic == TOPIC}
    assert reported == {
        p: KafkaError.PREFERRED_LEADER_NOT_AVAILABLE for p in range(3) if preferred[p] == leaving_id
    }
