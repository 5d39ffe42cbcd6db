"""JoinGroupResponse: generated from Kafka's JoinGroupResponse.json by tools/generate_protocol.py.

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
_S0 = struct.Struct('>hi')
_S1 = struct.Struct('>ihi')
_S2 = struct.Struct('>?')


class JoinGroupResponseMember(Struct):
    __slots__ = ('member_id', 'group_instance_id', 'metadata', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('member_id', 'MemberId', 'string', False, (0, 32767), None, None, None, None), FieldMeta('group_instance_id', 'GroupInstanceId', 'string', False, (5, 32767), (5, 32767), None, None, None), FieldMeta('metadata', 'Metadata', 'bytes', False, (0, 32767), None, None, None, None))

    def __init__(self, *, member_id: str = '', group_instance_id: str | None = None, metadata: bytes = b'', unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.member_id = member_id
        self.group_instance_id = group_instance_id
        self.metadata = metadata
        self.unknown_tagged_fields = unknown_tagged_fields


class JoinGroupResponse(Message):
    """Kafka response JoinGroupResponse (valid versions 0-9)."""

    NAME = 'JoinGroupResponse'
    TYPE = 'response'
    API_KEY = 11
    VALID_VERSIONS = (0, 9)
    FLEXIBLE_VERSIONS = (6, 32767)
    JoinGroupResponseMember = JoinGroupResponseMember
    __slots__ = ('throttle_time_ms', 'error_code', 'generation_id', 'protocol_type', 'protocol_name', 'leader', 'skip_assignment', 'member_id', 'members', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('throttle_time_ms', 'ThrottleTimeMs', 'int32', False, (2, 32767), None, None, None, None), FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('generation_id', 'GenerationId', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('protocol_type', 'ProtocolType', 'string', False, (7, 32767), (7, 32767), None, None, None), FieldMeta('protocol_name', 'ProtocolName', 'string', False, (0, 32767), (7, 32767), None, None, None), FieldMeta('leader', 'Leader', 'string', False, (0, 32767), None, None, None, None), FieldMeta('skip_assignment', 'SkipAssignment', 'bool', False, (9, 32767), None, None, None, None), FieldMeta('member_id', 'MemberId', 'string', False, (0, 32767), None, None, None, None), FieldMeta('members', 'Members', 'JoinGroupResponseMember', True, (0, 32767), None, None, None, JoinGroupResponseMember))

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, generation_id: int = -1, protocol_type: str | None = None, protocol_name: str | None = '', leader: str = '', skip_assignment: bool = False, member_id: str = '', members: list[JoinGroupResponseMember] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.generation_id = generation_id
        self.protocol_type = protocol_type
        self.protocol_name = protocol_name
        self.leader = leader
        self.skip_assignment = skip_assignment
        self.member_id = member_id
        self.members = [] if members is _DEFAULT else members
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_JoinGroupResponseMember_0(buf, pos):
    o = _new(JoinGroupResponseMember)
    o.group_instance_id = None
    o.unknown_tagged_fields = None
    o.member_id, pos = read_string(buf, pos)
    o.metadata, pos = read_bytes(buf, pos)
    return o, pos


def _dec_JoinGroupResponse_0(buf, pos):
    o = _new(JoinGroupResponse)
    o.throttle_time_ms = 0
    o.protocol_type = None
    o.skip_assignment = False
    o.unknown_tagged_fields = None
    o.error_code, o.generation_id = _S0.unpack_from(buf, pos)
    pos += 6
    o.protocol_name, pos = read_string(buf, pos)
    o.leader, pos = read_string(buf, pos)
    o.member_id, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Members was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_JoinGroupResponseMember_0(buf, pos)
            append(item)
        o.members = items
    return o, pos


def _enc_JoinGroupResponseMember_0(o, w):
    if o.member_id is None:
        raise EncodeError('non-nullable field MemberId is None')
    write_string(w, o.member_id)
    if o.metadata is None:
        raise EncodeError('non-nullable field Metadata is None')
    write_bytes(w, o.metadata)


def _enc_JoinGroupResponse_0(o, w):
    w += _S0.pack(o.error_code, o.generation_id)
    if o.protocol_name is None:
        raise EncodeError('non-nullable field ProtocolName is None')
    write_string(w, o.protocol_name)
    if o.leader is None:
        raise EncodeError('non-nullable field Leader is None')
    write_string(w, o.leader)
    if o.member_id is None:
        raise EncodeError('non-nullable field MemberId is None')
    write_string(w, o.member_id)
    items = o.members
    if items is None:
        raise EncodeError('non-nullable array Members is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_JoinGroupResponseMember_0(item, w)


def _dec_JoinGroupResponse_1(buf, pos):
    o = _new(JoinGroupResponse)
    o.protocol_type = None
    o.skip_assignment = False
    o.unknown_tagged_fields = None
    o.throttle_time_ms, o.error_code, o.generation_id = _S1.unpack_from(buf, pos)
    pos += 10
    o.protocol_name, pos = read_string(buf, pos)
    o.leader, pos = read_string(buf, pos)
    o.member_id, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Members was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_JoinGroupResponseMember_0(buf, pos)
            append(item)
        o.members = items
    return o, pos


def _enc_JoinGroupResponse_1(o, w):
    w += _S1.pack(o.throttle_time_ms, o.error_code, o.generation_id)
    if o.protocol_name is None:
        raise EncodeError('non-nullable field ProtocolName is None')
    write_string(w, o.protocol_name)
    if o.leader is None:
        raise EncodeError('non-nullable field Leader is None')
    write_string(w, o.leader)
    if o.member_id is None:
        raise EncodeError('non-nullable field MemberId is None')
    write_string(w, o.member_id)
    items = o.members
    if items is None:
        raise EncodeError('non-nullable array Members is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_JoinGroupResponseMember_0(item, w)


def _dec_JoinGroupResponseMember_1(buf, pos):
    o = _new(JoinGroupResponseMember)
    o.unknown_tagged_fields = None
    o.member_id, pos = read_string(buf, pos)
    o.group_instance_id, pos = read_nullable_string(buf, pos)
    o.metadata, pos = read_bytes(buf, pos)
    return o, pos


def _dec_JoinGroupResponse_2(buf, pos):
    o = _new(JoinGroupResponse)
    o.protocol_type = None
    o.skip_assignment = False
    o.unknown_tagged_fields = None
    o.throttle_time_ms, o.error_code, o.generation_id = _S1.unpack_from(buf, pos)
    pos += 10
    o.protocol_name, pos = read_string(buf, pos)
    o.leader, pos = read_string(buf, pos)
    o.member_id, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Members was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_JoinGroupResponseMember_1(buf, pos)
            append(item)
        o.members = items
    return o, pos


def _enc_JoinGroupResponseMember_1(o, w):
    if o.member_id is None:
        raise EncodeError('non-nullable field MemberId is None')
    write_string(w, o.member_id)
    write_nullable_string(w, o.group_instance_id)
    if o.metadata is None:
        raise EncodeError('non-nullable field Metadata is None')
    write_bytes(w, o.metadata)


def _enc_JoinGroupResponse_2(o, w):
    w += _S1.pack(o.throttle_time_ms, o.error_code, o.generation_id)
    if o.protocol_name is None:
        raise EncodeError('non-nullable field ProtocolName is None')
    write_string(w, o.protocol_name)
    if o.leader is None:
        raise EncodeError('non-nullable field Leader is None')
    write_string(w, o.leader)
    if o.member_id is None:
        raise EncodeError('non-nullable field MemberId is None')
    write_string(w, o.member_id)
    items = o.members
    if items is None:
        raise EncodeError('non-nullable array Members is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_JoinGroupResponseMember_1(item, w)


def _dec_JoinGroupResponseMember_2(buf, pos):
    o = _new(JoinGroupResponseMember)
    o.member_id, pos = read_compact_string(buf, pos)
    o.group_instance_id, pos = read_compact_nullable_string(buf, pos)
    o.metadata, pos = read_compact_bytes(buf, pos)
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


def _dec_JoinGroupResponse_3(buf, pos):
    o = _new(JoinGroupResponse)
    o.protocol_type = None
    o.skip_assignment = False
    o.throttle_time_ms, o.error_code, o.generation_id = _S1.unpack_from(buf, pos)
    pos += 10
    o.protocol_name, pos = read_compact_string(buf, pos)
    o.leader, pos = read_compact_string(buf, pos)
    o.member_id, pos = read_compact_string(buf, pos)
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
            item, pos = _dec_JoinGroupResponseMember_2(buf, pos)
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


def _enc_JoinGroupResponseMember_2(o, w):
    if o.member_id is None:
        raise EncodeError('non-nullable field MemberId is None')
    write_compact_string(w, o.member_id)
    write_compact_nullable_string(w, o.group_instance_id)
    if o.metadata is None:
        raise EncodeError('non-nullable field Metadata is None')
    write_compact_bytes(w, o.metadata)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_JoinGroupResponse_3(o, w):
    w += _S1.pack(o.throttle_time_ms, o.error_code, o.generation_id)
    if o.protocol_name is None:
        raise EncodeError('non-nullable field ProtocolName is None')
    write_compact_string(w, o.protocol_name)
    if o.leader is None:
        raise EncodeError('non-nullable field Leader is None')
    write_compact_string(w, o.leader)
    if o.member_id is None:
        raise EncodeError('non-nullable field MemberId is None')
    write_compact_string(w, o.member_id)
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
            _enc_JoinGroupResponseMember_2(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_JoinGroupResponse_4(buf, pos):
    o = _new(JoinGroupResponse)
    o.skip_assignment = False
    o.throttle_time_ms, o.error_code, o.generation_id = _S1.unpack_from(buf, pos)
    pos += 10
    o.protocol_type, pos = read_compact_nullable_string(buf, pos)
    o.protocol_name, pos = read_compact_nullable_string(buf, pos)
    o.leader, pos = read_compact_string(buf, pos)
    o.member_id, pos = read_compact_string(buf, pos)
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
            item, pos = _dec_JoinGroupResponseMember_2(buf, pos)
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


def _enc_JoinGroupResponse_4(o, w):
    w += _S1.pack(o.throttle_time_ms, o.error_code, o.generation_id)
    write_compact_nullable_string(w, o.protocol_type)
    write_compact_nullable_string(w, o.protocol_name)
    if o.leader is None:
        raise EncodeError('non-nullable field Leader is None')
    write_compact_string(w, o.leader)
    if o.member_id is None:
        raise EncodeError('non-nullable field MemberId is None')
    write_compact_string(w, o.member_id)
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
            _enc_JoinGroupResponseMember_2(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_JoinGroupResponse_5(buf, pos):
    o = _new(JoinGroupResponse)
    o.throttle_time_ms, o.error_code, o.generation_id = _S1.unpack_from(buf, pos)
    pos += 10
    o.protocol_type, pos = read_compact_nullable_string(buf, pos)
    o.protocol_name, pos = read_compact_nullable_string(buf, pos)
    o.leader, pos = read_compact_string(buf, pos)
    o.skip_assignment, = _S2.unpack_from(buf, pos)
    pos += 1
    o.member_id, pos = read_compact_string(buf, pos)
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
            item, pos = _dec_JoinGroupResponseMember_2(buf, pos)
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


def _enc_JoinGroupResponse_5(o, w):
    w += _S1.pack(o.throttle_time_ms, o.error_code, o.generation_id)
    write_compact_nullable_string(w, o.protocol_type)
    write_compact_nullable_string(w, o.protocol_name)
    if o.leader is None:
        raise EncodeError('non-nullable field Leader is None')
    write_compact_string(w, o.leader)
    w += _S2.pack(o.skip_assignment)
    if o.member_id is None:
        raise EncodeError('non-nullable field MemberId is None')
    write_compact_string(w, o.member_id)
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
            _enc_JoinGroupResponseMember_2(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


JoinGroupResponse._DECODERS = {0: _dec_JoinGroupResponse_0, 1: _dec_JoinGroupResponse_0, 2: _dec_JoinGroupResponse_1, 3: _dec_JoinGroupResponse_1, 4: _dec_JoinGroupResponse_1, 5: _dec_JoinGroupResponse_2, 6: _dec_JoinGroupResponse_3, 7: _dec_JoinGroupResponse_4, 8: _dec_JoinGroupResponse_4, 9: _dec_JoinGroupResponse_5}
JoinGroupResponse._ENCODERS = {0: _enc_JoinGroupResponse_0, 1: _enc_JoinGroupResponse_0, 2: _enc_JoinGroupResponse_1, 3: _enc_JoinGroupResponse_1, 4: _enc_JoinGroupResponse_1, 5: _enc_JoinGroupResponse_2, 6: _enc_JoinGroupResponse_3, 7: _enc_JoinGroupResponse_4, 8: _enc_JoinGroupResponse_4, 9: _enc_JoinGroupResponse_5}
