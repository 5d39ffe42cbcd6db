"""ConsumerProtocolSubscription: generated from Kafka's ConsumerProtocolSubscription.json by tools/generate_protocol.py.

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


class TopicPartition(Struct):
    __slots__ = ('topic', 'partitions', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('topic', 'Topic', 'string', False, (1, 32767), None, None, None, None), FieldMeta('partitions', 'Partitions', 'int32', True, (1, 32767), None, None, None, None))

    def __init__(self, *, topic: str = '', partitions: list[int] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.topic = topic
        self.partitions = [] if partitions is _DEFAULT else partitions
        self.unknown_tagged_fields = unknown_tagged_fields


class ConsumerProtocolSubscription(Message):
    """Kafka data ConsumerProtocolSubscription (valid versions 0-3)."""

    NAME = 'ConsumerProtocolSubscription'
    TYPE = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 3)
    FLEXIBLE_VERSIONS = None
    TopicPartition = TopicPartition
    __slots__ = ('topics', 'user_data', 'owned_partitions', 'generation_id', 'rack_id', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('topics', 'Topics', 'string', True, (0, 32767), None, None, None, None), FieldMeta('user_data', 'UserData', 'bytes', False, (0, 32767), (0, 32767), None, None, None), FieldMeta('owned_partitions', 'OwnedPartitions', 'TopicPartition', True, (1, 32767), None, None, None, TopicPartition), FieldMeta('generation_id', 'GenerationId', 'int32', False, (2, 32767), None, None, None, None), FieldMeta('rack_id', 'RackId', 'string', False, (3, 32767), (3, 32767), None, None, None))

    def __init__(self, *, topics: list[str] | None = _DEFAULT, user_data: bytes | None = None, owned_partitions: list[TopicPartition] | None = _DEFAULT, generation_id: int = -1, rack_id: str | None = None, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.topics = [] if topics is _DEFAULT else topics
        self.user_data = user_data
        self.owned_partitions = [] if owned_partitions is _DEFAULT else owned_partitions
        self.generation_id = generation_id
        self.rack_id = rack_id
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_ConsumerProtocolSubscription_0(buf, pos):
    o = _new(ConsumerProtocolSubscription)
    o.owned_partitions = []
    o.generation_id = -1
    o.rack_id = None
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        for _ in range(n):
            item, pos = read_string(buf, pos)
            items.append(item)
        o.topics = items
    o.user_data, pos = read_nullable_bytes(buf, pos)
    return o, pos


def _enc_ConsumerProtocolSubscription_0(o, w):
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            write_string(w, item)
    write_nullable_bytes(w, o.user_data)


def _dec_TopicPartition_0(buf, pos):
    o = _new(TopicPartition)
    o.unknown_tagged_fields = None
    o.topic, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Partitions was null')
    else:
        end = pos + n * 4
        if end > len(buf):
            raise DecodeError('truncated array Partitions')
        o.partitions = list(_unpack_from('>%di' % n, buf, pos))
        pos = end
    return o, pos


def _dec_ConsumerProtocolSubscription_1(buf, pos):
    o = _new(ConsumerProtocolSubscription)
    o.generation_id = -1
    o.rack_id = None
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        for _ in range(n):
            item, pos = read_string(buf, pos)
            items.append(item)
        o.topics = items
    o.user_data, pos = read_nullable_bytes(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array OwnedPartitions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_TopicPartition_0(buf, pos)
            append(item)
        o.owned_partitions = items
    return o, pos


def _enc_TopicPartition_0(o, w):
    if o.topic is None:
        raise EncodeError('non-nullable field Topic is None')
    write_string(w, o.topic)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        write_array_length(w, len(items))
        w += _pack('>%di' % len(items), *items)


def _enc_ConsumerProtocolSubscription_1(o, w):
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            write_string(w, item)
    write_nullable_bytes(w, o.user_data)
    items = o.owned_partitions
    if items is None:
        raise EncodeError('non-nullable array OwnedPartitions is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_TopicPartition_0(item, w)


def _dec_ConsumerProtocolSubscription_2(buf, pos):
    o = _new(ConsumerProtocolSubscription)
    o.rack_id = None
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        for _ in range(n):
            item, pos = read_string(buf, pos)
            items.append(item)
        o.topics = items
    o.user_data, pos = read_nullable_bytes(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array OwnedPartitions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_TopicPartition_0(buf, pos)
            append(item)
        o.owned_partitions = items
    o.generation_id, = _S0.unpack_from(buf, pos)
    pos += 4
    return o, pos


def _enc_ConsumerProtocolSubscription_2(o, w):
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            write_string(w, item)
    write_nullable_bytes(w, o.user_data)
    items = o.owned_partitions
    if items is None:
        raise EncodeError('non-nullable array OwnedPartitions is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_TopicPartition_0(item, w)
    w += _S0.pack(o.generation_id)


def _dec_ConsumerProtocolSubscription_3(buf, pos):
    o = _new(ConsumerProtocolSubscription)
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        for _ in range(n):
            item, pos = read_string(buf, pos)
            items.append(item)
        o.topics = items
    o.user_data, pos = read_nullable_bytes(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array OwnedPartitions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_TopicPartition_0(buf, pos)
            append(item)
        o.owned_partitions = items
    o.generation_id, = _S0.unpack_from(buf, pos)
    pos += 4
    o.rack_id, pos = read_nullable_string(buf, pos)
    return o, pos


def _enc_ConsumerProtocolSubscription_3(o, w):
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            write_string(w, item)
    write_nullable_bytes(w, o.user_data)
    items = o.owned_partitions
    if items is None:
        raise EncodeError('non-nullable array OwnedPartitions is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_TopicPartition_0(item, w)
    w += _S0.pack(o.generation_id)
    write_nullable_string(w, o.rack_id)


ConsumerProtocolSubscription._DECODERS = {0: _dec_ConsumerProtocolSubscription_0, 1: _dec_ConsumerProtocolSubscription_1, 2: _dec_ConsumerProtocolSubscription_2, 3: _dec_ConsumerProtocolSubscription_3}
ConsumerProtocolSubscription._ENCODERS = {0: _enc_ConsumerProtocolSubscription_0, 1: _enc_ConsumerProtocolSubscription_1, 2: _enc_ConsumerProtocolSubscription_2, 3: _enc_ConsumerProtocolSubscription_3}
