"""OffsetForLeaderEpochResponse: generated from Kafka's OffsetForLeaderEpochResponse.json by tools/generate_protocol.py.

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
_S1 = struct.Struct('>hiiq')


class EpochEndOffset(Struct):
    __slots__ = ('error_code', 'partition', 'leader_epoch', 'end_offset', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('partition', 'Partition', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('leader_epoch', 'LeaderEpoch', 'int32', False, (1, 32767), None, None, None, None), FieldMeta('end_offset', 'EndOffset', 'int64', False, (0, 32767), None, None, None, None))

    def __init__(self, *, error_code: int = 0, partition: int = 0, leader_epoch: int = -1, end_offset: int = -1, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.error_code = error_code
        self.partition = partition
        self.leader_epoch = leader_epoch
        self.end_offset = end_offset
        self.unknown_tagged_fields = unknown_tagged_fields


class OffsetForLeaderTopicResult(Struct):
    __slots__ = ('topic', 'partitions', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('topic', 'Topic', 'string', False, (0, 32767), None, None, None, None), FieldMeta('partitions', 'Partitions', 'EpochEndOffset', True, (0, 32767), None, None, None, EpochEndOffset))

    def __init__(self, *, topic: str = '', partitions: list[EpochEndOffset] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.topic = topic
        self.partitions = [] if partitions is _DEFAULT else partitions
        self.unknown_tagged_fields = unknown_tagged_fields


class OffsetForLeaderEpochResponse(Message):
    """Kafka response OffsetForLeaderEpochResponse (valid versions 2-4)."""

    NAME = 'OffsetForLeaderEpochResponse'
    TYPE = 'response'
    API_KEY = 23
    VALID_VERSIONS = (2, 4)
    FLEXIBLE_VERSIONS = (4, 32767)
    EpochEndOffset = EpochEndOffset
    OffsetForLeaderTopicResult = OffsetForLeaderTopicResult
    __slots__ = ('throttle_time_ms', 'topics', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('throttle_time_ms', 'ThrottleTimeMs', 'int32', False, (2, 32767), None, None, None, None), FieldMeta('topics', 'Topics', 'OffsetForLeaderTopicResult', True, (0, 32767), None, None, None, OffsetForLeaderTopicResult))

    def __init__(self, *, throttle_time_ms: int = 0, topics: list[OffsetForLeaderTopicResult] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.topics = [] if topics is _DEFAULT else topics
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_EpochEndOffset_0(buf, pos):
    o = _new(EpochEndOffset)
    o.unknown_tagged_fields = None
    o.error_code, o.partition, o.leader_epoch, o.end_offset = _S1.unpack_from(buf, pos)
    pos += 18
    return o, pos


def _dec_OffsetForLeaderTopicResult_0(buf, pos):
    o = _new(OffsetForLeaderTopicResult)
    o.unknown_tagged_fields = None
    o.topic, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Partitions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_EpochEndOffset_0(buf, pos)
            append(item)
        o.partitions = items
    return o, pos


def _dec_OffsetForLeaderEpochResponse_0(buf, pos):
    o = _new(OffsetForLeaderEpochResponse)
    o.unknown_tagged_fields = None
    o.throttle_time_ms, = _S0.unpack_from(buf, pos)
    pos += 4
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_OffsetForLeaderTopicResult_0(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _enc_EpochEndOffset_0(o, w):
    w += _S1.pack(o.error_code, o.partition, o.leader_epoch, o.end_offset)


def _enc_OffsetForLeaderTopicResult_0(o, w):
    if o.topic is None:
        raise EncodeError('non-nullable field Topic is None')
    write_string(w, o.topic)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_EpochEndOffset_0(item, w)


def _enc_OffsetForLeaderEpochResponse_0(o, w):
    w += _S0.pack(o.throttle_time_ms)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_OffsetForLeaderTopicResult_0(item, w)


def _dec_EpochEndOffset_1(buf, pos):
    o = _new(EpochEndOffset)
    o.error_code, o.partition, o.leader_epoch, o.end_offset = _S1.unpack_from(buf, pos)
    pos += 18
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


def _dec_OffsetForLeaderTopicResult_1(buf, pos):
    o = _new(OffsetForLeaderTopicResult)
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
            item, pos = _dec_EpochEndOffset_1(buf, pos)
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


def _dec_OffsetForLeaderEpochResponse_1(buf, pos):
    o = _new(OffsetForLeaderEpochResponse)
    o.throttle_time_ms, = _S0.unpack_from(buf, pos)
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
            item, pos = _dec_OffsetForLeaderTopicResult_1(buf, pos)
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


def _enc_EpochEndOffset_1(o, w):
    w += _S1.pack(o.error_code, o.partition, o.leader_epoch, o.end_offset)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_OffsetForLeaderTopicResult_1(o, w):
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
            _enc_EpochEndOffset_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_OffsetForLeaderEpochResponse_1(o, w):
    w += _S0.pack(o.throttle_time_ms)
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
            _enc_OffsetForLeaderTopicResult_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


OffsetForLeaderEpochResponse._DECODERS = {2: _dec_OffsetForLeaderEpochResponse_0, 3: _dec_OffsetForLeaderEpochResponse_0, 4: _dec_OffsetForLeaderEpochResponse_1}
OffsetForLeaderEpochResponse._ENCODERS = {2: _enc_OffsetForLeaderEpochResponse_0, 3: _enc_OffsetForLeaderEpochResponse_0, 4: _enc_OffsetForLeaderEpochResponse_1}
