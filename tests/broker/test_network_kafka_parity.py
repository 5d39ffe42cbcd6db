"""The connection layer against Kafka's SocketServer, RequestContext and KafkaApis basics.

Each test runs one broker in the test's event loop (as tests/broker/test_connection_limits.py
does) and talks to it over raw sockets, so the broker's connection state can be inspected.
"""

from __future__ import annotations

import asyncio
import socket
import struct
from typing import Any

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


MIB = 1 << 20


async def _create_topics(host: str, port: int, *names: str) -> None:
    topics = [
        CreateTopicsRequest.CreatableTopic(name=n, num_partitions=1, replication_factor=1) for n in names
    ]
    await _round_trip(host, port, _frame(CreateTopicsRequest(topics=topics, timeout_ms=60000), 7))


def _produce_frame(topic: str, correlation_id: int, records: int = 1000, value: bytes = bytes(1000)) -> bytes:
    """An acks=1 Produce v9 of one batch of ``records`` copies of ``value`` to partition 0."""
    from protocol.messages import ProduceRequest
    from protocol.records import build_batch

    data = ProduceRequest.PartitionProduceData(index=0, records=build_batch([(None, value)] * records))
    request = ProduceRequest(
        acks=1,
        timeout_ms=30_000,
        topic_data=[ProduceRequest.TopicProduceData(name=topic, partition_data=[data])],
    )
    return _frame(request, 9, correlation_id=correlation_id)


async def _fill(host: str, port: int, topic: str, batches: int) -> None:
    """``batches`` batches of 1,000 records of 1,000 bytes, the i-th batch's values all byte i."""
    reader, writer = await asyncio.open_connection(host, port)
    for i in range(batches):
        writer.write(_produce_frame(topic, i, value=bytes([i]) * 1000))
        await _read_frame(reader)
    writer.close()


def _fetch_frame(topic: str, max_bytes: int, correlation_id: int = 1) -> bytes:
    """A consumer's Fetch v11 of partition 0 from offset 0, answered at once."""
    from protocol.messages import FetchRequest

    partition = FetchRequest.FetchPartition(partition=0, fetch_offset=0, partition_max_bytes=max_bytes)
    fetch = FetchRequest(
        replica_id=-1,
        max_wait_ms=0,
        min_bytes=1,
        max_bytes=max_bytes,
        topics=[FetchRequest.FetchTopic(topic=topic, partitions=[partition])],
    )
    return _frame(fetch, 11, correlation_id=correlation_id)


