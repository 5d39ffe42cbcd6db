"""A read-only view of Moldau's log directories, for Spark's driver and executors.

Everything here only reads files, takes no locks and never recovers or rewrites
anything, so it is safe next to a running broker (which appends with
``pwrite`` and rolls, retains and truncates segments whole):

- a log dir holds ``<topic>-<partition>`` directories and Kafka's checkpoint
  files; ``replication-offset-checkpoint`` gives each partition's high
  watermark (``ReplicaManager.HighWatermarkFilename``) and
  ``log-start-offset-checkpoint`` its log start offset when DeleteRecords or
  retention moved it past the first segment;
- a partition directory holds segments ``<20-digit base offset>.log`` with their
  sparse ``.index`` / ``.timeindex`` (``storage.index``), for aborted
  transactions ``.txnindex`` (Kafka's ``AbortedTxn``: 34-byte entries), and producer
  ``.snapshot`` files; the last stable offset (where read_committed stops) is rebuilt
  from the newest snapshot and the batch headers after it, as the broker does;
- what a broker's recovery at start-up would conclude is applied read-only: a
  checkpointed high watermark past the last whole batch is clamped to it (Kafka's
  ``UnifiedLog.updateHighWatermark``; a torn last batch is not data), and a cleaner
  swap a crash cut after its commit point (``.log.swap`` files with no lower
  ``.cleaned``) is read from its ``.swap`` files in place of the segments it
  replaced (Kafka's ``LogLoader.removeTempFilesAndCollectSwapFiles``, Moldau's
  ``storage.segment_recovery.clean_leftover_files``).

The planner (:func:`plan_reads`) turns an offset range of a partition into
byte ranges of segment files that start and end on batch boundaries, split at
offset-index entries so a large segment becomes several Spark tasks. Only
whole batches are ever read, so a segment that is being appended to is safe.
"""

from __future__ import annotations

import bisect
import contextlib
import dataclasses
import functools
import itertools
import logging
import os
import re
import struct
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from protocol.record_batch import (
    CONTROL_MASK,
    CURRENT_MAGIC,
    HEADER,
    HEADER_SIZE,
    LOG_OVERHEAD,
    TIMESTAMP_TYPE_MASK,
    TRANSACTIONAL_MASK,
)
from protocol.records import decode_batch
from storage.checkpoints import (
    HIGH_WATERMARK_CHECKPOINT,
    LOG_START_OFFSET_CHECKPOINT,
    CheckpointError,
    OffsetCheckpointFile,
)
from storage.index import CorruptIndexError, OffsetIndex, TimeIndex
from storage.local_log import is_partition_dir_name, parse_topic_partition
from storage.producer_snapshot import (
    SNAPSHOT_SUFFIX,
    CorruptSnapshotError,
    decode_snapshot,
    snapshot_file_name,
)
from storage.segment import (
    INDEX_SUFFIX,
    LOG_SUFFIX,
    SWAP_SUFFIX,
    TIME_INDEX_SUFFIX,
    TXN_INDEX_SUFFIX,
    filename_prefix,
    offset_from_filename,
)
from storage.segment_recovery import classify_swap_files

log = logging.getLogger(__name__)

# baseOffset int64, batchLength int32, epoch int32, magic int8, crc, attributes, lastOffsetDelta int32
_BOUNDS = struct.Struct(">qiib4x2xi")
_BOUNDS_SIZE = _BOUNDS.size  # 27
_MIN_BATCH_LENGTH = HEADER_SIZE - LOG_OVERHEAD
_WALK_CHUNK = 64 * 1024
# Kafka's AbortedTxn: version int16, producerId int64, firstOffset int64, lastOffset int64, lastStableOffset int64
_ABORTED_TXN = struct.Struct(">hqqqq")

DELETED_SUFFIX = ".deleted"
INDEX_WORTH_BYTES = 4 * 1024 * 1024


class LogReadError(OSError):
    """A log file that cannot be read as Kafka's format (corrupt, truncated or gone)."""


class DataLossError(LogReadError):
    """Data planned for reading is gone (retention, truncation): Kafka's "data loss" (failOnDataLoss)."""


