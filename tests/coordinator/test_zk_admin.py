"""AdminZkClient (topic znodes written from any broker) and Kafka's replica assignment."""

from __future__ import annotations

import asyncio
import json
import random
import time
import uuid

import pytest

from coordinator import zk_data as zd
from coordinator.cluster_state import BrokerEndpoint
from coordinator.zk_admin import (
    AdminZkClient,
    assign_replicas,
    assign_replicas_to_brokers,
    rack_alternated_brokers,
)
from coordinator.zk_election import Strategy, elect
from coordinator.zookeeper import BrokerRegistration, ZooKeeperClient
from protocol.errors import ErrorCode, KafkaError
from tests.support.zookeeper_server import zookeeper_shared

__all__ = ["zookeeper_shared"]  # the module's ZooKeeper fixture

# ---------------------------------------------------------------------- assignment (no ZooKeeper)


def test_assignment_worked_examples():
    # ZK_CLUSTER_FACTS §3: brokers [1,2,3], 6 partitions, RF 3
    got = assign_replicas_to_brokers(6, 3, [1, 2, 3], fixed_start_index=0)
    assert got == {0: [1, 2, 3], 1: [2, 3, 1], 2: [3, 1, 2], 3: [1, 3, 2], 4: [2, 1, 3], 5: [3, 2, 1]}

    class Draws(random.Random):
        def __init__(self, values):
            super().__init__()
            self.values = list(values)

        def randrange(self, n):  # startIndex, then nextReplicaShift
            return self.values.pop(0)

    got = assign_replicas_to_brokers(6, 3, [1, 2, 3], rng=Draws([1, 2]))
    assert got == {0: [2, 3, 1], 1: [3, 1, 2], 2: [1, 2, 3], 3: [2, 1, 3], 4: [3, 2, 1], 5: [1, 3, 2]}
    # AdminUtils Javadoc: 5 brokers 0..4, start = shift = 0
    got = assign_replicas_to_brokers(10, 3, [0, 1, 2, 3, 4], fixed_start_index=0)
    assert got[4] == [4, 0, 1] and got[5] == [0, 2, 3]
    # continuing from partition 3 (CreatePartitions) gives what a fresh run gives there
    assert assign_replicas_to_brokers(3, 3, [1, 2, 3], fixed_start_index=0, start_partition_id=3) == {
        3: [1, 3, 2],
        4: [2, 1, 3],
        5: [3, 2, 1],
    }


def test_assignment_random_start_is_seedable_and_balanced():
    a = assign_replicas_to_brokers(12, 2, [1, 2, 3, 4], rng=random.Random(5))
    assert a == assign_replicas_to_brokers(12, 2, [1, 2, 3, 4], rng=random.Random(5))
    leaders = [r[0] for r in a.values()]
    assert sorted(leaders.count(b) for b in (1, 2, 3, 4)) == [3, 3, 3, 3]
    assert all(len(set(r)) == 2 for r in a.values())


@pytest.mark.parametrize(
    ("n", "rf", "brokers", "code", "message"),
    [
        (0, 1, [1], ErrorCode.INVALID_PARTITIONS, "Number of partitions must be larger than 0."),
        (1, 0, [1], ErrorCode.INVALID_REPLICATION_FACTOR, "Replication factor must be larger than 0."),
        (
            1,
            3,
            [1, 2],
            ErrorCode.INVALID_REPLICATION_FACTOR,
            "Replication factor: 3 larger than available brokers: 2.",
        ),
    ],
)
def test_assignment_errors(n, rf, brokers, code, message):
    with pytest.raises(KafkaError) as exc_info:
        assign_replicas_to_brokers(n, rf, brokers)
    assert exc_info.value.error is code and exc_info.value.message == message


