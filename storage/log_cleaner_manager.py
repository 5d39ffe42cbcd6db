"""Which log the cleaner compacts next, and where each log's clean part ends.

Kafka's ``LogCleanerManager`` + ``LogToClean`` + ``CleanerConfig``, on the event loop:

- ``CleanerConfig``: the broker's ``log.cleaner.*`` keys with Kafka's defaults
  (``CLEANER_BROKER_KEYS``; the per-topic ones, ``log.cleaner.min.cleanable.ratio``,
  ``log.cleaner.delete.retention.ms``, ``log.cleaner.{min,max}.compaction.lag.ms``, are
  topic-config synonyms in ``storage.log_config``).
- ``cleanable_offsets``: a log's dirty range [first dirty, first uncleanable): from the
  checkpointed offset (reset to the log start when it is out of range) to the lowest of the
  last stable offset, the active segment's base and the first segment younger than
  ``min.compaction.lag.ms``.
- ``LogToClean``: the clean / cleanable bytes and their ratio; ``grab_filthiest`` picks the
  log with the largest ratio over ``min.cleanable.dirty.ratio``, or one whose dirty records
  waited past ``max.compaction.lag.ms``, and marks it in progress.
- ``cleaner-offset-checkpoint`` (one per log dir, Kafka's ``OffsetCheckpointFile`` format:
  version 0, entry count, ``topic partition offset`` lines): the first dirty offset of
  each compacted log, written (in an executor) after each cleaning.

Everything here runs on the loop and reads only segment sizes, base offsets and (for the
compaction lags) each segment's largest timestamp and first batch header, which segments
cache after the first read.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from storage.checkpoints import CheckpointError, OffsetCheckpointFile
from storage.config_def import LONG_MAX, ConfigKey, ConfigType, at_least
from storage.segment import LogSegment

log = logging.getLogger(__name__)

CLEANER_OFFSET_CHECKPOINT = "cleaner-offset-checkpoint"  # LogCleanerManager.OFFSET_CHECKPOINT_FILE

TopicPartition = tuple[str, int]


def _k(name: str, ctype: ConfigType, default: Any, doc: str, validator: Any = None) -> ConfigKey:
    return ConfigKey(name, ctype, default, doc, validator)


# Kafka's CleanerConfig.CONFIG_DEF (the keys that are not topic-config synonyms).
CLEANER_BROKER_KEYS: dict[str, ConfigKey] = {
    k.name: k
    for k in [
        _k("log.cleaner.enable", ConfigType.BOOLEAN, True, "Run the log cleaner (compacted topics)"),
        _k(
            "log.cleaner.threads",
            ConfigType.INT,
            1,
            "Logs cleaned at the same time (each in its own thread); 0 cleans none",
            at_least(0),
        ),
        _k(
            "log.cleaner.io.max.bytes.per.second",
            ConfigType.DOUBLE,
            sys.float_info.max,
            "Read plus write bytes per second of all cleaner threads, on average",
        ),
        _k(
            "log.cleaner.dedupe.buffer.size",
            ConfigType.LONG,
            128 * 1024 * 1024,
            "Memory of the key -> offset maps of all cleaner threads",
        ),
        _k(
            "log.cleaner.io.buffer.size",
            ConfigType.INT,
            512 * 1024,
            "Read buffer of the cleaner (grown to hold one batch when needed)",
            at_least(0),
        ),
        _k(
            "log.cleaner.io.buffer.load.factor",
            ConfigType.DOUBLE,
            0.9,
            "How full the key -> offset map may become",
        ),
        _k(
            "log.cleaner.backoff.ms",
            ConfigType.LONG,
            15_000,
            "Sleep when no log needs cleaning",
            at_least(0),
        ),
    ]
}


@dataclass(frozen=True)
class CleanerConfig:
    """Kafka's ``CleanerConfig`` (the defaults are Kafka's)."""

    enable: bool = True
    threads: int = 1
    dedupe_buffer_size: int = 128 * 1024 * 1024
    io_buffer_size: int = 512 * 1024
    io_buffer_load_factor: float = 0.9
    io_max_bytes_per_second: float = sys.float_info.max
    backoff_ms: int = 15_000

    @classmethod
    def from_broker_values(cls, values: Mapping[str, Any]) -> CleanerConfig:
        """From parsed broker properties (the ``log.cleaner.*`` keys above)."""
        defaults = {name: key.default for name, key in CLEANER_BROKER_KEYS.items()}
        v = {**defaults, **{k: values[k] for k in CLEANER_BROKER_KEYS if values.get(k) is not None}}
        return cls(
            enable=bool(v["log.cleaner.enable"]),
            threads=int(v["log.cleaner.threads"]),
            dedupe_buffer_size=int(v["log.cleaner.dedupe.buffer.size"]),
            io_buffer_size=int(v["log.cleaner.io.buffer.size"]),
            io_buffer_load_factor=float(v["log.cleaner.io.buffer.load.factor"]),
            io_max_bytes_per_second=float(v["log.cleaner.io.max.bytes.per.second"]),
            backoff_ms=int(v["log.cleaner.backoff.ms"]),
        )

    @property
    def running(self) -> bool:
        """Whether cleaner threads run at all (Kafka starts none with 0 threads)."""
        return self.enable and self.threads > 0


# ---------------------------------------------------------------------- segment ranges


def segments_overlapping(
    segments: Sequence[LogSegment], from_offset: int, to_offset: int
) -> list[LogSegment]:
    """Kafka's ``logSegments(from, to)``: the segments holding offsets in [from, to)
    (the one holding ``from``, if any, and every later one based below ``to``)."""
    out: list[LogSegment] = []
    for i, seg in enumerate(segments):
        nxt = segments[i + 1].base_offset if i + 1 < len(segments) else None
        if seg.base_offset >= to_offset:
            break
        if nxt is not None and nxt <= from_offset:
            continue
        out.append(seg)
    return out


def non_active_segments_from(segments: Sequence[LogSegment], from_offset: int) -> list[LogSegment]:
    """Kafka's ``nonActiveLogSegmentsFrom``: from the segment holding ``from_offset`` to the
    one before the active segment."""
    if not segments:
        return []
    return segments_overlapping(segments, from_offset, segments[-1].base_offset)


class LogLike:
    """What the manager reads of a ``PartitionLog`` (typing only)."""

    topic: str
    partition: int
    dir: Path
    config: Any
    log_start_offset: int
    log_end_offset: int
    last_stable_offset: int
    closed: bool
    dir_state: Any  # LogDirState

    def segments(self) -> tuple[LogSegment, ...]: ...


@dataclass(frozen=True)
class OffsetsToClean:
    """Kafka's ``LogCleanerManager.OffsetsToClean``."""

    first_dirty_offset: int
    first_uncleanable_dirty_offset: int
    force_update_checkpoint: bool