@dataclass(frozen=True, slots=True)
class AbortedTxn:
    """One aborted transaction (Kafka's ``AbortedTxn``); data of ``producer_id`` in [first, last] is aborted."""

    producer_id: int
    first_offset: int
    last_offset: int


@dataclass(frozen=True)
class PartitionFiles:
    """What a log dir says about one partition, read at one moment."""

    topic: str
    partition: int
    directory: Path
    segments: tuple[int, ...]  # base offsets, ascending
    log_start_offset: int
    # From replication-offset-checkpoint (the log start when absent), clamped to
    # [log start, end of the last whole batch] as Kafka's UnifiedLog.updateHighWatermark.
    high_watermark: int
    # Names ("<base>.log", "<base>.index", ...) of the files of a committed cleaner swap that
    # a crash left as "<name>.swap": read under that name (see _segment_files).
    swapped: frozenset[str] = frozenset()

    def segment_path(self, base_offset: int) -> Path:
        path = self._file(base_offset, LOG_SUFFIX)
        assert path is not None
        return path

    def _file(self, base_offset: int, suffix: str) -> Path | None:
        """The file of a segment with ``suffix``: its ``.swap`` when a committed swap left it
        so; None for the other files of a swapped-in segment (recovery deletes them)."""
        name = filename_prefix(base_offset) + suffix
        if name in self.swapped:
            return self.directory / (name + SWAP_SUFFIX)
        if suffix != LOG_SUFFIX and filename_prefix(base_offset) + LOG_SUFFIX in self.swapped:
            return None
        return self.directory / name

    def segment_index(self, offset: int) -> int:
        """Index in ``segments`` of the segment that holds ``offset`` (the last base <= offset)."""
        return max(bisect.bisect_right(self.segments, offset) - 1, 0)

    def offset_index(self, base_offset: int) -> OffsetIndex | None:
        """The segment's offset index, read-only (None when missing or corrupt: scan from 0)."""
        return _read_offset_index(self._file(base_offset, INDEX_SUFFIX), base_offset)

    def time_index(self, base_offset: int) -> TimeIndex | None:
        path = self._file(base_offset, TIME_INDEX_SUFFIX)
        if path is None or not path.exists():
            return None
        index = TimeIndex(path, base_offset, 0, writable=False)
        try:
            index.entries  # noqa: B018
        except (OSError, CorruptIndexError) as exc:
            log.warning("%s: ignoring unreadable time index (%s)", path, exc)
            return None
        return index

    def end_offset(self, read_committed: bool) -> int:
        """Where a read stops: the last stable offset (read_committed) or the high watermark."""
        return self.last_stable_offset if read_committed else self.high_watermark

    @functools.cached_property
    def last_stable_offset(self) -> int:
        """The first offset of the oldest transaction open at the high watermark, else the high
        watermark (Kafka's LSO; not checkpointed by the broker, so rebuilt from the files)."""
        first = min(self.open_transactions.values(), default=self.high_watermark)
        return min(max(first, self.log_start_offset), self.high_watermark)

    @functools.cached_property
    def open_transactions(self) -> dict[int, int]:
        """Producer id -> first offset of its transaction open at the high watermark.

        As the broker rebuilds its producer state: the newest readable producer snapshot at
        or below the high watermark (``CurrentTxnFirstOffset``), then the batch headers from
        there to the high watermark: a transactional batch opens its producer's transaction,
        a control batch (COMMIT / ABORT marker) ends it.
        """
        start, open_txns = self._snapshot_open_transactions()
        start = max(start, self.log_start_offset)
        hw = self.high_watermark
        if start >= hw or not self.segments:
            return open_txns
        for base in self.segments[self.segment_index(start) :]:
            if base >= hw:
                break
            path = self.segment_path(base)
            fd = open_segment(path)
            try:
                for h in _iter_headers(fd, file_size(fd), path):
                    offset, attributes, producer_id = h[0], h[5], h[9]
                    if offset >= hw:
                        return open_txns
                    if offset + h[6] + 1 >= hw:
                        # The last batch below the HW: bytes past it are never read (a torn,
                        # zero-filled tail may follow).
                        _track_transaction(open_txns, offset, attributes, producer_id, start)
                        return open_txns
                    _track_transaction(open_txns, offset, attributes, producer_id, start)
            finally:
                os.close(fd)
        return open_txns

    def _snapshot_open_transactions(self) -> tuple[int, dict[int, int]]:
        """(snapshot offset, open transactions) of the newest usable producer snapshot, else
        (log start offset, none)."""
        offsets = sorted(
            (
                int(p.name[: -len(SNAPSHOT_SUFFIX)])
                for p in self.directory.glob("*" + SNAPSHOT_SUFFIX)
                if p.name[: -len(SNAPSHOT_SUFFIX)].isdigit()
            ),
            reverse=True,
        )
        for offset in offsets:
            if offset > self.high_watermark:
                continue  # holds state past what is committed
            try:
                entries = decode_snapshot((self.directory / snapshot_file_name(offset)).read_bytes())
            except (OSError, CorruptSnapshotError) as exc:
                log.warning(
                    "%s-%d: ignoring producer snapshot %d (%s)", self.topic, self.partition, offset, exc
                )
                continue
            return offset, {e.producer_id: e.current_txn_first_offset for e in entries if e.has_ongoing_txn}
        return self.log_start_offset, {}

    def batch_timestamp(self, offset: int) -> int:
        """The max timestamp of the batch holding ``offset`` (-1 when it is not found)."""
        base = self.segments[self.segment_index(offset)] if self.segments else None
        if base is None:
            return -1
        path = self.segment_path(base)
        fd = open_segment(path)
        try:
            found = first_batch_ending_at_or_after(fd, path, self.offset_index(base), offset, file_size(fd))
            if found is None:
                return -1
            return HEADER.unpack(os.pread(fd, HEADER_SIZE, found.position))[8]
        finally:
            os.close(fd)

    def aborted_transactions(self) -> list[AbortedTxn]:
        """Every aborted transaction recorded in the partition's ``.txnindex`` files."""
        out: list[AbortedTxn] = []
        for base in self.segments:
            path = self._file(base, TXN_INDEX_SUFFIX)
            if path is None:
                continue
            try:
                data = path.read_bytes()
            except FileNotFoundError:
                continue
            usable = len(data) - len(data) % _ABORTED_TXN.size
            for version, pid, first, last, _lso in _ABORTED_TXN.iter_unpack(data[:usable]):
                if version != 0:
                    raise LogReadError(f"{path}: unknown aborted transaction entry version {version}")
                out.append(AbortedTxn(pid, first, last))
        return out


