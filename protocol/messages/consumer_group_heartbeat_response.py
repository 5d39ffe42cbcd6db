"""ConsumerGroupHeartbeatResponse: generated from Kafka's ConsumerGroupHeartbeatResponse.json by tools/generate_protocol.py.

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
_S1 = struct.Struct('>ii')


class TopicPartitions(Struct):
    __slots__ = ('topic_id', 'partitions', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('topic_id', 'TopicId', 'uuid', False, (0, 32767), None, None, None, None), FieldMeta('partitions', 'Partitions', 'int32', True, (0, 32767), None, None, None, None))

    def __init__(self, *, topic_id: uuid.UUID = ZERO_UUID, partitions: list[int] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.topic_id = topic_id
        self.partitions = [] if partitions is _DEFAULT else partitions
        self.unknown_tagged_fields = unknown_tagged_fields


class Assignment(Struct):
    __slots__ = ('topic_partitions', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('topic_partitions', 'TopicPartitions', 'TopicPartitions', True, (0, 32767), None, None, None, TopicPartitions),)

    def __init__(self, *, topic_partitions: list[TopicPartitions] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.topic_partitions = [] if topic_partitions is _DEFAULT else topic_partitions
        self.unknown_tagged_fields = unknown_tagged_fields


class ConsumerGroupHeartbeatResponse(Message):
    """Kafka response ConsumerGroupHeartbeatResponse (valid versions 0-1)."""

    NAME = 'ConsumerGroupHeartbeatResponse'
    TYPE = 'response'
    API_KEY = 68
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (0, 32767)
    TopicPartitions = TopicPartitions
    Assignment = Assignment
    __slots__ = ('throttle_time_ms', 'error_code', 'error_message', 'member_id', 'member_epoch', 'heartbeat_interval_ms', 'assignment', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('throttle_time_ms', 'ThrottleTimeMs', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('error_message', 'ErrorMessage', 'string', False, (0, 32767), (0, 32767), None, None, None), FieldMeta('member_id', 'MemberId', 'string', False, (0, 32767), (0, 32767), None, None, None), FieldMeta('member_epoch', 'MemberEpoch', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('heartbeat_interval_ms', 'HeartbeatIntervalMs', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('assignment', 'Assignment', 'Assignment', False, (0, 32767), (0, 32767), None, None, Assignment))

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, error_message: str | None = None, member_id: str | None = None, member_epoch: int = 0, heartbeat_interval_ms: int = 0, assignment: Assignment | None = None, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message
        self.member_id = member_id
        self.member_epoch = member_epoch
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.assignment = assignment
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_TopicPartitions_0(buf, pos):
    o = _new(TopicPartitions)
    o.topic_id, pos = read_uuid(buf, pos)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Partitions was null')
    else:
        end = pos + n * 4
        if end > len(buf):
            raise DecodeError('truncated array Partitions')
        o.partitions = list(_unpack_from('>%di' % n, buf, pos))
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


def _dec_Assignment_0(buf, pos):
    o = _new(Assignment)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array TopicPartitions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_TopicPartitions_0(buf, pos)
            append(item)
        o.topic_partitions = items
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


def _dec_ConsumerGroupHeartbeatResponse_0(buf, pos):
    o = _new(ConsumerGroupHeartbeatResponse)
    o.throttle_time_ms, o.error_code = _S0.unpack_from(buf, pos)
    pos += 6
    o.error_message, pos = read_compact_nullable_string(buf, pos)
    o.member_id, pos = read_compact_nullable_string(buf, pos)
    o.member_epoch, o.heartbeat_interval_ms = _S1.unpack_from(buf, pos)
    pos += 8
    marker, pos = read_int8(buf, pos)
    if marker < 0:
        o.assignment = None
    else:
        o.assignment, pos = _dec_Assignment_0(buf, pos)
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


def _enc_TopicPartitions_0(o, w):
    write_uuid(w, o.topic_id)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
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


def _enc_Assignment_0(o, w):
    items = o.topic_partitions
    if items is None:
        raise EncodeError('non-nullable array TopicPartitions is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_TopicPartitions_0(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_ConsumerGroupHeartbeatResponse_0(o, w):
    w += _S0.pack(o.throttle_time_ms, o.error_code)
    write_compact_nullable_string(w, o.error_message)
    write_compact_nullable_string(w, o.member_id)
    w += _S1.pack(o.member_epoch, o.heartbeat_interval_ms)
    if o.assignment is None:
        w.append(0xFF)
    else:
        w.append(1)
        _enc_Assignment_0(o.assignment, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


ConsumerGroupHeartbeatResponse._DECODERS = {0: _dec_ConsumerGroupHeartbeatResponse_0, 1: _dec_ConsumerGroupHeartbeatResponse_0}
ConsumerGroupHeartbeatResponse._ENCODERS = {0: _enc_ConsumerGroupHeartbeatResponse_0, 1: _enc_ConsumerGroupHeartbeatResponse_0}
