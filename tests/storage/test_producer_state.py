"""ProducerStateManager: Kafka's idempotence rules, one test per rule, with wrap-around and epoch bumps."""

from __future__ import annotations

import logging

import pytest

from protocol.control_records import ControlRecordType, EndTransactionMarker
from protocol.errors import ErrorCode, KafkaError
from protocol.record_batch import CONTROL_MASK, INT32_MAX, TRANSACTIONAL_MASK, BatchHeader, increment_sequence
from storage.producer_state import AppendOrigin, ProducerStateManager, in_sequence
from storage.producer_state_entry import DUPLICATE_SEARCH_BOUND, BatchMetadata

CLIENT = AppendOrigin.CLIENT
REPLICATION = AppendOrigin.REPLICATION
COORDINATOR = AppendOrigin.COORDINATOR
PID = 1000
T0 = 1_700_000_000_000


def header(
    seq: int, count: int = 1, *, epoch: int = 0, pid: int = PID, ts: int = T0, attrs: int = 0
) -> BatchHeader:
    return BatchHeader(
        base_offset=0,
        batch_length=49 + 10 * count,
        partition_leader_epoch=-1,
        magic=2,
        crc=0,
        attributes=attrs,
        last_offset_delta=count - 1,
        base_timestamp=ts,
        max_timestamp=ts,
        producer_id=pid,
        producer_epoch=epoch,
        base_sequence=seq,
        records_count=count,
    )


class Log:
    """The bit of PartitionLog that drives the producer state: check, then append at the end."""

    def __init__(self, psm: ProducerStateManager) -> None:
        self.psm = psm
        self.end = 0

    def append(
        self, h: BatchHeader, origin: AppendOrigin = CLIENT, marker: EndTransactionMarker | None = None
    ) -> BatchMetadata | int:
        """The first offset written, or the BatchMetadata of the duplicated batch."""
        dup = self.psm.check_append(h, origin, marker)
        if dup is not None:
            return dup
        first = self.end
        self.psm.update(h, first, h.max_timestamp, origin, marker)
        self.end += h.records_count
        self.psm.update_map_end_offset(self.end)
        return first


@pytest.fixture
def psm(tmp_path):
    return ProducerStateManager(tmp_path, time_ms=lambda: T0)


@pytest.fixture
def log(psm):
    return Log(psm)


def error_of(log: Log, h: BatchHeader, origin: AppendOrigin = CLIENT) -> ErrorCode:
    with pytest.raises(KafkaError) as info:
        log.append(h, origin)
    return info.value.error


# ---------------------------------------------------------------------------------- basics


def test_in_sequence_wraps_at_int32_max():
    assert in_sequence(5, 6)
    assert not in_sequence(5, 7)
    assert not in_sequence(5, 5)
    assert in_sequence(INT32_MAX, 0)
    assert not in_sequence(INT32_MAX - 1, 0)
    assert in_sequence(-1, 0)


def test_batch_metadata_first_sequence_and_offset_across_the_wrap():
    b = BatchMetadata(last_seq=2, last_offset=107, offset_delta=5, timestamp=1)
    assert b.first_seq == INT32_MAX - 2
    assert b.first_offset == 102


def test_non_idempotent_batches_skip_everything(psm, log):
    h = header(-1, 3, epoch=-1, pid=-1)
    assert log.append(h) == 0
    assert log.append(h) == 3  # the same batch again is simply appended again
    assert dict(psm.active_producers()) == {}


def test_in_sequence_batches_are_appended(log):
    assert log.append(header(0, 3)) == 0
    assert log.append(header(3, 2)) == 3
    assert log.append(header(5, 1)) == 5


# ------------------------------------------------------------------------------ duplicates


def test_retry_of_a_cached_batch_is_a_duplicate_with_its_offset_and_timestamp(psm, log):
    log.append(header(0, 3, ts=T0 + 1))
    log.append(header(3, 2, ts=T0 + 2))
    dup = log.append(header(0, 3, ts=T0 + 99))
    assert isinstance(dup, BatchMetadata)
    assert (dup.first_offset, dup.timestamp) == (0, T0 + 1)
    dup = log.append(header(3, 2))
    assert (dup.first_offset, dup.last_offset, dup.first_seq, dup.last_seq) == (3, 4, 3, 4)
    assert log.end == 5


