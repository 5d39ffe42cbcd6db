"""ResponseHeader: generated from Kafka's ResponseHeader.json by tools/generate_protocol.py.

Do not edit: change the generator and run it again.
"""

# ruff: noqa
from __future__ import annotations

import struct
import uuid

from protocol.messages._base import _DEFAULT, FieldMeta, Message, Struct, _new
from protocol.primitives import (
    DecodeError,
    EncodeError,
    ZERO_UUID,
    read_array_length,
    read_bool,
    read_bytes,
    read_compact_array_length,
    read_compact_bytes,
    read_compact_nullable_bytes,
    read_compact_nullable_string,
    read_compact_records,
    read_compact_string,
    read_float64,
    read_int16,
    read_int32,
    read_int64,
    read_int8,
    read_nullable_bytes,
    read_nullable_string,
    read_records,
    read_string,
    read_uint16,
    read_uint32,
    read_uuid,
    read_uvarint,
    write_array_length,
    write_bytes,
    write_compact_array_length,
    write_compact_bytes,
    write_compact_nullable_bytes,
    write_compact_nullable_string,
    write_compact_records,
    write_compact_string,
    write_nullable_bytes,
    write_nullable_string,
    write_records,
    write_string,
    write_tagged_fields,
    write_uuid,
    write_uvarint,
)

_unpack_from = struct.unpack_from
_pack = struct.pack
_S0 = struct.Struct('>i')


class ResponseHeader(Message):
    """Kafka header ResponseHeader (valid versions 0-1)."""

    NAME = 'ResponseHeader'
    TYPE = 'header'
    API_KEY = None
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (1, 32767)
    __slots__ = ('correlation_id', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('correlation_id', 'CorrelationId', 'int32', False, (0, 32767), None, None, None, None),)

    def __init__(self, *, correlation_id: int = 0, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.correlation_id = correlation_id
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_ResponseHeader_0(buf, pos):
    o = _new(ResponseHeader)
    o.unknown_tagged_fields = None
    o.correlation_id, = _S0.unpack_from(buf, pos)
    pos += 4
    return o, pos


def _enc_ResponseHeader_0(o, w):
    w += _S0.pack(o.correlation_id)


def _dec_ResponseHeader_1(buf, pos):
    o = _new(ResponseHeader)
    o.correlation_id, = _S0.unpack_from(buf, pos)
    pos += 4
    o.unknown_tagged_fields = None
    ntags = buf[pos]
    if ntags < 0x80:
        pos += 1
    else:
        ntags, pos = read_uvarint(buf, pos)
    prev = -1
    for _ in range(ntags):
        tag, pos = read_uvarint(buf, pos)
        if tag <= prev:
            raise DecodeError(f'invalid or out-of-order tag {tag}')
        prev = tag
        size, pos = read_uvarint(buf, pos)
        end = pos + size
        if end > len(buf):
            raise DecodeError('truncated tagged field')
        if o.unknown_tagged_fields is None:
            o.unknown_tagged_fields = []
        o.unknown_tagged_fields.append((tag, bytes(buf[pos:end])))
        pos = end
    return o, pos


def _enc_ResponseHeader_1(o, w):
    w += _S0.pack(o.correlation_id)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


ResponseHeader._DECODERS = {0: _dec_ResponseHeader_0, 1: _dec_ResponseHeader_1}
ResponseHeader._ENCODERS = {0: _enc_ResponseHeader_0, 1: _enc_ResponseHeader_1}