def test_rack_aware_assignment_matches_kafkas_test():
    # AdminRackAwareTest.testGetRackAlternatedBrokerListAndAssignReplicasToBrokers
    racks = {0: "rack1", 1: "rack3", 2: "rack3", 3: "rack2", 4: "rack2", 5: "rack1"}
    assert rack_alternated_brokers(racks) == [0, 3, 1, 5, 4, 2]
    assert rack_alternated_brokers({b: r for b, r in racks.items() if b != 5}) == [0, 3, 1, 4, 2]
    assert assign_replicas(7, 3, racks, fixed_start_index=0, start_partition_id=0) == {
        0: [0, 3, 1],
        1: [3, 1, 5],
        2: [1, 5, 4],
        3: [5, 4, 2],
        4: [4, 2, 0],
        5: [2, 0, 3],
        6: [0, 4, 2],
    }
    # random start: every partition still spans min(rf, racks) racks
    got = assign_replicas(12, 2, racks, rng=random.Random(3))
    assert all(len({racks[b] for b in r}) == 2 for r in got.values())
    # no racks at all: the rack-unaware assignment
    assert assign_replicas(
        6, 3, {1: None, 2: None, 3: None}, fixed_start_index=0
    ) == assign_replicas_to_brokers(6, 3, [1, 2, 3], fixed_start_index=0)
    with pytest.raises(KafkaError) as exc_info:
        assign_replicas(1, 1, {1: "r", 2: None})
    assert (
        exc_info.value.message == "Not all brokers have rack information for replica rack aware assignment."
    )


# ---------------------------------------------------------------------- elections (no ZooKeeper)


def test_election_algorithms():
    cur = zd.LeaderIsrAndEpoch(leader=1, leader_epoch=4, isr=(1, 2), controller_epoch=1)
    r = elect(Strategy.OFFLINE, [1, 2, 3], cur, live={2, 3}, shutting_down=set())
    assert (r.leader, r.isr, r.recovery_state, r.recipients) == (2, (2,), zd.RECOVERED, (2, 3))
    # assignment order, not ISR order
    cur2 = zd.LeaderIsrAndEpoch(leader=9, leader_epoch=0, isr=(3, 2), controller_epoch=1)
    assert elect(Strategy.OFFLINE, [1, 2, 3], cur2, live={2, 3}, shutting_down=set()).leader == 2
    only_out_of_sync = zd.LeaderIsrAndEpoch(leader=-1, leader_epoch=4, isr=(1,), controller_epoch=1)
    assert elect(Strategy.OFFLINE, [1, 2, 3], only_out_of_sync, live={3}, shutting_down=set()) is None
    r = elect(Strategy.OFFLINE, [1, 2, 3], only_out_of_sync, live={3}, shutting_down=set(), unclean=True)
    assert (r.leader, r.isr, r.recovery_state) == (3, (3,), zd.RECOVERING)
    # a shutting-down broker is not live for an offline election
    assert elect(Strategy.OFFLINE, [1, 2], cur, live={1}, shutting_down={2}).leader == 1
    # preferred: the first replica if live and in the ISR; ISR unchanged
    r = elect(Strategy.PREFERRED, [2, 1], cur, live={1, 2}, shutting_down=set())
    assert (r.leader, r.isr) == (2, (1, 2))
    assert elect(Strategy.PREFERRED, [3, 1], cur, live={1, 2, 3}, shutting_down=set()) is None
    # controlled shutdown: skip shutting-down brokers, drop them from the ISR
    full = zd.LeaderIsrAndEpoch(leader=1, leader_epoch=0, isr=(1, 2, 3), controller_epoch=1)
    r = elect(Strategy.CONTROLLED_SHUTDOWN, [1, 2, 3], full, live={2, 3}, shutting_down={1})
    assert (r.leader, r.isr, r.recipients) == (2, (2, 3), (1, 2, 3))
    alone = zd.LeaderIsrAndEpoch(leader=1, leader_epoch=0, isr=(1,), controller_epoch=1)
    assert elect(Strategy.CONTROLLED_SHUTDOWN, [1, 2], alone, live={2}, shutting_down={1}) is None


# ---------------------------------------------------------------------- AdminZkClient on ZooKeeper


