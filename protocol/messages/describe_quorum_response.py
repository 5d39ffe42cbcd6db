"""DescribeQuorumResponse: generated from Kafka's DescribeQuorumResponse.json by tools/generate_protocol.py.

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
_S1 = struct.Struct('>ihiiq')
_S2 = struct.Struct('>iq')
_S3 = struct.Struct('>iqqq')
_S4 = struct.Struct('>ih')
_S5 = struct.Struct('>iiq')
_S6 = struct.Struct('>i')
_S7 = struct.Struct('>qqq')
_S8 = struct.Struct('>H')


class ReplicaState(Struct):
    __slots__ = ('replica_id', 'replica_directory_id', 'log_end_offset', 'last_fetch_timestamp', 'last_caught_up_timestamp', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('replica_id', 'ReplicaId', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('replica_directory_id', 'ReplicaDirectoryId', 'uuid', False, (2, 32767), None, None, None, None), FieldMeta('log_end_offset', 'LogEndOffset', 'int64', False, (0, 32767), None, None, None, None), FieldMeta('last_fetch_timestamp', 'LastFetchTimestamp', 'int64', False, (1, 32767), None, None, None, None), FieldMeta('last_caught_up_timestamp', 'LastCaughtUpTimestamp', 'int64', False, (1, 32767), None, None, None, None))

    def __init__(self, *, replica_id: int = 0, replica_directory_id: uuid.UUID = ZERO_UUID, log_end_offset: int = 0, last_fetch_timestamp: int = -1, last_caught_up_timestamp: int = -1, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.replica_id = replica_id
        self.replica_directory_id = replica_directory_id
        self.log_end_offset = log_end_offset
        self.last_fetch_timestamp = last_fetch_timestamp
        self.last_caught_up_timestamp = last_caught_up_timestamp
        self.unknown_tagged_fields = unknown_tagged_fields


class PartitionData(Struct):
    __slots__ = ('partition_index', 'error_code', 'error_message', 'leader_id', 'leader_epoch', 'high_watermark', 'current_voters', 'observers', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('partition_index', 'PartitionIndex', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('error_message', 'ErrorMessage', 'string', False, (2, 32767), (2, 32767), None, None, None), FieldMeta('leader_id', 'LeaderId', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('leader_epoch', 'LeaderEpoch', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('high_watermark', 'HighWatermark', 'int64', False, (0, 32767), None, None, None, None), FieldMeta('current_voters', 'CurrentVoters', 'ReplicaState', True, (0, 32767), None, None, None, ReplicaState), FieldMeta('observers', 'Observers', 'ReplicaState', True, (0, 32767), None, None, None, ReplicaState))

    def __init__(self, *, partition_index: int = 0, error_code: int = 0, error_message: str | None = '', leader_id: int = 0, leader_epoch: int = 0, high_watermark: int = 0, current_voters: list[ReplicaState] | None = _DEFAULT, observers: list[ReplicaState] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.partition_index = partition_index
        self.error_code = error_code
        self.error_message = error_message
        self.leader_id = leader_id
        self.leader_epoch = leader_epoch
        self.high_watermark = high_watermark
        self.current_voters = [] if current_voters is _DEFAULT else current_voters
        self.observers = [] if observers is _DEFAULT else observers
        self.unknown_tagged_fields = unknown_tagged_fields


class TopicData(Struct):
    __slots__ = ('topic_name', 'partitions', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('topic_name', 'TopicName', 'string', False, (0, 32767), None, None, None, None), FieldMeta('partitions', 'Partitions', 'PartitionData', True, (0, 32767), None, None, None, PartitionData))

    def __init__(self, *, topic_name: str = '', partitions: list[PartitionData] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.topic_name = topic_name
        self.partitions = [] if partitions is _DEFAULT else partitions
        self.unknown_tagged_fields = unknown_tagged_fields


class Listener(Struct):
    __slots__ = ('name', 'host', 'port', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (2, 32767), None, None, None, None), FieldMeta('host', 'Host', 'string', False, (2, 32767), None, None, None, None), FieldMeta('port', 'Port', 'uint16', False, (2, 32767), None, None, None, None))

    def __init__(self, *, name: str = '', host: str = '', port: int = 0, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.host = host
        self.port = port
        self.unknown_tagged_fields = unknown_tagged_fields


class Node(Struct):
    __slots__ = ('node_id', 'listeners', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('node_id', 'NodeId', 'int32', False, (2, 32767), None, None, None, None), FieldMeta('listeners', 'Listeners', 'Listener', True, (2, 32767), None, None, None, Listener))

    def __init__(self, *, node_id: int = 0, listeners: list[Listener] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.node_id = node_id
        self.listeners = [] if listeners is _DEFAULT else listeners
        self.unknown_tagged_fields = unknown_tagged_fields


class DescribeQuorumResponse(Message):
    """Kafka response DescribeQuorumResponse (valid versions 0-2)."""

    NAME = 'DescribeQuorumResponse'
    TYPE = 'response'
    API_KEY = 55
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (0, 32767)
    ReplicaState = ReplicaState
    PartitionData = PartitionData
    TopicData = TopicData
    Listener = Listener
    Node = Node
    __slots__ = ('error_code', 'error_message', 'topics', 'nodes', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('error_message', 'ErrorMessage', 'string', False, (2, 32767), (2, 32767), None, None, None), FieldMeta('topics', 'Topics', 'TopicData', True, (0, 32767), None, None, None, TopicData), FieldMeta('nodes', 'Nodes', 'Node', True, (2, 32767), None, None, None, Node))

    def __init__(self, *, error_code: int = 0, error_message: str | None = '', topics: list[TopicData] | None = _DEFAULT, nodes: list[Node] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.error_code = error_code
        self.error_message = error_message
        self.topics = [] if topics is _DEFAULT else topics
        self.nodes = [] if nodes is _DEFAULT else nodes
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_ReplicaState_0(buf, pos):
    o = _new(ReplicaState)
    o.replica_directory_id = ZERO_UUID
    o.last_fetch_timestamp = -1
    o.last_caught_up_timestamp = -1
    o.replica_id, o.log_end_offset = _S2.unpack_from(buf, pos)
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


def _dec_PartitionData_0(buf, pos):
    o = _new(PartitionData)
    o.error_message = ''
    o.partition_index, o.error_code, o.leader_id, o.leader_epoch, o.high_watermark = _S1.unpack_from(buf, pos)
    pos += 22
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array CurrentVoters was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ReplicaState_0(buf, pos)
            append(item)
        o.current_voters = items
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Observers was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ReplicaState_0(buf, pos)
            append(item)
        o.observers = items
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


def _dec_TopicData_0(buf, pos):
    o = _new(TopicData)
    o.topic_name, pos = read_compact_string(buf, pos)
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
            item, pos = _dec_PartitionData_0(buf, pos)
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


def _dec_DescribeQuorumResponse_0(buf, pos):
    o = _new(DescribeQuorumResponse)
    o.error_message = ''
    o.nodes = []
    o.error_code, = _S0.unpack_from(buf, pos)
    pos += 2
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
            item, pos = _dec_TopicData_0(buf, pos)
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


def _enc_ReplicaState_0(o, w):
    w += _S2.pack(o.replica_id, o.log_end_offset)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_PartitionData_0(o, w):
    w += _S1.pack(o.partition_index, o.error_code, o.leader_id, o.leader_epoch, o.high_watermark)
    items = o.current_voters
    if items is None:
        raise EncodeError('non-nullable array CurrentVoters is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_ReplicaState_0(item, w)
    items = o.observers
    if items is None:
        raise EncodeError('non-nullable array Observers is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_ReplicaState_0(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_TopicData_0(o, w):
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
        for item in items:
            _enc_PartitionData_0(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_DescribeQuorumResponse_0(o, w):
    w += _S0.pack(o.error_code)
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
            _enc_TopicData_0(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_ReplicaState_1(buf, pos):
    o = _new(ReplicaState)
    o.replica_directory_id = ZERO_UUID
    o.replica_id, o.log_end_offset, o.last_fetch_timestamp, o.last_caught_up_timestamp = _S3.unpack_from(buf, pos)
    pos += 28
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


def _dec_PartitionData_1(buf, pos):
    o = _new(PartitionData)
    o.error_message = ''
    o.partition_index, o.error_code, o.leader_id, o.leader_epoch, o.high_watermark = _S1.unpack_from(buf, pos)
    pos += 22
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array CurrentVoters was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ReplicaState_1(buf, pos)
            append(item)
        o.current_voters = items
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Observers was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ReplicaState_1(buf, pos)
            append(item)
        o.observers = items
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


def _dec_TopicData_1(buf, pos):
    o = _new(TopicData)
    o.topic_name, pos = read_compact_string(buf, pos)
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
            item, pos = _dec_PartitionData_1(buf, pos)
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


def _dec_DescribeQuorumResponse_1(buf, pos):
    o = _new(DescribeQuorumResponse)
    o.error_message = ''
    o.nodes = []
    o.error_code, = _S0.unpack_from(buf, pos)
    pos += 2
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
            item, pos = _dec_TopicData_1(buf, pos)
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


def _enc_ReplicaState_1(o, w):
    w += _S3.pack(o.replica_id, o.log_end_offset, o.last_fetch_timestamp, o.last_caught_up_timestamp)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_PartitionData_1(o, w):
    w += _S1.pack(o.partition_index, o.error_code, o.leader_id, o.leader_epoch, o.high_watermark)
    items = o.current_voters
    if items is None:
        raise EncodeError('non-nullable array CurrentVoters is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_ReplicaState_1(item, w)
    items = o.observers
    if items is None:
        raise EncodeError('non-nullable array Observers is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_ReplicaState_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_TopicData_1(o, w):
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
        for item in items:
            _enc_PartitionData_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_DescribeQuorumResponse_1(o, w):
    w += _S0.pack(o.error_code)
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
            _enc_TopicData_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_ReplicaState_2(buf, pos):
    o = _new(ReplicaState)
    o.replica_id, = _S6.unpack_from(buf, pos)
    pos += 4
    o.replica_directory_id, pos = read_uuid(buf, pos)
    o.log_end_offset, o.last_fetch_timestamp, o.last_caught_up_timestamp = _S7.unpack_from(buf, pos)
    pos += 24
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


def _dec_PartitionData_2(buf, pos):
    o = _new(PartitionData)
    o.partition_index, o.error_code = _S4.unpack_from(buf, pos)
    pos += 6
    o.error_message, pos = read_compact_nullable_string(buf, pos)
    o.leader_id, o.leader_epoch, o.high_watermark = _S5.unpack_from(buf, pos)
    pos += 16
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array CurrentVoters was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ReplicaState_2(buf, pos)
            append(item)
        o.current_voters = items
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Observers was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ReplicaState_2(buf, pos)
            append(item)
        o.observers = items
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


def _dec_TopicData_2(buf, pos):
    o = _new(TopicData)
    o.topic_name, pos = read_compact_string(buf, pos)
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
            item, pos = _dec_PartitionData_2(buf, pos)
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


def _dec_Listener_0(buf, pos):
    o = _new(Listener)
    o.name, pos = read_compact_string(buf, pos)
    o.host, pos = read_compact_string(buf, pos)
    o.port, = _S8.unpack_from(buf, pos)
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


def _dec_Node_0(buf, pos):
    o = _new(Node)
    o.node_id, = _S6.unpack_from(buf, pos)
    pos += 4
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Listeners was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_Listener_0(buf, pos)
            append(item)
        o.listeners = items
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


def _dec_DescribeQuorumResponse_2(buf, pos):
    o = _new(DescribeQuorumResponse)
    o.error_code, = _S0.unpack_from(buf, pos)
    pos += 2
    o.error_message, pos = read_compact_nullable_string(buf, pos)
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
            item, pos = _dec_TopicData_2(buf, pos)
            append(item)
        o.topics = items
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Nodes was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_Node_0(buf, pos)
            append(item)
        o.nodes = items
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


def _enc_ReplicaState_2(o, w):
    w += _S6.pack(o.replica_id)
    write_uuid(w, o.replica_directory_id)
    w += _S7.pack(o.log_end_offset, o.last_fetch_timestamp, o.last_caught_up_timestamp)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_PartitionData_2(o, w):
    w += _S4.pack(o.partition_index, o.error_code)
    write_compact_nullable_string(w, o.error_message)
    w += _S5.pack(o.leader_id, o.leader_epoch, o.high_watermark)
    items = o.current_voters
    if items is None:
        raise EncodeError('non-nullable array CurrentVoters is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_ReplicaState_2(item, w)
    items = o.observers
    if items is None:
        raise EncodeError('non-nullable array Observers is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_ReplicaState_2(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_TopicData_2(o, w):
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
        for item in items:
            _enc_PartitionData_2(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_Listener_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_compact_string(w, o.name)
    if o.host is None:
        raise EncodeError('non-nullable field Host is None')
    write_compact_string(w, o.host)
    w += _S8.pack(o.port)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_Node_0(o, w):
    w += _S6.pack(o.node_id)
    items = o.listeners
    if items is None:
        raise EncodeError('non-nullable array Listeners is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_Listener_0(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_DescribeQuorumResponse_2(o, w):
    w += _S0.pack(o.error_code)
    write_compact_nullable_string(w, o.error_message)
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
            _enc_TopicData_2(item, w)
    items = o.nodes
    if items is None:
        raise EncodeError('non-nullable array Nodes is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_Node_0(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


DescribeQuorumResponse._DECODERS = {0: _dec_DescribeQuorumResponse_0, 1: _dec_DescribeQuorumResponse_1, 2: _dec_DescribeQuorumResponse_2}
DescribeQuorumResponse._ENCODERS = {0: _enc_DescribeQuorumResponse_0, 1: _enc_DescribeQuorumResponse_1, 2: _enc_DescribeQuorumResponse_2}
