"""Connection-layer limits over real sockets: memory per connection and in total,
idle connections, connection counts.

The broker runs in the test's own event loop so that its accounting (the
request memory pool, its connections) can be inspected; clients connect over
127.0.0.1, and each test shows that another client, a real one where it can
(confluent-kafka in a worker thread), is still served.
"""

from __future__ import annotations

import asyncio
import struct
import tracemalloc

import pytest

from broker.broker import Broker
from broker.config import BrokerConfig, ConfigError
from broker.frame_reader import _PAUSED_MEMORY, FRAME_GROWTH
from protocol.headers import RequestHeader, encode_request_header, request_header_version
from protocol.messages import RESPONSES, ApiVersionsRequest, FetchRequest, MetadataRequest

_SIZE = struct.Struct(">i")


def _run(tmp_path, scenario, **overrides: str) -> None:
    async def main():
        props = {"log.dirs": str(tmp_path), "listeners": "PLAINTEXT://127.0.0.1:0", **overrides}
        broker = Broker(BrokerConfig(props))
        await broker.start()
        try:
            await scenario(broker, *broker.server.bound[0])
        finally:
            await broker.stop()

    asyncio.run(main())


async def _until(predicate, timeout: float = 10.0, what: str = "condition") -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"{what} not reached within {timeout} s")
        await asyncio.sleep(0.01)


def _request_frame(request, version: int, correlation_id: int = 1, padding: int = 0) -> bytes:
    """A size-prefixed request; ``padding`` zero bytes after the body (ignored by the
    broker, as Kafka ignores them) make a big but valid frame."""
    key = request.API_KEY
    w = bytearray()
    encode_request_header(
        w, RequestHeader(key, version, correlation_id, "limits-test", request_header_version(key, version))
    )
    request.write(w, version)
    w += bytes(padding)
    return _SIZE.pack(len(w)) + bytes(w)


async def _read_response(reader: asyncio.StreamReader) -> bytes:
    (size,) = _SIZE.unpack(await reader.readexactly(4))
    return await reader.readexactly(size)


async def _api_versions_round_trip(host: str, port: int) -> None:
    """Another client: a fresh connection, ApiVersions v0 answered."""
    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(_request_frame(ApiVersionsRequest(), 0, correlation_id=42))
        frame = await asyncio.wait_for(_read_response(reader), 30)
        assert _SIZE.unpack_from(frame, 0)[0] == 42
        resp = RESPONSES[18].decode(frame, 0, 4)
        assert resp.error_code == 0 and resp.api_keys
    finally:
        writer.close()


def _produce_and_list_topics(bootstrap: str, topic: str) -> int:
    """A real client (confluent-kafka), run in a worker thread: produce, flush, list."""
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient

    p = Producer({"bootstrap.servers": bootstrap, "acks": "all", "message.timeout.ms": 30_000})
    for i in range(10):
        p.produce(topic, f"v{i}".encode())
    assert p.flush(30) == 0
    md = AdminClient({"bootstrap.servers": bootstrap}).list_topics(timeout=30)
    assert topic in md.topics
    return len(md.brokers)


async def _real_client(host: str, port: int, topic: str) -> None:
    loop = asyncio.get_running_loop()
    assert await loop.run_in_executor(None, _produce_and_list_topics, f"{host}:{port}", topic) == 1


def _connection(broker, peer_port: int):
    return next(c for c in broker.server.connections if c.peer.endswith(f":{peer_port}"))


# ---------------------------------------------------------------------- memory per connection


