"""AddOffsetsToTxnRequest: generated from Kafka's AddOffsetsToTxnRequest.json by tools/generate_protocol.py.

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
_S0 = struct.Struct('>qh')


class AddOffsetsToTxnRequest(Message):
    """Kafka request AddOffsetsToTxnRequest (valid versions 0-4)."""

    NAME = 'AddOffsetsToTxnRequest'
    TYPE = 'request'
    API_KEY = 25
    VALID_VERSIONS = (0, 4)
    FLEXIBLE_VERSIONS = (3, 32767)
    __slots__ = ('transactional_id', 'producer_id', 'producer_epoch', 'group_id', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('transactional_id', 'TransactionalId', 'string', False, (0, 32767), None, None, None, None), FieldMeta('producer_id', 'ProducerId', 'int64', False, (0, 32767), None, None, None, None), FieldMeta('producer_epoch', 'ProducerEpoch', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('group_id', 'GroupId', 'string', False, (0, 32767), None, None, None, None))

    def __init__(self, *, transactional_id: str = '', producer_id: int = 0, producer_epoch: int = 0, group_id: str = '', unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.transactional_id = transactional_id
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch
        self.group_id = group_id
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_AddOffsetsToTxnRequest_0(buf, pos):
    o = _new(AddOffsetsToTxnRequest)
    o.unknown_tagged_fields = None
    o.transactional_id, pos = read_string(buf, pos)
    o.producer_id, o.producer_epoch = _S0.unpack_from(buf, pos)
    pos += 10
    o.group_id, pos = read_string(buf, pos)
    return o, pos


def _enc_AddOffsetsToTxnRequest_0(o, w):
    if o.transactional_id is None:
        raise EncodeError('non-nullable field TransactionalId is None')
    write_string(w, o.transactional_id)
    w += _S0.pack(o.producer_id, o.producer_epoch)
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_string(w, o.group_id)


def _dec_AddOffsetsToTxnRequest_1(buf, pos):
    o = _new(AddOffsetsToTxnRequest)
    o.transactional_id, pos = read_compact_string(buf, pos)
    o.producer_id, o.producer_epoch = _S0.unpack_from(buf, pos)
    pos += 10
    o.group_id, pos = read_compact_string(buf, pos)
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


def _enc_AddOffsetsToTxnRequest_1(o, w):
    if o.transactional_id is None:
        raise EncodeError('non-nullable field TransactionalId is None')
    write_compact_string(w, o.transactional_id)
    w += _S0.pack(o.producer_id, o.producer_epoch)
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_compact_string(w, o.group_id)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


AddOffsetsToTxnRequest._DECODERS = {0: _dec_AddOffsetsToTxnRequest_0, 1: _dec_AddOffsetsToTxnRequest_0, 2: _dec_AddOffsetsToTxnRequest_0, 3: _dec_AddOffsetsToTxnRequest_1, 4: _dec_AddOffsetsToTxnRequest_1}
AddOffsetsToTxnRequest._ENCODERS = {0: _enc_AddOffsetsToTxnRequest_0, 1: _enc_AddOffsetsToTxnRequest_0, 2: _enc_AddOffsetsToTxnRequest_0, 3: _enc_AddOffsetsToTxnRequest_1, 4: _enc_AddOffsetsToTxnRequest_1}
