"""The leader's ``Partition`` as Kafka's ``kafka.cluster.Partition``: what a leader re-elected in
a new epoch keeps of its followers (``makeLeader`` -> ``Replica.resetReplicaState``) and the
Fetch v12 ``lastFetchedEpoch`` check that comes before any read (``readRecords``)."""

from __future__ import annotations

import pytest

from broker.partition import Partition
from coordinator.cluster_state import PartitionState
from protocol.errors import ErrorCode, KafkaError
from storage.log_types import FetchIsolation
from storage.producer_state import AppendOrigin
from tests.storage.batch_factory import BASE_TS, make_batch
from tests.storage.log_factory import open_log

ME, F1, F2, F3 = 1, 2, 3, 4


def state(epoch: int, isr=(ME, F1, F2), replicas=(ME, F1, F2), leader: int = ME) -> PartitionState:
    return PartitionState("t", 0, leader, epoch, tuple(isr), tuple(replicas), partition_epoch=epoch)


@pytest.fixture
def partition(tmp_path):
    plog = open_log(tmp_path)
    p = Partition(plog, local_broker_id=ME, time_ms=lambda: BASE_TS)
    yield p
    plog.close()


def append(p: Partition, n: int = 1) -> None:
    p.append_records_to_leader(
        memoryview(make_batch(n, timestamp=BASE_TS)), origin=AppendOrigin.CLIENT, required_acks=-1
    )


def follower_fetch(p: Partition, replica: int, offset: int) -> None:
    p.update_follower_fetch_state(replica, offset, 0, BASE_TS, p.log.log_end_offset)


def read(p: Partition, fetch_offset: int, last_fetched_epoch: int, current_leader_epoch: int = 4):
    return p.read_records(
        fetch_offset,
        1 << 20,
        isolation=FetchIsolation.HIGH_WATERMARK,
        min_one_batch=True,
        current_leader_epoch=current_leader_epoch,
        last_fetched_epoch=last_fetched_epoch,
    )


def two_epochs(p: Partition) -> None:
    """Offsets 0-14 in epoch 3, 15-17 in epoch 4, this broker the only replica."""
    p.make_leader(state(epoch=3, isr=(ME,), replicas=(ME,)))
    append(p, 15)
    p.make_leader(state(epoch=4, isr=(ME,), replicas=(ME,)))
    append(p, 3)


# ---------------------------------------------------------------------- makeLeader


def test_a_leader_reelected_in_a_new_epoch_keeps_its_followers_log_end_offsets(partition):
    """Kafka's ``Partition.makeLeader`` -> ``Replica.resetReplicaState(isNewLeader = false)``:
    when this broker stays leader and only the leader epoch moves (ZooKeeper-mode controller
    shrinking the ISR after a broker failure, a reassignment step), each follower's log end
    offset and log start offset are kept; only a NEW leader forgets them. So the high watermark
    does not wait for every ISR follower to fetch again after such a LeaderAndIsr."""
    partition.make_leader(state(epoch=0))
    append(partition, 3)
    follower_fetch(partition, F1, 3)
    follower_fetch(partition, F2, 3)
    assert partition.log.high_watermark == 3
    append(partition, 2)  # log end 5
    follower_fetch(partition, F1, 5)  # F1 has everything, F2 holds the high watermark at 3
    assert partition.log.high_watermark == 3

    # The controller bumps the leader epoch, same leader, same ISR (e.g. a reassignment step).
    partition.make_leader(state(epoch=1))

    follower_fetch(partition, F2, 5)  # F2 catches up; F1 (caught up before) has not fetched yet
    assert partition.log.high_watermark == 5


def test_a_reelected_leader_resets_only_the_fetch_times_and_a_new_replica_starts_unknown(partition):
    """``resetReplicaState(isNewLeader = false)`` keeps the log end and log start offsets and
    resets the catch-up and last fetch times (an ISR member: now; any other: 0) and the
    leader's log end offset at the last fetch; a replica new to the assignment (a reassignment
    adding F3) starts with its log end offset unknown."""
    partition.make_leader(state(epoch=0))
    append(partition, 4)
    partition.update_follower_fetch_state(F1, 4, 1, BASE_TS - 500, 4)
    partition.update_follower_fetch_state(F2, 2, 1, BASE_TS - 500, 4)

    partition.make_leader(state(epoch=1, isr=(ME, F1), replicas=(ME, F1, F2, F3)))

    f1, f2, f3 = (partition.follower_states[r] for r in (F1, F2, F3))
    assert (f1.log_end_offset, f1.log_start_offset) == (4, 1)
    assert (f1.last_caught_up_time_ms, f1.last_fetch_time_ms, f1.last_fetch_leader_log_end_offset) == (
        BASE_TS,
        BASE_TS,
        4,
    )
    assert (f2.log_end_offset, f2.log_start_offset) == (2, 1)
    assert (f2.last_caught_up_time_ms, f2.last_fetch_time_ms) == (0, 0)  # out of the ISR
    assert f3.log_end_offset == -1 and f3.last_caught_up_time_ms == 0


