"""A Kafka-aware TCP proxy that injects faults between a real client and the broker.

Clients connect to the proxy; for every client connection the proxy opens one to the broker
and relays size-prefixed Kafka frames both ways. It decodes each request header (and the body
of Produce requests, to know which batches they carry: topic, partition, producer id, epoch
and sequences), pairs every response with its request by order and correlation id, and applies
the first matching :class:`FaultRule`:

- ``DROP``: the broker's response is swallowed, and so is every later response on that
  connection (a client such as Java's NetworkClient closes a connection whose responses come
  back out of order, so a lone gap would be a disconnect, not a lost response). The client
  times out (``request.timeout.ms``) and retries a batch the broker already wrote.
- ``CUT``: the request reached the broker and was answered, but instead of the answer the
  client sees its connection closed; it reconnects and retries at once.
- ``DELAY``: the response (and those queued behind it) is held for ``delay_s``.
- ``REWRITE``: the error code of every partition of a Produce response is replaced (the base
  offset and log append time become -1, as a broker's error responses have them).
- ``INTERCEPT``: the request never reaches the broker; the proxy answers it with
  ``error_code`` itself (Produce only), e.g. OUT_OF_ORDER_SEQUENCE_NUMBER for a batch the
  broker never saw, which makes the Java client bump its epoch.

Metadata, FindCoordinator and DescribeCluster responses are rewritten so that the broker's
address is the proxy's (``rewrite_addresses``): clients that learn the cluster from Metadata
keep talking through the proxy, and the broker needs no ``advertised.listeners`` change.

Randomness (``probability`` below 1) comes from one ``random.Random(seed)``, so a run is
repeatable for a given interleaving. :class:`ProxyStats` counts what the proxy saw and did;
``retried_batches`` and ``duplicates_confirmed`` let a test prove that faults really made the
client send a batch the broker already had, and that the broker answered it with the original
offset. The proxy runs its own asyncio loop in a daemon thread; tests stay synchronous.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import enum
import itertools
import logging
import random
import struct
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from protocol.headers import decode_request_header, response_header_bytes, response_header_version
from protocol.messages import RESPONSES, ApiKey, ProduceRequest, ProduceResponse
from protocol.primitives import DecodeError
from protocol.record_batch import HEADER_SIZE, iter_batches

log = logging.getLogger(__name__)

_SIZE = struct.Struct(">i")
_CORRELATION = struct.Struct(">i")
# Frames above this are not Kafka traffic a test produces; refuse rather than buffer them.
MAX_FRAME = 256 * 1024 * 1024


class Action(enum.Enum):
    DROP = "drop"
    CUT = "cut"
    DELAY = "delay"
    REWRITE = "rewrite"
    INTERCEPT = "intercept"


@dataclass(frozen=True, slots=True)
class BatchKey:
    """What identifies a produced batch across retries: partition, producer and sequences."""

    topic: str
    partition: int
    producer_id: int
    producer_epoch: int
    base_sequence: int
    last_sequence: int


@dataclass(slots=True)
class Exchange:
    """One request as the proxy saw it (and, once answered, its response)."""

    connection: int
    api_key: int
    api_version: int
    correlation_id: int
    client_id: str | None
    acks: int | None = None
    batches: tuple[BatchKey, ...] = ()
    partitions: tuple[tuple[str, int], ...] = ()
    # Batches of this request the broker was already sent in an earlier request (re-sends).
    resent: tuple[BatchKey, ...] = ()
    expects_response: bool = True

    @property
    def topics(self) -> set[str]:
        return {t for t, _ in self.partitions}

    @property
    def retry(self) -> bool:
        """True when the request re-sends a batch the broker already received."""
        return bool(self.resent)


@dataclass
class FaultRule:
    """When to do what. Rules are tried in order; the first one that fires wins.

    A rule matches an exchange of ``api_key`` (and ``topic``, if given; ``retries_only`` /
    ``first_attempts_only`` filter on whether the request re-sends a batch the proxy saw
    before). The first ``after`` matches pass untouched; then it fires with ``probability``
    (seeded), at most ``times`` times (None: no limit). ``when`` is an extra predicate.
    """

    action: Action
    api_key: int = ApiKey.PRODUCE
    topic: str | None = None
    probability: float = 1.0
    times: int | None = None
    after: int = 0
    retries_only: bool = False
    first_attempts_only: bool = False
    delay_s: float = 0.0
    error_code: int = 0
    when: Callable[[Exchange], bool] | None = None
    matched: int = 0
    fired: int = 0

    def matches(self, exchange: Exchange) -> bool:
        if exchange.api_key != self.api_key:
            return False
        if self.topic is not None and self.topic not in exchange.topics:
            return False
        if self.retries_only and not exchange.retry:
            return False
        if self.first_attempts_only and exchange.retry:
            return False
        return self.when is None or self.when(exchange)

    @property
    def exhausted(self) -> bool:
        return self.times is not None and self.fired >= self.times


@dataclass
class ProxyStats:
    """Counters of what the proxy saw and did (a copy is handed to tests)."""

    connections: int = 0
    upstream_connect_failures: int = 0
    requests: Counter[int] = field(default_factory=Counter)
    produce_batches: int = 0
    # Batch sends whose BatchKey had been sent before (client retries the proxy witnessed).
    retried_batches: int = 0
    # Retried batches answered NONE with the base offset the broker gave the earlier attempt.
    duplicates_confirmed: int = 0
    dropped: int = 0
    swallowed: int = 0
    cut: int = 0
    delayed: int = 0
    rewritten: int = 0
    intercepted: int = 0
    # Error codes of Produce partition responses as the client received them (after rewrites).
    produce_errors_to_client: Counter[int] = field(default_factory=Counter)
    # Every fault done, in order: (action, request api key, batches of the request).
    events: list[tuple[Action, int, tuple[BatchKey, ...]]] = field(default_factory=list)

    def copy(self) -> ProxyStats:
        return dataclasses.replace(
            self,
            requests=Counter(self.requests),
            produce_errors_to_client=Counter(self.produce_errors_to_client),
            events=list(self.events),
        )


@dataclass
class _Outcome:
    """What the responder does with an exchange: write ``frame`` (after ``delay_s``) or not."""

    action: Action | None
    frame: bytes | None
    delay_s: float = 0.0


class _Connection:
    def __init__(self, ident: int, client_writer: asyncio.StreamWriter) -> None:
        self.ident = ident
        self.client_writer = client_writer
        self.upstream_writer: asyncio.StreamWriter | None = None
        # Exchanges sent upstream, waiting for the broker's answer, in request order.
        self.awaiting_broker: deque[tuple[Exchange, asyncio.Future[_Outcome]]] = deque()
        # Every exchange that gets an answer to the client, in request order.
        self.to_client: asyncio.Queue[tuple[Exchange, asyncio.Future[_Outcome]] | None] = asyncio.Queue()
        self.blackholed = False
        self.closed = False


class FaultProxy:
    """A proxy in front of one broker; see the module docstring."""

    def __init__(
        self,
        upstream_host: str,
        upstream_port: int,
        *,
        seed: int = 0,
        rewrite_addresses: bool = True,
        listen_host: str = "127.0.0.1",
    ) -> None:
        self.upstream_host = upstream_host
        self.upstream_port = upstream_port
        self.listen_host = listen_host
        self.rewrite_addresses = rewrite_addresses
        self.port: int | None = None
        self._rng = random.Random(seed)
        self._rules: list[FaultRule] = []
        self._stats = ProxyStats()
        self._cond = threading.Condition()
        # BatchKey -> base offset the broker answered for it (first successful answer).
        self._offsets: dict[BatchKey, int] = {}
        self._sent: set[BatchKey] = set()
        self._ids = itertools.count(1)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: Any = None
        self._connections: dict[int, _Connection] = {}

    # ------------------------------------------------------------------ lifecycle

    @property
    def bootstrap(self) -> str:
        return f"{self.listen_host}:{self.port}"

    def start(self) -> FaultProxy:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="fault-proxy", daemon=True)
        self._thread.start()
        self._server = self._call(asyncio.start_server(self._serve, self.listen_host, 0))
        self.port = self._server.sockets[0].getsockname()[1]
        log.info("fault proxy on %s -> %s:%d", self.bootstrap, self.upstream_host, self.upstream_port)
        return self

    def stop(self) -> None:
        if self._loop is None:
            return
        with contextlib.suppress(Exception):
            self._call(self._shutdown(), timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None:
            self._thread.join(10)
        self._loop.close()
        self._loop = None

    def __enter__(self) -> FaultProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _call(self, coro: Any, timeout: float = 30.0) -> Any:
        assert self._loop is not None, "proxy not started"
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    async def _shutdown(self) -> None:
        if self._server is not None:
            self._server.close()
        for conn in list(self._connections.values()):
            self._close(conn)
        if self._server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 5)

    # ------------------------------------------------------------------ rules and counters

    def add_rule(self, rule: FaultRule) -> FaultRule:
        """Append a rule (returned, so a test can read its ``fired`` count later)."""
        with self._cond:
            self._rules.append(rule)
        return rule

    def clear_rules(self) -> None:
        with self._cond:
            self._rules.clear()

    def stats(self) -> ProxyStats:
        with self._cond:
            return self._stats.copy()

    def wait_for(
        self, predicate: Callable[[ProxyStats], bool], what: str, timeout: float = 60.0
    ) -> ProxyStats:
        """Block until ``predicate(stats)`` holds (woken by every change), or fail after ``timeout``."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not predicate(self._stats):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"fault proxy: timed out waiting for {what}; stats: {self._stats}")
                self._cond.wait(left)
            return self._stats.copy()

    def _update(self, fn: Callable[[ProxyStats], None]) -> None:
        with self._cond:
            fn(self._stats)
            self._cond.notify_all()

    def _pick_rule(self, exchange: Exchange, actions: Iterable[Action]) -> FaultRule | None:
        wanted = set(actions)
        with self._cond:
            for rule in self._rules:
                if rule.action not in wanted or rule.exhausted or not rule.matches(exchange):
                    continue
                rule.matched += 1
                if rule.matched <= rule.after:
                    continue
                if rule.probability < 1.0 and self._rng.random() >= rule.probability:
                    continue
                rule.fired += 1
                return rule
        return None

    # ------------------------------------------------------------------ relaying

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = _Connection(next(self._ids), writer)
        self._update(lambda s: setattr(s, "connections", s.connections + 1))
        try:
            up_reader, up_writer = await asyncio.open_connection(self.upstream_host, self.upstream_port)
        except OSError:
            # The broker is down (killed, restarting): the client sees a refused-like close.
            self._update(lambda s: setattr(s, "upstream_connect_failures", s.upstream_connect_failures + 1))
            writer.close()
            return
        conn.upstream_writer = up_writer
        self._connections[conn.ident] = conn
        tasks = [
            asyncio.ensure_future(self._pump_requests(conn, reader)),
            asyncio.ensure_future(self._pump_responses(conn, up_reader)),
            asyncio.ensure_future(self._respond(conn)),
        ]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            self._close(conn)
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self._connections.pop(conn.ident, None)

    def _close(self, conn: _Connection) -> None:
        if conn.closed:
            return
        conn.closed = True
        for w in (conn.client_writer, conn.upstream_writer):
            if w is not None:
                with contextlib.suppress(Exception):
                    w.close()
        conn.to_client.put_nowait(None)

    async def _read_frame(self, reader: asyncio.StreamReader) -> bytes | None:
        try:
            head = await reader.readexactly(4)
            (size,) = _SIZE.unpack(head)
            if size < 0 or size > MAX_FRAME:
                return None
            return await reader.readexactly(size)
        except (asyncio.IncompleteReadError, ConnectionError, OSError):
            return None

    async def _pump_requests(self, conn: _Connection, reader: asyncio.StreamReader) -> None:
        assert conn.upstream_writer is not None
        while True:
            frame = await self._read_frame(reader)
            if frame is None:
                return
            exchange = self._parse_request(conn, frame)
            self._update(lambda s, k=exchange.api_key: s.requests.update([k]))
            rule = self._pick_rule(exchange, (Action.INTERCEPT,)) if exchange.batches else None
            if rule is not None and exchange.expects_response:
                done: asyncio.Future[_Outcome] = asyncio.get_running_loop().create_future()
                done.set_result(
                    _Outcome(Action.INTERCEPT, self._synthetic_produce_response(exchange, frame, rule))
                )
                conn.to_client.put_nowait((exchange, done))
                self._record_fault(Action.INTERCEPT, exchange)
                continue
            self._note_batches_sent(exchange)
            if exchange.expects_response:
                fut: asyncio.Future[_Outcome] = asyncio.get_running_loop().create_future()
                conn.awaiting_broker.append((exchange, fut))
                conn.to_client.put_nowait((exchange, fut))
            try:
                conn.upstream_writer.write(_SIZE.pack(len(frame)) + frame)
                await conn.upstream_writer.drain()
            except (ConnectionError, OSError):
                return

    async def _pump_responses(self, conn: _Connection, reader: asyncio.StreamReader) -> None:
        while True:
            frame = await self._read_frame(reader)
            if frame is None:
                return
            if not conn.awaiting_broker:
                log.warning("fault proxy: response without a request on connection %d", conn.ident)
                return
            exchange, fut = conn.awaiting_broker.popleft()
            (correlation,) = _CORRELATION.unpack_from(frame, 0)
            if correlation != exchange.correlation_id:
                log.warning(
                    "fault proxy: correlation id %d != %d on connection %d",
                    correlation,
                    exchange.correlation_id,
                    conn.ident,
                )
            fut.set_result(self._on_response(exchange, frame))

    async def _respond(self, conn: _Connection) -> None:
        """Writes answers to the client strictly in request order."""
        while True:
            item = await conn.to_client.get()
            if item is None:
                return
            exchange, fut = item
            outcome = await fut
            if conn.blackholed:
                self._update(lambda s: setattr(s, "swallowed", s.swallowed + 1))
                continue
            if outcome.action is Action.DROP:
                conn.blackholed = True
                continue
            if outcome.action is Action.CUT:
                self._close(conn)
                return
            if outcome.delay_s > 0:
                await asyncio.sleep(outcome.delay_s)
            assert outcome.frame is not None
            if exchange.api_key == ApiKey.PRODUCE:
                self._count_produce_errors(exchange, outcome.frame)
            try:
                conn.client_writer.write(_SIZE.pack(len(outcome.frame)) + outcome.frame)
                await conn.client_writer.drain()
            except (ConnectionError, OSError):
                return

    # ------------------------------------------------------------------ requests

    def _parse_request(self, conn: _Connection, frame: bytes) -> Exchange:
        try:
            header, pos = decode_request_header(frame)
        except DecodeError:
            return Exchange(conn.ident, -1, -1, -1, None)
        exchange = Exchange(
            conn.ident, header.api_key, header.api_version, header.correlation_id, header.client_id
        )
        if header.api_key != ApiKey.PRODUCE:
            return exchange
        try:
            request = ProduceRequest.decode(frame, header.api_version, pos, exact=False)
        except DecodeError:
            return exchange
        exchange.acks = request.acks
        exchange.expects_response = request.acks != 0
        batches: list[BatchKey] = []
        partitions: list[tuple[str, int]] = []
        for topic in request.topic_data:
            for p in topic.partition_data:
                partitions.append((topic.name, p.index))
                if p.records is None:
                    continue
                try:
                    for _, h in iter_batches(memoryview(p.records)):
                        if h.size >= HEADER_SIZE and h.producer_id >= 0:
                            batches.append(
                                BatchKey(
                                    topic.name,
                                    p.index,
                                    h.producer_id,
                                    h.producer_epoch,
                                    h.base_sequence,
                                    h.last_sequence,
                                )
                            )
                except (DecodeError, ValueError, struct.error):
                    pass  # not ours to judge: the broker answers bad batches
        exchange.batches = tuple(batches)
        exchange.partitions = tuple(partitions)
        with self._cond:
            exchange.resent = tuple(b for b in batches if b in self._sent)
        return exchange

    def _note_batches_sent(self, exchange: Exchange) -> None:
        if not exchange.batches:
            return

        def note(s: ProxyStats) -> None:
            for b in exchange.batches:
                s.produce_batches += 1
                if b in self._sent:
                    s.retried_batches += 1
                self._sent.add(b)

        self._update(note)

    def _synthetic_produce_response(self, exchange: Exchange, frame: bytes, rule: FaultRule) -> bytes:
        header, pos = decode_request_header(frame)
        request = ProduceRequest.decode(frame, header.api_version, pos, exact=False)
        topics = [
            ProduceResponse.TopicProduceResponse(
                name=t.name,
                partition_responses=[
                    ProduceResponse.PartitionProduceResponse(
                        index=p.index,
                        error_code=rule.error_code,
                        base_offset=-1,
                        log_append_time_ms=-1,
                        log_start_offset=0,
                        error_message="answered by the fault proxy",
                    )
                    for p in t.partition_data
                ],
            )
            for t in request.topic_data
        ]
        return self._encode_response(exchange, ProduceResponse(responses=topics, throttle_time_ms=0))

    # ------------------------------------------------------------------ responses

    def _decode_response(self, exchange: Exchange, frame: bytes) -> Any:
        hv = response_header_version(exchange.api_key, exchange.api_version)
        return RESPONSES[exchange.api_key].decode(
            frame, exchange.api_version, 4 if hv == 0 else 5, exact=False
        )

    def _encode_response(self, exchange: Exchange, response: Any) -> bytes:
        hv = response_header_version(exchange.api_key, exchange.api_version)
        w = bytearray(response_header_bytes(exchange.correlation_id, hv))
        response.write(w, exchange.api_version)
        return bytes(w)

    def _on_response(self, exchange: Exchange, frame: bytes) -> _Outcome:
        """Runs when the broker's answer arrives: bookkeeping, then the fault (if any)."""
        if exchange.api_key == ApiKey.PRODUCE and exchange.batches:
            self._note_produce_answer(exchange, frame)
        elif self.rewrite_addresses and exchange.api_key in _ADDRESS_REWRITERS:
            frame = self._rewrite_addresses(exchange, frame)
        rule = self._pick_rule(exchange, (Action.DROP, Action.CUT, Action.DELAY, Action.REWRITE))
        if rule is None:
            return _Outcome(None, frame)
        self._record_fault(rule.action, exchange)
        if rule.action is Action.DELAY:
            return _Outcome(Action.DELAY, frame, rule.delay_s)
        if rule.action is Action.REWRITE:
            return _Outcome(Action.REWRITE, self._rewrite_error(exchange, frame, rule.error_code))
        return _Outcome(rule.action, None)

    def _note_produce_answer(self, exchange: Exchange, frame: bytes) -> None:
        try:
            response = self._decode_response(exchange, frame)
        except DecodeError:
            return
        answers = {
            (t.name, p.index): p
            for t in response.responses
            for p in t.partition_responses
            if p.error_code == 0
        }

        def note(s: ProxyStats) -> None:
            for b in exchange.batches:
                p = answers.get((b.topic, b.partition))
                if p is None:
                    continue
                earlier = self._offsets.get(b)
                if earlier is None:
                    self._offsets[b] = p.base_offset
                elif b in exchange.resent and earlier == p.base_offset:
                    s.duplicates_confirmed += 1

        self._update(note)

    def _rewrite_error(self, exchange: Exchange, frame: bytes, error_code: int) -> bytes:
        response = self._decode_response(exchange, frame)
        for t in response.responses:
            for p in t.partition_responses:
                p.error_code = error_code
                p.base_offset = -1
                p.log_append_time_ms = -1
                p.error_message = "rewritten by the fault proxy"
        return self._encode_response(exchange, response)

    def _count_produce_errors(self, exchange: Exchange, frame: bytes) -> None:
        try:
            response = self._decode_response(exchange, frame)
        except DecodeError:
            return
        codes = [p.error_code for t in response.responses for p in t.partition_responses]
        self._update(lambda s: s.produce_errors_to_client.update(codes))

    def _record_fault(self, action: Action, exchange: Exchange) -> None:
        attr = {
            Action.DROP: "dropped",
            Action.CUT: "cut",
            Action.DELAY: "delayed",
            Action.REWRITE: "rewritten",
            Action.INTERCEPT: "intercepted",
        }[action]

        def note(s: ProxyStats) -> None:
            setattr(s, attr, getattr(s, attr) + 1)
            s.events.append((action, exchange.api_key, exchange.batches))

        self._update(note)

    def _rewrite_addresses(self, exchange: Exchange, frame: bytes) -> bytes:
        try:
            response = self._decode_response(exchange, frame)
        except DecodeError:
            return frame
        _ADDRESS_REWRITERS[exchange.api_key](response, self.listen_host, self.port or 0)
        return self._encode_response(exchange, response)


def _rewrite_metadata(response: Any, host: str, port: int) -> None:
    for b in response.brokers:
        b.host, b.port = host, port


def _rewrite_find_coordinator(response: Any, host: str, port: int) -> None:
    if response.port > 0:
        response.host, response.port = host, port
    for c in response.coordinators or ():
        if c.port > 0:
            c.host, c.port = host, port


def _rewrite_describe_cluster(response: Any, host: str, port: int) -> None:
    for b in response.brokers:
        b.host, b.port = host, port


_ADDRESS_REWRITERS: dict[int, Callable[[Any, str, int], None]] = {
    ApiKey.METADATA: _rewrite_metadata,
    ApiKey.FIND_COORDINATOR: _rewrite_find_coordinator,
    ApiKey.DESCRIBE_CLUSTER: _rewrite_describe_cluster,
}
