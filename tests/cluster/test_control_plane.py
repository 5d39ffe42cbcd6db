"""The broker side of the ZooKeeper-mode control plane: LeaderAndIsr, UpdateMetadata, StopReplica.

The test plays the controller: it sends Kafka's controller-to-broker requests to in-process
brokers (with ``broker.network_client.InterBrokerClient``, client id ``broker-<id>``) and
checks what the brokers do with them, with real clients (confluent-kafka) and raw frames
(``WireClient``): leadership and the KIP-951 leader hints, Metadata from UpdateMetadata,
epoch fencing, log deletion, group coordinator placement, and that a broker without
ZooKeeper neither advertises nor accepts these APIs.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from broker.network_client import InterBrokerClient
from protocol.errors import ErrorCode
from protocol.messages import (
    ApiVersionsRequest,
    FindCoordinatorRequest,
    LeaderAndIsrRequest,
    MetadataRequest,
    OffsetCommitRequest,
    OffsetFetchRequest,
    ProduceRequest,
    StopReplicaRequest,
    UpdateMetadataRequest,
)
from protocol.records import build_batch
from tests.support.cluster import Cluster
from tests.support.wire_client import WireClient

pytestmark = pytest.mark.integration

CONTROLLER_ID = 0
LAI = LeaderAndIsrRequest
UMR = UpdateMetadataRequest
SRR = StopReplicaRequest


def wait_until(condition: Callable[[], object], what: str, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        result = condition()
        if result:
            return result
        assert time.monotonic() < deadline, f"no {what} within {timeout} s"
        time.sleep(0.02)


class PlayedController:
    """The test as the cluster's controller: builds and sends the control requests."""

    def __init__(self, cluster: Cluster, epoch: int = 1) -> None:
        self.cluster = cluster
        self.epoch = epoch
        self.client = InterBrokerClient(
            f"broker-{CONTROLLER_ID}", lambda bid: ("127.0.0.1", cluster.port(bid)), request_timeout_ms=15_000
        )

    def close(self) -> None:
        self.cluster.run(self.client.close())

    def broker_epoch(self, i: int) -> int:
        return self.cluster.run(lambda: self.cluster.broker(i).zookeeper.broker_epoch)

    def send(self, broker: int, request: Any, version: int) -> Any:
        return self.cluster.run(self.client.send(broker, request, version))

    def leader_and_isr(
        self,
        broker: int,
        topic: str,
        topic_id: uuid.UUID,
        partitions: Sequence[tuple[int, int, int, list[int], list[int]]],
        *,
        controller_epoch: int | None = None,
        broker_epoch: int | None = None,
        version: int = 7,
    ) -> Any:
        """``partitions``: (index, leader, leader epoch, isr, replicas)."""
        request = LAI(
            controller_id=CONTROLLER_ID,
            controller_epoch=self.epoch if controller_epoch is None else controller_epoch,
            broker_epoch=self.broker_epoch(broker) if broker_epoch is None else broker_epoch,
            topic_states=[
                LAI.LeaderAndIsrTopicState(
                    topic_name=topic,
                    topic_id=topic_id,
                    partition_states=[
                        LAI.LeaderAndIsrPartitionState(
                            topic_name=topic,
                            partition_index=index,
                            controller_epoch=self.epoch,
                            leader=leader,
                            leader_epoch=leader_epoch,
                            isr=isr,
                            partition_epoch=leader_epoch,
                            replicas=replicas,
                            is_new=leader_epoch == 0,
                        )
                        for index, leader, leader_epoch, isr, replicas in partitions
                    ],
                )
            ],
            live_leaders=[],
        )
        return self.send(broker, request, version)

    def update_metadata(
        self,
        broker: int,
        topics: dict[str, tuple[uuid.UUID, Sequence[tuple[int, int, int, list[int], list[int], list[int]]]]],
        *,
        alive: Sequence[int] | None = None,
        controller_epoch: int | None = None,
        broker_epoch: int | None = None,
    ) -> Any:
        """``topics``: name -> (id, [(index, leader, leader epoch, isr, replicas, offline)])."""
        alive = range(self.cluster.n) if alive is None else alive
        request = UMR(
            controller_id=CONTROLLER_ID,
            controller_epoch=self.epoch if controller_epoch is None else controller_epoch,
            broker_epoch=self.broker_epoch(broker) if broker_epoch is None else broker_epoch,
            live_brokers=[
                UMR.UpdateMetadataBroker(
                    id=b,
                    endpoints=[
                        UMR.UpdateMetadataEndpoint(
                            port=self.cluster.port(b),
                            host="127.0.0.1",
                            listener="PLAINTEXT",
                            security_protocol=0,
                        )
                    ],
                    rack=f"rack-{b}",
                )
                for b in alive
            ],
            topic_states=[
                UMR.UpdateMetadataTopicState(
                    topic_name=name,
                    topic_id=topic_id,
                    partition_states=[
                        UMR.UpdateMetadataPartitionState(
                            topic_name=name,
                            partition_index=index,
                            controller_epoch=self.epoch,
                            leader=leader,
                            leader_epoch=leader_epoch,
                            isr=isr,
                            zk_version=leader_epoch,
                            replicas=replicas,
                            offline_replicas=offline,
                        )
                        for index, leader, leader_epoch, isr, replicas, offline in parts
                    ],
                )
                for name, (topic_id, parts) in topics.items()
            ],
        )
        return self.send(broker, request, 8)

    def stop_replica(
        self,
        broker: int,
        topic: str,
        partitions: Sequence[tuple[int, int, bool]],
        *,
        controller_epoch: int | None = None,
        broker_epoch: int | None = None,
    ) -> Any:
        """``partitions``: (index, leader epoch, delete)."""
        request = SRR(
            controller_id=CONTROLLER_ID,
            controller_epoch=self.epoch if controller_epoch is None else controller_epoch,
            broker_epoch=self.broker_epoch(broker) if broker_epoch is None else broker_epoch,
            topic_states=[
                SRR.StopReplicaTopicState(
                    topic_name=topic,
                    partition_states=[
                        SRR.StopReplicaPartitionState(partition_index=i, leader_epoch=e, delete_partition=d)
                        for i, e, d in partitions
                    ],
                )
            ],
        )
        return self.send(broker, request, 4)

    def lead(self, topic: str, topic_id: uuid.UUID, leader: int, epoch: int, replicas: list[int]) -> None:
        """Partition 0 of ``topic`` led by ``leader`` with ``epoch``: LeaderAndIsr to the replicas,
        then UpdateMetadata to every broker (the controller's order)."""
        for b in replicas:
            response = self.leader_and_isr(b, topic, topic_id, [(0, leader, epoch, replicas, replicas)])
            assert response.error_code == 0
            assert [p.error_code for t in response.topics for p in t.partition_errors] == [0]
        for b in range(self.cluster.n):
            topics = {topic: (topic_id, [(0, leader, epoch, replicas, replicas, [])])}
            assert self.update_metadata(b, topics).error_code == 0


