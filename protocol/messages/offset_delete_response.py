"""OffsetDeleteResponse: generated from Kafka's OffsetDeleteResponse.json by tools/generate_protocol.py.

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
_S1 = struct.Struct('>ih')


class OffsetDeleteResponsePartition(Struct):
    __slots__ = ('partition_index', 'error_code', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('partition_index', 'PartitionIndex', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None))

    def __init__(self, *, partition_index: int = 0, error_code: int = 0, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.partition_index = partition_index
        self.error_code = error_code
        self.unknown_tagged_fields = unknown_tagged_fields


class OffsetDeleteResponseTopic(Struct):
    __slots__ = ('name', 'partitions', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (0, 32767), None, None, None, None), FieldMeta('partitions', 'Partitions', 'OffsetDeleteResponsePartition', True, (0, 32767), None, None, None, OffsetDeleteResponsePartition))

    def __init__(self, *, name: str = '', partitions: list[OffsetDeleteResponsePartition] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.partitions = [] if partitions is _DEFAULT else partitions
        self.unknown_tagged_fields = unknown_tagged_fields


class OffsetDeleteResponse(Message):
    """Kafka response OffsetDeleteResponse (valid versions 0-0)."""

    NAME = 'OffsetDeleteResponse'
    TYPE = 'response'
    API_KEY = 47
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = None
    OffsetDeleteResponsePartition = OffsetDeleteResponsePartition
    OffsetDeleteResponseTopic = OffsetDeleteResponseTopic
    __slots__ = ('error_code', 'throttle_time_ms', 'topics', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('throttle_time_ms', 'ThrottleTimeMs', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('topics', 'Topics', 'OffsetDeleteResponseTopic', True, (0, 32767), None, None, None, OffsetDeleteResponseTopic))

    def __init__(self, *, error_code: int = 0, throttle_time_ms: int = 0, topics: list[OffsetDeleteResponseTopic] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.error_code = error_code
        self.throttle_time_ms = throttle_time_ms
        self.topics = [] if topics is _DEFAULT else topics
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_OffsetDeleteResponsePartition_0(buf, pos):
    o = _new(OffsetDeleteResponsePartition)
    o.unknown_tagged_fields = None
    o.partition_index, o.error_code = _S1.unpack_from(buf, pos)
    pos += 6
    return o, pos


def _dec_OffsetDeleteResponseTopic_0(buf, pos):
    o = _new(OffsetDeleteResponseTopic)
    o.unknown_tagged_fields = None
    o.name, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Partitions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_OffsetDeleteResponsePartition_0(buf, pos)
            append(item)
        o.partitions = items
    return o, pos


def _dec_OffsetDeleteResponse_0(buf, pos):
    o = _new(OffsetDeleteResponse)
    o.unknown_tagged_fields = None
    o.error_code, o.throttle_time_ms = _S0.unpack_from(buf, pos)
    pos += 6
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_OffsetDeleteResponseTopic_0(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _enc_OffsetDeleteResponsePartition_0(o, w):
    w += _S1.pack(o.partition_index, o.error_code)


def _enc_OffsetDeleteResponseTopic_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_OffsetDeleteResponsePartition_0(item, w)


def _enc_OffsetDeleteResponse_0(o, w):
    w += _S0.pack(o.error_code, o.throttle_time_ms)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_OffsetDeleteResponseTopic_0(item, w)


OffsetDeleteResponse._DECODERS = {0: _dec_OffsetDeleteResponse_0}
OffsetDeleteResponse._ENCODERS = {0: _enc_OffsetDeleteResponse_0}
