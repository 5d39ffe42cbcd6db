"""Nothing a client asks for may stall the event loop: topic creation does its file work off
the loop, creations of one name are exclusive, partition limits refuse oversized requests.

The first test creates a 2000-partition topic in a broker subprocess with confluent-kafka's
AdminClient while a second connection keeps asking Metadata for it: some answer must be
LEADER_NOT_AVAILABLE, so Metadata was answered while the creation was under way. The others
run the broker in the test's event loop with the controller's file work held back, to observe
a creation under way.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from broker.broker import Broker
from broker.config import BrokerConfig
from protocol.errors import ErrorCode
from protocol.messages import (
    CreateTopicsRequest,
    DeleteTopicsRequest,
    FetchRequest,
    MetadataRequest,
)
from tests.support.broker_process import BrokerProcess
from tests.support.wire_client import WireClient

pytestmark = pytest.mark.integration


def _metadata(names: list[str] | None, *, auto: bool = True) -> MetadataRequest:
    topics = None if names is None else [MetadataRequest.MetadataRequestTopic(name=n) for n in names]
    return MetadataRequest(topics=topics, allow_auto_topic_creation=auto)


def _create(name: str, partitions: int) -> CreateTopicsRequest:
    return CreateTopicsRequest(
        topics=[
            CreateTopicsRequest.CreatableTopic(name=name, num_partitions=partitions, replication_factor=1)
        ],
        timeout_ms=60_000,
    )


def test_metadata_is_answered_while_a_2000_partition_topic_is_created(tmp_path: Path) -> None:
    from confluent_kafka.admin import AdminClient, NewTopic

    with BrokerProcess(tmp_path / "data") as broker:
        admin = AdminClient({"bootstrap.servers": broker.bootstrap, "socket.timeout.ms": 180_000})
        with WireClient(broker.host, broker.port) as probe:
            probe.request(_metadata(None), 12)  # connected and warm
            done = threading.Event()
            latencies: list[float] = []
            codes: list[int] = []

            def measure() -> None:
                while not done.is_set():
                    started = time.monotonic()
                    answer = probe.request(_metadata(["big"], auto=False), 12)
                    latencies.append(time.monotonic() - started)
                    codes.append(answer.topics[0].error_code)

            thread = threading.Thread(target=measure)
            thread.start()
            try:
                futures = admin.create_topics([NewTopic("big", 2000, 1)], request_timeout=180)
                futures["big"].result(timeout=180)
            finally:
                done.set()
                thread.join(30)
            print(
                f"metadata round trips during creation: {len(latencies)}, max {max(latencies) * 1000:.1f} ms"
            )
            # Order, not time: the loop answered while the topic was being created (LEADER_NOT_AVAILABLE
            # is only seen between the CreateTopics being read and its files existing). A loop held
            # by the creation would answer every queued Metadata after it, with the finished topic.
            under_way = codes.count(ErrorCode.LEADER_NOT_AVAILABLE.code)
            assert under_way >= 1, codes
            assert set(codes) <= {
                ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code,
                ErrorCode.LEADER_NOT_AVAILABLE.code,
                0,
            }, codes
            answer = probe.request(_metadata(["big"], auto=False), 12)
            assert answer.topics[0].error_code == 0
            assert len(answer.topics[0].partitions) == 2000


# ---------------------------------------------------------------------- in-process broker


class HeldFileWork:
    """The controller's file work, held until ``release``: a creation stays under way."""

    def __init__(self) -> None:
        self.released = asyncio.Event()
        self.waiting = 0

    async def __call__(self, work: Callable[[], object]) -> object:
        self.waiting += 1
        await self.released.wait()
        return await asyncio.get_running_loop().run_in_executor(None, work)

    def release(self) -> None:
        self.released.set()


