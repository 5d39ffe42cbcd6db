"""The leader and brokers outside a partition's replica set, as Kafka 3.9's Partition: a fetch from a
broker that is no replica is refused; an ISR member that is no replica neither holds the high
watermark back nor stays in the ISR."""

from __future__ import annotations

import uuid

import pytest

from broker.replica_manager import ReplicaManager
from coordinator.cluster_state import PartitionState
from protocol.errors import ErrorCode
from storage.log_manager import LogManager
from tests.broker.test_replica_fetcher_leader import ME, Clock, RecordingSink, produce, replica_fetch


def _leader(lm: LogManager, replicas, isr) -> ReplicaManager:
    lm.create_topic("t", 1, uuid.uuid4(), {})
    rm = ReplicaManager(ME, lm, Clock(), replica_lag_time_max_ms=10_000)
    rm.on_topics_changed({}, [PartitionState("t", 0, ME, 1, tuple(isr), tuple(replicas))])
    return rm


@pytest.mark.parametrize(("epoch", "expected"), [(1, "UNKNOWN_LEADER_EPOCH"), (-1, "NOT_LEADER_OR_FOLLOWER")])
def test_fetch_from_a_broker_that_is_no_replica_is_refused(log_manager, epoch, expected):
    """Kafka's Partition.followerReplicaOrThrow: UNKNOWN_LEADER_EPOCH when the fetch carries a
    current leader epoch, NOT_LEADER_OR_FOLLOWER otherwise; never NONE with empty records."""
    rm = _leader(log_manager, (ME, 1), (ME, 1))
    produce(rm, 2, acks=1)
    [data] = replica_fetch(rm, 7, 0, epoch=epoch)
    assert data.error is ErrorCode[expected]


def test_an_isr_member_outside_the_replicas_does_not_freeze_the_high_watermark(log_manager):
    """Between reassignment steps B3 and B4 the controller sends the leader replicas = target
    with the old ISR still naming the removed replica. Kafka's maybeIncrementLeaderHW walks the
    remote replicas only, so the high watermark follows the replicas it has."""
    rm = _leader(log_manager, (ME, 1), (ME, 1, 2))
    partition = rm.get_partition_or_error("t", 0)
    produce(rm, 3, acks=1)
    replica_fetch(rm, 1, 3)
    assert partition.log.high_watermark == 3


def test_an_isr_member_outside_the_replicas_is_shrunk_away(log_manager):
    """Kafka's getOutOfSyncReplicas: an ISR member with no replica state is out of sync."""
    rm = _leader(log_manager, (ME, 1), (ME, 1, 2))
    partition = rm.get_partition_or_error("t", 0)
    sink = RecordingSink()
    partition._isr_change_sink = sink
    replica_fetch(rm, 1, 0)
    assert partition.maybe_shrink_isr()
    assert sink.proposals == [("t", (ME, 1))]
