"""ProduceResponse: generated from Kafka's ProduceResponse.json by tools/generate_protocol.py.

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
_S0 = struct.Struct('>ihqq')
_S1 = struct.Struct('>i')
_S2 = struct.Struct('>ihqqq')
_S3 = struct.Struct('>ii')


class BatchIndexAndErrorMessage(Struct):
    __slots__ = ('batch_index', 'batch_index_error_message', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('batch_index', 'BatchIndex', 'int32', False, (8, 32767), None, None, None, None), FieldMeta('batch_index_error_message', 'BatchIndexErrorMessage', 'string', False, (8, 32767), (8, 32767), None, None, None))

    def __init__(self, *, batch_index: int = 0, batch_index_error_message: str | None = None, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.batch_index = batch_index
        self.batch_index_error_message = batch_index_error_message
        self.unknown_tagged_fields = unknown_tagged_fields


class LeaderIdAndEpoch(Struct):
    __slots__ = ('leader_id', 'leader_epoch', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('leader_id', 'LeaderId', 'int32', False, (10, 32767), None, None, None, None), FieldMeta('leader_epoch', 'LeaderEpoch', 'int32', False, (10, 32767), None, None, None, None))

    def __init__(self, *, leader_id: int = -1, leader_epoch: int = -1, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.leader_id = leader_id
        self.leader_epoch = leader_epoch
        self.unknown_tagged_fields = unknown_tagged_fields


class PartitionProduceResponse(Struct):
    __slots__ = ('index', 'error_code', 'base_offset', 'log_append_time_ms', 'log_start_offset', 'record_errors', 'error_message', 'current_leader', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('index', 'Index', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('base_offset', 'BaseOffset', 'int64', False, (0, 32767), None, None, None, None), FieldMeta('log_append_time_ms', 'LogAppendTimeMs', 'int64', False, (2, 32767), None, None, None, None), FieldMeta('log_start_offset', 'LogStartOffset', 'int64', False, (5, 32767), None, None, None, None), FieldMeta('record_errors', 'RecordErrors', 'BatchIndexAndErrorMessage', True, (8, 32767), None, None, None, BatchIndexAndErrorMessage), FieldMeta('error_message', 'ErrorMessage', 'string', False, (8, 32767), (8, 32767), None, None, None), FieldMeta('current_leader', 'CurrentLeader', 'LeaderIdAndEpoch', False, (10, 32767), None, 0, (10, 32767), LeaderIdAndEpoch))

    def __init__(self, *, index: int = 0, error_code: int = 0, base_offset: int = 0, log_append_time_ms: int = -1, log_start_offset: int = -1, record_errors: list[BatchIndexAndErrorMessage] | None = _DEFAULT, error_message: str | None = None, current_leader: LeaderIdAndEpoch | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.index = index
        self.error_code = error_code
        self.base_offset = base_offset
        self.log_append_time_ms = log_append_time_ms
        self.log_start_offset = log_start_offset
        self.record_errors = [] if record_errors is _DEFAULT else record_errors
        self.error_message = error_message
        self.current_leader = LeaderIdAndEpoch() if current_leader is _DEFAULT else current_leader
        self.unknown_tagged_fields = unknown_tagged_fields


class TopicProduceResponse(Struct):
    __slots__ = ('name', 'topic_id', 'partition_responses', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (0, 12), None, None, None, None), FieldMeta('topic_id', 'TopicId', 'uuid', False, (13, 32767), None, None, None, None), FieldMeta('partition_responses', 'PartitionResponses', 'PartitionProduceResponse', True, (0, 32767), None, None, None, PartitionProduceResponse))

    def __init__(self, *, name: str = '', topic_id: uuid.UUID = ZERO_UUID, partition_responses: list[PartitionProduceResponse] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.topic_id = topic_id
        self.partition_responses = [] if partition_responses is _DEFAULT else partition_responses
        self.unknown_tagged_fields = unknown_tagged_fields


class NodeEndpoint(Struct):
    __slots__ = ('node_id', 'host', 'port', 'rack', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('node_id', 'NodeId', 'int32', False, (10, 32767), None, None, None, None), FieldMeta('host', 'Host', 'string', False, (10, 32767), None, None, None, None), FieldMeta('port', 'Port', 'int32', False, (10, 32767), None, None, None, None), FieldMeta('rack', 'Rack', 'string', False, (10, 32767), (10, 32767), None, None, None))

    def __init__(self, *, node_id: int = 0, host: str = '', port: int = 0, rack: str | None = None, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.node_id = node_id
        self.host = host
        self.port = port
        self.rack = rack
        self.unknown_tagged_fields = unknown_tagged_fields


class ProduceResponse(Message):
    """Kafka response ProduceResponse (valid versions 3-13)."""

    NAME = 'ProduceResponse'
    TYPE = 'response'
    API_KEY = 0
    VALID_VERSIONS = (3, 13)
    FLEXIBLE_VERSIONS = (9, 32767)
    BatchIndexAndErrorMessage = BatchIndexAndErrorMessage
    LeaderIdAndEpoch = LeaderIdAndEpoch
    PartitionProduceResponse = PartitionProduceResponse
    TopicProduceResponse = TopicProduceResponse
    NodeEndpoint = NodeEndpoint
    __slots__ = ('responses', 'throttle_time_ms', 'node_endpoints', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('responses', 'Responses', 'TopicProduceResponse', True, (0, 32767), None, None, None, TopicProduceResponse), FieldMeta('throttle_time_ms', 'ThrottleTimeMs', 'int32', False, (1, 32767), None, None, None, None), FieldMeta('node_endpoints', 'NodeEndpoints', 'NodeEndpoint', True, (10, 32767), None, 0, (10, 32767), NodeEndpoint))

    def __init__(self, *, responses: list[TopicProduceResponse] | None = _DEFAULT, throttle_time_ms: int = 0, node_endpoints: list[NodeEndpoint] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.responses = [] if responses is _DEFAULT else responses
        self.throttle_time_ms = throttle_time_ms
        self.node_endpoints = [] if node_endpoints is _DEFAULT else node_endpoints
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_PartitionProduceResponse_0(buf, pos):
    o = _new(PartitionProduceResponse)
    o.log_start_offset = -1
    o.record_errors = []
    o.error_message = None
    o.current_leader = LeaderIdAndEpoch()
    o.unknown_tagged_fields = None
    o.index, o.error_code, o.base_offset, o.log_append_time_ms = _S0.unpack_from(buf, pos)
    pos += 22
    return o, pos


def _dec_TopicProduceResponse_0(buf, pos):
    o = _new(TopicProduceResponse)
    o.topic_id = ZERO_UUID
    o.unknown_tagged_fields = None
    o.name, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array PartitionResponses was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_PartitionProduceResponse_0(buf, pos)
            append(item)
        o.partition_responses = items
    return o, pos


def _dec_ProduceResponse_0(buf, pos):
    o = _new(ProduceResponse)
    o.node_endpoints = []
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Responses was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_TopicProduceResponse_0(buf, pos)
            append(item)
        o.responses = items
    o.throttle_time_ms, = _S1.unpack_from(buf, pos)
    pos += 4
    return o, pos


def _enc_PartitionProduceResponse_0(o, w):
    w += _S0.pack(o.index, o.error_code, o.base_offset, o.log_append_time_ms)


def _enc_TopicProduceResponse_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    items = o.partition_responses
    if items is None:
        raise EncodeError('non-nullable array PartitionResponses is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_PartitionProduceResponse_0(item, w)


def _enc_ProduceResponse_0(o, w):
    items = o.responses
    if items is None:
        raise EncodeError('non-nullable array Responses is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_TopicProduceResponse_0(item, w)
    w += _S1.pack(o.throttle_time_ms)


def _dec_PartitionProduceResponse_1(buf, pos):
    o = _new(PartitionProduceResponse)
    o.record_errors = []
    o.error_message = None
    o.current_leader = LeaderIdAndEpoch()
    o.unknown_tagged_fields = None
    o.index, o.error_code, o.base_offset, o.log_append_time_ms, o.log_start_offset = _S2.unpack_from(buf, pos)
    pos += 30
    return o, pos


def _dec_TopicProduceResponse_1(buf, pos):
    o = _new(TopicProduceResponse)
    o.topic_id = ZERO_UUID
    o.unknown_tagged_fields = None
    o.name, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array PartitionResponses was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_PartitionProduceResponse_1(buf, pos)
            append(item)
        o.partition_responses = items
    return o, pos


def _dec_ProduceResponse_1(buf, pos):
    o = _new(ProduceResponse)
    o.node_endpoints = []
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Responses was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_TopicProduceResponse_1(buf, pos)
            append(item)
        o.responses = items
    o.throttle_time_ms, = _S1.unpack_from(buf, pos)
    pos += 4
    return o, pos


def _enc_PartitionProduceResponse_1(o, w):
    w += _S2.pack(o.index, o.error_code, o.base_offset, o.log_append_time_ms, o.log_start_offset)


def _enc_TopicProduceResponse_1(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    items = o.partition_responses
    if items is None:
        raise EncodeError('non-nullable array PartitionResponses is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_PartitionProduceResponse_1(item, w)


def _enc_ProduceResponse_1(o, w):
    items = o.responses
    if items is None:
        raise EncodeError('non-nullable array Responses is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_TopicProduceResponse_1(item, w)
    w += _S1.pack(o.throttle_time_ms)


def _dec_BatchIndexAndErrorMessage_0(buf, pos):
    o = _new(BatchIndexAndErrorMessage)
    o.unknown_tagged_fields = None
    o.batch_index, = _S1.unpack_from(buf, pos)
    pos += 4
    o.batch_index_error_message, pos = read_nullable_string(buf, pos)
    return o, pos


def _dec_PartitionProduceResponse_2(buf, pos):
    o = _new(PartitionProduceResponse)
    o.current_leader = LeaderIdAndEpoch()
    o.unknown_tagged_fields = None
    o.index, o.error_code, o.base_offset, o.log_append_time_ms, o.log_start_offset = _S2.unpack_from(buf, pos)
    pos += 30
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array RecordErrors was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_BatchIndexAndErrorMessage_0(buf, pos)
            append(item)
        o.record_errors = items
    o.error_message, pos = read_nullable_string(buf, pos)
    return o, pos


def _dec_TopicProduceResponse_2(buf, pos):
    o = _new(TopicProduceResponse)
    o.topic_id = ZERO_UUID
    o.unknown_tagged_fields = None
    o.name, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array PartitionResponses was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_PartitionProduceResponse_2(buf, pos)
            append(item)
        o.partition_responses = items
    return o, pos


def _dec_ProduceResponse_2(buf, pos):
    o = _new(ProduceResponse)
    o.node_endpoints = []
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Responses was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_TopicProduceResponse_2(buf, pos)
            append(item)
        o.responses = items
    o.throttle_time_ms, = _S1.unpack_from(buf, pos)
    pos += 4
    return o, pos


def _enc_BatchIndexAndErrorMessage_0(o, w):
    w += _S1.pack(o.batch_index)
    write_nullable_string(w, o.batch_index_error_message)


def _enc_PartitionProduceResponse_2(o, w):
    w += _S2.pack(o.index, o.error_code, o.base_offset, o.log_append_time_ms, o.log_start_offset)
    items = o.record_errors
    if items is None:
        raise EncodeError('non-nullable array RecordErrors is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_BatchIndexAndErrorMessage_0(item, w)
    write_nullable_string(w, o.error_message)


def _enc_TopicProduceResponse_2(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    items = o.partition_responses
    if items is None:
        raise EncodeError('non-nullable array PartitionResponses is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_PartitionProduceResponse_2(item, w)


def _enc_ProduceResponse_2(o, w):
    items = o.responses
    if items is None:
        raise EncodeError('non-nullable array Responses is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_TopicProduceResponse_2(item, w)
    w += _S1.pack(o.throttle_time_ms)


def _dec_BatchIndexAndErrorMessage_1(buf, pos):
    o = _new(BatchIndexAndErrorMessage)
    o.batch_index, = _S1.unpack_from(buf, pos)
    pos += 4
    o.batch_index_error_message, pos = read_compact_nullable_string(buf, pos)
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


def _dec_PartitionProduceResponse_3(buf, pos):
    o = _new(PartitionProduceResponse)
    o.current_leader = LeaderIdAndEpoch()
    o.index, o.error_code, o.base_offset, o.log_append_time_ms, o.log_start_offset = _S2.unpack_from(buf, pos)
    pos += 30
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array RecordErrors was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_BatchIndexAndErrorMessage_1(buf, pos)
            append(item)
        o.record_errors = items
    o.error_message, pos = read_compact_nullable_string(buf, pos)
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


def _dec_TopicProduceResponse_3(buf, pos):
    o = _new(TopicProduceResponse)
    o.topic_id = ZERO_UUID
    o.name, pos = read_compact_string(buf, pos)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array PartitionResponses was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_PartitionProduceResponse_3(buf, pos)
            append(item)
        o.partition_responses = items
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


def _dec_ProduceResponse_3(buf, pos):
    o = _new(ProduceResponse)
    o.node_endpoints = []
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
            item, pos = _dec_TopicProduceResponse_3(buf, pos)
            append(item)
        o.responses = items
    o.throttle_time_ms, = _S1.unpack_from(buf, pos)
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


def _enc_BatchIndexAndErrorMessage_1(o, w):
    w += _S1.pack(o.batch_index)
    write_compact_nullable_string(w, o.batch_index_error_message)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_PartitionProduceResponse_3(o, w):
    w += _S2.pack(o.index, o.error_code, o.base_offset, o.log_append_time_ms, o.log_start_offset)
    items = o.record_errors
    if items is None:
        raise EncodeError('non-nullable array RecordErrors is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_BatchIndexAndErrorMessage_1(item, w)
    write_compact_nullable_string(w, o.error_message)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_TopicProduceResponse_3(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_compact_string(w, o.name)
    items = o.partition_responses
    if items is None:
        raise EncodeError('non-nullable array PartitionResponses is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_PartitionProduceResponse_3(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_ProduceResponse_3(o, w):
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
            _enc_TopicProduceResponse_3(item, w)
    w += _S1.pack(o.throttle_time_ms)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_LeaderIdAndEpoch_0(buf, pos):
    o = _new(LeaderIdAndEpoch)
    o.leader_id, o.leader_epoch = _S3.unpack_from(buf, pos)
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


def _dec_PartitionProduceResponse_4(buf, pos):
    o = _new(PartitionProduceResponse)
    o.current_leader = LeaderIdAndEpoch()
    o.index, o.error_code, o.base_offset, o.log_append_time_ms, o.log_start_offset = _S2.unpack_from(buf, pos)
    pos += 30
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array RecordErrors was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_BatchIndexAndErrorMessage_1(buf, pos)
            append(item)
        o.record_errors = items
    o.error_message, pos = read_compact_nullable_string(buf, pos)
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
            o.current_leader, pos = _dec_LeaderIdAndEpoch_0(buf, pos)
            if pos != end:
                raise DecodeError('tagged field CurrentLeader size mismatch')
        else:
            if o.unknown_tagged_fields is None:
                o.unknown_tagged_fields = []
            o.unknown_tagged_fields.append((tag, bytes(buf[pos:end])))
            pos = end
    return o, pos


def _dec_TopicProduceResponse_4(buf, pos):
    o = _new(TopicProduceResponse)
    o.topic_id = ZERO_UUID
    o.name, pos = read_compact_string(buf, pos)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array PartitionResponses was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_PartitionProduceResponse_4(buf, pos)
            append(item)
        o.partition_responses = items
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


def _dec_NodeEndpoint_0(buf, pos):
    o = _new(NodeEndpoint)
    o.node_id, = _S1.unpack_from(buf, pos)
    pos += 4
    o.host, pos = read_compact_string(buf, pos)
    o.port, = _S1.unpack_from(buf, pos)
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


def _dec_ProduceResponse_4(buf, pos):
    o = _new(ProduceResponse)
    o.node_endpoints = []
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
            item, pos = _dec_TopicProduceResponse_4(buf, pos)
            append(item)
        o.responses = items
    o.throttle_time_ms, = _S1.unpack_from(buf, pos)
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


def _enc_LeaderIdAndEpoch_0(o, w):
    w += _S3.pack(o.leader_id, o.leader_epoch)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_PartitionProduceResponse_4(o, w):
    w += _S2.pack(o.index, o.error_code, o.base_offset, o.log_append_time_ms, o.log_start_offset)
    items = o.record_errors
    if items is None:
        raise EncodeError('non-nullable array RecordErrors is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_BatchIndexAndErrorMessage_1(item, w)
    write_compact_nullable_string(w, o.error_message)
    tags = []
    if o.current_leader != LeaderIdAndEpoch():
        t = bytearray()
        _enc_LeaderIdAndEpoch_0(o.current_leader, t)
        tags.append((0, t))
    if o.unknown_tagged_fields:
        tags.extend(o.unknown_tagged_fields)
    write_tagged_fields(w, tags)


def _enc_TopicProduceResponse_4(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_compact_string(w, o.name)
    items = o.partition_responses
    if items is None:
        raise EncodeError('non-nullable array PartitionResponses is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_PartitionProduceResponse_4(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_NodeEndpoint_0(o, w):
    w += _S1.pack(o.node_id)
    if o.host is None:
        raise EncodeError('non-nullable field Host is None')
    write_compact_string(w, o.host)
    w += _S1.pack(o.port)
    write_compact_nullable_string(w, o.rack)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_ProduceResponse_4(o, w):
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
            _enc_TopicProduceResponse_4(item, w)
    w += _S1.pack(o.throttle_time_ms)
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


def _dec_TopicProduceResponse_5(buf, pos):
    o = _new(TopicProduceResponse)
    o.name = ''
    o.topic_id, pos = read_uuid(buf, pos)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array PartitionResponses was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_PartitionProduceResponse_4(buf, pos)
            append(item)
        o.partition_responses = items
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


def _dec_ProduceResponse_5(buf, pos):
    o = _new(ProduceResponse)
    o.node_endpoints = []
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
            item, pos = _dec_TopicProduceResponse_5(buf, pos)
            append(item)
        o.responses = items
    o.throttle_time_ms, = _S1.unpack_from(buf, pos)
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


def _enc_TopicProduceResponse_5(o, w):
    write_uuid(w, o.topic_id)
    items = o.partition_responses
    if items is None:
        raise EncodeError('non-nullable array PartitionResponses is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_PartitionProduceResponse_4(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_ProduceResponse_5(o, w):
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
            _enc_TopicProduceResponse_5(item, w)
    w += _S1.pack(o.throttle_time_ms)
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


ProduceResponse._DECODERS = {3: _dec_ProduceResponse_0, 4: _dec_ProduceResponse_0, 5: _dec_ProduceResponse_1, 6: _dec_ProduceResponse_1, 7: _dec_ProduceResponse_1, 8: _dec_ProduceResponse_2, 9: _dec_ProduceResponse_3, 10: _dec_ProduceResponse_4, 11: _dec_ProduceResponse_4, 12: _dec_ProduceResponse_4, 13: _dec_ProduceResponse_5}
ProduceResponse._ENCODERS = {3: _enc_ProduceResponse_0, 4: _enc_ProduceResponse_0, 5: _enc_ProduceResponse_1, 6: _enc_ProduceResponse_1, 7: _enc_ProduceResponse_1, 8: _enc_ProduceResponse_2, 9: _enc_ProduceResponse_3, 10: _enc_ProduceResponse_4, 11: _enc_ProduceResponse_4, 12: _enc_ProduceResponse_4, 13: _enc_ProduceResponse_5}
