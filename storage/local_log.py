"""The segment list of one partition's log: Kafka's ``LocalLog``.

``LocalLog`` owns the partition directory and its segments (``storage.segment``), the log
end offset and the recovery point: it rolls, reads, truncates and deletes segments, swaps a
cleaned segment in, flushes and closes them. ``storage.partition_log.PartitionLog`` (Kafka's
``UnifiedLog``: producer state, leader epochs, high watermark, log start offset,
transactions, append validation) extends it. Kafka composes the two (``UnifiedLog`` holds a
``localLog``); here ``PartitionLog`` inherits, so the append and read paths, O(1) Python work
per batch, pay no extra call or attribute hop to reach the segment list. Where Kafka's
``UnifiedLog`` method calls ``localLog``'s, ``PartitionLog``'s calls the underscored method
here (``_roll_segment``, ``_truncate_segments_to``, ``_remove_and_delete_segments``,
``_swap_cleaned_segment``, ``_flush_segments``, ``_close_segments``); ``read``,
``bytes_between`` and the aborted-transaction lookups are this class's own.

Also the directory names of Kafka's ``LocalLog`` companion object: ``<topic>-<partition>``
(``parse_topic_partition``) and the ``-delete`` / ``-future`` / ``-stray`` suffixes.

Threading: every method runs on the event loop, except ``_flush_segments``, which only
fsyncs (opening files by path) and may run in an executor while the loop keeps appending.
The segment list is replaced, never mutated in place, so a flush iterates a snapshot.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import random
import struct
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from protocol.errors import ErrorCode, KafkaError
from protocol.record_batch import HEADER_SIZE, LOG_OVERHEAD, BatchHeader
from storage.durable_io import fsync_dir
from storage.file_records import MIN_FILE_SLICE, FileRecords
from storage.log_config import LogConfig
from storage.log_dir_failure import LogDirState
from storage.log_loader import iter_batch_headers
from storage.log_types import FetchDataInfo, TimestampAndOffset
from storage.segment import (
    CLEANED_SUFFIX,
    DELETED_SUFFIX,
    INDEX_SUFFIX,
    LOG_SUFFIX,
    SWAP_SUFFIX,
    TIME_INDEX_SUFFIX,
    TXN_INDEX_SUFFIX,
    LogSegment,
    filename_prefix,
)
from storage.transaction_index import AbortedTxn

log = logging.getLogger(__name__)

_INT32 = struct.Struct(">i")
_BATCH_END = struct.Struct(">qi11xi")  # baseOffset, batchLength, ..., lastOffsetDelta

DELETE_DIR_SUFFIX = "-delete"
FUTURE_DIR_SUFFIX = "-future"
STRAY_DIR_SUFFIX = "-stray"


def parse_topic_partition(dir_name: str) -> tuple[str, int] | None:
    """``<topic>-<partition>`` -> (topic, partition); None for anything else."""
    topic, sep, part = dir_name.rpartition("-")
    if not sep or not topic or not part.isdigit():
        return None
    return topic, int(part)


def is_partition_dir_name(dir_name: str) -> bool:
    if dir_name.endswith((DELETE_DIR_SUFFIX, FUTURE_DIR_SUFFIX, STRAY_DIR_SUFFIX)):
        return False
    return parse_topic_partition(dir_name) is not None


class LocalLog:
    """One partition's directory and segment list (Kafka's ``LocalLog``); the base of ``PartitionLog``.

    Constructing one creates the directory if needed and leaves the segment list empty:
    ``PartitionLog`` loads it (``LogLoader``) and sets it with ``_set_segments``.
    """

    # Maintained by PartitionLog (Kafka's UnifiedLog.logStartOffset); read here to refuse,
    # and describe, a read below it.
    log_start_offset: int

    def __init__(self, directory: Path, config: LogConfig, *, time_ms: Callable[[], int]) -> None:
        parsed = parse_topic_partition(directory.name)
        if parsed is None:
            raise ValueError(f"{directory} is not a <topic>-<partition> directory")
        self.topic, self.partition = parsed
        self.dir = directory
        self.config = config
        self._time_ms = time_ms
        # Shared by the logs of one log dir (the LogManager sets it): full / offline. Set before
        # the loader runs: the epoch cache reports a failed checkpoint write to it.
        self.dir_state = LogDirState(directory.parent)
        try:
            os.mkdir(directory)  # Path.mkdir(exist_ok=True) adds a stat for an existing one
        except FileExistsError:
            pass
        except FileNotFoundError:
            directory.mkdir(parents=True, exist_ok=True)
        self._segments: tuple[LogSegment, ...] = ()
        self._bases: tuple[int, ...] = ()
        self.log_end_offset = 0
        self.recovery_point = 0
        self.last_flush_ms = time_ms()
        self._pending_deletes: list[tuple[int, list[Path]]] = []
        self._closed = False

    @property
    def name(self) -> str:
        return f"{self.topic}-{self.partition}"

    def _storage_error(self, exc: OSError, while_doing: str, message: str) -> KafkaError:
        """An I/O error in this log: its dir is told (full, or offline from now on, as Kafka's
        ``maybeHandleIOException``) and the request gets KAFKA_STORAGE_ERROR."""
        self.dir_state.report(exc, while_doing)
        return KafkaError(ErrorCode.KAFKA_STORAGE_ERROR, message)

    def check_online(self) -> None:
        """KAFKA_STORAGE_ERROR if this log's dir went offline (Kafka's KafkaStorageException)."""
        if self.dir_state.offline:
            raise KafkaError(
                ErrorCode.KAFKA_STORAGE_ERROR, f"Log {self.name} is in an offline log dir {self.dir.parent}"
            )

    # ------------------------------------------------------------------ segment list

    def _new_segment(self, base_offset: int, *, active: bool = True) -> LogSegment:
        cfg = self.config
        jitter = 0
        if cfg.segment_jitter_ms > 0:
            # LogConfig.randomSegmentJitter
            jitter = random.randrange(min(cfg.segment_jitter_ms, cfg.segment_ms))
        return LogSegment(
            self.dir,
            base_offset,
            index_interval_bytes=cfg.index_interval_bytes,
            max_index_size=cfg.segment_index_bytes,
            rolling_jitter_ms=jitter,
            created_ms=self._time_ms(),
            active=active,
        )

    def _set_segments(self, segments: list[LogSegment]) -> None:
        # Replace, never mutate: flush() may iterate the old tuple from another thread.
        self._segments = tuple(segments)
        self._bases = tuple(s.base_offset for s in segments)

    def _replace_all_segments(self, base_offset: int) -> None:
        for seg in self._segments:
            seg.delete_files()
        self._set_segments([self._new_segment(base_offset)])

    # ------------------------------------------------------------------ views

    @property
    def active_segment(self) -> LogSegment:
        return self._segments[-1]

    def segments(self) -> tuple[LogSegment, ...]:
        return self._segments

    @property
    def size_in_bytes(self) -> int:
        return sum(s.size for s in self._segments)

    @property
    def unflushed_messages(self) -> int:
        """Kafka's ``unflushedMessages``: offsets past the recovery point."""
        return self.log_end_offset - self.recovery_point

    def iter_headers(
        self, from_offset: int, to_offset: int | None = None
    ) -> Iterator[tuple[LogSegment, BatchHeader]]:
        """Headers of the batches holding offsets in [from_offset, to_offset), in order.

        Reads 64 KiB chunks and decodes 61-byte headers only (replay, tools).
        """
        end = self.log_end_offset if to_offset is None else to_offset
        yield from iter_batch_headers(self._segments, self._bases, from_offset, end)

    def aborted_transactions_for_read(
        self, fetch_offset: int, data: FetchDataInfo, max_offset: int
    ) -> list[AbortedTxn]:
        """The aborted transactions a read_committed fetch answers with ``data`` (read from
        ``fetch_offset``, nothing at or past ``max_offset``): those overlapping [fetch_offset,
        offset after the last batch read) (Kafka's ``LocalLog.addAbortedTransactions``, whose
        bound is the offset-index entry past the bytes read). Walks the batch headers of
        bytes; for records left in the files (sendfile) the offset after them is the next
        batch's base offset (one header read where the read ended) or the segment's end."""
        records = data.records
        if not records:
            return []
        if isinstance(records, FileRecords):
            upper = self._offset_after_read(data.read_end, min(max_offset, self.log_end_offset))
        else:
            upper = _offset_after_batches(records)
        if upper is None:
            return []
        try:
            return self.collect_aborted_transactions(fetch_offset, upper)
        except OSError as exc:
            # Part of Kafka's LocalLog.read, inside maybeHandleIOException as the read is.
            raise self._storage_error(
                exc,
                f"reading the transaction index of {self.name}",
                f"Error while reading {self.name}: {exc}",
            ) from None

    @staticmethod
    def _offset_after_read(read_end: tuple[LogSegment, int, int] | None, fallback: int) -> int:
        """The offset after a read that ended at ``read_end`` (see ``FetchDataInfo``): the base
        offset of the batch at that position, or the segment's end offset past its last batch;
        ``fallback`` where that cannot be read (the segment went meanwhile)."""
        if read_end is None:
            return fallback
        seg, position, seg_end = read_end
        try:
            head = seg.pread(position, 8)
        except (OSError, ValueError):
            return fallback
        return int.from_bytes(head, "big") if len(head) == 8 else seg_end

    def collect_aborted_transactions(self, fetch_offset: int, upper_bound_offset: int) -> list[AbortedTxn]:
        """Aborted transactions overlapping [fetch_offset, upper_bound_offset), from the
        ``.txnindex`` of the segment holding ``fetch_offset`` on, until an entry shows that no
        later one can overlap (Kafka's ``LocalLog.collectAbortedTransactions``)."""
        segments = self._segments
        i = max(0, bisect_right(self._bases, fetch_offset) - 1)
        found: list[AbortedTxn] = []
        for seg in segments[i:]:
            result = seg.collect_aborted_txns(fetch_offset, upper_bound_offset)
            found.extend(result.aborted)
            if result.is_complete:
                break
        return found

    # ------------------------------------------------------------------ roll, truncate

    def _roll_segment(self, new_base: int) -> LogSegment:
        """The segment-list half of ``PartitionLog.roll`` (Kafka's ``LocalLog.roll``): the
        active segment becomes inactive and a new one starts at ``new_base``, above it."""
        self._segments[-1].on_become_inactive()
        for suffix in (LOG_SUFFIX, INDEX_SUFFIX, TIME_INDEX_SUFFIX):
            stale = self.dir / (f"{new_base:020d}" + suffix)
            if stale.exists():
                log.warning("%s: deleting stale %s before rolling", self.name, stale.name)
                stale.unlink()
        seg = self._new_segment(new_base)
        self._set_segments([*self._segments, seg])
        return seg

    def _truncate_segments_to(self, offset: int) -> None:
        """The segment-list half of ``PartitionLog.truncate_to`` (Kafka's ``LocalLog.truncateTo``),
        for ``offset`` in [log start, log end): segments wholly at or past it are deleted, the
        one holding it is cut at the first batch reaching it, and the log end offset follows."""
        segments = list(self._segments)
        keep = [s for s in segments if s.base_offset < offset] or [segments[0]]
        doomed = [s for s in segments if s not in keep]
        for seg in doomed:
            seg.close_handlers()
            seg.delete_files()
        last = keep[-1]
        try:
            if doomed:
                last.make_active()  # it was rolled away from; it takes appends again
            last.truncate_to(offset)
        except OSError as exc:
            raise self._storage_error(
                exc, f"truncating {self.name} to {offset}", f"Error while truncating {self.name}: {exc}"
            ) from None
        self._set_segments(keep)
        self.log_end_offset = (
            last.read_next_offset() if last.size else max(last.base_offset, self.log_start_offset)
        )

    # ------------------------------------------------------------------ read

    def _out_of_range(self, offset: int) -> KafkaError:
        return KafkaError(
            ErrorCode.OFFSET_OUT_OF_RANGE,
            f"Received request for offset {offset} for partition {self.name}, but we only have "
            f"log segments in the range {self.log_start_offset} to {self.log_end_offset}.",
        )

    def read(
        self,
        offset: int,
        max_bytes: int,
        *,
        max_offset: int | None = None,
        min_one_batch: bool = True,
        file_records: bool = False,
    ) -> FetchDataInfo:
        """Whole batches from the first whose last offset >= ``offset`` (an offset the cleaner
        removed reads from the next batch), from a single segment (Kafka's ``LocalLog.read``)
        unless that segment's part holds only emptied batches: then the read goes on into the
        next segments until a batch holds records.

        Up to ``max_bytes``, but at least one whole batch when ``min_one_batch``
        (KIP-74); nothing at or past ``max_offset`` (the high watermark for
        consumers). KafkaError(OFFSET_OUT_OF_RANGE) outside [log start, log end];
        KAFKA_STORAGE_ERROR when the file cannot be read (the dir goes offline, as Kafka's
        ``LocalLog.read`` maps an IOException to KafkaStorageException).

        ``file_records``: a read of at least ``MIN_FILE_SLICE`` bytes returns a ``FileRecords``
        (the bytes left in the segment files, for the response writer to send from there)
        instead of the bytes.
        """
        try:
            return self._read(
                offset,
                max_bytes,
                max_offset=max_offset,
                min_one_batch=min_one_batch,
                file_records=file_records,
            )
        except OSError as exc:
            raise self._storage_error(
                exc, f"reading {self.name} at offset {offset}", f"Error while reading {self.name}: {exc}"
            ) from None

    def _read(
        self,
        offset: int,
        max_bytes: int,
        *,
        max_offset: int | None,
        min_one_batch: bool,
        file_records: bool = False,
    ) -> FetchDataInfo:
        """``read`` without its OSError handling."""
        leo = self.log_end_offset
        if offset < self.log_start_offset or offset > leo:
            raise self._out_of_range(offset)
        limit = leo if max_offset is None else min(max_offset, leo)
        if offset >= limit:
            return FetchDataInfo(b"", offset)
        # One consistent segment list for the whole read (a cleaner swap replaces the tuple).
        segments = self._segments
        bases = self._bases
        i = max(0, bisect_right(bases, offset) - 1)
        chunks: list = []  # bytes, or FileRecords when file_records
        position = offset
        limited = False
        read_end = None
        while i < len(segments):
            seg = segments[i]
            if seg.base_offset >= limit:
                break
            seg_end = bases[i + 1] if i + 1 < len(segments) else leo
            batch = seg.translate_offset(position)
            if batch is None:
                i += 1
                continue
            start = batch.position
            if limit >= seg_end:
                max_pos = seg.size
            else:
                cut = seg.translate_offset(limit, start)
                max_pos = cut.position if cut is not None else seg.size
            if max_pos <= start:
                break
            budget = max(max_bytes, batch.size) if min_one_batch else max_bytes
            end = start + budget
            if end >= max_pos:
                end = max_pos
            else:
                end = seg.batch_boundary_at_or_before(start, end)
                limited = True
            if end <= start:
                break
            size = end - start
            data = (
                _file_slice_or_bytes(seg, start, size)
                if file_records and size >= MIN_FILE_SLICE
                else seg.pread(start, size)
            )
            chunks.append(data)
            read_end = (seg, end, seg_end)
            # Kafka reads one segment. Moldau's cleaner keeps each group's last batch, emptied
            # (storage.log_cleaner), so a cleaned segment may end in (or hold only) batches
            # without records: an answer of those alone would give a consumer nothing
            # (librdkafka takes it for a too small fetch size and, after a few, fails with
            # MSG_SIZE_TOO_LARGE). Such a read goes on into the next segment, within the budget.
            if end < seg.size or seg_end >= limit:
                break
            if _holds_records(data if isinstance(data, bytes) else seg.pread(start, size)):
                break
            max_bytes = max(max_bytes - size, 0)
            position = seg_end
            i += 1
        if not chunks:
            return FetchDataInfo(b"", offset, limited)
        if len(chunks) == 1:
            return FetchDataInfo(chunks[0], offset, limited, read_end)
        if any(isinstance(c, FileRecords) for c in chunks):  # rare: a read across segments
            return FetchDataInfo(
                FileRecords.join([c for c in chunks if isinstance(c, FileRecords)])
                if all(isinstance(c, FileRecords) for c in chunks)
                else b"".join(c if isinstance(c, bytes) else c.read() for c in chunks),
                offset,
                limited,
                read_end,
            )
        return FetchDataInfo(b"".join(chunks), offset, limited, read_end)

    def bytes_between(self, start: int, end: int) -> int:
        """The bytes from the batch holding ``start`` to the batch holding ``end`` (the log end
        offset: to the end of the log), across segments: Kafka's
        ``LogOffsetMetadata.positionDiff`` for two offsets of this log. Two offset-index lookups
        (each reads at most an index interval of batch headers); 0 when ``end <= start``."""
        if end <= start:
            return 0
        segments, bases = self._segments, self._bases
        first = max(0, bisect_right(bases, start) - 1)
        last = max(0, bisect_right(bases, end) - 1)
        try:
            total = sum(segments[i].size for i in range(first, last))
            return total - _position_of(segments[first], start) + _position_of(segments[last], end)
        except OSError as exc:
            raise self._storage_error(
                exc, f"reading {self.name} at offset {start}", f"Error while reading {self.name}: {exc}"
            ) from None

    def _max_timestamp_offset(self) -> TimestampAndOffset | None:
        """KIP-734 as Kafka 3.8+: the first record with the largest timestamp (KAFKA-16310)."""
        best = None
        for seg in self._segments:
            if best is None or seg.max_timestamp_so_far > best.max_timestamp_so_far:
                best = seg
        if best is None or best.max_timestamp_so_far < 0:
            return None
        found = best.find_max_timestamp_record()
        return TimestampAndOffset(*found) if found is not None else None

    # ------------------------------------------------------------------ segment deletion

    def _remove_and_delete_segments(self, deletable: list[LogSegment], reason: str, now_ms: int) -> None:
        """Take ``deletable`` (segments below the active one) out of the list and rename their
        files ``.deleted`` for a delayed unlink (Kafka's ``LocalLog.removeAndDeleteSegments``).
        The retention pass does the same in slices (``remove_old_segments`` with
        ``max_segments``, then ``rename_for_deletion`` in the same step)."""
        self._remove_segments(deletable, reason)
        self._schedule_file_deletion(rename_for_deletion(deletable), now_ms)

    def _remove_segments(self, deletable: Sequence[LogSegment], reason: str) -> None:
        """On the loop: take ``deletable`` out of the segment list (readers no longer see them)
        and close their descriptors (a ``FileRecords`` read from them keeps its own); their
        files stay for ``rename_for_deletion``."""
        doomed = {id(s) for s in deletable}
        self._set_segments([s for s in self._segments if id(s) not in doomed])
        for seg in deletable:
            seg.close_handlers()
        if deletable:
            log.info(
                "%s: deleting %d segments from %d to %d (%s)",
                self.name,
                len(deletable),
                deletable[0].base_offset,
                deletable[-1].base_offset,
                reason,
            )

    def _schedule_file_deletion(self, paths: list[Path], now_ms: int) -> None:
        """Kafka deletes ``.deleted`` files after ``file.delete.delay.ms``."""
        if self.config.file_delete_delay_ms <= 0:
            unlink_all(paths)
        else:
            self.schedule_file_deletion(paths, now_ms)

    def schedule_file_deletion(self, paths: list[Path], now_ms: int) -> None:
        """On the loop: unlink ``paths`` (renamed ``.deleted``) after ``file.delete.delay.ms``
        (``take_due_deletions``, ``purge_deleted_files``; a closed log's: at its next load)."""
        self._pending_deletes.append((now_ms + self.config.file_delete_delay_ms, paths))

    def take_due_deletions(self, now_ms: int | None = None, *, force: bool = False) -> list[Path]:
        """On the loop: the ``.deleted`` files whose delay has passed (all with ``force``), no
        longer pending; the caller unlinks them (``unlink_all``, any thread)."""
        return [path for paths in self._take_due(now_ms, force) for path in paths]

    def purge_deleted_files(self, now_ms: int | None = None, *, force: bool = False) -> int:
        """Unlink ``.deleted`` files whose delay has passed (all of them with ``force``), here;
        returns how many deletions (each a list of files) were due."""
        due = self._take_due(now_ms, force)
        for paths in due:
            unlink_all(paths)
        return len(due)

    def _take_due(self, now_ms: int | None, force: bool) -> list[list[Path]]:
        if not self._pending_deletes:
            return []  # the flusher asks every log each second
        now = self._time_ms() if now_ms is None else now_ms
        due = [p for t, p in self._pending_deletes if force or t <= now]
        self._pending_deletes = [(t, p) for t, p in self._pending_deletes if not (force or t <= now)]
        return due

    # ------------------------------------------------------------------ log cleaner

    def _swap_cleaned_segment(
        self, old: Sequence[LogSegment], sizes: Sequence[int], cleaned_base: int
    ) -> bool:
        """Swap the cleaned segment ``<cleaned_base>.*.cleaned`` in for ``old`` (Kafka's
        ``LocalLog.replaceSegments``), on the loop, so readers see the old list or the new one.

        False (nothing done) when the log changed meanwhile: closed, ``old`` no longer a run
        of its segments before the active one, or a size differs from ``sizes`` (what the
        cleaner read). Crash-safe order, each state recovered at load
        (``storage.segment_recovery.clean_leftover_files``): the cleaned files (fsynced by the cleaner)
        are renamed ``.swap`` (the commit point is the last of these renames), the old
        segments' files ``.deleted``, then the ``.swap`` files to their final names. The
        caller fsyncs the directory afterwards, off the loop.
        """
        current = self._segments
        if self._closed or not old:
            return False
        start = next((i for i, seg in enumerate(current) if seg is old[0]), None)
        if (
            start is None
            or start + len(old) >= len(current)
            or any(current[start + i] is not seg for i, seg in enumerate(old))
            or any(seg.size != size for seg, size in zip(old, sizes, strict=True))
        ):
            return False
        prefix = filename_prefix(cleaned_base)
        suffixes: tuple[str, ...] = (LOG_SUFFIX, INDEX_SUFFIX, TIME_INDEX_SUFFIX)
        if (self.dir / (prefix + TXN_INDEX_SUFFIX + CLEANED_SUFFIX)).exists():
            # The cleaner wrote the aborted transactions it kept (storage.log_cleaner); it
            # commits with the other files (the commit point is the last .cleaned rename).
            suffixes = (TXN_INDEX_SUFFIX, *suffixes)
        try:
            for suffix in suffixes:
                os.replace(
                    self.dir / (prefix + suffix + CLEANED_SUFFIX), self.dir / (prefix + suffix + SWAP_SUFFIX)
                )
            deleted: list[Path] = []
            for seg in old:
                seg.close_handlers()
                deleted.extend(seg.rename_for_deletion())
            for suffix in suffixes:
                os.replace(self.dir / (prefix + suffix + SWAP_SUFFIX), self.dir / (prefix + suffix))
            cleaned = LogSegment(
                self.dir,
                cleaned_base,
                index_interval_bytes=self.config.index_interval_bytes,
                max_index_size=self.config.segment_index_bytes,
                created_ms=self._time_ms(),
                active=False,
            )
        except OSError as exc:
            # Kafka: an IOException in replaceSegments takes the log dir offline; the files
            # are in one of the states the next load completes or rolls back.
            raise self._storage_error(
                exc,
                f"swapping cleaned segment {cleaned_base} into {self.name}",
                f"Error while swapping segments of {self.name}: {exc}",
            ) from None
        self._set_segments([*current[:start], cleaned, *current[start + len(old) :]])
        self._schedule_file_deletion(deleted, self._time_ms())
        return True

    # ------------------------------------------------------------------ flush and close

    def _flush_segments(self, up_to: int | None) -> int:
        """The segment half of ``PartitionLog.flush`` (Kafka's ``LocalLog.flush``): fsync the
        segments below ``up_to`` (default: the log end offset) from the recovery point on;
        returns that offset. Thread-safe as ``PartitionLog.flush``."""
        leo = self.log_end_offset  # data below it is already written (appends write first)
        target = leo if up_to is None else min(up_to, leo)
        recovery_point = self.recovery_point
        if target <= recovery_point:
            return target
        segments = self._segments
        bases = [s.base_offset for s in segments]
        first = max(0, bisect_right(bases, recovery_point) - 1)
        for seg in segments[first:]:
            if seg.base_offset >= target:
                break
            seg.flush()
        if len(segments) - first > 1:
            # Segments were created since the last flush: make their directory entries durable.
            with contextlib.suppress(FileNotFoundError):
                fsync_dir(self.dir)
        return target

    def mark_flushed(self, offset: int, now_ms: int | None = None) -> None:
        """On the loop, after ``flush`` returned ``offset``: advance the recovery point."""
        if offset > self.recovery_point:
            self.recovery_point = min(offset, self.log_end_offset)
        self.last_flush_ms = self._time_ms() if now_ms is None else now_ms

    def _close_segments(self) -> None:
        """Close every segment (trimming indexes) and unlink every ``.deleted`` file (Kafka's
        ``LocalLog.close``); ``PartitionLog.close`` marks the log closed first."""
        for seg in self._segments:
            seg.close()
        self.purge_deleted_files(force=True)

    def close_handlers(self) -> None:
        """Close file descriptors without writing anything (topic deletion)."""
        self._closed = True
        for seg in self._segments:
            seg.close_handlers()

    @property
    def closed(self) -> bool:
        return self._closed


