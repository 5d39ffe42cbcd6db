"""ApiVersionsResponse: generated from Kafka's ApiVersionsResponse.json by tools/generate_protocol.py.

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
_S1 = struct.Struct('>hhh')
_S2 = struct.Struct('>i')
_S3 = struct.Struct('>hh')
_S4 = struct.Struct('>q')
_S5 = struct.Struct('>?')


class ApiVersion(Struct):
    __slots__ = ('api_key', 'min_version', 'max_version', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('api_key', 'ApiKey', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('min_version', 'MinVersion', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('max_version', 'MaxVersion', 'int16', False, (0, 32767), None, None, None, None))

    def __init__(self, *, api_key: int = 0, min_version: int = 0, max_version: int = 0, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.api_key = api_key
        self.min_version = min_version
        self.max_version = max_version
        self.unknown_tagged_fields = unknown_tagged_fields


class SupportedFeatureKey(Struct):
    __slots__ = ('name', 'min_version', 'max_version', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (3, 32767), None, None, None, None), FieldMeta('min_version', 'MinVersion', 'int16', False, (3, 32767), None, None, None, None), FieldMeta('max_version', 'MaxVersion', 'int16', False, (3, 32767), None, None, None, None))

    def __init__(self, *, name: str = '', min_version: int = 0, max_version: int = 0, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.min_version = min_version
        self.max_version = max_version
        self.unknown_tagged_fields = unknown_tagged_fields


class FinalizedFeatureKey(Struct):
    __slots__ = ('name', 'max_version_level', 'min_version_level', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (3, 32767), None, None, None, None), FieldMeta('max_version_level', 'MaxVersionLevel', 'int16', False, (3, 32767), None, None, None, None), FieldMeta('min_version_level', 'MinVersionLevel', 'int16', False, (3, 32767), None, None, None, None))

    def __init__(self, *, name: str = '', max_version_level: int = 0, min_version_level: int = 0, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.max_version_level = max_version_level
        self.min_version_level = min_version_level
        self.unknown_tagged_fields = unknown_tagged_fields


class ApiVersionsResponse(Message):
    """Kafka response ApiVersionsResponse (valid versions 0-4)."""

    NAME = 'ApiVersionsResponse'
    TYPE = 'response'
    API_KEY = 18
    VALID_VERSIONS = (0, 4)
    FLEXIBLE_VERSIONS = (3, 32767)
    ApiVersion = ApiVersion
    SupportedFeatureKey = SupportedFeatureKey
    FinalizedFeatureKey = FinalizedFeatureKey
    __slots__ = ('error_code', 'api_keys', 'throttle_time_ms', 'supported_features', 'finalized_features_epoch', 'finalized_features', 'zk_migration_ready', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('api_keys', 'ApiKeys', 'ApiVersion', True, (0, 32767), None, None, None, ApiVersion), FieldMeta('throttle_time_ms', 'ThrottleTimeMs', 'int32', False, (1, 32767), None, None, None, None), FieldMeta('supported_features', 'SupportedFeatures', 'SupportedFeatureKey', True, (3, 32767), None, 0, (3, 32767), SupportedFeatureKey), FieldMeta('finalized_features_epoch', 'FinalizedFeaturesEpoch', 'int64', False, (3, 32767), None, 1, (3, 32767), None), FieldMeta('finalized_features', 'FinalizedFeatures', 'FinalizedFeatureKey', True, (3, 32767), None, 2, (3, 32767), FinalizedFeatureKey), FieldMeta('zk_migration_ready', 'ZkMigrationReady', 'bool', False, (3, 32767), None, 3, (3, 32767), None))

    def __init__(self, *, error_code: int = 0, api_keys: list[ApiVersion] | None = _DEFAULT, throttle_time_ms: int = 0, supported_features: list[SupportedFeatureKey] | None = _DEFAULT, finalized_features_epoch: int = -1, finalized_features: list[FinalizedFeatureKey] | None = _DEFAULT, zk_migration_ready: bool = False, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.error_code = error_code
        self.api_keys = [] if api_keys is _DEFAULT else api_keys
        self.throttle_time_ms = throttle_time_ms
        self.supported_features = [] if supported_features is _DEFAULT else supported_features
        self.finalized_features_epoch = finalized_features_epoch
        self.finalized_features = [] if finalized_features is _DEFAULT else finalized_features
        self.zk_migration_ready = zk_migration_ready
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_ApiVersion_0(buf, pos):
    o = _new(ApiVersion)
    o.unknown_tagged_fields = None
    o.api_key, o.min_version, o.max_version = _S1.unpack_from(buf, pos)
    pos += 6
    return o, pos


def _dec_ApiVersionsResponse_0(buf, pos):
    o = _new(ApiVersionsResponse)
    o.throttle_time_ms = 0
    o.supported_features = []
    o.finalized_features_epoch = -1
    o.finalized_features = []
    o.zk_migration_ready = False
    o.unknown_tagged_fields = None
    o.error_code, = _S0.unpack_from(buf, pos)
    pos += 2
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array ApiKeys was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ApiVersion_0(buf, pos)
            append(item)
        o.api_keys = items
    return o, pos


def _enc_ApiVersion_0(o, w):
    w += _S1.pack(o.api_key, o.min_version, o.max_version)


def _enc_ApiVersionsResponse_0(o, w):
    w += _S0.pack(o.error_code)
    items = o.api_keys
    if items is None:
        raise EncodeError('non-nullable array ApiKeys is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_ApiVersion_0(item, w)


def _dec_ApiVersionsResponse_1(buf, pos):
    o = _new(ApiVersionsResponse)
    o.supported_features = []
    o.finalized_features_epoch = -1
    o.finalized_features = []
    o.zk_migration_ready = False
    o.unknown_tagged_fields = None
    o.error_code, = _S0.unpack_from(buf, pos)
    pos += 2
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array ApiKeys was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ApiVersion_0(buf, pos)
            append(item)
        o.api_keys = items
    o.throttle_time_ms, = _S2.unpack_from(buf, pos)
    pos += 4
    return o, pos


def _enc_ApiVersionsResponse_1(o, w):
    w += _S0.pack(o.error_code)
    items = o.api_keys
    if items is None:
        raise EncodeError('non-nullable array ApiKeys is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_ApiVersion_0(item, w)
    w += _S2.pack(o.throttle_time_ms)


def _dec_ApiVersion_1(buf, pos):
    o = _new(ApiVersion)
    o.api_key, o.min_version, o.max_version = _S1.unpack_from(buf, pos)
    pos += 6
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


def _dec_SupportedFeatureKey_0(buf, pos):
    o = _new(SupportedFeatureKey)
    o.name, pos = read_compact_string(buf, pos)
    o.min_version, o.max_version = _S3.unpack_from(buf, pos)
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


def _dec_FinalizedFeatureKey_0(buf, pos):
    o = _new(FinalizedFeatureKey)
    o.name, pos = read_compact_string(buf, pos)
    o.max_version_level, o.min_version_level = _S3.unpack_from(buf, pos)
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


def _dec_ApiVersionsResponse_2(buf, pos):
    o = _new(ApiVersionsResponse)
    o.supported_features = []
    o.finalized_features_epoch = -1
    o.finalized_features = []
    o.zk_migration_ready = False
    o.error_code, = _S0.unpack_from(buf, pos)
    pos += 2
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array ApiKeys was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ApiVersion_1(buf, pos)
            append(item)
        o.api_keys = items
    o.throttle_time_ms, = _S2.unpack_from(buf, pos)
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
                raise DecodeError('non-nullable array SupportedFeatures was null')
            else:
                items = []
                append = items.append
                for _ in range(n):
                    item, pos = _dec_SupportedFeatureKey_0(buf, pos)
                    append(item)
                o.supported_features = items
            if pos != end:
                raise DecodeError('tagged field SupportedFeatures size mismatch')
        elif tag == 1:
            start = pos
            o.finalized_features_epoch, pos = read_int64(buf, pos)
            if pos != end:
                raise DecodeError('tagged field FinalizedFeaturesEpoch size mismatch')
        elif tag == 2:
            start = pos
            n = buf[pos] - 1
            if n < 0x7F:
                pos += 1
            else:
                n, pos = read_compact_array_length(buf, pos)
            if n < 0:
                raise DecodeError('non-nullable array FinalizedFeatures was null')
            else:
                items = []
                append = items.append
                for _ in range(n):
                    item, pos = _dec_FinalizedFeatureKey_0(buf, pos)
                    append(item)
                o.finalized_features = items
            if pos != end:
                raise DecodeError('tagged field FinalizedFeatures size mismatch')
        elif tag == 3:
            start = pos
            o.zk_migration_ready, pos = read_bool(buf, pos)
            if pos != end:
                raise DecodeError('tagged field ZkMigrationReady size mismatch')
        else:
            if o.unknown_tagged_fields is None:
                o.unknown_tagged_fields = []
            o.unknown_tagged_fields.append((tag, bytes(buf[pos:end])))
            pos = end
    return o, pos


def _enc_ApiVersion_1(o, w):
    w += _S1.pack(o.api_key, o.min_version, o.max_version)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_SupportedFeatureKey_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_compact_string(w, o.name)
    w += _S3.pack(o.min_version, o.max_version)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_FinalizedFeatureKey_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_compact_string(w, o.name)
    w += _S3.pack(o.max_version_level, o.min_version_level)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_ApiVersionsResponse_2(o, w):
    w += _S0.pack(o.error_code)
    items = o.api_keys
    if items is None:
        raise EncodeError('non-nullable array ApiKeys is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_ApiVersion_1(item, w)
    w += _S2.pack(o.throttle_time_ms)
    tags = []
    if o.supported_features:
        t = bytearray()
        items = o.supported_features
        if items is None:
            raise EncodeError('non-nullable array SupportedFeatures is None')
        else:
            n = len(items) + 1
            if n < 0x80:
                t.append(n)
            else:
                write_uvarint(t, n)
            for item in items:
                _enc_SupportedFeatureKey_0(item, t)
        tags.append((0, t))
    if o.finalized_features_epoch != -1:
        t = bytearray()
        t += _S4.pack(o.finalized_features_epoch)
        tags.append((1, t))
    if o.finalized_features:
        t = bytearray()
        items = o.finalized_features
        if items is None:
            raise EncodeError('non-nullable array FinalizedFeatures is None')
        else:
            n = len(items) + 1
            if n < 0x80:
                t.append(n)
            else:
                write_uvarint(t, n)
            for item in items:
                _enc_FinalizedFeatureKey_0(item, t)
        tags.append((2, t))
    if o.zk_migration_ready != False:
        t = bytearray()
        t += _S5.pack(o.zk_migration_ready)
        tags.append((3, t))
    if o.unknown_tagged_fields:
        tags.extend(o.unknown_tagged_fields)
    write_tagged_fields(w, tags)


ApiVersionsResponse._DECODERS = {0: _dec_ApiVersionsResponse_0, 1: _dec_ApiVersionsResponse_1, 2: _dec_ApiVersionsResponse_1, 3: _dec_ApiVersionsResponse_2, 4: _dec_ApiVersionsResponse_2}
ApiVersionsResponse._ENCODERS = {0: _enc_ApiVersionsResponse_0, 1: _enc_ApiVersionsResponse_1, 2: _enc_ApiVersionsResponse_1, 3: _enc_ApiVersionsResponse_2, 4: _enc_ApiVersionsResponse_2}