async def _until(predicate: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not reached")
        await asyncio.sleep(0.01)


def _run(tmp_path: Path, scenario: Callable[..., Awaitable[None]], overrides: dict | None = None) -> None:
    async def main() -> None:
        values = {"log.dirs": str(tmp_path), "listeners": "PLAINTEXT://127.0.0.1:0", **(overrides or {})}
        broker = Broker(BrokerConfig(values))
        await broker.start()
        held = HeldFileWork()
        broker.controller.run_file_work = held
        try:
            host, port = broker.server.bound[0][:2]
            await scenario(broker, held, lambda: WireClient(host, port, timeout=30))
        finally:
            held.release()
            await broker.stop()

    asyncio.run(main())


def test_auto_create_answers_leader_not_available_until_the_topic_is_published(tmp_path: Path) -> None:
    async def scenario(broker: Broker, held: HeldFileWork, client: Callable[[], WireClient]) -> None:
        with client() as c:
            first = await asyncio.to_thread(c.request, _metadata(["auto"]), 12)
            assert first.topics[0].error_code == ErrorCode.LEADER_NOT_AVAILABLE.code
            await _until(lambda: held.waiting == 1)
            again = await asyncio.to_thread(c.request, _metadata(["auto"]), 12)
            assert again.topics[0].error_code == ErrorCode.LEADER_NOT_AVAILABLE.code
            fetch = FetchRequest(
                max_wait_ms=0,
                topics=[
                    FetchRequest.FetchTopic(
                        topic="auto",
                        partitions=[FetchRequest.FetchPartition(partition=0, fetch_offset=0)],
                    )
                ],
            )
            fetched = await asyncio.to_thread(c.request, fetch, 12)
            assert fetched.responses[0].partitions[0].error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code
            held.release()
            await _until(lambda: broker.metadata_cache.get_topic("auto") is not None)
            done = await asyncio.to_thread(c.request, _metadata(["auto"]), 12)
            assert done.topics[0].error_code == 0
            assert len(done.topics[0].partitions) == 1

    _run(tmp_path, scenario)


def test_one_creation_per_name_and_deletion_during_creation(tmp_path: Path) -> None:
    async def scenario(broker: Broker, held: HeldFileWork, client: Callable[[], WireClient]) -> None:
        with client() as creator, client() as rival, client() as deleter:
            first = asyncio.create_task(asyncio.to_thread(creator.request, _create("t", 20), 7))
            await _until(lambda: held.waiting == 1)
            second = await asyncio.to_thread(rival.request, _create("t", 20), 7)
            assert second.topics[0].error_code == ErrorCode.TOPIC_ALREADY_EXISTS.code
            assert not first.done()  # parked until the files exist
            deletion = asyncio.create_task(
                asyncio.to_thread(
                    deleter.request, DeleteTopicsRequest(topic_names=["t"], timeout_ms=60_000), 5
                )
            )
            held.release()
            created = await first
            assert created.topics[0].error_code == 0
            assert created.topics[0].num_partitions == 20
            deleted = await deletion
            assert deleted.responses[0].error_code == 0
            assert broker.metadata_cache.get_topic("t") is None
            assert not broker.controller.is_busy("t")
            await _until(lambda: not any(p.name.startswith("t-") for p in tmp_path.iterdir()))
            # The name is free again.
            again = await asyncio.to_thread(creator.request, _create("t", 2), 7)
            assert again.topics[0].error_code == 0

    _run(tmp_path, scenario)


def test_partition_limits_refuse_with_policy_violation(tmp_path: Path) -> None:
    async def scenario(broker: Broker, held: HeldFileWork, client: Callable[[], WireClient]) -> None:
        held.release()
        with client() as c:
            too_many = await asyncio.to_thread(c.request, _create("a", 11), 7)
            assert too_many.topics[0].error_code == ErrorCode.POLICY_VIOLATION.code
            assert "max.partitions.per.request (10)" in too_many.topics[0].error_message
            ok = await asyncio.to_thread(c.request, _create("b", 10), 7)
            assert ok.topics[0].error_code == 0
            over_total = await asyncio.to_thread(c.request, _create("c", 6), 7)
            assert over_total.topics[0].error_code == ErrorCode.POLICY_VIOLATION.code
            assert "max.partitions (15)" in over_total.topics[0].error_message
            auto = await asyncio.to_thread(c.request, _metadata([f"auto-{i}" for i in range(8)]), 12)
            codes = [t.error_code for t in auto.topics]
            assert codes.count(ErrorCode.LEADER_NOT_AVAILABLE.code) == 5
            assert codes.count(ErrorCode.POLICY_VIOLATION.code) == 3
            await _until(lambda: not any(broker.controller.is_busy(f"auto-{i}") for i in range(8)))
            assert broker.controller.partition_total == 15

    _run(tmp_path, scenario, {"max.partitions.per.request": "10", "max.partitions": "15"})


def test_auto_creations_of_one_metadata_request_stop_at_the_per_request_limit(tmp_path: Path) -> None:
    async def scenario(broker: Broker, held: HeldFileWork, client: Callable[[], WireClient]) -> None:
        names = [f"many-{i}" for i in range(1200)]  # more than one slice of names
        with client() as c:
            first = await asyncio.to_thread(c.request, _metadata(names), 12)
            assert {t.error_code for t in first.topics} == {ErrorCode.LEADER_NOT_AVAILABLE.code}
            assert sum(broker.controller.is_busy(n) for n in names) == 1000
            held.release()
            await _until(lambda: not any(broker.controller.is_busy(n) for n in names))
            second = await asyncio.to_thread(c.request, _metadata(names), 12)
            codes = [t.error_code for t in second.topics]
            assert codes.count(0) == 1000 and codes.count(ErrorCode.LEADER_NOT_AVAILABLE.code) == 200
            await _until(lambda: broker.metadata_cache.get_topic("many-1199") is not None)

    _run(tmp_path, scenario, {"max.partitions.per.request": "1000"})
