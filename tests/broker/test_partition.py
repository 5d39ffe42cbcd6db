"""Partition: leadership, KIP-320 epoch fencing, the high-watermark decision, reads by isolation."""

from __future__ import annotations

import pytest

from broker.partition import FollowerState, Partition
from coordinator.cluster_state import PartitionState
from protocol.errors import ErrorCode, KafkaError
from storage.log_types import FetchIsolation
from storage.producer_state import AppendOrigin
from tests.storage.batch_factory import BASE_TS, make_batch
from tests.storage.log_factory import open_log

ME, OTHER = 1, 2


def state(
    leader: int = ME, epoch: int = 0, isr=(ME,), replicas=(ME,), partition_epoch: int = 0
) -> PartitionState:
    return PartitionState("t", 0, leader, epoch, tuple(isr), tuple(replicas), partition_epoch=partition_epoch)


@pytest.fixture
def partition(tmp_path):
    plog = open_log(tmp_path)
    p = Partition(plog, local_broker_id=ME, time_ms=lambda: BASE_TS)
    yield p
    plog.close()


def append(p: Partition, n: int = 1, *, acks: int = 1):
    return p.append_records_to_leader(
        memoryview(make_batch(n, timestamp=BASE_TS)), origin=AppendOrigin.CLIENT, required_acks=acks
    )


def errors_of(fn) -> ErrorCode:
    with pytest.raises(KafkaError) as caught:
        fn()
    return caught.value.error


def test_a_new_leader_starts_its_epoch_at_the_log_end_offset(partition):
    assert partition.make_leader(state(epoch=0)) is True  # a new leader (Kafka's isNewLeader)
    append(partition, 3)
    assert partition.make_leader(state(epoch=4)) is False  # re-elected: not a new leader
    assert partition.log.leader_epoch_cache.latest_epoch == 4
    assert partition.last_offset_for_leader_epoch(0) == (0, 3)
    assert partition.last_offset_for_leader_epoch(4) == (4, 3)
    info, _ = append(partition, 2)
    assert info.base_offset == 3 and partition.log.leader_epoch_for_offset(4) == 4
    assert partition.make_leader(state(epoch=4)) is False  # the same epoch again


def test_leader_epoch_fencing_kip_320(partition):
    partition.make_leader(state(epoch=5))
    read = lambda epoch: partition.read_records(  # noqa: E731
        0, 1000, isolation=FetchIsolation.HIGH_WATERMARK, min_one_batch=True, current_leader_epoch=epoch
    )
    assert read(5).records == b"" and read(-1).records == b""
    assert errors_of(lambda: read(4)) is ErrorCode.FENCED_LEADER_EPOCH
    assert errors_of(lambda: read(6)) is ErrorCode.UNKNOWN_LEADER_EPOCH
    stamp = lambda epoch: partition.fetch_offset_for_timestamp(  # noqa: E731
        -1, isolation=FetchIsolation.HIGH_WATERMARK, current_leader_epoch=epoch
    )
    assert stamp(5).leader_epoch == 5
    assert errors_of(lambda: stamp(4)) is ErrorCode.FENCED_LEADER_EPOCH
    epoch_end = lambda current: partition.last_offset_for_leader_epoch(5, current_leader_epoch=current)  # noqa: E731
    assert errors_of(lambda: epoch_end(9)) is ErrorCode.UNKNOWN_LEADER_EPOCH
    # only -1 is "not given" (ReplicaManager.lastOffsetForLeaderEpoch, fetchOffset): -2 is
    # an epoch older than ours
    assert errors_of(lambda: epoch_end(-2)) is ErrorCode.FENCED_LEADER_EPOCH
    assert errors_of(lambda: stamp(-2)) is ErrorCode.FENCED_LEADER_EPOCH
    assert epoch_end(-1) == (5, 0)


def test_a_follower_refuses_appends_and_reads_but_fences_first(partition):
    partition.make_leader(state(epoch=0))
    append(partition)
    assert (
        partition.make_follower(state(leader=OTHER, epoch=1, isr=(OTHER, ME), replicas=(OTHER, ME))) is True
    )
    assert not partition.is_leader and partition.leader_id == OTHER
    assert errors_of(lambda: append(partition)) is ErrorCode.NOT_LEADER_OR_FOLLOWER
    read = lambda epoch: partition.read_records(  # noqa: E731
        0, 1000, isolation=FetchIsolation.HIGH_WATERMARK, min_one_batch=True, current_leader_epoch=epoch
    )
    assert errors_of(lambda: read(1)) is ErrorCode.NOT_LEADER_OR_FOLLOWER
    assert errors_of(lambda: read(0)) is ErrorCode.FENCED_LEADER_EPOCH  # epoch checked before leadership
    assert partition.active_producers() == []  # described from its own log (no producer id here)
    assert partition.maybe_increment_high_watermark() is False  # only a leader decides


