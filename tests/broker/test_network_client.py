"""The inter-broker client against real Moldau brokers (in-process and subprocess) and a
scripted fake broker for what a correct broker never does (out-of-order answers).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import struct
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from broker.broker import Broker
from broker.config import BrokerConfig
from broker.controller_channel import (
    BrokerChannel,
    BrokerChannelManager,
    ChannelQueueFull,
    RequestSupersededError,
)
from broker.network_client import (
    BrokerDisconnectedError,
    BrokerNotAvailableError,
    ClientClosedError,
    InterBrokerClient,
    ReconnectBackoff,
    RequestTimeoutError,
    UnsupportedVersionError,
)
from protocol.headers import decode_request_header, response_header_bytes, response_header_version
from protocol.messages import (
    ApiKey,
    ApiVersionsRequest,
    ApiVersionsResponse,
    ControlledShutdownRequest,
    ControlledShutdownResponse,
    CreateTopicsRequest,
    FetchRequest,
    LeaderAndIsrRequest,
    MetadataRequest,
    ProduceRequest,
)
from protocol.records import build_batch
from tests.support.broker_process import BrokerProcess
from tests.support.fault_proxy import Action, FaultProxy, FaultRule

BROKER_ID = 1
CLIENT_ID = "broker-0"


# ---------------------------------------------------------------------- helpers


def _run(coro_fn: Callable[[], Awaitable[None]], timeout: float = 60.0) -> None:
    async def main() -> None:
        async with asyncio.timeout(timeout):
            await coro_fn()

    asyncio.run(main())


@contextlib.asynccontextmanager
async def _in_process_broker(tmp_path, port: int = 0):
    cfg = BrokerConfig({"log.dirs": str(tmp_path / "data"), "listeners": f"PLAINTEXT://127.0.0.1:{port}"})
    broker = Broker(cfg)
    await broker.start()
    try:
        yield broker.server.bound[0]
    finally:
        await broker.stop()


def _client(endpoints: dict[int, tuple[str, int]], **kw: Any) -> InterBrokerClient:
    return InterBrokerClient(CLIENT_ID, endpoints.get, **kw)


def _metadata(*topics: str) -> MetadataRequest:
    return MetadataRequest(
        topics=[MetadataRequest.MetadataRequestTopic(name=t) for t in topics],
        allow_auto_topic_creation=False,
    )


def _create_topic(name: str) -> CreateTopicsRequest:
    return CreateTopicsRequest(
        topics=[CreateTopicsRequest.CreatableTopic(name=name, num_partitions=1, replication_factor=1)],
        timeout_ms=10_000,
    )


def _produce(topic: str, batch: bytes) -> ProduceRequest:
    return ProduceRequest(
        acks=-1,
        timeout_ms=10_000,
        topic_data=[
            ProduceRequest.TopicProduceData(
                name=topic, partition_data=[ProduceRequest.PartitionProduceData(index=0, records=batch)]
            )
        ],
    )


def _fetch(topic: str, offset: int, *, max_wait_ms: int = 0, min_bytes: int = 0) -> FetchRequest:
    return FetchRequest(
        max_wait_ms=max_wait_ms,
        min_bytes=min_bytes,
        max_bytes=64 * 1024 * 1024,
        topics=[
            FetchRequest.FetchTopic(
                topic=topic,
                partitions=[
                    FetchRequest.FetchPartition(partition=0, fetch_offset=offset, partition_max_bytes=8 << 20)
                ],
            )
        ],
    )


class RecordingBackoff(ReconnectBackoff):
    """The real schedule, also recording which failure counts it was asked for."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.asked: list[int] = []

    def backoff_ms(self, failures: int) -> int:
        self.asked.append(failures)
        return super().backoff_ms(failures)


