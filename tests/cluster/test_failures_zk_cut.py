"""Jepsen-style: the leader of a partition is cut off from ZooKeeper only (a TCP relay in front
of ZooKeeper for each broker; the brokers still reach each other and the clients). Its session
expires, the controller elects another ISR member, and the old leader still has its clients:
it must not acknowledge acks=all records the new leader does not have, and once it reaches
ZooKeeper again it rejoins as a follower whose log ends identical to the others'."""

from __future__ import annotations

from typing import Any

import pytest

from tests.cluster.failure_scenarios import (
    BASE_OVERRIDES,
    TcpRelay,
    controller_of,
    create_topic,
    meta_state,
    produce_acked,
    produce_raw,
    pview,
    relayed_cluster,
    replica_records,
    wait_until,
)
from tests.support.cluster import Cluster

pytestmark = [pytest.mark.integration, pytest.mark.zookeeper]

SESSION_MS = 4000


@pytest.fixture
def relayed(zookeeper_shared: Any, tmp_path):
    overrides = {**BASE_OVERRIDES, "zookeeper.session.timeout.ms": str(SESSION_MS)}
    with relayed_cluster(zookeeper_shared, tmp_path, "zkcut", overrides) as found:
        yield found


@pytest.mark.parametrize("leader_is_controller", [False, True])
def test_a_leader_cut_off_from_zookeeper_acknowledges_no_acks_all_record_the_new_leader_lacks(
    relayed: tuple[Cluster, list[TcpRelay]], leader_is_controller: bool
) -> None:
    """Partition.appendRecordsToLeader / checkEnoughReplicasReachOffset and maybeShrinkIsr with
    AlterPartition refused (STALE_BROKER_EPOCH, FENCED_LEADER_EPOCH): a deposed leader that has
    not heard of its deposition cannot shrink its ISR, its followers fetch from the new
    leader, so its high watermark stays and acks=all produces time out (REQUEST_TIMED_OUT) or
    are refused; nothing it acknowledges is lost. KafkaController.processBrokerChange (the
    session expired) elects from the ISR; on its return (new session, new broker epoch) the
    old leader truncates to the new leader's log (KIP-101/279)."""
    cluster, relays = relayed
    topic = "zkcut"
    c = controller_of(cluster)
    old, x = [i for i in range(3) if i != c]
    if leader_is_controller:
        old, c = c, old
    create_topic(cluster, topic, [[old, x, c]], {"min.insync.replicas": "2"})
    before = produce_acked(cluster, topic, [b"before-%d" % i for i in range(100)])
    epoch = pview(cluster, old, topic)[1]
    relays[old].cut()
    # the controller sees the session expire and elects x (the next ISR member)
    wait_until(
        lambda: (
            (s := meta_state(cluster, c, topic)) is not None
            and s.leader == x
            and s.leader_epoch > epoch
            and s
        ),
        "x elected by the controller",
        60,
    )
    wait_until(lambda: (v := pview(cluster, x, topic)) is not None and v[0] == x, "x leading")
    # the old leader still believes it leads, and has its clients
    assert pview(cluster, old, topic)[0] == old
    outcomes = []
    for n in range(3):
        value = b"split-%d" % n
        outcomes.append((value, *produce_raw(cluster, old, topic, value, acks=-1, timeout_ms=2000)))
    # (bootstrapped off the deposed leader: its stale metadata still names itself, as Kafka's)
    after = produce_acked(
        cluster,
        topic,
        [b"after-%d" % i for i in range(50)],
        bootstrap=f"{cluster.address(x)},{cluster.address(c)}",
    )
    relays[old].heal()
    wait_until(
        lambda: (
            (v := pview(cluster, old, topic)) is not None
            and v[0] == x
            and v[3] == pview(cluster, x, topic)[3]
        ),
        "the old leader following x and caught up",
        90,
    )
    wait_until(
        lambda: len({tuple(replica_records(cluster.log_dir(i), topic, 0)) for i in range(3)}) == 1,
        "identical replicas",
    )
    logs = {i: replica_records(cluster.log_dir(i), topic, 0) for i in range(3)}
    by_value = {v: o for o, _, v in logs[x]}
    for value, offset in {**before, **after}.items():
        assert by_value.get(value) == offset, (value, offset)
    for value, error, offset in outcomes:
        if error == 0:
            assert by_value.get(value) == offset, (
                f"the deposed leader acknowledged {value!r} at {offset} (acks=all) and it is lost"
            )
    assert all(error in (7, 19, 6) for _, error, _ in outcomes), outcomes


