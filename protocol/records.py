"""Records inside a RecordBatch v2: decoding (with decompression) and building.

Record layout (Kafka's ``DefaultRecord``; lengths are zigzag varints)::

    length varint | attributes int8 | timestampDelta varlong | offsetDelta varint
    keyLength varint | key | valueLength varint | value
    headersCount varint | (keyLength varint, key utf-8, valueLength varint, value)*

This is for validation of compressed batches, tools, tests and Spark; the
produce and fetch hot paths never iterate records of an uncompressed batch.
"""

from __future__ import annotations

import struct
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from protocol import compression
from protocol.primitives import DecodeError, write_varint, write_varlong
from protocol.record_batch import (
    CONTROL_MASK,
    CURRENT_MAGIC,
    HEADER,
    HEADER_SIZE,
    LOG_APPEND_TIME,
    TIMESTAMP_TYPE_MASK,
    TRANSACTIONAL_MASK,
    BatchHeader,
    compute_crc,
    iter_batches,
    read_header,
)

_CRC = struct.Struct(">I")


@dataclass(slots=True)
class Record:
    """One record with absolute offset and timestamp."""

    offset: int
    timestamp: int
    key: bytes | None
    value: bytes | None
    headers: list[tuple[str, bytes | None]] = field(default_factory=list)


def _read_varint(buf: Any, pos: int) -> tuple[int, int]:
    """Zigzag varint/varlong (up to 10 bytes), inlined-friendly."""
    b = buf[pos]
    pos += 1
    if b < 0x80:
        return (b >> 1) ^ -(b & 1), pos
    result = b & 0x7F
    shift = 7
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return (result >> 1) ^ -(result & 1), pos
        shift += 7
        if shift > 63:
            raise DecodeError("varint too long")


def iter_raw_records(
    data: Any, count: int
) -> Iterator[tuple[int, int, int, bytes | None, bytes | None, list]]:
    """Yield (attributes, timestamp_delta, offset_delta, key, value, headers) for ``count`` records."""
    rv = _read_varint
    pos = 0
    end_all = len(data)
    try:
        for _ in range(count):
            length, pos = rv(data, pos)
            end = pos + length
            if length < 0 or end > end_all:
                raise DecodeError("record length runs past the batch")
            attrs = data[pos]
            pos += 1
            ts_delta, pos = rv(data, pos)
            off_delta, pos = rv(data, pos)
            klen, pos = rv(data, pos)
            if klen < 0:
                key = None
            else:
                key = bytes(data[pos : pos + klen])
                pos += klen
            vlen, pos = rv(data, pos)
            if vlen < 0:
                value = None
            else:
                value = bytes(data[pos : pos + vlen])
                pos += vlen
            nh, pos = rv(data, pos)
            headers = []
            for _h in range(nh):
                hk, pos = rv(data, pos)
                if hk < 0:
                    raise DecodeError("null header key")
                hkey = bytes(data[pos : pos + hk]).decode("utf-8")
                pos += hk
                hv, pos = rv(data, pos)
                if hv < 0:
                    hval = None
                else:
                    hval = bytes(data[pos : pos + hv])
                    pos += hv
                headers.append((hkey, hval))
            if pos != end:
                raise DecodeError("record length does not match its fields")
            yield attrs, ts_delta, off_delta, key, value, headers
    except IndexError:
        raise DecodeError("record runs past the batch") from None
    except UnicodeDecodeError as exc:
        raise DecodeError(f"header key is not UTF-8: {exc}") from None


def records_section(batch: Any, header: BatchHeader | None = None) -> bytes | memoryview:
    """The decompressed bytes after recordsCount of the batch starting at ``batch[0]``."""
    if header is None:
        header = read_header(batch, 0)
    raw = memoryview(batch)[HEADER_SIZE : header.size]
    if len(raw) != header.size - HEADER_SIZE:
        raise DecodeError("truncated record batch")
    if header.compression == compression.NONE:
        return raw
    return compression.decompress(header.compression, raw)