@pytest.fixture
def zk_cluster(zookeeper_shared, tmp_path: Path, request) -> Iterator[Cluster]:
    name = "".join(c if c.isalnum() else "_" for c in request.node.name)[:60]
    cluster = Cluster(
        2,
        zookeeper=zookeeper_shared,
        zk_chroot=f"/cp_{name}",
        base_dir=tmp_path / "cluster",
        overrides={"offsets.topic.num.partitions": "1", "group.initial.rebalance.delay.ms": "0"},
        # The brokers' own controller also sends UpdateMetadata (at start, when a broker
        # joins, when __consumer_offsets is made), possibly after the test's: with the racks
        # the test announces, either one leaves the same view.
        broker_overrides={i: {"broker.rack": f"rack-{i}"} for i in range(2)},
    )
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.close()


@pytest.fixture
def controller(zk_cluster: Cluster) -> Iterator[PlayedController]:
    played = PlayedController(zk_cluster)
    yield played
    played.close()


def wire(cluster: Cluster, i: int) -> WireClient:
    return WireClient("127.0.0.1", cluster.port(i))


def produce_frame(topic: str, value: bytes) -> ProduceRequest:
    return ProduceRequest(
        acks=1,
        timeout_ms=5000,
        topic_data=[
            ProduceRequest.TopicProduceData(
                name=topic,
                partition_data=[
                    ProduceRequest.PartitionProduceData(index=0, records=build_batch([(None, value)]))
                ],
            )
        ],
    )


