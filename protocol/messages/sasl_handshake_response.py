"""SaslHandshakeResponse: generated from Kafka's SaslHandshakeResponse.json by tools/generate_protocol.py.

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
_S0 = struct.Struct('>h')


class SaslHandshakeResponse(Message):
    """Kafka response SaslHandshakeResponse (valid versions 0-1)."""

    NAME = 'SaslHandshakeResponse'
    TYPE = 'response'
    API_KEY = 17
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = None
    __slots__ = ('error_code', 'mechanisms', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('mechanisms', 'Mechanisms', 'string', True, (0, 32767), None, None, None, None))

    def __init__(self, *, error_code: int = 0, mechanisms: list[str] | None = _DEFAULT, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.error_code = error_code
        self.mechanisms = [] if mechanisms is _DEFAULT else mechanisms
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_SaslHandshakeResponse_0(buf, pos):
    o = _new(SaslHandshakeResponse)
    o.unknown_tagged_fields = None
    o.error_code, = _S0.unpack_from(buf, pos)
    pos += 2
    n, pos = read_array_length(buf, pos)
    if n < 0:
        raise DecodeError('non-nullable array Mechanisms was null')
    else:
        items = []
        for _ in range(n):
            item, pos = read_string(buf, pos)
            items.append(item)
        o.mechanisms = items
    return o, pos


def _enc_SaslHandshakeResponse_0(o, w):
    w += _S0.pack(o.error_code)
    items = o.mechanisms
    if items is None:
        raise EncodeError('non-nullable array Mechanisms is None')
    else:
        write_array_length(w, len(items))
        for item in items:
            write_string(w, item)


SaslHandshakeResponse._DECODERS = {0: _dec_SaslHandshakeResponse_0, 1: _dec_SaslHandshakeResponse_0}
SaslHandshakeResponse._ENCODERS = {0: _enc_SaslHandshakeResponse_0, 1: _enc_SaslHandshakeResponse_0}
