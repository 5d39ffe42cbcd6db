"""The producer state snapshot file format (Kafka's ``ProducerStateManager.readSnapshot`` /
``writeSnapshot``, and the ``<offset>.snapshot`` naming of its ``SnapshotFile``).

Snapshots are Kafka's ``<20-digit offset>.snapshot`` files (ProducerSnapshot.json v1): int16
version | uint32 CRC-32C of everything after the first 6 bytes | int32 count | 46-byte entries
(ProducerId int64, Epoch int16, LastSequence int32, LastOffset int64, OffsetDelta int32,
Timestamp int64, CoordinatorEpoch int32, CurrentTxnFirstOffset int64). As in Kafka only the
last batch of each producer is persisted.

Knowingly different from Kafka: ``write_snapshot_file`` writes to a temporary file and renames
it over the snapshot (Kafka writes in place). Which snapshot files exist, and when they are
written, fsynced and deleted, is ``storage.producer_state.ProducerStateManager``'s business.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from pathlib import Path

import crc32c as _crc32c

from storage.durable_io import atomic_write
from storage.producer_state_entry import NUM_BATCHES_TO_RETAIN, BatchMetadata, ProducerStateEntry

SNAPSHOT_SUFFIX = ".snapshot"
SNAPSHOT_VERSION = 1

_SNAPSHOT_HEADER = struct.Struct(">hIi")  # version, crc, entry count
_SNAPSHOT_ENTRY = struct.Struct(">qhiqiqiq")  # 46 bytes
_CRC_OFFSET = 2
_ENTRIES_CRC_START = 6  # the CRC covers everything after version and crc


class CorruptSnapshotError(Exception):
    """A ``.snapshot`` file that cannot be trusted (Kafka's CorruptSnapshotException)."""


def snapshot_file_name(offset: int) -> str:
    return f"{offset:020d}{SNAPSHOT_SUFFIX}"


def encode_snapshot(entries: Iterable[ProducerStateEntry]) -> bytes:
    """The bytes of a ``.snapshot`` file: Kafka's ProducerSnapshot v1, entries by producer id."""
    rows = sorted(entries, key=lambda e: e.producer_id)
    out = bytearray(_SNAPSHOT_HEADER.size + _SNAPSHOT_ENTRY.size * len(rows))
    _SNAPSHOT_HEADER.pack_into(out, 0, SNAPSHOT_VERSION, 0, len(rows))
    pos = _SNAPSHOT_HEADER.size
    for e in rows:
        _SNAPSHOT_ENTRY.pack_into(
            out,
            pos,
            e.producer_id,
            e.producer_epoch,
            e.last_seq,
            e.last_data_offset,
            e.last_offset_delta,
            e.last_timestamp,
            e.coordinator_epoch,
            e.current_txn_first_offset,
        )
        pos += _SNAPSHOT_ENTRY.size
    struct.pack_into(">I", out, _CRC_OFFSET, _crc32c.crc32c(memoryview(out)[_ENTRIES_CRC_START:]))
    return bytes(out)


def decode_snapshot(data: bytes, *, window: int = NUM_BATCHES_TO_RETAIN) -> list[ProducerStateEntry]:
    """Entries of a ``.snapshot`` file; CorruptSnapshotError if version, CRC or size is wrong."""
    if len(data) < _SNAPSHOT_HEADER.size:
        raise CorruptSnapshotError(f"Snapshot of {len(data)} bytes is shorter than its header")
    version, crc, count = _SNAPSHOT_HEADER.unpack_from(data, 0)
    if version != SNAPSHOT_VERSION:
        raise CorruptSnapshotError(f"Snapshot contained an unknown file version {version}")
    computed = _crc32c.crc32c(memoryview(data)[_ENTRIES_CRC_START:])
    if crc != computed:
        raise CorruptSnapshotError(
            f"Snapshot is corrupt (CRC is no longer valid). Stored crc: {crc}. Computed crc: {computed}"
        )
    if count < 0 or len(data) != _SNAPSHOT_HEADER.size + count * _SNAPSHOT_ENTRY.size:
        raise CorruptSnapshotError(f"Snapshot of {len(data)} bytes cannot hold {count} entries")
    entries = []
    for pid, epoch, seq, offset, delta, ts, coord_epoch, txn_first in _SNAPSHOT_ENTRY.iter_unpack(
        memoryview(data)[_SNAPSHOT_HEADER.size :]
    ):
        # An entry whose LastOffset is negative carries no batch (ProducerStateManager.readSnapshot).
        batches = (BatchMetadata(seq, offset, delta, ts),) if offset >= 0 else ()
        entries.append(
            ProducerStateEntry(
                pid,
                epoch,
                coordinator_epoch=coord_epoch,
                last_timestamp=ts,
                current_txn_first_offset=txn_first if txn_first >= 0 else -1,
                batches=batches,
                window=window,
                # Rebuilt from disk: assume the epoch's run started at sequence 0 (module docstring
                # of storage.producer_state).
                run_length=seq + 1 if batches and seq >= 0 else 0,
            )
        )
    return entries


def write_snapshot_file(path: Path, entries: Iterable[ProducerStateEntry], *, sync: bool = True) -> None:
    """Write a snapshot via a temporary file renamed over ``path``.

    With ``sync`` the file is fsynced before the rename and the directory after it, so the
    snapshot survives a crash; without, the caller must fsync both later (``sync_snapshots``).
    """
    atomic_write(path, encode_snapshot(entries), fsync=sync, best_effort_dir_sync=True)