@dataclass(frozen=True)
class LogDirs:
    """Every partition found under some log dirs (Kafka's ``log.dirs``)."""

    dirs: tuple[Path, ...]
    partitions: dict[tuple[str, int], PartitionFiles] = field(default_factory=dict)

    @classmethod
    def scan(cls, log_dirs: Iterable[str | Path]) -> LogDirs:
        dirs = tuple(Path(d) for d in log_dirs)
        found: dict[tuple[str, int], PartitionFiles] = {}
        for d in dirs:
            if not d.is_dir():
                raise FileNotFoundError(f"log dir {d} does not exist or is not a directory")
            high_watermarks = _read_checkpoint(d / HIGH_WATERMARK_CHECKPOINT)
            log_starts = _read_checkpoint(d / LOG_START_OFFSET_CHECKPOINT)
            for entry in sorted(d.iterdir()):
                if not entry.is_dir() or not is_partition_dir_name(entry.name):
                    continue
                parsed = parse_topic_partition(entry.name)
                assert parsed is not None
                if parsed in found:
                    raise LogReadError(
                        f"partition {entry.name} is in two log dirs: {found[parsed].directory} and {entry}"
                    )
                found[parsed] = _partition_files(entry, parsed, high_watermarks, log_starts)
        return cls(dirs, found)

    @classmethod
    def scan_brokers(cls, brokers: Sequence[Iterable[str | Path]]) -> LogDirs:
        """The partitions of several brokers' log dirs, each from one replica.

        Each broker's dirs are scanned as :meth:`scan` does (a partition in two
        dirs of one broker is refused; each copy's high watermark is clamped to
        its last whole batch). Of the copies of a partition on several brokers,
        the one with the highest high watermark is kept, the first broker's on a
        tie: its data up to that high watermark is committed (Kafka's leader
        advances the HW only over the ISR, and a follower's HW never passes its
        own log end), whereas a lagging follower's copy stops earlier.

        The kept copy's log start offset is raised to the largest any copy
        reports (at most its high watermark): nothing below any replica's log
        start is readable in Kafka (DeleteRecords is acknowledged once every
        replica's log start passed the offset, ``DelayedDeleteRecords``), while a
        SIGKILLed broker's ``log-start-offset-checkpoint`` may predate it.
        """
        if len(brokers) == 1:
            return cls.scan(brokers[0])
        every_dir: list[Path] = []
        best: dict[tuple[str, int], PartitionFiles] = {}
        log_starts: dict[tuple[str, int], int] = {}
        for broker_dirs in brokers:
            one = cls.scan(broker_dirs)
            every_dir.extend(one.dirs)
            for tp, pf in one.partitions.items():
                log_starts[tp] = max(log_starts.get(tp, pf.log_start_offset), pf.log_start_offset)
                kept = best.get(tp)
                if kept is None or pf.high_watermark > kept.high_watermark:
                    best[tp] = pf
        for tp, pf in best.items():
            start = min(log_starts[tp], pf.high_watermark)
            if start > pf.log_start_offset:
                best[tp] = dataclasses.replace(pf, log_start_offset=start)
        return cls(tuple(every_dir), dict(sorted(best.items())))

    def select(
        self,
        topics: Sequence[str] | None = None,
        topic_pattern: str | None = None,
        partitions: dict[str, set[int] | None] | set[int] | None = None,
    ) -> list[PartitionFiles]:
        """Partitions chosen by topic names or a regex (full match) and partition numbers.

        Without ``topics``, internal topics (``__`` prefix) are left out, as a
        Kafka consumer's pattern subscription does (``exclude.internal.topics``).
        """
        rx = re.compile(topic_pattern) if topic_pattern else None
        wanted = set(topics) if topics else None
        out = []
        for (topic, part), pf in sorted(self.partitions.items()):
            if wanted is not None:
                if topic not in wanted:
                    continue
            elif topic.startswith("__") or (rx is not None and not rx.fullmatch(topic)):
                continue
            if isinstance(partitions, dict):
                chosen = partitions.get(topic, set())
                if chosen is not None and part not in chosen:
                    continue
            elif partitions is not None and part not in partitions:
                continue
            out.append(pf)
        return out


