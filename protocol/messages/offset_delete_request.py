"""OffsetDeleteRequest: generated from Kafka's OffsetDeleteRequest.json by tools/generate_protocol.py.

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


class OffsetDeleteRequestPartition(Struct):
    __slots__ = ('partition_index', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('partition_index', 'PartitionIndex', 'int32', False, (0, 32767), None, None, None, None),)

    def __init__(self, *, partition_index: int = 0, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.partition_index = partition_index
        self.unknown_tagged_fields = unknown_tagged_fields


class OffsetDeleteRequestTopic(Struct):
    __slots__ = ('name', 'partitions', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (0, 32767), None, None, None, None), FieldMeta('partitions', 'Partitions', 'OffsetDeleteRequestPartition', True, (0, 32767), None, None, None, OffsetDeleteRequestPartition))

    def __init__(self, *, name: str = '', partitions: list[OffsetDeleteRequestPartition] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.partitions = [] if partitions is _DEFAULT else partitions
        self.unknown_tagged_fields = unknown_tagged_fields


class OffsetDeleteRequest(Message):
    """Kafka request OffsetDeleteRequest (valid versions 0-0)."""

    NAME = 'OffsetDeleteRequest'
    TYPE = 'request'
    API_KEY = 47
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = None
    OffsetDeleteRequestPartition = OffsetDeleteRequestPartition
    OffsetDeleteRequestTopic = OffsetDeleteRequestTopic
    __slots__ = ('group_id', 'topics', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('group_id', 'GroupId', 'string', False, (0, 32767), None, None, None, None), FieldMeta('topics', 'Topics', 'OffsetDeleteRequestTopic', True, (0, 32767), None, None, None, OffsetDeleteRequestTopic))

    def __init__(self, *, group_id: str = '', topics: list[OffsetDeleteRequestTopic] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.group_id = group_id
        self.topics = [] if topics is _DEFAULT else topics
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_OffsetDeleteRequestPartition_0(buf, pos):
    o = _new(OffsetDeleteRequestPartition)
    o.unknown_tagged_fields = None
    o.partition_index, = _S0.unpack_from(buf, pos)
    pos += 4
    return o, pos


def _dec_OffsetDeleteRequestTopic_0(buf, pos):
    o = _new(OffsetDeleteRequestTopic)
    o.unknown_tagged_fields = None
    o.name, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Partitions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_OffsetDeleteRequestPartition_0(buf, pos)
            append(item)
        o.partitions = items
    return o, pos


def _dec_OffsetDeleteRequest_0(buf, pos):
    o = _new(OffsetDeleteRequest)
    o.unknown_tagged_fields = None
    o.group_id, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_OffsetDeleteRequestTopic_0(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _enc_OffsetDeleteRequestPartition_0(o, w):
    w += _S0.pack(o.partition_index)


def _enc_OffsetDeleteRequestTopic_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_OffsetDeleteRequestPartition_0(item, w)


def _enc_OffsetDeleteRequest_0(o, w):
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_string(w, o.group_id)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_OffsetDeleteRequestTopic_0(item, w)


OffsetDeleteRequest._DECODERS = {0: _dec_OffsetDeleteRequest_0}
OffsetDeleteRequest._ENCODERS = {0: _enc_OffsetDeleteRequest_0}