def decode_batch(batch: Any, header: BatchHeader | None = None) -> list[Record]:
    """All records of one batch (decompressed), with absolute offsets/timestamps.

    With LogAppendTime every record takes the batch's max timestamp, as Kafka's
    ``DefaultRecordBatch`` does.
    """
    if header is None:
        header = read_header(batch, 0)
    data = records_section(batch, header)
    base_offset = header.base_offset
    base_ts = header.base_timestamp
    log_append = header.timestamp_type == LOG_APPEND_TIME
    out = []
    for _attrs, ts_delta, off_delta, key, value, headers in iter_raw_records(data, header.records_count):
        ts = header.max_timestamp if log_append else base_ts + ts_delta
        out.append(Record(base_offset + off_delta, ts, key, value, headers))
    return out


def decode_all(buf: Any) -> list[tuple[BatchHeader, list[Record]]]:
    """Every whole batch in a buffer of concatenated batches, decoded."""
    mv = memoryview(buf)
    return [(h, decode_batch(mv[pos : pos + h.size], h)) for pos, h in iter_batches(mv)]


# ------------------------------------------------------------------ building


def encode_record(
    w: bytearray,
    offset_delta: int,
    timestamp_delta: int,
    key: bytes | None,
    value: bytes | None,
    headers: Sequence[tuple[str, bytes | None]] = (),
) -> None:
    body = bytearray()
    body.append(0)  # attributes
    write_varlong(body, timestamp_delta)
    write_varint(body, offset_delta)
    if key is None:
        write_varint(body, -1)
    else:
        write_varint(body, len(key))
        body += key
    if value is None:
        write_varint(body, -1)
    else:
        write_varint(body, len(value))
        body += value
    write_varint(body, len(headers))
    for hk, hv in headers:
        raw = hk.encode("utf-8")
        write_varint(body, len(raw))
        body += raw
        if hv is None:
            write_varint(body, -1)
        else:
            write_varint(body, len(hv))
            body += hv
    write_varint(w, len(body))
    w += body


def build_batch(
    records: Iterable[tuple[bytes | None, bytes | None] | tuple[bytes | None, bytes | None, Sequence]],
    *,
    base_offset: int = 0,
    compression_type: int = compression.NONE,
    producer_id: int = -1,
    producer_epoch: int = -1,
    base_sequence: int = -1,
    timestamp: int | None = None,
    timestamps: Sequence[int] | None = None,
    partition_leader_epoch: int = -1,
    transactional: bool = False,
    control: bool = False,
    log_append_time: bool = False,
) -> bytes:
    """Build one RecordBatch v2 from (key, value[, headers]) tuples.

    Used by tools and tests (and to write crafted batches); clients build their own.
    """
    items = list(records)
    if not items:
        raise ValueError("a batch needs at least one record")
    now = int(time.time() * 1000) if timestamp is None else timestamp
    ts = list(timestamps) if timestamps is not None else [now] * len(items)
    base_ts = ts[0]
    body = bytearray()
    for i, item in enumerate(items):
        key, value = item[0], item[1]
        headers = item[2] if len(item) > 2 else ()
        encode_record(body, i, ts[i] - base_ts, key, value, headers)
    if compression_type != compression.NONE:
        body = bytearray(compression.compress(compression_type, body))
    attrs = compression_type
    if log_append_time:
        attrs |= TIMESTAMP_TYPE_MASK
    if transactional:
        attrs |= TRANSACTIONAL_MASK
    if control:
        attrs |= CONTROL_MASK
    size = HEADER_SIZE + len(body)
    out = bytearray(size)
    HEADER.pack_into(
        out,
        0,
        base_offset,
        size - 12,
        partition_leader_epoch,
        CURRENT_MAGIC,
        0,
        attrs,
        len(items) - 1,
        base_ts,
        max(ts),
        producer_id,
        producer_epoch,
        base_sequence,
        len(items),
    )
    out[HEADER_SIZE:] = body
    _CRC.pack_into(out, 17, compute_crc(out, 0, size))
    return bytes(out)