def _track_transaction(
    open_txns: dict[int, int], offset: int, attributes: int, producer_id: int, start: int
) -> None:
    """A transactional batch opens its producer's transaction, a marker ends it."""
    if offset < start or producer_id < 0:
        return
    if attributes & CONTROL_MASK:
        open_txns.pop(producer_id, None)
    elif attributes & TRANSACTIONAL_MASK and producer_id not in open_txns:
        open_txns[producer_id] = offset


def _read_checkpoint(path: Path) -> dict[tuple[str, int], int]:
    try:
        return OffsetCheckpointFile(path).read()
    except CheckpointError as exc:
        # The broker rewrites checkpoints atomically, so this is real damage, not a race.
        raise LogReadError(str(exc)) from exc


def _partition_files(
    directory: Path,
    key: tuple[str, int],
    high_watermarks: dict[tuple[str, int], int],
    log_starts: dict[tuple[str, int], int],
) -> PartitionFiles:
    paths, swapped = _segment_files(directory)
    bases = tuple(sorted(paths))
    first = bases[0] if bases else 0
    log_start = max(log_starts.get(key, first), first)
    hw = high_watermarks.get(key)
    if hw is None:
        # Nothing is known to be committed (the broker has not checkpointed it yet).
        log.warning("%s has no entry in %s; reading nothing of it", directory, HIGH_WATERMARK_CHECKPOINT)
        hw = log_start
    if bases and hw > max(bases[-1], log_start):
        # Kafka's UnifiedLog.updateHighWatermark: never past the log end offset. A checkpoint
        # newer than the segment (a log dir copied while its broker ran, a torn last batch)
        # would otherwise hide the missing tail behind this copy.
        last = bases[-1]
        end = whole_batches_end(paths[last], _index_path(paths[last]), last)
        if end < hw:
            log.warning(
                "%s: checkpointed high watermark %d is past the last whole batch (log end %d); using %d",
                directory,
                hw,
                end,
                end,
            )
            hw = end
    return PartitionFiles(key[0], key[1], directory, bases, log_start, max(hw, log_start), swapped)


