"""DescribeConfigsRequest: generated from Kafka's DescribeConfigsRequest.json by tools/generate_protocol.py.

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
_S2 = struct.Struct('>??')


class DescribeConfigsResource(Struct):
    __slots__ = ('resource_type', 'resource_name', 'configuration_keys', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('resource_type', 'ResourceType', 'int8', False, (0, 32767), None, None, None, None), FieldMeta('resource_name', 'ResourceName', 'string', False, (0, 32767), None, None, None, None), FieldMeta('configuration_keys', 'ConfigurationKeys', 'string', True, (0, 32767), (0, 32767), None, None, None))

    def __init__(self, *, resource_type: int = 0, resource_name: str = '', configuration_keys: list[str] | None | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.resource_type = resource_type
        self.resource_name = resource_name
        self.configuration_keys = [] if configuration_keys is _DEFAULT else configuration_keys
        self.unknown_tagged_fields = unknown_tagged_fields


class DescribeConfigsRequest(Message):
    """Kafka request DescribeConfigsRequest (valid versions 1-4)."""

    NAME = 'DescribeConfigsRequest'
    TYPE = 'request'
    API_KEY = 32
    VALID_VERSIONS = (1, 4)
    FLEXIBLE_VERSIONS = (4, 32767)
    DescribeConfigsResource = DescribeConfigsResource
    __slots__ = ('resources', 'include_synonyms', 'include_documentation', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('resources', 'Resources', 'DescribeConfigsResource', True, (0, 32767), None, None, None, DescribeConfigsResource), FieldMeta('include_synonyms', 'IncludeSynonyms', 'bool', False, (1, 32767), None, None, None, None), FieldMeta('include_documentation', 'IncludeDocumentation', 'bool', False, (3, 32767), None, None, None, None))

    def __init__(self, *, resources: list[DescribeConfigsResource] | None = _DEFAULT, include_synonyms: bool = False, include_documentation: bool = False, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.resources = [] if resources is _DEFAULT else resources
        self.include_synonyms = include_synonyms
        self.include_documentation = include_documentation
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_DescribeConfigsResource_0(buf, pos):
    o = _new(DescribeConfigsResource)
    o.unknown_tagged_fields = None
    o.resource_type, = _S0.unpack_from(buf, pos)
    pos += 1
    o.resource_name, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        o.configuration_keys = None
    else:
        items = []
        for _ in range(n):
            item, pos = read_string(buf, pos)
            items.append(item)
        o.configuration_keys = items
    return o, pos


def _dec_DescribeConfigsRequest_0(buf, pos):
    o = _new(DescribeConfigsRequest)
    o.include_documentation = False
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Resources was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_DescribeConfigsResource_0(buf, pos)
            append(item)
        o.resources = items
    o.include_synonyms, = _S1.unpack_from(buf, pos)
    pos += 1
    return o, pos


def _enc_DescribeConfigsResource_0(o, w):
    w += _S0.pack(o.resource_type)
    if o.resource_name is None:
        raise EncodeError('non-nullable field ResourceName is None')
    write_string(w, o.resource_name)
    items = o.configuration_keys
    if items is None:
        write_array_length(w, -1)
    else:
        write_array_length(w, len(items))
        for item in items:
            write_string(w, item)


def _enc_DescribeConfigsRequest_0(o, w):
    items = o.resources
    if items is None:
        raise EncodeError('non-nullable array Resources is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_DescribeConfigsResource_0(item, w)
    w += _S1.pack(o.include_synonyms)


def _dec_DescribeConfigsRequest_1(buf, pos):
    o = _new(DescribeConfigsRequest)
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Resources was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_DescribeConfigsResource_0(buf, pos)
            append(item)
        o.resources = items
    o.include_synonyms, o.include_documentation = _S2.unpack_from(buf, pos)
    pos += 2
    return o, pos


def _enc_DescribeConfigsRequest_1(o, w):
    items = o.resources
    if items is None:
        raise EncodeError('non-nullable array Resources is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_DescribeConfigsResource_0(item, w)
    w += _S2.pack(o.include_synonyms, o.include_documentation)


def _dec_DescribeConfigsResource_1(buf, pos):
    o = _new(DescribeConfigsResource)
    o.resource_type, = _S0.unpack_from(buf, pos)
    pos += 1
    o.resource_name, pos = read_compact_string(buf, pos)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        o.configuration_keys = None
    else:
        items = []
        for _ in range(n):
            item, pos = read_compact_string(buf, pos)
            items.append(item)
        o.configuration_keys = items
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


def _dec_DescribeConfigsRequest_2(buf, pos):
    o = _new(DescribeConfigsRequest)
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
            item, pos = _dec_DescribeConfigsResource_1(buf, pos)
            append(item)
        o.resources = items
    o.include_synonyms, o.include_documentation = _S2.unpack_from(buf, pos)
    pos += 2
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


def _enc_DescribeConfigsResource_1(o, w):
    w += _S0.pack(o.resource_type)
    if o.resource_name is None:
        raise EncodeError('non-nullable field ResourceName is None')
    write_compact_string(w, o.resource_name)
    items = o.configuration_keys
    if items is None:
        write_compact_array_length(w, -1)
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            write_compact_string(w, item)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_DescribeConfigsRequest_2(o, w):
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
            _enc_DescribeConfigsResource_1(item, w)
    w += _S2.pack(o.include_synonyms, o.include_documentation)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


DescribeConfigsRequest._DECODERS = {1: _dec_DescribeConfigsRequest_0, 2: _dec_DescribeConfigsRequest_0, 3: _dec_DescribeConfigsRequest_1, 4: _dec_DescribeConfigsRequest_2}
DescribeConfigsRequest._ENCODERS = {1: _enc_DescribeConfigsRequest_0, 2: _enc_DescribeConfigsRequest_0, 3: _enc_DescribeConfigsRequest_1, 4: _enc_DescribeConfigsRequest_2}
