"""CreateAclsRequest: generated from Kafka's CreateAclsRequest.json by tools/generate_protocol.py.

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


class AclCreation(Struct):
    __slots__ = ('resource_type', 'resource_name', 'resource_pattern_type', 'principal', 'host', 'operation', 'permission_type', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('resource_type', 'ResourceType', 'int8', False, (0, 32767), None, None, None, None), FieldMeta('resource_name', 'ResourceName', 'string', False, (0, 32767), None, None, None, None), FieldMeta('resource_pattern_type', 'ResourcePatternType', 'int8', False, (1, 32767), None, None, None, None), FieldMeta('principal', 'Principal', 'string', False, (0, 32767), None, None, None, None), FieldMeta('host', 'Host', 'string', False, (0, 32767), None, None, None, None), FieldMeta('operation', 'Operation', 'int8', False, (0, 32767), None, None, None, None), FieldMeta('permission_type', 'PermissionType', 'int8', False, (0, 32767), None, None, None, None))

    def __init__(self, *, resource_type: int = 0, resource_name: str = '', resource_pattern_type: int = 3, principal: str = '', host: str = '', operation: int = 0, permission_type: int = 0, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.resource_type = resource_type
        self.resource_name = resource_name
        self.resource_pattern_type = resource_pattern_type
        self.principal = principal
        self.host = host
        self.operation = operation
        self.permission_type = permission_type
        self.unknown_tagged_fields = unknown_tagged_fields


class CreateAclsRequest(Message):
    """Kafka request CreateAclsRequest (valid versions 1-3)."""

    NAME = 'CreateAclsRequest'
    TYPE = 'request'
    API_KEY = 30
    VALID_VERSIONS = (1, 3)
    FLEXIBLE_VERSIONS = (2, 32767)
    AclCreation = AclCreation
    __slots__ = ('creations', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('creations', 'Creations', 'AclCreation', True, (0, 32767), None, None, None, AclCreation),)

    def __init__(self, *, creations: list[AclCreation] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.creations = [] if creations is _DEFAULT else creations
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_AclCreation_0(buf, pos):
    o = _new(AclCreation)
    o.unknown_tagged_fields = None
    o.resource_type, = _S0.unpack_from(buf, pos)
    pos += 1
    o.resource_name, pos = read_string(buf, pos)
    o.resource_pattern_type, = _S0.unpack_from(buf, pos)
    pos += 1
    o.principal, pos = read_string(buf, pos)
    o.host, pos = read_string(buf, pos)
    o.operation, o.permission_type = _S1.unpack_from(buf, pos)
    pos += 2
    return o, pos


def _dec_CreateAclsRequest_0(buf, pos):
    o = _new(CreateAclsRequest)
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Creations was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_AclCreation_0(buf, pos)
            append(item)
        o.creations = items
    return o, pos


def _enc_AclCreation_0(o, w):
    w += _S0.pack(o.resource_type)
    if o.resource_name is None:
        raise EncodeError('non-nullable field ResourceName is None')
    write_string(w, o.resource_name)
    w += _S0.pack(o.resource_pattern_type)
    if o.principal is None:
        raise EncodeError('non-nullable field Principal is None')
    write_string(w, o.principal)
    if o.host is None:
        raise EncodeError('non-nullable field Host is None')
    write_string(w, o.host)
    w += _S1.pack(o.operation, o.permission_type)


def _enc_CreateAclsRequest_0(o, w):
    items = o.creations
    if items is None:
        raise EncodeError('non-nullable array Creations is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_AclCreation_0(item, w)


def _dec_AclCreation_1(buf, pos):
    o = _new(AclCreation)
    o.resource_type, = _S0.unpack_from(buf, pos)
    pos += 1
    o.resource_name, pos = read_compact_string(buf, pos)
    o.resource_pattern_type, = _S0.unpack_from(buf, pos)
    pos += 1
    o.principal, pos = read_compact_string(buf, pos)
    o.host, pos = read_compact_string(buf, pos)
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


def _dec_CreateAclsRequest_1(buf, pos):
    o = _new(CreateAclsRequest)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Creations was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_AclCreation_1(buf, pos)
            append(item)
        o.creations = items
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


def _enc_AclCreation_1(o, w):
    w += _S0.pack(o.resource_type)
    if o.resource_name is None:
        raise EncodeError('non-nullable field ResourceName is None')
    write_compact_string(w, o.resource_name)
    w += _S0.pack(o.resource_pattern_type)
    if o.principal is None:
        raise EncodeError('non-nullable field Principal is None')
    write_compact_string(w, o.principal)
    if o.host is None:
        raise EncodeError('non-nullable field Host is None')
    write_compact_string(w, o.host)
    w += _S1.pack(o.operation, o.permission_type)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_CreateAclsRequest_1(o, w):
    items = o.creations
    if items is None:
        raise EncodeError('non-nullable array Creations is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_AclCreation_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


CreateAclsRequest._DECODERS = {1: _dec_CreateAclsRequest_0, 2: _dec_CreateAclsRequest_1, 3: _dec_CreateAclsRequest_1}
CreateAclsRequest._ENCODERS = {1: _enc_CreateAclsRequest_0, 2: _enc_CreateAclsRequest_1, 3: _enc_CreateAclsRequest_1}
