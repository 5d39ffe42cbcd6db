"""DescribeTransactionsResponse: generated from Kafka's DescribeTransactionsResponse.json by tools/generate_protocol.py.

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
_S1 = struct.Struct('>h')
_S2 = struct.Struct('>iqqh')


class TopicData(Struct):
    __slots__ = ('topic', 'partitions', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('topic', 'Topic', 'string', False, (0, 32767), None, None, None, None), FieldMeta('partitions', 'Partitions', 'int32', True, (0, 32767), None, None, None, None))

    def __init__(self, *, topic: str = '', partitions: list[int] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.topic = topic
        self.partitions = [] if partitions is _DEFAULT else partitions
        self.unknown_tagged_fields = unknown_tagged_fields


class TransactionState(Struct):
    __slots__ = ('error_code', 'transactional_id', 'transaction_state', 'transaction_timeout_ms', 'transaction_start_time_ms', 'producer_id', 'producer_epoch', 'topics', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('transactional_id', 'TransactionalId', 'string', False, (0, 32767), None, None, None, None), FieldMeta('transaction_state', 'TransactionState', 'string', False, (0, 32767), None, None, None, None), FieldMeta('transaction_timeout_ms', 'TransactionTimeoutMs', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('transaction_start_time_ms', 'TransactionStartTimeMs', 'int64', False, (0, 32767), None, None, None, None), FieldMeta('producer_id', 'ProducerId', 'int64', False, (0, 32767), None, None, None, None), FieldMeta('producer_epoch', 'ProducerEpoch', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('topics', 'Topics', 'TopicData', True, (0, 32767), None, None, None, TopicData))

    def __init__(self, *, error_code: int = 0, transactional_id: str = '', transaction_state: str = '', transaction_timeout_ms: int = 0, transaction_start_time_ms: int = 0, producer_id: int = 0, producer_epoch: int = 0, topics: list[TopicData] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.error_code = error_code
        self.transactional_id = transactional_id
        self.transaction_state = transaction_state
        self.transaction_timeout_ms = transaction_timeout_ms
        self.transaction_start_time_ms = transaction_start_time_ms
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch
        self.topics = [] if topics is _DEFAULT else topics
        self.unknown_tagged_fields = unknown_tagged_fields


class DescribeTransactionsResponse(Message):
    """Kafka response DescribeTransactionsResponse (valid versions 0-0)."""

    NAME = 'DescribeTransactionsResponse'
    TYPE = 'response'
    API_KEY = 65
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    TopicData = TopicData
    TransactionState = TransactionState
    __slots__ = ('throttle_time_ms', 'transaction_states', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('throttle_time_ms', 'ThrottleTimeMs', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('transaction_states', 'TransactionStates', 'TransactionState', True, (0, 32767), None, None, None, TransactionState))

    def __init__(self, *, throttle_time_ms: int = 0, transaction_states: list[TransactionState] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.transaction_states = [] if transaction_states is _DEFAULT else transaction_states
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_TopicData_0(buf, pos):
    o = _new(TopicData)
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


def _dec_TransactionState_0(buf, pos):
    o = _new(TransactionState)
    o.error_code, = _S1.unpack_from(buf, pos)
    pos += 2
    o.transactional_id, pos = read_compact_string(buf, pos)
    o.transaction_state, pos = read_compact_string(buf, pos)
    o.transaction_timeout_ms, o.transaction_start_time_ms, o.producer_id, o.producer_epoch = _S2.unpack_from(buf, pos)
    pos += 22
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
            item, pos = _dec_TopicData_0(buf, pos)
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


def _dec_DescribeTransactionsResponse_0(buf, pos):
    o = _new(DescribeTransactionsResponse)
    o.throttle_time_ms, = _S0.unpack_from(buf, pos)
    pos += 4
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array TransactionStates was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_TransactionState_0(buf, pos)
            append(item)
        o.transaction_states = items
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


def _enc_TopicData_0(o, w):
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


def _enc_TransactionState_0(o, w):
    w += _S1.pack(o.error_code)
    if o.transactional_id is None:
        raise EncodeError('non-nullable field TransactionalId is None')
    write_compact_string(w, o.transactional_id)
    if o.transaction_state is None:
        raise EncodeError('non-nullable field TransactionState is None')
    write_compact_string(w, o.transaction_state)
    w += _S2.pack(o.transaction_timeout_ms, o.transaction_start_time_ms, o.producer_id, o.producer_epoch)
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
            _enc_TopicData_0(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_DescribeTransactionsResponse_0(o, w):
    w += _S0.pack(o.throttle_time_ms)
    items = o.transaction_states
    if items is None:
        raise EncodeError('non-nullable array TransactionStates is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_TransactionState_0(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


DescribeTransactionsResponse._DECODERS = {0: _dec_DescribeTransactionsResponse_0}
DescribeTransactionsResponse._ENCODERS = {0: _enc_DescribeTransactionsResponse_0}
