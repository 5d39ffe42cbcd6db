"""DescribeTopicPartitionsRequest: generated from Kafka's DescribeTopicPartitionsRequest.json by tools/generate_protocol.py.

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


class TopicRequest(Struct):
    __slots__ = ('name', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (0, 32767), None, None, None, None),)

    def __init__(self, *, name: str = '', unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.unknown_tagged_fields = unknown_tagged_fields


class Cursor(Struct):
    __slots__ = ('topic_name', 'partition_index', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('topic_name', 'TopicName', 'string', False, (0, 32767), None, None, None, None), FieldMeta('partition_index', 'PartitionIndex', 'int32', False, (0, 32767), None, None, None, None))

    def __init__(self, *, topic_name: str = '', partition_index: int = 0, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.topic_name = topic_name
        self.partition_index = partition_index
        self.unknown_tagged_fields = unknown_tagged_fields


class DescribeTopicPartitionsRequest(Message):
    """Kafka request DescribeTopicPartitionsRequest (valid versions 0-0)."""

    NAME = 'DescribeTopicPartitionsRequest'
    TYPE = 'request'
    API_KEY = 75
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    TopicRequest = TopicRequest
    Cursor = Cursor
    __slots__ = ('topics', 'response_partition_limit', 'cursor', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('topics', 'Topics', 'TopicRequest', True, (0, 32767), None, None, None, TopicRequest), FieldMeta('response_partition_limit', 'ResponsePartitionLimit', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('cursor', 'Cursor', 'Cursor', False, (0, 32767), (0, 32767), None, None, Cursor))

    def __init__(self, *, topics: list[TopicRequest] | None = _DEFAULT, response_partition_limit: int = 2000, cursor: Cursor | None = None, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.topics = [] if topics is _DEFAULT else topics
        self.response_partition_limit = response_partition_limit
        self.cursor = cursor
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_TopicRequest_0(buf, pos):
    o = _new(TopicRequest)
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


def _dec_Cursor_0(buf, pos):
    o = _new(Cursor)
    o.topic_name, pos = read_compact_string(buf, pos)
    o.partition_index, = _S0.unpack_from(buf, pos)
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


def _dec_DescribeTopicPartitionsRequest_0(buf, pos):
    o = _new(DescribeTopicPartitionsRequest)
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
            item, pos = _dec_TopicRequest_0(buf, pos)
            append(item)
        o.topics = items
    o.response_partition_limit, = _S0.unpack_from(buf, pos)
    pos += 4
    marker, pos = read_int8(buf, pos)
    if marker < 0:
        o.cursor = None
    else:
        o.cursor, pos = _dec_Cursor_0(buf, pos)
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


def _enc_TopicRequest_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_compact_string(w, o.name)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_Cursor_0(o, w):
    if o.topic_name is None:
        raise EncodeError('non-nullable field TopicName is None')
    write_compact_string(w, o.topic_name)
    w += _S0.pack(o.partition_index)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_DescribeTopicPartitionsRequest_0(o, w):
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
            _enc_TopicRequest_0(item, w)
    w += _S0.pack(o.response_partition_limit)
    if o.cursor is None:
        w.append(0xFF)
    else:
        w.append(1)
        _enc_Cursor_0(o.cursor, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


DescribeTopicPartitionsRequest._DECODERS = {0: _dec_DescribeTopicPartitionsRequest_0}
DescribeTopicPartitionsRequest._ENCODERS = {0: _enc_DescribeTopicPartitionsRequest_0}
