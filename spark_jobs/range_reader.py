"""Reading one planned byte range of a segment into Arrow batches (runs on Spark executors).

Whole batches only: the range was planned on batch boundaries; a batch that
is cut short (the file shrank since planning) is data loss, never a partial
read. Per batch, as a Kafka consumer does (``CompletedFetch``,
``DefaultRecordBatch``):

- the CRC-32C is checked (``check.crcs``, on by default);
- control batches (transaction markers) are skipped: they carry no data;
- with read_committed, transactional batches of an aborted transaction
  (``.txnindex``) are skipped;
- records outside [from_offset, until_offset) are dropped (a range's first
  and last batch may straddle its offset bounds).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import struct
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa

from protocol import compression
from protocol.primitives import DecodeError
from protocol.record_batch import (
    CONTROL_MASK,
    CURRENT_MAGIC,
    HEADER,
    HEADER_SIZE,
    LOG_OVERHEAD,
    TIMESTAMP_TYPE_MASK,
    TRANSACTIONAL_MASK,
    compute_crc,
)
from spark_jobs.arrow_records import RecordColumns
from spark_jobs.log_files import (
    DataLossError,
    LogReadError,
    ReadRange,
    file_size,
    first_batch_ending_at_or_after,
    open_segment,
    segment_files,
)

log = logging.getLogger(__name__)

READ_CHUNK = 8 * 1024 * 1024
# An Arrow batch handed to Spark holds about this many records or decoded bytes.
ARROW_BATCH_ROWS = 32_768
ARROW_BATCH_BYTES = 32 * 1024 * 1024
_MIN_BATCH_LENGTH = HEADER_SIZE - LOG_OVERHEAD
_PEEK = struct.Struct(">qi")  # baseOffset, batchLength


class CorruptRecordError(LogReadError):
    """A batch that fails its CRC or does not decode (Kafka's ``CorruptRecordException``)."""


def read_range(
    r: ReadRange,
    *,
    check_crcs: bool = True,
    fail_on_data_loss: bool = True,
    max_rows: int = ARROW_BATCH_ROWS,
    max_bytes: int = ARROW_BATCH_BYTES,
) -> Iterator[pa.RecordBatch]:
    """Arrow batches (the data source's schema) of the records in ``r``."""
    path = Path(r.path)
    try:
        fd = open_segment(path)
    except DataLossError:
        fd = -1
    try:
        if fd < 0 or (r.inode and os.fstat(fd).st_ino != r.inode):
            # The planned file was replaced (a cleaner swap) or is gone: the positions are
            # stale, the offsets are not (a Kafka consumer reads by offset).
            if fd >= 0:
                os.close(fd)
            fd, r = relocate(r)
            if fd < 0:
                if fail_on_data_loss:
                    raise DataLossError(f"segment {path} is gone (deleted by retention or truncation?)")
                log.warning("%s is gone; skipping offsets %d..%d", path, r.from_offset, r.until_offset)
                return
            path = Path(r.path)
        yield from _read_open_range(fd, path, r, check_crcs, fail_on_data_loss, max_rows, max_bytes)
    finally:
        if fd >= 0:
            os.close(fd)


def relocate(r: ReadRange) -> tuple[int, ReadRange]:
    """(fd, range) of the segment now holding ``r``'s first offset, positioned by offsets
    (whole file to the first batch at or past ``r.until_offset``); fd -1 when no segment of
    the partition starts at or below it any more (retention removed the records: data loss).

    The cleaner names a cleaned segment after the first segment it replaces (Kafka's
    ``LocalLog.replaceSegments``) and may merge the following ones into it, so the holder is
    the segment with the largest base offset at or below ``r.from_offset`` (a committed
    ``.swap`` a crash left counts, as in planning: ``log_files.segment_files``)."""
    segments = segment_files(Path(r.path).parent)
    holder = [b for b in sorted(segments) if b <= r.from_offset]
    if not holder:
        return -1, r
    path = segments[holder[-1]]
    try:
        fd = open_segment(path)
    except DataLossError:
        return -1, r
    size = file_size(fd)
    first = first_batch_ending_at_or_after(fd, path, None, r.from_offset, size)
    start = first.position if first is not None else size
    return fd, dataclasses.replace(r, path=str(path), start_position=start, end_position=size, inode=0)


def _aborted_lookup(r: ReadRange) -> dict[int, list[tuple[int, int]]]:
    out: dict[int, list[tuple[int, int]]] = {}
    for t in r.aborted:
        out.setdefault(t.producer_id, []).append((t.first_offset, t.last_offset))
    return out


def _read_open_range(
    fd: int,
    path: Path,
    r: ReadRange,
    check_crcs: bool,
    fail_on_data_loss: bool,
    max_rows: int,
    max_bytes: int,
) -> Iterator[pa.RecordBatch]:
    lo, hi = r.from_offset, r.until_offset
    aborted = _aborted_lookup(r)
    cols = RecordColumns(r.topic, r.partition)
    unpack = HEADER.unpack_from
    decompress = compression.decompress
    pos = r.start_position
    end = r.end_position
    first_buffered: int | None = None  # position of the first batch not yet handed out
    while pos < end:
        chunk = os.pread(fd, min(READ_CHUNK, end - pos), pos)
        if len(chunk) < LOG_OVERHEAD:
            _data_loss(path, pos, end, fail_on_data_loss)
            break
        cpos = 0
        n = len(chunk)
        while cpos + LOG_OVERHEAD <= n:
            base_offset, batch_length = _PEEK.unpack_from(chunk, cpos)
            size = batch_length + LOG_OVERHEAD
            if batch_length < _MIN_BATCH_LENGTH:
                raise CorruptRecordError(
                    f"{path}: no valid record batch at position {pos + cpos} (length {batch_length})"
                )
            if cpos + size > n:
                if cpos:
                    break  # the next chunk starts with this batch
                # One batch larger than the chunk: read it whole.
                chunk = os.pread(fd, size, pos)
                n = len(chunk)
                if n < size:
                    _data_loss(path, pos, end, fail_on_data_loss)
                    pos = end
                    break
                continue
            (
                _base,
                _length,
                _leader_epoch,
                magic,
                crc,
                attributes,
                last_offset_delta,
                base_timestamp,
                max_timestamp,
                producer_id,
                producer_epoch,
                base_sequence,
                records_count,
            ) = unpack(chunk, cpos)
            if magic != CURRENT_MAGIC:
                raise CorruptRecordError(
                    f"{path}: record batch at position {pos + cpos} has magic {magic}; only magic "
                    f"{CURRENT_MAGIC} (Kafka 0.11+) is supported"
                )
            if base_offset >= hi:
                pos = end  # past the range's offsets: nothing more to read
                cpos = 0
                break
            if base_offset + last_offset_delta >= lo and not attributes & CONTROL_MASK:
                if check_crcs and compute_crc(chunk, cpos, size) != crc:
                    raise CorruptRecordError(
                        f"{path}: record batch at position {pos + cpos} (offset {base_offset}) "
                        f"fails its CRC-32C check"
                    )
                if not (
                    attributes & TRANSACTIONAL_MASK
                    and producer_id in aborted
                    and any(a <= base_offset <= b for a, b in aborted[producer_id])
                ):
                    codec = attributes & 0x07
                    raw = chunk[cpos + HEADER_SIZE : cpos + size]
                    try:
                        records = raw if codec == compression.NONE else decompress(codec, raw)
                        cols.add_batch(
                            records,
                            records_count,
                            base_offset=base_offset,
                            base_timestamp=base_timestamp,
                            max_timestamp=max_timestamp,
                            log_append_time=bool(attributes & TIMESTAMP_TYPE_MASK),
                            producer_id=producer_id,
                            producer_epoch=producer_epoch,
                            base_sequence=base_sequence,
                        )
                    except DecodeError as exc:
                        raise CorruptRecordError(
                            f"{path}: record batch at position {pos + cpos} (offset {base_offset}) "
                            f"does not decode: {exc}"
                        ) from None
                    if first_buffered is None:
                        first_buffered = pos + cpos
                    if cols.rows >= max_rows or cols.buffered_bytes >= max_bytes:
                        out = _take(cols, lo, hi, path, first_buffered, pos + cpos)
                        first_buffered = None
                        if out is not None:
                            yield out
            cpos += size
        pos += cpos
    if first_buffered is not None:
        out = _take(cols, lo, hi, path, first_buffered, pos)
        if out is not None:
            yield out


def _take(cols: RecordColumns, lo: int, hi: int, path: Path, first: int, last: int) -> pa.RecordBatch | None:
    try:
        return cols.take(lo, hi)
    except DecodeError as exc:
        raise CorruptRecordError(
            f"{path}: a record batch between positions {first} and {last} does not decode: {exc}"
        ) from None


def _data_loss(path: Path, pos: int, end: int, fail: bool) -> None:
    msg = f"{path} ends at {pos} but data up to byte {end} was planned (truncated since?)"
    if fail:
        raise DataLossError(msg)
    log.warning("%s; skipping the rest", msg)
