"""The walk over a magic-2 batch's records, for ``storage.log_validator``.

``scan_records`` reads each record's structure as Kafka's ``DefaultRecord.readFrom`` does
(length, attributes, timestamp and offset deltas, key, value, headers; values are skipped,
never decoded) and collects the per-record errors ``LogValidator.validateRecord`` and
``validateTimestamp`` report (KIP-467): offset deltas that are not the record's index, null
keys on a compacted topic, timestamps out of range. ``RecordValidationError`` is Kafka's
``RecordValidationException``, the error that carries them to the produce response.

What the validator makes of the errors (an uncompressed batch's offset deltas are not
checked, a compressed one's are: "Knowingly different" in ``storage.log_validator``) and
when the records are walked at all are the validator's; this module only walks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from protocol.errors import ErrorCode, KafkaError
from protocol.record_batch import NO_TIMESTAMP

# The smallest possible magic-2 record: one byte each for length, attributes, timestampDelta,
# offsetDelta, keyLength, valueLength and headersCount.
MIN_RECORD_SIZE = 7

# (batch index, message, INVALID_RECORD or INVALID_TIMESTAMP)
RecordError = tuple[int, str, ErrorCode]


class RecordValidationError(KafkaError):
    """A KafkaError carrying per-record errors (Kafka's RecordValidationException, KIP-467).

    ``record_errors`` is a tuple of (batch_index, message) for ProduceResponse v8+.
    """

    def __init__(
        self, error: ErrorCode, message: str, record_errors: Sequence[tuple[int, str | None]]
    ) -> None:
        super().__init__(error, message)
        self.record_errors: tuple[tuple[int, str | None], ...] = tuple(record_errors)


class _MalformedRecord(Exception):
    """A record that does not parse (becomes INVALID_RECORD)."""

    def __init__(self, index: int, message: str) -> None:
        super().__init__(message)
        self.index = index
        self.message = message


def timestamp_error(ts: int, index: int, lo: int, hi: int) -> str:
    """Kafka's message for a record whose timestamp is outside [lo, hi]."""
    return (
        f"Timestamp {ts} of message with offset {index} is out of range. "
        f"The timestamp should be within [{lo}, {hi}]"
    )


@dataclass(slots=True)
class RecordScan:
    """What a walk found: the range of the records' timestamp deltas, and their errors."""

    min_delta: int  # smallest timestampDelta (a huge sentinel when there are no records)
    max_delta: int
    errors: list[tuple[int, str, ErrorCode]]

    def max_timestamp(self, base: int) -> int:
        """Kafka's maxTimestamp of the records: the largest timestamp, at least NO_TIMESTAMP."""
        if self.max_delta < self.min_delta:
            return NO_TIMESTAMP
        return max(NO_TIMESTAMP, base + self.max_delta)


def _read_varint_slow(data: Any, pos: int, max_bytes: int, index: int) -> tuple[int, int]:
    """A zigzag varint of up to ``max_bytes`` bytes (5 for int32, 10 for int64)."""
    result = 0
    shift = 0
    for _ in range(max_bytes):
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return (result >> 1) ^ -(result & 1), pos
        shift += 7
    raise _MalformedRecord(index, "Found invalid record structure: varint is too long")


def scan_records(
    data: bytes,
    count: int,
    *,
    check_keys: bool,
    check_deltas: bool = True,
    timestamp_range: tuple[int, int, int] | None = None,
) -> RecordScan:
    """Walk ``count`` records as Kafka's DefaultRecord.readFrom does (structure only, values skipped).

    Structure errors raise KafkaError(INVALID_RECORD). Offset deltas that are not the record's
    index (``check_deltas``: Kafka looks at them in compressed batches only), null keys
    (``check_keys``) and, with ``timestamp_range`` = (base, lo, hi), timestamps outside
    [lo, hi] are collected as record errors.
    """
    n = len(data)
    if count * MIN_RECORD_SIZE > n:
        raise RecordValidationError(
            ErrorCode.INVALID_RECORD,
            "Incorrect declared batch size, premature EOF reached",
            [(0, "Incorrect declared batch size, premature EOF reached")],
        )
    slow = _read_varint_slow
    errors: list[RecordError] = []
    min_delta = 1 << 64
    max_delta = -(1 << 64)
    base = lo = hi = 0
    if timestamp_range is not None:
        base, lo, hi = timestamp_range
    pos = 0
    i = 0
    try:
        for i in range(count):
            b = data[pos]
            if b < 0x80:
                length = (b >> 1) ^ -(b & 1)
                pos += 1
            else:
                length, pos = slow(data, pos, 5, i)
            start = pos
            end = pos + length
            if length < 0 or end > n:
                raise _MalformedRecord(i, "Incorrect declared batch size, premature EOF reached")
            pos += 1  # attributes (unused in magic 2)
            b = data[pos]
            if b < 0x80:
                ts_delta = (b >> 1) ^ -(b & 1)
                pos += 1
            else:
                ts_delta, pos = slow(data, pos, 10, i)
            b = data[pos]
            if b < 0x80:
                off_delta = (b >> 1) ^ -(b & 1)
                pos += 1
            else:
                off_delta, pos = slow(data, pos, 5, i)
            b = data[pos]
            if b < 0x80:
                key_len = (b >> 1) ^ -(b & 1)
                pos += 1
            else:
                key_len, pos = slow(data, pos, 5, i)
            if key_len >= 0:
                if key_len > end - pos:
                    raise _MalformedRecord(i, "Found invalid record structure: key runs past the record")
                pos += key_len
            elif check_keys:
                errors.append(
                    (i, "Compacted topic cannot accept message without key", ErrorCode.INVALID_RECORD)
                )
            b = data[pos]
            if b < 0x80:
                value_len = (b >> 1) ^ -(b & 1)
                pos += 1
            else:
                value_len, pos = slow(data, pos, 5, i)
            if value_len >= 0:
                if value_len > end - pos:
                    raise _MalformedRecord(i, "Found invalid record structure: value runs past the record")
                pos += value_len
            b = data[pos]
            if b < 0x80:
                headers = (b >> 1) ^ -(b & 1)
                pos += 1
            else:
                headers, pos = slow(data, pos, 5, i)
            if headers < 0:
                raise _MalformedRecord(i, f"Found invalid number of record headers {headers}")
            if headers > end - pos:
                raise _MalformedRecord(
                    i, f"Found invalid number of record headers. {headers} is larger than the remaining size"
                )
            for _ in range(headers):
                hk, pos = slow(data, pos, 5, i)
                if hk < 0:
                    raise _MalformedRecord(i, "Invalid negative header key size")
                pos += hk
                hv, pos = slow(data, pos, 5, i)
                if hv > 0:
                    pos += hv
            if pos != end:
                raise _MalformedRecord(
                    i,
                    f"Invalid record size: expected to read {length} bytes in record payload, "
                    f"but instead read {pos - start}",
                )
            if check_deltas and off_delta != i:
                errors.append(
                    (
                        i,
                        f"Record offset delta {off_delta} is not its index {i} in the batch",
                        ErrorCode.INVALID_RECORD,
                    )
                )
            if ts_delta < min_delta:
                min_delta = ts_delta
            if ts_delta > max_delta:
                max_delta = ts_delta
            if timestamp_range is not None:
                ts = base + ts_delta
                if ts != NO_TIMESTAMP and (ts < lo or ts > hi):
                    errors.append((i, timestamp_error(ts, i, lo, hi), ErrorCode.INVALID_TIMESTAMP))
    except IndexError:
        raise _invalid_record(i, "Incorrect declared batch size, premature EOF reached") from None
    except _MalformedRecord as exc:
        raise _invalid_record(exc.index, exc.message) from None
    if pos != n:
        raise _invalid_record(count - 1, "Incorrect declared batch size, records still remaining in file")
    return RecordScan(min_delta, max_delta, errors)


def _invalid_record(index: int, message: str) -> RecordValidationError:
    return RecordValidationError(ErrorCode.INVALID_RECORD, message, [(index, message)])
