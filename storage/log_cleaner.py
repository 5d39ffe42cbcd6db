"""The log cleaner: compaction of ``cleanup.policy=compact`` logs (Kafka's ``LogCleaner``).

A round over one log (chosen by ``storage.log_cleaner_manager``) is ``storage.cleaner``'s
``Cleaner`` (offset map, groups, filter, tombstones, transactions: see there); its swap
(``PartitionLog.replace_segments``) and the checkpoint run here, on the loop.

Threading: the work of a round's steps 1-4 (``storage.cleaner``) runs in the cleaner's own thread pool
(``log.cleaner.threads`` threads, one log each) and reads the segment files through its own
descriptors (opened by path), never through the segments' objects; the I/O of all threads
is held to ``log.cleaner.io.max.bytes.per.second`` (``Throttler``). The active segment is
never cleaned (the first uncleanable offset is at most its base offset, and at most the high
watermark). Appends, reads and retention go on meanwhile; a swap finds the log changed
(segments deleted, log closed) and is abandoned, as Kafka aborts a cleaning. Retention skips
a log while it is being cleaned (Kafka's ``pauseCleaningForNonCompactedPartitions`` split).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from protocol.record_batch import (
    HEADER_SIZE,
)
from storage.cleaner import (
    Cleaner,
    CleaningAborted,
    SegmentSnapshot,
    Throttler,
    group_segments_by_size,
)
from storage.durable_io import fsync_dir
from storage.log_cleaner_filter import (
    BatchFilter,
    CleanerStats,
    CorruptSegmentError,
    OffsetMap,
    TxnTracker,
)
from storage.log_cleaner_manager import (
    CLEANER_OFFSET_CHECKPOINT,
    CleanerConfig,
    LogCleanerManager,
    LogToClean,
    segments_overlapping,
)
from storage.log_config import LogConfig
from storage.log_dir_failure import LogDirFailureChannel

log = logging.getLogger(__name__)

T = TypeVar("T")

# Logs whose dirty ratio one step of the choice computes on the loop (about 10 us each).
CHOICE_SLICE_LOGS = 500


class LogCleaner:
    """The background cleaner of a LogManager (Kafka's ``LogCleaner`` and its threads).

    ``run`` (a background task of the LogManager) runs ``threads`` cleaner loops: each picks the
    dirtiest log, cleans it in the cleaner's thread pool, swaps the cleaned segments in on the
    loop and moves the log's checkpoint, then looks again; with nothing to clean it waits
    ``log.cleaner.backoff.ms`` (or ``wakeup``).
    """

    def __init__(
        self,
        config: CleanerConfig,
        log_dirs: Sequence[Path],
        logs: Callable[[], Iterable[Any]],
        *,
        time_ms: Callable[[], int],
        failure_channel: LogDirFailureChannel | None = None,
    ) -> None:
        self.config = config
        self.manager = LogCleanerManager(log_dirs)
        self._logs = logs
        # Where a failed cleaner-offset-checkpoint write takes its dir offline (the LogManager's).
        self.failure_channel = failure_channel if failure_channel is not None else LogDirFailureChannel([])
        self._time_ms = time_ms
        self._stop = threading.Event()
        self.throttler = Throttler(config.io_max_bytes_per_second, self._stop)
        self.cleaner = Cleaner(config, self.throttler, self._stop)
        threads = max(config.threads, 1)
        self._map_memory = config.dedupe_buffer_size // threads
        # Kafka checks this at start: a map that cannot hold one key never makes progress.
        OffsetMap(self._map_memory, config.io_buffer_load_factor)
        self._executor: ThreadPoolExecutor | None = None
        self._wakeup: asyncio.Event | None = None
        self._restart: asyncio.Event | None = None  # set by reconfigure: run() restarts the loops
        self.restarts = 0  # times the loops were restarted with a new config
        self.rounds = 0  # cleanings completed (observable by tests and metrics)
        self.last_stats: CleanerStats | None = None

    def wakeup(self) -> None:
        """Look for a dirty log now instead of after the backoff."""
        if self._wakeup is not None:
            self._wakeup.set()

    def reconfigure(self, config: CleanerConfig) -> None:
        """``LogCleaner.reconfigure`` (dynamic ``log.cleaner.*`` broker configs): the throttler
        takes the new rate at once; the cleaner loops are stopped (a round in progress is
        abandoned at its next chunk, as Kafka's ``shutdownCleaners``) and started again with
        the new thread count, map size, buffer size and backoff."""
        old, self.config = self.config, config
        if config.io_max_bytes_per_second != old.io_max_bytes_per_second:
            log.info("Updating log.cleaner.io.max.bytes.per.second: %s", config.io_max_bytes_per_second)
            self.throttler.update_rate(config.io_max_bytes_per_second)
        self.cleaner.io_buffer_size = max(config.io_buffer_size, HEADER_SIZE)
        self._map_memory = config.dedupe_buffer_size // max(config.threads, 1)
        if self._restart is not None:
            self._restart.set()

    async def run(self) -> None:
        """The cleaner loops, until cancelled (restarted by ``reconfigure``); a cancellation
        stops the thread work at its next chunk and waits for it, so no cleaner thread
        touches the logs afterwards."""
        if not self.config.running:
            return
        self._wakeup = asyncio.Event()
        try:
            while True:
                await self._run_loops()
                self.restarts += 1
        finally:
            self.close()
            self._wakeup = None
            self._restart = None

    async def _run_loops(self) -> None:
        """``config.threads`` loops until ``reconfigure`` (then they end between rounds)."""
        restart = self._restart = asyncio.Event()
        loops = [asyncio.ensure_future(self._cleaner_loop(i, restart)) for i in range(self.config.threads)]
        waiter = asyncio.ensure_future(restart.wait())
        try:
            done, _ = await asyncio.wait([waiter, *loops], return_when=asyncio.FIRST_COMPLETED)
            for t in loops:
                if t in done:
                    t.result()  # a loop never ends by itself: raise what ended it
            self._stop.set()  # thread work in progress is abandoned at its next chunk
            assert self._wakeup is not None
            self._wakeup.set()
            await asyncio.gather(*loops)
        finally:
            waiter.cancel()
            for t in loops:
                t.cancel()
        # every loop has returned, so no thread works: the pool goes (its size may change)
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None
        self._stop.clear()
        self._wakeup.clear()

    def close(self) -> None:
        """Stop the thread work (at its next chunk) and wait for it."""
        self._stop.set()
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None
        self._stop.clear()

    async def _in_thread(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(
                max(self.config.threads, 1), thread_name_prefix="kafka-log-cleaner-thread"
            )
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, lambda: fn(*args, **kwargs))

    async def clean_filthiest_log(self, omap: OffsetMap | None = None, thread_id: int = 0) -> int | None:
        """One pass of a cleaner thread: clean the dirtiest log, if one needs it, then write the
        changed checkpoints. Returns the cleaned log's new checkpoint; None when no log needed
        cleaning or the round was abandoned (the thread then backs off)."""
        if omap is None:
            omap = OffsetMap(self._map_memory, self.config.io_buffer_load_factor)
        end = None
        try:
            ltc = await self._grab_filthiest()
        except Exception:
            log.exception("Log cleaner thread %d: error while choosing a log to clean", thread_id)
            ltc = None
        if ltc is not None:
            end = await self.clean(ltc, omap, thread_id)
        await self.write_checkpoints()
        return end

    async def _grab_filthiest(self) -> LogToClean | None:
        """``LogCleanerManager.grab_filthiest`` with the loop let go every
        ``CHOICE_SLICE_LOGS`` logs: Kafka's cleaner threads choose off the request threads, and
        a broker with thousands of compacted partitions spends tens of milliseconds on it."""
        now = self._time_ms()
        dirty = []
        for n, plog in enumerate(list(self._logs())):
            if n and n % CHOICE_SLICE_LOGS == 0:
                await asyncio.sleep(0)
            ltc = self.manager.log_to_clean(plog, now)
            if ltc is not None:
                dirty.append(ltc)
        return self.manager.choose(dirty)

    async def _cleaner_loop(self, thread_id: int, restart: asyncio.Event) -> None:
        omap = OffsetMap(self._map_memory, self.config.io_buffer_load_factor)
        backoff = self.config.backoff_ms / 1000
        while not restart.is_set():
            if await self.clean_filthiest_log(omap, thread_id) is None and not restart.is_set():
                wakeup = self._wakeup
                assert wakeup is not None
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wakeup.wait(), timeout=backoff)
                wakeup.clear()

    async def write_checkpoints(self) -> None:
        """The cleaner checkpoints that changed, written in the default executor (offline dirs
        skipped; a failed write takes its dir offline)."""
        hosted = [(plog.topic, plog.partition) for plog in self._logs()]
        channel = self.failure_channel
        for d, offsets in self.manager.checkpoints_to_write(hosted).items():
            if channel.is_offline(d):
                continue  # Kafka's LogCleanerManager.updateCheckpoints skips offline dirs
            try:
                await asyncio.get_running_loop().run_in_executor(
                    None, self.manager.write_checkpoint, d, offsets
                )
            except OSError as exc:
                # Kafka's CheckpointFileWithFailureHandler.write: the dir goes offline.
                channel.report(d, exc, f"writing {d / CLEANER_OFFSET_CHECKPOINT}")

    def write_checkpoints_now(self, hosted: Iterable[tuple[str, int]]) -> None:
        """At shutdown (no loop work left): the checkpoints not yet written. A failed write
        takes its dir offline, so the LogManager does not mark it clean."""
        channel = self.failure_channel
        for d, offsets in self.manager.checkpoints_to_write(hosted).items():
            if channel.is_offline(d):
                continue
            try:
                self.manager.write_checkpoint(d, offsets)
            except OSError as exc:
                channel.report(d, exc, f"writing {d / CLEANER_OFFSET_CHECKPOINT}")

    async def clean(self, ltc: LogToClean, omap: OffsetMap, thread_id: int = 0) -> int | None:
        """One round over ``ltc.log`` (marked in progress by ``grab_filthiest``); returns the new
        checkpoint, None when the round was abandoned."""
        plog = ltc.log
        end: int | None = None
        try:
            end = await self._clean(ltc, omap, thread_id)
        except CleaningAborted as exc:
            log.info("Log cleaner thread %d: cleaning of %s aborted: %s", thread_id, plog.name, exc)
        except OSError as exc:
            if plog.closed:  # deleted or shut down meanwhile (its dir may be gone)
                log.info("Log cleaner thread %d: cleaning of %s aborted: %s", thread_id, plog.name, exc)
            else:
                # Kafka: an IOException while cleaning takes the log dir offline.
                plog.dir_state.report(exc, f"cleaning {plog.name}")
        except Exception as exc:
            # Kafka marks the partition uncleanable and goes on with the others.
            log.error(
                "Log cleaner thread %d: unexpected error cleaning %s; it is not cleaned again until "
                "restart: %s",
                thread_id,
                plog.name,
                exc,
                exc_info=not isinstance(exc, CorruptSegmentError),
            )
            self.manager.mark_uncleanable(plog)
        finally:
            omap.clear()
            self.manager.done_cleaning(plog, end)
        return end

    async def _clean(self, ltc: LogToClean, omap: OffsetMap, thread_id: int) -> int:
        plog = ltc.log
        cfg: LogConfig = plog.config
        now = self._time_ms()
        stats = CleanerStats()
        first_dirty, bound = ltc.first_dirty_offset, ltc.first_uncleanable_offset
        snaps = [SegmentSnapshot.of(s) for s in segments_overlapping(plog.segments(), 0, bound)]
        dirty = [
            s for i, s in enumerate(snaps) if i + 1 == len(snaps) or snaps[i + 1].base_offset > first_dirty
        ]
        log.info(
            "Log cleaner thread %d: cleaning %s from offset %d to %d (%.0f%% dirty)",
            thread_id,
            plog.name,
            first_dirty,
            bound,
            100 * ltc.cleanable_ratio,
        )
        # The aborted transactions of the range (Kafka's collectAbortedTransactions): their
        # records count neither in the map nor in the cleaned segments. Read from the log, not
        # the cleaned segments' own indexes: an ABORT marker past the range (a transaction
        # across a roll) has its .txnindex entry in a later segment, maybe the active one.
        aborted = plog.collect_aborted_transactions(snaps[0].base_offset, bound) if snaps else []
        await self._in_thread(self.cleaner.build_offset_map, omap, dirty, first_dirty, bound, stats, aborted)
        end_offset = omap.latest_offset + 1
        groups = await self._in_thread(
            group_segments_by_size,
            [s for s in snaps if s.base_offset < end_offset],
            cfg.segment_bytes,
            cfg.segment_index_bytes,
            bound,
        )
        batch_filter = BatchFilter(omap, now, cfg.delete_retention_ms)
        txns = TxnTracker(aborted)  # one pass over the round's groups, in offset order
        for group in groups:
            if plog.closed:
                raise CleaningAborted("the log was closed")
            writer = await self._in_thread(
                self.cleaner.clean_group,
                group,
                batch_filter,
                directory=plog.dir,
                index_interval_bytes=cfg.index_interval_bytes,
                active_producers=plog.last_records_of_active_producers(),
                upper_bound=bound,
                stats=stats,
                txns=txns,
                marker_producers={
                    pid: entry.producer_epoch
                    for pid, entry in plog.producer_state.active_producers().items()
                    if entry.last_data_offset < 0
                },
            )
            swapped = plog.replace_segments(
                [s.segment for s in group], [s.size for s in group], group[0].base_offset
            )
            if not swapped:
                await self._in_thread(writer.delete)
                raise CleaningAborted("the log's segments changed during the cleaning")
            await self._in_thread(fsync_dir, plog.dir)
        self.rounds += 1
        self.last_stats = stats
        elapsed = time.monotonic() - stats.started
        log.info(
            "Log cleaner thread %d cleaned log %s (dirty section = [%d, %d]): %d segment(s) into %d, "
            "%.1f MB read, %.1f MB written, %d of %d messages kept, %d batches rebuilt, in %.1f s",
            thread_id,
            plog.name,
            first_dirty,
            end_offset,
            sum(len(g) for g in groups),
            len(groups),
            stats.bytes_read / 1e6,
            stats.bytes_written / 1e6,
            stats.messages_written,
            stats.messages_read,
            stats.batches_rebuilt,
            elapsed,
        )
        return end_offset


__all__ = ["LogCleaner"]
