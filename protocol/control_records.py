"""Control records: the COMMIT / ABORT markers that end a transaction on a partition.

Kafka's formats (``ControlRecordType``, ``EndTransactionMarker``,
``MemoryRecords.withEndTransactionMarker``):

- a control batch has the control (0x20) and transactional (0x10) attribute bits, the
  producer id and epoch of the transaction, base sequence -1, no compression, CreateTime,
  and exactly one record;
- the record's key is the control record type: version int16 (0) + type int16
  (ABORT = 0, COMMIT = 1);
- its value, for an end-transaction marker: version int16 (0) + coordinator epoch int32.

Readers must tolerate other control types (Kafka skips unknown ones): ``parse_control_key``
returns the raw type and ``ControlRecordType.of`` maps unknown ids to UNKNOWN.
"""

from __future__ import annotations

import struct
from enum import IntEnum
from typing import Any, NamedTuple

from protocol.primitives import DecodeError
from protocol.record_batch import NO_SEQUENCE, BatchHeader, read_header
from protocol.records import build_batch, iter_raw_records, records_section

CONTROL_KEY = struct.Struct(">hh")  # version, type
END_TXN_MARKER_VALUE = struct.Struct(">hi")  # version, coordinator epoch
CONTROL_KEY_VERSION = 0
END_TXN_MARKER_VERSION = 0


class ControlRecordType(IntEnum):
    """Kafka's ``ControlRecordType`` ids (the ones a partition of a data topic can hold)."""

    ABORT = 0
    COMMIT = 1
    LEADER_CHANGE = 2  # KRaft's own logs only
    UNKNOWN = -1

    @classmethod
    def of(cls, type_id: int) -> ControlRecordType:
        try:
            return cls(type_id)
        except ValueError:
            return cls.UNKNOWN


class EndTransactionMarker(NamedTuple):
    """A COMMIT or ABORT marker (Kafka's ``EndTransactionMarker``)."""

    control_type: ControlRecordType
    coordinator_epoch: int

    @property
    def committed(self) -> bool:
        return self.control_type is ControlRecordType.COMMIT


def control_key(control_type: ControlRecordType) -> bytes:
    return CONTROL_KEY.pack(CONTROL_KEY_VERSION, int(control_type))


def end_txn_marker_value(coordinator_epoch: int) -> bytes:
    return END_TXN_MARKER_VALUE.pack(END_TXN_MARKER_VERSION, coordinator_epoch)


def parse_control_key(key: bytes | memoryview | None) -> ControlRecordType:
    """The type in a control record's key; DecodeError if it is too short (Kafka: InvalidRecordException)."""
    if key is None or len(key) < CONTROL_KEY.size:
        raise DecodeError(f"Invalid control record key of {0 if key is None else len(key)} bytes")
    version, type_id = CONTROL_KEY.unpack_from(key, 0)
    if version < 0:
        raise DecodeError(f"Invalid version {version} of a control record key")
    return ControlRecordType.of(type_id)


def parse_end_txn_marker(
    control_type: ControlRecordType, value: bytes | memoryview | None
) -> EndTransactionMarker:
    """Kafka's ``EndTransactionMarker.deserializeValue``: DecodeError for a short value."""
    if control_type not in (ControlRecordType.ABORT, ControlRecordType.COMMIT):
        raise DecodeError(f"Invalid control record type {control_type!r} for an end transaction marker")
    if value is None or len(value) < END_TXN_MARKER_VALUE.size:
        raise DecodeError("Invalid end transaction marker value")
    version, coordinator_epoch = END_TXN_MARKER_VALUE.unpack_from(value, 0)
    if version < 0:
        raise DecodeError(f"Invalid version {version} of an end transaction marker")
    return EndTransactionMarker(control_type, coordinator_epoch)


def build_end_txn_marker_batch(
    *,
    producer_id: int,
    producer_epoch: int,
    committed: bool,
    coordinator_epoch: int,
    timestamp: int,
    base_offset: int = 0,
    partition_leader_epoch: int = -1,
) -> bytes:
    """One control batch holding a COMMIT or ABORT marker (``MemoryRecords.withEndTransactionMarker``)."""
    control_type = ControlRecordType.COMMIT if committed else ControlRecordType.ABORT
    return build_batch(
        [(control_key(control_type), end_txn_marker_value(coordinator_epoch))],
        base_offset=base_offset,
        producer_id=producer_id,
        producer_epoch=producer_epoch,
        base_sequence=NO_SEQUENCE,
        timestamp=timestamp,
        partition_leader_epoch=partition_leader_epoch,
        transactional=True,
        control=True,
    )


def read_end_txn_marker(batch: Any, header: BatchHeader | None = None) -> EndTransactionMarker | None:
    """The marker in a whole control batch starting at ``batch[0]``; None for a control batch of
    another type (or an empty one the cleaner left). DecodeError when the record is malformed.

    Reads only the first record (O(1) per batch).
    """
    if header is None:
        header = read_header(batch, 0)
    if not header.is_control:
        raise DecodeError("Not a control batch")
    if header.records_count <= 0:
        return None
    # Kafka writes control batches uncompressed; records_section decompresses any other.
    first = next(iter_raw_records(records_section(batch, header), 1), None)
    if first is None:
        raise DecodeError("Control batch without a record")
    key, value = first[3], first[4]
    control_type = parse_control_key(key)
    if control_type not in (ControlRecordType.ABORT, ControlRecordType.COMMIT):
        return None
    return parse_end_txn_marker(control_type, value)
