"""Primitive wire types against Kafka's definitions (Type.java, ByteUtils.java)."""

from __future__ import annotations

import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol import primitives as p
from protocol.primitives import DecodeError, EncodeError


@pytest.mark.parametrize(
    ("value", "encoded"),
    [
        (0, b"\x00"),
        (1, b"\x01"),
        (127, b"\x7f"),
        (128, b"\x80\x01"),
        (300, b"\xac\x02"),
        (0xFFFFFFFF, b"\xff\xff\xff\xff\x0f"),
    ],
)
def test_unsigned_varint_known_encodings(value, encoded):
    w = bytearray()
    p.write_uvarint(w, value)
    assert bytes(w) == encoded
    assert p.read_uvarint(encoded, 0) == (value, len(encoded))


@pytest.mark.parametrize(
    ("value", "zigzag"),
    [(0, 0), (-1, 1), (1, 2), (-2, 3), (2147483647, 4294967294), (-2147483648, 4294967295)],
)
def test_zigzag_varint(value, zigzag):
    w = bytearray()
    p.write_varint(w, value)
    assert p.read_uvarint(w, 0)[0] == zigzag
    assert p.read_varint(w, 0)[0] == value


@given(st.integers(-(1 << 63), (1 << 63) - 1))
def test_varlong_round_trip(n):
    w = bytearray()
    p.write_varlong(w, n)
    assert p.read_varlong(w, 0) == (n, len(w))
    assert len(w) == p.varlong_size(n)


def test_varint_limits():
    with pytest.raises(DecodeError):
        p.read_uvarint(b"\x80\x80\x80\x80\x80\x01", 0)  # six bytes
    with pytest.raises(DecodeError):
        p.read_uvarint(b"\x80", 0)  # truncated
    with pytest.raises(EncodeError):
        p.write_uvarint(bytearray(), -1)
    with pytest.raises(EncodeError):
        p.write_varint(bytearray(), 1 << 31)


def test_strings_classic_and_compact_with_null():
    w = bytearray()
    p.write_string(w, "héllo")
    assert bytes(w) == b"\x00\x06h\xc3\xa9llo"
    w = bytearray()
    p.write_nullable_string(w, None)
    assert bytes(w) == b"\xff\xff"
    assert p.read_nullable_string(b"\xff\xff", 0) == (None, 2)
    w = bytearray()
    p.write_compact_string(w, "ab")
    assert bytes(w) == b"\x03ab"
    assert p.read_compact_nullable_string(b"\x00", 0) == (None, 1)
    with pytest.raises(DecodeError):
        p.read_compact_string(b"\x00", 0)
    with pytest.raises(DecodeError):
        p.read_string(b"\xff\xff", 0)
    # Not UTF-8: replaced as Java's new String(bytes, UTF_8) does (Kafka's readString).
    assert p.read_string(b"\x00\x02\xff\xfe", 0) == ("\ufffd\ufffd", 4)


def test_bytes_and_arrays_with_null():
    assert p.read_nullable_bytes(b"\xff\xff\xff\xff", 0) == (None, 4)
    assert p.read_compact_nullable_bytes(b"\x00", 0) == (None, 1)
    assert p.read_compact_bytes(b"\x03ab", 0) == (b"ab", 3)
    assert p.read_array_length(b"\xff\xff\xff\xff", 0) == (-1, 4)
    assert p.read_compact_array_length(b"\x00", 0) == (-1, 1)
    with pytest.raises(DecodeError):  # more elements announced than bytes left
        p.read_array_length(b"\x7f\xff\xff\xff", 0)


def test_records_stay_a_view_of_the_frame():
    frame = bytearray(b"\x00\x00\x00\x03abc")
    view, end = p.read_records(memoryview(frame), 0)
    assert isinstance(view, memoryview) and bytes(view) == b"abc" and end == 7
    view[0] = ord("z")  # a writable view: offsets can be patched in place
    assert frame[4:5] == b"z"


def test_uuid():
    u = uuid.uuid4()
    w = bytearray()
    p.write_uuid(w, u)
    assert p.read_uuid(w, 0) == (u, 16)
    assert p.ZERO_UUID.bytes == bytes(16)


def test_tagged_fields_must_be_strictly_ascending():
    w = bytearray()
    p.write_tagged_fields(w, [(5, b"x"), (1, b"yz")])  # sorted on write
    assert bytes(w) == b"\x02\x01\x02yz\x05\x01x"
    assert p.read_tagged_fields(w, 0) == ([(1, b"yz"), (5, b"x")], len(w))
    with pytest.raises(DecodeError):
        p.read_tagged_fields(b"\x02\x05\x01x\x01\x01y", 0)  # 5 then 1
    with pytest.raises(DecodeError):
        p.read_tagged_fields(b"\x02\x01\x01x\x01\x01y", 0)  # duplicate
    with pytest.raises(EncodeError):
        p.write_tagged_fields(bytearray(), [(1, b""), (1, b"")])


def test_unknown_tagged_fields_survive_a_round_trip():
    from protocol.messages import ApiVersionsRequest

    raw = bytes(
        ApiVersionsRequest(
            client_software_name="a", client_software_version="1", unknown_tagged_fields=[(7, b"\x01\x02")]
        ).encode(3)
    )
    msg = ApiVersionsRequest.decode(raw, 3)
    assert msg.unknown_tagged_fields == [(7, b"\x01\x02")]
    assert bytes(msg.encode(3)) == raw
