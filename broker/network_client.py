"""The inter-broker network client: one broker talking the Kafka protocol to others.

The controller sends LeaderAndIsr / UpdateMetadata / StopReplica through it, brokers send
ControlledShutdown and AlterPartition to the controller, and replica fetchers send Fetch to
leaders.

``InterBrokerClient`` (Kafka's ``NetworkClient`` with ``ClusterConnectionStates``, as used
through ``NetworkClientUtils.sendAndReceive`` by ``ReplicaFetcherBlockingSend`` and
``BrokerToControllerChannelManager``)
    At most one connection per destination broker id, its address resolved on every
    connect through an injected ``endpoint_for(broker_id) -> (host, port) | None`` (the
    metadata cache's view of live brokers; when a broker re-registers at a new address,
    ``disconnect(broker_id)`` makes the next send use it). On connect it negotiates versions with
    ApiVersions (KIP-511: a broker that does not know our ApiVersions version answers v0
    with its own range, and we retry at min(ours, theirs)); ``send`` then picks, per API,
    min(our max, their max). Up to ``max_in_flight`` requests are pipelined on a
    connection; responses must come back in request order with the same correlation id
    (``NetworkClient.correlate``), else the connection is closed. ``request_timeout_ms``
    bounds each ``send``; a request that times out on the wire closes its connection, as
    ``NetworkClient.handleTimedOutRequests`` does, because the responses behind it can no
    longer be paired. A failed connect or a lost connection delays the next connect by
    ``reconnect.backoff.ms`` * 2^failures, capped at ``reconnect.backoff.max.ms``, with
    +-20% jitter (``ClusterConnectionStates`` / ``ExponentialBackoff``); a connection that
    finished its ApiVersions exchange resets the count. Failures are typed
    (:class:`NetworkClientError` and subclasses, ``retriable`` says whether to retry).

Memory: the read buffer is fixed; a response larger than it gets one buffer of its own,
filled by the transport directly, and the generated decoders keep ``records`` fields as
memoryviews into that frame (no copy of a Fetch response's record batches). A response
above ``max_response_bytes`` or one that arrives with nothing in flight closes the
connection. Each connection has at most ``max_in_flight`` requests on the wire; more
``send`` calls wait for a slot. Channel queues are unbounded by default, as Kafka's
(the controller's requests must all arrive); a ``max_queued`` bound makes ``enqueue``
beyond it raise :class:`ChannelQueueFull`.

Security: ``security`` (``broker.security.client.InterBrokerSecurity``) is what this broker
presents on the inter-broker listener: its TLS client context is given to
``create_connection``, and its SASL exchange (SaslHandshake + SaslAuthenticate, KIP-152) runs
after ApiVersions, before the connection is ready; a refused authentication fails the
connect (retried after the backoff). When the other broker grants a session lifetime
(KIP-368), an idle connection past 85% of it is replaced by a new, freshly authenticated one
(Kafka re-authenticates in place). No idle-connection reaper
(``connections.max.idle.ms``): inter-broker connections are few and long-lived. No
metadata-driven node selection (``leastLoadedNode``): callers name the broker.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import math
import random
import socket
import struct
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from broker.security.client import (
    PLAINTEXT_INTER_BROKER,
    InterBrokerAuthenticationError,
    InterBrokerSecurity,
)
from protocol.headers import (
    API_VERSIONS_KEY,
    RequestHeader,
    encode_request_header,
    request_header_version,
    response_header_version,
)
from protocol.messages import RESPONSES, ApiKey, ApiVersionsRequest, ApiVersionsResponse
from protocol.primitives import DecodeError, EncodeError, read_tagged_fields

log = logging.getLogger(__name__)

EndpointResolver = Callable[[int], "tuple[str, int] | None"]

# Kafka's defaults (CommonClientConfigs / the broker's inter-broker clients).
REQUEST_TIMEOUT_MS = 30_000
RECONNECT_BACKOFF_MS = 50
RECONNECT_BACKOFF_MAX_MS = 1_000
RECONNECT_BACKOFF_JITTER = 0.2  # CommonClientConfigs.RECONNECT_BACKOFF_JITTER
CONNECTION_SETUP_TIMEOUT_MS = 10_000  # socket.connection.setup.timeout.ms
MAX_IN_FLIGHT = 5  # max.in.flight.requests.per.connection
# Kafka's client receives are unbounded; a limit keeps a broken peer from exhausting memory.
MAX_RESPONSE_BYTES = 512 * 1024 * 1024

SOFTWARE_NAME = "moldau"
SOFTWARE_VERSION = "1.0"
READ_BUFFER = 256 * 1024

_SIZE = struct.Struct(">i")
_I32 = struct.Struct(">i")
_correlation_ids = itertools.count(1)


# ---------------------------------------------------------------------- errors


class NetworkClientError(Exception):
    """A request that got no usable response; ``retriable`` says whether retrying may help."""

    retriable = True

    def __init__(self, broker_id: int, message: str) -> None:
        super().__init__(f"broker {broker_id}: {message}")
        self.broker_id = broker_id
        self.detail = message

    def copy(self) -> NetworkClientError:
        """A fresh instance for each waiter (one raised instance would share its traceback)."""
        return type(self)(self.broker_id, self.detail)


class BrokerDisconnectedError(NetworkClientError):
    """The connection could not be made or was lost before the response arrived."""


class RequestTimeoutError(NetworkClientError):
    """No response within the request timeout (the connection was closed if it was on the wire)."""


class BrokerNotAvailableError(NetworkClientError):
    """``endpoint_for`` knows no address for the broker (not live in the metadata)."""


class UnsupportedVersionError(NetworkClientError):
    """The destination does not serve this API, or no version both sides speak."""

    retriable = False


class ClientClosedError(NetworkClientError):
    """The client (or channel) was closed; the request was not or will not be answered."""

    retriable = False


# ---------------------------------------------------------------------- backoff


class ReconnectBackoff:
    """Kafka's ``ExponentialBackoff(reconnect.backoff.ms, 2, reconnect.backoff.max.ms, 0.2)``.

    ``backoff_ms(n)`` is the wait after the (n+1)th failed connection in a row:
    ``initial * 2**n`` (the exponent capped where it reaches the maximum) times a factor
    drawn uniformly from [1-jitter, 1+jitter), capped at the maximum.
    """

    def __init__(
        self,
        initial_ms: int = RECONNECT_BACKOFF_MS,
        max_ms: int = RECONNECT_BACKOFF_MAX_MS,
        jitter: float = RECONNECT_BACKOFF_JITTER,
        rng: random.Random | None = None,
    ) -> None:
        self.initial_ms = initial_ms
        self.max_ms = max(max_ms, initial_ms)
        self.jitter = jitter
        self._rng = rng or random.Random()
        ratio = self.max_ms / initial_ms if initial_ms > 0 else 1.0
        self._exp_max = math.log(ratio, 2) if ratio > 1 else 0.0

    def backoff_ms(self, failures: int) -> int:
        if self.initial_ms <= 0:
            return 0
        term = self.initial_ms * 2 ** min(failures, self._exp_max)
        factor = self._rng.uniform(1 - self.jitter, 1 + self.jitter) if self.jitter > 0 else 1.0
        return min(int(term * factor), self.max_ms)


# ---------------------------------------------------------------------- one connection


@dataclass(slots=True)
class _InFlight:
    correlation_id: int
    api_key: int
    version: int
    future: asyncio.Future[Any]
    deadline: float  # loop time by which the response must have come (inf: none)
    request_type: type
    timeout: float  # seconds, for the error message


class _BrokerConnection(asyncio.BufferedProtocol):
    """One TCP connection to a broker: writes frames, pairs responses with requests in order."""

    def __init__(self, broker_id: int, max_response_bytes: int) -> None:
        self.broker_id = broker_id
        self.max_response_bytes = max_response_bytes
        self.transport: asyncio.Transport | None = None
        self.in_flight: deque[_InFlight] = deque()
        self.api_versions: dict[int, tuple[int, int]] = {}
        self.reauthenticate_at = math.inf  # loop time: replace the connection once idle after this
        self.closed = asyncio.get_running_loop().create_future()  # result: the close reason
        self._writable = asyncio.Event()
        self._writable.set()
        self._rbuf = bytearray(READ_BUFFER)
        self._rview = memoryview(self._rbuf)
        self._start = 0
        self._end = 0
        self._big: bytearray | None = None
        self._big_filled = 0
        # One timer for the requests' deadlines (NetworkClient.handleTimedOutRequests): armed
        # at the earliest, it fires rarely (answered requests leave it armed) and re-arms.
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = math.inf

    @property
    def is_open(self) -> bool:
        return not self.closed.done()

    # asyncio callbacks
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(BrokerDisconnectedError(self.broker_id, f"connection lost ({exc or 'closed by peer'})"))

    def eof_received(self) -> bool | None:
        return None

    def pause_writing(self) -> None:
        self._writable.clear()

    def resume_writing(self) -> None:
        self._writable.set()

    def get_buffer(self, sizehint: int) -> memoryview:
        if self._big is not None:
            return memoryview(self._big)[self._big_filled :]
        if self._end == len(self._rbuf):
            n = self._end - self._start
            self._rbuf[0:n] = self._rbuf[self._start : self._end]
            self._start, self._end = 0, n
        return self._rview[self._end :]

    def buffer_updated(self, nbytes: int) -> None:
        if self._big is not None:
            self._big_filled += nbytes
            if self._big_filled == len(self._big):
                frame, self._big = self._big, None
                self._on_frame(frame)
            return
        self._end += nbytes
        buf, start, end = self._rbuf, self._start, self._end
        while end - start >= 4 and self.is_open:
            (size,) = _SIZE.unpack_from(buf, start)
            if size < 4 or size > self.max_response_bytes:
                self.close(BrokerDisconnectedError(self.broker_id, f"response frame size {size} refused"))
                return
            avail = end - start - 4
            if avail >= size:
                frame = bytearray(self._rview[start + 4 : start + 4 + size])
                start += 4 + size
                self._start = start
                self._on_frame(frame)
                continue
            if size + 4 > len(buf):
                # Too big for the read buffer: a buffer of its own, filled by the transport.
                big = bytearray(size)
                big[:avail] = self._rview[start + 4 : end]
                self._big, self._big_filled = big, avail
                start = end = 0
            break
        if start == end:
            start = end = 0
        self._start, self._end = start, end

    # framing
    def _on_frame(self, frame: bytearray) -> None:
        if not self.in_flight:
            self.close(BrokerDisconnectedError(self.broker_id, "response without a request"))
            return
        entry = self.in_flight.popleft()
        (correlation_id,) = _I32.unpack_from(frame, 0)
        if correlation_id != entry.correlation_id:
            # NetworkClient.correlate: responses come back in order or the connection is broken.
            self.in_flight.appendleft(entry)
            self.close(
                BrokerDisconnectedError(
                    self.broker_id,
                    f"correlation id {correlation_id} in the response, {entry.correlation_id} expected",
                )
            )
            return
        if entry.future.done():  # the caller gave up (timeout, cancel): discard
            return
        mv = memoryview(frame)
        try:
            pos = 4
            if response_header_version(entry.api_key, entry.version) >= 1:
                _, pos = read_tagged_fields(mv, pos)
            try:
                response = RESPONSES[entry.api_key].decode(mv, entry.version, pos, exact=False)
            except DecodeError:
                if entry.api_key != API_VERSIONS_KEY:
                    raise
                # KIP-511: a broker that does not know our version answers in v0.
                response = ApiVersionsResponse.decode(mv, 0, pos, exact=False)
        except DecodeError as exc:
            self.close(BrokerDisconnectedError(self.broker_id, f"undecodable response: {exc}"))
            return
        entry.future.set_result(response)

    @property
    def writable(self) -> bool:
        return self._writable.is_set()

    async def wait_writable(self) -> None:
        await self._writable.wait()

    async def send(self, header: RequestHeader, request: Any, expects_response: bool) -> Any:
        """Write one request once the transport takes more; the future of its response (None
        when none is expected). No deadline: the caller bounds the wait."""
        if not self._writable.is_set():
            await self._writable.wait()
        return self.send_now(header, request, expects_response)

    def send_now(
        self,
        header: RequestHeader,
        request: Any,
        expects_response: bool,
        timeout: float = math.inf,
        since: float | None = None,
    ) -> asyncio.Future[Any]:
        """Write one request now; the future of its response (None when none is expected),
        failed with RequestTimeoutError if none comes within ``timeout`` seconds of ``since``
        (loop time, now by default; the connection is then closed: the responses behind it
        can no longer be paired)."""
        if not self.is_open:
            raise self.closed.result().copy()
        w = bytearray(4)
        encode_request_header(w, header)
        request.write(w, header.api_version)
        _SIZE.pack_into(w, 0, len(w) - 4)
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Any] = loop.create_future()
        if expects_response:
            deadline = (loop.time() if since is None else since) + timeout
            self.in_flight.append(
                _InFlight(
                    header.correlation_id,
                    header.api_key,
                    header.api_version,
                    fut,
                    deadline,
                    type(request),
                    timeout,
                )
            )
            if deadline < self._timer_at:
                self._arm(loop, deadline)
        else:
            fut.set_result(None)
        self.transport.write(w)  # type: ignore[union-attr]
        return fut

    def _arm(self, loop: asyncio.AbstractEventLoop, deadline: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = loop.call_at(deadline, self._check_deadlines)
        self._timer_at = deadline

    def _check_deadlines(self) -> None:
        """The timer fired: fail the requests past their deadline and close, else re-arm."""
        self._timer, self._timer_at = None, math.inf
        if not self.is_open:
            return
        loop = asyncio.get_running_loop()
        now = loop.time()
        expired = [e for e in self.in_flight if e.deadline <= now]
        if not expired:
            if self.in_flight:
                self._arm(loop, min(e.deadline for e in self.in_flight))
            return
        for entry in expired:
            if not entry.future.done():
                entry.future.set_exception(_no_response(self.broker_id, entry.request_type, entry.timeout))
        self.close(RequestTimeoutError(self.broker_id, "an earlier request timed out"))

    def close(self, reason: NetworkClientError) -> None:
        self._fail(reason)
        if self.transport is not None:
            self.transport.close()

    def _fail(self, reason: NetworkClientError) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer, self._timer_at = None, math.inf
        if not self.closed.done():
            self.closed.set_result(reason)
        self._writable.set()
        while self.in_flight:
            entry = self.in_flight.popleft()
            if not entry.future.done():
                entry.future.set_exception(reason.copy())
        self._big = None


# ---------------------------------------------------------------------- the client


def _no_response(broker_id: int, request_type: type, timeout: float) -> RequestTimeoutError:
    """A request whose response did not come within ``timeout`` seconds (on the wire or waiting
    for a slot on a ready connection)."""
    return RequestTimeoutError(
        broker_id, f"no response to {request_type.__name__} within {timeout * 1000:.0f} ms"
    )


def _current_task_cancelling() -> bool:
    """Whether the running task itself is being cancelled (by its caller or a timeout)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


