"""MetadataResponse: generated from Kafka's MetadataResponse.json by tools/generate_protocol.py.

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
_S2 = struct.Struct('>hii')
_S3 = struct.Struct('>?')
_S4 = struct.Struct('>hiii')


class MetadataResponseBroker(Struct):
    __slots__ = ('node_id', 'host', 'port', 'rack', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('node_id', 'NodeId', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('host', 'Host', 'string', False, (0, 32767), None, None, None, None), FieldMeta('port', 'Port', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('rack', 'Rack', 'string', False, (1, 32767), (1, 32767), None, None, None))

    def __init__(self, *, node_id: int = 0, host: str = '', port: int = 0, rack: str | None = None, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.node_id = node_id
        self.host = host
        self.port = port
        self.rack = rack
        self.unknown_tagged_fields = unknown_tagged_fields


class MetadataResponsePartition(Struct):
    __slots__ = ('error_code', 'partition_index', 'leader_id', 'leader_epoch', 'replica_nodes', 'isr_nodes', 'offline_replicas', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('partition_index', 'PartitionIndex', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('leader_id', 'LeaderId', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('leader_epoch', 'LeaderEpoch', 'int32', False, (7, 32767), None, None, None, None), FieldMeta('replica_nodes', 'ReplicaNodes', 'int32', True, (0, 32767), None, None, None, None), FieldMeta('isr_nodes', 'IsrNodes', 'int32', True, (0, 32767), None, None, None, None), FieldMeta('offline_replicas', 'OfflineReplicas', 'int32', True, (5, 32767), None, None, None, None))

    def __init__(self, *, error_code: int = 0, partition_index: int = 0, leader_id: int = 0, leader_epoch: int = -1, replica_nodes: list[int] | None = _DEFAULT, isr_nodes: list[int] | None = _DEFAULT, offline_replicas: list[int] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.error_code = error_code
        self.partition_index = partition_index
        self.leader_id = leader_id
        self.leader_epoch = leader_epoch
        self.replica_nodes = [] if replica_nodes is _DEFAULT else replica_nodes
        self.isr_nodes = [] if isr_nodes is _DEFAULT else isr_nodes
        self.offline_replicas = [] if offline_replicas is _DEFAULT else offline_replicas
        self.unknown_tagged_fields = unknown_tagged_fields


class MetadataResponseTopic(Struct):
    __slots__ = ('error_code', 'name', 'topic_id', 'is_internal', 'partitions', 'topic_authorized_operations', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('name', 'Name', 'string', False, (0, 32767), (12, 32767), None, None, None), FieldMeta('topic_id', 'TopicId', 'uuid', False, (10, 32767), None, None, None, None), FieldMeta('is_internal', 'IsInternal', 'bool', False, (1, 32767), None, None, None, None), FieldMeta('partitions', 'Partitions', 'MetadataResponsePartition', True, (0, 32767), None, None, None, MetadataResponsePartition), FieldMeta('topic_authorized_operations', 'TopicAuthorizedOperations', 'int32', False, (8, 32767), None, None, None, None))

    def __init__(self, *, error_code: int = 0, name: str | None = '', topic_id: uuid.UUID = ZERO_UUID, is_internal: bool = False, partitions: list[MetadataResponsePartition] | None = _DEFAULT, topic_authorized_operations: int = -2147483648, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.error_code = error_code
        self.name = name
        self.topic_id = topic_id
        self.is_internal = is_internal
        self.partitions = [] if partitions is _DEFAULT else partitions
        self.topic_authorized_operations = topic_authorized_operations
        self.unknown_tagged_fields = unknown_tagged_fields


class MetadataResponse(Message):
    """Kafka response MetadataResponse (valid versions 0-13)."""

    NAME = 'MetadataResponse'
    TYPE = 'response'
    API_KEY = 3
    VALID_VERSIONS = (0, 13)
    FLEXIBLE_VERSIONS = (9, 32767)
    MetadataResponseBroker = MetadataResponseBroker
    MetadataResponsePartition = MetadataResponsePartition
    MetadataResponseTopic = MetadataResponseTopic
    __slots__ = ('throttle_time_ms', 'brokers', 'cluster_id', 'controller_id', 'topics', 'cluster_authorized_operations', 'error_code', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('throttle_time_ms', 'ThrottleTimeMs', 'int32', False, (3, 32767), None, None, None, None), FieldMeta('brokers', 'Brokers', 'MetadataResponseBroker', True, (0, 32767), None, None, None, MetadataResponseBroker), FieldMeta('cluster_id', 'ClusterId', 'string', False, (2, 32767), (2, 32767), None, None, None), FieldMeta('controller_id', 'ControllerId', 'int32', False, (1, 32767), None, None, None, None), FieldMeta('topics', 'Topics', 'MetadataResponseTopic', True, (0, 32767), None, None, None, MetadataResponseTopic), FieldMeta('cluster_authorized_operations', 'ClusterAuthorizedOperations', 'int32', False, (8, 10), None, None, None, None), FieldMeta('error_code', 'ErrorCode', 'int16', False, (13, 32767), None, None, None, None))

    def __init__(self, *, throttle_time_ms: int = 0, brokers: list[MetadataResponseBroker] | None = _DEFAULT, cluster_id: str | None = None, controller_id: int = -1, topics: list[MetadataResponseTopic] | None = _DEFAULT, cluster_authorized_operations: int = -2147483648, error_code: int = 0, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.brokers = [] if brokers is _DEFAULT else brokers
        self.cluster_id = cluster_id
        self.controller_id = controller_id
        self.topics = [] if topics is _DEFAULT else topics
        self.cluster_authorized_operations = cluster_authorized_operations
        self.error_code = error_code
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_MetadataResponseBroker_0(buf, pos):
    o = _new(MetadataResponseBroker)
    o.rack = None
    o.unknown_tagged_fields = None
    o.node_id, = _S0.unpack_from(buf, pos)
    pos += 4
    o.host, pos = read_string(buf, pos)
    o.port, = _S0.unpack_from(buf, pos)
    pos += 4
    return o, pos


def _dec_MetadataResponsePartition_0(buf, pos):
    o = _new(MetadataResponsePartition)
    o.leader_epoch = -1
    o.offline_replicas = []
    o.unknown_tagged_fields = None
    o.error_code, o.partition_index, o.leader_id = _S2.unpack_from(buf, pos)
    pos += 10
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array ReplicaNodes was null')
    else:
        end = pos + n * 4
        if end > len(buf):
            raise DecodeError('truncated array ReplicaNodes')
        o.replica_nodes = list(_unpack_from('>%di' % n, buf, pos))
        pos = end
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array IsrNodes was null')
    else:
        end = pos + n * 4
        if end > len(buf):
            raise DecodeError('truncated array IsrNodes')
        o.isr_nodes = list(_unpack_from('>%di' % n, buf, pos))
        pos = end
    return o, pos


def _dec_MetadataResponseTopic_0(buf, pos):
    o = _new(MetadataResponseTopic)
    o.topic_id = ZERO_UUID
    o.is_internal = False
    o.topic_authorized_operations = -2147483648
    o.unknown_tagged_fields = None
    o.error_code, = _S1.unpack_from(buf, pos)
    pos += 2
    o.name, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Partitions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_MetadataResponsePartition_0(buf, pos)
            append(item)
        o.partitions = items
    return o, pos


def _dec_MetadataResponse_0(buf, pos):
    o = _new(MetadataResponse)
    o.throttle_time_ms = 0
    o.cluster_id = None
    o.controller_id = -1
    o.cluster_authorized_operations = -2147483648
    o.error_code = 0
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Brokers was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_MetadataResponseBroker_0(buf, pos)
            append(item)
        o.brokers = items
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_MetadataResponseTopic_0(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _enc_MetadataResponseBroker_0(o, w):
    w += _S0.pack(o.node_id)
    if o.host is None:
        raise EncodeError('non-nullable field Host is None')
    write_string(w, o.host)
    w += _S0.pack(o.port)


def _enc_MetadataResponsePartition_0(o, w):
    w += _S2.pack(o.error_code, o.partition_index, o.leader_id)
    items = o.replica_nodes
    if items is None:
        raise EncodeError('non-nullable array ReplicaNodes is None')
    else:
        write_array_length(w, len(items))
        w += _pack('>%di' % len(items), *items)
    items = o.isr_nodes
    if items is None:
        raise EncodeError('non-nullable array IsrNodes is None')
    else:
        write_array_length(w, len(items))
        w += _pack('>%di' % len(items), *items)


def _enc_MetadataResponseTopic_0(o, w):
    w += _S1.pack(o.error_code)
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_MetadataResponsePartition_0(item, w)


def _enc_MetadataResponse_0(o, w):
    items = o.brokers
    if items is None:
        raise EncodeError('non-nullable array Brokers is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_MetadataResponseBroker_0(item, w)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_MetadataResponseTopic_0(item, w)


def _dec_MetadataResponseBroker_1(buf, pos):
    o = _new(MetadataResponseBroker)
    o.unknown_tagged_fields = None
    o.node_id, = _S0.unpack_from(buf, pos)
    pos += 4
    o.host, pos = read_string(buf, pos)
    o.port, = _S0.unpack_from(buf, pos)
    pos += 4
    o.rack, pos = read_nullable_string(buf, pos)
    return o, pos


def _dec_MetadataResponseTopic_1(buf, pos):
    o = _new(MetadataResponseTopic)
    o.topic_id = ZERO_UUID
    o.topic_authorized_operations = -2147483648
    o.unknown_tagged_fields = None
    o.error_code, = _S1.unpack_from(buf, pos)
    pos += 2
    o.name, pos = read_string(buf, pos)
    o.is_internal, = _S3.unpack_from(buf, pos)
    pos += 1
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Partitions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_MetadataResponsePartition_0(buf, pos)
            append(item)
        o.partitions = items
    return o, pos


def _dec_MetadataResponse_1(buf, pos):
    o = _new(MetadataResponse)
    o.throttle_time_ms = 0
    o.cluster_id = None
    o.cluster_authorized_operations = -2147483648
    o.error_code = 0
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Brokers was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_MetadataResponseBroker_1(buf, pos)
            append(item)
        o.brokers = items
    o.controller_id, = _S0.unpack_from(buf, pos)
    pos += 4
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_MetadataResponseTopic_1(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _enc_MetadataResponseBroker_1(o, w):
    w += _S0.pack(o.node_id)
    if o.host is None:
        raise EncodeError('non-nullable field Host is None')
    write_string(w, o.host)
    w += _S0.pack(o.port)
    write_nullable_string(w, o.rack)


def _enc_MetadataResponseTopic_1(o, w):
    w += _S1.pack(o.error_code)
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    w += _S3.pack(o.is_internal)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_MetadataResponsePartition_0(item, w)


def _enc_MetadataResponse_1(o, w):
    items = o.brokers
    if items is None:
        raise EncodeError('non-nullable array Brokers is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_MetadataResponseBroker_1(item, w)
    w += _S0.pack(o.controller_id)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_MetadataResponseTopic_1(item, w)


def _dec_MetadataResponse_2(buf, pos):
    o = _new(MetadataResponse)
    o.throttle_time_ms = 0
    o.cluster_authorized_operations = -2147483648
    o.error_code = 0
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Brokers was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_MetadataResponseBroker_1(buf, pos)
            append(item)
        o.brokers = items
    o.cluster_id, pos = read_nullable_string(buf, pos)
    o.controller_id, = _S0.unpack_from(buf, pos)
    pos += 4
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_MetadataResponseTopic_1(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _enc_MetadataResponse_2(o, w):
    items = o.brokers
    if items is None:
        raise EncodeError('non-nullable array Brokers is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_MetadataResponseBroker_1(item, w)
    write_nullable_string(w, o.cluster_id)
    w += _S0.pack(o.controller_id)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_MetadataResponseTopic_1(item, w)


def _dec_MetadataResponse_3(buf, pos):
    o = _new(MetadataResponse)
    o.cluster_authorized_operations = -2147483648
    o.error_code = 0
    o.unknown_tagged_fields = None
    o.throttle_time_ms, = _S0.unpack_from(buf, pos)
    pos += 4
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Brokers was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_MetadataResponseBroker_1(buf, pos)
            append(item)
        o.brokers = items
    o.cluster_id, pos = read_nullable_string(buf, pos)
    o.controller_id, = _S0.unpack_from(buf, pos)
    pos += 4
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_MetadataResponseTopic_1(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _enc_MetadataResponse_3(o, w):
    w += _S0.pack(o.throttle_time_ms)
    items = o.brokers
    if items is None:
        raise EncodeError('non-nullable array Brokers is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_MetadataResponseBroker_1(item, w)
    write_nullable_string(w, o.cluster_id)
    w += _S0.pack(o.controller_id)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_MetadataResponseTopic_1(item, w)


def _dec_MetadataResponsePartition_1(buf, pos):
    o = _new(MetadataResponsePartition)
    o.leader_epoch = -1
    o.unknown_tagged_fields = None
    o.error_code, o.partition_index, o.leader_id = _S2.unpack_from(buf, pos)
    pos += 10
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array ReplicaNodes was null')
    else:
        end = pos + n * 4
        if end > len(buf):
            raise DecodeError('truncated array ReplicaNodes')
        o.replica_nodes = list(_unpack_from('>%di' % n, buf, pos))
        pos = end
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array IsrNodes was null')
    else:
        end = pos + n * 4
        if end > len(buf):
            raise DecodeError('truncated array IsrNodes')
        o.isr_nodes = list(_unpack_from('>%di' % n, buf, pos))
        pos = end
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array OfflineReplicas was null')
    else:
        end = pos + n * 4
        if end > len(buf):
            raise DecodeError('truncated array OfflineReplicas')
        o.offline_replicas = list(_unpack_from('>%di' % n, buf, pos))
        pos = end
    return o, pos


def _dec_MetadataResponseTopic_2(buf, pos):
    o = _new(MetadataResponseTopic)
    o.topic_id = ZERO_UUID
    o.topic_authorized_operations = -2147483648
    o.unknown_tagged_fields = None
    o.error_code, = _S1.unpack_from(buf, pos)
    pos += 2
    o.name, pos = read_string(buf, pos)
    o.is_internal, = _S3.unpack_from(buf, pos)
    pos += 1
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Partitions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_MetadataResponsePartition_1(buf, pos)
            append(item)
        o.partitions = items
    return o, pos


def _dec_MetadataResponse_4(buf, pos):
    o = _new(MetadataResponse)
    o.cluster_authorized_operations = -2147483648
    o.error_code = 0
    o.unknown_tagged_fields = None
    o.throttle_time_ms, = _S0.unpack_from(buf, pos)
    pos += 4
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Brokers was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_MetadataResponseBroker_1(buf, pos)
            append(item)
        o.brokers = items
    o.cluster_id, pos = read_nullable_string(buf, pos)
    o.controller_id, = _S0.unpack_from(buf, pos)
    pos += 4
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_MetadataResponseTopic_2(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _enc_MetadataResponsePartition_1(o, w):
    w += _S2.pack(o.error_code, o.partition_index, o.leader_id)
    items = o.replica_nodes
    if items is None:
        raise EncodeError('non-nullable array ReplicaNodes is None')
    else:
        write_array_length(w, len(items))
        w += _pack('>%di' % len(items), *items)
    items = o.isr_nodes
    if items is None:
        raise EncodeError('non-nullable array IsrNodes is None')
    else:
        write_array_length(w, len(items))
        w += _pack('>%di' % len(items), *items)
    items = o.offline_replicas
    if items is None:
        raise EncodeError('non-nullable array OfflineReplicas is None')
    else:
        write_array_length(w, len(items))
        w += _pack('>%di' % len(items), *items)


def _enc_MetadataResponseTopic_2(o, w):
    w += _S1.pack(o.error_code)
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    w += _S3.pack(o.is_internal)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_MetadataResponsePartition_1(item, w)


def _enc_MetadataResponse_4(o, w):
    w += _S0.pack(o.throttle_time_ms)
    items = o.brokers
    if items is None:
        raise EncodeError('non-nullable array Brokers is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_MetadataResponseBroker_1(item, w)
    write_nullable_string(w, o.cluster_id)
    w += _S0.pack(o.controller_id)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_MetadataResponseTopic_2(item, w)


def _dec_MetadataResponsePartition_2(buf, pos):
    o = _new(MetadataResponsePartition)
    o.unknown_tagged_fields = None
    o.error_code, o.partition_index, o.leader_id, o.leader_epoch = _S4.unpack_from(buf, pos)
    pos += 14
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array ReplicaNodes was null')
    else:
        end = pos + n * 4
        if end > len(buf):
            raise DecodeError('truncated array ReplicaNodes')
        o.replica_nodes = list(_unpack_from('>%di' % n, buf, pos))
        pos = end
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array IsrNodes was null')
    else:
        end = pos + n * 4
        if end > len(buf):
            raise DecodeError('truncated array IsrNodes')
        o.isr_nodes = list(_unpack_from('>%di' % n, buf, pos))
        pos = end
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array OfflineReplicas was null')
    else:
        end = pos + n * 4
        if end > len(buf):
            raise DecodeError('truncated array OfflineReplicas')
        o.offline_replicas = list(_unpack_from('>%di' % n, buf, pos))
        pos = end
    return o, pos


def _dec_MetadataResponseTopic_3(buf, pos):
    o = _new(MetadataResponseTopic)
    o.topic_id = ZERO_UUID
    o.topic_authorized_operations = -2147483648
    o.unknown_tagged_fields = None
    o.error_code, = _S1.unpack_from(buf, pos)
    pos += 2
    o.name, pos = read_string(buf, pos)
    o.is_internal, = _S3.unpack_from(buf, pos)
    pos += 1
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Partitions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_MetadataResponsePartition_2(buf, pos)
            append(item)
        o.partitions = items
    return o, pos


def _dec_MetadataResponse_5(buf, pos):
    o = _new(MetadataResponse)
    o.cluster_authorized_operations = -2147483648
    o.error_code = 0
    o.unknown_tagged_fields = None
    o.throttle_time_ms, = _S0.unpack_from(buf, pos)
    pos += 4
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Brokers was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_MetadataResponseBroker_1(buf, pos)
            append(item)
        o.brokers = items
    o.cluster_id, pos = read_nullable_string(buf, pos)
    o.controller_id, = _S0.unpack_from(buf, pos)
    pos += 4
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_MetadataResponseTopic_3(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _enc_MetadataResponsePartition_2(o, w):
    w += _S4.pack(o.error_code, o.partition_index, o.leader_id, o.leader_epoch)
    items = o.replica_nodes
    if items is None:
        raise EncodeError('non-nullable array ReplicaNodes is None')
    else:
        write_array_length(w, len(items))
        w += _pack('>%di' % len(items), *items)
    items = o.isr_nodes
    if items is None:
        raise EncodeError('non-nullable array IsrNodes is None')
    else:
        write_array_length(w, len(items))
        w += _pack('>%di' % len(items), *items)
    items = o.offline_replicas
    if items is None:
        raise EncodeError('non-nullable array OfflineReplicas is None')
    else:
        write_array_length(w, len(items))
        w += _pack('>%di' % len(items), *items)


def _enc_MetadataResponseTopic_3(o, w):
    w += _S1.pack(o.error_code)
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    w += _S3.pack(o.is_internal)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_MetadataResponsePartition_2(item, w)


def _enc_MetadataResponse_5(o, w):
    w += _S0.pack(o.throttle_time_ms)
    items = o.brokers
    if items is None:
        raise EncodeError('non-nullable array Brokers is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_MetadataResponseBroker_1(item, w)
    write_nullable_string(w, o.cluster_id)
    w += _S0.pack(o.controller_id)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_MetadataResponseTopic_3(item, w)


def _dec_MetadataResponseTopic_4(buf, pos):
    o = _new(MetadataResponseTopic)
    o.topic_id = ZERO_UUID
    o.unknown_tagged_fields = None
    o.error_code, = _S1.unpack_from(buf, pos)
    pos += 2
    o.name, pos = read_string(buf, pos)
    o.is_internal, = _S3.unpack_from(buf, pos)
    pos += 1
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Partitions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_MetadataResponsePartition_2(buf, pos)
            append(item)
        o.partitions = items
    o.topic_authorized_operations, = _S0.unpack_from(buf, pos)
    pos += 4
    return o, pos


def _dec_MetadataResponse_6(buf, pos):
    o = _new(MetadataResponse)
    o.error_code = 0
    o.unknown_tagged_fields = None
    o.throttle_time_ms, = _S0.unpack_from(buf, pos)
    pos += 4
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Brokers was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_MetadataResponseBroker_1(buf, pos)
            append(item)
        o.brokers = items
    o.cluster_id, pos = read_nullable_string(buf, pos)
    o.controller_id, = _S0.unpack_from(buf, pos)
    pos += 4
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_MetadataResponseTopic_4(buf, pos)
            append(item)
        o.topics = items
    o.cluster_authorized_operations, = _S0.unpack_from(buf, pos)
    pos += 4
    return o, pos


def _enc_MetadataResponseTopic_4(o, w):
    w += _S1.pack(o.error_code)
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    w += _S3.pack(o.is_internal)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_MetadataResponsePartition_2(item, w)
    w += _S0.pack(o.topic_authorized_operations)


def _enc_MetadataResponse_6(o, w):
    w += _S0.pack(o.throttle_time_ms)
    items = o.brokers
    if items is None:
        raise EncodeError('non-nullable array Brokers is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_MetadataResponseBroker_1(item, w)
    write_nullable_string(w, o.cluster_id)
    w += _S0.pack(o.controller_id)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_MetadataResponseTopic_4(item, w)
    w += _S0.pack(o.cluster_authorized_operations)


def _dec_MetadataResponseBroker_2(buf, pos):
    o = _new(MetadataResponseBroker)
    o.node_id, = _S0.unpack_from(buf, pos)
    pos += 4
    o.host, pos = read_compact_string(buf, pos)
    o.port, = _S0.unpack_from(buf, pos)
    pos += 4
    o.rack, pos = read_compact_nullable_string(buf, pos)
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


def _dec_MetadataResponsePartition_3(buf, pos):
    o = _new(MetadataResponsePartition)
    o.error_code, o.partition_index, o.leader_id, o.leader_epoch = _S4.unpack_from(buf, pos)
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


def _dec_MetadataResponseTopic_5(buf, pos):
    o = _new(MetadataResponseTopic)
    o.topic_id = ZERO_UUID
    o.error_code, = _S1.unpack_from(buf, pos)
    pos += 2
    o.name, pos = read_compact_string(buf, pos)
    o.is_internal, = _S3.unpack_from(buf, pos)
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
            item, pos = _dec_MetadataResponsePartition_3(buf, pos)
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


def _dec_MetadataResponse_7(buf, pos):
    o = _new(MetadataResponse)
    o.error_code = 0
    o.throttle_time_ms, = _S0.unpack_from(buf, pos)
    pos += 4
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Brokers was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_MetadataResponseBroker_2(buf, pos)
            append(item)
        o.brokers = items
    o.cluster_id, pos = read_compact_nullable_string(buf, pos)
    o.controller_id, = _S0.unpack_from(buf, pos)
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
            item, pos = _dec_MetadataResponseTopic_5(buf, pos)
            append(item)
        o.topics = items
    o.cluster_authorized_operations, = _S0.unpack_from(buf, pos)
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


def _enc_MetadataResponseBroker_2(o, w):
    w += _S0.pack(o.node_id)
    if o.host is None:
        raise EncodeError('non-nullable field Host is None')
    write_compact_string(w, o.host)
    w += _S0.pack(o.port)
    write_compact_nullable_string(w, o.rack)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_MetadataResponsePartition_3(o, w):
    w += _S4.pack(o.error_code, o.partition_index, o.leader_id, o.leader_epoch)
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


def _enc_MetadataResponseTopic_5(o, w):
    w += _S1.pack(o.error_code)
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_compact_string(w, o.name)
    w += _S3.pack(o.is_internal)
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
            _enc_MetadataResponsePartition_3(item, w)
    w += _S0.pack(o.topic_authorized_operations)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_MetadataResponse_7(o, w):
    w += _S0.pack(o.throttle_time_ms)
    items = o.brokers
    if items is None:
        raise EncodeError('non-nullable array Brokers is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_MetadataResponseBroker_2(item, w)
    write_compact_nullable_string(w, o.cluster_id)
    w += _S0.pack(o.controller_id)
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
            _enc_MetadataResponseTopic_5(item, w)
    w += _S0.pack(o.cluster_authorized_operations)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_MetadataResponseTopic_6(buf, pos):
    o = _new(MetadataResponseTopic)
    o.error_code, = _S1.unpack_from(buf, pos)
    pos += 2
    o.name, pos = read_compact_string(buf, pos)
    o.topic_id, pos = read_uuid(buf, pos)
    o.is_internal, = _S3.unpack_from(buf, pos)
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
            item, pos = _dec_MetadataResponsePartition_3(buf, pos)
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


def _dec_MetadataResponse_8(buf, pos):
    o = _new(MetadataResponse)
    o.error_code = 0
    o.throttle_time_ms, = _S0.unpack_from(buf, pos)
    pos += 4
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Brokers was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_MetadataResponseBroker_2(buf, pos)
            append(item)
        o.brokers = items
    o.cluster_id, pos = read_compact_nullable_string(buf, pos)
    o.controller_id, = _S0.unpack_from(buf, pos)
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
            item, pos = _dec_MetadataResponseTopic_6(buf, pos)
            append(item)
        o.topics = items
    o.cluster_authorized_operations, = _S0.unpack_from(buf, pos)
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


def _enc_MetadataResponseTopic_6(o, w):
    w += _S1.pack(o.error_code)
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_compact_string(w, o.name)
    write_uuid(w, o.topic_id)
    w += _S3.pack(o.is_internal)
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
            _enc_MetadataResponsePartition_3(item, w)
    w += _S0.pack(o.topic_authorized_operations)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_MetadataResponse_8(o, w):
    w += _S0.pack(o.throttle_time_ms)
    items = o.brokers
    if items is None:
        raise EncodeError('non-nullable array Brokers is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_MetadataResponseBroker_2(item, w)
    write_compact_nullable_string(w, o.cluster_id)
    w += _S0.pack(o.controller_id)
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
            _enc_MetadataResponseTopic_6(item, w)
    w += _S0.pack(o.cluster_authorized_operations)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_MetadataResponse_9(buf, pos):
    o = _new(MetadataResponse)
    o.cluster_authorized_operations = -2147483648
    o.error_code = 0
    o.throttle_time_ms, = _S0.unpack_from(buf, pos)
    pos += 4
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Brokers was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_MetadataResponseBroker_2(buf, pos)
            append(item)
        o.brokers = items
    o.cluster_id, pos = read_compact_nullable_string(buf, pos)
    o.controller_id, = _S0.unpack_from(buf, pos)
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
            item, pos = _dec_MetadataResponseTopic_6(buf, pos)
            append(item)
        o.topics = items
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


def _enc_MetadataResponse_9(o, w):
    w += _S0.pack(o.throttle_time_ms)
    items = o.brokers
    if items is None:
        raise EncodeError('non-nullable array Brokers is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_MetadataResponseBroker_2(item, w)
    write_compact_nullable_string(w, o.cluster_id)
    w += _S0.pack(o.controller_id)
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
            _enc_MetadataResponseTopic_6(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_MetadataResponseTopic_7(buf, pos):
    o = _new(MetadataResponseTopic)
    o.error_code, = _S1.unpack_from(buf, pos)
    pos += 2
    o.name, pos = read_compact_nullable_string(buf, pos)
    o.topic_id, pos = read_uuid(buf, pos)
    o.is_internal, = _S3.unpack_from(buf, pos)
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
            item, pos = _dec_MetadataResponsePartition_3(buf, pos)
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


def _dec_MetadataResponse_10(buf, pos):
    o = _new(MetadataResponse)
    o.cluster_authorized_operations = -2147483648
    o.error_code = 0
    o.throttle_time_ms, = _S0.unpack_from(buf, pos)
    pos += 4
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Brokers was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_MetadataResponseBroker_2(buf, pos)
            append(item)
        o.brokers = items
    o.cluster_id, pos = read_compact_nullable_string(buf, pos)
    o.controller_id, = _S0.unpack_from(buf, pos)
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
            item, pos = _dec_MetadataResponseTopic_7(buf, pos)
            append(item)
        o.topics = items
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


def _enc_MetadataResponseTopic_7(o, w):
    w += _S1.pack(o.error_code)
    write_compact_nullable_string(w, o.name)
    write_uuid(w, o.topic_id)
    w += _S3.pack(o.is_internal)
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
            _enc_MetadataResponsePartition_3(item, w)
    w += _S0.pack(o.topic_authorized_operations)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_MetadataResponse_10(o, w):
    w += _S0.pack(o.throttle_time_ms)
    items = o.brokers
    if items is None:
        raise EncodeError('non-nullable array Brokers is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_MetadataResponseBroker_2(item, w)
    write_compact_nullable_string(w, o.cluster_id)
    w += _S0.pack(o.controller_id)
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
            _enc_MetadataResponseTopic_7(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_MetadataResponse_11(buf, pos):
    o = _new(MetadataResponse)
    o.cluster_authorized_operations = -2147483648
    o.throttle_time_ms, = _S0.unpack_from(buf, pos)
    pos += 4
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Brokers was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_MetadataResponseBroker_2(buf, pos)
            append(item)
        o.brokers = items
    o.cluster_id, pos = read_compact_nullable_string(buf, pos)
    o.controller_id, = _S0.unpack_from(buf, pos)
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
            item, pos = _dec_MetadataResponseTopic_7(buf, pos)
            append(item)
        o.topics = items
    o.error_code, = _S1.unpack_from(buf, pos)
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


def _enc_MetadataResponse_11(o, w):
    w += _S0.pack(o.throttle_time_ms)
    items = o.brokers
    if items is None:
        raise EncodeError('non-nullable array Brokers is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_MetadataResponseBroker_2(item, w)
    write_compact_nullable_string(w, o.cluster_id)
    w += _S0.pack(o.controller_id)
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
            _enc_MetadataResponseTopic_7(item, w)
    w += _S1.pack(o.error_code)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


MetadataResponse._DECODERS = {0: _dec_MetadataResponse_0, 1: _dec_MetadataResponse_1, 2: _dec_MetadataResponse_2, 3: _dec_MetadataResponse_3, 4: _dec_MetadataResponse_3, 5: _dec_MetadataResponse_4, 6: _dec_MetadataResponse_4, 7: _dec_MetadataResponse_5, 8: _dec_MetadataResponse_6, 9: _dec_MetadataResponse_7, 10: _dec_MetadataResponse_8, 11: _dec_MetadataResponse_9, 12: _dec_MetadataResponse_10, 13: _dec_MetadataResponse_11}
MetadataResponse._ENCODERS = {0: _enc_MetadataResponse_0, 1: _enc_MetadataResponse_1, 2: _enc_MetadataResponse_2, 3: _enc_MetadataResponse_3, 4: _enc_MetadataResponse_3, 5: _enc_MetadataResponse_4, 6: _enc_MetadataResponse_4, 7: _enc_MetadataResponse_5, 8: _enc_MetadataResponse_6, 9: _enc_MetadataResponse_7, 10: _enc_MetadataResponse_8, 11: _enc_MetadataResponse_9, 12: _enc_MetadataResponse_10, 13: _enc_MetadataResponse_11}
