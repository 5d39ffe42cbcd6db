"""AlterReplicaLogDirsRequest: generated from Kafka's AlterReplicaLogDirsRequest.json by tools/generate_protocol.py.

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


class AlterReplicaLogDirTopic(Struct):
    __slots__ = ('name', 'partitions', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (0, 32767), None, None, None, None), FieldMeta('partitions', 'Partitions', 'int32', True, (0, 32767), None, None, None, None))

    def __init__(self, *, name: str = '', partitions: list[int] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.partitions = [] if partitions is _DEFAULT else partitions
        self.unknown_tagged_fields = unknown_tagged_fields


class AlterReplicaLogDir(Struct):
    __slots__ = ('path', 'topics', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('path', 'Path', 'string', False, (0, 32767), None, None, None, None), FieldMeta('topics', 'Topics', 'AlterReplicaLogDirTopic', True, (0, 32767), None, None, None, AlterReplicaLogDirTopic))

    def __init__(self, *, path: str = '', topics: list[AlterReplicaLogDirTopic] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.path = path
        self.topics = [] if topics is _DEFAULT else topics
        self.unknown_tagged_fields = unknown_tagged_fields


class AlterReplicaLogDirsRequest(Message):
    """Kafka request AlterReplicaLogDirsRequest (valid versions 1-2)."""

    NAME = 'AlterReplicaLogDirsRequest'
    TYPE = 'request'
    API_KEY = 34
    VALID_VERSIONS = (1, 2)
    FLEXIBLE_VERSIONS = (2, 32767)
    AlterReplicaLogDirTopic = AlterReplicaLogDirTopic
    AlterReplicaLogDir = AlterReplicaLogDir
    __slots__ = ('dirs', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('dirs', 'Dirs', 'AlterReplicaLogDir', True, (0, 32767), None, None, None, AlterReplicaLogDir),)

    def __init__(self, *, dirs: list[AlterReplicaLogDir] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.dirs = [] if dirs is _DEFAULT else dirs
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_AlterReplicaLogDirTopic_0(buf, pos):
    o = _new(AlterReplicaLogDirTopic)
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


def _dec_AlterReplicaLogDir_0(buf, pos):
    o = _new(AlterReplicaLogDir)
    o.unknown_tagged_fields = None
    o.path, pos = read_string(buf, pos)
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Topics was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_AlterReplicaLogDirTopic_0(buf, pos)
            append(item)
        o.topics = items
    return o, pos


def _dec_AlterReplicaLogDirsRequest_0(buf, pos):
    o = _new(AlterReplicaLogDirsRequest)
    o.unknown_tagged_fields = None
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Dirs was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_AlterReplicaLogDir_0(buf, pos)
            append(item)
        o.dirs = items
    return o, pos


def _enc_AlterReplicaLogDirTopic_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_string(w, o.name)
    items = o.partitions
    if items is None:
        raise EncodeError('non-nullable array Partitions is None')
    else:
        write_array_length(w, len(items))
        w += _pack('>%di' % len(items), *items)


def _enc_AlterReplicaLogDir_0(o, w):
    if o.path is None:
        raise EncodeError('non-nullable field Path is None')
    write_string(w, o.path)
    items = o.topics
    if items is None:
        raise EncodeError('non-nullable array Topics is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_AlterReplicaLogDirTopic_0(item, w)


def _enc_AlterReplicaLogDirsRequest_0(o, w):
    items = o.dirs
    if items is None:
        raise EncodeError('non-nullable array Dirs is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            _enc_AlterReplicaLogDir_0(item, w)


def _dec_AlterReplicaLogDirTopic_1(buf, pos):
    o = _new(AlterReplicaLogDirTopic)
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


def _dec_AlterReplicaLogDir_1(buf, pos):
    o = _new(AlterReplicaLogDir)
    o.path, pos = read_compact_string(buf, pos)
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
            item, pos = _dec_AlterReplicaLogDirTopic_1(buf, pos)
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


def _dec_AlterReplicaLogDirsRequest_1(buf, pos):
    o = _new(AlterReplicaLogDirsRequest)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Dirs was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_AlterReplicaLogDir_1(buf, pos)
            append(item)
        o.dirs = items
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


def _enc_AlterReplicaLogDirTopic_1(o, w):
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


def _enc_AlterReplicaLogDir_1(o, w):
    if o.path is None:
        raise EncodeError('non-nullable field Path is None')
    write_compact_string(w, o.path)
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
            _enc_AlterReplicaLogDirTopic_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_AlterReplicaLogDirsRequest_1(o, w):
    items = o.dirs
    if items is None:
        raise EncodeError('non-nullable array Dirs is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_AlterReplicaLogDir_1(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


AlterReplicaLogDirsRequest._DECODERS = {1: _dec_AlterReplicaLogDirsRequest_0, 2: _dec_AlterReplicaLogDirsRequest_1}
AlterReplicaLogDirsRequest._ENCODERS = {1: _enc_AlterReplicaLogDirsRequest_0, 2: _enc_AlterReplicaLogDirsRequest_1}
