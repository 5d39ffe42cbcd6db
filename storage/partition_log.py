"""The log of one partition: Kafka's ``UnifiedLog``, on its segment list ``LocalLog``.

A partition directory ``<topic>-<partition>`` holds segments (``storage.segment``),
``leader-epoch-checkpoint``, ``partition.metadata`` and producer ``.snapshot``
files. This class owns the log start offset, the high watermark, the producer state,
the leader-epoch cache and transactions, the append path (validation, offsets), and the
log's side of reads, rolls, truncation, retention and flushing. The segment list itself
(segments, log end offset, recovery point; rolling, reading, truncating, deleting and
swapping segments, flushing them) is its base class ``storage.local_log.LocalLog``
(Kafka's ``LocalLog``); the value types it answers with are in ``storage.log_types``.
Both modules' public names are re-exported here. Loading and recovery of the directory at
construction are ``storage.log_loader.LogLoader``'s (Kafka's ``LogLoader``).

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
Retention works in slices: ``remove_old_segments(max_segments=...)`` takes segments out and
moves the log start offset, ``rename_for_deletion`` renames their files in the same step; the
unlinks run in an executor. A
leader-epoch checkpoint cut by a truncation or a new log start offset is written by
``on_epoch_checkpoint_dirty`` off the loop when set (Kafka's ``*AsyncFlush``). A follower's
append can be split for the replica fetcher: ``check_follower_records`` (the checks, nothing
changed), ``follower_epoch_checkpoint`` (the checkpoint its new epochs need, written ahead in an
executor), ``append_as_follower`` of the checked records (its assigns then write nothing).
"""

from __future__ import annotations

import logging
import os
import struct
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

from protocol.control_records import EndTransactionMarker, read_end_txn_marker
from protocol.errors import ErrorCode, KafkaError
from protocol.primitives import DecodeError
from protocol.record_batch import (
    CONTROL_MASK,
    CURRENT_MAGIC,
    LOG_OVERHEAD,
    NO_TIMESTAMP,
    BatchHeader,
    compute_crc,
    iter_batches,
)
from storage.leader_epoch import EpochEndOffset, EpochEntry, LeaderEpochFileCache, PendingCheckpoint
from storage.local_log import LocalLog, rename_for_deletion
from storage.log_config import LogConfig
from storage.log_loader import LogLoader, aborted_txn_of, replay_producer_state
from storage.log_types import (
    EARLIEST_LOCAL_TIMESTAMP,
    EARLIEST_TIMESTAMP,
    LATEST_TIERED_TIMESTAMP,
    LATEST_TIMESTAMP,
    MAX_TIMESTAMP,
    LogAppendInfo,
    ProducerStateOptions,
    TimestampAndOffset,
)
from storage.log_validator import FramedBatch, ValidatedBatch, validate_batch_for_append
from storage.partition_metadata import write_partition_metadata
from storage.producer_state import AppendOrigin, ProducerStateManager
from storage.producer_state_entry import BatchMetadata, CompletedTxn
from storage.segment import LogSegment

log = logging.getLogger(__name__)


def _now_ms() -> int:
    return int(time.time() * 1000)