def log_end_offset(cluster: Cluster, i: int, topic: str) -> int | None:
    def read() -> int | None:
        plog = cluster.broker(i).log_manager.get_log(topic, 0)
        return None if plog is None else plog.log_end_offset

    return cluster.run(read)


# ---------------------------------------------------------------- served only in ZooKeeper mode

CONTROL_KEYS = {4: (5, 7), 5: (3, 4), 6: (6, 8), 7: (1, 3), 56: (0, 3)}


def test_embedded_mode_neither_advertises_nor_accepts_control_apis(tmp_path: Path) -> None:
    with Cluster(1, base_dir=tmp_path / "embedded") as cluster, wire(cluster, 0) as client:
        keys = {
            k.api_key
            for k in client.request(
                ApiVersionsRequest(client_software_name="cp-test", client_software_version="1"), 3
            ).api_keys
        }
        assert keys and not keys & set(CONTROL_KEYS)
        client.send(LAI(controller_id=0, controller_epoch=1, broker_epoch=-1), 7)
        assert client.is_closed_by_peer()


def test_zookeeper_mode_advertises_control_apis(zk_cluster: Cluster) -> None:
    with wire(zk_cluster, 1) as client:
        ranges = {
            k.api_key: (k.min_version, k.max_version)
            for k in client.request(
                ApiVersionsRequest(client_software_name="cp-test", client_software_version="1"), 3
            ).api_keys
        }
    assert {k: ranges.get(k) for k in CONTROL_KEYS} == CONTROL_KEYS


# ---------------------------------------------------------------- leadership, KIP-951, Metadata


def test_leader_serves_follower_redirects_and_metadata_follows(
    zk_cluster: Cluster, controller: PlayedController
) -> None:
    from confluent_kafka import Producer

    topic, topic_id = "cp-leadership", uuid.uuid4()
    controller.lead(topic, topic_id, leader=0, epoch=0, replicas=[0, 1])
    # LeaderAndIsr created the logs on both replicas, with the topic's id.
    for i in (0, 1):
        assert (
            zk_cluster.run(lambda i=i: zk_cluster.broker(i).log_manager.get_log(topic, 0).topic_id)
            == topic_id
        )

    producer = Producer({"bootstrap.servers": zk_cluster.bootstrap, "acks": "all", "linger.ms": 0})
    errors: list[object] = []
    producer.produce(topic, b"one", partition=0, on_delivery=lambda err, _m: err and errors.append(err))
    assert producer.flush(30) == 0 and errors == []
    # acks=all: answered once the follower fetched it (replication)
    assert log_end_offset(zk_cluster, 0, topic) == 1 and log_end_offset(zk_cluster, 1, topic) == 1

    # The follower refuses with the KIP-951 leader hints (v10 and v11).
    for version in (10, 11):
        with wire(zk_cluster, 1) as client:
            response = client.request(produce_frame(topic, b"x"), version)
        part = response.responses[0].partition_responses[0]
        assert part.error_code == ErrorCode.NOT_LEADER_OR_FOLLOWER.code
        assert (part.current_leader.leader_id, part.current_leader.leader_epoch) == (0, 0)
        assert [(n.node_id, n.host, n.port, n.rack) for n in response.node_endpoints] == [
            (0, "127.0.0.1", zk_cluster.port(0), "rack-0")
        ]

    # Metadata on both brokers is the controller's view (broker 1 offline here).
    for b in (0, 1):
        topics = {topic: (topic_id, [(0, 0, 0, [0], [0, 1], [1])])}
        assert controller.update_metadata(b, topics, alive=[0, 1]).error_code == 0
    for i in (0, 1):
        with wire(zk_cluster, i) as client:
            md = client.request(
                MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name=topic)]), 12
            )
        assert md.controller_id == CONTROLLER_ID
        assert sorted((b.node_id, b.port, b.rack) for b in md.brokers) == [
            (0, zk_cluster.port(0), "rack-0"),
            (1, zk_cluster.port(1), "rack-1"),
        ]
        (t,) = md.topics
        assert (t.error_code, t.topic_id) == (0, topic_id)
        (p,) = t.partitions
        assert (p.leader_id, p.leader_epoch, p.replica_nodes, p.isr_nodes, p.offline_replicas) == (
            0,
            0,
            [0, 1],
            [0],
            [1],
        )

    # Leadership moves to broker 1: the producer finds it after a metadata refresh.
    controller.lead(topic, topic_id, leader=1, epoch=1, replicas=[0, 1])
    producer.produce(topic, b"two", partition=0, on_delivery=lambda err, _m: err and errors.append(err))
    assert producer.flush(30) == 0 and errors == []
    # both replicas hold "one" (replicated before) and "two" (acks=all: in the ISR [0, 1])
    assert log_end_offset(zk_cluster, 1, topic) == 2 and log_end_offset(zk_cluster, 0, topic) == 2
    with wire(zk_cluster, 0) as client:
        part = client.request(produce_frame(topic, b"x"), 11).responses[0].partition_responses[0]
    assert part.error_code == ErrorCode.NOT_LEADER_OR_FOLLOWER.code
    assert (part.current_leader.leader_id, part.current_leader.leader_epoch) == (1, 1)


