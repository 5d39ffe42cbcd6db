"""ApiVersionsRequest: generated from Kafka's ApiVersionsRequest.json by tools/generate_protocol.py.

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


class ApiVersionsRequest(Message):
    """Kafka request ApiVersionsRequest (valid versions 0-4)."""

    NAME = 'ApiVersionsRequest'
    TYPE = 'request'
    API_KEY = 18
    VALID_VERSIONS = (0, 4)
    FLEXIBLE_VERSIONS = (3, 32767)
    __slots__ = ('client_software_name', 'client_software_version', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('client_software_name', 'ClientSoftwareName', 'string', False, (3, 32767), None, None, None, None), FieldMeta('client_software_version', 'ClientSoftwareVersion', 'string', False, (3, 32767), None, None, None, None))

    def __init__(self, *, client_software_name: str = '', client_software_version: str = '', unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.client_software_name = client_software_name
        self.client_software_version = client_software_version
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_ApiVersionsRequest_0(buf, pos):
    o = _new(ApiVersionsRequest)
    o.client_software_name = ''
    o.client_software_version = ''
    o.unknown_tagged_fields = None
    return o, pos


def _enc_ApiVersionsRequest_0(o, w):
    pass


def _dec_ApiVersionsRequest_1(buf, pos):
    o = _new(ApiVersionsRequest)
    o.client_software_name, pos = read_compact_string(buf, pos)
    o.client_software_version, pos = read_compact_string(buf, pos)
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


def _enc_ApiVersionsRequest_1(o, w):
    if o.client_software_name is None:
        raise EncodeError('non-nullable field ClientSoftwareName is None')
    write_compact_string(w, o.client_software_name)
    if o.client_software_version is None:
        raise EncodeError('non-nullable field ClientSoftwareVersion is None')
    write_compact_string(w, o.client_software_version)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


ApiVersionsRequest._DECODERS = {0: _dec_ApiVersionsRequest_0, 1: _dec_ApiVersionsRequest_0, 2: _dec_ApiVersionsRequest_0, 3: _dec_ApiVersionsRequest_1, 4: _dec_ApiVersionsRequest_1}
ApiVersionsRequest._ENCODERS = {0: _enc_ApiVersionsRequest_0, 1: _enc_ApiVersionsRequest_0, 2: _enc_ApiVersionsRequest_0, 3: _enc_ApiVersionsRequest_1, 4: _enc_ApiVersionsRequest_1}
