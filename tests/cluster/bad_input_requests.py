"""Raw requests of the bad-input cluster tests (``test_bad_input_cluster.py``): create a topic
on the controller and wait for it everywhere, find a partition's leader, produce one record."""

from __future__ import annotations

import uuid
from typing import Any

from protocol.messages import CreateTopicsRequest, ProduceRequest
from protocol.records import build_batch
from tests.cluster.zk_cluster_checks import controller_index, raw_metadata
from tests.support.cluster import Cluster
from tests.support.polling import wait_until
from tests.support.wire_client import WireClient


def wire(cluster: Cluster, i: int, client_id: str = "bad-input") -> WireClient:
    return WireClient("127.0.0.1", cluster.port(i), client_id=client_id)


def topic_metadata(cluster: Cluster, i: int, topic: str) -> Any:
    """Broker ``i``'s Metadata v12 entry for ``topic`` (no auto-creation)."""
    (found,) = raw_metadata(cluster, i, [topic]).topics
    return found


def create_topic(cluster: Cluster, topic: str, partitions: int = 1, rf: int = 3) -> uuid.UUID:
    """CreateTopics on the controller; returns the topic id once every broker has every
    partition with a leader and a full ISR."""
    with wire(cluster, controller_index(cluster)) as client:
        request = CreateTopicsRequest(
            topics=[
                CreateTopicsRequest.CreatableTopic(
                    name=topic, num_partitions=partitions, replication_factor=rf, assignments=[], configs=[]
                )
            ],
            timeout_ms=30000,
        )
        (result,) = client.request(request, 7).topics
        assert result.error_code == 0, result

    def ready() -> Any:
        for i in range(cluster.n):
            m = topic_metadata(cluster, i, topic)
            if m.error_code or len(m.partitions) != partitions:
                return None
            if any(p.leader_id < 0 or len(p.isr_nodes) != rf for p in m.partitions):
                return None
        return m.topic_id

    return wait_until(ready, f"topic {topic} ready")


def leader_of(cluster: Cluster, topic: str, partition: int = 0) -> int:
    """The index of the broker leading ``topic``-``partition`` (by broker 0's metadata)."""
    m = topic_metadata(cluster, 0, topic)
    p = next(p for p in m.partitions if p.partition_index == partition)
    return next(i for i in range(cluster.n) if cluster.broker_id(i) == p.leader_id)


def produce(cluster: Cluster, i: int, topic: str, value: bytes, *, partition: int = 0) -> Any:
    """One record, acks=all, to broker ``i``; its partition response."""
    with wire(cluster, i) as client:
        request = ProduceRequest(
            acks=-1,
            timeout_ms=10000,
            topic_data=[
                ProduceRequest.TopicProduceData(
                    name=topic,
                    partition_data=[
                        ProduceRequest.PartitionProduceData(
                            index=partition, records=build_batch([(None, value)])
                        )
                    ],
                )
            ],
        )
        return client.request(request, 9).responses[0].partition_responses[0]
