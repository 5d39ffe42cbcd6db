"""DeleteTopicsRequest: generated from Kafka's DeleteTopicsRequest.json by tools/generate_protocol.py.

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


class DeleteTopicState(Struct):
    __slots__ = ('name', 'topic_id', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (6, 32767), (6, 32767), None, None, None), FieldMeta('topic_id', 'TopicId', 'uuid', False, (6, 32767), None, None, None, None))

    def __init__(self, *, name: str | None = None, topic_id: uuid.UUID = ZERO_UUID, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.topic_id = topic_id
        self.unknown_tagged_fields = unknown_tagged_fields


class DeleteTopicsRequest(Message):
    """Kafka request DeleteTopicsRequest (valid versions 1-6)."""

    NAME = 'DeleteTopicsRequest'
    TYPE = 'request'
    API_KEY = 20
    VALID_VERSIONS = (1, 6)
    FLEXIBLE_VERSIONS = (4, 32767)
    DeleteTopicState = DeleteTopicState
    __slots__ = ('topics', 'topic_names', 'timeout_ms', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('topics', 'Topics', 'DeleteTopicState', True, (6, 32767), None, None, None, DeleteTopicState), FieldMeta('topic_names', 'TopicNames', 'string', True, (0, 5), None, None, None, None), FieldMeta('timeout_ms', 'TimeoutMs', 'int32', False, (0, 32767), None, None, None, None))

    def __init__(self, *, topics: list[DeleteTopicState] | None = _DEFAULT, topic_names: list[str] | None = _DEFAULT, timeout_ms: int = 0, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.topics = [] if topics is _DEFAULT else topics
        self.topic_names = [] if topic_names is _DEFAULT else topic_names
        self.timeout_ms = timeout_ms
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_DeleteTopicsRequest_0(buf, pos):
    o = _new(DeleteTopicsRequest)
    o.topics = []
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array TopicNames was null')
    else:
        items = []
        for _ in range(n):
            item, pos = read_string(buf, pos)
            items.append(item)
        o.topic_names = items
    o.timeout_ms, = _S0.unpack_from(buf, pos)
    pos += 4
    return o, pos


def _enc_DeleteTopicsRequest_0(o, w):
    items = o.topic_names
    if items is None:
        raise EncodeError('non-nullable array TopicNames is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            write_string(w, item)
    w += _S0.pack(o.timeout_ms)


def _dec_DeleteTopicsRequest_1(buf, pos):
    o = _new(DeleteTopicsRequest)
    o.topics = []
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array TopicNames was null')
    else:
        items = []
        for _ in range(n):
            item, pos = read_compact_string(buf, pos)
            items.append(item)
        o.topic_names = items
    o.timeout_ms, = _S0.unpack_from(buf, pos)
    pos += 4
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


def _enc_DeleteTopicsRequest_1(o, w):
    items = o.topic_names
    if items is None:
        raise EncodeError('non-nullable array TopicNames is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            write_compact_string(w, item)
    w += _S0.pack(o.timeout_ms)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_DeleteTopicState_0(buf, pos):
    o = _new(DeleteTopicState)
    o.name, pos = read_compact_nullable_string(buf, pos)
    o.topic_id, pos = read_uuid(buf, pos)
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


def _dec_DeleteTopicsRequest_2(buf, pos):
    o = _new(DeleteTopicsRequest)
    o.topic_names = []
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
            item, pos = _dec_DeleteTopicState_0(buf, pos)
            append(item)
        o.topics = items
    o.timeout_ms, = _S0.unpack_from(buf, pos)
    pos += 4
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


def _enc_DeleteTopicState_0(o, w):
    write_compact_nullable_string(w, o.name)
    write_uuid(w, o.topic_id)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_DeleteTopicsRequest_2(o, w):
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
            _enc_DeleteTopicState_0(item, w)
    w += _S0.pack(o.timeout_ms)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


DeleteTopicsRequest._DECODERS = {1: _dec_DeleteTopicsRequest_0, 2: _dec_DeleteTopicsRequest_0, 3: _dec_DeleteTopicsRequest_0, 4: _dec_DeleteTopicsRequest_1, 5: _dec_DeleteTopicsRequest_1, 6: _dec_DeleteTopicsRequest_2}
DeleteTopicsRequest._ENCODERS = {1: _enc_DeleteTopicsRequest_0, 2: _enc_DeleteTopicsRequest_0, 3: _enc_DeleteTopicsRequest_0, 4: _enc_DeleteTopicsRequest_1, 5: _enc_DeleteTopicsRequest_1, 6: _enc_DeleteTopicsRequest_2}
