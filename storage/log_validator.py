"""Validation of one partition's records from a produce request before they are appended.

Kafka splits this over three places, and the checks here run in Kafka's order:

1. ``ProduceRequest.validateRecords`` with ``ByteBufferLogInputStream.nextBatch`` (framing):
   no whole batch -> INVALID_RECORD; a batch length under 14 or a magic outside 0..2 ->
   CORRUPT_MESSAGE; magic 0 or 1 -> INVALID_RECORD; a second batch -> INVALID_RECORD.
2. ``UnifiedLog.analyzeAndValidateRecords``: baseOffset must be 0 (client appends) ->
   INVALID_RECORD; size above ``max.message.bytes`` -> MESSAGE_TOO_LARGE; a batch shorter than
   its 61-byte header or a CRC-32C mismatch -> CORRUPT_MESSAGE.
3. ``LogValidator`` (``validateBatch``, ``validateRecord``, ``validateTimestamp``): record
   count vs lastOffsetDelta, control batches and producer id / base sequence from a client ->
   INVALID_RECORD; compressed batches are decompressed and every record is walked (structure,
   offset deltas, timestamps, keys on compacted topics) with per-record errors (KIP-467);
   ``message.timestamp.type``: LogAppendTime stamps the batch, CreateTime checks
   ``message.timestamp.before.max.ms`` / ``after.max.ms`` (KIP-937) -> INVALID_TIMESTAMP.
4. ``UnifiedLog.append``: a batch above ``segment.bytes`` -> RECORD_LIST_TOO_LARGE.

The produce hot path does O(1) Python work for an uncompressed batch: header checks and a
CRC in C. Its records are walked only on an error path (to name the records with a bad
timestamp) or on a compacted topic (to check keys).

The record walk is ``storage.record_scan`` (Kafka's ``DefaultRecord.readFrom``, and
``RecordValidationError``) and the bounded inflation of a compressed batch
``storage.record_decompression``; this module keeps the order of the checks and the answer
each failure gets.

Knowingly different from Kafka (each is in the module tests):
- An uncompressed CreateTime batch has its timestamps checked through the header
  (baseTimestamp, which is the first record's, and maxTimestamp), not record by record; a
  record in the middle with an out-of-range timestamp is not caught. Kafka also rewrites a
  wrong maxTimestamp of an uncompressed batch; Moldau only does that once its records were
  walked (compressed batches, or the error path).
- Bytes after the one batch: Kafka silently drops a trailing partial batch; Moldau answers
  CORRUPT_MESSAGE, so nothing but the validated batch is ever appended.
- A compressed batch whose record offset deltas are not 0, 1, 2...: Kafka rebuilds and
  recompresses it; Moldau rejects it with INVALID_RECORD and record errors (no client sends
  such a magic-2 batch).
- Undecompressable data: Kafka fails with UNKNOWN_SERVER_ERROR (a KafkaException from the
  codec); Moldau answers CORRUPT_MESSAGE. An unknown codec id (5-7): Kafka fails with
  UNKNOWN_SERVER_ERROR (IllegalArgumentException); Moldau answers INVALID_RECORD.
- Decompression is bounded (``max_decompressed_bytes``): a batch that inflates beyond it is
  answered MESSAGE_TOO_LARGE (clients split and retry on that code) instead of exhausting
  memory. Kafka streams and has no bound.

Work that grows with the records (walking them, inflating, compressing again) must not hold
the broker's event loop for long: Kafka does it on one of its request handler threads, Moldau
on its one event loop. A produce request's batches share a budget (``InlineBudget``, about
10 ms of such work); a batch that would go past it, or that inflates past
``INLINE_DECOMPRESSED_BYTES``, raises ``NeedsOffload`` before any byte of it is changed, and
the replica manager validates it again on a worker thread (``budget`` None: no limit but
``max_decompressed_bytes``).
"""

from __future__ import annotations

import logging
import struct
import zlib
from dataclasses import dataclass
from typing import Any, NamedTuple

import cramjam