def test_duplicate_needs_exactly_the_same_sequence_range(log):
    log.append(header(0, 3))
    log.append(header(3, 3))
    # overlapping, not equal: out of order, not a duplicate (Kafka)
    assert error_of(log, header(0, 2)) is ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER
    assert error_of(log, header(1, 3)) is ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER


def test_duplicate_needs_the_same_epoch(log):
    log.append(header(0, 3, epoch=0))
    log.append(header(0, 3, epoch=1))
    assert error_of(log, header(0, 3, epoch=0)) is ErrorCode.INVALID_PRODUCER_EPOCH


def test_duplicate_check_comes_before_the_sequence_check(log):
    log.append(header(0, 1))
    log.append(header(1, 1))
    assert isinstance(log.append(header(0, 1)), BatchMetadata)


def test_only_client_appends_are_checked_for_duplicates(psm, log):
    log.append(header(0, 3))
    assert psm.check_append(header(0, 3), COORDINATOR) is None
    assert psm.check_append(header(0, 3), REPLICATION) is None


@pytest.mark.parametrize("window", [1, 5, 8])
def test_the_window_holds_batch_window_batches(tmp_path, window):
    log = Log(ProducerStateManager(tmp_path, batch_window=window, duplicate_sequence_error=False))
    for i in range(window + 2):
        log.append(header(i, 1))
    for i in range(2, window + 2):
        assert isinstance(log.append(header(i, 1)), BatchMetadata), i
    # older than the window: Kafka's answer is OUT_OF_ORDER
    assert error_of(log, header(1, 1)) is ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER
    assert len(log.psm.last_entry(PID).batch_metadata) == window


def test_default_window_is_kafkas_five(psm):
    assert psm.batch_window == 5


def test_batch_window_below_one_is_refused(tmp_path):
    with pytest.raises(ValueError):
        ProducerStateManager(tmp_path, batch_window=0)


# --------------------------------------------------------------------------------- epochs


def test_stale_epoch_is_invalid_producer_epoch(log):
    log.append(header(0, 1, epoch=3))
    assert error_of(log, header(1, 1, epoch=2)) is ErrorCode.INVALID_PRODUCER_EPOCH
    assert error_of(log, header(1, 1, epoch=2), COORDINATOR) is ErrorCode.INVALID_PRODUCER_EPOCH


def test_stale_epoch_from_replication_only_warns(psm, log, caplog):
    log.append(header(0, 1, epoch=3))
    with caplog.at_level(logging.WARNING, logger="storage.producer_state"):
        assert log.append(header(1, 1, epoch=2), REPLICATION) == 1
    assert "smaller than the last seen epoch" in caplog.text
    assert psm.last_entry(PID).producer_epoch == 2  # as Kafka, the entry takes the batch's epoch


def test_higher_epoch_must_start_at_sequence_zero(log):
    log.append(header(0, 5, epoch=0))
    assert error_of(log, header(5, 1, epoch=1)) is ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER
    assert log.append(header(0, 2, epoch=1)) == 5


def test_new_epoch_clears_the_window(psm, log):
    log.append(header(0, 2, epoch=0))
    log.append(header(2, 2, epoch=0))
    log.append(header(0, 1, epoch=1))
    entry = psm.last_entry(PID)
    assert entry.producer_epoch == 1
    assert [b.first_seq for b in entry.batch_metadata] == [0]


def test_epoch_bump_after_wrap_restarts_at_zero(log):
    log.append(header(INT32_MAX - 1, 2, epoch=4))
    assert log.append(header(0, 1, epoch=5)) == 2


# ------------------------------------------------------------------------------ sequences


def test_gap_in_sequence_is_out_of_order(log):
    log.append(header(0, 3))
    assert error_of(log, header(4, 1)) is ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER


def test_sequence_wraps_from_int32_max_to_zero(log):
    log.append(header(INT32_MAX - 2, 3))  # last sequence INT32_MAX
    assert log.append(header(0, 2)) == 3
    assert error_of(log, header(3, 1)) is ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER


def test_batch_spanning_the_wrap_is_in_sequence_and_deduplicated(log):
    log.append(header(INT32_MAX - 9, 5))
    spanning = header(INT32_MAX - 4, 10)  # sequences INT32_MAX-4 .. 4
    assert log.append(spanning) == 5
    assert log.append(header(5, 1)) == 15
    dup = log.append(spanning)
    assert isinstance(dup, BatchMetadata)
    assert (dup.first_seq, dup.last_seq, dup.first_offset) == (INT32_MAX - 4, 4, 5)


@pytest.mark.parametrize("seq", [0, 17, INT32_MAX])
def test_producer_without_state_is_accepted_at_any_sequence(log, seq):
    assert log.append(header(seq, 1, epoch=7)) == 0


def test_expired_producer_is_accepted_at_any_sequence(tmp_path):
    now = [T0]
    psm = ProducerStateManager(tmp_path, producer_id_expiration_ms=1000, time_ms=lambda: now[0])
    log = Log(psm)
    log.append(header(0, 3, ts=T0))
    psm.remove_expired_producers(T0 + 999)
    assert psm.last_entry(PID) is not None
    psm.remove_expired_producers(T0 + 1000)
    assert psm.last_entry(PID) is None
    assert log.append(header(42, 1)) == 3


def test_producer_with_open_transaction_does_not_expire(psm, log):
    log.append(header(0, 1, attrs=TRANSACTIONAL_MASK))
    assert psm.last_entry(PID).current_txn_first_offset == 0
    psm.remove_expired_producers(T0 + 10 * 86_400_000)
    assert psm.last_entry(PID) is not None


def test_expiry_uses_the_last_batch_timestamp(psm, log):
    log.append(header(0, 1, ts=T0))
    log.append(header(1, 1, ts=T0 + 5000))
    psm.remove_expired_producers(T0 + 86_400_000 + 4999)
    assert psm.last_entry(PID) is not None
    psm.remove_expired_producers(T0 + 86_400_000 + 5000)
    assert psm.last_entry(PID) is None


def test_replication_skips_sequence_validation(psm, log):
    log.append(header(0, 1))
    assert log.append(header(10, 1), REPLICATION) == 1
    assert psm.last_entry(PID).last_seq == 10


def test_coordinator_appends_skip_sequence_validation(log):
    log.append(header(0, 1))
    assert log.append(header(10, 1), COORDINATOR) == 1


def test_non_transactional_batch_while_transaction_open_is_invalid_txn_state(log):
    log.append(header(0, 1, attrs=TRANSACTIONAL_MASK))
    assert error_of(log, header(1, 1)) is ErrorCode.INVALID_TXN_STATE
    assert log.append(header(1, 1, attrs=TRANSACTIONAL_MASK)) == 1


def test_end_transaction_marker_closes_the_transaction(psm, log):
    log.append(header(0, 1, attrs=TRANSACTIONAL_MASK))
    marker = header(-1, 1, attrs=TRANSACTIONAL_MASK | CONTROL_MASK, ts=T0 + 7)
    log.append(marker, COORDINATOR, EndTransactionMarker(ControlRecordType.COMMIT, 0))
    entry = psm.last_entry(PID)
    assert entry.current_txn_first_offset == -1
    assert entry.last_seq == 0  # markers add no batch metadata
    assert entry.last_timestamp == T0 + 7


# ---------------------------------------------- DUPLICATE_SEQUENCE_NUMBER (the improvement)


def fill(log: Log, start: int, batches: int, size: int = 2, epoch: int = 0) -> int:
    seq = start
    for _ in range(batches):
        log.append(header(seq, size, epoch=epoch))
        seq = increment_sequence(seq, size)
    return seq


def test_batch_before_the_window_is_duplicate_sequence_number(log):
    fill(log, 0, 8)  # sequences 0..15, window holds 6..15
    assert error_of(log, header(0, 2)) is ErrorCode.DUPLICATE_SEQUENCE_NUMBER
    assert error_of(log, header(4, 2)) is ErrorCode.DUPLICATE_SEQUENCE_NUMBER
    assert (
        error_of(log, header(2, 3)) is ErrorCode.DUPLICATE_SEQUENCE_NUMBER
    )  # other boundaries, same records
    assert log.end == 16