def test_alone_in_the_isr_the_high_watermark_follows_every_append(partition):
    partition.make_leader(state())
    _, moved = append(partition, 4)
    assert moved and partition.log.high_watermark == partition.log.log_end_offset == 4
    assert (
        partition.bytes_below(FetchIsolation.HIGH_WATERMARK)
        == partition.bytes_below(FetchIsolation.LOG_END)
        > 0
    )


def test_the_high_watermark_is_the_smallest_log_end_offset_over_the_isr(partition):
    partition.make_leader(state(isr=(ME, OTHER), replicas=(ME, OTHER)))
    assert set(partition.follower_states) == {OTHER}
    _, moved = append(partition, 3)
    # the follower's log end offset is not known yet: nothing is committed
    assert not moved and partition.log.high_watermark == 0
    assert partition.bytes_below(FetchIsolation.HIGH_WATERMARK) == 0
    appended = partition.bytes_below(FetchIsolation.LOG_END)
    assert appended > 0
    info, _ = append(partition, 2)
    partition.follower_states[OTHER] = FollowerState(OTHER, log_end_offset=3)
    assert partition.maybe_increment_high_watermark() is True
    assert partition.log.high_watermark == 3
    assert partition.bytes_below(FetchIsolation.HIGH_WATERMARK) == appended  # the first batch only
    read = partition.read_records(0, 1 << 20, isolation=FetchIsolation.HIGH_WATERMARK, min_one_batch=True)
    assert read.high_watermark == 3 and read.log_end_offset == 5
    whole = partition.read_records(0, 1 << 20, isolation=FetchIsolation.LOG_END, min_one_batch=True)
    assert len(read.records) == appended < len(whole.records)
    assert partition.maybe_increment_high_watermark() is False
    partition.follower_states[OTHER] = FollowerState(OTHER, log_end_offset=info.last_offset + 1)
    assert partition.maybe_increment_high_watermark() and partition.log.high_watermark == 5
    # ListOffsets latest stops at the high watermark
    partition.follower_states[OTHER] = FollowerState(OTHER, log_end_offset=5)
    append(partition)
    latest = partition.fetch_offset_for_timestamp(-1, isolation=FetchIsolation.HIGH_WATERMARK)
    assert latest.offset == 5
    # ... a replica's or debugging ListOffsets (no isolation level) at the log end
    latest = partition.fetch_offset_for_timestamp(-1, isolation=FetchIsolation.LOG_END)
    assert latest.offset == 6


def test_list_offsets_without_isolation_is_never_offset_not_available_and_may_ask_a_follower(tmp_path):
    """Partition.fetchOffsetForTimestamp: OFFSET_NOT_AVAILABLE (high watermark lagging the new
    epoch's start) only for a client's request (an isolation level); a debugging request
    (fetchOnlyFromLeader false) is answered by a follower too."""
    plog = open_log(tmp_path)
    p = Partition(plog, local_broker_id=ME, time_ms=lambda: BASE_TS)
    try:
        p.make_leader(state(isr=(ME, OTHER), replicas=(ME, OTHER)))
        append(p, 3)  # the follower has not fetched it: the high watermark lags the epoch's start
        p.make_leader(state(epoch=1, isr=(ME, OTHER), replicas=(ME, OTHER)))
        append(p, 1)
        assert (
            errors_of(lambda: p.fetch_offset_for_timestamp(-1, isolation=FetchIsolation.HIGH_WATERMARK))
            is ErrorCode.OFFSET_NOT_AVAILABLE
        )
        assert p.fetch_offset_for_timestamp(-1, isolation=FetchIsolation.LOG_END).offset == 4
        p.make_follower(state(leader=OTHER, epoch=2, isr=(ME, OTHER), replicas=(ME, OTHER)))
        assert (
            errors_of(lambda: p.fetch_offset_for_timestamp(-1, isolation=FetchIsolation.LOG_END))
            is ErrorCode.NOT_LEADER_OR_FOLLOWER
        )
        found = p.fetch_offset_for_timestamp(
            -1, isolation=FetchIsolation.LOG_END, fetch_only_from_leader=False
        )
        assert found.offset == 4
    finally:
        plog.close()


def test_min_insync_replicas_applies_to_acks_all_only(tmp_path):
    plog = open_log(tmp_path, min_insync_replicas=2)
    p = Partition(plog, local_broker_id=ME, time_ms=lambda: BASE_TS)
    try:
        p.make_leader(state(isr=(ME,), replicas=(ME, OTHER)))
        with pytest.raises(KafkaError) as caught:
            append(p, acks=-1)
        assert caught.value.error is ErrorCode.NOT_ENOUGH_REPLICAS
        assert "ISR 1" in caught.value.message and "min.isr requirement of 2" in caught.value.message
        assert plog.log_end_offset == 0
        info, _ = append(p, acks=1)
        assert info.base_offset == 0
        p.make_leader(state(epoch=1, isr=(ME, OTHER), replicas=(ME, OTHER)))
        append(p, acks=-1)
        assert plog.log_end_offset == 2
        # Kafka's effectiveMinIsr: min.insync.replicas is capped at the replication factor
        p.make_leader(state(epoch=2, isr=(ME,), replicas=(ME,)))
        append(p, acks=-1)
        assert plog.log_end_offset == 3 and plog.high_watermark == 3
    finally:
        plog.close()


