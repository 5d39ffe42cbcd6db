"""LogSegment: appends, Kafka's index rule, lookups, recovery of damaged files."""

from __future__ import annotations

import os
import shutil
import struct

import pytest
from kafka.record import MemoryRecords

from protocol.record_batch import read_header, set_base_offset
from storage.segment import LogSegment, filename_prefix
from storage.segment_recovery import recover_segment
from tests.storage.batch_factory import BASE_TS, make_batch


def new_segment(directory, base=0, interval=100, max_index=4096, active=True):
    return LogSegment(directory, base, index_interval_bytes=interval, max_index_size=max_index, active=active)


def fill(seg, sizes, first_offset=None, ts_step=10):
    """Append batches of the given record counts; returns [(base, last, position, size, max_ts)]."""
    out = []
    offset = seg.base_offset if first_offset is None else first_offset
    for i, n in enumerate(sizes):
        b = make_batch(n, value_size=20, timestamp=BASE_TS + i * ts_step, tag=i)
        set_base_offset(b, 0, offset)
        h = read_header(b)
        pos = seg.size
        seg.append(b, offset + n - 1, h.max_timestamp)
        out.append((offset, offset + n - 1, pos, len(b), h.max_timestamp))
        offset += n
    return out


def expected_index(batches, interval, base):
    """Kafka's LogSegment.append rule, computed independently."""
    offset_entries, time_entries = [], []
    since = 0
    max_ts, max_ts_off = -1, base
    last_time = -1
    for b, last, pos, size, ts in batches:
        del b
        if ts > max_ts:
            max_ts, max_ts_off = ts, last
        if since > interval:
            offset_entries.append(struct.pack(">ii", last - base, pos))
            if max_ts > last_time:
                time_entries.append(struct.pack(">qi", max_ts, max_ts_off - base))
                last_time = max_ts
            since = 0
        since += size
    return b"".join(offset_entries), b"".join(time_entries), (max_ts, max_ts_off, last_time)


def test_file_names_are_20_digit_base_offsets(tmp_path):
    seg = new_segment(tmp_path, 1234)
    assert filename_prefix(1234) == "00000000000000001234"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "00000000000000001234.index",
        "00000000000000001234.log",
        "00000000000000001234.timeindex",
    ]
    seg.close()


def test_log_bytes_decode_with_kafka_python_and_indexes_follow_kafkas_rule(tmp_path):
    seg = new_segment(tmp_path, 500, interval=150)
    batches = fill(seg, [1, 3, 2, 5, 1, 4, 2, 2, 7, 1])
    seg.close()
    data = (tmp_path / "00000000000000000500.log").read_bytes()
    records = MemoryRecords(data)
    offsets = []
    while records.has_next():
        batch = records.next_batch()
        assert batch.validate_crc()
        offsets.extend(r.offset for r in batch)
    assert offsets == list(range(500, 500 + sum([1, 3, 2, 5, 1, 4, 2, 2, 7, 1])))
    index_bytes, time_bytes, (max_ts, max_off, last_time) = expected_index(batches, 150, 500)
    assert (tmp_path / "00000000000000000500.index").read_bytes() == index_bytes
    # close() adds the final time-index entry (Kafka's LogSegment.close).
    if max_ts > last_time:
        time_bytes += struct.pack(">qi", max_ts, max_off - 500)
    assert (tmp_path / "00000000000000000500.timeindex").read_bytes() == time_bytes


def test_translate_offset_from_every_offset(tmp_path):
    seg = new_segment(tmp_path, 0, interval=50)
    batches = fill(seg, [3, 1, 4, 1, 5, 9, 2, 6])
    for base, last, pos, size, _ in batches:
        for off in range(base, last + 1):
            found = seg.translate_offset(off)
            assert (found.position, found.size, found.base_offset, found.last_offset) == (
                pos,
                size,
                base,
                last,
            )
    assert seg.translate_offset(batches[-1][1] + 1) is None
    assert seg.read_next_offset() == batches[-1][1] + 1


def test_batch_boundary_at_or_before(tmp_path):
    seg = new_segment(tmp_path, 0, interval=50)
    batches = fill(seg, [2] * 20)
    ends = [pos + size for _, _, pos, size, _ in batches]
    for limit in range(0, seg.size + 1, 7):
        expected = max([e for e in ends if e <= limit], default=0)
        assert seg.batch_boundary_at_or_before(0, limit) == expected
    start = batches[5][2]
    assert seg.batch_boundary_at_or_before(start, start + 1) == start