# ---------------------------------------------------------------- fencing


def partition_errors(response: Any) -> list[int]:
    return [p.error_code for t in response.topics for p in t.partition_errors]


def test_stale_epochs_are_fenced(zk_cluster: Cluster, controller: PlayedController) -> None:
    topic, topic_id = "cp-fencing", uuid.uuid4()
    controller.epoch = 5
    ok = controller.leader_and_isr(0, topic, topic_id, [(0, 0, 3, [0], [0]), (1, 0, 3, [0], [0])])
    assert (ok.error_code, partition_errors(ok)) == (0, [0, 0])

    # An older controller epoch: the whole request, and every other control request.
    stale = controller.leader_and_isr(0, topic, topic_id, [(0, 0, 4, [0], [0])], controller_epoch=4)
    assert (stale.error_code, partition_errors(stale)) == (11, [11])
    assert controller.update_metadata(0, {}, controller_epoch=4).error_code == 11
    stop = controller.stop_replica(0, topic, [(0, 3, False)], controller_epoch=4)
    assert (stop.error_code, stop.partition_errors) == (11, [])

    # A broker epoch older than this broker's registration; a newer one is accepted.
    mine = controller.broker_epoch(0)
    stale = controller.leader_and_isr(0, topic, topic_id, [(0, 0, 4, [0], [0])], broker_epoch=mine - 1)
    assert (stale.error_code, partition_errors(stale)) == (77, [77])
    assert controller.update_metadata(0, {}, broker_epoch=mine - 1).error_code == 77
    # StopReplica answers the top-level error alone (KafkaApis.handleStopReplicaRequest)
    stop = controller.stop_replica(0, topic, [(0, 3, False)], broker_epoch=mine - 1)
    assert (stop.error_code, stop.partition_errors) == (77, [])
    newer = controller.leader_and_isr(0, topic, topic_id, [(0, 0, 4, [0], [0])], broker_epoch=mine + 1)
    assert (newer.error_code, partition_errors(newer)) == (0, [0])

    # Per partition: an older or equal leader epoch is ignored, the other partition applies.
    mixed = controller.leader_and_isr(0, topic, topic_id, [(0, 0, 2, [0], [0]), (1, 0, 5, [0], [0])])
    assert (mixed.error_code, partition_errors(mixed)) == (0, [11, 0])
    equal = controller.leader_and_isr(0, topic, topic_id, [(1, 0, 5, [0], [0])])
    assert partition_errors(equal) == [11]
    epochs = zk_cluster.run(
        lambda: [zk_cluster.broker(0).replica_manager.get_partition(topic, p).leader_epoch for p in (0, 1)]
    )
    assert epochs == [4, 5]

    # Not a replica: UNKNOWN_TOPIC_OR_PARTITION and no log; another topic id: INCONSISTENT_TOPIC_ID.
    other = controller.leader_and_isr(0, "cp-elsewhere", uuid.uuid4(), [(0, 1, 0, [1], [1])])
    assert partition_errors(other) == [3]
    assert log_end_offset(zk_cluster, 0, "cp-elsewhere") is None
    wrong_id = controller.leader_and_isr(0, topic, uuid.uuid4(), [(0, 0, 9, [0], [0])])
    assert partition_errors(wrong_id) == [103]

    # Names and indexes no controller sends never become paths.
    for name, index, error in (("../escape", 0, 17), ("cp-negative", -1, 3)):
        bad = controller.leader_and_isr(0, name, uuid.uuid4(), [(index, 0, 0, [0], [0])])
        assert partition_errors(bad) == [error]
    assert not list(zk_cluster.log_dir(0).parent.glob("escape*"))
    assert not list(zk_cluster.log_dir(0).glob("cp-negative*"))


