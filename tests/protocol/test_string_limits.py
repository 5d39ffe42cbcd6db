"""Every protocol string, compact or not, holds at most 32767 UTF-8 bytes, as Kafka's
generated readers and writers enforce ("had invalid length", "too long to be serialized")."""

from __future__ import annotations

import pytest

from protocol import primitives as p


@pytest.mark.parametrize(
    ("write", "read"),
    [
        (p.write_string, p.read_string),
        (p.write_nullable_string, p.read_nullable_string),
        (p.write_compact_string, p.read_compact_string),
        (p.write_compact_nullable_string, p.read_compact_nullable_string),
    ],
)
def test_strings_hold_32767_bytes_and_no_more(write, read) -> None:
    longest = "\u00e9" * 16383 + "x"  # 32767 bytes
    w = bytearray()
    write(w, longest)
    assert read(w, 0) == (longest, len(w))
    with pytest.raises(p.EncodeError):
        write(bytearray(), longest + "x")


@pytest.mark.parametrize("read", [p.read_compact_string, p.read_compact_nullable_string])
def test_compact_string_longer_than_32767_bytes_does_not_decode(read) -> None:
    w = bytearray()
    p.write_uvarint(w, 32768 + 1)
    w += b"x" * 32768
    with pytest.raises(p.DecodeError, match="exceeds 32767"):
        read(w, 0)
