"""Request and response headers (Kafka's RequestHeader.json / ResponseHeader.json).

Hand-written for speed (every request goes through here); the generated
``protocol.messages.RequestHeader`` / ``ResponseHeader`` codecs describe the
same layouts and the tests cross-check the two.

- Request header v1: api_key int16, api_version int16, correlation_id int32,
  client_id nullable int16 string. v2 adds a tag buffer; client_id stays an
  int16 string even in v2 (``"flexibleVersions": "none"``) so any broker can read
  an ApiVersions header it does not understand.
- Response header v0: correlation_id; v1 adds a tag buffer.
- The header version follows the API's flexible versions, except that an
  ApiVersions response always uses header v0 (KIP-511).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

from protocol.messages import REQUESTS
from protocol.primitives import DecodeError, read_tagged_fields

_HEAD = struct.Struct(">hhi")
_I16 = struct.Struct(">h")
_I32 = struct.Struct(">i")

API_VERSIONS_KEY = 18


@dataclass(slots=True)
class RequestHeader:
    api_key: int
    api_version: int
    correlation_id: int
    client_id: str | None
    header_version: int
    tagged_fields: list[tuple[int, bytes]] | None = None


def peek_request_header(frame: Any) -> tuple[int, int, int]:
    """api_key, api_version and correlation_id: the 8 bytes every header starts with."""
    if len(frame) < 8:
        raise DecodeError("request shorter than a request header")
    return _HEAD.unpack_from(frame, 0)


def request_header_version(api_key: int, api_version: int) -> int:
    """2 when the request version is flexible for its API, else 1."""
    cls = REQUESTS.get(api_key)
    if cls is None:
        return 1
    return 2 if cls.is_flexible(api_version) else 1


def response_header_version(api_key: int, api_version: int) -> int:
    if api_key == API_VERSIONS_KEY:
        return 0  # KIP-511: ApiVersionsResponse always carries a v0 header
    cls = REQUESTS.get(api_key)
    if cls is None:
        return 0
    return 1 if cls.is_flexible(api_version) else 0


def decode_request_header(frame: Any, header_version: int | None = None) -> tuple[RequestHeader, int]:
    """Decode the header at the start of ``frame``; returns it and the body offset."""
    api_key, api_version, correlation_id = peek_request_header(frame)
    if header_version is None:
        header_version = request_header_version(api_key, api_version)
    pos = 8
    client_id: str | None = None
    if header_version >= 1:
        if len(frame) < 10:
            raise DecodeError("truncated client_id")
        (n,) = _I16.unpack_from(frame, 8)
        pos = 10
        if n >= 0:
            end = pos + n
            if end > len(frame):
                raise DecodeError("truncated client_id")
            client_id = str(frame[pos:end], "utf-8", "replace")  # as Java's new String(bytes, UTF_8)
            pos = end
        elif n != -1:
            raise DecodeError(f"invalid client_id length {n}")
    tagged = None
    if header_version >= 2:
        tagged, pos = read_tagged_fields(frame, pos)
    return RequestHeader(api_key, api_version, correlation_id, client_id, header_version, tagged or None), pos


def encode_request_header(w: bytearray, header: RequestHeader) -> None:
    w += _HEAD.pack(header.api_key, header.api_version, header.correlation_id)
    if header.header_version >= 1:
        if header.client_id is None:
            w += b"\xff\xff"
        else:
            raw = header.client_id.encode("utf-8")
            w += _I16.pack(len(raw))
            w += raw
    if header.header_version >= 2:
        w.append(0)


def response_header_bytes(correlation_id: int, header_version: int) -> bytes:
    """The response header: correlation id, plus an empty tag buffer in v1."""
    if header_version == 0:
        return _I32.pack(correlation_id)
    return _I32.pack(correlation_id) + b"\x00"
