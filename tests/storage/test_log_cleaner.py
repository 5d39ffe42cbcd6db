"""The log cleaner (storage.log_cleaner*): offset map, choice of the dirtiest log, batch
retention and rebuild, tombstone horizon, checkpoint file, and whole rounds on a PartitionLog."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from protocol import compression
from protocol.record_batch import (
    DELETE_HORIZON_MASK,
    HEADER_SIZE,
    NO_TIMESTAMP,
    is_valid_crc,
    read_header,
)
from protocol.records import build_batch, decode_all, decode_batch
from storage.cleaner import SegmentSnapshot, Throttler, group_segments_by_size
from storage.log_cleaner import LogCleaner
from storage.log_cleaner_filter import (
    OFFSET_MAP_BYTES_PER_ENTRY,
    BatchFilter,
    CleanerStats,
    OffsetMap,
)
from storage.log_cleaner_manager import (
    CLEANER_OFFSET_CHECKPOINT,
    CleanerConfig,
    LogCleanerManager,
    cleanable_offsets,
)
from storage.log_config import LogConfig
from storage.partition_log import PartitionLog

NOW = 1_700_000_000_000
DAY = 86_400_000


def compacted_log(tmp_path: Path, name: str = "t-0", **config) -> PartitionLog:
    config.setdefault("cleanup_policy", ("compact",))
    config.setdefault("segment_bytes", 2000)
    config.setdefault("file_delete_delay_ms", 0)
    config.setdefault("index_interval_bytes", 200)
    return PartitionLog(tmp_path / name, LogConfig(**config), time_ms=lambda: NOW)


def append(plog: PartitionLog, records, *, ts: int = NOW, **batch) -> tuple[int, int]:
    """Append one batch of (key, value) records; returns its (base, last) offsets."""
    raw = bytearray(build_batch(records, timestamp=ts, **batch))
    info = plog.append_as_leader(memoryview(raw), 0, now_ms=ts)
    plog.update_high_watermark(plog.log_end_offset)
    return info.base_offset, info.last_offset


def fill(plog: PartitionLog, keys: int, rounds: int, *, per_batch: int = 5, ts: int = NOW) -> None:
    """``rounds`` updates of ``keys`` keys, value ``v<round>``, ``per_batch`` records a batch."""
    for r in range(rounds):
        for k in range(0, keys, per_batch):
            append(plog, [(f"k{k + j}".encode(), f"v{r}".encode()) for j in range(per_batch)], ts=ts + r)


def read_batches(plog: PartitionLog) -> list[tuple]:
    """(header, records) of every batch from the log start to the log end."""
    out = []
    offset = plog.log_start_offset
    while offset < plog.log_end_offset:
        data = plog.read(offset, 1 << 24).records
        assert data, f"nothing at {offset}"
        for header, records in decode_all(data):
            out.append((header, records))
            offset = header.next_offset
    return out


def latest_values(plog: PartitionLog) -> dict[bytes, list[tuple[int, bytes | None]]]:
    out: dict[bytes, list[tuple[int, bytes | None]]] = {}
    for _h, records in read_batches(plog):
        for r in records:
            out.setdefault(r.key, []).append((r.offset, r.value))
    return out


def make_cleaner(logs, tmp_path: Path, *, now: int = NOW, **config) -> LogCleaner:
    return LogCleaner(CleanerConfig(**config), [tmp_path], lambda: logs, time_ms=lambda: now)


def clean_once(cleaner: LogCleaner) -> int | None:
    async def go():
        try:
            return await cleaner.clean_filthiest_log()
        finally:
            cleaner.close()

    return asyncio.run(go())


# ---------------------------------------------------------------------- offset map


def test_offset_map_keeps_the_latest_offset_and_is_bounded():
    omap = OffsetMap(10 * OFFSET_MAP_BYTES_PER_ENTRY, 0.5)
    assert omap.slots == 10 and omap.max_entries == 5
    assert omap.get(b"a") == -1 and omap.latest_offset == -1
    omap.put(b"a", 3)
    omap.put(b"b", 4)
    omap.put(b"a", 7)
    assert (omap.get(b"a"), omap.get(b"b"), len(omap), omap.latest_offset) == (7, 4, 2, 7)
    for i in range(3):
        omap.put(f"k{i}".encode(), 10 + i)
    assert omap.full
    omap.put(b"a", 20)  # an existing key is updated even when full
    with pytest.raises(ValueError):
        omap.put(b"new", 21)
    omap.clear()
    assert (len(omap), omap.get(b"a"), omap.latest_offset) == (0, -1, -1)


def test_offset_map_that_cannot_hold_one_key_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"log\.cleaner\.dedupe\.buffer\.size"):
        OffsetMap(OFFSET_MAP_BYTES_PER_ENTRY, 0.9)
    with pytest.raises(ValueError):
        make_cleaner([], tmp_path, dedupe_buffer_size=100)


# ---------------------------------------------------------------------- choosing the log


def test_cleanable_range_stops_at_the_active_segment_and_the_high_watermark(tmp_path):
    plog = compacted_log(tmp_path)
    fill(plog, 50, 6)
    bases = [s.base_offset for s in plog.segments()]
    assert len(bases) > 3
    offsets = cleanable_offsets(plog, None, NOW)
    assert (offsets.first_dirty_offset, offsets.first_uncleanable_dirty_offset) == (0, bases[-1])
    plog.update_high_watermark(bases[2] + 1)
    assert cleanable_offsets(plog, None, NOW).first_uncleanable_dirty_offset == bases[2] + 1
    # A checkpoint past the log end (or below its start) is reset to the log start.
    reset = cleanable_offsets(plog, plog.log_end_offset + 5, NOW)
    assert (reset.first_dirty_offset, reset.force_update_checkpoint) == (0, True)


def test_min_compaction_lag_keeps_young_segments_dirty(tmp_path):
    plog = compacted_log(tmp_path, min_compaction_lag_ms=1000)
    fill(plog, 50, 3, ts=NOW - 5000)
    young_base = plog.log_end_offset
    fill(plog, 50, 3, ts=NOW - 100)
    segs = plog.segments()
    first_young = next(s.base_offset for s in segs if s.largest_timestamp() > NOW - 1000)
    assert first_young <= young_base + 80
    assert cleanable_offsets(plog, None, NOW).first_uncleanable_dirty_offset == first_young


def test_the_dirtiest_log_over_the_ratio_is_chosen(tmp_path):
    a = compacted_log(tmp_path, "a-0")
    b = compacted_log(tmp_path, "b-0")
    plain = compacted_log(tmp_path, "c-0", cleanup_policy=("delete",))
    for plog in (a, b, plain):
        fill(plog, 50, 6)
    manager = LogCleanerManager([tmp_path])
    # b is half clean already: its checkpoint is in the middle.
    manager.update_checkpoint(b, b.segments()[1].base_offset)
    chosen = manager.grab_filthiest([a, b, plain], NOW)
    assert chosen is not None and chosen.log is a and chosen.cleanable_ratio == 1.0
    assert manager.is_in_progress("a", 0)
    again = manager.grab_filthiest([a, b, plain], NOW)  # a is in progress: b is next
    assert again is not None and again.log is b and 0 < again.cleanable_ratio < 1
    assert manager.grab_filthiest([a, b, plain], NOW) is None  # plain is not compacted


def test_ratio_below_min_cleanable_waits_unless_max_compaction_lag_passed(tmp_path):
    plog = compacted_log(tmp_path, min_cleanable_dirty_ratio=0.9)
    fill(plog, 50, 6, ts=NOW - 10_000)
    manager = LogCleanerManager([tmp_path])
    manager.update_checkpoint(plog, plog.segments()[2].base_offset)
    assert manager.grab_filthiest([plog], NOW) is None
    forced = compacted_log(tmp_path, "f-0", min_cleanable_dirty_ratio=0.9, max_compaction_lag_ms=1000)
    fill(forced, 50, 6, ts=NOW - 10_000)
    manager.update_checkpoint(forced, forced.segments()[2].base_offset)
    chosen = manager.grab_filthiest([plog, forced], NOW)
    assert chosen is not None and chosen.log is forced and chosen.need_compaction_now
    assert chosen.cleanable_ratio < 0.9


def test_groups_fit_one_segment(tmp_path):
    plog = compacted_log(tmp_path, segment_bytes=600)
    fill(plog, 10, 12)
    snaps = [SegmentSnapshot.of(s) for s in plog.segments()[:-1]]
    sizes = [s.size for s in snaps]
    groups = group_segments_by_size(snaps, 2 * max(sizes), 10_000, plog.segments()[-1].base_offset)
    assert [s for g in groups for s in g] == snaps
    assert all(sum(s.size for s in g) <= 2 * max(sizes) for g in groups)
    assert any(len(g) > 1 for g in groups)


# ---------------------------------------------------------------------- whole rounds


def test_a_round_keeps_the_latest_record_of_every_key(tmp_path):
    plog = compacted_log(tmp_path)
    fill(plog, 50, 10)
    active_base = plog.active_segment.base_offset
    end = plog.log_end_offset
    cleaner = make_cleaner([plog], tmp_path)
    assert clean_once(cleaner) == active_base
    assert plog.log_end_offset == end and plog.active_segment.base_offset == active_base
    values = latest_values(plog)
    assert len(values) == 50
    for key, versions in values.items():
        assert versions[-1][1] == b"v9", key
        # Below the active segment each key has one record left.
        assert len([o for o, _ in versions if o < active_base]) <= 1
    # Offsets are kept: every remaining record is where it was.
    for _h, records in read_batches(plog):
        for r in records:
            k = int(r.key[1:])
            assert r.offset % 50 == k
    # The checkpoint file, Kafka's format.
    text = (tmp_path / CLEANER_OFFSET_CHECKPOINT).read_text()
    assert text == f"0\n1\nt 0 {active_base}\n"
    # Nothing dirty is left to clean.
    assert clean_once(cleaner) is None
    # A later round merges the shrunken segments into fewer.
    fill(plog, 50, 6)
    before = len(plog.segments())
    assert clean_once(cleaner) == plog.active_segment.base_offset
    assert len(plog.segments()) < before
    assert {k: v[-1][1] for k, v in latest_values(plog).items()} == {
        f"k{i}".encode(): b"v5" for i in range(50)
    }
    assert not [p.name for p in plog.dir.iterdir() if p.name.endswith((".cleaned", ".swap", ".deleted"))]


def test_the_snapshots_of_segments_merged_away_are_deleted(tmp_path):
    """Kafka UnifiedLog.replaceSegments -> deleteProducerSnapshots: a snapshot is kept per
    segment base (every roll takes one) and goes with its segment, also when the cleaner
    merges it into another."""
    plog = compacted_log(tmp_path, segment_bytes=600)
    fill(plog, 10, 12)
    rolled = {s.base_offset for s in plog.segments()[1:]}
    assert set(plog.producer_state.snapshot_offsets()) == rolled
    cleaner = make_cleaner([plog], tmp_path)
    assert clean_once(cleaner) == plog.active_segment.base_offset
    fill(plog, 10, 12)
    before = len(plog.segments())
    assert clean_once(cleaner) == plog.active_segment.base_offset  # merges the shrunken ones
    assert len(plog.segments()) < before
    bases = {s.base_offset for s in plog.segments()[1:]}
    assert set(plog.producer_state.snapshot_offsets()) == bases
    on_disk = {int(p.name.split(".")[0]) for p in plog.dir.glob("*.snapshot")}
    assert on_disk == bases


def test_reads_through_the_indexes_after_cleaning(tmp_path):
    plog = compacted_log(tmp_path)
    fill(plog, 50, 10)
    clean_once(make_cleaner([plog], tmp_path))
    expected = {r.offset: r.value for _h, rs in read_batches(plog) for r in rs}
    for offset in sorted(expected):
        data = plog.read(offset, 1).records
        header = read_header(data)
        assert header.base_offset <= offset <= header.base_offset + header.last_offset_delta
        assert is_valid_crc(data, 0, header)
    # The rebuilt indexes also find offsets by time.
    assert plog.fetch_offset_by_timestamp(NOW + 9) is not None


def test_a_small_dedupe_buffer_cleans_in_several_rounds(tmp_path):
    plog = compacted_log(tmp_path, min_cleanable_dirty_ratio=0.0)
    fill(plog, 50, 10)
    active_base = plog.active_segment.base_offset
    cleaner = make_cleaner([plog], tmp_path, dedupe_buffer_size=45 * OFFSET_MAP_BYTES_PER_ENTRY)
    first = clean_once(cleaner)
    assert first is not None and first < active_base
    rounds = 1
    while (end := clean_once(cleaner)) is not None:
        rounds += 1
        assert rounds < 30
        if end == active_base:
            break
    assert end == active_base
    assert {k: v[-1][1] for k, v in latest_values(plog).items()} == {
        f"k{i}".encode(): b"v9" for i in range(50)
    }


def test_a_swap_is_abandoned_when_the_log_changed(tmp_path):
    plog = compacted_log(tmp_path)
    fill(plog, 50, 6)
    old = list(plog.segments()[:2])
    sizes = [s.size for s in old]
    assert not plog.replace_segments(old, [sizes[0] + 1, sizes[1]], old[0].base_offset)
    assert not plog.replace_segments([plog.active_segment], [plog.active_segment.size], 0)
    plog.delete_records_before(old[1].base_offset)
    plog.delete_old_segments(NOW)
    assert not plog.replace_segments(old, sizes, old[0].base_offset)


# ---------------------------------------------------------------------- batches


def _filter(omap_items, *, now=NOW, retention=DAY, latest=None) -> BatchFilter:
    omap = OffsetMap(1000 * OFFSET_MAP_BYTES_PER_ENTRY)
    for key, offset in omap_items:
        omap.put(key, offset)
    if latest is not None:
        omap.update_latest_offset(latest)
    return BatchFilter(omap, now, retention)


def test_a_batch_that_keeps_everything_is_copied_as_is():
    raw = build_batch([(b"a", b"1"), (b"b", b"2")], timestamp=NOW)
    out = _filter([(b"a", 0), (b"b", 1)]).apply(read_header(raw), memoryview(raw), False, CleanerStats())
    assert out == raw


def test_a_rebuilt_batch_keeps_the_producer_fields_offsets_and_codec():
    raw = bytearray(
        build_batch(
            [(b"a", b"old"), (b"b", b"keep"), (b"a", b"new")],
            timestamps=[NOW, NOW + 5, NOW + 2],
            producer_id=42,
            producer_epoch=3,
            base_sequence=17,
            compression_type=compression.GZIP,
            partition_leader_epoch=7,
        )
    )
    raw[0:8] = (100).to_bytes(8, "big")  # base offset 100: a, b, a at 100, 101, 102
    from protocol.record_batch import compute_crc

    header = read_header(raw)
    assert is_valid_crc(raw, 0, header) or compute_crc(raw, 0, header.size)
    stats = CleanerStats()
    out = _filter([(b"a", 102), (b"b", 101)]).apply(header, memoryview(raw), False, stats)
    assert out is not None and stats.batches_rebuilt == 1
    new = read_header(out)
    assert is_valid_crc(out, 0, new)
    for field in (
        "base_offset",
        "last_offset_delta",
        "partition_leader_epoch",
        "producer_id",
        "producer_epoch",
        "base_sequence",
        "attributes",
        "base_timestamp",
    ):
        assert getattr(new, field) == getattr(header, field), field
    assert new.compression == compression.GZIP and new.records_count == 2
    assert new.max_timestamp == NOW + 5
    records = decode_batch(out, new)
    assert [(r.offset, r.key, r.value, r.timestamp) for r in records] == [
        (101, b"b", b"keep", NOW + 5),
        (102, b"a", b"new", NOW + 2),
    ]


def test_an_emptied_batch_is_dropped_unless_it_must_stay():
    raw = build_batch([(b"a", b"1")], timestamp=NOW, producer_id=9, producer_epoch=1, base_sequence=4)
    header = read_header(raw)
    f = _filter([(b"a", 50)])
    assert f.apply(header, memoryview(raw), False, CleanerStats()) is None
    kept = f.apply(header, memoryview(raw), True, CleanerStats())
    assert kept is not None and len(kept) == HEADER_SIZE
    empty = read_header(kept)
    assert is_valid_crc(kept, 0, empty)
    assert (empty.records_count, empty.base_timestamp, empty.max_timestamp) == (0, NO_TIMESTAMP, NOW)
    assert (empty.producer_id, empty.producer_epoch, empty.base_sequence) == (9, 1, 4)
    assert empty.last_offset_delta == header.last_offset_delta


def test_records_past_the_map_stay():
    raw = build_batch([(b"a", b"1"), (None, b"keyless")], timestamp=NOW)
    # The map ends before this batch: both stay, even the keyless one.
    out = _filter([(b"a", 100)], latest=-1).apply(read_header(raw), memoryview(raw), False, CleanerStats())
    assert out == raw


def test_tombstones_get_a_delete_horizon_then_go(tmp_path):
    plog = compacted_log(tmp_path, delete_retention_ms=1000)
    fill(plog, 10, 3)
    append(plog, [(b"k3", None)], ts=NOW + 10)  # a tombstone for k3
    plog.roll()
    cleaner = make_cleaner([plog], tmp_path, now=NOW + 100)
    assert clean_once(cleaner) is not None
    tomb = [(h, r) for h, rs in read_batches(plog) for r in rs if r.key == b"k3"]
    assert len(tomb) == 1
    header, record = tomb[0]
    assert record.value is None and record.timestamp == NOW + 10
    assert header.attributes & DELETE_HORIZON_MASK and header.base_timestamp == NOW + 100 + 1000
    # Before the horizon a round keeps it; after, it goes.
    for i in range(20):
        append(plog, [(b"other%d" % i, b"1")], ts=NOW + 200)
    plog.roll()
    assert clean_once(make_cleaner([plog], tmp_path, now=NOW + 500)) is not None
    assert [r.offset for _h, rs in read_batches(plog) for r in rs if r.key == b"k3"] == [record.offset]
    for i in range(20):
        append(plog, [(b"other%d" % i, b"2")], ts=NOW + 300)
    plog.roll()
    assert clean_once(make_cleaner([plog], tmp_path, now=NOW + 5000)) is not None
    values = latest_values(plog)
    assert b"k3" not in values
    assert {k: v[-1][1] for k, v in values.items() if k.startswith(b"k")} == {
        f"k{i}".encode(): b"v2" for i in range(10) if i != 3
    }


def test_idempotent_producer_state_survives_cleaning_and_reload(tmp_path):
    plog = compacted_log(tmp_path)
    pid = 1000
    seq = 0
    for _ in range(12):
        append(
            plog,
            [(b"same", b"v%d" % seq), (b"same", b"w%d" % seq)],
            producer_id=pid,
            producer_epoch=0,
            base_sequence=seq,
        )
        seq += 2
    last_batch_offset = plog.log_end_offset - 1
    fill(plog, 10, 8)  # other data: the producer's last batch is now below the active segment
    cleaner = make_cleaner([plog], tmp_path)
    assert clean_once(cleaner) is not None
    producer_batches = [h for h, _ in read_batches(plog) if h.producer_id == pid]
    # The last batch of the producer stays (its sequence), emptied or not.
    assert producer_batches[-1].last_offset == last_batch_offset
    assert producer_batches[-1].base_sequence == seq - 2
    plog.close()
    reopened = PartitionLog(plog.dir, plog.config, time_ms=lambda: NOW, had_clean_shutdown=False)
    entry = reopened.producer_state.last_entry(pid)
    assert entry is not None and entry.last_seq == seq - 1
    # The next sequence is accepted; a retry of the last batch is a duplicate.
    retry = bytearray(
        build_batch(
            [(b"same", b"v"), (b"same", b"w")],
            timestamp=NOW,
            producer_id=pid,
            producer_epoch=0,
            base_sequence=seq - 2,
        )
    )
    assert reopened.append_as_leader(memoryview(retry), 0).duplicate
    nxt = bytearray(
        build_batch([(b"same", b"n")], timestamp=NOW, producer_id=pid, producer_epoch=0, base_sequence=seq)
    )
    assert not reopened.append_as_leader(memoryview(nxt), 0).duplicate
    reopened.close()


# ---------------------------------------------------------------------- throttler


def test_throttler_sleeps_to_hold_the_rate():
    now = [0.0]
    waits: list[float] = []

    class Stop(threading.Event):
        def wait(self, timeout=None):
            waits.append(timeout)
            now[0] += timeout
            return False

    throttler = Throttler(1000.0, Stop(), clock=lambda: now[0])
    now[0] = 0.5
    throttler.maybe_throttle(2000)  # 2000 bytes in 0.5 s at 1000 B/s: 1.5 s more
    assert waits == [pytest.approx(1.5)]
    unlimited = Throttler(CleanerConfig().io_max_bytes_per_second, Stop(), clock=lambda: now[0])
    now[0] += 10
    unlimited.maybe_throttle(10**12)
    assert len(waits) == 1


def test_throttler_holds_a_burst_and_flushes_before_it_sleeps():
    """A burst read faster than the 300 ms check interval is held to the rate as well, and
    the caller's ``before_sleep`` (the cleaner writing out its ``.cleaned`` file) runs first."""
    now = [0.0]
    events: list[object] = []

    class Stop(threading.Event):
        def wait(self, timeout=None):
            events.append(timeout)
            now[0] += timeout
            return False

    throttler = Throttler(1000.0, Stop(), clock=lambda: now[0])
    now[0] = 0.01
    throttler.maybe_throttle(100, lambda: events.append("flush"))  # under 300 ms' worth: no check
    assert events == []
    throttler.maybe_throttle(2900, lambda: events.append("flush"))  # 3000 bytes at once: 3 s due
    assert events == ["flush", pytest.approx(2.99)]