def cleanable_offsets(plog: LogLike, last_clean_offset: int | None, now_ms: int) -> OffsetsToClean:
    """Kafka's ``LogCleanerManager.cleanableOffsets``."""
    start = plog.log_start_offset
    checkpointed = start if last_clean_offset is None else last_clean_offset
    force = False
    if checkpointed < start:
        if "delete" not in plog.config.cleanup_policy:
            log.warning(
                "Resetting first dirty offset of %s-%d to log start offset %d since the checkpointed "
                "offset %d is invalid.",
                plog.topic,
                plog.partition,
                start,
                checkpointed,
            )
        first_dirty, force = start, True
    elif checkpointed > plog.log_end_offset:
        log.warning(
            "The last checkpoint dirty offset for partition %s-%d is %d, which is larger than the log "
            "end offset %d. Resetting to the log start offset %d.",
            plog.topic,
            plog.partition,
            checkpointed,
            plog.log_end_offset,
            start,
        )
        first_dirty, force = start, True
    else:
        first_dirty = checkpointed
    segments = plog.segments()
    candidates = [plog.last_stable_offset, segments[-1].base_offset]
    min_lag = max(plog.config.min_compaction_lag_ms, 0)
    if min_lag > 0:
        # The first segment whose largest timestamp is within min.compaction.lag.ms of now.
        for seg in non_active_segments_from(segments, first_dirty):
            if seg.largest_timestamp() > now_ms - min_lag:
                candidates.append(seg.base_offset)
                break
    return OffsetsToClean(first_dirty, max(first_dirty, min(candidates)), force)


