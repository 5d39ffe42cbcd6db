"""DescribeGroupsResponse: generated from Kafka's DescribeGroupsResponse.json by tools/generate_protocol.py.

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
_S1 = struct.Struct('>i')


class DescribedGroupMember(Struct):
    __slots__ = ('member_id', 'group_instance_id', 'client_id', 'client_host', 'member_metadata', 'member_assignment', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('member_id', 'MemberId', 'string', False, (0, 32767), None, None, None, None), FieldMeta('group_instance_id', 'GroupInstanceId', 'string', False, (4, 32767), (4, 32767), None, None, None), FieldMeta('client_id', 'ClientId', 'string', False, (0, 32767), None, None, None, None), FieldMeta('client_host', 'ClientHost', 'string', False, (0, 32767), None, None, None, None), FieldMeta('member_metadata', 'MemberMetadata', 'bytes', False, (0, 32767), None, None, None, None), FieldMeta('member_assignment', 'MemberAssignment', 'bytes', False, (0, 32767), None, None, None, None))

    def __init__(self, *, member_id: str = '', group_instance_id: str | None = None, client_id: str = '', client_host: str = '', member_metadata: bytes = b'', member_assignment: bytes = b'', unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.member_id = member_id
        self.group_instance_id = group_instance_id
        self.client_id = client_id
        self.client_host = client_host
        self.member_metadata = member_metadata
        self.member_assignment = member_assignment
        self.unknown_tagged_fields = unknown_tagged_fields


class DescribedGroup(Struct):
    __slots__ = ('error_code', 'error_message', 'group_id', 'group_state', 'protocol_type', 'protocol_data', 'members', 'authorized_operations', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('error_message', 'ErrorMessage', 'string', False, (6, 32767), (6, 32767), None, None, None), FieldMeta('group_id', 'GroupId', 'string', False, (0, 32767), None, None, None, None), FieldMeta('group_state', 'GroupState', 'string', False, (0, 32767), None, None, None, None), FieldMeta('protocol_type', 'ProtocolType', 'string', False, (0, 32767), None, None, None, None), FieldMeta('protocol_data', 'ProtocolData', 'string', False, (0, 32767), None, None, None, None), FieldMeta('members', 'Members', 'DescribedGroupMember', True, (0, 32767), None, None, None, DescribedGroupMember), FieldMeta('authorized_operations', 'AuthorizedOperations', 'int32', False, (3, 32767), None, None, None, None))

    def __init__(self, *, error_code: int = 0, error_message: str | None = None, group_id: str = '', group_state: str = '', protocol_type: str = '', protocol_data: str = '', members: list[DescribedGroupMember] | None = _DEFAULT, authorized_operations: int = -2147483648, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.error_code = error_code
        self.error_message = error_message
        self.group_id = group_id
        self.group_state = group_state
        self.protocol_type = protocol_type
        self.protocol_data = protocol_data
        self.members = [] if members is _DEFAULT else members
        self.authorized_operations = authorized_operations
        self.unknown_tagged_fields = unknown_tagged_fields


class DescribeGroupsResponse(Message):
    """Kafka response DescribeGroupsResponse (valid versions 0-6)."""

    NAME = 'DescribeGroupsResponse'
    TYPE = 'response'
    API_KEY = 15
    VALID_VERSIONS = (0, 6)
    FLEXIBLE_VERSIONS = (5, 32767)
    DescribedGroupMember = DescribedGroupMember
    DescribedGroup = DescribedGroup
    __slots__ = ('throttle_time_ms', 'groups', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('throttle_time_ms', 'ThrottleTimeMs', 'int32', False, (1, 32767), None, None, None, None), FieldMeta('groups', 'Groups', 'DescribedGroup', True, (0, 32767), None, None, None, DescribedGroup))

    def __init__(self, *, throttle_time_ms: int = 0, groups: list[DescribedGroup] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.groups = [] if groups is _DEFAULT else groups
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_DescribedGroupMember_0(buf, pos):
    o = _new(DescribedGroupMember)
    o.group_instance_id = None
    o.unknown_tagged_fields = None
    o.member_id, pos = read_string(buf, pos)
    o.client_id, pos = read_string(buf, pos)
    o.client_host, pos = read_string(buf, pos)
    o.member_metadata, pos = read_bytes(buf, pos)
    o.member_assignment, pos = read_bytes(buf, pos)
    return o, pos


def _dec_DescribedGroup_0(buf, pos):
    o = _new(DescribedGroup)
    o.error_message = None
    o.authorized_operations = -2147483648
    o.unknown_tagged_fields = None
    o.error_code, = _S0.unpack_from(buf, pos)
    pos += 2
    o.group_id, pos = read_string(buf, pos)
    o.group_state, pos = read_string(buf, pos)
    o.protocol_type, pos = read_string(buf, pos)
    o.protocol_data, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Members was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_DescribedGroupMember_0(buf, pos)
            append(item)
        o.members = items
    return o, pos


def _dec_DescribeGroupsResponse_0(buf, pos):
    o = _new(DescribeGroupsResponse)
    o.throttle_time_ms = 0
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Groups was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_DescribedGroup_0(buf, pos)
            append(item)
        o.groups = items
    return o, pos


def _enc_DescribedGroupMember_0(o, w):
    if o.member_id is None:
        raise EncodeError('non-nullable field MemberId is None')
    write_string(w, o.member_id)
    if o.client_id is None:
        raise EncodeError('non-nullable field ClientId is None')
    write_string(w, o.client_id)
    if o.client_host is None:
        raise EncodeError('non-nullable field ClientHost is None')
    write_string(w, o.client_host)
    if o.member_metadata is None:
        raise EncodeError('non-nullable field MemberMetadata is None')
    write_bytes(w, o.member_metadata)
    if o.member_assignment is None:
        raise EncodeError('non-nullable field MemberAssignment is None')
    write_bytes(w, o.member_assignment)


def _enc_DescribedGroup_0(o, w):
    w += _S0.pack(o.error_code)
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_string(w, o.group_id)
    if o.group_state is None:
        raise EncodeError('non-nullable field GroupState is None')
    write_string(w, o.group_state)
    if o.protocol_type is None:
        raise EncodeError('non-nullable field ProtocolType is None')
    write_string(w, o.protocol_type)
    if o.protocol_data is None:
        raise EncodeError('non-nullable field ProtocolData is None')
    write_string(w, o.protocol_data)
    items = o.members
    if items is None:
        raise EncodeError('non-nullable array Members is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_DescribedGroupMember_0(item, w)


def _enc_DescribeGroupsResponse_0(o, w):
    items = o.groups
    if items is None:
        raise EncodeError('non-nullable array Groups is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_DescribedGroup_0(item, w)


def _dec_DescribeGroupsResponse_1(buf, pos):
    o = _new(DescribeGroupsResponse)
    o.unknown_tagged_fields = None
    o.throttle_time_ms, = _S1.unpack_from(buf, pos)
    pos += 4
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Groups was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_DescribedGroup_0(buf, pos)
            append(item)
        o.groups = items
    return o, pos


def _enc_DescribeGroupsResponse_1(o, w):
    w += _S1.pack(o.throttle_time_ms)
    items = o.groups
    if items is None:
        raise EncodeError('non-nullable array Groups is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_DescribedGroup_0(item, w)


def _dec_DescribedGroup_1(buf, pos):
    o = _new(DescribedGroup)
    o.error_message = None
    o.unknown_tagged_fields = None
    o.error_code, = _S0.unpack_from(buf, pos)
    pos += 2
    o.group_id, pos = read_string(buf, pos)
    o.group_state, pos = read_string(buf, pos)
    o.protocol_type, pos = read_string(buf, pos)
    o.protocol_data, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Members was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_DescribedGroupMember_0(buf, pos)
            append(item)
        o.members = items
    o.authorized_operations, = _S1.unpack_from(buf, pos)
    pos += 4
    return o, pos


def _dec_DescribeGroupsResponse_2(buf, pos):
    o = _new(DescribeGroupsResponse)
    o.unknown_tagged_fields = None
    o.throttle_time_ms, = _S1.unpack_from(buf, pos)
    pos += 4
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Groups was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_DescribedGroup_1(buf, pos)
            append(item)
        o.groups = items
    return o, pos


def _enc_DescribedGroup_1(o, w):
    w += _S0.pack(o.error_code)
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_string(w, o.group_id)
    if o.group_state is None:
        raise EncodeError('non-nullable field GroupState is None')
    write_string(w, o.group_state)
    if o.protocol_type is None:
        raise EncodeError('non-nullable field ProtocolType is None')
    write_string(w, o.protocol_type)
    if o.protocol_data is None:
        raise EncodeError('non-nullable field ProtocolData is None')
    write_string(w, o.protocol_data)
    items = o.members
    if items is None:
        raise EncodeError('non-nullable array Members is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_DescribedGroupMember_0(item, w)
    w += _S1.pack(o.authorized_operations)


def _enc_DescribeGroupsResponse_2(o, w):
    w += _S1.pack(o.throttle_time_ms)
    items = o.groups
    if items is None:
        raise EncodeError('non-nullable array Groups is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_DescribedGroup_1(item, w)


def _dec_DescribedGroupMember_1(buf, pos):
    o = _new(DescribedGroupMember)
    o.unknown_tagged_fields = None
    o.member_id, pos = read_string(buf, pos)
    o.group_instance_id, pos = read_nullable_string(buf, pos)
    o.client_id, pos = read_string(buf, pos)
    o.client_host, pos = read_string(buf, pos)
    o.member_metadata, pos = read_bytes(buf, pos)
    o.member_assignment, pos = read_bytes(buf, pos)
    return o, pos


def _dec_DescribedGroup_2(buf, pos):
    o = _new(DescribedGroup)
    o.error_message = None
    o.unknown_tagged_fields = None
    o.error_code, = _S0.unpack_from(buf, pos)
    pos += 2
    o.group_id, pos = read_string(buf, pos)
    o.group_state, pos = read_string(buf, pos)
    o.protocol_type, pos = read_string(buf, pos)
    o.protocol_data, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Members was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_DescribedGroupMember_1(buf, pos)
            append(item)
        o.members = items
    o.authorized_operations, = _S1.unpack_from(buf, pos)
    pos += 4
    return o, pos


def _dec_DescribeGroupsResponse_3(buf, pos):
    o = _new(DescribeGroupsResponse)
    o.unknown_tagged_fields = None
    o.throttle_time_ms, = _S1.unpack_from(buf, pos)
    pos += 4
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Groups was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_DescribedGroup_2(buf, pos)
            append(item)
        o.groups = items
    return o, pos


def _enc_DescribedGroupMember_1(o, w):
    if o.member_id is None:
        raise EncodeError('non-nullable field MemberId is None')
    write_string(w, o.member_id)
    write_nullable_string(w, o.group_instance_id)
    if o.client_id is None:
        raise EncodeError('non-nullable field ClientId is None')
    write_string(w, o.client_id)
    if o.client_host is None:
        raise EncodeError('non-nullable field ClientHost is None')
    write_string(w, o.client_host)
    if o.member_metadata is None:
        raise EncodeError('non-nullable field MemberMetadata is None')
    write_bytes(w, o.member_metadata)
    if o.member_assignment is None:
        raise EncodeError('non-nullable field MemberAssignment is None')
    write_bytes(w, o.member_assignment)


def _enc_DescribedGroup_2(o, w):
    w += _S0.pack(o.error_code)
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_string(w, o.group_id)
    if o.group_state is None:
        raise EncodeError('non-nullable field GroupState is None')
    write_string(w, o.group_state)
    if o.protocol_type is None:
        raise EncodeError('non-nullable field ProtocolType is None')
    write_string(w, o.protocol_type)
    if o.protocol_data is None:
        raise EncodeError('non-nullable field ProtocolData is None')
    write_string(w, o.protocol_data)
    items = o.members
    if items is None:
        raise EncodeError('non-nullable array Members is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_DescribedGroupMember_1(item, w)
    w += _S1.pack(o.authorized_operations)


def _enc_DescribeGroupsResponse_3(o, w):
    w += _S1.pack(o.throttle_time_ms)
    items = o.groups
    if items is None:
        raise EncodeError('non-nullable array Groups is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_DescribedGroup_2(item, w)


def _dec_DescribedGroupMember_2(buf, pos):
    o = _new(DescribedGroupMember)
    o.member_id, pos = read_compact_string(buf, pos)
    o.group_instance_id, pos = read_compact_nullable_string(buf, pos)
    o.client_id, pos = read_compact_string(buf, pos)
    o.client_host, pos = read_compact_string(buf, pos)
    o.member_metadata, pos = read_compact_bytes(buf, pos)
    o.member_assignment, pos = read_compact_bytes(buf, pos)
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


def _dec_DescribedGroup_3(buf, pos):
    o = _new(DescribedGroup)
    o.error_message = None
    o.error_code, = _S0.unpack_from(buf, pos)
    pos += 2
    o.group_id, pos = read_compact_string(buf, pos)
    o.group_state, pos = read_compact_string(buf, pos)
    o.protocol_type, pos = read_compact_string(buf, pos)
    o.protocol_data, pos = read_compact_string(buf, pos)
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
            item, pos = _dec_DescribedGroupMember_2(buf, pos)
            append(item)
        o.members = items
    o.authorized_operations, = _S1.unpack_from(buf, pos)
    pos += 4
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


def _dec_DescribeGroupsResponse_4(buf, pos):
    o = _new(DescribeGroupsResponse)
    o.throttle_time_ms, = _S1.unpack_from(buf, pos)
    pos += 4
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
            item, pos = _dec_DescribedGroup_3(buf, pos)
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


def _enc_DescribedGroupMember_2(o, w):
    if o.member_id is None:
        raise EncodeError('non-nullable field MemberId is None')
    write_compact_string(w, o.member_id)
    write_compact_nullable_string(w, o.group_instance_id)
    if o.client_id is None:
        raise EncodeError('non-nullable field ClientId is None')
    write_compact_string(w, o.client_id)
    if o.client_host is None:
        raise EncodeError('non-nullable field ClientHost is None')
    write_compact_string(w, o.client_host)
    if o.member_metadata is None:
        raise EncodeError('non-nullable field MemberMetadata is None')
    write_compact_bytes(w, o.member_metadata)
    if o.member_assignment is None:
        raise EncodeError('non-nullable field MemberAssignment is None')
    write_compact_bytes(w, o.member_assignment)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_DescribedGroup_3(o, w):
    w += _S0.pack(o.error_code)
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_compact_string(w, o.group_id)
    if o.group_state is None:
        raise EncodeError('non-nullable field GroupState is None')
    write_compact_string(w, o.group_state)
    if o.protocol_type is None:
        raise EncodeError('non-nullable field ProtocolType is None')
    write_compact_string(w, o.protocol_type)
    if o.protocol_data is None:
        raise EncodeError('non-nullable field ProtocolData is None')
    write_compact_string(w, o.protocol_data)
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
            _enc_DescribedGroupMember_2(item, w)
    w += _S1.pack(o.authorized_operations)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_DescribeGroupsResponse_4(o, w):
    w += _S1.pack(o.throttle_time_ms)
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
            _enc_DescribedGroup_3(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_DescribedGroup_4(buf, pos):
    o = _new(DescribedGroup)
    o.error_code, = _S0.unpack_from(buf, pos)
    pos += 2
    o.error_message, pos = read_compact_nullable_string(buf, pos)
    o.group_id, pos = read_compact_string(buf, pos)
    o.group_state, pos = read_compact_string(buf, pos)
    o.protocol_type, pos = read_compact_string(buf, pos)
    o.protocol_data, pos = read_compact_string(buf, pos)
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
            item, pos = _dec_DescribedGroupMember_2(buf, pos)
            append(item)
        o.members = items
    o.authorized_operations, = _S1.unpack_from(buf, pos)
    pos += 4
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


def _dec_DescribeGroupsResponse_5(buf, pos):
    o = _new(DescribeGroupsResponse)
    o.throttle_time_ms, = _S1.unpack_from(buf, pos)
    pos += 4
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
            item, pos = _dec_DescribedGroup_4(buf, pos)
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


def _enc_DescribedGroup_4(o, w):
    w += _S0.pack(o.error_code)
    write_compact_nullable_string(w, o.error_message)
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_compact_string(w, o.group_id)
    if o.group_state is None:
        raise EncodeError('non-nullable field GroupState is None')
    write_compact_string(w, o.group_state)
    if o.protocol_type is None:
        raise EncodeError('non-nullable field ProtocolType is None')
    write_compact_string(w, o.protocol_type)
    if o.protocol_data is None:
        raise EncodeError('non-nullable field ProtocolData is None')
    write_compact_string(w, o.protocol_data)
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
            _enc_DescribedGroupMember_2(item, w)
    w += _S1.pack(o.authorized_operations)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_DescribeGroupsResponse_5(o, w):
    w += _S1.pack(o.throttle_time_ms)
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
            _enc_DescribedGroup_4(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


DescribeGroupsResponse._DECODERS = {0: _dec_DescribeGroupsResponse_0, 1: _dec_DescribeGroupsResponse_1, 2: _dec_DescribeGroupsResponse_1, 3: _dec_DescribeGroupsResponse_2, 4: _dec_DescribeGroupsResponse_3, 5: _dec_DescribeGroupsResponse_4, 6: _dec_DescribeGroupsResponse_5}
DescribeGroupsResponse._ENCODERS = {0: _enc_DescribeGroupsResponse_0, 1: _enc_DescribeGroupsResponse_1, 2: _enc_DescribeGroupsResponse_1, 3: _enc_DescribeGroupsResponse_2, 4: _enc_DescribeGroupsResponse_3, 5: _enc_DescribeGroupsResponse_4, 6: _enc_DescribeGroupsResponse_5}
