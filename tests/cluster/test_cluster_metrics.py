"""The Prometheus metrics of a 3-broker ZooKeeper-mode cluster against Kafka 3.9's gauges and meters.

In-process brokers (tests.support.cluster), each with its endpoint (``metrics.prometheus.port=0``),
scraped over HTTP as Prometheus does. Each test names the Kafka class and method whose value it
checks: the controller's gauges (KafkaController), the ReplicaManager's counts over its
partitions (Partition ``isUnderReplicated`` / ``isUnderMinIsr`` / ``isAtMinIsr``) and its ISR
meters (marked by Partition ``handleAlterPartitionUpdate``).
"""

from __future__ import annotations

import urllib.request
from collections.abc import Callable
from typing import Any

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic
from kafka import TopicPartition as KTopicPartition
from kafka.admin import KafkaAdminClient
from prometheus_client.parser import text_string_to_metric_families

from tests.support import polling
from tests.support.cluster import Cluster
from tests.support.interception import Close

pytestmark = [pytest.mark.integration, pytest.mark.zookeeper]

RM = "kafka_server_replicamanager_"
KC = "kafka_controller_kafkacontroller_"


def wait_until(condition: Callable[[], Any], what: str, timeout: float = 60.0) -> Any:
    return polling.wait_until(condition, what, timeout)


def scrape(cluster: Cluster, i: int) -> dict[str, float]:
    """Broker i's samples by name (a labelled one as name{k=v,...})."""
    host, port = cluster.broker(i).metrics.bound
    text = urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=30).read().decode()
    out: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            labels = ",".join(f"{k}={v}" for k, v in sorted(s.labels.items()))
            out[s.name + (f"{{{labels}}}" if labels else "")] = s.value
    return out


def controller_index(cluster: Cluster) -> int:
    def find() -> int | None:
        for i in range(cluster.n):
            if cluster.alive(i) and cluster.run(lambda i=i: cluster.broker(i).kafka_controller.active):
                return i + 1
        return None

    return wait_until(find, "an active controller") - 1


def partition(cluster: Cluster, i: int, topic: str) -> Any:
    """Broker i's Partition of ``topic``-0 (None if it hosts none), read on its loop."""
    return cluster.run(lambda: cluster.broker(i).replica_manager.get_partition(topic, 0))


@pytest.fixture
def cluster(cluster_factory, zookeeper_shared, request) -> Cluster:
    return cluster_factory(
        3,
        zookeeper=zookeeper_shared,
        zk_chroot=f"/metrics-{request.node.name}",
        overrides={
            "metrics.prometheus.port": "0",
            "zookeeper.session.timeout.ms": "6000",
            "replica.lag.time.max.ms": "2000",
        },
    )


def create(cluster: Cluster, topic: NewTopic) -> None:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    admin.create_topics([topic], operation_timeout=30, request_timeout=40)[topic.topic].result(60)


def test_controller_gauges_are_the_active_controllers(cluster):
    """KafkaController's gauges (``updateMetrics``): ``ActiveControllerCount`` is 1 on the
    active controller and 0 elsewhere; ``GlobalTopicCount`` (``allTopics``),
    ``GlobalPartitionCount`` (``partitionWithLeadersCount``), ``ActiveBrokerCount`` and
    ``PreferredReplicaImbalanceCount`` are the active controller's, 0 on the others."""
    controller = controller_index(cluster)
    create(cluster, NewTopic("spread", 3, replica_assignment=[[0, 1], [1, 2], [2, 0]]))
    values = [scrape(cluster, i) for i in range(3)]
    assert [v[KC + "activecontrollercount"] for v in values] == [
        1.0 if i == controller else 0.0 for i in range(3)
    ]
    got = values[controller]
    assert (got[KC + "globaltopiccount"], got[KC + "globalpartitioncount"]) == (1, 3)
    assert (got[KC + "activebrokercount"], got[KC + "preferredreplicaimbalancecount"]) == (3, 0)
    for i in set(range(3)) - {controller}:
        assert values[i][KC + "globaltopiccount"] == values[i][KC + "activebrokercount"] == 0


