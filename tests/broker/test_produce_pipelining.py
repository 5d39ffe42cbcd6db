"""Pipelined produces on one connection (broker/server.py, "Pipelined produces").

The broker runs in the test's event loop. Its partitions ``t-0`` and ``t-1`` are given an
in-sync follower (broker 1) that does not exist, so an acks=-1 produce waits in the
DelayedProduce purgatory until the test reports that follower's fetch
(``ReplicaManager.fetch_messages`` with its replica id): the test decides which produce
completes when. Requests and answers are raw frames on a real socket.
"""

from __future__ import annotations

import asyncio
import gc
import struct
import warnings

from broker.broker import Broker
from broker.config import BrokerConfig
from broker.fetch_params import FetchParams, FetchPartitionInfo
from coordinator.cluster_state import PartitionState
from protocol.errors import ErrorCode
from protocol.headers import RequestHeader, encode_request_header
from protocol.messages import (
    FetchRequest,
    FetchResponse,
    MetadataRequest,
    MetadataResponse,
    ProduceRequest,
    ProduceResponse,
)
from storage.log_types import FetchIsolation
from tests.storage.batch_factory import make_batch

FOLLOWER = 1
PRODUCE_VERSION = 9  # flexible: response header v1
METADATA_VERSION = 9
FETCH_VERSION = 12


def _frame(request, version: int, correlation_id: int) -> bytes:
    w = bytearray()
    header_version = 2 if request.is_flexible(version) else 1
    encode_request_header(
        w, RequestHeader(request.API_KEY, version, correlation_id, "pipeline-test", header_version)
    )
    request.write(w, version)
    return struct.pack(">i", len(w)) + bytes(w)


def _produce(
    correlation_id: int,
    partition: int,
    *,
    acks: int = -1,
    topic: str = "t",
    transactional_id: str | None = None,
    value_size: int = 10,
) -> bytes:
    request = ProduceRequest(
        transactional_id=transactional_id,
        acks=acks,
        timeout_ms=60_000,
        topic_data=[
            ProduceRequest.TopicProduceData(
                name=topic,
                partition_data=[
                    ProduceRequest.PartitionProduceData(
                        index=partition, records=make_batch(1, value_size=value_size)
                    )
                ],
            )
        ],
    )
    return _frame(request, PRODUCE_VERSION, correlation_id)


async def _read_answer(reader: asyncio.StreamReader, response_cls, version: int) -> tuple[int, object]:
    (size,) = struct.unpack(">i", await asyncio.wait_for(reader.readexactly(4), 30))
    frame = await asyncio.wait_for(reader.readexactly(size), 30)
    (correlation_id,) = struct.unpack_from(">i", frame)
    pos = 5 if response_cls.is_flexible(version) else 4
    return correlation_id, response_cls.decode(frame, version, pos)


async def _read_produce(reader: asyncio.StreamReader) -> tuple[int, int, int]:
    """(correlation id, error code, base offset) of a one-partition produce answer."""
    correlation_id, response = await _read_answer(reader, ProduceResponse, PRODUCE_VERSION)
    [partition] = response.responses[0].partition_responses
    return correlation_id, partition.error_code, partition.base_offset


