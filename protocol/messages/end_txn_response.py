"""EndTxnResponse: generated from Kafka's EndTxnResponse.json by tools/generate_protocol.py.

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
_S0 = struct.Struct('>ih')
_S1 = struct.Struct('>ihqh')


class EndTxnResponse(Message):
    """Kafka response EndTxnResponse (valid versions 0-5)."""

    NAME = 'EndTxnResponse'
    TYPE = 'response'
    API_KEY = 26
    VALID_VERSIONS = (0, 5)
    FLEXIBLE_VERSIONS = (3, 32767)
    __slots__ = ('throttle_time_ms', 'error_code', 'producer_id', 'producer_epoch', 'unknown_tagged_fields')
    FIELDS = (FieldMeta('throttle_time_ms', 'ThrottleTimeMs', 'int32', False, (0, 32767), None, None, None, None), FieldMeta('error_code', 'ErrorCode', 'int16', False, (0, 32767), None, None, None, None), FieldMeta('producer_id', 'ProducerId', 'int64', False, (5, 32767), None, None, None, None), FieldMeta('producer_epoch', 'ProducerEpoch', 'int16', False, (5, 32767), None, None, None, None))

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, producer_id: int = -1, producer_epoch: int = -1, unknown_tagged_fields: list[tuple[int, bytes]] | None = None) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch
        self.unknown_tagged_fields = unknown_tagged_fields


def _dec_EndTxnResponse_0(buf, pos):
    o = _new(EndTxnResponse)
    o.producer_id = -1
    o.producer_epoch = -1
    o.unknown_tagged_fields = None
    o.throttle_time_ms, o.error_code = _S0.unpack_from(buf, pos)
    pos += 6
    return o, pos


def _enc_EndTxnResponse_0(o, w):
    w += _S0.pack(o.throttle_time_ms, o.error_code)


def _dec_EndTxnResponse_1(buf, pos):
    o = _new(EndTxnResponse)
    o.producer_id = -1
    o.producer_epoch = -1
    o.throttle_time_ms, o.error_code = _S0.unpack_from(buf, pos)
    pos += 6
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


def _enc_EndTxnResponse_1(o, w):
    w += _S0.pack(o.throttle_time_ms, o.error_code)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


def _dec_EndTxnResponse_2(buf, pos):
    o = _new(EndTxnResponse)
    o.throttle_time_ms, o.error_code, o.producer_id, o.producer_epoch = _S1.unpack_from(buf, pos)
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


def _enc_EndTxnResponse_2(o, w):
    w += _S1.pack(o.throttle_time_ms, o.error_code, o.producer_id, o.producer_epoch)
    if o.unknown_tagged_fields:
        write_tagged_fields(w, o.unknown_tagged_fields)
    else:
        w.append(0)


EndTxnResponse._DECODERS = {0: _dec_EndTxnResponse_0, 1: _dec_EndTxnResponse_0, 2: _dec_EndTxnResponse_0, 3: _dec_EndTxnResponse_1, 4: _dec_EndTxnResponse_1, 5: _dec_EndTxnResponse_2}
EndTxnResponse._ENCODERS = {0: _enc_EndTxnResponse_0, 1: _enc_EndTxnResponse_0, 2: _enc_EndTxnResponse_0, 3: _enc_EndTxnResponse_1, 4: _enc_EndTxnResponse_1, 5: _enc_EndTxnResponse_2}
