"""DescribeLogDirsResponse: generated from Kafka's DescribeLogDirsResponse.json by tools/generate_protocol.py.

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
_S2 = struct.Struct('>iqq?')
_S3 = struct.Struct('>ih')
_S4 = struct.Struct('>qq')
_S5 = struct.Struct('>qq?')


class DescribeLogDirsPartition(Struct):
    __slots__ = ('partition_index', 'partition_size', 'offset_lag', 'is_future_key', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('partition_index', 'PartitionIndex', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('partition_size', 'PartitionSize', 'int64', False, (0, 32767), None, None, None, None), FieldMeta('offset_lag', 'OffsetLag', 'int64', False, (0, 32767), None, None, None, None), FieldMeta('is_future_key', 'IsFutureKey', 'bool', False, (0, 32767), None, None, None, None))

    def __init__(self, *, partition_index: int = 0, partition_size: int = 0, offset_lag: int = 0, is_future_key: bool = False, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.partition_index = partition_index
        self.partition_size = partition_size
        self.offset_lag = offset_lag
        self.is_future_key = is_future_key
        self.unknown_tagged_fields = unknown_tagged_fields


class DescribeLogDirsTopic(Struct):
    __slots__ = ('name', 'partitions', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (0, 32767), None, None, None, None), FieldMeta('partitions', 'Partitions', 'DescribeLogDirsPartition', True, (0, 32767), None, None, None, DescribeLogDirsPartition))

    def __init__(self, *, name: str = '', partitions: list[DescribeLogDirsPartition] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.partitions = [] if partitions is _DEFAULT else partitions
        self.unknown_tagged_fields = unknown_tagged_fields


class DescribeLogDirsResult(Struct):
    __slots__ = ('error_code', 'log_dir', 'topics', 'total_bytes', 'usable_bytes', 'is_cordoned', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('log_dir', 'LogDir', 'string', False, (0, 32767), None, None, None, None), FieldMeta('topics', 'Topics', 'DescribeLogDirsTopic', True, (0, 32767), None, None, None, DescribeLogDirsTopic), FieldMeta('total_bytes', 'TotalBytes', 'int64', False, (4, 32767), None, None, None, None), FieldMeta('usable_bytes', 'UsableBytes', 'int64', False, (4, 32767), None, None, None, None), FieldMeta('is_cordoned', 'IsCordoned', 'bool', False, (5, 32767), None, None, None, None))

    def __init__(self, *, error_code: int = 0, log_dir: str = '', topics: list[DescribeLogDirsTopic] | None = _DEFAULT, total_bytes: int = -1, usable_bytes: int = -1, is_cordoned: bool = False, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.error_code = error_code
        self.log_dir = log_dir
        self.topics = [] if topics is _DEFAULT else topics
        self.total_bytes = total_bytes
        self.usable_bytes = usable_bytes
        self.is_cordoned = is_cordoned
        self.unknown_tagged_fields = unknown_tagged_fields


class DescribeLogDirsResponse(Message):
    """Kafka response DescribeLogDirsResponse (valid versions 1-5)."""

    NAME = 'DescribeLogDirsResponse'
    TYPE = 'response'
    API_KEY = 35
    VALID_VERSIONS = (1, 5)
    FLEXIBLE_VERSIONS = (2, 32767)
    DescribeLogDirsPartition = DescribeLogDirsPartition
    DescribeLogDirsTopic = DescribeLogDirsTopic
    DescribeLogDirsResult = DescribeLogDirsResult
    __slots__ = ('throttle_time_ms', 'error_code', 'results', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('throttle_time_ms', 'ThrottleTimeMs', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('error_code', 'ErrorCode', 'int16', False, (3, 32767), None, None, None, None), FieldMeta('results', 'Results', 'DescribeLogDirsResult', True, (0, 32767), None, None, None, DescribeLogDirsResult))

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, results: list[DescribeLogDirsResult] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.results = [] if results is _DEFAULT else results
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_DescribeLogDirsPartition_0(buf, pos):
    o = _new(DescribeLogDirsPartition)
    o.unknown_tagged_fields = None
    o.partition_index, o.partition_size, o.offset_lag, o.is_future_key = _S2.unpack_from(buf, pos)
    pos += 21
    return o, pos


def _dec_DescribeLogDirsTopic_0(buf, pos):
    o = _new(DescribeLogDirsTopic)
    o.unknown_tagged_fields = None
    o.name, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Partitions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_DescribeLogDirsPartition_0(buf, pos)
            append(item)
        o.partitions = items
    return o, pos


def _dec_DescribeLogDirsResult_0(buf, pos):
    o = _new(DescribeLogDirsResult)
    o.total_bytes = -1
    o.usable_bytes = -1
    o.is_cordoned = False
    o.unknown_tagged_fields = None
    o.error_code, = _S1.unpack_from(buf, pos)
    pos += 2
    o.log_dir, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_DescribeLogDirsTopic_0(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _dec_DescribeLogDirsResponse_0(buf, pos):
    o = _new(DescribeLogDirsResponse)
    o.error_code = 0
    o.unknown_tagged_fields = None
    o.throttle_time_ms, = _S0.unpack_from(buf, pos)
    pos += 4
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Results was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_DescribeLogDirsResult_0(buf, pos)
            append(item)
        o.results = items
    return o, pos


def _enc_DescribeLogDirsPartition_0(o, w):
    w += _S2.pack(o.partition_index, o.partition_size, o.offset_lag, o.is_future_key)


def _enc_DescribeLogDirsTopic_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_DescribeLogDirsPartition_0(item, w)


def _enc_DescribeLogDirsResult_0(o, w):
    w += _S1.pack(o.error_code)
    if o.log_dir is None:
        raise EncodeError('non-nullable field LogDir is None')
    write_string(w, o.log_dir)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_DescribeLogDirsTopic_0(item, w)


def _enc_DescribeLogDirsResponse_0(o, w):
    w += _S0.pack(o.throttle_time_ms)
    items = o.results
    if items is None:
        raise EncodeError('non-nullable array Results is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_DescribeLogDirsResult_0(item, w)


def _dec_DescribeLogDirsPartition_1(buf, pos):
    o = _new(DescribeLogDirsPartition)
    o.partition_index, o.partition_size, o.offset_lag, o.is_future_key = _S2.unpack_from(buf, pos)
    pos += 21
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


def _dec_DescribeLogDirsTopic_1(buf, pos):
    o = _new(DescribeLogDirsTopic)
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
            item, pos = _dec_DescribeLogDirsPartition_1(buf, pos)
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


def _dec_DescribeLogDirsResult_1(buf, pos):
    o = _new(DescribeLogDirsResult)
    o.total_bytes = -1
    o.usable_bytes = -1
    o.is_cordoned = False
    o.error_code, = _S1.unpack_from(buf, pos)
    pos += 2
    o.log_dir, pos = read_compact_string(buf, pos)
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
            item, pos = _dec_DescribeLogDirsTopic_1(buf, pos)
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


def _dec_DescribeLogDirsResponse_1(buf, pos):
    o = _new(DescribeLogDirsResponse)
    o.error_code = 0
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
            item, pos = _dec_DescribeLogDirsResult_1(buf, pos)
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


def _enc_DescribeLogDirsPartition_1(o, w):
    w += _S2.pack(o.partition_index, o.partition_size, o.offset_lag, o.is_future_key)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_DescribeLogDirsTopic_1(o, w):
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
            _enc_DescribeLogDirsPartition_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_DescribeLogDirsResult_1(o, w):
    w += _S1.pack(o.error_code)
    if o.log_dir is None:
        raise EncodeError('non-nullable field LogDir is None')
    write_compact_string(w, o.log_dir)
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
            _enc_DescribeLogDirsTopic_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_DescribeLogDirsResponse_1(o, w):
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
            _enc_DescribeLogDirsResult_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_DescribeLogDirsResponse_2(buf, pos):
    o = _new(DescribeLogDirsResponse)
    o.throttle_time_ms, o.error_code = _S3.unpack_from(buf, pos)
    pos += 6
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
            item, pos = _dec_DescribeLogDirsResult_1(buf, pos)
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


def _enc_DescribeLogDirsResponse_2(o, w):
    w += _S3.pack(o.throttle_time_ms, o.error_code)
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
            _enc_DescribeLogDirsResult_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_DescribeLogDirsResult_2(buf, pos):
    o = _new(DescribeLogDirsResult)
    o.is_cordoned = False
    o.error_code, = _S1.unpack_from(buf, pos)
    pos += 2
    o.log_dir, pos = read_compact_string(buf, pos)
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
            item, pos = _dec_DescribeLogDirsTopic_1(buf, pos)
            append(item)
        o.topics = items
    o.total_bytes, o.usable_bytes = _S4.unpack_from(buf, pos)
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


def _dec_DescribeLogDirsResponse_3(buf, pos):
    o = _new(DescribeLogDirsResponse)
    o.throttle_time_ms, o.error_code = _S3.unpack_from(buf, pos)
    pos += 6
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
            item, pos = _dec_DescribeLogDirsResult_2(buf, pos)
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


def _enc_DescribeLogDirsResult_2(o, w):
    w += _S1.pack(o.error_code)
    if o.log_dir is None:
        raise EncodeError('non-nullable field LogDir is None')
    write_compact_string(w, o.log_dir)
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
            _enc_DescribeLogDirsTopic_1(item, w)
    w += _S4.pack(o.total_bytes, o.usable_bytes)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_DescribeLogDirsResponse_3(o, w):
    w += _S3.pack(o.throttle_time_ms, o.error_code)
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
            _enc_DescribeLogDirsResult_2(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_DescribeLogDirsResult_3(buf, pos):
    o = _new(DescribeLogDirsResult)
    o.error_code, = _S1.unpack_from(buf, pos)
    pos += 2
    o.log_dir, pos = read_compact_string(buf, pos)
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
            item, pos = _dec_DescribeLogDirsTopic_1(buf, pos)
            append(item)
        o.topics = items
    o.total_bytes, o.usable_bytes, o.is_cordoned = _S5.unpack_from(buf, pos)
    pos += 17
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


def _dec_DescribeLogDirsResponse_4(buf, pos):
    o = _new(DescribeLogDirsResponse)
    o.throttle_time_ms, o.error_code = _S3.unpack_from(buf, pos)
    pos += 6
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
            item, pos = _dec_DescribeLogDirsResult_3(buf, pos)
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


def _enc_DescribeLogDirsResult_3(o, w):
    w += _S1.pack(o.error_code)
    if o.log_dir is None:
        raise EncodeError('non-nullable field LogDir is None')
    write_compact_string(w, o.log_dir)
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
            _enc_DescribeLogDirsTopic_1(item, w)
    w += _S5.pack(o.total_bytes, o.usable_bytes, o.is_cordoned)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_DescribeLogDirsResponse_4(o, w):
    w += _S3.pack(o.throttle_time_ms, o.error_code)
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
            _enc_DescribeLogDirsResult_3(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


DescribeLogDirsResponse._DECODERS = {1: _dec_DescribeLogDirsResponse_0, 2: _dec_DescribeLogDirsResponse_1, 3: _dec_DescribeLogDirsResponse_2, 4: _dec_DescribeLogDirsResponse_3, 5: _dec_DescribeLogDirsResponse_4}
DescribeLogDirsResponse._ENCODERS = {1: _enc_DescribeLogDirsResponse_0, 2: _enc_DescribeLogDirsResponse_1, 3: _enc_DescribeLogDirsResponse_2, 4: _enc_DescribeLogDirsResponse_3, 5: _enc_DescribeLogDirsResponse_4}