# ---------------------------------------------------------------------- configuration


def test_cleaner_keys_are_real_broker_keys_with_kafkas_defaults():
    from broker.config import BrokerConfig

    default = BrokerConfig({})
    config = CleanerConfig.from_broker_values(default.values)
    assert config == CleanerConfig()
    assert (config.enable, config.threads, config.dedupe_buffer_size, config.backoff_ms) == (
        True,
        1,
        128 * 1024 * 1024,
        15_000,
    )
    assert default.topic_defaults()["min.cleanable.dirty.ratio"] == 0.5
    assert default.topic_defaults()["delete.retention.ms"] == DAY
    set_ = BrokerConfig(
        {
            "log.cleaner.enable": "false",
            "log.cleaner.threads": "2",
            "log.cleaner.io.max.bytes.per.second": "1000000",
            "log.cleaner.min.cleanable.ratio": "0.2",
            "log.cleaner.max.compaction.lag.ms": "60000",
        }
    )
    assert not set_.no_effect and not set_.unknown
    got = CleanerConfig.from_broker_values(set_.values)
    assert (got.enable, got.threads, got.io_max_bytes_per_second, got.running) == (False, 2, 1e6, False)
    topic = LogConfig.from_values(set_.topic_defaults(), {"min.compaction.lag.ms": 5})
    assert (topic.min_cleanable_dirty_ratio, topic.max_compaction_lag_ms, topic.min_compaction_lag_ms) == (
        0.2,
        60_000,
        5,
    )


