"""ListTransactionsResponse: generated from Kafka's ListTransactionsResponse.json by tools/generate_protocol.py.

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
_S0 = struct.Struct('>ih')
_S1 = struct.Struct('>q')


class TransactionState(Struct):
    __slots__ = ('transactional_id', 'producer_id', 'transaction_state', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('transactional_id', 'TransactionalId', 'string', False, (0, 32767), None, None, None, None), FieldMeta('producer_id', 'ProducerId', 'int64', False, (0, 32767), None, None, None, None), FieldMeta('transaction_state', 'TransactionState', 'string', False, (0, 32767), None, None, None, None))

    def __init__(self, *, transactional_id: str = '', producer_id: int = 0, transaction_state: str = '', unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.transactional_id = transactional_id
        self.producer_id = producer_id
        self.transaction_state = transaction_state
        self.unknown_tagged_fields = unknown_tagged_fields


class ListTransactionsResponse(Message):
    """Kafka response ListTransactionsResponse (valid versions 0-2)."""

    NAME = 'ListTransactionsResponse'
    TYPE = 'response'
    API_KEY = 66
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (0, 32767)
    TransactionState = TransactionState
    __slots__ = ('throttle_time_ms', 'error_code', 'unknown_state_filters', 'transaction_states', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('throttle_time_ms', 'ThrottleTimeMs', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('unknown_state_filters', 'UnknownStateFilters', 'string', True, (0, 32767), None, None, None, None), FieldMeta('transaction_states', 'TransactionStates', 'TransactionState', True, (0, 32767), None, None, None, TransactionState))

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, unknown_state_filters: list[str] | None = _DEFAULT, transaction_states: list[TransactionState] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.unknown_state_filters = [] if unknown_state_filters is _DEFAULT else unknown_state_filters
        self.transaction_states = [] if transaction_states is _DEFAULT else transaction_states
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_TransactionState_0(buf, pos):
    o = _new(TransactionState)
    o.transactional_id, pos = read_compact_string(buf, pos)
    o.producer_id, = _S1.unpack_from(buf, pos)
    pos += 8
    o.transaction_state, pos = read_compact_string(buf, pos)
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


def _dec_ListTransactionsResponse_0(buf, pos):
    o = _new(ListTransactionsResponse)
    o.throttle_time_ms, o.error_code = _S0.unpack_from(buf, pos)
    pos += 6
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array UnknownStateFilters was null')
    else:
        items = []
        for _ in range(n):
            item, pos = read_compact_string(buf, pos)
            items.append(item)
        o.unknown_state_filters = items
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


def _enc_TransactionState_0(o, w):
    if o.transactional_id is None:
        raise EncodeError('non-nullable field TransactionalId is None')
    write_compact_string(w, o.transactional_id)
    w += _S1.pack(o.producer_id)
    if o.transaction_state is None:
        raise EncodeError('non-nullable field TransactionState is None')
    write_compact_string(w, o.transaction_state)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_ListTransactionsResponse_0(o, w):
    w += _S0.pack(o.throttle_time_ms, o.error_code)
    items = o.unknown_state_filters
    if items is None:
        raise EncodeError('non-nullable array UnknownStateFilters is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            write_compact_string(w, item)
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


ListTransactionsResponse._DECODERS = {0: _dec_ListTransactionsResponse_0, 1: _dec_ListTransactionsResponse_0, 2: _dec_ListTransactionsResponse_0}
ListTransactionsResponse._ENCODERS = {0: _enc_ListTransactionsResponse_0, 1: _enc_ListTransactionsResponse_0, 2: _enc_ListTransactionsResponse_0}
