"""AlterUserScramCredentialsRequest: generated from Kafka's AlterUserScramCredentialsRequest.json by tools/generate_protocol.py.

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
_S0 = struct.Struct('>b')
_S1 = struct.Struct('>bi')


class ScramCredentialDeletion(Struct):
    __slots__ = ('name', 'mechanism', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (0, 32767), None, None, None, None), FieldMeta('mechanism', 'Mechanism', 'int8', False, (0, 32767), None, None, None, None))

    def __init__(self, *, name: str = '', mechanism: int = 0, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.mechanism = mechanism
        self.unknown_tagged_fields = unknown_tagged_fields


class ScramCredentialUpsertion(Struct):
    __slots__ = ('name', 'mechanism', 'iterations', 'salt', 'salted_password', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('name', 'Name', 'string', False, (0, 32767), None, None, None, None), FieldMeta('mechanism', 'Mechanism', 'int8', False, (0, 32767), None, None, None, None), FieldMeta('iterations', 'Iterations', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('salt', 'Salt', 'bytes', False, (0, 32767), None, None, None, None), FieldMeta('salted_password', 'SaltedPassword', 'bytes', False, (0, 32767), None, None, None, None))

    def __init__(self, *, name: str = '', mechanism: int = 0, iterations: int = 0, salt: bytes = b'', salted_password: bytes = b'', unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.name = name
        self.mechanism = mechanism
        self.iterations = iterations
        self.salt = salt
        self.salted_password = salted_password
        self.unknown_tagged_fields = unknown_tagged_fields


class AlterUserScramCredentialsRequest(Message):
    """Kafka request AlterUserScramCredentialsRequest (valid versions 0-0)."""

    NAME = 'AlterUserScramCredentialsRequest'
    TYPE = 'request'
    API_KEY = 51
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    ScramCredentialDeletion = ScramCredentialDeletion
    ScramCredentialUpsertion = ScramCredentialUpsertion
    __slots__ = ('deletions', 'upsertions', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('deletions', 'Deletions', 'ScramCredentialDeletion', True, (0, 32767), None, None, None, ScramCredentialDeletion), FieldMeta('upsertions', 'Upsertions', 'ScramCredentialUpsertion', True, (0, 32767), None, None, None, ScramCredentialUpsertion))

    def __init__(self, *, deletions: list[ScramCredentialDeletion] | None = _DEFAULT, upsertions: list[ScramCredentialUpsertion] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.deletions = [] if deletions is _DEFAULT else deletions
        self.upsertions = [] if upsertions is _DEFAULT else upsertions
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_ScramCredentialDeletion_0(buf, pos):
    o = _new(ScramCredentialDeletion)
    o.name, pos = read_compact_string(buf, pos)
    o.mechanism, = _S0.unpack_from(buf, pos)
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


def _dec_ScramCredentialUpsertion_0(buf, pos):
    o = _new(ScramCredentialUpsertion)
    o.name, pos = read_compact_string(buf, pos)
    o.mechanism, o.iterations = _S1.unpack_from(buf, pos)
    pos += 5
    o.salt, pos = read_compact_bytes(buf, pos)
    o.salted_password, pos = read_compact_bytes(buf, pos)
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


def _dec_AlterUserScramCredentialsRequest_0(buf, pos):
    o = _new(AlterUserScramCredentialsRequest)
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Deletions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ScramCredentialDeletion_0(buf, pos)
            append(item)
        o.deletions = items
    n = buf[pos] - 1
    if n < 0x7F:
        pos += 1
    else:
        n, pos = read_compact_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Upsertions was null')
    else:
        items = []
        append = items.append
        for _ in range(n):
            item, pos = _dec_ScramCredentialUpsertion_0(buf, pos)
            append(item)
        o.upsertions = items
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


def _enc_ScramCredentialDeletion_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_compact_string(w, o.name)
    w += _S0.pack(o.mechanism)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_ScramCredentialUpsertion_0(o, w):
    if o.name is None:
        raise EncodeError('non-nullable field Name is None')
    write_compact_string(w, o.name)
    w += _S1.pack(o.mechanism, o.iterations)
    if o.salt is None:
        raise EncodeError('non-nullable field Salt is None')
    write_compact_bytes(w, o.salt)
    if o.salted_password is None:
        raise EncodeError('non-nullable field SaltedPassword is None')
    write_compact_bytes(w, o.salted_password)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _enc_AlterUserScramCredentialsRequest_0(o, w):
    items = o.deletions
    if items is None:
        raise EncodeError('non-nullable array Deletions is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_ScramCredentialDeletion_0(item, w)
    items = o.upsertions
    if items is None:
        raise EncodeError('non-nullable array Upsertions is None')
    else:
        n = len(items) + 1
        if n < 0x80:
            w.append(n)
        else:
            write_uvarint(w, n)
        for item in items:
            _enc_ScramCredentialUpsertion_0(item, w)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


AlterUserScramCredentialsRequest._DECODERS = {0: _dec_AlterUserScramCredentialsRequest_0}
AlterUserScramCredentialsRequest._ENCODERS = {0: _enc_AlterUserScramCredentialsRequest_0}
