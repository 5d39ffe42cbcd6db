"""Runtime base classes for the generated messages (hand-written, not generated).

A generated struct keeps its fields in ``__slots__`` (snake_case, Kafka's
defaults); ``FIELDS`` describes them (versions, nullability, tags) so tests and
tools can walk any message without the JSON specs.
"""

from __future__ import annotations

import struct
from typing import Any, NamedTuple, TypeVar

from protocol.primitives import DecodeError, EncodeError

_new = object.__new__


class _DefaultType:
    """Marks a constructor argument left out: the field takes a fresh default value
    (an explicit ``None`` stays ``None``, which matters for nullable arrays)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<default>"


_DEFAULT: Any = _DefaultType()

M = TypeVar("M", bound="Message")


class FieldMeta(NamedTuple):
    attr: str
    name: str
    type: str  # element type for arrays; struct name for structs
    is_array: bool
    versions: tuple[int, int] | None
    nullable_versions: tuple[int, int] | None
    tag: int | None
    tagged_versions: tuple[int, int] | None
    struct: type | None


class Struct:
    __slots__ = ()
    FIELDS: tuple[FieldMeta, ...] = ()

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(_eq(getattr(self, s), getattr(other, s)) for s in self.__slots__)

    def __hash__(self) -> int:  # mutable value objects
        raise TypeError(f"unhashable type: {type(self).__name__}")

    def __repr__(self) -> str:
        parts = []
        for f in self.FIELDS:
            v = getattr(self, f.attr)
            if isinstance(v, memoryview):
                v = f"<{len(v)} bytes>"
            parts.append(
                f"{f.attr}={v!r}" if not isinstance(v, str) or not v.startswith("<") else f"{f.attr}={v}"
            )
        if self.unknown_tagged_fields:  # type: ignore[attr-defined]
            parts.append(f"unknown_tagged_fields={self.unknown_tagged_fields!r}")  # type: ignore[attr-defined]
        return f"{type(self).__name__}({', '.join(parts)})"


def _eq(a: Any, b: Any) -> bool:
    if isinstance(a, memoryview | bytearray) or isinstance(b, memoryview | bytearray):
        if a is None or b is None:
            return a is b
        return bytes(a) == bytes(b)
    return a == b


class Message(Struct):
    """A top-level request, response, header or data message."""

    __slots__ = ()
    NAME: str = ""
    TYPE: str = ""
    API_KEY: int | None = None
    VALID_VERSIONS: tuple[int, int] = (0, 0)
    FLEXIBLE_VERSIONS: tuple[int, int] | None = None
    _DECODERS: dict[int, Any] = {}
    _ENCODERS: dict[int, Any] = {}

    @classmethod
    def is_flexible(cls, version: int) -> bool:
        fl = cls.FLEXIBLE_VERSIONS
        return fl is not None and fl[0] <= version <= fl[1]

    @classmethod
    def decode_from(cls: type[M], buf: Any, version: int, pos: int = 0) -> tuple[M, int]:
        """Decode one message at ``buf[pos:]``; returns it and the position after it."""
        fn = cls._DECODERS.get(version)
        if fn is None:
            raise DecodeError(f"{cls.NAME} has no version {version}")
        try:
            return fn(buf, pos)
        except DecodeError:
            raise
        except (struct.error, IndexError, ValueError, OverflowError, TypeError) as exc:
            raise DecodeError(f"{cls.NAME} v{version}: {exc}") from None

    @classmethod
    def decode(cls: type[M], buf: Any, version: int, pos: int = 0, *, exact: bool = True) -> M:
        """Decode a message; with ``exact`` the buffer must hold nothing after it."""
        msg, end = cls.decode_from(buf, version, pos)
        if exact and end != len(buf):
            raise DecodeError(f"{cls.NAME} v{version}: {len(buf) - end} bytes left after the message")
        return msg

    def write(self, w: bytearray, version: int) -> None:
        """Append this message encoded at ``version`` to ``w``."""
        fn = self._ENCODERS.get(version)
        if fn is None:
            raise EncodeError(f"{self.NAME} has no version {version}")
        try:
            fn(self, w)
        except EncodeError:
            raise
        except (struct.error, AttributeError, TypeError, OverflowError) as exc:
            raise EncodeError(f"{self.NAME} v{version}: {exc}") from None

    def encode(self, version: int) -> bytearray:
        w = bytearray()
        self.write(w, version)
        return w
