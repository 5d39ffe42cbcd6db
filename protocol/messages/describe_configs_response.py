"""DescribeConfigsResponse: generated from Kafka's DescribeConfigsResponse.json by tools/generate_protocol.py.

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
_S2 = struct.Struct('>b')
_S3 = struct.Struct('>?b?')


class DescribeConfigsSynonym(Struct):
    __slots__ = ('name', 'value', 'source', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (1, 32767), None, None, None, None), FieldMeta('value', 'Value', 'string', False, (1, 32767), (0, 32767), None, None, None), FieldMeta('source', 'Source', 'int8', False, (1, 32767), None, None, None, None))

    def __init__(self, *, name: str = '', value: str | None = '', source: int = 0, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.value = value
        self.source = source
        self.unknown_tagged_fields = unknown_tagged_fields


class DescribeConfigsResourceResult(Struct):
    __slots__ = ('name', 'value', 'read_only', 'config_source', 'is_default', 'is_sensitive', 'synonyms', 'config_type', 'documentation', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (0, 32767), None, None, None, None), FieldMeta('value', 'Value', 'string', False, (0, 32767), (0, 32767), None, None, None), FieldMeta('read_only', 'ReadOnly', 'bool', False, (0, 32767), None, None, None, None), FieldMeta('config_source', 'ConfigSource', 'int8', False, (1, 32767), None, None, None, None), FieldMeta('is_default', 'IsDefault', 'bool', False, (0, 0), None, None, None, None), FieldMeta('is_sensitive', 'IsSensitive', 'bool', False, (0, 32767), None, None, None, None), FieldMeta('synonyms', 'Synonyms', 'DescribeConfigsSynonym', True, (1, 32767), None, None, None, DescribeConfigsSynonym), FieldMeta('config_type', 'ConfigType', 'int8', False, (3, 32767), None, None, None, None), FieldMeta('documentation', 'Documentation', 'string', False, (3, 32767), (0, 32767), None, None, None))

    def __init__(self, *, name: str = '', value: str | None = '', read_only: bool = False, config_source: int = -1, is_default: bool = False, is_sensitive: bool = False, synonyms: list[DescribeConfigsSynonym] | None = _DEFAULT, config_type: int = 0, documentation: str | None = '', unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.value = value
        self.read_only = read_only
        self.config_source = config_source
        self.is_default = is_default
        self.is_sensitive = is_sensitive
        self.synonyms = [] if synonyms is _DEFAULT else synonyms
        self.config_type = config_type
        self.documentation = documentation
        self.unknown_tagged_fields = unknown_tagged_fields


class DescribeConfigsResult(Struct):
    __slots__ = ('error_code', 'error_message', 'resource_type', 'resource_name', 'configs', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('error_message', 'ErrorMessage', 'string', False, (0, 32767), (0, 32767), None, None, None), FieldMeta('resource_type', 'ResourceType', 'int8', False, (0, 32767), None, None, None, None), FieldMeta('resource_name', 'ResourceName', 'string', False, (0, 32767), None, None, None, None), FieldMeta('configs', 'Configs', 'DescribeConfigsResourceResult', True, (0, 32767), None, None, None, DescribeConfigsResourceResult))

    def __init__(self, *, error_code: int = 0, error_message: str | None = '', resource_type: int = 0, resource_name: str = '', configs: list[DescribeConfigsResourceResult] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.error_code = error_code
        self.error_message = error_message
        self.resource_type = resource_type
        self.resource_name = resource_name
        self.configs = [] if configs is _DEFAULT else configs
        self.unknown_tagged_fields = unknown_tagged_fields


class DescribeConfigsResponse(Message):
    """Kafka response DescribeConfigsResponse (valid versions 1-4)."""

    NAME = 'DescribeConfigsResponse'
    TYPE = 'response'
    API_KEY = 32
    VALID_VERSIONS = (1, 4)
    FLEXIBLE_VERSIONS = (4, 32767)
    DescribeConfigsSynonym = DescribeConfigsSynonym
    DescribeConfigsResourceResult = DescribeConfigsResourceResult
    DescribeConfigsResult = DescribeConfigsResult
    __slots__ = ('throttle_time_ms', 'results', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('throttle_time_ms', 'ThrottleTimeMs', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('results', 'Results', 'DescribeConfigsResult', True, (0, 32767), None, None, None, DescribeConfigsResult))

    def __init__(self, *, throttle_time_ms: int = 0, results: list[DescribeConfigsResult] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.results = [] if results is _DEFAULT else results
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_DescribeConfigsSynonym_0(buf, pos):
    o = _new(DescribeConfigsSynonym)
    o.unknown_tagged_fields = None
    o.name, pos = read_string(buf, pos)
    o.value, pos = read_nullable_string(buf, pos)
    o.source, = _S2.unpack_from(buf, pos)
    pos += 1
    return o, pos


def _dec_DescribeConfigsResourceResult_0(buf, pos):
    o = _new(DescribeConfigsResourceResult)
    o.is_default = False
    o.config_type = 0
    o.documentation = ''
    o.unknown_tagged_fields = None
    o.name, pos = read_string(buf, pos)
    o.value, pos = read_nullable_string(buf, pos)
    o.read_only, o.config_source, o.is_sensitive = _S3.unpack_from(buf, pos)
    pos += 3
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Synonyms was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_DescribeConfigsSynonym_0(buf, pos)
            append(item)
        o.synonyms = items
    return o, pos


def _dec_DescribeConfigsResult_0(buf, pos):
    o = _new(DescribeConfigsResult)
    o.unknown_tagged_fields = None
    o.error_code, = _S1.unpack_from(buf, pos)
    pos += 2
    o.error_message, pos = read_nullable_string(buf, pos)
    o.resource_type, = _S2.unpack_from(buf, pos)
    pos += 1
    o.resource_name, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Configs was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_DescribeConfigsResourceResult_0(buf, pos)
            append(item)
        o.configs = items
    return o, pos


def _dec_DescribeConfigsResponse_0(buf, pos):
    o = _new(DescribeConfigsResponse)
    o.unknown_tagged_fields = None
    o.throttle_time_ms, = _S0.unpack_from(buf, pos)
    pos += 4
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Results was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_DescribeConfigsResult_0(buf, pos)
            append(item)
        o.results = items
    return o, pos


def _enc_DescribeConfigsSynonym_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    write_nullable_string(w, o.value)
    w += _S2.pack(o.source)


def _enc_DescribeConfigsResourceResult_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    write_nullable_string(w, o.value)
    w += _S3.pack(o.read_only, o.config_source, o.is_sensitive)
    items = o.synonyms
    if items is None:
        raise EncodeError('non-nullable array Synonyms is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_DescribeConfigsSynonym_0(item, w)


def _enc_DescribeConfigsResult_0(o, w):
    w += _S1.pack(o.error_code)
    write_nullable_string(w, o.error_message)
    w += _S2.pack(o.resource_type)
    if o.resource_name is None:
        raise EncodeError('non-nullable field ResourceName is None')
    write_string(w, o.resource_name)
    items = o.configs
    if items is None:
        raise EncodeError('non-nullable array Configs is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_DescribeConfigsResourceResult_0(item, w)


def _enc_DescribeConfigsResponse_0(o, w):
    w += _S0.pack(o.throttle_time_ms)
    items = o.results
    if items is None:
        raise EncodeError('non-nullable array Results is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_DescribeConfigsResult_0(item, w)


def _dec_DescribeConfigsResourceResult_1(buf, pos):
    o = _new(DescribeConfigsResourceResult)
    o.is_default = False
    o.unknown_tagged_fields = None
    o.name, pos = read_string(buf, pos)
    o.value, pos = read_nullable_string(buf, pos)
    o.read_only, o.config_source, o.is_sensitive = _S3.unpack_from(buf, pos)
    pos += 3
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Synonyms was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_DescribeConfigsSynonym_0(buf, pos)
            append(item)
        o.synonyms = items
    o.config_type, = _S2.unpack_from(buf, pos)
    pos += 1
    o.documentation, pos = read_nullable_string(buf, pos)
    return o, pos


def _dec_DescribeConfigsResult_1(buf, pos):
    o = _new(DescribeConfigsResult)
    o.unknown_tagged_fields = None
    o.error_code, = _S1.unpack_from(buf, pos)
    pos += 2
    o.error_message, pos = read_nullable_string(buf, pos)
    o.resource_type, = _S2.unpack_from(buf, pos)
    pos += 1
    o.resource_name, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Configs was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_DescribeConfigsResourceResult_1(buf, pos)
            append(item)
        o.configs = items
    return o, pos


def _dec_DescribeConfigsResponse_1(buf, pos):
    o = _new(DescribeConfigsResponse)
    o.unknown_tagged_fields = None
    o.throttle_time_ms, = _S0.unpack_from(buf, pos)
    pos += 4
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Results was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_DescribeConfigsResult_1(buf, pos)
            append(item)
        o.results = items
    return o, pos


def _enc_DescribeConfigsResourceResult_1(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    write_nullable_string(w, o.value)
    w += _S3.pack(o.read_only, o.config_source, o.is_sensitive)
    items = o.synonyms
    if items is None:
        raise EncodeError('non-nullable array Synonyms is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_DescribeConfigsSynonym_0(item, w)
    w += _S2.pack(o.config_type)
    write_nullable_string(w, o.documentation)


def _enc_DescribeConfigsResult_1(o, w):
    w += _S1.pack(o.error_code)
    write_nullable_string(w, o.error_message)
    w += _S2.pack(o.resource_type)
    if o.resource_name is None:
        raise EncodeError('non-nullable field ResourceName is None')
    write_string(w, o.resource_name)
    items = o.configs
    if items is None:
        raise EncodeError('non-nullable array Configs is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_DescribeConfigsResourceResult_1(item, w)


def _enc_DescribeConfigsResponse_1(o, w):
    w += _S0.pack(o.throttle_time_ms)
    items = o.results
    if items is None:
        raise EncodeError('non-nullable array Results is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_DescribeConfigsResult_1(item, w)


def _dec_DescribeConfigsSynonym_1(buf, pos):
    o = _new(DescribeConfigsSynonym)
    o.name, pos = read_compact_string(buf, pos)
    o.value, pos = read_compact_nullable_string(buf, pos)
    o.source, = _S2.unpack_from(buf, pos)
    pos += 1
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


def _dec_DescribeConfigsResourceResult_2(buf, pos):
    o = _new(DescribeConfigsResourceResult)
    o.is_default = False
    o.name, pos = read_compact_string(buf, pos)
    o.value, pos = read_compact_nullable_string(buf, pos)
    o.read_only, o.config_source, o.is_sensitive = _S3.unpack_from(buf, pos)
    pos += 3
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Synonyms was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_DescribeConfigsSynonym_1(buf, pos)
            append(item)
        o.synonyms = items
    o.config_type, = _S2.unpack_from(buf, pos)
    pos += 1
    o.documentation, pos = read_compact_nullable_string(buf, pos)
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


def _dec_DescribeConfigsResult_2(buf, pos):
    o = _new(DescribeConfigsResult)
    o.error_code, = _S1.unpack_from(buf, pos)
    pos += 2
    o.error_message, pos = read_compact_nullable_string(buf, pos)
    o.resource_type, = _S2.unpack_from(buf, pos)
    pos += 1
    o.resource_name, pos = read_compact_string(buf, pos)
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
            item, pos = _dec_DescribeConfigsResourceResult_2(buf, pos)
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


def _dec_DescribeConfigsResponse_2(buf, pos):
    o = _new(DescribeConfigsResponse)
    o.throttle_time_ms, = _S0.unpack_from(buf, pos)
    pos += 4
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Results was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_DescribeConfigsResult_2(buf, pos)
            append(item)
        o.results = items
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


def _enc_DescribeConfigsSynonym_1(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_compact_string(w, o.name)
    write_compact_nullable_string(w, o.value)
    w += _S2.pack(o.source)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_DescribeConfigsResourceResult_2(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_compact_string(w, o.name)
    write_compact_nullable_string(w, o.value)
    w += _S3.pack(o.read_only, o.config_source, o.is_sensitive)
    items = o.synonyms
    if items is None:
        raise EncodeError('non-nullable array Synonyms is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_DescribeConfigsSynonym_1(item, w)
    w += _S2.pack(o.config_type)
    write_compact_nullable_string(w, o.documentation)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_DescribeConfigsResult_2(o, w):
    w += _S1.pack(o.error_code)
    write_compact_nullable_string(w, o.error_message)
    w += _S2.pack(o.resource_type)
    if o.resource_name is None:
        raise EncodeError('non-nullable field ResourceName is None')
    write_compact_string(w, o.resource_name)
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
            _enc_DescribeConfigsResourceResult_2(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_DescribeConfigsResponse_2(o, w):
    w += _S0.pack(o.throttle_time_ms)
    items = o.results
    if items is None:
        raise EncodeError('non-nullable array Results is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_DescribeConfigsResult_2(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


DescribeConfigsResponse._DECODERS = {1: _dec_DescribeConfigsResponse_0, 2: _dec_DescribeConfigsResponse_0, 3: _dec_DescribeConfigsResponse_1, 4: _dec_DescribeConfigsResponse_2}
DescribeConfigsResponse._ENCODERS = {1: _enc_DescribeConfigsResponse_0, 2: _enc_DescribeConfigsResponse_0, 3: _enc_DescribeConfigsResponse_1, 4: _enc_DescribeConfigsResponse_2}
