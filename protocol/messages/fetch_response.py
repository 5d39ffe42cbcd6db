"""FetchResponse: generated from Kafka's FetchResponse.json by tools/generate_protocol.py.

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
_S1 = struct.Struct('>ihqq')
_S2 = struct.Struct('>qq')
_S3 = struct.Struct('>ihqqq')
_S4 = struct.Struct('>ihi')
_S5 = struct.Struct('>iq')
_S6 = struct.Struct('>ii')
_S7 = struct.Struct('>qi')


class EpochEndOffset(Struct):
    __slots__ = ('epoch', 'end_offset', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('epoch', 'Epoch', 'int32', False, (12, 32767), None, None, None, None), FieldMeta('end_offset', 'EndOffset', 'int64', False, (12, 32767), None, None, None, None))

    def __init__(self, *, epoch: int = -1, end_offset: int = -1, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.epoch = epoch
        self.end_offset = end_offset
        self.unknown_tagged_fields = unknown_tagged_fields


class LeaderIdAndEpoch(Struct):
    __slots__ = ('leader_id', 'leader_epoch', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('leader_id', 'LeaderId', 'int32', False, (12, 32767), None, None, None, None), FieldMeta('leader_epoch', 'LeaderEpoch', 'int32', False, (12, 32767), None, None, None, None))

    def __init__(self, *, leader_id: int = -1, leader_epoch: int = -1, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.leader_id = leader_id
        self.leader_epoch = leader_epoch
        self.unknown_tagged_fields = unknown_tagged_fields


class SnapshotId(Struct):
    __slots__ = ('end_offset', 'epoch', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('end_offset', 'EndOffset', 'int64', False, (0, 32767), None, None, None, None), FieldMeta('epoch', 'Epoch', 'int32', False, (0, 32767), None, None, None, None))

    def __init__(self, *, end_offset: int = -1, epoch: int = -1, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.end_offset = end_offset
        self.epoch = epoch
        self.unknown_tagged_fields = unknown_tagged_fields


class AbortedTransaction(Struct):
    __slots__ = ('producer_id', 'first_offset', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('producer_id', 'ProducerId', 'int64', False, (4, 32767), None, None, None, None), FieldMeta('first_offset', 'FirstOffset', 'int64', False, (4, 32767), None, None, None, None))

    def __init__(self, *, producer_id: int = 0, first_offset: int = 0, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.producer_id = producer_id
        self.first_offset = first_offset
        self.unknown_tagged_fields = unknown_tagged_fields


class PartitionData(Struct):
    __slots__ = ('partition_index', 'error_code', 'high_watermark', 'last_stable_offset', 'log_start_offset', 'diverging_epoch', 'current_leader', 'snapshot_id', 'aborted_transactions', 'preferred_read_replica', 'records', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('partition_index', 'PartitionIndex', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('high_watermark', 'HighWatermark', 'int64', False, (0, 32767), None, None, None, None), FieldMeta('last_stable_offset', 'LastStableOffset', 'int64', False, (4, 32767), None, None, None, None), FieldMeta('log_start_offset', 'LogStartOffset', 'int64', False, (5, 32767), None, None, None, None), FieldMeta('diverging_epoch', 'DivergingEpoch', 'EpochEndOffset', False, (12, 32767), None, 0, (12, 32767), EpochEndOffset), FieldMeta('current_leader', 'CurrentLeader', 'LeaderIdAndEpoch', False, (12, 32767), None, 1, (12, 32767), LeaderIdAndEpoch), FieldMeta('snapshot_id', 'SnapshotId', 'SnapshotId', False, (12, 32767), None, 2, (12, 32767), SnapshotId), FieldMeta('aborted_transactions', 'AbortedTransactions', 'AbortedTransaction', True, (4, 32767), (4, 32767), None, None, AbortedTransaction), FieldMeta('preferred_read_replica', 'PreferredReadReplica', 'int32', False, (11, 32767), None, None, None, None), FieldMeta('records', 'Records', 'records', False, (0, 32767), (0, 32767), None, None, None))

    def __init__(self, *, partition_index: int = 0, error_code: int = 0, high_watermark: int = 0, last_stable_offset: int = -1, log_start_offset: int = -1, diverging_epoch: EpochEndOffset | None = _DEFAULT, current_leader: LeaderIdAndEpoch | None = _DEFAULT, snapshot_id: SnapshotId | None = _DEFAULT, aborted_transactions: list[AbortedTransaction] | None | None = _DEFAULT, preferred_read_replica: int = -1, records: bytes | memoryview | None = None, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.partition_index = partition_index
        self.error_code = error_code
        self.high_watermark = high_watermark
        self.last_stable_offset = last_stable_offset
        self.log_start_offset = log_start_offset
        self.diverging_epoch = EpochEndOffset() if diverging_epoch is _DEFAULT else diverging_epoch
        self.current_leader = LeaderIdAndEpoch() if current_leader is _DEFAULT else current_leader
        self.snapshot_id = SnapshotId() if snapshot_id is _DEFAULT else snapshot_id
        self.aborted_transactions = [] if aborted_transactions is _DEFAULT else aborted_transactions
        self.preferred_read_replica = preferred_read_replica
        self.records = records
        self.unknown_tagged_fields = unknown_tagged_fields


class FetchableTopicResponse(Struct):
    __slots__ = ('topic', 'topic_id', 'partitions', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('topic', 'Topic', 'string', False, (0, 12), None, None, None, None), FieldMeta('topic_id', 'TopicId', 'uuid', False, (13, 32767), None, None, None, None), FieldMeta('partitions', 'Partitions', 'PartitionData', True, (0, 32767), None, None, None, PartitionData))

    def __init__(self, *, topic: str = '', topic_id: uuid.UUID = ZERO_UUID, partitions: list[PartitionData] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.topic = topic
        self.topic_id = topic_id
        self.partitions = [] if partitions is _DEFAULT else partitions
        self.unknown_tagged_fields = unknown_tagged_fields


class NodeEndpoint(Struct):
    __slots__ = ('node_id', 'host', 'port', 'rack', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('node_id', 'NodeId', 'int32', False, (16, 32767), None, None, None, None), FieldMeta('host', 'Host', 'string', False, (16, 32767), None, None, None, None), FieldMeta('port', 'Port', 'int32', False, (16, 32767), None, None, None, None), FieldMeta('rack', 'Rack', 'string', False, (16, 32767), (16, 32767), None, None, None))

    def __init__(self, *, node_id: int = 0, host: str = '', port: int = 0, rack: str | None = None, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.node_id = node_id
        self.host = host
        self.port = port
        self.rack = rack
        self.unknown_tagged_fields = unknown_tagged_fields


class FetchResponse(Message):
    """Kafka response FetchResponse (valid versions 4-18)."""

    NAME = 'FetchResponse'
    TYPE = 'response'
    API_KEY = 1
    VALID_VERSIONS = (4, 18)
    FLEXIBLE_VERSIONS = (12, 32767)
    EpochEndOffset = EpochEndOffset
    LeaderIdAndEpoch = LeaderIdAndEpoch
    SnapshotId = SnapshotId
    AbortedTransaction = AbortedTransaction
    PartitionData = PartitionData
    FetchableTopicResponse = FetchableTopicResponse
    NodeEndpoint = NodeEndpoint
    __slots__ = ('throttle_time_ms', 'error_code', 'session_id', 'responses', 'node_endpoints', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('throttle_time_ms', 'ThrottleTimeMs', 'int32', False, (1, 32767), None, None, None, None), FieldMeta('error_code', 'ErrorCode', 'int16', False, (7, 32767), None, None, None, None), FieldMeta('session_id', 'SessionId', 'int32', False, (7, 32767), None, None, None, None), FieldMeta('responses', 'Responses', 'FetchableTopicResponse', True, (0, 32767), None, None, None, FetchableTopicResponse), FieldMeta('node_endpoints', 'NodeEndpoints', 'NodeEndpoint', True, (16, 32767), None, 0, (16, 32767), NodeEndpoint))

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, session_id: int = 0, responses: list[FetchableTopicResponse] | None = _DEFAULT, node_endpoints: list[NodeEndpoint] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.session_id = session_id
        self.responses = [] if responses is _DEFAULT else responses
        self.node_endpoints = [] if node_endpoints is _DEFAULT else node_endpoints
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_AbortedTransaction_0(buf, pos):
    o = _new(AbortedTransaction)
    o.unknown_tagged_fields = None
    o.producer_id, o.first_offset = _S2.unpack_from(buf, pos)
    pos += 16
    return o, pos


def _dec_PartitionData_0(buf, pos):
    o = _new(PartitionData)
    o.log_start_offset = -1
    o.diverging_epoch = EpochEndOffset()
    o.current_leader = LeaderIdAndEpoch()
    o.snapshot_id = SnapshotId()
    o.preferred_read_replica = -1
    o.unknown_tagged_fields = None
    o.partition_index, o.error_code, o.high_watermark, o.last_stable_offset = _S1.unpack_from(buf, pos)
    pos += 22
    n, pos = read_array_length(buf, pos)
    if n < 0:
        o.aborted_transactions = None
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_AbortedTransaction_0(buf, pos)
            append(item)
        o.aborted_transactions = items
    o.records, pos = read_records(buf, pos)
    return o, pos


def _dec_FetchableTopicResponse_0(buf, pos):
    o = _new(FetchableTopicResponse)
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
            item, pos = _dec_PartitionData_0(buf, pos)
            append(item)
        o.partitions = items
    return o, pos


def _dec_FetchResponse_0(buf, pos):
    o = _new(FetchResponse)
    o.error_code = 0
    o.session_id = 0
    o.node_endpoints = []
    o.unknown_tagged_fields = None
    o.throttle_time_ms, = _S0.unpack_from(buf, pos)
    pos += 4
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Responses was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_FetchableTopicResponse_0(buf, pos)
            append(item)
        o.responses = items
    return o, pos


def _enc_AbortedTransaction_0(o, w):
    w += _S2.pack(o.producer_id, o.first_offset)


def _enc_PartitionData_0(o, w):
    w += _S1.pack(o.partition_index, o.error_code, o.high_watermark, o.last_stable_offset)
    items = o.aborted_transactions
    if items is None:
        write_array_length(w, -1)
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_AbortedTransaction_0(item, w)
    write_records(w, o.records)


def _enc_FetchableTopicResponse_0(o, w):
    if o.topic is None:
        raise EncodeError('non-nullable field Topic is None')
    write_string(w, o.topic)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_PartitionData_0(item, w)


def _enc_FetchResponse_0(o, w):
    w += _S0.pack(o.throttle_time_ms)
    items = o.responses
    if items is None:
        raise EncodeError('non-nullable array Responses is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_FetchableTopicResponse_0(item, w)


def _dec_PartitionData_1(buf, pos):
    o = _new(PartitionData)
    o.diverging_epoch = EpochEndOffset()
    o.current_leader = LeaderIdAndEpoch()
    o.snapshot_id = SnapshotId()
    o.preferred_read_replica = -1
    o.unknown_tagged_fields = None
    o.partition_index, o.error_code, o.high_watermark, o.last_stable_offset, o.log_start_offset = _S3.unpack_from(buf, pos)
    pos += 30
    n, pos = read_array_length(buf, pos)
    if n < 0:
        o.aborted_transactions = None
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_AbortedTransaction_0(buf, pos)
            append(item)
        o.aborted_transactions = items
    o.records, pos = read_records(buf, pos)
    return o, pos


def _dec_FetchableTopicResponse_1(buf, pos):
    o = _new(FetchableTopicResponse)
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
            item, pos = _dec_PartitionData_1(buf, pos)
            append(item)
        o.partitions = items
    return o, pos


def _dec_FetchResponse_1(buf, pos):
    o = _new(FetchResponse)
    o.error_code = 0
    o.session_id = 0
    o.node_endpoints = []
    o.unknown_tagged_fields = None
    o.throttle_time_ms, = _S0.unpack_from(buf, pos)
    pos += 4
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Responses was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_FetchableTopicResponse_1(buf, pos)
            append(item)
        o.responses = items
    return o, pos


def _enc_PartitionData_1(o, w):
    w += _S3.pack(o.partition_index, o.error_code, o.high_watermark, o.last_stable_offset, o.log_start_offset)
    items = o.aborted_transactions
    if items is None:
        write_array_length(w, -1)
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_AbortedTransaction_0(item, w)
    write_records(w, o.records)


def _enc_FetchableTopicResponse_1(o, w):
    if o.topic is None:
        raise EncodeError('non-nullable field Topic is None')
    write_string(w, o.topic)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_PartitionData_1(item, w)


def _enc_FetchResponse_1(o, w):
    w += _S0.pack(o.throttle_time_ms)
    items = o.responses
    if items is None:
        raise EncodeError('non-nullable array Responses is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_FetchableTopicResponse_1(item, w)


def _dec_FetchResponse_2(buf, pos):
    o = _new(FetchResponse)
    o.node_endpoints = []
    o.unknown_tagged_fields = None
    o.throttle_time_ms, o.error_code, o.session_id = _S4.unpack_from(buf, pos)
    pos += 10
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Responses was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_FetchableTopicResponse_1(buf, pos)
            append(item)
        o.responses = items
    return o, pos


def _enc_FetchResponse_2(o, w):
    w += _S4.pack(o.throttle_time_ms, o.error_code, o.session_id)
    items = o.responses
    if items is None:
        raise EncodeError('non-nullable array Responses is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_FetchableTopicResponse_1(item, w)


def _dec_PartitionData_2(buf, pos):
    o = _new(PartitionData)
    o.diverging_epoch = EpochEndOffset()
    o.current_leader = LeaderIdAndEpoch()
    o.snapshot_id = SnapshotId()
    o.unknown_tagged_fields = None
    o.partition_index, o.error_code, o.high_watermark, o.last_stable_offset, o.log_start_offset = _S3.unpack_from(buf, pos)
    pos += 30
    n, pos = read_array_length(buf, pos)
    if n < 0:
        o.aborted_transactions = None
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_AbortedTransaction_0(buf, pos)
            append(item)
        o.aborted_transactions = items
    o.preferred_read_replica, = _S0.unpack_from(buf, pos)
    pos += 4
    o.records, pos = read_records(buf, pos)
    return o, pos


def _dec_FetchableTopicResponse_2(buf, pos):
    o = _new(FetchableTopicResponse)
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
            item, pos = _dec_PartitionData_2(buf, pos)
            append(item)
        o.partitions = items
    return o, pos


def _dec_FetchResponse_3(buf, pos):
    o = _new(FetchResponse)
    o.node_endpoints = []
    o.unknown_tagged_fields = None
    o.throttle_time_ms, o.error_code, o.session_id = _S4.unpack_from(buf, pos)
    pos += 10
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Responses was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_FetchableTopicResponse_2(buf, pos)
            append(item)
        o.responses = items
    return o, pos


def _enc_PartitionData_2(o, w):
    w += _S3.pack(o.partition_index, o.error_code, o.high_watermark, o.last_stable_offset, o.log_start_offset)
    items = o.aborted_transactions
    if items is None:
        write_array_length(w, -1)
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_AbortedTransaction_0(item, w)
    w += _S0.pack(o.preferred_read_replica)
    write_records(w, o.records)


def _enc_FetchableTopicResponse_2(o, w):
    if o.topic is None:
        raise EncodeError('non-nullable field Topic is None')
    write_string(w, o.topic)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_PartitionData_2(item, w)


def _enc_FetchResponse_3(o, w):
    w += _S4.pack(o.throttle_time_ms, o.error_code, o.session_id)
    items = o.responses
    if items is None:
        raise EncodeError('non-nullable array Responses is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_FetchableTopicResponse_2(item, w)


def _dec_AbortedTransaction_1(buf, pos):
    o = _new(AbortedTransaction)
    o.producer_id, o.first_offset = _S2.unpack_from(buf, pos)
    pos += 16
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


def _dec_EpochEndOffset_0(buf, pos):
    o = _new(EpochEndOffset)
    o.epoch, o.end_offset = _S5.unpack_from(buf, pos)
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


def _dec_LeaderIdAndEpoch_0(buf, pos):
    o = _new(LeaderIdAndEpoch)
    o.leader_id, o.leader_epoch = _S6.unpack_from(buf, pos)
    pos += 8
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


def _dec_SnapshotId_0(buf, pos):
    o = _new(SnapshotId)
    o.end_offset, o.epoch = _S7.unpack_from(buf, pos)
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


def _dec_PartitionData_3(buf, pos):
    o = _new(PartitionData)
    o.diverging_epoch = EpochEndOffset()
    o.current_leader = LeaderIdAndEpoch()
    o.snapshot_id = SnapshotId()
    o.partition_index, o.error_code, o.high_watermark, o.last_stable_offset, o.log_start_offset = _S3.unpack_from(buf, pos)
    pos += 30
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        o.aborted_transactions = None
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_AbortedTransaction_1(buf, pos)
            append(item)
        o.aborted_transactions = items
    o.preferred_read_replica, = _S0.unpack_from(buf, pos)
    pos += 4
    o.records, pos = read_compact_records(buf, pos)
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
            o.diverging_epoch, pos = _dec_EpochEndOffset_0(buf, pos)
            if pos != end:
                raise DecodeError('tagged field DivergingEpoch size mismatch')
        elif tag == 1:
            start = pos
            o.current_leader, pos = _dec_LeaderIdAndEpoch_0(buf, pos)
            if pos != end:
                raise DecodeError('tagged field CurrentLeader size mismatch')
        elif tag == 2:
            start = pos
            o.snapshot_id, pos = _dec_SnapshotId_0(buf, pos)
            if pos != end:
                raise DecodeError('tagged field SnapshotId size mismatch')
        else:
            if o.unknown_tagged_fields is None:
                o.unknown_tagged_fields = []
            o.unknown_tagged_fields.append((tag, bytes(buf[pos:end])))
            pos = end
    return o, pos


def _dec_FetchableTopicResponse_3(buf, pos):
    o = _new(FetchableTopicResponse)
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
            item, pos = _dec_PartitionData_3(buf, pos)
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


def _dec_FetchResponse_4(buf, pos):
    o = _new(FetchResponse)
    o.node_endpoints = []
    o.throttle_time_ms, o.error_code, o.session_id = _S4.unpack_from(buf, pos)
    pos += 10
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Responses was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_FetchableTopicResponse_3(buf, pos)
            append(item)
        o.responses = items
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


def _enc_AbortedTransaction_1(o, w):
    w += _S2.pack(o.producer_id, o.first_offset)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_EpochEndOffset_0(o, w):
    w += _S5.pack(o.epoch, o.end_offset)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_LeaderIdAndEpoch_0(o, w):
    w += _S6.pack(o.leader_id, o.leader_epoch)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_SnapshotId_0(o, w):
    w += _S7.pack(o.end_offset, o.epoch)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_PartitionData_3(o, w):
    w += _S3.pack(o.partition_index, o.error_code, o.high_watermark, o.last_stable_offset, o.log_start_offset)
    items = o.aborted_transactions
    if items is None:
        write_compact_array_length(w, -1)
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_AbortedTransaction_1(item, w)
    w += _S0.pack(o.preferred_read_replica)
    write_compact_records(w, o.records)
    tags = []
    if o.diverging_epoch != EpochEndOffset():
        t = bytearray()
        _enc_EpochEndOffset_0(o.diverging_epoch, t)
        tags.append((0, t))
    if o.current_leader != LeaderIdAndEpoch():
        t = bytearray()
        _enc_LeaderIdAndEpoch_0(o.current_leader, t)
        tags.append((1, t))
    if o.snapshot_id != SnapshotId():
        t = bytearray()
        _enc_SnapshotId_0(o.snapshot_id, t)
        tags.append((2, t))
    if o.unknown_tagged_fields:
        tags.extend(o.unknown_tagged_fields)
    write_tagged_fields(w, tags)


def _enc_FetchableTopicResponse_3(o, w):
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
            _enc_PartitionData_3(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_FetchResponse_4(o, w):
    w += _S4.pack(o.throttle_time_ms, o.error_code, o.session_id)
    items = o.responses
    if items is None:
        raise EncodeError('non-nullable array Responses is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_FetchableTopicResponse_3(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_FetchableTopicResponse_4(buf, pos):
    o = _new(FetchableTopicResponse)
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
            item, pos = _dec_PartitionData_3(buf, pos)
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


def _dec_FetchResponse_5(buf, pos):
    o = _new(FetchResponse)
    o.node_endpoints = []
    o.throttle_time_ms, o.error_code, o.session_id = _S4.unpack_from(buf, pos)
    pos += 10
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Responses was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_FetchableTopicResponse_4(buf, pos)
            append(item)
        o.responses = items
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


def _enc_FetchableTopicResponse_4(o, w):
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
            _enc_PartitionData_3(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_FetchResponse_5(o, w):
    w += _S4.pack(o.throttle_time_ms, o.error_code, o.session_id)
    items = o.responses
    if items is None:
        raise EncodeError('non-nullable array Responses is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_FetchableTopicResponse_4(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_NodeEndpoint_0(buf, pos):
    o = _new(NodeEndpoint)
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


def _dec_FetchResponse_6(buf, pos):
    o = _new(FetchResponse)
    o.node_endpoints = []
    o.throttle_time_ms, o.error_code, o.session_id = _S4.unpack_from(buf, pos)
    pos += 10
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Responses was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_FetchableTopicResponse_4(buf, pos)
            append(item)
        o.responses = items
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
            n = buf[pos] - 1
            if n < 0x7F:
                pos += 1
            else:
                n, pos = read_compact_array_length(buf, pos)
            if n < 0:
                raise DecodeError('non-nullable array NodeEndpoints was null')
            else:
                items = []
                append = items.append
                for _ in range(n):
                    item, pos = _dec_NodeEndpoint_0(buf, pos)
                    append(item)
                o.node_endpoints = items
            if pos != end:
                raise DecodeError('tagged field NodeEndpoints size mismatch')
        else:
            if o.unknown_tagged_fields is None:
                o.unknown_tagged_fields = []
            o.unknown_tagged_fields.append((tag, bytes(buf[pos:end])))
            pos = end
    return o, pos


def _enc_NodeEndpoint_0(o, w):
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


def _enc_FetchResponse_6(o, w):
    w += _S4.pack(o.throttle_time_ms, o.error_code, o.session_id)
    items = o.responses
    if items is None:
        raise EncodeError('non-nullable array Responses is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_FetchableTopicResponse_4(item, w)
    tags = []
    if o.node_endpoints:
        t = bytearray()
        items = o.node_endpoints
        if items is None:
            raise EncodeError('non-nullable array NodeEndpoints is None')
        else:
            n = len(items) + 1
            if n < 0x80:
                t.append(n)
            else:
                write_uvarint(t, n)
            for item in items:
                _enc_NodeEndpoint_0(item, t)
        tags.append((0, t))
    if o.unknown_tagged_fields:
        tags.extend(o.unknown_tagged_fields)
    write_tagged_fields(w, tags)


FetchResponse._DECODERS = {4: _dec_FetchResponse_0, 5: _dec_FetchResponse_1, 6: _dec_FetchResponse_1, 7: _dec_FetchResponse_2, 8: _dec_FetchResponse_2, 9: _dec_FetchResponse_2, 10: _dec_FetchResponse_2, 11: _dec_FetchResponse_3, 12: _dec_FetchResponse_4, 13: _dec_FetchResponse_5, 14: _dec_FetchResponse_5, 15: _dec_FetchResponse_5, 16: _dec_FetchResponse_6, 17: _dec_FetchResponse_6, 18: _dec_FetchResponse_6}
FetchResponse._ENCODERS = {4: _enc_FetchResponse_0, 5: _enc_FetchResponse_1, 6: _enc_FetchResponse_1, 7: _enc_FetchResponse_2, 8: _enc_FetchResponse_2, 9: _enc_FetchResponse_2, 10: _enc_FetchResponse_2, 11: _enc_FetchResponse_3, 12: _enc_FetchResponse_4, 13: _enc_FetchResponse_5, 14: _enc_FetchResponse_5, 15: _enc_FetchResponse_5, 16: _enc_FetchResponse_6, 17: _enc_FetchResponse_6, 18: _enc_FetchResponse_6}
