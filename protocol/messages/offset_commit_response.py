"""OffsetCommitResponse: generated from Kafka's OffsetCommitResponse.json by tools/generate_protocol.py.

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


class OffsetCommitResponsePartition(Struct):
    __slots__ = ('partition_index', 'error_code', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('partition_index', 'PartitionIndex', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None))

    def __init__(self, *, partition_index: int = 0, error_code: int = 0, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.partition_index = partition_index
        self.error_code = error_code
        self.unknown_tagged_fields = unknown_tagged_fields


class OffsetCommitResponseTopic(Struct):
    __slots__ = ('name', 'topic_id', 'partitions', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (0, 9), None, None, None, None), FieldMeta('topic_id', 'TopicId', 'uuid', False, (10, 32767), None, None, None, None), FieldMeta('partitions', 'Partitions', 'OffsetCommitResponsePartition', True, (0, 32767), None, None, None, OffsetCommitResponsePartition))

    def __init__(self, *, name: str = '', topic_id: uuid.UUID = ZERO_UUID, partitions: list[OffsetCommitResponsePartition] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.topic_id = topic_id
        self.partitions = [] if partitions is _DEFAULT else partitions
        self.unknown_tagged_fields = unknown_tagged_fields


class OffsetCommitResponse(Message):
    """Kafka response OffsetCommitResponse (valid versions 2-10)."""

    NAME = 'OffsetCommitResponse'
    TYPE = 'response'
    API_KEY = 8
    VALID_VERSIONS = (2, 10)
    FLEXIBLE_VERSIONS = (8, 32767)
    OffsetCommitResponsePartition = OffsetCommitResponsePartition
    OffsetCommitResponseTopic = OffsetCommitResponseTopic
    __slots__ = ('throttle_time_ms', 'topics', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('throttle_time_ms', 'ThrottleTimeMs', 'int32', False, (3, 32767), None, None, None, None), FieldMeta('topics', 'Topics', 'OffsetCommitResponseTopic', True, (0, 32767), None, None, None, OffsetCommitResponseTopic))

    def __init__(self, *, throttle_time_ms: int = 0, topics: list[OffsetCommitResponseTopic] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.topics = [] if topics is _DEFAULT else topics
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_OffsetCommitResponsePartition_0(buf, pos):
    o = _new(OffsetCommitResponsePartition)
    o.unknown_tagged_fields = None
    o.partition_index, o.error_code = _S0.unpack_from(buf, pos)
    pos += 6
    return o, pos


def _dec_OffsetCommitResponseTopic_0(buf, pos):
    o = _new(OffsetCommitResponseTopic)
    o.topic_id = ZERO_UUID
    o.unknown_tagged_fields = None
    o.name, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Partitions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_OffsetCommitResponsePartition_0(buf, pos)
            append(item)
        o.partitions = items
    return o, pos


def _dec_OffsetCommitResponse_0(buf, pos):
    o = _new(OffsetCommitResponse)
    o.throttle_time_ms = 0
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_OffsetCommitResponseTopic_0(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _enc_OffsetCommitResponsePartition_0(o, w):
    w += _S0.pack(o.partition_index, o.error_code)


def _enc_OffsetCommitResponseTopic_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_OffsetCommitResponsePartition_0(item, w)


def _enc_OffsetCommitResponse_0(o, w):
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_OffsetCommitResponseTopic_0(item, w)


def _dec_OffsetCommitResponse_1(buf, pos):
    o = _new(OffsetCommitResponse)
    o.unknown_tagged_fields = None
    o.throttle_time_ms, = _S1.unpack_from(buf, pos)
    pos += 4
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_OffsetCommitResponseTopic_0(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _enc_OffsetCommitResponse_1(o, w):
    w += _S1.pack(o.throttle_time_ms)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_OffsetCommitResponseTopic_0(item, w)


def _dec_OffsetCommitResponsePartition_1(buf, pos):
    o = _new(OffsetCommitResponsePartition)
    o.partition_index, o.error_code = _S0.unpack_from(buf, pos)
    pos += 6
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


def _dec_OffsetCommitResponseTopic_1(buf, pos):
    o = _new(OffsetCommitResponseTopic)
    o.topic_id = ZERO_UUID
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
            item, pos = _dec_OffsetCommitResponsePartition_1(buf, pos)
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


def _dec_OffsetCommitResponse_2(buf, pos):
    o = _new(OffsetCommitResponse)
    o.throttle_time_ms, = _S1.unpack_from(buf, pos)
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
            item, pos = _dec_OffsetCommitResponseTopic_1(buf, pos)
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


def _enc_OffsetCommitResponsePartition_1(o, w):
    w += _S0.pack(o.partition_index, o.error_code)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_OffsetCommitResponseTopic_1(o, w):
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
            _enc_OffsetCommitResponsePartition_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_OffsetCommitResponse_2(o, w):
    w += _S1.pack(o.throttle_time_ms)
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
            _enc_OffsetCommitResponseTopic_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_OffsetCommitResponseTopic_2(buf, pos):
    o = _new(OffsetCommitResponseTopic)
    o.name = ''
    o.topic_id, pos = read_uuid(buf, pos)
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
            item, pos = _dec_OffsetCommitResponsePartition_1(buf, pos)
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


def _dec_OffsetCommitResponse_3(buf, pos):
    o = _new(OffsetCommitResponse)
    o.throttle_time_ms, = _S1.unpack_from(buf, pos)
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
            item, pos = _dec_OffsetCommitResponseTopic_2(buf, pos)
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


def _enc_OffsetCommitResponseTopic_2(o, w):
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
        for item in items:
            _enc_OffsetCommitResponsePartition_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_OffsetCommitResponse_3(o, w):
    w += _S1.pack(o.throttle_time_ms)
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
            _enc_OffsetCommitResponseTopic_2(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


OffsetCommitResponse._DECODERS = {2: _dec_OffsetCommitResponse_0, 3: _dec_OffsetCommitResponse_1, 4: _dec_OffsetCommitResponse_1, 5: _dec_OffsetCommitResponse_1, 6: _dec_OffsetCommitResponse_1, 7: _dec_OffsetCommitResponse_1, 8: _dec_OffsetCommitResponse_2, 9: _dec_OffsetCommitResponse_2, 10: _dec_OffsetCommitResponse_3}
OffsetCommitResponse._ENCODERS = {2: _enc_OffsetCommitResponse_0, 3: _enc_OffsetCommitResponse_1, 4: _enc_OffsetCommitResponse_1, 5: _enc_OffsetCommitResponse_1, 6: _enc_OffsetCommitResponse_1, 7: _enc_OffsetCommitResponse_1, 8: _enc_OffsetCommitResponse_2, 9: _enc_OffsetCommitResponse_2, 10: _enc_OffsetCommitResponse_3}