def test_preferred_replica_imbalance_counts_a_partition_led_by_another_replica(cluster):
    """KafkaController ``PreferredReplicaImbalanceCount`` (ControllerContext
    ``hasPreferredLeader``): the preferred (first) replica's broker killed, its partition is
    led by the second replica and counts as imbalanced on the active controller."""
    controller = controller_index(cluster)
    preferred, other = (controller + 1) % 3, (controller + 2) % 3
    create(cluster, NewTopic("pref", 1, replica_assignment=[[preferred, other]]))
    wait_until(
        lambda: (p := partition(cluster, other, "pref")) is not None and len(p.isr) == 2,
        "pref-0 with a full ISR",
    )
    cluster.kill(preferred)
    wait_until(
        lambda: scrape(cluster, controller)[KC + "preferredreplicaimbalancecount"] == 1,
        "pref-0 counted as led by another than its preferred replica",
    )


def test_offline_partitions_count_is_the_controllers_cluster_wide_count(cluster):
    """KafkaController ``OfflinePartitionsCount`` (``updateMetrics``:
    ``controllerContext.offlinePartitionCount`` on the active controller, 0 elsewhere): a
    partition whose only replica's broker is dead is offline, and the controller counts it
    although no live broker hosts it."""
    controller = controller_index(cluster)
    victim = (controller + 1) % 3
    create(cluster, NewTopic("lonely", 1, replica_assignment=[[victim]]))
    wait_until(lambda: partition(cluster, victim, "lonely") is not None, "the partition on its broker")
    cluster.kill(victim)
    admin = AdminClient({"bootstrap.servers": cluster.address(controller)})

    def offline() -> bool:
        md = admin.list_topics("lonely", timeout=10)
        return md.topics["lonely"].partitions[0].leader == -1

    wait_until(offline, "lonely-0 offline in the controller's Metadata", timeout=40)
    values = {i: scrape(cluster, i)[KC + "offlinepartitionscount"] for i in range(3) if cluster.alive(i)}
    assert values == {i: (1.0 if i == controller else 0.0) for i in values}


def test_min_isr_gauges_use_the_effective_min_isr(cluster):
    """Partition ``isUnderMinIsr`` / ``isAtMinIsr`` compare the ISR with ``effectiveMinIsr`` =
    min(min.insync.replicas, replicas): a one-replica topic with ``min.insync.replicas=2`` is
    at its min ISR, not under it (ReplicaManager ``UnderMinIsrPartitionCount`` /
    ``AtMinIsrPartitionCount``)."""
    create(cluster, NewTopic("single", 1, replica_assignment=[[0]], config={"min.insync.replicas": "2"}))
    wait_until(
        lambda: (p := partition(cluster, 0, "single")) is not None and p.is_leader,
        "broker 0 leading single-0",
    )
    got = scrape(cluster, 0)
    assert got[RM + "leadercount"] >= 1
    assert (got[RM + "underminisrpartitioncount"], got[RM + "atminisrpartitioncount"]) == (0.0, 1.0)


def test_under_replicated_and_isr_counters_follow_a_follower_kill_and_return(cluster):
    """ReplicaManager ``UnderReplicatedPartitions`` (Partition ``isUnderReplicated``),
    ``IsrExpandsPerSec`` (marked by Partition ``handleAlterPartitionUpdate`` once the
    controller commits the leader's expansion) and ``IsrShrinksPerSec`` (only for the
    leader's own AlterPartition: a dead broker is removed by the controller, KafkaController
    ``onReplicasBecomeOffline``, with a new leader epoch, which marks nothing)."""
    create(cluster, NewTopic("rf3", 1, replica_assignment=[[0, 1, 2]]))

    def full_isr() -> bool:
        p = partition(cluster, 0, "rf3")
        return p is not None and p.is_leader and len(p.isr) == 3

    wait_until(full_isr, "rf3-0 led by 0 with a full ISR")
    before = scrape(cluster, 0)
    assert before[RM + "underreplicatedpartitions"] == 0
    cluster.kill(2)
    wait_until(
        lambda: scrape(cluster, 0)[RM + "underreplicatedpartitions"] == 1,
        "rf3-0 under-replicated on its leader",
    )
    assert scrape(cluster, 0)[RM + "isrshrinks_total"] == before[RM + "isrshrinks_total"]
    cluster.start_broker(2)
    wait_until(full_isr, "broker 2 back in the ISR")
    after = scrape(cluster, 0)
    assert after[RM + "underreplicatedpartitions"] == 0
    assert after[RM + "isrexpands_total"] == before[RM + "isrexpands_total"] + 1


