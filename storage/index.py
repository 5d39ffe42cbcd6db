"""Sparse segment indexes: Kafka's ``OffsetIndex`` (.index) and ``TimeIndex`` (.timeindex).

On disk, as Kafka lays them out (big-endian, no header):

- ``.index``: 8-byte entries ``relativeOffset int32, position int32``;
- ``.timeindex``: 12-byte entries ``timestamp int64, relativeOffset int32``.

As Kafka's ``AbstractIndex``, a new index file is preallocated to
``segment.index.bytes`` rounded down to a whole entry, and trimmed to its
entries when the segment becomes inactive (roll) or is closed; the active
segment's index is re-extended when it is reopened for its next write. As Kafka's
``LazyIndex``, an index holds no file descriptor until it is written: a new one is
created preallocated and closed, an idle active segment's is opened at its first entry.

Differences from Kafka, all internal: the entries live in memory (``array``)
and each new entry is written to the file with ``os.pwrite`` instead of
through an mmap; the entries of an inactive segment are read from the file on
first use (Kafka's ``LazyIndex``) and dropped again, least recently used first,
when read-only entries exceed ``READ_ONLY_CACHE.limit_bytes`` (64 MiB) in all. Loading an index that was never trimmed
(a crash) ignores trailing all-zero entries: a real index never holds a
position-0 entry, because the first entry is only written after
``index.interval.bytes`` of data.
"""

from __future__ import annotations

import contextlib
import os
import struct
import sys
from array import array
from bisect import bisect_right
from collections import OrderedDict
from pathlib import Path
from typing import NamedTuple

from protocol.record_batch import NO_TIMESTAMP
from storage.durable_io import fsync_file_if_exists, read_small_file

_OFFSET_ENTRY = struct.Struct(">ii")
_TIME_ENTRY = struct.Struct(">qi")
_LITTLE = sys.byteorder == "little"
_INT32_MAX = 0x7FFFFFFF


class CorruptIndexError(ValueError):
    """An index file that fails Kafka's sanity checks (``CorruptIndexException``)."""


class IndexOffsetError(ValueError):
    """An append that would break the index's order (Kafka's ``InvalidOffsetException``)."""


class OffsetPosition(NamedTuple):
    offset: int
    position: int


class TimestampOffset(NamedTuple):
    timestamp: int
    offset: int


class _ReadOnlyCache:
    """Bounds the memory held by entries of read-only (inactive) indexes.

    Kafka mmaps its indexes, so the page cache holds them; here entries live in
    arrays, so the least recently used read-only indexes beyond ``limit_bytes``
    in all are dropped and read again from their files when next used. Indexes
    open for appends are not counted and never dropped. Event-loop only.
    """

    def __init__(self, limit_bytes: int) -> None:
        self.limit_bytes = limit_bytes
        self.bytes = 0
        self._lru: OrderedDict[int, tuple[_Index, int]] = OrderedDict()

    def add(self, index: _Index) -> None:
        self.remove(index)
        size = index._entries * index.entry_size
        self._lru[id(index)] = (index, size)
        self.bytes += size
        while self.bytes > self.limit_bytes and len(self._lru) > 1:
            _, (victim, victim_size) = self._lru.popitem(last=False)
            self.bytes -= victim_size
            victim._unload()

    def touch(self, index: _Index) -> None:
        key = id(index)
        if key in self._lru:
            self._lru.move_to_end(key)

    def remove(self, index: _Index) -> None:
        entry = self._lru.pop(id(index), None)
        if entry is not None:
            self.bytes -= entry[1]


READ_ONLY_CACHE = _ReadOnlyCache(64 * 1024 * 1024)


