"""CreateTopicsRequest: generated from Kafka's CreateTopicsRequest.json by tools/generate_protocol.py.

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
_S0 = struct.Struct('>ih')
_S1 = struct.Struct('>i')
_S2 = struct.Struct('>i?')


class CreatableReplicaAssignment(Struct):
    __slots__ = ('partition_index', 'broker_ids', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('partition_index', 'PartitionIndex', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('broker_ids', 'BrokerIds', 'int32', True, (0, 32767), None, None, None, None))

    def __init__(self, *, partition_index: int = 0, broker_ids: list[int] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.partition_index = partition_index
        self.broker_ids = [] if broker_ids is _DEFAULT else broker_ids
        self.unknown_tagged_fields = unknown_tagged_fields


class CreatableTopicConfig(Struct):
    __slots__ = ('name', 'value', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (0, 32767), None, None, None, None), FieldMeta('value', 'Value', 'string', False, (0, 32767), (0, 32767), None, None, None))

    def __init__(self, *, name: str = '', value: str | None = '', unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.value = value
        self.unknown_tagged_fields = unknown_tagged_fields


class CreatableTopic(Struct):
    __slots__ = ('name', 'num_partitions', 'replication_factor', 'assignments', 'configs', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (0, 32767), None, None, None, None), FieldMeta('num_partitions', 'NumPartitions', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('replication_factor', 'ReplicationFactor', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('assignments', 'Assignments', 'CreatableReplicaAssignment', True, (0, 32767), None, None, None, CreatableReplicaAssignment), FieldMeta('configs', 'Configs', 'CreatableTopicConfig', True, (0, 32767), None, None, None, CreatableTopicConfig))

    def __init__(self, *, name: str = '', num_partitions: int = 0, replication_factor: int = 0, assignments: list[CreatableReplicaAssignment] | None = _DEFAULT, configs: list[CreatableTopicConfig] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.num_partitions = num_partitions
        self.replication_factor = replication_factor
        self.assignments = [] if assignments is _DEFAULT else assignments
        self.configs = [] if configs is _DEFAULT else configs
        self.unknown_tagged_fields = unknown_tagged_fields


class CreateTopicsRequest(Message):
    """Kafka request CreateTopicsRequest (valid versions 2-7)."""

    NAME = 'CreateTopicsRequest'
    TYPE = 'request'
    API_KEY = 19
    VALID_VERSIONS = (2, 7)
    FLEXIBLE_VERSIONS = (5, 32767)
    CreatableReplicaAssignment = CreatableReplicaAssignment
    CreatableTopicConfig = CreatableTopicConfig
    CreatableTopic = CreatableTopic
    __slots__ = ('topics', 'timeout_ms', 'validate_only', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('topics', 'Topics', 'CreatableTopic', True, (0, 32767), None, None, None, CreatableTopic), FieldMeta('timeout_ms', 'timeoutMs', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('validate_only', 'validateOnly', 'bool', False, (1, 32767), None, None, None, None))

    def __init__(self, *, topics: list[CreatableTopic] | None = _DEFAULT, timeout_ms: int = 60000, validate_only: bool = False, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.topics = [] if topics is _DEFAULT else topics
        self.timeout_ms = timeout_ms
        self.validate_only = validate_only
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_CreatableReplicaAssignment_0(buf, pos):
    o = _new(CreatableReplicaAssignment)
    o.unknown_tagged_fields = None
    o.partition_index, = _S1.unpack_from(buf, pos)
    pos += 4
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array BrokerIds was null')
    else:
        end = pos + n * 4
        if end > len(buf):
            raise DecodeError('truncated array BrokerIds')
        o.broker_ids = list(_unpack_from('>%di' % n, buf, pos))
        pos = end
    return o, pos


def _dec_CreatableTopicConfig_0(buf, pos):
    o = _new(CreatableTopicConfig)
    o.unknown_tagged_fields = None
    o.name, pos = read_string(buf, pos)
    o.value, pos = read_nullable_string(buf, pos)
    return o, pos


def _dec_CreatableTopic_0(buf, pos):
    o = _new(CreatableTopic)
    o.unknown_tagged_fields = None
    o.name, pos = read_string(buf, pos)
    o.num_partitions, o.replication_factor = _S0.unpack_from(buf, pos)
    pos += 6
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Assignments was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_CreatableReplicaAssignment_0(buf, pos)
            append(item)
        o.assignments = items
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Configs was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_CreatableTopicConfig_0(buf, pos)
            append(item)
        o.configs = items
    return o, pos


def _dec_CreateTopicsRequest_0(buf, pos):
    o = _new(CreateTopicsRequest)
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_CreatableTopic_0(buf, pos)
            append(item)
        o.topics = items
    o.timeout_ms, o.validate_only = _S2.unpack_from(buf, pos)
    pos += 5
    return o, pos


def _enc_CreatableReplicaAssignment_0(o, w):
    w += _S1.pack(o.partition_index)
    items = o.broker_ids
    if items is None:
        raise EncodeError('non-nullable array BrokerIds is None')
    else:
        write_array_length(w, len(items))
        w += _pack('>%di' % len(items), *items)


def _enc_CreatableTopicConfig_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    write_nullable_string(w, o.value)


def _enc_CreatableTopic_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    w += _S0.pack(o.num_partitions, o.replication_factor)
    items = o.assignments
    if items is None:
        raise EncodeError('non-nullable array Assignments is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_CreatableReplicaAssignment_0(item, w)
    items = o.configs
    if items is None:
        raise EncodeError('non-nullable array Configs is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_CreatableTopicConfig_0(item, w)


def _enc_CreateTopicsRequest_0(o, w):
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_CreatableTopic_0(item, w)
    w += _S2.pack(o.timeout_ms, o.validate_only)


def _dec_CreatableReplicaAssignment_1(buf, pos):
    o = _new(CreatableReplicaAssignment)
    o.partition_index, = _S1.unpack_from(buf, pos)
    pos += 4
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array BrokerIds was null')
    else:
        end = pos + n * 4
        if end > len(buf):
            raise DecodeError('truncated array BrokerIds')
        o.broker_ids = list(_unpack_from('>%di' % n, buf, pos))
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


def _dec_CreatableTopicConfig_1(buf, pos):
    o = _new(CreatableTopicConfig)
    o.name, pos = read_compact_string(buf, pos)
    o.value, pos = read_compact_nullable_string(buf, pos)
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


def _dec_CreatableTopic_1(buf, pos):
    o = _new(CreatableTopic)
    o.name, pos = read_compact_string(buf, pos)
    o.num_partitions, o.replication_factor = _S0.unpack_from(buf, pos)
    pos += 6
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Assignments was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_CreatableReplicaAssignment_1(buf, pos)
            append(item)
        o.assignments = items
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Configs was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_CreatableTopicConfig_1(buf, pos)
            append(item)
        o.configs = items
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


def _dec_CreateTopicsRequest_1(buf, pos):
    o = _new(CreateTopicsRequest)
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
            item, pos = _dec_CreatableTopic_1(buf, pos)
            append(item)
        o.topics = items
    o.timeout_ms, o.validate_only = _S2.unpack_from(buf, pos)
    pos += 5
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


def _enc_CreatableReplicaAssignment_1(o, w):
    w += _S1.pack(o.partition_index)
    items = o.broker_ids
    if items is None:
        raise EncodeError('non-nullable array BrokerIds is None')
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


def _enc_CreatableTopicConfig_1(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_compact_string(w, o.name)
    write_compact_nullable_string(w, o.value)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_CreatableTopic_1(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_compact_string(w, o.name)
    w += _S0.pack(o.num_partitions, o.replication_factor)
    items = o.assignments
    if items is None:
        raise EncodeError('non-nullable array Assignments is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_CreatableReplicaAssignment_1(item, w)
    items = o.configs
    if items is None:
        raise EncodeError('non-nullable array Configs is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_CreatableTopicConfig_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_CreateTopicsRequest_1(o, w):
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
            _enc_CreatableTopic_1(item, w)
    w += _S2.pack(o.timeout_ms, o.validate_only)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


CreateTopicsRequest._DECODERS = {2: _dec_CreateTopicsRequest_0, 3: _dec_CreateTopicsRequest_0, 4: _dec_CreateTopicsRequest_0, 5: _dec_CreateTopicsRequest_1, 6: _dec_CreateTopicsRequest_1, 7: _dec_CreateTopicsRequest_1}
CreateTopicsRequest._ENCODERS = {2: _enc_CreateTopicsRequest_0, 3: _enc_CreateTopicsRequest_0, 4: _enc_CreateTopicsRequest_0, 5: _enc_CreateTopicsRequest_1, 6: _enc_CreateTopicsRequest_1, 7: _enc_CreateTopicsRequest_1}
