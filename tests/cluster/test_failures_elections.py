"""Jepsen-style election scenarios on an in-process ZooKeeper-mode cluster (3 brokers, RF 3):
what acks=all acknowledged must survive, and a partition without an electable replica must
stay offline (unclean.leader.election.enable=false). The replicas' logs are read from their
segment files with kafka-python's record parser."""

from __future__ import annotations

import shutil
import threading
from typing import Any

import pytest

from tests.cluster.failure_scenarios import (
    BASE_OVERRIDES,
    chroot,
    controller_of,
    create_topic,
    formed,
    meta_state,
    produce_acked,
    produce_raw,
    pview,
    replica_records,
    wait_until,
)
from tests.support.cluster import Cluster

pytestmark = [pytest.mark.integration, pytest.mark.zookeeper]


@pytest.fixture
def cluster(zookeeper_shared: Any, tmp_path):
    with Cluster(
        3,
        zookeeper=zookeeper_shared,
        zk_chroot=chroot("elections"),
        base_dir=tmp_path,
        overrides=BASE_OVERRIDES,
    ) as c:
        wait_until(lambda: formed(c), "the cluster formed")
        yield c


def _cut_out_of_isr(cluster: Cluster, topic: str, leader: int, follower: int) -> None:
    cluster.cut_link(leader, follower)
    # a write the follower cannot fetch starts its lag (Replica.isCaughtUp)
    produce_acked(cluster, topic, [b"lag-starter"], acks="1", **{"enable.idempotence": False})
    wait_until(lambda: follower not in pview(cluster, leader, topic)[2], "the follower out of the ISR")


def test_no_unclean_election_when_the_whole_isr_is_down_and_an_out_of_sync_replica_returns(
    cluster: Cluster,
) -> None:
    """KafkaController.onBrokerFailure -> PartitionStateMachine (OfflinePartitionLeaderElection
    with uncleanLeaderElectionEnabled=false): with every ISR member down, a live replica that
    is not in the ISR does not lead; the partition stays offline (leader -1, Metadata
    LEADER_NOT_AVAILABLE) until an ISR member returns, and then nothing acknowledged is lost."""
    topic = "uncl"
    c = controller_of(cluster)
    a, b = [i for i in range(3) if i != c]
    create_topic(cluster, topic, [[c, a, b]], {"min.insync.replicas": "2"})
    first = produce_acked(cluster, topic, [b"one-%d" % i for i in range(50)])
    _cut_out_of_isr(cluster, topic, c, b)
    second = produce_acked(cluster, topic, [b"two-%d" % i for i in range(50)])
    cluster.heal_link(c, b)
    cluster.kill(b)  # the out-of-sync replica goes down first
    cluster.kill(c)  # the leader and controller: a takes both over
    wait_until(lambda: (v := pview(cluster, a, topic)) is not None and v[0] == a, "a leading")
    cluster.kill(a)  # the whole ISR is down
    cluster.start_broker(b)  # the out-of-sync replica returns alone: it becomes the controller

    def b_controls_and_knows() -> Any:
        def look() -> Any:
            ctl = cluster.broker(b).kafka_controller
            return ctl.active and ctl.ctx.states.get((topic, 0))

        return cluster.run(look)

    state = wait_until(b_controls_and_knows, "broker b the controller, the partition known")
    assert state.leader == -1, state
    wait_until(lambda: (s := meta_state(cluster, b, topic)) is not None and s, "b's metadata of the topic")
    assert meta_state(cluster, b, topic).leader == -1
    assert pview(cluster, b, topic)[0] != b
    from tests.cluster.zk_cluster_checks import metadata

    view = metadata(cluster, b, [topic])
    part = view.partitions[(topic, 0)]
    assert (view.topic_errors[topic], part.error, part.leader) == (0, 5, -1), part  # LEADER_NOT_AVAILABLE
    assert sorted(part.offline) == sorted((a, c)), part
    error, _ = produce_raw(cluster, b, topic, b"nope", acks=-1, timeout_ms=2000)
    assert error == 6, error  # NOT_LEADER_OR_FOLLOWER
    # an ISR member returns: it leads, with everything acknowledged
    cluster.start_broker(a)
    wait_until(lambda: (v := pview(cluster, a, topic)) is not None and v[0] == a, "a leading again")
    third = produce_acked(
        cluster, topic, [b"three-%d" % i for i in range(20)], acks="1", **{"enable.idempotence": False}
    )
    wait_until(
        lambda: (va := pview(cluster, a, topic)) and (vb := pview(cluster, b, topic)) and va[3] == vb[3],
        "b caught up with a",
    )
    logs = [replica_records(cluster.log_dir(i), topic, 0) for i in (a, b)]
    assert logs[0] == logs[1]
    by_value = {v: o for o, _, v in logs[0]}
    for acked in (first, second, third):
        for value, offset in acked.items():
            assert by_value.get(value) == offset, (value, offset)


