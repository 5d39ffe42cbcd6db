"""Partition reassignment APIs on a lone broker (no ZooKeeper): a one-broker Kafka cluster.

kafka-python's admin client (confluent-kafka has no reassignment API) asks the broker,
which answers as Kafka's controller of a one-broker cluster: a move to this broker
completes at once, another broker id is not alive (INVALID_REPLICA_ASSIGNMENT), nothing
is ever in progress to list or cancel. The ReplicaAssignment arithmetic (RS = TRS + ORS)
and the ``/admin/reassign_partitions`` JSON are checked directly.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from kafka import TopicPartition
from kafka.admin import KafkaAdminClient
from kafka.errors import (
    InvalidReplicationAssignmentError,
    NoReassignmentInProgressError,
    UnknownTopicOrPartitionError,
)

from broker.testing.embedded import InProcessBroker
from coordinator import zk_data as zd
from coordinator.zk_election import ReplicaAssignment
from protocol.messages import AlterPartitionReassignmentsRequest
from tests.support.wire_client import WireClient


@pytest.fixture(scope="module")
def kafka(tmp_path_factory) -> Iterator[InProcessBroker]:
    with InProcessBroker(tmp_path_factory.mktemp("reassign")) as broker:
        broker.create_topic("solo", partitions=2)
        yield broker


def test_a_lone_broker_answers_as_a_one_broker_kafka_cluster(kafka: InProcessBroker) -> None:
    admin = KafkaAdminClient(bootstrap_servers=kafka.bootstrap_servers)
    try:
        results = admin.alter_partition_reassignments(
            {
                TopicPartition("solo", 0): [0],  # already there: completes at once
                TopicPartition("solo", 1): [0, 3],  # broker 3 does not exist
                TopicPartition("missing", 0): [0],
            }
        )
        assert results == {
            TopicPartition("solo", 0): None,
            TopicPartition("solo", 1): InvalidReplicationAssignmentError,
            TopicPartition("missing", 0): UnknownTopicOrPartitionError,
        }
        assert admin.alter_partition_reassignments({TopicPartition("solo", 0): None}) == {
            TopicPartition("solo", 0): NoReassignmentInProgressError
        }
        assert admin.list_partition_reassignments() == {}
        assert admin.list_partition_reassignments([TopicPartition("solo", 0)]) == {}
    finally:
        admin.close()


def test_the_refusals_carry_kafkas_messages(kafka: InProcessBroker) -> None:
    request = AlterPartitionReassignmentsRequest(
        topics=[
            AlterPartitionReassignmentsRequest.ReassignableTopic(
                name="solo",
                partitions=[
                    AlterPartitionReassignmentsRequest.ReassignablePartition(partition_index=0, replicas=[]),
                    AlterPartitionReassignmentsRequest.ReassignablePartition(
                        partition_index=1, replicas=[0, 3]
                    ),
                ],
            )
        ]
    )
    with WireClient("127.0.0.1", kafka.port) as client:
        answer = client.request(request, 0)
    assert answer.error_code == 0 and answer.error_message is None
    assert [(p.error_code, p.error_message) for p in answer.responses[0].partitions] == [
        (39, "Empty replica list specified in partition reassignment."),
        (
            39,
            "Replica assignment has brokers that are not alive. Replica list: ArrayBuffer(3), live broker list: Set(0)",
        ),
    ]


def test_replica_assignment_arithmetic_is_kafkas() -> None:
    moving = ReplicaAssignment((0, 1)).reassign_to([1, 2])
    assert moving == ReplicaAssignment((1, 2, 0), adding=(2,), removing=(0,))
    assert (moving.origin, moving.target, moving.being_reassigned) == ((1, 0), (1, 2), True)
    # a new target supersedes the move: ORS stays the original replicas
    again = moving.reassign_to([3, 4])
    assert again == ReplicaAssignment((3, 4, 1, 0), adding=(3, 4), removing=(1, 0))
    # cancelling: back to ORS (in RS order)
    assert moving.reassign_to(moving.origin) == ReplicaAssignment((1, 0))
    assert not ReplicaAssignment((0, 1)).reassign_to([0, 1]).being_reassigned


def test_the_legacy_reassignment_znode_json() -> None:
    data = zd.encode_reassignment({("t", 0): [2, 1], ("u", 3): [0]})
    assert data == (
        b'{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[2,1]},'
        b'{"topic":"u","partition":3,"replicas":[0]}]}'
    )
    assert zd.decode_reassignment(data) == {("t", 0): (2, 1), ("u", 3): (0,)}
    with_dirs = b'{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1],"log_dirs":["any"]}]}'
    assert zd.decode_reassignment(with_dirs) == {("t", 0): (1,)}
    with pytest.raises(ValueError):
        zd.decode_reassignment(b'{"version":1,"partitions":[{"topic":"t"}]}')


def test_a_cancellation_carries_kafkas_default_message(kafka: InProcessBroker) -> None:
    """``new ApiError(Errors.NO_REASSIGNMENT_IN_PROGRESS)``: the error's default message."""
    request = AlterPartitionReassignmentsRequest(
        topics=[
            AlterPartitionReassignmentsRequest.ReassignableTopic(
                name="solo",
                partitions=[
                    AlterPartitionReassignmentsRequest.ReassignablePartition(partition_index=0, replicas=None)
                ],
            )
        ]
    )
    with WireClient("127.0.0.1", kafka.port) as client:
        answer = client.request(request, 0)
    assert [(p.error_code, p.error_message) for p in answer.responses[0].partitions] == [
        (85, "No partition reassignment is in progress.")
    ]
