"""UpdateFeaturesRequest: generated from Kafka's UpdateFeaturesRequest.json by tools/generate_protocol.py.

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
_S1 = struct.Struct('>h?')
_S2 = struct.Struct('>hb')
_S3 = struct.Struct('>?')


class FeatureUpdateKey(Struct):
    __slots__ = ('feature', 'max_version_level', 'allow_downgrade', 'upgrade_type', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('feature', 'Feature', 'string', False, (0, 32767), None, None, None, None), FieldMeta('max_version_level', 'MaxVersionLevel', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('allow_downgrade', 'AllowDowngrade', 'bool', False, (0, 0), None, None, None, None), FieldMeta('upgrade_type', 'UpgradeType', 'int8', False, (1, 32767), None, None, None, None))

    def __init__(self, *, feature: str = '', max_version_level: int = 0, allow_downgrade: bool = False, upgrade_type: int = 1, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.feature = feature
        self.max_version_level = max_version_level
        self.allow_downgrade = allow_downgrade
        self.upgrade_type = upgrade_type
        self.unknown_tagged_fields = unknown_tagged_fields


class UpdateFeaturesRequest(Message):
    """Kafka request UpdateFeaturesRequest (valid versions 0-2)."""

    NAME = 'UpdateFeaturesRequest'
    TYPE = 'request'
    API_KEY = 57
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (0, 32767)
    FeatureUpdateKey = FeatureUpdateKey
    __slots__ = ('timeout_ms', 'feature_updates', 'validate_only', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('timeout_ms', 'timeoutMs', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('feature_updates', 'FeatureUpdates', 'FeatureUpdateKey', True, (0, 32767), None, None, None, FeatureUpdateKey), FieldMeta('validate_only', 'ValidateOnly', 'bool', False, (1, 32767), None, None, None, None))

    def __init__(self, *, timeout_ms: int = 60000, feature_updates: list[FeatureUpdateKey] | None = _DEFAULT, validate_only: bool = False, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.timeout_ms = timeout_ms
        self.feature_updates = [] if feature_updates is _DEFAULT else feature_updates
        self.validate_only = validate_only
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_FeatureUpdateKey_0(buf, pos):
    o = _new(FeatureUpdateKey)
    o.upgrade_type = 1
    o.feature, pos = read_compact_string(buf, pos)
    o.max_version_level, o.allow_downgrade = _S1.unpack_from(buf, pos)
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


def _dec_UpdateFeaturesRequest_0(buf, pos):
    o = _new(UpdateFeaturesRequest)
    o.validate_only = False
    o.timeout_ms, = _S0.unpack_from(buf, pos)
    pos += 4
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array FeatureUpdates was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_FeatureUpdateKey_0(buf, pos)
            append(item)
        o.feature_updates = items
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


def _enc_FeatureUpdateKey_0(o, w):
    if o.feature is None:
        raise EncodeError('non-nullable field Feature is None')
    write_compact_string(w, o.feature)
    w += _S1.pack(o.max_version_level, o.allow_downgrade)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_UpdateFeaturesRequest_0(o, w):
    w += _S0.pack(o.timeout_ms)
    items = o.feature_updates
    if items is None:
        raise EncodeError('non-nullable array FeatureUpdates is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_FeatureUpdateKey_0(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_FeatureUpdateKey_1(buf, pos):
    o = _new(FeatureUpdateKey)
    o.allow_downgrade = False
    o.feature, pos = read_compact_string(buf, pos)
    o.max_version_level, o.upgrade_type = _S2.unpack_from(buf, pos)
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


def _dec_UpdateFeaturesRequest_1(buf, pos):
    o = _new(UpdateFeaturesRequest)
    o.timeout_ms, = _S0.unpack_from(buf, pos)
    pos += 4
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array FeatureUpdates was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_FeatureUpdateKey_1(buf, pos)
            append(item)
        o.feature_updates = items
    o.validate_only, = _S3.unpack_from(buf, pos)
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


def _enc_FeatureUpdateKey_1(o, w):
    if o.feature is None:
        raise EncodeError('non-nullable field Feature is None')
    write_compact_string(w, o.feature)
    w += _S2.pack(o.max_version_level, o.upgrade_type)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_UpdateFeaturesRequest_1(o, w):
    w += _S0.pack(o.timeout_ms)
    items = o.feature_updates
    if items is None:
        raise EncodeError('non-nullable array FeatureUpdates is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_FeatureUpdateKey_1(item, w)
    w += _S3.pack(o.validate_only)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


UpdateFeaturesRequest._DECODERS = {0: _dec_UpdateFeaturesRequest_0, 1: _dec_UpdateFeaturesRequest_1, 2: _dec_UpdateFeaturesRequest_1}
UpdateFeaturesRequest._ENCODERS = {0: _enc_UpdateFeaturesRequest_0, 1: _enc_UpdateFeaturesRequest_1, 2: _enc_UpdateFeaturesRequest_1}