class FakeBroker:
    """A scripted broker: serves ApiVersions from ``versions`` and hands every other
    request to ``answer(header, body_view) -> list of (correlation_id, response) | None``."""

    def __init__(
        self,
        versions: dict[int, tuple[int, int]],
        answer: Callable[..., Any],
        *,
        api_versions_max: int = 4,
    ) -> None:
        self.versions = versions
        self.answer = answer
        self.api_versions_max = api_versions_max
        self.api_versions_seen: list[int] = []
        self.frames: list[bytes] = []
        self.connections = 0
        self.black_hole = False  # while set, every request is read and lost (a cut link)
        self.lost = 0
        self.closed_by_client = 0  # connections the client closed
        self.server: asyncio.base_events.Server | None = None
        self.port = 0

    async def start(self) -> FakeBroker:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        assert self.server is not None
        self.server.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.server.wait_closed(), 5)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                (size,) = struct.unpack(">i", await reader.readexactly(4))
                frame = await reader.readexactly(size)
                api_key, version, correlation_id = struct.unpack_from(">hhi", frame)
                if self.black_hole:
                    self.lost += 1
                    continue
                if api_key == ApiKey.API_VERSIONS and version > self.api_versions_max:
                    # KIP-511: UNSUPPORTED_VERSION, in v0, with the range this broker knows.
                    self.api_versions_seen.append(version)
                    resp = ApiVersionsResponse(
                        error_code=35,
                        api_keys=[
                            ApiVersionsResponse.ApiVersion(
                                api_key=ApiKey.API_VERSIONS, min_version=0, max_version=self.api_versions_max
                            )
                        ],
                    )
                    self._write(writer, api_key, 0, correlation_id, resp)
                    continue
                if api_key == ApiKey.API_VERSIONS:
                    self.api_versions_seen.append(version)
                    resp = ApiVersionsResponse(
                        api_keys=[
                            ApiVersionsResponse.ApiVersion(api_key=k, min_version=lo, max_version=hi)
                            for k, (lo, hi) in self.versions.items()
                        ]
                    )
                    # A real broker always lists ApiVersions; this one only what it was given.
                    self._write(writer, api_key, version, correlation_id, resp)
                    continue
                self.frames.append(frame)
                for corr, resp in self.answer(api_key, version, correlation_id, frame) or ():
                    self._write(writer, api_key, version, corr, resp)
        except asyncio.IncompleteReadError:
            self.closed_by_client += 1
        except ConnectionError:
            pass
        finally:
            writer.close()

    @staticmethod
    def _write(writer: asyncio.StreamWriter, api_key: int, version: int, corr: int, resp: Any) -> None:
        body = bytearray(response_header_bytes(corr, response_header_version(api_key, version)))
        resp.write(body, version)
        writer.write(struct.pack(">i", len(body)) + bytes(body))


# ---------------------------------------------------------------------- backoff schedule


def test_backoff_schedule_without_jitter_doubles_to_the_cap():
    backoff = ReconnectBackoff(50, 1000, jitter=0)
    assert [backoff.backoff_ms(n) for n in range(8)] == [50, 100, 200, 400, 800, 1000, 1000, 1000]


def test_backoff_jitter_stays_within_twenty_percent_and_under_the_cap():
    backoff = ReconnectBackoff(rng=random.Random(7))  # Kafka's defaults: 50 ms .. 1 s, 20%
    for n in range(10):
        base = min(50 * 2**n, 1000)
        values = {backoff.backoff_ms(n) for _ in range(200)}
        assert min(values) >= int(base * 0.8)
        assert max(values) <= min(int(base * 1.2), 1000)
        assert len(values) > 1  # jittered, not constant


# ---------------------------------------------------------------------- against a real broker


