"""InitProducerIdRequest: generated from Kafka's InitProducerIdRequest.json by tools/generate_protocol.py.

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
_S1 = struct.Struct('>iqh')
_S2 = struct.Struct('>iqh??')


class InitProducerIdRequest(Message):
    """Kafka request InitProducerIdRequest (valid versions 0-6)."""

    NAME = 'InitProducerIdRequest'
    TYPE = 'request'
    API_KEY = 22
    VALID_VERSIONS = (0, 6)
    FLEXIBLE_VERSIONS = (2, 32767)
    __slots__ = ('transactional_id', 'transaction_timeout_ms', 'producer_id', 'producer_epoch', 'enable2_pc', 'keep_prepared_txn', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('transactional_id', 'TransactionalId', 'string', False, (0, 32767), (0, 32767), None, None, None), FieldMeta('transaction_timeout_ms', 'TransactionTimeoutMs', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('producer_id', 'ProducerId', 'int64', False, (3, 32767), None, None, None, None), FieldMeta('producer_epoch', 'ProducerEpoch', 'int16', False, (3, 32767), None, None, None, None), FieldMeta('enable2_pc', 'Enable2Pc', 'bool', False, (6, 32767), None, None, None, None), FieldMeta('keep_prepared_txn', 'KeepPreparedTxn', 'bool', False, (6, 32767), None, None, None, None))

    def __init__(self, *, transactional_id: str | None = '', transaction_timeout_ms: int = 0, producer_id: int = -1, producer_epoch: int = -1, enable2_pc: bool = False, keep_prepared_txn: bool = False, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.transactional_id = transactional_id
        self.transaction_timeout_ms = transaction_timeout_ms
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch
        self.enable2_pc = enable2_pc
        self.keep_prepared_txn = keep_prepared_txn
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_InitProducerIdRequest_0(buf, pos):
    o = _new(InitProducerIdRequest)
    o.producer_id = -1
    o.producer_epoch = -1
    o.enable2_pc = False
    o.keep_prepared_txn = False
    o.unknown_tagged_fields = None
    o.transactional_id, pos = read_nullable_string(buf, pos)
    o.transaction_timeout_ms, = _S0.unpack_from(buf, pos)
    pos += 4
    return o, pos


def _enc_InitProducerIdRequest_0(o, w):
    write_nullable_string(w, o.transactional_id)
    w += _S0.pack(o.transaction_timeout_ms)


def _dec_InitProducerIdRequest_1(buf, pos):
    o = _new(InitProducerIdRequest)
    o.producer_id = -1
    o.producer_epoch = -1
    o.enable2_pc = False
    o.keep_prepared_txn = False
    o.transactional_id, pos = read_compact_nullable_string(buf, pos)
    o.transaction_timeout_ms, = _S0.unpack_from(buf, pos)
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


def _enc_InitProducerIdRequest_1(o, w):
    write_compact_nullable_string(w, o.transactional_id)
    w += _S0.pack(o.transaction_timeout_ms)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_InitProducerIdRequest_2(buf, pos):
    o = _new(InitProducerIdRequest)
    o.enable2_pc = False
    o.keep_prepared_txn = False
    o.transactional_id, pos = read_compact_nullable_string(buf, pos)
    o.transaction_timeout_ms, o.producer_id, o.producer_epoch = _S1.unpack_from(buf, pos)
    pos += 14
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


def _enc_InitProducerIdRequest_2(o, w):
    write_compact_nullable_string(w, o.transactional_id)
    w += _S1.pack(o.transaction_timeout_ms, o.producer_id, o.producer_epoch)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_InitProducerIdRequest_3(buf, pos):
    o = _new(InitProducerIdRequest)
    o.transactional_id, pos = read_compact_nullable_string(buf, pos)
    o.transaction_timeout_ms, o.producer_id, o.producer_epoch, o.enable2_pc, o.keep_prepared_txn = _S2.unpack_from(buf, pos)
    pos += 16
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


def _enc_InitProducerIdRequest_3(o, w):
    write_compact_nullable_string(w, o.transactional_id)
    w += _S2.pack(o.transaction_timeout_ms, o.producer_id, o.producer_epoch, o.enable2_pc, o.keep_prepared_txn)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


InitProducerIdRequest._DECODERS = {0: _dec_InitProducerIdRequest_0, 1: _dec_InitProducerIdRequest_0, 2: _dec_InitProducerIdRequest_1, 3: _dec_InitProducerIdRequest_2, 4: _dec_InitProducerIdRequest_2, 5: _dec_InitProducerIdRequest_2, 6: _dec_InitProducerIdRequest_3}
InitProducerIdRequest._ENCODERS = {0: _enc_InitProducerIdRequest_0, 1: _enc_InitProducerIdRequest_0, 2: _enc_InitProducerIdRequest_1, 3: _enc_InitProducerIdRequest_2, 4: _enc_InitProducerIdRequest_2, 5: _enc_InitProducerIdRequest_2, 6: _enc_InitProducerIdRequest_3}
