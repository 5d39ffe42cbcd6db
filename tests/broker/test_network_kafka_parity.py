"""The connection layer against Kafka's SocketServer, RequestContext and KafkaApis basics.

Each test runs one broker in the test's event loop (as tests/broker/test_connection_limits.py
does) and talks to it over raw sockets, so the broker's connection state can be inspected.
"""

from __future__ import annotations

import asyncio
import socket
import struct

from broker.broker import Broker
from broker.config import BrokerConfig
from protocol.errors import ErrorCode
from protocol.headers import RequestHeader, encode_request_header, request_header_version
from protocol.messages import (
    RESPONSES,
    ApiVersionsRequest,
    CreateTopicsRequest,
    DescribeLogDirsRequest,
    MetadataRequest,
)

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


async def _until(predicate, timeout: float = 30.0, what: str = "condition") -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"{what} not reached within {timeout} s")
        await asyncio.sleep(0.01)


def _frame(request, version: int, correlation_id: int = 1, client_id: str | None = "parity") -> bytes:
    key = request.API_KEY
    w = bytearray()
    encode_request_header(
        w, RequestHeader(key, version, correlation_id, client_id, request_header_version(key, version))
    )
    request.write(w, version)
    return _SIZE.pack(len(w)) + bytes(w)


async def _read_frame(reader: asyncio.StreamReader) -> bytes:
    (size,) = _SIZE.unpack(await asyncio.wait_for(reader.readexactly(4), 30))
    return await asyncio.wait_for(reader.readexactly(size), 30)


async def _round_trip(host: str, port: int, frame: bytes) -> bytes | None:
    """The response frame, or None when the broker closed the connection instead."""
    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(frame)
        await writer.drain()
        try:
            return await _read_frame(reader)
        except asyncio.IncompleteReadError:
            return None
    finally:
        writer.close()


# ---------------------------------------------------------------------- ApiVersions


def test_api_versions_v3_software_name_with_trailing_newline_is_invalid(tmp_path):
    """ApiVersionsRequest.isValid (KafkaApis.handleApiVersionsRequest): the client software
    name and version must match ``[a-zA-Z0-9](?:[a-zA-Z0-9\\-.]*[a-zA-Z0-9])?`` as a whole
    (Java's ``Matcher.matches``), so "librdkafka\\n" is INVALID_REQUEST. Python's ``$`` also
    matches before a final newline."""

    async def scenario(broker, host, port):
        for name, version in (("librdkafka\n", "2.6.0"), ("librdkafka", "2.6.0\n")):
            req = ApiVersionsRequest(client_software_name=name, client_software_version=version)
            frame = await _round_trip(host, port, _frame(req, 3))
            assert frame is not None
            resp = RESPONSES[18].decode(frame, 3, 4)  # ApiVersions: response header v0
            assert resp.error_code == ErrorCode.INVALID_REQUEST.code, (name, version)
            assert resp.api_keys == []

    _run(tmp_path, scenario)


# ---------------------------------------------------------------------- request header


def test_client_id_that_is_not_utf8_is_still_served(tmp_path):
    """RequestHeader.parse -> RequestHeaderData reads client_id with Readable.readString,
    ``new String(bytes, UTF_8)``: malformed bytes become U+FFFD and the request is served.
    A client whose client.id is Latin-1 (librdkafka / sarama send the configured bytes as
    they are) is answered by Kafka; a strict decoder would close every such connection."""

    async def scenario(broker, host, port):
        good = _frame(MetadataRequest(topics=[]), 1, correlation_id=5, client_id="cafe")
        # the same request with client_id b"caf\xe9" (Latin-1 "café"), same length
        bad = good.replace(b"cafe", b"caf\xe9")
        assert bad != good
        ok = await _round_trip(host, port, good)
        assert ok is not None and _SIZE.unpack_from(ok, 0)[0] == 5
        got = await _round_trip(host, port, bad)
        assert got is not None, "the broker closed the connection (client_id not UTF-8)"
        assert _SIZE.unpack_from(got, 0)[0] == 5
        resp = RESPONSES[3].decode(got, 1, 4)
        assert resp.brokers and resp.brokers[0].port == port

    _run(tmp_path, scenario)


# ---------------------------------------------------------------------- pipelining / memory


def test_pipelined_requests_do_not_pile_up_responses_in_memory(tmp_path):
    """SocketServer.Processor.processCompletedReceives mutes a channel once a request is
    read (``selector.mute``) and unmutes it only when its response has been sent
    (processCompletedSends -> tryUnmuteChannel): a client that sends many requests and reads
    nothing makes Kafka hold at most one response for that connection (the one being sent),
    the rest of its requests stay unread in the socket. Handling every frame of one read in
    one pass (up to 256 KiB of requests, thousands of small ones) would queue all their
    responses in the transport's buffer: 60 KB of DescribeLogDirs requests here would become
    megabytes of responses held in the broker's memory, outside queued.max.request.bytes
    (``KafkaConnection._drain`` writes every few answers and yields between slices)."""

    async def scenario(broker, host, port):
        reader, writer = await asyncio.open_connection(host, port)
        create = CreateTopicsRequest(
            topics=[
                CreateTopicsRequest.CreatableTopic(name="wide", num_partitions=200, replication_factor=1)
            ],
            timeout_ms=60000,
        )
        writer.write(_frame(create, 7))
        await _read_frame(reader)
        # DescribeLogDirs of every partition: a synchronous handler, a 20-byte request, a
        # response of some KB (Metadata is an async handler, answered one at a time).
        describe = DescribeLogDirsRequest(topics=None)
        writer.write(_frame(describe, 1, correlation_id=2))
        one_response = len(await _read_frame(reader)) + 4
        writer.close()
        assert one_response > 4000

        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a client that reads nothing
        sock.connect((host, port))
        try:
            await _until(
                lambda: any(c.peer.endswith(f":{sock.getsockname()[1]}") for c in broker.server.connections),
                what="the connection accepted",
            )
            (conn,) = [c for c in broker.server.connections if c.peer.endswith(f":{sock.getsockname()[1]}")]
            burst = b"".join(_frame(describe, 1, correlation_id=i) for i in range(3000))
            assert len(burst) < 100_000
            sock.sendall(burst)  # 60 KB of requests, in the broker's socket before it reads any
            await _until(lambda: conn._writing_paused, what="the broker's writes to the client paused")
            await asyncio.sleep(0)
            buffered = conn.transport.get_write_buffer_size()
            # Kafka: one response in user space per connection (plus what the kernel holds);
            # allowed here: a few responses or the transport's write high-water mark and then some.
            assert buffered <= max(4 * one_response, 256 * 1024), (
                f"{buffered} bytes of responses queued for a client that reads nothing "
                f"({buffered // one_response} responses of {one_response} bytes)"
            )
        finally:
            sock.close()

    _run(tmp_path, scenario)