class _Index:
    """File handling shared by both indexes."""

    entry_size = 0

    def __init__(self, path: Path, base_offset: int, max_index_size: int, *, writable: bool) -> None:
        self.path = path
        self.base_offset = base_offset
        self._fd: int | None = None
        # Kafka's LazyIndex: a writable (active segment's) index opens its file, preallocated,
        # only at its first write, so an idle partition holds no index descriptor.
        self._writable = writable
        self._loaded = False
        self._entries = 0
        self._max_index_size = max_index_size
        self._max_entries = max_index_size // self.entry_size
        self._preallocated = False  # the file holds a zero tail past the entries
        if writable:
            # A new index is created preallocated as Kafka's AbstractIndex does, then its
            # descriptor is closed until the first write.
            self._open_writable(max_index_size)
            self._close_descriptor()

    # -- file life cycle

    def _open_writable(self, max_index_size: int) -> None:
        """Open for appends, preallocating as Kafka's AbstractIndex does."""
        READ_ONLY_CACHE.remove(self)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        self._fd = fd
        size = os.fstat(fd).st_size
        if not self._loaded:
            self._load_entries(os.pread(fd, size, 0) if size else b"")
        self._resize_file(max_index_size)

    def _resize_file(self, max_index_size: int) -> None:
        self._max_index_size = max_index_size
        self._max_entries = max_index_size // self.entry_size
        rounded = max(max_index_size - max_index_size % self.entry_size, self._entries * self.entry_size)
        if self._fd is not None:
            os.ftruncate(self._fd, rounded)

    def _ensure_loaded(self) -> None:
        if self._loaded:
            if self._fd is None:
                READ_ONLY_CACHE.touch(self)
            return
        try:
            data = read_small_file(self.path)
        except FileNotFoundError:
            data = b""
        self._load_entries(data)
        if self._fd is None:
            READ_ONLY_CACHE.add(self)

    def _unload(self) -> None:
        """Drop the entries from memory (read again from the file when next needed)."""
        self._truncate_entries(0)
        self._loaded = False

    def _load_entries(self, data: bytes) -> None:
        size = self.entry_size
        n = len(data) // size
        if n and not any(data[(n - 1) * size : n * size]):
            # A crash leaves the preallocated zero tail untrimmed; no real entry is all
            # zeros, so the tail is not data (see module docstring).
            n = -(-len(data[: n * size].rstrip(b"\x00")) // size)
        self._decode(data, n)
        self._entries = n
        self._loaded = True

    def _decode(self, data: bytes, n: int) -> None:
        raise NotImplementedError

    @property
    def writable(self) -> bool:
        return self._writable

    @property
    def holds_descriptor(self) -> bool:
        return self._fd is not None

    @property
    def entries(self) -> int:
        self._ensure_loaded()
        return self._entries

    @property
    def max_entries(self) -> int:
        return self._max_entries

    def is_full(self) -> bool:
        if not self._loaded:
            self._ensure_loaded()
        return self._entries >= self._max_entries

    @property
    def size_in_bytes(self) -> int:
        return self.entries * self.entry_size

    def resize(self, max_index_size: int) -> None:
        """Writable again with room for ``max_index_size`` bytes (active segment); the file is
        opened and preallocated at the next write."""
        self._writable = True
        if self._fd is None:
            self._max_index_size = max_index_size
            self._max_entries = max_index_size // self.entry_size
        else:
            self._resize_file(max_index_size)

    def trim_to_valid_size(self) -> None:
        """Shrink the file to its entries (Kafka trims when the segment becomes read-only)."""
        if self._fd is not None:
            os.ftruncate(self._fd, self._entries * self.entry_size)
        elif self._preallocated:
            self._ensure_loaded()
            with contextlib.suppress(FileNotFoundError):
                os.truncate(self.path, self._entries * self.entry_size)
        self._preallocated = False

    def _close_descriptor(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)
            self._preallocated = True

    def close(self) -> None:
        """Trim and close; the entries stay readable (kept in READ_ONLY_CACHE)."""
        self._writable = False
        if self._fd is not None or self._preallocated:
            self.trim_to_valid_size()
            self._close_descriptor()
            self._preallocated = False
            if self._loaded:
                READ_ONLY_CACHE.add(self)

    def close_handler(self) -> None:
        """Close the file without trimming (the file is about to be deleted)."""
        self._writable = False
        READ_ONLY_CACHE.remove(self)
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def rename_to(self, path: Path) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.replace(self.path, path)
        self.path = path

    def delete(self) -> None:
        self.close_handler()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    def flush(self) -> None:
        """fsync the index file (opened by path: safe from another thread)."""
        fsync_file_if_exists(self.path)

    def _writable_fd(self) -> int:
        """The descriptor for a write, opened (and preallocated) at the first one."""
        fd = self._fd
        if fd is None:
            if not self._writable:
                raise OSError(f"index {self.path} is not open for writing")
            self._open_writable(self._max_index_size)
            fd = self._fd
            assert fd is not None
        return fd

    def _write_entry(self, data: bytes) -> None:
        os.pwrite(self._writable_fd(), data, self._entries * self.entry_size)

    def reset(self) -> None:
        """Drop every entry (recovery rebuilds the index from the log); the file is not read."""
        self._truncate_entries(0)
        self._loaded = True
        if self._fd is None:
            self._open_writable(self._max_index_size)
        self._cut_file()

    def _cut_file(self) -> None:
        """Shrink the file to the entries kept, so no stale entry survives a crash."""
        size = self._entries * self.entry_size
        if self._fd is not None:
            os.ftruncate(self._fd, size)
            self._resize_file(self._max_index_size)  # zero-filled again
        else:
            with contextlib.suppress(FileNotFoundError):
                os.truncate(self.path, size)
            self._preallocated = False

    def truncate_to(self, offset: int) -> None:
        """Remove every entry with offset >= ``offset`` (Kafka's ``truncateTo``)."""
        self._ensure_loaded()
        n = bisect_right(self._rel, offset - self.base_offset - 1)
        if n < self._entries:
            self._truncate_entries(n)
            self._cut_file()

    def _truncate_entries(self, n: int) -> None:
        raise NotImplementedError

    def _read_checked_size(self) -> int:
        """The file's size for a sanity check; the entries are read with it when not in memory
        yet (one read instead of a stat and a read: a start-up checks every active segment's)."""
        if self._loaded:
            return self.path.stat().st_size
        data = read_small_file(self.path)
        if len(data) % self.entry_size == 0:
            self._load_entries(data)
            if self._fd is None:
                READ_ONLY_CACHE.add(self)
        return len(data)

    def check_file_size(self) -> None:
        """The cheap load-time check: a whole number of entries (no read)."""
        size = self.path.stat().st_size
        if size % self.entry_size:
            raise CorruptIndexError(
                f"Index file {self.path} has {size} bytes, not a multiple of {self.entry_size}"
            )

    def relative(self, offset: int) -> int:
        rel = offset - self.base_offset
        if rel < 0 or rel > 0x7FFFFFFF:
            raise IndexOffsetError(f"offset {offset} does not fit relative to base offset {self.base_offset}")
        return rel


class OffsetIndex(_Index):
    """Kafka's ``OffsetIndex``: (relative offset, position) every ``index.interval.bytes``.

    An entry (lastOffset of a batch, position where that batch starts) says
    "the batch holding any offset >= this one starts at or after this position".
    """

    entry_size = 8

    def __init__(self, path: Path, base_offset: int, max_index_size: int, *, writable: bool) -> None:
        self._rel = array("i")
        self._pos = array("i")
        super().__init__(path, base_offset, max_index_size, writable=writable)

    def _decode(self, data: bytes, n: int) -> None:
        flat = array("i")
        flat.frombytes(data[: n * 8])
        if _LITTLE:
            flat.byteswap()
        self._rel = flat[0::2]
        self._pos = flat[1::2]

    def _truncate_entries(self, n: int) -> None:
        del self._rel[n:]
        del self._pos[n:]
        self._entries = n

    @property
    def last_offset(self) -> int:
        self._ensure_loaded()
        return self.base_offset + self._rel[-1] if self._entries else self.base_offset

    def entry(self, n: int) -> OffsetPosition:
        self._ensure_loaded()
        return OffsetPosition(self.base_offset + self._rel[n], self._pos[n])

    def append(self, offset: int, position: int) -> None:
        """Add an entry (on the append path: no allocation beyond the entry itself)."""
        if not self._loaded:
            self._ensure_loaded()
        n = self._entries
        rel = offset - self.base_offset
        if (n and rel <= self._rel[-1]) or rel < 0 or rel > _INT32_MAX:
            raise IndexOffsetError(
                f"Attempt to append an offset ({offset}) to position {n} no larger than the last "
                f"offset appended ({self.last_offset}) or out of range of {self.path}"
            )
        if n >= self._max_entries:
            raise IndexOffsetError(f"Attempt to append to a full index (size = {n}).")
        fd = self._fd
        if fd is None:
            fd = self._writable_fd()
        os.pwrite(fd, _OFFSET_ENTRY.pack(rel, position), n * 8)
        self._rel.append(rel)
        self._pos.append(position)
        self._entries = n + 1

    def lookup(self, target_offset: int) -> OffsetPosition:
        """The largest entry with offset <= target, else (base offset, 0)."""
        self._ensure_loaded()
        slot = bisect_right(self._rel, target_offset - self.base_offset) - 1
        if slot < 0:
            return OffsetPosition(self.base_offset, 0)
        return OffsetPosition(self.base_offset + self._rel[slot], self._pos[slot])

    def lookup_by_position(self, position: int) -> OffsetPosition:
        """The largest entry at a position <= ``position``, else (base offset, 0)."""
        self._ensure_loaded()
        slot = bisect_right(self._pos, position) - 1
        if slot < 0:
            return OffsetPosition(self.base_offset, 0)
        return OffsetPosition(self.base_offset + self._rel[slot], self._pos[slot])

    def sanity_check(self) -> None:
        """Kafka's ``OffsetIndex.sanityCheck`` plus strictly increasing entries."""
        size = self._read_checked_size()
        if size % self.entry_size:
            raise CorruptIndexError(
                f"Index file {self.path} is corrupt, found {size} bytes which is neither positive nor a multiple of 8."
            )
        self._ensure_loaded()
        for i in range(1, self._entries):
            if self._rel[i] <= self._rel[i - 1] or self._pos[i] <= self._pos[i - 1]:
                raise CorruptIndexError(f"Index file {self.path} has entries out of order at entry {i}")


class TimeIndex(_Index):
    """Kafka's ``TimeIndex``: (max timestamp so far, its offset), only when the timestamp grows."""

    entry_size = 12

    def __init__(self, path: Path, base_offset: int, max_index_size: int, *, writable: bool) -> None:
        self._ts = array("q")
        self._rel = array("i")
        super().__init__(path, base_offset, max_index_size, writable=writable)

    def _decode(self, data: bytes, n: int) -> None:
        ts = array("q")
        rel = array("i")
        for t, r in _TIME_ENTRY.iter_unpack(data[: n * 12]):
            ts.append(t)
            rel.append(r)
        self._ts = ts
        self._rel = rel

    def _truncate_entries(self, n: int) -> None:
        del self._ts[n:]
        del self._rel[n:]
        self._entries = n

    def last_entry(self) -> TimestampOffset:
        """The last entry, or (NO_TIMESTAMP, base offset) when empty (Kafka's ``lastEntry``)."""
        self._ensure_loaded()
        if not self._entries:
            return TimestampOffset(NO_TIMESTAMP, self.base_offset)
        return TimestampOffset(self._ts[-1], self.base_offset + self._rel[-1])

    def entry(self, n: int) -> TimestampOffset:
        self._ensure_loaded()
        return TimestampOffset(self._ts[n], self.base_offset + self._rel[n])

    def maybe_append(self, timestamp: int, offset: int, *, skip_full_check: bool = False) -> None:
        """Add (timestamp, offset) if the timestamp is greater than the last entry's."""
        if not self._loaded:
            self._ensure_loaded()
        n = self._entries
        if not skip_full_check and n >= self._max_entries:
            raise IndexOffsetError(f"Attempt to append to a full time index (size = {n}).")
        rel = offset - self.base_offset
        if n:
            last_ts = self._ts[-1]
            if rel < self._rel[-1]:
                raise IndexOffsetError(
                    f"Attempt to append an offset ({offset}) to slot {n} no larger than "
                    f"the last offset appended ({self.base_offset + self._rel[-1]}) to {self.path}."
                )
            if timestamp < last_ts:
                raise IndexOffsetError(
                    f"Attempt to append a timestamp ({timestamp}) to slot {n} no larger than "
                    f"the last timestamp appended ({last_ts}) to {self.path}."
                )
        else:
            last_ts = NO_TIMESTAMP
        if timestamp > last_ts:
            if rel < 0 or rel > _INT32_MAX:
                raise IndexOffsetError(
                    f"offset {offset} does not fit relative to base offset {self.base_offset}"
                )
            self._write_entry(_TIME_ENTRY.pack(timestamp, rel))
            self._ts.append(timestamp)
            self._rel.append(rel)
            self._entries = n + 1

    def lookup(self, target_timestamp: int) -> TimestampOffset:
        """The largest entry with timestamp <= target, else (NO_TIMESTAMP, base offset)."""
        self._ensure_loaded()
        slot = bisect_right(self._ts, target_timestamp) - 1
        if slot < 0:
            return TimestampOffset(NO_TIMESTAMP, self.base_offset)
        return TimestampOffset(self._ts[slot], self.base_offset + self._rel[slot])

    def sanity_check(self) -> None:
        size = self._read_checked_size()
        if size % self.entry_size:
            raise CorruptIndexError(
                f"Time index file {self.path} is corrupt, found {size} bytes which is neither positive nor a multiple of 12."
            )
        self._ensure_loaded()
        for i in range(1, self._entries):
            if self._ts[i] <= self._ts[i - 1] or self._rel[i] < self._rel[i - 1]:
                raise CorruptIndexError(f"Time index file {self.path} has entries out of order at entry {i}")
