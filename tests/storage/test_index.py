"""OffsetIndex and TimeIndex: Kafka's layout, lookups, preallocation and trimming."""

from __future__ import annotations

import struct

import pytest

from storage.index import CorruptIndexError, IndexOffsetError, OffsetIndex, TimeIndex


def test_offset_index_layout_and_lookup(tmp_path):
    path = tmp_path / "00000000000000000100.index"
    idx = OffsetIndex(path, 100, 1024, writable=True)
    assert path.stat().st_size == 1024  # preallocated like Kafka
    for off, pos in [(105, 4200), (110, 8400), (120, 13000)]:
        idx.append(off, pos)
    assert idx.lookup(99) == (100, 0)  # below the first entry: (base, 0)
    assert idx.lookup(104) == (100, 0)
    assert idx.lookup(105) == (105, 4200)
    assert idx.lookup(119) == (110, 8400)
    assert idx.lookup(10**9) == (120, 13000)
    assert idx.lookup_by_position(8399) == (105, 4200)
    assert idx.lookup_by_position(8400) == (110, 8400)
    idx.close()
    raw = path.read_bytes()
    assert raw == struct.pack(">ii", 5, 4200) + struct.pack(">ii", 10, 8400) + struct.pack(">ii", 20, 13000)
    again = OffsetIndex(path, 100, 1024, writable=False)
    assert again.entries == 3 and again.lookup(111) == (110, 8400)


def test_offset_index_rejects_out_of_order_and_full(tmp_path):
    idx = OffsetIndex(tmp_path / "0.index", 0, 16, writable=True)
    idx.append(5, 100)
    with pytest.raises(IndexOffsetError):
        idx.append(5, 200)
    idx.append(6, 200)
    assert idx.is_full()
    with pytest.raises(IndexOffsetError):
        idx.append(7, 300)
    with pytest.raises(IndexOffsetError):
        OffsetIndex(tmp_path / "1.index", 10, 16, writable=True).append(9, 1)


def test_preallocation_rounds_down_to_whole_entries(tmp_path):
    OffsetIndex(tmp_path / "a.index", 0, 1001, writable=True)
    TimeIndex(tmp_path / "a.timeindex", 0, 1001, writable=True)
    assert (tmp_path / "a.index").stat().st_size == 1000
    assert (tmp_path / "a.timeindex").stat().st_size == 996


def test_untrimmed_index_after_crash_loads_its_real_entries(tmp_path):
    path = tmp_path / "0.index"
    idx = OffsetIndex(path, 0, 800, writable=True)
    idx.append(3, 5000)
    idx.append(9, 9000)
    idx.close_handler()  # a crash: the file keeps its preallocated zero tail
    assert path.stat().st_size == 800
    loaded = OffsetIndex(path, 0, 800, writable=False)
    assert loaded.entries == 2
    loaded.sanity_check()


def test_truncate_and_reset(tmp_path):
    path = tmp_path / "0.index"
    idx = OffsetIndex(path, 0, 800, writable=True)
    for i in range(1, 6):
        idx.append(i * 10, i * 1000)
    idx.truncate_to(30)  # drops entries with offset >= 30
    assert idx.entries == 2 and idx.lookup(1000) == (20, 2000)
    idx.close_handler()
    assert OffsetIndex(path, 0, 800, writable=False).entries == 2  # no stale entries on disk
    idx = OffsetIndex(path, 0, 800, writable=True)
    idx.reset()
    assert idx.entries == 0 and idx.lookup(50) == (0, 0)


def test_sanity_check_detects_disorder(tmp_path):
    path = tmp_path / "0.index"
    path.write_bytes(struct.pack(">iiii", 10, 500, 5, 900))
    with pytest.raises(CorruptIndexError):
        OffsetIndex(path, 0, 800, writable=False).sanity_check()
    path.write_bytes(b"\x00" * 9)
    with pytest.raises(CorruptIndexError):
        OffsetIndex(path, 0, 800, writable=False).sanity_check()


def test_time_index_only_grows(tmp_path):
    path = tmp_path / "00000000000000000050.timeindex"
    ti = TimeIndex(path, 50, 1200, writable=True)
    assert ti.last_entry() == (-1, 50)
    ti.maybe_append(-1, 51)  # NO_TIMESTAMP is never indexed
    ti.maybe_append(1000, 55)
    ti.maybe_append(1000, 58)  # same timestamp: skipped
    ti.maybe_append(2000, 60)
    with pytest.raises(IndexOffsetError):
        ti.maybe_append(3000, 59)  # offset going backwards
    with pytest.raises(IndexOffsetError):
        ti.maybe_append(1500, 70)  # timestamp going backwards
    assert ti.entries == 2
    assert ti.lookup(999) == (-1, 50)
    assert ti.lookup(1000) == (1000, 55)
    assert ti.lookup(1999) == (1000, 55)
    assert ti.lookup(5000) == (2000, 60)
    ti.close()
    assert path.read_bytes() == struct.pack(">qi", 1000, 5) + struct.pack(">qi", 2000, 10)
    loaded = TimeIndex(path, 50, 1200, writable=False)
    assert loaded.last_entry() == (2000, 60)
    loaded.sanity_check()


def test_time_index_full_check_and_skip(tmp_path):
    ti = TimeIndex(tmp_path / "0.timeindex", 0, 24, writable=True)
    ti.maybe_append(1, 1)
    ti.maybe_append(2, 2)
    assert ti.is_full()
    with pytest.raises(IndexOffsetError):
        ti.maybe_append(3, 3)
    ti.maybe_append(3, 3, skip_full_check=True)  # the final entry of an inactive segment
    assert ti.entries == 3


def test_read_only_entries_are_bounded_and_reloaded(tmp_path, monkeypatch):
    from storage import index as index_module

    cache = index_module._ReadOnlyCache(limit_bytes=3 * 80)
    monkeypatch.setattr(index_module, "READ_ONLY_CACHE", cache)
    indexes = []
    for k in range(6):
        idx = OffsetIndex(tmp_path / f"{k}.index", 0, 800, writable=True)
        for i in range(10):
            idx.append(i + 1, (i + 1) * 100 + k)
        idx.close()  # read-only now: 80 bytes of entries each
        indexes.append(idx)
    assert cache.bytes <= 3 * 80
    assert sum(1 for idx in indexes if idx._loaded) == 3
    for k, idx in enumerate(indexes):  # evicted ones read their file again
        assert idx.lookup(5) == (5, 500 + k)
        assert cache.bytes <= 3 * 80
    active = OffsetIndex(tmp_path / "active.index", 0, 800, writable=True)
    for i in range(50):
        active.append(i + 1, i + 1)
    assert active.lookup(50) == (50, 50)  # open indexes are never dropped
    assert id(active) not in cache._lru