def test_api_versions_negotiated_and_metadata_round_trip(tmp_path):
    async def scenario() -> None:
        async with _in_process_broker(tmp_path) as endpoint:
            client = _client({BROKER_ID: endpoint})
            try:
                resp = await client.send(BROKER_ID, _metadata())
                assert [b.port for b in resp.brokers] == [endpoint[1]]
                versions = client.api_versions(BROKER_ID)
                assert versions[ApiKey.METADATA] == (0, 12)
                # The broker serves Metadata up to v12, our codec up to v13: v12 it is.
                assert MetadataRequest.VALID_VERSIONS[1] > 12
                assert client.version_for(BROKER_ID, MetadataRequest) == 12
                assert client.version_for(BROKER_ID, FetchRequest) == min(
                    versions[ApiKey.FETCH][1], FetchRequest.VALID_VERSIONS[1]
                )
                # An explicit version inside both ranges is used as given.
                old = await client.send(BROKER_ID, _metadata(), version=1)
                assert old.brokers[0].node_id == resp.brokers[0].node_id
            finally:
                await client.close()

    _run(scenario)


def test_api_the_broker_does_not_serve_is_refused_without_breaking_the_connection(tmp_path):
    async def scenario() -> None:
        async with _in_process_broker(tmp_path) as endpoint:
            client = _client({BROKER_ID: endpoint})
            try:
                await client.send(BROKER_ID, _metadata())
                with pytest.raises(UnsupportedVersionError, match="LeaderAndIsrRequest") as err:
                    await client.send(BROKER_ID, LeaderAndIsrRequest(controller_id=0))
                assert not err.value.retriable
                with pytest.raises(UnsupportedVersionError, match="common range"):
                    await client.send(BROKER_ID, _metadata(), version=13)
                assert client.is_ready(BROKER_ID)
                await client.send(BROKER_ID, _metadata())
            finally:
                await client.close()

    _run(scenario)


def test_produce_and_fetch_round_trip_with_a_large_response(tmp_path):
    async def scenario() -> None:
        async with _in_process_broker(tmp_path) as endpoint:
            client = _client({BROKER_ID: endpoint})
            try:
                created = await client.send(BROKER_ID, _create_topic("t"))
                assert created.topics[0].error_code == 0
                small = build_batch([(b"k", b"v")])
                # Larger than the client's read buffer: received into a buffer of its own.
                big = build_batch([(None, bytes(range(256)) * 1200)] * 2)
                for batch, offset in ((small, 0), (big, 1)):
                    resp = await client.send(BROKER_ID, _produce("t", batch))
                    part = resp.responses[0].partition_responses[0]
                    assert (part.error_code, part.base_offset) == (0, offset)
                resp = await client.send(BROKER_ID, _fetch("t", 0))
                part = resp.responses[0].partitions[0]
                assert part.error_code == 0 and part.high_watermark == 3
                assert isinstance(part.records, memoryview)  # no copy of the record bytes
                assert len(part.records) == len(small) + len(big)
                assert bytes(part.records[len(small) :])[61:] == big[61:]  # past offset/epoch/crc
                # acks=0: nothing comes back, send returns once written.
                no_ack = _produce("t", small)
                no_ack.acks = 0
                assert await client.send(BROKER_ID, no_ack) is None
                resp = await client.send(BROKER_ID, _fetch("t", 3))
                assert resp.responses[0].partitions[0].high_watermark == 4
            finally:
                await client.close()

    _run(scenario)


def test_pipelined_requests_get_their_own_responses(tmp_path):
    async def scenario() -> None:
        async with _in_process_broker(tmp_path) as endpoint:
            client = _client({BROKER_ID: endpoint}, max_in_flight=5)
            try:
                names = [f"topic-{i}" for i in range(40)]
                responses = await asyncio.gather(*(client.send(BROKER_ID, _metadata(n)) for n in names))
                assert [r.topics[0].name for r in responses] == names
                assert all(r.topics[0].error_code == 3 for r in responses)  # UNKNOWN_TOPIC_OR_PARTITION
            finally:
                await client.close()

    _run(scenario)