@pytest.mark.parametrize("down", ["kill", "controlled-shutdown"])
def test_a_replica_restarted_with_an_empty_log_dir_does_not_lead_after_the_leader_dies(
    cluster: Cluster, down: str
) -> None:
    """KafkaController.onBrokerFailure (OfflineReplica: the dead follower leaves the ISR) and
    Partition.maybeExpandIsr (it joins only once caught up): a follower whose disk was
    replaced comes back empty and cannot fetch; the leader then dies; the new leader is the
    in-sync replica, holding every acknowledged record (not the empty one)."""
    topic = "emptydisk"
    c = controller_of(cluster)
    a, b = [i for i in range(3) if i != c]
    create_topic(cluster, topic, [[a, b, c]], {"min.insync.replicas": "2"})
    acked = produce_acked(cluster, topic, [b"r-%d" % i for i in range(200)])
    cluster.cut_link(a, b)  # it cannot catch up from the leader once back
    if down == "kill":
        cluster.kill(b)
    else:
        cluster.stop(b)  # ControlledShutdown: a follower it is (KafkaController.doControlledShutdown)
    shutil.rmtree(cluster.log_dir(b))
    cluster.log_dir(b).mkdir()
    cluster.start_broker(b)
    wait_until(lambda: (v := pview(cluster, b, topic)) is not None and v[0] == a, "b following a")
    assert b not in meta_state(cluster, c, topic).isr
    cluster.kill(a)
    leader = wait_until(
        lambda: (s := meta_state(cluster, c, topic)) is not None and s.leader in (b, c) and s.leader,
        "a new leader",
    )
    assert leader == c, f"the empty replica {leader} leads"
    more = produce_acked(
        cluster, topic, [b"after-%d" % i for i in range(10)], **{"message.timeout.ms": 30000}
    )
    records = {v: o for o, _, v in replica_records(cluster.log_dir(c), topic, 0)}
    for value, offset in {**acked, **more}.items():
        assert records.get(value) == offset


def test_enabling_unclean_election_on_the_topic_elects_the_out_of_sync_replica_and_the_old_isr_truncates(
    cluster: Cluster,
) -> None:
    """TopicConfigHandler -> KafkaController.enableTopicUncleanLeaderElection (ZooKeeper mode):
    with every ISR member down, setting the topic's unclean.leader.election.enable=true lets
    the live out-of-sync replica lead at once (KIP-704: RECOVERING, then RECOVERED); the old
    ISR member returning truncates to the new leader's log, so all replicas end identical."""
    from confluent_kafka.admin import (
        AdminClient,
        AlterConfigOpType,
        ConfigEntry,
        ConfigResource,
        ResourceType,
    )

    topic = "uncl-dyn"
    c = controller_of(cluster)
    a, b = [i for i in range(3) if i != c]
    create_topic(cluster, topic, [[c, a, b]], {"min.insync.replicas": "2"})
    produce_acked(cluster, topic, [b"one-%d" % i for i in range(50)])
    _cut_out_of_isr(cluster, topic, c, b)
    produce_acked(cluster, topic, [b"two-%d" % i for i in range(50)])
    cluster.heal_link(c, b)
    cluster.kill(b)
    cluster.kill(c)
    wait_until(lambda: (v := pview(cluster, a, topic)) is not None and v[0] == a, "a leading")
    cluster.kill(a)
    cluster.start_broker(b)
    wait_until(
        lambda: (
            cluster.run(lambda: cluster.broker(b).kafka_controller.active) and meta_state(cluster, b, topic)
        ),
        "b the controller",
    )
    admin = AdminClient({"bootstrap.servers": cluster.address(b)})
    resource = ConfigResource(
        ResourceType.TOPIC,
        topic,
        incremental_configs=[
            ConfigEntry("unclean.leader.election.enable", "true", incremental_operation=AlterConfigOpType.SET)
        ],
    )
    for f in admin.incremental_alter_configs([resource]).values():
        f.result(30)
    wait_until(lambda: (v := pview(cluster, b, topic)) is not None and v[0] == b, "b leading (unclean)", 60)
    three = produce_acked(
        cluster, topic, [b"three-%d" % i for i in range(10)], acks="1", **{"enable.idempotence": False}
    )
    cluster.start_broker(a)
    cluster.start_broker(c)
    wait_until(
        lambda: (
            None not in (vs := [pview(cluster, i, topic) for i in range(3)])
            and len({v[3] for v in vs}) == 1
            and vs[b][2] == (0, 1, 2)
        ),
        "every replica back in sync",
        60,
    )
    logs = [replica_records(cluster.log_dir(i), topic, 0) for i in range(3)]
    assert logs[0] == logs[1] == logs[2]
    by_value = {v: o for o, _, v in logs[0]}
    for v, o in three.items():
        assert by_value.get(v) == o
    state = meta_state(cluster, b, topic)
    assert state.leader == b