def test_with_the_flag_off_it_is_kafkas_out_of_order(tmp_path):
    log = Log(ProducerStateManager(tmp_path, duplicate_sequence_error=False))
    fill(log, 0, 8)
    assert error_of(log, header(0, 2)) is ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER


def test_batch_straddling_the_oldest_cached_batch_is_out_of_order(log):
    fill(log, 0, 8)  # oldest cached batch starts at 6
    assert error_of(log, header(5, 2)) is ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER


def test_gap_after_the_last_sequence_stays_out_of_order(log):
    fill(log, 0, 8)
    assert error_of(log, header(17, 1)) is ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER
    assert error_of(log, header(1_000_000, 1)) is ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER


def test_nothing_before_the_first_batch_of_an_epoch_is_a_duplicate(log):
    fill(log, 0, 8, epoch=0)
    fill(log, 0, 6, epoch=1)  # epoch 1: sequences 0..11, window 2..11
    assert error_of(log, header(0, 2, epoch=1)) is ErrorCode.DUPLICATE_SEQUENCE_NUMBER
    # sequences "before 0" (the top of the space) were never written in epoch 1
    assert error_of(log, header(INT32_MAX - 1, 2, epoch=1)) is ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER


def test_producer_first_seen_mid_stream_claims_nothing_before_it(log):
    fill(log, 100, 8)  # accepted without state at 100: sequences below 100 are unknown here
    assert error_of(log, header(102, 2)) is ErrorCode.DUPLICATE_SEQUENCE_NUMBER
    assert error_of(log, header(98, 2)) is ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER


def test_duplicate_detection_across_the_sequence_wrap(log):
    start = INT32_MAX - 7  # 8 batches of 2: INT32_MAX-7 .. 7, window holds 2 .. 11 after 2 more
    end = fill(log, start, 10)
    assert end == 12
    assert error_of(log, header(INT32_MAX - 7, 2)) is ErrorCode.DUPLICATE_SEQUENCE_NUMBER
    assert error_of(log, header(INT32_MAX - 1, 4)) is ErrorCode.DUPLICATE_SEQUENCE_NUMBER  # spans the wrap
    assert error_of(log, header(0, 2)) is ErrorCode.DUPLICATE_SEQUENCE_NUMBER
    assert error_of(log, header(INT32_MAX - 9, 2)) is ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER  # before the run


def test_duplicate_search_is_bounded_by_half_the_sequence_space(psm, log):
    log.append(header(0, 1))
    entry = psm.last_entry(PID)
    # a producer that wrote almost the whole space in this epoch
    entry.run_length = 2**31
    entry.batch_metadata.clear()
    entry.batch_metadata.append(BatchMetadata(last_seq=10, last_offset=0, offset_delta=0, timestamp=T0))
    assert entry.is_certain_duplicate(10 - DUPLICATE_SEARCH_BOUND, 9)
    assert not entry.is_certain_duplicate(10 - DUPLICATE_SEARCH_BOUND - 1, 9)
    assert not entry.is_certain_duplicate(12, 12)  # after the last sequence: a gap


def test_stale_epoch_wins_over_duplicate_sequence(log):
    fill(log, 0, 8, epoch=1)
    assert error_of(log, header(0, 2, epoch=0)) is ErrorCode.INVALID_PRODUCER_EPOCH


# ----------------------------------------------------------------------- DescribeProducers


def test_active_producers_carry_describe_producers_fields(psm, log):
    log.append(header(0, 3, epoch=2, ts=T0 + 5))
    log.append(header(0, 1, epoch=0, pid=7, ts=T0 + 9, attrs=TRANSACTIONAL_MASK))
    producers = psm.active_producers()
    assert set(producers) == {PID, 7}
    a, b = producers[PID], producers[7]
    assert (
        a.producer_epoch,
        a.last_seq,
        a.last_timestamp,
        a.coordinator_epoch,
        a.current_txn_first_offset,
    ) == (
        2,
        2,
        T0 + 5,
        -1,
        -1,
    )
    assert (b.last_seq, b.last_timestamp, b.current_txn_first_offset) == (0, T0 + 9, 3)
    with pytest.raises(TypeError):
        producers[5] = a  # read-only view
