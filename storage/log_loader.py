"""Loading and recovery of one partition directory (Kafka's ``LogLoader``).

``PartitionLog`` (Kafka's ``UnifiedLog`` + ``LocalLog``) builds a ``LogLoader``
in its constructor and takes over what ``load`` returns: the segment list and
the log start offset, log end offset and recovery point (Kafka's
``LoadedLogOffsets``). The loader, as Kafka's:

1. removes leftover files (``.deleted``, ``.cleaned``, ``.tmp``) and completes
   committed ``.swap`` segments (``storage.segment_recovery.clean_leftover_files``,
   Kafka's ``removeTempFilesAndCollectSwapFiles``), and deletes index files
   that have no log file;
2. opens every segment; after an unclean shutdown it recovers (scans, and cuts
   after the last valid batch) every segment from the one holding the recovery
   point on (``recoverLog``), after a clean one only those whose indexes are
   missing or fail their size / sanity checks; a cut segment ends the log, the
   segments after it are deleted;
3. derives the offsets: the log start offset is the checkpointed one, at least
   the first base offset; a log that ends below it (data lost in a crash)
   restarts empty there;
4. cuts the leader-epoch cache to [log start, log end], after rebuilding its
   entries from the batches of the recovered segments, and writes the checkpoint when
   epochs were cut (Kafka's ``truncateFromEndAsyncFlush`` schedules that write at once);
5. rebuilds the producer state (Kafka's ``UnifiedLog.rebuildProducerState``):
   the snapshots at no segment base are deleted (but the newest above them all), then
   the newest valid snapshot is loaded and the batches after it replayed with
   ``AppendOrigin.REPLICATION``; the replay also rebuilds the ``.txnindex`` of every
   recovered segment (recovery empties it; a torn or corrupt one makes the segment
   recovered), starting at a snapshot no later than the first of them, and takes a
   snapshot at the end of each recovered segment (Kafka's ``recoverSegment``), so every
   segment base keeps one.

The leader-epoch cache and the producer-state manager are the partition's own
(the loader fills them in place). Everything here runs before the partition is
visible to anyone, in whatever thread constructs the ``PartitionLog``.
"""

from __future__ import annotations

import logging
import os
from bisect import bisect_right
from collections.abc import Callable, Collection, Iterator, Sequence
from itertools import pairwise
from pathlib import Path
from typing import NamedTuple

from protocol.control_records import EndTransactionMarker, read_end_txn_marker
from protocol.errors import KafkaError
from protocol.primitives import DecodeError
from protocol.record_batch import BatchHeader
from storage.leader_epoch import LeaderEpochFileCache
from storage.log_config import LogConfig
from storage.producer_state import AppendOrigin, ProducerStateManager
from storage.producer_state_entry import CompletedTxn
from storage.segment import (
    CLEANED_SUFFIX,
    DELETED_SUFFIX,
    INDEX_SUFFIX,
    LOG_SUFFIX,
    SWAP_SUFFIX,
    TIME_INDEX_SUFFIX,
    TXN_INDEX_SUFFIX,
    LogSegment,
    offset_from_filename,
)
from storage.segment_recovery import RecoveryResult, clean_leftover_files, recover_segment
from storage.transaction_index import AbortedTxn, CorruptTxnIndexError

log = logging.getLogger(__name__)

# Files a crash of the cleaner or of a deletion may leave (``clean_leftover_files``).
LEFTOVER_SUFFIXES = (DELETED_SUFFIX, ".tmp", CLEANED_SUFFIX, SWAP_SUFFIX)
INDEX_SUFFIXES = (INDEX_SUFFIX, TIME_INDEX_SUFFIX, TXN_INDEX_SUFFIX)


class LoadedLog(NamedTuple):
    """What ``LogLoader.load`` hands to ``PartitionLog`` (Kafka's ``LoadedLogOffsets`` + segments)."""

    segments: list[LogSegment]  # oldest first, the last one active
    log_start_offset: int
    log_end_offset: int
    recovery_point: int


def iter_batch_headers(
    segments: Sequence[LogSegment], bases: Sequence[int], from_offset: int, end_offset: int
) -> Iterator[tuple[LogSegment, BatchHeader]]:
    """Headers of the batches holding offsets in [from_offset, end_offset), in order.

    ``bases`` are the segments' base offsets. Reads 64 KiB chunks and decodes
    61-byte headers only; shared by ``PartitionLog.iter_headers``.
    """
    for seg, _pos, header in iter_batch_positions(segments, bases, from_offset, end_offset):
        yield seg, header