@pytest.fixture
def cluster(zookeeper_shared, request):
    """Three registered brokers (ids 1..3) and an admin client on a fourth session."""
    chroot = f"/admin_{uuid.uuid4().hex[:10]}"
    clients = []
    for b in (1, 2, 3):
        reg = BrokerRegistration(broker_id=b, endpoints=(BrokerEndpoint("PLAINTEXT", "127.0.0.1", 9000 + b),))
        zk = ZooKeeperClient(
            zookeeper_shared.connect(chroot),
            session_timeout_ms=3000,
            time_ms=lambda: int(time.time() * 1000),
            registration=reg,
        )
        zk.start()
        clients.append(zk)
    yield AdminZkClient(clients[0], rng=random.Random(1))
    for zk in clients:
        zk.close()


def get_json(admin: AdminZkClient, path: str):
    data, _ = admin.zk.get_data(path)
    return json.loads(data) if data else None


@pytest.mark.zookeeper
def test_create_topic_writes_config_then_assignment(cluster):
    admin = cluster
    assignment = asyncio.run(
        admin.create_topic(
            "events", 3, 2, {"cleanup.policy": "compact"}, default_partitions=1, default_replication=1
        )
    )
    assert sorted(assignment) == [0, 1, 2] and all(len(set(r)) == 2 for r in assignment.values())
    assert get_json(admin, "/config/topics/events") == {"version": 1, "config": {"cleanup.policy": "compact"}}
    topic = get_json(admin, "/brokers/topics/events")
    assert topic["version"] == 3 and topic["adding_replicas"] == {} and topic["removing_replicas"] == {}
    assert topic["partitions"] == {str(p): r for p, r in assignment.items()}
    assert len(topic["topic_id"]) == 22
    assert list(topic) == ["partitions", "removing_replicas", "topic_id", "adding_replicas", "version"]
    # empty overrides still write the config znode
    asyncio.run(admin.create_topic("plain", 1, 1, {}, default_partitions=1, default_replication=1))
    assert get_json(admin, "/config/topics/plain") == {"version": 1, "config": {}}
    # validate_only writes nothing
    asyncio.run(
        admin.create_topic("dry", 1, 1, {}, default_partitions=1, default_replication=1, validate_only=True)
    )
    assert admin.read_topic("dry") is None


@pytest.mark.zookeeper
@pytest.mark.parametrize(
    ("name", "partitions", "rf", "assignments", "code"),
    [
        ("events", 1, 1, (), ErrorCode.TOPIC_ALREADY_EXISTS),
        ("ev.ents", 1, 1, (), ErrorCode.INVALID_TOPIC_EXCEPTION),  # collides with ev_ents
        ("bad/name", 1, 1, (), ErrorCode.INVALID_TOPIC_EXCEPTION),
        ("x", 1, 4, (), ErrorCode.INVALID_REPLICATION_FACTOR),
        ("x", 0, 1, (), ErrorCode.INVALID_PARTITIONS),
        ("x", -1, -1, [(0, [1, 1])], ErrorCode.INVALID_REPLICA_ASSIGNMENT),
        ("x", -1, -1, [(0, [1]), (2, [2])], ErrorCode.INVALID_REPLICA_ASSIGNMENT),
        ("x", 2, -1, [(0, [1])], ErrorCode.INVALID_REQUEST),
        ("__consumer_offsets", 1, 1, (), ErrorCode.INVALID_REQUEST),
        ("marked", 1, 1, (), ErrorCode.TOPIC_ALREADY_EXISTS),  # being deleted
    ],
)
def test_create_topic_validation(cluster, name, partitions, rf, assignments, code):
    admin = cluster
    for existing in ("events", "ev_ents", "marked"):
        asyncio.run(admin.create_topic(existing, 1, 1, {}, default_partitions=1, default_replication=1))
    asyncio.run(admin.delete_topic("marked"))
    admin.zk.kazoo.delete("/brokers/topics/marked")  # as if the controller were half-way
    with pytest.raises(KafkaError) as exc_info:
        asyncio.run(
            admin.create_topic(
                name, partitions, rf, {}, default_partitions=1, default_replication=1, assignments=assignments
            )
        )
    assert exc_info.value.error is code
    if code is ErrorCode.INVALID_REPLICATION_FACTOR:
        assert exc_info.value.message == "Replication factor: 4 larger than available brokers: 3."


