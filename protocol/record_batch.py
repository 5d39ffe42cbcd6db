"""RecordBatch v2 (magic 2): a zero-copy view of the 61-byte batch header.

Layout (Kafka's ``DefaultRecordBatch``)::

    0  baseOffset int64          27 baseTimestamp int64
    8  batchLength int32         35 maxTimestamp int64
    12 partitionLeaderEpoch int32 43 producerId int64
    16 magic int8                51 producerEpoch int16
    17 crc uint32 (CRC-32C)      53 baseSequence int32
    21 attributes int16          57 recordsCount int32
    23 lastOffsetDelta int32     61 records...

The CRC covers bytes 21 to the end, so baseOffset and partitionLeaderEpoch can
be patched in place without touching it (that is how a broker assigns offsets).
Setting LogAppendTime changes covered bytes and recomputes the CRC.

Nothing here looks at individual records: that is ``protocol.records``.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Any, NamedTuple

import crc32c as _crc32c

from protocol.primitives import DecodeError

HEADER = struct.Struct(">qiibIhiqqqhii")
HEADER_SIZE = 61  # RECORD_BATCH_OVERHEAD
LOG_OVERHEAD = 12  # baseOffset + batchLength
CRC_OFFSET = 17
ATTRIBUTES_OFFSET = 21
BASE_OFFSET = struct.Struct(">q")
LENGTH = struct.Struct(">i")
LEADER_EPOCH = struct.Struct(">i")
_CRC = struct.Struct(">I")
_ATTRS = struct.Struct(">h")
_MAX_TS = struct.Struct(">q")
_MAX_TS_OFFSET = 35
_PEEK = struct.Struct(">qi")  # baseOffset, batchLength
_MAGIC_OFFSET = 16

CURRENT_MAGIC = 2

# attributes
COMPRESSION_MASK = 0x07
TIMESTAMP_TYPE_MASK = 0x08
TRANSACTIONAL_MASK = 0x10
CONTROL_MASK = 0x20
DELETE_HORIZON_MASK = 0x40

NO_COMPRESSION, GZIP, SNAPPY, LZ4, ZSTD = 0, 1, 2, 3, 4
CREATE_TIME, LOG_APPEND_TIME = 0, 1

NO_PRODUCER_ID = -1
NO_PRODUCER_EPOCH = -1
NO_SEQUENCE = -1
NO_PARTITION_LEADER_EPOCH = -1
NO_TIMESTAMP = -1

INT32_MAX = 0x7FFFFFFF


def crc32c(data: Any) -> int:
    return _crc32c.crc32c(data)


def increment_sequence(sequence: int, increment: int) -> int:
    """Kafka's DefaultRecordBatch.incrementSequence: wraps from INT32_MAX to 0."""
    if sequence > INT32_MAX - increment:
        return increment - (INT32_MAX - sequence) - 1
    return sequence + increment


def decrement_sequence(sequence: int, decrement: int) -> int:
    if sequence < decrement:
        return INT32_MAX - (decrement - sequence) + 1
    return sequence - decrement


class BatchHeader(NamedTuple):
    """The decoded 61-byte header of one batch (values only, no bytes kept)."""

    base_offset: int
    batch_length: int
    partition_leader_epoch: int
    magic: int
    crc: int
    attributes: int
    last_offset_delta: int
    base_timestamp: int
    max_timestamp: int
    producer_id: int
    producer_epoch: int
    base_sequence: int
    records_count: int

    @property
    def size(self) -> int:
        """Bytes of the whole batch on the wire or on disk."""
        return self.batch_length + LOG_OVERHEAD

    @property
    def last_offset(self) -> int:
        return self.base_offset + self.last_offset_delta

    @property
    def next_offset(self) -> int:
        return self.base_offset + self.last_offset_delta + 1

    @property
    def compression(self) -> int:
        return self.attributes & COMPRESSION_MASK

    @property
    def timestamp_type(self) -> int:
        return LOG_APPEND_TIME if self.attributes & TIMESTAMP_TYPE_MASK else CREATE_TIME

    @property
    def is_transactional(self) -> bool:
        return bool(self.attributes & TRANSACTIONAL_MASK)

    @property
    def is_control(self) -> bool:
        return bool(self.attributes & CONTROL_MASK)

    @property
    def has_producer_id(self) -> bool:
        return self.producer_id >= 0

    @property
    def last_sequence(self) -> int:
        if self.base_sequence == NO_SEQUENCE:
            return NO_SEQUENCE
        return increment_sequence(self.base_sequence, self.last_offset_delta)


