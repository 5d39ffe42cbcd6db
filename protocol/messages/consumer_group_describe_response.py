"""ConsumerGroupDescribeResponse: generated from Kafka's ConsumerGroupDescribeResponse.json by tools/generate_protocol.py.

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
_S0 = struct.Struct('>i')
_S1 = struct.Struct('>h')
_S2 = struct.Struct('>ii')


class TopicPartitions(Struct):
    __slots__ = ('topic_id', 'topic_name', 'partitions', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('topic_id', 'TopicId', 'uuid', False, (0, 32767), None, None, None, None), FieldMeta('topic_name', 'TopicName', 'string', False, (0, 32767), None, None, None, None), FieldMeta('partitions', 'Partitions', 'int32', True, (0, 32767), None, None, None, None))

    def __init__(self, *, topic_id: uuid.UUID = ZERO_UUID, topic_name: str = '', partitions: list[int] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.topic_id = topic_id
        self.topic_name = topic_name
        self.partitions = [] if partitions is _DEFAULT else partitions
        self.unknown_tagged_fields = unknown_tagged_fields


class Assignment(Struct):
    __slots__ = ('topic_partitions', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('topic_partitions', 'TopicPartitions', 'TopicPartitions', True, (0, 32767), None, None, None, TopicPartitions),)

    def __init__(self, *, topic_partitions: list[TopicPartitions] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.topic_partitions = [] if topic_partitions is _DEFAULT else topic_partitions
        self.unknown_tagged_fields = unknown_tagged_fields


class Member(Struct):
    __slots__ = ('member_id', 'instance_id', 'rack_id', 'member_epoch', 'client_id', 'client_host', 'subscribed_topic_names', 'subscribed_topic_regex', 'assignment', 'target_assignment', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('member_id', 'MemberId', 'string', False, (0, 32767), None, None, None, None), FieldMeta('instance_id', 'InstanceId', 'string', False, (0, 32767), (0, 32767), None, None, None), FieldMeta('rack_id', 'RackId', 'string', False, (0, 32767), (0, 32767), None, None, None), FieldMeta('member_epoch', 'MemberEpoch', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('client_id', 'ClientId', 'string', False, (0, 32767), None, None, None, None), FieldMeta('client_host', 'ClientHost', 'string', False, (0, 32767), None, None, None, None), FieldMeta('subscribed_topic_names', 'SubscribedTopicNames', 'string', True, (0, 32767), None, None, None, None), FieldMeta('subscribed_topic_regex', 'SubscribedTopicRegex', 'string', False, (0, 32767), (0, 32767), None, None, None), FieldMeta('assignment', 'Assignment', 'Assignment', False, (0, 32767), None, None, None, Assignment), FieldMeta('target_assignment', 'TargetAssignment', 'Assignment', False, (0, 32767), None, None, None, Assignment))

    def __init__(self, *, member_id: str = '', instance_id: str | None = None, rack_id: str | None = None, member_epoch: int = 0, client_id: str = '', client_host: str = '', subscribed_topic_names: list[str] | None = _DEFAULT, subscribed_topic_regex: str | None = None, assignment: Assignment | None = _DEFAULT, target_assignment: Assignment | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.member_id = member_id
        self.instance_id = instance_id
        self.rack_id = rack_id
        self.member_epoch = member_epoch
        self.client_id = client_id
        self.client_host = client_host
        self.subscribed_topic_names = [] if subscribed_topic_names is _DEFAULT else subscribed_topic_names
        self.subscribed_topic_regex = subscribed_topic_regex
        self.assignment = Assignment() if assignment is _DEFAULT else assignment
        self.target_assignment = Assignment() if target_assignment is _DEFAULT else target_assignment
        self.unknown_tagged_fields = unknown_tagged_fields


class DescribedGroup(Struct):
    __slots__ = ('error_code', 'error_message', 'group_id', 'group_state', 'group_epoch', 'assignment_epoch', 'assignor_name', 'members', 'authorized_operations', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('error_message', 'ErrorMessage', 'string', False, (0, 32767), (0, 32767), None, None, None), FieldMeta('group_id', 'GroupId', 'string', False, (0, 32767), None, None, None, None), FieldMeta('group_state', 'GroupState', 'string', False, (0, 32767), None, None, None, None), FieldMeta('group_epoch', 'GroupEpoch', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('assignment_epoch', 'AssignmentEpoch', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('assignor_name', 'AssignorName', 'string', False, (0, 32767), None, None, None, None), FieldMeta('members', 'Members', 'Member', True, (0, 32767), None, None, None, Member), FieldMeta('authorized_operations', 'AuthorizedOperations', 'int32', False, (0, 32767), None, None, None, None))

    def __init__(self, *, error_code: int = 0, error_message: str | None = None, group_id: str = '', group_state: str = '', group_epoch: int = 0, assignment_epoch: int = 0, assignor_name: str = '', members: list[Member] | None = _DEFAULT, authorized_operations: int = -2147483648, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.error_code = error_code
        self.error_message = error_message
        self.group_id = group_id
        self.group_state = group_state
        self.group_epoch = group_epoch
        self.assignment_epoch = assignment_epoch
        self.assignor_name = assignor_name
        self.members = [] if members is _DEFAULT else members
        self.authorized_operations = authorized_operations
        self.unknown_tagged_fields = unknown_tagged_fields


class ConsumerGroupDescribeResponse(Message):
    """Kafka response ConsumerGroupDescribeResponse (valid versions 0-0)."""

    NAME = 'ConsumerGroupDescribeResponse'
    TYPE = 'response'
    API_KEY = 69
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    TopicPartitions = TopicPartitions
    Assignment = Assignment
    Member = Member
    DescribedGroup = DescribedGroup
    __slots__ = ('throttle_time_ms', 'groups', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('throttle_time_ms', 'ThrottleTimeMs', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('groups', 'Groups', 'DescribedGroup', True, (0, 32767), None, None, None, DescribedGroup))

    def __init__(self, *, throttle_time_ms: int = 0, groups: list[DescribedGroup] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.groups = [] if groups is _DEFAULT else groups
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_TopicPartitions_0(buf, pos):
    o = _new(TopicPartitions)
    o.topic_id, pos = read_uuid(buf, pos)
    o.topic_name, pos = read_compact_string(buf, pos)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Partitions was null')
    else:
        end = pos + n * 4
        if end > len(buf):
            raise DecodeError('truncated array Partitions')
        o.partitions = list(_unpack_from('>%di' % n, buf, pos))
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


def _dec_Assignment_0(buf, pos):
    o = _new(Assignment)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array TopicPartitions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_TopicPartitions_0(buf, pos)
            append(item)
        o.topic_partitions = items
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


def _dec_Member_0(buf, pos):
    o = _new(Member)
    o.member_id, pos = read_compact_string(buf, pos)
    o.instance_id, pos = read_compact_nullable_string(buf, pos)
    o.rack_id, pos = read_compact_nullable_string(buf, pos)
    o.member_epoch, = _S0.unpack_from(buf, pos)
    pos += 4
    o.client_id, pos = read_compact_string(buf, pos)
    o.client_host, pos = read_compact_string(buf, pos)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array SubscribedTopicNames was null')
    else:
        items = []
        for _ in range(n):
            item, pos = read_compact_string(buf, pos)
            items.append(item)
        o.subscribed_topic_names = items
    o.subscribed_topic_regex, pos = read_compact_nullable_string(buf, pos)
    o.assignment, pos = _dec_Assignment_0(buf, pos)
    o.target_assignment, pos = _dec_Assignment_0(buf, pos)
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


def _dec_DescribedGroup_0(buf, pos):
    o = _new(DescribedGroup)
    o.error_code, = _S1.unpack_from(buf, pos)
    pos += 2
    o.error_message, pos = read_compact_nullable_string(buf, pos)
    o.group_id, pos = read_compact_string(buf, pos)
    o.group_state, pos = read_compact_string(buf, pos)
    o.group_epoch, o.assignment_epoch = _S2.unpack_from(buf, pos)
    pos += 8
    o.assignor_name, pos = read_compact_string(buf, pos)
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
            item, pos = _dec_Member_0(buf, pos)
            append(item)
        o.members = items
    o.authorized_operations, = _S0.unpack_from(buf, pos)
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


def _dec_ConsumerGroupDescribeResponse_0(buf, pos):
    o = _new(ConsumerGroupDescribeResponse)
    o.throttle_time_ms, = _S0.unpack_from(buf, pos)
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
            item, pos = _dec_DescribedGroup_0(buf, pos)
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


def _enc_TopicPartitions_0(o, w):
    write_uuid(w, o.topic_id)
    if o.topic_name is None:
        raise EncodeError('non-nullable field TopicName is None')
    write_compact_string(w, o.topic_name)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        w += _pack('>%di' % len(items), *items)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_Assignment_0(o, w):
    items = o.topic_partitions
    if items is None:
        raise EncodeError('non-nullable array TopicPartitions is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_TopicPartitions_0(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_Member_0(o, w):
    if o.member_id is None:
        raise EncodeError('non-nullable field MemberId is None')
    write_compact_string(w, o.member_id)
    write_compact_nullable_string(w, o.instance_id)
    write_compact_nullable_string(w, o.rack_id)
    w += _S0.pack(o.member_epoch)
    if o.client_id is None:
        raise EncodeError('non-nullable field ClientId is None')
    write_compact_string(w, o.client_id)
    if o.client_host is None:
        raise EncodeError('non-nullable field ClientHost is None')
    write_compact_string(w, o.client_host)
    items = o.subscribed_topic_names
    if items is None:
        raise EncodeError('non-nullable array SubscribedTopicNames is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            write_compact_string(w, item)
    write_compact_nullable_string(w, o.subscribed_topic_regex)
    _enc_Assignment_0(o.assignment, w)
    _enc_Assignment_0(o.target_assignment, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_DescribedGroup_0(o, w):
    w += _S1.pack(o.error_code)
    write_compact_nullable_string(w, o.error_message)
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_compact_string(w, o.group_id)
    if o.group_state is None:
        raise EncodeError('non-nullable field GroupState is None')
    write_compact_string(w, o.group_state)
    w += _S2.pack(o.group_epoch, o.assignment_epoch)
    if o.assignor_name is None:
        raise EncodeError('non-nullable field AssignorName is None')
    write_compact_string(w, o.assignor_name)
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
            _enc_Member_0(item, w)
    w += _S0.pack(o.authorized_operations)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_ConsumerGroupDescribeResponse_0(o, w):
    w += _S0.pack(o.throttle_time_ms)
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
            _enc_DescribedGroup_0(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


ConsumerGroupDescribeResponse._DECODERS = {0: _dec_ConsumerGroupDescribeResponse_0}
ConsumerGroupDescribeResponse._ENCODERS = {0: _enc_ConsumerGroupDescribeResponse_0}