from protocol import compression
from protocol.errors import ErrorCode, KafkaError
from protocol.record_batch import (
    ATTRIBUTES_OFFSET,
    COMPRESSION_MASK,
    CONTROL_MASK,
    CRC_OFFSET,
    CURRENT_MAGIC,
    DELETE_HORIZON_MASK,
    HEADER_SIZE,
    LOG_OVERHEAD,
    NO_TIMESTAMP,
    TIMESTAMP_TYPE_MASK,
    ZSTD,
    BatchHeader,
    compute_crc,
    read_header,
    set_log_append_time,
)
from storage.log_config import LogConfig
from storage.producer_state import AppendOrigin
from storage.record_decompression import DecompressedTooLarge, frame_bounded, gunzip_bounded, snappy_bounded
from storage.record_scan import (
    MIN_RECORD_SIZE,
    RecordError,
    RecordScan,
    RecordValidationError,
    scan_records,
    timestamp_error,
)

log = logging.getLogger(__name__)

# LegacyRecord.RECORD_OVERHEAD_V0: the smallest batchLength ByteBufferLogInputStream accepts.
MIN_BATCH_LENGTH = 14
# Floor of the decompression bound; it grows with max.message.bytes (see max_decompressed_bytes).
MIN_DECOMPRESSED_LIMIT = 64 * 1024 * 1024
DECOMPRESSION_RATIO_LIMIT = 16

# The event loop's share of a produce request's record work, in units of about a microsecond
# of this machine's CPU: a record walked is one unit, 512 bytes inflated one, 32 bytes
# compressed again one (gzip's pace; the other codecs are faster).
INLINE_WORK_UNITS = 10_000
INLINE_DECOMPRESSED_BYTES = 2 * 1024 * 1024  # inflated on the loop at most, per batch
_INFLATED_BYTES_PER_UNIT = 512
_COMPRESSED_BYTES_PER_UNIT = 32

_MAGIC_OFFSET = 16
_MAX_TIMESTAMP_OFFSET = 35
_PEEK = struct.Struct(">qi")  # baseOffset, batchLength
_I64 = struct.Struct(">q")
_ATTRS = struct.Struct(">h")
_CRC = struct.Struct(">I")
_I32 = struct.Struct(">i")
_KNOWN_CODECS = frozenset(compression.NAMES)


@dataclass(frozen=True, slots=True)
class ValidatedBatch:
    """A batch that passed validation (its bytes may have been rewritten in place).

    ``header`` is read after any rewrite (LogAppendTime, corrected maxTimestamp), so its
    crc, attributes and max_timestamp are what goes to disk. ``log_append_time`` is the
    broker time stamped on the batch, or -1 for CreateTime (the produce response field).
    """

    header: BatchHeader
    log_append_time: int
    buf: memoryview  # the batch's bytes (writable), exactly ``header.size`` long


class InlineBudget:
    """The record work a produce request may still do on the event loop (shared by its
    batches; see the module docstring)."""

    __slots__ = ("units",)

    def __init__(self, units: int = INLINE_WORK_UNITS) -> None:
        self.units = units

    def charge(self, units: int) -> None:
        """Spend ``units``, or raise NeedsOffload (nothing spent) if they are not left."""
        if units > self.units:
            raise NeedsOffload
        self.units -= units


class NeedsOffload(Exception):
    """This batch's validation is more work than the event loop may do for its request: it
    is validated on a worker thread instead. Raised before any byte of the batch changed."""


class FramedBatch(NamedTuple):
    """Records that passed the framing checks: one whole magic-2 batch.

    ``validate_produce_records`` returns it and ``validate_batch_for_append`` takes it, so
    the framing of a produced batch is checked once. ``buf`` is writable (offsets, epochs
    and LogAppendTime are patched in place). ``budget``: the request's ``InlineBudget`` on
    the event loop, None where the work is not limited (a worker thread, the broker's own
    appends).
    """

    buf: memoryview
    size: int
    attributes: int
    budget: InlineBudget | None = None


