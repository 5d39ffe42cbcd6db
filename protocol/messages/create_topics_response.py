"""CreateTopicsResponse: generated from Kafka's CreateTopicsResponse.json by tools/generate_protocol.py.

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
_S2 = struct.Struct('>ih')
_S3 = struct.Struct('>?b?')


class CreatableTopicConfigs(Struct):
    __slots__ = ('name', 'value', 'read_only', 'config_source', 'is_sensitive', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (5, 32767), None, None, None, None), FieldMeta('value', 'Value', 'string', False, (5, 32767), (5, 32767), None, None, None), FieldMeta('read_only', 'ReadOnly', 'bool', False, (5, 32767), None, None, None, None), FieldMeta('config_source', 'ConfigSource', 'int8', False, (5, 32767), None, None, None, None), FieldMeta('is_sensitive', 'IsSensitive', 'bool', False, (5, 32767), None, None, None, None))

    def __init__(self, *, name: str = '', value: str | None = '', read_only: bool = False, config_source: int = -1, is_sensitive: bool = False, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.value = value
        self.read_only = read_only
        self.config_source = config_source
        self.is_sensitive = is_sensitive
        self.unknown_tagged_fields = unknown_tagged_fields


class CreatableTopicResult(Struct):
    __slots__ = ('name', 'topic_id', 'error_code', 'error_message', 'topic_config_error_code', 'num_partitions', 'replication_factor', 'configs', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (0, 32767), None, None, None, None), FieldMeta('topic_id', 'TopicId', 'uuid', False, (7, 32767), None, None, None, None), FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('error_message', 'ErrorMessage', 'string', False, (1, 32767), (0, 32767), None, None, None), FieldMeta('topic_config_error_code', 'TopicConfigErrorCode', 'int16', False, (5, 32767), None, 0, (5, 32767), None), FieldMeta('num_partitions', 'NumPartitions', 'int32', False, (5, 32767), None, None, None, None), FieldMeta('replication_factor', 'ReplicationFactor', 'int16', False, (5, 32767), None, None, None, None), FieldMeta('configs', 'Configs', 'CreatableTopicConfigs', True, (5, 32767), (5, 32767), None, None, CreatableTopicConfigs))

    def __init__(self, *, name: str = '', topic_id: uuid.UUID = ZERO_UUID, error_code: int = 0, error_message: str | None = '', topic_config_error_code: int = 0, num_partitions: int = -1, replication_factor: int = -1, configs: list[CreatableTopicConfigs] | None | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.topic_id = topic_id
        self.error_code = error_code
        self.error_message = error_message
        self.topic_config_error_code = topic_config_error_code
        self.num_partitions = num_partitions
        self.replication_factor = replication_factor
        self.configs = [] if configs is _DEFAULT else configs
        self.unknown_tagged_fields = unknown_tagged_fields


class CreateTopicsResponse(Message):
    """Kafka response CreateTopicsResponse (valid versions 2-7)."""

    NAME = 'CreateTopicsResponse'
    TYPE = 'response'
    API_KEY = 19
    VALID_VERSIONS = (2, 7)
    FLEXIBLE_VERSIONS = (5, 32767)
    CreatableTopicConfigs = CreatableTopicConfigs
    CreatableTopicResult = CreatableTopicResult
    __slots__ = ('throttle_time_ms', 'topics', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('throttle_time_ms', 'ThrottleTimeMs', 'int32', False, (2, 32767), None, None, None, None), FieldMeta('topics', 'Topics', 'CreatableTopicResult', True, (0, 32767), None, None, None, CreatableTopicResult))

    def __init__(self, *, throttle_time_ms: int = 0, topics: list[CreatableTopicResult] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.topics = [] if topics is _DEFAULT else topics
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_CreatableTopicResult_0(buf, pos):
    o = _new(CreatableTopicResult)
    o.topic_id = ZERO_UUID
    o.topic_config_error_code = 0
    o.num_partitions = -1
    o.replication_factor = -1
    o.configs = []
    o.unknown_tagged_fields = None
    o.name, pos = read_string(buf, pos)
    o.error_code, = _S1.unpack_from(buf, pos)
    pos += 2
    o.error_message, pos = read_nullable_string(buf, pos)
    return o, pos


def _dec_CreateTopicsResponse_0(buf, pos):
    o = _new(CreateTopicsResponse)
    o.unknown_tagged_fields = None
    o.throttle_time_ms, = _S0.unpack_from(buf, pos)
    pos += 4
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_CreatableTopicResult_0(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _enc_CreatableTopicResult_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    w += _S1.pack(o.error_code)
    write_nullable_string(w, o.error_message)


def _enc_CreateTopicsResponse_0(o, w):
    w += _S0.pack(o.throttle_time_ms)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_CreatableTopicResult_0(item, w)


def _dec_CreatableTopicConfigs_0(buf, pos):
    o = _new(CreatableTopicConfigs)
    o.name, pos = read_compact_string(buf, pos)
    o.value, pos = read_compact_nullable_string(buf, pos)
    o.read_only, o.config_source, o.is_sensitive = _S3.unpack_from(buf, pos)
    pos += 3
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


def _dec_CreatableTopicResult_1(buf, pos):
    o = _new(CreatableTopicResult)
    o.topic_id = ZERO_UUID
    o.topic_config_error_code = 0
    o.name, pos = read_compact_string(buf, pos)
    o.error_code, = _S1.unpack_from(buf, pos)
    pos += 2
    o.error_message, pos = read_compact_nullable_string(buf, pos)
    o.num_partitions, o.replication_factor = _S2.unpack_from(buf, pos)
    pos += 6
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        o.configs = None
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_CreatableTopicConfigs_0(buf, pos)
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
        if tag == 0:
            start = pos
            o.topic_config_error_code, pos = read_int16(buf, pos)
            if pos != end:
                raise DecodeError('tagged field TopicConfigErrorCode size mismatch')
        else:
            if o.unknown_tagged_fields is None:
                o.unknown_tagged_fields = []
            o.unknown_tagged_fields.append((tag, bytes(buf[pos:end])))
            pos = end
    return o, pos


def _dec_CreateTopicsResponse_1(buf, pos):
    o = _new(CreateTopicsResponse)
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
            item, pos = _dec_CreatableTopicResult_1(buf, pos)
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


def _enc_CreatableTopicConfigs_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_compact_string(w, o.name)
    write_compact_nullable_string(w, o.value)
    w += _S3.pack(o.read_only, o.config_source, o.is_sensitive)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_CreatableTopicResult_1(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_compact_string(w, o.name)
    w += _S1.pack(o.error_code)
    write_compact_nullable_string(w, o.error_message)
    w += _S2.pack(o.num_partitions, o.replication_factor)
    items = o.configs
    if items is None:
        write_compact_array_length(w, -1)
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_CreatableTopicConfigs_0(item, w)
    tags = []
    if o.topic_config_error_code != 0:
        t = bytearray()
        t += _S1.pack(o.topic_config_error_code)
        tags.append((0, t))
    if o.unknown_tagged_fields:
        tags.extend(o.unknown_tagged_fields)
    write_tagged_fields(w, tags)


def _enc_CreateTopicsResponse_1(o, w):
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
            _enc_CreatableTopicResult_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_CreatableTopicResult_2(buf, pos):
    o = _new(CreatableTopicResult)
    o.topic_config_error_code = 0
    o.name, pos = read_compact_string(buf, pos)
    o.topic_id, pos = read_uuid(buf, pos)
    o.error_code, = _S1.unpack_from(buf, pos)
    pos += 2
    o.error_message, pos = read_compact_nullable_string(buf, pos)
    o.num_partitions, o.replication_factor = _S2.unpack_from(buf, pos)
    pos += 6
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        o.configs = None
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_CreatableTopicConfigs_0(buf, pos)
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
        if tag == 0:
            start = pos
            o.topic_config_error_code, pos = read_int16(buf, pos)
            if pos != end:
                raise DecodeError('tagged field TopicConfigErrorCode size mismatch')
        else:
            if o.unknown_tagged_fields is None:
                o.unknown_tagged_fields = []
            o.unknown_tagged_fields.append((tag, bytes(buf[pos:end])))
            pos = end
    return o, pos


def _dec_CreateTopicsResponse_2(buf, pos):
    o = _new(CreateTopicsResponse)
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
            item, pos = _dec_CreatableTopicResult_2(buf, pos)
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


def _enc_CreatableTopicResult_2(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_compact_string(w, o.name)
    write_uuid(w, o.topic_id)
    w += _S1.pack(o.error_code)
    write_compact_nullable_string(w, o.error_message)
    w += _S2.pack(o.num_partitions, o.replication_factor)
    items = o.configs
    if items is None:
        write_compact_array_length(w, -1)
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_CreatableTopicConfigs_0(item, w)
    tags = []
    if o.topic_config_error_code != 0:
        t = bytearray()
        t += _S1.pack(o.topic_config_error_code)
        tags.append((0, t))
    if o.unknown_tagged_fields:
        tags.extend(o.unknown_tagged_fields)
    write_tagged_fields(w, tags)


def _enc_CreateTopicsResponse_2(o, w):
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
            _enc_CreatableTopicResult_2(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


CreateTopicsResponse._DECODERS = {2: _dec_CreateTopicsResponse_0, 3: _dec_CreateTopicsResponse_0, 4: _dec_CreateTopicsResponse_0, 5: _dec_CreateTopicsResponse_1, 6: _dec_CreateTopicsResponse_1, 7: _dec_CreateTopicsResponse_2}
CreateTopicsResponse._ENCODERS = {2: _enc_CreateTopicsResponse_0, 3: _enc_CreateTopicsResponse_0, 4: _enc_CreateTopicsResponse_0, 5: _enc_CreateTopicsResponse_1, 6: _enc_CreateTopicsResponse_1, 7: _enc_CreateTopicsResponse_2}