def test_idle_connections_hold_no_read_buffer(tmp_path):
    async def scenario(broker, host, port):
        await _api_versions_round_trip(host, port)  # the server's shared buffer exists already
        n = 200
        tracemalloc.start()
        try:
            before = tracemalloc.take_snapshot()
            clients = [await asyncio.open_connection(host, port) for _ in range(n)]
            await _until(lambda: len(broker.server.connections) == n, what=f"{n} connections")
            after = tracemalloc.take_snapshot()
        finally:
            tracemalloc.stop()
        grown = sum(s.size_diff for s in after.compare_to(before, "filename"))
        # Both ends of each connection live in this process; 256 KiB each before.
        assert grown / n < 16 * 1024, f"{grown / n:.0f} bytes per idle connection"
        for conn in broker.server.connections:
            held = [v for v in vars(conn).values() if isinstance(v, bytearray | memoryview)]
            assert held == [], f"idle connection {conn.id} holds {[len(v) for v in held]}"
        for _, w in clients:
            w.close()
        await _api_versions_round_trip(host, port)

    _run(tmp_path, scenario)


def test_big_frame_buffer_grows_with_its_bytes_not_its_size_prefix(tmp_path):
    declared = 50_000_000

    async def scenario(broker, host, port):
        reader, writer = await asyncio.open_connection(host, port)
        sent = 300_000
        writer.write(_SIZE.pack(declared) + b"\x00" * sent)
        await writer.drain()
        conn = _connection(broker, writer.get_extra_info("sockname")[1])
        await _until(lambda: conn._filled == sent, what="bytes received")
        assert len(conn._frame) <= sent + FRAME_GROWTH  # not bytearray(50_000_000)
        assert broker.server.memory.used == declared  # accounted as Kafka does, at the prefix
        await _api_versions_round_trip(host, port)
        writer.close()
        await _until(lambda: broker.server.memory.used == 0, what="memory released on close")

        # A valid big request sent in pieces: grown on the way, answered.
        reader, writer = await asyncio.open_connection(host, port)
        frame = _request_frame(MetadataRequest(topics=[]), 12, correlation_id=7, padding=3_000_000)
        for i in range(0, len(frame), 200_000):
            writer.write(frame[i : i + 200_000])
            await writer.drain()
        response = await asyncio.wait_for(_read_response(reader), 30)
        assert _SIZE.unpack_from(response, 0)[0] == 7
        writer.close()
        await _until(lambda: broker.server.memory.used == 0, what="memory released after the response")

    _run(tmp_path, scenario, **{"socket.request.max.bytes": str(64 * 1024 * 1024)})


# ---------------------------------------------------------------------- memory in total


def test_queued_max_request_bytes_holds_back_slow_big_frames_not_other_clients(tmp_path):
    cap = 2 * 1024 * 1024
    frame_padding = 1024 * 1024 - 200  # frames just under socket.request.max.bytes

    async def scenario(broker, host, port):
        pool = broker.server.memory
        frames, conns, streams = [], [], []
        for i in range(4):
            frame = _request_frame(
                MetadataRequest(topics=[]), 12, correlation_id=100 + i, padding=frame_padding
            )
            reader, writer = await asyncio.open_connection(host, port)
            writer.write(frame[:65_536])  # the size prefix and a first slice, then nothing
            await writer.drain()
            conn = _connection(broker, writer.get_extra_info("sockname")[1])
            await _until(lambda c=conn: c._frame is not None, what="frame begun")
            frames.append(frame)
            conns.append(conn)
            streams.append((reader, writer))
        # The first frame is admitted; the others wait, their connections not read.
        assert conns[0]._admitted
        assert all(c._paused & _PAUSED_MEMORY for c in conns[1:])
        assert pool.waiting == 3 and pool.refusals >= 3
        assert pool.used <= cap
        # Small requests are still served, also for a real client.
        await _api_versions_round_trip(host, port)
        await _real_client(host, port, "limits-other-client")
        assert pool.peak <= cap

        # Each slow frame, once complete, is answered and makes room for the next.
        for i, (frame, (reader, writer)) in enumerate(zip(frames, streams, strict=True)):
            await _until(lambda c=conns[i]: c._admitted, what=f"frame {i} admitted")
            writer.write(frame[65_536:])
            await writer.drain()
            response = await asyncio.wait_for(_read_response(reader), 30)
            assert _SIZE.unpack_from(response, 0)[0] == 100 + i
            assert pool.waiting == max(0, 2 - i)
        for _, writer in streams:
            writer.close()
        await _until(lambda: pool.used == 0, what="pool empty")
        assert pool.peak <= cap

    _run(
        tmp_path,
        scenario,
        **{"socket.request.max.bytes": str(1024 * 1024), "queued.max.request.bytes": str(cap)},
    )


