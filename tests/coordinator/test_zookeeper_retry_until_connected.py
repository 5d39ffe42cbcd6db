"""Kafka's ``KafkaZkClient.retryRequestsUntilConnected`` in ``coordinator/zookeeper.py``: a
request failing with CONNECTIONLOSS (kazoo's ``_notify_pending`` fails every request in
flight when the connection drops) is sent again once reconnected
(``ZooKeeperClient.waitUntilConnected``); a session expiry meanwhile still fails it, and a
request queued while disconnected is waited for rather than given up after the session
timeout. kazoo is faked here, so the connection drops exactly where a test wants."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from kazoo.client import KazooState
from kazoo.exceptions import ConnectionLoss, SessionExpiredError
from kazoo.handlers.threading import KazooTimeoutError

from coordinator.zookeeper import (
    ZooKeeperClient,
    ZooKeeperError,
    call_until_connected,
    fenced_multi_many,
    get_many,
)


class _Result:
    """kazoo's IAsyncResult: ``answer`` (a value or an exception), once ``ready``."""

    def __init__(self, answer: Any, ready: threading.Event | None = None) -> None:
        self.answer = answer
        self.ready = ready

    def get(self, timeout: float | None = None) -> Any:
        if self.ready is not None and not self.ready.wait(timeout):
            raise KazooTimeoutError()
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


class _Stat:
    version = 3


class _FakeKazoo:
    """Answers every read with ``b"data"``; the first request sent fails with ConnectionLoss
    and drops the connection, as kazoo's ``_notify_pending`` does."""

    def __init__(self) -> None:
        self.connected = True
        self.sent: list[tuple[str, bool]] = []  # (request, connected when sent)
        self.first_sent = threading.Event()

    def _answer(self, name: str, value: Any) -> _Result:
        self.sent.append((name, self.connected))
        if len(self.sent) == 1:
            self.connected = False
            self.first_sent.set()
            return _Result(ConnectionLoss())
        return _Result(value)

    def get_async(self, path: str, watch: Any = None) -> _Result:
        return self._answer(f"get {path}", (b"data", _Stat()))

    def transaction(self) -> _FakeKazoo:
        return self

    def check(self, path: str, version: int) -> None:
        pass

    def set_data(self, path: str, data: bytes, version: int = -1) -> None:
        self._op = path

    def commit_async(self) -> _Result:
        return self._answer(f"multi {self._op}", [True, _Stat()])


def _client(kazoo: Any, session_timeout_ms: int = 30_000) -> ZooKeeperClient:
    zk = ZooKeeperClient("127.0.0.1:1", session_timeout_ms=session_timeout_ms, time_ms=lambda: 0)
    zk.kazoo = kazoo
    return zk


def _reconnect(zk: ZooKeeperClient, kazoo: _FakeKazoo) -> None:
    """kazoo's CONNECTED: the client is live, then the listeners hear of it."""
    kazoo.connected = True
    zk._on_state(KazooState.CONNECTED)


@pytest.fixture
def worker():
    with ThreadPoolExecutor(1) as pool:
        yield pool


def test_reads_lost_with_the_connection_are_sent_again_once_reconnected(worker):
    """``retryRequestsUntilConnected``: only the lost request is sent again, and only once
    reconnected (``waitUntilConnected``); the caller gets every answer."""
    kazoo = _FakeKazoo()
    zk = _client(kazoo)
    future = worker.submit(get_many, zk, ["/a", "/b"])
    assert kazoo.first_sent.wait(10)
    _reconnect(zk, kazoo)
    assert [r[0] for r in future.result(10)] == [b"data", b"data"]
    assert kazoo.sent == [("get /a", True), ("get /b", False), ("get /a", True)]


def test_a_fenced_write_lost_with_the_connection_is_sent_again(worker):
    """The controller's fenced writes (``retryRequestsUntilConnected(requests,
    expectedControllerEpochZkVersion)``) are retried the same way."""
    kazoo = _FakeKazoo()
    zk = _client(kazoo)
    future = worker.submit(fenced_multi_many, zk, [("set", "/x", b"1", -1)], 7)
    assert kazoo.first_sent.wait(10)
    _reconnect(zk, kazoo)
    (stat,) = future.result(10)
    assert stat.version == 3
    assert kazoo.sent == [("multi /x", True), ("multi /x", True)]


def test_a_session_expiry_while_waiting_for_the_connection_fails_the_request(worker):
    """``waitUntilConnected`` throws ``ZooKeeperClientExpiredException``: a request of an
    expired session is not sent in the next one (its ephemerals and watches are gone)."""
    kazoo = _FakeKazoo()
    zk = _client(kazoo)
    future = worker.submit(get_many, zk, ["/a"])
    assert kazoo.first_sent.wait(10)
    zk._on_state(KazooState.LOST)
    _reconnect(zk, kazoo)
    with pytest.raises(SessionExpiredError):
        future.result(10)
    assert kazoo.sent == [("get /a", True)]


def test_closing_the_client_ends_the_wait(worker):
    kazoo = _FakeKazoo()
    zk = _client(kazoo)
    future = worker.submit(get_many, zk, ["/a"])
    assert kazoo.first_sent.wait(10)
    zk._closing.set()
    zk.kazoo = None  # what close() leaves (without a real kazoo to stop)
    with zk._state_changed:
        zk._state_changed.notify_all()
    with pytest.raises(ZooKeeperError, match="closed"):
        future.result(10)


def test_a_request_queued_while_disconnected_is_waited_for(worker):
    """kazoo sends a request queued while it reconnects once connected: its answer is
    waited for past the session timeout (Kafka's ``handleRequests`` waits) instead of failing
    with ZooKeeperError; a connected server silent that long still fails it."""
    ready = threading.Event()
    kazoo = _FakeKazoo()
    kazoo.sent.append(("earlier", True))  # no ConnectionLoss for the next one
    kazoo.connected = False
    kazoo.get_async = lambda path, watch=None: _Result((b"late", _Stat()), ready)  # type: ignore[method-assign]
    zk = _client(kazoo, session_timeout_ms=20)
    future = worker.submit(get_many, zk, ["/a"])
    with pytest.raises(TimeoutError):
        future.result(0.2)  # ten session timeouts: still waiting
    ready.set()
    assert future.result(10)[0][0] == b"late"
    ready.clear()
    kazoo.connected = True
    with pytest.raises(ZooKeeperError, match="no answer"):
        get_many(zk, ["/b"])


def test_a_controller_call_lost_with_the_connection_runs_again(worker):
    """The controller's ZooKeeper calls (``KafkaController._zk``) run again once
    reconnected when they fail with ConnectionLoss."""
    kazoo = _FakeKazoo()
    zk = _client(kazoo)
    calls: list[bool] = []
    failed = threading.Event()

    def read() -> str:
        calls.append(kazoo.connected)
        if len(calls) == 1:
            kazoo.connected = False
            failed.set()
            raise ConnectionLoss()
        return "read"

    future = worker.submit(call_until_connected, zk, read)
    assert failed.wait(10)
    _reconnect(zk, kazoo)
    assert future.result(10) == "read"
    assert calls == [True, True]
