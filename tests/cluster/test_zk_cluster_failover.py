"""Failover in a ZooKeeper-mode cluster of three broker processes: kill -9 of a leader, of the controller.

A SIGKILLed broker's ZooKeeper session lives on until ``zookeeper.session.timeout.ms`` (6 s
here); then its ``/brokers/ids/<id>`` goes, the controller elects new leaders from the ISR
with higher leader epochs (``/brokers/topics/<t>/partitions/<p>/state`` and Metadata v12),
and clients move on. The dead broker comes back as a follower and, with
``auto.leader.rebalance.enable`` and a short ``leader.imbalance.check.interval.seconds``,
its preferred leadership returns once it is back in the ISR. Killing the controller moves
the controller (``/controller``, ``/controller_epoch``) and later leadership changes still
happen.

Both tests share one cluster and leave it with its three brokers up.
"""

from __future__ import annotations

import contextlib

import pytest
from confluent_kafka.admin import AdminClient
from confluent_kafka.admin import NewTopic as ConfluentNewTopic
from kafka.admin import KafkaAdminClient
from kafka.admin import NewTopic as KafkaNewTopic

from tests.cluster.zk_cluster_checks import (
    SESSION_TIMEOUT_MS,
    agreed_metadata,
    controller_epoch,
    controller_id,
    partition_state,
    read_json,
    restore_brokers,
    start_cluster,
    topic_summary,
    wait_topic_everywhere,
    wait_until,
    zk_session,
)
from tests.cluster.zk_cluster_load import (
    ConfluentLoad,
    ConfluentReader,
    java_acked,
    java_acked_offsets,
    java_positions,
    java_producer,
    java_reader,
)
from tests.support.java_client import require_java

pytestmark = [pytest.mark.integration, pytest.mark.zookeeper]

# The session timeout, plus a generous margin for a loaded 2-core machine: a deadline, not a
# timing claim.
FAILOVER_DEADLINE_S = SESSION_TIMEOUT_MS / 1000 + 20
PARTITIONS = 6


@pytest.fixture(scope="module")
def cluster(zookeeper_shared, tmp_path_factory):
    c = start_cluster(
        zookeeper_shared,
        "/zk_cluster_failover",
        tmp_path_factory.mktemp("cluster"),
        **{"auto.leader.rebalance.enable": "true", "leader.imbalance.check.interval.seconds": "2"},
    )
    try:
        yield c
    finally:
        c.close()


@pytest.fixture(autouse=True)
def all_brokers_up(cluster):
    restore_brokers(cluster)


def create_topic(cluster, topic: str, partitions: int = PARTITIONS):
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    futures = admin.create_topics([ConfluentNewTopic(topic, partitions, 3)], operation_timeout=20)
    assert futures[topic].result(60) is None
    return wait_topic_everywhere(cluster, topic, partitions)


def states(cluster, topic: str, partitions: int) -> dict[int, dict]:
    with zk_session(cluster) as zk:
        return {p: partition_state(zk, topic, p) for p in range(partitions)}


def moved_away(cluster, topic: str, victim: int, before: dict[int, dict], live: list[int]):
    """Every live broker agrees that each partition ``victim`` led has a new leader from its
    ISR with a higher leader epoch (Metadata and the state znode), that the others kept their
    leader, and that ``victim`` is out of every ISR (Kafka's OfflineReplica transition: the
    controller removes a dead broker from the ISRs, ``removeReplicasFromIsr``); the agreed
    view, or None."""
    view = agreed_metadata(cluster, [topic], live)
    if view is None:
        return None
    if victim in view.brokers:
        return None
    now = states(cluster, topic, PARTITIONS)
    for p, old in before.items():
        v = view.topic(topic).get(p)
        if v is None or v.leader not in live:
            return None
        if (now[p]["leader"], now[p]["leader_epoch"], now[p]["isr"]) != (
            v.leader,
            v.leader_epoch,
            list(v.isr),
        ):
            return None
        if victim in v.isr:
            return None
        if old["leader"] == victim:
            if v.leader not in old["isr"] or v.leader_epoch <= old["leader_epoch"]:
                return None
        elif v.leader != old["leader"]:
            return None  # only the dead broker's partitions move
    return view


