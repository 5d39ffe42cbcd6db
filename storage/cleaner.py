"""One cleaning round over one log (Kafka's ``Cleaner``), run by ``storage.log_cleaner``'s
``LogCleaner`` in its thread pool; ``Throttler`` holds the I/O of all its threads to one rate.

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
"""

from __future__ import annotations

import contextlib
import logging
import os
import struct
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

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
from storage.durable_io import write_file
from storage.log_cleaner_filter import (
    BatchFilter,
    CleanerStats,
    CorruptSegmentError,
    OffsetMap,
    TxnTracker,
    scan_records,
)
from storage.log_cleaner_manager import (
    CleanerConfig,
)
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
            write_file(path, data)
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


__all__ = [
    "CleanedSegmentWriter",
    "Cleaner",
    "CleaningAborted",
    "SegmentSnapshot",
    "Throttler",
    "group_segments_by_size",
    "iter_segment_batches",
]
