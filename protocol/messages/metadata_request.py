"""MetadataRequest: generated from Kafka's MetadataRequest.json by tools/generate_protocol.py.

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
_S1 = struct.Struct('>???')
_S2 = struct.Struct('>??')


class MetadataRequestTopic(Struct):
    __slots__ = ('topic_id', 'name', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('topic_id', 'TopicId', 'uuid', False, (10, 32767), None, None, None, None), FieldMeta('name', 'Name', 'string', False, (0, 32767), (10, 32767), None, None, None))

    def __init__(self, *, topic_id: uuid.UUID = ZERO_UUID, name: str | None = '', unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.topic_id = topic_id
        self.name = name
        self.unknown_tagged_fields = unknown_tagged_fields


class MetadataRequest(Message):
    """Kafka request MetadataRequest (valid versions 0-13)."""

    NAME = 'MetadataRequest'
    TYPE = 'request'
    API_KEY = 3
    VALID_VERSIONS = (0, 13)
    FLEXIBLE_VERSIONS = (9, 32767)
    MetadataRequestTopic = MetadataRequestTopic
    __slots__ = ('topics', 'allow_auto_topic_creation', 'include_cluster_authorized_operations', 'include_topic_authorized_operations', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('topics', 'Topics', 'MetadataRequestTopic', True, (0, 32767), (1, 32767), None, None, MetadataRequestTopic), FieldMeta('allow_auto_topic_creation', 'AllowAutoTopicCreation', 'bool', False, (4, 32767), None, None, None, None), FieldMeta('include_cluster_authorized_operations', 'IncludeClusterAuthorizedOperations', 'bool', False, (8, 10), None, None, None, None), FieldMeta('include_topic_authorized_operations', 'IncludeTopicAuthorizedOperations', 'bool', False, (8, 32767), None, None, None, None))

    def __init__(self, *, topics: list[MetadataRequestTopic] | None | None = _DEFAULT, allow_auto_topic_creation: bool = True, include_cluster_authorized_operations: bool = False, include_topic_authorized_operations: bool = False, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.topics = [] if topics is _DEFAULT else topics
        self.allow_auto_topic_creation = allow_auto_topic_creation
        self.include_cluster_authorized_operations = include_cluster_authorized_operations
        self.include_topic_authorized_operations = include_topic_authorized_operations
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_MetadataRequestTopic_0(buf, pos):
    o = _new(MetadataRequestTopic)
    o.topic_id = ZERO_UUID
    o.unknown_tagged_fields = None
    o.name, pos = read_string(buf, pos)
    return o, pos


def _dec_MetadataRequest_0(buf, pos):
    o = _new(MetadataRequest)
    o.allow_auto_topic_creation = True
    o.include_cluster_authorized_operations = False
    o.include_topic_authorized_operations = False
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_MetadataRequestTopic_0(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _enc_MetadataRequestTopic_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)


def _enc_MetadataRequest_0(o, w):
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_MetadataRequestTopic_0(item, w)


def _dec_MetadataRequest_1(buf, pos):
    o = _new(MetadataRequest)
    o.allow_auto_topic_creation = True
    o.include_cluster_authorized_operations = False
    o.include_topic_authorized_operations = False
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        o.topics = None
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_MetadataRequestTopic_0(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _enc_MetadataRequest_1(o, w):
    items = o.topics
    if items is None:
        write_array_length(w, -1)
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_MetadataRequestTopic_0(item, w)


def _dec_MetadataRequest_2(buf, pos):
    o = _new(MetadataRequest)
    o.include_cluster_authorized_operations = False
    o.include_topic_authorized_operations = False
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        o.topics = None
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_MetadataRequestTopic_0(buf, pos)
            append(item)
        o.topics = items
    o.allow_auto_topic_creation, = _S0.unpack_from(buf, pos)
    pos += 1
    return o, pos


def _enc_MetadataRequest_2(o, w):
    items = o.topics
    if items is None:
        write_array_length(w, -1)
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_MetadataRequestTopic_0(item, w)
    w += _S0.pack(o.allow_auto_topic_creation)


def _dec_MetadataRequest_3(buf, pos):
    o = _new(MetadataRequest)
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        o.topics = None
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_MetadataRequestTopic_0(buf, pos)
            append(item)
        o.topics = items
    o.allow_auto_topic_creation, o.include_cluster_authorized_operations, o.include_topic_authorized_operations = _S1.unpack_from(buf, pos)
    pos += 3
    return o, pos


def _enc_MetadataRequest_3(o, w):
    items = o.topics
    if items is None:
        write_array_length(w, -1)
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_MetadataRequestTopic_0(item, w)
    w += _S1.pack(o.allow_auto_topic_creation, o.include_cluster_authorized_operations, o.include_topic_authorized_operations)


def _dec_MetadataRequestTopic_1(buf, pos):
    o = _new(MetadataRequestTopic)
    o.topic_id = ZERO_UUID
    o.name, pos = read_compact_string(buf, pos)
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


def _dec_MetadataRequest_4(buf, pos):
    o = _new(MetadataRequest)
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
            item, pos = _dec_MetadataRequestTopic_1(buf, pos)
            append(item)
        o.topics = items
    o.allow_auto_topic_creation, o.include_cluster_authorized_operations, o.include_topic_authorized_operations = _S1.unpack_from(buf, pos)
    pos += 3
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


def _enc_MetadataRequestTopic_1(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_compact_string(w, o.name)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_MetadataRequest_4(o, w):
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
            _enc_MetadataRequestTopic_1(item, w)
    w += _S1.pack(o.allow_auto_topic_creation, o.include_cluster_authorized_operations, o.include_topic_authorized_operations)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_MetadataRequestTopic_2(buf, pos):
    o = _new(MetadataRequestTopic)
    o.topic_id, pos = read_uuid(buf, pos)
    o.name, pos = read_compact_nullable_string(buf, pos)
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


def _dec_MetadataRequest_5(buf, pos):
    o = _new(MetadataRequest)
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
            item, pos = _dec_MetadataRequestTopic_2(buf, pos)
            append(item)
        o.topics = items
    o.allow_auto_topic_creation, o.include_cluster_authorized_operations, o.include_topic_authorized_operations = _S1.unpack_from(buf, pos)
    pos += 3
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


def _enc_MetadataRequestTopic_2(o, w):
    write_uuid(w, o.topic_id)
    write_compact_nullable_string(w, o.name)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_MetadataRequest_5(o, w):
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
            _enc_MetadataRequestTopic_2(item, w)
    w += _S1.pack(o.allow_auto_topic_creation, o.include_cluster_authorized_operations, o.include_topic_authorized_operations)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_MetadataRequest_6(buf, pos):
    o = _new(MetadataRequest)
    o.include_cluster_authorized_operations = False
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
            item, pos = _dec_MetadataRequestTopic_2(buf, pos)
            append(item)
        o.topics = items
    o.allow_auto_topic_creation, o.include_topic_authorized_operations = _S2.unpack_from(buf, pos)
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


def _enc_MetadataRequest_6(o, w):
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
            _enc_MetadataRequestTopic_2(item, w)
    w += _S2.pack(o.allow_auto_topic_creation, o.include_topic_authorized_operations)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


MetadataRequest._DECODERS = {0: _dec_MetadataRequest_0, 1: _dec_MetadataRequest_1, 2: _dec_MetadataRequest_1, 3: _dec_MetadataRequest_1, 4: _dec_MetadataRequest_2, 5: _dec_MetadataRequest_2, 6: _dec_MetadataRequest_2, 7: _dec_MetadataRequest_2, 8: _dec_MetadataRequest_3, 9: _dec_MetadataRequest_4, 10: _dec_MetadataRequest_5, 11: _dec_MetadataRequest_6, 12: _dec_MetadataRequest_6, 13: _dec_MetadataRequest_6}
MetadataRequest._ENCODERS = {0: _enc_MetadataRequest_0, 1: _enc_MetadataRequest_1, 2: _enc_MetadataRequest_1, 3: _enc_MetadataRequest_1, 4: _enc_MetadataRequest_2, 5: _enc_MetadataRequest_2, 6: _enc_MetadataRequest_2, 7: _enc_MetadataRequest_2, 8: _enc_MetadataRequest_3, 9: _enc_MetadataRequest_4, 10: _enc_MetadataRequest_5, 11: _enc_MetadataRequest_6, 12: _enc_MetadataRequest_6, 13: _enc_MetadataRequest_6}