def test_kill_9_of_a_leader_moves_leadership_clients_carry_on_and_it_returns(cluster):
    require_java()
    topic = "failover-leader"
    create_topic(cluster, topic)
    controller = controller_id(cluster)
    before = states(cluster, topic, PARTITIONS)
    victim = next(
        i for i in range(cluster.n) if i != controller and any(s["leader"] == i for s in before.values())
    )
    preferred = {p: s["leader"] for p, s in before.items()}  # a new topic is led by its first replicas
    live = [i for i in range(cluster.n) if i != victim]

    with contextlib.ExitStack() as cleanup:  # the clients go even if the test fails
        reader = ConfluentReader(cluster.bootstrap, topic, PARTITIONS)
        cleanup.callback(reader.stop)
        java_consumer = cleanup.enter_context(java_reader(cluster.bootstrap, topic))
        java = cleanup.enter_context(java_producer(cluster.bootstrap, topic))
        load = ConfluentLoad(cluster.bootstrap, topic)
        cleanup.callback(load.stop)
        try:
            wait_until(
                lambda: java_acked(java) >= 40 and load.acked_count() >= 40, "both producers acking", 60
            )

            cluster.kill(victim)  # SIGKILL: its session ends only at the session timeout
            view = wait_until(
                lambda: moved_away(cluster, topic, victim, before, live),
                f"new leaders for broker {victim}'s partitions, broker {victim} out of every ISR",
                FAILOVER_DEADLINE_S,
                step=0.25,
                detail=lambda: (before, topic_summary(cluster, topic)),
            )
            assert set(view.brokers) == set(live)

            # Both producers carry on past the failover.
            java_then, confluent_then = java_acked(java), load.acked_count()
            wait_until(
                lambda: java_acked(java) >= java_then + 60 and load.acked_count() >= confluent_then + 60,
                "both producers acking after the failover",
                60,
            )

            # The killed broker restarts and rejoins: every broker lists it, it holds replicas.
            cluster.start_broker(victim)
            rejoined = wait_until(
                lambda: (v := agreed_metadata(cluster, [topic])) is not None and victim in v.brokers and v,
                f"broker {victim} listed by every broker again",
                60,
            )
            assert all(victim in v.replicas for v in rejoined.topic(topic).values())

            # It catches up into the ISR and the auto rebalance gives its preferred leadership
            # back (needs replication: the ISR grows through the follower's fetches).
            def preferred_leaders_back():
                view = agreed_metadata(cluster, [topic])
                if view is None or view.leaders(topic) != preferred:
                    return None
                return all(victim in v.isr for v in view.topic(topic).values()) and view

            back = wait_until(
                preferred_leaders_back,
                f"preferred leaders {preferred} back, with the restarted broker in every ISR",
                90,
                detail=lambda: topic_summary(cluster, topic),
            )
            after = states(cluster, topic, PARTITIONS)
            for p, s in after.items():
                assert s["leader"] == preferred[p]
                assert back.topic(topic)[p].leader_epoch == s["leader_epoch"]
                if preferred[p] == victim:
                    assert s["leader_epoch"] > before[p]["leader_epoch"] + 1  # moved away, then back

            wait_until(
                lambda: load.acked_count() >= confluent_then + 120, "the producer acking after the return", 60
            )
        finally:
            java.stop()
            load.stop()
        summary = java.wait(150).last
        assert summary["ok"], {k: summary[k] for k in ("sent", "acked", "failed", "error_counts", "errors")}
        assert load.errors == [] and load.unflushed == 0, load.errors[:5]

        # Both consumers (confluent-kafka and Java) read every acked record of both producers,
        # at the offset it was acked at.
        confluent_acked = {(p, o): v for p, o, v in load.acked}
        acked = set(confluent_acked) | java_acked_offsets(summary)
        try:
            for name, positions in (
                ("confluent-kafka", reader.positions),
                ("Java", lambda: java_positions(java_consumer)),
            ):
                wait_until(
                    lambda positions=positions: acked <= positions(),
                    f"every acked record consumed by the {name} consumer",
                    60,
                    detail=lambda positions=positions: (
                        len(acked),
                        len(positions()),
                        sorted(acked - positions())[:10],
                    ),
                )
        finally:
            reader.stop()
            java_consumer.stop()
        java_consumer.wait(60)
        values = reader.values()
        assert {k: values[k] for k in confluent_acked} == confluent_acked


