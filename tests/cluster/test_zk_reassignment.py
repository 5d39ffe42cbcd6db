"""Partition reassignment (KIP-455) on a ZooKeeper-mode cluster of three in-process brokers.

The Java Admin moves partition 0 of a replication-factor-2 topic from brokers {0,1} to
{1,2} while confluent-kafka produces to it with acks=all. Broker 2's fetches from the
leader are refused at first, so the reassignment stays in flight (broker 2 cannot join the
ISR): ListPartitionReassignments shows it, with RS = TRS + ORS and the adding and removing
replicas, as does the topic znode. Once the link heals it completes: Metadata shows the new
replicas, broker 0 has deleted its replica, and broker 2's log, read from its segment files
(not through the broker), holds every acknowledged record at the leader's offsets. A
cancellation (null replicas) restores the original replicas and deletes the added one.
kafka-python's admin client and the legacy ``/admin/reassign_partitions`` znode move
partitions the same way; confluent-kafka (librdkafka 2.16) has no reassignment API.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic
from kafka import TopicPartition as KTopicPartition
from kafka.admin import KafkaAdminClient, NewPartitions
from kafka.errors import NoReassignmentInProgressError, ReassignmentInProgressError
from kafka.record import MemoryRecords
from kazoo.client import KazooClient

from protocol.errors import ErrorCode
from protocol.messages import (
    AlterPartitionReassignmentsRequest,
    ListPartitionReassignmentsRequest,
)
from tests.cluster.zk_cluster_checks import agreed_metadata, metadata
from tests.support import polling
from tests.support.cluster import Cluster
from tests.support.interception import Close
from tests.support.java_client import JavaClient, require_java
from tests.support.wire_client import WireClient

pytestmark = pytest.mark.integration

CHROOT = "/reassignment"


def wait_until(condition: Callable[[], Any], what: str, timeout: float = 60.0) -> Any:
    return polling.wait_until(condition, what, timeout)


@pytest.fixture(scope="module")
def cluster(zookeeper_shared, tmp_path_factory) -> Iterator[Cluster]:
    c = Cluster(
        3,
        zookeeper=zookeeper_shared,
        zk_chroot=CHROOT,
        base_dir=tmp_path_factory.mktemp("reassignment"),
        overrides={
            "offsets.topic.num.partitions": "1",
            "offsets.topic.replication.factor": "1",
            # As in Kafka, the auto rebalance would make RS's first replica (a target one) the
            # leader during a move, 5 s after the controller started: the tests choose who leads.
            "auto.leader.rebalance.enable": "false",
        },
    )
    c.start()
    try:
        wait_until(
            lambda: (v := agreed_metadata(c)) is not None and v.controller >= 0 and len(v.brokers) == 3,
            "three brokers agreeing on a controller",
        )
        yield c
    finally:
        c.close()


@pytest.fixture(scope="module")
def kazoo(zookeeper_shared) -> Iterator[KazooClient]:
    zk = KazooClient(hosts=zookeeper_shared.connect(CHROOT))
    zk.start(timeout=30)
    try:
        yield zk
    finally:
        zk.stop()
        zk.close()


def create_topic(cluster: Cluster, replicas: list[int]) -> str:
    name = f"moving-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    futures = admin.create_topics([NewTopic(name, 1, replica_assignment=[replicas])], operation_timeout=30)
    futures[name].result(60)
    wait_until(lambda: all(log_of(cluster, i, name) for i in replicas), "the replicas' logs")
    wait_until(
        lambda: replicas_in_metadata(cluster, name) == tuple(replicas), "the topic in every broker's metadata"
    )
    return name


def log_of(cluster: Cluster, i: int, topic: str) -> bool:
    return bool(cluster.run(lambda: cluster.broker(i).log_manager.get_log(topic, 0) is not None))


def replicas_in_metadata(cluster: Cluster, topic: str) -> tuple[int, ...] | None:
    """The replicas every broker's Metadata shows for partition 0 (None if they differ)."""
    seen = {metadata(cluster, i, [topic]).topic(topic).get(0) for i in range(cluster.n)}
    if len(seen) != 1 or None in seen:
        return None
    (view,) = seen
    return view.replicas if view.error == 0 else None


def leader_of(cluster: Cluster, topic: str) -> int:
    return wait_until(
        lambda: (
            (v := metadata(cluster, 0, [topic]).topic(topic).get(0)) is not None
            and v.leader >= 0
            and (v.leader,)
        ),
        "a leader",
    )[0]


