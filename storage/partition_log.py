"""The log of one partition: Kafka's ``UnifiedLog`` + ``LocalLog``.

A partition directory ``<topic>-<partition>`` holds segments (``storage.segment``),
``leader-epoch-checkpoint``, ``partition.metadata`` and producer ``.snapshot``
files. This class owns the offsets (log start, log end, high watermark,
recovery point), the append path, reads, rolls, retention and flushing.
Loading and recovery of the directory at construction are
``storage.log_loader.LogLoader``'s (Kafka's ``LogLoader``).

Append path (``append_as_leader``), O(1) Python work per batch: validate
(header, CRC) -> producer-state check (a duplicate answers with the original
offsets and appends nothing) -> assign offsets by patching baseOffset and
partitionLeaderEpoch in place (outside the CRC) -> maybe roll -> one
``os.pwrite`` -> index bookkeeping -> producer-state update.

Transactions: a control batch (a COMMIT / ABORT marker, appended with origin COORDINATOR,
or replicated) ends its producer's transaction in the producer state; an aborted one is
appended to the ``.txnindex`` of the segment the marker went to (Kafka's
``UnifiedLog.append`` -> ``completeTxn`` / ``LogSegment.updateTxnIndex``). The last stable
offset is the first offset of the oldest unfinished transaction, else the high watermark;
``collect_aborted_transactions`` answers read_committed fetches.

Threading: every method runs on the event loop, except ``flush``, which only
fsyncs (opening files by path) and may run in an executor while the loop keeps
appending. ``flush`` returns the offset it made durable; the caller then calls
``mark_flushed`` on the loop, which advances ``recovery_point``. The segment
list is replaced, never mutated in place, so ``flush`` iterates a snapshot.
A roll writes its producer snapshot without fsync (no fsync on the loop, as
Kafka's ``UnifiedLog.roll``); the next ``flush`` fsyncs it, before the segments.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import random
import struct
import time
import uuid
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import NamedTuple

from protocol.control_records import EndTransactionMarker, read_end_txn_marker
from protocol.errors import ErrorCode, KafkaError
from protocol.primitives import DecodeError
from protocol.record_batch import (
    CONTROL_MASK,
    CURRENT_MAGIC,
    HEADER_SIZE,
    LOG_OVERHEAD,
    NO_TIMESTAMP,
    BatchHeader,
    compute_crc,
    iter_batches,
)
from storage.durable_io import fsync_dir
from storage.file_records import MIN_FILE_SLICE, FileRecords
from storage.leader_epoch import EpochEndOffset, LeaderEpochFileCache
from storage.log_config import LogConfig
from storage.log_dir_failure import LogDirState
from storage.log_loader import LogLoader, aborted_txn_of, iter_batch_headers, replay_producer_state
from storage.log_validator import FramedBatch, validate_batch_for_append
from storage.partition_metadata import write_partition_metadata
from storage.producer_state import AppendOrigin, CompletedTxn, ProducerStateManager
from storage.segment import (
    CLEANED_SUFFIX,
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

# ListOffsets special timestamps (ListOffsetsRequest)
LATEST_TIMESTAMP = -1
EARLIEST_TIMESTAMP = -2
MAX_TIMESTAMP = -3
EARLIEST_LOCAL_TIMESTAMP = -4
LATEST_TIERED_TIMESTAMP = -5

DELETE_DIR_SUFFIX = "-delete"
FUTURE_DIR_SUFFIX = "-future"
STRAY_DIR_SUFFIX = "-stray"


def _now_ms() -> int:
    return int(time.time() * 1000)


@dataclass(frozen=True)
class ProducerStateOptions:
    """Producer-state settings the broker fills from its config."""

    producer_id_expiration_ms: int = 86_400_000
    batch_window: int = 5
    duplicate_sequence_error: bool = True


class LogAppendInfo(NamedTuple):
    """Result of an append (Kafka's ``LogAppendInfo``).

    For a duplicate, base_offset/last_offset/log_append_time are those of the
    original batch, as Kafka answers a retried batch.
    """

    base_offset: int
    last_offset: int
    log_append_time: int
    log_start_offset: int
    num_records: int
    size: int
    duplicate: bool = False


@dataclass(frozen=True, slots=True)
class FetchDataInfo:
    """Whole batches read from one segment (or more, past segments that end in emptied batches)."""

    records: bytes | FileRecords  # FileRecords only when the read asked for them
    fetch_offset: int
    # A whole batch below the read's max_offset did not fit max_bytes (Kafka's read would
    # have filled max_bytes with a partial batch there).
    limited: bool = False


class FetchIsolation(Enum):
    """How far a read may go (Kafka's ``FetchIsolation``): the log end offset (followers,
    the broker's own readers), the high watermark (read_uncommitted consumers) or the last
    stable offset (read_committed consumers)."""

    LOG_END = "log_end"
    HIGH_WATERMARK = "high_watermark"
    TXN_COMMITTED = "txn_committed"


class TimestampAndOffset(NamedTuple):
    """ListOffsets answer; leader_epoch -1 when unknown."""

    timestamp: int
    offset: int
    leader_epoch: int


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


class PartitionLog:
    """One partition's segmented log. Construct to load (and recover) its directory (``LogLoader``)."""

    def __init__(
        self,
        directory: Path,
        config: LogConfig,
        *,
        topic_id: uuid.UUID | None = None,
        log_start_offset: int = 0,
        recovery_point: int = 0,
        high_watermark: int = 0,
        had_clean_shutdown: bool = True,
        producer_state: ProducerStateOptions | None = None,
        time_ms: Callable[[], int] = _now_ms,
        progress: Callable[[str, int, int], None] | None = None,
    ) -> None:
        parsed = parse_topic_partition(directory.name)
        if parsed is None:
            raise ValueError(f"{directory} is not a <topic>-<partition> directory")
        self.topic, self.partition = parsed
        self.topic_id = topic_id
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
        # One listing serves the producer state's snapshots and the loader's segments.
        listing = os.listdir(directory)
        opts = producer_state or ProducerStateOptions()
        self.producer_state = ProducerStateManager(
            directory,
            producer_id_expiration_ms=opts.producer_id_expiration_ms,
            batch_window=opts.batch_window,
            duplicate_sequence_error=opts.duplicate_sequence_error,
            time_ms=time_ms,
            listing=listing,
        )
        self.leader_epoch_cache = LeaderEpochFileCache(directory, on_write_error=self._report_io_error)
        self._segments: tuple[LogSegment, ...] = ()
        self._bases: tuple[int, ...] = ()
        self.log_start_offset = log_start_offset
        self.log_end_offset = 0
        self.high_watermark = 0
        self.recovery_point = 0
        self.last_flush_ms = time_ms()
        # Called (on the loop) when flush.messages is reached or a segment rolled.
        self.on_flush_needed: Callable[[PartitionLog], None] | None = None
        # Told after a truncation removed data (the log manager lowers the cleaner checkpoint).
        self.on_truncated: Callable[[PartitionLog], None] | None = None
        self._pending_deletes: list[tuple[int, list[Path]]] = []
        self._closed = False
        loaded = LogLoader(
            directory,
            config,
            name=self.name,
            leader_epoch_cache=self.leader_epoch_cache,
            producer_state=self.producer_state,
            new_segment=self._new_segment,
            time_ms=time_ms,
            log_start_offset=log_start_offset,
            recovery_point=recovery_point,
            had_clean_shutdown=had_clean_shutdown,
            progress=progress,
            listing=listing,
        ).load()
        self._set_segments(loaded.segments)
        self.log_start_offset = loaded.log_start_offset
        self.log_end_offset = loaded.log_end_offset
        self.recovery_point = loaded.recovery_point
        self.high_watermark = min(max(high_watermark, self.log_start_offset), self.log_end_offset)
        self.producer_state.on_high_watermark_updated(self.high_watermark)

    def __repr__(self) -> str:
        return f"PartitionLog({self.topic}-{self.partition}, start={self.log_start_offset}, end={self.log_end_offset})"

    @property
    def name(self) -> str:
        return f"{self.topic}-{self.partition}"

    def _storage_error(self, exc: OSError, while_doing: str, message: str) -> KafkaError:
        """An I/O error in this log: its dir is told (full, or offline from now on, as Kafka's
        ``maybeHandleIOException``) and the request gets KAFKA_STORAGE_ERROR."""
        self.dir_state.report(exc, while_doing)
        return KafkaError(ErrorCode.KAFKA_STORAGE_ERROR, message)

    def assign_topic_id(self, topic_id: uuid.UUID) -> None:
        """Kafka's ``UnifiedLog.assignTopicId``: a log loaded without a topic id (its
        ``partition.metadata`` lost to a crash) takes the controller's and writes the file;
        KafkaError(KAFKA_STORAGE_ERROR) if it cannot be written (the dir is told)."""
        try:
            write_partition_metadata(self.dir, topic_id)
        except OSError as exc:
            raise self._storage_error(
                exc, "writing partition.metadata", f"Error while writing the topic id of {self.name}: {exc}"
            ) from None
        self.topic_id = topic_id

    def _report_io_error(self, exc: OSError, while_doing: str) -> None:
        """The epoch cache's failed checkpoint write, reported to this log's dir (looked up
        now: the LogManager may have given the log its dir's shared state since)."""
        self.dir_state.report(exc, while_doing)

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
    def last_stable_offset(self) -> int:
        """The first offset of the oldest open transaction (or of one whose marker is not below
        the high watermark yet), else the high watermark; never below the log start offset
        (Kafka's ``UnifiedLog.lastStableOffset`` / ``firstUnstableOffsetMetadata``)."""
        first = self.producer_state.first_unstable_offset()
        hw = self.high_watermark
        if first is not None and first < hw:
            return max(first, self.log_start_offset)
        return hw

    def aborted_transactions_for_read(
        self, fetch_offset: int, records: bytes | FileRecords, max_offset: int
    ) -> list[AbortedTxn]:
        """The aborted transactions a read_committed fetch answers with ``records`` (read from
        ``fetch_offset``, nothing at or past ``max_offset``): those overlapping [fetch_offset,
        offset after the last batch read) (Kafka's ``LocalLog.addAbortedTransactions``). Walks
        the batch headers of bytes; records left in the files (sendfile) are bounded by
        ``max_offset`` instead, a wider range as Kafka's own bound (the next segment's base or
        the log end): clients only apply an entry to that producer's batches they receive."""
        if not records:
            return []
        if isinstance(records, FileRecords):
            upper = min(max_offset, self.log_end_offset)
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

    # ------------------------------------------------------------------ append

    def append_as_leader(
        self,
        records: memoryview | FramedBatch,
        leader_epoch: int,
        *,
        now_ms: int | None = None,
        origin: AppendOrigin = AppendOrigin.CLIENT,
    ) -> LogAppendInfo:
        """Validate and append one batch; KafkaError if refused.

        Writable records are patched in place (read-only ones are copied first); a
        ``FramedBatch`` (from the produce path's framing checks) is not framed again.
        """
        if self._closed or self.dir_state.offline:
            if self._closed:
                raise KafkaError(ErrorCode.KAFKA_STORAGE_ERROR, f"Log {self.name} is closed")
            self.check_online()
        now = self._time_ms() if now_ms is None else now_ms
        # Offsets and the leader epoch are patched into the validated (writable) bytes.
        validated = validate_batch_for_append(records, config=self.config, now_ms=now, origin=origin)
        records = validated.buf
        header = validated.header
        ps = self.producer_state
        producer_id = header.producer_id
        marker = self._marker_of(records, header) if header.attributes & CONTROL_MASK else None
        if producer_id >= 0:
            duplicate = ps.check_append(header, origin, marker)
            if duplicate is not None:
                # UnifiedLog.append: a duplicate answers the original batch's offsets and
                # timestamp (as LogAppendTime), and nothing is written.
                log.debug(
                    "%s: duplicate batch of producer %d epoch %d sequences %d-%d, already at offset %d",
                    self.name,
                    producer_id,
                    header.producer_epoch,
                    header.base_sequence,
                    header.last_sequence,
                    duplicate.first_offset,
                )
                return LogAppendInfo(
                    duplicate.first_offset,
                    duplicate.last_offset,
                    duplicate.timestamp,
                    self.log_start_offset,
                    header.records_count,
                    header.batch_length + LOG_OVERHEAD,
                    True,
                )
        base = self.log_end_offset
        last = base + header.last_offset_delta
        size = header.batch_length + LOG_OVERHEAD
        max_ts = header.max_timestamp
        cfg = self.config
        seg = self._segments[-1]
        # set_base_offset and set_partition_leader_epoch in one (the length between them is kept).
        _OFFSET_LENGTH_EPOCH.pack_into(records, 0, base, header.batch_length, leader_epoch)
        if leader_epoch >= 0 and leader_epoch != self.leader_epoch_cache.latest_epoch:
            # UnifiedLog.append assigns the epoch before the write: if the checkpoint cannot be
            # written (KAFKA_STORAGE_ERROR), nothing is appended.
            self.leader_epoch_cache.assign(leader_epoch, base)
        try:
            reason = seg.should_roll(size, max_ts, last, now, cfg.segment_bytes, cfg.max_segment_ms)
            if reason is not None:
                seg = self.roll(reason)
            seg.append(records if len(records) == size else records[:size], last, max_ts)
        except OSError as exc:
            # Kafka's UnifiedLog.append wraps IOException in KafkaStorageException and
            # reports the dir to the LogDirFailureChannel; the state logs once per change.
            raise self._storage_error(
                exc,
                f"appending to {self.name} at offset {base}",
                f"Error while appending to {self.name}: {exc}",
            ) from None
        if self.dir_state.full:
            self.dir_state.write_succeeded()
        self.log_end_offset = last + 1
        if producer_id >= 0:
            completed = ps.update(header, base, max_ts, origin, marker)
            if completed is not None:
                self._complete_txn(seg, completed)
        ps.map_end_offset = last + 1  # ProducerStateManager.update_map_end_offset
        if last + 1 - self.recovery_point >= cfg.flush_messages and self.on_flush_needed is not None:
            self.on_flush_needed(self)
        return LogAppendInfo(
            base, last, validated.log_append_time, self.log_start_offset, header.records_count, size
        )

    def _marker_of(self, batch: memoryview | bytes, header: BatchHeader) -> EndTransactionMarker | None:
        """The COMMIT / ABORT marker of a control batch; CORRUPT_MESSAGE when it cannot be read
        (Kafka: InvalidRecordException from ``EndTransactionMarker.deserialize``)."""
        try:
            return read_end_txn_marker(batch, header)
        except DecodeError as exc:
            raise KafkaError(
                ErrorCode.CORRUPT_MESSAGE,
                f"Invalid control batch at offset {header.base_offset} of {self.name}: {exc}",
            ) from None

    def _complete_txn(self, seg: LogSegment, completed: CompletedTxn) -> None:
        """Kafka's ``UnifiedLog`` append of a marker: an aborted transaction goes into the
        ``.txnindex`` of the segment the marker was written to."""
        if not completed.is_aborted:
            return
        lso = self.producer_state.last_stable_offset_for(completed)
        try:
            seg.update_txn_index(aborted_txn_of(completed, lso))
        except OSError as exc:
            raise self._storage_error(
                exc,
                f"writing the transaction index of {self.name}",
                f"Error while writing the transaction index of {self.name}: {exc}",
            ) from None

    def append_as_follower(self, records: memoryview | bytes) -> int:
        """Append batches fetched from the leader as they are; returns the bytes appended.

        Kafka's ``UnifiedLog.appendAsFollower`` (origin REPLICATION): offsets and leader
        epochs are kept as the leader wrote them; each batch's framing, magic and CRC are
        checked (CORRUPT_MESSAGE), its offsets must grow; batches wholly below the log end
        offset (already held) are skipped, and one straddling it makes the log truncate to
        its base first (the leader's batch wins). The leader-epoch cache follows the
        batches' epochs and the producer state is updated from them without sequence
        checks, so a follower holds the leader's producer state. A trailing partial batch
        is ignored (the next fetch asks from there). O(1) Python work per batch.
        """
        if self._closed:
            raise KafkaError(ErrorCode.KAFKA_STORAGE_ERROR, f"Log {self.name} is closed")
        self.check_online()
        buf = records if isinstance(records, memoryview) else memoryview(records)
        if buf.format != "B" or buf.ndim != 1:
            buf = buf.cast("B")
        try:
            batches = list(iter_batches(buf))
        except DecodeError as exc:
            raise KafkaError(ErrorCode.CORRUPT_MESSAGE, f"Fetched records of {self.name}: {exc}") from None
        # UnifiedLog.analyzeAndValidateRecords: everything is checked before anything is written.
        previous_last = -1
        first = None
        markers: dict[int, EndTransactionMarker | None] = {}  # by batch index: control batches' markers
        # (batch index, epoch, base offset) of each batch to append that starts a new epoch, to
        # assign before the write (few: only where the epoch changes).
        new_epochs: list[tuple[int, int, int]] = []
        latest_epoch = self.leader_epoch_cache.latest_epoch
        for i, (pos, header) in enumerate(batches):
            if header.magic != CURRENT_MAGIC:
                raise KafkaError(
                    ErrorCode.CORRUPT_MESSAGE, f"Fetched batch with magic {header.magic} in {self.name}"
                )
            if compute_crc(buf, pos, header.size) != header.crc:
                raise KafkaError(
                    ErrorCode.CORRUPT_MESSAGE,
                    f"Fetched batch at offset {header.base_offset} of {self.name} is corrupt (stored crc = {header.crc})",
                )
            if header.last_offset_delta < 0 or header.base_offset <= previous_last:
                raise KafkaError(
                    ErrorCode.CORRUPT_MESSAGE,
                    f"Fetched offsets of {self.name} do not increase at {header.base_offset}",
                )
            if header.size > self.config.segment_bytes:
                raise KafkaError(
                    ErrorCode.RECORD_LIST_TOO_LARGE,
                    f"Fetched batch of {header.size} bytes exceeds the segment size of {self.name}",
                )
            previous_last = header.last_offset
            if first is None and header.last_offset >= self.log_end_offset:
                first = i
            if first is not None:
                epoch = header.partition_leader_epoch
                if epoch >= 0 and epoch != latest_epoch:
                    new_epochs.append((i, epoch, header.base_offset))
                    latest_epoch = epoch
            if header.is_control and header.producer_id >= 0:
                markers[i] = self._marker_of(buf[pos : pos + header.size], header)
        if first is None:
            return 0
        straddling = batches[first][1]
        if straddling.base_offset < self.log_end_offset:
            self.truncate_to(straddling.base_offset)
            # The truncation may have cut epochs of the cache: compare with what is left.
            new_epochs = _epoch_starts(batches, first, self.leader_epoch_cache.latest_epoch)
        cfg = self.config
        cache = self.leader_epoch_cache
        ps = self.producer_state
        now = self._time_ms()
        appended = 0
        next_epoch = 0  # the first of new_epochs not assigned yet
        i = first
        while i < len(batches):
            # A run of batches written at once (UnifiedLog.append: one roll check for the
            # fetched set, one segment append); a run that could not fit a segment goes
            # batch by batch, each with its own roll check.
            pos, header = batches[i]
            tail_pos, tail = batches[-1]
            run = batches[i:] if tail_pos + tail.size - pos <= cfg.segment_bytes else batches[i : i + 1]
            end = run[-1][0] + run[-1][1].size
            last = run[-1][1].last_offset
            max_ts = max(h.max_timestamp for _, h in run)
            # UnifiedLog.append (maybeAssignEpochStartOffset) assigns the run's epochs before the
            # write: a checkpoint that cannot be written (KAFKA_STORAGE_ERROR) appends nothing.
            while next_epoch < len(new_epochs) and new_epochs[next_epoch][0] < i + len(run):
                _, epoch, base = new_epochs[next_epoch]
                cache.assign(epoch, base)
                next_epoch += 1
            seg = self._segments[-1]
            try:
                reason = seg.should_roll(end - pos, max_ts, last, now, cfg.segment_bytes, cfg.max_segment_ms)
                if reason is not None:
                    seg = self.roll(reason)
                seg.append_run(buf[pos:end], [(h.size, h.last_offset, h.max_timestamp) for _, h in run])
            except OSError as exc:
                self.dir_state.report(
                    exc, f"appending fetched batches to {self.name} at offset {header.base_offset}"
                )
                raise KafkaError(
                    ErrorCode.KAFKA_STORAGE_ERROR, f"Error while appending to {self.name}: {exc}"
                ) from None
            appended += end - pos
            for k in range(i, i + len(run)):
                header = batches[k][1]
                base = header.base_offset
                self.log_end_offset = header.last_offset + 1
                if header.producer_id >= 0:
                    completed = ps.update(
                        header, base, header.max_timestamp, AppendOrigin.REPLICATION, markers.get(k)
                    )
                    if completed is not None:
                        self._complete_txn(seg, completed)
            i += len(run)
        ps.update_map_end_offset(self.log_end_offset)
        if self.dir_state.full:
            self.dir_state.write_succeeded()
        if (
            self.log_end_offset - self.recovery_point >= cfg.flush_messages
            and self.on_flush_needed is not None
        ):
            self.on_flush_needed(self)
        return appended

    def truncate_to(self, offset: int) -> bool:
        """Remove every batch at or after ``offset`` (Kafka's ``UnifiedLog.truncateTo``); True if
        anything was removed.

        A follower agreeing with its leader (KIP-101/279). Segments wholly at or past it are
        deleted, the one holding it is cut at the first batch reaching it (a batch straddling
        ``offset`` goes whole, as Kafka's), with its indexes; the leader-epoch cache loses the
        epochs starting there (``truncateFromEnd``, also when nothing else is removed); the
        producer state is rebuilt from the newest snapshot below the new end and the batches
        after it; the high watermark and recovery point do not stay above the new end. Below
        the log start offset the log restarts empty there (``truncateFullyAndStartAt``).
        """
        if offset < 0:
            raise ValueError(f"cannot truncate {self.name} to a negative offset {offset}")
        if offset >= self.log_end_offset:
            # UnifiedLog.truncateTo: the epoch cache is cut anyway. An epoch this broker started
            # as leader without appending anything ends it; kept, the follower would send it as
            # its last fetched epoch forever and be told to truncate to where it already is.
            self.leader_epoch_cache.truncate_from_end(self.log_end_offset)
            return False
        if offset < self.log_start_offset:
            self.truncate_fully_and_start_at(offset)
            return True
        log.info("%s: truncating to offset %d (log end offset %d)", self.name, offset, self.log_end_offset)
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
        # The checkpoint is written last: if it fails (KAFKA_STORAGE_ERROR), the offsets and
        # producer state already match the truncated segments.
        self.leader_epoch_cache.truncate_from_end(self.log_end_offset, flush=False)
        if self.high_watermark > self.log_end_offset:
            self.high_watermark = self.log_end_offset
        if self.recovery_point > self.log_end_offset:
            self.recovery_point = self.log_end_offset
        self._rebuild_producer_state()
        if self.on_truncated is not None:
            self.on_truncated(self)
        self.leader_epoch_cache.flush()
        return True

    def _rebuild_producer_state(self) -> None:
        """Kafka's ``rebuildProducerState`` after a truncation: snapshots above the log end
        offset go, the newest one below it is loaded and the batches after it replayed."""
        ps = self.producer_state
        end = self.log_end_offset
        replay_from = max(ps.load(self.log_start_offset, end), self.log_start_offset)
        # The kept segments' .txnindex entries were cut at the new end (LogSegment.truncate_to).
        replay_producer_state(ps, self._segments, replay_from, end)
        ps.update_map_end_offset(end)
        ps.on_high_watermark_updated(self.high_watermark)

    def maybe_increment_log_start_offset(self, offset: int) -> None:
        """Move the log start offset up to the leader's (a follower), never past the high watermark."""
        self._increment_log_start_offset(min(offset, self.high_watermark))

    def check_online(self) -> None:
        """KAFKA_STORAGE_ERROR if this log's dir went offline (Kafka's KafkaStorageException)."""
        if self.dir_state.offline:
            raise KafkaError(
                ErrorCode.KAFKA_STORAGE_ERROR, f"Log {self.name} is in an offline log dir {self.dir.parent}"
            )

    def roll(self, reason: str = "requested") -> LogSegment:
        """Start a new active segment at the log end offset (Kafka's ``UnifiedLog.roll``)."""
        started = time.monotonic()
        new_base = self.log_end_offset
        old = self._segments[-1]
        if old.base_offset == new_base:
            # An empty active segment at the same offset: Kafka deletes and recreates it.
            return old
        old.on_become_inactive()
        for suffix in (LOG_SUFFIX, INDEX_SUFFIX, TIME_INDEX_SUFFIX):
            stale = self.dir / (f"{new_base:020d}" + suffix)
            if stale.exists():
                log.warning("%s: deleting stale %s before rolling", self.name, stale.name)
                stale.unlink()
        seg = self._new_segment(new_base)
        self._set_segments([*self._segments, seg])
        # Snapshot aligned with the new segment, so recovery can start from it. As Kafka's
        # UnifiedLog.roll (takeSnapshot(false)) it is not fsynced here, on the loop: the flush
        # that on_flush_needed asks for fsyncs it (flushProducerStateSnapshot). Until then a
        # crash may lose or tear it, and loading falls back to an older snapshot or the log start.
        self.producer_state.update_map_end_offset(new_base)
        self.producer_state.take_snapshot(sync=False)
        log.info(
            "%s: rolled new log segment at offset %d in %.1f ms (%s)",
            self.name,
            new_base,
            (time.monotonic() - started) * 1000,
            reason,
        )
        if self.on_flush_needed is not None:
            self.on_flush_needed(self)
        return seg

    def update_high_watermark(self, offset: int) -> None:
        """Set the high watermark, kept within [log start, log end] (Kafka's ``updateHighWatermark``)."""
        self.high_watermark = min(max(offset, self.log_start_offset), self.log_end_offset)
        self.producer_state.on_high_watermark_updated(self.high_watermark)

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
            return FetchDataInfo(chunks[0], offset, limited)
        if any(isinstance(c, FileRecords) for c in chunks):  # rare: a read across segments
            return FetchDataInfo(
                FileRecords.join([c for c in chunks if isinstance(c, FileRecords)])
                if all(isinstance(c, FileRecords) for c in chunks)
                else b"".join(c if isinstance(c, bytes) else c.read() for c in chunks),
                offset,
                limited,
            )
        return FetchDataInfo(b"".join(chunks), offset, limited)

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

    # ------------------------------------------------------------------ offsets by time / epoch

    def _epoch_or_none(self, epoch: int | None) -> int:
        return -1 if epoch is None else epoch

    def fetch_offset_by_timestamp(self, timestamp: int) -> TimestampAndOffset | None:
        """ListOffsets for one partition (Kafka's ``UnifiedLog.fetchOffsetByTimestamp``).

        -2 earliest (and -4 earliest local): (-1, log start, its epoch);
        -1 latest: (-1, log end, latest epoch); -3 max timestamp: the first
        record carrying the largest timestamp; -5 latest tiered: (-1, -1, -1)
        (no tiered storage); otherwise the first record with timestamp >=
        target at or after the log start offset, or None if there is none.
        KAFKA_STORAGE_ERROR when a segment cannot be read (the dir goes offline: Kafka runs
        ``UnifiedLog.fetchOffsetByTimestamp`` in ``maybeHandleIOException``, as ``read``).
        """
        try:
            return self._fetch_offset_by_timestamp(timestamp)
        except OSError as exc:
            raise self._storage_error(
                exc,
                f"looking up offsets by timestamp in {self.name}",
                f"Error while fetching offset by timestamp for {self.name}: {exc}",
            ) from None

    def _fetch_offset_by_timestamp(self, timestamp: int) -> TimestampAndOffset | None:
        cache = self.leader_epoch_cache
        if timestamp in (EARLIEST_TIMESTAMP, EARLIEST_LOCAL_TIMESTAMP):
            first = cache.earliest_entry()
            epoch = first.epoch if first is not None and first.start_offset <= self.log_start_offset else -1
            return TimestampAndOffset(NO_TIMESTAMP, self.log_start_offset, epoch)
        if timestamp == LATEST_TIMESTAMP:
            return TimestampAndOffset(
                NO_TIMESTAMP, self.log_end_offset, self._epoch_or_none(cache.latest_epoch)
            )
        if timestamp == LATEST_TIERED_TIMESTAMP:
            return TimestampAndOffset(NO_TIMESTAMP, -1, -1)
        if timestamp == MAX_TIMESTAMP:
            return self._max_timestamp_offset()
        if timestamp < 0:
            return None
        segments = self._segments
        target = next((s for s in segments if s.largest_timestamp() >= timestamp), None)
        if target is None:
            return None
        found = target.find_offset_by_timestamp(timestamp, self.log_start_offset)
        return TimestampAndOffset(*found) if found is not None else None

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

    def leader_epoch_for_offset(self, offset: int) -> int:
        """The leader epoch that wrote ``offset`` (Kafka's ``epochForOffset``), -1 if unknown."""
        return self._epoch_or_none(self.leader_epoch_cache.epoch_for_offset(offset))

    def end_offset_for_epoch(self, epoch: int) -> EpochEndOffset:
        """OffsetsForLeaderEpoch: (leader epoch, end offset), (-1, -1) if unknown."""
        return self.leader_epoch_cache.end_offset_for(epoch, self.log_end_offset)

    # ------------------------------------------------------------------ log start, retention

    def delete_records_before(self, offset: int) -> int:
        """DeleteRecords: move the log start offset to ``offset`` (-1: the high watermark).

        Kafka's ``maybeIncrementLogStartOffset`` with its ReplicaManager checks:
        OFFSET_OUT_OF_RANGE below 0 or above the high watermark. Whole segments
        below the new start are deleted by the next retention pass. Returns the
        new log start offset (the DeleteRecords low watermark).
        """
        if offset == -1:
            offset = self.high_watermark
        if offset < 0:
            raise KafkaError(
                ErrorCode.OFFSET_OUT_OF_RANGE, f"The offset {offset} for partition {self.name} is not valid"
            )
        if offset > self.high_watermark:
            raise KafkaError(
                ErrorCode.OFFSET_OUT_OF_RANGE,
                f"Cannot increment the log start offset to {offset} of partition {self.name} since it is "
                f"larger than the high watermark {self.high_watermark}",
            )
        self._increment_log_start_offset(offset)
        return self.log_start_offset

    def _increment_log_start_offset(self, offset: int) -> None:
        if offset <= self.log_start_offset:
            return
        self.log_start_offset = offset
        self.leader_epoch_cache.truncate_from_start(offset, flush=False)
        self.producer_state.truncate_head(offset)
        if self.recovery_point < offset:
            self.recovery_point = offset
        self.leader_epoch_cache.flush()  # last: a failure (KAFKA_STORAGE_ERROR) leaves all moved

    def delete_old_segments(self, now_ms: int | None = None) -> int:
        """Retention (Kafka's ``deleteOldSegments``): segments below the log start offset,
        then by ``retention.bytes`` and ``retention.ms`` (with cleanup.policy=delete).

        Only segments wholly below the high watermark go. When every segment
        qualifies, a new empty one is rolled first, as Kafka does, so the log
        always keeps an active segment. Returns the number deleted.
        """
        now = self._time_ms() if now_ms is None else now_ms
        deleted = self._delete_segments_while(
            lambda seg, nxt: nxt is not None and nxt.base_offset <= self.log_start_offset,
            "log start offset breach",
            now,
        )
        if "delete" not in self.config.cleanup_policy:
            return deleted
        retention_bytes = self.config.retention_bytes
        if retention_bytes >= 0:
            excess = self.size_in_bytes - retention_bytes
            if excess > 0:
                budget = [excess]

                def over_size(seg: LogSegment, _next: LogSegment | None) -> bool:
                    if budget[0] - seg.size >= 0:
                        budget[0] -= seg.size
                        return True
                    return False

                deleted += self._delete_segments_while(over_size, "retention.bytes", now)
        retention_ms = self.config.retention_ms
        if retention_ms >= 0:
            deleted += self._delete_segments_while(
                lambda seg, _next: now - seg.largest_timestamp() > retention_ms, "retention.ms", now
            )
        return deleted

    def _delete_segments_while(
        self, predicate: Callable[[LogSegment, LogSegment | None], bool], reason: str, now_ms: int
    ) -> int:
        segments = list(self._segments)
        deletable: list[LogSegment] = []
        for i, seg in enumerate(segments):
            nxt = segments[i + 1] if i + 1 < len(segments) else None
            upper = nxt.base_offset if nxt is not None else self.log_end_offset
            if nxt is None and seg.size == 0:
                break
            if self.high_watermark >= upper and predicate(seg, nxt):
                deletable.append(seg)
            else:
                break
        if not deletable:
            return 0
        if len(deletable) == len(segments):
            self.roll(f"all segments are deletable by {reason}")
        remaining = [s for s in self._segments if s not in deletable]
        self._set_segments(remaining)
        paths: list[Path] = []
        for seg in deletable:
            seg.close_handlers()
            paths.extend(seg.rename_for_deletion())
        log.info(
            "%s: deleting segments %s (%s)",
            self.name,
            [s.base_offset for s in deletable],
            reason,
        )
        self._schedule_file_deletion(paths, now_ms)
        self._increment_log_start_offset(remaining[0].base_offset)
        return len(deletable)

    def _schedule_file_deletion(self, paths: list[Path], now_ms: int) -> None:
        """Kafka deletes ``.deleted`` files after ``file.delete.delay.ms``."""
        if self.config.file_delete_delay_ms <= 0:
            _unlink_all(paths)
        else:
            self._pending_deletes.append((now_ms + self.config.file_delete_delay_ms, paths))

    def purge_deleted_files(self, now_ms: int | None = None, *, force: bool = False) -> int:
        """Unlink ``.deleted`` files whose delay has passed (all of them with ``force``)."""
        if not self._pending_deletes:
            return 0  # the flusher asks every log each second
        now = self._time_ms() if now_ms is None else now_ms
        due = [p for t, p in self._pending_deletes if force or t <= now]
        self._pending_deletes = [(t, p) for t, p in self._pending_deletes if not (force or t <= now)]
        for paths in due:
            _unlink_all(paths)
        return len(due)

    # ------------------------------------------------------------------ log cleaner

    def last_records_of_active_producers(self) -> dict[int, int]:
        """Producer id -> offset of its last data batch (Kafka's ``lastRecordsOfActiveProducers``):
        the cleaner keeps those batches, even emptied, so producer state stays valid."""
        return {
            pid: entry.last_data_offset
            for pid, entry in self.producer_state.active_producers().items()
            if entry.last_data_offset >= 0
        }

    def replace_segments(self, old: Sequence[LogSegment], sizes: Sequence[int], cleaned_base: int) -> bool:
        """Swap the cleaned segment ``<cleaned_base>.*.cleaned`` in for ``old`` (Kafka's
        ``LocalLog.replaceSegments``), on the loop, so readers see the old list or the new one.

        False (nothing done) when the log changed meanwhile: closed, ``old`` no longer a run
        of its segments before the active one, or a size differs from ``sizes`` (what the
        cleaner read). Crash-safe order, each state recovered at load
        (``storage.segment.clean_leftover_files``): the cleaned files (fsynced by the cleaner)
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
        # Kafka's replaceSegments -> deleteProducerSnapshots: the snapshots of the segments
        # merged away go with them (the cleaned segment's base keeps its own).
        self.producer_state.delete_snapshots(s.base_offset for s in old if s.base_offset != cleaned_base)
        return True

    def truncate_fully_and_start_at(self, offset: int) -> None:
        """Drop every batch and restart the log at ``offset`` (Kafka's ``truncateFullyAndStartAt``)."""
        self._replace_all_segments(offset)
        self.log_start_offset = self.log_end_offset = self.recovery_point = offset
        self.high_watermark = offset
        self.leader_epoch_cache.clear(flush=False)
        self.producer_state.truncate_fully_and_start_at(offset)
        if self.on_truncated is not None:
            self.on_truncated(self)
        self.leader_epoch_cache.flush()  # last: a failure (KAFKA_STORAGE_ERROR) leaves all reset

    # ------------------------------------------------------------------ flush and close

    def flush_due(self, now_ms: int) -> bool:
        """Whether ``flush.messages`` or ``flush.ms`` asks for an fsync now, or a roll left
        a segment or a producer snapshot to fsync."""
        if self.producer_state.has_unsynced_snapshots:
            return True
        if self.log_end_offset <= self.recovery_point:
            return False
        cfg = self.config
        return (
            self.log_end_offset - self.recovery_point >= cfg.flush_messages
            or now_ms - self.last_flush_ms >= cfg.flush_ms
            or (len(self._segments) > 1 and self._bases[-1] > self.recovery_point)
        )

    def flush(self, up_to: int | None = None) -> int:
        """fsync everything below ``up_to`` (default: the log end offset); returns that offset.

        First the producer snapshots rolls wrote without fsync (Kafka's ``flush-log`` task:
        ``flushProducerStateSnapshot``, then ``flushUptoOffsetExclusive``), so a failure there
        leaves the recovery point where it was. Safe to call from an executor thread while the
        loop appends: it reads a snapshot of the segment list and opens files by path, and
        changes no partition state (only which snapshots still wait for an fsync). Call
        ``mark_flushed`` with the result on the loop afterwards.
        """
        self.producer_state.sync_snapshots()
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

    def close(self) -> None:
        """Snapshot producer state and close every segment (trimming indexes).

        Only producer snapshots are fsynced (the new one, and any a roll left unsynced),
        so a clean shutdown leaves durable snapshots; segments are not (``flush``).
        """
        if self._closed:
            return
        self._closed = True
        self.producer_state.update_map_end_offset(self.log_end_offset)
        self.producer_state.take_snapshot()
        self.producer_state.sync_snapshots()
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


_OFFSET_LENGTH_EPOCH = struct.Struct(">qii")  # baseOffset, batchLength, partitionLeaderEpoch
_BATCH_END = struct.Struct(">qi11xi")  # baseOffset, batchLength, ..., lastOffsetDelta


def _epoch_starts(
    batches: Sequence[tuple[int, BatchHeader]], first: int, latest_epoch: int | None
) -> list[tuple[int, int, int]]:
    """(batch index, epoch, base offset) of the batches from ``first`` on that start an epoch
    after ``latest_epoch`` (a follower's append after a truncation; the common case finds them
    in its validation loop)."""
    starts = []
    for i in range(first, len(batches)):
        header = batches[i][1]
        epoch = header.partition_leader_epoch
        if epoch >= 0 and epoch != latest_epoch:
            starts.append((i, epoch, header.base_offset))
            latest_epoch = epoch
    return starts


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


def _unlink_all(paths: list[Path]) -> None:
    for path in paths:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
