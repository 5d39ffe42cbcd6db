"""The byte counters a parked fetch decides from (``Partition.bytes_below``), against the log.

Kafka's ``DelayedFetch`` counts ``endOffset.positionDiff(fetchOffset)``: the bytes of the log
between two offsets. The counters must grow by exactly the bytes a move of the log end, high
watermark or last stable offset made readable, whenever those bytes were appended, and go back
when the log loses what they counted (a parked fetch then completes).
"""

from __future__ import annotations

import pytest

from broker.partition import Partition
from coordinator.cluster_state import PartitionState
from protocol.control_records import build_end_txn_marker_batch
from protocol.records import build_batch
from storage.log_types import FetchIsolation
from storage.partition_log import PartitionLog
from storage.producer_state import AppendOrigin
from tests.storage.batch_factory import BASE_TS, make_batch
from tests.storage.log_factory import open_log

ME, OTHER = 1, 2
END, HW, LSO = FetchIsolation.LOG_END, FetchIsolation.HIGH_WATERMARK, FetchIsolation.TXN_COMMITTED


def lead_alone(p: Partition) -> None:
    p.make_leader(PartitionState("t", 0, ME, 0, (ME,), (ME,)))


def follow(p: Partition) -> None:
    p.make_follower(PartitionState("t", 0, OTHER, 1, (OTHER, ME), (OTHER, ME)))


def counts(p: Partition) -> tuple[int, int, int]:
    return p.bytes_below(END), p.bytes_below(HW), p.bytes_below(LSO)


def append(p: Partition, batch: bytes, origin: AppendOrigin = AppendOrigin.CLIENT) -> int:
    info, _ = p.append_records_to_leader(memoryview(bytearray(batch)), origin=origin, required_acks=1)
    return info.size


def txn_batch(producer_id: int, seq: int = 0) -> bytes:
    return build_batch(
        [(b"k", b"v" * 300)],
        producer_id=producer_id,
        producer_epoch=0,
        base_sequence=seq,
        transactional=True,
        timestamp=BASE_TS,
    )


def commit(producer_id: int) -> bytes:
    return build_end_txn_marker_batch(
        producer_id=producer_id, producer_epoch=0, committed=True, coordinator_epoch=0, timestamp=BASE_TS
    )


@pytest.fixture
def plog(tmp_path):
    log = open_log(tmp_path)
    yield log
    log.close()


def test_read_committed_counts_the_bytes_below_the_last_stable_offset(plog):
    """TXN_COMMITTED: endOffset is the last stable offset. An open transaction holds the count
    back, later records included; a younger transaction committed first moves nothing while an
    older one is open; a COMMIT counts the records up to the next open transaction, exactly."""
    p = Partition(plog, local_broker_id=ME, time_ms=lambda: BASE_TS)
    lead_alone(p)
    plain = append(p, make_batch(2, timestamp=BASE_TS))  # offsets 0-1
    assert counts(p) == (plain, plain, plain)
    first = append(p, txn_batch(7))  # 2
    second = append(p, txn_batch(8))  # 3
    later = append(p, make_batch(1, timestamp=BASE_TS))  # 4
    below_hw = plain + first + second + later
    assert counts(p) == (below_hw, below_hw, plain)  # the LSO is the first transaction's offset
    younger = append(p, commit(8), AppendOrigin.COORDINATOR)  # 5
    below_hw += younger
    assert counts(p) == (below_hw, below_hw, plain)  # 7 is still open
    third = append(p, txn_batch(9))  # 6
    older = append(p, commit(7), AppendOrigin.COORDINATOR)  # 7
    assert plog.last_stable_offset == 6  # the third transaction's first offset
    assert counts(p) == (below_hw + third + older,) * 2 + (below_hw,)
    last = append(p, commit(9), AppendOrigin.COORDINATOR)
    everything = below_hw + third + older + last
    assert plog.last_stable_offset == plog.high_watermark == plog.log_end_offset
    assert counts(p) == (everything, everything, everything)
    assert everything == plog.size_in_bytes


def test_a_log_hosted_with_records_above_its_high_watermark_counts_them(plog):
    """The tail a log holds when hosted (a high-watermark checkpoint lagging the log end, an
    open transaction below it) is measured from the segments, so a high-watermark or last
    stable offset move over it counts its bytes, as Kafka's positions do."""
    plain = len(make_batch(2, timestamp=BASE_TS))
    plog.append_as_leader(memoryview(make_batch(2, timestamp=BASE_TS)), 0, now_ms=BASE_TS)
    txn = plog.append_as_leader(memoryview(bytearray(txn_batch(7))), 0, now_ms=BASE_TS).size
    mid = plog.log_end_offset
    tail = 0
    for _ in range(2):
        tail += plog.append_as_leader(memoryview(make_batch(3, timestamp=BASE_TS)), 0, now_ms=BASE_TS).size
    plog.update_high_watermark(mid)
    assert plog.last_stable_offset == 2  # the open transaction's first offset
    p = Partition(plog, local_broker_id=ME, time_ms=lambda: BASE_TS)
    end, hw, lso = counts(p)
    assert (end - hw, hw - lso) == (tail, txn)
    lead_alone(p)  # the high watermark moves to the log end
    assert counts(p) == (end, end, lso)
    marker = append(p, commit(7), AppendOrigin.COORDINATOR)
    assert counts(p) == (end + marker, end + marker, end + marker)
    assert end + marker - lso == plog.size_in_bytes - plain


