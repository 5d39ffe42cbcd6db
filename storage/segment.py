"""One log segment: Kafka's ``LogSegment`` over ``FileRecords``, ``OffsetIndex``, ``TimeIndex``.

Files (``LogFileUtils``): ``<base offset, 20 digits>.log`` holds raw RecordBatch
v2 bytes back to back; ``.index`` and ``.timeindex`` are sparse indexes
(``storage.index``). The active segment's ``.log`` file descriptor stays open;
appends are one ``os.pwrite`` at the known end (no seek, no fstat), reads are
``os.pread``. Batches are never decoded past their 61-byte header here.

File descriptors: as the indexes (Kafka's ``LazyIndex``), an inactive segment's ``.log`` is
opened on first read and closed again, least recently used first, past
``INACTIVE_LOG_FILES.limit`` (128) descriptors in all, so an idle partition holds only its
active segment's three descriptors however many segments it has (Kafka keeps every
segment's ``FileChannel`` open: one descriptor per segment).

Index rule (Kafka's ``LogSegment.append``): before writing a batch, if more
than ``index.interval.bytes`` were appended since the last index entry, add an
offset-index entry (the batch's last offset, the position where it starts) and
a time-index entry (max timestamp so far and the last offset of the batch that
carried it, only if that timestamp grew); then count the batch's bytes. The
same rule rebuilds indexes during recovery (Kafka's ``LogSegment.recover``, here
``storage.segment_recovery.recover_segment``, which also holds the clean-up of the files a
crash left at load).

Threading: everything runs on the event loop except ``flush``, which opens
the files by path and fsyncs them, so it never races a close on the loop.
"""

from __future__ import annotations

import contextlib
import os
import struct
import threading
from collections import OrderedDict, deque
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from protocol.record_batch import (
    HEADER,
    HEADER_SIZE,
    INT32_MAX,
    LOG_APPEND_TIME,
    LOG_OVERHEAD,
    NO_TIMESTAMP,
    BatchHeader,
)
from protocol.records import decode_batch
from storage.config_def import LONG_MAX
from storage.durable_io import fsync_file_if_exists
from storage.file_records import FileRecords
from storage.index import OffsetIndex, TimeIndex, TimestampOffset
from storage.transaction_index import AbortedTxn, TransactionIndex, TxnIndexSearchResult

LOG_SUFFIX = ".log"
INDEX_SUFFIX = ".index"
TIME_INDEX_SUFFIX = ".timeindex"
TXN_INDEX_SUFFIX = ".txnindex"
DELETED_SUFFIX = ".deleted"
CLEANED_SUFFIX = ".cleaned"
SWAP_SUFFIX = ".swap"

# baseOffset int64, batchLength int32, (epoch, magic, crc, attributes), lastOffsetDelta int32
_BOUNDS = struct.Struct(">qi11xi")
_BASE_OFFSET = struct.Struct(">q")
_TAIL_BATCHES = 16  # a follower or a tailing consumer is rarely further behind
_BOUNDS_SIZE = _BOUNDS.size  # 27
_MIN_BATCH_LENGTH = HEADER_SIZE - LOG_OVERHEAD  # 49
_SCAN_CHUNK = 16 * 1024
# A walk's first read: an offset lookup mostly needs two headers one batch apart (the index
# entry's batch, then the next), so it reads small and grows to _SCAN_CHUNK if it goes on.
_FIRST_SCAN_CHUNK = 512
_HEADER_CHUNK = 64 * 1024


def filename_prefix(offset: int) -> str:
    """Kafka's ``LogFileUtils.filenamePrefixFromOffset``: 20 digits, zero padded."""
    return f"{offset:020d}"


def offset_from_filename(name: str) -> int:
    return int(name.split(".", 1)[0])


def _write_all(fd: int, data: memoryview | bytes, position: int) -> int:
    view = memoryview(data)
    total = len(view)
    done = 0
    while done < total:
        n = os.pwrite(fd, view[done:], position + done)
        if n <= 0:
            raise OSError(f"short write ({done} of {total} bytes)")
        done += n
    return total


