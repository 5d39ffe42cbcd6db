"""The record side of the log cleaner (Kafka's ``SkimpyOffsetMap`` and the cleaner's
``MemoryRecords.filterTo`` filter): the key -> offset map, and what becomes of one batch.

See ``storage.log_cleaner`` for the round these serve. Records are located in a batch's
(decompressed) records section without being copied; a rebuilt batch reuses the kept
records' bytes, re-encoding only their timestamp deltas when a delete horizon becomes the
base timestamp.
"""

from __future__ import annotations

import hashlib
import struct
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from protocol import compression
from protocol.control_records import read_end_txn_marker
from protocol.primitives import DecodeError, read_varlong, write_varint, write_varlong
from protocol.record_batch import (
    COMPRESSION_MASK,
    CONTROL_MASK,
    CURRENT_MAGIC,
    DELETE_HORIZON_MASK,
    HEADER,
    HEADER_SIZE,
    LOG_APPEND_TIME,
    LOG_OVERHEAD,
    NO_TIMESTAMP,
    TIMESTAMP_TYPE_MASK,
    TRANSACTIONAL_MASK,
    BatchHeader,
    compute_crc,
)
from protocol.records import records_section
from storage.transaction_index import AbortedTxn

# Python's cost of one map entry (16-byte digest, int offset, dict slot), measured; Kafka's
# SkimpyOffsetMap spends 40 bytes (a SHA-256 digest and a long).
OFFSET_MAP_BYTES_PER_ENTRY = 144
_CRC = struct.Struct(">I")


class CorruptSegmentError(Exception):
    """A segment the cleaner cannot walk; the log is not cleaned again until restart."""


# ---------------------------------------------------------------------- offset map