class PartitionLog(LocalLog):
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
        # The directory, its segment list (empty until loaded), log end offset and recovery point.
        super().__init__(directory, config, time_ms=time_ms)
        self.topic_id = topic_id
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
        self.log_start_offset = log_start_offset
        self.high_watermark = 0
        # Called (on the loop) when flush.messages is reached or a segment rolled.
        self.on_flush_needed: Callable[[PartitionLog], None] | None = None
        # Told after a truncation removed data (the log manager lowers the cleaner checkpoint).
        self.on_truncated: Callable[[PartitionLog], None] | None = None
        # Told (on the loop) when the leader-epoch cache was cut and its checkpoint is to be
        # written (Kafka's truncateFromStartAsyncFlush / truncateFromEndAsyncFlush): True if it
        # will be written off the loop soon; None or False: written now, here.
        self.on_epoch_checkpoint_dirty: Callable[[PartitionLog], bool] | None = None
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

    # ------------------------------------------------------------------ views

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

    # ------------------------------------------------------------------ append

    def append_as_leader(
        self,
        records: memoryview | FramedBatch | ValidatedBatch,
        leader_epoch: int,
        *,
        now_ms: int | None = None,
        origin: AppendOrigin = AppendOrigin.CLIENT,
    ) -> LogAppendInfo:
        """Validate and append one batch; KafkaError if refused.

        Writable records are patched in place (read-only ones are copied first); a
        ``FramedBatch`` (from the produce path's framing checks) is not framed again, a
        ``ValidatedBatch`` (validated on a worker thread) not validated again.
        """
        if self._closed or self.dir_state.offline:
            if self._closed:
                raise KafkaError(ErrorCode.KAFKA_STORAGE_ERROR, f"Log {self.name} is closed")
            self.check_online()
        now = self._time_ms() if now_ms is None else now_ms
        # Offsets and the leader epoch are patched into the validated (writable) bytes.
        validated = (
            records  # validated off the event loop (ReplicaManager, NeedsOffload)
            if records.__class__ is ValidatedBatch
            else validate_batch_for_append(records, config=self.config, now_ms=now, origin=origin)
        )
        records = validated.buf
        header = validated.header
        ps = self.producer_state
        producer_id = header.producer_id
        marker = self._marker_of(records, header) if header.attributes & CONTROL_MASK else None
        if producer_id >= 0:
            duplicate = ps.check_append(header, origin, marker)
            if duplicate is not None:
                return self._duplicate_append_info(header, duplicate)
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

    def _duplicate_append_info(self, header: BatchHeader, duplicate: BatchMetadata) -> LogAppendInfo:
        """UnifiedLog.append: a duplicate answers the original batch's offsets and
        timestamp (as LogAppendTime), and nothing is written."""
        log.debug(
            "%s: duplicate batch of producer %d epoch %d sequences %d-%d, already at offset %d",
            self.name,
            header.producer_id,
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

    def check_follower_records(self, records: memoryview | bytes) -> FollowerRecords:
        """The first half of ``append_as_follower``, changing nothing: the fetched batches
        checked (Kafka's ``analyzeAndValidateRecords``: framing, magic, CRC, growing offsets,
        CORRUPT_MESSAGE / RECORD_LIST_TOO_LARGE otherwise), the first one to append and the
        epochs they start. Pass the result to ``append_as_follower``; in between,
        ``follower_epoch_checkpoint`` gives the checkpoint write its epochs need, to be done
        ahead off the loop (the replica fetcher). O(1) Python work per batch."""
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
        cfg = self.config
        log_end = self.log_end_offset
        cache = self.leader_epoch_cache
        latest = cache.latest_entry()
        previous_last = -1
        first = None
        markers: dict[int, EndTransactionMarker | None] = {}  # by batch index: control batches' markers
        # (batch index, epoch, base offset) of each batch to append that starts a new epoch, to
        # assign before the write (few: only where the epoch changes).
        new_epochs: list[tuple[int, int, int]] = []
        latest_epoch = latest.epoch if latest is not None else None
        for i, (pos, header) in enumerate(batches):
            if (
                header.magic != CURRENT_MAGIC
                or compute_crc(buf, pos, header.size) != header.crc
                or header.last_offset_delta < 0
                or header.base_offset <= previous_last
                or header.size > cfg.segment_bytes
            ):
                raise self._invalid_fetched_batch(buf, pos, header, previous_last)
            previous_last = header.last_offset
            if first is None and header.last_offset >= log_end:
                first = i
            if first is not None:
                epoch = header.partition_leader_epoch
                if epoch >= 0 and epoch != latest_epoch:
                    new_epochs.append((i, epoch, header.base_offset))
                    latest_epoch = epoch
            if header.is_control and header.producer_id >= 0:
                markers[i] = self._marker_of(buf[pos : pos + header.size], header)
        truncate_to = -1
        if first is not None and batches[first][1].base_offset < log_end:
            # The batch straddling the log end wins: the log is cut at its base first, and the
            # epochs starting there with it (the append recomputes them after the cut).
            truncate_to = batches[first][1].base_offset
            new_epochs = _epoch_starts(batches, first, cache.epoch_for_offset(truncate_to - 1))
        return FollowerRecords(
            buf, batches, first, markers, new_epochs, truncate_to, cfg, log_end, self.log_start_offset, latest
        )

    def follower_epoch_checkpoint(self, checked: FollowerRecords) -> PendingCheckpoint | None:
        """On the loop, between ``check_follower_records`` and ``append_as_follower``: the
        leader-epoch checkpoint the append's assigns would write (the epochs its batches start,
        after the cut of a straddling batch), None if none. Written ahead off the loop
        (``write_pending_checkpoints``, then ``written`` on the loop), the append writes no
        checkpoint. Until the append, the file holds epochs starting at or past the log end
        offset: a load after a crash meanwhile cuts them (``LogLoader``: the epoch cache is cut
        to the log end), and any other change of the cache before then writes the file again
        (the cache is dirty: its entries are not the file's)."""
        if not checked.new_epochs or self.dir_state.offline:
            return None
        return self.leader_epoch_cache.prepare_assigns(
            [(epoch, base) for _, epoch, base in checked.new_epochs],
            truncated_to=checked.truncate_to if checked.truncate_to >= 0 else None,
        )

    def append_as_follower(self, records: memoryview | bytes | FollowerRecords) -> int:
        """Append batches fetched from the leader as they are; returns the bytes appended.

        Kafka's ``UnifiedLog.appendAsFollower`` (origin REPLICATION): offsets and leader
        epochs are kept as the leader wrote them; each batch's framing, magic and CRC are
        checked (CORRUPT_MESSAGE), its offsets must grow; batches wholly below the log end
        offset (already held) are skipped, and one straddling it makes the log truncate to
        its base first (the leader's batch wins). The leader-epoch cache follows the
        batches' epochs and the producer state is updated from them without sequence
        checks, so a follower holds the leader's producer state. A trailing partial batch
        is ignored (the next fetch asks from there). O(1) Python work per batch.

        ``records`` may be the result of ``check_follower_records``: the batches are not
        checked again unless the log changed since (its ends, latest epoch or config).
        """
        if not isinstance(records, FollowerRecords):
            checked = self.check_follower_records(records)
        elif records.still_fits(self) and not self._closed:
            checked = records
            self.check_online()
        else:
            checked = self.check_follower_records(records.buf)
        buf, batches, first, markers, new_epochs = (
            checked.buf,
            checked.batches,
            checked.first,
            checked.markers,
            checked.new_epochs,
        )
        if first is None:
            return 0
        cfg = checked.config
        if checked.truncate_to >= 0:
            self.truncate_to(checked.truncate_to)
            # The truncation may have cut epochs of the cache: compare with what is left.
            new_epochs = _epoch_starts(batches, first, self.leader_epoch_cache.latest_epoch)
        # New epochs written ahead (the replica fetcher, off the loop): their assigns write
        # nothing, not even a first one whose entries are a prefix of the file's.
        written_ahead = bool(new_epochs) and self.leader_epoch_cache.holds_assigns(
            [(epoch, base) for _, epoch, base in new_epochs]
        )
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
                cache.assign(epoch, base, flush=not written_ahead)
                next_epoch += 1
            seg = self._segments[-1]
            try:
                reason = seg.should_roll(end - pos, max_ts, last, now, cfg.segment_bytes, cfg.max_segment_ms)
                if reason is not None:
                    seg = self.roll(reason)
                seg.append_run(buf[pos:end], [(h.size, h.last_offset, h.max_timestamp) for _, h in run])
            except OSError as exc:
                raise self._storage_error(
                    exc,
                    f"appending fetched batches to {self.name} at offset {header.base_offset}",
                    f"Error while appending to {self.name}: {exc}",
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

    def _invalid_fetched_batch(
        self, buf: memoryview, pos: int, header: BatchHeader, previous_last: int
    ) -> KafkaError:
        """Why ``append_as_follower`` refuses the fetched batch at ``pos``: the first of its
        checks (in their order) that the batch fails."""
        if header.magic != CURRENT_MAGIC:
            return KafkaError(
                ErrorCode.CORRUPT_MESSAGE, f"Fetched batch with magic {header.magic} in {self.name}"
            )
        if compute_crc(buf, pos, header.size) != header.crc:
            return KafkaError(
                ErrorCode.CORRUPT_MESSAGE,
                f"Fetched batch at offset {header.base_offset} of {self.name} is corrupt (stored crc = {header.crc})",
            )
        if header.last_offset_delta < 0 or header.base_offset <= previous_last:
            return KafkaError(
                ErrorCode.CORRUPT_MESSAGE,
                f"Fetched offsets of {self.name} do not increase at {header.base_offset}",
            )
        return KafkaError(
            ErrorCode.RECORD_LIST_TOO_LARGE,
            f"Fetched batch of {header.size} bytes exceeds the segment size of {self.name}",
        )

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
            self.leader_epoch_cache.truncate_from_end(self.log_end_offset, flush=False)
            self.write_epoch_checkpoint_soon()
            return False
        if offset < self.log_start_offset:
            self.truncate_fully_and_start_at(offset)
            return True
        log.info("%s: truncating to offset %d (log end offset %d)", self.name, offset, self.log_end_offset)
        self._truncate_segments_to(offset)
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
        self.write_epoch_checkpoint_soon()
        return True

    def write_epoch_checkpoint_soon(self) -> None:
        """The leader-epoch cache was cut (truncation, log start offset), or epochs written
        ahead for an append that did not happen (the replica fetcher): its checkpoint is
        written off the loop by ``on_epoch_checkpoint_dirty`` (Kafka's ``*AsyncFlush``: a load
        after a crash meanwhile cuts the cache again), else here (KAFKA_STORAGE_ERROR if it
        cannot be). No-op when the file has the entries."""
        cache = self.leader_epoch_cache
        if not cache.dirty:
            return
        hook = self.on_epoch_checkpoint_dirty
        if hook is None or not hook(self):
            cache.flush()

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

    def roll(self, reason: str = "requested") -> LogSegment:
        """Start a new active segment at the log end offset (Kafka's ``UnifiedLog.roll``)."""
        started = time.monotonic()
        new_base = self.log_end_offset
        old = self._segments[-1]
        if old.base_offset == new_base:
            # An empty active segment at the same offset: Kafka deletes and recreates it.
            return old
        seg = self._roll_segment(new_base)
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
        # In memory only (Kafka's onLogStartOffsetIncremented): the producer snapshots below it
        # go with their segments (remove_old_segments).
        self.producer_state.truncate_head(offset)
        if self.recovery_point < offset:
            self.recovery_point = offset
        # Last: a failure written here (KAFKA_STORAGE_ERROR) leaves all moved.
        self.write_epoch_checkpoint_soon()

    def delete_old_segments(self, now_ms: int | None = None) -> int:
        """Retention (Kafka's ``deleteOldSegments``), all of it here: ``remove_old_segments``,
        then the files renamed ``.deleted`` for the delayed unlink. Returns the number deleted.
        The log manager's retention pass does the file half in an executor instead."""
        now = self._time_ms() if now_ms is None else now_ms
        removed = self.remove_old_segments(now)
        if removed is None:
            return 0
        try:
            paths = rename_for_deletion(removed.segments, removed.snapshots)
        except OSError as exc:
            raise self._storage_error(
                exc,
                f"deleting old segments of {self.name}",
                f"Error while deleting segments of {self.name}: {exc}",
            ) from None
        self._schedule_file_deletion(paths, now)
        return len(removed.segments)

    def remove_old_segments(
        self, now_ms: int | None = None, *, max_segments: int | None = None
    ) -> RemovedSegments | None:
        """The in-memory half of retention, on the loop (Kafka's ``deleteOldSegments`` up to
        ``LocalLog.removeAndDeleteSegments``, whose file work is asynchronous there too):
        segments below the log start offset, then by ``retention.bytes`` and ``retention.ms``
        (with cleanup.policy=delete), leave the segment list (their descriptors closed) and the
        log start offset moves to the first one kept; their producer snapshots leave the
        producer state. Returns them for ``rename_for_deletion`` (at once), None if none.

        Only segments wholly below the high watermark go. When every segment qualifies, a new
        empty one is rolled first, as Kafka does, so the log always keeps an active segment.
        A reader gets OFFSET_OUT_OF_RANGE below the new log start offset, as after a deletion.
        ``max_segments``: at most that many go (the retention pass works in slices; the next
        call takes the next ones).
        """
        now = self._time_ms() if now_ms is None else now_ms
        left = [max_segments]  # None: no limit
        removed = self._remove_segments_while(
            lambda seg, nxt: nxt is not None and nxt.base_offset <= self.log_start_offset,
            "log start offset breach",
            left,
        )
        if "delete" in self.config.cleanup_policy:
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

                    removed += self._remove_segments_while(over_size, "retention.bytes", left)
            retention_ms = self.config.retention_ms
            if retention_ms >= 0:
                removed += self._remove_segments_while(
                    lambda seg, _next: now - seg.largest_timestamp() > retention_ms, "retention.ms", left
                )
        if not removed:
            return None
        # Kafka's deleteSegments -> deleteProducerSnapshots (removeAndMarkSnapshotForDeletion).
        snapshots = self.producer_state.remove_snapshots_below(self._segments[0].base_offset)
        return RemovedSegments(removed, snapshots)

    def _remove_segments_while(
        self,
        predicate: Callable[[LogSegment, LogSegment | None], bool],
        reason: str,
        left: list[int | None],
    ) -> list[LogSegment]:
        """The leading segments ``predicate`` accepts, removed; ``left[0]``: how many more may
        go in this call of ``remove_old_segments`` (None: any), lowered by those removed."""
        segments = self._segments
        deletable: list[LogSegment] = []
        hw, leo = self.high_watermark, self.log_end_offset
        limit = left[0]
        for i, seg in enumerate(segments):
            if limit is not None and len(deletable) >= limit:
                break
            nxt = segments[i + 1] if i + 1 < len(segments) else None
            upper = nxt.base_offset if nxt is not None else leo
            if nxt is None and seg.size == 0:
                break
            if hw >= upper and predicate(seg, nxt):
                deletable.append(seg)
            else:
                break
        if limit is not None:
            left[0] = limit - len(deletable)
        if not deletable:
            return deletable
        if len(deletable) == len(segments):
            self.roll(f"all segments are deletable by {reason}")
        self._remove_segments(deletable, reason)
        self._increment_log_start_offset(self._segments[0].base_offset)
        return deletable

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
        ``UnifiedLog.replaceSegments``): ``LocalLog._swap_cleaned_segment`` (its conditions,
        False when the log changed meanwhile, and its crash-safe order), then the producer
        snapshots of the segments merged away are deleted."""
        if not self._swap_cleaned_segment(old, sizes, cleaned_base):
            return False
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
        return self._flush_segments(up_to)

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
        self._close_segments()


class RemovedSegments(NamedTuple):
    """Segments retention took out of a log (``remove_old_segments``) and the paths of their
    producer snapshots, whose files are still to be renamed ``.deleted``."""

    segments: list[LogSegment]
    snapshots: list[Path]


class FollowerRecords(NamedTuple):
    """Fetched batches checked by ``PartitionLog.check_follower_records``, for its
    ``append_as_follower``, and the log's state they were checked against."""

    buf: memoryview
    batches: list[tuple[int, BatchHeader]]  # (position, header) of each batch
    first: int | None  # index of the first batch to append; None: the log holds them all
    markers: dict[int, EndTransactionMarker | None]  # control batches' markers, by index
    new_epochs: list[tuple[int, int, int]]  # (batch index, epoch, base offset) of each new epoch
    truncate_to: int  # the base of a batch straddling the log end (cut there first), else -1
    config: LogConfig
    log_end_offset: int
    log_start_offset: int
    latest_epoch: EpochEntry | None

    def still_fits(self, plog: PartitionLog) -> bool:
        """Whether ``plog`` is as it was checked: the same ends, latest epoch and config."""
        return (
            plog.log_end_offset == self.log_end_offset
            and plog.log_start_offset == self.log_start_offset
            and plog.config is self.config
            and plog.leader_epoch_cache.latest_entry() == self.latest_epoch
        )


_OFFSET_LENGTH_EPOCH = struct.Struct(">qii")  # baseOffset, batchLength, partitionLeaderEpoch


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
