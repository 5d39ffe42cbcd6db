"""The TCP front end: size-prefixed Kafka frames in, responses out, in order.

Each connection is a ``KafkaConnection`` (an asyncio ``BufferedProtocol``, so
large frames are received straight into their own buffer). Frames are handled
one at a time per connection and answered in request order, like Kafka's
``SocketServer``, which mutes a channel until its response is sent:

- a synchronous handler runs inline as soon as its frame is complete;
- an ``async`` handler (long-poll fetch, group join, acks wait) parks this
  connection only: the next frame waits, other connections go on.

Bad input closes the connection and is logged, never more (Kafka's
``RequestHeader.parse`` and ``RequestContext`` do the same): an unknown API key,
an unsupported version (ApiVersions excepted: it gets a v0 answer with
UNSUPPORTED_VERSION, KIP-511), a header or body that does not decode, a size
prefix that is negative or above ``socket.request.max.bytes`` (refused before
the body is buffered).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import logging
import socket
import struct
from collections import deque
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from broker.handlers import REGISTRY, CloseConnection, HandlerSpec, RequestContext
from protocol.errors import ErrorCode
from protocol.headers import API_VERSIONS_KEY, decode_request_header, peek_request_header
from protocol.messages import ApiVersionsResponse
from protocol.messages._base import Message
from protocol.primitives import DecodeError, EncodeError

if TYPE_CHECKING:
    from broker.broker import Broker

log = logging.getLogger(__name__)

_SIZE = struct.Struct(">i")
_SIZE_CORR = struct.Struct(">ii")
READ_BUFFER = 256 * 1024
MAX_PENDING_FRAMES = 64
_connection_ids = itertools.count(1)


class KafkaConnection(asyncio.BufferedProtocol):
    def __init__(self, broker: Broker, max_request_bytes: int, listener: str) -> None:
        self.broker = broker
        self.listener = listener
        self.server = broker.server
        self.max_request_bytes = max_request_bytes
        self.id = next(_connection_ids)
        self.transport: asyncio.Transport | None = None
        self.peer = "?"
        self._rbuf = bytearray(READ_BUFFER)
        self._rview = memoryview(self._rbuf)
        self._start = 0
        self._end = 0
        self._big: bytearray | None = None  # a frame larger than the read buffer, filling up
        self._big_filled = 0
        self._pending: deque[bytearray] = deque()
        self._busy = False  # an async handler is running for this connection
        self._reading_paused = False
        self._writing_paused = False
        self._closed = False
        self._task: asyncio.Task | None = None

    # ------------------------------------------------------------------ asyncio callbacks

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        peer = transport.get_extra_info("peername")
        self.peer = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else str(peer)
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.connections.add(self)
        log.debug("connection %d from %s", self.id, self.peer)

    def connection_lost(self, exc: Exception | None) -> None:
        self._closed = True
        self.server.connections.discard(self)
        if self._task is not None and not self._task.done():
            self._task.cancel()
        self._pending.clear()
        log.debug("connection %d from %s closed", self.id, self.peer)

    def get_buffer(self, sizehint: int) -> memoryview:
        if self._big is not None:
            return memoryview(self._big)[self._big_filled :]
        if self._end == len(self._rbuf):
            self._compact()
        return self._rview[self._end :]

    def buffer_updated(self, nbytes: int) -> None:
        if self._big is not None:
            self._big_filled += nbytes
            if self._big_filled == len(self._big):
                frame, self._big = self._big, None
                self._pending.append(frame)
                self._drain()
            return
        self._end += nbytes
        self._parse_frames()
        self._drain()

    def eof_received(self) -> bool | None:
        return None  # close the transport

    def pause_writing(self) -> None:
        self._writing_paused = True

    def resume_writing(self) -> None:
        self._writing_paused = False
        self._drain()

    # ------------------------------------------------------------------ framing

    def _compact(self) -> None:
        n = self._end - self._start
        if self._start:
            self._rbuf[0:n] = self._rbuf[self._start : self._end]
        self._start, self._end = 0, n

    def _parse_frames(self) -> None:
        buf = self._rbuf
        start, end = self._start, self._end
        while end - start >= 4:
            (size,) = _SIZE.unpack_from(buf, start)
            if size < 0 or size > self.max_request_bytes:
                self._start, self._end = start, end
                self.close(
                    f"frame size {size} outside [0, socket.request.max.bytes={self.max_request_bytes}]"
                )
                return
            avail = end - start - 4
            if avail >= size:
                self._pending.append(bytearray(self._rview[start + 4 : start + 4 + size]))
                start += 4 + size
                continue
            if size + 4 > len(buf):
                # Too big for the read buffer: give it a buffer of its own and let the
                # transport fill it directly.
                big = bytearray(size)
                big[:avail] = self._rview[start + 4 : end]
                self._big, self._big_filled = big, avail
                start = end = 0
            break
        if start == end:
            start = end = 0
        self._start, self._end = start, end
        if len(self._pending) >= MAX_PENDING_FRAMES and not self._reading_paused and self.transport:
            self._reading_paused = True
            self.transport.pause_reading()

    # ------------------------------------------------------------------ dispatch

    def _drain(self) -> None:
        while self._pending and not self._busy and not self._writing_paused and not self._closed:
            frame = self._pending.popleft()
            try:
                result = self._dispatch(frame)
            except CloseConnection as exc:
                self.close(str(exc))
                return
            except Exception:  # a bug in a handler: close this connection only
                log.exception("connection %d from %s: handler failed, closing", self.id, self.peer)
                self.close(None)
                return
            if result is not None and not isinstance(result, bytearray | bytes):
                self._busy = True
                self._task = asyncio.ensure_future(self._finish(result))
                return
            if result is not None:
                self.transport.write(result)  # type: ignore[union-attr]
        if self._reading_paused and len(self._pending) < MAX_PENDING_FRAMES // 2 and not self._closed:
            self._reading_paused = False
            self.transport.resume_reading()  # type: ignore[union-attr]

    async def _finish(self, pending: Awaitable[bytearray | None]) -> None:
        try:
            out = await pending
        except asyncio.CancelledError:
            return
        except CloseConnection as exc:
            self.close(str(exc))
            return
        except Exception:
            log.exception("connection %d from %s: handler failed, closing", self.id, self.peer)
            self.close(None)
            return
        if self._closed:
            return
        if out is not None:
            self.transport.write(out)  # type: ignore[union-attr]
        self._busy = False
        self._task = None
        self._drain()

    def _dispatch(self, frame: bytearray) -> Any:
        """Handle one frame: returns the response bytes, None, or an awaitable of them."""
        mv = memoryview(frame)
        try:
            api_key, api_version, correlation_id = peek_request_header(mv)
        except DecodeError as exc:
            self.close(f"unreadable request header: {exc}")
            return None
        spec = REGISTRY.get(api_key)
        if spec is None:
            self.close(f"unknown or unsupported API key {api_key}")
            return None
        if not spec.accepts(api_version):
            if api_key == API_VERSIONS_KEY:
                return self._unsupported_api_versions(correlation_id, spec)
            self.close(f"{spec.name} v{api_version} is not supported ({spec.min_version}-{spec.max_version})")
            return None
        try:
            header, pos = decode_request_header(mv)
            # Like Kafka's RequestContext.parseRequest, bytes after the body are ignored
            # (librdkafka 2.x sends a few after some Metadata v12 requests).
            request = spec.request_cls.decode(mv, api_version, pos, exact=False)
        except DecodeError as exc:
            self.close(f"{spec.name} v{api_version} does not decode: {exc}")
            return None
        ctx = RequestContext(
            self.broker,
            api_key,
            api_version,
            correlation_id,
            header.client_id,
            self.peer,
            self.id,
            self.listener,
        )
        interceptor = self.server.interceptor
        if interceptor is not None:  # tests only (see RequestInterceptor)
            response = interceptor.intercept(
                self, api_key, api_version, header, request, functools.partial(spec.fn, ctx)
            )
        elif spec.is_async:
            return self._respond_later(spec, ctx, spec.fn(ctx, request))
        else:
            response = spec.fn(ctx, request)
        if response is None:
            return None
        if not isinstance(response, Message):
            # A synchronous handler may answer later (a fetch that must wait for data).
            return self._respond_later(spec, ctx, response)
        return self._encode(spec, ctx, response)

    async def _respond_later(
        self, spec: HandlerSpec, ctx: RequestContext, coro: Awaitable[Any]
    ) -> bytearray | None:
        response = await coro
        if response is None:
            return None
        return self._encode(spec, ctx, response)

    def _encode(self, spec: HandlerSpec, ctx: RequestContext, response: Any) -> bytearray:
        version = ctx.api_version
        flexible_header = spec.api_key != API_VERSIONS_KEY and spec.request_cls.is_flexible(version)
        w = bytearray(9 if flexible_header else 8)
        try:
            response.write(w, version)
        except EncodeError:
            log.error("cannot encode %s v%d: %r", spec.response_cls.NAME, version, response)
            raise
        _SIZE_CORR.pack_into(w, 0, len(w) - 4, ctx.correlation_id)
        return w

    def _unsupported_api_versions(self, correlation_id: int, spec: HandlerSpec) -> bytearray:
        # KIP-511: a v0-encoded ApiVersionsResponse (v0 header) with UNSUPPORTED_VERSION and
        # only the ApiVersions range, so the client can retry with a version we speak.
        resp = ApiVersionsResponse(
            error_code=ErrorCode.UNSUPPORTED_VERSION.code,
            api_keys=[
                ApiVersionsResponse.ApiVersion(
                    api_key=API_VERSIONS_KEY, min_version=spec.min_version, max_version=spec.max_version
                )
            ],
        )
        w = bytearray(8)
        resp.write(w, 0)
        _SIZE_CORR.pack_into(w, 0, len(w) - 4, correlation_id)
        return w

    def close(self, reason: str | None) -> None:
        if reason:
            log.warning("closing connection %d from %s: %s", self.id, self.peer, reason)
        self._closed = True
        self._pending.clear()
        if self.transport is not None:
            self.transport.close()


class RequestInterceptor(Protocol):
    """A test hook (``tests/support/cluster.py``): sees every decoded request of a broker.

    ``intercept`` is called on the event loop in place of the handler, with the
    connection, the request and ``handle(request)``, which runs the broker's
    handler for it. It returns what a handler returns: a response Message,
    None (no response, as for acks=0: the request or its answer is "lost"), or
    an awaitable of either (to delay, or to transform the handler's answer).
    It may call ``connection.close(reason)`` to cut the connection.
    """

    def intercept(
        self,
        connection: KafkaConnection,
        api_key: int,
        api_version: int,
        header: Any,
        request: Message,
        handle: Callable[[Message], Any],
    ) -> Any: ...


class KafkaServer:
    """The listeners of one broker and their live connections."""

    def __init__(self, broker: Broker) -> None:
        self.broker = broker
        # None in production: one attribute check per request (KafkaConnection._dispatch).
        self.interceptor: RequestInterceptor | None = None
        self.connections: set[KafkaConnection] = set()
        self._servers: list[asyncio.base_events.Server] = []
        self.bound: list[tuple[str, int]] = []

    async def start(self) -> None:
        cfg = self.broker.config
        loop = asyncio.get_running_loop()
        max_bytes = cfg["socket.request.max.bytes"]
        for lst in cfg.listeners:
            host = lst.host or None
            srv = await loop.create_server(
                lambda name=lst.name: KafkaConnection(self.broker, max_bytes, name),
                host=host,
                port=lst.port,
                reuse_address=True,
                backlog=1024,
            )
            self._servers.append(srv)
            for sock in srv.sockets:
                addr = sock.getsockname()
                self.bound.append((addr[0], addr[1]))
                log.info("listening on %s://%s:%d", lst.name, addr[0], addr[1])

    async def stop(self) -> None:
        for srv in self._servers:
            srv.close()
        for conn in list(self.connections):
            conn.close(None)
        for srv in self._servers:
            await srv.wait_closed()
        self._servers.clear()
