"""The TCP front end's listeners and the registry of live connections (Kafka's ``SocketServer``).

``KafkaServer`` binds the broker's listeners, accepts on each with an ``_Acceptor`` and hands
every socket to a ``KafkaConnection`` (``broker.server``), which reads and answers its frames.

Connections. Listeners accept through ``ConnectionQuotas`` (Kafka's class of
the same name): over ``max.connections.per.ip`` a new connection is closed at
once; at ``max.connections`` the listener stops accepting (new connections wait
in the listen backlog) until one closes. A periodic sweep closes connections
idle longer than ``connections.max.idle.ms``.

Answers completed inline (``broker.inline_answer``: a follower's fetch that moves the high
watermark completes the acks=-1 produces of other connections) are written by
``flush_connections`` at the end of the pass that completed them, one write per connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from broker.connection_limits import ConnectionQuotas, RequestMemoryPool, normalize_ip
from broker.frame_reader import READ_BUFFER
from broker.handlers import HandlerSpec, served_handlers
from broker.server import KafkaConnection
from protocol.messages._base import Message

if TYPE_CHECKING:
    from broker.broker import Broker
    from broker.metrics import RequestMetrics

log = logging.getLogger(__name__)
ACCEPT_BATCH = 64  # connections accepted per readiness callback of a listening socket


class _Acceptor:
    """Accepts on one listening socket while the broker-wide limit allows (Kafka's
    ``Acceptor`` blocks in ``ConnectionQuotas.inc`` the same way: connections over
    ``max.connections`` wait in the listen backlog)."""

    def __init__(self, server: KafkaServer, listener: str, sock: socket.socket) -> None:
        self.server = server
        self.listener = listener
        self.sock = sock
        self.accepting = False
        self._loop = asyncio.get_running_loop()
        self._retry: asyncio.TimerHandle | None = None
        self._last_blocked_log = -60.0

    def start(self) -> None:
        if not self.accepting and not self.server.stopping and self.server.serving:
            self.accepting = True
            self._loop.add_reader(self.sock.fileno(), self._accept_ready)

    def pause(self) -> None:
        if self.accepting:
            self.accepting = False
            self._loop.remove_reader(self.sock.fileno())

    def close(self) -> None:
        self.pause()
        if self._retry is not None:
            self._retry.cancel()
        self.sock.close()

    def _accept_ready(self) -> None:
        quotas = self.server.quotas
        for _ in range(ACCEPT_BATCH):
            if not quotas.slot_available(self.listener):
                self.pause()
                now = self.server.monotonic()
                if now - self._last_blocked_log >= 60:  # at most once a minute
                    self._last_blocked_log = now
                    log.info(
                        "max.connections=%d reached: listener %s accepts again when a connection closes",
                        quotas.max_connections,
                        self.listener,
                    )
                return
            try:
                sock, addr = self.sock.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                if exc.errno == errno.ECONNABORTED:
                    continue
                # Out of file descriptors or buffers: asyncio's own accept loop also
                # backs off for a second instead of spinning.
                log.error("listener %s cannot accept: %s; retrying in 1 s", self.listener, exc)
                self.pause()
                self._retry = self._loop.call_later(1.0, self.start)
                return
            self.server.accepted(self.listener, sock, addr)


class RequestInterceptor(Protocol):
    """A test hook (``broker/testing/interception.py``): sees every decoded request of a broker.

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
        self.monotonic = broker.clock.monotonic  # the broker's clock (idle sweep, frame timing)
        # None in production: one attribute check per request (KafkaConnection._dispatch).
        self.interceptor: RequestInterceptor | None = None
        # The request metrics when the endpoint is on: frames are then stamped when read whole.
        self.request_timing: RequestMetrics | None = (
            broker.metrics.requests if broker.metrics.enabled else None
        )
        cfg = broker.config
        self.connections: set[KafkaConnection] = set()
        self.max_request_bytes: int = cfg["socket.request.max.bytes"]
        self.memory = RequestMemoryPool(cfg["queued.max.request.bytes"])
        protected = None
        if len(cfg.listeners) > 1:
            # Kafka's default inter-broker listener is the one named after
            # security.inter.broker.protocol (PLAINTEXT).
            protected = cfg.inter_broker_listener
        self.quotas = ConnectionQuotas(
            cfg["max.connections"],
            cfg["max.connections.per.ip"],
            cfg.max_connections_per_ip_overrides,
            protected,
        )
        self.idle_ms: int = cfg["connections.max.idle.ms"]
        # One read buffer for every connection: a read and the parsing of what it
        # brought run in one callback, and whatever is left over is copied out.
        self.read_buffer = bytearray(READ_BUFFER)
        self.read_view = memoryview(self.read_buffer)
        self.head_view = memoryview(bytearray(4))  # a size prefix read alone (KafkaConnection.get_buffer)
        # Fetch records go from the segment files to plain sockets with os.sendfile; False
        # (tests) sends every response through the copy path, as on a TLS connection.
        self.sendfile = True
        self.stopping = False
        self.serving = False  # set by start_accepting: until then the acceptors stay paused
        self.idle_closed = 0
        self._acceptors: list[_Acceptor] = []
        self._starting: set[asyncio.Task] = set()
        self._sweeper: asyncio.Task | None = None
        self.bound: list[tuple[str, int]] = []
        # Connections with answers completed inline, written at the end of the pass that
        # completed them (KafkaConnection._answered_inline) or on the next turn.
        self._unflushed: dict[KafkaConnection, None] = {}
        # What this broker serves (the registry filtered by ``served_when``), set at start.
        self.handlers: dict[int, HandlerSpec] = {}

    def flush_soon(self, conn: KafkaConnection) -> None:
        """Write ``conn``'s queued answers at the end of the current pass (``flush_connections``),
        or on the next turn of the loop when no pass is under way (a timer completed them)."""
        if not self._unflushed:
            asyncio.get_running_loop().call_soon(self.flush_connections)
        self._unflushed[conn] = None

    def flush_connections(self) -> None:
        if not self._unflushed:
            return
        unflushed, self._unflushed = self._unflushed, {}
        for conn in unflushed:
            conn.flush()

    async def start(self, *, accept: bool = True) -> None:
        """Bind every listener; accept connections now, or (``accept=False``) once
        ``start_accepting`` is called: a ZooKeeper-mode broker serves requests only after its
        registration, as Kafka's ``SocketServer.enableRequestProcessing`` comes after
        ``registerBroker`` (the bound ports are registered, so the bind comes first; clients
        connecting meanwhile wait in the listen backlog)."""
        cfg = self.broker.config
        # Timed and counted when the metrics endpoint is on (broker.metrics.RequestMetrics).
        self.handlers = self.broker.metrics.instrument(served_handlers(self.broker))
        loop = asyncio.get_running_loop()
        await self.quotas.resolve(loop)
        for lst in cfg.listeners:
            for sock in await _listening_sockets(loop, lst.host or None, lst.port):
                acceptor = _Acceptor(self, lst.name, sock)
                self._acceptors.append(acceptor)
                addr = sock.getsockname()
                self.bound.append((addr[0], addr[1]))
                log.info("listening on %s://%s:%d", lst.name, addr[0], addr[1])
        if accept:
            self.start_accepting()
        if self.idle_ms >= 0:
            self._sweeper = asyncio.create_task(self._close_idle_connections(), name="idle-connections")

    def start_accepting(self) -> None:
        self.serving = True
        for acceptor in self._acceptors:
            acceptor.start()

    # ------------------------------------------------------------------ connections

    def accepted(self, listener: str, sock: socket.socket, addr: Any) -> None:
        ip = normalize_ip(str(addr[0])) if isinstance(addr, tuple) else str(addr)
        if not self.quotas.inc(ip):
            log.info(
                "Rejected connection from %s, address already has the configured maximum of %d connections.",
                ip,
                self.quotas.limit_for(ip),
            )
            sock.close()
            return
        if self.quotas.exceeded():
            # A connection on the protected inter-broker listener over max.connections:
            # Kafka's Processor.closeExcessConnections closes the least recently used
            # connection of another listener.
            others = [c for c in self.connections if c.listener != self.quotas.protected_listener]
            if others:
                victim = min(others, key=lambda c: c.last_active)
                victim.close(f"max.connections={self.quotas.max_connections} exceeded", level=logging.INFO)
        sock.setblocking(False)
        task = asyncio.get_running_loop().create_task(self._open(listener, ip, sock))
        self._starting.add(task)
        task.add_done_callback(self._starting.discard)

    async def _open(self, listener: str, ip: str, sock: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        made: list[KafkaConnection] = []

        def factory() -> KafkaConnection:
            made.append(KafkaConnection(self, listener, ip))
            return made[0]

        try:
            await loop.connect_accepted_socket(
                factory, sock, ssl=self.broker.security.server_ssl_context(listener)
            )
        except BaseException as exc:
            if not made or made[0].transport is None:  # else connection_lost counts it down
                sock.close()
                self._forget(ip)
            if not isinstance(exc, asyncio.CancelledError | OSError):
                raise

    def connection_closed(self, conn: KafkaConnection) -> None:
        if conn in self.connections:
            self.connections.discard(conn)
            self._forget(conn.ip)

    def connection_limits_changed(self) -> None:
        """A dynamic ``max.connections`` change: paused listeners accept again if there is room;
        a lowered limit closes the least recently active connections over it, outside the
        protected inter-broker listener (Kafka's ``Processor.closeExcessConnections``)."""
        excess = self.quotas.total - self.quotas.max_connections
        if excess > 0:
            others = [c for c in self.connections if c.listener != self.quotas.protected_listener]
            for victim in sorted(others, key=lambda c: c.last_active)[:excess]:
                victim.close(f"max.connections={self.quotas.max_connections} exceeded", level=logging.INFO)
        for acceptor in self._acceptors:
            if not acceptor.accepting and self.quotas.slot_available(acceptor.listener):
                acceptor.start()

    def _forget(self, ip: str) -> None:
        self.quotas.dec(ip)
        if self.stopping:
            return
        for acceptor in self._acceptors:
            if not acceptor.accepting and self.quotas.slot_available(acceptor.listener):
                acceptor.start()

    async def _close_idle_connections(self) -> None:
        """connections.max.idle.ms: one sweep every tenth of it (at most 30 s), not a
        timer per connection (Kafka's Selector checks its LRU list on each poll)."""
        idle_s = self.idle_ms / 1000
        period = min(max(idle_s / 10, 0.05), 30.0)
        while True:
            await asyncio.sleep(period)
            cutoff = self.monotonic() - idle_s
            for conn in [c for c in self.connections if c.is_idle_since(cutoff)]:
                self.idle_closed += 1
                reason = f"idle for more than connections.max.idle.ms={self.idle_ms}"
                conn.close(reason, level=logging.DEBUG, abort=True)
            for conn in self.connections:
                conn.release_spare()

    async def stop(self) -> None:
        self.stopping = True
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        for acceptor in self._acceptors:
            acceptor.close()
        self._acceptors.clear()
        for task in list(self._starting):
            task.cancel()
        for conn in list(self.connections):
            conn.close(None)
        if self._starting:
            await asyncio.gather(*self._starting, return_exceptions=True)


async def _listening_sockets(
    loop: asyncio.AbstractEventLoop, host: str | None, port: int, backlog: int = 1024
) -> list[socket.socket]:
    """Bound, listening, non-blocking sockets for ``host`` (None: all interfaces), as
    ``loop.create_server`` makes them; accepting is left to ``_Acceptor``."""
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    socks: list[socket.socket] = []
    seen = set()
    try:
        for family, kind, proto, _, sockaddr in infos:
            if (family, sockaddr) in seen:
                continue
            seen.add((family, sockaddr))
            sock = socket.socket(family, kind, proto)
            socks.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(sockaddr)
            sock.listen(backlog)
            sock.setblocking(False)
    except OSError:
        for sock in socks:
            sock.close()
        raise
    return socks
