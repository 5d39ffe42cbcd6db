"""OffsetFetchRequest: generated from Kafka's OffsetFetchRequest.json by tools/generate_protocol.py.

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
_S0 = struct.Struct('>?')
_S1 = struct.Struct('>i')


class OffsetFetchRequestTopic(Struct):
    __slots__ = ('name', 'partition_indexes', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (0, 7), None, None, None, None), FieldMeta('partition_indexes', 'PartitionIndexes', 'int32', True, (0, 7), None, None, None, None))

    def __init__(self, *, name: str = '', partition_indexes: list[int] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.partition_indexes = [] if partition_indexes is _DEFAULT else partition_indexes
        self.unknown_tagged_fields = unknown_tagged_fields


class OffsetFetchRequestTopics(Struct):
    __slots__ = ('name', 'topic_id', 'partition_indexes', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (8, 9), None, None, None, None), FieldMeta('topic_id', 'TopicId', 'uuid', False, (10, 32767), None, None, None, None), FieldMeta('partition_indexes', 'PartitionIndexes', 'int32', True, (8, 32767), None, None, None, None))

    def __init__(self, *, name: str = '', topic_id: uuid.UUID = ZERO_UUID, partition_indexes: list[int] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.topic_id = topic_id
        self.partition_indexes = [] if partition_indexes is _DEFAULT else partition_indexes
        self.unknown_tagged_fields = unknown_tagged_fields


class OffsetFetchRequestGroup(Struct):
    __slots__ = ('group_id', 'member_id', 'member_epoch', 'topics', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('group_id', 'GroupId', 'string', False, (8, 32767), None, None, None, None), FieldMeta('member_id', 'MemberId', 'string', False, (9, 32767), (9, 32767), None, None, None), FieldMeta('member_epoch', 'MemberEpoch', 'int32', False, (9, 32767), None, None, None, None), FieldMeta('topics', 'Topics', 'OffsetFetchRequestTopics', True, (8, 32767), (8, 32767), None, None, OffsetFetchRequestTopics))

    def __init__(self, *, group_id: str = '', member_id: str | None = None, member_epoch: int = -1, topics: list[OffsetFetchRequestTopics] | None | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.group_id = group_id
        self.member_id = member_id
        self.member_epoch = member_epoch
        self.topics = [] if topics is _DEFAULT else topics
        self.unknown_tagged_fields = unknown_tagged_fields


class OffsetFetchRequest(Message):
    """Kafka request OffsetFetchRequest (valid versions 1-10)."""

    NAME = 'OffsetFetchRequest'
    TYPE = 'request'
    API_KEY = 9
    VALID_VERSIONS = (1, 10)
    FLEXIBLE_VERSIONS = (6, 32767)
    OffsetFetchRequestTopic = OffsetFetchRequestTopic
    OffsetFetchRequestTopics = OffsetFetchRequestTopics
    OffsetFetchRequestGroup = OffsetFetchRequestGroup
    __slots__ = ('group_id', 'topics', 'groups', 'require_stable', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('group_id', 'GroupId', 'string', False, (0, 7), None, None, None, None), FieldMeta('topics', 'Topics', 'OffsetFetchRequestTopic', True, (0, 7), (2, 7), None, None, OffsetFetchRequestTopic), FieldMeta('groups', 'Groups', 'OffsetFetchRequestGroup', True, (8, 32767), None, None, None, OffsetFetchRequestGroup), FieldMeta('require_stable', 'RequireStable', 'bool', False, (7, 32767), None, None, None, None))

    def __init__(self, *, group_id: str = '', topics: list[OffsetFetchRequestTopic] | None | None = _DEFAULT, groups: list[OffsetFetchRequestGroup] | None = _DEFAULT, require_stable: bool = False, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.group_id = group_id
        self.topics = [] if topics is _DEFAULT else topics
        self.groups = [] if groups is _DEFAULT else groups
        self.require_stable = require_stable
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_OffsetFetchRequestTopic_0(buf, pos):
    o = _new(OffsetFetchRequestTopic)
    o.unknown_tagged_fields = None
    o.name, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array PartitionIndexes was null')
    else:
        end = pos + n * 4
        if end > len(buf):
            raise DecodeError('truncated array PartitionIndexes')
        o.partition_indexes = list(_unpack_from('>%di' % n, buf, pos))
        pos = end
    return o, pos


def _dec_OffsetFetchRequest_0(buf, pos):
    o = _new(OffsetFetchRequest)
    o.groups = []
    o.require_stable = False
    o.unknown_tagged_fields = None
    o.group_id, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_OffsetFetchRequestTopic_0(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _enc_OffsetFetchRequestTopic_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    items = o.partition_indexes
    if items is None:
        raise EncodeError('non-nullable array PartitionIndexes is None')
    else:
        write_array_length(w, len(items))
        w += _pack('>%di' % len(items), *items)


def _enc_OffsetFetchRequest_0(o, w):
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_string(w, o.group_id)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_OffsetFetchRequestTopic_0(item, w)


def _dec_OffsetFetchRequest_1(buf, pos):
    o = _new(OffsetFetchRequest)
    o.groups = []
    o.require_stable = False
    o.unknown_tagged_fields = None
    o.group_id, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        o.topics = None
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_OffsetFetchRequestTopic_0(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _enc_OffsetFetchRequest_1(o, w):
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_string(w, o.group_id)
    items = o.topics
    if items is None:
        write_array_length(w, -1)
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_OffsetFetchRequestTopic_0(item, w)


def _dec_OffsetFetchRequestTopic_1(buf, pos):
    o = _new(OffsetFetchRequestTopic)
    o.name, pos = read_compact_string(buf, pos)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array PartitionIndexes was null')
    else:
        end = pos + n * 4
        if end > len(buf):
            raise DecodeError('truncated array PartitionIndexes')
        o.partition_indexes = list(_unpack_from('>%di' % n, buf, pos))
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


def _dec_OffsetFetchRequest_2(buf, pos):
    o = _new(OffsetFetchRequest)
    o.groups = []
    o.require_stable = False
    o.group_id, pos = read_compact_string(buf, pos)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        o.topics = None
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_OffsetFetchRequestTopic_1(buf, pos)
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


def _enc_OffsetFetchRequestTopic_1(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_compact_string(w, o.name)
    items = o.partition_indexes
    if items is None:
        raise EncodeError('non-nullable array PartitionIndexes is None')
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


def _enc_OffsetFetchRequest_2(o, w):
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_compact_string(w, o.group_id)
    items = o.topics
    if items is None:
        write_compact_array_length(w, -1)
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_OffsetFetchRequestTopic_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_OffsetFetchRequest_3(buf, pos):
    o = _new(OffsetFetchRequest)
    o.groups = []
    o.group_id, pos = read_compact_string(buf, pos)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        o.topics = None
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_OffsetFetchRequestTopic_1(buf, pos)
            append(item)
        o.topics = items
    o.require_stable, = _S0.unpack_from(buf, pos)
    pos += 1
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


def _enc_OffsetFetchRequest_3(o, w):
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_compact_string(w, o.group_id)
    items = o.topics
    if items is None:
        write_compact_array_length(w, -1)
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_OffsetFetchRequestTopic_1(item, w)
    w += _S0.pack(o.require_stable)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_OffsetFetchRequestTopics_0(buf, pos):
    o = _new(OffsetFetchRequestTopics)
    o.topic_id = ZERO_UUID
    o.name, pos = read_compact_string(buf, pos)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array PartitionIndexes was null')
    else:
        end = pos + n * 4
        if end > len(buf):
            raise DecodeError('truncated array PartitionIndexes')
        o.partition_indexes = list(_unpack_from('>%di' % n, buf, pos))
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


def _dec_OffsetFetchRequestGroup_0(buf, pos):
    o = _new(OffsetFetchRequestGroup)
    o.member_id = None
    o.member_epoch = -1
    o.group_id, pos = read_compact_string(buf, pos)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        o.topics = None
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_OffsetFetchRequestTopics_0(buf, pos)
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


def _dec_OffsetFetchRequest_4(buf, pos):
    o = _new(OffsetFetchRequest)
    o.group_id = ''
    o.topics = []
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
            item, pos = _dec_OffsetFetchRequestGroup_0(buf, pos)
            append(item)
        o.groups = items
    o.require_stable, = _S0.unpack_from(buf, pos)
    pos += 1
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


def _enc_OffsetFetchRequestTopics_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_compact_string(w, o.name)
    items = o.partition_indexes
    if items is None:
        raise EncodeError('non-nullable array PartitionIndexes is None')
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


def _enc_OffsetFetchRequestGroup_0(o, w):
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_compact_string(w, o.group_id)
    items = o.topics
    if items is None:
        write_compact_array_length(w, -1)
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_OffsetFetchRequestTopics_0(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_OffsetFetchRequest_4(o, w):
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
            _enc_OffsetFetchRequestGroup_0(item, w)
    w += _S0.pack(o.require_stable)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_OffsetFetchRequestGroup_1(buf, pos):
    o = _new(OffsetFetchRequestGroup)
    o.group_id, pos = read_compact_string(buf, pos)
    o.member_id, pos = read_compact_nullable_string(buf, pos)
    o.member_epoch, = _S1.unpack_from(buf, pos)
    pos += 4
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        o.topics = None
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_OffsetFetchRequestTopics_0(buf, pos)
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


def _dec_OffsetFetchRequest_5(buf, pos):
    o = _new(OffsetFetchRequest)
    o.group_id = ''
    o.topics = []
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
            item, pos = _dec_OffsetFetchRequestGroup_1(buf, pos)
            append(item)
        o.groups = items
    o.require_stable, = _S0.unpack_from(buf, pos)
    pos += 1
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


def _enc_OffsetFetchRequestGroup_1(o, w):
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_compact_string(w, o.group_id)
    write_compact_nullable_string(w, o.member_id)
    w += _S1.pack(o.member_epoch)
    items = o.topics
    if items is None:
        write_compact_array_length(w, -1)
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_OffsetFetchRequestTopics_0(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_OffsetFetchRequest_5(o, w):
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
            _enc_OffsetFetchRequestGroup_1(item, w)
    w += _S0.pack(o.require_stable)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_OffsetFetchRequestTopics_1(buf, pos):
    o = _new(OffsetFetchRequestTopics)
    o.name = ''
    o.topic_id, pos = read_uuid(buf, pos)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array PartitionIndexes was null')
    else:
        end = pos + n * 4
        if end > len(buf):
            raise DecodeError('truncated array PartitionIndexes')
        o.partition_indexes = list(_unpack_from('>%di' % n, buf, pos))
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


def _dec_OffsetFetchRequestGroup_2(buf, pos):
    o = _new(OffsetFetchRequestGroup)
    o.group_id, pos = read_compact_string(buf, pos)
    o.member_id, pos = read_compact_nullable_string(buf, pos)
    o.member_epoch, = _S1.unpack_from(buf, pos)
    pos += 4
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        o.topics = None
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_OffsetFetchRequestTopics_1(buf, pos)
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


def _dec_OffsetFetchRequest_6(buf, pos):
    o = _new(OffsetFetchRequest)
    o.group_id = ''
    o.topics = []
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
            item, pos = _dec_OffsetFetchRequestGroup_2(buf, pos)
            append(item)
        o.groups = items
    o.require_stable, = _S0.unpack_from(buf, pos)
    pos += 1
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


def _enc_OffsetFetchRequestTopics_1(o, w):
    write_uuid(w, o.topic_id)
    items = o.partition_indexes
    if items is None:
        raise EncodeError('non-nullable array PartitionIndexes is None')
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


def _enc_OffsetFetchRequestGroup_2(o, w):
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_compact_string(w, o.group_id)
    write_compact_nullable_string(w, o.member_id)
    w += _S1.pack(o.member_epoch)
    items = o.topics
    if items is None:
        write_compact_array_length(w, -1)
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_OffsetFetchRequestTopics_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_OffsetFetchRequest_6(o, w):
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
            _enc_OffsetFetchRequestGroup_2(item, w)
    w += _S0.pack(o.require_stable)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


OffsetFetchRequest._DECODERS = {1: _dec_OffsetFetchRequest_0, 2: _dec_OffsetFetchRequest_1, 3: _dec_OffsetFetchRequest_1, 4: _dec_OffsetFetchRequest_1, 5: _dec_OffsetFetchRequest_1, 6: _dec_OffsetFetchRequest_2, 7: _dec_OffsetFetchRequest_3, 8: _dec_OffsetFetchRequest_4, 9: _dec_OffsetFetchRequest_5, 10: _dec_OffsetFetchRequest_6}
OffsetFetchRequest._ENCODERS = {1: _enc_OffsetFetchRequest_0, 2: _enc_OffsetFetchRequest_1, 3: _enc_OffsetFetchRequest_1, 4: _enc_OffsetFetchRequest_1, 5: _enc_OffsetFetchRequest_1, 6: _enc_OffsetFetchRequest_2, 7: _enc_OffsetFetchRequest_3, 8: _enc_OffsetFetchRequest_4, 9: _enc_OffsetFetchRequest_5, 10: _enc_OffsetFetchRequest_6}
