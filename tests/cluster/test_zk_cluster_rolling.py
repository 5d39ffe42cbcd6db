"""A rolling restart of a ZooKeeper-mode cluster of three broker processes under a Java producer.

Each broker in turn gets SIGTERM: with ``controlled.shutdown.enable`` (Kafka's default) it asks
the controller (ControlledShutdown) to move its leaderships away before it stops, so an
idempotent acks=all Java producer with default retries sees no error at all. Like an operator
doing a rolling restart (Kafka's docs: wait for no under-replicated partitions), the test
restarts the broker and waits until it is back in every ISR before stopping the next one.
A consumer must then read every acked record.

Then ElectLeaders (kafka-python's ``elect_leaders``, sent to the controller by the client)
gives a restarted broker its preferred leaderships back.
"""

from __future__ import annotations

import contextlib

import pytest
from confluent_kafka.admin import AdminClient, NewTopic
from kafka.admin import KafkaAdminClient

from tests.cluster.zk_cluster_checks import (
    agreed_metadata,
    controller_id,
    live_brokers,
    partition_state,
    restore_brokers,
    start_cluster,
    topic_summary,
    wait_topic_everywhere,
    wait_until,
    zk_session,
)
from tests.cluster.zk_cluster_load import ConfluentReader, java_acked, java_acked_offsets, java_producer
from tests.support.java_client import require_java

pytestmark = [pytest.mark.integration, pytest.mark.zookeeper]

PARTITIONS = 6


@pytest.fixture(scope="module")
def cluster(zookeeper_shared, tmp_path_factory):
    c = start_cluster(
        zookeeper_shared,
        "/zk_cluster_rolling",
        tmp_path_factory.mktemp("cluster"),
        # No auto rebalance: preferred leadership comes back only through ElectLeaders here.
        **{"controlled.shutdown.retry.backoff.ms": "500", "auto.leader.rebalance.enable": "false"},
    )
    try:
        yield c
    finally:
        c.close()


@pytest.fixture(autouse=True)
def all_brokers_up(cluster):
    restore_brokers(cluster)


def fully_replicated(cluster, topic: str):
    """Every broker agrees, all three are up, every partition is led and has all three in its ISR."""
    view = agreed_metadata(cluster, [topic])
    if view is None or set(view.brokers) != set(range(cluster.n)):
        return None
    parts = view.topic(topic)
    if len(parts) != PARTITIONS:
        return None
    ok = all(v.leader >= 0 and sorted(v.isr) == [0, 1, 2] and not v.offline for v in parts.values())
    return ok and view


def restart_with_controlled_shutdown(cluster, topic: str, i: int, java) -> None:
    """SIGTERM broker ``i`` (controlled shutdown), check its leaderships moved, start it again
    and wait until it is back in every ISR and the producer still gets acks."""
    with zk_session(cluster) as zk:
        led = [p for p in range(PARTITIONS) if partition_state(zk, topic, p)["leader"] == i]
    process = cluster.broker(i)
    assert process.stop(60) == 0, f"broker {i} exit status"  # SIGTERM
    # It asked the controller to move its leaderships (and succeeded) before stopping.
    wait_until(
        lambda: any(
            "controlled shutdown request to controller" in line and "succeeded" in line
            for line in process.lines
        ),
        f"broker {i}'s controlled shutdown in its log",
        10,
    )
    assert not [line for line in process.lines if "controlled shutdown did not succeed" in line]
    live = live_brokers(cluster)
    view = wait_until(
        lambda: (
            (v := agreed_metadata(cluster, [topic], live)) is not None
            and i not in v.brokers
            and all(x.leader in live and i not in x.isr for x in v.topic(topic).values())
            and v
        ),
        f"every partition led by a live broker, broker {i} out of every ISR",
        30,
        detail=lambda: topic_summary(cluster, topic),
    )
    assert len(view.topic(topic)) == PARTITIONS
    with zk_session(cluster) as zk:
        assert all(partition_state(zk, topic, p)["leader"] != i for p in led)

    acked_before = java_acked(java)
    cluster.start_broker(i)
    # Back in every ISR before the next broker goes (needs replication: followers fetch).
    wait_until(
        lambda: fully_replicated(cluster, topic),
        f"broker {i} back in every ISR",
        90,
        detail=lambda: topic_summary(cluster, topic),
    )
    wait_until(lambda: java_acked(java) >= acked_before + 40, f"acks after broker {i}'s restart", 60)


