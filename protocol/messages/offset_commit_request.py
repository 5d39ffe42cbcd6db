"""OffsetCommitRequest: generated from Kafka's OffsetCommitRequest.json by tools/generate_protocol.py.

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
_S1 = struct.Struct('>q')
_S2 = struct.Struct('>iq')
_S3 = struct.Struct('>iqi')


class OffsetCommitRequestPartition(Struct):
    __slots__ = ('partition_index', 'committed_offset', 'committed_leader_epoch', 'commit_timestamp', 'committed_metadata', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('partition_index', 'PartitionIndex', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('committed_offset', 'CommittedOffset', 'int64', False, (0, 32767), None, None, None, None), FieldMeta('committed_leader_epoch', 'CommittedLeaderEpoch', 'int32', False, (6, 32767), None, None, None, None), FieldMeta('commit_timestamp', 'CommitTimestamp', 'int64', False, (1, 1), None, None, None, None), FieldMeta('committed_metadata', 'CommittedMetadata', 'string', False, (0, 32767), (0, 32767), None, None, None))

    def __init__(self, *, partition_index: int = 0, committed_offset: int = 0, committed_leader_epoch: int = -1, commit_timestamp: int = -1, committed_metadata: str | None = '', unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.partition_index = partition_index
        self.committed_offset = committed_offset
        self.committed_leader_epoch = committed_leader_epoch
        self.commit_timestamp = commit_timestamp
        self.committed_metadata = committed_metadata
        self.unknown_tagged_fields = unknown_tagged_fields


class OffsetCommitRequestTopic(Struct):
    __slots__ = ('name', 'topic_id', 'partitions', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (0, 9), None, None, None, None), FieldMeta('topic_id', 'TopicId', 'uuid', False, (10, 32767), None, None, None, None), FieldMeta('partitions', 'Partitions', 'OffsetCommitRequestPartition', True, (0, 32767), None, None, None, OffsetCommitRequestPartition))

    def __init__(self, *, name: str = '', topic_id: uuid.UUID = ZERO_UUID, partitions: list[OffsetCommitRequestPartition] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.topic_id = topic_id
        self.partitions = [] if partitions is _DEFAULT else partitions
        self.unknown_tagged_fields = unknown_tagged_fields


class OffsetCommitRequest(Message):
    """Kafka request OffsetCommitRequest (valid versions 2-10)."""

    NAME = 'OffsetCommitRequest'
    TYPE = 'request'
    API_KEY = 8
    VALID_VERSIONS = (2, 10)
    FLEXIBLE_VERSIONS = (8, 32767)
    OffsetCommitRequestPartition = OffsetCommitRequestPartition
    OffsetCommitRequestTopic = OffsetCommitRequestTopic
    __slots__ = ('group_id', 'generation_id_or_member_epoch', 'member_id', 'group_instance_id', 'retention_time_ms', 'topics', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('group_id', 'GroupId', 'string', False, (0, 32767), None, None, None, None), FieldMeta('generation_id_or_member_epoch', 'GenerationIdOrMemberEpoch', 'int32', False, (1, 32767), None, None, None, None), FieldMeta('member_id', 'MemberId', 'string', False, (1, 32767), None, None, None, None), FieldMeta('group_instance_id', 'GroupInstanceId', 'string', False, (7, 32767), (7, 32767), None, None, None), FieldMeta('retention_time_ms', 'RetentionTimeMs', 'int64', False, (2, 4), None, None, None, None), FieldMeta('topics', 'Topics', 'OffsetCommitRequestTopic', True, (0, 32767), None, None, None, OffsetCommitRequestTopic))

    def __init__(self, *, group_id: str = '', generation_id_or_member_epoch: int = -1, member_id: str = '', group_instance_id: str | None = None, retention_time_ms: int = -1, topics: list[OffsetCommitRequestTopic] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.group_id = group_id
        self.generation_id_or_member_epoch = generation_id_or_member_epoch
        self.member_id = member_id
        self.group_instance_id = group_instance_id
        self.retention_time_ms = retention_time_ms
        self.topics = [] if topics is _DEFAULT else topics
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_OffsetCommitRequestPartition_0(buf, pos):
    o = _new(OffsetCommitRequestPartition)
    o.committed_leader_epoch = -1
    o.commit_timestamp = -1
    o.unknown_tagged_fields = None
    o.partition_index, o.committed_offset = _S2.unpack_from(buf, pos)
    pos += 12
    o.committed_metadata, pos = read_nullable_string(buf, pos)
    return o, pos


def _dec_OffsetCommitRequestTopic_0(buf, pos):
    o = _new(OffsetCommitRequestTopic)
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
            item, pos = _dec_OffsetCommitRequestPartition_0(buf, pos)
            append(item)
        o.partitions = items
    return o, pos


def _dec_OffsetCommitRequest_0(buf, pos):
    o = _new(OffsetCommitRequest)
    o.group_instance_id = None
    o.unknown_tagged_fields = None
    o.group_id, pos = read_string(buf, pos)
    o.generation_id_or_member_epoch, = _S0.unpack_from(buf, pos)
    pos += 4
    o.member_id, pos = read_string(buf, pos)
    o.retention_time_ms, = _S1.unpack_from(buf, pos)
    pos += 8
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_OffsetCommitRequestTopic_0(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _enc_OffsetCommitRequestPartition_0(o, w):
    w += _S2.pack(o.partition_index, o.committed_offset)
    write_nullable_string(w, o.committed_metadata)


def _enc_OffsetCommitRequestTopic_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_OffsetCommitRequestPartition_0(item, w)


def _enc_OffsetCommitRequest_0(o, w):
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_string(w, o.group_id)
    w += _S0.pack(o.generation_id_or_member_epoch)
    if o.member_id is None:
        raise EncodeError('non-nullable field MemberId is None')
    write_string(w, o.member_id)
    w += _S1.pack(o.retention_time_ms)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_OffsetCommitRequestTopic_0(item, w)


def _dec_OffsetCommitRequest_1(buf, pos):
    o = _new(OffsetCommitRequest)
    o.group_instance_id = None
    o.retention_time_ms = -1
    o.unknown_tagged_fields = None
    o.group_id, pos = read_string(buf, pos)
    o.generation_id_or_member_epoch, = _S0.unpack_from(buf, pos)
    pos += 4
    o.member_id, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_OffsetCommitRequestTopic_0(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _enc_OffsetCommitRequest_1(o, w):
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_string(w, o.group_id)
    w += _S0.pack(o.generation_id_or_member_epoch)
    if o.member_id is None:
        raise EncodeError('non-nullable field MemberId is None')
    write_string(w, o.member_id)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_OffsetCommitRequestTopic_0(item, w)


def _dec_OffsetCommitRequestPartition_1(buf, pos):
    o = _new(OffsetCommitRequestPartition)
    o.commit_timestamp = -1
    o.unknown_tagged_fields = None
    o.partition_index, o.committed_offset, o.committed_leader_epoch = _S3.unpack_from(buf, pos)
    pos += 16
    o.committed_metadata, pos = read_nullable_string(buf, pos)
    return o, pos


def _dec_OffsetCommitRequestTopic_1(buf, pos):
    o = _new(OffsetCommitRequestTopic)
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
            item, pos = _dec_OffsetCommitRequestPartition_1(buf, pos)
            append(item)
        o.partitions = items
    return o, pos


def _dec_OffsetCommitRequest_2(buf, pos):
    o = _new(OffsetCommitRequest)
    o.group_instance_id = None
    o.retention_time_ms = -1
    o.unknown_tagged_fields = None
    o.group_id, pos = read_string(buf, pos)
    o.generation_id_or_member_epoch, = _S0.unpack_from(buf, pos)
    pos += 4
    o.member_id, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_OffsetCommitRequestTopic_1(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _enc_OffsetCommitRequestPartition_1(o, w):
    w += _S3.pack(o.partition_index, o.committed_offset, o.committed_leader_epoch)
    write_nullable_string(w, o.committed_metadata)


def _enc_OffsetCommitRequestTopic_1(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_OffsetCommitRequestPartition_1(item, w)


def _enc_OffsetCommitRequest_2(o, w):
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_string(w, o.group_id)
    w += _S0.pack(o.generation_id_or_member_epoch)
    if o.member_id is None:
        raise EncodeError('non-nullable field MemberId is None')
    write_string(w, o.member_id)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_OffsetCommitRequestTopic_1(item, w)


def _dec_OffsetCommitRequest_3(buf, pos):
    o = _new(OffsetCommitRequest)
    o.retention_time_ms = -1
    o.unknown_tagged_fields = None
    o.group_id, pos = read_string(buf, pos)
    o.generation_id_or_member_epoch, = _S0.unpack_from(buf, pos)
    pos += 4
    o.member_id, pos = read_string(buf, pos)
    o.group_instance_id, pos = read_nullable_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_OffsetCommitRequestTopic_1(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _enc_OffsetCommitRequest_3(o, w):
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_string(w, o.group_id)
    w += _S0.pack(o.generation_id_or_member_epoch)
    if o.member_id is None:
        raise EncodeError('non-nullable field MemberId is None')
    write_string(w, o.member_id)
    write_nullable_string(w, o.group_instance_id)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_OffsetCommitRequestTopic_1(item, w)


def _dec_OffsetCommitRequestPartition_2(buf, pos):
    o = _new(OffsetCommitRequestPartition)
    o.commit_timestamp = -1
    o.partition_index, o.committed_offset, o.committed_leader_epoch = _S3.unpack_from(buf, pos)
    pos += 16
    o.committed_metadata, pos = read_compact_nullable_string(buf, pos)
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


def _dec_OffsetCommitRequestTopic_2(buf, pos):
    o = _new(OffsetCommitRequestTopic)
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
            item, pos = _dec_OffsetCommitRequestPartition_2(buf, pos)
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


def _dec_OffsetCommitRequest_4(buf, pos):
    o = _new(OffsetCommitRequest)
    o.retention_time_ms = -1
    o.group_id, pos = read_compact_string(buf, pos)
    o.generation_id_or_member_epoch, = _S0.unpack_from(buf, pos)
    pos += 4
    o.member_id, pos = read_compact_string(buf, pos)
    o.group_instance_id, pos = read_compact_nullable_string(buf, pos)
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
            item, pos = _dec_OffsetCommitRequestTopic_2(buf, pos)
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


def _enc_OffsetCommitRequestPartition_2(o, w):
    w += _S3.pack(o.partition_index, o.committed_offset, o.committed_leader_epoch)
    write_compact_nullable_string(w, o.committed_metadata)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_OffsetCommitRequestTopic_2(o, w):
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
            _enc_OffsetCommitRequestPartition_2(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_OffsetCommitRequest_4(o, w):
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_compact_string(w, o.group_id)
    w += _S0.pack(o.generation_id_or_member_epoch)
    if o.member_id is None:
        raise EncodeError('non-nullable field MemberId is None')
    write_compact_string(w, o.member_id)
    write_compact_nullable_string(w, o.group_instance_id)
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
            _enc_OffsetCommitRequestTopic_2(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_OffsetCommitRequestTopic_3(buf, pos):
    o = _new(OffsetCommitRequestTopic)
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
            item, pos = _dec_OffsetCommitRequestPartition_2(buf, pos)
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


def _dec_OffsetCommitRequest_5(buf, pos):
    o = _new(OffsetCommitRequest)
    o.retention_time_ms = -1
    o.group_id, pos = read_compact_string(buf, pos)
    o.generation_id_or_member_epoch, = _S0.unpack_from(buf, pos)
    pos += 4
    o.member_id, pos = read_compact_string(buf, pos)
    o.group_instance_id, pos = read_compact_nullable_string(buf, pos)
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
            item, pos = _dec_OffsetCommitRequestTopic_3(buf, pos)
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


def _enc_OffsetCommitRequestTopic_3(o, w):
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
            _enc_OffsetCommitRequestPartition_2(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_OffsetCommitRequest_5(o, w):
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_compact_string(w, o.group_id)
    w += _S0.pack(o.generation_id_or_member_epoch)
    if o.member_id is None:
        raise EncodeError('non-nullable field MemberId is None')
    write_compact_string(w, o.member_id)
    write_compact_nullable_string(w, o.group_instance_id)
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
            _enc_OffsetCommitRequestTopic_3(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


OffsetCommitRequest._DECODERS = {2: _dec_OffsetCommitRequest_0, 3: _dec_OffsetCommitRequest_0, 4: _dec_OffsetCommitRequest_0, 5: _dec_OffsetCommitRequest_1, 6: _dec_OffsetCommitRequest_2, 7: _dec_OffsetCommitRequest_3, 8: _dec_OffsetCommitRequest_4, 9: _dec_OffsetCommitRequest_4, 10: _dec_OffsetCommitRequest_5}
OffsetCommitRequest._ENCODERS = {2: _enc_OffsetCommitRequest_0, 3: _enc_OffsetCommitRequest_0, 4: _enc_OffsetCommitRequest_0, 5: _enc_OffsetCommitRequest_1, 6: _enc_OffsetCommitRequest_2, 7: _enc_OffsetCommitRequest_3, 8: _enc_OffsetCommitRequest_4, 9: _enc_OffsetCommitRequest_4, 10: _enc_OffsetCommitRequest_5}
