"""Request interception for in-process brokers: controls, verdicts and link cuts.

The broker side is one hook, ``KafkaServer.interceptor`` (``broker/listener.py``):
when set, every decoded request goes through ``interceptor.intercept(connection,
api_key, api_version, header, request, handle)`` instead of straight to its
handler. :class:`BrokerInterceptor` is that object for one in-process broker (of
the pytest plugin's ``moldau_broker``, ``broker/testing/plugin.py``, or of the
test suite's ``tests.support.cluster.Cluster``); the state it consults (controls,
cut links, isolated brokers) is a :class:`Network` shared by all the brokers of
one test.

A *control* (franz-go kfake's ``ControlKey``) is a function that sees each
matching request as an :class:`InterceptedRequest` and returns a verdict:

- ``None``: not handled; the request goes on (to the next control, then the
  handler) and the control stays (kfake's ``handled=false``);
- :data:`PASS`: handled, the request goes on untouched;
- :class:`Drop`: the request is lost: no handler, no response (the client
  times out, after ``request.timeout.ms`` / ``socket.timeout.ms``);
- :class:`DropResponse`: handled by the broker, but its answer is lost;
- :class:`Close`: the connection is closed, before the handler runs or, with
  ``after_handling=True``, instead of sending its answer;
- :class:`Delay`: held for ``seconds`` or until a :class:`Gate` opens, before
  the handler runs or (``response=True``) after it, before the answer is sent.
  The connection is held too: like Kafka, a connection is answered in order;
- :class:`Replace`: the handler gets another request instead;
- :class:`Respond`: answered with a given response, the handler never runs;
- :class:`Transform`: ``fn(response)`` may change or replace the handler's
  answer (returning None drops it).

A control is removed after the first request it handles, unless it was added
with ``keep=True`` (or, with ``times=n``, after n). Controls run on the brokers'
event loop thread: they must be quick and never block (use :class:`Delay` to hold a request). What they
record for the test thread (a list append, a counter) is safe under the GIL.
An exception raised by a control is logged, the request passes, and the
exception is raised again by ``Cluster.check_controls()`` / on cluster exit (the
plugin's fixtures raise it at teardown).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import threading
import weakref
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from protocol.messages._base import Message

log = logging.getLogger(__name__)

# The link-cut convention: a request whose client_id is ``broker-<id>`` or
# ``broker-<id>-<anything>`` (Kafka's replica fetcher uses ``broker-<id>-fetcher-<n>``)
# comes from broker <id>; any other client id is a client's.
BROKER_CLIENT_ID = re.compile(r"^broker-(\d+)(?:-.*)?$")


def source_broker(client_id: str | None) -> int | None:
    """The broker id a request's client_id says it comes from, or None for a client."""
    if not client_id:
        return None
    m = BROKER_CLIENT_ID.match(client_id)
    return int(m.group(1)) if m else None


def broker_client_id(broker_id: int, purpose: str | None = None) -> str:
    """The client_id inter-broker connections of ``broker_id`` must send (see the convention)."""
    return f"broker-{broker_id}" if purpose is None else f"broker-{broker_id}-{purpose}"


# ---------------------------------------------------------------------- verdicts


class Verdict:
    """What a control decides for one request (see the module docstring)."""


@dataclass(frozen=True)
class Pass(Verdict):
    pass


PASS = Pass()


@dataclass(frozen=True)
class Drop(Verdict):
    pass


@dataclass(frozen=True)
class DropResponse(Verdict):
    pass


@dataclass(frozen=True)
class Close(Verdict):
    after_handling: bool = False


