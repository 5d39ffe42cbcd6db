"""A minimal blocking Kafka wire client for tests: our own codecs over a raw socket.

It sends exactly the bytes a test asks for, which real clients never would:
bad frames, unknown keys, odd versions.
"""

from __future__ import annotations

import socket
import struct
from typing import Any

from protocol.headers import (
    RequestHeader,
    encode_request_header,
    request_header_version,
    response_header_version,
)
from protocol.messages import REQUESTS, RESPONSES

_SIZE = struct.Struct(">i")


class WireClient:
    def __init__(
        self, host: str, port: int, *, client_id: str = "moldau-test", timeout: float = 10.0
    ) -> None:
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.client_id = client_id
        self.correlation = 0

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> WireClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def send_frame(self, body: bytes) -> None:
        self.sock.sendall(_SIZE.pack(len(body)) + body)

    def encode_request(self, request: Any, version: int, correlation_id: int | None = None) -> bytes:
        if correlation_id is None:
            self.correlation += 1
            correlation_id = self.correlation
        key = request.API_KEY
        w = bytearray()
        encode_request_header(
            w,
            RequestHeader(key, version, correlation_id, self.client_id, request_header_version(key, version)),
        )
        request.write(w, version)
        return bytes(w)

    def send(self, request: Any, version: int) -> int:
        self.send_frame(self.encode_request(request, version))
        return self.correlation

    def recv_frame(self) -> bytes:
        size = _SIZE.unpack(self._recv_exact(4))[0]
        return self._recv_exact(size)

    def recv(self, api_key: int, version: int, *, header_version: int | None = None) -> tuple[int, Any]:
        frame = self.recv_frame()
        (correlation,) = struct.unpack_from(">i", frame, 0)
        hv = response_header_version(api_key, version) if header_version is None else header_version
        pos = 4 if hv == 0 else 5
        return correlation, RESPONSES[api_key].decode(frame, version, pos)

    def request(self, request: Any, version: int) -> Any:
        corr = self.send(request, version)
        got, response = self.recv(request.API_KEY, version)
        assert got == corr, f"correlation id {got} != {corr}"
        return response

    def is_closed_by_peer(self, timeout: float = 10.0) -> bool:
        """True once the broker has closed this connection (EOF or reset)."""
        self.sock.settimeout(timeout)
        try:
            return self.sock.recv(1) == b""
        except ConnectionResetError:
            return True
        except TimeoutError:
            return False

    def _recv_exact(self, n: int) -> bytes:
        chunks = []
        while n:
            chunk = self.sock.recv(n)
            if not chunk:
                raise ConnectionError("connection closed by the broker")
            chunks.append(chunk)
            n -= len(chunk)
        return b"".join(chunks)


def request_class(api_key: int) -> type:
    return REQUESTS[api_key]