class OffsetMap:
    """Key -> offset of its latest record in the dirty section (Kafka's ``SkimpyOffsetMap``).

    Keys are stored as MD5 digests (collisions are as unlikely as in Kafka's digest map);
    at most ``slots x load factor`` entries, ``slots = memory / OFFSET_MAP_BYTES_PER_ENTRY``.
    """

    def __init__(self, memory: int, load_factor: float = 0.9) -> None:
        self.slots = max(0, memory // OFFSET_MAP_BYTES_PER_ENTRY)
        self.max_entries = int(self.slots * load_factor)
        if self.max_entries < 1:
            raise ValueError(
                "offset map is too small to fit in even a single message, so log cleaning will never "
                "make progress. You can increase log.cleaner.dedupe.buffer.size or decrease "
                "log.cleaner.threads"
            )
        self._map: dict[bytes, int] = {}
        self.latest_offset = -1

    @staticmethod
    def _digest(key: bytes | memoryview) -> bytes:
        return hashlib.md5(key, usedforsecurity=False).digest()

    def __len__(self) -> int:
        return len(self._map)

    @property
    def full(self) -> bool:
        return len(self._map) >= self.max_entries

    def put(self, key: bytes | memoryview, offset: int) -> None:
        if len(self._map) >= self.max_entries and self._digest(key) not in self._map:
            raise ValueError(f"Attempted to add a new entry to a full offset map, entries: {len(self)}")
        self._map[self._digest(key)] = offset
        self.latest_offset = offset

    def get(self, key: bytes | memoryview) -> int:
        """The offset stored for ``key``, -1 if none."""
        return self._map.get(self._digest(key), -1)

    def update_latest_offset(self, offset: int) -> None:
        self.latest_offset = offset

    def clear(self) -> None:
        self._map = {}
        self.latest_offset = -1

    @property
    def utilization(self) -> float:
        return len(self._map) / self.slots if self.slots else 0.0


# ---------------------------------------------------------------------- records


class _RawRecord:
    """Where one record lies in a batch's (decompressed) records section."""

    __slots__ = ("body", "end", "has_value", "key", "offset_delta", "start", "ts_delta", "ts_end")

    def __init__(self, start: int, body: int, ts_end: int, end: int, ts_delta: int, offset_delta: int,
                 key: bytes | None, has_value: bool) -> None:  # fmt: skip
        self.start = start  # the length varint
        self.body = body  # the attributes byte
        self.ts_end = ts_end  # just after the timestamp delta
        self.end = end
        self.ts_delta = ts_delta
        self.offset_delta = offset_delta
        self.key = key
        self.has_value = has_value


def scan_records(data: Any, count: int) -> list[_RawRecord]:
    """The records of a records section (Kafka's ``DefaultRecord`` layout), located, not copied
    (keys excepted)."""
    out = []
    pos = 0
    end_all = len(data)
    try:
        for _ in range(count):
            start = pos
            length, pos = read_varlong(data, pos)
            end = pos + length
            if length <= 0 or end > end_all:
                raise CorruptSegmentError("record length runs past the batch")
            body = pos
            ts_delta, pos = read_varlong(data, pos + 1)
            ts_end = pos
            off_delta, pos = read_varlong(data, pos)
            klen, pos = read_varlong(data, pos)
            key = None
            if klen >= 0:
                key = bytes(data[pos : pos + klen])
                pos += klen
            vlen, pos = read_varlong(data, pos)
            out.append(_RawRecord(start, body, ts_end, end, ts_delta, off_delta, key, vlen >= 0))
            pos = end
    except IndexError:
        raise CorruptSegmentError("record runs past the batch") from None
    except DecodeError as exc:  # a varint past the batch or over 10 bytes
        raise CorruptSegmentError(str(exc)) from None
    return out


def _pack_batch(
    header: BatchHeader, attributes: int, base_ts: int, max_ts: int, count: int, body: bytes
) -> bytes:
    """A whole batch from ``header``'s identity (offsets, epoch, producer) and the given parts."""
    size = HEADER_SIZE + len(body)
    out = bytearray(size)
    HEADER.pack_into(
        out,
        0,
        header.base_offset,
        size - LOG_OVERHEAD,
        header.partition_leader_epoch,
        CURRENT_MAGIC,
        0,
        attributes,
        header.last_offset_delta,
        base_ts,
        max_ts,
        header.producer_id,
        header.producer_epoch,
        header.base_sequence,
        count,
    )
    out[HEADER_SIZE:] = body
    _CRC.pack_into(out, 17, compute_crc(out, 0, size))
    return bytes(out)


def empty_batch(header: BatchHeader) -> bytes:
    """The bare header Kafka keeps for an emptied batch (``DefaultRecordBatch.writeEmptyHeader``):
    no records, no codec, no delete horizon, base timestamp -1, the original max timestamp."""
    attributes = header.attributes & (TIMESTAMP_TYPE_MASK | TRANSACTIONAL_MASK | CONTROL_MASK)
    return _pack_batch(header, attributes, NO_TIMESTAMP, header.max_timestamp, 0, b"")


def rebuild_batch(
    header: BatchHeader, data: Any, kept: Sequence[_RawRecord], delete_horizon: int | None
) -> bytes:
    """The batch with only ``kept`` records (Kafka's ``buildRetainedRecordsInto``): same identity,
    attributes and codec; ``delete_horizon`` (not None) becomes the base timestamp with bit 0x40
    set, the record timestamp deltas re-encoded against it."""
    log_append = header.timestamp_type == LOG_APPEND_TIME
    base_ts = header.base_timestamp
    body = bytearray()
    max_ts = NO_TIMESTAMP
    if delete_horizon is None or delete_horizon == base_ts:
        for rec in kept:
            body += data[rec.start : rec.end]
            ts = base_ts + rec.ts_delta
            if ts > max_ts:
                max_ts = ts
        new_base = base_ts
    else:
        new_base = delete_horizon
        for rec in kept:
            ts = base_ts + rec.ts_delta
            if ts > max_ts:
                max_ts = ts
            inner = bytearray(data[rec.body : rec.body + 1])
            write_varlong(inner, ts - new_base)
            inner += data[rec.ts_end : rec.end]
            write_varint(body, len(inner))
            body += inner
    if log_append:
        max_ts = header.max_timestamp
    attributes = header.attributes & ~DELETE_HORIZON_MASK
    if delete_horizon is not None:
        attributes |= DELETE_HORIZON_MASK
    codec = header.attributes & COMPRESSION_MASK
    payload = bytes(body) if codec == compression.NONE else compression.compress(codec, body)
    return _pack_batch(header, attributes, new_base, max_ts, len(kept), payload)


@dataclass
class CleanerStats:
    """Kafka's ``CleanerStats`` (what the round's log line reports)."""

    bytes_read: int = 0
    bytes_written: int = 0
    map_bytes_read: int = 0
    map_messages_read: int = 0
    messages_read: int = 0
    messages_written: int = 0
    invalid_messages: int = 0
    batches_rebuilt: int = 0
    started: float = field(default_factory=time.monotonic)


@dataclass(frozen=True)
class BatchFilter:
    """What decides, for one round, which records of a batch stay (Kafka's ``RecordFilter``)."""

    offset_map: OffsetMap
    now_ms: int
    delete_retention_ms: int

    def apply(
        self, header: BatchHeader, raw: Any, retain_empty: bool, stats: CleanerStats, discard: bool = False
    ) -> bytes | None:
        """The batch to write for ``raw`` (itself when nothing changes), or None to drop it.

        ``discard`` (``TxnTracker``): for a data batch, it belongs to an aborted transaction
        and none of its records stay; for a control batch, its transaction is empty (Kafka's
        ``Cleaner``: ``canDiscardBatch`` / ``discardBatchRecords``)."""
        if header.is_control:
            return self._apply_marker(header, raw, retain_empty, stats, discard)
        if discard:
            stats.messages_read += header.records_count
            return empty_batch(header) if retain_empty else None
        data = records_section(raw, header)
        records = scan_records(data, header.records_count)
        stats.messages_read += len(records)
        omap = self.offset_map
        latest = omap.latest_offset
        base = header.base_offset
        horizon_set = bool(header.attributes & DELETE_HORIZON_MASK)
        retain_deletes = not horizon_set or self.now_ms < header.base_timestamp
        kept = []
        tombstones = False
        for rec in records:
            offset = base + rec.offset_delta
            if offset > latest:
                keep = True
            elif rec.key is None:
                stats.invalid_messages += 1
                keep = False
            else:
                keep = offset >= omap.get(rec.key) and (rec.has_value or retain_deletes)
            if keep:
                kept.append(rec)
                if not rec.has_value:
                    tombstones = True
        stats.messages_written += len(kept)
        if kept:
            need_horizon = tombstones and not horizon_set
            if len(kept) == len(records) and not need_horizon:
                return bytes(raw)
            stats.batches_rebuilt += 1
            if need_horizon:
                horizon: int | None = self.now_ms + self.delete_retention_ms
            else:
                horizon = header.base_timestamp if horizon_set else None
            return rebuild_batch(header, data, kept, horizon)
        if retain_empty:
            return empty_batch(header)
        return None

    def _apply_marker(
        self, header: BatchHeader, raw: Any, retain_empty: bool, stats: CleanerStats, empty_txn: bool
    ) -> bytes | None:
        """A control batch (Kafka's ``Cleaner.cleanInto`` filter, KIP-534): kept as is while
        its transaction has batches in the log; once it has none, rebuilt with a delete
        horizon (now + ``delete.retention.ms``, as a tombstone's) if it has none yet, and
        removed (or kept emptied, ``retain_empty``) by the first round past that horizon."""
        stats.messages_read += header.records_count
        horizon_set = bool(header.attributes & DELETE_HORIZON_MASK)
        if header.records_count == 0 or (empty_txn and horizon_set and header.base_timestamp <= self.now_ms):
            return empty_batch(header) if retain_empty else None
        stats.messages_written += header.records_count
        if not empty_txn or horizon_set:
            return bytes(raw)
        stats.batches_rebuilt += 1
        data = records_section(raw, header)
        records = scan_records(data, header.records_count)
        return rebuild_batch(header, data, records, self.now_ms + self.delete_retention_ms)


class TxnTracker:
    """The transactions of one pass over the log (Kafka's ``CleanedTransactionMetadata``): which
    data batches belong to an aborted transaction, which markers' transactions have no batch
    left, and which ``.txnindex`` entries stay.

    The aborted transactions (``.txnindex``) are taken in first-offset order as the batches go
    by; a producer's transactional batches are aborted from its transaction's first offset
    until its ABORT marker. A transaction is "empty" when the pass reads its marker without
    having read any batch of it (its batches were all removed by an earlier round): the marker
    may then go (``onControlBatchRead``), and an ABORT marker's ``.txnindex`` entry is not
    carried into the cleaned segment (``cleanedIndex``). One tracker serves a whole round,
    group after group, so that a transaction whose batches lie in an earlier group than its
    marker is not taken for empty (Kafka tracks per group)."""

    def __init__(self, aborted: Iterable[AbortedTxn]) -> None:
        self._pending = sorted(aborted, key=lambda t: t.first_offset)
        self._next = 0
        # producer id -> [its aborted transaction, a batch of it was read]
        self._ongoing_aborted: dict[int, list[Any]] = {}
        self._ongoing_committed: set[int] = set()

    def _consume_up_to(self, header: BatchHeader) -> None:
        pending = self._pending
        while self._next < len(pending) and pending[self._next].first_offset <= header.last_offset:
            txn = pending[self._next]
            self._next += 1
            # A transaction ended before this batch (the pass began past it) is not ongoing.
            if txn.last_offset >= header.base_offset:
                self._ongoing_aborted.setdefault(txn.producer_id, [txn, False])

    def is_aborted(self, header: BatchHeader) -> bool:
        """A data batch goes by: does it belong to an aborted transaction (``onBatchRead``)?
        (A control batch goes by ``on_marker``.)"""
        self._consume_up_to(header)
        if not header.is_transactional:
            return False
        ongoing = self._ongoing_aborted.get(header.producer_id)
        if ongoing is not None:
            ongoing[1] = True
            return True
        self._ongoing_committed.add(header.producer_id)
        return False

    def on_marker(self, header: BatchHeader, raw: Any) -> tuple[bool, AbortedTxn | None]:
        """A control batch goes by: (its transaction is empty, so the marker may go; the
        ``.txnindex`` entry the cleaned segment keeps for it, if any)."""
        self._consume_up_to(header)
        if header.records_count == 0:
            return True, None  # emptied by an earlier round
        try:
            marker = read_end_txn_marker(raw, header)
        except DecodeError as exc:
            raise CorruptSegmentError(f"control batch at offset {header.base_offset}: {exc}") from None
        if marker is None:
            return False, None  # another control type: kept (Kafka: false)
        pid = header.producer_id
        if marker.committed:
            if pid in self._ongoing_committed:
                self._ongoing_committed.discard(pid)
                return False, None
            return True, None
        ongoing = self._ongoing_aborted.pop(pid, None)
        if ongoing is not None and ongoing[1]:
            return False, ongoing[0]
        return True, None