def iter_batch_positions(
    segments: Sequence[LogSegment], bases: Sequence[int], from_offset: int, end_offset: int
) -> Iterator[tuple[LogSegment, int, BatchHeader]]:
    """(segment, position, header) of the batches holding offsets in [from_offset, end_offset)."""
    i = max(0, bisect_right(bases, from_offset) - 1)
    for seg in segments[i:]:
        if seg.base_offset >= end_offset:
            return
        start_pos = 0
        if seg.base_offset < from_offset:
            found = seg.translate_offset(from_offset)
            if found is None:
                continue
            start_pos = found.position
        for pos, header in seg.iter_headers(start_pos):
            if header.base_offset >= end_offset:
                return
            yield seg, pos, header


def read_marker_at(seg: LogSegment, position: int, header: BatchHeader) -> EndTransactionMarker | None:
    """The COMMIT / ABORT marker of the control batch at ``position``; None for another control
    type, an emptied batch or (logged) an undecodable one."""
    try:
        return read_end_txn_marker(seg.pread(position, header.size), header)
    except DecodeError as exc:
        log.warning("Ignoring undecodable control batch at offset %d: %s", header.base_offset, exc)
        return None


def replay_producer_state(
    producer_state: ProducerStateManager,
    segments: Sequence[LogSegment],
    from_offset: int,
    end_offset: int,
    *,
    rebuild_txn_index: Collection[int] = (),
) -> int:
    """Replay the batches in [from_offset, end_offset) into the producer state (origin
    REPLICATION); returns how many carried a producer id.

    Control batches are read whole for their marker (one small record each). An aborted
    transaction whose marker lies in a segment of ``rebuild_txn_index`` (base offsets of the
    segments recovery emptied the ``.txnindex`` of) is appended to that segment's index, with
    the last stable offset of that moment (Kafka's ``LogSegment.recover`` -> ``updateTxnIndex``).
    """
    ps = producer_state
    bases = [s.base_offset for s in segments]
    replayed = 0
    for seg, pos, header in iter_batch_positions(segments, bases, from_offset, end_offset):
        if header.producer_id < 0:
            continue
        replayed += 1
        marker = read_marker_at(seg, pos, header) if header.is_control else None
        completed = ps.update(
            header, header.base_offset, header.max_timestamp, AppendOrigin.REPLICATION, marker
        )
        if completed is not None and completed.is_aborted and seg.base_offset in rebuild_txn_index:
            seg.update_txn_index(aborted_txn_of(completed, ps.last_stable_offset_for(completed)))
    return replayed


def aborted_txn_of(completed: CompletedTxn, last_stable_offset: int) -> AbortedTxn:
    return AbortedTxn(
        completed.producer_id, completed.first_offset, completed.last_offset, last_stable_offset
    )


