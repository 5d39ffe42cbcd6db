"""AddPartitionsToTxnRequest: generated from Kafka's AddPartitionsToTxnRequest.json by tools/generate_protocol.py.

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
_S1 = struct.Struct('>qh?')


class AddPartitionsToTxnTopic(Struct):
    __slots__ = ('name', 'partitions', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (0, 32767), None, None, None, None), FieldMeta('partitions', 'Partitions', 'int32', True, (0, 32767), None, None, None, None))

    def __init__(self, *, name: str = '', partitions: list[int] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.partitions = [] if partitions is _DEFAULT else partitions
        self.unknown_tagged_fields = unknown_tagged_fields


class AddPartitionsToTxnTransaction(Struct):
    __slots__ = ('transactional_id', 'producer_id', 'producer_epoch', 'verify_only', 'topics', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('transactional_id', 'TransactionalId', 'string', False, (4, 32767), None, None, None, None), FieldMeta('producer_id', 'ProducerId', 'int64', False, (4, 32767), None, None, None, None), FieldMeta('producer_epoch', 'ProducerEpoch', 'int16', False, (4, 32767), None, None, None, None), FieldMeta('verify_only', 'VerifyOnly', 'bool', False, (4, 32767), None, None, None, None), FieldMeta('topics', 'Topics', 'AddPartitionsToTxnTopic', True, (4, 32767), None, None, None, AddPartitionsToTxnTopic))

    def __init__(self, *, transactional_id: str = '', producer_id: int = 0, producer_epoch: int = 0, verify_only: bool = False, topics: list[AddPartitionsToTxnTopic] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.transactional_id = transactional_id
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch
        self.verify_only = verify_only
        self.topics = [] if topics is _DEFAULT else topics
        self.unknown_tagged_fields = unknown_tagged_fields


class AddPartitionsToTxnRequest(Message):
    """Kafka request AddPartitionsToTxnRequest (valid versions 0-5)."""

    NAME = 'AddPartitionsToTxnRequest'
    TYPE = 'request'
    API_KEY = 24
    VALID_VERSIONS = (0, 5)
    FLEXIBLE_VERSIONS = (3, 32767)
    AddPartitionsToTxnTopic = AddPartitionsToTxnTopic
    AddPartitionsToTxnTransaction = AddPartitionsToTxnTransaction
    __slots__ = ('transactions', 'v3_and_below_transactional_id', 'v3_and_below_producer_id', 'v3_and_below_producer_epoch', 'v3_and_below_topics', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('transactions', 'Transactions', 'AddPartitionsToTxnTransaction', True, (4, 32767), None, None, None, AddPartitionsToTxnTransaction), FieldMeta('v3_and_below_transactional_id', 'V3AndBelowTransactionalId', 'string', False, (0, 3), None, None, None, None), FieldMeta('v3_and_below_producer_id', 'V3AndBelowProducerId', 'int64', False, (0, 3), None, None, None, None), FieldMeta('v3_and_below_producer_epoch', 'V3AndBelowProducerEpoch', 'int16', False, (0, 3), None, None, None, None), FieldMeta('v3_and_below_topics', 'V3AndBelowTopics', 'AddPartitionsToTxnTopic', True, (0, 3), None, None, None, AddPartitionsToTxnTopic))

    def __init__(self, *, transactions: list[AddPartitionsToTxnTransaction] | None = _DEFAULT, v3_and_below_transactional_id: str = '', v3_and_below_producer_id: int = 0, v3_and_below_producer_epoch: int = 0, v3_and_below_topics: list[AddPartitionsToTxnTopic] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.transactions = [] if transactions is _DEFAULT else transactions
        self.v3_and_below_transactional_id = v3_and_below_transactional_id
        self.v3_and_below_producer_id = v3_and_below_producer_id
        self.v3_and_below_producer_epoch = v3_and_below_producer_epoch
        self.v3_and_below_topics = [] if v3_and_below_topics is _DEFAULT else v3_and_below_topics
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_AddPartitionsToTxnTopic_0(buf, pos):
    o = _new(AddPartitionsToTxnTopic)
    o.unknown_tagged_fields = None
    o.name, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Partitions was null')
    else:
        end = pos + n * 4
        if end > len(buf):
            raise DecodeError('truncated array Partitions')
        o.partitions = list(_unpack_from('>%di' % n, buf, pos))
        pos = end
    return o, pos


def _dec_AddPartitionsToTxnRequest_0(buf, pos):
    o = _new(AddPartitionsToTxnRequest)
    o.transactions = []
    o.unknown_tagged_fields = None
    o.v3_and_below_transactional_id, pos = read_string(buf, pos)
    o.v3_and_below_producer_id, o.v3_and_below_producer_epoch = _S0.unpack_from(buf, pos)
    pos += 10
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array V3AndBelowTopics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_AddPartitionsToTxnTopic_0(buf, pos)
            append(item)
        o.v3_and_below_topics = items
    return o, pos


def _enc_AddPartitionsToTxnTopic_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        write_array_length(w, len(items))
        w += _pack('>%di' % len(items), *items)


def _enc_AddPartitionsToTxnRequest_0(o, w):
    if o.v3_and_below_transactional_id is None:
        raise EncodeError('non-nullable field V3AndBelowTransactionalId is None')
    write_string(w, o.v3_and_below_transactional_id)
    w += _S0.pack(o.v3_and_below_producer_id, o.v3_and_below_producer_epoch)
    items = o.v3_and_below_topics
    if items is None:
        raise EncodeError('non-nullable array V3AndBelowTopics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_AddPartitionsToTxnTopic_0(item, w)


def _dec_AddPartitionsToTxnTopic_1(buf, pos):
    o = _new(AddPartitionsToTxnTopic)
    o.name, pos = read_compact_string(buf, pos)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Partitions was null')
    else:
        end = pos + n * 4
        if end > len(buf):
            raise DecodeError('truncated array Partitions')
        o.partitions = list(_unpack_from('>%di' % n, buf, pos))
        pos = end
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


def _dec_AddPartitionsToTxnRequest_1(buf, pos):
    o = _new(AddPartitionsToTxnRequest)
    o.transactions = []
    o.v3_and_below_transactional_id, pos = read_compact_string(buf, pos)
    o.v3_and_below_producer_id, o.v3_and_below_producer_epoch = _S0.unpack_from(buf, pos)
    pos += 10
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array V3AndBelowTopics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_AddPartitionsToTxnTopic_1(buf, pos)
            append(item)
        o.v3_and_below_topics = items
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


def _enc_AddPartitionsToTxnTopic_1(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_compact_string(w, o.name)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        w += _pack('>%di' % len(items), *items)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_AddPartitionsToTxnRequest_1(o, w):
    if o.v3_and_below_transactional_id is None:
        raise EncodeError('non-nullable field V3AndBelowTransactionalId is None')
    write_compact_string(w, o.v3_and_below_transactional_id)
    w += _S0.pack(o.v3_and_below_producer_id, o.v3_and_below_producer_epoch)
    items = o.v3_and_below_topics
    if items is None:
        raise EncodeError('non-nullable array V3AndBelowTopics is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_AddPartitionsToTxnTopic_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_AddPartitionsToTxnTransaction_0(buf, pos):
    o = _new(AddPartitionsToTxnTransaction)
    o.transactional_id, pos = read_compact_string(buf, pos)
    o.producer_id, o.producer_epoch, o.verify_only = _S1.unpack_from(buf, pos)
    pos += 11
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_AddPartitionsToTxnTopic_1(buf, pos)
            append(item)
        o.topics = items
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


def _dec_AddPartitionsToTxnRequest_2(buf, pos):
    o = _new(AddPartitionsToTxnRequest)
    o.v3_and_below_transactional_id = ''
    o.v3_and_below_producer_id = 0
    o.v3_and_below_producer_epoch = 0
    o.v3_and_below_topics = []
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Transactions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_AddPartitionsToTxnTransaction_0(buf, pos)
            append(item)
        o.transactions = items
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


def _enc_AddPartitionsToTxnTransaction_0(o, w):
    if o.transactional_id is None:
        raise EncodeError('non-nullable field TransactionalId is None')
    write_compact_string(w, o.transactional_id)
    w += _S1.pack(o.producer_id, o.producer_epoch, o.verify_only)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_AddPartitionsToTxnTopic_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_AddPartitionsToTxnRequest_2(o, w):
    items = o.transactions
    if items is None:
        raise EncodeError('non-nullable array Transactions is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_AddPartitionsToTxnTransaction_0(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


AddPartitionsToTxnRequest._DECODERS = {0: _dec_AddPartitionsToTxnRequest_0, 1: _dec_AddPartitionsToTxnRequest_0, 2: _dec_AddPartitionsToTxnRequest_0, 3: _dec_AddPartitionsToTxnRequest_1, 4: _dec_AddPartitionsToTxnRequest_2, 5: _dec_AddPartitionsToTxnRequest_2}
AddPartitionsToTxnRequest._ENCODERS = {0: _enc_AddPartitionsToTxnRequest_0, 1: _enc_AddPartitionsToTxnRequest_0, 2: _enc_AddPartitionsToTxnRequest_0, 3: _enc_AddPartitionsToTxnRequest_1, 4: _enc_AddPartitionsToTxnRequest_2, 5: _enc_AddPartitionsToTxnRequest_2}