@pytest.mark.zookeeper
def test_internal_topic_creation_allowed_for_the_broker(cluster):
    admin = cluster
    got = asyncio.run(
        admin.create_topic(
            "__consumer_offsets", 2, 3, {}, default_partitions=1, default_replication=1, allow_internal=True
        )
    )
    assert len(got) == 2


@pytest.mark.zookeeper
def test_add_partitions_continues_kafkas_assignment(cluster):
    admin = cluster
    asyncio.run(
        admin.create_topic(
            "grow",
            -1,
            -1,
            {},
            default_partitions=1,
            default_replication=1,
            assignments=[(0, [2, 3]), (1, [3, 1])],
        )
    )
    before = admin.read_topic("grow")
    new = asyncio.run(admin.add_partitions("grow", 4))
    # fixedStartIndex = index of the first broker >= p0's first replica (2) = 1; start partition 2
    assert new == assign_replicas_to_brokers(2, 2, [1, 2, 3], fixed_start_index=1, start_partition_id=2)
    after = admin.read_topic("grow")
    assert after.topic_id == before.topic_id
    assert after.partitions == {0: (2, 3), 1: (3, 1)} | {p: tuple(r) for p, r in new.items()}
    # manual
    assert asyncio.run(admin.add_partitions("grow", 5, [[1, 2]])) == {4: [1, 2]}
    for total, manual, code, message in [
        # ZkAdminManager.createPartitions' two messages
        (5, None, ErrorCode.INVALID_PARTITIONS, "Topic already has 5 partitions."),
        (
            3,
            None,
            ErrorCode.INVALID_PARTITIONS,
            "Topic currently has 5 partitions, which is higher than the requested 3.",
        ),
        (6, [[1, 7]], ErrorCode.INVALID_REPLICA_ASSIGNMENT, None),
        (6, [[1, 1]], ErrorCode.INVALID_REPLICA_ASSIGNMENT, None),
        (6, [[1]], ErrorCode.INVALID_REPLICA_ASSIGNMENT, None),
        (7, [[1, 2]], ErrorCode.INVALID_REPLICA_ASSIGNMENT, None),
    ]:
        with pytest.raises(KafkaError) as exc_info:
            asyncio.run(admin.add_partitions("grow", total, manual))
        assert exc_info.value.error is code, (total, manual)
        assert message is None or exc_info.value.message == message
    with pytest.raises(KafkaError) as exc_info:
        asyncio.run(admin.add_partitions("nope", 3))
    assert exc_info.value.error is ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    # check_adding (max.partitions.per.request) sees the count to add before any assignment
    # is checked or built, and its refusal writes nothing
    asked: list[int] = []

    def refuse(adding: int) -> None:
        asked.append(adding)
        raise KafkaError(ErrorCode.POLICY_VIOLATION, "too many")

    for manual in (None, [[1, 7]]):
        with pytest.raises(KafkaError) as exc_info:
            asyncio.run(admin.add_partitions("grow", 2**31 - 1, manual, check_adding=refuse))
        assert exc_info.value.error is ErrorCode.POLICY_VIOLATION
    assert asked == [2**31 - 6, 2**31 - 6]
    assert len(admin.read_topic("grow").partitions) == 5
    asyncio.run(admin.delete_topic("grow"))
    with pytest.raises(KafkaError) as exc_info:
        asyncio.run(admin.add_partitions("grow", 9))
    assert exc_info.value.error is ErrorCode.INVALID_TOPIC_EXCEPTION


@pytest.mark.zookeeper
def test_topic_config_change_notification(cluster):
    admin = cluster
    asyncio.run(admin.create_topic("cfg", 1, 1, {}, default_partitions=1, default_replication=1))
    asyncio.run(admin.change_topic_config("cfg", {"retention.ms": "5"}))
    assert admin.topic_config("cfg") == {"retention.ms": "5"}
    children = admin.zk.kazoo.get_children("/config/changes")
    assert len(children) == 1 and children[0].startswith("config_change_") and len(children[0]) == 24
    assert get_json(admin, f"/config/changes/{children[0]}") == {"version": 2, "entity_path": "topics/cfg"}
