"""PartitionLog: offsets, reads (every position, KIP-74, high watermark), rolls, retention,
log start offset, ListOffsets, leader epochs, flush from a thread, producer snapshots fsynced
off the calling thread, bad input."""

from __future__ import annotations

import os
import struct
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from kafka.record import MemoryRecords

from protocol.errors import ErrorCode, KafkaError
from protocol.record_batch import read_header
from storage.leader_epoch import EpochEndOffset
from tests.storage.batch_factory import BASE_TS, make_batch
from tests.storage.fsync_recorder import record_fsyncs
from tests.storage.log_factory import append_batches, open_log, read_all


def batch_spans(appended):
    return [(info.base_offset, info.last_offset, raw) for info, raw in appended]


# ------------------------------------------------------------------ append


def test_append_assigns_offsets_in_place_without_touching_the_crc(tmp_path):
    plog = open_log(tmp_path)
    b = make_batch(4)
    crc_before = bytes(b[17:21])
    info = plog.append_as_leader(memoryview(b), 7)
    assert (info.base_offset, info.last_offset, info.num_records, info.size) == (0, 3, 4, len(b))
    assert info.log_append_time == -1 and not info.duplicate
    h = read_header(b)
    assert (h.base_offset, h.partition_leader_epoch) == (0, 7)
    assert bytes(b[17:21]) == crc_before
    info2 = plog.append_as_leader(memoryview(make_batch(2)), 7)
    assert (info2.base_offset, info2.last_offset) == (4, 5)
    assert plog.log_end_offset == 6
    data = (plog.dir / "00000000000000000000.log").read_bytes()
    batches = []
    records = MemoryRecords(data)
    while records.has_next():
        batches.append(records.next_batch())
    assert [(x.base_offset, x.leader_epoch, x.validate_crc()) for x in batches] == [
        (0, 7, True),
        (4, 7, True),
    ]


def test_read_only_input_is_copied_not_refused(tmp_path):
    plog = open_log(tmp_path)
    info = plog.append_as_leader(memoryview(bytes(make_batch(3))), 0)
    assert info.last_offset == 2


def test_log_append_time(tmp_path):
    plog = open_log(tmp_path, message_timestamp_type="LogAppendTime")
    info = plog.append_as_leader(memoryview(make_batch(2)), 0, now_ms=BASE_TS + 999)
    assert info.log_append_time == BASE_TS + 999
    assert plog.active_segment.max_timestamp_so_far == BASE_TS + 999


@pytest.mark.parametrize(
    "mangle, code",
    [
        (lambda b: b.__setitem__(70, b[70] ^ 1), ErrorCode.CORRUPT_MESSAGE),
        (lambda b: b.__setitem__(slice(0, 8), struct.pack(">q", 5)), ErrorCode.INVALID_RECORD),
        (lambda b: b.extend(b"\x00" * 5), ErrorCode.CORRUPT_MESSAGE),
    ],
)
def test_bad_batches_are_refused_and_nothing_is_written(tmp_path, mangle, code):
    plog = open_log(tmp_path)
    append_batches(plog, [2])
    size = plog.active_segment.size
    b = make_batch(3)
    mangle(b)
    with pytest.raises(KafkaError) as exc:
        plog.append_as_leader(memoryview(b), 0)
    assert exc.value.error is code
    assert plog.log_end_offset == 2 and plog.active_segment.size == size


def test_oversized_batch_is_refused(tmp_path):
    plog = open_log(tmp_path, max_message_bytes=200)
    with pytest.raises(KafkaError) as exc:
        plog.append_as_leader(memoryview(make_batch(10, value_size=50)), 0)
    assert exc.value.error is ErrorCode.MESSAGE_TOO_LARGE
    assert plog.log_end_offset == 0


