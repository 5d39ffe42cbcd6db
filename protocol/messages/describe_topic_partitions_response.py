"""DescribeTopicPartitionsResponse: generated from Kafka's DescribeTopicPartitionsResponse.json by tools/generate_protocol.py.

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
_S2 = struct.Struct('>?')
_S3 = struct.Struct('>hiii')


class DescribeTopicPartitionsResponsePartition(Struct):
    __slots__ = ('error_code', 'partition_index', 'leader_id', 'leader_epoch', 'replica_nodes', 'isr_nodes', 'eligible_leader_replicas', 'last_known_elr', 'offline_replicas', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('partition_index', 'PartitionIndex', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('leader_id', 'LeaderId', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('leader_epoch', 'LeaderEpoch', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('replica_nodes', 'ReplicaNodes', 'int32', True, (0, 32767), None, None, None, None), FieldMeta('isr_nodes', 'IsrNodes', 'int32', True, (0, 32767), None, None, None, None), FieldMeta('eligible_leader_replicas', 'EligibleLeaderReplicas', 'int32', True, (0, 32767), (0, 32767), None, None, None), FieldMeta('last_known_elr', 'LastKnownElr', 'int32', True, (0, 32767), (0, 32767), None, None, None), FieldMeta('offline_replicas', 'OfflineReplicas', 'int32', True, (0, 32767), None, None, None, None))

    def __init__(self, *, error_code: int = 0, partition_index: int = 0, leader_id: int = 0, leader_epoch: int = -1, replica_nodes: list[int] | None = _DEFAULT, isr_nodes: list[int] | None = _DEFAULT, eligible_leader_replicas: list[int] | None = None, last_known_elr: list[int] | None = None, offline_replicas: list[int] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.error_code = error_code
        self.partition_index = partition_index
        self.leader_id = leader_id
        self.leader_epoch = leader_epoch
        self.replica_nodes = [] if replica_nodes is _DEFAULT else replica_nodes
        self.isr_nodes = [] if isr_nodes is _DEFAULT else isr_nodes
        self.eligible_leader_replicas = eligible_leader_replicas
        self.last_known_elr = last_known_elr
        self.offline_replicas = [] if offline_replicas is _DEFAULT else offline_replicas
        self.unknown_tagged_fields = unknown_tagged_fields


class DescribeTopicPartitionsResponseTopic(Struct):
    __slots__ = ('error_code', 'name', 'topic_id', 'is_internal', 'partitions', 'topic_authorized_operations', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('name', 'Name', 'string', False, (0, 32767), (0, 32767), None, None, None), FieldMeta('topic_id', 'TopicId', 'uuid', False, (0, 32767), None, None, None, None), FieldMeta('is_internal', 'IsInternal', 'bool', False, (0, 32767), None, None, None, None), FieldMeta('partitions', 'Partitions', 'DescribeTopicPartitionsResponsePartition', True, (0, 32767), None, None, None, DescribeTopicPartitionsResponsePartition), FieldMeta('topic_authorized_operations', 'TopicAuthorizedOperations', 'int32', False, (0, 32767), None, None, None, None))

    def __init__(self, *, error_code: int = 0, name: str | None = '', topic_id: uuid.UUID = ZERO_UUID, is_internal: bool = False, partitions: list[DescribeTopicPartitionsResponsePartition] | None = _DEFAULT, topic_authorized_operations: int = -2147483648, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.error_code = error_code
        self.name = name
        self.topic_id = topic_id
        self.is_internal = is_internal
        self.partitions = [] if partitions is _DEFAULT else partitions
        self.topic_authorized_operations = topic_authorized_operations
        self.unknown_tagged_fields = unknown_tagged_fields


class Cursor(Struct):
    __slots__ = ('topic_name', 'partition_index', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('topic_name', 'TopicName', 'string', False, (0, 32767), None, None, None, None), FieldMeta('partition_index', 'PartitionIndex', 'int32', False, (0, 32767), None, None, None, None))

    def __init__(self, *, topic_name: str = '', partition_index: int = 0, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.topic_name = topic_name
        self.partition_index = partition_index
        self.unknown_tagged_fields = unknown_tagged_fields


class DescribeTopicPartitionsResponse(Message):
    """Kafka response DescribeTopicPartitionsResponse (valid versions 0-0)."""

    NAME = 'DescribeTopicPartitionsResponse'
    TYPE = 'response'
    API_KEY = 75
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    DescribeTopicPartitionsResponsePartition = DescribeTopicPartitionsResponsePartition
    DescribeTopicPartitionsResponseTopic = DescribeTopicPartitionsResponseTopic
    Cursor = Cursor
    __slots__ = ('throttle_time_ms', 'topics', 'next_cursor', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('throttle_time_ms', 'ThrottleTimeMs', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('topics', 'Topics', 'DescribeTopicPartitionsResponseTopic', True, (0, 32767), None, None, None, DescribeTopicPartitionsResponseTopic), FieldMeta('next_cursor', 'NextCursor', 'Cursor', False, (0, 32767), (0, 32767), None, None, Cursor))

    def __init__(self, *, throttle_time_ms: int = 0, topics: list[DescribeTopicPartitionsResponseTopic] | None = _DEFAULT, next_cursor: Cursor | None = None, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.topics = [] if topics is _DEFAULT else topics
        self.next_cursor = next_cursor
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_DescribeTopicPartitionsResponsePartition_0(buf, pos):
    o = _new(DescribeTopicPartitionsResponsePartition)
    o.error_code, o.partition_index, o.leader_id, o.leader_epoch = _S3.unpack_from(buf, pos)
    pos += 14
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array ReplicaNodes was null')
    else:
        end = pos + n * 4
        if end > len(buf):
            raise DecodeError('truncated array ReplicaNodes')
        o.replica_nodes = list(_unpack_from('>%di' % n, buf, pos))
        pos = end
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array IsrNodes was null')
    else:
        end = pos + n * 4
        if end > len(buf):
            raise DecodeError('truncated array IsrNodes')
        o.isr_nodes = list(_unpack_from('>%di' % n, buf, pos))
        pos = end
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        o.eligible_leader_replicas = None
    else:
        end = pos + n * 4
        if end > len(buf):
            raise DecodeError('truncated array EligibleLeaderReplicas')
        o.eligible_leader_replicas = list(_unpack_from('>%di' % n, buf, pos))
        pos = end
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        o.last_known_elr = None
    else:
        end = pos + n * 4
        if end > len(buf):
            raise DecodeError('truncated array LastKnownElr')
        o.last_known_elr = list(_unpack_from('>%di' % n, buf, pos))
        pos = end
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array OfflineReplicas was null')
    else:
        end = pos + n * 4
        if end > len(buf):
            raise DecodeError('truncated array OfflineReplicas')
        o.offline_replicas = list(_unpack_from('>%di' % n, buf, pos))
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


def _dec_DescribeTopicPartitionsResponseTopic_0(buf, pos):
    o = _new(DescribeTopicPartitionsResponseTopic)
    o.error_code, = _S1.unpack_from(buf, pos)
    pos += 2
    o.name, pos = read_compact_nullable_string(buf, pos)
    o.topic_id, pos = read_uuid(buf, pos)
    o.is_internal, = _S2.unpack_from(buf, pos)
    pos += 1
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Partitions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_DescribeTopicPartitionsResponsePartition_0(buf, pos)
            append(item)
        o.partitions = items
    o.topic_authorized_operations, = _S0.unpack_from(buf, pos)
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


def _dec_Cursor_0(buf, pos):
    o = _new(Cursor)
    o.topic_name, pos = read_compact_string(buf, pos)
    o.partition_index, = _S0.unpack_from(buf, pos)
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


def _dec_DescribeTopicPartitionsResponse_0(buf, pos):
    o = _new(DescribeTopicPartitionsResponse)
    o.throttle_time_ms, = _S0.unpack_from(buf, pos)
    pos += 4
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_DescribeTopicPartitionsResponseTopic_0(buf, pos)
            append(item)
        o.topics = items
    marker, pos = read_int8(buf, pos)
    if marker < 0:
        o.next_cursor = None
    else:
        o.next_cursor, pos = _dec_Cursor_0(buf, pos)
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


def _enc_DescribeTopicPartitionsResponsePartition_0(o, w):
    w += _S3.pack(o.error_code, o.partition_index, o.leader_id, o.leader_epoch)
    items = o.replica_nodes
    if items is None:
        raise EncodeError('non-nullable array ReplicaNodes is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        w += _pack('>%di' % len(items), *items)
    items = o.isr_nodes
    if items is None:
        raise EncodeError('non-nullable array IsrNodes is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        w += _pack('>%di' % len(items), *items)
    items = o.eligible_leader_replicas
    if items is None:
        write_compact_array_length(w, -1)
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        w += _pack('>%di' % len(items), *items)
    items = o.last_known_elr
    if items is None:
        write_compact_array_length(w, -1)
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        w += _pack('>%di' % len(items), *items)
    items = o.offline_replicas
    if items is None:
        raise EncodeError('non-nullable array OfflineReplicas is None')
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


def _enc_DescribeTopicPartitionsResponseTopic_0(o, w):
    w += _S1.pack(o.error_code)
    write_compact_nullable_string(w, o.name)
    write_uuid(w, o.topic_id)
    w += _S2.pack(o.is_internal)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_DescribeTopicPartitionsResponsePartition_0(item, w)
    w += _S0.pack(o.topic_authorized_operations)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_Cursor_0(o, w):
    if o.topic_name is None:
        raise EncodeError('non-nullable field TopicName is None')
    write_compact_string(w, o.topic_name)
    w += _S0.pack(o.partition_index)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_DescribeTopicPartitionsResponse_0(o, w):
    w += _S0.pack(o.throttle_time_ms)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_DescribeTopicPartitionsResponseTopic_0(item, w)
    if o.next_cursor is None:
        w.append(0xFF)
    else:
        w.append(1)
        _enc_Cursor_0(o.next_cursor, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


DescribeTopicPartitionsResponse._DECODERS = {0: _dec_DescribeTopicPartitionsResponse_0}
DescribeTopicPartitionsResponse._ENCODERS = {0: _enc_DescribeTopicPartitionsResponse_0}