def test_request_timeout_closes_the_connection_and_the_next_send_reconnects(tmp_path):
    async def scenario() -> None:
        async with _in_process_broker(tmp_path) as endpoint:
            client = _client({BROKER_ID: endpoint}, request_timeout_ms=300)
            try:
                await client.send(BROKER_ID, _create_topic("idle"))
                # A long-poll fetch on an empty partition parks in the broker for 10 s; its own
                # timeout is later still, the one sent behind it (300 ms) is the first to pass:
                # the connection's deadline timer, armed for the first, moves earlier for it.
                parked = asyncio.ensure_future(
                    client.send(
                        BROKER_ID, _fetch("idle", 0, max_wait_ms=10_000, min_bytes=1), timeout_ms=30_000
                    )
                )
                with pytest.raises(RequestTimeoutError) as err:
                    await client.send(BROKER_ID, _fetch("idle", 0, max_wait_ms=10_000, min_bytes=1))
                assert err.value.retriable
                assert "no response to FetchRequest within 300 ms" in str(err.value)
                # The connection was closed: the request queued before it failed too.
                with pytest.raises(RequestTimeoutError, match="an earlier request timed out"):
                    await parked
                assert not client.is_ready(BROKER_ID)
                resp = await client.send(BROKER_ID, _metadata("idle"))
                assert resp.topics[0].error_code == 0
            finally:
                await client.close()

    _run(scenario)


def test_close_fails_pending_requests_and_refuses_new_ones(tmp_path):
    async def scenario() -> None:
        async with _in_process_broker(tmp_path) as endpoint:
            client = _client({BROKER_ID: endpoint})
            await client.send(BROKER_ID, _create_topic("idle"))
            parked = asyncio.ensure_future(
                client.send(BROKER_ID, _fetch("idle", 0, max_wait_ms=10_000, min_bytes=1))
            )
            while not client.in_flight(BROKER_ID):
                await asyncio.sleep(0.01)
            await client.close()
            with pytest.raises(ClientClosedError):
                await parked
            with pytest.raises(ClientClosedError):
                await client.send(BROKER_ID, _metadata())

    _run(scenario)


def test_unknown_broker_and_refused_connections_back_off_exponentially(tmp_path):
    async def scenario() -> None:
        # A port nobody listens on: bind, note it, close.
        srv = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        port = srv.sockets[0].getsockname()[1]
        srv.close()
        await srv.wait_closed()
        backoff = RecordingBackoff(1, 8, jitter=0)
        endpoints: dict[int, tuple[str, int]] = {}
        client = _client(endpoints, reconnect_backoff=backoff)
        try:
            with pytest.raises(BrokerNotAvailableError) as err:
                await client.send(BROKER_ID, _metadata())
            assert err.value.retriable
            endpoints[BROKER_ID] = ("127.0.0.1", port)
            for _ in range(5):
                with pytest.raises(BrokerDisconnectedError):
                    await client.send(BROKER_ID, _metadata())
            # One backoff per failure in a row, each asked for the next exponent.
            assert backoff.asked == [0, 1, 2, 3, 4, 5]
            assert [backoff.backoff_ms(n) for n in range(6)] == [1, 2, 4, 8, 8, 8]
            assert client.reconnect_delay(BROKER_ID) <= 0.008
        finally:
            await client.close()

    _run(scenario)


def test_dropped_response_times_out_and_a_delayed_one_still_arrives(tmp_path):
    async def scenario() -> None:
        async with _in_process_broker(tmp_path) as (host, port):
            proxy = FaultProxy(host, port, rewrite_addresses=False).start()
            try:
                drop = proxy.add_rule(FaultRule(Action.DROP, api_key=ApiKey.METADATA, times=1))
                client = _client({BROKER_ID: ("127.0.0.1", proxy.port)}, request_timeout_ms=500)
                try:
                    with pytest.raises(RequestTimeoutError):
                        await client.send(BROKER_ID, _metadata())
                    assert drop.fired == 1
                    proxy.add_rule(FaultRule(Action.DELAY, api_key=ApiKey.METADATA, times=1, delay_s=0.2))
                    resp = await client.send(BROKER_ID, _metadata(), timeout_ms=10_000)
                    assert resp.brokers
                    stats = proxy.stats()
                    assert stats.connections == 2  # reconnected after the timeout
                    assert stats.delayed == 1
                finally:
                    await client.close()
            finally:
                proxy.stop()

    _run(scenario)


