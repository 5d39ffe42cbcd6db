"""AddPartitionsToTxnResponse: generated from Kafka's AddPartitionsToTxnResponse.json by tools/generate_protocol.py.

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
_S1 = struct.Struct('>ih')


class AddPartitionsToTxnPartitionResult(Struct):
    __slots__ = ('partition_index', 'partition_error_code', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('partition_index', 'PartitionIndex', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('partition_error_code', 'PartitionErrorCode', 'int16', False, (0, 32767), None, None, None, None))

    def __init__(self, *, partition_index: int = 0, partition_error_code: int = 0, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.partition_index = partition_index
        self.partition_error_code = partition_error_code
        self.unknown_tagged_fields = unknown_tagged_fields


class AddPartitionsToTxnTopicResult(Struct):
    __slots__ = ('name', 'results_by_partition', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (0, 32767), None, None, None, None), FieldMeta('results_by_partition', 'ResultsByPartition', 'AddPartitionsToTxnPartitionResult', True, (0, 32767), None, None, None, AddPartitionsToTxnPartitionResult))

    def __init__(self, *, name: str = '', results_by_partition: list[AddPartitionsToTxnPartitionResult] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.results_by_partition = [] if results_by_partition is _DEFAULT else results_by_partition
        self.unknown_tagged_fields = unknown_tagged_fields


class AddPartitionsToTxnResult(Struct):
    __slots__ = ('transactional_id', 'topic_results', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('transactional_id', 'TransactionalId', 'string', False, (4, 32767), None, None, None, None), FieldMeta('topic_results', 'TopicResults', 'AddPartitionsToTxnTopicResult', True, (4, 32767), None, None, None, AddPartitionsToTxnTopicResult))

    def __init__(self, *, transactional_id: str = '', topic_results: list[AddPartitionsToTxnTopicResult] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.transactional_id = transactional_id
        self.topic_results = [] if topic_results is _DEFAULT else topic_results
        self.unknown_tagged_fields = unknown_tagged_fields


class AddPartitionsToTxnResponse(Message):
    """Kafka response AddPartitionsToTxnResponse (valid versions 0-5)."""

    NAME = 'AddPartitionsToTxnResponse'
    TYPE = 'response'
    API_KEY = 24
    VALID_VERSIONS = (0, 5)
    FLEXIBLE_VERSIONS = (3, 32767)
    AddPartitionsToTxnPartitionResult = AddPartitionsToTxnPartitionResult
    AddPartitionsToTxnTopicResult = AddPartitionsToTxnTopicResult
    AddPartitionsToTxnResult = AddPartitionsToTxnResult
    __slots__ = ('throttle_time_ms', 'error_code', 'results_by_transaction', 'results_by_topic_v3_and_below', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('throttle_time_ms', 'ThrottleTimeMs', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('error_code', 'ErrorCode', 'int16', False, (4, 32767), None, None, None, None), FieldMeta('results_by_transaction', 'ResultsByTransaction', 'AddPartitionsToTxnResult', True, (4, 32767), None, None, None, AddPartitionsToTxnResult), FieldMeta('results_by_topic_v3_and_below', 'ResultsByTopicV3AndBelow', 'AddPartitionsToTxnTopicResult', True, (0, 3), None, None, None, AddPartitionsToTxnTopicResult))

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, results_by_transaction: list[AddPartitionsToTxnResult] | None = _DEFAULT, results_by_topic_v3_and_below: list[AddPartitionsToTxnTopicResult] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.results_by_transaction = [] if results_by_transaction is _DEFAULT else results_by_transaction
        self.results_by_topic_v3_and_below = [] if results_by_topic_v3_and_below is _DEFAULT else results_by_topic_v3_and_below
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_AddPartitionsToTxnPartitionResult_0(buf, pos):
    o = _new(AddPartitionsToTxnPartitionResult)
    o.unknown_tagged_fields = None
    o.partition_index, o.partition_error_code = _S1.unpack_from(buf, pos)
    pos += 6
    return o, pos


def _dec_AddPartitionsToTxnTopicResult_0(buf, pos):
    o = _new(AddPartitionsToTxnTopicResult)
    o.unknown_tagged_fields = None
    o.name, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array ResultsByPartition was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_AddPartitionsToTxnPartitionResult_0(buf, pos)
            append(item)
        o.results_by_partition = items
    return o, pos


def _dec_AddPartitionsToTxnResponse_0(buf, pos):
    o = _new(AddPartitionsToTxnResponse)
    o.error_code = 0
    o.results_by_transaction = []
    o.unknown_tagged_fields = None
    o.throttle_time_ms, = _S0.unpack_from(buf, pos)
    pos += 4
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array ResultsByTopicV3AndBelow was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_AddPartitionsToTxnTopicResult_0(buf, pos)
            append(item)
        o.results_by_topic_v3_and_below = items
    return o, pos


def _enc_AddPartitionsToTxnPartitionResult_0(o, w):
    w += _S1.pack(o.partition_index, o.partition_error_code)


def _enc_AddPartitionsToTxnTopicResult_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    items = o.results_by_partition
    if items is None:
        raise EncodeError('non-nullable array ResultsByPartition is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_AddPartitionsToTxnPartitionResult_0(item, w)


def _enc_AddPartitionsToTxnResponse_0(o, w):
    w += _S0.pack(o.throttle_time_ms)
    items = o.results_by_topic_v3_and_below
    if items is None:
        raise EncodeError('non-nullable array ResultsByTopicV3AndBelow is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_AddPartitionsToTxnTopicResult_0(item, w)


def _dec_AddPartitionsToTxnPartitionResult_1(buf, pos):
    o = _new(AddPartitionsToTxnPartitionResult)
    o.partition_index, o.partition_error_code = _S1.unpack_from(buf, pos)
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


def _dec_AddPartitionsToTxnTopicResult_1(buf, pos):
    o = _new(AddPartitionsToTxnTopicResult)
    o.name, pos = read_compact_string(buf, pos)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array ResultsByPartition was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_AddPartitionsToTxnPartitionResult_1(buf, pos)
            append(item)
        o.results_by_partition = items
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


def _dec_AddPartitionsToTxnResponse_1(buf, pos):
    o = _new(AddPartitionsToTxnResponse)
    o.error_code = 0
    o.results_by_transaction = []
    o.throttle_time_ms, = _S0.unpack_from(buf, pos)
    pos += 4
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array ResultsByTopicV3AndBelow was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_AddPartitionsToTxnTopicResult_1(buf, pos)
            append(item)
        o.results_by_topic_v3_and_below = items
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


def _enc_AddPartitionsToTxnPartitionResult_1(o, w):
    w += _S1.pack(o.partition_index, o.partition_error_code)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_AddPartitionsToTxnTopicResult_1(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_compact_string(w, o.name)
    items = o.results_by_partition
    if items is None:
        raise EncodeError('non-nullable array ResultsByPartition is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_AddPartitionsToTxnPartitionResult_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_AddPartitionsToTxnResponse_1(o, w):
    w += _S0.pack(o.throttle_time_ms)
    items = o.results_by_topic_v3_and_below
    if items is None:
        raise EncodeError('non-nullable array ResultsByTopicV3AndBelow is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_AddPartitionsToTxnTopicResult_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_AddPartitionsToTxnResult_0(buf, pos):
    o = _new(AddPartitionsToTxnResult)
    o.transactional_id, pos = read_compact_string(buf, pos)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array TopicResults was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_AddPartitionsToTxnTopicResult_1(buf, pos)
            append(item)
        o.topic_results = items
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


def _dec_AddPartitionsToTxnResponse_2(buf, pos):
    o = _new(AddPartitionsToTxnResponse)
    o.results_by_topic_v3_and_below = []
    o.throttle_time_ms, o.error_code = _S1.unpack_from(buf, pos)
    pos += 6
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array ResultsByTransaction was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_AddPartitionsToTxnResult_0(buf, pos)
            append(item)
        o.results_by_transaction = items
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


def _enc_AddPartitionsToTxnResult_0(o, w):
    if o.transactional_id is None:
        raise EncodeError('non-nullable field TransactionalId is None')
    write_compact_string(w, o.transactional_id)
    items = o.topic_results
    if items is None:
        raise EncodeError('non-nullable array TopicResults is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_AddPartitionsToTxnTopicResult_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_AddPartitionsToTxnResponse_2(o, w):
    w += _S1.pack(o.throttle_time_ms, o.error_code)
    items = o.results_by_transaction
    if items is None:
        raise EncodeError('non-nullable array ResultsByTransaction is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_AddPartitionsToTxnResult_0(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


AddPartitionsToTxnResponse._DECODERS = {0: _dec_AddPartitionsToTxnResponse_0, 1: _dec_AddPartitionsToTxnResponse_0, 2: _dec_AddPartitionsToTxnResponse_0, 3: _dec_AddPartitionsToTxnResponse_1, 4: _dec_AddPartitionsToTxnResponse_2, 5: _dec_AddPartitionsToTxnResponse_2}
AddPartitionsToTxnResponse._ENCODERS = {0: _enc_AddPartitionsToTxnResponse_0, 1: _enc_AddPartitionsToTxnResponse_0, 2: _enc_AddPartitionsToTxnResponse_0, 3: _enc_AddPartitionsToTxnResponse_1, 4: _enc_AddPartitionsToTxnResponse_2, 5: _enc_AddPartitionsToTxnResponse_2}