def test_a_log_deleted_during_a_round_only_aborts_it(tmp_path, monkeypatch):
    from storage.cleaner import Cleaner
    from storage.log_creation import rename_for_deletion

    plog = compacted_log(tmp_path)
    fill(plog, 50, 10)
    real = Cleaner.clean_group

    def deleted_first(self, *args, **kwargs):
        rename_for_deletion([plog])  # the topic is deleted while the round runs
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Cleaner, "clean_group", deleted_first)
    cleaner = make_cleaner([plog], tmp_path)
    assert clean_once(cleaner) is None
    assert not plog.dir_state.offline
    assert not cleaner.manager.in_progress and not cleaner.manager.uncleanable


def test_compact_delete_logs_are_cleaned_and_retained(tmp_path):
    plog = compacted_log(tmp_path, cleanup_policy=("compact", "delete"), retention_ms=1000)
    fill(plog, 50, 4, ts=NOW - 10_000)  # old enough for retention.ms
    old_end = plog.log_end_offset
    fill(plog, 50, 6, ts=NOW)
    cleaner = make_cleaner([plog], tmp_path)
    assert clean_once(cleaner) == plog.active_segment.base_offset
    # Retention then deletes the segments holding only old records; the next round starts
    # at the new log start (the checkpoint below it is reset quietly, as Kafka for compact,delete).
    plog.delete_old_segments(NOW)
    assert plog.log_start_offset > 0
    fill(plog, 50, 2, ts=NOW)
    assert clean_once(cleaner) == plog.active_segment.base_offset
    values = latest_values(plog)
    assert {k: v[-1][1] for k, v in values.items()} == {f"k{i}".encode(): b"v1" for i in range(50)}
    assert all(o >= old_end for versions in values.values() for o, _ in versions)


