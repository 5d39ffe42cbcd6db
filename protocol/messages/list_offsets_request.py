"""ListOffsetsRequest: generated from Kafka's ListOffsetsRequest.json by tools/generate_protocol.py.

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
_S1 = struct.Struct('>iq')
_S2 = struct.Struct('>ib')
_S3 = struct.Struct('>iiq')


class ListOffsetsPartition(Struct):
    __slots__ = ('partition_index', 'current_leader_epoch', 'timestamp', 'max_num_offsets', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('partition_index', 'PartitionIndex', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('current_leader_epoch', 'CurrentLeaderEpoch', 'int32', False, (4, 32767), None, None, None, None), FieldMeta('timestamp', 'Timestamp', 'int64', False, (0, 32767), None, None, None, None), FieldMeta('max_num_offsets', 'MaxNumOffsets', 'int32', False, (0, 0), None, None, None, None))

    def __init__(self, *, partition_index: int = 0, current_leader_epoch: int = -1, timestamp: int = 0, max_num_offsets: int = 1, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.partition_index = partition_index
        self.current_leader_epoch = current_leader_epoch
        self.timestamp = timestamp
        self.max_num_offsets = max_num_offsets
        self.unknown_tagged_fields = unknown_tagged_fields


class ListOffsetsTopic(Struct):
    __slots__ = ('name', 'partitions', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (0, 32767), None, None, None, None), FieldMeta('partitions', 'Partitions', 'ListOffsetsPartition', True, (0, 32767), None, None, None, ListOffsetsPartition))

    def __init__(self, *, name: str = '', partitions: list[ListOffsetsPartition] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.partitions = [] if partitions is _DEFAULT else partitions
        self.unknown_tagged_fields = unknown_tagged_fields


class ListOffsetsRequest(Message):
    """Kafka request ListOffsetsRequest (valid versions 1-11)."""

    NAME = 'ListOffsetsRequest'
    TYPE = 'request'
    API_KEY = 2
    VALID_VERSIONS = (1, 11)
    FLEXIBLE_VERSIONS = (6, 32767)
    ListOffsetsPartition = ListOffsetsPartition
    ListOffsetsTopic = ListOffsetsTopic
    __slots__ = ('replica_id', 'isolation_level', 'topics', 'timeout_ms', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('replica_id', 'ReplicaId', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('isolation_level', 'IsolationLevel', 'int8', False, (2, 32767), None, None, None, None), FieldMeta('topics', 'Topics', 'ListOffsetsTopic', True, (0, 32767), None, None, None, ListOffsetsTopic), FieldMeta('timeout_ms', 'TimeoutMs', 'int32', False, (10, 32767), None, None, None, None))

    def __init__(self, *, replica_id: int = 0, isolation_level: int = 0, topics: list[ListOffsetsTopic] | None = _DEFAULT, timeout_ms: int = 0, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.replica_id = replica_id
        self.isolation_level = isolation_level
        self.topics = [] if topics is _DEFAULT else topics
        self.timeout_ms = timeout_ms
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_ListOffsetsPartition_0(buf, pos):
    o = _new(ListOffsetsPartition)
    o.current_leader_epoch = -1
    o.max_num_offsets = 1
    o.unknown_tagged_fields = None
    o.partition_index, o.timestamp = _S1.unpack_from(buf, pos)
    pos += 12
    return o, pos


def _dec_ListOffsetsTopic_0(buf, pos):
    o = _new(ListOffsetsTopic)
    o.unknown_tagged_fields = None
    o.name, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Partitions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ListOffsetsPartition_0(buf, pos)
            append(item)
        o.partitions = items
    return o, pos


def _dec_ListOffsetsRequest_0(buf, pos):
    o = _new(ListOffsetsRequest)
    o.isolation_level = 0
    o.timeout_ms = 0
    o.unknown_tagged_fields = None
    o.replica_id, = _S0.unpack_from(buf, pos)
    pos += 4
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ListOffsetsTopic_0(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _enc_ListOffsetsPartition_0(o, w):
    w += _S1.pack(o.partition_index, o.timestamp)


def _enc_ListOffsetsTopic_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_ListOffsetsPartition_0(item, w)


def _enc_ListOffsetsRequest_0(o, w):
    w += _S0.pack(o.replica_id)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_ListOffsetsTopic_0(item, w)


def _dec_ListOffsetsRequest_1(buf, pos):
    o = _new(ListOffsetsRequest)
    o.timeout_ms = 0
    o.unknown_tagged_fields = None
    o.replica_id, o.isolation_level = _S2.unpack_from(buf, pos)
    pos += 5
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ListOffsetsTopic_0(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _enc_ListOffsetsRequest_1(o, w):
    w += _S2.pack(o.replica_id, o.isolation_level)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_ListOffsetsTopic_0(item, w)


def _dec_ListOffsetsPartition_1(buf, pos):
    o = _new(ListOffsetsPartition)
    o.max_num_offsets = 1
    o.unknown_tagged_fields = None
    o.partition_index, o.current_leader_epoch, o.timestamp = _S3.unpack_from(buf, pos)
    pos += 16
    return o, pos


def _dec_ListOffsetsTopic_1(buf, pos):
    o = _new(ListOffsetsTopic)
    o.unknown_tagged_fields = None
    o.name, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Partitions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ListOffsetsPartition_1(buf, pos)
            append(item)
        o.partitions = items
    return o, pos


def _dec_ListOffsetsRequest_2(buf, pos):
    o = _new(ListOffsetsRequest)
    o.timeout_ms = 0
    o.unknown_tagged_fields = None
    o.replica_id, o.isolation_level = _S2.unpack_from(buf, pos)
    pos += 5
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ListOffsetsTopic_1(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _enc_ListOffsetsPartition_1(o, w):
    w += _S3.pack(o.partition_index, o.current_leader_epoch, o.timestamp)


def _enc_ListOffsetsTopic_1(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_ListOffsetsPartition_1(item, w)


def _enc_ListOffsetsRequest_2(o, w):
    w += _S2.pack(o.replica_id, o.isolation_level)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_ListOffsetsTopic_1(item, w)


def _dec_ListOffsetsPartition_2(buf, pos):
    o = _new(ListOffsetsPartition)
    o.max_num_offsets = 1
    o.partition_index, o.current_leader_epoch, o.timestamp = _S3.unpack_from(buf, pos)
    pos += 16
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


def _dec_ListOffsetsTopic_2(buf, pos):
    o = _new(ListOffsetsTopic)
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
            item, pos = _dec_ListOffsetsPartition_2(buf, pos)
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


def _dec_ListOffsetsRequest_3(buf, pos):
    o = _new(ListOffsetsRequest)
    o.timeout_ms = 0
    o.replica_id, o.isolation_level = _S2.unpack_from(buf, pos)
    pos += 5
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
            item, pos = _dec_ListOffsetsTopic_2(buf, pos)
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


def _enc_ListOffsetsPartition_2(o, w):
    w += _S3.pack(o.partition_index, o.current_leader_epoch, o.timestamp)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_ListOffsetsTopic_2(o, w):
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
            _enc_ListOffsetsPartition_2(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_ListOffsetsRequest_3(o, w):
    w += _S2.pack(o.replica_id, o.isolation_level)
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
            _enc_ListOffsetsTopic_2(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_ListOffsetsRequest_4(buf, pos):
    o = _new(ListOffsetsRequest)
    o.replica_id, o.isolation_level = _S2.unpack_from(buf, pos)
    pos += 5
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
            item, pos = _dec_ListOffsetsTopic_2(buf, pos)
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


def _enc_ListOffsetsRequest_4(o, w):
    w += _S2.pack(o.replica_id, o.isolation_level)
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
            _enc_ListOffsetsTopic_2(item, w)
    w += _S0.pack(o.timeout_ms)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


ListOffsetsRequest._DECODERS = {1: _dec_ListOffsetsRequest_0, 2: _dec_ListOffsetsRequest_1, 3: _dec_ListOffsetsRequest_1, 4: _dec_ListOffsetsRequest_2, 5: _dec_ListOffsetsRequest_2, 6: _dec_ListOffsetsRequest_3, 7: _dec_ListOffsetsRequest_3, 8: _dec_ListOffsetsRequest_3, 9: _dec_ListOffsetsRequest_3, 10: _dec_ListOffsetsRequest_4, 11: _dec_ListOffsetsRequest_4}
ListOffsetsRequest._ENCODERS = {1: _enc_ListOffsetsRequest_0, 2: _enc_ListOffsetsRequest_1, 3: _enc_ListOffsetsRequest_1, 4: _enc_ListOffsetsRequest_2, 5: _enc_ListOffsetsRequest_2, 6: _enc_ListOffsetsRequest_3, 7: _enc_ListOffsetsRequest_3, 8: _enc_ListOffsetsRequest_3, 9: _enc_ListOffsetsRequest_3, 10: _enc_ListOffsetsRequest_4, 11: _enc_ListOffsetsRequest_4}