class _Recorder:
    """A request interceptor (KafkaServer.interceptor) recording the order requests are
    handled in; on the first request of ``trigger_conn`` it runs ``on_first`` once."""

    def __init__(self) -> None:
        self.order: list[tuple[int, int]] = []  # (api key, correlation id)
        self.on_first = None

    def intercept(self, connection, api_key, api_version, header, request, handle):
        self.order.append((api_key, header.correlation_id))
        if self.on_first is not None and api_key == 35:
            on_first, self.on_first = self.on_first, None
            on_first()
        return handle(request)


def test_pipelined_burst_of_one_client_does_not_hold_back_other_clients(tmp_path):
    """SocketServer.Processor mutes a channel after each request read (``selector.mute`` in
    processCompletedReceives) until its response is sent, so a client pipelining thousands
    of requests gets one handled at a time, interleaved with other connections' requests (a
    request of another client arriving meanwhile is handled long before the burst's last).
    Handled in a single pass of the event loop, a burst of 3000 requests (60 KB) would run to
    its end before any other client's request is even read (``KafkaConnection._drain``
    handles a slice of frames per turn)."""

    async def scenario(broker, host, port):
        reader, writer = await asyncio.open_connection(host, port)
        create = CreateTopicsRequest(
            topics=[CreateTopicsRequest.CreatableTopic(name="wide", num_partitions=50, replication_factor=1)],
            timeout_ms=60000,
        )
        writer.write(_frame(create, 7))
        await _read_frame(reader)
        writer.close()

        other = socket.create_connection((host, port))
        burst_sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        burst_sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        burst_sock.connect((host, port))
        recorder = _Recorder()
        # When the burst's first request is handled, another client sends one request.
        recorder.on_first = lambda: other.sendall(_frame(ApiVersionsRequest(), 0, correlation_id=77))
        broker.server.interceptor = recorder
        try:
            n = 3000
            burst = b"".join(
                _frame(DescribeLogDirsRequest(topics=None), 1, correlation_id=i) for i in range(n)
            )
            burst_sock.sendall(burst)
            await _until(lambda: (18, 77) in recorder.order, what="the other client's request handled")
            before = recorder.order.index((18, 77))
            handled_first = sum(1 for key, _ in recorder.order[:before] if key == 35)
            assert handled_first < n, (
                f"the other client's request waited for all {handled_first} requests of the burst"
            )
        finally:
            broker.server.interceptor = None
            other.close()
            burst_sock.close()

    _run(tmp_path, scenario)


# ---------------------------------------------------------------------- connection limits


def test_lowering_max_connections_closes_excess_connections(tmp_path):
    """SocketServer.Processor.run calls closeExcessConnections on every poll iteration: while
    ConnectionQuotas.maxConnectionsExceeded (totalCount > brokerMaxConnections, listener not
    the protected inter-broker one) it closes the lowest-priority (least recently active)
    connection, one per iteration. Lowering max.connections dynamically
    (DynamicConnectionQuota -> updateBrokerMaxConnections) below the connections open
    therefore sheds the excess, not only stops accepting new ones."""
    from protocol.messages import IncrementalAlterConfigsRequest as IAC

    async def scenario(broker, host, port):
        idle = [await asyncio.open_connection(host, port) for _ in range(6)]
        await _until(lambda: len(broker.server.connections) == 6, what="6 connections open")
        reader, writer = await asyncio.open_connection(host, port)
        alter = IAC(
            resources=[
                IAC.AlterConfigsResource(
                    resource_type=4,
                    resource_name=str(broker.broker_id),
                    configs=[IAC.AlterableConfig(name="max.connections", config_operation=0, value="3")],
                )
            ]
        )
        writer.write(_frame(alter, 0, correlation_id=3))
        frame = await _read_frame(reader)
        resp = RESPONSES[44].decode(frame, 0, 4)
        assert [r.error_code for r in resp.responses] == [0], resp
        await _until(lambda: broker.server.quotas.max_connections == 3, what="max.connections=3 applied")
        # Kafka: one least recently active connection closed per processor iteration
        # (a poll waits at most 300 ms) until no more than 3 are open.
        await _until(
            lambda: len(broker.server.connections) <= 3,
            timeout=5,
            what=f"connections down to max.connections=3 (open: {len(broker.server.connections)})",
        )
        for _, w in idle:
            w.close()
        writer.close()

    _run(tmp_path, scenario, **{"max.connections": "100"})
