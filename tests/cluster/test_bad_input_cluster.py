"""Hostile input to the cluster-era APIs (CreatePartitions, StopReplica, DeleteRecords) on a
3-broker ZooKeeper-mode cluster, in-process, and CreatePartitions' limit on a lone broker.

Each test names the Kafka class/method whose behaviour it checks (or, for
``max.partitions.per.request``, Moldau's limit in docs/COMPATIBILITY.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import coordinator.zk_admin as zk_admin
from protocol.errors import ErrorCode, KafkaError
from protocol.messages import (
    CreatePartitionsRequest,
    DeleteRecordsRequest,
    FindCoordinatorRequest,
    StopReplicaRequest,
)
from tests.cluster.bad_input_requests import create_topic, leader_of, produce, topic_metadata, wire
from tests.cluster.zk_cluster_checks import controller_index
from tests.support.cluster import Cluster
from tests.support.polling import wait_until
from tests.support.zookeeper_server import zookeeper_shared  # noqa: F401

pytestmark = [pytest.mark.integration, pytest.mark.zookeeper]

PER_REQUEST = 20  # max.partitions.per.request of both clusters


@pytest.fixture(scope="module")
def zk3(zookeeper_shared, tmp_path_factory) -> Iterator[Cluster]:  # noqa: F811
    with Cluster(
        3,
        zookeeper=zookeeper_shared,
        zk_chroot="/bad_input_cluster",
        base_dir=tmp_path_factory.mktemp("bad-input-zk"),
        overrides={
            "auto.leader.rebalance.enable": "false",
            "controlled.shutdown.enable": "false",
            "offsets.topic.num.partitions": "3",
            "transaction.state.log.num.partitions": "3",
            "group.initial.rebalance.delay.ms": "0",
            "max.partitions.per.request": str(PER_REQUEST),
        },
    ) as c:
        yield c


@pytest.fixture(scope="module")
def lone(tmp_path_factory) -> Iterator[Cluster]:
    """A lone broker (embedded controller) whose max.partitions would not stop a runaway count."""
    with Cluster(
        1,
        base_dir=tmp_path_factory.mktemp("bad-input-lone"),
        overrides={"max.partitions.per.request": str(PER_REQUEST), "max.partitions": str(2**31 - 1)},
    ) as c:
        yield c


def create_partitions(cluster: Cluster, counts: dict[str, int], *, validate_only: bool) -> list[Any]:
    request = CreatePartitionsRequest(
        topics=[
            CreatePartitionsRequest.CreatePartitionsTopic(name=name, count=count, assignments=None)
            for name, count in counts.items()
        ],
        timeout_ms=5000,
        validate_only=validate_only,
    )
    with wire(cluster, controller_index(cluster)) as client:
        return client.request(request, 3).results


def limit_message(adding: int) -> str:
    return f"The request adds {adding} partitions, more than max.partitions.per.request ({PER_REQUEST})."


def test_create_partitions_with_an_absurd_count_is_refused_before_any_assignment_is_built(
    zk3: Cluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """KafkaApis.handleCreatePartitionsRequest / ZkAdminManager.createPartitions ->
    AdminZkClient.createNewPartitionsAssignment: a JVM broker bounds this by its heap (the
    OutOfMemoryError is caught by KafkaApis.handle and answered as an error). Without a bound,
    CreatePartitions(count=2**31-1) makes the controller's executor thread build a
    2-billion-entry assignment until the kernel kills the process. Moldau refuses it by
    ``max.partitions.per.request``, as CreateTopics, before the assignment is computed, with
    and without validate_only. (The guard stands in for the runaway allocation so the test
    itself stays cheap.)"""
    cluster = zk3
    create_topic(cluster, "grow", 1, 3)
    asked: list[int] = []
    real = zk_admin.assign_replicas

    def guarded(n_partitions: int, *args: Any, **kwargs: Any) -> Any:
        asked.append(n_partitions)
        if n_partitions > 1_000_000:  # would exhaust the machine's memory
            raise KafkaError(ErrorCode.UNKNOWN_SERVER_ERROR, "test guard: runaway assignment")
        return real(n_partitions, *args, **kwargs)

    monkeypatch.setattr(zk_admin, "assign_replicas", guarded)
    for validate_only in (True, False):
        (result,) = create_partitions(cluster, {"grow": 2**31 - 1}, validate_only=validate_only)
        assert (result.error_code, result.error_message) == (
            ErrorCode.POLICY_VIOLATION.code,
            limit_message(2**31 - 2),
        ), (validate_only, result)
    assert asked == [], f"assignment computed for {asked} partitions"
    # the cluster still works
    assert len(topic_metadata(cluster, controller_index(cluster), "grow").partitions) == 1
    assert produce(cluster, leader_of(cluster, "grow"), "grow", b"after").error_code == 0


def test_create_partitions_limit_counts_every_topic_of_the_request(zk3: Cluster) -> None:
    """``max.partitions.per.request`` bounds what the whole request adds, as for CreateTopics:
    two topics growing by 11 each (22 > 20) are both refused and neither grows; one alone
    goes."""
    cluster = zk3
    for name in ("sum-a", "sum-b"):
        create_topic(cluster, name, 1, 3)
    results = create_partitions(cluster, {"sum-a": 12, "sum-b": 12}, validate_only=False)
    assert [(r.name, r.error_code, r.error_message) for r in results] == [
        (name, ErrorCode.POLICY_VIOLATION.code, limit_message(22)) for name in ("sum-a", "sum-b")
    ]
    for name in ("sum-a", "sum-b"):
        assert len(topic_metadata(cluster, controller_index(cluster), name).partitions) == 1
    (alone,) = create_partitions(cluster, {"sum-a": 12}, validate_only=True)
    assert alone.error_code == 0, alone


def test_create_partitions_limit_on_a_lone_broker(lone: Cluster) -> None:
    """The embedded controller (EmbeddedTopicAdmin.create_partitions) applies the same limit,
    before ``max.partitions`` (here too large to stop anything) and before any log is made."""
    cluster = lone
    for name in ("lone-a", "lone-b"):
        create_topic(cluster, name, 1, 1)
    (absurd,) = create_partitions(cluster, {"lone-a": 2**31 - 1}, validate_only=True)
    assert (absurd.error_code, absurd.error_message) == (
        ErrorCode.POLICY_VIOLATION.code,
        limit_message(2**31 - 2),
    )
    (over,) = create_partitions(cluster, {"lone-a": PER_REQUEST + 2}, validate_only=False)
    assert (over.error_code, over.error_message) == (
        ErrorCode.POLICY_VIOLATION.code,
        limit_message(PER_REQUEST + 1),
    )
    both = create_partitions(cluster, {"lone-a": 12, "lone-b": 12}, validate_only=False)
    assert [r.error_code for r in both] == [ErrorCode.POLICY_VIOLATION.code] * 2
    for name in ("lone-a", "lone-b"):
        assert len(topic_metadata(cluster, 0, name).partitions) == 1
    assert not list(cluster.log_dir(0).glob("lone-a-1*"))
    (ok,) = create_partitions(cluster, {"lone-a": PER_REQUEST + 1}, validate_only=False)
    assert ok.error_code == 0, ok
    assert len(topic_metadata(cluster, 0, "lone-a").partitions) == PER_REQUEST + 1


def test_stop_replica_with_a_stale_broker_epoch_answers_only_the_top_level_error(zk3: Cluster) -> None:
    """KafkaApis.handleStopReplicaRequest: when isBrokerEpochStale, Kafka answers
    ``new StopReplicaResponse(new StopReplicaResponseData().setErrorCode(STALE_BROKER_EPOCH))``,
    no partition errors (only the authorization failure goes through
    StopReplicaRequest.getErrorResponse, which lists every partition). Nothing is stopped."""
    cluster = zk3
    create_topic(cluster, "stale_stop", 1, 3)
    ld = leader_of(cluster, "stale_stop")
    epoch = cluster.run(lambda: cluster.broker(ld).zookeeper.broker_epoch)
    controller_epoch = cluster.run(lambda: cluster.broker(ld).replica_manager.controller_epoch)
    request = StopReplicaRequest(
        controller_id=cluster.broker_id(controller_index(cluster)),
        controller_epoch=controller_epoch,
        broker_epoch=epoch - 1,
        topic_states=[
            StopReplicaRequest.StopReplicaTopicState(
                topic_name="stale_stop",
                partition_states=[
                    StopReplicaRequest.StopReplicaPartitionState(
                        partition_index=0, leader_epoch=-2, delete_partition=True
                    )
                ],
            )
        ],
    )
    with wire(cluster, ld) as client:
        response = client.request(request, 4)
    assert response.error_code == ErrorCode.STALE_BROKER_EPOCH.code
    assert response.partition_errors == []
    assert produce(cluster, ld, "stale_stop", b"still here").error_code == 0


def test_delete_records_of_a_missing_partition_of_an_internal_topic_is_unknown_partition(
    zk3: Cluster,
) -> None:
    """KafkaApis.handleDeleteRecordsRequest checks ``metadataCache.contains(tp)`` (else
    UNKNOWN_TOPIC_OR_PARTITION) before ReplicaManager.deleteRecordsOnLocalLog refuses an
    internal topic (INVALID_TOPIC_EXCEPTION): a partition __consumer_offsets does not have
    answers UNKNOWN_TOPIC_OR_PARTITION, an existing one INVALID_TOPIC_EXCEPTION."""
    cluster = zk3
    with wire(cluster, 0) as client:

        def coordinator_ready() -> bool:
            r = client.request(FindCoordinatorRequest(key_type=0, coordinator_keys=["g"]), 4)
            return r.coordinators[0].error_code == 0

        wait_until(coordinator_ready, "__consumer_offsets")
    partitions = len(topic_metadata(cluster, 0, "__consumer_offsets").partitions)
    request = DeleteRecordsRequest(
        topics=[
            DeleteRecordsRequest.DeleteRecordsTopic(
                name="__consumer_offsets",
                partitions=[
                    DeleteRecordsRequest.DeleteRecordsPartition(partition_index=0, offset=0),
                    DeleteRecordsRequest.DeleteRecordsPartition(partition_index=partitions + 50, offset=0),
                ],
            )
        ],
        timeout_ms=3000,
    )
    with wire(cluster, 0) as client:
        response = client.request(request, 2)
    errors = {p.partition_index: p.error_code for t in response.topics for p in t.partitions}
    assert errors[0] == ErrorCode.INVALID_TOPIC_EXCEPTION.code
    assert errors[partitions + 50] == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code