def test_write_failure_is_a_storage_error_and_keeps_the_log_consistent(tmp_path):
    plog = open_log(tmp_path)
    append_batches(plog, [1])
    seg = plog.active_segment
    os.close(seg._fd)
    seg._fd = os.open(seg.log_path, os.O_RDONLY)
    with pytest.raises(KafkaError) as exc:
        plog.append_as_leader(memoryview(make_batch(1)), 0)
    assert exc.value.error is ErrorCode.KAFKA_STORAGE_ERROR
    assert plog.log_end_offset == 1


# ------------------------------------------------------------------ read


def test_read_from_every_offset_returns_the_whole_batch_holding_it(tmp_path):
    plog = open_log(tmp_path, index_interval_bytes=100, segment_bytes=1500)
    spans = batch_spans(append_batches(plog, [3, 1, 5, 2, 7, 1, 4, 6, 2, 3, 8]))
    assert len(plog.segments()) > 1
    for i, (base, last, raw) in enumerate(spans):
        for offset in range(base, last + 1):
            one = plog.read(offset, 1)  # below any batch size: KIP-74 gives exactly one batch
            assert one.records == raw, (offset, base)
            many = plog.read(offset, 1 << 20)
            # from the batch holding offset to the end of its segment
            following = [r for b, _, r in spans[i:] if plog.segments()[0].base_offset <= b]
            assert many.records.startswith(raw)
            assert many.records == b"".join(following)[: len(many.records)]


def test_read_returns_whole_batches_within_max_bytes(tmp_path):
    plog = open_log(tmp_path, index_interval_bytes=64)
    spans = batch_spans(append_batches(plog, [2] * 30))
    sizes = [len(r) for _, _, r in spans]
    for max_bytes in range(sizes[0], sum(sizes) + 1, 13):
        data = plog.read(0, max_bytes).records
        expected = 0
        for s in sizes:
            if expected + s > max_bytes:
                break
            expected += s
        assert len(data) == expected
        assert data == b"".join(r for _, _, r in spans)[:expected]


def test_kip74_first_batch_larger_than_max_bytes(tmp_path):
    plog = open_log(tmp_path)
    spans = batch_spans(append_batches(plog, [50, 1], value_size=100))
    big = spans[0][2]
    assert plog.read(10, 100).records == big
    assert plog.read(10, 100, min_one_batch=False).records == b""


def test_read_stops_before_max_offset(tmp_path):
    plog = open_log(tmp_path)
    spans = batch_spans(append_batches(plog, [3, 3, 3]))
    plog.update_high_watermark(6)
    assert plog.read(0, 1 << 20, max_offset=6).records == spans[0][2] + spans[1][2]
    assert plog.read(6, 1 << 20, max_offset=6).records == b""
    assert plog.read(0, 1 << 20, max_offset=4).records == spans[0][2]  # batch 3..5 straddles it


def test_read_at_and_beyond_the_ends(tmp_path):
    plog = open_log(tmp_path)
    append_batches(plog, [2, 2])
    assert plog.read(4, 100).records == b""  # the log end offset: nothing yet
    for bad in (5, -1, 1000):
        with pytest.raises(KafkaError) as exc:
            plog.read(bad, 100)
        assert exc.value.error is ErrorCode.OFFSET_OUT_OF_RANGE
    plog.delete_records_before(2)
    with pytest.raises(KafkaError) as exc:
        plog.read(1, 100)
    assert exc.value.error is ErrorCode.OFFSET_OUT_OF_RANGE


def test_read_of_an_offset_at_a_segment_end_moves_to_the_next_segment(tmp_path):
    plog = open_log(tmp_path, segment_bytes=400)
    spans = batch_spans(append_batches(plog, [2] * 10))
    bases = [s.base_offset for s in plog.segments()]
    assert len(bases) > 2
    for b in bases[1:]:
        first = next(raw for base, _, raw in spans if base == b)
        assert plog.read(b, 1).records == first
    assert read_all(plog) == b"".join(r for _, _, r in spans)


# ------------------------------------------------------------------ roll