# ---------------------------------------------------------------------- a broker that dies


def test_broker_killed_mid_request_then_restarted_on_the_same_port(tmp_path):
    proc = BrokerProcess(tmp_path / "data").start()
    try:

        async def scenario() -> None:
            client = _client({BROKER_ID: (proc.host, proc.port)})
            try:
                await client.send(BROKER_ID, _create_topic("t"))
                parked = asyncio.ensure_future(
                    client.send(BROKER_ID, _fetch("t", 0, max_wait_ms=20_000, min_bytes=1))
                )
                while not client.in_flight(BROKER_ID):
                    await asyncio.sleep(0.01)
                await asyncio.to_thread(proc.kill)
                with pytest.raises(BrokerDisconnectedError) as err:
                    await parked
                assert err.value.retriable
                with pytest.raises(BrokerDisconnectedError):
                    await client.send(BROKER_ID, _metadata())  # nobody listens now
                await asyncio.to_thread(proc.start)
                resp = await client.send(BROKER_ID, _metadata("t"))
                assert resp.topics[0].error_code == 0
            finally:
                await client.close()

        _run(scenario, timeout=120)
    finally:
        if proc.alive():
            proc.stop()


def test_channel_retries_across_a_restart_and_delivers_in_order(tmp_path):
    proc = BrokerProcess(tmp_path / "data").start()
    try:

        async def scenario() -> None:
            client = _client({BROKER_ID: (proc.host, proc.port)}, reconnect_backoff=ReconnectBackoff(10, 100))
            manager = BrokerChannelManager(client, retry_backoff_ms=20)
            await manager.update_brokers([BROKER_ID])
            try:
                await manager.enqueue(BROKER_ID, _metadata())
                await asyncio.to_thread(proc.stop)
                names = [f"t{i}" for i in range(6)]
                done: list[str] = []
                futures = [manager.enqueue(BROKER_ID, _metadata(n)) for n in names]
                for name, fut in zip(names, futures, strict=True):
                    fut.add_done_callback(lambda f, name=name: done.append(name))
                channel = manager.channels[BROKER_ID]
                while channel.attempts < 4:  # the first request is being retried
                    await asyncio.sleep(0.01)
                assert not any(f.done() for f in futures)
                await asyncio.to_thread(proc.start)
                responses = await asyncio.gather(*futures)
                assert [r.topics[0].name for r in responses] == names
                assert done == names  # answered one at a time, in order
            finally:
                await manager.close()
                await client.close()

        _run(scenario, timeout=120)
    finally:
        if proc.alive():
            proc.stop()


# ---------------------------------------------------------------------- channels without a broker


def test_channel_supersedes_and_bounds_and_removal_fails_queued_requests():
    async def scenario() -> None:
        client = _client({})  # no endpoint: every send fails with a retriable error
        manager = BrokerChannelManager(client, max_queued=3, retry_backoff_ms=10)
        try:
            await manager.update_brokers([1, 2])
            first = manager.enqueue(1, _metadata("a"), supersede_key="update-metadata")
            channel: BrokerChannel = manager.channels[1]
            while channel.attempts < 2:
                await asyncio.sleep(0.01)
            queued = manager.enqueue(1, _metadata("q"))
            second = manager.enqueue(1, _metadata("b"), supersede_key="update-metadata")
            # The retrying request ends at its next failure instead of being retried.
            with pytest.raises(RequestSupersededError):
                await first
            third = manager.enqueue(1, _metadata("c"), supersede_key="update-metadata")
            with pytest.raises(RequestSupersededError):
                await second  # superseded while still queued
            # The channel moved on to "q"; "c" waits behind it. Fill the queue to its bound.
            later = [manager.enqueue(1, _metadata(n)) for n in ("d", "e")]
            with pytest.raises(ChannelQueueFull):
                manager.enqueue(1, _metadata("f"))
            assert len(channel) == 4  # "q" being retried, "c", "d", "e" queued
            await manager.update_brokers([2, 3])
            assert sorted(manager.channels) == [2, 3]
            for fut in (queued, third, *later):
                with pytest.raises(ClientClosedError):
                    await fut
            with pytest.raises(BrokerNotAvailableError):
                manager.enqueue(1, _metadata())
        finally:
            await manager.close()
            await client.close()

    _run(scenario)


