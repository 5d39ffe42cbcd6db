"""DeleteTopicsResponse: generated from Kafka's DeleteTopicsResponse.json by tools/generate_protocol.py.

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


class DeletableTopicResult(Struct):
    __slots__ = ('name', 'topic_id', 'error_code', 'error_message', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (0, 32767), (6, 32767), None, None, None), FieldMeta('topic_id', 'TopicId', 'uuid', False, (6, 32767), None, None, None, None), FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('error_message', 'ErrorMessage', 'string', False, (5, 32767), (5, 32767), None, None, None))

    def __init__(self, *, name: str | None = '', topic_id: uuid.UUID = ZERO_UUID, error_code: int = 0, error_message: str | None = None, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.topic_id = topic_id
        self.error_code = error_code
        self.error_message = error_message
        self.unknown_tagged_fields = unknown_tagged_fields


class DeleteTopicsResponse(Message):
    """Kafka response DeleteTopicsResponse (valid versions 1-6)."""

    NAME = 'DeleteTopicsResponse'
    TYPE = 'response'
    API_KEY = 20
    VALID_VERSIONS = (1, 6)
    FLEXIBLE_VERSIONS = (4, 32767)
    DeletableTopicResult = DeletableTopicResult
    __slots__ = ('throttle_time_ms', 'responses', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('throttle_time_ms', 'ThrottleTimeMs', 'int32', False, (1, 32767), None, None, None, None), FieldMeta('responses', 'Responses', 'DeletableTopicResult', True, (0, 32767), None, None, None, DeletableTopicResult))

    def __init__(self, *, throttle_time_ms: int = 0, responses: list[DeletableTopicResult] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.responses = [] if responses is _DEFAULT else responses
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_DeletableTopicResult_0(buf, pos):
    o = _new(DeletableTopicResult)
    o.topic_id = ZERO_UUID
    o.error_message = None
    o.unknown_tagged_fields = None
    o.name, pos = read_string(buf, pos)
    o.error_code, = _S1.unpack_from(buf, pos)
    pos += 2
    return o, pos


def _dec_DeleteTopicsResponse_0(buf, pos):
    o = _new(DeleteTopicsResponse)
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
            item, pos = _dec_DeletableTopicResult_0(buf, pos)
            append(item)
        o.responses = items
    return o, pos


def _enc_DeletableTopicResult_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    w += _S1.pack(o.error_code)


def _enc_DeleteTopicsResponse_0(o, w):
    w += _S0.pack(o.throttle_time_ms)
    items = o.responses
    if items is None:
        raise EncodeError('non-nullable array Responses is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_DeletableTopicResult_0(item, w)


def _dec_DeletableTopicResult_1(buf, pos):
    o = _new(DeletableTopicResult)
    o.topic_id = ZERO_UUID
    o.error_message = None
    o.name, pos = read_compact_string(buf, pos)
    o.error_code, = _S1.unpack_from(buf, pos)
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


def _dec_DeleteTopicsResponse_1(buf, pos):
    o = _new(DeleteTopicsResponse)
    o.throttle_time_ms, = _S0.unpack_from(buf, pos)
    pos += 4
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
            item, pos = _dec_DeletableTopicResult_1(buf, pos)
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


def _enc_DeletableTopicResult_1(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_compact_string(w, o.name)
    w += _S1.pack(o.error_code)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_DeleteTopicsResponse_1(o, w):
    w += _S0.pack(o.throttle_time_ms)
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
            _enc_DeletableTopicResult_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_DeletableTopicResult_2(buf, pos):
    o = _new(DeletableTopicResult)
    o.topic_id = ZERO_UUID
    o.name, pos = read_compact_string(buf, pos)
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


def _dec_DeleteTopicsResponse_2(buf, pos):
    o = _new(DeleteTopicsResponse)
    o.throttle_time_ms, = _S0.unpack_from(buf, pos)
    pos += 4
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
            item, pos = _dec_DeletableTopicResult_2(buf, pos)
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


def _enc_DeletableTopicResult_2(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_compact_string(w, o.name)
    w += _S1.pack(o.error_code)
    write_compact_nullable_string(w, o.error_message)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_DeleteTopicsResponse_2(o, w):
    w += _S0.pack(o.throttle_time_ms)
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
            _enc_DeletableTopicResult_2(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_DeletableTopicResult_3(buf, pos):
    o = _new(DeletableTopicResult)
    o.name, pos = read_compact_nullable_string(buf, pos)
    o.topic_id, pos = read_uuid(buf, pos)
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


def _dec_DeleteTopicsResponse_3(buf, pos):
    o = _new(DeleteTopicsResponse)
    o.throttle_time_ms, = _S0.unpack_from(buf, pos)
    pos += 4
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
            item, pos = _dec_DeletableTopicResult_3(buf, pos)
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


def _enc_DeletableTopicResult_3(o, w):
    write_compact_nullable_string(w, o.name)
    write_uuid(w, o.topic_id)
    w += _S1.pack(o.error_code)
    write_compact_nullable_string(w, o.error_message)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_DeleteTopicsResponse_3(o, w):
    w += _S0.pack(o.throttle_time_ms)
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
            _enc_DeletableTopicResult_3(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


DeleteTopicsResponse._DECODERS = {1: _dec_DeleteTopicsResponse_0, 2: _dec_DeleteTopicsResponse_0, 3: _dec_DeleteTopicsResponse_0, 4: _dec_DeleteTopicsResponse_1, 5: _dec_DeleteTopicsResponse_2, 6: _dec_DeleteTopicsResponse_3}
DeleteTopicsResponse._ENCODERS = {1: _enc_DeleteTopicsResponse_0, 2: _enc_DeleteTopicsResponse_0, 3: _enc_DeleteTopicsResponse_0, 4: _enc_DeleteTopicsResponse_1, 5: _enc_DeleteTopicsResponse_2, 6: _enc_DeleteTopicsResponse_3}