def test_leader_and_isr_creates_logs_with_the_topics_zookeeper_config(
    zk_cluster: Cluster, controller: PlayedController
) -> None:
    topic = "cp-configured"
    zk = zk_cluster.broker(0).zookeeper

    def write_config() -> None:
        zk._client().ensure_path(f"/config/topics/{topic}")
        stat = zk.get_data(f"/config/topics/{topic}")[1]
        zk.set_data(
            f"/config/topics/{topic}", b'{"version":1,"config":{"retention.ms":"12345"}}', stat.version
        )

    zk_cluster.run(asyncio.to_thread(write_config))
    response = controller.leader_and_isr(0, topic, uuid.uuid4(), [(0, 0, 0, [0], [0])])
    assert partition_errors(response) == [0]
    retention = zk_cluster.run(lambda: zk_cluster.broker(0).log_manager.get_log(topic, 0).config.retention_ms)
    assert retention == 12345


def test_stop_replica_fences_older_epochs_and_deletes_logs(
    zk_cluster: Cluster, controller: PlayedController
) -> None:
    topic, topic_id = "cp-stop", uuid.uuid4()
    ok = controller.leader_and_isr(1, topic, topic_id, [(0, 1, 3, [1], [1]), (1, 1, 3, [1], [1])])
    assert partition_errors(ok) == [0, 0]
    log_dir = zk_cluster.log_dir(1)
    assert (log_dir / f"{topic}-0").is_dir() and (log_dir / f"{topic}-1").is_dir()

    fenced = controller.stop_replica(1, topic, [(0, 2, True)])
    assert (fenced.error_code, [p.error_code for p in fenced.partition_errors]) == (0, [74])
    assert (log_dir / f"{topic}-0").is_dir()

    stopped = controller.stop_replica(1, topic, [(0, 3, True), (1, -2, True), (7, 0, True)])
    assert [(p.partition_index, p.error_code) for p in stopped.partition_errors] == [(0, 0), (1, 0), (7, 0)]
    assert zk_cluster.run(lambda: zk_cluster.broker(1).replica_manager.get_partition(topic, 0)) is None
    wait_until(
        lambda: not any(p.name.startswith(f"{topic}-") for p in log_dir.iterdir()), "deleted partition dirs"
    )
    with wire(zk_cluster, 1) as client:
        part = client.request(produce_frame(topic, b"x"), 11).responses[0].partition_responses[0]
    assert part.error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code


# ---------------------------------------------------------------- coordinator placement


def offset_fetch(cluster: Cluster, i: int, group: str, topic: str) -> tuple[int, int]:
    """(top-level error, committed offset of ``topic``-0) from broker ``i`` (OffsetFetch v5)."""
    request = OffsetFetchRequest(
        group_id=group, topics=[OffsetFetchRequest.OffsetFetchRequestTopic(name=topic, partition_indexes=[0])]
    )
    with wire(cluster, i) as client:
        response = client.request(request, 5)
    offset = response.topics[0].partitions[0].committed_offset if response.topics else -1
    return response.error_code, offset


def find_coordinator(cluster: Cluster, i: int, group: str) -> tuple[int, int]:
    with wire(cluster, i) as client:
        response = client.request(FindCoordinatorRequest(key=group, key_type=0), 3)
    return response.error_code, response.node_id