def test_queued_max_request_bytes_must_hold_the_largest_request():
    with pytest.raises(ConfigError, match=r"queued\.max\.request\.bytes"):
        BrokerConfig({"queued.max.request.bytes": "1000", "socket.request.max.bytes": "2000"})
    # Moldau's default follows socket.request.max.bytes up; -1 is unbounded as in Kafka.
    assert BrokerConfig({"socket.request.max.bytes": str(2**30)})["queued.max.request.bytes"] == 2**30
    assert BrokerConfig({"queued.max.request.bytes": "-1"})["queued.max.request.bytes"] == -1


# ---------------------------------------------------------------------- idle connections


def test_idle_connection_is_closed_after_connections_max_idle_ms(tmp_path):
    async def scenario(broker, host, port):
        idle_reader, idle_writer = await asyncio.open_connection(host, port)
        busy_reader, busy_writer = await asyncio.open_connection(host, port)
        # A long-poll fetch outlasting the idle time: the connection waits for its
        # answer, it is not idle.
        fetch = FetchRequest(
            max_wait_ms=1500,
            min_bytes=1_000_000,
            max_bytes=1_000_000,
            topics=[
                FetchRequest.FetchTopic(
                    topic="idle-t",
                    partitions=[
                        FetchRequest.FetchPartition(
                            partition=0, fetch_offset=0, partition_max_bytes=1_000_000
                        )
                    ],
                )
            ],
        )
        busy_writer.write(
            _request_frame(MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name="idle-t")]), 12)
        )
        await _read_response(busy_reader)  # auto-creates the topic
        busy_writer.write(_request_frame(fetch, 12, correlation_id=9))
        # The idle one sent nothing: the broker closes it (EOF on our side).
        assert await asyncio.wait_for(idle_reader.read(1), 30) == b""
        assert broker.server.idle_closed >= 1
        response = await asyncio.wait_for(_read_response(busy_reader), 30)
        assert _SIZE.unpack_from(response, 0)[0] == 9
        await _api_versions_round_trip(host, port)
        idle_writer.close()
        busy_writer.close()

    _run(tmp_path, scenario, **{"connections.max.idle.ms": "500"})


# ---------------------------------------------------------------------- connection counts


def test_max_connections_per_ip_refuses_the_extra_socket(tmp_path):
    limit = 8

    async def scenario(broker, host, port):
        from confluent_kafka import Producer

        loop = asyncio.get_running_loop()
        quotas = broker.server.quotas
        producer = await loop.run_in_executor(
            None, lambda: Producer({"bootstrap.servers": f"{host}:{port}", "acks": "all"})
        )
        await loop.run_in_executor(None, _produce, producer, "per-ip", 0)
        in_use = quotas.per_ip["127.0.0.1"]
        assert in_use < limit
        held = [await asyncio.open_connection(host, port) for _ in range(limit - in_use)]
        await _until(lambda: quotas.per_ip["127.0.0.1"] == limit, what="the limit reached")
        # One more: accepted by the kernel, then closed by the broker at once.
        extra_reader, extra_writer = await asyncio.open_connection(host, port)
        assert await asyncio.wait_for(extra_reader.read(1), 30) == b""
        assert quotas.per_ip["127.0.0.1"] == limit
        # The real client goes on over the connections it has.
        await loop.run_in_executor(None, _produce, producer, "per-ip", 10)
        for _, w in held:
            w.close()
        extra_writer.close()
        await _until(lambda: quotas.per_ip.get("127.0.0.1", 0) == in_use, what="raw sockets gone")
        await _api_versions_round_trip(host, port)

    _run(tmp_path, scenario, **{"max.connections.per.ip": str(limit)})


