"""In-process checks that bad or vanished clients leave nothing behind.

The broker runs in the test's own event loop, so its connections and tasks
can be inspected after each abuse.
"""

from __future__ import annotations

import asyncio
import gc
import inspect
import struct
import warnings

from broker.broker import Broker
from broker.config import BrokerConfig
from protocol.headers import RequestHeader, encode_request_header
from protocol.messages import DeleteTopicsRequest, FetchRequest, MetadataRequest


def _frame(api_key: int, version: int, body: bytes, header_version: int = 1) -> bytes:
    w = bytearray()
    encode_request_header(w, RequestHeader(api_key, version, 1, "t", header_version))
    w += body
    return struct.pack(">i", len(w)) + bytes(w)


def _connection_tasks() -> list[asyncio.Task]:
    """Tasks the server created for connections (async handlers in flight)."""
    return [t for t in asyncio.all_tasks() if t.get_coro().__qualname__.startswith("KafkaConnection.")]


async def _until(predicate, timeout: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not reached")
        await asyncio.sleep(0.01)


def _run(tmp_path, scenario) -> None:
    async def main():
        cfg = BrokerConfig({"log.dirs": str(tmp_path), "listeners": "PLAINTEXT://127.0.0.1:0"})
        broker = Broker(cfg)
        await broker.start()
        try:
            await scenario(broker, *broker.server.bound[0])
        finally:
            await broker.stop()

    asyncio.run(main())


def test_half_sent_frame_and_disconnect_leak_nothing(tmp_path):
    async def scenario(broker, host, port):
        for _ in range(20):
            _, w = await asyncio.open_connection(host, port)
            w.write(struct.pack(">i", 1000) + b"\x00\x03\x00")
            await w.drain()
            w.close()
        await _until(lambda: not broker.server.connections)
        assert _connection_tasks() == []

    _run(tmp_path, scenario)


async def _auto_create_t(broker, r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
    """Topic ``t`` through a Metadata request's auto-creation."""
    metadata = MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name="t")])
    w.write(_frame(3, 12, bytes(metadata.encode(12)), 2))
    await r.readexactly(struct.unpack(">i", await r.readexactly(4))[0])  # auto-create begun
    await _until(lambda: broker.metadata_cache.get_topic("t") is not None)


def _long_poll_fetch_frame() -> bytes:
    """A Fetch v12 of ``t-0`` that parks: it asks for a megabyte, waiting up to a minute."""
    fetch = FetchRequest(
        max_wait_ms=60_000,
        min_bytes=1_000_000,
        max_bytes=1_000_000,
        topics=[
            FetchRequest.FetchTopic(
                topic="t",
                partitions=[
                    FetchRequest.FetchPartition(partition=0, fetch_offset=0, partition_max_bytes=1_000_000)
                ],
            )
        ],
    )
    return _frame(1, 12, bytes(fetch.encode(12)), 2)


class _CutAfterHandling:
    """A link cut as the cluster harness makes it: an interceptor that lets the handler of
    ``api_key`` run, then closes the connection and hands the handler's answer over."""

    def __init__(self, api_key: int) -> None:
        self.api_key = api_key

    def intercept(self, connection, api_key, api_version, header, request, handle):
        answer = handle(request)
        if api_key == self.api_key:
            assert inspect.iscoroutine(answer)  # an answer still to come
            connection.close("link cut by the test")
        return answer


def _run_without_unawaited_coroutines(tmp_path, scenario) -> None:
    """``_run``, then no coroutine was dropped unawaited (Python reports those as
    RuntimeWarnings on the broker's stderr)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _run(tmp_path, scenario)
        gc.collect()
    assert [str(w.message) for w in caught if "never awaited" in str(w.message)] == []


def test_client_vanishing_during_a_long_poll_fetch_cancels_its_wait(tmp_path):
    async def scenario(broker, host, port):
        r, w = await asyncio.open_connection(host, port)
        await _auto_create_t(broker, r, w)
        assert _connection_tasks() == []
        w.write(_long_poll_fetch_frame())
        await w.drain()
        await _until(lambda: len(broker.replica_manager.fetch_purgatory) == 1)
        [conn] = broker.server.connections
        [parked] = conn._answers  # the parked fetch's answer, stepped inline (no Task)
        assert not parked.task.done()
        w.close()
        await _until(
            lambda: not broker.server.connections and len(broker.replica_manager.fetch_purgatory) == 0
        )
        assert parked.task.cancelled()
        await _until(lambda: _connection_tasks() == [])

    _run(tmp_path, scenario)


def test_a_connection_cut_under_a_handled_request_leaves_no_coroutine_unawaited(tmp_path):
    """A long-poll fetch cut after its handler ran: its answer (a chain of coroutines) is not
    written; it is run to its wait and cancelled as any outstanding answer of a closed
    connection, so the fetch leaves the purgatory at once and no coroutine is dropped
    unawaited."""

    async def scenario(broker, host, port):
        r, w = await asyncio.open_connection(host, port)
        await _auto_create_t(broker, r, w)
        broker.server.interceptor = _CutAfterHandling(1)
        w.write(_long_poll_fetch_frame())
        await w.drain()
        assert await r.read() == b""  # cut
        await _until(lambda: not broker.server.connections)
        # Its wait ends with it: the fetch is not left parked until its max wait.
        await _until(lambda: len(broker.replica_manager.fetch_purgatory) == 0)
        await _until(lambda: _connection_tasks() == [])
        w.close()

    _run_without_unawaited_coroutines(tmp_path, scenario)


def test_a_cut_under_an_async_handler_does_not_run_it(tmp_path):
    """An async handler's coroutine (DeleteTopics here) handed over as its connection is cut
    is closed without running: no part of the request is done (the topic stays), and no
    coroutine is dropped unawaited."""

    async def scenario(broker, host, port):
        r, w = await asyncio.open_connection(host, port)
        await _auto_create_t(broker, r, w)
        broker.server.interceptor = _CutAfterHandling(20)
        w.write(_frame(20, 4, bytes(DeleteTopicsRequest(topic_names=["t"], timeout_ms=30_000).encode(4)), 2))
        await w.drain()
        assert await r.read() == b""  # cut
        await _until(lambda: not broker.server.connections)
        await _until(lambda: _connection_tasks() == [])
        assert broker.metadata_cache.get_topic("t") is not None
        w.close()

    _run_without_unawaited_coroutines(tmp_path, scenario)
