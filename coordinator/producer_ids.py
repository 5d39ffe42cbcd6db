"""ProducerIdManager: producer ids for InitProducerId, from leased blocks, never blocking the loop.

Kafka's broker-side ``RPCProducerIdManager`` (KIP-730), with the block leased
from a ``ProducerIdBlockSource`` (ZooKeeper or a local file, see
``coordinator.producer_id_blocks``) instead of the AllocateProducerIds RPC:

- ``generate_producer_id()`` is synchronous and O(1): it hands out the next id
  of the current block.
- When the id at 90% of the block is handed out (``PidPrefetchThreshold`` =
  0.90, id ``first + size * 90 // 100``), the next block is leased in the
  background, in a dedicated executor thread (kazoo and fsync never run on the
  event loop). In steady state InitProducerId never waits on ZooKeeper.
- If the block runs out before the next one has arrived, the call raises
  ``KafkaError(COORDINATOR_LOAD_IN_PROGRESS)``: retriable, and what Kafka
  answers here "since older clients treat [REQUEST_TIMED_OUT] as fatal".
- A failed lease is retried after a backoff of 50 ms (Kafka's
  ``RetryBackoffMs``), doubling per consecutive failure up to 1 s, both on
  demand and by a timer while a block is needed, and at once when the source
  reports that it works again (ZooKeeper reconnected).
- A fatal source error (ids exhausted near 2^63, unreadable lease state) is
  logged at ERROR once; the ids already held are still handed out, then every
  call raises ``KafkaError(UNKNOWN_SERVER_ERROR)`` with the reason (Kafka's
  TransactionCoordinator maps its KafkaException to that code).

Differences from Kafka:
- the prefetch is retried on every id past the mark while no next block is
  held (Kafka tries exactly at the mark, then only once the block is used up);
- the mark adapts: when a block runs dry before the next one has arrived
  (demand outran the lease, e.g. thousands of InitProducerId per second), the
  following blocks are prefetched 30 points earlier (90% -> 60% -> 30% -> at
  once); a block whose successor arrived with more than 15% of it unused moves
  it 10 points back towards 90%. At most one block is ever held in advance, as
  in Kafka;
- when a block still runs dry with the prefetch already at once, the leases
  grow: each next lease asks for twice as many ids (up to 64 blocks' worth),
  and shrinks again by half when a lease arrives with half a block to spare.
  One lease costs a ZooKeeper write (which ZooKeeper fsyncs) or an fsync of the
  lease file, so at tens of thousands of InitProducerId per second a fixed
  1000-id block would last no longer than its lease. Kafka's znode format allows
  any range (the next block starts after ``block_end``), so other brokers,
  Kafka's included, read it as usual;
- the start-up leases the first block before the broker serves it (Kafka's
  RPC manager answers the first InitProducerId with COORDINATOR_LOAD_IN_PROGRESS;
  its older ZkProducerIdManager also took a block at start-up).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from coordinator.producer_id_blocks import (
    PRODUCER_ID_BLOCK_FILE,
    EmbeddedBlockSource,
    ProducerIdBlock,
    ProducerIdBlockFatalError,
    ProducerIdBlockSource,
    ZooKeeperBlockSource,
)
from coordinator.zookeeper import ZooKeeperClient
from protocol.errors import ErrorCode, KafkaError

log = logging.getLogger(__name__)

PID_PREFETCH_PERCENT = 90  # RPCProducerIdManager.PidPrefetchThreshold = 0.90
MIN_PREFETCH_PERCENT = 0  # after running dry repeatedly: prefetch as soon as a block is installed
PREFETCH_STEP_DOWN = 30  # percent earlier after a block ran dry before the next arrived
PREFETCH_STEP_UP = 10  # percent later again for a block whose successor arrived with room to spare
PREFETCH_MARGIN = 5  # percent of a block still unused, at least, when the successor arrives
MAX_LEASE_MULTIPLIER = 64  # a lease asks for at most 64 blocks' worth of ids
SHRINK_SLACK_PERCENT = 50  # a lease that arrives with half a block unused halves the next one
RETRY_BACKOFF_MS = 50  # RPCProducerIdManager.RetryBackoffMs
MAX_RETRY_BACKOFF_MS = 1000


class ProducerIdsFatalError(RuntimeError):
    """The manager cannot start: its source failed in a way retrying cannot fix."""


class ProducerIdManager:
    """Hands out producer ids on the event loop; leases blocks from ``source`` off it."""

    def __init__(
        self,
        source: ProducerIdBlockSource,
        *,
        retry_backoff_ms: int = RETRY_BACKOFF_MS,
        max_retry_backoff_ms: int = MAX_RETRY_BACKOFF_MS,
        clock: Callable[[], float] | None = None,
        zookeeper: ZooKeeperClient | None = None,
    ) -> None:
        self.source = source
        # The broker's ZooKeeper session, for the cluster work to share (None when embedded).
        self.zookeeper = zookeeper
        self.retry_backoff_ms = retry_backoff_ms
        self.max_retry_backoff_ms = max_retry_backoff_ms
        self._clock = clock
        self._loop: asyncio.AbstractEventLoop | None = None
        self._executor: ThreadPoolExecutor | None = None
        self._current: ProducerIdBlock | None = None
        self._next_id = 0
        self._prefetch_id = 0
        self.prefetch_percent = PID_PREFETCH_PERCENT
        self._ran_dry = False
        self._slack_percent = 0  # share of the current block unused when the next one arrived
        self.lease_multiplier = 1  # the next lease asks for this many blocks' worth of ids
        self._next_block: ProducerIdBlock | None = None
        self._lease_task: asyncio.Task | None = None
        self._retry_timer: asyncio.TimerHandle | None = None
        self._backoff_until = 0.0
        self._failures = 0  # consecutive failed leases
        self.fatal_error: str | None = None
        self.blocks_leased = 0
        self.lease_attempts = 0
        self._stopped = False

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        """Open the source (connect to ZooKeeper) and lease the first block before returning.

        Raises what ``source.open`` raises (ZooKeeperConnectionError: no
        ZooKeeper within the connection timeout) and ProducerIdsFatalError; a
        first lease that fails for now is only logged and retried.
        """
        self._loop = asyncio.get_running_loop()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="producer-id-lease")
        await self._loop.run_in_executor(self._executor, self.source.open)
        loop = self._loop
        self.source.set_available_listener(lambda: loop.call_soon_threadsafe(self.source_available))
        self._request_block()
        if self._lease_task is not None:
            await asyncio.shield(self._lease_task)
        if self.fatal_error is not None and self._current is None:
            raise ProducerIdsFatalError(self.fatal_error)

    async def stop(self) -> None:
        """Stop leasing and close the source (ends the ZooKeeper session). Safe to call twice."""
        if self._stopped:
            return
        self._stopped = True
        if self._retry_timer is not None:
            self._retry_timer.cancel()
            self._retry_timer = None
        task, self._lease_task = self._lease_task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        # Not in our executor: a lease blocked there on ZooKeeper ends when the session closes.
        await asyncio.to_thread(self.source.close)
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)

    # ------------------------------------------------------------------ the hot path

    def generate_producer_id(self) -> int:
        """The next unused producer id. Never blocks.

        Raises KafkaError(COORDINATOR_LOAD_IN_PROGRESS) while no block is
        available, KafkaError(UNKNOWN_SERVER_ERROR) once ids are fatally exhausted.
        """
        for _ in range(2):
            current = self._current
            if current is not None and self._next_id <= current.last_id:
                pid = self._next_id
                self._next_id = pid + 1
                if pid >= self._prefetch_id and self._next_block is None:
                    self._request_block()
                return pid
            if self._next_block is None:
                break
            # The next block was there in time. If it would have been with a later mark too
            # (with some margin), drift back towards Kafka's 90%.
            if self._slack_percent >= PREFETCH_STEP_UP + PREFETCH_MARGIN:
                self.prefetch_percent = min(PID_PREFETCH_PERCENT, self.prefetch_percent + PREFETCH_STEP_UP)
            if self._slack_percent >= SHRINK_SLACK_PERCENT and self.lease_multiplier > 1:
                self.lease_multiplier //= 2
            self._install(self._next_block)
            self._next_block = None
        if self.fatal_error is not None:
            raise KafkaError(ErrorCode.UNKNOWN_SERVER_ERROR, self.fatal_error)
        if self._current is not None and not self._ran_dry:
            # Demand outran the lease: start the next ones earlier (once per dry spell).
            self._ran_dry = True
            if self.prefetch_percent == MIN_PREFETCH_PERCENT:
                # Prefetching at once is not enough: lease more ids at a time.
                self.lease_multiplier = min(MAX_LEASE_MULTIPLIER, self.lease_multiplier * 2)
            self.prefetch_percent = max(MIN_PREFETCH_PERCENT, self.prefetch_percent - PREFETCH_STEP_DOWN)
            log.debug("producer-id block ran dry; prefetching at %d%% from now on", self.prefetch_percent)
        self._request_block()
        raise KafkaError(
            ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
            "the next producer-id block has not been leased yet; retry",
        )

    # ------------------------------------------------------------------ views (tests, metrics)

    @property
    def current_block(self) -> ProducerIdBlock | None:
        return self._current

    @property
    def next_block(self) -> ProducerIdBlock | None:
        return self._next_block

    @property
    def lease_in_flight(self) -> bool:
        return self._lease_task is not None

    @property
    def current_backoff_ms(self) -> int:
        """The backoff after the latest failure (0 after a success)."""
        if self._failures == 0:
            return 0
        return min(self.retry_backoff_ms * 2 ** (self._failures - 1), self.max_retry_backoff_ms)

    def source_available(self) -> None:
        """The source works again (ZooKeeper reconnected): forget the backoff, lease now if needed."""
        if self._stopped:
            return
        self._backoff_until = 0.0
        if self._needs_block():
            if self._failures:
                log.info("retrying the producer-id block lease from %s now", self.source.description)
            self._request_block()

    # ------------------------------------------------------------------ internals (event loop only)

    def _now(self) -> float:
        if self._clock is not None:
            return self._clock()
        assert self._loop is not None
        return self._loop.time()

    def _install(self, block: ProducerIdBlock) -> None:
        self._current = block
        self._next_id = block.first_id
        self._prefetch_id = block.first_id + block.size * self.prefetch_percent // 100
        self._ran_dry = False

    def _needs_block(self) -> bool:
        if self.fatal_error is not None or self._next_block is not None:
            return False
        return self._current is None or self._next_id > self._prefetch_id

    def _request_block(self) -> None:
        """Kafka's ``maybeRequestNextBlock``: one lease at a time, none while one is buffered or backing off."""
        if (
            self._stopped
            or self._loop is None
            or self.fatal_error is not None
            or self._lease_task is not None
            or self._next_block is not None
            or self._now() < self._backoff_until
        ):
            return
        if self._retry_timer is not None:
            self._retry_timer.cancel()
            self._retry_timer = None
        self._lease_task = self._loop.create_task(self._lease(), name="producer-id-lease")

    async def _lease(self) -> None:
        assert self._loop is not None
        self.lease_attempts += 1
        try:
            size = self.source.block_size * self.lease_multiplier if self.lease_multiplier > 1 else None
            block = await self._loop.run_in_executor(self._executor, self.source.lease_next_block, size)
        except asyncio.CancelledError:
            raise
        except ProducerIdBlockFatalError as exc:
            self._lease_task = None
            self.fatal_error = f"producer ids unavailable: {exc}"
            log.error(
                "FATAL: %s. InitProducerId fails once the %s held ids are used up",
                self.fatal_error,
                self._ids_left(),
            )
            return
        except Exception as exc:
            self._lease_task = None
            self._lease_failed(str(exc) or type(exc).__name__)
            return
        self._lease_task = None
        if self._stopped:
            return
        # RPCProducerIdManager.handleAllocateProducerIdsResponse: a block must lie after the one held.
        latest = self._next_block or self._current
        if latest is not None and block.first_id <= latest.last_id:
            self._lease_failed(f"leased block {block} overlaps the held block {latest}; discarded")
            return
        if self._failures:
            log.info(
                "producer-id blocks lease again from %s after %d failed attempts",
                self.source.description,
                self._failures,
            )
        self._failures = 0
        self._backoff_until = 0.0
        self.blocks_leased += 1
        if self._current is None or self._next_id > self._current.last_id:
            self._install(block)
        else:
            self._slack_percent = self._ids_left() * 100 // self._current.size
            self._next_block = block

    def _lease_failed(self, reason: str) -> None:
        self._failures += 1
        backoff_ms = self.current_backoff_ms
        self._backoff_until = self._now() + backoff_ms / 1000
        if self._failures == 1:
            log.warning(
                "could not lease a producer-id block from %s: %s; %d ids left in the held block, retrying",
                self.source.description,
                reason,
                self._ids_left(),
            )
        else:
            log.debug("producer-id block lease attempt %d failed: %s", self._failures, reason)
        if self._needs_block() and not self._stopped and self._loop is not None:
            if self._retry_timer is not None:
                self._retry_timer.cancel()
            self._retry_timer = self._loop.call_later(backoff_ms / 1000, self._retry)

    def _retry(self) -> None:
        self._retry_timer = None
        if self._needs_block():
            self._backoff_until = 0.0
            self._request_block()

    def _ids_left(self) -> int:
        if self._current is None:
            return 0
        return max(0, self._current.last_id - self._next_id + 1)


def create_producer_id_manager(
    *,
    zookeeper: ZooKeeperClient | None,
    block_size: int,
    broker_id: int,
    data_dir: Path,
    clock: Callable[[], float] | None = None,
) -> ProducerIdManager:
    """The manager for a broker's config: blocks leased from ZooKeeper through the broker's
    session (started and closed by its owner, not by the manager) when there is one, else
    from the file in ``data_dir``. ``clock`` is monotonic seconds (the event loop's by default)."""
    if zookeeper is not None:
        source: ProducerIdBlockSource = ZooKeeperBlockSource(
            zookeeper, broker_id=broker_id, block_size=block_size, owns_session=False
        )
        return ProducerIdManager(source, zookeeper=zookeeper, clock=clock)
    embedded = EmbeddedBlockSource(
        Path(data_dir) / PRODUCER_ID_BLOCK_FILE, broker_id=broker_id, block_size=block_size
    )
    return ProducerIdManager(embedded, clock=clock)
