"""DeleteGroupsRequest: generated from Kafka's DeleteGroupsRequest.json by tools/generate_protocol.py.

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


class DeleteGroupsRequest(Message):
    """Kafka request DeleteGroupsRequest (valid versions 0-2)."""

    NAME = 'DeleteGroupsRequest'
    TYPE = 'request'
    API_KEY = 42
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (2, 32767)
    __slots__ = ('groups_names', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('groups_names', 'GroupsNames', 'string', True, (0, 32767), None, None, None, None),)

    def __init__(self, *, groups_names: list[str] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.groups_names = [] if groups_names is _DEFAULT else groups_names
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_DeleteGroupsRequest_0(buf, pos):
    o = _new(DeleteGroupsRequest)
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array GroupsNames was null')
    else:
        items = []
        for _ in range(n):
            item, pos = read_string(buf, pos)
            items.append(item)
        o.groups_names = items
    return o, pos


def _enc_DeleteGroupsRequest_0(o, w):
    items = o.groups_names
    if items is None:
        raise EncodeError('non-nullable array GroupsNames is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            write_string(w, item)


def _dec_DeleteGroupsRequest_1(buf, pos):
    o = _new(DeleteGroupsRequest)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array GroupsNames was null')
    else:
        items = []
        for _ in range(n):
            item, pos = read_compact_string(buf, pos)
            items.append(item)
        o.groups_names = items
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


def _enc_DeleteGroupsRequest_1(o, w):
    items = o.groups_names
    if items is None:
        raise EncodeError('non-nullable array GroupsNames is None')
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


DeleteGroupsRequest._DECODERS = {0: _dec_DeleteGroupsRequest_0, 1: _dec_DeleteGroupsRequest_0, 2: _dec_DeleteGroupsRequest_1}
DeleteGroupsRequest._ENCODERS = {0: _enc_DeleteGroupsRequest_0, 1: _enc_DeleteGroupsRequest_0, 2: _enc_DeleteGroupsRequest_1}
