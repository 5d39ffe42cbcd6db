"""ConsumerGroupHeartbeatRequest: generated from Kafka's ConsumerGroupHeartbeatRequest.json by tools/generate_protocol.py.

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


class TopicPartitions(Struct):
    __slots__ = ('topic_id', 'partitions', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('topic_id', 'TopicId', 'uuid', False, (0, 32767), None, None, None, None), FieldMeta('partitions', 'Partitions', 'int32', True, (0, 32767), None, None, None, None))

    def __init__(self, *, topic_id: uuid.UUID = ZERO_UUID, partitions: list[int] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.topic_id = topic_id
        self.partitions = [] if partitions is _DEFAULT else partitions
        self.unknown_tagged_fields = unknown_tagged_fields


class ConsumerGroupHeartbeatRequest(Message):
    """Kafka request ConsumerGroupHeartbeatRequest (valid versions 0-1)."""

    NAME = 'ConsumerGroupHeartbeatRequest'
    TYPE = 'request'
    API_KEY = 68
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (0, 32767)
    TopicPartitions = TopicPartitions
    __slots__ = ('group_id', 'member_id', 'member_epoch', 'instance_id', 'rack_id', 'rebalance_timeout_ms', 'subscribed_topic_names', 'subscribed_topic_regex', 'server_assignor', 'topic_partitions', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('group_id', 'GroupId', 'string', False, (0, 32767), None, None, None, None), FieldMeta('member_id', 'MemberId', 'string', False, (0, 32767), None, None, None, None), FieldMeta('member_epoch', 'MemberEpoch', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('instance_id', 'InstanceId', 'string', False, (0, 32767), (0, 32767), None, None, None), FieldMeta('rack_id', 'RackId', 'string', False, (0, 32767), (0, 32767), None, None, None), FieldMeta('rebalance_timeout_ms', 'RebalanceTimeoutMs', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('subscribed_topic_names', 'SubscribedTopicNames', 'string', True, (0, 32767), (0, 32767), None, None, None), FieldMeta('subscribed_topic_regex', 'SubscribedTopicRegex', 'string', False, (1, 32767), (1, 32767), None, None, None), FieldMeta('server_assignor', 'ServerAssignor', 'string', False, (0, 32767), (0, 32767), None, None, None), FieldMeta('topic_partitions', 'TopicPartitions', 'TopicPartitions', True, (0, 32767), (0, 32767), None, None, TopicPartitions))

    def __init__(self, *, group_id: str = '', member_id: str = '', member_epoch: int = 0, instance_id: str | None = None, rack_id: str | None = None, rebalance_timeout_ms: int = -1, subscribed_topic_names: list[str] | None = None, subscribed_topic_regex: str | None = None, server_assignor: str | None = None, topic_partitions: list[TopicPartitions] | None = None, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.group_id = group_id
        self.member_id = member_id
        self.member_epoch = member_epoch
        self.instance_id = instance_id
        self.rack_id = rack_id
        self.rebalance_timeout_ms = rebalance_timeout_ms
        self.subscribed_topic_names = subscribed_topic_names
        self.subscribed_topic_regex = subscribed_topic_regex
        self.server_assignor = server_assignor
        self.topic_partitions = topic_partitions
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_TopicPartitions_0(buf, pos):
    o = _new(TopicPartitions)
    o.topic_id, pos = read_uuid(buf, pos)
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


def _dec_ConsumerGroupHeartbeatRequest_0(buf, pos):
    o = _new(ConsumerGroupHeartbeatRequest)
    o.subscribed_topic_regex = None
    o.group_id, pos = read_compact_string(buf, pos)
    o.member_id, pos = read_compact_string(buf, pos)
    o.member_epoch, = _S0.unpack_from(buf, pos)
    pos += 4
    o.instance_id, pos = read_compact_nullable_string(buf, pos)
    o.rack_id, pos = read_compact_nullable_string(buf, pos)
    o.rebalance_timeout_ms, = _S0.unpack_from(buf, pos)
    pos += 4
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        o.subscribed_topic_names = None
    else:
        items = []
        for _ in range(n):
            item, pos = read_compact_string(buf, pos)
            items.append(item)
        o.subscribed_topic_names = items
    o.server_assignor, pos = read_compact_nullable_string(buf, pos)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        o.topic_partitions = None
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


def _enc_TopicPartitions_0(o, w):
    write_uuid(w, o.topic_id)
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


def _enc_ConsumerGroupHeartbeatRequest_0(o, w):
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_compact_string(w, o.group_id)
    if o.member_id is None:
        raise EncodeError('non-nullable field MemberId is None')
    write_compact_string(w, o.member_id)
    w += _S0.pack(o.member_epoch)
    write_compact_nullable_string(w, o.instance_id)
    write_compact_nullable_string(w, o.rack_id)
    w += _S0.pack(o.rebalance_timeout_ms)
    items = o.subscribed_topic_names
    if items is None:
        write_compact_array_length(w, -1)
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            write_compact_string(w, item)
    write_compact_nullable_string(w, o.server_assignor)
    items = o.topic_partitions
    if items is None:
        write_compact_array_length(w, -1)
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


def _dec_ConsumerGroupHeartbeatRequest_1(buf, pos):
    o = _new(ConsumerGroupHeartbeatRequest)
    o.group_id, pos = read_compact_string(buf, pos)
    o.member_id, pos = read_compact_string(buf, pos)
    o.member_epoch, = _S0.unpack_from(buf, pos)
    pos += 4
    o.instance_id, pos = read_compact_nullable_string(buf, pos)
    o.rack_id, pos = read_compact_nullable_string(buf, pos)
    o.rebalance_timeout_ms, = _S0.unpack_from(buf, pos)
    pos += 4
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        o.subscribed_topic_names = None
    else:
        items = []
        for _ in range(n):
            item, pos = read_compact_string(buf, pos)
            items.append(item)
        o.subscribed_topic_names = items
    o.subscribed_topic_regex, pos = read_compact_nullable_string(buf, pos)
    o.server_assignor, pos = read_compact_nullable_string(buf, pos)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        o.topic_partitions = None
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


def _enc_ConsumerGroupHeartbeatRequest_1(o, w):
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_compact_string(w, o.group_id)
    if o.member_id is None:
        raise EncodeError('non-nullable field MemberId is None')
    write_compact_string(w, o.member_id)
    w += _S0.pack(o.member_epoch)
    write_compact_nullable_string(w, o.instance_id)
    write_compact_nullable_string(w, o.rack_id)
    w += _S0.pack(o.rebalance_timeout_ms)
    items = o.subscribed_topic_names
    if items is None:
        write_compact_array_length(w, -1)
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            write_compact_string(w, item)
    write_compact_nullable_string(w, o.subscribed_topic_regex)
    write_compact_nullable_string(w, o.server_assignor)
    items = o.topic_partitions
    if items is None:
        write_compact_array_length(w, -1)
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


ConsumerGroupHeartbeatRequest._DECODERS = {0: _dec_ConsumerGroupHeartbeatRequest_0, 1: _dec_ConsumerGroupHeartbeatRequest_1}
ConsumerGroupHeartbeatRequest._ENCODERS = {0: _enc_ConsumerGroupHeartbeatRequest_0, 1: _enc_ConsumerGroupHeartbeatRequest_1}
