"""FindCoordinatorRequest: generated from Kafka's FindCoordinatorRequest.json by tools/generate_protocol.py.

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
_S0 = struct.Struct('>b')


class FindCoordinatorRequest(Message):
    """Kafka request FindCoordinatorRequest (valid versions 0-6)."""

    NAME = 'FindCoordinatorRequest'
    TYPE = 'request'
    API_KEY = 10
    VALID_VERSIONS = (0, 6)
    FLEXIBLE_VERSIONS = (3, 32767)
    __slots__ = ('key', 'key_type', 'coordinator_keys', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('key', 'Key', 'string', False, (0, 3), None, None, None, None), FieldMeta('key_type', 'KeyType', 'int8', False, (1, 32767), None, None, None, None), FieldMeta('coordinator_keys', 'CoordinatorKeys', 'string', True, (4, 32767), None, None, None, None))

    def __init__(self, *, key: str = '', key_type: int = 0, coordinator_keys: list[str] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.key = key
        self.key_type = key_type
        self.coordinator_keys = [] if coordinator_keys is _DEFAULT else coordinator_keys
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_FindCoordinatorRequest_0(buf, pos):
    o = _new(FindCoordinatorRequest)
    o.key_type = 0
    o.coordinator_keys = []
    o.unknown_tagged_fields = None
    o.key, pos = read_string(buf, pos)
    return o, pos


def _enc_FindCoordinatorRequest_0(o, w):
    if o.key is None:
        raise EncodeError('non-nullable field Key is None')
    write_string(w, o.key)


def _dec_FindCoordinatorRequest_1(buf, pos):
    o = _new(FindCoordinatorRequest)
    o.coordinator_keys = []
    o.unknown_tagged_fields = None
    o.key, pos = read_string(buf, pos)
    o.key_type, = _S0.unpack_from(buf, pos)
    pos += 1
    return o, pos


def _enc_FindCoordinatorRequest_1(o, w):
    if o.key is None:
        raise EncodeError('non-nullable field Key is None')
    write_string(w, o.key)
    w += _S0.pack(o.key_type)


def _dec_FindCoordinatorRequest_2(buf, pos):
    o = _new(FindCoordinatorRequest)
    o.coordinator_keys = []
    o.key, pos = read_compact_string(buf, pos)
    o.key_type, = _S0.unpack_from(buf, pos)
    pos += 1
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


def _enc_FindCoordinatorRequest_2(o, w):
    if o.key is None:
        raise EncodeError('non-nullable field Key is None')
    write_compact_string(w, o.key)
    w += _S0.pack(o.key_type)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_FindCoordinatorRequest_3(buf, pos):
    o = _new(FindCoordinatorRequest)
    o.key = ''
    o.key_type, = _S0.unpack_from(buf, pos)
    pos += 1
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array CoordinatorKeys was null')
    else:
        items = []
        for _ in range(n):
            item, pos = read_compact_string(buf, pos)
            items.append(item)
        o.coordinator_keys = items
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


def _enc_FindCoordinatorRequest_3(o, w):
    w += _S0.pack(o.key_type)
    items = o.coordinator_keys
    if items is None:
        raise EncodeError('non-nullable array CoordinatorKeys is None')
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


FindCoordinatorRequest._DECODERS = {0: _dec_FindCoordinatorRequest_0, 1: _dec_FindCoordinatorRequest_1, 2: _dec_FindCoordinatorRequest_1, 3: _dec_FindCoordinatorRequest_2, 4: _dec_FindCoordinatorRequest_3, 5: _dec_FindCoordinatorRequest_3, 6: _dec_FindCoordinatorRequest_3}
FindCoordinatorRequest._ENCODERS = {0: _enc_FindCoordinatorRequest_0, 1: _enc_FindCoordinatorRequest_1, 2: _enc_FindCoordinatorRequest_1, 3: _enc_FindCoordinatorRequest_2, 4: _enc_FindCoordinatorRequest_3, 5: _enc_FindCoordinatorRequest_3, 6: _enc_FindCoordinatorRequest_3}
