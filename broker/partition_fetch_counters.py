"""The delayed-fetch purgatory's byte counters of a partition: ``FetchByteCounters``.

A base class of ``Partition`` (broker/partition.py, Kafka's ``kafka.cluster.Partition``),
which owns the state it uses (set up in its ``__init__``): the partition calls these methods
as its own, and ``DelayedFetch`` (broker/purgatory.py) calls ``partition.bytes_below``.

They stand for the log position arithmetic of Kafka's ``DelayedFetch.tryComplete``
(``LogOffsetMetadata.positionDiff``): ``bytes_below(isolation)`` is the number of bytes of the
log below its log end offset (``LOG_END``), high watermark or last stable offset, counted from
one origin (the log as it was when hosted counts too: its tail above the high watermark is
measured once from the segments), so a parked fetch knows how much became readable without
reading. The counters move with the partition's appends (``_count_append``), its high
watermark (``_commit_bytes``) and its last stable offset (``_advance_stable``), O(1) per batch;
a log that changed under them (truncated below the high watermark, restarted elsewhere) has
them seeded again (``_seed_byte_counters``), lower than any value they had.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from protocol.errors import KafkaError
from storage.log_types import FetchIsolation

if TYPE_CHECKING:
    from storage.partition_log import PartitionLog

# Entries kept per deque. A high watermark (under min ISR) or last stable offset (an open
# transaction) can stand still for long while batches keep coming: past this many, the newest
# entry is moved forward instead of one added (entries hold running totals), so the state stays
# O(1) as Kafka's position arithmetic; a fetch parked then wakes only when the high watermark or
# LSO passes that entry's end (or at its max wait).
MAX_ENTRIES = 1024


class FetchByteCounters:
    """The bytes of a partition's log below its log end offset, high watermark and last stable
    offset, for the delayed-fetch purgatory (a base class of ``Partition``, which sets these
    attributes in its ``__init__``; see there for what each holds)."""

    log: PartitionLog
    _appended_bytes: int
    _committed_bytes: int
    _stable_bytes: int
    _appended_at: int
    _committed_at: int
    _floor: int
    _uncommitted: deque[tuple[int, int]]
    _unstable: deque[tuple[int, int]]

    def bytes_below(self, isolation: FetchIsolation) -> int:
        """The bytes of the log below what ``isolation`` may read, from the counters' origin:
        whatever it grew by since a fetch parked became readable for that fetch (Kafka's
        ``DelayedFetch``: ``endOffset.positionDiff(fetchOffset)``)."""
        if isolation is FetchIsolation.LOG_END:
            return self._appended_bytes
        if isolation is FetchIsolation.TXN_COMMITTED:
            # The batches at or below the last stable offset: a parked read_committed fetch is
            # not woken by an open transaction's appends, and a COMMIT counts every record it
            # made readable. The LSO moves with the high watermark (``_commit_bytes``), or
            # with the log start offset (checked here).
            if self._unstable:
                self._advance_stable(self.log.last_stable_offset)
            return self._stable_bytes
        return self._committed_bytes

    def _seed_byte_counters(self, *, below: int | None = None) -> None:
        """Count the log as it is now: the bytes of [LSO, HW) and [HW, LEO) from the segments'
        positions (two offset-index lookups each, none for a log whose three offsets are equal),
        one entry each. Kafka's ``DelayedFetch`` counts positions in the log, so records the log
        held before this partition was hosted (a high-watermark checkpoint lagging the log end
        after a restart, a follower's tail) count when the high watermark passes them, as any
        other. ``below``: every counter ends under it, so a fetch parked before (whose counters
        were at least that) sees its readable bytes go back and completes (the log changed
        under it: truncated below the high watermark, or restarted elsewhere)."""
        plog = self.log
        lso, hw, leo = plog.last_stable_offset, plog.high_watermark, plog.log_end_offset
        unstable = tail = 0
        if leo > lso and not plog.dir_state.offline:
            try:
                unstable = plog.bytes_between(lso, hw)
                tail = plog.bytes_between(hw, leo)
            except KafkaError:  # the log dir went offline: nothing is read from it any more
                unstable = tail = 0
        base = 0 if below is None else below - 1 - unstable - tail
        self._floor = self._stable_bytes = base
        self._committed_bytes, self._committed_at = base + unstable, hw
        self._appended_bytes, self._appended_at = base + unstable + tail, leo
        self._unstable = deque([(hw, self._committed_bytes)] if hw > lso else ())
        self._uncommitted = deque([(leo, self._appended_bytes)] if leo > hw else ())

    def _count_append(self, log_end_before: int, size: int) -> None:
        """``size`` bytes appended at ``log_end_before``. A log end the counters did not see
        move (the replica fetcher restarted a follower's log at the leader's log start) has the
        counters seeded again instead."""
        if log_end_before != self._appended_at:
            self._seed_byte_counters(below=self._floor)
            return
        self._appended_bytes += size
        self._appended_at = end = self.log.log_end_offset
        pending = self._uncommitted
        if len(pending) < MAX_ENTRIES:
            pending.append((end, self._appended_bytes))
        else:
            pending[-1] = (end, self._appended_bytes)

    def _commit_bytes(self, hw: int) -> None:
        """The high watermark moved to ``hw``: the batches it passed count as committed, and as
        stable up to the last stable offset (a COMMIT's marker moves both at once)."""
        plog = self.log
        if plog.log_end_offset != self._appended_at:
            self._seed_byte_counters(below=self._floor)
            return
        pending = self._uncommitted
        unstable = self._unstable
        lso = plog.last_stable_offset
        while pending and pending[0][0] <= hw:
            entry = pending.popleft()
            self._committed_at, self._committed_bytes = entry
            if unstable or entry[0] > lso:
                if len(unstable) < MAX_ENTRIES:
                    unstable.append(entry)
                else:
                    unstable[-1] = entry
            else:
                self._stable_bytes = entry[1]
        self._advance_stable(lso)

    def _advance_stable(self, lso: int) -> None:
        """The batches between the last stable offset and the high watermark that ``lso`` now
        passes count as stable."""
        unstable = self._unstable
        while unstable and unstable[0][0] <= lso:
            self._stable_bytes = unstable.popleft()[1]