async def _until(predicate, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("condition not reached")
        await asyncio.sleep(0.005)


class Harness:
    def __init__(self, broker: Broker, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.broker = broker
        self.rm = broker.replica_manager
        self.reader = reader
        self.writer = writer

    @property
    def connection(self):
        [conn] = self.broker.server.connections
        return conn

    def log_end(self, partition: int) -> int:
        return self.rm.get_partition_or_error("t", partition).log.log_end_offset

    def follower_fetched(self, partition: int) -> None:
        """The follower reports it has everything of ``partition``: its waiting produces complete."""
        params = FetchParams(
            max_wait_ms=0,
            min_bytes=1,
            max_bytes=1 << 20,
            isolation=FetchIsolation.LOG_END,
            replica_id=FOLLOWER,
        )
        offset = self.log_end(partition)
        info = FetchPartitionInfo(fetch_offset=offset, max_bytes=1 << 20, current_leader_epoch=1)
        self.rm.fetch_messages(params, [(("t", partition), info)])

    async def send(self, *frames: bytes) -> None:
        self.writer.write(b"".join(frames))
        await self.writer.drain()


def _run(tmp_path, scenario) -> None:
    async def main():
        cfg = BrokerConfig({"log.dirs": str(tmp_path), "listeners": "PLAINTEXT://127.0.0.1:0"})
        broker = Broker(cfg)
        await broker.start()
        try:
            me = broker.broker_id
            broker.controller.create_topic("t", 2, {})
            broker.replica_manager.on_topics_changed(
                {}, [PartitionState("t", p, me, 1, (me, FOLLOWER), (me, FOLLOWER)) for p in (0, 1)]
            )
            reader, writer = await asyncio.open_connection(*broker.server.bound[0])
            try:
                await scenario(Harness(broker, reader, writer))
            finally:
                writer.close()
        finally:
            await broker.stop()

    asyncio.run(main())


def test_answers_keep_request_order_when_a_later_produce_completes_first(tmp_path):
    async def scenario(h: Harness):
        await h.send(_produce(1, 0), _produce(2, 1))
        # The second is appended while the first still waits for the follower.
        await _until(lambda: h.log_end(0) == 1 and h.log_end(1) == 1)
        assert len(h.rm.produce_purgatory) == 2
        h.follower_fetched(1)
        await _until(lambda: len(h.rm.produce_purgatory) == 1)
        await _until(lambda: h.connection._answers[1].task.done())
        assert len(h.connection._answers) == 2  # the second's answer waits for the first
        h.follower_fetched(0)
        assert await _read_produce(h.reader) == (1, 0, 0)
        assert await _read_produce(h.reader) == (2, 0, 0)

    _run(tmp_path, scenario)


def test_a_produce_is_answered_inside_the_follower_fetch_that_completes_it(tmp_path):
    """Kafka's DelayedProduce.onComplete: the follower's fetch that moves the high watermark
    writes the waiting produce's answer itself (broker/inline_answer.py), not a Task one or
    two turns of the event loop later."""

    async def scenario(h: Harness):
        await h.send(_produce(1, 0))
        await _until(lambda: len(h.rm.produce_purgatory) == 1)
        conn = h.connection
        h.follower_fetched(0)
        # No await in between: the answer has left the queue for the socket.
        assert len(h.rm.produce_purgatory) == 0 and not conn._answers
        assert await _read_produce(h.reader) == (1, 0, 0)

    _run(tmp_path, scenario)


class _CountingTransport:
    """A connection's transport, its writes counted (and named in ``log``)."""

    def __init__(self, transport, log: list[str] | None = None, name: str = "") -> None:
        self._transport = transport
        self.writes = 0
        self._log = log if log is not None else []
        self._name = name

    def write(self, data) -> None:
        self.writes += 1
        self._log.append(self._name)
        self._transport.write(data)

    def __getattr__(self, name: str):
        return getattr(self._transport, name)


def test_the_answers_one_high_watermark_move_releases_go_out_in_one_write(tmp_path):
    async def scenario(h: Harness):
        await h.send(_produce(1, 0), _produce(2, 0))
        await _until(lambda: len(h.rm.produce_purgatory) == 2)
        conn = h.connection
        counting = conn.transport = _CountingTransport(conn.transport)
        h.follower_fetched(0)  # both complete, inline; written together after
        assert not conn._answers and counting.writes == 0
        assert await _read_produce(h.reader) == (1, 0, 0)
        assert await _read_produce(h.reader) == (2, 0, 1)
        assert counting.writes == 1

    _run(tmp_path, scenario)


def _follower_fetch(offset: int, correlation_id: int) -> bytes:
    """FOLLOWER's Fetch of t-0 from ``offset``, waiting up to a minute."""
    fetch = FetchRequest(
        replica_id=FOLLOWER,
        max_wait_ms=60_000,
        min_bytes=1,
        max_bytes=1 << 20,
        topics=[
            FetchRequest.FetchTopic(
                topic="t",
                partitions=[
                    FetchRequest.FetchPartition(
                        partition=0, current_leader_epoch=1, fetch_offset=offset, partition_max_bytes=1 << 20
                    )
                ],
            )
        ],
    )
    return _frame(fetch, FETCH_VERSION, correlation_id)


def test_the_acknowledgement_a_follower_fetch_releases_goes_out_before_its_answer(tmp_path):
    """The follower's fetch from offset 1 moves the high watermark past the first produce and
    reads the second's batch (large enough to stay in the segment file, sent as the handler
    returns): the producer's answer is written first (it is what the producer waits for),
    then the follower's."""

    async def scenario(h: Harness):
        await h.send(_produce(1, 0), _produce(2, 0, value_size=32 * 1024))
        await _until(lambda: len(h.rm.produce_purgatory) == 2)
        producer = h.connection
        reader, writer = await asyncio.open_connection(*h.broker.server.bound[0])
        try:
            await _until(lambda: len(h.broker.server.connections) == 2)
            [follower] = [c for c in h.broker.server.connections if c is not producer]
            writes: list[str] = []
            producer.transport = _CountingTransport(producer.transport, writes, "producer")
            follower.transport = _CountingTransport(follower.transport, writes, "follower")
            writer.write(_follower_fetch(1, 7))
            await writer.drain()
            assert await _read_produce(h.reader) == (1, 0, 0)
            correlation_id, response = await _read_answer(reader, FetchResponse, FETCH_VERSION)
            assert correlation_id == 7 and len(response.responses[0].partitions[0].records) > 0
            assert writes == ["producer", "follower"]
        finally:
            writer.close()

    _run(tmp_path, scenario)


def test_a_parked_follower_fetch_is_answered_in_the_pass_that_appended(tmp_path):
    """Kafka's tryCompleteActions after a request: the follower's fetch parked at the log end
    is checked, read and written at the end of the producer's pass over its frames, not on a
    later turn of the event loop."""

    async def scenario(h: Harness):
        producer = h.connection
        reader, writer = await asyncio.open_connection(*h.broker.server.bound[0])
        try:
            writer.write(_follower_fetch(0, 7))
            await writer.drain()
            await _until(lambda: len(h.rm.fetch_purgatory) == 1)
            [follower] = [c for c in h.broker.server.connections if c is not producer]
            frame = bytearray(_produce(1, 0, acks=1)[4:])
            producer._hold(len(frame))  # as if read from its socket
            producer._pending.append(frame)
            producer._drain()
            assert not follower._answers and len(h.rm.fetch_purgatory) == 0
            correlation_id, response = await _read_answer(reader, FetchResponse, FETCH_VERSION)
            [partition] = response.responses[0].partitions
            assert correlation_id == 7 and partition.error_code == 0 and len(partition.records) > 0
            assert await _read_produce(h.reader) == (1, 0, 0)
        finally:
            writer.close()

    _run(tmp_path, scenario)


def test_the_sixth_outstanding_produce_waits_for_the_first_answer(tmp_path):
    async def scenario(h: Harness):
        await h.send(*(_produce(i, 0) for i in range(1, 7)))
        await _until(lambda: h.log_end(0) == 5 and len(h.connection._pending) == 1)
        assert len(h.connection._answers) == 5 and len(h.rm.produce_purgatory) == 5
        h.follower_fetched(0)  # the five complete; the sixth starts after their answers
        for i in range(1, 6):
            assert await _read_produce(h.reader) == (i, 0, i - 1)
        await _until(lambda: h.log_end(0) == 6)
        h.follower_fetched(0)
        assert await _read_produce(h.reader) == (6, 0, 5)

    _run(tmp_path, scenario)


def test_a_request_other_than_produce_waits_for_the_produces_before_it(tmp_path):
    async def scenario(h: Harness):
        metadata = _frame(MetadataRequest(topics=[]), METADATA_VERSION, 2)
        await h.send(_produce(1, 0), metadata, _produce(3, 1))
        await _until(lambda: h.log_end(0) == 1 and len(h.connection._pending) == 2)
        # Neither the Metadata request nor the produce behind it has started.
        assert len(h.connection._answers) == 1 and h.log_end(1) == 0
        h.follower_fetched(0)
        assert await _read_produce(h.reader) == (1, 0, 0)
        correlation_id, response = await _read_answer(h.reader, MetadataResponse, METADATA_VERSION)
        assert correlation_id == 2 and response.brokers
        await _until(lambda: h.log_end(1) == 1)
        h.follower_fetched(1)
        assert await _read_produce(h.reader) == (3, 0, 0)

    _run(tmp_path, scenario)


def test_an_error_answer_in_the_middle_keeps_the_order(tmp_path):
    async def scenario(h: Harness):
        await h.send(_produce(1, 0), _produce(2, 0, topic="no-such-topic"), _produce(3, 1))
        await _until(lambda: h.log_end(0) == 1 and h.log_end(1) == 1)
        h.follower_fetched(1)  # the last completes first
        await _until(lambda: len(h.rm.produce_purgatory) == 1)
        h.follower_fetched(0)
        assert await _read_produce(h.reader) == (1, 0, 0)
        assert await _read_produce(h.reader) == (2, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code, -1)
        assert await _read_produce(h.reader) == (3, 0, 0)

    _run(tmp_path, scenario)


def test_acks_0_produces_between_waiting_ones_are_appended_in_order_without_an_answer(tmp_path):
    async def scenario(h: Harness):
        await h.send(_produce(1, 0), _produce(2, 0, acks=0), _produce(3, 0))
        await _until(lambda: h.log_end(0) == 3)
        h.follower_fetched(0)
        assert await _read_produce(h.reader) == (1, 0, 0)
        assert await _read_produce(h.reader) == (3, 0, 2)  # no answer for the acks=0 one

    _run(tmp_path, scenario)


def test_a_failed_acks_0_produce_closes_the_connection_after_the_answers_before_it(tmp_path):
    async def scenario(h: Harness):
        await h.send(_produce(1, 0), _produce(2, 0, acks=0, topic="no-such-topic"), _produce(3, 1))
        await _until(lambda: h.log_end(0) == 1 and len(h.connection._answers) == 2)
        assert h.log_end(1) == 0  # nothing behind the failing one is started
        h.follower_fetched(0)
        assert await _read_produce(h.reader) == (1, 0, 0)
        assert await asyncio.wait_for(h.reader.read(), 30) == b""  # then closed
        assert h.log_end(1) == 0

    _run(tmp_path, scenario)


def test_closing_mid_pipeline_releases_request_memory_and_tasks(tmp_path):
    async def scenario(h: Harness):
        pool = h.broker.server.memory
        await h.send(*(_produce(i, i % 2) for i in range(1, 5)))
        await _until(lambda: h.log_end(0) == 2 and h.log_end(1) == 2)
        assert pool.used > 0 and len(h.rm.produce_purgatory) == 4
        h.writer.close()
        await _until(lambda: not h.broker.server.connections)
        assert pool.used == 0 and pool.large_used == 0
        await _until(lambda: len(h.rm.produce_purgatory) == 0)
        await _until(
            lambda: (
                not [
                    t for t in asyncio.all_tasks() if t.get_coro().__qualname__.startswith("KafkaConnection.")
                ]
            )
        )

    _run(tmp_path, scenario)


class _HoldFirstProduce:
    """A test interceptor (``KafkaServer.interceptor``) that holds the first Produce before its
    handler runs until ``release`` is set, as ``broker.testing``'s ``Delay`` does."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.held = False

    def intercept(self, connection, api_key, api_version, header, request, handle):
        if api_key != 0 or self.held:
            return handle(request)
        self.held = True

        async def later():
            await self.release.wait()
            answer = handle(request)
            return await answer if not isinstance(answer, ProduceResponse) else answer

        return later()


def test_a_produce_held_before_its_handler_starts_nothing_behind_it(tmp_path):
    async def scenario(h: Harness):
        hold = _HoldFirstProduce()
        h.broker.server.interceptor = hold
        await h.send(_produce(1, 0), _produce(2, 1))
        await _until(lambda: hold.held and len(h.connection._pending) == 1)
        assert h.log_end(0) == 0 and h.log_end(1) == 0
        hold.release.set()
        await _until(lambda: h.log_end(0) == 1)
        assert h.log_end(1) == 0  # behind a held request the connection is not pipelined
        h.follower_fetched(0)
        assert await _read_produce(h.reader) == (1, 0, 0)
        await _until(lambda: h.log_end(1) == 1)
        h.follower_fetched(1)
        assert await _read_produce(h.reader) == (2, 0, 0)

    _run(tmp_path, scenario)


class _HoldTransactionalAnswer:
    """Lets a transactional Produce's handler run at once but holds its answer until
    ``release`` is set: as when its append waits for KIP-890 verification."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.held = False

    def intercept(self, connection, api_key, api_version, header, request, handle):
        answer = handle(request)
        if api_key != 0 or request.transactional_id is None:
            return answer
        self.held = True

        async def later():
            await self.release.wait()
            return await answer if not isinstance(answer, ProduceResponse) else answer

        return later()


def test_nothing_is_started_behind_a_transactional_produce_until_it_is_answered(tmp_path):
    async def scenario(h: Harness):
        hold = _HoldTransactionalAnswer()
        h.broker.server.interceptor = hold
        await h.send(_produce(1, 0, transactional_id="tx"), _produce(2, 1))
        await _until(lambda: hold.held and len(h.connection._pending) == 1)
        assert h.log_end(1) == 0
        hold.release.set()
        h.follower_fetched(0)
        correlation_id, _, _ = await _read_produce(h.reader)
        assert correlation_id == 1
        await _until(lambda: h.log_end(1) == 1)
        h.follower_fetched(1)
        assert await _read_produce(h.reader) == (2, 0, 0)

    _run(tmp_path, scenario)


class _CutAtSecondProduce:
    """Runs every handler; at the second Produce closes the connection, as the cluster
    harness's link cut does: the first produce's answer task has not run a step yet."""

    def __init__(self) -> None:
        self.produces = 0

    def intercept(self, connection, api_key, api_version, header, request, handle):
        answer = handle(request)
        if api_key == 0:
            self.produces += 1
            if self.produces == 2:
                connection.close("link cut by the test")
        return answer


def test_a_cut_behind_a_parked_produce_leaves_no_coroutine_unawaited(tmp_path):
    """Both produces are appended and parked; the cut comes before the first's answer task ran
    a step and as the second's answer is handed over: both are run to their wait and
    cancelled, so they leave the purgatory at once and no coroutine is left for Python to
    report as never awaited."""

    async def scenario(h: Harness):
        cut = _CutAtSecondProduce()
        h.broker.server.interceptor = cut
        await h.send(_produce(1, 0), _produce(2, 1))
        assert await h.reader.read() == b""
        await _until(lambda: not h.broker.server.connections)
        assert cut.produces == 2 and h.log_end(0) == 1 and h.log_end(1) == 1
        # Their waits end with the connection, not at their 60 s timeout.
        await _until(lambda: len(h.rm.produce_purgatory) == 0)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _run(tmp_path, scenario)
        gc.collect()
    assert [str(w.message) for w in caught if "never awaited" in str(w.message)] == []
