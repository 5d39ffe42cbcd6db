"""A fetch of many partitions is read in slices, the event loop let go between them
(ReplicaReads._fetch_in_slices): the same answer as one read, other work runs meanwhile, and a
record appended between two slices completes a parked fetch at once (Kafka's
tryCompleteElseWatch)."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from broker import replica_reads
from broker.fetch_params import FetchParams, FetchPartitionInfo
from broker.partition import Partition
from broker.replica_manager import ReplicaManager
from storage.log_config import resolve_topic_defaults
from storage.log_manager import LogManager
from storage.log_types import FetchIsolation
from storage.producer_state import AppendOrigin
from tests.storage.batch_factory import BASE_TS, make_batch

ME = 0
PARTITIONS = 3 * replica_reads.FETCH_PARTITIONS_PER_TURN + 7


@pytest.fixture
def rm(tmp_path):
    lm = LogManager([tmp_path / "logs"], resolve_topic_defaults({}))
    lm.startup()
    lm.create_topic("t", PARTITIONS, uuid.uuid4(), {})
    manager = ReplicaManager(ME, lm, lambda: BASE_TS)
    manager.lead_local_logs()
    yield manager
    lm.shutdown()


def append(rm: ReplicaManager, partition: int, n: int = 2) -> None:
    rm.append_records(
        [(("t", partition), memoryview(make_batch(n, timestamp=BASE_TS)))],
        required_acks=1,
        origin=AppendOrigin.CLIENT,
    )


def params(*, max_bytes: int = 1 << 20, wait_ms: int = 0, min_bytes: int = 1) -> FetchParams:
    return FetchParams(
        max_wait_ms=wait_ms, min_bytes=min_bytes, max_bytes=max_bytes, isolation=FetchIsolation.HIGH_WATERMARK
    )


def infos(offset: int = 0, max_bytes: int = 1 << 20) -> list:
    return [
        (("t", p), FetchPartitionInfo(fetch_offset=offset, max_bytes=max_bytes)) for p in range(PARTITIONS)
    ]


def answer(results) -> list:
    return [(r.error, r.high_watermark, bytes(r.records)) for r in results]


def test_a_sliced_fetch_answers_as_one_read(rm, monkeypatch):
    """The response's byte budget and KIP-74's first whole batch carry across the slices: the
    budget runs out in the second slice, exactly where a read of all at once stops."""
    for p in range(0, PARTITIONS, 3):
        append(rm, p)
    batch = len(make_batch(2, timestamp=BASE_TS))
    budget = batch * (replica_reads.FETCH_PARTITIONS_PER_TURN // 3 + 20)

    async def sliced():
        return await rm.fetch_messages(params(max_bytes=budget), infos())

    got = asyncio.run(sliced())
    per_turn = replica_reads.FETCH_PARTITIONS_PER_TURN
    monkeypatch.setattr(replica_reads, "FETCH_PARTITIONS_PER_TURN", PARTITIONS + 1)
    whole = rm.fetch_messages(params(max_bytes=budget), infos())
    assert isinstance(whole, list)
    assert answer(got) == answer(whole)
    with_data = [p for p, r in enumerate(got) if len(r.records)]
    assert per_turn < with_data[-1] < 2 * per_turn


def test_the_loop_runs_other_work_between_the_slices(rm, monkeypatch):
    """Another task gets turns while a fetch of many partitions is read, and the reads go
    slice by slice (Kafka reads such a fetch on a request handler thread)."""
    events: list[str] = []
    read = Partition.read_records

    def counting(self, *args, **kwargs):
        events.append("read")
        return read(self, *args, **kwargs)

    monkeypatch.setattr(Partition, "read_records", counting)

    async def scenario():
        done = asyncio.Event()

        async def other():
            while not done.is_set():
                events.append("other")
                await asyncio.sleep(0)

        ticker = asyncio.create_task(other())
        results = await rm.fetch_messages(params(), infos())
        done.set()
        await ticker
        return results

    results = asyncio.run(scenario())
    assert len(results) == PARTITIONS
    reads = [i for i, e in enumerate(events) if e == "read"]
    between = [e for e in events[reads[0] : reads[-1]] if e == "other"]
    assert len(between) >= 3, "the reads held the loop from first to last"


def test_a_record_appended_between_slices_completes_the_parked_fetch(rm, monkeypatch):
    """A parked fetch of many partitions: a partition read in the first slice gets a record
    while the later slices are read; trying the DelayedFetch as it is watched finds it at
    once (Kafka's tryCompleteElseWatch), rather than waiting out max_wait_ms."""
    read = Partition.read_records
    appended: list[int] = []

    def appending(self, *args, **kwargs):
        if self.partition == replica_reads.FETCH_PARTITIONS_PER_TURN and not appended:
            appended.append(1)
            append(rm, 0)  # partition 0 was read (empty) in the first slice
        return read(self, *args, **kwargs)

    monkeypatch.setattr(Partition, "read_records", appending)

    async def scenario():
        return await asyncio.wait_for(rm.fetch_messages(params(wait_ms=600_000), infos()), 30)

    results = asyncio.run(scenario())
    assert appended and len(results[0].records) > 0
