"""Kafka's primitive wire types: bytes in, values out, and back.

Sans-io: every reader takes a buffer (bytes, bytearray or memoryview) and a
position and returns ``(value, new_position)``; every writer appends to a
``bytearray``. Layouts follow Kafka's ``protocol/types/Type.java``,
``TaggedFields.java`` and ``ByteUtils.java``:

- integers are big-endian; UUIDs are 16 raw bytes;
- UNSIGNED_VARINT is LEB128 (7 bits a byte, least significant group first);
- VARINT/VARLONG (record fields) are zigzag-encoded unsigned varints;
- classic STRING/BYTES/ARRAY carry an int16/int32/int32 length, -1 for null;
- COMPACT_* carry an unsigned varint of length + 1, 0 for null;
- a tagged-field buffer is a count, then (tag, size, bytes) with tags
  strictly ascending.

The generated message codecs (``protocol.messages``) inline the fixed-size
cases and call these helpers for the variable-size ones.
"""

from __future__ import annotations

import struct
import uuid
from collections.abc import Callable
from typing import Any

__all__ = [
    "ZERO_UUID",
    "DecodeError",
    "EncodeError",
]


class DecodeError(ValueError):
    """Bytes that do not decode as the Kafka structure they claim to be."""


class EncodeError(ValueError):
    """A value that cannot be encoded at the requested version."""


ZERO_UUID = uuid.UUID(int=0)

INT8 = struct.Struct(">b")
INT16 = struct.Struct(">h")
INT32 = struct.Struct(">i")
INT64 = struct.Struct(">q")
UINT16 = struct.Struct(">H")
UINT32 = struct.Struct(">I")
FLOAT64 = struct.Struct(">d")

INT16_MIN, INT16_MAX = -(1 << 15), (1 << 15) - 1
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1

# An unsigned varint that Kafka reads as an int32 never takes more than five
# bytes; a varlong never more than ten (ByteUtils.readUnsignedVarint/Varlong).
_MAX_VARINT_BYTES = 5
_MAX_VARLONG_BYTES = 10


# ---------------------------------------------------------------- varints