# ---------------------------------------------------------------------- a scripted broker


def test_responses_out_of_order_break_the_connection():
    async def scenario() -> None:
        held: list[tuple[int, Any]] = []

        def answer(api_key, version, corr, frame):
            held.append((corr, ControlledShutdownResponse()))
            if len(held) == 2:  # answer the pair in the wrong order
                return [held[1], held[0]]
            return None

        fake = await FakeBroker({ApiKey.CONTROLLED_SHUTDOWN: (0, 3)}, answer).start()
        client = _client({BROKER_ID: ("127.0.0.1", fake.port)})
        try:
            sends = [
                asyncio.ensure_future(client.send(BROKER_ID, ControlledShutdownRequest(broker_id=0)))
                for _ in range(2)
            ]
            results = await asyncio.gather(*sends, return_exceptions=True)
            assert all(isinstance(r, BrokerDisconnectedError) for r in results), results
            assert "correlation id" in str(results[0])
        finally:
            await client.close()
            await fake.stop()

    _run(scenario)


def test_requests_are_pipelined_up_to_max_in_flight():
    async def scenario() -> None:
        waiting: list[int] = []
        most = 0

        def answer(api_key, version, corr, frame):
            nonlocal most
            waiting.append(corr)
            most = max(most, len(waiting))
            if len(waiting) < 3:
                return None  # answers only once three requests are outstanding
            out = [(c, ControlledShutdownResponse()) for c in waiting]
            waiting.clear()
            return out

        fake = await FakeBroker({ApiKey.CONTROLLED_SHUTDOWN: (0, 3)}, answer).start()
        client = _client({BROKER_ID: ("127.0.0.1", fake.port)}, max_in_flight=3)
        try:
            await asyncio.gather(
                *(client.send(BROKER_ID, ControlledShutdownRequest(broker_id=i)) for i in range(9))
            )
            assert most == 3
            ids = [
                ControlledShutdownRequest.decode(f, 3, decode_request_header(f)[1]).broker_id
                for f in fake.frames
            ]
            assert ids == list(range(9))  # written in send order
        finally:
            await client.close()
            await fake.stop()

    _run(scenario)


def test_controlled_shutdown_v0_uses_a_header_without_client_id():
    async def scenario() -> None:
        def answer(api_key, version, corr, frame):
            return [(corr, ControlledShutdownResponse())]

        fake = await FakeBroker({ApiKey.CONTROLLED_SHUTDOWN: (0, 0)}, answer).start()
        client = _client({BROKER_ID: ("127.0.0.1", fake.port)})
        try:
            await client.send(BROKER_ID, ControlledShutdownRequest(broker_id=7))
            await client.send(BROKER_ID, ControlledShutdownRequest(broker_id=7), version=0)
            for frame in fake.frames:
                assert len(frame) == 8 + 4  # api key, version, correlation id; broker id
                assert ControlledShutdownRequest.decode(frame, 0, 8).broker_id == 7
        finally:
            await client.close()
            await fake.stop()

    _run(scenario)