def test_isr_shrinks_counts_a_lagging_followers_removal(cluster):
    """``IsrShrinksPerSec``: Partition ``maybeShrinkIsr`` proposes the shrink (AlterPartition)
    and ``handleAlterPartitionUpdate`` marks the meter once the controller commits it
    (``PendingShrinkIsr.notifyListener``)."""
    leader = controller_index(cluster)  # its AlterPartition is not cut off below
    victim = (leader + 1) % 3
    create(cluster, NewTopic("lag", 1, replica_assignment=[[leader, victim, (leader + 2) % 3]]))

    def isr() -> tuple[int, tuple[int, ...]] | None:
        p = partition(cluster, leader, "lag")
        return (p.leader_id, tuple(sorted(p.isr))) if p is not None else None

    wait_until(lambda: isr() == (leader, (0, 1, 2)), "lag-0 led by the controller with a full ISR")
    before = scrape(cluster, leader)[RM + "isrshrinks_total"]
    cluster.cut_link(victim, leader)  # the victim's fetches no longer reach the leader
    producer = Producer({"bootstrap.servers": cluster.address(leader), "acks": "1"})
    producer.produce("lag", b"x", partition=0)
    assert producer.flush(30) == 0  # a record the victim lacks: it falls behind
    wait_until(
        lambda: isr() == (leader, tuple(sorted({0, 1, 2} - {victim}))),
        "the victim out of the ISR (replica.lag.time.max.ms)",
    )
    assert scrape(cluster, leader)[RM + "isrshrinks_total"] == before + 1


def test_a_reassignment_in_flight_is_not_under_replicated(cluster):
    """Partition ``isUnderReplicated`` compares the ISR with ``assignmentState.replicationFactor``,
    for an ``OngoingReassignmentState`` ``replicas.size - addingReplicas.size``: moving [0, 1]
    to [1, 2] while broker 2 has not caught up leaves RS = [1, 2, 0] with ISR [0, 1], and the
    leader reports no under-replicated partition (ReplicaManager ``UnderReplicatedPartitions``)
    but one reassigning partition (``ReassigningPartitions``, Partition ``isReassigning``)."""
    create(cluster, NewTopic("moving", 1, replica_assignment=[[0, 1]]))

    def state() -> Any:
        p = partition(cluster, 0, "moving")
        return p is not None and p.is_leader and (tuple(p.replicas), tuple(sorted(p.isr)))

    wait_until(lambda: state() == ((0, 1), (0, 1)), "moving-0 led by 0 with ISR [0, 1]")
    # broker 2's fetcher cannot reach the leader: the move stays in flight
    cluster.control(
        0, None, lambda r: Close() if (r.client_id or "").startswith("broker-2-fetcher") else None, keep=True
    )
    admin = KafkaAdminClient(bootstrap_servers=cluster.bootstrap, request_timeout_ms=30_000)
    try:
        tp = KTopicPartition("moving", 0)
        assert admin.alter_partition_reassignments({tp: [1, 2]}) == {tp: None}
        wait_until(lambda: state() == ((1, 2, 0), (0, 1)), "the leader seeing RS [1, 2, 0]")
        got = scrape(cluster, 0)
        assert (got[RM + "underreplicatedpartitions"], got[RM + "reassigningpartitions"]) == (0, 1)
    finally:
        admin.close()
        cluster.clear_controls()
