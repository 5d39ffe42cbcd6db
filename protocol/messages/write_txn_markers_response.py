"""WriteTxnMarkersResponse: generated from Kafka's WriteTxnMarkersResponse.json by tools/generate_protocol.py.

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
_S0 = struct.Struct('>q')
_S1 = struct.Struct('>ih')


class WritableTxnMarkerPartitionResult(Struct):
    __slots__ = ('partition_index', 'error_code', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('partition_index', 'PartitionIndex', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None))

    def __init__(self, *, partition_index: int = 0, error_code: int = 0, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.partition_index = partition_index
        self.error_code = error_code
        self.unknown_tagged_fields = unknown_tagged_fields


class WritableTxnMarkerTopicResult(Struct):
    __slots__ = ('name', 'partitions', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (0, 32767), None, None, None, None), FieldMeta('partitions', 'Partitions', 'WritableTxnMarkerPartitionResult', True, (0, 32767), None, None, None, WritableTxnMarkerPartitionResult))

    def __init__(self, *, name: str = '', partitions: list[WritableTxnMarkerPartitionResult] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.partitions = [] if partitions is _DEFAULT else partitions
        self.unknown_tagged_fields = unknown_tagged_fields


class WritableTxnMarkerResult(Struct):
    __slots__ = ('producer_id', 'topics', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('producer_id', 'ProducerId', 'int64', False, (0, 32767), None, None, None, None), FieldMeta('topics', 'Topics', 'WritableTxnMarkerTopicResult', True, (0, 32767), None, None, None, WritableTxnMarkerTopicResult))

    def __init__(self, *, producer_id: int = 0, topics: list[WritableTxnMarkerTopicResult] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.producer_id = producer_id
        self.topics = [] if topics is _DEFAULT else topics
        self.unknown_tagged_fields = unknown_tagged_fields


class WriteTxnMarkersResponse(Message):
    """Kafka response WriteTxnMarkersResponse (valid versions 1-2)."""

    NAME = 'WriteTxnMarkersResponse'
    TYPE = 'response'
    API_KEY = 27
    VALID_VERSIONS = (1, 2)
    FLEXIBLE_VERSIONS = (1, 32767)
    WritableTxnMarkerPartitionResult = WritableTxnMarkerPartitionResult
    WritableTxnMarkerTopicResult = WritableTxnMarkerTopicResult
    WritableTxnMarkerResult = WritableTxnMarkerResult
    __slots__ = ('markers', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('markers', 'Markers', 'WritableTxnMarkerResult', True, (0, 32767), None, None, None, WritableTxnMarkerResult),)

    def __init__(self, *, markers: list[WritableTxnMarkerResult] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.markers = [] if markers is _DEFAULT else markers
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_WritableTxnMarkerPartitionResult_0(buf, pos):
    o = _new(WritableTxnMarkerPartitionResult)
    o.partition_index, o.error_code = _S1.unpack_from(buf, pos)
    pos += 6
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


def _dec_WritableTxnMarkerTopicResult_0(buf, pos):
    o = _new(WritableTxnMarkerTopicResult)
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
            item, pos = _dec_WritableTxnMarkerPartitionResult_0(buf, pos)
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


def _dec_WritableTxnMarkerResult_0(buf, pos):
    o = _new(WritableTxnMarkerResult)
    o.producer_id, = _S0.unpack_from(buf, pos)
    pos += 8
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
            item, pos = _dec_WritableTxnMarkerTopicResult_0(buf, pos)
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


def _dec_WriteTxnMarkersResponse_0(buf, pos):
    o = _new(WriteTxnMarkersResponse)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Markers was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_WritableTxnMarkerResult_0(buf, pos)
            append(item)
        o.markers = items
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


def _enc_WritableTxnMarkerPartitionResult_0(o, w):
    w += _S1.pack(o.partition_index, o.error_code)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_WritableTxnMarkerTopicResult_0(o, w):
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
            _enc_WritableTxnMarkerPartitionResult_0(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_WritableTxnMarkerResult_0(o, w):
    w += _S0.pack(o.producer_id)
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
            _enc_WritableTxnMarkerTopicResult_0(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_WriteTxnMarkersResponse_0(o, w):
    items = o.markers
    if items is None:
        raise EncodeError('non-nullable array Markers is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_WritableTxnMarkerResult_0(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


WriteTxnMarkersResponse._DECODERS = {1: _dec_WriteTxnMarkersResponse_0, 2: _dec_WriteTxnMarkersResponse_0}
WriteTxnMarkersResponse._ENCODERS = {1: _enc_WriteTxnMarkersResponse_0, 2: _enc_WriteTxnMarkersResponse_0}