def read_uvarint(buf: Any, pos: int) -> tuple[int, int]:
    """Read an unsigned varint (at most 5 bytes, fits an unsigned int32)."""
    result = 0
    shift = 0
    end = len(buf)
    for _ in range(_MAX_VARINT_BYTES):
        if pos >= end:
            raise DecodeError("truncated unsigned varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            if result > 0xFFFFFFFF:
                raise DecodeError("unsigned varint does not fit 32 bits")
            return result, pos
        shift += 7
    raise DecodeError("unsigned varint longer than 5 bytes")


def read_uvarlong(buf: Any, pos: int) -> tuple[int, int]:
    """Read an unsigned varlong (at most 10 bytes)."""
    result = 0
    shift = 0
    end = len(buf)
    for _ in range(_MAX_VARLONG_BYTES):
        if pos >= end:
            raise DecodeError("truncated unsigned varlong")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            if result > 0xFFFFFFFFFFFFFFFF:
                raise DecodeError("unsigned varlong does not fit 64 bits")
            return result, pos
        shift += 7
    raise DecodeError("unsigned varlong longer than 10 bytes")


def write_uvarint(w: bytearray, n: int) -> None:
    """Append an unsigned varint; ``n`` must be in [0, 2**32)."""
    if n < 0x80:
        if n < 0:
            raise EncodeError(f"unsigned varint cannot hold {n}")
        w.append(n)
        return
    if n > 0xFFFFFFFF:
        raise EncodeError(f"unsigned varint cannot hold {n}")
    while n >= 0x80:
        w.append((n & 0x7F) | 0x80)
        n >>= 7
    w.append(n)


def write_uvarlong(w: bytearray, n: int) -> None:
    if n < 0 or n > 0xFFFFFFFFFFFFFFFF:
        raise EncodeError(f"unsigned varlong cannot hold {n}")
    while n >= 0x80:
        w.append((n & 0x7F) | 0x80)
        n >>= 7
    w.append(n)


def uvarint_size(n: int) -> int:
    size = 1
    while n >= 0x80:
        n >>= 7
        size += 1
    return size


def read_varint(buf: Any, pos: int) -> tuple[int, int]:
    """Read a zigzag varint (signed int32)."""
    n, pos = read_uvarint(buf, pos)
    return (n >> 1) ^ -(n & 1), pos


def read_varlong(buf: Any, pos: int) -> tuple[int, int]:
    """Read a zigzag varlong (signed int64)."""
    n, pos = read_uvarlong(buf, pos)
    return (n >> 1) ^ -(n & 1), pos


def write_varint(w: bytearray, n: int) -> None:
    if n < INT32_MIN or n > INT32_MAX:
        raise EncodeError(f"varint cannot hold {n}")
    write_uvarint(w, ((n << 1) ^ (n >> 31)) & 0xFFFFFFFF)


def write_varlong(w: bytearray, n: int) -> None:
    if n < INT64_MIN or n > INT64_MAX:
        raise EncodeError(f"varlong cannot hold {n}")
    write_uvarlong(w, ((n << 1) ^ (n >> 63)) & 0xFFFFFFFFFFFFFFFF)


def varint_size(n: int) -> int:
    return uvarint_size(((n << 1) ^ (n >> 31)) & 0xFFFFFFFF)


def varlong_size(n: int) -> int:
    return uvarint_size(((n << 1) ^ (n >> 63)) & 0xFFFFFFFFFFFFFFFF)


# ---------------------------------------------------------------- fixed width


def _fixed_reader(s: struct.Struct) -> Callable[[Any, int], tuple[Any, int]]:
    size = s.size
    unpack_from = s.unpack_from

    def read(buf: Any, pos: int) -> tuple[Any, int]:
        if pos + size > len(buf):
            raise DecodeError("truncated fixed-width field")
        return unpack_from(buf, pos)[0], pos + size

    return read


read_int8 = _fixed_reader(INT8)
read_int16 = _fixed_reader(INT16)
read_int32 = _fixed_reader(INT32)
read_int64 = _fixed_reader(INT64)
read_uint16 = _fixed_reader(UINT16)
read_uint32 = _fixed_reader(UINT32)
read_float64 = _fixed_reader(FLOAT64)


def read_bool(buf: Any, pos: int) -> tuple[bool, int]:
    if pos >= len(buf):
        raise DecodeError("truncated boolean")
    return buf[pos] != 0, pos + 1


def read_uuid(buf: Any, pos: int) -> tuple[uuid.UUID, int]:
    end = pos + 16
    if end > len(buf):
        raise DecodeError("truncated uuid")
    return uuid.UUID(bytes=bytes(buf[pos:end])), end


def write_uuid(w: bytearray, value: uuid.UUID) -> None:
    w += value.bytes


# ---------------------------------------------------------------- strings and bytes


def _take(buf: Any, pos: int, n: int, what: str) -> tuple[Any, int]:
    end = pos + n
    if n < 0 or end > len(buf):
        raise DecodeError(f"truncated {what}: {n} bytes announced")
    return buf[pos:end], end


def _utf8(raw: Any) -> str:
    # Java's new String(bytes, UTF_8), as Kafka's Readable.readString: malformed bytes become
    # U+FFFD, the request is still served (name checks then refuse what they must).
    return str(raw, "utf-8", "replace")


def read_string(buf: Any, pos: int) -> tuple[str, int]:
    n, pos = read_int16(buf, pos)
    if n < 0:
        raise DecodeError("non-nullable string was null")
    raw, pos = _take(buf, pos, n, "string")
    return _utf8(raw), pos


def read_nullable_string(buf: Any, pos: int) -> tuple[str | None, int]:
    n, pos = read_int16(buf, pos)
    if n == -1:
        return None, pos
    if n < 0:
        raise DecodeError(f"invalid string length {n}")
    raw, pos = _take(buf, pos, n, "string")
    return _utf8(raw), pos


# Kafka's generated readers and writers refuse any string longer than 0x7fff bytes,
# compact ones included ("string field ... had invalid length", "... field is too
# long to be serialized"): the int16 limit holds for every string of the protocol.
MAX_STRING_BYTES = INT16_MAX


def read_compact_string(buf: Any, pos: int) -> tuple[str, int]:
    n, pos = read_uvarint(buf, pos)
    if n == 0:
        raise DecodeError("non-nullable compact string was null")
    if n - 1 > MAX_STRING_BYTES:
        raise DecodeError(f"string of {n - 1} bytes exceeds 32767")
    raw, pos = _take(buf, pos, n - 1, "compact string")
    return _utf8(raw), pos


def read_compact_nullable_string(buf: Any, pos: int) -> tuple[str | None, int]:
    n, pos = read_uvarint(buf, pos)
    if n == 0:
        return None, pos
    if n - 1 > MAX_STRING_BYTES:
        raise DecodeError(f"string of {n - 1} bytes exceeds 32767")
    raw, pos = _take(buf, pos, n - 1, "compact string")
    return _utf8(raw), pos


def write_string(w: bytearray, value: str) -> None:
    raw = value.encode("utf-8")
    if len(raw) > INT16_MAX:
        raise EncodeError(f"string of {len(raw)} bytes exceeds 32767")
    w += INT16.pack(len(raw))
    w += raw


def write_nullable_string(w: bytearray, value: str | None) -> None:
    if value is None:
        w += b"\xff\xff"
    else:
        write_string(w, value)


def write_compact_string(w: bytearray, value: str) -> None:
    raw = value.encode("utf-8")
    if len(raw) > MAX_STRING_BYTES:
        raise EncodeError(f"string of {len(raw)} bytes exceeds 32767")
    write_uvarint(w, len(raw) + 1)
    w += raw


def write_compact_nullable_string(w: bytearray, value: str | None) -> None:
    if value is None:
        w.append(0)
    else:
        write_compact_string(w, value)


def read_bytes(buf: Any, pos: int) -> tuple[bytes, int]:
    n, pos = read_int32(buf, pos)
    if n < 0:
        raise DecodeError("non-nullable bytes were null")
    raw, pos = _take(buf, pos, n, "bytes")
    return bytes(raw), pos


def read_nullable_bytes(buf: Any, pos: int) -> tuple[bytes | None, int]:
    n, pos = read_int32(buf, pos)
    if n == -1:
        return None, pos
    raw, pos = _take(buf, pos, n, "bytes")
    return bytes(raw), pos


def read_compact_bytes(buf: Any, pos: int) -> tuple[bytes, int]:
    n, pos = read_uvarint(buf, pos)
    if n == 0:
        raise DecodeError("non-nullable compact bytes were null")
    raw, pos = _take(buf, pos, n - 1, "compact bytes")
    return bytes(raw), pos


def read_compact_nullable_bytes(buf: Any, pos: int) -> tuple[bytes | None, int]:
    n, pos = read_uvarint(buf, pos)
    if n == 0:
        return None, pos
    raw, pos = _take(buf, pos, n - 1, "compact bytes")
    return bytes(raw), pos


def write_bytes(w: bytearray, value: Any) -> None:
    w += INT32.pack(len(value))
    w += value


def write_nullable_bytes(w: bytearray, value: Any) -> None:
    if value is None:
        w += b"\xff\xff\xff\xff"
    else:
        write_bytes(w, value)


def write_compact_bytes(w: bytearray, value: Any) -> None:
    write_uvarint(w, len(value) + 1)
    w += value


def write_compact_nullable_bytes(w: bytearray, value: Any) -> None:
    if value is None:
        w.append(0)
    else:
        write_compact_bytes(w, value)


# Records (the Produce/Fetch payload) are NULLABLE_BYTES or COMPACT_NULLABLE_BYTES
# on the wire, but stay a zero-copy view of the frame: no per-record decoding here.


def read_records(buf: Any, pos: int) -> tuple[memoryview | None, int]:
    n, pos = read_int32(buf, pos)
    if n == -1:
        return None, pos
    raw, pos = _take(buf, pos, n, "records")
    return memoryview(raw), pos


def read_compact_records(buf: Any, pos: int) -> tuple[memoryview | None, int]:
    n, pos = read_uvarint(buf, pos)
    if n == 0:
        return None, pos
    raw, pos = _take(buf, pos, n - 1, "records")
    return memoryview(raw), pos


write_records = write_nullable_bytes
write_compact_records = write_compact_nullable_bytes


# ---------------------------------------------------------------- arrays


def read_array_length(buf: Any, pos: int) -> tuple[int, int]:
    """Classic int32 array count; -1 is null. Guards against absurd counts."""
    n, pos = read_int32(buf, pos)
    if n < -1 or n > len(buf) - pos:
        raise DecodeError(f"invalid array length {n}")
    return n, pos


def read_compact_array_length(buf: Any, pos: int) -> tuple[int, int]:
    """Compact array count: uvarint N+1; returns -1 for null."""
    n, pos = read_uvarint(buf, pos)
    n -= 1
    if n > len(buf) - pos:
        raise DecodeError(f"invalid compact array length {n}")
    return n, pos


def write_array_length(w: bytearray, n: int) -> None:
    w += INT32.pack(n)


def write_compact_array_length(w: bytearray, n: int) -> None:
    write_uvarint(w, n + 1)


# ---------------------------------------------------------------- tagged fields


def read_tagged_fields(buf: Any, pos: int) -> tuple[list[tuple[int, bytes]], int]:
    """Read a whole tag buffer, returning raw (tag, bytes) pairs in order.

    Tags must be strictly ascending (Kafka: "Invalid or out-of-order tag").
    """
    count, pos = read_uvarint(buf, pos)
    fields: list[tuple[int, bytes]] = []
    prev = -1
    for _ in range(count):
        tag, pos = read_uvarint(buf, pos)
        if tag <= prev:
            raise DecodeError(f"invalid or out-of-order tag {tag}")
        prev = tag
        size, pos = read_uvarint(buf, pos)
        raw, pos = _take(buf, pos, size, "tagged field")
        fields.append((tag, bytes(raw)))
    return fields, pos


def write_tagged_fields(w: bytearray, fields: list[tuple[int, Any]]) -> None:
    """Write (tag, encoded bytes) pairs; they are sorted and checked unique."""
    if not fields:
        w.append(0)
        return
    fields = sorted(fields, key=lambda f: f[0])
    write_uvarint(w, len(fields))
    prev = -1
    for tag, raw in fields:
        if tag == prev:
            raise EncodeError(f"duplicate tag {tag}")
        prev = tag
        write_uvarint(w, tag)
        write_uvarint(w, len(raw))
        w += raw
