"""Recovery of a partition directory's segment files at load, for ``storage.log_loader``.

``recover_segment`` is Kafka's ``LogSegment.recover``: it scans a segment's ``.log`` file,
rebuilds its ``.index`` and ``.timeindex`` by the rule appends follow
(``LogSegment.index_batch``) and cuts the file after its last whole valid batch. Kafka keeps
it a method of ``LogSegment``; here it is a function over a ``storage.segment.LogSegment``,
which holds the segment's state and offers the steps that change it
(``reset_for_recovery``, ``index_batch``, ``set_rolling_based_timestamp``,
``cut_for_recovery``).

``clean_leftover_files`` is Kafka's ``LogLoader.removeTempFilesAndCollectSwapFiles`` with the
swap completion of its ``load``: what a crash of the cleaner's swap or of a deletion left in
the directory, deleted or completed before the segments are opened.
"""

from __future__ import annotations

import contextlib
import logging
import os
import struct
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import NamedTuple

from protocol.record_batch import (
    CURRENT_MAGIC,
    HEADER,
    HEADER_SIZE,
    INT32_MAX,
    LOG_OVERHEAD,
    BatchHeader,
    compute_crc,
)
from storage.config_def import LONG_MAX
from storage.segment import (
    CLEANED_SUFFIX,
    DELETED_SUFFIX,
    LOG_SUFFIX,
    SWAP_SUFFIX,
    LogSegment,
    offset_from_filename,
)

log = logging.getLogger(__name__)

RECOVERY_CHUNK = 8 * 1024 * 1024
_MIN_BATCH_LENGTH = HEADER_SIZE - LOG_OVERHEAD  # 49


class RecoveryResult(NamedTuple):
    valid_bytes: int
    truncated_bytes: int
    next_offset: int | None  # next offset after the last valid batch, None if none
    reason: str | None  # why the scan stopped early, None at a clean end


def recover_segment(
    segment: LogSegment,
    *,
    min_offset: int,
    on_batch: Callable[[BatchHeader], None] | None = None,
    progress: Callable[[int], None] | None = None,
) -> RecoveryResult:
    """Rebuild the indexes from the log and cut it after its last whole valid batch.

    Kafka's ``LogSegment.recover``. A batch is valid when its length can hold
    a header and fits in the file, its magic is 2, its CRC-32C matches, its
    base offset is not below ``min_offset`` nor below the previous batch's
    end, and its last offset fits in the segment. ``on_batch`` sees every
    valid header (leader-epoch cache); ``progress`` gets bytes scanned.
    """
    file_size = segment.reset_for_recovery()
    base_offset = segment.base_offset
    pread = segment.pread
    index_batch = segment.index_batch
    valid = 0
    expected_min = max(min_offset, base_offset)
    next_offset: int | None = None
    reason: str | None = None
    buf = b""
    buf_start = 0
    while valid < file_size:
        rel = valid - buf_start
        if rel + LOG_OVERHEAD > len(buf):
            buf = pread(valid, min(RECOVERY_CHUNK, file_size - valid))
            buf_start, rel = valid, 0
            if progress is not None:
                progress(valid)
            if len(buf) < LOG_OVERHEAD:
                reason = "partial batch header at the end of the file"
                break
        _base, length = struct.unpack_from(">qi", buf, rel)
        size = length + LOG_OVERHEAD
        if length < _MIN_BATCH_LENGTH:
            reason = f"batch length {length} is below the minimum"
            break
        if valid + size > file_size:
            reason = "partial batch at the end of the file"
            break
        if rel + size > len(buf):
            buf = pread(valid, max(size, min(RECOVERY_CHUNK, file_size - valid)))
            buf_start, rel = valid, 0
            if progress is not None:
                progress(valid)
            if len(buf) < size:
                reason = "partial batch at the end of the file"
                break
        header = BatchHeader._make(HEADER.unpack_from(buf, rel))
        if header.magic != CURRENT_MAGIC:
            reason = f"magic {header.magic} is not {CURRENT_MAGIC}"
            break
        if compute_crc(buf, rel, size) != header.crc:
            reason = "CRC-32C mismatch"
            break
        last = header.base_offset + header.last_offset_delta
        if header.last_offset_delta < 0 or header.base_offset < expected_min:
            reason = f"batch offsets {header.base_offset}..{last} go backwards (expected >= {expected_min})"
            break
        if last - base_offset > INT32_MAX:
            reason = f"offset {last} does not fit in segment {base_offset}"
            break
        if valid == 0:
            segment.set_rolling_based_timestamp(header.max_timestamp)
        index_batch(valid, size, last, header.max_timestamp)
        if on_batch is not None:
            on_batch(header)
        valid += size
        expected_min = last + 1
        next_offset = last + 1
    truncated = file_size - valid
    if truncated:
        segment.cut_for_recovery(valid)
    if progress is not None:
        progress(file_size)
    # A normally closed segment always ends its time index with the largest timestamp.
    segment.time_index.maybe_append(
        segment.max_timestamp_so_far, segment.offset_of_max_timestamp_so_far, skip_full_check=True
    )
    return RecoveryResult(valid, truncated, next_offset, reason if truncated else None)


