"""Leader-epoch cache of a partition, persisted as ``leader-epoch-checkpoint``.

Kafka's ``LeaderEpochFileCache``: an ordered list of (epoch, start offset)
entries, one per leader epoch that wrote to the log, saved (atomically, in
``LeaderEpochCheckpointFile``'s text format) whenever it changes. It answers
OffsetsForLeaderEpoch (``end_offset_for``) and the leader epoch of
ListOffsets results.

A failed write of the checkpoint is Kafka's ``CheckpointFileWithFailureHandler.write``: the
error goes to ``on_write_error`` (the partition log reports it to its log dir's state) and
the caller gets KafkaError(KAFKA_STORAGE_ERROR). A failed ``assign`` leaves the entries as
they were, so the append that asked for it changes nothing and a retry assigns again.

Writes off the event loop (Kafka's ``truncateFromStartAsyncFlush`` /
``truncateFromEndAsyncFlush``, its scheduler writing the file): ``pending_write`` takes the
entries to write on the loop (a ``PendingCheckpoint`` with a ticket), ``write_pending`` writes
them in any thread (None, or the OSError: a dir removed meanwhile is no error, as Kafka's
``writeIfDirExists``), ``written`` records the outcome on the loop (an error goes to
``on_write_error``). ``prepare_assign`` / ``prepare_assigns`` are the write ``assign`` (one, or
a follower's append's run of them) would make, done ahead off the loop (LeaderAndIsr's new
leaders, the replica fetcher's new epochs): ``assign`` then finds the file written. Writes of
one cache are serialized by a lock and a write whose entries were taken before those already in
the file is skipped, so the file never goes back to older entries. So a write still in flight
whose ticket is older than the one the file is known to hold (``_persisted_ticket``) cannot
change the file: the cache is clean when its entries are the file's and no newer write is in
flight.

Not thread-safe otherwise: mutated on the event loop only.
"""

from __future__ import annotations

import bisect
import itertools
import logging
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

from protocol.errors import ErrorCode, KafkaError
from storage.checkpoints import LEADER_EPOCH_CHECKPOINT, CheckpointError, LeaderEpochCheckpointFile

log = logging.getLogger(__name__)

UNDEFINED_EPOCH = -1
UNDEFINED_EPOCH_OFFSET = -1


class EpochEntry(NamedTuple):
    epoch: int
    start_offset: int


class PendingCheckpoint(NamedTuple):
    """Entries to write to a cache's checkpoint off the loop, taken on the loop at ``ticket``."""

    cache: LeaderEpochFileCache
    ticket: int
    entries: tuple[tuple[int, int], ...]


class EpochEndOffset(NamedTuple):
    """Kafka's ``endOffsetFor`` answer: (leader epoch, end offset)."""

    leader_epoch: int
    end_offset: int


def _ignore_write_error(_exc: OSError, _while_doing: str) -> None:
    """``on_write_error`` of a cache without a log dir to report to."""