def max_compaction_delay(plog: LogLike, first_dirty_offset: int, now_ms: int) -> int:
    """Kafka's ``maxCompactionDelay``: how long past ``max.compaction.lag.ms`` the oldest dirty
    record (by its segment's first batch timestamp) has waited; 0 when none has."""
    stamps = [
        ts
        for seg in non_active_segments_from(plog.segments(), first_dirty_offset)
        if (ts := seg.first_batch_timestamp()) > 0
    ]
    earliest = min(stamps) if stamps else LONG_MAX
    clean_until = now_ms - max(plog.config.max_compaction_lag_ms, 0)
    return clean_until - earliest if earliest < clean_until else 0


@dataclass(frozen=True)
class LogToClean:
    """Kafka's ``LogToClean``: a log, its dirty range and how dirty it is."""

    log: Any  # PartitionLog
    first_dirty_offset: int
    first_uncleanable_offset: int  # the base offset of the first segment not cleaned
    clean_bytes: int
    cleanable_bytes: int
    need_compaction_now: bool

    @property
    def total_bytes(self) -> int:
        return self.clean_bytes + self.cleanable_bytes

    @property
    def cleanable_ratio(self) -> float:
        return self.cleanable_bytes / self.total_bytes if self.total_bytes else 0.0

    @classmethod
    def of(
        cls, plog: LogLike, first_dirty: int, uncleanable_offset: int, need_compaction_now: bool
    ) -> LogToClean:
        segments = plog.segments()
        clean_bytes = sum(s.size for s in segments if s.base_offset < first_dirty)
        # Kafka's calculateCleanableBytes: up to the base of the segment holding the uncleanable
        # offset (the active segment when none does).
        non_active = non_active_segments_from(segments, uncleanable_offset)
        first_uncleanable = (non_active[0] if non_active else segments[-1]).base_offset
        cleanable = sum(
            s.size
            for s in segments_overlapping(segments, min(first_dirty, first_uncleanable), first_uncleanable)
        )
        return cls(plog, first_dirty, first_uncleanable, clean_bytes, cleanable, need_compaction_now)


# ---------------------------------------------------------------------- the manager


