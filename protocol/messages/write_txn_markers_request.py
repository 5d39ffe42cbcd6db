"""WriteTxnMarkersRequest: generated from Kafka's WriteTxnMarkersRequest.json by tools/generate_protocol.py.

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
_S0 = struct.Struct('>qh?')
_S1 = struct.Struct('>i')
_S2 = struct.Struct('>ib')


class WritableTxnMarkerTopic(Struct):
    __slots__ = ('name', 'partition_indexes', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (0, 32767), None, None, None, None), FieldMeta('partition_indexes', 'PartitionIndexes', 'int32', True, (0, 32767), None, None, None, None))

    def __init__(self, *, name: str = '', partition_indexes: list[int] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.partition_indexes = [] if partition_indexes is _DEFAULT else partition_indexes
        self.unknown_tagged_fields = unknown_tagged_fields


class WritableTxnMarker(Struct):
    __slots__ = ('producer_id', 'producer_epoch', 'transaction_result', 'topics', 'coordinator_epoch', 'transaction_version', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('producer_id', 'ProducerId', 'int64', False, (0, 32767), None, None, None, None), FieldMeta('producer_epoch', 'ProducerEpoch', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('transaction_result', 'TransactionResult', 'bool', False, (0, 32767), None, None, None, None), FieldMeta('topics', 'Topics', 'WritableTxnMarkerTopic', True, (0, 32767), None, None, None, WritableTxnMarkerTopic), FieldMeta('coordinator_epoch', 'CoordinatorEpoch', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('transaction_version', 'TransactionVersion', 'int8', False, (2, 32767), None, None, None, None))

    def __init__(self, *, producer_id: int = 0, producer_epoch: int = 0, transaction_result: bool = False, topics: list[WritableTxnMarkerTopic] | None = _DEFAULT, coordinator_epoch: int = 0, transaction_version: int = 0, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch
        self.transaction_result = transaction_result
        self.topics = [] if topics is _DEFAULT else topics
        self.coordinator_epoch = coordinator_epoch
        self.transaction_version = transaction_version
        self.unknown_tagged_fields = unknown_tagged_fields


class WriteTxnMarkersRequest(Message):
    """Kafka request WriteTxnMarkersRequest (valid versions 1-2)."""

    NAME = 'WriteTxnMarkersRequest'
    TYPE = 'request'
    API_KEY = 27
    VALID_VERSIONS = (1, 2)
    FLEXIBLE_VERSIONS = (1, 32767)
    WritableTxnMarkerTopic = WritableTxnMarkerTopic
    WritableTxnMarker = WritableTxnMarker
    __slots__ = ('markers', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('markers', 'Markers', 'WritableTxnMarker', True, (0, 32767), None, None, None, WritableTxnMarker),)

    def __init__(self, *, markers: list[WritableTxnMarker] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.markers = [] if markers is _DEFAULT else markers
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_WritableTxnMarkerTopic_0(buf, pos):
    o = _new(WritableTxnMarkerTopic)
    o.name, pos = read_compact_string(buf, pos)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array PartitionIndexes was null')
    else:
        end = pos + n * 4
        if end > len(buf):
            raise DecodeError('truncated array PartitionIndexes')
        o.partition_indexes = list(_unpack_from('>%di' % n, buf, pos))
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


def _dec_WritableTxnMarker_0(buf, pos):
    o = _new(WritableTxnMarker)
    o.transaction_version = 0
    o.producer_id, o.producer_epoch, o.transaction_result = _S0.unpack_from(buf, pos)
    pos += 11
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
            item, pos = _dec_WritableTxnMarkerTopic_0(buf, pos)
            append(item)
        o.topics = items
    o.coordinator_epoch, = _S1.unpack_from(buf, pos)
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


def _dec_WriteTxnMarkersRequest_0(buf, pos):
    o = _new(WriteTxnMarkersRequest)
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
            item, pos = _dec_WritableTxnMarker_0(buf, pos)
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


def _enc_WritableTxnMarkerTopic_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_compact_string(w, o.name)
    items = o.partition_indexes
    if items is None:
        raise EncodeError('non-nullable array PartitionIndexes is None')
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


def _enc_WritableTxnMarker_0(o, w):
    w += _S0.pack(o.producer_id, o.producer_epoch, o.transaction_result)
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
            _enc_WritableTxnMarkerTopic_0(item, w)
    w += _S1.pack(o.coordinator_epoch)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_WriteTxnMarkersRequest_0(o, w):
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
            _enc_WritableTxnMarker_0(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_WritableTxnMarker_1(buf, pos):
    o = _new(WritableTxnMarker)
    o.producer_id, o.producer_epoch, o.transaction_result = _S0.unpack_from(buf, pos)
    pos += 11
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
            item, pos = _dec_WritableTxnMarkerTopic_0(buf, pos)
            append(item)
        o.topics = items
    o.coordinator_epoch, o.transaction_version = _S2.unpack_from(buf, pos)
    pos += 5
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


def _dec_WriteTxnMarkersRequest_1(buf, pos):
    o = _new(WriteTxnMarkersRequest)
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
            item, pos = _dec_WritableTxnMarker_1(buf, pos)
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


def _enc_WritableTxnMarker_1(o, w):
    w += _S0.pack(o.producer_id, o.producer_epoch, o.transaction_result)
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
            _enc_WritableTxnMarkerTopic_0(item, w)
    w += _S2.pack(o.coordinator_epoch, o.transaction_version)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_WriteTxnMarkersRequest_1(o, w):
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
            _enc_WritableTxnMarker_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


WriteTxnMarkersRequest._DECODERS = {1: _dec_WriteTxnMarkersRequest_0, 2: _dec_WriteTxnMarkersRequest_1}
WriteTxnMarkersRequest._ENCODERS = {1: _enc_WriteTxnMarkersRequest_0, 2: _enc_WriteTxnMarkersRequest_1}