def test_recover_rebuilds_identical_indexes(tmp_path):
    seg = new_segment(tmp_path, 0, interval=120)
    batches = fill(seg, [1, 2, 3, 4, 5, 6, 7, 8, 9])
    seg.close()
    original_index = (tmp_path / "00000000000000000000.index").read_bytes()
    original_time = (tmp_path / "00000000000000000000.timeindex").read_bytes()
    seg = new_segment(tmp_path, 0, interval=120)
    result = recover_segment(seg, min_offset=0)
    assert result.truncated_bytes == 0 and result.next_offset == batches[-1][1] + 1
    seg.close()
    assert (tmp_path / "00000000000000000000.index").read_bytes() == original_index
    assert (tmp_path / "00000000000000000000.timeindex").read_bytes() == original_time


def test_recover_truncates_at_every_byte_of_the_last_batches(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    seg = new_segment(src, 0, interval=60)
    batches = fill(seg, [2, 1, 3, 2])
    seg.close()
    log_name = "00000000000000000000.log"
    full = (src / log_name).read_bytes()
    boundaries = [pos for _, _, pos, _, _ in batches] + [len(full)]
    start = boundaries[-3]  # every cut inside the last two batches (and at their boundaries)
    for cut in range(start, len(full) + 1):
        work = tmp_path / f"cut{cut}"
        shutil.copytree(src, work)
        with open(work / log_name, "r+b") as f:
            f.truncate(cut)
        seg = new_segment(work, 0, interval=60)
        result = recover_segment(seg, min_offset=0)
        keep = max(b for b in boundaries if b <= cut)
        assert result.valid_bytes == keep
        assert seg.size == keep
        assert (work / log_name).read_bytes() == full[:keep]
        kept = [b for b in batches if b[2] + b[3] <= keep]
        assert result.next_offset == (kept[-1][1] + 1 if kept else None)
        seg.close()
        shutil.rmtree(work)


def test_recover_stops_at_a_flipped_bit(tmp_path):
    seg = new_segment(tmp_path, 0, interval=60)
    batches = fill(seg, [2, 2, 2, 2])
    seg.close()
    path = tmp_path / "00000000000000000000.log"
    data = bytearray(path.read_bytes())
    bad = batches[2]
    data[bad[2] + 70] ^= 0x10  # a record byte: covered by the CRC
    path.write_bytes(bytes(data))
    seg = new_segment(tmp_path, 0, interval=60)
    result = recover_segment(seg, min_offset=0)
    assert result.valid_bytes == bad[2]
    assert result.reason == "CRC-32C mismatch"
    assert result.next_offset == batches[1][1] + 1
    assert path.read_bytes() == bytes(data[: bad[2]])


@pytest.mark.parametrize(
    "damage",
    ["length_too_small", "magic", "offset_backwards"],
)
def test_recover_rejects_malformed_headers(tmp_path, damage):
    seg = new_segment(tmp_path, 0, interval=60)
    batches = fill(seg, [2, 2, 2])
    seg.close()
    path = tmp_path / "00000000000000000000.log"
    data = bytearray(path.read_bytes())
    pos = batches[1][2]
    if damage == "length_too_small":
        struct.pack_into(">i", data, pos + 8, 10)
    elif damage == "magic":
        data[pos + 16] = 1
    else:
        struct.pack_into(">q", data, pos, 0)  # base offset 0 again
    path.write_bytes(bytes(data))
    seg = new_segment(tmp_path, 0, interval=60)
    assert recover_segment(seg, min_offset=0).valid_bytes == pos


def test_truncate_to_removes_whole_batches(tmp_path):
    seg = new_segment(tmp_path, 0, interval=40)
    batches = fill(seg, [3, 3, 3, 3])
    removed = seg.truncate_to(7)  # inside the third batch (6..8): the batch goes whole
    assert removed == batches[2][3] + batches[3][3]
    assert seg.size == batches[2][2]
    assert seg.read_next_offset() == 6
    assert seg.max_timestamp_so_far == batches[1][4]
    fill(seg, [2], first_offset=6)
    assert seg.read_next_offset() == 8


def test_roll_conditions(tmp_path):
    seg = new_segment(tmp_path, 0, interval=4096, max_index=16)
    kw = dict(now_ms=BASE_TS, segment_bytes=1000, segment_ms=10_000)
    assert seg.should_roll(100, BASE_TS, 0, **kw) is None
    fill(seg, [1])
    assert seg.should_roll(2000, BASE_TS, 1, **kw) == "segment.bytes"
    assert seg.should_roll(10, BASE_TS + 10_001, 1, **kw) == "segment.ms"
    assert seg.should_roll(10, BASE_TS + 10_000, 1, **kw) is None
    assert seg.should_roll(10, BASE_TS, 2**31, **kw) == "relative offset overflow"
    seg.index.append(1, 10)
    seg.index.append(2, 20)
    assert seg.should_roll(10, BASE_TS, 1, **kw) == "offset index full"
    seg.close()


def test_roll_when_the_time_index_is_full(tmp_path):
    # 24-byte indexes: 3 offset entries but only 2 time entries; an entry after every batch.
    seg = new_segment(tmp_path, 0, interval=0, max_index=24)
    fill(seg, [1, 1, 1])
    assert (seg.index.entries, seg.time_index.entries) == (2, 2)
    assert not seg.index.is_full()
    assert seg.should_roll(10, BASE_TS, 3, BASE_TS, 10**6, 10**9) == "time index full"
    seg.close()


def test_segment_ms_without_timestamps_uses_creation_time(tmp_path):
    seg = LogSegment(tmp_path, 0, index_interval_bytes=4096, max_index_size=4096, created_ms=1000)
    b = make_batch(1, timestamp=-1)
    seg.append(b, 0, -1)
    kw = dict(incoming_bytes=10, max_timestamp=-1, max_offset=1, segment_bytes=10**9, segment_ms=500)
    assert seg.should_roll(now_ms=1500, **kw) is None
    assert seg.should_roll(now_ms=1501, **kw) == "segment.ms"
    seg.close()


def _append_fails(seg, last_offset):
    """An append on a descriptor that refuses writes (EBADF) fails and leaves the size as it was."""
    size = seg.size
    os.close(seg._fd)
    seg._fd = os.open(seg.log_path, os.O_RDONLY)  # writes now fail with EBADF
    with pytest.raises(OSError):
        seg.append(make_batch(1), last_offset, BASE_TS)
    assert seg.size == size


def test_failed_write_leaves_no_partial_batch(tmp_path):
    seg = new_segment(tmp_path, 0)
    fill(seg, [1])
    _append_fails(seg, 1)
    seg.close()


def _run_of(offsets_and_counts):
    """Batches back to back for ``append_run``: (data, [(size, last offset, max timestamp)])."""
    data, runs = b"", []
    for offset, n in offsets_and_counts:
        b = make_batch(n, value_size=20, timestamp=BASE_TS + offset, tag=offset)
        set_base_offset(b, 0, offset)
        data += bytes(b)
        runs.append((len(b), offset + n - 1, read_header(b).max_timestamp))
    return data, runs


def _agrees_with_the_index_path(seg, tmp_path):
    """Every offset and batch start of ``seg`` translates as a fresh segment on the same files
    (no tail: index and batch headers) translates it."""
    reference = LogSegment(
        tmp_path, seg.base_offset, index_interval_bytes=50, max_index_size=4096, active=False
    )
    assert not reference._tail
    last = seg.read_next_offset()
    starts = sorted({0, seg.size, *(b.position for b in seg.iter_batch_positions())})
    for offset in range(seg.base_offset, last + 3):
        for start in starts:
            assert seg.translate_offset(offset, start) == reference.translate_offset(offset, start), (
                offset,
                start,
            )
    reference.close()


def test_translate_offset_finds_the_last_batches_appended_without_reading_the_file(tmp_path):
    seg = new_segment(tmp_path, 0, interval=50)
    batches = fill(seg, [2] * 30)  # more than the tail holds
    seg.append_run(*_run_of([(65, 3), (70, 1), (75, 2)]))  # a follower's run, with offset gaps
    _agrees_with_the_index_path(seg, tmp_path)
    reads = []
    real_pread = seg.pread
    seg.pread = lambda position, size: reads.append(position) or real_pread(position, size)
    found = seg.translate_offset(72)  # in the gap before the last batch: that batch
    assert (found.base_offset, found.last_offset) == (75, 76)
    assert seg.translate_offset(batches[-1][0]).position == batches[-1][2]
    assert seg.translate_offset(77) is None
    assert reads == []
    assert seg.translate_offset(batches[0][0]).position == 0  # before the tail: the index path
    assert reads


def test_translate_offset_after_truncation_and_a_failed_append(tmp_path):
    seg = new_segment(tmp_path, 0, interval=50)
    fill(seg, [3] * 10)
    seg.truncate_to(25)  # inside the tail: the batch holding 25 (24..26) goes whole
    _agrees_with_the_index_path(seg, tmp_path)
    fill(seg, [2, 2], first_offset=24)
    _agrees_with_the_index_path(seg, tmp_path)
    _append_fails(seg, 28)
    seg._fd = os.open(seg.log_path, os.O_RDWR)
    _agrees_with_the_index_path(seg, tmp_path)
    seg.close()