class Gate:
    """Holds delayed requests until ``release()`` (callable from any thread)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._released = False
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = []
        self.waiting = 0  # requests held right now

    @property
    def released(self) -> bool:
        return self._released

    def release(self) -> None:
        with self._lock:
            self._released = True
            waiters, self._waiters = self._waiters, []
        for loop, event in waiters:
            loop.call_soon_threadsafe(event.set)

    async def wait(self) -> None:
        with self._lock:
            if self._released:
                return
            event = asyncio.Event()
            self._waiters.append((asyncio.get_running_loop(), event))
        self.waiting += 1
        try:
            await event.wait()
        finally:
            self.waiting -= 1


@dataclass(frozen=True)
class Delay(Verdict):
    seconds: float | None = None
    until: Gate | None = None
    response: bool = False  # hold the answer (after the handler) rather than the request

    async def wait(self) -> None:
        if self.until is not None and self.seconds is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.until.wait(), self.seconds)
        elif self.until is not None:
            await self.until.wait()
        elif self.seconds is not None:
            await asyncio.sleep(self.seconds)


@dataclass(frozen=True)
class Replace(Verdict):
    request: Message


@dataclass(frozen=True)
class Respond(Verdict):
    response: Message


@dataclass(frozen=True)
class Transform(Verdict):
    fn: Callable[[Message], Message | None]


@dataclass(frozen=True)
class InterceptedRequest:
    """One request as a control sees it."""

    broker_id: int  # the broker it arrived at
    api_key: int
    api_version: int
    correlation_id: int
    client_id: str | None
    source_broker: int | None  # per the client_id convention; None: a client
    request: Message
    connection_id: int
    peer: str


ControlFn = Callable[[InterceptedRequest], Verdict | None]


@dataclass(eq=False)
class Control:
    """A registered control; ``remove()`` takes it away (from any thread)."""

    fn: ControlFn
    broker_id: int | None  # None: every broker
    api_key: int | None  # None: every request
    keep: bool
    network: Network
    times: int | None = None  # with keep: removed after this many handled requests
    calls: int = 0  # requests fn saw
    handled: int = 0  # requests fn returned a verdict for
    active: bool = True

    def matches(self, broker_id: int, api_key: int) -> bool:
        return (self.broker_id is None or self.broker_id == broker_id) and (
            self.api_key is None or self.api_key == api_key
        )

    def remove(self) -> None:
        self.network.remove_control(self)


# ---------------------------------------------------------------------- shared state


@dataclass
class BrokerTraffic:
    """What one broker's interceptor saw (read from the test thread)."""

    requests: Counter = field(default_factory=Counter)  # api key -> requests seen
    dropped_by_cut: Counter = field(default_factory=Counter)  # source (None: client) -> dropped


