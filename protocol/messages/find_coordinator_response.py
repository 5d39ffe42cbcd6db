"""FindCoordinatorResponse: generated from Kafka's FindCoordinatorResponse.json by tools/generate_protocol.py.

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
_S0 = struct.Struct('>hi')
_S1 = struct.Struct('>i')
_S2 = struct.Struct('>ih')


class Coordinator(Struct):
    __slots__ = ('key', 'node_id', 'host', 'port', 'error_code', 'error_message', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('key', 'Key', 'string', False, (4, 32767), None, None, None, None), FieldMeta('node_id', 'NodeId', 'int32', False, (4, 32767), None, None, None, None), FieldMeta('host', 'Host', 'string', False, (4, 32767), None, None, None, None), FieldMeta('port', 'Port', 'int32', False, (4, 32767), None, None, None, None), FieldMeta('error_code', 'ErrorCode', 'int16', False, (4, 32767), None, None, None, None), FieldMeta('error_message', 'ErrorMessage', 'string', False, (4, 32767), (4, 32767), None, None, None))

    def __init__(self, *, key: str = '', node_id: int = 0, host: str = '', port: int = 0, error_code: int = 0, error_message: str | None = '', unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.key = key
        self.node_id = node_id
        self.host = host
        self.port = port
        self.error_code = error_code
        self.error_message = error_message
        self.unknown_tagged_fields = unknown_tagged_fields


class FindCoordinatorResponse(Message):
    """Kafka response FindCoordinatorResponse (valid versions 0-6)."""

    NAME = 'FindCoordinatorResponse'
    TYPE = 'response'
    API_KEY = 10
    VALID_VERSIONS = (0, 6)
    FLEXIBLE_VERSIONS = (3, 32767)
    Coordinator = Coordinator
    __slots__ = ('throttle_time_ms', 'error_code', 'error_message', 'node_id', 'host', 'port', 'coordinators', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('throttle_time_ms', 'ThrottleTimeMs', 'int32', False, (1, 32767), None, None, None, None), FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 3), None, None, None, None), FieldMeta('error_message', 'ErrorMessage', 'string', False, (1, 3), (1, 3), None, None, None), FieldMeta('node_id', 'NodeId', 'int32', False, (0, 3), None, None, None, None), FieldMeta('host', 'Host', 'string', False, (0, 3), None, None, None, None), FieldMeta('port', 'Port', 'int32', False, (0, 3), None, None, None, None), FieldMeta('coordinators', 'Coordinators', 'Coordinator', True, (4, 32767), None, None, None, Coordinator))

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, error_message: str | None = '', node_id: int = 0, host: str = '', port: int = 0, coordinators: list[Coordinator] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message
        self.node_id = node_id
        self.host = host
        self.port = port
        self.coordinators = [] if coordinators is _DEFAULT else coordinators
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_FindCoordinatorResponse_0(buf, pos):
    o = _new(FindCoordinatorResponse)
    o.throttle_time_ms = 0
    o.error_message = ''
    o.coordinators = []
    o.unknown_tagged_fields = None
    o.error_code, o.node_id = _S0.unpack_from(buf, pos)
    pos += 6
    o.host, pos = read_string(buf, pos)
    o.port, = _S1.unpack_from(buf, pos)
    pos += 4
    return o, pos


def _enc_FindCoordinatorResponse_0(o, w):
    w += _S0.pack(o.error_code, o.node_id)
    if o.host is None:
        raise EncodeError('non-nullable field Host is None')
    write_string(w, o.host)
    w += _S1.pack(o.port)


def _dec_FindCoordinatorResponse_1(buf, pos):
    o = _new(FindCoordinatorResponse)
    o.coordinators = []
    o.unknown_tagged_fields = None
    o.throttle_time_ms, o.error_code = _S2.unpack_from(buf, pos)
    pos += 6
    o.error_message, pos = read_nullable_string(buf, pos)
    o.node_id, = _S1.unpack_from(buf, pos)
    pos += 4
    o.host, pos = read_string(buf, pos)
    o.port, = _S1.unpack_from(buf, pos)
    pos += 4
    return o, pos


def _enc_FindCoordinatorResponse_1(o, w):
    w += _S2.pack(o.throttle_time_ms, o.error_code)
    write_nullable_string(w, o.error_message)
    w += _S1.pack(o.node_id)
    if o.host is None:
        raise EncodeError('non-nullable field Host is None')
    write_string(w, o.host)
    w += _S1.pack(o.port)


def _dec_FindCoordinatorResponse_2(buf, pos):
    o = _new(FindCoordinatorResponse)
    o.coordinators = []
    o.throttle_time_ms, o.error_code = _S2.unpack_from(buf, pos)
    pos += 6
    o.error_message, pos = read_compact_nullable_string(buf, pos)
    o.node_id, = _S1.unpack_from(buf, pos)
    pos += 4
    o.host, pos = read_compact_string(buf, pos)
    o.port, = _S1.unpack_from(buf, pos)
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


def _enc_FindCoordinatorResponse_2(o, w):
    w += _S2.pack(o.throttle_time_ms, o.error_code)
    write_compact_nullable_string(w, o.error_message)
    w += _S1.pack(o.node_id)
    if o.host is None:
        raise EncodeError('non-nullable field Host is None')
    write_compact_string(w, o.host)
    w += _S1.pack(o.port)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_Coordinator_0(buf, pos):
    o = _new(Coordinator)
    o.key, pos = read_compact_string(buf, pos)
    o.node_id, = _S1.unpack_from(buf, pos)
    pos += 4
    o.host, pos = read_compact_string(buf, pos)
    o.port, o.error_code = _S2.unpack_from(buf, pos)
    pos += 6
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


def _dec_FindCoordinatorResponse_3(buf, pos):
    o = _new(FindCoordinatorResponse)
    o.error_code = 0
    o.error_message = ''
    o.node_id = 0
    o.host = ''
    o.port = 0
    o.throttle_time_ms, = _S1.unpack_from(buf, pos)
    pos += 4
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Coordinators was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_Coordinator_0(buf, pos)
            append(item)
        o.coordinators = items
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


def _enc_Coordinator_0(o, w):
    if o.key is None:
        raise EncodeError('non-nullable field Key is None')
    write_compact_string(w, o.key)
    w += _S1.pack(o.node_id)
    if o.host is None:
        raise EncodeError('non-nullable field Host is None')
    write_compact_string(w, o.host)
    w += _S2.pack(o.port, o.error_code)
    write_compact_nullable_string(w, o.error_message)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_FindCoordinatorResponse_3(o, w):
    w += _S1.pack(o.throttle_time_ms)
    items = o.coordinators
    if items is None:
        raise EncodeError('non-nullable array Coordinators is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_Coordinator_0(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


FindCoordinatorResponse._DECODERS = {0: _dec_FindCoordinatorResponse_0, 1: _dec_FindCoordinatorResponse_1, 2: _dec_FindCoordinatorResponse_1, 3: _dec_FindCoordinatorResponse_2, 4: _dec_FindCoordinatorResponse_3, 5: _dec_FindCoordinatorResponse_3, 6: _dec_FindCoordinatorResponse_3}
FindCoordinatorResponse._ENCODERS = {0: _enc_FindCoordinatorResponse_0, 1: _enc_FindCoordinatorResponse_1, 2: _enc_FindCoordinatorResponse_1, 3: _enc_FindCoordinatorResponse_2, 4: _enc_FindCoordinatorResponse_3, 5: _enc_FindCoordinatorResponse_3, 6: _enc_FindCoordinatorResponse_3}