def read_header(buf: Any, pos: int = 0) -> BatchHeader:
    """Decode the batch header at ``pos``; DecodeError if fewer than 61 bytes remain."""
    if pos + HEADER_SIZE > len(buf):
        raise DecodeError("truncated record batch header")
    return BatchHeader._make(HEADER.unpack_from(buf, pos))


def peek_batch(buf: Any, pos: int = 0) -> tuple[int, int] | None:
    """(baseOffset, total size) of the batch at ``pos``, or None if under 12 bytes remain."""
    if pos + LOG_OVERHEAD > len(buf):
        return None
    base, length = _PEEK.unpack_from(buf, pos)
    return base, length + LOG_OVERHEAD


def compute_crc(buf: Any, pos: int, size: int) -> int:
    """CRC-32C of a batch: from its attributes field to its end."""
    view = memoryview(buf)[pos + ATTRIBUTES_OFFSET : pos + size]
    try:
        return _crc32c.crc32c(view)
    finally:
        view.release()


def is_valid_crc(buf: Any, pos: int, header: BatchHeader) -> bool:
    return compute_crc(buf, pos, header.size) == header.crc


def set_base_offset(buf: bytearray | memoryview, pos: int, base_offset: int) -> None:
    """Patch baseOffset in place (outside the CRC)."""
    BASE_OFFSET.pack_into(buf, pos, base_offset)


def set_partition_leader_epoch(buf: bytearray | memoryview, pos: int, epoch: int) -> None:
    """Patch partitionLeaderEpoch in place (outside the CRC)."""
    LEADER_EPOCH.pack_into(buf, pos + 12, epoch)


def set_log_append_time(buf: bytearray | memoryview, pos: int, size: int, timestamp: int) -> None:
    """Mark the batch LogAppendTime with ``timestamp`` as its max timestamp.

    As Kafka's ``DefaultRecordBatch.setMaxTimestamp(LOG_APPEND_TIME, now)``:
    the timestamp-type bit and maxTimestamp are covered by the CRC, so the CRC
    is recomputed (over the header and the records, which are not decoded).
    """
    (attrs,) = _ATTRS.unpack_from(buf, pos + ATTRIBUTES_OFFSET)
    _ATTRS.pack_into(buf, pos + ATTRIBUTES_OFFSET, attrs | TIMESTAMP_TYPE_MASK)
    _MAX_TS.pack_into(buf, pos + _MAX_TS_OFFSET, timestamp)
    _CRC.pack_into(buf, pos + CRC_OFFSET, compute_crc(buf, pos, size))


def iter_batches(buf: Any, pos: int = 0, end: int | None = None) -> Iterator[tuple[int, BatchHeader]]:
    """Yield (position, header) of each whole batch in ``buf[pos:end]``.

    Stops silently at a trailing partial batch (as fetch responses may carry one);
    raises DecodeError for a length that cannot be a batch.
    """
    if end is None:
        end = len(buf)
    while pos + LOG_OVERHEAD <= end:
        _, length = _PEEK.unpack_from(buf, pos)
        size = length + LOG_OVERHEAD
        if length < HEADER_SIZE - LOG_OVERHEAD:
            raise DecodeError(f"record batch length {length} is below the minimum")
        if pos + size > end:
            return
        yield pos, read_header(buf, pos)
        pos += size
