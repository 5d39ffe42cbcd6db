"""AlterUserScramCredentialsResponse: generated from Kafka's AlterUserScramCredentialsResponse.json by tools/generate_protocol.py.

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


class AlterUserScramCredentialsResult(Struct):
    __slots__ = ('user', 'error_code', 'error_message', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('user', 'User', 'string', False, (0, 32767), None, None, None, None), FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('error_message', 'ErrorMessage', 'string', False, (0, 32767), (0, 32767), None, None, None))

    def __init__(self, *, user: str = '', error_code: int = 0, error_message: str | None = '', unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.user = user
        self.error_code = error_code
        self.error_message = error_message
        self.unknown_tagged_fields = unknown_tagged_fields


class AlterUserScramCredentialsResponse(Message):
    """Kafka response AlterUserScramCredentialsResponse (valid versions 0-0)."""

    NAME = 'AlterUserScramCredentialsResponse'
    TYPE = 'response'
    API_KEY = 51
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    AlterUserScramCredentialsResult = AlterUserScramCredentialsResult
    __slots__ = ('throttle_time_ms', 'results', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('throttle_time_ms', 'ThrottleTimeMs', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('results', 'Results', 'AlterUserScramCredentialsResult', True, (0, 32767), None, None, None, AlterUserScramCredentialsResult))

    def __init__(self, *, throttle_time_ms: int = 0, results: list[AlterUserScramCredentialsResult] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.results = [] if results is _DEFAULT else results
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_AlterUserScramCredentialsResult_0(buf, pos):
    o = _new(AlterUserScramCredentialsResult)
    o.user, pos = read_compact_string(buf, pos)
    o.error_code, = _S1.unpack_from(buf, pos)
    pos += 2
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


def _dec_AlterUserScramCredentialsResponse_0(buf, pos):
    o = _new(AlterUserScramCredentialsResponse)
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
            item, pos = _dec_AlterUserScramCredentialsResult_0(buf, pos)
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


def _enc_AlterUserScramCredentialsResult_0(o, w):
    if o.user is None:
        raise EncodeError('non-nullable field User is None')
    write_compact_string(w, o.user)
    w += _S1.pack(o.error_code)
    write_compact_nullable_string(w, o.error_message)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_AlterUserScramCredentialsResponse_0(o, w):
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
            _enc_AlterUserScramCredentialsResult_0(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


AlterUserScramCredentialsResponse._DECODERS = {0: _dec_AlterUserScramCredentialsResponse_0}
AlterUserScramCredentialsResponse._ENCODERS = {0: _enc_AlterUserScramCredentialsResponse_0}