def test_retention_waits_while_a_log_is_cleaned(tmp_path):
    import uuid

    from storage.log_config import resolve_topic_defaults
    from storage.log_manager import LogManager

    lm = LogManager([tmp_path / "d"], resolve_topic_defaults({}), cleaner=CleanerConfig())
    lm.startup()
    lm.create_topic(
        "c",
        1,
        uuid.uuid4(),
        {"cleanup.policy": ["compact", "delete"], "segment.bytes": 2000, "retention.ms": 1},
    )
    plog = lm.get_log("c", 0)
    fill(plog, 50, 6, ts=NOW - 10_000)
    segments = len(plog.segments())
    lm.cleaner.manager.in_progress.add(("c", 0))
    asyncio.run(lm.background.retention_pass())
    assert len(plog.segments()) == segments
    lm.cleaner.manager.in_progress.discard(("c", 0))
    asyncio.run(lm.background.retention_pass())
    assert len(plog.segments()) < segments
    lm.shutdown()


def test_the_choice_of_a_log_lets_the_loop_go_every_few_logs(tmp_path, monkeypatch):
    """Kafka's cleaner threads choose the filthiest log (``grabFilthiestCompactedLog``) off
    the request threads; here the ratios are taken on the loop, ``CHOICE_SLICE_LOGS`` logs at a
    time, the loop let go between the slices; the choice is the one made all at once."""
    import storage.log_cleaner as log_cleaner_module

    monkeypatch.setattr(log_cleaner_module, "CHOICE_SLICE_LOGS", 2)
    logs = [compacted_log(tmp_path, f"t-{i}") for i in range(6)]
    for i, plog in enumerate(logs):
        fill(plog, keys=50, rounds=3 + i)
    cleaner = make_cleaner(logs, tmp_path)
    events: list[str] = []
    real = cleaner.manager.log_to_clean

    def recording(plog, now_ms):
        events.append(plog.name)
        return real(plog, now_ms)

    cleaner.manager.log_to_clean = recording

    async def choose():
        loop = asyncio.get_running_loop()
        done = False

        def tick() -> None:  # once per turn of the loop
            events.append("tick")
            if not done:
                loop.call_soon(tick)

        loop.call_soon(tick)
        try:
            return await cleaner._grab_filthiest()
        finally:
            done = True
            cleaner.close()

    chosen = asyncio.run(choose())
    expected = make_cleaner(logs, tmp_path).manager.grab_filthiest(logs, NOW)  # all at once
    assert chosen is not None and expected is not None and chosen.log is expected.log
    names = [e for e in events if e != "tick"]
    assert names == [plog.name for plog in logs]
    positions = [i for i, e in enumerate(events) if e != "tick"]
    # a turn of the loop between logs 2 and 3, and 4 and 5, not within a slice
    assert "tick" in events[positions[1] : positions[2]] and "tick" in events[positions[3] : positions[4]]
    assert "tick" not in events[positions[0] : positions[1]]