def test_kill_9_of_the_controller_moves_the_controller_and_leadership_still_changes(cluster):
    topic = "failover-controller"
    before_view = create_topic(cluster, topic)
    old = controller_id(cluster)
    with zk_session(cluster) as zk:
        old_epoch = controller_epoch(zk)
        assert read_json(zk, "/controller")[0]["brokerid"] == old
    before = states(cluster, topic, PARTITIONS)
    assert any(s["leader"] == old for s in before.values()), before_view
    live = [i for i in range(cluster.n) if i != old]

    cluster.kill(old)

    def new_controller():
        with zk_session(cluster) as zk:
            if not zk.exists("/controller"):
                return None
            registered = read_json(zk, "/controller")[0]["brokerid"]
            epoch = controller_epoch(zk)
        view = agreed_metadata(cluster, None, live)
        if registered == old or view is None or view.controller != registered or old in view.brokers:
            return None
        return registered, epoch

    new, new_epoch = wait_until(
        new_controller,
        "a new controller named by /controller and every live broker",
        FAILOVER_DEADLINE_S,
        0.25,
    )
    assert new in live
    assert new_epoch > old_epoch
    # The new controller moved the dead controller's partitions too.
    wait_until(
        lambda: moved_away(cluster, topic, old, before, live),
        f"new leaders for the old controller {old}'s partitions, broker {old} out of every ISR",
        FAILOVER_DEADLINE_S,
        0.25,
        detail=lambda: (before, topic_summary(cluster, topic)),
    )
    with zk_session(cluster) as zk:
        for p, s in before.items():
            if s["leader"] == old:
                assert partition_state(zk, topic, p)["controller_epoch"] == new_epoch

    # A later leadership change: a topic created through the new controller (kafka-python,
    # bootstrapped with the other live broker) gets leaders on the live brokers.
    other = next(i for i in live if i != new)
    admin = KafkaAdminClient(bootstrap_servers=cluster.address(other), request_timeout_ms=30_000)
    try:
        admin.create_topics([KafkaNewTopic("after-failover", 4, 2)])
    finally:
        admin.close()
    view = wait_until(
        lambda: (
            (v := agreed_metadata(cluster, ["after-failover"], live)) is not None
            and len(v.topic("after-failover")) == 4
            and all(x.leader in live and len(x.replicas) == 2 for x in v.topic("after-failover").values())
            and v
        ),
        "leaders for a topic created after the failover",
        30,
    )
    with zk_session(cluster) as zk:
        for p, v in view.topic("after-failover").items():
            state = partition_state(zk, "after-failover", p)
            assert (state["leader"], state["controller_epoch"]) == (v.leader, new_epoch)
            assert set(v.replicas) <= set(live)

    # The old controller returns as an ordinary broker; the controller stays where it is.
    cluster.start_broker(old)
    wait_until(
        lambda: (
            (v := agreed_metadata(cluster)) is not None
            and set(v.brokers) == {0, 1, 2}
            and v.controller == new
        ),
        f"broker {old} back, every broker naming controller {new}",
        60,
    )
    with zk_session(cluster) as zk:
        assert read_json(zk, "/controller")[0]["brokerid"] == new
        assert controller_epoch(zk) == new_epoch
