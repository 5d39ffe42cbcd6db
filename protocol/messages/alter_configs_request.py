"""AlterConfigsRequest: generated from Kafka's AlterConfigsRequest.json by tools/generate_protocol.py.

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
_S0 = struct.Struct('>b')
_S1 = struct.Struct('>?')


class AlterableConfig(Struct):
    __slots__ = ('name', 'value', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (0, 32767), None, None, None, None), FieldMeta('value', 'Value', 'string', False, (0, 32767), (0, 32767), None, None, None))

    def __init__(self, *, name: str = '', value: str | None = '', unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.value = value
        self.unknown_tagged_fields = unknown_tagged_fields


class AlterConfigsResource(Struct):
    __slots__ = ('resource_type', 'resource_name', 'configs', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('resource_type', 'ResourceType', 'int8', False, (0, 32767), None, None, None, None), FieldMeta('resource_name', 'ResourceName', 'string', False, (0, 32767), None, None, None, None), FieldMeta('configs', 'Configs', 'AlterableConfig', True, (0, 32767), None, None, None, AlterableConfig))

    def __init__(self, *, resource_type: int = 0, resource_name: str = '', configs: list[AlterableConfig] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.resource_type = resource_type
        self.resource_name = resource_name
        self.configs = [] if configs is _DEFAULT else configs
        self.unknown_tagged_fields = unknown_tagged_fields


class AlterConfigsRequest(Message):
    """Kafka request AlterConfigsRequest (valid versions 0-2)."""

    NAME = 'AlterConfigsRequest'
    TYPE = 'request'
    API_KEY = 33
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (2, 32767)
    AlterableConfig = AlterableConfig
    AlterConfigsResource = AlterConfigsResource
    __slots__ = ('resources', 'validate_only', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('resources', 'Resources', 'AlterConfigsResource', True, (0, 32767), None, None, None, AlterConfigsResource), FieldMeta('validate_only', 'ValidateOnly', 'bool', False, (0, 32767), None, None, None, None))

    def __init__(self, *, resources: list[AlterConfigsResource] | None = _DEFAULT, validate_only: bool = False, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.resources = [] if resources is _DEFAULT else resources
        self.validate_only = validate_only
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_AlterableConfig_0(buf, pos):
    o = _new(AlterableConfig)
    o.unknown_tagged_fields = None
    o.name, pos = read_string(buf, pos)
    o.value, pos = read_nullable_string(buf, pos)
    return o, pos


def _dec_AlterConfigsResource_0(buf, pos):
    o = _new(AlterConfigsResource)
    o.unknown_tagged_fields = None
    o.resource_type, = _S0.unpack_from(buf, pos)
    pos += 1
    o.resource_name, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Configs was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_AlterableConfig_0(buf, pos)
            append(item)
        o.configs = items
    return o, pos


def _dec_AlterConfigsRequest_0(buf, pos):
    o = _new(AlterConfigsRequest)
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Resources was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_AlterConfigsResource_0(buf, pos)
            append(item)
        o.resources = items
    o.validate_only, = _S1.unpack_from(buf, pos)
    pos += 1
    return o, pos


def _enc_AlterableConfig_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    write_nullable_string(w, o.value)


def _enc_AlterConfigsResource_0(o, w):
    w += _S0.pack(o.resource_type)
    if o.resource_name is None:
        raise EncodeError('non-nullable field ResourceName is None')
    write_string(w, o.resource_name)
    items = o.configs
    if items is None:
        raise EncodeError('non-nullable array Configs is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_AlterableConfig_0(item, w)


def _enc_AlterConfigsRequest_0(o, w):
    items = o.resources
    if items is None:
        raise EncodeError('non-nullable array Resources is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_AlterConfigsResource_0(item, w)
    w += _S1.pack(o.validate_only)


def _dec_AlterableConfig_1(buf, pos):
    o = _new(AlterableConfig)
    o.name, pos = read_compact_string(buf, pos)
    o.value, pos = read_compact_nullable_string(buf, pos)
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


def _dec_AlterConfigsResource_1(buf, pos):
    o = _new(AlterConfigsResource)
    o.resource_type, = _S0.unpack_from(buf, pos)
    pos += 1
    o.resource_name, pos = read_compact_string(buf, pos)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Configs was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_AlterableConfig_1(buf, pos)
            append(item)
        o.configs = items
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


def _dec_AlterConfigsRequest_1(buf, pos):
    o = _new(AlterConfigsRequest)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Resources was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_AlterConfigsResource_1(buf, pos)
            append(item)
        o.resources = items
    o.validate_only, = _S1.unpack_from(buf, pos)
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


def _enc_AlterableConfig_1(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_compact_string(w, o.name)
    write_compact_nullable_string(w, o.value)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_AlterConfigsResource_1(o, w):
    w += _S0.pack(o.resource_type)
    if o.resource_name is None:
        raise EncodeError('non-nullable field ResourceName is None')
    write_compact_string(w, o.resource_name)
    items = o.configs
    if items is None:
        raise EncodeError('non-nullable array Configs is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_AlterableConfig_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_AlterConfigsRequest_1(o, w):
    items = o.resources
    if items is None:
        raise EncodeError('non-nullable array Resources is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_AlterConfigsResource_1(item, w)
    w += _S1.pack(o.validate_only)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


AlterConfigsRequest._DECODERS = {0: _dec_AlterConfigsRequest_0, 1: _dec_AlterConfigsRequest_0, 2: _dec_AlterConfigsRequest_1}
AlterConfigsRequest._ENCODERS = {0: _enc_AlterConfigsRequest_0, 1: _enc_AlterConfigsRequest_0, 2: _enc_AlterConfigsRequest_1}
