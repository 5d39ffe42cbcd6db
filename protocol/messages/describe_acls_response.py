"""DescribeAclsResponse: generated from Kafka's DescribeAclsResponse.json by tools/generate_protocol.py.

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
_S2 = struct.Struct('>bb')


class AclDescription(Struct):
    __slots__ = ('principal', 'host', 'operation', 'permission_type', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('principal', 'Principal', 'string', False, (0, 32767), None, None, None, None), FieldMeta('host', 'Host', 'string', False, (0, 32767), None, None, None, None), FieldMeta('operation', 'Operation', 'int8', False, (0, 32767), None, None, None, None), FieldMeta('permission_type', 'PermissionType', 'int8', False, (0, 32767), None, None, None, None))

    def __init__(self, *, principal: str = '', host: str = '', operation: int = 0, permission_type: int = 0, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.principal = principal
        self.host = host
        self.operation = operation
        self.permission_type = permission_type
        self.unknown_tagged_fields = unknown_tagged_fields


class DescribeAclsResource(Struct):
    __slots__ = ('resource_type', 'resource_name', 'pattern_type', 'acls', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('resource_type', 'ResourceType', 'int8', False, (0, 32767), None, None, None, None), FieldMeta('resource_name', 'ResourceName', 'string', False, (0, 32767), None, None, None, None), FieldMeta('pattern_type', 'PatternType', 'int8', False, (1, 32767), None, None, None, None), FieldMeta('acls', 'Acls', 'AclDescription', True, (0, 32767), None, None, None, AclDescription))

    def __init__(self, *, resource_type: int = 0, resource_name: str = '', pattern_type: int = 3, acls: list[AclDescription] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.resource_type = resource_type
        self.resource_name = resource_name
        self.pattern_type = pattern_type
        self.acls = [] if acls is _DEFAULT else acls
        self.unknown_tagged_fields = unknown_tagged_fields


class DescribeAclsResponse(Message):
    """Kafka response DescribeAclsResponse (valid versions 1-3)."""

    NAME = 'DescribeAclsResponse'
    TYPE = 'response'
    API_KEY = 29
    VALID_VERSIONS = (1, 3)
    FLEXIBLE_VERSIONS = (2, 32767)
    AclDescription = AclDescription
    DescribeAclsResource = DescribeAclsResource
    __slots__ = ('throttle_time_ms', 'error_code', 'error_message', 'resources', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('throttle_time_ms', 'ThrottleTimeMs', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('error_message', 'ErrorMessage', 'string', False, (0, 32767), (0, 32767), None, None, None), FieldMeta('resources', 'Resources', 'DescribeAclsResource', True, (0, 32767), None, None, None, DescribeAclsResource))

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, error_message: str | None = '', resources: list[DescribeAclsResource] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message
        self.resources = [] if resources is _DEFAULT else resources
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_AclDescription_0(buf, pos):
    o = _new(AclDescription)
    o.unknown_tagged_fields = None
    o.principal, pos = read_string(buf, pos)
    o.host, pos = read_string(buf, pos)
    o.operation, o.permission_type = _S2.unpack_from(buf, pos)
    pos += 2
    return o, pos


def _dec_DescribeAclsResource_0(buf, pos):
    o = _new(DescribeAclsResource)
    o.unknown_tagged_fields = None
    o.resource_type, = _S1.unpack_from(buf, pos)
    pos += 1
    o.resource_name, pos = read_string(buf, pos)
    o.pattern_type, = _S1.unpack_from(buf, pos)
    pos += 1
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Acls was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_AclDescription_0(buf, pos)
            append(item)
        o.acls = items
    return o, pos


def _dec_DescribeAclsResponse_0(buf, pos):
    o = _new(DescribeAclsResponse)
    o.unknown_tagged_fields = None
    o.throttle_time_ms, o.error_code = _S0.unpack_from(buf, pos)
    pos += 6
    o.error_message, pos = read_nullable_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Resources was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_DescribeAclsResource_0(buf, pos)
            append(item)
        o.resources = items
    return o, pos


def _enc_AclDescription_0(o, w):
    if o.principal is None:
        raise EncodeError('non-nullable field Principal is None')
    write_string(w, o.principal)
    if o.host is None:
        raise EncodeError('non-nullable field Host is None')
    write_string(w, o.host)
    w += _S2.pack(o.operation, o.permission_type)


def _enc_DescribeAclsResource_0(o, w):
    w += _S1.pack(o.resource_type)
    if o.resource_name is None:
        raise EncodeError('non-nullable field ResourceName is None')
    write_string(w, o.resource_name)
    w += _S1.pack(o.pattern_type)
    items = o.acls
    if items is None:
        raise EncodeError('non-nullable array Acls is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_AclDescription_0(item, w)


def _enc_DescribeAclsResponse_0(o, w):
    w += _S0.pack(o.throttle_time_ms, o.error_code)
    write_nullable_string(w, o.error_message)
    items = o.resources
    if items is None:
        raise EncodeError('non-nullable array Resources is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_DescribeAclsResource_0(item, w)


def _dec_AclDescription_1(buf, pos):
    o = _new(AclDescription)
    o.principal, pos = read_compact_string(buf, pos)
    o.host, pos = read_compact_string(buf, pos)
    o.operation, o.permission_type = _S2.unpack_from(buf, pos)
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


def _dec_DescribeAclsResource_1(buf, pos):
    o = _new(DescribeAclsResource)
    o.resource_type, = _S1.unpack_from(buf, pos)
    pos += 1
    o.resource_name, pos = read_compact_string(buf, pos)
    o.pattern_type, = _S1.unpack_from(buf, pos)
    pos += 1
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Acls was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_AclDescription_1(buf, pos)
            append(item)
        o.acls = items
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


def _dec_DescribeAclsResponse_1(buf, pos):
    o = _new(DescribeAclsResponse)
    o.throttle_time_ms, o.error_code = _S0.unpack_from(buf, pos)
    pos += 6
    o.error_message, pos = read_compact_nullable_string(buf, pos)
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
            item, pos = _dec_DescribeAclsResource_1(buf, pos)
            append(item)
        o.resources = items
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


def _enc_AclDescription_1(o, w):
    if o.principal is None:
        raise EncodeError('non-nullable field Principal is None')
    write_compact_string(w, o.principal)
    if o.host is None:
        raise EncodeError('non-nullable field Host is None')
    write_compact_string(w, o.host)
    w += _S2.pack(o.operation, o.permission_type)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_DescribeAclsResource_1(o, w):
    w += _S1.pack(o.resource_type)
    if o.resource_name is None:
        raise EncodeError('non-nullable field ResourceName is None')
    write_compact_string(w, o.resource_name)
    w += _S1.pack(o.pattern_type)
    items = o.acls
    if items is None:
        raise EncodeError('non-nullable array Acls is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_AclDescription_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_DescribeAclsResponse_1(o, w):
    w += _S0.pack(o.throttle_time_ms, o.error_code)
    write_compact_nullable_string(w, o.error_message)
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
            _enc_DescribeAclsResource_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


DescribeAclsResponse._DECODERS = {1: _dec_DescribeAclsResponse_0, 2: _dec_DescribeAclsResponse_1, 3: _dec_DescribeAclsResponse_1}
DescribeAclsResponse._ENCODERS = {1: _enc_DescribeAclsResponse_0, 2: _enc_DescribeAclsResponse_1, 3: _enc_DescribeAclsResponse_1}