def segment_files(directory: Path) -> dict[int, Path]:
    """Base offset -> file of the partition's segments, as the broker would load them."""
    return _segment_files(directory)[0]


def _segment_files(directory: Path) -> tuple[dict[int, Path], frozenset[str]]:
    """The segments of a partition directory (base offset -> file) and the names of the
    committed ``.swap`` files among them, read as the broker's recovery would leave them.

    Live segments are ``<offset>.log``; ``.deleted`` and ``.cleaned`` files are not. A
    ``.swap`` file is a cleaner swap cut by a crash after its commit point, unless a
    ``.cleaned`` file at or below its offset shows the commit was cut halfway (Kafka's
    ``LogLoader.removeTempFilesAndCollectSwapFiles``, KAFKA-6264: the rule is
    ``storage.segment_recovery.classify_swap_files``, which recovery follows at start-up).
    The ``.log.swap`` segments replace every listed segment whose base offset lies in
    [lowest swap base, highest swap next offset), and are read by their ``.swap`` names;
    a ``.swap`` index of a segment whose ``.log`` was already renamed is read likewise.
    Nothing is renamed or deleted here.
    """
    logs: dict[int, Path] = {}
    names: list[str] = []
    for p in directory.iterdir():
        name = p.name
        head = name.split(".", 1)[0]
        if not head.isdigit():
            continue
        names.append(name)
        if name == head + LOG_SUFFIX:
            logs[int(head)] = p
    committed = frozenset(n[: -len(SWAP_SUFFIX)] for n in classify_swap_files(names).committed)
    swapped_in = {
        offset_from_filename(n): directory / (n + SWAP_SUFFIX) for n in committed if n.endswith(LOG_SUFFIX)
    }
    if swapped_in:
        low = min(swapped_in)
        high = max(whole_batches_end(path, _index_path(path), base) for base, path in swapped_in.items())
        logs = {b: p for b, p in logs.items() if not low <= b < high}
        logs.update(swapped_in)
    return logs, committed


def _index_path(segment: Path) -> Path:
    """The offset index beside a segment file (``.log`` or ``.log.swap``)."""
    name = segment.name
    if name.endswith(SWAP_SUFFIX):
        return segment.with_name(name[: -len(LOG_SUFFIX + SWAP_SUFFIX)] + INDEX_SUFFIX + SWAP_SUFFIX)
    return segment.with_name(name[: -len(LOG_SUFFIX)] + INDEX_SUFFIX)


def _read_offset_index(path: Path | None, base_offset: int) -> OffsetIndex | None:
    """An offset index, read-only (None when missing or corrupt: scan from 0)."""
    if path is None or not path.exists():
        return None
    index = OffsetIndex(path, base_offset, 0, writable=False)
    try:
        index.entries  # noqa: B018 - loads and checks the entries now
    except (OSError, CorruptIndexError) as exc:
        log.warning("%s: ignoring unreadable offset index (%s)", path, exc)
        return None
    return index


def whole_batches_end(path: Path, index_path: Path | None, base_offset: int) -> int:
    """The offset after a segment's last whole batch (its base offset when it has none):
    where the broker's recovery would put the log end (Kafka's ``LogSegment.recover``
    drops a torn or zero-filled tail). Walks batch headers (CRCs are not checked) from the
    last offset-index entry when the index file is smaller than the segment (an active
    segment's index is preallocated: reading it may cost more than walking a small segment)."""
    try:
        fd = open_segment(path)
    except DataLossError:
        return base_offset
    try:
        size = file_size(fd)
        starts = [0]
        try:
            index_size = os.stat(index_path).st_size if index_path is not None else 0
        except FileNotFoundError:
            index_size = 0
        if 0 < index_size < size:
            index = _read_offset_index(index_path, base_offset)
            if index is not None and index.entries:
                tail = index.entry(index.entries - 1).position
                if 0 < tail < size:
                    starts.insert(0, tail)
        for start in starts:
            end: int | None = None
            with contextlib.suppress(LogReadError):
                for b in iter_batch_bounds(fd, start, size, path):
                    end = b.last_offset + 1
            if end is not None:
                return end
            # The index entry was not a whole batch's start (stale, or the batch is torn).
        return base_offset
    finally:
        os.close(fd)


