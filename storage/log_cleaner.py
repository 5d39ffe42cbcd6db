"""The log cleaner: compaction of ``cleanup.policy=compact`` logs (Kafka's ``LogCleaner`` /
``Cleaner``).

A round over one log (chosen by ``storage.log_cleaner_manager``), as Kafka's ``doClean``:

1. **Offset map** of the dirty section [first dirty, first uncleanable): key -> offset of
   its last record (``OffsetMap``, Kafka's ``SkimpyOffsetMap``: keys are kept as 16-byte
   digests; its size is bounded by ``log.cleaner.dedupe.buffer.size`` / threads x the load
   factor). When it fills, the round cleans only up to the last mapped offset and the next
   round goes on from there. The map's end offset is where the checkpoint moves.
2. **Groups**: the segments below that end (the clean part too) are grouped so that each
   group fits one segment (``segment.bytes``, ``segment.index.bytes``, 2^31 offsets;
   Kafka's ``groupSegmentsBySize``), and each group is rewritten into one
   ``<base>.log.cleaned`` with its ``.index.cleaned`` / ``.timeindex.cleaned``, fsynced.
3. **Filter** (Kafka's ``cleanInto`` / ``MemoryRecords.filterTo``), per batch: a record
   stays when it is past the map's end, or its key maps to an offset not above its own
   and it has a value or its batch's delete horizon has not passed. A batch whose records
   all stay is copied as is; one that loses records is rebuilt: same base offset, last
   offset delta, leader epoch, producer id / epoch, base sequence, attributes and codec,
   the kept records' bytes unchanged, a new record count, max timestamp (CreateTime: the
   largest kept) and CRC. A batch left empty is dropped, except (written as a bare 61-byte
   header, ``DefaultRecordBatch.writeEmptyHeader``) the last data batch of an active
   producer (its sequence keeps the producer's state valid), the batch ending at the first
   uncleanable offset, and (Moldau) the last batch of each group, so that a swap's
   ``.swap`` segment always ends where the segments it replaces ended.
4. **Tombstones** (KIP-534): a batch that keeps a tombstone and has no delete horizon is
   rebuilt with one, now + ``delete.retention.ms``, stored as its base timestamp with
   attribute bit 0x40 (the record timestamp deltas are re-encoded against it); a later
   round drops the tombstones once the horizon has passed.
5. **Swap** (``PartitionLog.replace_segments``, on the loop, then a directory fsync off it),
   group by group; the checkpoint moves to the map's end once all groups are swapped.

Transactions (Kafka's ``CleanedTransactionMetadata``, ``storage.log_cleaner_filter.TxnTracker``,
one pass over the round's groups in offset order): the records of aborted transactions (from
the ``.txnindex`` of the log's segments from the cleaned range on, as Kafka's
``collectAbortedTransactions``: an ABORT marker may lie past the range) count neither in the
offset map nor in the cleaned segments (their batches are dropped, or kept emptied as
above); the cleaning never passes the last stable offset (``storage.log_cleaner_manager``). A marker (COMMIT/ABORT control
batch) is kept while the round reads batches of its transaction; once a round reads none
(an earlier round removed them all), the marker is rebuilt with a delete horizon as a
tombstone's (step 4) and removed by the first round past it, unless it is the last batch of
an active producer without data (its epoch fences), kept emptied. The cleaned segment's
``.txnindex.cleaned`` (swapped with the others) holds the aborted transactions whose ABORT
marker it keeps with batches of theirs read in the round; the others' entries go.

Threading: the work of steps 1-4 runs in the cleaner's own thread pool
(``log.cleaner.threads`` threads, one log each) and reads the segment files through its own
descriptors (opened by path), never through the segments' objects; the I/O of all threads
is held to ``log.cleaner.io.max.bytes.per.second`` (``Throttler``). The active segment is
never cleaned (the first uncleanable offset is at most its base offset, and at most the high
watermark). Appends, reads and retention go on meanwhile; a swap finds the log changed
(segments deleted, log closed) and is abandoned, as Kafka aborts a cleaning. Retention skips
a log while it is being cleaned (Kafka's ``pauseCleaningForNonCompactedPartitions`` split).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import struct
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from protocol.record_batch import (
    HEADER,
    HEADER_SIZE,
    INT32_MAX,
    NO_TIMESTAMP,
    BatchHeader,
    iter_batches,
    peek_batch,
)
from protocol.records import records_section
from storage.durable_io import fsync_dir
from storage.log_cleaner_filter import (
    OFFSET_MAP_BYTES_PER_ENTRY,
    BatchFilter,
    CleanerStats,
    CorruptSegmentError,
    OffsetMap,
    TxnTracker,
    empty_batch,
    rebuild_batch,
    scan_records,
)
from storage.log_cleaner_manager import (
    CLEANER_OFFSET_CHECKPOINT,
    CleanerConfig,
    LogCleanerManager,
    LogToClean,
    segments_overlapping,
)
from storage.log_config import LogConfig
from storage.log_dir_failure import LogDirFailureChannel
from storage.segment import (
    CLEANED_SUFFIX,
    INDEX_SUFFIX,
    LOG_SUFFIX,
    TIME_INDEX_SUFFIX,
    TXN_INDEX_SUFFIX,
    LogSegment,
    filename_prefix,
)
from storage.transaction_index import AbortedTxn, write_entries

log = logging.getLogger(__name__)

_OFFSET_ENTRY = struct.Struct(">ii")
_TIME_ENTRY = struct.Struct(">qi")

T = TypeVar("T")


class CleaningAborted(Exception):
    """The log changed under the cleaner, or the cleaner stops (Kafka's
    ``LogCleaningAbortedException``): the round is dropped, its files deleted."""


# ---------------------------------------------------------------------- throttler


class Throttler:
    """Kafka's ``Throttler``: sleep so that the bytes observed by all threads stay under
    ``rate`` per second on average (checked every 300 ms). ``stop`` ends any sleep.

    One difference: Kafka checks only once 300 ms have passed, so a burst faster than that
    (a small log read from the page cache) escapes the limit. Here a period that has already
    seen more than 300 ms' worth of bytes is checked at once, so the rate holds for bursts too.
    """

    CHECK_INTERVAL_S = 0.3

    def __init__(
        self, rate: float, stop: threading.Event, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self._stop = stop
        self._clock = clock
        self._lock = threading.Lock()
        self._period_start = clock()
        self._observed = 0.0

    @property
    def unlimited(self) -> bool:
        return self.rate <= 0 or self.rate >= 1e300

    def update_rate(self, rate: float) -> None:
        """``Throttler.updateDesiredRatePerSec``: the next checks use ``rate``."""
        with self._lock:
            self.rate = rate

    def maybe_throttle(self, observed: float, before_sleep: Callable[[], None] | None = None) -> None:
        """Count ``observed`` bytes; sleep if the period's rate is above the limit, calling
        ``before_sleep`` first (the cleaner writes out what it holds, as Kafka's does before
        it throttles its output)."""
        if self.unlimited:
            return
        sleep_s = 0.0
        with self._lock:
            self._observed += observed
            now = self._clock()
            elapsed = now - self._period_start
            if elapsed > self.CHECK_INTERVAL_S or self._observed > self.rate * self.CHECK_INTERVAL_S:
                if self._observed > self.rate * max(elapsed, 0.0):
                    sleep_s = self._observed / self.rate - elapsed
                self._period_start = now + max(sleep_s, 0.0)
                self._observed = 0.0
        if sleep_s > 0:
            if before_sleep is not None:
                before_sleep()
            self._stop.wait(sleep_s)


# ---------------------------------------------------------------------- segment files


@dataclass(frozen=True)
class SegmentSnapshot:
    """A segment as the cleaner saw it on the loop: its files and size (the thread works on
    these, never on the segment object, which stays the loop's)."""

    segment: LogSegment
    base_offset: int
    path: Path
    size: int
    index_path: Path
    time_index_path: Path
    aborted: tuple[AbortedTxn, ...] = ()  # its .txnindex entries

    @classmethod
    def of(cls, seg: LogSegment) -> SegmentSnapshot:
        return cls(
            seg,
            seg.base_offset,
            seg.log_path,
            seg.size,
            seg.index.path,
            seg.time_index.path,
            tuple(seg.txn_index.all_aborted_txns()),
        )

    def index_sizes(self) -> tuple[int, int]:
        def size(p: Path) -> int:
            try:
                return p.stat().st_size
            except FileNotFoundError:
                return 0

        return size(self.index_path), size(self.time_index_path)


def iter_segment_batches(
    snap: SegmentSnapshot,
    chunk_size: int,
    throttler: Throttler,
    check: Callable[[], None],
    before_sleep: Callable[[], None] | None = None,
) -> Iterator[tuple[BatchHeader, memoryview, bool]]:
    """(header, whole batch, is the segment's last batch) of each batch in the segment's first
    ``snap.size`` bytes, read through a descriptor of its own, ``chunk_size`` bytes at a time
    (more for a larger batch)."""
    try:
        fd = os.open(snap.path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        raise CleaningAborted(f"segment {snap.path.name} was deleted") from None
    try:
        size = snap.size
        pos = 0
        while pos < size:
            check()
            buf = os.pread(fd, min(max(chunk_size, HEADER_SIZE), size - pos), pos)
            peeked = peek_batch(buf)
            if peeked is None:
                raise CorruptSegmentError(f"{snap.path.name}: partial batch at byte {pos}")
            if peeked[1] > len(buf):
                if peeked[1] > size - pos or peeked[1] < HEADER_SIZE:
                    raise CorruptSegmentError(f"{snap.path.name}: bad batch length at byte {pos}")
                buf = os.pread(fd, peeked[1], pos)
            throttler.maybe_throttle(len(buf), before_sleep)
            mv = memoryview(buf)
            consumed = 0
            try:
                for bpos, header in iter_batches(mv):
                    end = bpos + header.size
                    yield header, mv[bpos:end], pos + end == size
                    consumed = end
            except ValueError as exc:  # DecodeError
                raise CorruptSegmentError(f"{snap.path.name}: {exc}") from None
            if consumed == 0:
                raise CorruptSegmentError(f"{snap.path.name}: no whole batch at byte {pos}")
            pos += consumed
    finally:
        os.close(fd)


class CleanedSegmentWriter:
    """Writes ``<base>.log.cleaned`` and its two indexes, with ``LogSegment.append``'s index
    rule (an entry once more than ``index.interval.bytes`` were written since the last one)
    and its final time-index entry; the index files are written trimmed, all fsynced."""

    def __init__(self, directory: Path, base_offset: int, index_interval_bytes: int) -> None:
        self.dir = directory
        self.base_offset = base_offset
        self.interval = index_interval_bytes
        prefix = filename_prefix(base_offset)
        self.log_path = directory / (prefix + LOG_SUFFIX + CLEANED_SUFFIX)
        self.index_path = directory / (prefix + INDEX_SUFFIX + CLEANED_SUFFIX)
        self.time_index_path = directory / (prefix + TIME_INDEX_SUFFIX + CLEANED_SUFFIX)
        self.txn_index_path = directory / (prefix + TXN_INDEX_SUFFIX + CLEANED_SUFFIX)
        # The aborted transactions whose ABORT marker is kept with batches of theirs still in
        # the log (Kafka's CleanedTransactionMetadata.cleanedIndex), in marker order.
        self.aborted: list[AbortedTxn] = []
        self.size = 0
        self._pending = bytearray()
        self._since_index = 0
        self._max_ts = NO_TIMESTAMP
        self._max_ts_offset = base_offset
        self._index = bytearray()
        self._time_index = bytearray()
        self._last_index_ts = NO_TIMESTAMP
        # Kafka's createNewCleanedSegment deletes what an earlier attempt left.
        self._fd = os.open(self.log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)

    def append(self, batch: bytes, last_offset: int, max_timestamp: int) -> None:
        rel = last_offset - self.base_offset
        if not 0 <= rel <= INT32_MAX:
            raise CorruptSegmentError(f"offset {last_offset} does not fit segment {self.base_offset}")
        if max_timestamp > self._max_ts:
            self._max_ts, self._max_ts_offset = max_timestamp, last_offset
        if self._since_index > self.interval:
            self._index += _OFFSET_ENTRY.pack(rel, self.size)
            self._maybe_time_entry()
            self._since_index = len(batch)
        else:
            self._since_index += len(batch)
        self._pending += batch
        self.size += len(batch)
        if len(self._pending) >= 1 << 20:
            self._write_pending()

    def _maybe_time_entry(self) -> None:
        if self._max_ts > self._last_index_ts:
            self._time_index += _TIME_ENTRY.pack(self._max_ts, self._max_ts_offset - self.base_offset)
            self._last_index_ts = self._max_ts

    def flush(self) -> None:
        """Write what is held to the ``.cleaned`` file (no fsync; ``finish`` does that)."""
        self._write_pending()

    def _write_pending(self) -> None:
        view = memoryview(self._pending)
        while view:
            view = view[os.write(self._fd, view) :]
        self._pending = bytearray()

    def finish(self, mtime_s: float | None) -> None:
        """Write everything, fsync the three files, keep the replaced segments' mtime (Kafka's
        ``setLastModified``, used for the time-based fallbacks)."""
        self._write_pending()
        self._maybe_time_entry()  # LogSegment.onBecomeInactiveSegment
        os.fsync(self._fd)
        os.close(self._fd)
        self._fd = -1
        for path, data in ((self.index_path, self._index), (self.time_index_path, self._time_index)):
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            finally:
                os.close(fd)
        with contextlib.suppress(FileNotFoundError):
            self.txn_index_path.unlink()  # an earlier attempt's
        write_entries(self.txn_index_path, self.aborted)  # nothing when there is none
        if mtime_s is not None:
            os.utime(self.log_path, (mtime_s, mtime_s))

    def delete(self) -> None:
        if self._fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = -1
        for path in (self.log_path, self.index_path, self.time_index_path, self.txn_index_path):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()


def group_segments_by_size(
    segments: Sequence[SegmentSnapshot], max_size: int, max_index_size: int, first_uncleanable: int
) -> list[list[SegmentSnapshot]]:
    """Kafka's ``groupSegmentsBySize``: consecutive segments whose logs, offset indexes and time
    indexes each fit ``max_size`` / ``max_index_size`` together, spanning under 2^31 offsets."""
    groups: list[list[SegmentSnapshot]] = []
    sizes = [s.index_sizes() for s in segments]
    i = 0
    while i < len(segments):
        group = [segments[i]]
        log_size = segments[i].size
        index_size, time_index_size = sizes[i]
        i += 1
        while i < len(segments):
            nxt = segments[i]
            # Kafka's lastOffsetForFirstSegment: the next segment's base - 1, else the bound.
            last = segments[i + 1].base_offset - 1 if i + 1 < len(segments) else first_uncleanable - 1
            if not (
                log_size + nxt.size <= max_size
                and index_size + sizes[i][0] <= max_index_size
                and time_index_size + sizes[i][1] <= max_index_size
                and (nxt.size == 0 or last - group[0].base_offset <= INT32_MAX)
            ):
                break
            group.append(nxt)
            log_size += nxt.size
            index_size += sizes[i][0]
            time_index_size += sizes[i][1]
            i += 1
        groups.append(group)
    return groups


# ---------------------------------------------------------------------- the cleaning (thread side)


class Cleaner:
    """The file work of a round (Kafka's ``Cleaner``), run in a cleaner thread."""

    def __init__(self, config: CleanerConfig, throttler: Throttler, stop: threading.Event) -> None:
        self.io_buffer_size = max(config.io_buffer_size, HEADER_SIZE)
        self.throttler = throttler
        self._stop = stop

    def check(self) -> None:
        if self._stop.is_set():
            raise CleaningAborted("the log cleaner is stopping")

    def build_offset_map(
        self,
        omap: OffsetMap,
        dirty: Sequence[SegmentSnapshot],
        start: int,
        end: int,
        stats: CleanerStats,
        aborted: Iterable[AbortedTxn] = (),
    ) -> None:
        """Kafka's ``buildOffsetMap``: the keys of [start, end), segment by segment, until full;
        records of aborted transactions do not count."""
        omap.clear()
        tracker = TxnTracker(aborted)
        for i, snap in enumerate(dirty):
            next_start = dirty[i + 1].base_offset if i + 1 < len(dirty) else end
            if self._map_segment(omap, snap, start, stats, tracker):
                log.debug("offset map full in segment %d; the round ends there", snap.base_offset)
                return
            # An offset gap at the segment's end: the map covers up to the next segment.
            omap.update_latest_offset(next_start - 1)

    def _map_segment(
        self,
        omap: OffsetMap,
        snap: SegmentSnapshot,
        start: int,
        stats: CleanerStats,
        tracker: TxnTracker,
    ) -> bool:
        max_entries = omap.max_entries
        for header, raw, _last in iter_segment_batches(snap, self.io_buffer_size, self.throttler, self.check):
            stats.map_bytes_read += header.size
            if header.is_control:
                tracker.on_marker(header, raw)  # ends its transaction
                aborted = False
            else:
                aborted = tracker.is_aborted(header)
            if header.last_offset < start:
                continue
            if not header.is_control and not aborted:
                data = records_section(raw, header)
                base = header.base_offset
                for rec in scan_records(data, header.records_count):
                    stats.map_messages_read += 1
                    offset = base + rec.offset_delta
                    if rec.key is not None and offset >= start:
                        if len(omap) >= max_entries:
                            return True
                        omap.put(rec.key, offset)
            omap.update_latest_offset(header.last_offset)
        return False

    def clean_group(
        self,
        group: Sequence[SegmentSnapshot],
        batch_filter: BatchFilter,
        *,
        directory: Path,
        index_interval_bytes: int,
        active_producers: dict[int, int],
        upper_bound: int,
        stats: CleanerStats,
        txns: TxnTracker | None = None,
        marker_producers: dict[int, int] | None = None,
    ) -> CleanedSegmentWriter:
        """Kafka's ``cleanSegments`` up to the swap: ``group`` into one ``.cleaned`` segment.

        ``txns``: the round's transactions, carried from group to group (a tracker of the
        group's own aborted transactions when None); ``marker_producers``: producer id ->
        epoch of each active producer without a data batch, whose marker of that epoch is
        kept, even emptied, for fencing (Kafka's ``isBatchLastRecordOfProducer``)."""
        writer = CleanedSegmentWriter(directory, group[0].base_offset, index_interval_bytes)
        tracker = txns if txns is not None else TxnTracker(t for s in group for t in s.aborted)
        marker_producers = marker_producers or {}
        try:
            for i, snap in enumerate(group):
                last_segment = i == len(group) - 1
                for header, raw, last_batch in iter_segment_batches(
                    snap, self.io_buffer_size, self.throttler, self.check, writer.flush
                ):
                    stats.bytes_read += header.size
                    pid = header.producer_id
                    retain_empty = (
                        (pid >= 0 and active_producers.get(pid) == header.last_offset)
                        or (header.is_control and marker_producers.get(pid) == header.producer_epoch)
                        or header.next_offset == upper_bound
                        or (last_segment and last_batch)
                    )
                    if header.is_control:
                        discard, kept_txn = tracker.on_marker(header, raw)
                        if kept_txn is not None:
                            writer.aborted.append(kept_txn)
                    else:
                        discard = tracker.is_aborted(header)
                    out = batch_filter.apply(header, raw, retain_empty, stats, discard)
                    if out is None:
                        continue
                    max_ts = HEADER.unpack_from(out, 0)[8]
                    writer.append(out, header.last_offset, max_ts)
                    stats.bytes_written += len(out)
                    self.throttler.maybe_throttle(len(out), writer.flush)
            mtime = None
            with contextlib.suppress(FileNotFoundError):
                mtime = os.stat(group[-1].path).st_mtime
            writer.finish(mtime)
        except BaseException:
            writer.delete()
            raise
        return writer


# ---------------------------------------------------------------------- the cleaner (loop side)


class LogCleaner:
    """The background cleaner of a LogManager (Kafka's ``LogCleaner`` and its threads).

    ``run`` (a background task of the LogManager) runs ``threads`` cleaner loops: each picks the
    dirtiest log, cleans it in the cleaner's thread pool, swaps the cleaned segments in on the
    loop and moves the log's checkpoint, then looks again; with nothing to clean it waits
    ``log.cleaner.backoff.ms`` (or ``wakeup``).
    """

    def __init__(
        self,
        config: CleanerConfig,
        log_dirs: Sequence[Path],
        logs: Callable[[], Iterable[Any]],
        *,
        time_ms: Callable[[], int],
        failure_channel: LogDirFailureChannel | None = None,
    ) -> None:
        self.config = config
        self.manager = LogCleanerManager(log_dirs)
        self._logs = logs
        # Where a failed cleaner-offset-checkpoint write takes its dir offline (the LogManager's).
        self.failure_channel = failure_channel if failure_channel is not None else LogDirFailureChannel([])
        self._time_ms = time_ms
        self._stop = threading.Event()
        self.throttler = Throttler(config.io_max_bytes_per_second, self._stop)
        self.cleaner = Cleaner(config, self.throttler, self._stop)
        threads = max(config.threads, 1)
        self._map_memory = config.dedupe_buffer_size // threads
        # Kafka checks this at start: a map that cannot hold one key never makes progress.
        OffsetMap(self._map_memory, config.io_buffer_load_factor)
        self._executor: ThreadPoolExecutor | None = None
        self._wakeup: asyncio.Event | None = None
        self._restart: asyncio.Event | None = None  # set by reconfigure: run() restarts the loops
        self.restarts = 0  # times the loops were restarted with a new config
        self.rounds = 0  # cleanings completed (observable by tests and metrics)
        self.last_stats: CleanerStats | None = None

    def wakeup(self) -> None:
        """Look for a dirty log now instead of after the backoff."""
        if self._wakeup is not None:
            self._wakeup.set()

    def reconfigure(self, config: CleanerConfig) -> None:
        """``LogCleaner.reconfigure`` (dynamic ``log.cleaner.*`` broker configs): the throttler
        takes the new rate at once; the cleaner loops are stopped (a round in progress is
        abandoned at its next chunk, as Kafka's ``shutdownCleaners``) and started again with
        the new thread count, map size, buffer size and backoff."""
        old, self.config = self.config, config
        if config.io_max_bytes_per_second != old.io_max_bytes_per_second:
            log.info("Updating log.cleaner.io.max.bytes.per.second: %s", config.io_max_bytes_per_second)
            self.throttler.update_rate(config.io_max_bytes_per_second)
        self.cleaner.io_buffer_size = max(config.io_buffer_size, HEADER_SIZE)
        self._map_memory = config.dedupe_buffer_size // max(config.threads, 1)
        if self._restart is not None:
            self._restart.set()

    async def run(self) -> None:
        """The cleaner loops, until cancelled (restarted by ``reconfigure``); a cancellation
        stops the thread work at its next chunk and waits for it, so no cleaner thread
        touches the logs afterwards."""
        if not self.config.running:
            return
        self._wakeup = asyncio.Event()
        try:
            while True:
                await self._run_loops()
                self.restarts += 1
        finally:
            self.close()
            self._wakeup = None
            self._restart = None

    async def _run_loops(self) -> None:
        """``config.threads`` loops until ``reconfigure`` (then they end between rounds)."""
        restart = self._restart = asyncio.Event()
        loops = [asyncio.ensure_future(self._cleaner_loop(i, restart)) for i in range(self.config.threads)]
        waiter = asyncio.ensure_future(restart.wait())
        try:
            done, _ = await asyncio.wait([waiter, *loops], return_when=asyncio.FIRST_COMPLETED)
            for t in loops:
                if t in done:
                    t.result()  # a loop never ends by itself: raise what ended it
            self._stop.set()  # thread work in progress is abandoned at its next chunk
            assert self._wakeup is not None
            self._wakeup.set()
            await asyncio.gather(*loops)
        finally:
            waiter.cancel()
            for t in loops:
                t.cancel()
        # every loop has returned, so no thread works: the pool goes (its size may change)
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None
        self._stop.clear()
        self._wakeup.clear()

    def close(self) -> None:
        """Stop the thread work (at its next chunk) and wait for it."""
        self._stop.set()
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None
        self._stop.clear()

    async def _in_thread(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(
                max(self.config.threads, 1), thread_name_prefix="kafka-log-cleaner-thread"
            )
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, lambda: fn(*args, **kwargs))

    async def clean_filthiest_log(self, omap: OffsetMap | None = None, thread_id: int = 0) -> int | None:
        """One pass of a cleaner thread: clean the dirtiest log, if one needs it, then write the
        changed checkpoints. Returns the cleaned log's new checkpoint; None when no log needed
        cleaning or the round was abandoned (the thread then backs off)."""
        if omap is None:
            omap = OffsetMap(self._map_memory, self.config.io_buffer_load_factor)
        end = None
        try:
            ltc = self.manager.grab_filthiest(self._logs(), self._time_ms())
        except Exception:
            log.exception("Log cleaner thread %d: error while choosing a log to clean", thread_id)
            ltc = None
        if ltc is not None:
            end = await self.clean(ltc, omap, thread_id)
        await self.write_checkpoints()
        return end

    async def _cleaner_loop(self, thread_id: int, restart: asyncio.Event) -> None:
        omap = OffsetMap(self._map_memory, self.config.io_buffer_load_factor)
        backoff = self.config.backoff_ms / 1000
        while not restart.is_set():
            if await self.clean_filthiest_log(omap, thread_id) is None and not restart.is_set():
                wakeup = self._wakeup
                assert wakeup is not None
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wakeup.wait(), timeout=backoff)
                wakeup.clear()

    async def write_checkpoints(self) -> None:
        """The cleaner checkpoints that changed, written in the default executor (offline dirs
        skipped; a failed write takes its dir offline)."""
        hosted = [(plog.topic, plog.partition) for plog in self._logs()]
        channel = self.failure_channel
        for d, offsets in self.manager.checkpoints_to_write(hosted).items():
            if channel.is_offline(d):
                continue  # Kafka's LogCleanerManager.updateCheckpoints skips offline dirs
            try:
                await asyncio.get_running_loop().run_in_executor(
                    None, self.manager.write_checkpoint, d, offsets
                )
            except OSError as exc:
                # Kafka's CheckpointFileWithFailureHandler.write: the dir goes offline.
                channel.report(d, exc, f"writing {d / CLEANER_OFFSET_CHECKPOINT}")

    def write_checkpoints_now(self, hosted: Iterable[tuple[str, int]]) -> None:
        """At shutdown (no loop work left): the checkpoints not yet written. A failed write
        takes its dir offline, so the LogManager does not mark it clean."""
        channel = self.failure_channel
        for d, offsets in self.manager.checkpoints_to_write(hosted).items():
            if channel.is_offline(d):
                continue
            try:
                self.manager.write_checkpoint(d, offsets)
            except OSError as exc:
                channel.report(d, exc, f"writing {d / CLEANER_OFFSET_CHECKPOINT}")

    async def clean(self, ltc: LogToClean, omap: OffsetMap, thread_id: int = 0) -> int | None:
        """One round over ``ltc.log`` (marked in progress by ``grab_filthiest``); returns the new
        checkpoint, None when the round was abandoned."""
        plog = ltc.log
        end: int | None = None
        try:
            end = await self._clean(ltc, omap, thread_id)
        except CleaningAborted as exc:
            log.info("Log cleaner thread %d: cleaning of %s aborted: %s", thread_id, plog.name, exc)
        except OSError as exc:
            if plog.closed:  # deleted or shut down meanwhile (its dir may be gone)
                log.info("Log cleaner thread %d: cleaning of %s aborted: %s", thread_id, plog.name, exc)
            else:
                # Kafka: an IOException while cleaning takes the log dir offline.
                plog.dir_state.report(exc, f"cleaning {plog.name}")
        except Exception as exc:
            # Kafka marks the partition uncleanable and goes on with the others.
            log.error(
                "Log cleaner thread %d: unexpected error cleaning %s; it is not cleaned again until "
                "restart: %s",
                thread_id,
                plog.name,
                exc,
                exc_info=not isinstance(exc, CorruptSegmentError),
            )
            self.manager.mark_uncleanable(plog)
        finally:
            omap.clear()
            self.manager.done_cleaning(plog, end)
        return end

    async def _clean(self, ltc: LogToClean, omap: OffsetMap, thread_id: int) -> int:
        plog = ltc.log
        cfg: LogConfig = plog.config
        now = self._time_ms()
        stats = CleanerStats()
        first_dirty, bound = ltc.first_dirty_offset, ltc.first_uncleanable_offset
        snaps = [SegmentSnapshot.of(s) for s in segments_overlapping(plog.segments(), 0, bound)]
        dirty = [
            s for i, s in enumerate(snaps) if i + 1 == len(snaps) or snaps[i + 1].base_offset > first_dirty
        ]
        log.info(
            "Log cleaner thread %d: cleaning %s from offset %d to %d (%.0f%% dirty)",
            thread_id,
            plog.name,
            first_dirty,
            bound,
            100 * ltc.cleanable_ratio,
        )
        # The aborted transactions of the range (Kafka's collectAbortedTransactions): their
        # records count neither in the map nor in the cleaned segments. Read from the log, not
        # the cleaned segments' own indexes: an ABORT marker past the range (a transaction
        # across a roll) has its .txnindex entry in a later segment, maybe the active one.
        aborted = plog.collect_aborted_transactions(snaps[0].base_offset, bound) if snaps else []
        await self._in_thread(self.cleaner.build_offset_map, omap, dirty, first_dirty, bound, stats, aborted)
        end_offset = omap.latest_offset + 1
        groups = await self._in_thread(
            group_segments_by_size,
            [s for s in snaps if s.base_offset < end_offset],
            cfg.segment_bytes,
            cfg.segment_index_bytes,
            bound,
        )
        batch_filter = BatchFilter(omap, now, cfg.delete_retention_ms)
        txns = TxnTracker(aborted)  # one pass over the round's groups, in offset order
        for group in groups:
            if plog.closed:
                raise CleaningAborted("the log was closed")
            writer = await self._in_thread(
                self.cleaner.clean_group,
                group,
                batch_filter,
                directory=plog.dir,
                index_interval_bytes=cfg.index_interval_bytes,
                active_producers=plog.last_records_of_active_producers(),
                upper_bound=bound,
                stats=stats,
                txns=txns,
                marker_producers={
                    pid: entry.producer_epoch
                    for pid, entry in plog.producer_state.active_producers().items()
                    if entry.last_data_offset < 0
                },
            )
            swapped = plog.replace_segments(
                [s.segment for s in group], [s.size for s in group], group[0].base_offset
            )
            if not swapped:
                await self._in_thread(writer.delete)
                raise CleaningAborted("the log's segments changed during the cleaning")
            await self._in_thread(fsync_dir, plog.dir)
        self.rounds += 1
        self.last_stats = stats
        elapsed = time.monotonic() - stats.started
        log.info(
            "Log cleaner thread %d cleaned log %s (dirty section = [%d, %d]): %d segment(s) into %d, "
            "%.1f MB read, %.1f MB written, %d of %d messages kept, %d batches rebuilt, in %.1f s",
            thread_id,
            plog.name,
            first_dirty,
            end_offset,
            sum(len(g) for g in groups),
            len(groups),
            stats.bytes_read / 1e6,
            stats.bytes_written / 1e6,
            stats.messages_written,
            stats.messages_read,
            stats.batches_rebuilt,
            elapsed,
        )
        return end_offset


__all__ = [
    "OFFSET_MAP_BYTES_PER_ENTRY",
    "BatchFilter",
    "CleanedSegmentWriter",
    "Cleaner",
    "CleanerConfig",
    "CleanerStats",
    "CleaningAborted",
    "LogCleaner",
    "OffsetMap",
    "SegmentSnapshot",
    "Throttler",
    "empty_batch",
    "group_segments_by_size",
    "iter_segment_batches",
    "rebuild_batch",
    "scan_records",
]
