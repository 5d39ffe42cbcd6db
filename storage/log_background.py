"""The log manager's periodic background work (``LogBackgroundTasks``).

Kafka's ``LogManager.startup`` schedules these jobs on its ``KafkaScheduler``:
``kafka-log-retention`` (``cleanupLogs``), ``kafka-log-flusher`` (``flushDirtyLogs``),
``kafka-recovery-point-checkpoint``, ``kafka-log-start-offset-checkpoint`` and
``kafka-delete-logs`` (``deleteLogs``); the high-watermark checkpoint is
``ReplicaManager``'s ``highwatermark-checkpoint`` job and producer expiry ``UnifiedLog``'s
``PeriodicProducerExpirationCheck``. Here they are coroutines gathered by ``run`` (the
log cleaner's too) until cancelled, on the event loop; fsyncs, checkpoint files and
directory removals run in the default executor.

The flusher also wakes early when a log asks for a flush (``request_flush``, its
``on_flush_needed``) or dirs renamed for deletion wait for removal
(``dirs_renamed_for_deletion``). Built by the ``LogManager``, which owns the logs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shutil
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from protocol.errors import KafkaError
from storage.checkpoints import (
    HIGH_WATERMARK_CHECKPOINT,
    LOG_START_OFFSET_CHECKPOINT,
    RECOVERY_POINT_CHECKPOINT,
)
from storage.log_cleaner import LogCleaner
from storage.log_dir_checkpoints import LogDirCheckpoints
from storage.partition_log import PartitionLog

log = logging.getLogger(__name__)

__all__ = ["LogBackgroundTasks", "LogManagerIntervals"]


@dataclass(frozen=True)
class LogManagerIntervals:
    """Background task periods in ms (Kafka's names in the comments)."""

    retention_check_ms: int = 300_000  # log.retention.check.interval.ms
    flush_check_ms: int = 1_000  # how often flush.ms is checked (log.flush.scheduler.interval.ms)
    recovery_point_checkpoint_ms: int = 60_000  # log.flush.offset.checkpoint.interval.ms
    log_start_offset_checkpoint_ms: int = 60_000  # log.flush.start.offset.checkpoint.interval.ms
    high_watermark_checkpoint_ms: int = 5_000  # replica.high.watermark.checkpoint.interval.ms
    producer_expiration_check_ms: int = 600_000  # producer.id.expiration.check.interval.ms


class LogBackgroundTasks:
    """Retention, flush, checkpoints, producer expiry and dir removal over ``logs`` (the
    manager's hosted logs, read live); ``flush`` is the manager's ``flush_log``."""

    def __init__(
        self,
        logs: Mapping[tuple[str, int], PartitionLog],
        intervals: LogManagerIntervals,
        time_ms: Callable[[], int],
        cleaner: LogCleaner,
        checkpoints: LogDirCheckpoints,
        flush: Callable[[PartitionLog], Awaitable[int]],
    ) -> None:
        self._logs = logs
        self.intervals = intervals
        self._time_ms = time_ms
        self.cleaner = cleaner
        self.checkpoints = checkpoints
        self._flush = flush
        self._dirs_to_delete: list[Path] = []
        self._flush_wakeup: asyncio.Event | None = None

    def request_flush(self, _plog: PartitionLog) -> None:
        """A log's ``on_flush_needed``: wake the flusher (if running)."""
        if self._flush_wakeup is not None:
            self._flush_wakeup.set()

    def dirs_renamed_for_deletion(self, renamed: list[Path]) -> None:
        """On the loop: queue the renamed dirs for removal (now, without background tasks)."""
        self._dirs_to_delete.extend(renamed)
        if self._flush_wakeup is None:
            self.delete_pending_dirs()
        else:
            self._flush_wakeup.set()

    def delete_pending_dirs(self) -> None:
        """Remove the dirs queued for removal (blocking)."""
        pending, self._dirs_to_delete = self._dirs_to_delete, []
        for path in pending:
            shutil.rmtree(path, ignore_errors=True)

    async def flush_pass(self) -> None:
        now = self._time_ms()
        for plog in list(self._logs.values()):
            if not plog.closed and not plog.dir_state.offline and plog.flush_due(now):
                await self._flush(plog)
        for plog in list(self._logs.values()):
            if plog.dir_state.offline:
                continue
            try:
                plog.purge_deleted_files(now)
            except OSError as exc:
                plog.dir_state.report(exc, f"deleting old files of {plog.name}")
        if self._dirs_to_delete:
            await asyncio.get_running_loop().run_in_executor(None, self.delete_pending_dirs)

    async def _flusher(self) -> None:
        wakeup = self._flush_wakeup
        assert wakeup is not None
        period = self.intervals.flush_check_ms / 1000
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wakeup.wait(), timeout=period)
            wakeup.clear()
            try:
                await self.flush_pass()
            except Exception:
                log.exception("error while flushing logs")

    async def retention_pass(self) -> None:
        now = self._time_ms()
        for plog in list(self._logs.values()):
            if plog.closed or plog.dir_state.offline:
                continue
            if self.cleaner.manager.is_in_progress(plog.topic, plog.partition):
                # Kafka pauses cleaning for retention; here retention waits for the next pass.
                continue
            try:
                plog.delete_old_segments(now)
                plog.purge_deleted_files(now)
            except OSError as exc:
                plog.dir_state.report(exc, f"deleting old segments of {plog.name}")
            except KafkaError:
                pass  # the leader-epoch checkpoint's write: its dir's state has it (logged once)
            except Exception:
                log.exception("%s: error while deleting old segments", plog.name)

    async def expire_producers(self) -> None:
        now = self._time_ms()
        for plog in list(self._logs.values()):
            if not plog.closed:
                plog.producer_state.remove_expired_producers(now)

    @staticmethod
    async def _every(period_ms: int, job: Callable[[], Awaitable[None]], name: str) -> None:
        while True:
            await asyncio.sleep(period_ms / 1000)
            try:
                await job()
            except Exception:
                log.exception("background task %s failed", name)

    async def run(self) -> None:
        """Retention, flush, checkpoints, producer expiry and the log cleaner, until cancelled."""
        self._flush_wakeup = asyncio.Event()
        self.checkpoints.start()
        iv = self.intervals
        write = self.checkpoints.write_async
        try:
            await asyncio.gather(
                self._flusher(),
                self._every(iv.retention_check_ms, self.retention_pass, "retention"),
                self._every(
                    iv.recovery_point_checkpoint_ms,
                    lambda: write(RECOVERY_POINT_CHECKPOINT),
                    "recovery-point checkpoint",
                ),
                self._every(
                    iv.log_start_offset_checkpoint_ms,
                    lambda: write(LOG_START_OFFSET_CHECKPOINT),
                    "log-start-offset checkpoint",
                ),
                self._every(
                    iv.high_watermark_checkpoint_ms,
                    lambda: write(HIGH_WATERMARK_CHECKPOINT),
                    "high-watermark checkpoint",
                ),
                self._every(iv.producer_expiration_check_ms, self.expire_producers, "producer expiry"),
                self.cleaner.run(),
            )
        finally:
            self._flush_wakeup = None
            # Its dirs are written by the shutdown that follows (or the next deletion).
            self.checkpoints.stop()