# ---------------------------------------------------------------------- walking batch headers


def open_segment(path: Path) -> int:
    """A read-only fd of a segment, following a rename to ``.deleted`` (retention); DataLossError if gone."""
    candidates = [path, path.with_name(path.name + DELETED_SUFFIX)]
    if path.name.endswith(SWAP_SUFFIX):
        candidates.append(path.with_name(path.name[: -len(SWAP_SUFFIX)]))  # the swap completed since
    for candidate in candidates:
        with contextlib.suppress(FileNotFoundError):
            return os.open(candidate, os.O_RDONLY | os.O_CLOEXEC)
    raise DataLossError(f"segment {path} is gone (deleted by retention or truncation?)")


@dataclass(frozen=True, slots=True)
class BatchBounds:
    position: int
    size: int
    base_offset: int
    last_offset: int


def iter_batch_bounds(fd: int, start: int, end: int, path: Path) -> Iterator[BatchBounds]:
    """Whole batches in [start, end) of a segment, reading 27 header bytes each (64 KiB chunks).

    Stops at a partial batch (the end of what the broker has written). A
    length that cannot be a batch or a magic other than 2 is a LogReadError.
    """
    pos = start
    buf = b""
    buf_start = pos
    while pos + _BOUNDS_SIZE <= end:
        rel = pos - buf_start
        if rel + _BOUNDS_SIZE > len(buf):
            buf = os.pread(fd, min(_WALK_CHUNK, end - pos), pos)
            buf_start, rel = pos, 0
            if len(buf) < _BOUNDS_SIZE:
                return
        base, length, _epoch, magic, delta = _BOUNDS.unpack_from(buf, rel)
        if length < _MIN_BATCH_LENGTH or magic != CURRENT_MAGIC:
            raise LogReadError(f"{path}: no record batch at position {pos} (length {length}, magic {magic})")
        size = length + LOG_OVERHEAD
        if pos + size > end:
            return
        yield BatchBounds(pos, size, base, base + delta)
        pos += size


def _iter_headers(fd: int, end: int, path: Path) -> Iterator[tuple]:
    """The 61-byte headers (``HEADER`` fields) of the whole batches of a segment, 64 KiB reads."""
    pos, buf, buf_start = 0, b"", 0
    while pos + HEADER_SIZE <= end:
        rel = pos - buf_start
        if rel + HEADER_SIZE > len(buf):
            buf = os.pread(fd, min(_WALK_CHUNK, end - pos), pos)
            buf_start, rel = pos, 0
            if len(buf) < HEADER_SIZE:
                return
        h = HEADER.unpack_from(buf, rel)
        length, magic = h[1], h[3]
        if length < _MIN_BATCH_LENGTH or magic != CURRENT_MAGIC:
            raise LogReadError(f"{path}: no record batch at position {pos} (length {length}, magic {magic})")
        if pos + length + LOG_OVERHEAD > end:
            return
        yield h
        pos += length + LOG_OVERHEAD


_BASE_OFFSET = struct.Struct(">q")


def file_size(fd: int) -> int:
    return os.fstat(fd).st_size


def first_batch_ending_at_or_after(
    fd: int, path: Path, index: OffsetIndex | None, offset: int, end: int
) -> BatchBounds | None:
    """The first whole batch whose last offset is >= ``offset`` (Kafka's ``translateOffset``)."""
    start = index.lookup(offset).position if index is not None else 0
    if start >= end:
        start = 0  # an index ahead of the data (a crash before recovery): walk from the start
    for b in iter_batch_bounds(fd, start, end, path):
        if b.last_offset >= offset:
            return b
    return None