def test_roll_on_segment_bytes(tmp_path):
    plog = open_log(tmp_path, segment_bytes=500)
    spans = batch_spans(append_batches(plog, [2] * 12))
    segs = plog.segments()
    assert len(segs) > 2
    for seg in segs[:-1]:
        assert seg.size <= 500
    # Each segment begins at a batch boundary and is named after its first offset.
    starts = {base for base, _, _ in spans}
    assert all(seg.base_offset in starts for seg in segs)
    assert [p.name for p in sorted(plog.dir.glob("*.log"))] == [f"{s.base_offset:020d}.log" for s in segs]


def test_roll_on_segment_ms_by_batch_timestamps(tmp_path):
    plog = open_log(tmp_path, segment_ms=1000)
    append_batches(plog, [1], ts_start=BASE_TS)
    plog.append_as_leader(memoryview(make_batch(1, timestamp=BASE_TS + 1000)), 0, now_ms=BASE_TS)
    assert len(plog.segments()) == 1
    plog.append_as_leader(memoryview(make_batch(1, timestamp=BASE_TS + 1001)), 0, now_ms=BASE_TS)
    assert [s.base_offset for s in plog.segments()] == [0, 2]


def test_roll_on_segment_ms_honours_jitter(tmp_path):
    plog = open_log(tmp_path, segment_ms=1000, segment_jitter_ms=500)
    append_batches(plog, [1], ts_start=BASE_TS)
    jitter = plog.active_segment.rolling_jitter_ms
    assert 0 <= jitter < 500
    plog.append_as_leader(memoryview(make_batch(1, timestamp=BASE_TS + 1000 - jitter)), 0)
    assert len(plog.segments()) == 1
    plog.append_as_leader(memoryview(make_batch(1, timestamp=BASE_TS + 1001 - jitter)), 0)
    assert len(plog.segments()) == 2


def test_roll_when_the_offset_index_is_full(tmp_path):
    # 16-byte indexes hold 2 offset entries (and 1 time entry); an entry every batch.
    plog = open_log(tmp_path, segment_index_bytes=16, index_interval_bytes=0)
    append_batches(plog, [1] * 10)
    segs = plog.segments()
    assert len(segs) >= 3
    for seg in segs[:-1]:
        assert seg.index.entries <= 2


def test_roll_on_relative_offset_overflow(tmp_path):
    from protocol.record_batch import set_base_offset
    from storage.segment import LogSegment

    d = tmp_path / "t-0"
    d.mkdir()
    seg = LogSegment(d, 0, index_interval_bytes=4096, max_index_size=4096)
    b = make_batch(1)
    set_base_offset(b, 0, 2**31 - 3)
    seg.append(b, 2**31 - 3, BASE_TS)  # the last offset that still fits relative to base 0 is 2**31 - 1
    seg.close()
    plog = open_log(tmp_path, clean=False)
    assert plog.log_end_offset == 2**31 - 2
    append_batches(plog, [1])
    assert len(plog.segments()) == 1  # 2**31 - 2 fits
    plog.append_as_leader(memoryview(make_batch(2)), 0)  # its last offset 2**31 does not
    assert [s.base_offset for s in plog.segments()] == [0, 2**31 - 1]


def test_roll_takes_a_producer_snapshot_at_the_new_base(tmp_path):
    plog = open_log(tmp_path, segment_bytes=300)
    append_batches(plog, [2] * 6)
    bases = [s.base_offset for s in plog.segments()[1:]]
    snaps = sorted(int(p.name.split(".")[0]) for p in plog.dir.glob("*.snapshot"))
    assert snaps and set(snaps) <= set(bases)


# ------------------------------------------------------------------ retention and log start


