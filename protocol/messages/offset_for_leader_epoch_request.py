"""OffsetForLeaderEpochRequest: generated from Kafka's OffsetForLeaderEpochRequest.json by tools/generate_protocol.py.

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
_S0 = struct.Struct('>iii')
_S1 = struct.Struct('>i')


class OffsetForLeaderPartition(Struct):
    __slots__ = ('partition', 'current_leader_epoch', 'leader_epoch', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('partition', 'Partition', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('current_leader_epoch', 'CurrentLeaderEpoch', 'int32', False, (2, 32767), None, None, None, None), FieldMeta('leader_epoch', 'LeaderEpoch', 'int32', False, (0, 32767), None, None, None, None))

    def __init__(self, *, partition: int = 0, current_leader_epoch: int = -1, leader_epoch: int = 0, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.partition = partition
        self.current_leader_epoch = current_leader_epoch
        self.leader_epoch = leader_epoch
        self.unknown_tagged_fields = unknown_tagged_fields


class OffsetForLeaderTopic(Struct):
    __slots__ = ('topic', 'partitions', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('topic', 'Topic', 'string', False, (0, 32767), None, None, None, None), FieldMeta('partitions', 'Partitions', 'OffsetForLeaderPartition', True, (0, 32767), None, None, None, OffsetForLeaderPartition))

    def __init__(self, *, topic: str = '', partitions: list[OffsetForLeaderPartition] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.topic = topic
        self.partitions = [] if partitions is _DEFAULT else partitions
        self.unknown_tagged_fields = unknown_tagged_fields


class OffsetForLeaderEpochRequest(Message):
    """Kafka request OffsetForLeaderEpochRequest (valid versions 2-4)."""

    NAME = 'OffsetForLeaderEpochRequest'
    TYPE = 'request'
    API_KEY = 23
    VALID_VERSIONS = (2, 4)
    FLEXIBLE_VERSIONS = (4, 32767)
    OffsetForLeaderPartition = OffsetForLeaderPartition
    OffsetForLeaderTopic = OffsetForLeaderTopic
    __slots__ = ('replica_id', 'topics', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('replica_id', 'ReplicaId', 'int32', False, (3, 32767), None, None, None, None), FieldMeta('topics', 'Topics', 'OffsetForLeaderTopic', True, (0, 32767), None, None, None, OffsetForLeaderTopic))

    def __init__(self, *, replica_id: int = -2, topics: list[OffsetForLeaderTopic] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.replica_id = replica_id
        self.topics = [] if topics is _DEFAULT else topics
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_OffsetForLeaderPartition_0(buf, pos):
    o = _new(OffsetForLeaderPartition)
    o.unknown_tagged_fields = None
    o.partition, o.current_leader_epoch, o.leader_epoch = _S0.unpack_from(buf, pos)
    pos += 12
    return o, pos


def _dec_OffsetForLeaderTopic_0(buf, pos):
    o = _new(OffsetForLeaderTopic)
    o.unknown_tagged_fields = None
    o.topic, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Partitions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_OffsetForLeaderPartition_0(buf, pos)
            append(item)
        o.partitions = items
    return o, pos


def _dec_OffsetForLeaderEpochRequest_0(buf, pos):
    o = _new(OffsetForLeaderEpochRequest)
    o.replica_id = -2
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_OffsetForLeaderTopic_0(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _enc_OffsetForLeaderPartition_0(o, w):
    w += _S0.pack(o.partition, o.current_leader_epoch, o.leader_epoch)


def _enc_OffsetForLeaderTopic_0(o, w):
    if o.topic is None:
        raise EncodeError('non-nullable field Topic is None')
    write_string(w, o.topic)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_OffsetForLeaderPartition_0(item, w)


def _enc_OffsetForLeaderEpochRequest_0(o, w):
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_OffsetForLeaderTopic_0(item, w)


def _dec_OffsetForLeaderEpochRequest_1(buf, pos):
    o = _new(OffsetForLeaderEpochRequest)
    o.unknown_tagged_fields = None
    o.replica_id, = _S1.unpack_from(buf, pos)
    pos += 4
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_OffsetForLeaderTopic_0(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _enc_OffsetForLeaderEpochRequest_1(o, w):
    w += _S1.pack(o.replica_id)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_OffsetForLeaderTopic_0(item, w)


def _dec_OffsetForLeaderPartition_1(buf, pos):
    o = _new(OffsetForLeaderPartition)
    o.partition, o.current_leader_epoch, o.leader_epoch = _S0.unpack_from(buf, pos)
    pos += 12
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


def _dec_OffsetForLeaderTopic_1(buf, pos):
    o = _new(OffsetForLeaderTopic)
    o.topic, pos = read_compact_string(buf, pos)
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
            item, pos = _dec_OffsetForLeaderPartition_1(buf, pos)
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


def _dec_OffsetForLeaderEpochRequest_2(buf, pos):
    o = _new(OffsetForLeaderEpochRequest)
    o.replica_id, = _S1.unpack_from(buf, pos)
    pos += 4
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
            item, pos = _dec_OffsetForLeaderTopic_1(buf, pos)
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


def _enc_OffsetForLeaderPartition_1(o, w):
    w += _S0.pack(o.partition, o.current_leader_epoch, o.leader_epoch)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_OffsetForLeaderTopic_1(o, w):
    if o.topic is None:
        raise EncodeError('non-nullable field Topic is None')
    write_compact_string(w, o.topic)
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
            _enc_OffsetForLeaderPartition_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_OffsetForLeaderEpochRequest_2(o, w):
    w += _S1.pack(o.replica_id)
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
            _enc_OffsetForLeaderTopic_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


OffsetForLeaderEpochRequest._DECODERS = {2: _dec_OffsetForLeaderEpochRequest_0, 3: _dec_OffsetForLeaderEpochRequest_1, 4: _dec_OffsetForLeaderEpochRequest_2}
OffsetForLeaderEpochRequest._ENCODERS = {2: _enc_OffsetForLeaderEpochRequest_0, 3: _enc_OffsetForLeaderEpochRequest_1, 4: _enc_OffsetForLeaderEpochRequest_2}
