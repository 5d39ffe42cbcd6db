"""JoinGroupRequest: generated from Kafka's JoinGroupRequest.json by tools/generate_protocol.py.

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
_S1 = struct.Struct('>ii')


class JoinGroupRequestProtocol(Struct):
    __slots__ = ('name', 'metadata', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (0, 32767), None, None, None, None), FieldMeta('metadata', 'Metadata', 'bytes', False, (0, 32767), None, None, None, None))

    def __init__(self, *, name: str = '', metadata: bytes = b'', unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.metadata = metadata
        self.unknown_tagged_fields = unknown_tagged_fields


class JoinGroupRequest(Message):
    """Kafka request JoinGroupRequest (valid versions 0-9)."""

    NAME = 'JoinGroupRequest'
    TYPE = 'request'
    API_KEY = 11
    VALID_VERSIONS = (0, 9)
    FLEXIBLE_VERSIONS = (6, 32767)
    JoinGroupRequestProtocol = JoinGroupRequestProtocol
    __slots__ = ('group_id', 'session_timeout_ms', 'rebalance_timeout_ms', 'member_id', 'group_instance_id', 'protocol_type', 'protocols', 'reason', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('group_id', 'GroupId', 'string', False, (0, 32767), None, None, None, None), FieldMeta('session_timeout_ms', 'SessionTimeoutMs', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('rebalance_timeout_ms', 'RebalanceTimeoutMs', 'int32', False, (1, 32767), None, None, None, None), FieldMeta('member_id', 'MemberId', 'string', False, (0, 32767), None, None, None, None), FieldMeta('group_instance_id', 'GroupInstanceId', 'string', False, (5, 32767), (5, 32767), None, None, None), FieldMeta('protocol_type', 'ProtocolType', 'string', False, (0, 32767), None, None, None, None), FieldMeta('protocols', 'Protocols', 'JoinGroupRequestProtocol', True, (0, 32767), None, None, None, JoinGroupRequestProtocol), FieldMeta('reason', 'Reason', 'string', False, (8, 32767), (8, 32767), None, None, None))

    def __init__(self, *, group_id: str = '', session_timeout_ms: int = 0, rebalance_timeout_ms: int = -1, member_id: str = '', group_instance_id: str | None = None, protocol_type: str = '', protocols: list[JoinGroupRequestProtocol] | None = _DEFAULT, reason: str | None = None, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.group_id = group_id
        self.session_timeout_ms = session_timeout_ms
        self.rebalance_timeout_ms = rebalance_timeout_ms
        self.member_id = member_id
        self.group_instance_id = group_instance_id
        self.protocol_type = protocol_type
        self.protocols = [] if protocols is _DEFAULT else protocols
        self.reason = reason
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_JoinGroupRequestProtocol_0(buf, pos):
    o = _new(JoinGroupRequestProtocol)
    o.unknown_tagged_fields = None
    o.name, pos = read_string(buf, pos)
    o.metadata, pos = read_bytes(buf, pos)
    return o, pos


def _dec_JoinGroupRequest_0(buf, pos):
    o = _new(JoinGroupRequest)
    o.rebalance_timeout_ms = -1
    o.group_instance_id = None
    o.reason = None
    o.unknown_tagged_fields = None
    o.group_id, pos = read_string(buf, pos)
    o.session_timeout_ms, = _S0.unpack_from(buf, pos)
    pos += 4
    o.member_id, pos = read_string(buf, pos)
    o.protocol_type, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Protocols was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_JoinGroupRequestProtocol_0(buf, pos)
            append(item)
        o.protocols = items
    return o, pos


def _enc_JoinGroupRequestProtocol_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    if o.metadata is None:
        raise EncodeError('non-nullable field Metadata is None')
    write_bytes(w, o.metadata)


def _enc_JoinGroupRequest_0(o, w):
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_string(w, o.group_id)
    w += _S0.pack(o.session_timeout_ms)
    if o.member_id is None:
        raise EncodeError('non-nullable field MemberId is None')
    write_string(w, o.member_id)
    if o.protocol_type is None:
        raise EncodeError('non-nullable field ProtocolType is None')
    write_string(w, o.protocol_type)
    items = o.protocols
    if items is None:
        raise EncodeError('non-nullable array Protocols is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_JoinGroupRequestProtocol_0(item, w)


def _dec_JoinGroupRequest_1(buf, pos):
    o = _new(JoinGroupRequest)
    o.group_instance_id = None
    o.reason = None
    o.unknown_tagged_fields = None
    o.group_id, pos = read_string(buf, pos)
    o.session_timeout_ms, o.rebalance_timeout_ms = _S1.unpack_from(buf, pos)
    pos += 8
    o.member_id, pos = read_string(buf, pos)
    o.protocol_type, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Protocols was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_JoinGroupRequestProtocol_0(buf, pos)
            append(item)
        o.protocols = items
    return o, pos


def _enc_JoinGroupRequest_1(o, w):
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_string(w, o.group_id)
    w += _S1.pack(o.session_timeout_ms, o.rebalance_timeout_ms)
    if o.member_id is None:
        raise EncodeError('non-nullable field MemberId is None')
    write_string(w, o.member_id)
    if o.protocol_type is None:
        raise EncodeError('non-nullable field ProtocolType is None')
    write_string(w, o.protocol_type)
    items = o.protocols
    if items is None:
        raise EncodeError('non-nullable array Protocols is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_JoinGroupRequestProtocol_0(item, w)


def _dec_JoinGroupRequest_2(buf, pos):
    o = _new(JoinGroupRequest)
    o.reason = None
    o.unknown_tagged_fields = None
    o.group_id, pos = read_string(buf, pos)
    o.session_timeout_ms, o.rebalance_timeout_ms = _S1.unpack_from(buf, pos)
    pos += 8
    o.member_id, pos = read_string(buf, pos)
    o.group_instance_id, pos = read_nullable_string(buf, pos)
    o.protocol_type, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Protocols was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_JoinGroupRequestProtocol_0(buf, pos)
            append(item)
        o.protocols = items
    return o, pos


def _enc_JoinGroupRequest_2(o, w):
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_string(w, o.group_id)
    w += _S1.pack(o.session_timeout_ms, o.rebalance_timeout_ms)
    if o.member_id is None:
        raise EncodeError('non-nullable field MemberId is None')
    write_string(w, o.member_id)
    write_nullable_string(w, o.group_instance_id)
    if o.protocol_type is None:
        raise EncodeError('non-nullable field ProtocolType is None')
    write_string(w, o.protocol_type)
    items = o.protocols
    if items is None:
        raise EncodeError('non-nullable array Protocols is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_JoinGroupRequestProtocol_0(item, w)


def _dec_JoinGroupRequestProtocol_1(buf, pos):
    o = _new(JoinGroupRequestProtocol)
    o.name, pos = read_compact_string(buf, pos)
    o.metadata, pos = read_compact_bytes(buf, pos)
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


def _dec_JoinGroupRequest_3(buf, pos):
    o = _new(JoinGroupRequest)
    o.reason = None
    o.group_id, pos = read_compact_string(buf, pos)
    o.session_timeout_ms, o.rebalance_timeout_ms = _S1.unpack_from(buf, pos)
    pos += 8
    o.member_id, pos = read_compact_string(buf, pos)
    o.group_instance_id, pos = read_compact_nullable_string(buf, pos)
    o.protocol_type, pos = read_compact_string(buf, pos)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Protocols was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_JoinGroupRequestProtocol_1(buf, pos)
            append(item)
        o.protocols = items
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


def _enc_JoinGroupRequestProtocol_1(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_compact_string(w, o.name)
    if o.metadata is None:
        raise EncodeError('non-nullable field Metadata is None')
    write_compact_bytes(w, o.metadata)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_JoinGroupRequest_3(o, w):
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_compact_string(w, o.group_id)
    w += _S1.pack(o.session_timeout_ms, o.rebalance_timeout_ms)
    if o.member_id is None:
        raise EncodeError('non-nullable field MemberId is None')
    write_compact_string(w, o.member_id)
    write_compact_nullable_string(w, o.group_instance_id)
    if o.protocol_type is None:
        raise EncodeError('non-nullable field ProtocolType is None')
    write_compact_string(w, o.protocol_type)
    items = o.protocols
    if items is None:
        raise EncodeError('non-nullable array Protocols is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_JoinGroupRequestProtocol_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_JoinGroupRequest_4(buf, pos):
    o = _new(JoinGroupRequest)
    o.group_id, pos = read_compact_string(buf, pos)
    o.session_timeout_ms, o.rebalance_timeout_ms = _S1.unpack_from(buf, pos)
    pos += 8
    o.member_id, pos = read_compact_string(buf, pos)
    o.group_instance_id, pos = read_compact_nullable_string(buf, pos)
    o.protocol_type, pos = read_compact_string(buf, pos)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Protocols was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_JoinGroupRequestProtocol_1(buf, pos)
            append(item)
        o.protocols = items
    o.reason, pos = read_compact_nullable_string(buf, pos)
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


def _enc_JoinGroupRequest_4(o, w):
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_compact_string(w, o.group_id)
    w += _S1.pack(o.session_timeout_ms, o.rebalance_timeout_ms)
    if o.member_id is None:
        raise EncodeError('non-nullable field MemberId is None')
    write_compact_string(w, o.member_id)
    write_compact_nullable_string(w, o.group_instance_id)
    if o.protocol_type is None:
        raise EncodeError('non-nullable field ProtocolType is None')
    write_compact_string(w, o.protocol_type)
    items = o.protocols
    if items is None:
        raise EncodeError('non-nullable array Protocols is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_JoinGroupRequestProtocol_1(item, w)
    write_compact_nullable_string(w, o.reason)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


JoinGroupRequest._DECODERS = {0: _dec_JoinGroupRequest_0, 1: _dec_JoinGroupRequest_1, 2: _dec_JoinGroupRequest_1, 3: _dec_JoinGroupRequest_1, 4: _dec_JoinGroupRequest_1, 5: _dec_JoinGroupRequest_2, 6: _dec_JoinGroupRequest_3, 7: _dec_JoinGroupRequest_3, 8: _dec_JoinGroupRequest_4, 9: _dec_JoinGroupRequest_4}
JoinGroupRequest._ENCODERS = {0: _enc_JoinGroupRequest_0, 1: _enc_JoinGroupRequest_1, 2: _enc_JoinGroupRequest_1, 3: _enc_JoinGroupRequest_1, 4: _enc_JoinGroupRequest_1, 5: _enc_JoinGroupRequest_2, 6: _enc_JoinGroupRequest_3, 7: _enc_JoinGroupRequest_3, 8: _enc_JoinGroupRequest_4, 9: _enc_JoinGroupRequest_4}