def first_batch_starting_at_or_after(
    fd: int, path: Path, index: OffsetIndex | None, offset: int, start: int, end: int
) -> int:
    """Position of the first whole batch at or after ``start`` with base offset >= ``offset``.

    Returns the end of the last whole batch when there is none (the exclusive
    end of a byte range that holds every batch below ``offset``).
    """
    if index is not None:
        hint = index.lookup(offset).position
        if start < hint < end:
            start = hint
    pos = start
    for b in iter_batch_bounds(fd, start, end, path):
        if b.base_offset >= offset:
            return b.position
        pos = b.position + b.size
        if b.last_offset + 1 >= offset:
            # Every offset below ``offset`` is read: what follows is never parsed, as Kafka's
            # LocalLog.read bounds a read by the high watermark's position (a crash may have
            # left a zero-filled tail there).
            return pos
    return pos


# ---------------------------------------------------------------------- planning


@dataclass(frozen=True, slots=True)
class ReadRange:
    """Whole batches of one segment to read: bytes [start, end), records [from_offset, until_offset)."""

    topic: str
    partition: int
    path: str
    start_position: int
    end_position: int
    from_offset: int
    until_offset: int
    aborted: tuple[AbortedTxn, ...] = ()
    # The planned file's inode: a different file under the name (a cleaner swap) is read by
    # offsets instead of positions (range_reader.relocate).
    inode: int = 0

    @property
    def size(self) -> int:
        return self.end_position - self.start_position


def plan_reads(
    pf: PartitionFiles,
    from_offset: int,
    until_offset: int,
    *,
    max_bytes: int,
    with_aborted: bool = True,
) -> list[ReadRange]:
    """Byte ranges holding offsets [from_offset, until_offset) of a partition, at most ``max_bytes`` each.

    One range per segment, split at offset-index entries (batch boundaries)
    when a segment holds more than ``max_bytes``. ``until_offset`` must not
    exceed the high watermark (the caller clamps it).
    """
    if from_offset >= until_offset or not pf.segments:
        return []
    aborted = pf.aborted_transactions() if with_aborted else []
    out: list[ReadRange] = []
    first = pf.segment_index(from_offset)
    for i in range(first, len(pf.segments)):
        base = pf.segments[i]
        if base >= until_offset:
            break
        next_base = pf.segments[i + 1] if i + 1 < len(pf.segments) else None
        path = pf.segment_path(base)
        try:
            fd = open_segment(path)
        except DataLossError:
            log.warning("%s: segment deleted while planning; skipping it", path)
            continue
        try:
            out.extend(
                _plan_segment(pf, fd, path, base, next_base, from_offset, until_offset, max_bytes, aborted)
            )
        finally:
            os.close(fd)
    return out


def _plan_segment(
    pf: PartitionFiles,
    fd: int,
    path: Path,
    base: int,
    next_base: int | None,
    from_offset: int,
    until_offset: int,
    max_bytes: int,
    aborted: list[AbortedTxn],
) -> list[ReadRange]:
    size = file_size(fd)
    # An active segment's index is preallocated (10 MiB): walking the headers of a small
    # segment is cheaper than reading it, unless the segment must be split.
    index = pf.offset_index(base) if size > min(INDEX_WORTH_BYTES, max_bytes) else None
    lo = max(from_offset, base)
    hi = until_offset if next_base is None else min(until_offset, next_base)
    start = 0
    if lo > base:
        first = first_batch_ending_at_or_after(fd, path, index, lo, size)
        if first is None:
            return []
        start = first.position
    if next_base is not None and until_offset >= next_base:
        # A rolled segment: every batch in it is below the next base, but only whole batches
        # count (a crash may have left a torn tail that the broker has not recovered yet).
        start_walk = start
        if index is not None and index.entries:
            tail = index.entry(index.entries - 1).position
            if start < tail < size:
                start_walk = tail
        end = start_walk
        for b in iter_batch_bounds(fd, start_walk, size, path):
            end = b.position + b.size
    else:
        end = first_batch_starting_at_or_after(fd, path, index, hi, start, size)
    if end <= start:
        return []
    relevant = tuple(t for t in aborted if t.last_offset >= lo and t.first_offset < hi)
    cuts = [start]
    if end - start > max_bytes and index is not None and index.entries:
        # Index entries are batch starts: cut at the last one within max_bytes of the previous
        # cut, or the first one after it when a batch is bigger than that.
        positions = _IndexPositions(index)
        target = start + max_bytes
        while target < end:
            n = bisect.bisect_right(positions, target) - 1
            if n < 0 or positions[n] <= cuts[-1]:
                n += 1
            if n >= len(positions) or positions[n] >= end:
                break
            cuts.append(positions[n])
            target = positions[n] + max_bytes
    # Each range's own offsets: [lo, base of the batch at the 2nd cut), ..., [base at the last cut, hi).
    bounds = [lo, *(_BASE_OFFSET.unpack(os.pread(fd, 8, cut))[0] for cut in cuts[1:]), hi]
    cuts.append(end)
    inode = os.fstat(fd).st_ino
    return [
        ReadRange(pf.topic, pf.partition, str(path), a, b, bounds[i], bounds[i + 1], relevant, inode)
        for i, (a, b) in enumerate(itertools.pairwise(cuts))
    ]


