"""DescribeClusterResponse: generated from Kafka's DescribeClusterResponse.json by tools/generate_protocol.py.

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
_S2 = struct.Struct('>b')
_S3 = struct.Struct('>?')


class DescribeClusterBroker(Struct):
    __slots__ = ('broker_id', 'host', 'port', 'rack', 'is_fenced', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('broker_id', 'BrokerId', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('host', 'Host', 'string', False, (0, 32767), None, None, None, None), FieldMeta('port', 'Port', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('rack', 'Rack', 'string', False, (0, 32767), (0, 32767), None, None, None), FieldMeta('is_fenced', 'IsFenced', 'bool', False, (2, 32767), None, None, None, None))

    def __init__(self, *, broker_id: int = 0, host: str = '', port: int = 0, rack: str | None = None, is_fenced: bool = False, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.broker_id = broker_id
        self.host = host
        self.port = port
        self.rack = rack
        self.is_fenced = is_fenced
        self.unknown_tagged_fields = unknown_tagged_fields


class DescribeClusterResponse(Message):
    """Kafka response DescribeClusterResponse (valid versions 0-2)."""

    NAME = 'DescribeClusterResponse'
    TYPE = 'response'
    API_KEY = 60
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (0, 32767)
    DescribeClusterBroker = DescribeClusterBroker
    __slots__ = ('throttle_time_ms', 'error_code', 'error_message', 'endpoint_type', 'cluster_id', 'controller_id', 'brokers', 'cluster_authorized_operations', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('throttle_time_ms', 'ThrottleTimeMs', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('error_message', 'ErrorMessage', 'string', False, (0, 32767), (0, 32767), None, None, None), FieldMeta('endpoint_type', 'EndpointType', 'int8', False, (1, 32767), None, None, None, None), FieldMeta('cluster_id', 'ClusterId', 'string', False, (0, 32767), None, None, None, None), FieldMeta('controller_id', 'ControllerId', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('brokers', 'Brokers', 'DescribeClusterBroker', True, (0, 32767), None, None, None, DescribeClusterBroker), FieldMeta('cluster_authorized_operations', 'ClusterAuthorizedOperations', 'int32', False, (0, 32767), None, None, None, None))

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, error_message: str | None = None, endpoint_type: int = 1, cluster_id: str = '', controller_id: int = -1, brokers: list[DescribeClusterBroker] | None = _DEFAULT, cluster_authorized_operations: int = -2147483648, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message
        self.endpoint_type = endpoint_type
        self.cluster_id = cluster_id
        self.controller_id = controller_id
        self.brokers = [] if brokers is _DEFAULT else brokers
        self.cluster_authorized_operations = cluster_authorized_operations
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_DescribeClusterBroker_0(buf, pos):
    o = _new(DescribeClusterBroker)
    o.is_fenced = False
    o.broker_id, = _S1.unpack_from(buf, pos)
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


def _dec_DescribeClusterResponse_0(buf, pos):
    o = _new(DescribeClusterResponse)
    o.endpoint_type = 1
    o.throttle_time_ms, o.error_code = _S0.unpack_from(buf, pos)
    pos += 6
    o.error_message, pos = read_compact_nullable_string(buf, pos)
    o.cluster_id, pos = read_compact_string(buf, pos)
    o.controller_id, = _S1.unpack_from(buf, pos)
    pos += 4
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Brokers was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_DescribeClusterBroker_0(buf, pos)
            append(item)
        o.brokers = items
    o.cluster_authorized_operations, = _S1.unpack_from(buf, pos)
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


def _enc_DescribeClusterBroker_0(o, w):
    w += _S1.pack(o.broker_id)
    if o.host is None:
        raise EncodeError('non-nullable field Host is None')
    write_compact_string(w, o.host)
    w += _S1.pack(o.port)
    write_compact_nullable_string(w, o.rack)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_DescribeClusterResponse_0(o, w):
    w += _S0.pack(o.throttle_time_ms, o.error_code)
    write_compact_nullable_string(w, o.error_message)
    if o.cluster_id is None:
        raise EncodeError('non-nullable field ClusterId is None')
    write_compact_string(w, o.cluster_id)
    w += _S1.pack(o.controller_id)
    items = o.brokers
    if items is None:
        raise EncodeError('non-nullable array Brokers is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_DescribeClusterBroker_0(item, w)
    w += _S1.pack(o.cluster_authorized_operations)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_DescribeClusterResponse_1(buf, pos):
    o = _new(DescribeClusterResponse)
    o.throttle_time_ms, o.error_code = _S0.unpack_from(buf, pos)
    pos += 6
    o.error_message, pos = read_compact_nullable_string(buf, pos)
    o.endpoint_type, = _S2.unpack_from(buf, pos)
    pos += 1
    o.cluster_id, pos = read_compact_string(buf, pos)
    o.controller_id, = _S1.unpack_from(buf, pos)
    pos += 4
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Brokers was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_DescribeClusterBroker_0(buf, pos)
            append(item)
        o.brokers = items
    o.cluster_authorized_operations, = _S1.unpack_from(buf, pos)
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


def _enc_DescribeClusterResponse_1(o, w):
    w += _S0.pack(o.throttle_time_ms, o.error_code)
    write_compact_nullable_string(w, o.error_message)
    w += _S2.pack(o.endpoint_type)
    if o.cluster_id is None:
        raise EncodeError('non-nullable field ClusterId is None')
    write_compact_string(w, o.cluster_id)
    w += _S1.pack(o.controller_id)
    items = o.brokers
    if items is None:
        raise EncodeError('non-nullable array Brokers is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_DescribeClusterBroker_0(item, w)
    w += _S1.pack(o.cluster_authorized_operations)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_DescribeClusterBroker_1(buf, pos):
    o = _new(DescribeClusterBroker)
    o.broker_id, = _S1.unpack_from(buf, pos)
    pos += 4
    o.host, pos = read_compact_string(buf, pos)
    o.port, = _S1.unpack_from(buf, pos)
    pos += 4
    o.rack, pos = read_compact_nullable_string(buf, pos)
    o.is_fenced, = _S3.unpack_from(buf, pos)
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


def _dec_DescribeClusterResponse_2(buf, pos):
    o = _new(DescribeClusterResponse)
    o.throttle_time_ms, o.error_code = _S0.unpack_from(buf, pos)
    pos += 6
    o.error_message, pos = read_compact_nullable_string(buf, pos)
    o.endpoint_type, = _S2.unpack_from(buf, pos)
    pos += 1
    o.cluster_id, pos = read_compact_string(buf, pos)
    o.controller_id, = _S1.unpack_from(buf, pos)
    pos += 4
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Brokers was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_DescribeClusterBroker_1(buf, pos)
            append(item)
        o.brokers = items
    o.cluster_authorized_operations, = _S1.unpack_from(buf, pos)
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


def _enc_DescribeClusterBroker_1(o, w):
    w += _S1.pack(o.broker_id)
    if o.host is None:
        raise EncodeError('non-nullable field Host is None')
    write_compact_string(w, o.host)
    w += _S1.pack(o.port)
    write_compact_nullable_string(w, o.rack)
    w += _S3.pack(o.is_fenced)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_DescribeClusterResponse_2(o, w):
    w += _S0.pack(o.throttle_time_ms, o.error_code)
    write_compact_nullable_string(w, o.error_message)
    w += _S2.pack(o.endpoint_type)
    if o.cluster_id is None:
        raise EncodeError('non-nullable field ClusterId is None')
    write_compact_string(w, o.cluster_id)
    w += _S1.pack(o.controller_id)
    items = o.brokers
    if items is None:
        raise EncodeError('non-nullable array Brokers is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_DescribeClusterBroker_1(item, w)
    w += _S1.pack(o.cluster_authorized_operations)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


DescribeClusterResponse._DECODERS = {0: _dec_DescribeClusterResponse_0, 1: _dec_DescribeClusterResponse_1, 2: _dec_DescribeClusterResponse_2}
DescribeClusterResponse._ENCODERS = {0: _enc_DescribeClusterResponse_0, 1: _enc_DescribeClusterResponse_1, 2: _enc_DescribeClusterResponse_2}
