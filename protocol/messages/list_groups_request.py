"""ListGroupsRequest: generated from Kafka's ListGroupsRequest.json by tools/generate_protocol.py.

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


class ListGroupsRequest(Message):
    """Kafka request ListGroupsRequest (valid versions 0-5)."""

    NAME = 'ListGroupsRequest'
    TYPE = 'request'
    API_KEY = 16
    VALID_VERSIONS = (0, 5)
    FLEXIBLE_VERSIONS = (3, 32767)
    __slots__ = ('states_filter', 'types_filter', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('states_filter', 'StatesFilter', 'string', True, (4, 32767), None, None, None, None), FieldMeta('types_filter', 'TypesFilter', 'string', True, (5, 32767), None, None, None, None))

    def __init__(self, *, states_filter: list[str] | None = _DEFAULT, types_filter: list[str] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.states_filter = [] if states_filter is _DEFAULT else states_filter
        self.types_filter = [] if types_filter is _DEFAULT else types_filter
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_ListGroupsRequest_0(buf, pos):
    o = _new(ListGroupsRequest)
    o.states_filter = []
    o.types_filter = []
    o.unknown_tagged_fields = None
    return o, pos


def _enc_ListGroupsRequest_0(o, w):
    pass


def _dec_ListGroupsRequest_1(buf, pos):
    o = _new(ListGroupsRequest)
    o.states_filter = []
    o.types_filter = []
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


def _enc_ListGroupsRequest_1(o, w):
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_ListGroupsRequest_2(buf, pos):
    o = _new(ListGroupsRequest)
    o.types_filter = []
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array StatesFilter was null')
    else:
        items = []
        for _ in range(n):
            item, pos = read_compact_string(buf, pos)
            items.append(item)
        o.states_filter = items
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


def _enc_ListGroupsRequest_2(o, w):
    items = o.states_filter
    if items is None:
        raise EncodeError('non-nullable array StatesFilter is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            write_compact_string(w, item)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_ListGroupsRequest_3(buf, pos):
    o = _new(ListGroupsRequest)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array StatesFilter was null')
    else:
        items = []
        for _ in range(n):
            item, pos = read_compact_string(buf, pos)
            items.append(item)
        o.states_filter = items
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array TypesFilter was null')
    else:
        items = []
        for _ in range(n):
            item, pos = read_compact_string(buf, pos)
            items.append(item)
        o.types_filter = items
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


def _enc_ListGroupsRequest_3(o, w):
    items = o.states_filter
    if items is None:
        raise EncodeError('non-nullable array StatesFilter is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            write_compact_string(w, item)
    items = o.types_filter
    if items is None:
        raise EncodeError('non-nullable array TypesFilter is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            write_compact_string(w, item)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


ListGroupsRequest._DECODERS = {0: _dec_ListGroupsRequest_0, 1: _dec_ListGroupsRequest_0, 2: _dec_ListGroupsRequest_0, 3: _dec_ListGroupsRequest_1, 4: _dec_ListGroupsRequest_2, 5: _dec_ListGroupsRequest_3}
ListGroupsRequest._ENCODERS = {0: _enc_ListGroupsRequest_0, 1: _enc_ListGroupsRequest_0, 2: _enc_ListGroupsRequest_0, 3: _enc_ListGroupsRequest_1, 4: _enc_ListGroupsRequest_2, 5: _enc_ListGroupsRequest_3}
