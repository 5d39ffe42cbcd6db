"""DeleteRecordsRequest: generated from Kafka's DeleteRecordsRequest.json by tools/generate_protocol.py.

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
_S1 = struct.Struct('>i')


class DeleteRecordsPartition(Struct):
    __slots__ = ('partition_index', 'offset', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('partition_index', 'PartitionIndex', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('offset', 'Offset', 'int64', False, (0, 32767), None, None, None, None))

    def __init__(self, *, partition_index: int = 0, offset: int = 0, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.partition_index = partition_index
        self.offset = offset
        self.unknown_tagged_fields = unknown_tagged_fields


class DeleteRecordsTopic(Struct):
    __slots__ = ('name', 'partitions', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (0, 32767), None, None, None, None), FieldMeta('partitions', 'Partitions', 'DeleteRecordsPartition', True, (0, 32767), None, None, None, DeleteRecordsPartition))

    def __init__(self, *, name: str = '', partitions: list[DeleteRecordsPartition] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.partitions = [] if partitions is _DEFAULT else partitions
        self.unknown_tagged_fields = unknown_tagged_fields


class DeleteRecordsRequest(Message):
    """Kafka request DeleteRecordsRequest (valid versions 0-2)."""

    NAME = 'DeleteRecordsRequest'
    TYPE = 'request'
    API_KEY = 21
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (2, 32767)
    DeleteRecordsPartition = DeleteRecordsPartition
    DeleteRecordsTopic = DeleteRecordsTopic
    __slots__ = ('topics', 'timeout_ms', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('topics', 'Topics', 'DeleteRecordsTopic', True, (0, 32767), None, None, None, DeleteRecordsTopic), FieldMeta('timeout_ms', 'TimeoutMs', 'int32', False, (0, 32767), None, None, None, None))

    def __init__(self, *, topics: list[DeleteRecordsTopic] | None = _DEFAULT, timeout_ms: int = 0, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.topics = [] if topics is _DEFAULT else topics
        self.timeout_ms = timeout_ms
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_DeleteRecordsPartition_0(buf, pos):
    o = _new(DeleteRecordsPartition)
    o.unknown_tagged_fields = None
    o.partition_index, o.offset = _S0.unpack_from(buf, pos)
    pos += 12
    return o, pos


def _dec_DeleteRecordsTopic_0(buf, pos):
    o = _new(DeleteRecordsTopic)
    o.unknown_tagged_fields = None
    o.name, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Partitions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_DeleteRecordsPartition_0(buf, pos)
            append(item)
        o.partitions = items
    return o, pos


def _dec_DeleteRecordsRequest_0(buf, pos):
    o = _new(DeleteRecordsRequest)
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_DeleteRecordsTopic_0(buf, pos)
            append(item)
        o.topics = items
    o.timeout_ms, = _S1.unpack_from(buf, pos)
    pos += 4
    return o, pos


def _enc_DeleteRecordsPartition_0(o, w):
    w += _S0.pack(o.partition_index, o.offset)


def _enc_DeleteRecordsTopic_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_DeleteRecordsPartition_0(item, w)


def _enc_DeleteRecordsRequest_0(o, w):
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_DeleteRecordsTopic_0(item, w)
    w += _S1.pack(o.timeout_ms)


def _dec_DeleteRecordsPartition_1(buf, pos):
    o = _new(DeleteRecordsPartition)
    o.partition_index, o.offset = _S0.unpack_from(buf, pos)
    pos += 12
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


def _dec_DeleteRecordsTopic_1(buf, pos):
    o = _new(DeleteRecordsTopic)
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
            item, pos = _dec_DeleteRecordsPartition_1(buf, pos)
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


def _dec_DeleteRecordsRequest_1(buf, pos):
    o = _new(DeleteRecordsRequest)
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
            item, pos = _dec_DeleteRecordsTopic_1(buf, pos)
            append(item)
        o.topics = items
    o.timeout_ms, = _S1.unpack_from(buf, pos)
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


def _enc_DeleteRecordsPartition_1(o, w):
    w += _S0.pack(o.partition_index, o.offset)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_DeleteRecordsTopic_1(o, w):
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
            _enc_DeleteRecordsPartition_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_DeleteRecordsRequest_1(o, w):
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
            _enc_DeleteRecordsTopic_1(item, w)
    w += _S1.pack(o.timeout_ms)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


DeleteRecordsRequest._DECODERS = {0: _dec_DeleteRecordsRequest_0, 1: _dec_DeleteRecordsRequest_0, 2: _dec_DeleteRecordsRequest_1}
DeleteRecordsRequest._ENCODERS = {0: _enc_DeleteRecordsRequest_0, 1: _enc_DeleteRecordsRequest_0, 2: _enc_DeleteRecordsRequest_1}