class LeaderEpochFileCache:
    def __init__(
        self,
        partition_dir: Path,
        *,
        checkpoint: bool = True,
        on_write_error: Callable[[OSError, str], None] = _ignore_write_error,
    ) -> None:
        self.path = partition_dir / LEADER_EPOCH_CHECKPOINT
        self._file = LeaderEpochCheckpointFile(self.path)
        self._checkpoint = checkpoint
        self._on_write_error = on_write_error
        self._epochs: list[int] = []
        self._offsets: list[int] = []
        if checkpoint:
            try:
                entries = self._file.read()
            except CheckpointError as exc:
                # Kafka would fail the log dir; the cache is rebuilt from the batches instead.
                log.warning("ignoring unreadable %s (%s); epochs rebuilt from the log", self.path, exc)
                entries = []
            if not entries and not self.path.exists():
                # Kafka's CheckpointFile creates the (empty) file with the partition.
                self.path.touch()
            for epoch, start in entries:
                self._put(EpochEntry(epoch, start))
        # What the checkpoint file holds, as of the write of ticket ``_persisted_ticket`` (0: as
        # read): a write that would not change it is skipped.
        self._persisted = (list(self._epochs), list(self._offsets))
        self._persisted_ticket = 0
        # The partition directory this cache belongs to: a write off the loop goes into it only
        # (a topic deleted and re-created under the same name has another directory).
        self._dir_id = _dir_identity(partition_dir) if checkpoint else None
        # Writes off the loop: tickets are taken on the loop, in order; the file holds the
        # entries of ticket ``_file_ticket`` (both under ``_file_lock``, held by each write).
        self._tickets = itertools.count(1)
        self._file_ticket = 0
        self._file_lock = threading.Lock()
        # Tickets of the writes taken (pending_write / prepare_assign*) whose ``written`` has not
        # been called yet. Only one newer than ``_persisted_ticket`` may still change the file.
        self._in_flight: set[int] = set()

    # ------------------------------------------------------------------ queries

    def entries(self) -> list[EpochEntry]:
        return [EpochEntry(e, o) for e, o in zip(self._epochs, self._offsets, strict=True)]

    @property
    def latest_epoch(self) -> int | None:
        return self._epochs[-1] if self._epochs else None

    def latest_entry(self) -> EpochEntry | None:
        return EpochEntry(self._epochs[-1], self._offsets[-1]) if self._epochs else None

    def earliest_entry(self) -> EpochEntry | None:
        return EpochEntry(self._epochs[0], self._offsets[0]) if self._epochs else None

    def epoch_for_offset(self, offset: int) -> int | None:
        """The epoch whose range holds ``offset`` (Kafka's ``epochForOffset``)."""
        i = bisect.bisect_right(self._offsets, offset) - 1
        return self._epochs[i] if i >= 0 else None

    def end_offset_for(self, requested_epoch: int, log_end_offset: int) -> EpochEndOffset:
        """Kafka's ``LeaderEpochFileCache.endOffsetFor``.

        The latest epoch ends at the log end offset; an older epoch ends where
        the next greater epoch starts, reported with the greatest known epoch
        <= the requested one; an epoch below every known one gets the
        requested epoch and the first start offset; unknown -> (-1, -1).
        """
        if requested_epoch == UNDEFINED_EPOCH or not self._epochs:
            return EpochEndOffset(UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET)
        if self._epochs[-1] == requested_epoch:
            return EpochEndOffset(requested_epoch, log_end_offset)
        higher = bisect.bisect_right(self._epochs, requested_epoch)
        if higher >= len(self._epochs):
            return EpochEndOffset(UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET)
        floor = higher - 1
        if floor < 0:
            return EpochEndOffset(requested_epoch, self._offsets[higher])
        return EpochEndOffset(self._epochs[floor], self._offsets[higher])

    # ------------------------------------------------------------------ changes

    def assign(self, epoch: int, start_offset: int, *, flush: bool = True) -> bool:
        """Record that ``epoch`` starts at ``start_offset``; True if the cache changed.

        Kafka's ``assign``: nothing to do if the epoch is already the latest one
        with an earlier start; otherwise entries with an epoch >= it or a start
        offset >= its start are dropped first (they are no longer monotonic).
        ``flush=False``: the file is known to hold these entries already, or the caller flushes
        (a follower's append whose new epochs were written ahead, ``holds_assigns``).
        """
        if epoch < 0 or start_offset < 0:
            raise ValueError(f"Received invalid partition leader epoch entry ({epoch}, {start_offset})")
        latest = self.latest_entry()
        if latest is not None and latest.epoch == epoch and start_offset >= latest.start_offset:
            return False
        before = (self._epochs[:], self._offsets[:])  # only when the epoch changes: rare
        while self._epochs and (self._epochs[-1] >= epoch or self._offsets[-1] >= start_offset):
            self._epochs.pop()
            self._offsets.pop()
        self._put(EpochEntry(epoch, start_offset))
        if not flush:
            return True
        try:
            self._flush()
        except KafkaError:
            # Nothing was appended with this epoch: the cache stays as the file has it.
            self._epochs, self._offsets = before
            raise
        return True

    def _put(self, entry: EpochEntry) -> None:
        if self._epochs and (entry.epoch <= self._epochs[-1] or entry.start_offset < self._offsets[-1]):
            # An unordered checkpoint: keep the cache monotonic as Kafka's assign does.
            while self._epochs and (
                self._epochs[-1] >= entry.epoch or self._offsets[-1] >= entry.start_offset
            ):
                self._epochs.pop()
                self._offsets.pop()
        self._epochs.append(entry.epoch)
        self._offsets.append(entry.start_offset)

    def truncate_from_end(self, end_offset: int, *, flush: bool = True) -> None:
        """Drop epochs starting at or after ``end_offset`` (log truncated to it).

        ``flush=False`` (Kafka's ``truncateFromEndAsyncFlush``) leaves the file to the
        caller's ``flush``, which must follow (the log loader's and ``truncate_to``'s do):
        an entry left in the file comes back at the next load if the log has grown past its
        start offset by then.
        """
        if self._offsets and end_offset <= self._offsets[-1]:
            n = bisect.bisect_left(self._offsets, end_offset)
            del self._epochs[n:]
            del self._offsets[n:]
            if flush:
                self._flush()

    def truncate_from_start(self, start_offset: int, *, flush: bool = True) -> None:
        """Drop epochs wholly before ``start_offset``; the one spanning it now starts there.

        Kafka's ``truncateFromStart`` (log start offset moved forward).
        """
        if not self._offsets or start_offset <= self._offsets[0]:
            return
        n = bisect.bisect_right(self._offsets, start_offset) - 1  # the entry spanning start_offset
        del self._epochs[:n]
        del self._offsets[:n]
        self._offsets[0] = start_offset
        if flush:
            self._flush()

    def clear(self, *, flush: bool = True) -> None:
        if self._epochs:
            self._epochs.clear()
            self._offsets.clear()
            if flush:
                self._flush()

    def flush(self) -> None:
        """Write the checkpoint if it differs from the entries (after unflushed truncations)."""
        self._flush()

    @property
    def dirty(self) -> bool:
        """Whether the checkpoint file may differ from the entries: it was last written with
        other entries, or a write taken after that one is still in flight (it may still put
        its entries there). A write in flight older than the file's is skipped (``_write``):
        it does not count."""
        return self._checkpoint and (
            self._persisted != (self._epochs, self._offsets) or self._newer_write_in_flight()
        )

    def _newer_write_in_flight(self) -> bool:
        return bool(self._in_flight) and max(self._in_flight) > self._persisted_ticket

    def _flush(self) -> None:
        if not self.dirty:
            return
        pending = PendingCheckpoint(
            self, next(self._tickets), tuple(zip(self._epochs, self._offsets, strict=True))
        )
        error = self._write(pending)
        if error is not None:
            # Kafka's CheckpointFileWithFailureHandler.write: LogDirFailureChannel, then
            # KafkaStorageException.
            self._on_write_error(error, f"writing {self.path}")
            raise KafkaError(
                ErrorCode.KAFKA_STORAGE_ERROR, f"Error while writing to checkpoint file {self.path}: {error}"
            ) from None
        self._persisted = (list(self._epochs), list(self._offsets))
        self._persisted_ticket = pending.ticket

    # ------------------------------------------------------------------ writes off the loop

    def pending_write(self) -> PendingCheckpoint | None:
        """On the loop: the entries a write off the loop must put in the file, None if the file
        has them already. Call ``write_pending`` (any thread), then ``written`` (the loop)."""
        if not self.dirty:
            return None
        return self._take(tuple(zip(self._epochs, self._offsets, strict=True)))

    def _take(self, entries: tuple[tuple[int, int], ...]) -> PendingCheckpoint:
        ticket = next(self._tickets)
        self._in_flight.add(ticket)
        return PendingCheckpoint(self, ticket, entries)

    def prepare_assign(self, epoch: int, start_offset: int) -> PendingCheckpoint | None:
        """On the loop: the checkpoint ``assign(epoch, start_offset)`` would write, the cache
        unchanged (None: it would write nothing). Once ``write_pending`` wrote it and ``written``
        recorded it, ``assign`` with the same arguments writes nothing; after a failed write the
        cache is as it was (the caller does not assign: KAFKA_STORAGE_ERROR)."""
        if epoch < 0 or start_offset < 0:
            return None
        return self.prepare_assigns([(epoch, start_offset)])

    def prepare_assigns(
        self, assigns: Sequence[tuple[int, int]], *, truncated_to: int | None = None
    ) -> PendingCheckpoint | None:
        """On the loop: the checkpoint that ``truncate_from_end(truncated_to)`` (if given) and
        then ``assign(epoch, start)`` for each of ``assigns``, in order, would leave, the cache
        unchanged; None if they change nothing or the file holds that already. A follower's
        append writes its batches' new epochs ahead with it (the replica fetcher, in one executor
        job for a fetch answer); once written and recorded (``written``), the append's assigns
        write nothing (``holds_assigns``)."""
        if not self._checkpoint:
            return None
        epochs, offsets = self._after(assigns, truncated_to)
        if (epochs, offsets) == (self._epochs, self._offsets):
            return None
        if (epochs, offsets) == self._persisted and not self._newer_write_in_flight():
            return None
        return self._take(tuple(zip(epochs, offsets, strict=True)))

    def holds_assigns(self, assigns: Sequence[tuple[int, int]]) -> bool:
        """Whether the file holds what ``assign`` of each of ``assigns``, in order, leaves (they
        were written ahead, ``prepare_assigns``): the assigns then need no flush, not even the
        first ones, whose entries are a prefix of those written (the entries after them are
        those of batches the same append writes next, in the same loop step)."""
        if not self._checkpoint or self._newer_write_in_flight():
            return False
        return self._after(assigns, None) == self._persisted

    def _after(
        self, assigns: Sequence[tuple[int, int]], truncated_to: int | None
    ) -> tuple[list[int], list[int]]:
        """The entries after ``truncate_from_end(truncated_to)`` and ``assign`` of each of
        ``assigns`` (as ``assign``'s rules: an invalid entry changes nothing here)."""
        epochs, offsets = self._epochs[:], self._offsets[:]
        if truncated_to is not None:
            n = bisect.bisect_left(offsets, truncated_to)
            del epochs[n:], offsets[n:]
        for epoch, start in assigns:
            if epoch < 0 or start < 0:
                continue
            if epochs and epochs[-1] == epoch and start >= offsets[-1]:
                continue
            while epochs and (epochs[-1] >= epoch or offsets[-1] >= start):
                epochs.pop()
                offsets.pop()
            epochs.append(epoch)
            offsets.append(start)
        return epochs, offsets

    def write_pending(self, pending: PendingCheckpoint) -> OSError | None:
        """Any thread: write ``pending`` unless entries taken later are in the file already;
        the OSError if it failed. The write goes through a descriptor of the partition
        directory, and only if it is still this cache's: a partition dir gone meanwhile
        (deleted, or deleted and created again for a new topic of the same name) is no error
        and gets nothing (Kafka's ``writeIfDirExists``)."""
        try:
            dir_fd = os.open(self.path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except FileNotFoundError:
            return None
        except OSError as exc:
            return exc
        try:
            st = os.fstat(dir_fd)
            if self._dir_id is not None and (st.st_dev, st.st_ino) != self._dir_id:
                return None
            return self._write(pending, dir_fd)
        finally:
            os.close(dir_fd)

    def written(self, pending: PendingCheckpoint, error: OSError | None) -> None:
        """On the loop, after ``write_pending(pending)`` returned ``error``: the file state is
        recorded, and an error goes to ``on_write_error`` (the log's dir: full or offline)."""
        self._in_flight.discard(pending.ticket)
        if error is not None:
            self._on_write_error(error, f"writing {self.path}")
            return
        with self._file_lock:
            current = self._file_ticket == pending.ticket
        if current:
            self._persisted = ([e for e, _ in pending.entries], [o for _, o in pending.entries])
            self._persisted_ticket = pending.ticket

    def _write(self, pending: PendingCheckpoint, dir_fd: int | None = None) -> OSError | None:
        with self._file_lock:
            if pending.ticket <= self._file_ticket:
                return None  # entries taken after these are in the file
            try:
                if dir_fd is None:
                    self._file.write(pending.entries)
                else:
                    self._file.write_at(dir_fd, pending.entries)
            except OSError as exc:
                return exc
            self._file_ticket = pending.ticket
        return None


def _dir_identity(directory: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(directory)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def write_pending_checkpoints(pending: list[PendingCheckpoint]) -> list[OSError | None]:
    """Any thread (an executor job): write each pending checkpoint; the error of each."""
    return [p.cache.write_pending(p) for p in pending]
