"""ListTransactionsRequest: generated from Kafka's ListTransactionsRequest.json by tools/generate_protocol.py.

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


class ListTransactionsRequest(Message):
    """Kafka request ListTransactionsRequest (valid versions 0-2)."""

    NAME = 'ListTransactionsRequest'
    TYPE = 'request'
    API_KEY = 66
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (0, 32767)
    __slots__ = ('state_filters', 'producer_id_filters', 'duration_filter', 'transactional_id_pattern', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('state_filters', 'StateFilters', 'string', True, (0, 32767), None, None, None, None), FieldMeta('producer_id_filters', 'ProducerIdFilters', 'int64', True, (0, 32767), None, None, None, None), FieldMeta('duration_filter', 'DurationFilter', 'int64', False, (1, 32767), None, None, None, None), FieldMeta('transactional_id_pattern', 'TransactionalIdPattern', 'string', False, (2, 32767), (2, 32767), None, None, None))

    def __init__(self, *, state_filters: list[str] | None = _DEFAULT, producer_id_filters: list[int] | None = _DEFAULT, duration_filter: int = -1, transactional_id_pattern: str | None = None, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.state_filters = [] if state_filters is _DEFAULT else state_filters
        self.producer_id_filters = [] if producer_id_filters is _DEFAULT else producer_id_filters
        self.duration_filter = duration_filter
        self.transactional_id_pattern = transactional_id_pattern
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_ListTransactionsRequest_0(buf, pos):
    o = _new(ListTransactionsRequest)
    o.duration_filter = -1
    o.transactional_id_pattern = None
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array StateFilters was null')
    else:
        items = []
        for _ in range(n):
            item, pos = read_compact_string(buf, pos)
            items.append(item)
        o.state_filters = items
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array ProducerIdFilters was null')
    else:
        end = pos + n * 8
        if end > len(buf):
            raise DecodeError('truncated array ProducerIdFilters')
        o.producer_id_filters = list(_unpack_from('>%dq' % n, buf, pos))
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


def _enc_ListTransactionsRequest_0(o, w):
    items = o.state_filters
    if items is None:
        raise EncodeError('non-nullable array StateFilters is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            write_compact_string(w, item)
    items = o.producer_id_filters
    if items is None:
        raise EncodeError('non-nullable array ProducerIdFilters is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        w += _pack('>%dq' % len(items), *items)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_ListTransactionsRequest_1(buf, pos):
    o = _new(ListTransactionsRequest)
    o.transactional_id_pattern = None
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array StateFilters was null')
    else:
        items = []
        for _ in range(n):
            item, pos = read_compact_string(buf, pos)
            items.append(item)
        o.state_filters = items
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array ProducerIdFilters was null')
    else:
        end = pos + n * 8
        if end > len(buf):
            raise DecodeError('truncated array ProducerIdFilters')
        o.producer_id_filters = list(_unpack_from('>%dq' % n, buf, pos))
        pos = end
    o.duration_filter, = _S0.unpack_from(buf, pos)
    pos += 8
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


def _enc_ListTransactionsRequest_1(o, w):
    items = o.state_filters
    if items is None:
        raise EncodeError('non-nullable array StateFilters is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            write_compact_string(w, item)
    items = o.producer_id_filters
    if items is None:
        raise EncodeError('non-nullable array ProducerIdFilters is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        w += _pack('>%dq' % len(items), *items)
    w += _S0.pack(o.duration_filter)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_ListTransactionsRequest_2(buf, pos):
    o = _new(ListTransactionsRequest)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array StateFilters was null')
    else:
        items = []
        for _ in range(n):
            item, pos = read_compact_string(buf, pos)
            items.append(item)
        o.state_filters = items
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array ProducerIdFilters was null')
    else:
        end = pos + n * 8
        if end > len(buf):
            raise DecodeError('truncated array ProducerIdFilters')
        o.producer_id_filters = list(_unpack_from('>%dq' % n, buf, pos))
        pos = end
    o.duration_filter, = _S0.unpack_from(buf, pos)
    pos += 8
    o.transactional_id_pattern, pos = read_compact_nullable_string(buf, pos)
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


def _enc_ListTransactionsRequest_2(o, w):
    items = o.state_filters
    if items is None:
        raise EncodeError('non-nullable array StateFilters is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            write_compact_string(w, item)
    items = o.producer_id_filters
    if items is None:
        raise EncodeError('non-nullable array ProducerIdFilters is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        w += _pack('>%dq' % len(items), *items)
    w += _S0.pack(o.duration_filter)
    write_compact_nullable_string(w, o.transactional_id_pattern)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


ListTransactionsRequest._DECODERS = {0: _dec_ListTransactionsRequest_0, 1: _dec_ListTransactionsRequest_1, 2: _dec_ListTransactionsRequest_2}
ListTransactionsRequest._ENCODERS = {0: _enc_ListTransactionsRequest_0, 1: _enc_ListTransactionsRequest_1, 2: _enc_ListTransactionsRequest_2}
