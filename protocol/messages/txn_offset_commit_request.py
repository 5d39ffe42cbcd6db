"""TxnOffsetCommitRequest: generated from Kafka's TxnOffsetCommitRequest.json by tools/generate_protocol.py.

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
_S1 = struct.Struct('>iq')
_S2 = struct.Struct('>iqi')
_S3 = struct.Struct('>qhi')


class TxnOffsetCommitRequestPartition(Struct):
    __slots__ = ('partition_index', 'committed_offset', 'committed_leader_epoch', 'committed_metadata', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('partition_index', 'PartitionIndex', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('committed_offset', 'CommittedOffset', 'int64', False, (0, 32767), None, None, None, None), FieldMeta('committed_leader_epoch', 'CommittedLeaderEpoch', 'int32', False, (2, 32767), None, None, None, None), FieldMeta('committed_metadata', 'CommittedMetadata', 'string', False, (0, 32767), (0, 32767), None, None, None))

    def __init__(self, *, partition_index: int = 0, committed_offset: int = 0, committed_leader_epoch: int = -1, committed_metadata: str | None = '', unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.partition_index = partition_index
        self.committed_offset = committed_offset
        self.committed_leader_epoch = committed_leader_epoch
        self.committed_metadata = committed_metadata
        self.unknown_tagged_fields = unknown_tagged_fields


class TxnOffsetCommitRequestTopic(Struct):
    __slots__ = ('name', 'partitions', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (0, 32767), None, None, None, None), FieldMeta('partitions', 'Partitions', 'TxnOffsetCommitRequestPartition', True, (0, 32767), None, None, None, TxnOffsetCommitRequestPartition))

    def __init__(self, *, name: str = '', partitions: list[TxnOffsetCommitRequestPartition] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.partitions = [] if partitions is _DEFAULT else partitions
        self.unknown_tagged_fields = unknown_tagged_fields


class TxnOffsetCommitRequest(Message):
    """Kafka request TxnOffsetCommitRequest (valid versions 0-5)."""

    NAME = 'TxnOffsetCommitRequest'
    TYPE = 'request'
    API_KEY = 28
    VALID_VERSIONS = (0, 5)
    FLEXIBLE_VERSIONS = (3, 32767)
    TxnOffsetCommitRequestPartition = TxnOffsetCommitRequestPartition
    TxnOffsetCommitRequestTopic = TxnOffsetCommitRequestTopic
    __slots__ = ('transactional_id', 'group_id', 'producer_id', 'producer_epoch', 'generation_id', 'member_id', 'group_instance_id', 'topics', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('transactional_id', 'TransactionalId', 'string', False, (0, 32767), None, None, None, None), FieldMeta('group_id', 'GroupId', 'string', False, (0, 32767), None, None, None, None), FieldMeta('producer_id', 'ProducerId', 'int64', False, (0, 32767), None, None, None, None), FieldMeta('producer_epoch', 'ProducerEpoch', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('generation_id', 'GenerationId', 'int32', False, (3, 32767), None, None, None, None), FieldMeta('member_id', 'MemberId', 'string', False, (3, 32767), None, None, None, None), FieldMeta('group_instance_id', 'GroupInstanceId', 'string', False, (3, 32767), (3, 32767), None, None, None), FieldMeta('topics', 'Topics', 'TxnOffsetCommitRequestTopic', True, (0, 32767), None, None, None, TxnOffsetCommitRequestTopic))

    def __init__(self, *, transactional_id: str = '', group_id: str = '', producer_id: int = 0, producer_epoch: int = 0, generation_id: int = -1, member_id: str = '', group_instance_id: str | None = None, topics: list[TxnOffsetCommitRequestTopic] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.transactional_id = transactional_id
        self.group_id = group_id
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch
        self.generation_id = generation_id
        self.member_id = member_id
        self.group_instance_id = group_instance_id
        self.topics = [] if topics is _DEFAULT else topics
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_TxnOffsetCommitRequestPartition_0(buf, pos):
    o = _new(TxnOffsetCommitRequestPartition)
    o.committed_leader_epoch = -1
    o.unknown_tagged_fields = None
    o.partition_index, o.committed_offset = _S1.unpack_from(buf, pos)
    pos += 12
    o.committed_metadata, pos = read_nullable_string(buf, pos)
    return o, pos


def _dec_TxnOffsetCommitRequestTopic_0(buf, pos):
    o = _new(TxnOffsetCommitRequestTopic)
    o.unknown_tagged_fields = None
    o.name, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Partitions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_TxnOffsetCommitRequestPartition_0(buf, pos)
            append(item)
        o.partitions = items
    return o, pos


def _dec_TxnOffsetCommitRequest_0(buf, pos):
    o = _new(TxnOffsetCommitRequest)
    o.generation_id = -1
    o.member_id = ''
    o.group_instance_id = None
    o.unknown_tagged_fields = None
    o.transactional_id, pos = read_string(buf, pos)
    o.group_id, pos = read_string(buf, pos)
    o.producer_id, o.producer_epoch = _S0.unpack_from(buf, pos)
    pos += 10
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_TxnOffsetCommitRequestTopic_0(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _enc_TxnOffsetCommitRequestPartition_0(o, w):
    w += _S1.pack(o.partition_index, o.committed_offset)
    write_nullable_string(w, o.committed_metadata)


def _enc_TxnOffsetCommitRequestTopic_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_TxnOffsetCommitRequestPartition_0(item, w)


def _enc_TxnOffsetCommitRequest_0(o, w):
    if o.transactional_id is None:
        raise EncodeError('non-nullable field TransactionalId is None')
    write_string(w, o.transactional_id)
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_string(w, o.group_id)
    w += _S0.pack(o.producer_id, o.producer_epoch)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_TxnOffsetCommitRequestTopic_0(item, w)


def _dec_TxnOffsetCommitRequestPartition_1(buf, pos):
    o = _new(TxnOffsetCommitRequestPartition)
    o.unknown_tagged_fields = None
    o.partition_index, o.committed_offset, o.committed_leader_epoch = _S2.unpack_from(buf, pos)
    pos += 16
    o.committed_metadata, pos = read_nullable_string(buf, pos)
    return o, pos


def _dec_TxnOffsetCommitRequestTopic_1(buf, pos):
    o = _new(TxnOffsetCommitRequestTopic)
    o.unknown_tagged_fields = None
    o.name, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Partitions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_TxnOffsetCommitRequestPartition_1(buf, pos)
            append(item)
        o.partitions = items
    return o, pos


def _dec_TxnOffsetCommitRequest_1(buf, pos):
    o = _new(TxnOffsetCommitRequest)
    o.generation_id = -1
    o.member_id = ''
    o.group_instance_id = None
    o.unknown_tagged_fields = None
    o.transactional_id, pos = read_string(buf, pos)
    o.group_id, pos = read_string(buf, pos)
    o.producer_id, o.producer_epoch = _S0.unpack_from(buf, pos)
    pos += 10
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_TxnOffsetCommitRequestTopic_1(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _enc_TxnOffsetCommitRequestPartition_1(o, w):
    w += _S2.pack(o.partition_index, o.committed_offset, o.committed_leader_epoch)
    write_nullable_string(w, o.committed_metadata)


def _enc_TxnOffsetCommitRequestTopic_1(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_TxnOffsetCommitRequestPartition_1(item, w)


def _enc_TxnOffsetCommitRequest_1(o, w):
    if o.transactional_id is None:
        raise EncodeError('non-nullable field TransactionalId is None')
    write_string(w, o.transactional_id)
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_string(w, o.group_id)
    w += _S0.pack(o.producer_id, o.producer_epoch)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_TxnOffsetCommitRequestTopic_1(item, w)


def _dec_TxnOffsetCommitRequestPartition_2(buf, pos):
    o = _new(TxnOffsetCommitRequestPartition)
    o.partition_index, o.committed_offset, o.committed_leader_epoch = _S2.unpack_from(buf, pos)
    pos += 16
    o.committed_metadata, pos = read_compact_nullable_string(buf, pos)
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


def _dec_TxnOffsetCommitRequestTopic_2(buf, pos):
    o = _new(TxnOffsetCommitRequestTopic)
    o.name, pos = read_compact_string(buf, pos)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Partitions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_TxnOffsetCommitRequestPartition_2(buf, pos)
            append(item)
        o.partitions = items
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


def _dec_TxnOffsetCommitRequest_2(buf, pos):
    o = _new(TxnOffsetCommitRequest)
    o.transactional_id, pos = read_compact_string(buf, pos)
    o.group_id, pos = read_compact_string(buf, pos)
    o.producer_id, o.producer_epoch, o.generation_id = _S3.unpack_from(buf, pos)
    pos += 14
    o.member_id, pos = read_compact_string(buf, pos)
    o.group_instance_id, pos = read_compact_nullable_string(buf, pos)
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
            item, pos = _dec_TxnOffsetCommitRequestTopic_2(buf, pos)
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


def _enc_TxnOffsetCommitRequestPartition_2(o, w):
    w += _S2.pack(o.partition_index, o.committed_offset, o.committed_leader_epoch)
    write_compact_nullable_string(w, o.committed_metadata)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_TxnOffsetCommitRequestTopic_2(o, w):
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
        for item in items:
            _enc_TxnOffsetCommitRequestPartition_2(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_TxnOffsetCommitRequest_2(o, w):
    if o.transactional_id is None:
        raise EncodeError('non-nullable field TransactionalId is None')
    write_compact_string(w, o.transactional_id)
    if o.group_id is None:
        raise EncodeError('non-nullable field GroupId is None')
    write_compact_string(w, o.group_id)
    w += _S3.pack(o.producer_id, o.producer_epoch, o.generation_id)
    if o.member_id is None:
        raise EncodeError('non-nullable field MemberId is None')
    write_compact_string(w, o.member_id)
    write_compact_nullable_string(w, o.group_instance_id)
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
            _enc_TxnOffsetCommitRequestTopic_2(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


TxnOffsetCommitRequest._DECODERS = {0: _dec_TxnOffsetCommitRequest_0, 1: _dec_TxnOffsetCommitRequest_0, 2: _dec_TxnOffsetCommitRequest_1, 3: _dec_TxnOffsetCommitRequest_2, 4: _dec_TxnOffsetCommitRequest_2, 5: _dec_TxnOffsetCommitRequest_2}
TxnOffsetCommitRequest._ENCODERS = {0: _enc_TxnOffsetCommitRequest_0, 1: _enc_TxnOffsetCommitRequest_0, 2: _enc_TxnOffsetCommitRequest_1, 3: _enc_TxnOffsetCommitRequest_2, 4: _enc_TxnOffsetCommitRequest_2, 5: _enc_TxnOffsetCommitRequest_2}
