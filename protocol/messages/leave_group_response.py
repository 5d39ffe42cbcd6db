"""LeaveGroupResponse: generated from Kafka's LeaveGroupResponse.json by tools/generate_protocol.py.

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


class MemberResponse(Struct):
    __slots__ = ('member_id', 'group_instance_id', 'error_code', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('member_id', 'MemberId', 'string', False, (3, 32767), None, None, None, None), FieldMeta('group_instance_id', 'GroupInstanceId', 'string', False, (3, 32767), (3, 32767), None, None, None), FieldMeta('error_code', 'ErrorCode', 'int16', False, (3, 32767), None, None, None, None))

    def __init__(self, *, member_id: str = '', group_instance_id: str | None = '', error_code: int = 0, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.member_id = member_id
        self.group_instance_id = group_instance_id
        self.error_code = error_code
        self.unknown_tagged_fields = unknown_tagged_fields


class LeaveGroupResponse(Message):
    """Kafka response LeaveGroupResponse (valid versions 0-5)."""

    NAME = 'LeaveGroupResponse'
    TYPE = 'response'
    API_KEY = 13
    VALID_VERSIONS = (0, 5)
    FLEXIBLE_VERSIONS = (4, 32767)
    MemberResponse = MemberResponse
    __slots__ = ('throttle_time_ms', 'error_code', 'members', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('throttle_time_ms', 'ThrottleTimeMs', 'int32', False, (1, 32767), None, None, None, None), FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('members', 'Members', 'MemberResponse', True, (3, 32767), None, None, None, MemberResponse))

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, members: list[MemberResponse] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.members = [] if members is _DEFAULT else members
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_LeaveGroupResponse_0(buf, pos):
    o = _new(LeaveGroupResponse)
    o.throttle_time_ms = 0
    o.members = []
    o.unknown_tagged_fields = None
    o.error_code, = _S0.unpack_from(buf, pos)
    pos += 2
    return o, pos


def _enc_LeaveGroupResponse_0(o, w):
    w += _S0.pack(o.error_code)


def _dec_LeaveGroupResponse_1(buf, pos):
    o = _new(LeaveGroupResponse)
    o.members = []
    o.unknown_tagged_fields = None
    o.throttle_time_ms, o.error_code = _S1.unpack_from(buf, pos)
    pos += 6
    return o, pos


def _enc_LeaveGroupResponse_1(o, w):
    w += _S1.pack(o.throttle_time_ms, o.error_code)


def _dec_MemberResponse_0(buf, pos):
    o = _new(MemberResponse)
    o.unknown_tagged_fields = None
    o.member_id, pos = read_string(buf, pos)
    o.group_instance_id, pos = read_nullable_string(buf, pos)
    o.error_code, = _S0.unpack_from(buf, pos)
    pos += 2
    return o, pos


def _dec_LeaveGroupResponse_2(buf, pos):
    o = _new(LeaveGroupResponse)
    o.unknown_tagged_fields = None
    o.throttle_time_ms, o.error_code = _S1.unpack_from(buf, pos)
    pos += 6
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Members was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_MemberResponse_0(buf, pos)
            append(item)
        o.members = items
    return o, pos


def _enc_MemberResponse_0(o, w):
    if o.member_id is None:
        raise EncodeError('non-nullable field MemberId is None')
    write_string(w, o.member_id)
    write_nullable_string(w, o.group_instance_id)
    w += _S0.pack(o.error_code)


def _enc_LeaveGroupResponse_2(o, w):
    w += _S1.pack(o.throttle_time_ms, o.error_code)
    items = o.members
    if items is None:
        raise EncodeError('non-nullable array Members is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_MemberResponse_0(item, w)


def _dec_MemberResponse_1(buf, pos):
    o = _new(MemberResponse)
    o.member_id, pos = read_compact_string(buf, pos)
    o.group_instance_id, pos = read_compact_nullable_string(buf, pos)
    o.error_code, = _S0.unpack_from(buf, pos)
    pos += 2
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


def _dec_LeaveGroupResponse_3(buf, pos):
    o = _new(LeaveGroupResponse)
    o.throttle_time_ms, o.error_code = _S1.unpack_from(buf, pos)
    pos += 6
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Members was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_MemberResponse_1(buf, pos)
            append(item)
        o.members = items
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


def _enc_MemberResponse_1(o, w):
    if o.member_id is None:
        raise EncodeError('non-nullable field MemberId is None')
    write_compact_string(w, o.member_id)
    write_compact_nullable_string(w, o.group_instance_id)
    w += _S0.pack(o.error_code)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_LeaveGroupResponse_3(o, w):
    w += _S1.pack(o.throttle_time_ms, o.error_code)
    items = o.members
    if items is None:
        raise EncodeError('non-nullable array Members is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_MemberResponse_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


LeaveGroupResponse._DECODERS = {0: _dec_LeaveGroupResponse_0, 1: _dec_LeaveGroupResponse_1, 2: _dec_LeaveGroupResponse_1, 3: _dec_LeaveGroupResponse_2, 4: _dec_LeaveGroupResponse_3, 5: _dec_LeaveGroupResponse_3}
LeaveGroupResponse._ENCODERS = {0: _enc_LeaveGroupResponse_0, 1: _enc_LeaveGroupResponse_1, 2: _enc_LeaveGroupResponse_1, 3: _enc_LeaveGroupResponse_2, 4: _enc_LeaveGroupResponse_3, 5: _enc_LeaveGroupResponse_3}