def test_retention_by_time_deletes_old_segments_only(tmp_path):
    now = BASE_TS + 100_000
    plog = open_log(tmp_path, segment_bytes=400, retention_ms=50_000)
    append_batches(plog, [2] * 4, ts_start=BASE_TS, ts_step=1)  # old
    old_count = len(plog.segments())
    append_batches(plog, [2] * 4, ts_start=now - 10, ts_step=1)  # recent
    assert plog.delete_old_segments(now) >= old_count - 1
    assert all(s.largest_timestamp() >= now - 50_000 for s in plog.segments())
    assert plog.log_start_offset == plog.segments()[0].base_offset > 0
    assert not list(plog.dir.glob("*.deleted"))


def test_retention_by_time_of_every_segment_rolls_a_new_active_one(tmp_path):
    plog = open_log(tmp_path, retention_ms=1000)
    append_batches(plog, [3, 3])
    assert plog.delete_old_segments(BASE_TS + 10_000) == 1
    assert [s.base_offset for s in plog.segments()] == [6]
    assert plog.log_start_offset == plog.log_end_offset == 6
    assert plog.read(6, 100).records == b""
    append_batches(plog, [1], ts_start=BASE_TS + 10_000)
    assert plog.log_end_offset == 7


def test_retention_by_size(tmp_path):
    plog = open_log(tmp_path, segment_bytes=400, retention_bytes=900)
    append_batches(plog, [2] * 20)
    sizes = [s.size for s in plog.segments()]
    total = sum(sizes)
    deleted = plog.delete_old_segments(BASE_TS)
    # Kafka's rule: drop the oldest segments while the excess still covers them.
    excess, expect = total - 900, 0
    for s in sizes:
        if excess - s < 0:
            break
        excess -= s
        expect += 1
    assert deleted == expect > 0
    assert plog.size_in_bytes == total - sum(sizes[:expect]) >= 900


def test_retention_keeps_segments_above_the_high_watermark(tmp_path):
    plog = open_log(tmp_path, segment_bytes=400, retention_ms=1)
    append_batches(plog, [2] * 10)
    plog.update_high_watermark(0)
    assert plog.delete_old_segments(BASE_TS + 10**6) == 0
    plog.update_high_watermark(plog.segments()[1].base_offset)
    assert plog.delete_old_segments(BASE_TS + 10**6) == 1


def test_compact_only_topics_keep_their_segments(tmp_path):
    plog = open_log(tmp_path, segment_bytes=400, retention_ms=1, cleanup_policy=("compact",))
    append_batches(plog, [2] * 10)
    assert plog.delete_old_segments(BASE_TS + 10**6) == 0


def test_delete_records_moves_log_start_and_retention_removes_whole_segments(tmp_path):
    plog = open_log(tmp_path, segment_bytes=400)
    spans = batch_spans(append_batches(plog, [2] * 10))
    second = plog.segments()[1].base_offset
    assert plog.delete_records_before(second + 1) == second + 1
    assert plog.log_start_offset == second + 1
    # The batch holding the new start is still served whole.
    holder = next(raw for b, last, raw in spans if b <= second + 1 <= last)
    assert plog.read(second + 1, 1).records == holder
    assert plog.fetch_offset_by_timestamp(-2).offset == second + 1
    assert plog.delete_old_segments(BASE_TS) == 1  # the first segment is wholly below the start
    assert plog.segments()[0].base_offset == second
    assert plog.delete_records_before(3) == second + 1  # never moves backwards


def test_delete_records_bad_offsets(tmp_path):
    plog = open_log(tmp_path)
    append_batches(plog, [2, 2])
    plog.update_high_watermark(2)
    for bad in (3, -2):
        with pytest.raises(KafkaError) as exc:
            plog.delete_records_before(bad)
        assert exc.value.error is ErrorCode.OFFSET_OUT_OF_RANGE
    assert plog.delete_records_before(-1) == 2  # -1: up to the high watermark


