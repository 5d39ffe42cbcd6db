"""CreatePartitionsRequest: generated from Kafka's CreatePartitionsRequest.json by tools/generate_protocol.py.

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
_S1 = struct.Struct('>i?')


class CreatePartitionsAssignment(Struct):
    __slots__ = ('broker_ids', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('broker_ids', 'BrokerIds', 'int32', True, (0, 32767), None, None, None, None),)

    def __init__(self, *, broker_ids: list[int] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.broker_ids = [] if broker_ids is _DEFAULT else broker_ids
        self.unknown_tagged_fields = unknown_tagged_fields


class CreatePartitionsTopic(Struct):
    __slots__ = ('name', 'count', 'assignments', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (0, 32767), None, None, None, None), FieldMeta('count', 'Count', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('assignments', 'Assignments', 'CreatePartitionsAssignment', True, (0, 32767), (0, 32767), None, None, CreatePartitionsAssignment))

    def __init__(self, *, name: str = '', count: int = 0, assignments: list[CreatePartitionsAssignment] | None | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.count = count
        self.assignments = [] if assignments is _DEFAULT else assignments
        self.unknown_tagged_fields = unknown_tagged_fields


class CreatePartitionsRequest(Message):
    """Kafka request CreatePartitionsRequest (valid versions 0-3)."""

    NAME = 'CreatePartitionsRequest'
    TYPE = 'request'
    API_KEY = 37
    VALID_VERSIONS = (0, 3)
    FLEXIBLE_VERSIONS = (2, 32767)
    CreatePartitionsAssignment = CreatePartitionsAssignment
    CreatePartitionsTopic = CreatePartitionsTopic
    __slots__ = ('topics', 'timeout_ms', 'validate_only', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('topics', 'Topics', 'CreatePartitionsTopic', True, (0, 32767), None, None, None, CreatePartitionsTopic), FieldMeta('timeout_ms', 'TimeoutMs', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('validate_only', 'ValidateOnly', 'bool', False, (0, 32767), None, None, None, None))

    def __init__(self, *, topics: list[CreatePartitionsTopic] | None = _DEFAULT, timeout_ms: int = 0, validate_only: bool = False, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.topics = [] if topics is _DEFAULT else topics
        self.timeout_ms = timeout_ms
        self.validate_only = validate_only
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_CreatePartitionsAssignment_0(buf, pos):
    o = _new(CreatePartitionsAssignment)
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array BrokerIds was null')
    else:
        end = pos + n * 4
        if end > len(buf):
            raise DecodeError('truncated array BrokerIds')
        o.broker_ids = list(_unpack_from('>%di' % n, buf, pos))
        pos = end
    return o, pos


def _dec_CreatePartitionsTopic_0(buf, pos):
    o = _new(CreatePartitionsTopic)
    o.unknown_tagged_fields = None
    o.name, pos = read_string(buf, pos)
    o.count, = _S0.unpack_from(buf, pos)
    pos += 4
    n, pos = read_array_length(buf, pos)
    if n < 0:
        o.assignments = None
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_CreatePartitionsAssignment_0(buf, pos)
            append(item)
        o.assignments = items
    return o, pos


def _dec_CreatePartitionsRequest_0(buf, pos):
    o = _new(CreatePartitionsRequest)
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_CreatePartitionsTopic_0(buf, pos)
            append(item)
        o.topics = items
    o.timeout_ms, o.validate_only = _S1.unpack_from(buf, pos)
    pos += 5
    return o, pos


def _enc_CreatePartitionsAssignment_0(o, w):
    items = o.broker_ids
    if items is None:
        raise EncodeError('non-nullable array BrokerIds is None')
    else:
        write_array_length(w, len(items))
        w += _pack('>%di' % len(items), *items)


def _enc_CreatePartitionsTopic_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    w += _S0.pack(o.count)
    items = o.assignments
    if items is None:
        write_array_length(w, -1)
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_CreatePartitionsAssignment_0(item, w)


def _enc_CreatePartitionsRequest_0(o, w):
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_CreatePartitionsTopic_0(item, w)
    w += _S1.pack(o.timeout_ms, o.validate_only)


def _dec_CreatePartitionsAssignment_1(buf, pos):
    o = _new(CreatePartitionsAssignment)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array BrokerIds was null')
    else:
        end = pos + n * 4
        if end > len(buf):
            raise DecodeError('truncated array BrokerIds')
        o.broker_ids = list(_unpack_from('>%di' % n, buf, pos))
        pos = end
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


def _dec_CreatePartitionsTopic_1(buf, pos):
    o = _new(CreatePartitionsTopic)
    o.name, pos = read_compact_string(buf, pos)
    o.count, = _S0.unpack_from(buf, pos)
    pos += 4
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        o.assignments = None
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_CreatePartitionsAssignment_1(buf, pos)
            append(item)
        o.assignments = items
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


def _dec_CreatePartitionsRequest_1(buf, pos):
    o = _new(CreatePartitionsRequest)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_CreatePartitionsTopic_1(buf, pos)
            append(item)
        o.topics = items
    o.timeout_ms, o.validate_only = _S1.unpack_from(buf, pos)
    pos += 5
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


def _enc_CreatePartitionsAssignment_1(o, w):
    items = o.broker_ids
    if items is None:
        raise EncodeError('non-nullable array BrokerIds is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        w += _pack('>%di' % len(items), *items)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_CreatePartitionsTopic_1(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_compact_string(w, o.name)
    w += _S0.pack(o.count)
    items = o.assignments
    if items is None:
        write_compact_array_length(w, -1)
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_CreatePartitionsAssignment_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_CreatePartitionsRequest_1(o, w):
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_CreatePartitionsTopic_1(item, w)
    w += _S1.pack(o.timeout_ms, o.validate_only)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


CreatePartitionsRequest._DECODERS = {0: _dec_CreatePartitionsRequest_0, 1: _dec_CreatePartitionsRequest_0, 2: _dec_CreatePartitionsRequest_1, 3: _dec_CreatePartitionsRequest_1}
CreatePartitionsRequest._ENCODERS = {0: _enc_CreatePartitionsRequest_0, 1: _enc_CreatePartitionsRequest_0, 2: _enc_CreatePartitionsRequest_1, 3: _enc_CreatePartitionsRequest_1}
