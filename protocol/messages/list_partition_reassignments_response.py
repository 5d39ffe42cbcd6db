"""ListPartitionReassignmentsResponse: generated from Kafka's ListPartitionReassignmentsResponse.json by tools/generate_protocol.py.

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
_S1 = struct.Struct('>i')


class OngoingPartitionReassignment(Struct):
    __slots__ = ('partition_index', 'replicas', 'adding_replicas', 'removing_replicas', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('partition_index', 'PartitionIndex', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('replicas', 'Replicas', 'int32', True, (0, 32767), None, None, None, None), FieldMeta('adding_replicas', 'AddingReplicas', 'int32', True, (0, 32767), None, None, None, None), FieldMeta('removing_replicas', 'RemovingReplicas', 'int32', True, (0, 32767), None, None, None, None))

    def __init__(self, *, partition_index: int = 0, replicas: list[int] | None = _DEFAULT, adding_replicas: list[int] | None = _DEFAULT, removing_replicas: list[int] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.partition_index = partition_index
        self.replicas = [] if replicas is _DEFAULT else replicas
        self.adding_replicas = [] if adding_replicas is _DEFAULT else adding_replicas
        self.removing_replicas = [] if removing_replicas is _DEFAULT else removing_replicas
        self.unknown_tagged_fields = unknown_tagged_fields


class OngoingTopicReassignment(Struct):
    __slots__ = ('name', 'partitions', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (0, 32767), None, None, None, None), FieldMeta('partitions', 'Partitions', 'OngoingPartitionReassignment', True, (0, 32767), None, None, None, OngoingPartitionReassignment))

    def __init__(self, *, name: str = '', partitions: list[OngoingPartitionReassignment] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.partitions = [] if partitions is _DEFAULT else partitions
        self.unknown_tagged_fields = unknown_tagged_fields


class ListPartitionReassignmentsResponse(Message):
    """Kafka response ListPartitionReassignmentsResponse (valid versions 0-0)."""

    NAME = 'ListPartitionReassignmentsResponse'
    TYPE = 'response'
    API_KEY = 46
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    OngoingPartitionReassignment = OngoingPartitionReassignment
    OngoingTopicReassignment = OngoingTopicReassignment
    __slots__ = ('throttle_time_ms', 'error_code', 'error_message', 'topics', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('throttle_time_ms', 'ThrottleTimeMs', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('error_message', 'ErrorMessage', 'string', False, (0, 32767), (0, 32767), None, None, None), FieldMeta('topics', 'Topics', 'OngoingTopicReassignment', True, (0, 32767), None, None, None, OngoingTopicReassignment))

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, error_message: str | None = '', topics: list[OngoingTopicReassignment] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message
        self.topics = [] if topics is _DEFAULT else topics
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_OngoingPartitionReassignment_0(buf, pos):
    o = _new(OngoingPartitionReassignment)
    o.partition_index, = _S1.unpack_from(buf, pos)
    pos += 4
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Replicas was null')
    else:
        end = pos + n * 4
        if end > len(buf):
            raise DecodeError('truncated array Replicas')
        o.replicas = list(_unpack_from('>%di' % n, buf, pos))
        pos = end
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array AddingReplicas was null')
    else:
        end = pos + n * 4
        if end > len(buf):
            raise DecodeError('truncated array AddingReplicas')
        o.adding_replicas = list(_unpack_from('>%di' % n, buf, pos))
        pos = end
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array RemovingReplicas was null')
    else:
        end = pos + n * 4
        if end > len(buf):
            raise DecodeError('truncated array RemovingReplicas')
        o.removing_replicas = list(_unpack_from('>%di' % n, buf, pos))
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


def _dec_OngoingTopicReassignment_0(buf, pos):
    o = _new(OngoingTopicReassignment)
    o.name, pos = read_compact_string(buf, pos)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Partitions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_OngoingPartitionReassignment_0(buf, pos)
            append(item)
        o.partitions = items
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


def _dec_ListPartitionReassignmentsResponse_0(buf, pos):
    o = _new(ListPartitionReassignmentsResponse)
    o.throttle_time_ms, o.error_code = _S0.unpack_from(buf, pos)
    pos += 6
    o.error_message, pos = read_compact_nullable_string(buf, pos)
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
            item, pos = _dec_OngoingTopicReassignment_0(buf, pos)
            append(item)
        o.topics = items
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


def _enc_OngoingPartitionReassignment_0(o, w):
    w += _S1.pack(o.partition_index)
    items = o.replicas
    if items is None:
        raise EncodeError('non-nullable array Replicas is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        w += _pack('>%di' % len(items), *items)
    items = o.adding_replicas
    if items is None:
        raise EncodeError('non-nullable array AddingReplicas is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        w += _pack('>%di' % len(items), *items)
    items = o.removing_replicas
    if items is None:
        raise EncodeError('non-nullable array RemovingReplicas is None')
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


def _enc_OngoingTopicReassignment_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_compact_string(w, o.name)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_OngoingPartitionReassignment_0(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_ListPartitionReassignmentsResponse_0(o, w):
    w += _S0.pack(o.throttle_time_ms, o.error_code)
    write_compact_nullable_string(w, o.error_message)
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
            _enc_OngoingTopicReassignment_0(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


ListPartitionReassignmentsResponse._DECODERS = {0: _dec_ListPartitionReassignmentsResponse_0}
ListPartitionReassignmentsResponse._ENCODERS = {0: _enc_ListPartitionReassignmentsResponse_0}
