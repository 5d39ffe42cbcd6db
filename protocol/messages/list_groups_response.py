"""ListGroupsResponse: generated from Kafka's ListGroupsResponse.json by tools/generate_protocol.py.

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
_S0 = struct.Struct('>h')
_S1 = struct.Struct('>ih')


class ListedGroup(Struct):
    __slots__ = ('group_id', 'protocol_type', 'group_state', 'group_type', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('group_id', 'GroupId', 'string', False, (0, 32767), None, None, None, None), FieldMeta('protocol_type', 'ProtocolType', 'string', False, (0, 32767), None, None, None, None), FieldMeta('group_state', 'GroupState', 'string', False, (4, 32767), None, None, None, None), FieldMeta('group_type', 'GroupType', 'string', False, (5, 32767), None, None, None, None))

    def __init__(self, *, group_id: str = '', protocol_type: str = '', group_state: str = '', group_type: str = '', unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.group_id = group_id
        self.protocol_type = protocol_type
        self.group_state = group_state
        self.group_type = group_type
        self.unknown_tagged_fields = unknown_tagged_fields


class ListGroupsResponse(Message):
    """Kafka response ListGroupsResponse (valid versions 0-5)."""

    NAME = 'ListGroupsResponse'
    TYPE = 'response'
    API_KEY = 16
    VALID_VERSIONS = (0, 5)
    FLEXIBLE_VERSIONS = (3, 32767)
    ListedGroup = ListedGroup
    __slots__ = ('throttle_time_ms', 'error_code', 'groups', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('throttle_time_ms', 'ThrottleTimeMs', 'int32', False, (1, 32767), None, None, None, None), FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('groups', 'Groups', 'ListedGroup', True, (0, 32767), None, None, None, ListedGroup))

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, groups: list[ListedGroup] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.groups = [] if groups is _DEFAULT else groups
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_ListedGroup_0(buf, pos):
    o = _new(ListedGroup)
    o.group_state = ''
    o.group_type = ''
    o.unknown_tagged_fields = None
    o.group_id, pos = read_string(buf, pos)
    o.protocol_type, pos = read_string(buf, pos)
    return o, pos


def _dec_ListGroupsResponse_0(buf, pos):
    o = _new(ListGroupsResponse)
    o.throttle_time_ms = 0
    o.unknown_tagged_fields = None
    o.error_code, = _S0.unpack_from(buf, pos)
    pos += 2
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Groups was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ListedGroup_0(buf, pos)
            append(item)
        o.groups = items
    return o, pos


def _enc_ListedGroup_0(o, w):
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_string(w, o.group_id)
    if o.protocol_type is None:
        raise EncodeError('non-nullable field ProtocolType is None')
    write_string(w, o.protocol_type)


def _enc_ListGroupsResponse_0(o, w):
    w += _S0.pack(o.error_code)
    items = o.groups
    if items is None:
        raise EncodeError('non-nullable array Groups is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_ListedGroup_0(item, w)


def _dec_ListGroupsResponse_1(buf, pos):
    o = _new(ListGroupsResponse)
    o.unknown_tagged_fields = None
    o.throttle_time_ms, o.error_code = _S1.unpack_from(buf, pos)
    pos += 6
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Groups was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ListedGroup_0(buf, pos)
            append(item)
        o.groups = items
    return o, pos


def _enc_ListGroupsResponse_1(o, w):
    w += _S1.pack(o.throttle_time_ms, o.error_code)
    items = o.groups
    if items is None:
        raise EncodeError('non-nullable array Groups is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_ListedGroup_0(item, w)


def _dec_ListedGroup_1(buf, pos):
    o = _new(ListedGroup)
    o.group_state = ''
    o.group_type = ''
    o.group_id, pos = read_compact_string(buf, pos)
    o.protocol_type, pos = read_compact_string(buf, pos)
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


def _dec_ListGroupsResponse_2(buf, pos):
    o = _new(ListGroupsResponse)
    o.throttle_time_ms, o.error_code = _S1.unpack_from(buf, pos)
    pos += 6
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Groups was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ListedGroup_1(buf, pos)
            append(item)
        o.groups = items
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


def _enc_ListedGroup_1(o, w):
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_compact_string(w, o.group_id)
    if o.protocol_type is None:
        raise EncodeError('non-nullable field ProtocolType is None')
    write_compact_string(w, o.protocol_type)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_ListGroupsResponse_2(o, w):
    w += _S1.pack(o.throttle_time_ms, o.error_code)
    items = o.groups
    if items is None:
        raise EncodeError('non-nullable array Groups is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_ListedGroup_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_ListedGroup_2(buf, pos):
    o = _new(ListedGroup)
    o.group_type = ''
    o.group_id, pos = read_compact_string(buf, pos)
    o.protocol_type, pos = read_compact_string(buf, pos)
    o.group_state, pos = read_compact_string(buf, pos)
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


def _dec_ListGroupsResponse_3(buf, pos):
    o = _new(ListGroupsResponse)
    o.throttle_time_ms, o.error_code = _S1.unpack_from(buf, pos)
    pos += 6
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Groups was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ListedGroup_2(buf, pos)
            append(item)
        o.groups = items
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


def _enc_ListedGroup_2(o, w):
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_compact_string(w, o.group_id)
    if o.protocol_type is None:
        raise EncodeError('non-nullable field ProtocolType is None')
    write_compact_string(w, o.protocol_type)
    if o.group_state is None:
        raise EncodeError('non-nullable field GroupState is None')
    write_compact_string(w, o.group_state)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_ListGroupsResponse_3(o, w):
    w += _S1.pack(o.throttle_time_ms, o.error_code)
    items = o.groups
    if items is None:
        raise EncodeError('non-nullable array Groups is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_ListedGroup_2(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_ListedGroup_3(buf, pos):
    o = _new(ListedGroup)
    o.group_id, pos = read_compact_string(buf, pos)
    o.protocol_type, pos = read_compact_string(buf, pos)
    o.group_state, pos = read_compact_string(buf, pos)
    o.group_type, pos = read_compact_string(buf, pos)
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


def _dec_ListGroupsResponse_4(buf, pos):
    o = _new(ListGroupsResponse)
    o.throttle_time_ms, o.error_code = _S1.unpack_from(buf, pos)
    pos += 6
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Groups was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ListedGroup_3(buf, pos)
            append(item)
        o.groups = items
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


def _enc_ListedGroup_3(o, w):
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_compact_string(w, o.group_id)
    if o.protocol_type is None:
        raise EncodeError('non-nullable field ProtocolType is None')
    write_compact_string(w, o.protocol_type)
    if o.group_state is None:
        raise EncodeError('non-nullable field GroupState is None')
    write_compact_string(w, o.group_state)
    if o.group_type is None:
        raise EncodeError('non-nullable field GroupType is None')
    write_compact_string(w, o.group_type)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_ListGroupsResponse_4(o, w):
    w += _S1.pack(o.throttle_time_ms, o.error_code)
    items = o.groups
    if items is None:
        raise EncodeError('non-nullable array Groups is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_ListedGroup_3(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


ListGroupsResponse._DECODERS = {0: _dec_ListGroupsResponse_0, 1: _dec_ListGroupsResponse_1, 2: _dec_ListGroupsResponse_1, 3: _dec_ListGroupsResponse_2, 4: _dec_ListGroupsResponse_3, 5: _dec_ListGroupsResponse_4}
ListGroupsResponse._ENCODERS = {0: _enc_ListGroupsResponse_0, 1: _enc_ListGroupsResponse_1, 2: _enc_ListGroupsResponse_1, 3: _enc_ListGroupsResponse_2, 4: _enc_ListGroupsResponse_3, 5: _enc_ListGroupsResponse_4}