def _leader_batches(tmp_path, n: int) -> tuple[list[bytes], PartitionLog]:
    """``n`` batches as a leader wrote them (offsets assigned), to append as a follower."""
    leader = open_log(tmp_path, name="t-1")
    out = []
    for i in range(n):
        info = leader.append_as_leader(memoryview(make_batch(2, timestamp=BASE_TS, tag=i)), 0, now_ms=BASE_TS)
        out.append(leader.read(info.base_offset, 1 << 20).records)
    return out, leader


def test_a_follower_truncating_above_its_high_watermark_keeps_the_committed_count(plog, tmp_path):
    """Truncation of a divergent tail (KIP-101/279) takes back only the appended count, to the
    bytes left; the records appended again count as any other, even when the cut fell inside
    one counted follower append."""
    batches, leader = _leader_batches(tmp_path, 6)
    p = Partition(plog, local_broker_id=ME, time_ms=lambda: BASE_TS)
    follow(p)
    p.append_records_as_follower(b"".join(batches[:2]))
    p.append_records_as_follower(b"".join(batches[2:5]))  # one append of three batches
    assert p.update_follower_high_watermark(4, 0)  # inside the second append: not counted yet
    end, hw, _ = counts(p)
    assert end == plog.size_in_bytes and hw == len(batches[0]) + len(batches[1])
    p.truncate_to(8)  # inside the second append, above the high watermark
    assert plog.log_end_offset == 8
    assert counts(p)[:2] == (plog.size_in_bytes, hw)
    p.append_records_as_follower(b"".join(batches[4:6]))
    assert p.update_follower_high_watermark(12, 0)
    assert counts(p) == (plog.size_in_bytes,) * 3
    leader.close()


def test_counters_go_back_when_the_log_loses_what_they_counted(plog, tmp_path):
    """A truncation below the high watermark, or a follower's log restarted at the leader's log
    start (the replica fetcher's truncate_fully_and_start_at), leaves every counter below any
    value it had: a fetch parked before sees its readable bytes go back and completes (Kafka's
    DelayedFetch: a fetch offset past the new end offset)."""
    batches, leader = _leader_batches(tmp_path, 6)
    p = Partition(plog, local_broker_id=ME, time_ms=lambda: BASE_TS)
    follow(p)
    for batch in batches[:4]:
        p.append_records_as_follower(batch)
    p.update_follower_high_watermark(8, 0)
    lowest = min(counts(p))
    p.truncate_to(4)  # below the high watermark
    assert plog.high_watermark == 4 and max(counts(p)) < lowest
    end, hw, lso = counts(p)
    assert end - hw == 0 and hw == lso
    p.append_records_as_follower(b"".join(batches[2:4]))
    p.update_follower_high_watermark(8, 0)
    assert counts(p) == (end + len(batches[2]) + len(batches[3]),) * 3

    lowest = min(counts(p))
    plog.truncate_fully_and_start_at(10)  # behind the partition's back
    p.append_records_as_follower(batches[5])
    assert max(counts(p)) < lowest
    end, hw, _ = counts(p)
    assert end - hw == len(batches[5])
    p.update_follower_high_watermark(12, 0)
    assert counts(p) == (end,) * 3
    leader.close()


def test_an_open_transaction_keeps_bounded_state_and_its_commit_counts_every_byte(plog):
    """Kafka's DelayedFetch compares log positions: O(1) state however long the last stable
    offset stands still. Batches keep coming above an open transaction: the counters keep at
    most MAX_ENTRIES entries (the newest moved forward), and once the COMMIT lands the
    read_committed count is the high watermark's, every byte counted."""
    from broker.partition_fetch_counters import MAX_ENTRIES

    p = Partition(plog, local_broker_id=ME, time_ms=lambda: BASE_TS)
    lead_alone(p)
    append(p, txn_batch(7))  # offset 0 holds the LSO
    for _ in range(MAX_ENTRIES * 3):
        append(p, make_batch(1, timestamp=BASE_TS))
    assert plog.last_stable_offset == 0 and plog.high_watermark == MAX_ENTRIES * 3 + 1
    assert len(p._unstable) <= MAX_ENTRIES
    end, hw, lso = counts(p)
    assert end == hw and lso == 0
    append(p, commit(7), AppendOrigin.COORDINATOR)
    after = counts(p)
    assert after[0] == after[1] == after[2] > end


def test_a_frozen_high_watermark_keeps_bounded_state_and_counts_every_byte_once_it_moves(tmp_path):
    """Kafka 3.9 keeps the high watermark still while the ISR is below min.insync.replicas and
    acks=1 produces are still appended: the counters keep at most MAX_ENTRIES entries above it,
    and when the follower catches up and the high watermark reaches the log end, the committed
    count is every byte appended."""
    from broker.partition_fetch_counters import MAX_ENTRIES

    plog = open_log(tmp_path, min_insync_replicas=2)
    try:
        p = Partition(plog, local_broker_id=ME, time_ms=lambda: BASE_TS)
        p.make_leader(PartitionState("t", 0, ME, 0, isr=(ME,), replicas=(ME, OTHER)))
        for _ in range(MAX_ENTRIES * 3):
            append(p, make_batch(1, timestamp=BASE_TS))
        assert plog.high_watermark == 0 and len(p._uncommitted) <= MAX_ENTRIES
        end = counts(p)[0]
        assert counts(p) == (end, 0, 0)
        p.make_leader(PartitionState("t", 0, ME, 0, isr=(ME, OTHER), replicas=(ME, OTHER), partition_epoch=1))
        leo = plog.log_end_offset
        p.update_follower_fetch_state(OTHER, leo, plog.log_start_offset, BASE_TS, leo)
        assert plog.high_watermark == plog.log_end_offset
        assert counts(p) == (end, end, end)
    finally:
        plog.close()