def _produce(producer, topic: str, first: int) -> None:
    for i in range(first, first + 10):
        producer.produce(topic, f"v{i}".encode())
    assert producer.flush(30) == 0


def test_max_connections_holds_the_new_socket_until_one_closes(tmp_path):
    async def scenario(broker, host, port):
        held = [await asyncio.open_connection(host, port) for _ in range(3)]
        await _until(lambda: len(broker.server.connections) == 3, what="3 connections")
        # The fourth is in the listen backlog: connected, not accepted, not answered.
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(_request_frame(ApiVersionsRequest(), 0, correlation_id=5))
        await writer.drain()
        await _until(lambda: not any(a.accepting for a in broker.server._acceptors), what="accept paused")
        assert broker.server.quotas.total == 3
        held[0][1].close()
        response = await asyncio.wait_for(_read_response(reader), 30)  # answered once a slot frees
        assert _SIZE.unpack_from(response, 0)[0] == 5
        assert broker.server.quotas.total == 3
        for _, w in held[1:]:
            w.close()
        writer.close()
        await _until(lambda: broker.server.quotas.total == 0, what="all closed")
        await _api_versions_round_trip(host, port)

    _run(tmp_path, scenario, **{"max.connections": "3"})


def test_max_connections_per_ip_overrides_by_host_name(tmp_path):
    async def scenario(broker, host, port):
        assert broker.server.quotas.limit_for("127.0.0.1") == 2  # "localhost" resolved
        held = [await asyncio.open_connection(host, port) for _ in range(2)]
        for reader, writer in held:
            writer.write(_request_frame(ApiVersionsRequest(), 0, correlation_id=3))
            assert _SIZE.unpack_from(await asyncio.wait_for(_read_response(reader), 30), 0)[0] == 3
        reader, writer = await asyncio.open_connection(host, port)
        assert await asyncio.wait_for(reader.read(1), 30) == b""  # the third is closed at once
        writer.close()
        held[0][1].close()
        await _until(lambda: broker.server.quotas.per_ip.get("127.0.0.1") == 1, what="one closed")
        await _api_versions_round_trip(host, port)  # a place is free again
        held[1][1].close()

    _run(
        tmp_path,
        scenario,
        **{"max.connections.per.ip": "0", "max.connections.per.ip.overrides": "localhost:2"},
    )


def test_inter_broker_listener_is_not_held_back_by_max_connections(tmp_path):
    # With several listeners, Kafka's ConnectionQuotas lets the inter-broker one accept
    # over max.connections and closes the least recently active connection elsewhere.
    async def scenario(broker, host, port):
        (_, client_port), (_, inter_port) = broker.server.bound
        older = await asyncio.open_connection(host, client_port)
        newer = await asyncio.open_connection(host, client_port)
        await _until(lambda: broker.server.quotas.total == 2, what="2 client connections")
        newer[1].write(_request_frame(ApiVersionsRequest(), 0, correlation_id=8))
        await _read_response(newer[0])  # the older one is now the least recently active
        reader, writer = await asyncio.open_connection(host, inter_port)
        writer.write(_request_frame(ApiVersionsRequest(), 0, correlation_id=9))
        assert _SIZE.unpack_from(await asyncio.wait_for(_read_response(reader), 30), 0)[0] == 9
        assert await asyncio.wait_for(older[0].read(1), 30) == b""  # closed to make room
        newer[1].write(_request_frame(ApiVersionsRequest(), 0, correlation_id=10))
        assert _SIZE.unpack_from(await asyncio.wait_for(_read_response(newer[0]), 30), 0)[0] == 10
        for w in (older[1], newer[1], writer):
            w.close()

    _run(
        tmp_path,
        scenario,
        **{
            "listeners": "CLIENT://127.0.0.1:0,PLAINTEXT://127.0.0.1:0",
            "listener.security.protocol.map": "CLIENT:PLAINTEXT,PLAINTEXT:PLAINTEXT",
            "max.connections": "2",
        },
    )