class _Node:
    """Connection state of one destination broker (ClusterConnectionStates.NodeConnectionState)."""

    def __init__(self, broker_id: int, max_in_flight: int) -> None:
        self.broker_id = broker_id
        self.connection: _BrokerConnection | None = None
        self.connecting: asyncio.Future[_BrokerConnection] | None = None
        self.failures = 0
        self.next_attempt = 0.0  # loop time before which no connect is tried
        self.slots = asyncio.Semaphore(max_in_flight)


class InterBrokerClient:
    """Connections from this broker to others, by broker id; see the module docstring."""

    def __init__(
        self,
        client_id: str,
        endpoint_for: EndpointResolver,
        *,
        request_timeout_ms: int = REQUEST_TIMEOUT_MS,
        connection_setup_timeout_ms: int = CONNECTION_SETUP_TIMEOUT_MS,
        reconnect_backoff: ReconnectBackoff | None = None,
        max_in_flight: int = MAX_IN_FLIGHT,
        max_response_bytes: int = MAX_RESPONSE_BYTES,
        security: InterBrokerSecurity = PLAINTEXT_INTER_BROKER,
    ) -> None:
        if max_in_flight < 1:
            raise ValueError("max_in_flight must be at least 1")
        self.client_id = client_id
        self.endpoint_for = endpoint_for
        self.request_timeout_ms = request_timeout_ms
        self.connection_setup_timeout_ms = connection_setup_timeout_ms
        self.backoff = reconnect_backoff or ReconnectBackoff()
        self.max_in_flight = max_in_flight
        self.max_response_bytes = max_response_bytes
        self.security = security
        self._nodes: dict[int, _Node] = {}
        self._closed = False

    # ---------------------------------------------------------------- public API

    async def send(
        self, broker_id: int, request: Any, version: int | None = None, *, timeout_ms: int | None = None
    ) -> Any:
        """Send ``request`` to ``broker_id`` and return its decoded response.

        ``version`` None picks min(our max, the broker's max). Connects (after any
        reconnect backoff) if needed. Raises a :class:`NetworkClientError`. A Produce with
        acks=0 returns None once written, as Kafka's clients do.
        """
        timeout = (self.request_timeout_ms if timeout_ms is None else timeout_ms) / 1000
        node = self._node(broker_id)
        loop = asyncio.get_running_loop()
        started = loop.time()
        conn = node.connection
        if (
            conn is not None
            and conn.is_open
            and conn.writable
            and not node.slots.locked()
            and (conn.in_flight or started < conn.reauthenticate_at)
        ):
            await node.slots.acquire()  # free: no wait (a fetcher's every request takes this path)
        else:
            conn = await self._ready_with_slot(node, request, timeout)
        try:
            version = self._pick_version(conn, request, version)
            header = self._header(request.API_KEY, version)
            expects_response = not (request.API_KEY == ApiKey.PRODUCE and request.acks == 0)
            try:
                # What is left of the timeout bounds the response (the connection's deadline timer).
                fut = conn.send_now(header, request, expects_response, timeout, since=started)
            except EncodeError as exc:
                raise UnsupportedVersionError(broker_id, f"cannot encode: {exc}") from None
            return await fut
        finally:
            node.slots.release()

    async def _ready_with_slot(self, node: _Node, request: Any, timeout: float) -> _BrokerConnection:
        """A slot on a ready, writable connection within ``timeout`` seconds (the slot is then
        the caller's to release)."""
        conn: _BrokerConnection | None = None
        acquired = False
        try:
            async with asyncio.timeout(timeout):
                await node.slots.acquire()
                acquired = True
                conn = await self._ready(node)
                if not conn.writable:
                    await conn.wait_writable()
            return conn
        except BaseException as exc:
            if acquired:
                node.slots.release()
            if not isinstance(exc, TimeoutError):
                raise
            if conn is None:  # still connecting (the connect goes on for other callers)
                raise RequestTimeoutError(
                    node.broker_id, f"not connected within {timeout * 1000:.0f} ms"
                ) from None
            raise _no_response(node.broker_id, type(request), timeout) from None

    def is_ready(self, broker_id: int) -> bool:
        node = self._nodes.get(broker_id)
        return node is not None and node.connection is not None and node.connection.is_open

    def in_flight(self, broker_id: int) -> int:
        """Requests written to ``broker_id`` and not yet answered."""
        node = self._nodes.get(broker_id)
        if node is None or node.connection is None:
            return 0
        return len(node.connection.in_flight)

    def api_versions(self, broker_id: int) -> dict[int, tuple[int, int]]:
        """The (min, max) version per API key the connected broker advertised ({} if not connected)."""
        node = self._nodes.get(broker_id)
        if node is None or node.connection is None or not node.connection.is_open:
            return {}
        return dict(node.connection.api_versions)

    def version_for(self, broker_id: int, request_cls: type) -> int:
        """The version ``send`` would use for ``request_cls`` on the current connection."""
        node = self._nodes.get(broker_id)
        conn = node.connection if node is not None else None
        if conn is None or not conn.is_open:
            raise BrokerDisconnectedError(broker_id, "not connected")
        return self._pick_version(conn, request_cls, None)

    def reconnect_delay(self, broker_id: int) -> float:
        """Seconds until a connect to ``broker_id`` may be tried (0: now)."""
        node = self._nodes.get(broker_id)
        if node is None:
            return 0.0
        return max(0.0, node.next_attempt - asyncio.get_running_loop().time())

    def disconnect(self, broker_id: int) -> None:
        """Close the connection to ``broker_id`` (its in-flight requests fail) and abandon a
        connect in progress (its waiters fail); the backoff state is kept.

        As Kafka's ``NetworkClient.close(node)``, which ``ReplicaFetcherBlockingSend`` calls
        after any failure: a connect stuck in its handshake (its ApiVersions lost on a link
        since healed) is not waited for until the connection setup timeout.
        """
        node = self._nodes.get(broker_id)
        if node is None:
            return
        if node.connecting is not None and not node.connecting.done():
            node.connecting.cancel()
            node.connecting = None  # the next send starts a new connect, not this cancelled one
        if node.connection is not None:
            node.connection.close(BrokerDisconnectedError(broker_id, "disconnected by this broker"))

    def forget(self, broker_id: int) -> None:
        """Close and drop everything about ``broker_id`` (it left the cluster)."""
        self.disconnect(broker_id)
        self._nodes.pop(broker_id, None)

    async def close(self) -> None:
        """Close every connection; pending and later requests fail with ClientClosedError."""
        self._closed = True
        for node in list(self._nodes.values()):
            if node.connecting is not None and not node.connecting.done():
                node.connecting.cancel()
            if node.connection is not None:
                node.connection.close(ClientClosedError(node.broker_id, "client closed"))
        self._nodes.clear()
        await asyncio.sleep(0)  # let transports run their close callbacks

    # ---------------------------------------------------------------- connecting

    def _node(self, broker_id: int) -> _Node:
        if self._closed:
            raise ClientClosedError(broker_id, "client closed")
        node = self._nodes.get(broker_id)
        if node is None:
            node = self._nodes[broker_id] = _Node(broker_id, self.max_in_flight)
        return node

    async def _ready(self, node: _Node) -> _BrokerConnection:
        conn = node.connection
        if conn is not None and conn.is_open:
            if conn.in_flight or asyncio.get_running_loop().time() < conn.reauthenticate_at:
                return conn
            # The SASL session nears its end (KIP-368): a new connection authenticates again.
            conn.close(BrokerDisconnectedError(node.broker_id, "SASL session lifetime reached"))
        if node.connecting is None or node.connecting.done():
            node.connecting = asyncio.ensure_future(self._connect(node))
            # Every caller may have given up (timeouts): the outcome is then nobody's to see.
            node.connecting.add_done_callback(lambda f: f.cancelled() or f.exception())
        connecting = node.connecting
        try:
            # Shielded: a caller's timeout must not abort a connect other callers share.
            return await asyncio.shield(connecting)
        except asyncio.CancelledError:
            if connecting.cancelled() and self._closed:  # close() stopped the connect
                raise ClientClosedError(node.broker_id, "client closed") from None
            if connecting.cancelled() and not _current_task_cancelling():  # disconnect() did
                raise BrokerDisconnectedError(node.broker_id, "connect abandoned (disconnected)") from None
            raise

    async def _connect(self, node: _Node) -> _BrokerConnection:
        loop = asyncio.get_running_loop()
        delay = node.next_attempt - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)  # reconnect backoff: a deadline, not an event
        if self._closed:
            raise ClientClosedError(node.broker_id, "client closed")
        endpoint = self.endpoint_for(node.broker_id)
        if endpoint is None:
            self._record_failure(node)
            raise BrokerNotAvailableError(node.broker_id, "no endpoint known")
        host, port = endpoint
        conn: _BrokerConnection | None = None
        try:
            async with asyncio.timeout(self.connection_setup_timeout_ms / 1000):
                tls = self.security.ssl_context
                _, conn = await loop.create_connection(
                    lambda: _BrokerConnection(node.broker_id, self.max_response_bytes),
                    host,
                    port,
                    ssl=tls,
                    server_hostname=host if tls is not None else None,
                )
                await self._handshake(conn)
        except asyncio.CancelledError:  # disconnect() or close() abandoned this connect
            if conn is not None:
                conn.close(BrokerDisconnectedError(node.broker_id, "connect abandoned"))
            raise
        except (OSError, TimeoutError, NetworkClientError, InterBrokerAuthenticationError) as exc:
            if conn is not None:
                conn.close(BrokerDisconnectedError(node.broker_id, "connection setup failed"))
            self._record_failure(node)
            if isinstance(exc, UnsupportedVersionError | ClientClosedError):
                raise
            raise BrokerDisconnectedError(
                node.broker_id, f"cannot connect to {host}:{port}: {exc!r}"
            ) from None
        if self._closed:
            conn.close(ClientClosedError(node.broker_id, "client closed"))
            raise ClientClosedError(node.broker_id, "client closed")
        node.connection = conn
        node.failures = 0  # ClusterConnectionStates.ready resets the failure count
        conn.closed.add_done_callback(lambda _: self._on_disconnect(node, conn))
        log.debug("%s: connected to broker %d at %s:%d", self.client_id, node.broker_id, host, port)
        return conn

    async def _handshake(self, conn: _BrokerConnection) -> None:
        """ApiVersions (KIP-511), then SASL when the inter-broker listener asks for it."""
        version = ApiVersionsRequest.VALID_VERSIONS[1]
        request = ApiVersionsRequest(
            client_software_name=SOFTWARE_NAME, client_software_version=SOFTWARE_VERSION
        )
        for _ in range(2):
            fut = await conn.send(self._header(API_VERSIONS_KEY, version), request, True)
            response: ApiVersionsResponse = await fut
            ranges = {k.api_key: (k.min_version, k.max_version) for k in response.api_keys}
            if response.error_code == 0:
                conn.api_versions = ranges
                await self._authenticate(conn)
                return
            theirs = ranges.get(API_VERSIONS_KEY)
            if response.error_code != 35 or theirs is None or theirs[1] >= version:  # 35: UNSUPPORTED_VERSION
                break
            version = theirs[1]
        raise UnsupportedVersionError(conn.broker_id, f"ApiVersions failed (error {response.error_code})")

    async def _authenticate(self, conn: _BrokerConnection) -> None:
        async def exchange(request: Any, version: int) -> Any:
            theirs = conn.api_versions.get(request.API_KEY, (0, version))
            header = self._header(request.API_KEY, min(version, theirs[1]))
            return await (await conn.send(header, request, True))

        lifetime_ms = await self.security.authenticate(exchange)
        if lifetime_ms > 0:
            conn.reauthenticate_at = asyncio.get_running_loop().time() + 0.85 * lifetime_ms / 1000

    def _record_failure(self, node: _Node) -> None:
        node.next_attempt = asyncio.get_running_loop().time() + self.backoff.backoff_ms(node.failures) / 1000
        node.failures += 1

    def _on_disconnect(self, node: _Node, conn: _BrokerConnection) -> None:
        if node.connection is conn:
            node.connection = None
            self._record_failure(node)

    # ---------------------------------------------------------------- framing helpers

    def _header(self, api_key: int, version: int) -> RequestHeader:
        correlation_id = next(_correlation_ids) & 0x7FFFFFFF
        if api_key == ApiKey.CONTROLLED_SHUTDOWN and version == 0:
            header_version = 0  # Kafka: ControlledShutdown v0 has a v0 header (no client id)
        else:
            header_version = request_header_version(api_key, version)
        return RequestHeader(api_key, version, correlation_id, self.client_id, header_version)

    def _pick_version(self, conn: _BrokerConnection, request: Any, version: int | None) -> int:
        cls = request if isinstance(request, type) else type(request)
        ours = cls.VALID_VERSIONS
        theirs = conn.api_versions.get(cls.API_KEY)
        name = cls.__name__
        if theirs is None:
            raise UnsupportedVersionError(conn.broker_id, f"{name} (key {cls.API_KEY}) is not served")
        lo, hi = max(ours[0], theirs[0]), min(ours[1], theirs[1])
        if version is None:
            version = hi
        if not (lo <= version <= hi):
            raise UnsupportedVersionError(
                conn.broker_id, f"{name} v{version} not in the common range {lo}-{hi} (broker {theirs})"
            )
        return version
