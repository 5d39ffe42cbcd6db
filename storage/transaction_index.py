"""A segment's ``.txnindex``: the transactions aborted in it (Kafka's ``TransactionIndex``).

The file is entries back to back, no header, each 34 bytes (Kafka's ``AbortedTxn``):
version int16 (0) | producerId int64 | firstOffset int64 | lastOffset int64 |
lastStableOffset int64. An entry is appended when an ABORT marker is appended to the
segment (``UnifiedLog.completeTxn`` / ``LogSegment.updateTxnIndex``): first offset of the
transaction's data, the marker's offset, and the last stable offset at that moment (the
first offset of the oldest other open transaction, else the marker's offset + 1), which
lets a search stop early (``collect_aborted_txns``).

As Kafka's, the file is created on the first entry (most segments never have one) and a
segment without a file has no aborted transactions. Entries are also kept in memory once
read (a list of tuples; a segment holds few aborted transactions), so a read_committed fetch
never reads the file twice.

Threading: appends, truncation and searches run on the event loop; ``flush`` opens the file
by path and may run in an executor while the loop carries on, as the other indexes' do.
"""

from __future__ import annotations

import contextlib
import os
import struct
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from storage.durable_io import fsync_file_if_exists, read_small_file

ABORTED_TXN = struct.Struct(">hqqqq")
ABORTED_TXN_SIZE = ABORTED_TXN.size  # 34
ABORTED_TXN_VERSION = 0


class CorruptTxnIndexError(ValueError):
    """A ``.txnindex`` that is not whole 34-byte entries of a known version (Kafka's
    ``CorruptIndexException``)."""


class AbortedTxn(NamedTuple):
    """One entry (Kafka's ``AbortedTxn``); a fetch answers (producer_id, first_offset)."""

    producer_id: int
    first_offset: int
    last_offset: int
    last_stable_offset: int

    def encode(self) -> bytes:
        return ABORTED_TXN.pack(
            ABORTED_TXN_VERSION,
            self.producer_id,
            self.first_offset,
            self.last_offset,
            self.last_stable_offset,
        )


class TxnIndexSearchResult(NamedTuple):
    """Kafka's ``TxnIndexSearchResult``: the matches and whether later segments can hold none."""

    aborted: list[AbortedTxn]
    is_complete: bool


def decode_entries(data: bytes, path: Path | str = "") -> list[AbortedTxn]:
    if len(data) % ABORTED_TXN_SIZE:
        raise CorruptTxnIndexError(
            f"Transaction index file {path} is corrupt: {len(data)} bytes is not a multiple of {ABORTED_TXN_SIZE}"
        )
    out = []
    for version, pid, first, last, lso in ABORTED_TXN.iter_unpack(data):
        if version != ABORTED_TXN_VERSION:
            raise CorruptTxnIndexError(f"Unexpected aborted transaction version {version} in {path}")
        out.append(AbortedTxn(pid, first, last, lso))
    return out


class TransactionIndex:
    """The ``.txnindex`` of the segment starting at ``start_offset``."""

    def __init__(self, path: Path, start_offset: int) -> None:
        self.path = path
        self.start_offset = start_offset
        self._entries: list[AbortedTxn] | None = None  # read lazily
        self._last_offset: int | None = None

    def __repr__(self) -> str:
        return f"TransactionIndex({self.path.name})"

    def _load(self) -> list[AbortedTxn]:
        entries = self._entries
        if entries is None:
            try:
                data = read_small_file(self.path)
            except FileNotFoundError:
                data = b""
            entries = self._entries = decode_entries(data, self.path)
            self._last_offset = entries[-1].last_offset if entries else None
        return entries

    def all_aborted_txns(self) -> list[AbortedTxn]:
        return list(self._load())

    def sanity_check(self) -> None:
        """CorruptTxnIndexError unless the file is whole entries (Kafka's ``sanityCheck``)."""
        self._entries = None
        self._load()

    def append(self, txn: AbortedTxn) -> None:
        """Add an entry; its last offset must grow (Kafka: IllegalArgumentException otherwise)."""
        entries = self._load()
        if self._last_offset is not None and txn.last_offset <= self._last_offset:
            raise ValueError(
                f"The last offset of appended transactions must increase sequentially, but {txn.last_offset} "
                f"is not greater than current last offset {self._last_offset} of index {self.path}"
            )
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o644)
        try:
            data = txn.encode()
            if os.write(fd, data) != len(data):
                raise OSError(f"short write to {self.path}")
        finally:
            os.close(fd)
        entries.append(txn)
        self._last_offset = txn.last_offset

    def collect_aborted_txns(self, fetch_offset: int, upper_bound_offset: int) -> TxnIndexSearchResult:
        """Entries overlapping [fetch_offset, upper_bound_offset) (Kafka's ``collectAbortedTxns``);
        complete once an entry's last stable offset reaches the upper bound."""
        found = []
        for txn in self._load():
            if txn.last_offset >= fetch_offset and txn.first_offset < upper_bound_offset:
                found.append(txn)
            if txn.last_stable_offset >= upper_bound_offset:
                return TxnIndexSearchResult(found, True)
        return TxnIndexSearchResult(found, False)

    def truncate_to(self, offset: int) -> None:
        """Drop the entries whose marker is at or past ``offset`` (Kafka's ``truncateTo``)."""
        entries = self._load()
        keep = [t for t in entries if t.last_offset < offset]
        if len(keep) == len(entries):
            return
        self._rewrite(keep)

    def reset(self) -> None:
        """Empty it (recovery rebuilds it): the file is deleted, as Kafka's ``reset``."""
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        self._entries = []
        self._last_offset = None

    def _rewrite(self, entries: Iterable[AbortedTxn]) -> None:
        kept = list(entries)
        if not kept:
            self.reset()
            return
        with open(self.path, "r+b") as f:
            f.truncate(len(kept) * ABORTED_TXN_SIZE)
        self._entries = kept
        self._last_offset = kept[-1].last_offset

    def rename_to(self, target: Path) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.replace(self.path, target)
        self.path = target

    def flush(self) -> None:
        fsync_file_if_exists(self.path)

    def delete(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        self._entries = []
        self._last_offset = None

    @property
    def exists(self) -> bool:
        return self.path.exists()


def write_entries(path: Path, entries: Iterable[AbortedTxn]) -> None:
    """Write a whole ``.txnindex`` (the cleaner's cleaned segment); nothing for no entries."""
    data = b"".join(t.encode() for t in entries)
    if not data:
        return
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
