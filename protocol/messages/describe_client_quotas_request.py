"""DescribeClientQuotasRequest: generated from Kafka's DescribeClientQuotasRequest.json by tools/generate_protocol.py.

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


class ComponentData(Struct):
    __slots__ = ('entity_type', 'match_type', 'match', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('entity_type', 'EntityType', 'string', False, (0, 32767), None, None, None, None), FieldMeta('match_type', 'MatchType', 'int8', False, (0, 32767), None, None, None, None), FieldMeta('match', 'Match', 'string', False, (0, 32767), (0, 32767), None, None, None))

    def __init__(self, *, entity_type: str = '', match_type: int = 0, match: str | None = '', unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.entity_type = entity_type
        self.match_type = match_type
        self.match = match
        self.unknown_tagged_fields = unknown_tagged_fields


class DescribeClientQuotasRequest(Message):
    """Kafka request DescribeClientQuotasRequest (valid versions 0-1)."""

    NAME = 'DescribeClientQuotasRequest'
    TYPE = 'request'
    API_KEY = 48
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (1, 32767)
    ComponentData = ComponentData
    __slots__ = ('components', 'strict', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('components', 'Components', 'ComponentData', True, (0, 32767), None, None, None, ComponentData), FieldMeta('strict', 'Strict', 'bool', False, (0, 32767), None, None, None, None))

    def __init__(self, *, components: list[ComponentData] | None = _DEFAULT, strict: bool = False, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.components = [] if components is _DEFAULT else components
        self.strict = strict
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_ComponentData_0(buf, pos):
    o = _new(ComponentData)
    o.unknown_tagged_fields = None
    o.entity_type, pos = read_string(buf, pos)
    o.match_type, = _S0.unpack_from(buf, pos)
    pos += 1
    o.match, pos = read_nullable_string(buf, pos)
    return o, pos


def _dec_DescribeClientQuotasRequest_0(buf, pos):
    o = _new(DescribeClientQuotasRequest)
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Components was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ComponentData_0(buf, pos)
            append(item)
        o.components = items
    o.strict, = _S1.unpack_from(buf, pos)
    pos += 1
    return o, pos


def _enc_ComponentData_0(o, w):
    if o.entity_type is None:
        raise EncodeError('non-nullable field EntityType is None')
    write_string(w, o.entity_type)
    w += _S0.pack(o.match_type)
    write_nullable_string(w, o.match)


def _enc_DescribeClientQuotasRequest_0(o, w):
    items = o.components
    if items is None:
        raise EncodeError('non-nullable array Components is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_ComponentData_0(item, w)
    w += _S1.pack(o.strict)


def _dec_ComponentData_1(buf, pos):
    o = _new(ComponentData)
    o.entity_type, pos = read_compact_string(buf, pos)
    o.match_type, = _S0.unpack_from(buf, pos)
    pos += 1
    o.match, pos = read_compact_nullable_string(buf, pos)
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


def _dec_DescribeClientQuotasRequest_1(buf, pos):
    o = _new(DescribeClientQuotasRequest)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Components was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ComponentData_1(buf, pos)
            append(item)
        o.components = items
    o.strict, = _S1.unpack_from(buf, pos)
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


def _enc_ComponentData_1(o, w):
    if o.entity_type is None:
        raise EncodeError('non-nullable field EntityType is None')
    write_compact_string(w, o.entity_type)
    w += _S0.pack(o.match_type)
    write_compact_nullable_string(w, o.match)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_DescribeClientQuotasRequest_1(o, w):
    items = o.components
    if items is None:
        raise EncodeError('non-nullable array Components is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_ComponentData_1(item, w)
    w += _S1.pack(o.strict)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


DescribeClientQuotasRequest._DECODERS = {0: _dec_DescribeClientQuotasRequest_0, 1: _dec_DescribeClientQuotasRequest_1}
DescribeClientQuotasRequest._ENCODERS = {0: _enc_DescribeClientQuotasRequest_0, 1: _enc_DescribeClientQuotasRequest_1}
