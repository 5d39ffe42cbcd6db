"""DeleteAclsRequest: generated from Kafka's DeleteAclsRequest.json by tools/generate_protocol.py.

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
_S1 = struct.Struct('>bb')


class DeleteAclsFilter(Struct):
    __slots__ = ('resource_type_filter', 'resource_name_filter', 'pattern_type_filter', 'principal_filter', 'host_filter', 'operation', 'permission_type', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('resource_type_filter', 'ResourceTypeFilter', 'int8', False, (0, 32767), None, None, None, None), FieldMeta('resource_name_filter', 'ResourceNameFilter', 'string', False, (0, 32767), (0, 32767), None, None, None), FieldMeta('pattern_type_filter', 'PatternTypeFilter', 'int8', False, (1, 32767), None, None, None, None), FieldMeta('principal_filter', 'PrincipalFilter', 'string', False, (0, 32767), (0, 32767), None, None, None), FieldMeta('host_filter', 'HostFilter', 'string', False, (0, 32767), (0, 32767), None, None, None), FieldMeta('operation', 'Operation', 'int8', False, (0, 32767), None, None, None, None), FieldMeta('permission_type', 'PermissionType', 'int8', False, (0, 32767), None, None, None, None))

    def __init__(self, *, resource_type_filter: int = 0, resource_name_filter: str | None = '', pattern_type_filter: int = 3, principal_filter: str | None = '', host_filter: str | None = '', operation: int = 0, permission_type: int = 0, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.resource_type_filter = resource_type_filter
        self.resource_name_filter = resource_name_filter
        self.pattern_type_filter = pattern_type_filter
        self.principal_filter = principal_filter
        self.host_filter = host_filter
        self.operation = operation
        self.permission_type = permission_type
        self.unknown_tagged_fields = unknown_tagged_fields


class DeleteAclsRequest(Message):
    """Kafka request DeleteAclsRequest (valid versions 1-3)."""

    NAME = 'DeleteAclsRequest'
    TYPE = 'request'
    API_KEY = 31
    VALID_VERSIONS = (1, 3)
    FLEXIBLE_VERSIONS = (2, 32767)
    DeleteAclsFilter = DeleteAclsFilter
    __slots__ = ('filters', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('filters', 'Filters', 'DeleteAclsFilter', True, (0, 32767), None, None, None, DeleteAclsFilter),)

    def __init__(self, *, filters: list[DeleteAclsFilter] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.filters = [] if filters is _DEFAULT else filters
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_DeleteAclsFilter_0(buf, pos):
    o = _new(DeleteAclsFilter)
    o.unknown_tagged_fields = None
    o.resource_type_filter, = _S0.unpack_from(buf, pos)
    pos += 1
    o.resource_name_filter, pos = read_nullable_string(buf, pos)
    o.pattern_type_filter, = _S0.unpack_from(buf, pos)
    pos += 1
    o.principal_filter, pos = read_nullable_string(buf, pos)
    o.host_filter, pos = read_nullable_string(buf, pos)
    o.operation, o.permission_type = _S1.unpack_from(buf, pos)
    pos += 2
    return o, pos


def _dec_DeleteAclsRequest_0(buf, pos):
    o = _new(DeleteAclsRequest)
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Filters was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_DeleteAclsFilter_0(buf, pos)
            append(item)
        o.filters = items
    return o, pos


def _enc_DeleteAclsFilter_0(o, w):
    w += _S0.pack(o.resource_type_filter)
    write_nullable_string(w, o.resource_name_filter)
    w += _S0.pack(o.pattern_type_filter)
    write_nullable_string(w, o.principal_filter)
    write_nullable_string(w, o.host_filter)
    w += _S1.pack(o.operation, o.permission_type)


def _enc_DeleteAclsRequest_0(o, w):
    items = o.filters
    if items is None:
        raise EncodeError('non-nullable array Filters is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_DeleteAclsFilter_0(item, w)


def _dec_DeleteAclsFilter_1(buf, pos):
    o = _new(DeleteAclsFilter)
    o.resource_type_filter, = _S0.unpack_from(buf, pos)
    pos += 1
    o.resource_name_filter, pos = read_compact_nullable_string(buf, pos)
    o.pattern_type_filter, = _S0.unpack_from(buf, pos)
    pos += 1
    o.principal_filter, pos = read_compact_nullable_string(buf, pos)
    o.host_filter, pos = read_compact_nullable_string(buf, pos)
    o.operation, o.permission_type = _S1.unpack_from(buf, pos)
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


def _dec_DeleteAclsRequest_1(buf, pos):
    o = _new(DeleteAclsRequest)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Filters was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_DeleteAclsFilter_1(buf, pos)
            append(item)
        o.filters = items
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


def _enc_DeleteAclsFilter_1(o, w):
    w += _S0.pack(o.resource_type_filter)
    write_compact_nullable_string(w, o.resource_name_filter)
    w += _S0.pack(o.pattern_type_filter)
    write_compact_nullable_string(w, o.principal_filter)
    write_compact_nullable_string(w, o.host_filter)
    w += _S1.pack(o.operation, o.permission_type)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_DeleteAclsRequest_1(o, w):
    items = o.filters
    if items is None:
        raise EncodeError('non-nullable array Filters is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_DeleteAclsFilter_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


DeleteAclsRequest._DECODERS = {1: _dec_DeleteAclsRequest_0, 2: _dec_DeleteAclsRequest_1, 3: _dec_DeleteAclsRequest_1}
DeleteAclsRequest._ENCODERS = {1: _enc_DeleteAclsRequest_0, 2: _enc_DeleteAclsRequest_1, 3: _enc_DeleteAclsRequest_1}
