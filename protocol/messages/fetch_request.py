"""FetchRequest: generated from Kafka's FetchRequest.json by tools/generate_protocol.py.

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
_S0 = struct.Struct('>iiiib')
_S1 = struct.Struct('>iqi')
_S2 = struct.Struct('>iqqi')
_S3 = struct.Struct('>iiiibii')
_S4 = struct.Struct('>iiqqi')
_S5 = struct.Struct('>iiqiqi')
_S6 = struct.Struct('>iiibii')
_S7 = struct.Struct('>iq')
_S8 = struct.Struct('>q')


class ReplicaState(Struct):
    __slots__ = ('replica_id', 'replica_epoch', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('replica_id', 'ReplicaId', 'int32', False, (15, 32767), None, None, None, None), FieldMeta('replica_epoch', 'ReplicaEpoch', 'int64', False, (15, 32767), None, None, None, None))

    def __init__(self, *, replica_id: int = -1, replica_epoch: int = -1, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.replica_id = replica_id
        self.replica_epoch = replica_epoch
        self.unknown_tagged_fields = unknown_tagged_fields


class FetchPartition(Struct):
    __slots__ = ('partition', 'current_leader_epoch', 'fetch_offset', 'last_fetched_epoch', 'log_start_offset', 'partition_max_bytes', 'replica_directory_id', 'high_watermark', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('partition', 'Partition', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('current_leader_epoch', 'CurrentLeaderEpoch', 'int32', False, (9, 32767), None, None, None, None), FieldMeta('fetch_offset', 'FetchOffset', 'int64', False, (0, 32767), None, None, None, None), FieldMeta('last_fetched_epoch', 'LastFetchedEpoch', 'int32', False, (12, 32767), None, None, None, None), FieldMeta('log_start_offset', 'LogStartOffset', 'int64', False, (5, 32767), None, None, None, None), FieldMeta('partition_max_bytes', 'PartitionMaxBytes', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('replica_directory_id', 'ReplicaDirectoryId', 'uuid', False, (17, 32767), None, 0, (17, 32767), None), FieldMeta('high_watermark', 'HighWatermark', 'int64', False, (18, 32767), None, 1, (18, 32767), None))

    def __init__(self, *, partition: int = 0, current_leader_epoch: int = -1, fetch_offset: int = 0, last_fetched_epoch: int = -1, log_start_offset: int = -1, partition_max_bytes: int = 0, replica_directory_id: uuid.UUID = ZERO_UUID, high_watermark: int = 9223372036854775807, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.partition = partition
        self.current_leader_epoch = current_leader_epoch
        self.fetch_offset = fetch_offset
        self.last_fetched_epoch = last_fetched_epoch
        self.log_start_offset = log_start_offset
        self.partition_max_bytes = partition_max_bytes
        self.replica_directory_id = replica_directory_id
        self.high_watermark = high_watermark
        self.unknown_tagged_fields = unknown_tagged_fields


class FetchTopic(Struct):
    __slots__ = ('topic', 'topic_id', 'partitions', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('topic', 'Topic', 'string', False, (0, 12), None, None, None, None), FieldMeta('topic_id', 'TopicId', 'uuid', False, (13, 32767), None, None, None, None), FieldMeta('partitions', 'Partitions', 'FetchPartition', True, (0, 32767), None, None, None, FetchPartition))

    def __init__(self, *, topic: str = '', topic_id: uuid.UUID = ZERO_UUID, partitions: list[FetchPartition] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.topic = topic
        self.topic_id = topic_id
        self.partitions = [] if partitions is _DEFAULT else partitions
        self.unknown_tagged_fields = unknown_tagged_fields


class ForgottenTopic(Struct):
    __slots__ = ('topic', 'topic_id', 'partitions', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('topic', 'Topic', 'string', False, (7, 12), None, None, None, None), FieldMeta('topic_id', 'TopicId', 'uuid', False, (13, 32767), None, None, None, None), FieldMeta('partitions', 'Partitions', 'int32', True, (7, 32767), None, None, None, None))

    def __init__(self, *, topic: str = '', topic_id: uuid.UUID = ZERO_UUID, partitions: list[int] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.topic = topic
        self.topic_id = topic_id
        self.partitions = [] if partitions is _DEFAULT else partitions
        self.unknown_tagged_fields = unknown_tagged_fields


class FetchRequest(Message):
    """Kafka request FetchRequest (valid versions 4-18)."""

    NAME = 'FetchRequest'
    TYPE = 'request'
    API_KEY = 1
    VALID_VERSIONS = (4, 18)
    FLEXIBLE_VERSIONS = (12, 32767)
    ReplicaState = ReplicaState
    FetchPartition = FetchPartition
    FetchTopic = FetchTopic
    ForgottenTopic = ForgottenTopic
    __slots__ = ('cluster_id', 'replica_id', 'replica_state', 'max_wait_ms', 'min_bytes', 'max_bytes', 'isolation_level', 'session_id', 'session_epoch', 'topics', 'forgotten_topics_data', 'rack_id', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('cluster_id', 'ClusterId', 'string', False, (12, 32767), (12, 32767), 0, (12, 32767), None), FieldMeta('replica_id', 'ReplicaId', 'int32', False, (0, 14), None, None, None, None), FieldMeta('replica_state', 'ReplicaState', 'ReplicaState', False, (15, 32767), None, 1, (15, 32767), ReplicaState), FieldMeta('max_wait_ms', 'MaxWaitMs', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('min_bytes', 'MinBytes', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('max_bytes', 'MaxBytes', 'int32', False, (3, 32767), None, None, None, None), FieldMeta('isolation_level', 'IsolationLevel', 'int8', False, (4, 32767), None, None, None, None), FieldMeta('session_id', 'SessionId', 'int32', False, (7, 32767), None, None, None, None), FieldMeta('session_epoch', 'SessionEpoch', 'int32', False, (7, 32767), None, None, None, None), FieldMeta('topics', 'Topics', 'FetchTopic', True, (0, 32767), None, None, None, FetchTopic), FieldMeta('forgotten_topics_data', 'ForgottenTopicsData', 'ForgottenTopic', True, (7, 32767), None, None, None, ForgottenTopic), FieldMeta('rack_id', 'RackId', 'string', False, (11, 32767), None, None, None, None))

    def __init__(self, *, cluster_id: str | None = None, replica_id: int = -1, replica_state: ReplicaState | None = _DEFAULT, max_wait_ms: int = 0, min_bytes: int = 0, max_bytes: int = 2147483647, isolation_level: int = 0, session_id: int = 0, session_epoch: int = -1, topics: list[FetchTopic] | None = _DEFAULT, forgotten_topics_data: list[ForgottenTopic] | None = _DEFAULT, rack_id: str = '', unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.cluster_id = cluster_id
        self.replica_id = replica_id
        self.replica_state = ReplicaState() if replica_state is _DEFAULT else replica_state
        self.max_wait_ms = max_wait_ms
        self.min_bytes = min_bytes
        self.max_bytes = max_bytes
        self.isolation_level = isolation_level
        self.session_id = session_id
        self.session_epoch = session_epoch
        self.topics = [] if topics is _DEFAULT else topics
        self.forgotten_topics_data = [] if forgotten_topics_data is _DEFAULT else forgotten_topics_data
        self.rack_id = rack_id
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_FetchPartition_0(buf, pos):
    o = _new(FetchPartition)
    o.current_leader_epoch = -1
    o.last_fetched_epoch = -1
    o.log_start_offset = -1
    o.replica_directory_id = ZERO_UUID
    o.high_watermark = 9223372036854775807
    o.unknown_tagged_fields = None
    o.partition, o.fetch_offset, o.partition_max_bytes = _S1.unpack_from(buf, pos)
    pos += 16
    return o, pos


def _dec_FetchTopic_0(buf, pos):
    o = _new(FetchTopic)
    o.topic_id = ZERO_UUID
    o.unknown_tagged_fields = None
    o.topic, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Partitions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_FetchPartition_0(buf, pos)
            append(item)
        o.partitions = items
    return o, pos


def _dec_FetchRequest_0(buf, pos):
    o = _new(FetchRequest)
    o.cluster_id = None
    o.replica_state = ReplicaState()
    o.session_id = 0
    o.session_epoch = -1
    o.forgotten_topics_data = []
    o.rack_id = ''
    o.unknown_tagged_fields = None
    o.replica_id, o.max_wait_ms, o.min_bytes, o.max_bytes, o.isolation_level = _S0.unpack_from(buf, pos)
    pos += 17
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_FetchTopic_0(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _enc_FetchPartition_0(o, w):
    w += _S1.pack(o.partition, o.fetch_offset, o.partition_max_bytes)


def _enc_FetchTopic_0(o, w):
    if o.topic is None:
        raise EncodeError('non-nullable field Topic is None')
    write_string(w, o.topic)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_FetchPartition_0(item, w)


def _enc_FetchRequest_0(o, w):
    w += _S0.pack(o.replica_id, o.max_wait_ms, o.min_bytes, o.max_bytes, o.isolation_level)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_FetchTopic_0(item, w)


def _dec_FetchPartition_1(buf, pos):
    o = _new(FetchPartition)
    o.current_leader_epoch = -1
    o.last_fetched_epoch = -1
    o.replica_directory_id = ZERO_UUID
    o.high_watermark = 9223372036854775807
    o.unknown_tagged_fields = None
    o.partition, o.fetch_offset, o.log_start_offset, o.partition_max_bytes = _S2.unpack_from(buf, pos)
    pos += 24
    return o, pos


def _dec_FetchTopic_1(buf, pos):
    o = _new(FetchTopic)
    o.topic_id = ZERO_UUID
    o.unknown_tagged_fields = None
    o.topic, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Partitions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_FetchPartition_1(buf, pos)
            append(item)
        o.partitions = items
    return o, pos


def _dec_FetchRequest_1(buf, pos):
    o = _new(FetchRequest)
    o.cluster_id = None
    o.replica_state = ReplicaState()
    o.session_id = 0
    o.session_epoch = -1
    o.forgotten_topics_data = []
    o.rack_id = ''
    o.unknown_tagged_fields = None
    o.replica_id, o.max_wait_ms, o.min_bytes, o.max_bytes, o.isolation_level = _S0.unpack_from(buf, pos)
    pos += 17
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_FetchTopic_1(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _enc_FetchPartition_1(o, w):
    w += _S2.pack(o.partition, o.fetch_offset, o.log_start_offset, o.partition_max_bytes)


def _enc_FetchTopic_1(o, w):
    if o.topic is None:
        raise EncodeError('non-nullable field Topic is None')
    write_string(w, o.topic)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_FetchPartition_1(item, w)


def _enc_FetchRequest_1(o, w):
    w += _S0.pack(o.replica_id, o.max_wait_ms, o.min_bytes, o.max_bytes, o.isolation_level)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_FetchTopic_1(item, w)


def _dec_ForgottenTopic_0(buf, pos):
    o = _new(ForgottenTopic)
    o.topic_id = ZERO_UUID
    o.unknown_tagged_fields = None
    o.topic, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Partitions was null')
    else:
        end = pos + n * 4
        if end > len(buf):
            raise DecodeError('truncated array Partitions')
        o.partitions = list(_unpack_from('>%di' % n, buf, pos))
        pos = end
    return o, pos


def _dec_FetchRequest_2(buf, pos):
    o = _new(FetchRequest)
    o.cluster_id = None
    o.replica_state = ReplicaState()
    o.rack_id = ''
    o.unknown_tagged_fields = None
    o.replica_id, o.max_wait_ms, o.min_bytes, o.max_bytes, o.isolation_level, o.session_id, o.session_epoch = _S3.unpack_from(buf, pos)
    pos += 25
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_FetchTopic_1(buf, pos)
            append(item)
        o.topics = items
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array ForgottenTopicsData was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ForgottenTopic_0(buf, pos)
            append(item)
        o.forgotten_topics_data = items
    return o, pos


def _enc_ForgottenTopic_0(o, w):
    if o.topic is None:
        raise EncodeError('non-nullable field Topic is None')
    write_string(w, o.topic)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        write_array_length(w, len(items))
        w += _pack('>%di' % len(items), *items)


def _enc_FetchRequest_2(o, w):
    w += _S3.pack(o.replica_id, o.max_wait_ms, o.min_bytes, o.max_bytes, o.isolation_level, o.session_id, o.session_epoch)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_FetchTopic_1(item, w)
    items = o.forgotten_topics_data
    if items is None:
        raise EncodeError('non-nullable array ForgottenTopicsData is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_ForgottenTopic_0(item, w)


def _dec_FetchPartition_2(buf, pos):
    o = _new(FetchPartition)
    o.last_fetched_epoch = -1
    o.replica_directory_id = ZERO_UUID
    o.high_watermark = 9223372036854775807
    o.unknown_tagged_fields = None
    o.partition, o.current_leader_epoch, o.fetch_offset, o.log_start_offset, o.partition_max_bytes = _S4.unpack_from(buf, pos)
    pos += 28
    return o, pos


def _dec_FetchTopic_2(buf, pos):
    o = _new(FetchTopic)
    o.topic_id = ZERO_UUID
    o.unknown_tagged_fields = None
    o.topic, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Partitions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_FetchPartition_2(buf, pos)
            append(item)
        o.partitions = items
    return o, pos


def _dec_FetchRequest_3(buf, pos):
    o = _new(FetchRequest)
    o.cluster_id = None
    o.replica_state = ReplicaState()
    o.rack_id = ''
    o.unknown_tagged_fields = None
    o.replica_id, o.max_wait_ms, o.min_bytes, o.max_bytes, o.isolation_level, o.session_id, o.session_epoch = _S3.unpack_from(buf, pos)
    pos += 25
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_FetchTopic_2(buf, pos)
            append(item)
        o.topics = items
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array ForgottenTopicsData was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ForgottenTopic_0(buf, pos)
            append(item)
        o.forgotten_topics_data = items
    return o, pos


def _enc_FetchPartition_2(o, w):
    w += _S4.pack(o.partition, o.current_leader_epoch, o.fetch_offset, o.log_start_offset, o.partition_max_bytes)


def _enc_FetchTopic_2(o, w):
    if o.topic is None:
        raise EncodeError('non-nullable field Topic is None')
    write_string(w, o.topic)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_FetchPartition_2(item, w)


def _enc_FetchRequest_3(o, w):
    w += _S3.pack(o.replica_id, o.max_wait_ms, o.min_bytes, o.max_bytes, o.isolation_level, o.session_id, o.session_epoch)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_FetchTopic_2(item, w)
    items = o.forgotten_topics_data
    if items is None:
        raise EncodeError('non-nullable array ForgottenTopicsData is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_ForgottenTopic_0(item, w)


def _dec_FetchRequest_4(buf, pos):
    o = _new(FetchRequest)
    o.cluster_id = None
    o.replica_state = ReplicaState()
    o.unknown_tagged_fields = None
    o.replica_id, o.max_wait_ms, o.min_bytes, o.max_bytes, o.isolation_level, o.session_id, o.session_epoch = _S3.unpack_from(buf, pos)
    pos += 25
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_FetchTopic_2(buf, pos)
            append(item)
        o.topics = items
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array ForgottenTopicsData was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ForgottenTopic_0(buf, pos)
            append(item)
        o.forgotten_topics_data = items
    o.rack_id, pos = read_string(buf, pos)
    return o, pos


def _enc_FetchRequest_4(o, w):
    w += _S3.pack(o.replica_id, o.max_wait_ms, o.min_bytes, o.max_bytes, o.isolation_level, o.session_id, o.session_epoch)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_FetchTopic_2(item, w)
    items = o.forgotten_topics_data
    if items is None:
        raise EncodeError('non-nullable array ForgottenTopicsData is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_ForgottenTopic_0(item, w)
    if o.rack_id is None:
        raise EncodeError('non-nullable field RackId is None')
    write_string(w, o.rack_id)


def _dec_FetchPartition_3(buf, pos):
    o = _new(FetchPartition)
    o.replica_directory_id = ZERO_UUID
    o.high_watermark = 9223372036854775807
    o.partition, o.current_leader_epoch, o.fetch_offset, o.last_fetched_epoch, o.log_start_offset, o.partition_max_bytes = _S5.unpack_from(buf, pos)
    pos += 32
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


def _dec_FetchTopic_3(buf, pos):
    o = _new(FetchTopic)
    o.topic_id = ZERO_UUID
    o.topic, pos = read_compact_string(buf, pos)
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
            item, pos = _dec_FetchPartition_3(buf, pos)
            append(item)
        o.partitions = items
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


def _dec_ForgottenTopic_1(buf, pos):
    o = _new(ForgottenTopic)
    o.topic_id = ZERO_UUID
    o.topic, pos = read_compact_string(buf, pos)
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


def _dec_FetchRequest_5(buf, pos):
    o = _new(FetchRequest)
    o.replica_state = ReplicaState()
    o.cluster_id = None
    o.replica_id, o.max_wait_ms, o.min_bytes, o.max_bytes, o.isolation_level, o.session_id, o.session_epoch = _S3.unpack_from(buf, pos)
    pos += 25
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
            item, pos = _dec_FetchTopic_3(buf, pos)
            append(item)
        o.topics = items
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array ForgottenTopicsData was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ForgottenTopic_1(buf, pos)
            append(item)
        o.forgotten_topics_data = items
    o.rack_id, pos = read_compact_string(buf, pos)
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
        if tag == 0:
            start = pos
            o.cluster_id, pos = read_compact_nullable_string(buf, pos)
            if pos != end:
                raise DecodeError('tagged field ClusterId size mismatch')
        else:
            if o.unknown_tagged_fields is None:
                o.unknown_tagged_fields = []
            o.unknown_tagged_fields.append((tag, bytes(buf[pos:end])))
            pos = end
    return o, pos


def _enc_FetchPartition_3(o, w):
    w += _S5.pack(o.partition, o.current_leader_epoch, o.fetch_offset, o.last_fetched_epoch, o.log_start_offset, o.partition_max_bytes)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_FetchTopic_3(o, w):
    if o.topic is None:
        raise EncodeError('non-nullable field Topic is None')
    write_compact_string(w, o.topic)
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
            _enc_FetchPartition_3(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_ForgottenTopic_1(o, w):
    if o.topic is None:
        raise EncodeError('non-nullable field Topic is None')
    write_compact_string(w, o.topic)
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


def _enc_FetchRequest_5(o, w):
    w += _S3.pack(o.replica_id, o.max_wait_ms, o.min_bytes, o.max_bytes, o.isolation_level, o.session_id, o.session_epoch)
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
            _enc_FetchTopic_3(item, w)
    items = o.forgotten_topics_data
    if items is None:
        raise EncodeError('non-nullable array ForgottenTopicsData is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_ForgottenTopic_1(item, w)
    if o.rack_id is None:
        raise EncodeError('non-nullable field RackId is None')
    write_compact_string(w, o.rack_id)
    tags = []
    if o.cluster_id is not None:
        t = bytearray()
        write_compact_nullable_string(t, o.cluster_id)
        tags.append((0, t))
    if o.unknown_tagged_fields:
        tags.extend(o.unknown_tagged_fields)
    write_tagged_fields(w, tags)


def _dec_FetchTopic_4(buf, pos):
    o = _new(FetchTopic)
    o.topic = ''
    o.topic_id, pos = read_uuid(buf, pos)
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
            item, pos = _dec_FetchPartition_3(buf, pos)
            append(item)
        o.partitions = items
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


def _dec_ForgottenTopic_2(buf, pos):
    o = _new(ForgottenTopic)
    o.topic = ''
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


def _dec_FetchRequest_6(buf, pos):
    o = _new(FetchRequest)
    o.replica_state = ReplicaState()
    o.cluster_id = None
    o.replica_id, o.max_wait_ms, o.min_bytes, o.max_bytes, o.isolation_level, o.session_id, o.session_epoch = _S3.unpack_from(buf, pos)
    pos += 25
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
            item, pos = _dec_FetchTopic_4(buf, pos)
            append(item)
        o.topics = items
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array ForgottenTopicsData was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ForgottenTopic_2(buf, pos)
            append(item)
        o.forgotten_topics_data = items
    o.rack_id, pos = read_compact_string(buf, pos)
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
        if tag == 0:
            start = pos
            o.cluster_id, pos = read_compact_nullable_string(buf, pos)
            if pos != end:
                raise DecodeError('tagged field ClusterId size mismatch')
        else:
            if o.unknown_tagged_fields is None:
                o.unknown_tagged_fields = []
            o.unknown_tagged_fields.append((tag, bytes(buf[pos:end])))
            pos = end
    return o, pos


def _enc_FetchTopic_4(o, w):
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
        for item in items:
            _enc_FetchPartition_3(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_ForgottenTopic_2(o, w):
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


def _enc_FetchRequest_6(o, w):
    w += _S3.pack(o.replica_id, o.max_wait_ms, o.min_bytes, o.max_bytes, o.isolation_level, o.session_id, o.session_epoch)
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
            _enc_FetchTopic_4(item, w)
    items = o.forgotten_topics_data
    if items is None:
        raise EncodeError('non-nullable array ForgottenTopicsData is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_ForgottenTopic_2(item, w)
    if o.rack_id is None:
        raise EncodeError('non-nullable field RackId is None')
    write_compact_string(w, o.rack_id)
    tags = []
    if o.cluster_id is not None:
        t = bytearray()
        write_compact_nullable_string(t, o.cluster_id)
        tags.append((0, t))
    if o.unknown_tagged_fields:
        tags.extend(o.unknown_tagged_fields)
    write_tagged_fields(w, tags)


def _dec_ReplicaState_0(buf, pos):
    o = _new(ReplicaState)
    o.replica_id, o.replica_epoch = _S7.unpack_from(buf, pos)
    pos += 12
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


def _dec_FetchRequest_7(buf, pos):
    o = _new(FetchRequest)
    o.replica_id = -1
    o.cluster_id = None
    o.replica_state = ReplicaState()
    o.max_wait_ms, o.min_bytes, o.max_bytes, o.isolation_level, o.session_id, o.session_epoch = _S6.unpack_from(buf, pos)
    pos += 21
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
            item, pos = _dec_FetchTopic_4(buf, pos)
            append(item)
        o.topics = items
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array ForgottenTopicsData was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ForgottenTopic_2(buf, pos)
            append(item)
        o.forgotten_topics_data = items
    o.rack_id, pos = read_compact_string(buf, pos)
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
        if tag == 0:
            start = pos
            o.cluster_id, pos = read_compact_nullable_string(buf, pos)
            if pos != end:
                raise DecodeError('tagged field ClusterId size mismatch')
        elif tag == 1:
            start = pos
            o.replica_state, pos = _dec_ReplicaState_0(buf, pos)
            if pos != end:
                raise DecodeError('tagged field ReplicaState size mismatch')
        else:
            if o.unknown_tagged_fields is None:
                o.unknown_tagged_fields = []
            o.unknown_tagged_fields.append((tag, bytes(buf[pos:end])))
            pos = end
    return o, pos


def _enc_ReplicaState_0(o, w):
    w += _S7.pack(o.replica_id, o.replica_epoch)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_FetchRequest_7(o, w):
    w += _S6.pack(o.max_wait_ms, o.min_bytes, o.max_bytes, o.isolation_level, o.session_id, o.session_epoch)
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
            _enc_FetchTopic_4(item, w)
    items = o.forgotten_topics_data
    if items is None:
        raise EncodeError('non-nullable array ForgottenTopicsData is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_ForgottenTopic_2(item, w)
    if o.rack_id is None:
        raise EncodeError('non-nullable field RackId is None')
    write_compact_string(w, o.rack_id)
    tags = []
    if o.cluster_id is not None:
        t = bytearray()
        write_compact_nullable_string(t, o.cluster_id)
        tags.append((0, t))
    if o.replica_state != ReplicaState():
        t = bytearray()
        _enc_ReplicaState_0(o.replica_state, t)
        tags.append((1, t))
    if o.unknown_tagged_fields:
        tags.extend(o.unknown_tagged_fields)
    write_tagged_fields(w, tags)


def _dec_FetchPartition_4(buf, pos):
    o = _new(FetchPartition)
    o.high_watermark = 9223372036854775807
    o.replica_directory_id = ZERO_UUID
    o.partition, o.current_leader_epoch, o.fetch_offset, o.last_fetched_epoch, o.log_start_offset, o.partition_max_bytes = _S5.unpack_from(buf, pos)
    pos += 32
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
        if tag == 0:
            start = pos
            o.replica_directory_id, pos = read_uuid(buf, pos)
            if pos != end:
                raise DecodeError('tagged field ReplicaDirectoryId size mismatch')
        else:
            if o.unknown_tagged_fields is None:
                o.unknown_tagged_fields = []
            o.unknown_tagged_fields.append((tag, bytes(buf[pos:end])))
            pos = end
    return o, pos


def _dec_FetchTopic_5(buf, pos):
    o = _new(FetchTopic)
    o.topic = ''
    o.topic_id, pos = read_uuid(buf, pos)
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
            item, pos = _dec_FetchPartition_4(buf, pos)
            append(item)
        o.partitions = items
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


def _dec_FetchRequest_8(buf, pos):
    o = _new(FetchRequest)
    o.replica_id = -1
    o.cluster_id = None
    o.replica_state = ReplicaState()
    o.max_wait_ms, o.min_bytes, o.max_bytes, o.isolation_level, o.session_id, o.session_epoch = _S6.unpack_from(buf, pos)
    pos += 21
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
            item, pos = _dec_FetchTopic_5(buf, pos)
            append(item)
        o.topics = items
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array ForgottenTopicsData was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ForgottenTopic_2(buf, pos)
            append(item)
        o.forgotten_topics_data = items
    o.rack_id, pos = read_compact_string(buf, pos)
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
        if tag == 0:
            start = pos
            o.cluster_id, pos = read_compact_nullable_string(buf, pos)
            if pos != end:
                raise DecodeError('tagged field ClusterId size mismatch')
        elif tag == 1:
            start = pos
            o.replica_state, pos = _dec_ReplicaState_0(buf, pos)
            if pos != end:
                raise DecodeError('tagged field ReplicaState size mismatch')
        else:
            if o.unknown_tagged_fields is None:
                o.unknown_tagged_fields = []
            o.unknown_tagged_fields.append((tag, bytes(buf[pos:end])))
            pos = end
    return o, pos


def _enc_FetchPartition_4(o, w):
    w += _S5.pack(o.partition, o.current_leader_epoch, o.fetch_offset, o.last_fetched_epoch, o.log_start_offset, o.partition_max_bytes)
    tags = []
    if o.replica_directory_id != ZERO_UUID:
        t = bytearray()
        write_uuid(t, o.replica_directory_id)
        tags.append((0, t))
    if o.unknown_tagged_fields:
        tags.extend(o.unknown_tagged_fields)
    write_tagged_fields(w, tags)


def _enc_FetchTopic_5(o, w):
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
        for item in items:
            _enc_FetchPartition_4(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_FetchRequest_8(o, w):
    w += _S6.pack(o.max_wait_ms, o.min_bytes, o.max_bytes, o.isolation_level, o.session_id, o.session_epoch)
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
            _enc_FetchTopic_5(item, w)
    items = o.forgotten_topics_data
    if items is None:
        raise EncodeError('non-nullable array ForgottenTopicsData is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_ForgottenTopic_2(item, w)
    if o.rack_id is None:
        raise EncodeError('non-nullable field RackId is None')
    write_compact_string(w, o.rack_id)
    tags = []
    if o.cluster_id is not None:
        t = bytearray()
        write_compact_nullable_string(t, o.cluster_id)
        tags.append((0, t))
    if o.replica_state != ReplicaState():
        t = bytearray()
        _enc_ReplicaState_0(o.replica_state, t)
        tags.append((1, t))
    if o.unknown_tagged_fields:
        tags.extend(o.unknown_tagged_fields)
    write_tagged_fields(w, tags)


def _dec_FetchPartition_5(buf, pos):
    o = _new(FetchPartition)
    o.replica_directory_id = ZERO_UUID
    o.high_watermark = 9223372036854775807
    o.partition, o.current_leader_epoch, o.fetch_offset, o.last_fetched_epoch, o.log_start_offset, o.partition_max_bytes = _S5.unpack_from(buf, pos)
    pos += 32
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
        if tag == 0:
            start = pos
            o.replica_directory_id, pos = read_uuid(buf, pos)
            if pos != end:
                raise DecodeError('tagged field ReplicaDirectoryId size mismatch')
        elif tag == 1:
            start = pos
            o.high_watermark, pos = read_int64(buf, pos)
            if pos != end:
                raise DecodeError('tagged field HighWatermark size mismatch')
        else:
            if o.unknown_tagged_fields is None:
                o.unknown_tagged_fields = []
            o.unknown_tagged_fields.append((tag, bytes(buf[pos:end])))
            pos = end
    return o, pos


def _dec_FetchTopic_6(buf, pos):
    o = _new(FetchTopic)
    o.topic = ''
    o.topic_id, pos = read_uuid(buf, pos)
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
            item, pos = _dec_FetchPartition_5(buf, pos)
            append(item)
        o.partitions = items
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


def _dec_FetchRequest_9(buf, pos):
    o = _new(FetchRequest)
    o.replica_id = -1
    o.cluster_id = None
    o.replica_state = ReplicaState()
    o.max_wait_ms, o.min_bytes, o.max_bytes, o.isolation_level, o.session_id, o.session_epoch = _S6.unpack_from(buf, pos)
    pos += 21
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
            item, pos = _dec_FetchTopic_6(buf, pos)
            append(item)
        o.topics = items
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array ForgottenTopicsData was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ForgottenTopic_2(buf, pos)
            append(item)
        o.forgotten_topics_data = items
    o.rack_id, pos = read_compact_string(buf, pos)
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
        if tag == 0:
            start = pos
            o.cluster_id, pos = read_compact_nullable_string(buf, pos)
            if pos != end:
                raise DecodeError('tagged field ClusterId size mismatch')
        elif tag == 1:
            start = pos
            o.replica_state, pos = _dec_ReplicaState_0(buf, pos)
            if pos != end:
                raise DecodeError('tagged field ReplicaState size mismatch')
        else:
            if o.unknown_tagged_fields is None:
                o.unknown_tagged_fields = []
            o.unknown_tagged_fields.append((tag, bytes(buf[pos:end])))
            pos = end
    return o, pos


def _enc_FetchPartition_5(o, w):
    w += _S5.pack(o.partition, o.current_leader_epoch, o.fetch_offset, o.last_fetched_epoch, o.log_start_offset, o.partition_max_bytes)
    tags = []
    if o.replica_directory_id != ZERO_UUID:
        t = bytearray()
        write_uuid(t, o.replica_directory_id)
        tags.append((0, t))
    if o.high_watermark != 9223372036854775807:
        t = bytearray()
        t += _S8.pack(o.high_watermark)
        tags.append((1, t))
    if o.unknown_tagged_fields:
        tags.extend(o.unknown_tagged_fields)
    write_tagged_fields(w, tags)


def _enc_FetchTopic_6(o, w):
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
        for item in items:
            _enc_FetchPartition_5(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_FetchRequest_9(o, w):
    w += _S6.pack(o.max_wait_ms, o.min_bytes, o.max_bytes, o.isolation_level, o.session_id, o.session_epoch)
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
            _enc_FetchTopic_6(item, w)
    items = o.forgotten_topics_data
    if items is None:
        raise EncodeError('non-nullable array ForgottenTopicsData is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_ForgottenTopic_2(item, w)
    if o.rack_id is None:
        raise EncodeError('non-nullable field RackId is None')
    write_compact_string(w, o.rack_id)
    tags = []
    if o.cluster_id is not None:
        t = bytearray()
        write_compact_nullable_string(t, o.cluster_id)
        tags.append((0, t))
    if o.replica_state != ReplicaState():
        t = bytearray()
        _enc_ReplicaState_0(o.replica_state, t)
        tags.append((1, t))
    if o.unknown_tagged_fields:
        tags.extend(o.unknown_tagged_fields)
    write_tagged_fields(w, tags)


FetchRequest._DECODERS = {4: _dec_FetchRequest_0, 5: _dec_FetchRequest_1, 6: _dec_FetchRequest_1, 7: _dec_FetchRequest_2, 8: _dec_FetchRequest_2, 9: _dec_FetchRequest_3, 10: _dec_FetchRequest_3, 11: _dec_FetchRequest_4, 12: _dec_FetchRequest_5, 13: _dec_FetchRequest_6, 14: _dec_FetchRequest_6, 15: _dec_FetchRequest_7, 16: _dec_FetchRequest_7, 17: _dec_FetchRequest_8, 18: _dec_FetchRequest_9}
FetchRequest._ENCODERS = {4: _enc_FetchRequest_0, 5: _enc_FetchRequest_1, 6: _enc_FetchRequest_1, 7: _enc_FetchRequest_2, 8: _enc_FetchRequest_2, 9: _enc_FetchRequest_3, 10: _enc_FetchRequest_3, 11: _enc_FetchRequest_4, 12: _enc_FetchRequest_5, 13: _enc_FetchRequest_6, 14: _enc_FetchRequest_6, 15: _enc_FetchRequest_7, 16: _enc_FetchRequest_7, 17: _enc_FetchRequest_8, 18: _enc_FetchRequest_9}
