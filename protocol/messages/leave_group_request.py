"""LeaveGroupRequest: generated from Kafka's LeaveGroupRequest.json by tools/generate_protocol.py.

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


class MemberIdentity(Struct):
    __slots__ = ('member_id', 'group_instance_id', 'reason', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('member_id', 'MemberId', 'string', False, (3, 32767), None, None, None, None), FieldMeta('group_instance_id', 'GroupInstanceId', 'string', False, (3, 32767), (3, 32767), None, None, None), FieldMeta('reason', 'Reason', 'string', False, (5, 32767), (5, 32767), None, None, None))

    def __init__(self, *, member_id: str = '', group_instance_id: str | None = None, reason: str | None = None, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.member_id = member_id
        self.group_instance_id = group_instance_id
        self.reason = reason
        self.unknown_tagged_fields = unknown_tagged_fields


class LeaveGroupRequest(Message):
    """Kafka request LeaveGroupRequest (valid versions 0-5)."""

    NAME = 'LeaveGroupRequest'
    TYPE = 'request'
    API_KEY = 13
    VALID_VERSIONS = (0, 5)
    FLEXIBLE_VERSIONS = (4, 32767)
    MemberIdentity = MemberIdentity
    __slots__ = ('group_id', 'member_id', 'members', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('group_id', 'GroupId', 'string', False, (0, 32767), None, None, None, None), FieldMeta('member_id', 'MemberId', 'string', False, (0, 2), None, None, None, None), FieldMeta('members', 'Members', 'MemberIdentity', True, (3, 32767), None, None, None, MemberIdentity))

    def __init__(self, *, group_id: str = '', member_id: str = '', members: list[MemberIdentity] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.group_id = group_id
        self.member_id = member_id
        self.members = [] if members is _DEFAULT else members
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_LeaveGroupRequest_0(buf, pos):
    o = _new(LeaveGroupRequest)
    o.members = []
    o.unknown_tagged_fields = None
    o.group_id, pos = read_string(buf, pos)
    o.member_id, pos = read_string(buf, pos)
    return o, pos


def _enc_LeaveGroupRequest_0(o, w):
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_string(w, o.group_id)
    if o.member_id is None:
        raise EncodeError('non-nullable field MemberId is None')
    write_string(w, o.member_id)


def _dec_MemberIdentity_0(buf, pos):
    o = _new(MemberIdentity)
    o.reason = None
    o.unknown_tagged_fields = None
    o.member_id, pos = read_string(buf, pos)
    o.group_instance_id, pos = read_nullable_string(buf, pos)
    return o, pos


def _dec_LeaveGroupRequest_1(buf, pos):
    o = _new(LeaveGroupRequest)
    o.member_id = ''
    o.unknown_tagged_fields = None
    o.group_id, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Members was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_MemberIdentity_0(buf, pos)
            append(item)
        o.members = items
    return o, pos


def _enc_MemberIdentity_0(o, w):
    if o.member_id is None:
        raise EncodeError('non-nullable field MemberId is None')
    write_string(w, o.member_id)
    write_nullable_string(w, o.group_instance_id)


def _enc_LeaveGroupRequest_1(o, w):
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_string(w, o.group_id)
    items = o.members
    if items is None:
        raise EncodeError('non-nullable array Members is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_MemberIdentity_0(item, w)


def _dec_MemberIdentity_1(buf, pos):
    o = _new(MemberIdentity)
    o.reason = None
    o.member_id, pos = read_compact_string(buf, pos)
    o.group_instance_id, pos = read_compact_nullable_string(buf, pos)
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


def _dec_LeaveGroupRequest_2(buf, pos):
    o = _new(LeaveGroupRequest)
    o.member_id = ''
    o.group_id, pos = read_compact_string(buf, pos)
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
            item, pos = _dec_MemberIdentity_1(buf, pos)
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


def _enc_MemberIdentity_1(o, w):
    if o.member_id is None:
        raise EncodeError('non-nullable field MemberId is None')
    write_compact_string(w, o.member_id)
    write_compact_nullable_string(w, o.group_instance_id)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_LeaveGroupRequest_2(o, w):
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_compact_string(w, o.group_id)
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
            _enc_MemberIdentity_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_MemberIdentity_2(buf, pos):
    o = _new(MemberIdentity)
    o.member_id, pos = read_compact_string(buf, pos)
    o.group_instance_id, pos = read_compact_nullable_string(buf, pos)
    o.reason, pos = read_compact_nullable_string(buf, pos)
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


def _dec_LeaveGroupRequest_3(buf, pos):
    o = _new(LeaveGroupRequest)
    o.member_id = ''
    o.group_id, pos = read_compact_string(buf, pos)
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
            item, pos = _dec_MemberIdentity_2(buf, pos)
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


def _enc_MemberIdentity_2(o, w):
    if o.member_id is None:
        raise EncodeError('non-nullable field MemberId is None')
    write_compact_string(w, o.member_id)
    write_compact_nullable_string(w, o.group_instance_id)
    write_compact_nullable_string(w, o.reason)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_LeaveGroupRequest_3(o, w):
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_compact_string(w, o.group_id)
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
            _enc_MemberIdentity_2(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


LeaveGroupRequest._DECODERS = {0: _dec_LeaveGroupRequest_0, 1: _dec_LeaveGroupRequest_0, 2: _dec_LeaveGroupRequest_0, 3: _dec_LeaveGroupRequest_1, 4: _dec_LeaveGroupRequest_2, 5: _dec_LeaveGroupRequest_3}
LeaveGroupRequest._ENCODERS = {0: _enc_LeaveGroupRequest_0, 1: _enc_LeaveGroupRequest_0, 2: _enc_LeaveGroupRequest_0, 3: _enc_LeaveGroupRequest_1, 4: _enc_LeaveGroupRequest_2, 5: _enc_LeaveGroupRequest_3}
