"""OffsetFetchResponse: generated from Kafka's OffsetFetchResponse.json by tools/generate_protocol.py.

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
_S0 = struct.Struct('>iq')
_S1 = struct.Struct('>h')
_S2 = struct.Struct('>i')
_S3 = struct.Struct('>iqi')


class OffsetFetchResponsePartition(Struct):
    __slots__ = ('partition_index', 'committed_offset', 'committed_leader_epoch', 'metadata', 'error_code', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('partition_index', 'PartitionIndex', 'int32', False, (0, 7), None, None, None, None), FieldMeta('committed_offset', 'CommittedOffset', 'int64', False, (0, 7), None, None, None, None), FieldMeta('committed_leader_epoch', 'CommittedLeaderEpoch', 'int32', False, (5, 7), None, None, None, None), FieldMeta('metadata', 'Metadata', 'string', False, (0, 7), (0, 7), None, None, None), FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 7), None, None, None, None))

    def __init__(self, *, partition_index: int = 0, committed_offset: int = 0, committed_leader_epoch: int = -1, metadata: str | None = '', error_code: int = 0, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.partition_index = partition_index
        self.committed_offset = committed_offset
        self.committed_leader_epoch = committed_leader_epoch
        self.metadata = metadata
        self.error_code = error_code
        self.unknown_tagged_fields = unknown_tagged_fields


class OffsetFetchResponseTopic(Struct):
    __slots__ = ('name', 'partitions', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (0, 7), None, None, None, None), FieldMeta('partitions', 'Partitions', 'OffsetFetchResponsePartition', True, (0, 7), None, None, None, OffsetFetchResponsePartition))

    def __init__(self, *, name: str = '', partitions: list[OffsetFetchResponsePartition] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.partitions = [] if partitions is _DEFAULT else partitions
        self.unknown_tagged_fields = unknown_tagged_fields


class OffsetFetchResponsePartitions(Struct):
    __slots__ = ('partition_index', 'committed_offset', 'committed_leader_epoch', 'metadata', 'error_code', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('partition_index', 'PartitionIndex', 'int32', False, (8, 32767), None, None, None, None), FieldMeta('committed_offset', 'CommittedOffset', 'int64', False, (8, 32767), None, None, None, None), FieldMeta('committed_leader_epoch', 'CommittedLeaderEpoch', 'int32', False, (8, 32767), None, None, None, None), FieldMeta('metadata', 'Metadata', 'string', False, (8, 32767), (8, 32767), None, None, None), FieldMeta('error_code', 'ErrorCode', 'int16', False, (8, 32767), None, None, None, None))

    def __init__(self, *, partition_index: int = 0, committed_offset: int = 0, committed_leader_epoch: int = -1, metadata: str | None = '', error_code: int = 0, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.partition_index = partition_index
        self.committed_offset = committed_offset
        self.committed_leader_epoch = committed_leader_epoch
        self.metadata = metadata
        self.error_code = error_code
        self.unknown_tagged_fields = unknown_tagged_fields


class OffsetFetchResponseTopics(Struct):
    __slots__ = ('name', 'topic_id', 'partitions', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (8, 9), None, None, None, None), FieldMeta('topic_id', 'TopicId', 'uuid', False, (10, 32767), None, None, None, None), FieldMeta('partitions', 'Partitions', 'OffsetFetchResponsePartitions', True, (8, 32767), None, None, None, OffsetFetchResponsePartitions))

    def __init__(self, *, name: str = '', topic_id: uuid.UUID = ZERO_UUID, partitions: list[OffsetFetchResponsePartitions] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.topic_id = topic_id
        self.partitions = [] if partitions is _DEFAULT else partitions
        self.unknown_tagged_fields = unknown_tagged_fields


class OffsetFetchResponseGroup(Struct):
    __slots__ = ('group_id', 'topics', 'error_code', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('group_id', 'GroupId', 'string', False, (8, 32767), None, None, None, None), FieldMeta('topics', 'Topics', 'OffsetFetchResponseTopics', True, (8, 32767), None, None, None, OffsetFetchResponseTopics), FieldMeta('error_code', 'ErrorCode', 'int16', False, (8, 32767), None, None, None, None))

    def __init__(self, *, group_id: str = '', topics: list[OffsetFetchResponseTopics] | None = _DEFAULT, error_code: int = 0, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.group_id = group_id
        self.topics = [] if topics is _DEFAULT else topics
        self.error_code = error_code
        self.unknown_tagged_fields = unknown_tagged_fields


class OffsetFetchResponse(Message):
    """Kafka response OffsetFetchResponse (valid versions 1-10)."""

    NAME = 'OffsetFetchResponse'
    TYPE = 'response'
    API_KEY = 9
    VALID_VERSIONS = (1, 10)
    FLEXIBLE_VERSIONS = (6, 32767)
    OffsetFetchResponsePartition = OffsetFetchResponsePartition
    OffsetFetchResponseTopic = OffsetFetchResponseTopic
    OffsetFetchResponsePartitions = OffsetFetchResponsePartitions
    OffsetFetchResponseTopics = OffsetFetchResponseTopics
    OffsetFetchResponseGroup = OffsetFetchResponseGroup
    __slots__ = ('throttle_time_ms', 'topics', 'error_code', 'groups', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('throttle_time_ms', 'ThrottleTimeMs', 'int32', False, (3, 32767), None, None, None, None), FieldMeta('topics', 'Topics', 'OffsetFetchResponseTopic', True, (0, 7), None, None, None, OffsetFetchResponseTopic), FieldMeta('error_code', 'ErrorCode', 'int16', False, (2, 7), None, None, None, None), FieldMeta('groups', 'Groups', 'OffsetFetchResponseGroup', True, (8, 32767), None, None, None, OffsetFetchResponseGroup))

    def __init__(self, *, throttle_time_ms: int = 0, topics: list[OffsetFetchResponseTopic] | None = _DEFAULT, error_code: int = 0, groups: list[OffsetFetchResponseGroup] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.topics = [] if topics is _DEFAULT else topics
        self.error_code = error_code
        self.groups = [] if groups is _DEFAULT else groups
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_OffsetFetchResponsePartition_0(buf, pos):
    o = _new(OffsetFetchResponsePartition)
    o.committed_leader_epoch = -1
    o.unknown_tagged_fields = None
    o.partition_index, o.committed_offset = _S0.unpack_from(buf, pos)
    pos += 12
    o.metadata, pos = read_nullable_string(buf, pos)
    o.error_code, = _S1.unpack_from(buf, pos)
    pos += 2
    return o, pos


def _dec_OffsetFetchResponseTopic_0(buf, pos):
    o = _new(OffsetFetchResponseTopic)
    o.unknown_tagged_fields = None
    o.name, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Partitions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_OffsetFetchResponsePartition_0(buf, pos)
            append(item)
        o.partitions = items
    return o, pos


def _dec_OffsetFetchResponse_0(buf, pos):
    o = _new(OffsetFetchResponse)
    o.throttle_time_ms = 0
    o.error_code = 0
    o.groups = []
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_OffsetFetchResponseTopic_0(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _enc_OffsetFetchResponsePartition_0(o, w):
    w += _S0.pack(o.partition_index, o.committed_offset)
    write_nullable_string(w, o.metadata)
    w += _S1.pack(o.error_code)


def _enc_OffsetFetchResponseTopic_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_OffsetFetchResponsePartition_0(item, w)


def _enc_OffsetFetchResponse_0(o, w):
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_OffsetFetchResponseTopic_0(item, w)


def _dec_OffsetFetchResponse_1(buf, pos):
    o = _new(OffsetFetchResponse)
    o.throttle_time_ms = 0
    o.groups = []
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_OffsetFetchResponseTopic_0(buf, pos)
            append(item)
        o.topics = items
    o.error_code, = _S1.unpack_from(buf, pos)
    pos += 2
    return o, pos


def _enc_OffsetFetchResponse_1(o, w):
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_OffsetFetchResponseTopic_0(item, w)
    w += _S1.pack(o.error_code)


def _dec_OffsetFetchResponse_2(buf, pos):
    o = _new(OffsetFetchResponse)
    o.groups = []
    o.unknown_tagged_fields = None
    o.throttle_time_ms, = _S2.unpack_from(buf, pos)
    pos += 4
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_OffsetFetchResponseTopic_0(buf, pos)
            append(item)
        o.topics = items
    o.error_code, = _S1.unpack_from(buf, pos)
    pos += 2
    return o, pos


def _enc_OffsetFetchResponse_2(o, w):
    w += _S2.pack(o.throttle_time_ms)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_OffsetFetchResponseTopic_0(item, w)
    w += _S1.pack(o.error_code)


def _dec_OffsetFetchResponsePartition_1(buf, pos):
    o = _new(OffsetFetchResponsePartition)
    o.unknown_tagged_fields = None
    o.partition_index, o.committed_offset, o.committed_leader_epoch = _S3.unpack_from(buf, pos)
    pos += 16
    o.metadata, pos = read_nullable_string(buf, pos)
    o.error_code, = _S1.unpack_from(buf, pos)
    pos += 2
    return o, pos


def _dec_OffsetFetchResponseTopic_1(buf, pos):
    o = _new(OffsetFetchResponseTopic)
    o.unknown_tagged_fields = None
    o.name, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Partitions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_OffsetFetchResponsePartition_1(buf, pos)
            append(item)
        o.partitions = items
    return o, pos


def _dec_OffsetFetchResponse_3(buf, pos):
    o = _new(OffsetFetchResponse)
    o.groups = []
    o.unknown_tagged_fields = None
    o.throttle_time_ms, = _S2.unpack_from(buf, pos)
    pos += 4
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_OffsetFetchResponseTopic_1(buf, pos)
            append(item)
        o.topics = items
    o.error_code, = _S1.unpack_from(buf, pos)
    pos += 2
    return o, pos


def _enc_OffsetFetchResponsePartition_1(o, w):
    w += _S3.pack(o.partition_index, o.committed_offset, o.committed_leader_epoch)
    write_nullable_string(w, o.metadata)
    w += _S1.pack(o.error_code)


def _enc_OffsetFetchResponseTopic_1(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_OffsetFetchResponsePartition_1(item, w)


def _enc_OffsetFetchResponse_3(o, w):
    w += _S2.pack(o.throttle_time_ms)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_OffsetFetchResponseTopic_1(item, w)
    w += _S1.pack(o.error_code)


def _dec_OffsetFetchResponsePartition_2(buf, pos):
    o = _new(OffsetFetchResponsePartition)
    o.partition_index, o.committed_offset, o.committed_leader_epoch = _S3.unpack_from(buf, pos)
    pos += 16
    o.metadata, pos = read_compact_nullable_string(buf, pos)
    o.error_code, = _S1.unpack_from(buf, pos)
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


def _dec_OffsetFetchResponseTopic_2(buf, pos):
    o = _new(OffsetFetchResponseTopic)
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
            item, pos = _dec_OffsetFetchResponsePartition_2(buf, pos)
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


def _dec_OffsetFetchResponse_4(buf, pos):
    o = _new(OffsetFetchResponse)
    o.groups = []
    o.throttle_time_ms, = _S2.unpack_from(buf, pos)
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
            item, pos = _dec_OffsetFetchResponseTopic_2(buf, pos)
            append(item)
        o.topics = items
    o.error_code, = _S1.unpack_from(buf, pos)
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


def _enc_OffsetFetchResponsePartition_2(o, w):
    w += _S3.pack(o.partition_index, o.committed_offset, o.committed_leader_epoch)
    write_compact_nullable_string(w, o.metadata)
    w += _S1.pack(o.error_code)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_OffsetFetchResponseTopic_2(o, w):
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
            _enc_OffsetFetchResponsePartition_2(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_OffsetFetchResponse_4(o, w):
    w += _S2.pack(o.throttle_time_ms)
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
            _enc_OffsetFetchResponseTopic_2(item, w)
    w += _S1.pack(o.error_code)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_OffsetFetchResponsePartitions_0(buf, pos):
    o = _new(OffsetFetchResponsePartitions)
    o.partition_index, o.committed_offset, o.committed_leader_epoch = _S3.unpack_from(buf, pos)
    pos += 16
    o.metadata, pos = read_compact_nullable_string(buf, pos)
    o.error_code, = _S1.unpack_from(buf, pos)
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


def _dec_OffsetFetchResponseTopics_0(buf, pos):
    o = _new(OffsetFetchResponseTopics)
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
            item, pos = _dec_OffsetFetchResponsePartitions_0(buf, pos)
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


def _dec_OffsetFetchResponseGroup_0(buf, pos):
    o = _new(OffsetFetchResponseGroup)
    o.group_id, pos = read_compact_string(buf, pos)
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
            item, pos = _dec_OffsetFetchResponseTopics_0(buf, pos)
            append(item)
        o.topics = items
    o.error_code, = _S1.unpack_from(buf, pos)
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


def _dec_OffsetFetchResponse_5(buf, pos):
    o = _new(OffsetFetchResponse)
    o.topics = []
    o.error_code = 0
    o.throttle_time_ms, = _S2.unpack_from(buf, pos)
    pos += 4
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Groups was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_OffsetFetchResponseGroup_0(buf, pos)
            append(item)
        o.groups = items
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


def _enc_OffsetFetchResponsePartitions_0(o, w):
    w += _S3.pack(o.partition_index, o.committed_offset, o.committed_leader_epoch)
    write_compact_nullable_string(w, o.metadata)
    w += _S1.pack(o.error_code)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_OffsetFetchResponseTopics_0(o, w):
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
            _enc_OffsetFetchResponsePartitions_0(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_OffsetFetchResponseGroup_0(o, w):
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_compact_string(w, o.group_id)
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
            _enc_OffsetFetchResponseTopics_0(item, w)
    w += _S1.pack(o.error_code)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_OffsetFetchResponse_5(o, w):
    w += _S2.pack(o.throttle_time_ms)
    items = o.groups
    if items is None:
        raise EncodeError('non-nullable array Groups is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_OffsetFetchResponseGroup_0(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_OffsetFetchResponseTopics_1(buf, pos):
    o = _new(OffsetFetchResponseTopics)
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
            item, pos = _dec_OffsetFetchResponsePartitions_0(buf, pos)
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


def _dec_OffsetFetchResponseGroup_1(buf, pos):
    o = _new(OffsetFetchResponseGroup)
    o.group_id, pos = read_compact_string(buf, pos)
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
            item, pos = _dec_OffsetFetchResponseTopics_1(buf, pos)
            append(item)
        o.topics = items
    o.error_code, = _S1.unpack_from(buf, pos)
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


def _dec_OffsetFetchResponse_6(buf, pos):
    o = _new(OffsetFetchResponse)
    o.topics = []
    o.error_code = 0
    o.throttle_time_ms, = _S2.unpack_from(buf, pos)
    pos += 4
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Groups was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_OffsetFetchResponseGroup_1(buf, pos)
            append(item)
        o.groups = items
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


def _enc_OffsetFetchResponseTopics_1(o, w):
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
            _enc_OffsetFetchResponsePartitions_0(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_OffsetFetchResponseGroup_1(o, w):
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_compact_string(w, o.group_id)
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
            _enc_OffsetFetchResponseTopics_1(item, w)
    w += _S1.pack(o.error_code)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_OffsetFetchResponse_6(o, w):
    w += _S2.pack(o.throttle_time_ms)
    items = o.groups
    if items is None:
        raise EncodeError('non-nullable array Groups is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_OffsetFetchResponseGroup_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


OffsetFetchResponse._DECODERS = {1: _dec_OffsetFetchResponse_0, 2: _dec_OffsetFetchResponse_1, 3: _dec_OffsetFetchResponse_2, 4: _dec_OffsetFetchResponse_2, 5: _dec_OffsetFetchResponse_3, 6: _dec_OffsetFetchResponse_4, 7: _dec_OffsetFetchResponse_4, 8: _dec_OffsetFetchResponse_5, 9: _dec_OffsetFetchResponse_5, 10: _dec_OffsetFetchResponse_6}
OffsetFetchResponse._ENCODERS = {1: _enc_OffsetFetchResponse_0, 2: _enc_OffsetFetchResponse_1, 3: _enc_OffsetFetchResponse_2, 4: _enc_OffsetFetchResponse_2, 5: _enc_OffsetFetchResponse_3, 6: _enc_OffsetFetchResponse_4, 7: _enc_OffsetFetchResponse_4, 8: _enc_OffsetFetchResponse_5, 9: _enc_OffsetFetchResponse_5, 10: _enc_OffsetFetchResponse_6}