def test_an_idempotent_stream_through_a_zookeeper_cut_leader_and_its_return_to_leadership(
    relayed: tuple[Cluster, list[TcpRelay]],
) -> None:
    """An idempotent acks=all producer (confluent-kafka) streams while the leader is cut off
    from ZooKeeper (session expired: KafkaController.processBrokerChange elects the next ISR
    member; the deposed leader's appends time out), comes back (new session, truncated as a
    follower: UnifiedLog.truncateTo / ProducerStateManager.truncateAndReload), and is made
    leader again by a preferred election (ElectLeaders): every acknowledged record is in
    every replica once, in order, at its offset, and the producer sees no error."""
    from confluent_kafka import ElectionType, TopicPartition
    from confluent_kafka.admin import AdminClient

    from tests.cluster.test_failures_crashes import Stream, check_logs

    cluster, relays = relayed
    topic = "zkcut-stream"
    c = controller_of(cluster)
    old, x = [i for i in range(3) if i != c]
    create_topic(cluster, topic, [[old, x, c]], {"min.insync.replicas": "2"})
    stream = Stream(cluster, topic)
    try:
        stream.progressed(200)
        relays[old].cut()
        wait_until(lambda: (v := pview(cluster, x, topic)) is not None and v[0] == x, "x leading", 60)
        # (a client asking the deposed leader for metadata still sees it lead, as in Kafka:
        # no progress is required during the cut)
        relays[old].heal()
        wait_until(
            lambda: (s := meta_state(cluster, c, topic)) is not None and sorted(s.isr) == [0, 1, 2],
            "old back in the ISR",
            90,
        )
        admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
        admin.elect_leaders(ElectionType.PREFERRED, [TopicPartition(topic, 0)]).result(60)
        wait_until(
            lambda: (v := pview(cluster, old, topic)) is not None and v[0] == old, "old leading again", 60
        )
        stream.progressed(200)
    finally:
        stream.stop()
    check_logs(cluster, topic, stream)
    states = cluster.run(
        lambda: [
            {
                pid: (e.producer_epoch, e.last_seq, e.last_data_offset)
                for pid, e in cluster.broker(i)
                .replica_manager.get_partition(topic, 0)
                .log.producer_state.active_producers()
                .items()
            }
            for i in range(3)
        ]
    )
    assert states[0] == states[1] == states[2]


def test_a_follower_cut_off_from_zookeeper_leaves_the_isr_and_returns(
    relayed: tuple[Cluster, list[TcpRelay]],
) -> None:
    """KafkaController.onBrokerFailure (OfflineReplica: removed from the ISR) for a follower
    whose session expired while it still fetches; Partition.maybeExpandIsr refuses it while
    it is not alive (isReplicaIsrEligible) and takes it back once it re-registered; acks=all
    goes on with the two others (min.insync.replicas=2) and nothing acknowledged is lost."""
    from tests.cluster.test_failures_crashes import Stream, check_logs

    cluster, relays = relayed
    topic = "zkcut-follower"
    c = controller_of(cluster)
    leader, f = [i for i in range(3) if i != c]
    create_topic(cluster, topic, [[leader, f, c]], {"min.insync.replicas": "2"})
    stream = Stream(cluster, topic)
    try:
        stream.progressed(200)
        relays[f].cut()
        wait_until(
            lambda: pview(cluster, leader, topic)[2] == tuple(sorted((leader, c))), "f out of the ISR", 60
        )
        stream.progressed(200)
        relays[f].heal()
        wait_until(lambda: pview(cluster, leader, topic)[2] == (0, 1, 2), "f back in the ISR", 90)
        stream.progressed(200)
    finally:
        stream.stop()
    check_logs(cluster, topic, stream)


def test_the_controller_cut_off_from_zookeeper_while_a_leader_must_shrink_its_isr(
    relayed: tuple[Cluster, list[TcpRelay]],
) -> None:
    """KafkaController: the controller's session expires (a new controller is elected,
    processBrokerChange takes the old one's replicas out of the ISR) while a leader's ISR
    shrink is due; the deposed controller cannot write (fenced by /controller_epoch, then it
    resigns: processExpire). The leader's AlterPartition reaches the new controller, acks=all
    is refused below min.insync.replicas, and every replica rejoins once reachable: no stall,
    no acknowledged record lost."""
    from protocol.messages import ApiKey
    from tests.support.interception import Close

    cluster, relays = relayed
    topic = "zkcut-controller"
    c = controller_of(cluster)
    leader, f = [i for i in range(3) if i != c]
    create_topic(cluster, topic, [[leader, f, c]], {"min.insync.replicas": "2"})
    first = produce_acked(cluster, topic, [b"first-%d" % i for i in range(50)])
    relays[c].cut()
    fetch_cut = cluster.control(
        leader, ApiKey.FETCH, lambda r: Close() if r.source_broker == f else None, keep=True
    )
    produce_acked(cluster, topic, [b"lag"], acks="1", **{"enable.idempotence": False})
    wait_until(lambda: pview(cluster, leader, topic)[2] == (leader,), "the ISR down to the leader", 60)
    error, _ = produce_raw(cluster, leader, topic, b"refused", acks=-1, timeout_ms=5000)
    assert error == 19, error
    relays[c].heal()
    wait_until(
        lambda: pview(cluster, leader, topic)[2] == tuple(sorted((leader, c))), "c back in the ISR", 90
    )
    second = produce_acked(cluster, topic, [b"second-%d" % i for i in range(20)])
    fetch_cut.remove()
    wait_until(lambda: pview(cluster, leader, topic)[2] == (0, 1, 2), "f back in the ISR", 60)
    wait_until(
        lambda: len({tuple(replica_records(cluster.log_dir(i), topic, 0)) for i in range(3)}) == 1,
        "identical replicas",
    )
    records = {v: o for o, _, v in replica_records(cluster.log_dir(f), topic, 0)}
    for v, o in {**first, **second}.items():
        assert records.get(v) == o
    assert b"refused" not in records