def _position_of(seg: LogSegment, offset: int) -> int:
    """Where the batch holding ``offset`` (or the first after it) starts in ``seg``; its size
    when the segment ends below ``offset``."""
    found = seg.translate_offset(offset)
    return seg.size if found is None else found.position


def _file_slice_or_bytes(seg: LogSegment, start: int, size: int) -> FileRecords | bytes:
    """The bytes left in the file, or read now when no descriptor is left to hold them (a
    full descriptor table is no failure of the log dir)."""
    try:
        return seg.file_slice(start, size)
    except OSError as exc:
        if exc.errno not in (errno.EMFILE, errno.ENFILE):
            raise
        return seg.pread(start, size)


def _offset_after_batches(data: bytes) -> int | None:
    """The offset after the last whole batch in ``data``, None if it holds none."""
    pos, size, end = 0, len(data), None
    while pos + _BATCH_END.size <= size:
        base, length, delta = _BATCH_END.unpack_from(data, pos)
        if length < HEADER_SIZE - LOG_OVERHEAD or pos + LOG_OVERHEAD + length > size:
            break
        end = base + delta + 1
        pos += LOG_OVERHEAD + length
    return end


def _holds_records(data: bytes) -> bool:
    """Whether any whole batch in ``data`` holds a record (a control record counts): O(1) when
    the first one does, as nearly always; batches the cleaner emptied are 61-byte headers."""
    pos, size = 0, len(data)
    while pos + HEADER_SIZE <= size:
        if _INT32.unpack_from(data, pos + HEADER_SIZE - 4)[0] > 0:
            return True
        batch_size = LOG_OVERHEAD + _INT32.unpack_from(data, pos + 8)[0]
        if batch_size < HEADER_SIZE:  # not a batch: stop here as if it held records
            return True
        pos += batch_size
    return False


def unlink_all(paths: list[Path]) -> None:
    """Any thread: unlink ``paths`` (``.deleted`` files), those already gone skipped."""
    for path in paths:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def rename_for_deletion(segments: Sequence[LogSegment], others: Sequence[Path] = ()) -> list[Path]:
    """Right after ``LocalLog._remove_segments`` (the segments out of every list, their
    descriptors closed), in the same step on the loop: later, the paths could name the files of
    a log re-created in the same dir. Rename the segments' files and ``others`` (their producer
    snapshots) ``*.deleted`` (Kafka's ``changeFileSuffixes("", ".deleted")``); the new paths, for
    the delayed unlink. A file already gone is skipped; another OSError is raised (the dir's
    failure). A load deletes ``.deleted`` files left by a crash."""
    paths: list[Path] = []
    for seg in segments:
        paths.extend(seg.rename_for_deletion())
    for path in others:
        target = path.with_name(path.name + DELETED_SUFFIX)
        with contextlib.suppress(FileNotFoundError):
            os.replace(path, target)
            paths.append(target)
    return paths
