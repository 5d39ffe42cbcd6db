"""ListOffsetsResponse: generated from Kafka's ListOffsetsResponse.json by tools/generate_protocol.py.

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
_S0 = struct.Struct('>ihqq')
_S1 = struct.Struct('>i')
_S2 = struct.Struct('>ihqqi')


class ListOffsetsPartitionResponse(Struct):
    __slots__ = ('partition_index', 'error_code', 'old_style_offsets', 'timestamp', 'offset', 'leader_epoch', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('partition_index', 'PartitionIndex', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('old_style_offsets', 'OldStyleOffsets', 'int64', True, (0, 0), None, None, None, None), FieldMeta('timestamp', 'Timestamp', 'int64', False, (1, 32767), None, None, None, None), FieldMeta('offset', 'Offset', 'int64', False, (1, 32767), None, None, None, None), FieldMeta('leader_epoch', 'LeaderEpoch', 'int32', False, (4, 32767), None, None, None, None))

    def __init__(self, *, partition_index: int = 0, error_code: int = 0, old_style_offsets: list[int] | None = _DEFAULT, timestamp: int = -1, offset: int = -1, leader_epoch: int = -1, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.partition_index = partition_index
        self.error_code = error_code
        self.old_style_offsets = [] if old_style_offsets is _DEFAULT else old_style_offsets
        self.timestamp = timestamp
        self.offset = offset
        self.leader_epoch = leader_epoch
        self.unknown_tagged_fields = unknown_tagged_fields


class ListOffsetsTopicResponse(Struct):
    __slots__ = ('name', 'partitions', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (0, 32767), None, None, None, None), FieldMeta('partitions', 'Partitions', 'ListOffsetsPartitionResponse', True, (0, 32767), None, None, None, ListOffsetsPartitionResponse))

    def __init__(self, *, name: str = '', partitions: list[ListOffsetsPartitionResponse] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.partitions = [] if partitions is _DEFAULT else partitions
        self.unknown_tagged_fields = unknown_tagged_fields


class ListOffsetsResponse(Message):
    """Kafka response ListOffsetsResponse (valid versions 1-11)."""

    NAME = 'ListOffsetsResponse'
    TYPE = 'response'
    API_KEY = 2
    VALID_VERSIONS = (1, 11)
    FLEXIBLE_VERSIONS = (6, 32767)
    ListOffsetsPartitionResponse = ListOffsetsPartitionResponse
    ListOffsetsTopicResponse = ListOffsetsTopicResponse
    __slots__ = ('throttle_time_ms', 'topics', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('throttle_time_ms', 'ThrottleTimeMs', 'int32', False, (2, 32767), None, None, None, None), FieldMeta('topics', 'Topics', 'ListOffsetsTopicResponse', True, (0, 32767), None, None, None, ListOffsetsTopicResponse))

    def __init__(self, *, throttle_time_ms: int = 0, topics: list[ListOffsetsTopicResponse] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.topics = [] if topics is _DEFAULT else topics
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_ListOffsetsPartitionResponse_0(buf, pos):
    o = _new(ListOffsetsPartitionResponse)
    o.old_style_offsets = []
    o.leader_epoch = -1
    o.unknown_tagged_fields = None
    o.partition_index, o.error_code, o.timestamp, o.offset = _S0.unpack_from(buf, pos)
    pos += 22
    return o, pos


def _dec_ListOffsetsTopicResponse_0(buf, pos):
    o = _new(ListOffsetsTopicResponse)
    o.unknown_tagged_fields = None
    o.name, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Partitions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ListOffsetsPartitionResponse_0(buf, pos)
            append(item)
        o.partitions = items
    return o, pos


def _dec_ListOffsetsResponse_0(buf, pos):
    o = _new(ListOffsetsResponse)
    o.throttle_time_ms = 0
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ListOffsetsTopicResponse_0(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _enc_ListOffsetsPartitionResponse_0(o, w):
    w += _S0.pack(o.partition_index, o.error_code, o.timestamp, o.offset)


def _enc_ListOffsetsTopicResponse_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_ListOffsetsPartitionResponse_0(item, w)


def _enc_ListOffsetsResponse_0(o, w):
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_ListOffsetsTopicResponse_0(item, w)


def _dec_ListOffsetsResponse_1(buf, pos):
    o = _new(ListOffsetsResponse)
    o.unknown_tagged_fields = None
    o.throttle_time_ms, = _S1.unpack_from(buf, pos)
    pos += 4
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ListOffsetsTopicResponse_0(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _enc_ListOffsetsResponse_1(o, w):
    w += _S1.pack(o.throttle_time_ms)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_ListOffsetsTopicResponse_0(item, w)


def _dec_ListOffsetsPartitionResponse_1(buf, pos):
    o = _new(ListOffsetsPartitionResponse)
    o.old_style_offsets = []
    o.unknown_tagged_fields = None
    o.partition_index, o.error_code, o.timestamp, o.offset, o.leader_epoch = _S2.unpack_from(buf, pos)
    pos += 26
    return o, pos


def _dec_ListOffsetsTopicResponse_1(buf, pos):
    o = _new(ListOffsetsTopicResponse)
    o.unknown_tagged_fields = None
    o.name, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Partitions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ListOffsetsPartitionResponse_1(buf, pos)
            append(item)
        o.partitions = items
    return o, pos


def _dec_ListOffsetsResponse_2(buf, pos):
    o = _new(ListOffsetsResponse)
    o.unknown_tagged_fields = None
    o.throttle_time_ms, = _S1.unpack_from(buf, pos)
    pos += 4
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ListOffsetsTopicResponse_1(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _enc_ListOffsetsPartitionResponse_1(o, w):
    w += _S2.pack(o.partition_index, o.error_code, o.timestamp, o.offset, o.leader_epoch)


def _enc_ListOffsetsTopicResponse_1(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_ListOffsetsPartitionResponse_1(item, w)


def _enc_ListOffsetsResponse_2(o, w):
    w += _S1.pack(o.throttle_time_ms)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_ListOffsetsTopicResponse_1(item, w)


def _dec_ListOffsetsPartitionResponse_2(buf, pos):
    o = _new(ListOffsetsPartitionResponse)
    o.old_style_offsets = []
    o.partition_index, o.error_code, o.timestamp, o.offset, o.leader_epoch = _S2.unpack_from(buf, pos)
    pos += 26
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


def _dec_ListOffsetsTopicResponse_2(buf, pos):
    o = _new(ListOffsetsTopicResponse)
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
            item, pos = _dec_ListOffsetsPartitionResponse_2(buf, pos)
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


def _dec_ListOffsetsResponse_3(buf, pos):
    o = _new(ListOffsetsResponse)
    o.throttle_time_ms, = _S1.unpack_from(buf, pos)
    pos += 4
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
            item, pos = _dec_ListOffsetsTopicResponse_2(buf, pos)
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


def _enc_ListOffsetsPartitionResponse_2(o, w):
    w += _S2.pack(o.partition_index, o.error_code, o.timestamp, o.offset, o.leader_epoch)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_ListOffsetsTopicResponse_2(o, w):
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
            _enc_ListOffsetsPartitionResponse_2(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_ListOffsetsResponse_3(o, w):
    w += _S1.pack(o.throttle_time_ms)
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
            _enc_ListOffsetsTopicResponse_2(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


ListOffsetsResponse._DECODERS = {1: _dec_ListOffsetsResponse_0, 2: _dec_ListOffsetsResponse_1, 3: _dec_ListOffsetsResponse_1, 4: _dec_ListOffsetsResponse_2, 5: _dec_ListOffsetsResponse_2, 6: _dec_ListOffsetsResponse_3, 7: _dec_ListOffsetsResponse_3, 8: _dec_ListOffsetsResponse_3, 9: _dec_ListOffsetsResponse_3, 10: _dec_ListOffsetsResponse_3, 11: _dec_ListOffsetsResponse_3}
ListOffsetsResponse._ENCODERS = {1: _enc_ListOffsetsResponse_0, 2: _enc_ListOffsetsResponse_1, 3: _enc_ListOffsetsResponse_1, 4: _enc_ListOffsetsResponse_2, 5: _enc_ListOffsetsResponse_2, 6: _enc_ListOffsetsResponse_3, 7: _enc_ListOffsetsResponse_3, 8: _enc_ListOffsetsResponse_3, 9: _enc_ListOffsetsResponse_3, 10: _enc_ListOffsetsResponse_3, 11: _enc_ListOffsetsResponse_3}