class _InactiveLogFiles:
    """The open ``.log`` descriptors of inactive segments, closed least recently used first.

    Touched on the loop, and at start-up from the executor loading the logs alone; the lock
    keeps the bookkeeping whole either way."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._lru: OrderedDict[int, LogSegment] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._lru)

    def touch(self, segment: LogSegment) -> None:
        evicted = []
        with self._lock:
            key = id(segment)
            if key in self._lru:
                self._lru.move_to_end(key)
            else:
                self._lru[key] = segment
            while len(self._lru) > self.limit:
                evicted.append(self._lru.popitem(last=False)[1])
        for seg in evicted:
            seg._close_fd()

    def remove(self, segment: LogSegment) -> None:
        with self._lock:
            self._lru.pop(id(segment), None)


INACTIVE_LOG_FILES = _InactiveLogFiles(128)


class BatchPosition(NamedTuple):
    """Where a batch lies in a segment file, and the offsets it holds."""

    position: int
    size: int
    base_offset: int
    last_offset: int


class LogSegment:
    """A ``.log`` file of whole batches plus its two sparse indexes."""

    def __init__(
        self,
        directory: Path,
        base_offset: int,
        *,
        index_interval_bytes: int,
        max_index_size: int,
        rolling_jitter_ms: int = 0,
        created_ms: int = 0,
        active: bool = True,
        suffix: str = "",
    ) -> None:
        self.dir = directory
        self.base_offset = base_offset
        self.index_interval_bytes = index_interval_bytes
        self.max_index_size = max_index_size
        self.rolling_jitter_ms = rolling_jitter_ms
        self.created_ms = created_ms
        prefix = filename_prefix(base_offset)
        self.log_path = directory / (prefix + LOG_SUFFIX + suffix)
        self._fd: int | None = None
        self._active = active
        self._closed = False
        if active:
            self._fd = os.open(self.log_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            self.size = os.fstat(self._fd).st_size
        else:
            try:
                self.size = os.stat(self.log_path).st_size
            except FileNotFoundError:
                os.close(os.open(self.log_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644))
                self.size = 0
        self.index = OffsetIndex(
            directory / (prefix + INDEX_SUFFIX + suffix), base_offset, max_index_size, writable=active
        )
        self.time_index = TimeIndex(
            directory / (prefix + TIME_INDEX_SUFFIX + suffix), base_offset, max_index_size, writable=active
        )
        self.txn_index = TransactionIndex(directory / (prefix + TXN_INDEX_SUFFIX + suffix), base_offset)
        self.bytes_since_last_index_entry = 0
        self._max_ts: TimestampOffset | None = None  # loaded lazily from the time index
        self._rolling_based_timestamp: int | None = None  # max timestamp of the first batch
        # The last batches appended, back to back up to the end of the file: a fetch at or
        # near the log end (a follower's, a consumer's at the high watermark) finds its batch
        # here instead of in the index and the batch headers (system calls). Any other change
        # of the file (truncation, recovery) empties it.
        self._tail: deque[tuple[int, int, int, int]] = deque(maxlen=_TAIL_BATCHES)  # BatchPosition fields

    # ------------------------------------------------------------------ state

    def __repr__(self) -> str:
        return f"LogSegment(base_offset={self.base_offset}, size={self.size}, path={self.log_path})"

    @property
    def is_open(self) -> bool:
        return not self._closed

    @property
    def holds_descriptor(self) -> bool:
        """True while the ``.log`` file is open (always for the active segment)."""
        return self._fd is not None

    def _file(self) -> int:
        """The ``.log`` descriptor, opened now if this inactive segment's was closed."""
        if self._closed:
            raise OSError(f"segment {self.log_path} is closed")
        fd = self._fd
        if fd is None:
            fd = self._fd = os.open(self.log_path, os.O_RDWR | os.O_CLOEXEC)
        if not self._active:
            INACTIVE_LOG_FILES.touch(self)
        return fd

    def _close_fd(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    def _release_fd(self) -> None:
        INACTIVE_LOG_FILES.remove(self)
        self._close_fd()

    def _max_timestamp_and_offset(self) -> TimestampOffset:
        if self._max_ts is None:
            # Kafka's readMaxTimestampAndOffsetSoFar: the time index's last entry.
            self._max_ts = self.time_index.last_entry()
        return self._max_ts

    @property
    def max_timestamp_so_far(self) -> int:
        return self._max_timestamp_and_offset().timestamp

    @property
    def offset_of_max_timestamp_so_far(self) -> int:
        return self._max_timestamp_and_offset().offset

    def largest_timestamp(self) -> int:
        """Kafka's ``largestTimestamp``: max timestamp, or the file's mtime when no batch has one."""
        ts = self.max_timestamp_so_far
        if ts >= 0:
            return ts
        try:
            return int(os.stat(self.log_path).st_mtime * 1000)
        except FileNotFoundError:
            return NO_TIMESTAMP

    def _first_batch_max_timestamp(self) -> int | None:
        if self._rolling_based_timestamp is None and self.size >= HEADER_SIZE:
            header = self.read_header(0)
            if header is not None:
                self._rolling_based_timestamp = header.max_timestamp
        return self._rolling_based_timestamp

    def first_batch_timestamp(self) -> int:
        """Kafka's ``getFirstBatchTimestamp``: the first batch's max timestamp, Long.MAX when
        there is none (the cleaner's max.compaction.lag.ms)."""
        first = self._first_batch_max_timestamp()
        return first if first is not None and first >= 0 else LONG_MAX

    def time_waited_for_roll(self, now_ms: int, message_timestamp: int) -> int:
        """Kafka's ``timeWaitedForRoll``: by the first batch's timestamp, else by creation time."""
        first = self._first_batch_max_timestamp()
        if first is not None and first >= 0:
            return message_timestamp - first
        return now_ms - self.created_ms

    def should_roll(
        self,
        incoming_bytes: int,
        max_timestamp: int,
        max_offset: int,
        now_ms: int,
        segment_bytes: int,
        segment_ms: int,
    ) -> str | None:
        """The reason to roll before this append, or None (Kafka's ``LogSegment.shouldRoll``)."""
        size = self.size
        if size > segment_bytes - incoming_bytes:
            return "segment.bytes"
        if size > 0:
            first = self._rolling_based_timestamp
            if first is None:
                first = self._first_batch_max_timestamp()
            if first is not None and first >= 0:
                waited = max_timestamp - first
            else:
                waited = now_ms - self.created_ms
            if waited > segment_ms - self.rolling_jitter_ms:
                return "segment.ms"
        if self.index.is_full():
            return "offset index full"
        if self.time_index.is_full():
            return "time index full"
        if not 0 <= max_offset - self.base_offset <= INT32_MAX:
            return "relative offset overflow"
        return None

    # ------------------------------------------------------------------ append

    def append(self, data: memoryview | bytes, last_offset: int, max_timestamp: int) -> None:
        """Append one whole batch (offsets already assigned) at the end of the file.

        Raises OSError if the write fails; the file is cut back to its old
        size first so no partial batch is left behind.
        """
        fd = self._fd
        if fd is None or not self._active or self._closed:
            fd = self._file()
        rel = last_offset - self.base_offset
        if rel < 0 or rel > INT32_MAX:
            raise ValueError(f"offset {last_offset} does not fit in segment {self.base_offset}")
        position = self.size
        saved_max_ts = self._max_ts
        saved_since_index = self.bytes_since_last_index_entry
        saved_rolling = self._rolling_based_timestamp
        try:
            n = os.pwrite(fd, data, position)
            if n != len(data):  # short write: finish it or fail
                n += _write_all(fd, memoryview(data)[n:], position + n)
            self.size = position + n
            if position == 0:
                self._rolling_based_timestamp = max_timestamp
            self._tail.append((position, n, _BASE_OFFSET.unpack_from(data)[0], last_offset))
            # The index files are sparse: an entry can fail (ENOSPC) after the batch was written.
            # index_batch, inline (the append path's share of it: a batch below the index
            # interval only adds its size).
            current = saved_max_ts
            if (
                current is None
                or max_timestamp > current.timestamp
                or saved_since_index > self.index_interval_bytes
            ):
                self.index_batch(position, n, last_offset, max_timestamp)
            else:
                self.bytes_since_last_index_entry = saved_since_index + n
        except OSError:
            self.size = position
            self._tail.clear()
            self._max_ts = saved_max_ts
            self.bytes_since_last_index_entry = saved_since_index
            self._rolling_based_timestamp = saved_rolling
            with contextlib.suppress(OSError):
                os.ftruncate(fd, position)
            with contextlib.suppress(OSError):
                # Entries of this batch carry its last offset; earlier ones are smaller.
                self.index.truncate_to(last_offset)
                self.time_index.truncate_to(last_offset)
            raise

    def append_run(self, data: memoryview | bytes, batches: Sequence[tuple[int, int, int]]) -> None:
        """Append consecutive whole batches (offsets assigned) with one write, as Kafka's follower
        append writes a fetched record set at once; ``data`` holds them back to back and
        ``batches`` gives (size, last offset, max timestamp) of each, in order.

        Each batch is indexed as ``append`` indexes it. Raises OSError if the write fails; the
        file and the indexes are cut back to their old ends first.
        """
        fd = self._file()
        first_last = batches[0][1]
        for last in (first_last, batches[-1][1]):
            rel = last - self.base_offset
            if rel < 0 or rel > INT32_MAX:
                raise ValueError(f"offset {last} does not fit in segment {self.base_offset}")
        start = self.size
        saved = (self._max_ts, self.bytes_since_last_index_entry, self._rolling_based_timestamp)
        try:
            n = os.pwrite(fd, data, start)
            if n != len(data):  # short write: finish it or fail
                n += _write_all(fd, memoryview(data)[n:], start + n)
            self.size = start + n
            if start == 0:
                self._rolling_based_timestamp = batches[0][2]
            position = start
            tail = self._tail
            for size, last, max_ts in batches:
                self.index_batch(position, size, last, max_ts)
                tail.append((position, size, _BASE_OFFSET.unpack_from(data, position - start)[0], last))
                position += size
        except OSError:
            self.size = start
            self._tail.clear()
            self._max_ts, self.bytes_since_last_index_entry, self._rolling_based_timestamp = saved
            with contextlib.suppress(OSError):
                os.ftruncate(fd, start)
            with contextlib.suppress(OSError):
                self.index.truncate_to(first_last)
                self.time_index.truncate_to(first_last)
            raise

    def update_txn_index(self, txn: AbortedTxn) -> None:
        """Record an aborted transaction whose marker is in this segment (Kafka's ``updateTxnIndex``)."""
        self.txn_index.append(txn)

    def collect_aborted_txns(self, fetch_offset: int, upper_bound_offset: int) -> TxnIndexSearchResult:
        return self.txn_index.collect_aborted_txns(fetch_offset, upper_bound_offset)

    def index_batch(self, position: int, size: int, last_offset: int, max_timestamp: int) -> None:
        """Kafka's per-batch index rule (shared by append and recovery)."""
        current = self._max_ts
        if current is None:
            current = self._max_timestamp_and_offset()
        if max_timestamp > current.timestamp:
            current = self._max_ts = TimestampOffset(max_timestamp, last_offset)
        if self.bytes_since_last_index_entry > self.index_interval_bytes:
            self.index.append(last_offset, position)
            self.time_index.maybe_append(current.timestamp, current.offset)
            self.bytes_since_last_index_entry = size
        else:
            self.bytes_since_last_index_entry += size

    # ------------------------------------------------------------------ read

    def pread(self, position: int, size: int) -> bytes:
        return os.pread(self._file(), size, position)

    def file_slice(self, position: int, size: int) -> FileRecords:
        """``size`` bytes at ``position`` left in the file, to be sent from it (see storage.file_records)."""
        return FileRecords.of_file(self._file(), position, size)

    def read_header(self, position: int) -> BatchHeader | None:
        """The 61-byte header of the batch at ``position``, None past the end."""
        if position + HEADER_SIZE > self.size:
            return None
        raw = self.pread(position, HEADER_SIZE)
        if len(raw) < HEADER_SIZE:
            return None
        return BatchHeader._make(HEADER.unpack(raw))

    def iter_batch_positions(
        self, start_position: int = 0, end_position: int | None = None
    ) -> Iterator[BatchPosition]:
        """Positions, sizes and offsets of whole batches in [start, end), reading 27-byte headers.

        Stops at a partial batch or a length that cannot be a batch (the data
        has been validated on append or recovery; this is only a walk).
        """
        end = self.size if end_position is None else min(end_position, self.size)
        pos = start_position
        buf = b""
        buf_start = pos
        chunk = _FIRST_SCAN_CHUNK
        while pos + _BOUNDS_SIZE <= end:
            rel = pos - buf_start
            if rel < 0 or rel + _BOUNDS_SIZE > len(buf):
                buf = self.pread(pos, min(chunk, end - pos))
                chunk = min(chunk * 4, _SCAN_CHUNK)
                buf_start = pos
                rel = 0
                if len(buf) < _BOUNDS_SIZE:
                    return
            base, length, delta = _BOUNDS.unpack_from(buf, rel)
            size = length + LOG_OVERHEAD
            if length < _MIN_BATCH_LENGTH or pos + size > end:
                return
            yield BatchPosition(pos, size, base, base + delta)
            pos += size

    def iter_headers(self, start_position: int = 0) -> Iterator[tuple[int, BatchHeader]]:
        """(position, header) of each whole batch from ``start_position``, in 64 KiB reads."""
        end = self.size
        pos = start_position
        buf = b""
        buf_start = pos
        unpack = HEADER.unpack_from
        while pos + HEADER_SIZE <= end:
            rel = pos - buf_start
            if rel < 0 or rel + HEADER_SIZE > len(buf):
                buf = self.pread(pos, min(_HEADER_CHUNK, end - pos))
                buf_start, rel = pos, 0
                if len(buf) < HEADER_SIZE:
                    return
            header = BatchHeader._make(unpack(buf, rel))
            size = header.batch_length + LOG_OVERHEAD
            if size < HEADER_SIZE or pos + size > end:
                return
            yield pos, header
            pos += size

    def find_offset_by_timestamp(self, timestamp: int, starting_offset: int) -> tuple[int, int, int] | None:
        """(timestamp, offset, leader epoch) of the first record with timestamp >= target at or
        after ``starting_offset`` (Kafka's ``findOffsetByTimestamp`` + ``searchForTimestamp``).

        The time index gives where to start; only the one batch holding the answer is decoded.
        """
        entry = self.time_index.lookup(timestamp)
        position = self.index.lookup(max(entry.offset, starting_offset)).position
        for pos, header in self.iter_headers(position):
            if (
                header.max_timestamp >= timestamp
                and header.base_offset + header.last_offset_delta >= starting_offset
            ):
                for record in decode_batch(self.pread(pos, header.size), header):
                    if record.timestamp >= timestamp and record.offset >= starting_offset:
                        return record.timestamp, record.offset, header.partition_leader_epoch
        return None

    def find_max_timestamp_record(self) -> tuple[int, int, int] | None:
        """(timestamp, offset, leader epoch) of the first record carrying this segment's largest
        timestamp (Kafka 3.8+, KAFKA-16310: the batch is found by its max timestamp, then the
        record inside it; a LogAppendTime batch answers its base offset)."""
        max_ts = self.max_timestamp_so_far
        if max_ts < 0:
            return None
        position = self.index.lookup(self.offset_of_max_timestamp_so_far).position
        for pos, header in self.iter_headers(position):
            if header.max_timestamp == max_ts:
                epoch = header.partition_leader_epoch
                if header.timestamp_type == LOG_APPEND_TIME:
                    return max_ts, header.base_offset, epoch
                for record in decode_batch(self.pread(pos, header.size), header):
                    if record.timestamp == max_ts:
                        return max_ts, record.offset, epoch
                return None
        return None

    def translate_offset(self, offset: int, start_position: int = 0) -> BatchPosition | None:
        """The first batch at or after ``start_position`` whose last offset >= ``offset``.

        Kafka's ``LogSegment.translateOffset``: the offset index gives the start
        of the scan, then batch headers are read forward. None if no such batch.
        An offset among the last batches appended is found without either.
        """
        tail = self._tail
        if tail and tail[0][2] <= offset:
            # Every batch before the tail ends below offset; the tail reaches the file's end.
            for batch in tail:  # (position, size, base offset, last offset)
                if batch[3] >= offset and batch[0] >= start_position:
                    return BatchPosition._make(batch)
            return None
        hint = self.index.lookup(offset)
        begin = max(hint.position, start_position)
        for batch in self.iter_batch_positions(begin):
            if batch.last_offset >= offset:
                return batch
        return None

    def batch_boundary_at_or_before(self, start: int, limit: int) -> int:
        """The end of the last whole batch that starts at ``start`` and ends at or before ``limit``.

        ``start`` must be a batch boundary. Uses the offset index to skip ahead,
        then reads headers from there, so the cost is independent of the
        number of batches in between.
        """
        hint = self.index.lookup_by_position(limit)
        pos = hint.position if hint.position > start else start
        end = pos
        for batch in self.iter_batch_positions(pos, limit):
            end = batch.position + batch.size
        return end

    def read_next_offset(self) -> int:
        """Kafka's ``readNextOffset``: one past the last offset in this segment (base if empty)."""
        start = self.index.lookup(self.index.last_offset).position if self.index.entries else 0
        nxt = self.base_offset
        for batch in self.iter_batch_positions(start):
            nxt = batch.last_offset + 1
        return nxt

    # ------------------------------------------------------------------ recovery
    # Kafka's LogSegment.recover is storage.segment_recovery.recover_segment; these are the
    # steps it takes on the segment's state.

    def reset_for_recovery(self) -> int:
        """Empty the indexes and forget what was appended, before recovery rebuilds them from
        the log; the ``.log`` file's size (0 once the segment is closed)."""
        self._tail.clear()
        self.index.reset()
        self.time_index.reset()
        # Rebuilt by the producer-state replay that follows recovery (storage.log_loader).
        self.txn_index.reset()
        self._max_ts = TimestampOffset(NO_TIMESTAMP, self.base_offset)
        self._rolling_based_timestamp = None
        self.bytes_since_last_index_entry = 0
        file_size = 0 if self._closed else os.fstat(self._file()).st_size
        self.size = file_size
        return file_size

    def set_rolling_based_timestamp(self, timestamp: int | None) -> None:
        """The first batch's max timestamp, which ``segment.ms`` rolls by (recovery found it)."""
        self._rolling_based_timestamp = timestamp

    def cut_for_recovery(self, valid_bytes: int) -> None:
        """End the file after its last valid batch, at ``valid_bytes`` (recovery's cut)."""
        if not self._closed:
            os.ftruncate(self._file(), valid_bytes)
        self.size = valid_bytes

    def rebuild_state_after_load(self) -> None:
        """Prime in-memory state of a segment loaded without recovery (clean shutdown)."""
        self._max_ts = None
        self.bytes_since_last_index_entry = 0

    # ------------------------------------------------------------------ truncation

    def truncate_to(self, offset: int) -> int:
        """Remove every batch holding offsets >= ``offset``; bytes removed (Kafka's ``truncateTo``).

        A batch straddling ``offset`` is removed whole, as Kafka does.
        """
        batch = self.translate_offset(offset)
        if batch is None:
            return 0
        position = batch.position
        self._tail.clear()
        self.index.truncate_to(offset)
        self.time_index.truncate_to(offset)
        self.txn_index.truncate_to(offset)
        self.index.resize(self.max_index_size)
        self.time_index.resize(self.max_index_size)
        removed = self.size - position
        if not self._closed:
            os.ftruncate(self._file(), position)
        self.size = position
        self.bytes_since_last_index_entry = 0
        if position == 0:
            self._rolling_based_timestamp = None
        # Max timestamp: from the time index, then the batches after its last entry.
        self._max_ts = self.time_index.last_entry()
        start = self.index.lookup(self._max_ts.offset).position
        for b in self.iter_batch_positions(start):
            header = self.read_header(b.position)
            if header is not None and header.max_timestamp > self._max_ts.timestamp:
                self._max_ts = TimestampOffset(header.max_timestamp, b.last_offset)
        return removed

    # ------------------------------------------------------------------ life cycle

    def on_become_inactive(self) -> None:
        """Kafka's ``onBecomeInactiveSegment``: final time-index entry, trim both indexes."""
        mts = self._max_timestamp_and_offset()
        self.time_index.maybe_append(mts.timestamp, mts.offset, skip_full_check=True)
        self.index.close()
        self.time_index.close()
        self._active = False
        self._release_fd()  # reopened on the next read

    def make_active(self) -> None:
        """Reopen the indexes for appends, preallocated (Kafka's ``resizeIndexes``)."""
        self.index.resize(self.max_index_size)
        self.time_index.resize(self.max_index_size)
        self._active = True
        INACTIVE_LOG_FILES.remove(self)
        self._file()

    def flush(self) -> None:
        """fsync the log and both indexes, opening them by path (safe off the event loop)."""
        fsync_file_if_exists(self.log_path)
        self.index.flush()
        self.time_index.flush()
        self.txn_index.flush()

    def close(self) -> None:
        """Final time-index entry, trim and close the indexes, close the log file."""
        if self._closed:
            return
        mts = self._max_timestamp_and_offset()
        if mts.timestamp != NO_TIMESTAMP and self.index.writable:
            self.time_index.maybe_append(mts.timestamp, mts.offset, skip_full_check=True)
        self.index.close()
        self.time_index.close()
        # Closed before the descriptor goes: a read between the two (a deletion's file work
        # runs in an executor) must fail, not reopen a descriptor nobody would close.
        self._closed = True
        self._release_fd()

    def close_handlers(self) -> None:
        """Close the files without touching them (the segment is being deleted)."""
        self.index.close_handler()
        self.time_index.close_handler()
        self._closed = True
        self._release_fd()

    def files(self) -> list[Path]:
        return [self.log_path, self.index.path, self.time_index.path, self.txn_index.path]

    def rename_for_deletion(self) -> list[Path]:
        """Rename the files to ``*.deleted`` (Kafka's ``changeFileSuffixes("", ".deleted")``)."""
        out = []
        for path, rename in (
            (self.log_path, None),
            (self.index.path, self.index.rename_to),
            (self.time_index.path, self.time_index.rename_to),
            (self.txn_index.path, self.txn_index.rename_to),
        ):
            target = path.with_name(path.name + DELETED_SUFFIX)
            if rename is not None:
                rename(target)
            else:
                with contextlib.suppress(FileNotFoundError):
                    os.replace(path, target)
                self.log_path = target
            out.append(target)
        return out

    def delete_files(self) -> None:
        self.close_handlers()
        for path in self.files():
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