def _reading_nothing(host: str, port: int) -> socket.socket:
    """A client with a small receive window (set before connecting: it is the TCP window)."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((host, port))
    return sock


def test_frames_behind_an_unread_answer_stay_in_the_clients_socket(tmp_path):
    """SocketServer mutes a channel from a request's read until its response is sent
    (``processCompletedReceives`` -> ``selector.mute``, ``tryUnmuteChannel``): a client that
    does not read its Fetch answer and goes on writing gets nothing more read; its frames stay
    in its socket and take nothing from queued.max.request.bytes. Moldau read up to 64 frames
    ahead of a stuck answer, each held in the request pool until handled, which was never:
    such a client took the pool's share for large frames, and another client's 1.4 MB produce
    waited for good."""
    from broker.frame_reader import _PAUSED_MUTED

    async def scenario(broker, host, port):
        await _create_topics(host, port, "data", "other")
        await _fill(host, port, "data", 16)  # 16 MB for the stuck fetch answer
        greedy = _reading_nothing(host, port)
        greedy.setblocking(False)
        loop = asyncio.get_running_loop()
        pushing = None
        try:
            await loop.sock_sendall(greedy, _fetch_frame("data", 32 * MIB))
            await _until(lambda: any(c._sending for c in broker.server.connections), what="the answer stuck")
            (conn,) = [c for c in broker.server.connections if c._sending]
            burst = b"".join(_produce_frame("other", 100 + i, records=1400) for i in range(12))  # 12 x 1.4 MB
            pushing = asyncio.ensure_future(loop.sock_sendall(greedy, burst))
            pool = broker.server.memory
            await _until(
                lambda: conn._paused & _PAUSED_MUTED or pool.large_used >= pool.large_limit - 2 * MIB,
                what="the greedy connection muted (or the pool's large share taken)",
            )
            r, w = await asyncio.open_connection(host, port)
            try:
                w.write(_produce_frame("other", 7, records=1400))
                answer = await _read_frame(r)  # within 30 s, or the test fails
                assert _SIZE.unpack_from(answer)[0] == 7
            finally:
                w.close()
            assert pool.large_used <= 2 * 1_500_000, (
                f"{pool.large_used} bytes of frames read behind the answer"
            )
        finally:
            if pushing is not None:
                pushing.cancel()
            greedy.close()

    _run(
        tmp_path,
        scenario,
        **{"socket.request.max.bytes": str(2 * MIB), "queued.max.request.bytes": str(16 * MIB)},
    )


def test_a_client_that_stops_reading_its_answer_is_closed_when_idle(tmp_path):
    """Kafka's ``Selector`` closes a channel idle for ``connections.max.idle.ms`` by its last
    read or write, whatever it still has to send: a consumer that stopped reading a large
    Fetch answer goes, and with it the answer's file descriptors and memory. Moldau counted
    such a connection as busy for as long as it stayed connected."""

    async def scenario(broker, host, port):
        await _create_topics(host, port, "data")
        await _fill(host, port, "data", 8)
        stuck = _reading_nothing(host, port)
        try:
            stuck.sendall(_fetch_frame("data", 16 * MIB))
            await _until(lambda: broker.server.idle_closed >= 1, what="the stuck connection closed as idle")
            await _until(lambda: not broker.server.connections, what="no connection left")
        finally:
            stuck.close()

    _run(tmp_path, scenario, **{"connections.max.idle.ms": "1000"})


def test_a_large_answer_over_tls_is_copied_as_the_client_reads_it(tmp_path):
    """``SslTransportLayer.transferFrom``: a TLS channel's Fetch answer is read from the
    segment files one buffer at a time as the socket drains, so a consumer that reads slowly
    or not at all costs Kafka a buffer, not the answer. Moldau read the whole answer (up to
    ``fetch.max.bytes``) into memory and handed it to the TLS transport, which held it and
    its encrypted copy for as long as the client did not read. The answer read in slices must
    still be the whole answer, byte for byte."""
    import ssl
    import threading

    from tests.security.conftest import make_certs

    certs = make_certs(tmp_path / "certs")
    batches = 24  # of 1 MB

    async def scenario(broker, host, port):
        tls_port = broker.server.bound[1][1]
        await _create_topics(host, port, "big")
        await _fill(host, port, "big", batches)
        before = set(broker.server.connections)

        def connect() -> ssl.SSLSocket:  # a blocking handshake, off the broker's loop
            context = ssl.create_default_context(cafile=str(certs.ca))
            return context.wrap_socket(_reading_nothing(host, tls_port), server_hostname="localhost")

        client = await asyncio.to_thread(connect)
        try:
            client.sendall(_fetch_frame("big", 64 * MIB, correlation_id=77))
            await _until(lambda: len(broker.server.connections - before) == 1, what="the TLS connection")
            (conn,) = broker.server.connections - before
            await _until(lambda: conn._copier is not None, what="the answer being copied")
            held = conn.transport.get_write_buffer_size()
            assert held < 8 * MIB, (
                f"{held} bytes of a {batches} MB answer held for a client that reads nothing"
            )

            answer: list[bytes] = []

            def read_all() -> None:
                (size,) = _SIZE.unpack(_recv_exactly(client, 4))
                answer.append(_recv_exactly(client, size))

            reading = threading.Thread(target=read_all, daemon=True)
            reading.start()
            await _until(lambda: not reading.is_alive(), what="the whole answer read")
            response = RESPONSES[1].decode(answer[0], 11, 4)
            assert _SIZE.unpack_from(answer[0], 0)[0] == 77
            (records,) = [p.records for t in response.responses for p in t.partitions]
            assert len(records) > batches * (MIB - 64 * 1024)
            assert bytes(records).count(bytes([batches - 1]) * 1000) == 1000  # the last batch, whole
            assert conn._copier is None and not conn._sending
        finally:
            client.close()

    _run(tmp_path / "data", scenario, **_with_tls_listener(certs))


def _with_tls_listener(certs: Any, **overrides: str) -> dict[str, str]:
    """A plain listener (bound first) and a TLS one (bound second)."""
    return {
        "listeners": "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SSL:SSL",
        "ssl.keystore.type": "PEM",
        "ssl.keystore.location": str(certs.broker_keystore),
        **overrides,
    }


def _recv_exactly(sock: socket.socket, n: int) -> bytes:
    out = bytearray()
    while len(out) < n:
        chunk = sock.recv(min(n - len(out), 1 << 20))
        if not chunk:
            raise AssertionError(f"connection closed after {len(out)} of {n} bytes")
        out += chunk
    return bytes(out)


def _slow_read(sock: socket.socket, out: list[bytes], errors: list[BaseException]) -> None:
    """A client on a slow link: one answer read 8 KiB at a time, 20 ms apart (so 25 reads
    per half second), the bytes or the error kept."""
    import ssl
    import time

    try:
        (size,) = _SIZE.unpack(_recv_exactly(sock, 4))
        got = bytearray()
        while len(got) < size:
            chunk = sock.recv(min(8 * 1024, size - len(got)))
            if not chunk:
                raise ConnectionError(f"closed after {len(got)} of {size} bytes")
            got += chunk
            time.sleep(0.02)
        out.append(bytes(got))
    except (OSError, ssl.SSLError, AssertionError) as exc:
        errors.append(exc)


async def _read_slowly(broker: Any, client: socket.socket, before: set) -> None:
    """Fetch 1 MB on ``client`` (the broker's socket given a small send buffer, so the broker
    holds most of the answer) and read it slowly: it must come whole, never closed as idle."""
    import threading

    await _until(lambda: len(broker.server.connections - before) == 1, what="the connection")
    (conn,) = broker.server.connections - before
    conn.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8192)
    client.sendall(_fetch_frame("big", 64 * MIB, correlation_id=5))
    out: list[bytes] = []
    errors: list[BaseException] = []
    reading = threading.Thread(target=_slow_read, args=(client, out, errors), daemon=True)
    reading.start()
    await _until(lambda: not reading.is_alive(), timeout=60, what="the answer read")
    assert not errors, f"{errors[0]} (closed as idle: {broker.server.idle_closed})"
    assert len(out) == 1 and len(out[0]) > 1_000_000  # the batch of 1,000 records of 1,000 bytes


def test_a_client_reading_a_large_answer_slowly_is_not_idle(tmp_path):
    """Kafka's ``Selector.pollSelectionKeys`` counts a channel active (``idleExpiryManager
    .update``) each time its socket takes more of the response it sends: a consumer reading a
    large answer slowly but steadily is never idle, on a plain listener (``sendfile``) or a TLS
    one (the copy path, whose progress the broker sees only in the kernel's count of the bytes
    the client acknowledged: a TLS transport's buffer does not move while it waits)."""
    from tests.security.conftest import make_certs

    certs = make_certs(tmp_path / "certs")

    async def scenario(broker, host, port):
        await _create_topics(host, port, "big")
        await _fill(host, port, "big", 1)
        plain = _reading_nothing(host, port)
        try:
            await _read_slowly(broker, plain, set(broker.server.connections))
        finally:
            plain.close()

        import ssl

        def connect() -> ssl.SSLSocket:  # a blocking handshake, off the broker's loop
            context = ssl.create_default_context(cafile=str(certs.ca))
            return context.wrap_socket(
                _reading_nothing(host, broker.server.bound[1][1]), server_hostname="localhost"
            )

        before = set(broker.server.connections)
        tls = await asyncio.to_thread(connect)
        try:
            await _read_slowly(broker, tls, before)
        finally:
            tls.close()
        assert broker.server.idle_closed == 0

    _run(tmp_path / "data", scenario, **_with_tls_listener(certs, **{"connections.max.idle.ms": "500"}))


def test_a_client_closed_as_idle_with_its_answer_unsent_is_gone(tmp_path):
    """Kafka's ``Selector`` closes an idle channel at once (``KafkaChannel.close``: the socket
    closed, its pending send dropped, ``ConnectionQuotas`` decremented), whatever it still had
    to send. Moldau's graceful close waited to flush the answer to a client that reads nothing,
    so the connection never went and kept its ``max.connections`` slot."""

    async def scenario(broker, host, port):
        await _create_topics(host, port, "small")
        reader, writer = await asyncio.open_connection(host, port)
        for i in range(2):  # two 100 KB batches: an answer copied into the transport
            writer.write(_produce_frame("small", i, records=100, value=bytes([i]) * 1000))
            await _read_frame(reader)
        writer.close()
        before = set(broker.server.connections)
        stuck = _reading_nothing(host, port)
        try:
            await _until(lambda: len(broker.server.connections - before) == 1, what="the connection")
            (conn,) = broker.server.connections - before
            conn.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8192)
            stuck.sendall(_fetch_frame("small", 250 * 1024))
            await _until(lambda: broker.server.idle_closed >= 1, what="the stuck connection closed as idle")
            await _until(lambda: conn not in broker.server.connections, what="the connection gone")
        finally:
            stuck.close()

    _run(tmp_path, scenario, **{"connections.max.idle.ms": "1000"})
