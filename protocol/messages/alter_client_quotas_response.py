"""AlterClientQuotasResponse: generated from Kafka's AlterClientQuotasResponse.json by tools/generate_protocol.py.

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
_S1 = struct.Struct('>h')


class EntityData(Struct):
    __slots__ = ('entity_type', 'entity_name', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('entity_type', 'EntityType', 'string', False, (0, 32767), None, None, None, None), FieldMeta('entity_name', 'EntityName', 'string', False, (0, 32767), (0, 32767), None, None, None))

    def __init__(self, *, entity_type: str = '', entity_name: str | None = '', unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.entity_type = entity_type
        self.entity_name = entity_name
        self.unknown_tagged_fields = unknown_tagged_fields


class EntryData(Struct):
    __slots__ = ('error_code', 'error_message', 'entity', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('error_message', 'ErrorMessage', 'string', False, (0, 32767), (0, 32767), None, None, None), FieldMeta('entity', 'Entity', 'EntityData', True, (0, 32767), None, None, None, EntityData))

    def __init__(self, *, error_code: int = 0, error_message: str | None = '', entity: list[EntityData] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.error_code = error_code
        self.error_message = error_message
        self.entity = [] if entity is _DEFAULT else entity
        self.unknown_tagged_fields = unknown_tagged_fields


class AlterClientQuotasResponse(Message):
    """Kafka response AlterClientQuotasResponse (valid versions 0-1)."""

    NAME = 'AlterClientQuotasResponse'
    TYPE = 'response'
    API_KEY = 49
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (1, 32767)
    EntityData = EntityData
    EntryData = EntryData
    __slots__ = ('throttle_time_ms', 'entries', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('throttle_time_ms', 'ThrottleTimeMs', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('entries', 'Entries', 'EntryData', True, (0, 32767), None, None, None, EntryData))

    def __init__(self, *, throttle_time_ms: int = 0, entries: list[EntryData] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.entries = [] if entries is _DEFAULT else entries
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_EntityData_0(buf, pos):
    o = _new(EntityData)
    o.unknown_tagged_fields = None
    o.entity_type, pos = read_string(buf, pos)
    o.entity_name, pos = read_nullable_string(buf, pos)
    return o, pos


def _dec_EntryData_0(buf, pos):
    o = _new(EntryData)
    o.unknown_tagged_fields = None
    o.error_code, = _S1.unpack_from(buf, pos)
    pos += 2
    o.error_message, pos = read_nullable_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Entity was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_EntityData_0(buf, pos)
            append(item)
        o.entity = items
    return o, pos


def _dec_AlterClientQuotasResponse_0(buf, pos):
    o = _new(AlterClientQuotasResponse)
    o.unknown_tagged_fields = None
    o.throttle_time_ms, = _S0.unpack_from(buf, pos)
    pos += 4
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Entries was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_EntryData_0(buf, pos)
            append(item)
        o.entries = items
    return o, pos


def _enc_EntityData_0(o, w):
    if o.entity_type is None:
        raise EncodeError('non-nullable field EntityType is None')
    write_string(w, o.entity_type)
    write_nullable_string(w, o.entity_name)


def _enc_EntryData_0(o, w):
    w += _S1.pack(o.error_code)
    write_nullable_string(w, o.error_message)
    items = o.entity
    if items is None:
        raise EncodeError('non-nullable array Entity is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_EntityData_0(item, w)


def _enc_AlterClientQuotasResponse_0(o, w):
    w += _S0.pack(o.throttle_time_ms)
    items = o.entries
    if items is None:
        raise EncodeError('non-nullable array Entries is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_EntryData_0(item, w)


def _dec_EntityData_1(buf, pos):
    o = _new(EntityData)
    o.entity_type, pos = read_compact_string(buf, pos)
    o.entity_name, pos = read_compact_nullable_string(buf, pos)
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


def _dec_EntryData_1(buf, pos):
    o = _new(EntryData)
    o.error_code, = _S1.unpack_from(buf, pos)
    pos += 2
    o.error_message, pos = read_compact_nullable_string(buf, pos)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Entity was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_EntityData_1(buf, pos)
            append(item)
        o.entity = items
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


def _dec_AlterClientQuotasResponse_1(buf, pos):
    o = _new(AlterClientQuotasResponse)
    o.throttle_time_ms, = _S0.unpack_from(buf, pos)
    pos += 4
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Entries was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_EntryData_1(buf, pos)
            append(item)
        o.entries = items
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


def _enc_EntityData_1(o, w):
    if o.entity_type is None:
        raise EncodeError('non-nullable field EntityType is None')
    write_compact_string(w, o.entity_type)
    write_compact_nullable_string(w, o.entity_name)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_EntryData_1(o, w):
    w += _S1.pack(o.error_code)
    write_compact_nullable_string(w, o.error_message)
    items = o.entity
    if items is None:
        raise EncodeError('non-nullable array Entity is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_EntityData_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_AlterClientQuotasResponse_1(o, w):
    w += _S0.pack(o.throttle_time_ms)
    items = o.entries
    if items is None:
        raise EncodeError('non-nullable array Entries is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_EntryData_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


AlterClientQuotasResponse._DECODERS = {0: _dec_AlterClientQuotasResponse_0, 1: _dec_AlterClientQuotasResponse_1}
AlterClientQuotasResponse._ENCODERS = {0: _enc_AlterClientQuotasResponse_0, 1: _enc_AlterClientQuotasResponse_1}