def test_rolling_restart_with_controlled_shutdown_loses_no_produce(cluster):
    require_java()
    topic = "rolling"
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    assert (
        admin.create_topics([NewTopic(topic, PARTITIONS, 3)], operation_timeout=20)[topic].result(60) is None
    )
    wait_topic_everywhere(cluster, topic, PARTITIONS)

    with contextlib.ExitStack() as cleanup:  # the clients go even if the test fails
        reader = ConfluentReader(cluster.bootstrap, topic, PARTITIONS)
        cleanup.callback(reader.stop)
        java = cleanup.enter_context(java_producer(cluster.bootstrap, topic))
        try:
            wait_until(lambda: java_acked(java) >= 40, "the Java producer acking", 60)
            for i in range(cluster.n):
                restart_with_controlled_shutdown(cluster, topic, i, java)
            assert controller_id(cluster) in range(cluster.n)
        finally:
            java.stop()
        summary = java.wait(150).last
        assert summary["failed"] == 0 and summary["ok"], {
            k: summary[k] for k in ("sent", "acked", "failed", "error_counts", "errors")
        }
        assert summary["acked"] == summary["sent"]

        acked = java_acked_offsets(summary)
        wait_until(
            lambda: acked <= reader.positions(),
            "every acked record consumed",
            60,
            detail=lambda: (len(acked), len(reader.positions()), sorted(acked - reader.positions())[:10]),
        )


def test_elect_leaders_gives_a_restarted_broker_its_preferred_leaderships_back(cluster):
    topic = "elect"
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    assert (
        admin.create_topics([NewTopic(topic, PARTITIONS, 3)], operation_timeout=20)[topic].result(60) is None
    )
    wait_topic_everywhere(cluster, topic, PARTITIONS)
    controller = controller_id(cluster)
    with zk_session(cluster) as zk:
        preferred = {p: partition_state(zk, topic, p)["leader"] for p in range(PARTITIONS)}
    victim = next(i for i in range(cluster.n) if i != controller and i in preferred.values())
    live = [i for i in range(cluster.n) if i != victim]

    cluster.stop(victim)
    moved = wait_until(
        lambda: (
            (v := agreed_metadata(cluster, [topic], live)) is not None
            and all(x.leader in live and victim not in x.isr for x in v.topic(topic).values())
            and v
        ),
        f"broker {victim}'s leaderships moved",
        30,
        detail=lambda: topic_summary(cluster, topic),
    )
    cluster.start_broker(victim)
    wait_until(
        lambda: fully_replicated(cluster, topic),
        f"broker {victim} back in every ISR",
        90,
        detail=lambda: topic_summary(cluster, topic),
    )
    # No auto rebalance: the restarted broker leads nothing yet.
    assert victim not in agreed_metadata(cluster, [topic]).leaders(topic).values()

    other = next(i for i in range(cluster.n) if i != controller_id(cluster))
    client = KafkaAdminClient(bootstrap_servers=cluster.address(other), request_timeout_ms=30_000)
    try:
        client.elect_leaders(0, {topic: list(range(PARTITIONS))}, timeout_ms=30_000)
    finally:
        client.close()
    view = wait_until(
        lambda: (v := agreed_metadata(cluster, [topic])) is not None and v.leaders(topic) == preferred and v,
        f"the preferred leaders {preferred} on every broker",
        30,
        detail=lambda: topic_summary(cluster, topic),
    )
    with zk_session(cluster) as zk:
        for p, leader in preferred.items():
            state = partition_state(zk, topic, p)
            assert (state["leader"], state["leader_epoch"]) == (leader, view.topic(topic)[p].leader_epoch)
            if leader == victim:
                assert state["leader_epoch"] > moved.topic(topic)[p].leader_epoch