def test_a_duplicate_batch_counts_no_bytes(partition):
    from tests.storage.batch_factory import make_batch as mk

    partition.make_leader(state())
    batch = mk(2, timestamp=BASE_TS, producer_id=7, producer_epoch=0, base_sequence=0)
    first, _ = partition.append_records_to_leader(
        memoryview(bytearray(batch)), origin=AppendOrigin.CLIENT, required_acks=1
    )
    counted = partition.bytes_below(FetchIsolation.LOG_END)
    again, moved = partition.append_records_to_leader(
        memoryview(bytearray(batch)), origin=AppendOrigin.CLIENT, required_acks=1
    )
    assert again.duplicate and again.base_offset == first.base_offset and not moved
    assert partition.bytes_below(FetchIsolation.LOG_END) == counted


def test_a_follower_takes_the_high_watermark_before_the_log_start_offset(partition):
    # Kafka's processPartitionData: the high watermark first, then the leader's log start
    # offset, which may not pass it. In a fetch session the leader tells a moved log start
    # offset once, so one answer must move both.
    partition.make_leader(state(isr=(ME, OTHER), replicas=(ME, OTHER)))
    append(partition, 10)
    assert partition.log.high_watermark == 0  # the other replica has not fetched
    partition.make_follower(state(leader=OTHER, epoch=1, isr=(OTHER, ME), replicas=(OTHER, ME)))
    partition.update_follower_high_watermark(10, 6)
    assert (partition.log.high_watermark, partition.log.log_start_offset) == (10, 6)
    partition.update_follower_high_watermark(10, 12)  # never past the high watermark
    assert partition.log.log_start_offset == 10


def test_a_follower_describes_its_own_producers(partition):
    """Kafka's Partition.activeProducerState answers from the local log on any replica (only a
    replica without a log answers NOT_LEADER_OR_FOLLOWER): a leader demoted to follower still
    describes the producer whose batch its log holds."""
    partition.make_leader(state(epoch=0))
    batch = make_batch(2, timestamp=BASE_TS, producer_id=7, producer_epoch=3, base_sequence=0)
    partition.append_records_to_leader(memoryview(batch), origin=AppendOrigin.CLIENT, required_acks=1)
    partition.make_follower(state(leader=OTHER, epoch=1, isr=(OTHER, ME), replicas=(OTHER, ME)))
    ((producer_id, entry),) = partition.active_producers()
    assert (producer_id, entry.producer_epoch, entry.last_seq) == (7, 3, 1)


def test_a_read_committed_read_left_in_the_file_lists_only_the_aborted_transactions_it_reaches(tmp_path):
    """Kafka's LocalLog.addAbortedTransactions collects the aborted transactions below the
    offset after what was read (LogSegment.fetchUpperBoundOffset, else the next segment's
    base): a read of the first batch of a log of many segments, sent from the file, lists no
    aborted transaction that starts later (it listed every one up to the last stable offset,
    read from each segment's .txnindex)."""
    from protocol.control_records import build_end_txn_marker_batch
    from protocol.records import build_batch
    from storage.file_records import FileRecords

    plog = open_log(tmp_path, segment_bytes=45_000)
    try:
        p = Partition(plog, local_broker_id=1, time_ms=lambda: BASE_TS)
        p.make_leader(PartitionState("t", 0, 1, 0, (1,), (1,)))
        for n in range(12):  # one 20 KB batch and its marker per transaction, every other aborted
            batch = build_batch(
                [(None, b"x" * 20_000)],
                producer_id=7,
                producer_epoch=0,
                base_sequence=n,
                transactional=True,
                timestamp=BASE_TS,
            )
            p.append_records_to_leader(
                memoryview(bytearray(batch)), origin=AppendOrigin.CLIENT, required_acks=1
            )
            marker = build_end_txn_marker_batch(
                producer_id=7, producer_epoch=0, committed=n % 2 == 0, coordinator_epoch=0, timestamp=BASE_TS
            )
            p.append_records_to_leader(
                memoryview(bytearray(marker)), origin=AppendOrigin.COORDINATOR, required_acks=1
            )
        assert len(plog.segments()) >= 6
        read = p.read_records(
            0, 1, isolation=FetchIsolation.TXN_COMMITTED, min_one_batch=True, file_records=True
        )
        assert isinstance(read.records, FileRecords)
        read.records.close()
        assert read.aborted_transactions == []  # the first transaction committed
        second = p.read_records(
            2, 1, isolation=FetchIsolation.TXN_COMMITTED, min_one_batch=True, file_records=True
        )
        assert isinstance(second.records, FileRecords)
        second.records.close()
        assert [t.first_offset for t in second.aborted_transactions] == [2]
    finally:
        plog.close()
