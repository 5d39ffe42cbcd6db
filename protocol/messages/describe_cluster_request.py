"""DescribeClusterRequest: generated from Kafka's DescribeClusterRequest.json by tools/generate_protocol.py.

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
_S0 = struct.Struct('>?')
_S1 = struct.Struct('>?b')
_S2 = struct.Struct('>?b?')


class DescribeClusterRequest(Message):
    """Kafka request DescribeClusterRequest (valid versions 0-2)."""

    NAME = 'DescribeClusterRequest'
    TYPE = 'request'
    API_KEY = 60
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (0, 32767)
    __slots__ = ('include_cluster_authorized_operations', 'endpoint_type', 'include_fenced_brokers', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('include_cluster_authorized_operations', 'IncludeClusterAuthorizedOperations', 'bool', False, (0, 32767), None, None, None, None), FieldMeta('endpoint_type', 'EndpointType', 'int8', False, (1, 32767), None, None, None, None), FieldMeta('include_fenced_brokers', 'IncludeFencedBrokers', 'bool', False, (2, 32767), None, None, None, None))

    def __init__(self, *, include_cluster_authorized_operations: bool = False, endpoint_type: int = 1, include_fenced_brokers: bool = False, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.include_cluster_authorized_operations = include_cluster_authorized_operations
        self.endpoint_type = endpoint_type
        self.include_fenced_brokers = include_fenced_brokers
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_DescribeClusterRequest_0(buf, pos):
    o = _new(DescribeClusterRequest)
    o.endpoint_type = 1
    o.include_fenced_brokers = False
    o.include_cluster_authorized_operations, = _S0.unpack_from(buf, pos)
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


def _enc_DescribeClusterRequest_0(o, w):
    w += _S0.pack(o.include_cluster_authorized_operations)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_DescribeClusterRequest_1(buf, pos):
    o = _new(DescribeClusterRequest)
    o.include_fenced_brokers = False
    o.include_cluster_authorized_operations, o.endpoint_type = _S1.unpack_from(buf, pos)
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


def _enc_DescribeClusterRequest_1(o, w):
    w += _S1.pack(o.include_cluster_authorized_operations, o.endpoint_type)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_DescribeClusterRequest_2(buf, pos):
    o = _new(DescribeClusterRequest)
    o.include_cluster_authorized_operations, o.endpoint_type, o.include_fenced_brokers = _S2.unpack_from(buf, pos)
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


def _enc_DescribeClusterRequest_2(o, w):
    w += _S2.pack(o.include_cluster_authorized_operations, o.endpoint_type, o.include_fenced_brokers)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


DescribeClusterRequest._DECODERS = {0: _dec_DescribeClusterRequest_0, 1: _dec_DescribeClusterRequest_1, 2: _dec_DescribeClusterRequest_2}
DescribeClusterRequest._ENCODERS = {0: _enc_DescribeClusterRequest_0, 1: _enc_DescribeClusterRequest_1, 2: _enc_DescribeClusterRequest_2}