class LogCleanerManager:
    """In-progress logs and the cleaner checkpoints of every log dir (on the loop)."""

    def __init__(self, log_dirs: Sequence[Path]) -> None:
        self.log_dirs = [Path(d) for d in log_dirs]
        self._checkpoints: dict[Path, dict[TopicPartition, int]] = {d: {} for d in self.log_dirs}
        self._dirty_dirs: set[Path] = set()
        self.in_progress: set[TopicPartition] = set()
        self.uncleanable: set[TopicPartition] = set()
        self.dirtiest_ratio = 0.0  # Kafka's max-dirty-percent gauge / 100

    # -- checkpoints

    def load_checkpoints(self) -> None:
        """Read every log dir's ``cleaner-offset-checkpoint`` (at start, before the loop runs)."""
        for d in self.log_dirs:
            try:
                self._checkpoints[d] = OffsetCheckpointFile(d / CLEANER_OFFSET_CHECKPOINT).read()
            except (CheckpointError, OSError, UnicodeDecodeError) as exc:
                log.warning("ignoring unreadable %s: %s", d / CLEANER_OFFSET_CHECKPOINT, exc)
                self._checkpoints[d] = {}

    def checkpoint(self, plog: LogLike) -> int | None:
        return self._checkpoints.get(plog.dir.parent, {}).get((plog.topic, plog.partition))

    def all_checkpoints(self) -> dict[TopicPartition, int]:
        out: dict[TopicPartition, int] = {}
        for offsets in self._checkpoints.values():
            out.update(offsets)
        return out

    def update_checkpoint(self, plog: LogLike, offset: int) -> None:
        d = plog.dir.parent
        self._checkpoints.setdefault(d, {})[(plog.topic, plog.partition)] = offset
        self._dirty_dirs.add(d)

    def forget(self, topic: str, partition: int) -> None:
        """A deleted log leaves the checkpoints (Kafka's ``updateCheckpoints`` with a removal)."""
        for d, offsets in self._checkpoints.items():
            if offsets.pop((topic, partition), None) is not None:
                self._dirty_dirs.add(d)

    def checkpoints_to_write(self, hosted: Iterable[TopicPartition]) -> dict[Path, dict[TopicPartition, int]]:
        """The changed checkpoint files, limited to hosted logs (Kafka filters to ``logs``);
        the caller writes them with ``write_checkpoint`` off the loop."""
        keep = set(hosted)
        out = {}
        for d in sorted(self._dirty_dirs):
            offsets = {tp: o for tp, o in self._checkpoints.get(d, {}).items() if tp in keep}
            self._checkpoints[d] = offsets
            out[d] = dict(offsets)
        self._dirty_dirs.clear()
        return out

    @staticmethod
    def write_checkpoint(d: Path, offsets: Mapping[TopicPartition, int]) -> None:
        OffsetCheckpointFile(d / CLEANER_OFFSET_CHECKPOINT).write(offsets)

    # -- choosing

    def grab_filthiest(self, logs: Iterable[LogLike], now_ms: int) -> LogToClean | None:
        """Kafka's ``grabFilthiestCompactedLog``: the dirtiest compacted log worth cleaning, now
        marked in progress; None if there is none. (``LogCleaner`` calls the two halves itself,
        ``log_to_clean`` for each log in slices, then ``choose``.)"""
        dirty = [ltc for plog in logs if (ltc := self.log_to_clean(plog, now_ms)) is not None]
        return self.choose(dirty)

    def _skipped(self, plog: LogLike) -> bool:
        tp = (plog.topic, plog.partition)
        return (
            not plog.config.compact
            or plog.closed
            or plog.dir_state.offline
            or tp in self.in_progress
            or tp in self.uncleanable
        )

    def log_to_clean(self, plog: LogLike, now_ms: int) -> LogToClean | None:
        """One log's part of ``grab_filthiest``: its dirty range and ratio; None when it is not
        a compacted log that can be cleaned now, or has no bytes."""
        if self._skipped(plog):
            return None
        offsets = cleanable_offsets(plog, self.checkpoint(plog), now_ms)
        if offsets.force_update_checkpoint:
            self.update_checkpoint(plog, offsets.first_dirty_offset)
        delay = max_compaction_delay(plog, offsets.first_dirty_offset, now_ms)
        ltc = LogToClean.of(
            plog, offsets.first_dirty_offset, offsets.first_uncleanable_dirty_offset, delay > 0
        )
        return ltc if ltc.total_bytes > 0 else None

    def choose(self, dirty: Sequence[LogToClean]) -> LogToClean | None:
        """The other part: of ``dirty`` (each from ``log_to_clean``), the filthiest worth cleaning
        and still cleanable (another cleaner thread may have taken it, or it closed, since its
        ratio was taken), marked in progress."""
        self.dirtiest_ratio = max((ltc.cleanable_ratio for ltc in dirty), default=0.0)
        cleanable = [
            ltc
            for ltc in dirty
            if not self._skipped(ltc.log)
            and (
                (ltc.need_compaction_now and ltc.cleanable_bytes > 0)
                or ltc.cleanable_ratio > ltc.log.config.min_cleanable_dirty_ratio
            )
        ]
        if not cleanable:
            return None
        filthiest = max(cleanable, key=lambda ltc: ltc.cleanable_ratio)
        self.in_progress.add((filthiest.log.topic, filthiest.log.partition))
        return filthiest

    def done_cleaning(self, plog: LogLike, end_offset: int | None) -> None:
        """Kafka's ``doneCleaning``: the checkpoint moves to ``end_offset`` (None: the cleaning
        was aborted, the checkpoint stays)."""
        if end_offset is not None:
            self.update_checkpoint(plog, end_offset)
        self.in_progress.discard((plog.topic, plog.partition))

    def is_in_progress(self, topic: str, partition: int) -> bool:
        return (topic, partition) in self.in_progress

    def mark_uncleanable(self, plog: LogLike) -> None:
        """After an unexpected error the log is skipped until restart (Kafka's uncleanable partitions)."""
        self.uncleanable.add((plog.topic, plog.partition))


__all__ = [
    "CLEANER_BROKER_KEYS",
    "CLEANER_OFFSET_CHECKPOINT",
    "CleanerConfig",
    "LogCleanerManager",
    "LogToClean",
    "OffsetsToClean",
    "cleanable_offsets",
    "max_compaction_delay",
    "non_active_segments_from",
    "segments_overlapping",
]