def test_a_new_leader_forgets_what_an_earlier_leadership_knew_of_its_followers(partition):
    """``resetReplicaState(isNewLeader = true)``: leader, then follower, then leader again, the
    followers' log end offsets are unknown until they fetch (their logs may have been
    truncated meanwhile), and the high watermark waits for them."""
    partition.make_leader(state(epoch=0))
    append(partition, 2)
    follower_fetch(partition, F1, 2)
    follower_fetch(partition, F2, 2)
    partition.make_follower(state(epoch=1, leader=F1))
    partition.make_leader(state(epoch=2))

    assert all(f.log_end_offset == -1 for f in partition.follower_states.values())
    assert partition.follower_states[F1].last_caught_up_time_ms == BASE_TS  # in the ISR: now


# ---------------------------------------------------------------------- readRecords


def test_a_fetch_past_the_leaders_end_with_a_diverging_last_epoch_answers_the_diverging_epoch(partition):
    """Kafka's ``Partition.readRecords``: with ``lastFetchedEpoch`` (Fetch v12) the diverging
    epoch is checked before the log is read, so a fetch whose last epoch ended earlier on the
    leader is answered with ``DivergingEpoch`` (and no records) even when its fetch offset lies
    past the leader's log end offset (after an unclean election); only a fetch offset below the
    log start offset is OFFSET_OUT_OF_RANGE first. Clients (the Java consumer's truncation
    detection, a follower's ``truncateOnFetchResponse``) rely on it; OFFSET_OUT_OF_RANGE makes a
    consumer apply ``auto.offset.reset`` instead."""
    two_epochs(partition)
    assert partition.last_offset_for_leader_epoch(3) == (3, 15)

    # A reader that saw offsets up to 19 in epoch 3 (on the old, uncleanly replaced leader).
    try:
        answer = read(partition, 20, last_fetched_epoch=3)
    except KafkaError as exc:
        pytest.fail(f"answered {exc.error.name} instead of a diverging epoch")
    assert answer.diverging_epoch == (3, 15)
    assert answer.records == b""


def test_a_diverging_epoch_answer_carries_no_records(partition):
    """Kafka's ``Partition.readRecords`` returns ``FetchDataInfo.empty(fetchOffset)`` with the
    diverging epoch: the records after the divergence point are not sent."""
    two_epochs(partition)
    answer = read(partition, 16, last_fetched_epoch=3)
    assert answer.diverging_epoch == (3, 15)
    assert len(answer.records) == 0
    assert answer.log_end_offset == 18  # the offsets are answered all the same


def test_a_last_fetched_epoch_that_does_not_diverge_reads_as_usual(partition):
    """``readRecords``: no divergence (the epoch is the leader's and ends at or after the fetch
    offset) reads the records."""
    two_epochs(partition)
    answer = read(partition, 15, last_fetched_epoch=3)
    assert answer.diverging_epoch is None and len(answer.records) > 0


def test_a_last_fetched_epoch_checks_answer_offset_out_of_range_first(partition):
    """``readRecords``: an end offset the leader cannot determine for the last fetched epoch
    (an epoch above all of its own), or a fetch offset below the log start offset (whether or
    not the epochs diverge), is OFFSET_OUT_OF_RANGE."""
    two_epochs(partition)
    with pytest.raises(KafkaError) as unknown:
        read(partition, 18, last_fetched_epoch=7)
    assert unknown.value.error is ErrorCode.OFFSET_OUT_OF_RANGE
    partition.log.update_high_watermark(18)
    partition.delete_records_on_leader(10)
    with pytest.raises(KafkaError) as below_start:
        read(partition, 5, last_fetched_epoch=3)
    assert below_start.value.error is ErrorCode.OFFSET_OUT_OF_RANGE