class _IndexPositions(Sequence[int]):
    """The positions of an offset index's entries as a sequence (for bisect)."""

    def __init__(self, index: OffsetIndex) -> None:
        self._index = index
        self._n = index.entries

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, n: int) -> int:  # type: ignore[override]
        return self._index.entry(n).position


# ---------------------------------------------------------------------- offsets by time


def offset_for_timestamp(pf: PartitionFiles, timestamp: int, *, read_committed: bool = False) -> int | None:
    """The first offset below the high watermark (the last stable offset with read_committed)
    whose record timestamp is >= ``timestamp``.

    Kafka's ``UnifiedLog.fetchOffsetByTimestamp`` (ListOffsets), limited as the broker does
    for consumers (``ReplicaManager.fetchOffsetForTimestamp``: an answer at or past the last
    fetchable offset is no answer): the time index narrows the search, then batch headers
    (max timestamp) and records are read, transaction markers included as Kafka's
    ``FileRecords.searchForTimestamp``. None when no readable record is that late.
    """
    limit = pf.end_offset(read_committed)
    for i, base in enumerate(pf.segments):
        if base >= limit:
            break
        next_base = pf.segments[i + 1] if i + 1 < len(pf.segments) else None
        if next_base is not None and next_base <= pf.log_start_offset:
            continue
        tindex = pf.time_index(base)
        # A rolled segment's time index ends with its largest timestamp.
        if (
            next_base is not None
            and tindex is not None
            and tindex.entries
            and tindex.last_entry().timestamp < timestamp
        ):
            continue
        start_offset = pf.log_start_offset
        if tindex is not None:
            start_offset = max(start_offset, tindex.lookup(timestamp).offset)
        found = _search_segment(pf, base, start_offset, timestamp, limit)
        if found is not None:
            return found
    return None


def _search_segment(
    pf: PartitionFiles, base: int, start_offset: int, timestamp: int, limit: int
) -> int | None:
    path = pf.segment_path(base)
    try:
        fd = open_segment(path)
    except DataLossError:
        return None
    try:
        index = pf.offset_index(base)
        start = index.lookup(max(start_offset, base)).position if index is not None else 0
        for b in iter_batch_bounds(fd, start, file_size(fd), path):
            if b.base_offset >= limit:
                return None
            if b.last_offset < start_offset:
                continue
            raw = os.pread(fd, b.size, b.position)
            header = HEADER.unpack_from(raw, 0)
            attributes, max_ts = header[5], header[8]
            if max_ts < timestamp:  # a marker counts too (FileRecords.searchForTimestamp)
                continue
            if attributes & TIMESTAMP_TYPE_MASK:
                # LogAppendTime: every record carries the batch's max timestamp.
                first = max(b.base_offset, start_offset)
                return first if first < limit else None
            for record in decode_batch(raw):
                if record.offset >= limit:
                    return None
                if record.offset >= start_offset and record.timestamp >= timestamp:
                    return record.offset
        return None
    finally:
        os.close(fd)


__all__ = [
    "AbortedTxn",
    "BatchBounds",
    "DataLossError",
    "LogDirs",
    "LogReadError",
    "PartitionFiles",
    "ReadRange",
    "offset_for_timestamp",
    "plan_reads",
    "segment_files",
    "whole_batches_end",
]
