"""ProducerIdManager against a fake block source: prefetch at 90%, exhaustion, backoff, fatal errors."""

from __future__ import annotations

import asyncio
import threading

import pytest

from coordinator.producer_id_blocks import (
    ProducerIdBlock,
    ProducerIdBlockError,
    ProducerIdsExhaustedError,
    next_block,
)
from coordinator.producer_ids import ProducerIdManager, ProducerIdsFatalError
from protocol.errors import ErrorCode, KafkaError


class FakeSource:
    """Blocks of ``size`` in order; can fail, hang (gate) or answer a given block."""

    description = "fake source"

    def __init__(self, size: int = 100) -> None:
        self.size = size
        self.block_size = size
        self.last: ProducerIdBlock | None = None
        self.fail: Exception | None = None
        self.fail_times = 0  # fail this many calls, then work
        self.override: ProducerIdBlock | None = None
        self.gate = threading.Event()
        self.gate.set()
        self.calls = 0
        self.sizes: list[int | None] = []
        self.threads: set[int] = set()
        self.listener = None
        self.opened = self.closed = False

    def open(self) -> None:
        self.opened = True

    def close(self) -> None:
        self.closed = True
        self.gate.set()  # like a closed ZooKeeper session failing a blocked request

    def set_available_listener(self, callback) -> None:
        self.listener = callback

    def lease_next_block(self, size: int | None = None) -> ProducerIdBlock:
        self.calls += 1
        self.sizes.append(size)
        self.threads.add(threading.get_ident())
        self.gate.wait(30)
        if self.fail_times > 0:
            self.fail_times -= 1
            raise ProducerIdBlockError("injected failure")
        if self.fail is not None:
            raise self.fail
        if self.override is not None:
            block, self.override = self.override, None
            return block
        self.last = next_block(self.last, broker_id=1, size=size or self.size)
        return self.last


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def wait_for(condition, timeout: float = 10.0) -> None:
    """Poll ``condition`` on the loop until true (the lease thread finishes on its own time)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.005)


def run(coro):
    return asyncio.run(coro)


def test_first_block_is_leased_at_start_and_ids_are_consecutive():
    async def scenario():
        src = FakeSource(size=100)
        m = ProducerIdManager(src)
        await m.start()
        assert src.opened and m.current_block == ProducerIdBlock(1, 0, 100)
        assert [m.generate_producer_id() for _ in range(50)] == list(range(50))
        await m.stop()
        assert src.closed

    run(scenario())


def test_prefetch_starts_exactly_at_90_percent_of_the_block():
    async def scenario():
        src = FakeSource(size=100)
        m = ProducerIdManager(src)
        await m.start()
        for expected in range(90):
            assert m.generate_producer_id() == expected
        assert m.lease_attempts == 1 and not m.lease_in_flight  # nothing before id 90
        assert m.generate_producer_id() == 90  # first + int(100 * 0.9)
        assert m.lease_in_flight
        await wait_for(lambda: m.next_block is not None)
        assert m.next_block == ProducerIdBlock(1, 100, 100)
        # the rest of the block, then the next block without any error
        assert [m.generate_producer_id() for _ in range(20)] == list(range(91, 111))
        assert m.current_block == ProducerIdBlock(1, 100, 100)
        await m.stop()

    run(scenario())


def test_prefetch_threshold_for_tiny_blocks():
    async def scenario():
        src = FakeSource(size=1)  # int(1 * 0.9) = 0: the only id triggers the prefetch
        m = ProducerIdManager(src)
        await m.start()
        assert m.generate_producer_id() == 0
        assert m.lease_in_flight
        await wait_for(lambda: not m.lease_in_flight)
        assert m.current_block == ProducerIdBlock(1, 1, 1)  # swapped in: the old one was used up
        assert m.generate_producer_id() == 1
        await m.stop()

    run(scenario())


def test_exhausted_block_answers_coordinator_load_in_progress_without_blocking():
    async def scenario():
        src = FakeSource(size=10)
        m = ProducerIdManager(src)
        await m.start()
        src.gate.clear()  # the next lease hangs (ZooKeeper slow)
        ids = [m.generate_producer_id() for _ in range(10)]
        assert ids == list(range(10)) and m.lease_in_flight
        with pytest.raises(KafkaError) as err:
            m.generate_producer_id()
        assert err.value.error is ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
        assert err.value.error.retriable
        # the loop is free meanwhile: other coroutines run
        ran = asyncio.Event()
        asyncio.get_running_loop().call_soon(ran.set)
        await asyncio.wait_for(ran.wait(), 5)
        for _ in range(5):
            with pytest.raises(KafkaError):
                m.generate_producer_id()
        await wait_for(lambda: src.calls == 2)
        assert m.lease_attempts == 2  # still the one lease in flight, not one per request
        src.gate.set()
        await wait_for(lambda: m.current_block is not None and m.current_block.first_id == 10)
        assert m.generate_producer_id() == 10
        await m.stop()

    run(scenario())


def test_leases_run_in_one_thread_off_the_event_loop():
    async def scenario():
        src = FakeSource(size=5)
        m = ProducerIdManager(src)
        await m.start()
        seen = []
        for _ in range(40):
            try:
                seen.append(m.generate_producer_id())
            except KafkaError:
                await wait_for(lambda: not m.lease_in_flight)
        assert threading.get_ident() not in src.threads
        assert len(src.threads) == 1
        assert seen == sorted(set(seen))
        await m.stop()

    run(scenario())


def test_failed_lease_backs_off_doubling_up_to_the_cap():
    async def scenario():
        clock = FakeClock()
        src = FakeSource(size=10)
        src.fail = ProducerIdBlockError("ZooKeeper away")
        # backoffs far longer than the test: only the fake clock lets retries through
        m = ProducerIdManager(src, retry_backoff_ms=10_000, max_retry_backoff_ms=35_000, clock=clock)
        await m.start()  # a failed first lease is not fatal: the broker starts
        assert m.current_block is None and m.lease_attempts == 1
        assert m.current_backoff_ms == 10_000
        for _ in range(3):
            with pytest.raises(KafkaError) as err:
                m.generate_producer_id()
            assert err.value.error is ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
        assert m.lease_attempts == 1  # within the backoff: no new attempt
        expected = [20_000, 35_000, 35_000]
        for backoff in expected:
            clock.now += 40
            with pytest.raises(KafkaError):
                m.generate_producer_id()
            await wait_for(lambda: not m.lease_in_flight)
            assert m.current_backoff_ms == backoff
        assert m.lease_attempts == 4
        src.fail = None
        clock.now += 40
        with pytest.raises(KafkaError):
            m.generate_producer_id()
        await wait_for(lambda: m.current_block is not None)
        assert m.current_backoff_ms == 0
        assert m.generate_producer_id() == 0
        await m.stop()

    run(scenario())


def test_source_available_retries_at_once_from_another_thread():
    async def scenario():
        clock = FakeClock()
        src = FakeSource(size=10)
        src.fail = ProducerIdBlockError("ZooKeeper away")
        m = ProducerIdManager(src, retry_backoff_ms=60_000, max_retry_backoff_ms=60_000, clock=clock)
        await m.start()
        assert m.current_block is None and src.listener is not None
        src.fail = None
        threading.Thread(target=src.listener).start()  # as kazoo's thread on reconnection
        await wait_for(lambda: m.current_block is not None)
        assert m.generate_producer_id() == 0
        await m.stop()

    run(scenario())


def test_retry_timer_leases_while_no_client_asks():
    async def scenario():
        src = FakeSource(size=10)
        src.fail_times = 3
        m = ProducerIdManager(src, retry_backoff_ms=5, max_retry_backoff_ms=20)
        await m.start()
        await wait_for(lambda: m.current_block is not None)
        assert src.calls == 4
        assert m.generate_producer_id() == 0
        await m.stop()

    run(scenario())


def test_failed_prefetch_keeps_serving_the_held_block_then_recovers():
    async def scenario():
        src = FakeSource(size=100)
        m = ProducerIdManager(src, retry_backoff_ms=5, max_retry_backoff_ms=10)
        await m.start()
        src.fail = ProducerIdBlockError("ZooKeeper away")
        ids = [m.generate_producer_id() for _ in range(95)]
        await wait_for(lambda: src.calls >= 3)  # prefetch failed, retried by the timer
        ids += [m.generate_producer_id() for _ in range(5)]
        assert ids == list(range(100))
        with pytest.raises(KafkaError) as err:
            m.generate_producer_id()
        assert err.value.error is ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
        src.fail = None
        await wait_for(lambda: m.current_block is not None and m.current_block.first_id == 100)
        assert m.generate_producer_id() == 100
        await m.stop()

    run(scenario())


def test_exhaustion_is_fatal_after_the_held_ids():
    async def scenario():
        src = FakeSource(size=10)
        m = ProducerIdManager(src, retry_backoff_ms=1)
        await m.start()
        src.fail = ProducerIdsExhaustedError("have exhausted all producer ids")
        ids = [m.generate_producer_id() for _ in range(10)]
        assert ids == list(range(10))  # the held block is still handed out
        await wait_for(lambda: not m.lease_in_flight)
        assert m.fatal_error and "exhausted" in m.fatal_error
        for _ in range(3):
            with pytest.raises(KafkaError) as err:
                m.generate_producer_id()
            assert err.value.error is ErrorCode.UNKNOWN_SERVER_ERROR
            assert not err.value.error.retriable
            assert "exhausted" in str(err.value)
        assert src.calls == 2  # never retried
        await m.stop()

    run(scenario())


def test_fatal_error_at_start_refuses_to_start():
    async def scenario():
        src = FakeSource(size=10)
        src.fail = ProducerIdsExhaustedError("have exhausted all producer ids")
        m = ProducerIdManager(src)
        with pytest.raises(ProducerIdsFatalError, match="exhausted"):
            await m.start()
        await m.stop()
        assert src.closed

    run(scenario())


def test_a_block_overlapping_the_held_one_is_discarded():
    async def scenario():
        src = FakeSource(size=10)
        m = ProducerIdManager(src, retry_backoff_ms=60_000, max_retry_backoff_ms=60_000, clock=FakeClock())
        await m.start()
        src.override = ProducerIdBlock(2, 5, 10)  # 5-14 overlaps 0-9
        ids = [m.generate_producer_id() for _ in range(10)]
        await wait_for(lambda: not m.lease_in_flight)
        assert m.next_block is None and m.current_backoff_ms == 60_000
        with pytest.raises(KafkaError) as err:
            m.generate_producer_id()
        assert err.value.error is ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
        assert ids == list(range(10))
        await m.stop()

    run(scenario())


def test_stop_returns_while_a_lease_is_blocked():
    async def scenario():
        src = FakeSource(size=10)
        m = ProducerIdManager(src)
        await m.start()
        src.gate.clear()
        for _ in range(10):
            m.generate_producer_id()
        assert m.lease_in_flight
        await asyncio.wait_for(m.stop(), 10)
        assert src.closed
        await m.stop()  # twice is fine

    run(scenario())


def test_many_ids_across_many_blocks_are_unique_and_increasing():
    async def scenario():
        src = FakeSource(size=7)
        m = ProducerIdManager(src, retry_backoff_ms=1)
        await m.start()
        ids: list[int] = []
        retries = 0
        while len(ids) < 2000:
            try:
                ids.append(m.generate_producer_id())
            except KafkaError as exc:
                assert exc.error is ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
                retries += 1
                await asyncio.sleep(0)
        assert ids == list(range(2000))
        await m.stop()

    run(scenario())


def test_prefetch_moves_earlier_after_a_dry_block_and_back_when_blocks_arrive_in_time():
    async def scenario():
        src = FakeSource(size=100)
        m = ProducerIdManager(src)
        await m.start()
        assert m.prefetch_percent == 90
        src.gate.clear()  # the prefetched lease is slow: the block runs dry
        for _ in range(100):
            m.generate_producer_id()
        for _ in range(3):  # one dry spell lowers the mark once, however many requests see it
            with pytest.raises(KafkaError):
                m.generate_producer_id()
        assert m.prefetch_percent == 60
        src.gate.set()
        await wait_for(lambda: m.current_block is not None and m.current_block.first_id == 100)
        for expected in range(100, 160):
            assert m.generate_producer_id() == expected
        assert not m.lease_in_flight and m.next_block is None
        assert m.generate_producer_id() == 160  # the mark: 100 + 60
        assert m.lease_in_flight
        await wait_for(lambda: m.next_block is not None)
        for expected in range(161, 201):
            assert m.generate_producer_id() == expected
        assert m.prefetch_percent == 70  # the next block was there in time
        for expected in range(201, 270):
            assert m.generate_producer_id() == expected
        assert not m.lease_in_flight
        assert m.generate_producer_id() == 270
        assert m.lease_in_flight
        await m.stop()

    run(scenario())


def test_repeated_dry_blocks_prefetch_at_once():
    async def scenario():
        src = FakeSource(size=10)
        m = ProducerIdManager(src)
        await m.start()
        for _ in range(3):
            src.gate.clear()
            while True:
                try:
                    m.generate_producer_id()
                except KafkaError:
                    break
            src.gate.set()
            await wait_for(lambda: not m.lease_in_flight and m.current_block is not None)
        assert m.prefetch_percent == 0
        first = m.current_block.first_id
        assert m.generate_producer_id() == first
        assert m.lease_in_flight  # the first id of a block starts the next lease
        await m.stop()

    run(scenario())


def test_prefetch_stays_early_while_the_next_block_arrives_just_in_time():
    async def scenario():
        src = FakeSource(size=100)
        m = ProducerIdManager(src)
        await m.start()
        src.gate.clear()
        for _ in range(100):
            m.generate_producer_id()
        with pytest.raises(KafkaError):
            m.generate_producer_id()
        src.gate.set()
        await wait_for(lambda: m.current_block is not None and m.current_block.first_id == 100)
        assert m.prefetch_percent == 60
        src.gate.clear()
        for expected in range(100, 196):  # the lease started at 160 arrives only at 196: 4% left
            assert m.generate_producer_id() == expected
        src.gate.set()
        await wait_for(lambda: m.next_block is not None)
        for expected in range(196, 201):
            assert m.generate_producer_id() == expected
        assert m.prefetch_percent == 60  # no room to spare: the mark stays early
        await m.stop()

    run(scenario())


def test_leases_grow_while_demand_outruns_them_and_shrink_back():
    """With the prefetch already at once, a block that still runs dry doubles the next lease;
    a lease that arrives with half a block to spare halves it again."""

    def ids_left(m: ProducerIdManager) -> bool:
        return m.current_block is not None and m._next_id <= m.current_block.last_id

    async def scenario():
        src = FakeSource(size=100)
        m = ProducerIdManager(src)
        await m.start()
        for _ in range(6):  # demand outruns every lease: each block runs dry
            src.gate.clear()
            with pytest.raises(KafkaError) as err:
                while True:
                    m.generate_producer_id()
            assert err.value.error == ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
            src.gate.set()
            await wait_for(lambda: ids_left(m))
        assert m.prefetch_percent == 0
        assert m.lease_multiplier >= 4
        grown = [size for size in src.sizes if size]
        assert grown and grown == sorted(grown) and all(size % 100 == 0 for size in grown)
        # Leases keep up again: one arrives while most of the current block is unused.
        big = m.lease_multiplier
        await wait_for(lambda: m.next_block is not None or not m.lease_in_flight)
        if m.next_block is None:  # the prefetch at once: the first id requests the next lease
            m.generate_producer_id()
            await wait_for(lambda: m.next_block is not None)
        while m.current_block.first_id != m.next_block.first_id if m.next_block else False:
            m.generate_producer_id()
        assert m.lease_multiplier == big // 2
        await m.stop()

    run(scenario())
