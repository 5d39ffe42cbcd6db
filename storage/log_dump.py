"""Read-only access to one partition's files, for inspection tools (``tools.dump_log``).

Nothing here opens a file for writing or creates one: ``LogSegment`` opens its ``.log``
read-write and would create a missing file, which an inspection tool must never do.
The decoding itself is the project's own: batch headers and records from
``protocol.record_batch`` / ``protocol.records``, indexes from ``storage.index``,
producer snapshots from ``storage.producer_snapshot``.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from protocol.record_batch import HEADER_SIZE, LOG_OVERHEAD, BatchHeader, iter_batches, read_header
from storage.index import OffsetIndex, TimeIndex
from storage.producer_snapshot import decode_snapshot
from storage.producer_state_entry import ProducerStateEntry

# Kafka's AbortedTxn (TransactionIndex): version int16, producerId int64, firstOffset int64,
# lastOffset int64, lastStableOffset int64; 34 bytes, no file header.
_ABORTED_TXN = struct.Struct(">hqqqq")
ABORTED_TXN_VERSION = 0


class AbortedTxnEntry(NamedTuple):
    version: int
    producer_id: int
    first_offset: int
    last_offset: int
    last_stable_offset: int


class CorruptTxnIndexError(ValueError):
    """A ``.txnindex`` that is not whole 34-byte entries of a known version."""


def base_offset_of(path: Path) -> int:
    """The base offset in a segment file name (Kafka: the part before the first dot)."""
    return int(path.name.split(".", 1)[0])


def sibling(path: Path, suffix: str) -> Path:
    """The file of the same segment with another suffix (``00..0.index`` -> ``00..0.log``)."""
    return path.absolute().parent / (path.name.split(".", 1)[0] + suffix)


@contextlib.contextmanager
def open_log_read_only(path: Path) -> Iterator[Any]:
    """The bytes of a ``.log`` file, memory-mapped read-only (``b""`` for an empty file).

    Raises OSError (FileNotFoundError, ...) for a file that cannot be opened.
    """
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        size = os.fstat(fd).st_size
        if size == 0:
            yield b""
            return
        mm = mmap.mmap(fd, size, access=mmap.ACCESS_READ)
        try:
            yield mm
        finally:
            # Views of the map may outlive an error (in its traceback): then the map is freed
            # with the last of them, and the original error is not masked by a BufferError.
            with contextlib.suppress(BufferError):
                mm.close()
    finally:
        os.close(fd)


def iter_log_batches(
    buf: Any, end: int | None = None, *, start: int = 0
) -> Iterator[tuple[int, BatchHeader]]:
    """(position, header) of each whole batch in ``buf[start:end]`` (DecodeError for an impossible length)."""
    return iter_batches(buf, start, end)


def header_at(buf: Any, position: int, limit: int) -> BatchHeader | None:
    """The header of a whole batch starting at ``position`` and ending by ``limit``, else None."""
    limit = min(limit, len(buf))
    if position < 0 or position + HEADER_SIZE > limit:
        return None
    header = read_header(buf, position)
    if header.batch_length < HEADER_SIZE - LOG_OVERHEAD or position + header.size > limit:
        return None
    return header


def read_offset_index(path: Path) -> OffsetIndex:
    """A read-only ``OffsetIndex`` of ``path`` (its base offset from the file name)."""
    return OffsetIndex(path, base_offset_of(path), 0, writable=False)


def read_time_index(path: Path) -> TimeIndex:
    return TimeIndex(path, base_offset_of(path), 0, writable=False)


def read_producer_snapshot(path: Path) -> list[ProducerStateEntry]:
    """Entries of a ``.snapshot`` file (CorruptSnapshotError when it fails its checks)."""
    return decode_snapshot(path.read_bytes())


def read_aborted_txns(path: Path) -> list[AbortedTxnEntry]:
    """Every entry of a ``.txnindex`` file, as Kafka's ``TransactionIndex.allAbortedTxns``."""
    data = path.read_bytes()
    if len(data) % _ABORTED_TXN.size:
        raise CorruptTxnIndexError(
            f"Transaction index file {path} is corrupt: {len(data)} bytes is not a multiple of "
            f"{_ABORTED_TXN.size}"
        )
    out = []
    for row in _ABORTED_TXN.iter_unpack(data):
        entry = AbortedTxnEntry._make(row)
        if entry.version > ABORTED_TXN_VERSION:
            raise CorruptTxnIndexError(f"Unexpected aborted transaction version {entry.version} in {path}")
        out.append(entry)
    return out