# ---------------------------------------------------------------------- leftover files


class SwapFiles(NamedTuple):
    """A partition directory's files of the cleaner's swap, sorted by what a crash left them as."""

    committed: list[str]  # ``.swap`` names of a committed swap: renamed to their final names
    unfinished: list[str]  # ``.swap`` names of a commit cut halfway: deleted
    cleaned: list[str]  # ``.cleaned`` names (not committed): deleted


def classify_swap_files(names: Iterable[str]) -> SwapFiles:
    """Kafka's rule in ``LogLoader.removeTempFilesAndCollectSwapFiles`` (KAFKA-6264): a
    ``.swap`` file at or above the lowest ``.cleaned`` offset belongs to a commit cut halfway;
    the others were committed. Also what the Spark reader follows to read a crashed log as
    recovery will leave it, without renaming anything."""
    swaps: list[str] = []
    cleaned: list[str] = []
    min_cleaned = LONG_MAX
    for name in names:
        if name.endswith(CLEANED_SUFFIX):
            min_cleaned = min(min_cleaned, _offset_or(name, LONG_MAX))
            cleaned.append(name)
        elif name.endswith(SWAP_SUFFIX):
            swaps.append(name)
    committed = [n for n in swaps if _offset_or(n, LONG_MAX) < min_cleaned]
    unfinished = [n for n in swaps if _offset_or(n, LONG_MAX) >= min_cleaned]
    return SwapFiles(committed, unfinished, cleaned)


def clean_leftover_files(directory: Path, *, index_interval_bytes: int, max_index_size: int) -> None:
    """Kafka's ``LogLoader.removeTempFilesAndCollectSwapFiles`` and the swap completion of its
    ``load``, for one partition directory. The states a crash of the cleaner's swap
    (``PartitionLog.replace_segments``) can leave, and what becomes of them:

    - ``.cleaned`` files (the cleaned segment, not yet committed): deleted, and so is every
      ``.swap`` file at or above the lowest ``.cleaned`` offset (a commit cut halfway: Kafka's
      KAFKA-6264 rule); the old segments stay. ``.tmp`` files are deleted too.
    - ``.log.swap`` (committed): the segment files whose offsets lie in [lowest swap base,
      highest swap next offset) are the replaced ones and are deleted, whatever their suffix
      (Kafka deletes every non-swap file in that range), then every ``.swap`` file is
      renamed to its final name; this also finishes a swap cut after the log file was renamed
      but not its indexes.
    - ``.deleted`` files (replaced segments, and those retention removed): deleted.
    """
    names: list[str] = []
    for path in list(directory.iterdir()):
        name = path.name
        if name.endswith((DELETED_SUFFIX, ".tmp")):
            log.info("%s: deleting leftover file %s", directory.name, name)
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        else:
            names.append(name)
    swaps = classify_swap_files(names)
    for name in swaps.unfinished:
        log.info("%s: deleting swap file %s of an unfinished commit", directory.name, name)
        with contextlib.suppress(FileNotFoundError):
            (directory / name).unlink()
    for name in swaps.cleaned:
        log.info("%s: deleting uncommitted cleaned file %s", directory.name, name)
        with contextlib.suppress(FileNotFoundError):
            (directory / name).unlink()
    valid_swaps = [directory / name for name in swaps.committed]
    low, high = LONG_MAX, -1
    for path in valid_swaps:
        if not path.name.endswith(LOG_SUFFIX + SWAP_SUFFIX):
            continue
        base = offset_from_filename(path.name)
        seg = LogSegment(
            directory,
            base,
            index_interval_bytes=index_interval_bytes,
            max_index_size=max_index_size,
            active=False,
            suffix=SWAP_SUFFIX,
        )
        try:
            next_offset = seg.read_next_offset()
        finally:
            seg.close_handlers()
        low, high = min(low, base), max(high, next_offset)
    if low < high:
        for path in list(directory.iterdir()):
            if path.name.endswith(SWAP_SUFFIX) or not path.is_file():
                continue
            offset = _offset_or(path.name, None)
            if offset is not None and low <= offset < high:
                log.info("%s: deleting %s, replaced by a committed swap", directory.name, path.name)
                path.unlink()
    for path in valid_swaps:
        target = path.with_name(path.name[: -len(SWAP_SUFFIX)])
        log.info("%s: completing the swap of %s", directory.name, target.name)
        os.replace(path, target)


def _offset_or(name: str, default: int | None) -> int | None:
    """The offset a file name starts with, ``default`` when it has none."""
    head = name.split(".", 1)[0]
    return int(head) if head.isdigit() else default