class Network:
    """Controls, cut links and isolated brokers of one cluster (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._controls: tuple[Control, ...] = ()
        self._cuts: frozenset[tuple[int, int]] = frozenset()  # (from, to): requests dropped
        self._isolated: dict[int, bool] = {}  # broker -> also from other brokers
        self.traffic: dict[int, BrokerTraffic] = {}
        self.errors: list[BaseException] = []
        # Connections seen per broker and where they come from (touched on the loop only).
        self.connections: dict[int, weakref.WeakKeyDictionary[Any, int | None]] = {}
        # The client_id of the last request on each connection, per broker (on the loop only).
        self.client_ids: dict[int, weakref.WeakKeyDictionary[Any, str | None]] = {}

    # controls

    def add_control(
        self,
        fn: ControlFn,
        broker_id: int | None,
        api_key: int | None,
        keep: bool,
        times: int | None = None,
    ) -> Control:
        """``keep=False``: removed after the first request it handles; ``times=n``: after n."""
        if times is not None:
            if times < 1:
                raise ValueError(f"times must be at least 1, not {times}")
            keep = True
        control = Control(fn, broker_id, None if api_key is None else int(api_key), keep, self, times)
        with self._lock:
            self._controls = (*self._controls, control)
        return control

    def remove_control(self, control: Control) -> None:
        with self._lock:
            control.active = False
            self._controls = tuple(c for c in self._controls if c is not control)

    def clear_controls(self) -> None:
        with self._lock:
            for c in self._controls:
                c.active = False
            self._controls = ()

    def decide(self, seen: InterceptedRequest) -> Verdict | None:
        for control in self._controls:
            if not control.active or not control.matches(seen.broker_id, seen.api_key):
                continue
            control.calls += 1
            try:
                verdict = control.fn(seen)
            except Exception as exc:  # a broken control fails the test, not the broker
                log.exception("control %r failed on %r", control.fn, seen)
                self.errors.append(exc)
                continue
            if verdict is None:
                continue
            with self._lock:
                if not control.active:  # removed meanwhile, or consumed by a concurrent match
                    continue
                control.handled += 1
                if not control.keep or (control.times is not None and control.handled >= control.times):
                    control.active = False
                    self._controls = tuple(c for c in self._controls if c is not control)
            return verdict
        return None

    # links

    def cut(self, a: int, b: int, both_ways: bool = True) -> None:
        pairs = {(a, b), (b, a)} if both_ways else {(a, b)}
        with self._lock:
            self._cuts = self._cuts | pairs
        log.info("link %d -> %d%s cut", a, b, " (and back)" if both_ways else "")

    def heal(self, a: int, b: int) -> None:
        with self._lock:
            self._cuts = self._cuts - {(a, b), (b, a)}
        log.info("link %d <-> %d healed", a, b)

    def isolate(self, broker_id: int, from_brokers: bool) -> None:
        with self._lock:
            self._isolated = {**self._isolated, broker_id: from_brokers}
        log.info("broker %d isolated from clients%s", broker_id, " and brokers" if from_brokers else "")

    def rejoin(self, broker_id: int) -> None:
        with self._lock:
            self._isolated = {k: v for k, v in self._isolated.items() if k != broker_id}
        log.info("broker %d rejoined", broker_id)

    def heal_all(self) -> None:
        with self._lock:
            self._cuts = frozenset()
            self._isolated = {}
        log.info("every link healed")

    def blocked(self, source: int | None, to: int) -> bool:
        """Whether a request from ``source`` (a broker id, None: a client) to ``to`` is lost."""
        isolated = self._isolated
        if to in isolated and (source is None or isolated[to]):
            return True
        if source is None:
            return False
        if isolated.get(source):
            return True
        return (source, to) in self._cuts

    def close_blocked_connections(self, broker_id: int) -> int:
        """On the loop: close every connection to ``broker_id`` whose traffic is now cut."""
        closed = 0
        for conn, source in list(self.connections.get(broker_id, {}).items()):
            if self.blocked(source, broker_id):
                conn.close(f"link from {_who(source)} to broker {broker_id} cut by the test")
                closed += 1
        return closed


def _who(source: int | None) -> str:
    return "a client" if source is None else f"broker {source}"


# ---------------------------------------------------------------------- the hook


class BrokerInterceptor:
    """``KafkaServer.interceptor`` of one in-process broker."""

    def __init__(self, network: Network, broker_id: int) -> None:
        self.network = network
        self.broker_id = broker_id
        self.traffic = network.traffic.setdefault(broker_id, BrokerTraffic())
        self.connections = network.connections.setdefault(broker_id, weakref.WeakKeyDictionary())
        self.client_ids = network.client_ids.setdefault(broker_id, weakref.WeakKeyDictionary())

    def intercept(
        self,
        connection: Any,
        api_key: int,
        api_version: int,
        header: Any,
        request: Message,
        handle: Callable[[Message], Any],
    ) -> Any:
        network = self.network
        source = source_broker(header.client_id)
        self.connections[connection] = source
        self.client_ids[connection] = header.client_id
        if network.blocked(source, self.broker_id):
            self.traffic.dropped_by_cut[source] += 1
            return None  # lost on the cut link
        self.traffic.requests[api_key] += 1
        if not network._controls:
            return handle(request)
        seen = InterceptedRequest(
            self.broker_id,
            api_key,
            api_version,
            header.correlation_id,
            header.client_id,
            source,
            request,
            connection.id,
            connection.peer,
        )
        verdict = network.decide(seen)
        if verdict is None:
            return handle(request)
        return apply_verdict(verdict, connection, request, handle)


def apply_verdict(
    verdict: Verdict, connection: Any, request: Message, handle: Callable[[Message], Any]
) -> Any:
    """What the server gets instead of ``handle(request)``: a response, None or an awaitable."""
    if isinstance(verdict, Pass):
        return handle(request)
    if isinstance(verdict, Drop):
        return None
    if isinstance(verdict, DropResponse):
        return _then(handle(request), lambda _response: None)
    if isinstance(verdict, Close):
        if not verdict.after_handling:
            connection.close("closed by a test control")
            return None

        def close(_response: Message | None) -> None:
            connection.close("closed by a test control instead of answering")

        return _then(handle(request), close)
    if isinstance(verdict, Delay):
        return _delayed(verdict, request, handle)
    if isinstance(verdict, Replace):
        return handle(verdict.request)
    if isinstance(verdict, Respond):
        return verdict.response
    if isinstance(verdict, Transform):
        return _then(handle(request), lambda response: None if response is None else verdict.fn(response))
    raise TypeError(f"not a verdict: {verdict!r}")


def _then(result: Any, fn: Callable[[Message | None], Message | None]) -> Any:
    """``fn`` applied to a handler's result, which may be a response, None or an awaitable."""
    if result is None or isinstance(result, Message):
        return fn(result)
    return _await_then(result, fn)


async def _await_then(result: Awaitable[Any], fn: Callable[[Message | None], Message | None]) -> Any:
    return fn(await result)


async def _delayed(verdict: Delay, request: Message, handle: Callable[[Message], Any]) -> Any:
    if not verdict.response:
        await verdict.wait()
        result = handle(request)
        return result if result is None or isinstance(result, Message) else await result
    result = handle(request)
    response = result if result is None or isinstance(result, Message) else await result
    await verdict.wait()
    return response
