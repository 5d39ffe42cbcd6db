"""ElectLeadersRequest: generated from Kafka's ElectLeadersRequest.json by tools/generate_protocol.py.

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
_S1 = struct.Struct('>b')


class TopicPartitions(Struct):
    __slots__ = ('topic', 'partitions', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('topic', 'Topic', 'string', False, (0, 32767), None, None, None, None), FieldMeta('partitions', 'Partitions', 'int32', True, (0, 32767), None, None, None, None))

    def __init__(self, *, topic: str = '', partitions: list[int] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.topic = topic
        self.partitions = [] if partitions is _DEFAULT else partitions
        self.unknown_tagged_fields = unknown_tagged_fields


class ElectLeadersRequest(Message):
    """Kafka request ElectLeadersRequest (valid versions 0-2)."""

    NAME = 'ElectLeadersRequest'
    TYPE = 'request'
    API_KEY = 43
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (2, 32767)
    TopicPartitions = TopicPartitions
    __slots__ = ('election_type', 'topic_partitions', 'timeout_ms', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('election_type', 'ElectionType', 'int8', False, (1, 32767), None, None, None, None), FieldMeta('topic_partitions', 'TopicPartitions', 'TopicPartitions', True, (0, 32767), (0, 32767), None, None, TopicPartitions), FieldMeta('timeout_ms', 'TimeoutMs', 'int32', False, (0, 32767), None, None, None, None))

    def __init__(self, *, election_type: int = 0, topic_partitions: list[TopicPartitions] | None | None = _DEFAULT, timeout_ms: int = 60000, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.election_type = election_type
        self.topic_partitions = [] if topic_partitions is _DEFAULT else topic_partitions
        self.timeout_ms = timeout_ms
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_TopicPartitions_0(buf, pos):
    o = _new(TopicPartitions)
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


def _dec_ElectLeadersRequest_0(buf, pos):
    o = _new(ElectLeadersRequest)
    o.election_type = 0
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        o.topic_partitions = None
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_TopicPartitions_0(buf, pos)
            append(item)
        o.topic_partitions = items
    o.timeout_ms, = _S0.unpack_from(buf, pos)
    pos += 4
    return o, pos


def _enc_TopicPartitions_0(o, w):
    if o.topic is None:
        raise EncodeError('non-nullable field Topic is None')
    write_string(w, o.topic)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        write_array_length(w, len(items))
        w += _pack('>%di' % len(items), *items)


def _enc_ElectLeadersRequest_0(o, w):
    items = o.topic_partitions
    if items is None:
        write_array_length(w, -1)
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_TopicPartitions_0(item, w)
    w += _S0.pack(o.timeout_ms)


def _dec_ElectLeadersRequest_1(buf, pos):
    o = _new(ElectLeadersRequest)
    o.unknown_tagged_fields = None
    o.election_type, = _S1.unpack_from(buf, pos)
    pos += 1
    n, pos = read_array_length(buf, pos)
    if n < 0:
        o.topic_partitions = None
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_TopicPartitions_0(buf, pos)
            append(item)
        o.topic_partitions = items
    o.timeout_ms, = _S0.unpack_from(buf, pos)
    pos += 4
    return o, pos


def _enc_ElectLeadersRequest_1(o, w):
    w += _S1.pack(o.election_type)
    items = o.topic_partitions
    if items is None:
        write_array_length(w, -1)
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_TopicPartitions_0(item, w)
    w += _S0.pack(o.timeout_ms)


def _dec_TopicPartitions_1(buf, pos):
    o = _new(TopicPartitions)
    o.topic, pos = read_compact_string(buf, pos)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Partitions was null')
    else:
        end = pos + n * 4
        if end > len(buf):
            raise DecodeError('truncated array Partitions')
        o.partitions = list(_unpack_from('>%di' % n, buf, pos))
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


def _dec_ElectLeadersRequest_2(buf, pos):
    o = _new(ElectLeadersRequest)
    o.election_type, = _S1.unpack_from(buf, pos)
    pos += 1
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        o.topic_partitions = None
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_TopicPartitions_1(buf, pos)
            append(item)
        o.topic_partitions = items
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


def _enc_TopicPartitions_1(o, w):
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
        w += _pack('>%di' % len(items), *items)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_ElectLeadersRequest_2(o, w):
    w += _S1.pack(o.election_type)
    items = o.topic_partitions
    if items is None:
        write_compact_array_length(w, -1)
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_TopicPartitions_1(item, w)
    w += _S0.pack(o.timeout_ms)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


ElectLeadersRequest._DECODERS = {0: _dec_ElectLeadersRequest_0, 1: _dec_ElectLeadersRequest_1, 2: _dec_ElectLeadersRequest_2}
ElectLeadersRequest._ENCODERS = {0: _enc_ElectLeadersRequest_0, 1: _enc_ElectLeadersRequest_1, 2: _enc_ElectLeadersRequest_2}
