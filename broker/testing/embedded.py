"""One Moldau broker in the test process, with fault hooks.

:class:`InProcessBroker` is what the pytest plugin's ``moldau_broker`` fixtures give a
test (``broker/testing/plugin.py``, docs/TESTING.md); it works without pytest too::

    with InProcessBroker(tmp_dir) as kafka:
        kafka.create_topic("orders", partitions=3)
        producer = Producer({"bootstrap.servers": kafka.bootstrap_servers})
        kafka.drop_responses("Produce")  # the next Produce is handled, its answer lost
        kafka.kill()  # a crash: no checkpoint, no clean-shutdown marker
        kafka.start()  # recovers the log dir, same port

The broker runs on an asyncio loop in a daemon thread (``broker/testing/inprocess.py``);
clients in the test talk to it over real sockets on 127.0.0.1. Its requests pass
through a :class:`broker.testing.interception.BrokerInterceptor`, which the fault hooks
program (``control`` takes any verdict of that module).

Defaults differ from a production broker where a one-broker test would otherwise wait
or fail (:data:`TEST_DEFAULTS`, as Testcontainers' Kafka module sets them); the
caller's overrides win.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import shutil
import socket
import struct
import tempfile
import time
from collections.abc import Callable, Coroutine, Iterator, Mapping
from pathlib import Path
from typing import Any

from broker.broker import Broker
from broker.config import BrokerConfig, Listener, parse_listeners
from broker.testing import full_disk
from broker.testing.inprocess import START_TIMEOUT_S, InProcessNode, LoopThread
from broker.testing.interception import (
    Control,
    ControlFn,
    Delay,
    Drop,
    DropResponse,
    Network,
    Verdict,
)
from protocol.errors import ErrorCode
from protocol.headers import (
    RequestHeader,
    encode_request_header,
    request_header_version,
    response_header_version,
)
from protocol.messages import RESPONSES, ApiKey, CreateTopicsRequest

# What a one-broker test needs: __consumer_offsets fits one broker (Kafka's defaults,
# 50 partitions with replication 3, would fail or be slow) and the first consumer of a
# group does not wait 3 s for others to join (group.initial.rebalance.delay.ms).
TEST_DEFAULTS: dict[str, str] = {
    "offsets.topic.num.partitions": "1",
    "offsets.topic.replication.factor": "1",
    "group.initial.rebalance.delay.ms": "0",
}

# Properties the test broker sets itself: its log dir (a temporary one) and id.
CHOSEN_KEYS = frozenset({"log.dirs", "log.dir", "broker.id"})

CREATE_TOPICS_VERSION = 5  # flexible, returns the configs; every supported client speaks it

_SIZE = struct.Struct(">i")


class TopicCreationError(Exception):
    """CreateTopics answered an error for the topic."""

    def __init__(self, topic: str, error: ErrorCode, message: str | None) -> None:
        super().__init__(
            f"cannot create topic {topic!r}: {error.name}" + (f" ({message})" if message else "")
        )
        self.topic = topic
        self.error = error


def api_key(api: int | str) -> ApiKey:
    """An API given as a key (``ApiKey.PRODUCE``, 0) or a name (``"Produce"``, ``"LIST_OFFSETS"``)."""
    if isinstance(api, str):
        name = api if ("_" in api or api.isupper()) else re.sub(r"(?<!^)(?=[A-Z])", "_", api)
        try:
            return ApiKey[name.upper()]
        except KeyError:
            raise ValueError(f"no Kafka API is named {api!r}") from None
    return ApiKey(int(api))


class InProcessBroker:
    """A broker on a free port of 127.0.0.1 with its data in ``log_dir``; see the module docstring."""

    def __init__(
        self, log_dir: str | Path | None = None, overrides: Mapping[str, object] | None = None
    ) -> None:
        self._own_dir = log_dir is None
        self.log_dir = Path(tempfile.mkdtemp(prefix="moldau-")) if log_dir is None else Path(log_dir)
        self.overrides = {k: str(v) for k, v in (overrides or {}).items()}
        self.network = Network()
        self._node = InProcessNode(0, self.log_dir, self.network, self._properties)
        self._loop: LoopThread | None = None
        self._disk_full = False
        self._host = "127.0.0.1"  # of the first advertised listener, once started
        self.startup_seconds: list[float] = []  # of every start, in order
        try:
            self._check_config()
        except BaseException:
            if self._own_dir:
                shutil.rmtree(self.log_dir, ignore_errors=True)
            raise

    # ------------------------------------------------------------------ configuration

    def _properties(self, index: int, log_dir: Path, ports: Mapping[str, int]) -> dict[str, str]:
        """The broker's overrides; a listener on port 0 keeps the port it had (restarts)."""
        props = {
            "broker.id": str(index),
            "log.dirs": str(log_dir),
            "listeners": "PLAINTEXT://127.0.0.1:0",
            **TEST_DEFAULTS,
            **self.overrides,
        }
        listeners = parse_listeners("listeners", props["listeners"].split(","))
        props["listeners"] = ",".join(
            str(Listener(lst.name, lst.host, ports.get(lst.name, 0) if lst.port == 0 else lst.port))
            for lst in listeners
        )
        return props

    def _check_config(self) -> None:
        """A bad value or an unknown key fails here, before anything starts."""
        chosen = sorted(CHOSEN_KEYS & set(self.overrides))
        if chosen:
            raise ValueError(f"a test broker's {', '.join(chosen)} is chosen for it: do not override it")
        config = self._node.config()
        if config.unknown:
            raise ValueError(f"unknown broker config keys: {', '.join(sorted(config.unknown))}")

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> InProcessBroker:
        """Start the broker (again, after ``stop`` or ``kill``: same port and data)."""
        if self._node.alive:
            raise RuntimeError("the broker is running")
        if self._loop is None:
            self._loop = LoopThread(name="moldau-broker")
        began = time.perf_counter()
        self._loop.call(self._node.start(), timeout=START_TIMEOUT_S)
        self.startup_seconds.append(time.perf_counter() - began)
        self._host = self.broker.advertised[0].host
        return self

    def stop(self) -> None:
        """Stop cleanly: checkpoints and the clean-shutdown marker are written."""
        if self._node.alive:
            self._call(self._node.stop())

    def kill(self) -> None:
        """Crash (as kill -9 would): see ``broker/testing/inprocess.py``. ``start()`` recovers."""
        if not self._node.alive:
            raise RuntimeError("the broker is not running")
        self._call(self._node.kill())

    def restart(self, *, clean: bool = True) -> None:
        """Stop (``clean=False``: kill) if running, then start again with the same port and data."""
        if self._node.alive:
            if clean:
                self.stop()
            else:
                self.kill()
        self.start()

    def close(self) -> None:
        """Stop the broker and its loop, free the disk; raise what a control raised."""
        try:
            if self._disk_full:
                self.free_disk()
            if self._loop is not None:
                if self._node.alive:
                    with contextlib.suppress(Exception):
                        self._loop.call(self._node.stop(), timeout=60)
                self._loop.close()
                self._loop = None
        finally:
            if self._own_dir:
                shutil.rmtree(self.log_dir, ignore_errors=True)
        self.check_controls()

    def __enter__(self) -> InProcessBroker:
        try:
            return self.start()
        except BaseException:
            with contextlib.suppress(Exception):
                self.close()
            raise

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ what it is

    @property
    def alive(self) -> bool:
        return self._node.alive

    @property
    def port(self) -> int:
        return self._node.port

    @property
    def bootstrap_servers(self) -> str:
        """``host:port`` of its first listener (``127.0.0.1:<port>``): the same across restarts."""
        if not self._node.port:
            raise RuntimeError("the broker has not started")
        return f"{self._host}:{self._node.port}"

    @property
    def broker(self) -> Broker:
        """The ``Broker`` object (inspect it through ``run``: it lives on another thread)."""
        if self._node.broker is None:
            raise RuntimeError("the broker is not running")
        return self._node.broker

    @property
    def config(self) -> BrokerConfig:
        """The configuration it runs (or will start) with: ``config["num.partitions"]``."""
        return self._node.broker.config if self._node.broker is not None else self._node.config()

    def run(self, fn: Callable[[], Any] | Coroutine[Any, Any, Any], timeout: float = 30.0) -> Any:
        """Run ``fn()`` (or await a coroutine) on the broker's loop and return its result."""
        if asyncio.iscoroutine(fn):
            return self._call(fn, timeout)

        async def call() -> Any:
            return fn()  # type: ignore[operator]

        return self._call(call(), timeout)

    def _call(self, coro: Coroutine[Any, Any, Any], timeout: float | None = START_TIMEOUT_S) -> Any:
        if self._loop is None:
            coro.close()
            raise RuntimeError("the broker has not started")
        return self._loop.call(coro, timeout)

    # ------------------------------------------------------------------ topics

    def create_topic(
        self,
        name: str,
        partitions: int = 1,
        config: Mapping[str, object] | None = None,
        *,
        timeout: float = 30.0,
    ) -> None:
        """Create a topic as an admin client would (CreateTopics); raise ``TopicCreationError``."""
        topic = CreateTopicsRequest.CreatableTopic(
            name=name,
            num_partitions=partitions,
            replication_factor=1,
            configs=[
                CreateTopicsRequest.CreatableTopicConfig(name=k, value=str(v))
                for k, v in (config or {}).items()
            ],
        )
        request = CreateTopicsRequest(topics=[topic], timeout_ms=int(timeout * 1000))
        response = self._request(request, CREATE_TOPICS_VERSION, timeout)
        (result,) = response.topics
        error = ErrorCode.for_code(result.error_code)
        if error is not ErrorCode.NONE:
            raise TopicCreationError(name, error, result.error_message)

    def _request(self, request: Any, version: int, timeout: float) -> Any:
        return request_once(self.port, request, version, timeout)

    # ------------------------------------------------------------------ faults

    def control(
        self, api: int | str | None, fn: ControlFn, *, keep: bool = False, times: int | None = None
    ) -> Control:
        """Intercept requests of ``api`` (None: every API) with ``fn(InterceptedRequest) -> Verdict | None``
        (``broker/testing/interception.py``); removed after the first request it handles
        unless ``keep=True`` (or after ``times``). Returns the control (``.handled``, ``.remove()``)."""
        return self.network.add_control(fn, None, None if api is None else api_key(api), keep, times)

    def _next(self, api: int | str, verdict: Verdict, count: int) -> Control:
        return self.control(api, lambda _request: verdict, times=count)

    def drop_requests(self, api: int | str, count: int = 1) -> Control:
        """The next ``count`` requests of ``api`` are lost: never handled, never answered."""
        return self._next(api, Drop(), count)

    def drop_responses(self, api: int | str, count: int = 1) -> Control:
        """The next ``count`` requests of ``api`` are handled, but their answers are lost."""
        return self._next(api, DropResponse(), count)

    def delay_requests(self, api: int | str, seconds: float, count: int = 1) -> Control:
        """The next ``count`` requests of ``api`` wait ``seconds`` before they are handled."""
        return self._next(api, Delay(seconds=seconds), count)

    def delay_responses(self, api: int | str, seconds: float, count: int = 1) -> Control:
        """The answers to the next ``count`` requests of ``api`` are held ``seconds`` (the connection too)."""
        return self._next(api, Delay(seconds=seconds, response=True), count)

    def clear_faults(self) -> None:
        """Remove every control."""
        self.network.clear_controls()

    def check_controls(self) -> None:
        """Raise (once) the first exception a control raised (on the loop it only let the request pass)."""
        errors = self.network.errors
        if errors:
            first = errors[0]
            errors.clear()
            raise first

    def requests(self, api: int | str) -> int:
        """How many requests of ``api`` the broker got so far (across restarts)."""
        return self.network.traffic.get(0).requests[api_key(api)] if 0 in self.network.traffic else 0

    def close_connections(self, client_id: str | None = None) -> int:
        """Close the connections of clients (of those whose last request had ``client_id``);
        returns how many. Clients see a broken connection and reconnect."""

        def close() -> int:
            seen = self.network.client_ids.get(0, {})
            closed = 0
            for conn in list(self.broker.server.connections):
                if client_id is None or seen.get(conn) == client_id:
                    conn.close("closed by the test")
                    closed += 1
            return closed

        return int(self.run(close))

    def fill_disk(self) -> None:
        """Writes to the log dir fail with ENOSPC from now on (simulated, see
        ``broker/testing/full_disk.py``): produces answer KAFKA_STORAGE_ERROR until ``free_disk``."""
        if not self._disk_full:
            full_disk.fill(self.log_dir)
            self._disk_full = True

    def free_disk(self) -> None:
        """Writes to the log dir work again (the next successful write resumes the dir)."""
        if self._disk_full:
            full_disk.free(self.log_dir)
            self._disk_full = False

    @contextlib.contextmanager
    def disk_full(self) -> Iterator[None]:
        """``with broker.disk_full(): ...``: the disk is full inside the block."""
        self.fill_disk()
        try:
            yield
        finally:
            self.free_disk()

    def disk_full_reported(self) -> bool:
        """Whether the broker has seen a write fail for want of space (and not one succeed since)."""

        def state() -> bool:
            log_manager = self.broker.log_manager
            return any(log_manager.failure_channel.state(d).full for d in log_manager.log_dirs)

        return bool(self.run(state))


def request_once(port: int, request: Any, version: int, timeout: float) -> Any:
    """One request to 127.0.0.1:``port`` on a connection of its own (client id
    ``moldau-testing``); the decoded response."""
    key = request.API_KEY
    frame = bytearray()
    encode_request_header(
        frame, RequestHeader(key, version, 1, "moldau-testing", request_header_version(key, version))
    )
    request.write(frame, version)
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(_SIZE.pack(len(frame)) + frame)
        size = _SIZE.unpack(_recv_exact(sock, 4))[0]
        answer = _recv_exact(sock, size)
    pos = 4 if response_header_version(key, version) == 0 else 5
    return RESPONSES[key].decode(answer, version, pos)


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    chunks = []
    while n:
        chunk = sock.recv(n)
        if not chunk:
            raise ConnectionError("connection closed by the broker")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)
