"""ProduceRequest: generated from Kafka's ProduceRequest.json by tools/generate_protocol.py.

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
_S0 = struct.Struct('>hi')
_S1 = struct.Struct('>i')


class PartitionProduceData(Struct):
    __slots__ = ('index', 'records', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('index', 'Index', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('records', 'Records', 'records', False, (0, 32767), (0, 32767), None, None, None))

    def __init__(self, *, index: int = 0, records: bytes | memoryview | None = None, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.index = index
        self.records = records
        self.unknown_tagged_fields = unknown_tagged_fields


class TopicProduceData(Struct):
    __slots__ = ('name', 'topic_id', 'partition_data', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (0, 12), None, None, None, None), FieldMeta('topic_id', 'TopicId', 'uuid', False, (13, 32767), None, None, None, None), FieldMeta('partition_data', 'PartitionData', 'PartitionProduceData', True, (0, 32767), None, None, None, PartitionProduceData))

    def __init__(self, *, name: str = '', topic_id: uuid.UUID = ZERO_UUID, partition_data: list[PartitionProduceData] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.topic_id = topic_id
        self.partition_data = [] if partition_data is _DEFAULT else partition_data
        self.unknown_tagged_fields = unknown_tagged_fields


class ProduceRequest(Message):
    """Kafka request ProduceRequest (valid versions 3-13)."""

    NAME = 'ProduceRequest'
    TYPE = 'request'
    API_KEY = 0
    VALID_VERSIONS = (3, 13)
    FLEXIBLE_VERSIONS = (9, 32767)
    PartitionProduceData = PartitionProduceData
    TopicProduceData = TopicProduceData
    __slots__ = ('transactional_id', 'acks', 'timeout_ms', 'topic_data', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('transactional_id', 'TransactionalId', 'string', False, (3, 32767), (3, 32767), None, None, None), FieldMeta('acks', 'Acks', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('timeout_ms', 'TimeoutMs', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('topic_data', 'TopicData', 'TopicProduceData', True, (0, 32767), None, None, None, TopicProduceData))

    def __init__(self, *, transactional_id: str | None = None, acks: int = 0, timeout_ms: int = 0, topic_data: list[TopicProduceData] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.transactional_id = transactional_id
        self.acks = acks
        self.timeout_ms = timeout_ms
        self.topic_data = [] if topic_data is _DEFAULT else topic_data
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_PartitionProduceData_0(buf, pos):
    o = _new(PartitionProduceData)
    o.unknown_tagged_fields = None
    o.index, = _S1.unpack_from(buf, pos)
    pos += 4
    o.records, pos = read_records(buf, pos)
    return o, pos


def _dec_TopicProduceData_0(buf, pos):
    o = _new(TopicProduceData)
    o.topic_id = ZERO_UUID
    o.unknown_tagged_fields = None
    o.name, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array PartitionData was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_PartitionProduceData_0(buf, pos)
            append(item)
        o.partition_data = items
    return o, pos


def _dec_ProduceRequest_0(buf, pos):
    o = _new(ProduceRequest)
    o.unknown_tagged_fields = None
    o.transactional_id, pos = read_nullable_string(buf, pos)
    o.acks, o.timeout_ms = _S0.unpack_from(buf, pos)
    pos += 6
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array TopicData was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_TopicProduceData_0(buf, pos)
            append(item)
        o.topic_data = items
    return o, pos


def _enc_PartitionProduceData_0(o, w):
    w += _S1.pack(o.index)
    write_records(w, o.records)


def _enc_TopicProduceData_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    items = o.partition_data
    if items is None:
        raise EncodeError('non-nullable array PartitionData is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_PartitionProduceData_0(item, w)


def _enc_ProduceRequest_0(o, w):
    write_nullable_string(w, o.transactional_id)
    w += _S0.pack(o.acks, o.timeout_ms)
    items = o.topic_data
    if items is None:
        raise EncodeError('non-nullable array TopicData is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_TopicProduceData_0(item, w)


def _dec_PartitionProduceData_1(buf, pos):
    o = _new(PartitionProduceData)
    o.index, = _S1.unpack_from(buf, pos)
    pos += 4
    o.records, pos = read_compact_records(buf, pos)
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


def _dec_TopicProduceData_1(buf, pos):
    o = _new(TopicProduceData)
    o.topic_id = ZERO_UUID
    o.name, pos = read_compact_string(buf, pos)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array PartitionData was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_PartitionProduceData_1(buf, pos)
            append(item)
        o.partition_data = items
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


def _dec_ProduceRequest_1(buf, pos):
    o = _new(ProduceRequest)
    o.transactional_id, pos = read_compact_nullable_string(buf, pos)
    o.acks, o.timeout_ms = _S0.unpack_from(buf, pos)
    pos += 6
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array TopicData was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_TopicProduceData_1(buf, pos)
            append(item)
        o.topic_data = items
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


def _enc_PartitionProduceData_1(o, w):
    w += _S1.pack(o.index)
    write_compact_records(w, o.records)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_TopicProduceData_1(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_compact_string(w, o.name)
    items = o.partition_data
    if items is None:
        raise EncodeError('non-nullable array PartitionData is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_PartitionProduceData_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_ProduceRequest_1(o, w):
    write_compact_nullable_string(w, o.transactional_id)
    w += _S0.pack(o.acks, o.timeout_ms)
    items = o.topic_data
    if items is None:
        raise EncodeError('non-nullable array TopicData is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_TopicProduceData_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_TopicProduceData_2(buf, pos):
    o = _new(TopicProduceData)
    o.name = ''
    o.topic_id, pos = read_uuid(buf, pos)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array PartitionData was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_PartitionProduceData_1(buf, pos)
            append(item)
        o.partition_data = items
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


def _dec_ProduceRequest_2(buf, pos):
    o = _new(ProduceRequest)
    o.transactional_id, pos = read_compact_nullable_string(buf, pos)
    o.acks, o.timeout_ms = _S0.unpack_from(buf, pos)
    pos += 6
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array TopicData was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_TopicProduceData_2(buf, pos)
            append(item)
        o.topic_data = items
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


def _enc_TopicProduceData_2(o, w):
    write_uuid(w, o.topic_id)
    items = o.partition_data
    if items is None:
        raise EncodeError('non-nullable array PartitionData is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_PartitionProduceData_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_ProduceRequest_2(o, w):
    write_compact_nullable_string(w, o.transactional_id)
    w += _S0.pack(o.acks, o.timeout_ms)
    items = o.topic_data
    if items is None:
        raise EncodeError('non-nullable array TopicData is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_TopicProduceData_2(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


ProduceRequest._DECODERS = {3: _dec_ProduceRequest_0, 4: _dec_ProduceRequest_0, 5: _dec_ProduceRequest_0, 6: _dec_ProduceRequest_0, 7: _dec_ProduceRequest_0, 8: _dec_ProduceRequest_0, 9: _dec_ProduceRequest_1, 10: _dec_ProduceRequest_1, 11: _dec_ProduceRequest_1, 12: _dec_ProduceRequest_1, 13: _dec_ProduceRequest_2}
ProduceRequest._ENCODERS = {3: _enc_ProduceRequest_0, 4: _enc_ProduceRequest_0, 5: _enc_ProduceRequest_0, 6: _enc_ProduceRequest_0, 7: _enc_ProduceRequest_0, 8: _enc_ProduceRequest_0, 9: _enc_ProduceRequest_1, 10: _enc_ProduceRequest_1, 11: _enc_ProduceRequest_1, 12: _enc_ProduceRequest_1, 13: _enc_ProduceRequest_2}