def test_group_coordinator_follows_offsets_partition_leadership(
    zk_cluster: Cluster, controller: PlayedController
) -> None:
    group, topic, offsets_topic = "cp-group", "cp-committed", "__consumer_offsets"
    controller.lead(topic, uuid.uuid4(), leader=0, epoch=0, replicas=[0, 1])
    # Each broker creates __consumer_offsets on first use (one partition here).
    for i in (0, 1):
        wait_until(lambda i=i: find_coordinator(zk_cluster, i, group)[0] == 0, f"__consumer_offsets on {i}")
    ids = [
        zk_cluster.run(lambda i=i: zk_cluster.broker(i).log_manager.get_log(offsets_topic, 0).topic_id)
        for i in (0, 1)
    ]

    def lead_offsets(leader: int, epoch: int) -> None:
        for b in (0, 1):
            lai = controller.leader_and_isr(b, offsets_topic, ids[b], [(0, leader, epoch, [0, 1], [0, 1])])
            assert partition_errors(lai) == [0]
            topics = {offsets_topic: (ids[b], [(0, leader, epoch, [0, 1], [0, 1], [])])}
            assert controller.update_metadata(b, topics).error_code == 0

    lead_offsets(leader=0, epoch=1)
    wait_until(lambda: offset_fetch(zk_cluster, 0, group, topic)[0] == 0, "broker 0 coordinating")
    commit = OffsetCommitRequest(
        group_id=group,
        topics=[
            OffsetCommitRequest.OffsetCommitRequestTopic(
                name=topic, partitions=[OffsetCommitRequest.OffsetCommitRequestPartition(committed_offset=42)]
            )
        ],
    )
    with wire(zk_cluster, 0) as client:
        committed = client.request(commit, 8)
    assert committed.topics[0].partitions[0].error_code == 0
    assert offset_fetch(zk_cluster, 0, group, topic) == (0, 42)
    assert offset_fetch(zk_cluster, 1, group, topic)[0] == ErrorCode.NOT_COORDINATOR.code
    assert find_coordinator(zk_cluster, 1, group) == (0, 0)

    # Broker 1, the follower, copies the commit (replication) before leadership moves.
    def log_end(i: int) -> int:
        return zk_cluster.run(
            lambda: zk_cluster.broker(i).log_manager.get_log(offsets_topic, 0).log_end_offset
        )

    wait_until(lambda: log_end(1) == log_end(0) > 0, "the follower's copy of the commit")
    # Broker 1's load of the partition is held until the test lets it go.
    release = zk_cluster.run(_hold_next_load(zk_cluster, 1))
    lead_offsets(leader=1, epoch=2)
    assert offset_fetch(zk_cluster, 0, group, topic)[0] == ErrorCode.NOT_COORDINATOR.code
    assert offset_fetch(zk_cluster, 1, group, topic)[0] == ErrorCode.COORDINATOR_LOAD_IN_PROGRESS.code
    zk_cluster.run(lambda: release.set())
    # The new coordinator loads its replicated copy: the commit survives the move.
    assert wait_until(lambda: offset_fetch(zk_cluster, 1, group, topic)[0] == 0, "broker 1 loaded")
    assert offset_fetch(zk_cluster, 1, group, topic) == (0, 42)
    assert find_coordinator(zk_cluster, 0, group) == (0, 1)


async def _hold_next_load(cluster: Cluster, i: int) -> asyncio.Event:
    """Make broker ``i``'s next ``__consumer_offsets`` load wait for the returned event."""
    groups = cluster.broker(i).groups
    release = asyncio.Event()
    original = groups._load_partition

    async def held(partition: int) -> tuple[int, int]:
        await release.wait()
        return await original(partition)

    groups._load_partition = held
    return release


def test_update_metadata_with_leader_during_delete_removes_the_topic(
    zk_cluster: Cluster, controller: PlayedController
) -> None:
    topic, topic_id = "cp-deleting", uuid.uuid4()
    controller.lead(topic, topic_id, leader=0, epoch=0, replicas=[0])
    request = MetadataRequest(
        topics=[MetadataRequest.MetadataRequestTopic(name=topic)], allow_auto_topic_creation=False
    )
    with wire(zk_cluster, 1) as client:
        assert client.request(request, 12).topics[0].error_code == 0
    # TopicDeletionManager: UpdateMetadata with leader -2 (LeaderDuringDelete) to every broker.
    deleting = {topic: (topic_id, [(0, -2, 1, [0], [0], [])])}
    assert controller.update_metadata(1, deleting).error_code == 0
    with wire(zk_cluster, 1) as client:
        assert client.request(request, 12).topics[0].error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code
    assert zk_cluster.run(lambda: zk_cluster.broker(1).metadata_cache.get_topic_by_id(topic_id)) is None
