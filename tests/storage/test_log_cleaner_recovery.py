"""Crash states of the cleaner's swap, each recovered at load (Kafka's LogLoader rules), and
the cleaner running as a LogManager background task."""

from __future__ import annotations

import asyncio
import os
import threading
import time
import uuid
from pathlib import Path

import pytest

from protocol.records import build_batch, decode_all
from storage.checkpoints import OffsetCheckpointFile
from storage.cleaner import Cleaner, SegmentSnapshot, Throttler
from storage.log_cleaner_filter import BatchFilter, CleanerStats, OffsetMap
from storage.log_cleaner_manager import CLEANER_OFFSET_CHECKPOINT, CleanerConfig
from storage.log_config import LogConfig, resolve_topic_defaults
from storage.log_manager import LogManager, LogManagerIntervals
from storage.partition_log import PartitionLog

NOW = 1_700_000_000_000
SUFFIXES = (".log", ".index", ".timeindex")


def compacted_log(tmp_path: Path) -> PartitionLog:
    config = LogConfig(
        cleanup_policy=("compact",), segment_bytes=2000, file_delete_delay_ms=0, index_interval_bytes=200
    )
    return PartitionLog(tmp_path / "t-0", config, time_ms=lambda: NOW)


def fill(plog: PartitionLog, keys: int, rounds: int) -> None:
    for r in range(rounds):
        for k in range(0, keys, 5):
            raw = bytearray(
                build_batch([(f"k{k + j}".encode(), f"v{r}".encode()) for j in range(5)], timestamp=NOW)
            )
            plog.append_as_leader(memoryview(raw), 0, now_ms=NOW)
    plog.update_high_watermark(plog.log_end_offset)


def records_of(plog: PartitionLog) -> list[tuple[int, bytes, bytes | None]]:
    out = []
    offset = plog.log_start_offset
    while offset < plog.log_end_offset:
        data = plog.read(offset, 1 << 24).records
        assert data
        for header, records in decode_all(data):
            out.extend((r.offset, r.key, r.value) for r in records)
            offset = header.next_offset
    return out


def records_in_file(path: Path) -> list[tuple[int, bytes, bytes | None]]:
    return [(r.offset, r.key, r.value) for _h, rs in decode_all(path.read_bytes()) for r in rs]


def prepare(tmp_path: Path):
    """A log, and a cleaned (not swapped) segment for its first three segments, as a cleaner
    leaves them just before the swap. Returns (log, group base offsets, records before,
    records after the swap)."""
    plog = compacted_log(tmp_path)
    fill(plog, 50, 10)
    before = records_of(plog)
    snaps = [SegmentSnapshot.of(s) for s in plog.segments()[:-1]]
    bound = plog.active_segment.base_offset
    stop = threading.Event()
    cleaner = Cleaner(CleanerConfig(), Throttler(1e308, stop), stop)
    omap = OffsetMap(1 << 20)
    cleaner.build_offset_map(omap, snaps, 0, bound, CleanerStats())
    group = snaps[:3]
    writer = cleaner.clean_group(
        group,
        BatchFilter(omap, NOW, 86_400_000),
        directory=plog.dir,
        index_interval_bytes=200,
        active_producers={},
        upper_bound=bound,
        stats=CleanerStats(),
    )
    group_end = snaps[3].base_offset
    after = records_in_file(writer.log_path) + [r for r in before if r[0] >= group_end]
    assert len(after) < len(before)
    plog.close_handlers()  # the crash: nothing more is written
    return plog.dir, [s.base_offset for s in group], before, after


def name(base: int, suffix: str) -> str:
    return f"{base:020d}{suffix}"


def rename(d: Path, base: int, suffix: str, old: str, new: str) -> None:
    os.replace(d / name(base, suffix + old), d / name(base, suffix + new))


def reopen(d: Path) -> PartitionLog:
    plog = PartitionLog(
        d,
        LogConfig(cleanup_policy=("compact",), segment_bytes=2000, index_interval_bytes=200),
        time_ms=lambda: NOW,
        had_clean_shutdown=False,
    )
    plog.update_high_watermark(plog.log_end_offset)
    return plog


def leftovers(d: Path) -> list[str]:
    return sorted(p.name for p in d.iterdir() if p.name.endswith((".cleaned", ".swap", ".deleted")))


