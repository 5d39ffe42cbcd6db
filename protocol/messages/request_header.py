"""RequestHeader: generated from Kafka's RequestHeader.json by tools/generate_protocol.py.

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
_S0 = struct.Struct('>hhi')


class RequestHeader(Message):
    """Kafka header RequestHeader (valid versions 1-2)."""

    NAME = 'RequestHeader'
    TYPE = 'header'
    API_KEY = None
    VALID_VERSIONS = (1, 2)
    FLEXIBLE_VERSIONS = (2, 32767)
    __slots__ = ('request_api_key', 'request_api_version', 'correlation_id', 'client_id', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('request_api_key', 'RequestApiKey', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('request_api_version', 'RequestApiVersion', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('correlation_id', 'CorrelationId', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('client_id', 'ClientId', 'string', False, (1, 32767), (1, 32767), None, None, None))

    def __init__(self, *, request_api_key: int = 0, request_api_version: int = 0, correlation_id: int = 0, client_id: str | None = '', unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.request_api_key = request_api_key
        self.request_api_version = request_api_version
        self.correlation_id = correlation_id
        self.client_id = client_id
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_RequestHeader_0(buf, pos):
    o = _new(RequestHeader)
    o.unknown_tagged_fields = None
    o.request_api_key, o.request_api_version, o.correlation_id = _S0.unpack_from(buf, pos)
    pos += 8
    o.client_id, pos = read_nullable_string(buf, pos)
    return o, pos


def _enc_RequestHeader_0(o, w):
    w += _S0.pack(o.request_api_key, o.request_api_version, o.correlation_id)
    write_nullable_string(w, o.client_id)


def _dec_RequestHeader_1(buf, pos):
    o = _new(RequestHeader)
    o.request_api_key, o.request_api_version, o.correlation_id = _S0.unpack_from(buf, pos)
    pos += 8
    o.client_id, pos = read_nullable_string(buf, pos)
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


def _enc_RequestHeader_1(o, w):
    w += _S0.pack(o.request_api_key, o.request_api_version, o.correlation_id)
    write_nullable_string(w, o.client_id)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


RequestHeader._DECODERS = {1: _dec_RequestHeader_0, 2: _dec_RequestHeader_1}
RequestHeader._ENCODERS = {1: _enc_RequestHeader_0, 2: _enc_RequestHeader_1}