def test_deleted_segment_files_wait_for_file_delete_delay(tmp_path):
    plog = open_log(tmp_path, segment_bytes=400, retention_ms=1, file_delete_delay_ms=60_000)
    append_batches(plog, [2] * 10)
    n = plog.delete_old_segments(BASE_TS + 10**6)
    assert n > 0
    assert len(list(plog.dir.glob("*.log.deleted"))) == n
    assert plog.purge_deleted_files(BASE_TS + 10**6 + 59_999) == 0
    assert plog.purge_deleted_files(BASE_TS + 10**6 + 60_000) == 1
    assert not list(plog.dir.glob("*.deleted"))


# ------------------------------------------------------------------ ListOffsets


def test_fetch_offset_by_timestamp(tmp_path):
    plog = open_log(tmp_path, index_interval_bytes=50, segment_bytes=600)
    # Batch i holds 3 records with timestamps T+100i, T+100i+10, T+100i+20.
    for i in range(12):
        ts = [BASE_TS + 100 * i + d for d in (0, 10, 20)]
        plog.append_as_leader(memoryview(make_batch(3, timestamps=ts, tag=i)), i // 4)
    plog.update_high_watermark(plog.log_end_offset)
    assert len(plog.segments()) > 1
    for i in range(12):
        for d, k in ((0, 0), (10, 1), (20, 2)):
            found = plog.fetch_offset_by_timestamp(BASE_TS + 100 * i + d)
            assert (found.timestamp, found.offset, found.leader_epoch) == (
                BASE_TS + 100 * i + d,
                3 * i + k,
                i // 4,
            )
        between = plog.fetch_offset_by_timestamp(BASE_TS + 100 * i + 15)
        assert (between.timestamp, between.offset) == (BASE_TS + 100 * i + 20, 3 * i + 2)
    assert plog.fetch_offset_by_timestamp(BASE_TS - 5).offset == 0
    assert plog.fetch_offset_by_timestamp(BASE_TS + 10**6) is None
    assert plog.fetch_offset_by_timestamp(-2) == (-1, 0, 0)
    assert plog.fetch_offset_by_timestamp(-1) == (-1, 36, 2)
    assert plog.fetch_offset_by_timestamp(-3) == (BASE_TS + 1120, 35, 2)


def test_max_timestamp_is_the_first_record_carrying_it(tmp_path):
    plog = open_log(tmp_path)
    plog.append_as_leader(memoryview(make_batch(3, timestamps=[BASE_TS, BASE_TS + 50, BASE_TS + 50])), 0)
    plog.append_as_leader(memoryview(make_batch(2, timestamps=[BASE_TS + 50, BASE_TS + 1])), 1)
    assert plog.fetch_offset_by_timestamp(-3) == (BASE_TS + 50, 1, 0)


def test_fetch_offset_by_timestamp_compressed(tmp_path):
    plog = open_log(tmp_path)
    for i, codec in enumerate((1, 2, 3, 4)):
        ts = [BASE_TS + 100 * i + d for d in range(5)]
        plog.append_as_leader(memoryview(make_batch(5, timestamps=ts, compression_type=codec)), 0)
    for i in range(4):
        assert plog.fetch_offset_by_timestamp(BASE_TS + 100 * i + 3).offset == 5 * i + 3


def test_list_offsets_on_an_empty_log(tmp_path):
    plog = open_log(tmp_path)
    assert plog.fetch_offset_by_timestamp(-2) == (-1, 0, -1)
    assert plog.fetch_offset_by_timestamp(-1) == (-1, 0, -1)
    assert plog.fetch_offset_by_timestamp(-3) is None
    assert plog.fetch_offset_by_timestamp(BASE_TS) is None


# ------------------------------------------------------------------ leader epochs


def test_leader_epoch_cache_and_checkpoint(tmp_path):
    plog = open_log(tmp_path)
    append_batches(plog, [2], epoch=0)
    append_batches(plog, [3], epoch=2)
    append_batches(plog, [1, 1], epoch=5)
    assert (plog.dir / "leader-epoch-checkpoint").read_bytes() == b"0\n3\n0 0\n2 2\n5 5\n"
    assert plog.end_offset_for_epoch(5) == EpochEndOffset(5, 7)
    assert plog.end_offset_for_epoch(2) == (2, 5)
    assert plog.end_offset_for_epoch(3) == (2, 5)  # unknown epoch between: previous epoch's end
    assert plog.end_offset_for_epoch(-1) == (-1, -1)
    assert plog.end_offset_for_epoch(9) == (-1, -1)
    assert [plog.leader_epoch_for_offset(o) for o in range(7)] == [0, 0, 2, 2, 2, 5, 5]
    plog.close()
    again = open_log(tmp_path)
    assert again.leader_epoch_cache.entries() == [(0, 0), (2, 2), (5, 5)]
    again.update_high_watermark(again.log_end_offset)
    again.delete_records_before(3)
    assert again.leader_epoch_cache.entries() == [(2, 3), (5, 5)]


def test_end_offset_for_an_epoch_below_all_known(tmp_path):
    plog = open_log(tmp_path)
    append_batches(plog, [2], epoch=3)
    append_batches(plog, [2], epoch=4)
    assert plog.end_offset_for_epoch(1) == (1, 0)


# ------------------------------------------------------------------ flush and views


def test_flush_from_a_thread_while_the_loop_appends(tmp_path):
    plog = open_log(tmp_path, segment_bytes=2000, retention_bytes=6000)
    stop = threading.Event()
    results = []

    def flusher():
        while not stop.is_set():
            results.append(plog.flush())

    with ThreadPoolExecutor(1) as pool:
        fut = pool.submit(flusher)
        for i in range(60):
            append_batches(plog, [3, 2], ts_start=BASE_TS + i)
            plog.delete_old_segments(BASE_TS)  # closes and renames segments under the flusher
        stop.set()
        fut.result()
    assert results and max(results) <= plog.log_end_offset
    offset = plog.flush()
    plog.mark_flushed(offset)
    assert plog.recovery_point == plog.log_end_offset
    assert plog.unflushed_messages == 0


def test_flush_due_by_messages_and_time(tmp_path):
    plog = open_log(tmp_path, flush_messages=5, flush_ms=1000)
    calls = []
    plog.on_flush_needed = calls.append
    plog.mark_flushed(plog.flush(), now_ms=BASE_TS)
    append_batches(plog, [2])
    assert not plog.flush_due(BASE_TS + 10) and not calls
    append_batches(plog, [3])
    assert plog.flush_due(BASE_TS + 10) and calls == [plog]
    plog.mark_flushed(plog.flush(), now_ms=BASE_TS + 10)
    assert not plog.flush_due(BASE_TS + 20)
    append_batches(plog, [1])
    assert plog.flush_due(BASE_TS + 1010)


def test_ids_and_names(tmp_path):
    plog = open_log(tmp_path, name="my.topic-with-dashes-12")
    assert (plog.topic, plog.partition) == ("my.topic-with-dashes", 12)
    with pytest.raises(ValueError):
        open_log(tmp_path, name="no_partition")


def test_segment_ms_without_timestamps_uses_segment_age(tmp_path):
    from storage.log_config import LogConfig
    from storage.partition_log import PartitionLog

    clock = [1_000]
    plog = PartitionLog(tmp_path / "t-0", LogConfig(segment_ms=1000), time_ms=lambda: clock[0])
    plog.append_as_leader(memoryview(make_batch(1, timestamp=-1)), 0)
    clock[0] = 2_000
    plog.append_as_leader(memoryview(make_batch(1, timestamp=-1)), 0)
    assert len(plog.segments()) == 1
    clock[0] = 2_001
    plog.append_as_leader(memoryview(make_batch(1, timestamp=-1)), 0)
    assert [s.base_offset for s in plog.segments()] == [0, 2]


# ------------------------------------------------------------------ producer snapshots at a roll


def snapshot_files(plog):
    return sorted(plog.dir.glob("*.snapshot"))


def test_a_roll_fsyncs_nothing_on_the_calling_thread_and_the_next_flush_fsyncs_its_snapshot(
    tmp_path, monkeypatch
):
    plog = open_log(tmp_path, segment_bytes=300)
    append_batches(plog, [2])  # the first append of epoch 0 writes leader-epoch-checkpoint (fsynced)
    fsyncs = record_fsyncs(monkeypatch)
    caller = threading.get_ident()
    append_batches(plog, [2] * 8, ts_start=BASE_TS + 10)
    assert len(plog.segments()) > 2
    snaps = snapshot_files(plog)
    assert snaps and plog.producer_state.has_unsynced_snapshots
    assert fsyncs.on_thread(caller) == []  # Kafka's UnifiedLog.roll: takeSnapshot(false)
    assert plog.flush_due(BASE_TS)

    with ThreadPoolExecutor(1) as pool:
        flusher = pool.submit(threading.get_ident).result()
        offset = pool.submit(plog.flush).result()
    plog.mark_flushed(offset, now_ms=BASE_TS)
    assert fsyncs.on_thread(caller) == []
    off_loop = fsyncs.on_thread(flusher)
    for snap in snaps:
        assert fsyncs.synced(snap)
    # each snapshot file before the directory that holds its name
    last_snapshot = max(off_loop.index(os.path.realpath(s)) for s in snaps)
    assert os.path.realpath(plog.dir) in off_loop[last_snapshot + 1 :]
    assert not plog.producer_state.has_unsynced_snapshots
    assert not plog.flush_due(BASE_TS)


def test_a_roll_with_nothing_unflushed_still_makes_a_flush_due_for_its_snapshot(tmp_path, monkeypatch):
    plog = open_log(tmp_path)
    append_batches(plog, [2, 3])
    plog.mark_flushed(plog.flush(), now_ms=BASE_TS)
    assert not plog.flush_due(BASE_TS)
    fsyncs = record_fsyncs(monkeypatch)
    plog.roll("retention")  # as delete_old_segments does when every segment is deletable
    (snap,) = snapshot_files(plog)
    assert snap.name == "00000000000000000005.snapshot" and not fsyncs.calls
    assert plog.flush_due(BASE_TS)
    plog.mark_flushed(plog.flush(), now_ms=BASE_TS)
    assert fsyncs.synced(snap) and not plog.flush_due(BASE_TS)


def test_a_failed_snapshot_fsync_leaves_the_recovery_point_and_is_retried(tmp_path, monkeypatch):
    # Kafka's UnifiedLogTest.testRecoveryPointNotIncrementedOnProducerStateSnapshotFlushFailure
    plog = open_log(tmp_path, segment_bytes=300)
    append_batches(plog, [2] * 6)
    assert len(plog.segments()) > 1
    fsyncs = record_fsyncs(monkeypatch)
    fsyncs.fail_if = lambda path: path.endswith(".snapshot")
    before = plog.recovery_point
    with pytest.raises(OSError):
        plog.flush()
    assert plog.recovery_point == before
    assert plog.producer_state.has_unsynced_snapshots and plog.flush_due(BASE_TS)
    fsyncs.fail_if = None
    plog.mark_flushed(plog.flush())
    assert plog.recovery_point == plog.log_end_offset
    assert all(fsyncs.synced(s) for s in snapshot_files(plog))
    assert not plog.producer_state.has_unsynced_snapshots


def test_close_fsyncs_the_snapshots_rolls_left_unsynced(tmp_path, monkeypatch):
    plog = open_log(tmp_path, segment_bytes=300)
    append_batches(plog, [2] * 6)
    fsyncs = record_fsyncs(monkeypatch)
    plog.roll("requested")  # nothing appended since: close() writes no newer snapshot
    snaps = snapshot_files(plog)
    plog.close()
    assert snapshot_files(plog) == snaps
    assert all(fsyncs.synced(s) for s in snaps)
    assert not plog.producer_state.has_unsynced_snapshots