def test_crash_while_writing_the_cleaned_segment_keeps_the_old_segments(tmp_path):
    d, bases, before, _after = prepare(tmp_path)
    cleaned = d / name(bases[0], ".log.cleaned")
    os.truncate(cleaned, cleaned.stat().st_size // 2)  # cut mid-write
    plog = reopen(d)
    assert records_of(plog) == before
    assert leftovers(d) == []


def test_crash_halfway_through_the_commit_rolls_back(tmp_path):
    d, bases, before, _after = prepare(tmp_path)
    rename(d, bases[0], ".log", ".cleaned", ".swap")  # the index files are still .cleaned
    plog = reopen(d)
    assert records_of(plog) == before
    assert leftovers(d) == []


@pytest.mark.parametrize("old_renamed", [0, 1, 3])
def test_crash_after_the_commit_completes_the_swap(tmp_path, old_renamed):
    d, bases, _before, after = prepare(tmp_path)
    for suffix in SUFFIXES:
        rename(d, bases[0], suffix, ".cleaned", ".swap")
    for base in bases[:old_renamed]:  # some old segments already renamed for deletion
        for suffix in SUFFIXES:
            rename(d, base, suffix, "", ".deleted")
    plog = reopen(d)
    assert records_of(plog) == after
    assert [s.base_offset for s in plog.segments()][:2] == [bases[0], bases[-1] + 80]
    assert leftovers(d) == []


def test_crash_after_the_log_file_got_its_final_name_completes_the_indexes(tmp_path):
    d, bases, _before, after = prepare(tmp_path)
    for suffix in SUFFIXES:
        rename(d, bases[0], suffix, ".cleaned", ".swap")
    for base in bases:
        for suffix in SUFFIXES:
            rename(d, base, suffix, "", ".deleted")
    rename(d, bases[0], ".log", ".swap", "")
    plog = reopen(d)
    assert records_of(plog) == after
    assert (d / name(bases[0], ".index")).exists() and leftovers(d) == []
    # Every record was superseded: the swapped segment holds the group's last batch, emptied.
    first = plog.segments()[0]
    assert first.base_offset == bases[0] and first.size == 61
    assert plog.read(bases[0], 1).records


# ---------------------------------------------------------------------- background task


async def wait_for(predicate, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached"
        await asyncio.sleep(0.01)


def test_log_manager_runs_the_cleaner(tmp_path):
    d = tmp_path / "d"
    lm = LogManager(
        [d],
        resolve_topic_defaults({}),
        intervals=LogManagerIntervals(retention_check_ms=20),
        cleaner=CleanerConfig(backoff_ms=20),
    )
    lm.startup()
    lm.create_topic(
        "c",
        1,
        uuid.uuid4(),
        {"cleanup.policy": ["compact"], "segment.bytes": 2000, "file.delete.delay.ms": 0},
    )
    plog = lm.get_log("c", 0)
    now = int(time.time() * 1000)
    for r in range(10):
        for k in range(0, 50, 5):
            raw = bytearray(
                build_batch([(f"k{k + j}".encode(), f"v{r}".encode()) for j in range(5)], timestamp=now)
            )
            plog.append_as_leader(memoryview(raw), 0)
    plog.update_high_watermark(plog.log_end_offset)
    active_base = plog.active_segment.base_offset
    size_before = plog.size_in_bytes

    def checkpointed() -> int | None:
        try:
            return OffsetCheckpointFile(d / CLEANER_OFFSET_CHECKPOINT).read().get(("c", 0))
        except FileNotFoundError:
            return None

    async def scenario():
        task = asyncio.create_task(lm.run_background_tasks())
        try:
            await wait_for(lambda: checkpointed() == active_base)
        finally:
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    asyncio.run(scenario())
    assert plog.size_in_bytes < size_before
    lm.shutdown()
    again = LogManager([d], resolve_topic_defaults({}), cleaner=CleanerConfig())
    again.startup()
    assert again.cleaner.manager.checkpoint(again.get_log("c", 0)) == active_base
    values = {}
    for _o, k, v in records_of(again.get_log("c", 0)):
        values[k] = v
    assert values == {f"k{i}".encode(): b"v9" for i in range(50)}
    # A deleted topic leaves the checkpoint.
    again.delete_topic("c")
    again.shutdown()
    assert OffsetCheckpointFile(d / CLEANER_OFFSET_CHECKPOINT).read() == {}
