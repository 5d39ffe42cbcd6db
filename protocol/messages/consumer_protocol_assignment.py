"""ConsumerProtocolAssignment: generated from Kafka's ConsumerProtocolAssignment.json by tools/generate_protocol.py.

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


class TopicPartition(Struct):
    __slots__ = ('topic', 'partitions', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('topic', 'Topic', 'string', False, (0, 32767), None, None, None, None), FieldMeta('partitions', 'Partitions', 'int32', True, (0, 32767), None, None, None, None))

    def __init__(self, *, topic: str = '', partitions: list[int] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.topic = topic
        self.partitions = [] if partitions is _DEFAULT else partitions
        self.unknown_tagged_fields = unknown_tagged_fields


class ConsumerProtocolAssignment(Message):
    """Kafka data ConsumerProtocolAssignment (valid versions 0-3)."""

    NAME = 'ConsumerProtocolAssignment'
    TYPE = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 3)
    FLEXIBLE_VERSIONS = None
    TopicPartition = TopicPartition
    __slots__ = ('assigned_partitions', 'user_data', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('assigned_partitions', 'AssignedPartitions', 'TopicPartition', True, (0, 32767), None, None, None, TopicPartition), FieldMeta('user_data', 'UserData', 'bytes', False, (0, 32767), (0, 32767), None, None, None))

    def __init__(self, *, assigned_partitions: list[TopicPartition] | None = _DEFAULT, user_data: bytes | None = None, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.assigned_partitions = [] if assigned_partitions is _DEFAULT else assigned_partitions
        self.user_data = user_data
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_TopicPartition_0(buf, pos):
    o = _new(TopicPartition)
    o.unknown_tagged_fields = None
    o.topic, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Partitions was null')
    else:
        end = pos + n * 4
        if end > len(buf):
            raise DecodeError('truncated array Partitions')
        o.partitions = list(_unpack_from('>%di' % n, buf, pos))
        pos = end
    return o, pos


def _dec_ConsumerProtocolAssignment_0(buf, pos):
    o = _new(ConsumerProtocolAssignment)
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array AssignedPartitions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_TopicPartition_0(buf, pos)
            append(item)
        o.assigned_partitions = items
    o.user_data, pos = read_nullable_bytes(buf, pos)
    return o, pos


def _enc_TopicPartition_0(o, w):
    if o.topic is None:
        raise EncodeError('non-nullable field Topic is None')
    write_string(w, o.topic)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        write_array_length(w, len(items))
        w += _pack('>%di' % len(items), *items)


def _enc_ConsumerProtocolAssignment_0(o, w):
    items = o.assigned_partitions
    if items is None:
        raise EncodeError('non-nullable array AssignedPartitions is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_TopicPartition_0(item, w)
    write_nullable_bytes(w, o.user_data)


ConsumerProtocolAssignment._DECODERS = {0: _dec_ConsumerProtocolAssignment_0, 1: _dec_ConsumerProtocolAssignment_0, 2: _dec_ConsumerProtocolAssignment_0, 3: _dec_ConsumerProtocolAssignment_0}
ConsumerProtocolAssignment._ENCODERS = {0: _enc_ConsumerProtocolAssignment_0, 1: _enc_ConsumerProtocolAssignment_0, 2: _enc_ConsumerProtocolAssignment_0, 3: _enc_ConsumerProtocolAssignment_0}
