"""SaslHandshakeRequest: generated from Kafka's SaslHandshakeRequest.json by tools/generate_protocol.py.

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


class SaslHandshakeRequest(Message):
    """Kafka request SaslHandshakeRequest (valid versions 0-1)."""

    NAME = 'SaslHandshakeRequest'
    TYPE = 'request'
    API_KEY = 17
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = None
    __slots__ = ('mechanism', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('mechanism', 'Mechanism', 'string', False, (0, 32767), None, None, None, None),)

    def __init__(self, *, mechanism: str = '', unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.mechanism = mechanism
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_SaslHandshakeRequest_0(buf, pos):
    o = _new(SaslHandshakeRequest)
    o.unknown_tagged_fields = None
    o.mechanism, pos = read_string(buf, pos)
    return o, pos


def _enc_SaslHandshakeRequest_0(o, w):
    if o.mechanism is None:
        raise EncodeError('non-nullable field Mechanism is None')
    write_string(w, o.mechanism)


SaslHandshakeRequest._DECODERS = {0: _dec_SaslHandshakeRequest_0, 1: _dec_SaslHandshakeRequest_0}
SaslHandshakeRequest._ENCODERS = {0: _enc_SaslHandshakeRequest_0, 1: _enc_SaslHandshakeRequest_0}