def controller_index(cluster: Cluster) -> int:
    return wait_until(
        lambda: (v := agreed_metadata(cluster)) is not None and v.controller >= 0 and (v.controller,),
        "controller",
    )[0]


def replica_records(log_dir: Path, topic: str) -> list[tuple[int, bytes | None]]:
    """(offset, value) of every record of one replica, read from its segment files."""
    out: list[tuple[int, bytes | None]] = []
    for segment in sorted((log_dir / f"{topic}-0").glob("*.log")):
        records = MemoryRecords(segment.read_bytes())
        while records.has_next():
            batch = records.next_batch()
            assert batch.validate_crc(), f"corrupt batch in {segment}"
            out.extend((r.offset, r.value) for r in batch)
    return out


class BackgroundProducer:
    """confluent-kafka producing to partition 0 with acks=all until stopped."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        self.topic = topic
        self.producer = Producer(
            {"bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": True, "linger.ms": 5}
        )
        self.acked: dict[int, bytes] = {}  # offset -> value
        self.errors: list[Any] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _report(self, err: Any, msg: Any) -> None:
        if err is not None:
            self.errors.append(err)
        else:
            self.acked[msg.offset()] = msg.value()

    def _run(self) -> None:
        i = 0
        while not self._stop.is_set():
            self.producer.produce(self.topic, value=b"v-%d" % i, partition=0, on_delivery=self._report)
            i += 1
            self.producer.poll(0.005)
        self.producer.flush(60)

    def __enter__(self) -> BackgroundProducer:
        self._thread.start()
        return self

    def wait_acked(self, more: int, timeout: float = 60.0) -> None:
        target = len(self.acked) + more
        wait_until(lambda: len(self.acked) >= target, f"{more} more acknowledged records", timeout)

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(90)


class FetchesBlocked:
    """Broker ``follower``'s replica fetcher gets its connections to ``leader`` closed (it
    retries after its backoff), so it cannot catch up and the move stays in flight; nothing
    else is touched (a link cut would also lose the controller's requests when the follower
    is the controller). Removed on exit."""

    def __init__(self, cluster: Cluster, follower: int, leader: int) -> None:
        prefix = f"broker-{follower}-fetcher"
        self.control = cluster.control(
            leader, None, lambda r: Close() if (r.client_id or "").startswith(prefix) else None, keep=True
        )

    def __enter__(self) -> FetchesBlocked:
        return self

    def __exit__(self, *exc: object) -> None:
        self.control.remove()


def list_reassignments(cluster: Cluster, i: int, topics: list | None = None) -> Any:
    with WireClient("127.0.0.1", cluster.port(i)) as client:
        return client.request(ListPartitionReassignmentsRequest(topics=topics), 0)


def test_java_admin_moves_a_partition_under_acks_all_traffic(cluster: Cluster, kazoo: KazooClient) -> None:
    java = JavaClient(cluster.bootstrap, runtime=require_java())
    topic = create_topic(cluster, [0, 1])
    leader = leader_of(cluster, topic)
    assert leader == 0  # the preferred replica
    blocked = FetchesBlocked(cluster, 2, leader)  # broker 2 cannot fetch: the move stays in flight
    with blocked, BackgroundProducer(cluster.bootstrap, topic) as producer:
        producer.wait_acked(200)
        moved = java.alter_reassignments({(topic, 0): [1, 2]})
        assert moved["partitions"] == {f"{topic}:0": {"ok": True}}, moved

        # In flight: RS = TRS + ORS, adding {2}, removing {0}, in the API and in the znode.
        listed = java.list_reassignments()
        assert listed["reassignments"] == {
            f"{topic}:0": {"replicas": [1, 2, 0], "adding": [2], "removing": [0]}
        }, listed
        assert java.list_reassignments((topic, 0))["reassignments"] == listed["reassignments"]
        znode = json.loads(kazoo.get(f"/brokers/topics/{topic}")[0])
        assert znode["partitions"] == {"0": [1, 2, 0]}
        assert (znode["adding_replicas"], znode["removing_replicas"]) == ({"0": [2]}, {"0": [0]})
        wait_until(lambda: replicas_in_metadata(cluster, topic) == (1, 2, 0), "Metadata showing RS")
        # only the controller answers; the others say NOT_CONTROLLER
        ctrl = controller_index(cluster)
        for i in range(cluster.n):
            answer = list_reassignments(cluster, i)
            if i == ctrl:
                assert answer.error_code == 0 and [t.name for t in answer.topics] == [topic]
            else:
                assert answer.error_code == ErrorCode.NOT_CONTROLLER.code and answer.topics == []
        producer.wait_acked(200)  # acks=all goes on with ISR {0,1}

        assert blocked.control.handled > 0  # broker 2 did try to fetch
        blocked.control.remove()
        wait_until(
            lambda: replicas_in_metadata(cluster, topic) == (1, 2), "Metadata showing the new replicas"
        )
        assert java.list_reassignments()["reassignments"] == {}
        producer.wait_acked(200)  # and goes on after the move, led by broker 1
    assert producer.errors == []

    znode = json.loads(kazoo.get(f"/brokers/topics/{topic}")[0])
    assert (znode["partitions"], znode["adding_replicas"], znode["removing_replicas"]) == (
        {"0": [1, 2]},
        {},
        {},
    )
    state = json.loads(kazoo.get(f"/brokers/topics/{topic}/partitions/0/state")[0])
    assert state["leader"] == 1 and sorted(state["isr"]) == [1, 2]
    # broker 0 deleted its replica: not hosted, its directory gone (renamed -delete, then removed)
    wait_until(lambda: not log_of(cluster, 0, topic), "broker 0 dropping its log")
    wait_until(
        lambda: not list(cluster.log_dir(0).glob(f"{topic}-0*")), "broker 0's replica directory removed"
    )
    # broker 2's copy, read independently, has every acknowledged record at its offset
    high = max(producer.acked) + 1
    wait_until(lambda: len(replica_records(cluster.log_dir(2), topic)) >= high, "broker 2 caught up")
    on_2 = dict(replica_records(cluster.log_dir(2), topic))
    on_1 = dict(replica_records(cluster.log_dir(1), topic))
    for offset, value in producer.acked.items():
        assert on_2.get(offset) == value and on_1.get(offset) == value, offset


def test_cancelling_restores_the_original_replicas(cluster: Cluster, kazoo: KazooClient) -> None:
    java = JavaClient(cluster.bootstrap, runtime=require_java())
    topic = create_topic(cluster, [0, 1])
    leader = leader_of(cluster, topic)
    with FetchesBlocked(cluster, 2, leader):  # broker 2 cannot fetch
        assert java.alter_reassignments({(topic, 0): [1, 2]})["partitions"] == {f"{topic}:0": {"ok": True}}
        wait_until(lambda: log_of(cluster, 2, topic), "broker 2 creating the adding replica")
        assert java.list_reassignments()["reassignments"][f"{topic}:0"]["adding"] == [2]

        cancelled = java.alter_reassignments(cancel=[(topic, 0)])
        assert cancelled["partitions"] == {f"{topic}:0": {"ok": True}}, cancelled
        assert java.list_reassignments()["reassignments"] == {}
        # ORS comes back in RS order (target first), as in Kafka: [1, 0], not [0, 1]
        # (``updateCurrentReassignment``: a cancellation cannot restore the original order)
        wait_until(lambda: replicas_in_metadata(cluster, topic) == (1, 0), "the original replicas back")
        znode = json.loads(kazoo.get(f"/brokers/topics/{topic}")[0])
        assert (znode["partitions"], znode["adding_replicas"], znode["removing_replicas"]) == (
            {"0": [1, 0]},
            {},
            {},
        )
        wait_until(lambda: not log_of(cluster, 2, topic), "broker 2 deleting the added replica")
        # nothing more to cancel
        again = java.alter_reassignments(cancel=[(topic, 0)])
        assert again["partitions"][f"{topic}:0"]["error_code"] == "NO_REASSIGNMENT_IN_PROGRESS", again


def test_kafka_python_admin_reassigns_lists_and_is_refused_bad_targets(cluster: Cluster) -> None:
    topic = create_topic(cluster, [0, 1])
    leader = leader_of(cluster, topic)
    admin = KafkaAdminClient(bootstrap_servers=cluster.bootstrap, request_timeout_ms=30_000)
    tp = KTopicPartition(topic, 0)
    with FetchesBlocked(cluster, 2, leader):  # broker 2 cannot fetch
        assert admin.alter_partition_reassignments({tp: [2, 1]}) == {tp: None}
        ongoing = admin.list_partition_reassignments()
        assert ongoing == {tp: {"replicas": [2, 1, 0], "adding_replicas": [2], "removing_replicas": [0]}}
        assert admin.list_partition_reassignments([KTopicPartition(topic, 7)]) == {}
        with pytest.raises(ReassignmentInProgressError):  # no partitions added meanwhile
            admin.create_partitions({topic: NewPartitions(2)})
    wait_until(lambda: replicas_in_metadata(cluster, topic) == (2, 1), "the move completing")
    assert admin.list_partition_reassignments() == {}
    results = admin.alter_partition_reassignments({tp: None, KTopicPartition(topic, 5): [0]})
    assert results[tp] is NoReassignmentInProgressError
    assert results[KTopicPartition(topic, 5)].errno == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code
    admin.close()

    # Kafka's validateReplicas, with its messages
    ctrl = controller_index(cluster)
    cases = {
        0: ([], "Empty replica list specified in partition reassignment."),
        1: ([1, 1], "Duplicate replica ids in partition reassignment replica list: ArrayBuffer(1, 1)"),
        2: ([1, -1], "Invalid broker id in replica list: ArrayBuffer(1, -1)"),
        3: (
            [1, 9],
            "Replica assignment has brokers that are not alive. Replica list: ArrayBuffer(9), live broker list: Set(0, 1, 2)",
        ),
    }
    # one request per case: a partition listed twice keeps its last entry (Kafka builds a map)
    for replicas, message in cases.values():
        request = AlterPartitionReassignmentsRequest(
            topics=[
                AlterPartitionReassignmentsRequest.ReassignableTopic(
                    name=topic,
                    partitions=[
                        AlterPartitionReassignmentsRequest.ReassignablePartition(
                            partition_index=0, replicas=replicas
                        )
                    ],
                )
            ]
        )
        with WireClient("127.0.0.1", cluster.port(ctrl)) as client:
            answer = client.request(request, 0)
        (result,) = answer.responses[0].partitions
        assert (result.error_code, result.error_message) == (
            ErrorCode.INVALID_REPLICA_ASSIGNMENT.code,
            message,
        )
    assert replicas_in_metadata(cluster, topic) == (2, 1)


def test_the_legacy_reassign_partitions_znode_moves_partitions(cluster: Cluster, kazoo: KazooClient) -> None:
    topic = create_topic(cluster, [0, 1])
    kazoo.create(
        "/admin/reassign_partitions",
        json.dumps(
            {"version": 1, "partitions": [{"topic": topic, "partition": 0, "replicas": [2, 0]}]}
        ).encode(),
        makepath=True,
    )
    wait_until(lambda: replicas_in_metadata(cluster, topic) == (2, 0), "the znode's move completing")
    wait_until(lambda: kazoo.exists("/admin/reassign_partitions") is None, "the znode deleted once done")
    wait_until(lambda: not log_of(cluster, 1, topic), "broker 1 deleting its replica")


def test_a_new_controller_resumes_a_move_in_flight(cluster: Cluster, kazoo: KazooClient) -> None:
    """The controller dies with a move in flight (its own broker is the one being added):
    the next controller reads the move from the topic znode, and it completes once the
    added broker is back and has caught up."""
    java = JavaClient(cluster.bootstrap, runtime=require_java())
    old = controller_index(cluster)
    a, b = [i for i in range(cluster.n) if i != old]
    topic = create_topic(cluster, [a, b])
    leader = leader_of(cluster, topic)
    with FetchesBlocked(cluster, old, leader):  # the added replica cannot fetch
        assert java.alter_reassignments({(topic, 0): [a, old]})["partitions"] == {f"{topic}:0": {"ok": True}}
        wait_until(lambda: log_of(cluster, old, topic), "the added replica created")
        cluster.kill(old)
        new = wait_until(
            lambda: (
                (v := agreed_metadata(cluster)) is not None
                and v.controller not in (-1, old)
                and (v.controller,)
            ),
            "a new controller",
        )[0]
        with WireClient("127.0.0.1", cluster.port(new)) as client:
            listed = client.request(ListPartitionReassignmentsRequest(topics=None), 0)
        assert listed.error_code == 0
        ((name, partitions),) = [(t.name, t.partitions) for t in listed.topics]
        assert name == topic and [(p.adding_replicas, p.removing_replicas) for p in partitions] == [
            ([old], [b])
        ]
    cluster.start_broker(old)
    wait_until(lambda: replicas_in_metadata(cluster, topic) == (a, old), "the move completing")
    wait_until(lambda: not log_of(cluster, b, topic), f"broker {b} deleting its replica")
    znode = json.loads(kazoo.get(f"/brokers/topics/{topic}")[0])
    assert (znode["partitions"], znode["adding_replicas"], znode["removing_replicas"]) == (
        {"0": [a, old]},
        {},
        {},
    )
