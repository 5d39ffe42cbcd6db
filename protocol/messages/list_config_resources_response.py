"""ListConfigResourcesResponse: generated from Kafka's ListConfigResourcesResponse.json by tools/generate_protocol.py.

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
_S0 = struct.Struct('>ih')
_S1 = struct.Struct('>b')


class ConfigResource(Struct):
    __slots__ = ('resource_name', 'resource_type', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('resource_name', 'ResourceName', 'string', False, (0, 32767), None, None, None, None), FieldMeta('resource_type', 'ResourceType', 'int8', False, (1, 32767), None, None, None, None))

    def __init__(self, *, resource_name: str = '', resource_type: int = 16, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.resource_name = resource_name
        self.resource_type = resource_type
        self.unknown_tagged_fields = unknown_tagged_fields


class ListConfigResourcesResponse(Message):
    """Kafka response ListConfigResourcesResponse (valid versions 0-1)."""

    NAME = 'ListConfigResourcesResponse'
    TYPE = 'response'
    API_KEY = 74
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (0, 32767)
    ConfigResource = ConfigResource
    __slots__ = ('throttle_time_ms', 'error_code', 'config_resources', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('throttle_time_ms', 'ThrottleTimeMs', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('config_resources', 'ConfigResources', 'ConfigResource', True, (0, 32767), None, None, None, ConfigResource))

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, config_resources: list[ConfigResource] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.config_resources = [] if config_resources is _DEFAULT else config_resources
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_ConfigResource_0(buf, pos):
    o = _new(ConfigResource)
    o.resource_type = 16
    o.resource_name, pos = read_compact_string(buf, pos)
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


def _dec_ListConfigResourcesResponse_0(buf, pos):
    o = _new(ListConfigResourcesResponse)
    o.throttle_time_ms, o.error_code = _S0.unpack_from(buf, pos)
    pos += 6
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array ConfigResources was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ConfigResource_0(buf, pos)
            append(item)
        o.config_resources = items
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


def _enc_ConfigResource_0(o, w):
    if o.resource_name is None:
        raise EncodeError('non-nullable field ResourceName is None')
    write_compact_string(w, o.resource_name)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_ListConfigResourcesResponse_0(o, w):
    w += _S0.pack(o.throttle_time_ms, o.error_code)
    items = o.config_resources
    if items is None:
        raise EncodeError('non-nullable array ConfigResources is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_ConfigResource_0(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_ConfigResource_1(buf, pos):
    o = _new(ConfigResource)
    o.resource_name, pos = read_compact_string(buf, pos)
    o.resource_type, = _S1.unpack_from(buf, pos)
    pos += 1
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


def _dec_ListConfigResourcesResponse_1(buf, pos):
    o = _new(ListConfigResourcesResponse)
    o.throttle_time_ms, o.error_code = _S0.unpack_from(buf, pos)
    pos += 6
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array ConfigResources was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ConfigResource_1(buf, pos)
            append(item)
        o.config_resources = items
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


def _enc_ConfigResource_1(o, w):
    if o.resource_name is None:
        raise EncodeError('non-nullable field ResourceName is None')
    write_compact_string(w, o.resource_name)
    w += _S1.pack(o.resource_type)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_ListConfigResourcesResponse_1(o, w):
    w += _S0.pack(o.throttle_time_ms, o.error_code)
    items = o.config_resources
    if items is None:
        raise EncodeError('non-nullable array ConfigResources is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_ConfigResource_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


ListConfigResourcesResponse._DECODERS = {0: _dec_ListConfigResourcesResponse_0, 1: _dec_ListConfigResourcesResponse_1}
ListConfigResourcesResponse._ENCODERS = {0: _enc_ListConfigResourcesResponse_0, 1: _enc_ListConfigResourcesResponse_1}