class LogLoader:
    """Loads (and recovers) one partition directory; see the module docstring."""

    def __init__(
        self,
        directory: Path,
        config: LogConfig,
        *,
        name: str,
        leader_epoch_cache: LeaderEpochFileCache,
        producer_state: ProducerStateManager,
        new_segment: Callable[[int], LogSegment],
        time_ms: Callable[[], int],
        log_start_offset: int,
        recovery_point: int,
        had_clean_shutdown: bool,
        progress: Callable[[str, int, int], None] | None = None,
        listing: Collection[str] | None = None,
    ) -> None:
        self.dir = directory
        # The names in the directory when the caller has just listed it (else listed here).
        self._listing = listing
        self.config = config
        self.name = name
        self.leader_epoch_cache = leader_epoch_cache
        self.producer_state = producer_state
        # PartitionLog's factory of active segments (it applies segment.jitter.ms).
        self._new_segment = new_segment
        self._time_ms = time_ms
        self.log_start_offset = log_start_offset
        self.recovery_point = recovery_point
        self.had_clean_shutdown = had_clean_shutdown
        self._progress = progress

    def load(self) -> LoadedLog:
        """Open, recover and check the directory; fill the epoch cache and producer state."""
        log_start_offset = self.log_start_offset
        clean = self.had_clean_shutdown
        segments, recovered, names = self._open_segments()
        if not segments:
            segments.append(self._new_segment(log_start_offset))
        last = segments[-1]
        last.make_active()
        last.rebuild_state_after_load()
        log_end = last.read_next_offset()

        # Kafka: the log start offset is the checkpointed one, at least the first base offset;
        # if the log ends before it (data lost in a crash), start over there.
        start = max(log_start_offset, segments[0].base_offset)
        if log_end < log_start_offset:
            log.warning(
                "%s: log end offset %d is below the log start offset %d; truncating fully",
                self.name,
                log_end,
                log_start_offset,
            )
            for seg in segments:
                seg.delete_files()
            segments = [self._new_segment(log_start_offset)]
            start = log_end = log_start_offset
        recovery_point = log_end if clean else min(self.recovery_point, log_end)

        cache = self.leader_epoch_cache
        cache.truncate_from_end(log_end, flush=False)
        cache.truncate_from_start(start, flush=False)
        if cache.latest_entry() is not None:
            # Kafka's truncateFromEndAsyncFlush / truncateFromStartAsyncFlush schedule the
            # write at once: an epoch cut here and left in the file would be read back after
            # another crash once the log has grown past its start (a follower appending its
            # latest epoch assigns nothing), and answer OffsetsForLeaderEpoch wrongly. Written
            # only if the entries differ from the file. An empty cache is left to its first
            # assign (any append of an epoch, make_leader), which writes the whole file: a
            # start of many empty partitions writes nothing. A failed write fails the load
            # (KAFKA_STORAGE_ERROR: the LogManager takes the dir offline), as a failed
            # assign of a recovered segment's epoch does.
            try:
                cache.flush()
            except KafkaError:
                for seg in segments:
                    seg.close_handlers()
                raise
        # The listing still holds every snapshot file unless segments were recovered.
        listing = names if not recovered and log_end >= log_start_offset else None
        self._rebuild_producer_state(segments, start, log_end, recovered, listing)
        return LoadedLog(segments, start, log_end, recovery_point)

    def _open_segments(self) -> tuple[list[LogSegment], set[int], list[str]]:
        """The directory's segments, oldest first, recovered where needed (none active yet),
        and the names in the directory before any recovery."""
        # One listing of the directory serves every check below (a clean start of many
        # partitions is dominated by per-partition system calls).
        names = list(self._listing) if self._listing is not None else os.listdir(self.dir)
        if any(name.endswith(LEFTOVER_SUFFIXES) for name in names):
            clean_leftover_files(
                self.dir,
                index_interval_bytes=self.config.index_interval_bytes,
                max_index_size=self.config.segment_index_bytes,
            )
            names = os.listdir(self.dir)
        bases = sorted(offset_from_filename(name) for name in names if name.endswith(LOG_SUFFIX))
        present = set(bases)
        for name in names:
            if name.endswith(INDEX_SUFFIXES) and offset_from_filename(name) not in present:
                log.info("%s: deleting index %s that has no log file", self.name, name)
                (self.dir / name).unlink()
        files = set(names)
        # Kafka's LogLoader.recoverLog: after an unclean shutdown every segment from the
        # one holding the recovery point onwards is scanned; a bad batch ends the log.
        first_unflushed = len(bases)
        if not self.had_clean_shutdown and bases:
            first_unflushed = max(0, bisect_right(bases, self.recovery_point) - 1)
        segments: list[LogSegment] = []
        needs_recovery: set[int] = set()
        for i, base in enumerate(bases):
            seg = LogSegment(
                self.dir,
                base,
                index_interval_bytes=self.config.index_interval_bytes,
                max_index_size=self.config.segment_index_bytes,
                created_ms=self._time_ms(),
                active=False,
            )
            segments.append(seg)
            if i >= first_unflushed:
                needs_recovery.add(base)
            elif seg.txn_index.path.name in files and not _txn_index_whole(seg):
                # LogSegment.sanityCheck -> TransactionIndex.sanityCheck (CorruptIndexException).
                log.warning(
                    "%s: Found a corrupted transaction index corresponding to log file %s, recovering "
                    "segment and rebuilding index files...",
                    self.name,
                    seg.log_path,
                )
                needs_recovery.add(base)
            elif seg.index.path.name not in files or seg.time_index.path.name not in files:
                # Kafka's LogLoader.loadSegmentFiles (NoSuchFileException), at its level. Kafka
                # starts a missing time index empty; Moldau rebuilds it as well.
                missing = "offset index" if seg.index.path.name not in files else "time index"
                log.error(
                    "%s: Could not find %s file corresponding to log file %s, recovering segment "
                    "and rebuilding index files...",
                    self.name,
                    missing,
                    seg.log_path,
                )
                needs_recovery.add(base)
            else:
                # As Kafka since KAFKA-7283, indexes are not read at load; only their sizes
                # are checked, and the entries of the active segment.
                try:
                    if i == len(bases) - 1:
                        seg.index.sanity_check()  # checks the file size too
                        seg.time_index.sanity_check()
                    else:
                        seg.index.check_file_size()
                        seg.time_index.check_file_size()
                except (ValueError, OSError) as exc:
                    # Kafka's LogLoader.loadSegmentFiles (CorruptIndexException).
                    log.warning(
                        "%s: Found a corrupted index file corresponding to log file %s due to %s, "
                        "recovering segment and rebuilding index files...",
                        self.name,
                        seg.log_path,
                        exc,
                    )
                    needs_recovery.add(base)

        if needs_recovery:
            log.info(
                "%s: recovering %d segment(s) from offset %d (%d bytes)",
                self.name,
                len(needs_recovery),
                min(needs_recovery),
                sum(s.size for s in segments if s.base_offset in needs_recovery),
            )
        i = 0
        while i < len(segments):
            seg = segments[i]
            if seg.base_offset in needs_recovery:
                result = self._recover_segment(seg, i, len(segments))
                # Past the recovery point (an unclean shutdown) a cut ends the log, as Kafka's
                # recoverLog deletes what follows; a segment recovered before it for its index
                # files only (loadSegmentFiles -> recoverSegment) just ends early.
                if result.truncated_bytes and first_unflushed <= i < len(segments) - 1:
                    later = segments[i + 1 :]
                    log.warning(
                        "%s: deleting %d segment(s) after the corruption at offset %s: %s",
                        self.name,
                        len(later),
                        result.next_offset,
                        [s.base_offset for s in later],
                    )
                    for s in later:
                        s.delete_files()
                    del segments[i + 1 :]
                if i + 1 < len(segments):
                    seg.on_become_inactive()
            i += 1
        return segments, {s.base_offset for s in segments if s.base_offset in needs_recovery}, names

    def _recover_segment(self, seg: LogSegment, index: int, count: int) -> RecoveryResult:
        total = seg.size
        reporter = self._progress
        name = self.name
        cache = self.leader_epoch_cache

        def on_batch(header: BatchHeader) -> None:
            # LogSegment.recover: a batch with a greater epoch starts that epoch.
            epoch = header.partition_leader_epoch
            latest = cache.latest_epoch
            if epoch >= 0 and (latest is None or epoch > latest):
                cache.assign(epoch, header.base_offset)

        def progress(done: int) -> None:
            if reporter is not None:
                reporter(f"{name} segment {seg.base_offset} ({index + 1}/{count})", done, total)

        result = recover_segment(seg, min_offset=seg.base_offset, on_batch=on_batch, progress=progress)
        if result.truncated_bytes:
            log.warning(
                "%s: found invalid data in segment %d at byte %d (%s); truncated %d bytes",
                self.name,
                seg.base_offset,
                result.valid_bytes,
                result.reason,
                result.truncated_bytes,
            )
        return result

    def _rebuild_producer_state(
        self,
        segments: list[LogSegment],
        log_start: int,
        log_end: int,
        recovered: set[int],
        listing: Collection[str] | None,
    ) -> None:
        """Kafka's ``rebuildProducerState``: newest snapshot, then replay the batches after it.

        When segments were recovered (their ``.txnindex`` emptied), the replay starts at a
        snapshot no later than the first of them, so their aborted transactions are rebuilt
        with the producer state of their time (Kafka rebuilds a recovering segment's state up
        to its base offset first, ``LogLoader.recoverSegment``).
        """
        ps = self.producer_state
        # A recovered segment holding the log start (DeleteRecords moved it inside the segment)
        # counts from the log start: its aborted transactions past it are rebuilt too.
        load_until = min([log_end, *(max(b, log_start) for b in recovered)])
        bases = [s.base_offset for s in segments]
        replay_from = ps.load(log_start, load_until, listing=listing, segment_bases=bases)
        replay_from = max(replay_from, log_start)
        # Kafka's recoverSegment takes a snapshot once each recovered segment is replayed (at
        # the next segment's base): a later recovery from a recovery point there finds it.
        snapshot_at = [
            nxt.base_offset
            for seg, nxt in pairwise(segments)
            if seg.base_offset in recovered and nxt.base_offset > replay_from
        ]
        replayed = 0
        position = replay_from
        for offset in snapshot_at:
            replayed += replay_producer_state(ps, segments, position, offset, rebuild_txn_index=recovered)
            ps.update_map_end_offset(offset)
            ps.take_snapshot()
            position = offset
        replayed += replay_producer_state(ps, segments, position, log_end, rebuild_txn_index=recovered)
        ps.update_map_end_offset(log_end)
        if replayed:
            log.info("%s: replayed %d producer batches from offset %d", self.name, replayed, replay_from)


def _txn_index_whole(seg: LogSegment) -> bool:
    """Whether the segment's ``.txnindex`` (if any) is whole 34-byte entries of version 0."""
    try:
        seg.txn_index.sanity_check()
    except (CorruptTxnIndexError, OSError):
        return False
    return True
