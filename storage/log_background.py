"""The log manager's periodic background work (``LogBackgroundTasks``).

Kafka's ``LogManager.startup`` schedules these jobs on its ``KafkaScheduler``:
``kafka-log-retention`` (``cleanupLogs``), ``kafka-log-flusher`` (``flushDirtyLogs``),
``kafka-recovery-point-checkpoint``, ``kafka-log-start-offset-checkpoint`` and
``kafka-delete-logs`` (``deleteLogs``); the high-watermark checkpoint is
``ReplicaManager``'s ``highwatermark-checkpoint`` job and producer expiry ``UnifiedLog``'s
``PeriodicProducerExpirationCheck``. Here they are coroutines gathered by ``run`` (the
log cleaner's too) until cancelled, on the event loop; fsyncs, checkpoint files, the
delayed unlinks of ``.deleted`` files and directory removals run in the default executor. Retention takes the segments out of a log and renames their files on the
loop, in slices (``PartitionLog.remove_old_segments`` with ``max_segments``), the loop let go
between them; Kafka's ``kafka-log-retention`` thread does it off the request threads.

Leader-epoch checkpoints cut by a truncation or a new log start offset (DeleteRecords,
retention, a follower's fetch) are written here too, off the loop (``request_epoch_checkpoint``,
each log's ``on_epoch_checkpoint_dirty``; Kafka's ``truncateFromStartAsyncFlush`` /
``truncateFromEndAsyncFlush`` scheduling the write): one task writes the caches marked
meanwhile in one executor job at a time; a failed write reports to the log's dir.

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
from storage.leader_epoch import write_pending_checkpoints
from storage.local_log import rename_for_deletion, unlink_all
from storage.log_cleaner import LogCleaner
from storage.log_dir_checkpoints import LogDirCheckpoints
from storage.partition_log import PartitionLog

log = logging.getLogger(__name__)

__all__ = ["LogBackgroundTasks", "LogManagerIntervals"]


# Segments one step of the retention pass removes and renames on the loop (four renames
# each, and a producer snapshot's): a few milliseconds, then other work runs.
RETENTION_SLICE_SEGMENTS = 64


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
        # Logs whose leader-epoch checkpoint is to be written, and the task writing them.
        self._epoch_dirty: dict[PartitionLog, None] = {}
        self._epoch_task: asyncio.Task[None] | None = None

    def request_flush(self, _plog: PartitionLog) -> None:
        """A log's ``on_flush_needed``: wake the flusher (if running)."""
        if self._flush_wakeup is not None:
            self._flush_wakeup.set()

    def request_epoch_checkpoint(self, plog: PartitionLog) -> bool:
        """A log's ``on_epoch_checkpoint_dirty``, on the loop: True if its leader-epoch
        checkpoint will be written off the loop soon; False without a running loop (the log
        writes it at once)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return False
        self._epoch_dirty[plog] = None
        task = self._epoch_task
        if task is None or task.done():
            self._epoch_task = loop.create_task(
                self._write_epoch_checkpoints(), name="log-manager-leader-epoch-checkpoints"
            )
        return True

    async def _write_epoch_checkpoints(self) -> None:
        """The checkpoints of the logs marked, taken on the loop and written in the default
        executor, until none is left. A log closed (deleted) meanwhile is skipped; a cancelled
        write (shutdown) leaves its caches dirty, for the shutdown's own write."""
        loop = asyncio.get_running_loop()
        while self._epoch_dirty:
            marked, self._epoch_dirty = list(self._epoch_dirty), {}
            pending = []
            for plog in marked:
                if plog.closed or plog.dir_state.offline:
                    continue
                write = plog.leader_epoch_cache.pending_write()
                if write is not None:
                    pending.append(write)
            if not pending:
                continue
            try:
                errors = await loop.run_in_executor(None, write_pending_checkpoints, pending)
            except Exception:
                log.exception("error while writing leader-epoch checkpoints")
                continue
            for write, error in zip(pending, errors, strict=True):
                write.cache.written(write, error)

    async def write_epoch_checkpoints_now(self) -> None:
        """Wait for the leader-epoch checkpoints marked so far to be written (tests, tools)."""
        while (task := self._epoch_task) is not None and not task.done():
            await asyncio.shield(task)

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
        loop = asyncio.get_running_loop()
        now = self._time_ms()
        for plog in list(self._logs.values()):
            if not plog.closed and not plog.dir_state.offline and plog.flush_due(now):
                await self._flush(plog)
        for plog in list(self._logs.values()):
            if plog.dir_state.offline:
                continue
            due = plog.take_due_deletions(now)
            if not due:
                continue
            try:
                await loop.run_in_executor(None, unlink_all, due)
            except OSError as exc:
                plog.dir_state.report(exc, f"deleting old files of {plog.name}")
        if self._dirs_to_delete:
            await loop.run_in_executor(None, self.delete_pending_dirs)

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
        """Kafka's ``cleanupLogs``, in slices of ``RETENTION_SLICE_SEGMENTS`` segments with the
        loop let go between them: a slice's segments leave the log (``remove_old_segments``)
        and their files are renamed ``.deleted`` in the same step, on the loop, as Kafka
        renames them under the log's lock. Renamed later, off the loop, the old paths could
        name the files of a topic deleted and re-created meanwhile, or of a log truncated onto
        those offsets. The unlinks (``file.delete.delay.ms`` later, or at once without delay)
        run in the default executor: they touch ``.deleted`` names only."""
        loop = asyncio.get_running_loop()
        for n, plog in enumerate(list(self._logs.values())):
            if n % 100 == 99:
                await asyncio.sleep(0)  # a pass over many logs lets requests in
            try:
                while not (plog.closed or plog.dir_state.offline):
                    if self.cleaner.manager.is_in_progress(plog.topic, plog.partition):
                        # Kafka pauses cleaning for retention; here retention waits for the next pass.
                        break
                    now = self._time_ms()
                    removed = plog.remove_old_segments(now, max_segments=RETENTION_SLICE_SEGMENTS)
                    if removed is None:
                        break
                    paths = rename_for_deletion(removed.segments, removed.snapshots)
                    if plog.config.file_delete_delay_ms <= 0:
                        await loop.run_in_executor(None, unlink_all, paths)
                    else:
                        plog.schedule_file_deletion(paths, now)
                    if len(removed.segments) < RETENTION_SLICE_SEGMENTS:
                        break
                    await asyncio.sleep(0)  # the next slice after whatever else is ready
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
            if self._epoch_task is not None:
                # The caches it had not written stay dirty: the shutdown that follows writes them.
                self._epoch_task.cancel()
                self._epoch_task = None
            # Its dirs are written by the shutdown that follows (or the next deletion).
            self.checkpoints.stop()