def max_decompressed_bytes(config: LogConfig) -> int:
    """The most bytes a compressed batch may inflate to before it is refused."""
    return max(MIN_DECOMPRESSED_LIMIT, DECOMPRESSION_RATIO_LIMIT * config.max_message_bytes)


def validate_batch_for_append(
    records: Any | FramedBatch,
    *,
    config: LogConfig,
    now_ms: int,
    origin: AppendOrigin = AppendOrigin.CLIENT,
) -> ValidatedBatch:
    """Validate one partition's records of a produce request; raise KafkaError if bad.

    ``records`` (bytes or a memoryview, None when the request carried null records, or the
    ``FramedBatch`` the produce path already framed) must hold exactly one magic-2 batch;
    read-only records are copied first. LogAppendTime and corrected max timestamps are written
    into it in place, with the CRC recomputed. REPLICATION appends (a follower, or replay)
    only get the framing, CRC and segment-size checks, as Kafka's follower path.
    """
    framed = records if isinstance(records, FramedBatch) else frame_records(records)
    buf, size, budget = framed.buf, framed.size, framed.budget
    client = origin is AppendOrigin.CLIENT
    base_offset = _I64.unpack_from(buf, 0)[0]

    # UnifiedLog.analyzeAndValidateRecords
    if client and base_offset != 0:
        raise KafkaError(
            ErrorCode.INVALID_RECORD,
            f"The baseOffset of the record batch in the append should be 0, but it is {base_offset}",
        )
    if origin is not AppendOrigin.REPLICATION and size > config.max_message_bytes:
        raise KafkaError(
            ErrorCode.MESSAGE_TOO_LARGE,
            f"The record batch size in the append is {size} bytes which exceeds the maximum "
            f"configured value of {config.max_message_bytes}.",
        )
    if size < HEADER_SIZE:
        raise KafkaError(ErrorCode.CORRUPT_MESSAGE, f"Record batch size {size} is below its header size")
    header = read_header(buf, 0)
    if compute_crc(buf, 0, size) != header.crc:
        raise KafkaError(ErrorCode.CORRUPT_MESSAGE, f"Record is corrupt (stored crc = {header.crc})")
    if header.compression not in _KNOWN_CODECS:
        raise KafkaError(ErrorCode.INVALID_RECORD, f"Unknown compression type id {header.compression}")

    log_append_time = NO_TIMESTAMP
    if origin is not AppendOrigin.REPLICATION:
        if client:
            _validate_batch_header(header)
        target = _TARGET_CODECS.get(config.compression_type)  # None: "producer"
        if target is not None and (
            target == header.compression
            # LogValidator: control records are not compressed unless written compressed
            or (header.attributes & CONTROL_MASK and header.compression == compression.NONE)
        ):
            target = None
        if budget is not None and target is not None and header.compression == compression.NONE:
            budget.charge(size // _COMPRESSED_BYTES_PER_UNIT)  # before anything is rewritten
        log_append_time, rewritten, walked = _validate_records_and_timestamps(
            buf, header, config, now_ms, budget, recompress=target is not None
        )
        if rewritten:
            header = read_header(buf, 0)
        if target is not None:
            buf = _recompress(buf, header, target, config, walked)
            header = read_header(buf, 0)
            size = len(buf)
            if size > config.max_message_bytes:
                # UnifiedLog.append: the batch's size may have changed (messageSizeMaybeChanged)
                raise KafkaError(
                    ErrorCode.MESSAGE_TOO_LARGE,
                    f"Message batch size is {size} bytes in append which exceeds the maximum "
                    f"configured size of {config.max_message_bytes}.",
                )

    # UnifiedLog.append: a batch must fit a segment.
    if size > config.segment_bytes:
        raise KafkaError(
            ErrorCode.RECORD_LIST_TOO_LARGE,
            f"Message batch size is {size} bytes which exceeds the maximum configured segment "
            f"size of {config.segment_bytes}.",
        )
    return ValidatedBatch(header, log_append_time, buf)


# ------------------------------------------------------------------------ broker compression

# compression.type -> the codec the broker writes (absent: "producer", the producer's codec)
_TARGET_CODECS = {
    "uncompressed": compression.NONE,
    "gzip": compression.GZIP,
    "snappy": compression.SNAPPY,
    "lz4": compression.LZ4,
    "zstd": compression.ZSTD,
}


def _recompress(
    buf: memoryview, header: BatchHeader, target: int, config: LogConfig, inflated: bytes | None
) -> memoryview:
    """Kafka's ``LogValidator`` for a topic whose ``compression.type`` is not the batch's
    codec (``inPlaceAssignment`` false, ``buildRecordsAndAssignOffsets``): the batch is written
    again with ``target`` at the topic's level. Its records are the decompressed bytes as
    they are (the same records; offsets are assigned by the append as for any batch), so
    the header keeps every field but the codec bits, the length and the CRC."""
    size = header.batch_length + LOG_OVERHEAD
    section: Any = buf[HEADER_SIZE:size]
    if header.compression != compression.NONE:
        # The records the validation inflated and walked (a rewrite touches the header only).
        assert inflated is not None
        section = inflated
    levels = {
        compression.GZIP: config.compression_gzip_level,
        compression.LZ4: config.compression_lz4_level,
        compression.ZSTD: config.compression_zstd_level,
    }
    packed = compression.compress(target, section, levels.get(target))
    out = bytearray(HEADER_SIZE + len(packed))
    out[:HEADER_SIZE] = buf[:HEADER_SIZE]
    out[HEADER_SIZE:] = packed
    _I32.pack_into(out, 8, len(out) - LOG_OVERHEAD)
    _ATTRS.pack_into(out, ATTRIBUTES_OFFSET, (header.attributes & ~COMPRESSION_MASK) | target)
    _CRC.pack_into(out, CRC_OFFSET, compute_crc(out, 0, len(out)))
    return memoryview(out)


# ---------------------------------------------------------------------------------- framing


def validate_produce_records(
    records: Any, produce_version: int, budget: InlineBudget | None = None
) -> FramedBatch:
    """Kafka's ``ProduceRequest.validateRecords`` for one partition.

    Exactly one whole magic-2 batch first (INVALID_RECORD / CORRUPT_MESSAGE), then
    zstd only from produce v7 (KIP-110: UNSUPPORTED_COMPRESSION_TYPE). The result goes
    to ``validate_batch_for_append``, which then skips the framing (and spends ``budget``).
    """
    framed = frame_records(records, budget)
    if produce_version < 7 and framed.attributes & COMPRESSION_MASK == ZSTD:
        raise KafkaError(
            ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, "Produce requests with version below 7 may not use zstd"
        )
    return framed


def frame_records(records: Any, budget: InlineBudget | None = None) -> FramedBatch:
    """ProduceRequest.validateRecords' framing: exactly one whole magic-2 batch."""
    if records is None:
        raise KafkaError(ErrorCode.INVALID_RECORD, "Produce request must have at least one record batch")
    buf = records if isinstance(records, memoryview) else memoryview(records)
    if buf.readonly:
        buf = memoryview(bytearray(buf))  # the append patches the batch in place
    if buf.format != "B" or buf.ndim != 1:
        buf = buf.cast("B")
    total = len(buf)
    first = _next_batch_size(buf, 0, total)
    if first is None:
        raise KafkaError(ErrorCode.INVALID_RECORD, "Produce request must have at least one record batch")
    if buf[_MAGIC_OFFSET] != CURRENT_MAGIC:
        raise KafkaError(
            ErrorCode.INVALID_RECORD,
            "Produce requests are only allowed to contain record batches with magic version 2",
        )
    if first < total:
        if _next_batch_size(buf, first, total) is not None:
            raise KafkaError(
                ErrorCode.INVALID_RECORD,
                "Produce requests are only allowed to contain exactly one record batch",
            )
        # Kafka drops a trailing partial batch silently; Moldau refuses it (see module docstring).
        raise KafkaError(
            ErrorCode.CORRUPT_MESSAGE, f"{total - first} bytes after the record batch are not a record batch"
        )
    (attributes,) = _ATTRS.unpack_from(buf, ATTRIBUTES_OFFSET)
    return FramedBatch(buf, first, attributes, budget)


def _next_batch_size(buf: memoryview, pos: int, end: int) -> int | None:
    """ByteBufferLogInputStream.nextBatch: size of the whole batch at pos, or None if there is none."""
    remaining = end - pos
    if remaining < LOG_OVERHEAD:
        return None
    length = _I32.unpack_from(buf, pos + 8)[0]
    if length < MIN_BATCH_LENGTH:
        raise KafkaError(
            ErrorCode.CORRUPT_MESSAGE,
            f"Record size {length} is less than the minimum record overhead ({MIN_BATCH_LENGTH})",
        )
    size = length + LOG_OVERHEAD
    if remaining < size:
        return None
    magic = struct.unpack_from(">b", buf, pos + _MAGIC_OFFSET)[0]
    if magic < 0 or magic > CURRENT_MAGIC:
        raise KafkaError(ErrorCode.CORRUPT_MESSAGE, f"Invalid magic found in record: {magic}")
    return size


# --------------------------------------------------------------------------- batch header


def _validate_batch_header(header: BatchHeader) -> None:
    """LogValidator.validateBatch for client appends of magic-2 batches."""
    count_from_offsets = header.last_offset_delta + 1
    if count_from_offsets <= 0:
        raise KafkaError(
            ErrorCode.INVALID_RECORD,
            f"Batch has an invalid offset range: [0, {header.last_offset_delta}]",
        )
    count = header.records_count
    if count <= 0:
        raise KafkaError(ErrorCode.INVALID_RECORD, f"Invalid reported count for record batch: {count}")
    if count_from_offsets != count:
        raise KafkaError(
            ErrorCode.INVALID_RECORD,
            f"Inconsistent batch offset range [0, {header.last_offset_delta}] and count of records {count}",
        )
    if header.attributes & CONTROL_MASK:
        raise KafkaError(ErrorCode.INVALID_RECORD, "Clients are not allowed to write control records")
    if header.producer_id >= 0 and header.base_sequence < 0:
        raise KafkaError(
            ErrorCode.INVALID_RECORD,
            f"Invalid sequence number {header.base_sequence} in record batch with producerId "
            f"{header.producer_id}",
        )


# ------------------------------------------------------------------ records and timestamps


def _validate_records_and_timestamps(
    buf: memoryview,
    header: BatchHeader,
    config: LogConfig,
    now_ms: int,
    budget: InlineBudget | None = None,
    *,
    recompress: bool = False,
) -> tuple[int, bool, bytes | None]:
    """Record checks and timestamp policy; returns (log_append_time, whether bytes changed,
    the records section as walked: inflated for a compressed batch, None if not walked).

    Every walk of the records and every inflation is charged to ``budget`` first, before a
    byte of the batch changes (NeedsOffload); ``recompress``: the inflated records are to be
    compressed again, charged here too."""
    size = header.batch_length + LOG_OVERHEAD
    count = header.records_count
    if (
        not header.attributes & (COMPRESSION_MASK | TIMESTAMP_TYPE_MASK)
        and config.message_timestamp_type != "LogAppendTime"
        and "compact" not in config.cleanup_policy
        and size - HEADER_SIZE >= count * MIN_RECORD_SIZE
    ):
        # The common batch (uncompressed, CreateTime, not compacted) decided from its header
        # alone, as below; a batch with a timestamp out of range takes the path below.
        lo = now_ms - config.message_timestamp_before_max_ms
        hi = now_ms + config.message_timestamp_after_max_ms
        max_ts = header.max_timestamp
        base_ts = header.base_timestamp
        if (max_ts == NO_TIMESTAMP or lo <= max_ts <= hi) and (
            base_ts == NO_TIMESTAMP or header.attributes & DELETE_HORIZON_MASK or lo <= base_ts <= hi
        ):
            return NO_TIMESTAMP, False, None
    section = buf[HEADER_SIZE:size]
    compressed = header.compression != compression.NONE
    compacted = "compact" in config.cleanup_policy
    if not compressed and len(section) < count * MIN_RECORD_SIZE:
        raise KafkaError(
            ErrorCode.INVALID_RECORD,
            f"Incorrect declared batch size: {count} records cannot fit in {len(section)} bytes",
        )

    data: bytes | None = None
    scan: RecordScan | None = None
    if compressed:
        if budget is None:
            data = _decompress(header.compression, section, max_decompressed_bytes(config))
        else:
            budget.charge(count)
            data = _decompress(
                header.compression, section, max_decompressed_bytes(config), INLINE_DECOMPRESSED_BYTES
            )
            inflated = len(data) // _INFLATED_BYTES_PER_UNIT
            budget.charge(inflated + (len(data) // _COMPRESSED_BYTES_PER_UNIT if recompress else 0))
        scan = scan_records(data, count, check_keys=compacted)
    elif compacted:
        # Kafka needs a key on every record of a compacted topic: only then is an
        # uncompressed batch walked on the produce path.
        if budget is not None:
            budget.charge(count)
        data = bytes(section)
        # Kafka assigns offsets of uncompressed records without looking at their deltas
        # (LogValidator.assignOffsetsNonCompressed), compacted topic or not.
        scan = scan_records(data, count, check_keys=True, check_deltas=False)

    errors: list[RecordError] = list(scan.errors) if scan is not None else []
    client_log_append = bool(header.attributes & TIMESTAMP_TYPE_MASK)

    if config.log_append_time:
        if client_log_append:
            # LogValidator.validateTimestamp refuses every record of such a batch.
            errors.extend(
                (i, _LOG_APPEND_TIME_FROM_CLIENT, ErrorCode.INVALID_TIMESTAMP) for i in range(count)
            )
        _raise_record_errors(errors)
        set_log_append_time(buf, 0, size, now_ms)
        return now_ms, True, data

    lo = now_ms - config.message_timestamp_before_max_ms
    hi = now_ms + config.message_timestamp_after_max_ms
    if client_log_append:
        # Every record's timestamp is the batch maxTimestamp; Kafka checks it and stores the
        # batch as CreateTime (DefaultRecordBatch.setMaxTimestamp(CREATE_TIME, max)).
        ts = header.max_timestamp
        if ts == NO_TIMESTAMP:
            errors.extend(
                (i, _LOG_APPEND_TIME_FROM_CLIENT, ErrorCode.INVALID_TIMESTAMP) for i in range(count)
            )
        elif ts < lo or ts > hi:
            errors.extend(
                (i, timestamp_error(ts, i, lo, hi), ErrorCode.INVALID_TIMESTAMP) for i in range(count)
            )
        _raise_record_errors(errors)
        _set_max_timestamp(buf, size, ts, log_append_time=False)
        return NO_TIMESTAMP, True, data

    base_ts = header.base_timestamp
    if scan is None:
        # Uncompressed and not walked: the header's first and max timestamps stand for the
        # records. Only when one is out of range are the records walked, to name the bad ones.
        max_ts = header.max_timestamp
        if not (
            (max_ts != NO_TIMESTAMP and (max_ts < lo or max_ts > hi))
            or (
                base_ts != NO_TIMESTAMP
                and not header.attributes & DELETE_HORIZON_MASK
                and (base_ts < lo or base_ts > hi)
            )
        ):
            return NO_TIMESTAMP, False, data
        if budget is not None:
            budget.charge(count)
        data = bytes(section)
        scan = scan_records(
            data, count, check_keys=False, check_deltas=False, timestamp_range=(base_ts, lo, hi)
        )
        errors = list(scan.errors)
    elif scan.min_delta <= scan.max_delta and (
        base_ts + scan.min_delta < lo or base_ts + scan.max_delta > hi
    ):
        assert data is not None
        if budget is not None:
            budget.charge(count)
        timed = scan_records(data, count, check_keys=False, timestamp_range=(base_ts, lo, hi))
        errors.extend(e for e in timed.errors if e[2] is ErrorCode.INVALID_TIMESTAMP)
    _raise_record_errors(errors)
    true_max = scan.max_timestamp(base_ts)
    if true_max != header.max_timestamp:
        # LogValidator: setMaxTimestamp(CREATE_TIME, maxTimestamp of the records).
        _set_max_timestamp(buf, size, true_max, log_append_time=False)
        return NO_TIMESTAMP, True, data
    return NO_TIMESTAMP, False, data


_LOG_APPEND_TIME_FROM_CLIENT = (
    "Invalid timestamp type in message. Producer should not set timestamp type to LogAppendTime."
)


def _raise_record_errors(errors: list[RecordError]) -> None:
    """LogValidator.processRecordErrors: INVALID_TIMESTAMP if any record has a bad timestamp.
    One error per record, the first found (``validateRecord``: the key error, and only for a
    record whose key is fine its timestamp's): the lists are built key errors first."""
    if not errors:
        return
    errors.sort(key=lambda e: e[0])  # stable: a record's first error stays first
    errors = [e for n, e in enumerate(errors) if n == 0 or errors[n - 1][0] != e[0]]
    pairs = [(i, m) for i, m, _ in errors]
    if any(code is ErrorCode.INVALID_TIMESTAMP for _, _, code in errors):
        raise RecordValidationError(
            ErrorCode.INVALID_TIMESTAMP,
            "One or more records have been rejected due to invalid timestamp",
            pairs,
        )
    shown = ", ".join(f"({i}, {m})" for i, m in pairs[:3])
    raise RecordValidationError(
        ErrorCode.INVALID_RECORD,
        f"One or more records have been rejected due to {len(pairs)} record errors in total, "
        f"and only showing the first three errors at most: [{shown}]",
        pairs,
    )


def _set_max_timestamp(buf: memoryview, size: int, timestamp: int, *, log_append_time: bool) -> None:
    """DefaultRecordBatch.setMaxTimestamp: timestamp type bit + maxTimestamp, CRC recomputed."""
    (attrs,) = _ATTRS.unpack_from(buf, ATTRIBUTES_OFFSET)
    attrs = attrs | TIMESTAMP_TYPE_MASK if log_append_time else attrs & ~TIMESTAMP_TYPE_MASK
    _ATTRS.pack_into(buf, ATTRIBUTES_OFFSET, attrs)
    _I64.pack_into(buf, _MAX_TIMESTAMP_OFFSET, timestamp)
    _CRC.pack_into(buf, CRC_OFFSET, compute_crc(buf, 0, size))


# ---------------------------------------------------------------------------- decompression


def _decompress(codec: int, raw: memoryview, limit: int, inline_limit: int | None = None) -> bytes:
    """Inflate a records section, refusing more than ``limit`` bytes of output; past
    ``inline_limit`` (when lower), NeedsOffload: inflated on a worker thread instead."""
    bound = limit if inline_limit is None else min(limit, inline_limit)
    try:
        if codec == compression.GZIP:
            return gunzip_bounded(raw, bound)
        if codec == compression.SNAPPY:
            return snappy_bounded(raw, bound)
        return frame_bounded(codec, raw, bound)
    except DecompressedTooLarge:
        if bound < limit:
            raise NeedsOffload from None
        raise KafkaError(
            ErrorCode.MESSAGE_TOO_LARGE,
            f"The {compression.NAMES[codec]} record batch decompresses to more than {limit} bytes",
        ) from None
    except (compression.CompressionError, zlib.error, cramjam.DecompressionError, ValueError) as exc:
        raise KafkaError(
            ErrorCode.CORRUPT_MESSAGE, f"Failed to decompress {compression.NAMES[codec]} records: {exc}"
        ) from None