def test_api_versions_falls_back_when_the_broker_knows_an_older_api_versions():
    async def scenario() -> None:
        fake = await FakeBroker({ApiKey.METADATA: (0, 12)}, lambda *a: None, api_versions_max=2).start()
        client = _client({BROKER_ID: ("127.0.0.1", fake.port)})
        try:
            assert client.api_versions(BROKER_ID) == {}
            with pytest.raises(UnsupportedVersionError, match="not served"):
                await client.send(BROKER_ID, ApiVersionsRequest())  # the peer does not advertise it
            assert fake.api_versions_seen == [ApiVersionsRequest.VALID_VERSIONS[1], 2]
            assert client.api_versions(BROKER_ID) == {ApiKey.METADATA: (0, 12)}
        finally:
            await client.close()
            await fake.stop()

    _run(scenario)


def test_oversized_response_closes_the_connection():
    async def scenario() -> None:
        many = [
            ControlledShutdownResponse.RemainingPartition(topic_name="t" * 100, partition_index=i)
            for i in range(50)
        ]

        def answer(api_key, version, corr, frame):
            return [(corr, ControlledShutdownResponse(remaining_partitions=many))]

        fake = await FakeBroker({ApiKey.CONTROLLED_SHUTDOWN: (0, 3)}, answer).start()
        client = _client({BROKER_ID: ("127.0.0.1", fake.port)}, max_response_bytes=1000)
        try:
            with pytest.raises(BrokerDisconnectedError, match="size"):
                await client.send(BROKER_ID, ControlledShutdownRequest(broker_id=0))
            assert not client.is_ready(BROKER_ID)
        finally:
            await client.close()
            await fake.stop()

    _run(scenario)


def test_close_during_the_connection_handshake_fails_the_waiting_send():
    async def scenario() -> None:
        accepted = asyncio.Event()
        writers: list[asyncio.StreamWriter] = []

        async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            writers.append(writer)  # reads nothing, answers nothing: ApiVersions never returns
            accepted.set()

        server = await asyncio.start_server(silent, "127.0.0.1", 0)
        client = _client({BROKER_ID: ("127.0.0.1", server.sockets[0].getsockname()[1])})
        try:
            pending = asyncio.ensure_future(client.send(BROKER_ID, _metadata()))
            await accepted.wait()
            await client.close()
            with pytest.raises(ClientClosedError):
                await pending
        finally:
            for w in writers:
                w.close()
            server.close()

    _run(scenario)


def test_disconnect_abandons_a_connect_stuck_in_its_handshake_once_the_link_heals():
    """Kafka's ReplicaFetcherBlockingSend closes the node (NetworkClient.close) after any
    failed request, a connect that did not get ready in time included: once the link heals,
    the next attempt makes a new connection instead of waiting, up to the connection setup
    timeout (10 s), for the ApiVersions answer that was lost on the old one."""

    async def scenario() -> None:
        def answer(api_key, version, corr, frame):
            return [(corr, ControlledShutdownResponse())]

        fake = await FakeBroker({ApiKey.CONTROLLED_SHUTDOWN: (0, 3)}, answer).start()
        client = _client({BROKER_ID: ("127.0.0.1", fake.port)}, request_timeout_ms=200)
        try:
            fake.black_hole = True  # the link is cut: the connect's ApiVersions is lost
            with pytest.raises(RequestTimeoutError, match="not connected"):
                await client.send(BROKER_ID, ControlledShutdownRequest(broker_id=0))
            assert fake.lost == 1 and not client.is_ready(BROKER_ID)

            fake.black_hole = False  # healed; the failed request's owner closes the node
            client.disconnect(BROKER_ID)
            request = ControlledShutdownRequest(broker_id=0)
            assert isinstance(
                await client.send(BROKER_ID, request, timeout_ms=5_000), ControlledShutdownResponse
            )
            assert fake.connections == 2
            async with asyncio.timeout(5):  # the stuck connection was closed by the client
                while fake.closed_by_client < 1:
                    await asyncio.sleep(0.01)
        finally:
            await client.close()
            await fake.stop()

    _run(scenario)