def test_a_replica_with_a_replaced_disk_catches_up_from_the_leaders_log_start_and_can_lead(
    cluster: Cluster,
) -> None:
    """ReplicaFetcherThread / AbstractFetcherThread.handleOutOfRangeError: a follower whose
    disk was replaced asks for offset 0, below the leader's log start offset (DeleteRecords),
    and starts at the leader's log start offset (truncateFullyAndStartAt); it rejoins the ISR
    (Partition.maybeExpandIsr) and, leading after the leader dies, serves every acknowledged
    record at its offset."""
    from confluent_kafka import TopicPartition
    from confluent_kafka.admin import AdminClient

    topic = "emptydisk-lso"
    c = controller_of(cluster)
    a, b = [i for i in range(3) if i != c]
    create_topic(cluster, topic, [[a, b, c]], {"min.insync.replicas": "2"})
    acked = produce_acked(cluster, topic, [b"r-%03d" % i for i in range(200)])
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    (future,) = admin.delete_records([TopicPartition(topic, 0, 150)]).values()
    assert future.result(timeout=30).low_watermark == 150
    wait_until(
        lambda: all(
            cluster.run(
                lambda i=i: cluster.broker(i).replica_manager.get_partition(topic, 0).log.log_start_offset
            )
            == 150
            for i in range(3)
        ),
        "log start 150 on every replica",
    )
    cluster.kill(b)
    wait_until(lambda: b not in meta_state(cluster, c, topic).isr, "b out of the ISR")
    shutil.rmtree(cluster.log_dir(b))
    cluster.log_dir(b).mkdir()
    cluster.start_broker(b)
    wait_until(lambda: sorted(meta_state(cluster, c, topic).isr) == [0, 1, 2], "b back in the ISR", 60)
    assert (
        cluster.run(lambda: cluster.broker(b).replica_manager.get_partition(topic, 0).log.log_start_offset)
        == 150
    )
    cluster.kill(a)
    wait_until(lambda: (s := meta_state(cluster, c, topic)) is not None and s.leader == b, "b leading", 60)
    more = produce_acked(cluster, topic, [b"after-%d" % i for i in range(10)])
    records = {v: o for o, _, v in replica_records(cluster.log_dir(b), topic, 0)}
    for value, offset in {**acked, **more}.items():
        if offset >= 150:
            assert records.get(value) == offset, (value, offset)


def test_a_stopping_controller_sends_the_moves_of_its_own_controlled_shutdown(cluster: Cluster) -> None:
    """KafkaServer.shutdown stops the KafkaController only after the replica and log managers,
    so what the controller's own controlled shutdown decided (KafkaController.
    doControlledShutdown: a new leader, LeaderAndIsr and UpdateMetadata) is sent meanwhile. One
    follower's LeaderAndIsr of that shutdown is held a moment, so the UpdateMetadata queued
    behind it is still unsent when the controller's broker goes on stopping: the follower must
    still learn the new leader from the stopping controller (not only from the next
    controller's fail-over)."""
    from broker.testing.interception import Delay
    from protocol.messages import ApiKey

    topic = "ctlstop"
    c = controller_of(cluster)
    a, b = [i for i in range(3) if i != c]
    create_topic(cluster, topic, [[c, a, b]], {})
    wait_until(lambda: all((v := pview(cluster, i, topic)) and len(v[2]) == 3 for i in range(3)), "in sync")
    epoch = cluster.run(lambda: cluster.broker(c).kafka_controller.epoch)
    stopping = threading.Event()
    held: list[int] = []
    leaders: dict[int, int] = {}  # broker -> the leader its UpdateMetadata of ``epoch`` names

    def hold_the_first(r: Any) -> Any:
        if stopping.is_set() and r.request.controller_epoch == epoch and not held:
            held.append(r.broker_id)
            return Delay(seconds=1.0)
        return None

    def note_leader(r: Any) -> None:
        if stopping.is_set() and r.request.controller_epoch == epoch:
            for t in r.request.topic_states:
                for s in t.partition_states if t.topic_name == topic else ():
                    leaders[r.broker_id] = s.leader

    cluster.control(a, ApiKey.LEADER_AND_ISR, hold_the_first, keep=True)
    cluster.control(None, ApiKey.UPDATE_METADATA, note_leader, keep=True)
    stopping.set()
    cluster.stop(c)
    assert held == [a]
    assert leaders.get(a) in (a, b), leaders
