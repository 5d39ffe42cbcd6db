"""The offset checkpoint files of each log dir (``LogDirCheckpoints``).

Per log directory, Kafka's text files (``storage.checkpoints``), written atomically:
``recovery-point-offset-checkpoint`` and ``log-start-offset-checkpoint`` (Kafka's
``LogManager.checkpointRecoveryOffsetsInDir`` / ``checkpointLogStartOffsetsInDir``) and
``replication-offset-checkpoint``, the high watermarks (Kafka's
``ReplicaManager.checkpointHighWatermarks``; the ``LogManager`` keeps them here). The
offsets are read from the logs on the event loop, the files written in the default
executor (periodically, by ``storage.log_background``, and after deletions) or at once
(``write_all_now``, shutdown). A write error takes the dir offline.

Built by the ``LogManager``, which owns the logs it reads.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from storage.checkpoints import (
    HIGH_WATERMARK_CHECKPOINT,
    LOG_START_OFFSET_CHECKPOINT,
    RECOVERY_POINT_CHECKPOINT,
    OffsetCheckpointFile,
)
from storage.log_cleaner import LogCleaner
from storage.log_dir_failure import LogDirFailureChannel
from storage.partition_log import PartitionLog

log = logging.getLogger(__name__)

__all__ = ["LogDirCheckpoints"]


class LogDirCheckpoints:
    """Writes the three offset checkpoints of the log dirs from ``logs`` (the manager's
    hosted logs, read live)."""

    def __init__(
        self,
        log_dirs: Sequence[Path],
        logs: Mapping[tuple[str, int], PartitionLog],
        failure_channel: LogDirFailureChannel,
        cleaner: LogCleaner,
        started: Callable[[], bool],
    ) -> None:
        self.log_dirs = list(log_dirs)
        self._logs = logs
        self.failure_channel = failure_channel
        self.cleaner = cleaner
        self._started = started  # the manager's logs are loaded (and not shut down)
        # While the background tasks run: held by every write of the offset checkpoints, which
        # read the logs' offsets once they hold it, so the last write has the newest offsets.
        self.lock: asyncio.Lock | None = None
        # Held while the checkpoint files are written (an executor thread, or shutdown's).
        self._files_lock = threading.Lock()
        # Dirs whose checkpoints a deletion changed, and the task writing them.
        self._dirs_after_deletion: set[Path] = set()
        self.deletion_task: asyncio.Task[None] | None = None

    def data(self, d: Path) -> dict[str, dict[tuple[str, int], int]]:
        """The three offset checkpoints of one log dir, read on the loop."""
        logs = [(k, plog) for k, plog in self._logs.items() if plog.dir.parent == d]
        return {
            RECOVERY_POINT_CHECKPOINT: {k: plog.recovery_point for k, plog in logs},
            # Kafka checkpoints only start offsets above the first segment's base.
            LOG_START_OFFSET_CHECKPOINT: {
                k: plog.log_start_offset
                for k, plog in logs
                if plog.log_start_offset > plog.segments()[0].base_offset
            },
            HIGH_WATERMARK_CHECKPOINT: {k: plog.high_watermark for k, plog in logs},
        }

    def write_files(self, d: Path, data: Mapping[str, Mapping[tuple[str, int], int]]) -> None:
        """Write ``data`` (checkpoint name -> offsets) into ``d``; any thread. OSError on failure."""
        with self._files_lock:  # one writer of a checkpoint's .tmp file at a time
            for name, offsets in data.items():
                OffsetCheckpointFile(d / name).write(offsets)

    def write_all_now(self) -> None:
        """Write all three checkpoints of every log dir (synchronously)."""
        for d in self.log_dirs:
            self.write_files(d, self.data(d))

    async def write_async(self, name: str) -> None:
        """The checkpoint ``name`` of every online dir (a periodic background task)."""
        async with self.lock or contextlib.nullcontext():
            await self._write_dirs(self.log_dirs, name, f"writing {name}")

    async def _write_dirs(self, dirs: Iterable[Path], name: str | None, while_doing: str) -> None:
        """The checkpoint ``name`` (None: all three) of each online dir of ``dirs``, its offsets
        read on the loop and the file written in the default executor; a write error takes
        the dir offline."""
        loop = asyncio.get_running_loop()
        for d in dirs:
            state = self.failure_channel.state(d)
            if state.offline:
                continue
            data = self.data(d)
            if name is not None:
                data = {name: data[name]}
            try:
                await loop.run_in_executor(None, self.write_files, d, data)
            except OSError as exc:
                state.report(exc, while_doing)
            else:
                state.write_succeeded()

    # ------------------------------------------------------------------ after deletions

    def after_deletion(self, dirs: Iterable[Path]) -> None:
        """Kafka's ``asyncDelete``: the checkpoints of the dirs that held deleted logs are
        written without them at once (``checkpointRecoveryOffsetsInDir``,
        ``checkpointLogStartOffsetsInDir``, ``cleaner.updateCheckpoints``; the high watermarks
        too, which the LogManager keeps here), or a log created again under the name would
        take the old entries after a crash (a log start offset above its end truncates it
        fully). With the background tasks running (on the loop) one task writes them in the
        default executor for every deletion made until it runs (a StopReplica deleting many
        partitions writes each dir once); without, they are written now."""
        if not self._started():
            return  # nothing loaded: entries of logs not loaded must stay
        self._dirs_after_deletion.update(dirs)
        loop = None
        if self.lock is not None:  # the background tasks run
            with contextlib.suppress(RuntimeError):  # not on the loop's thread
                loop = asyncio.get_running_loop()
        if loop is None:
            self._write_after_deletion_now()
            return
        task = self.deletion_task
        if task is None or task.done():
            self.deletion_task = loop.create_task(
                self._write_after_deletion(), name="log-manager-deletion-checkpoints"
            )

    def _write_after_deletion_now(self) -> None:
        dirs, self._dirs_after_deletion = self._dirs_after_deletion, set()
        for d in sorted(dirs):
            state = self.failure_channel.state(d)
            if state.offline:
                continue
            try:
                self.write_files(d, self.data(d))
            except OSError as exc:
                # Kafka: an IOException here takes the dir offline; the deletion stands.
                state.report(exc, "writing the checkpoints after a deletion")
            else:
                state.write_succeeded()
        self.cleaner.write_checkpoints_now(self._logs)

    async def _write_after_deletion(self) -> None:
        try:
            async with self.lock or contextlib.nullcontext():
                while self._dirs_after_deletion and self._started():
                    dirs, self._dirs_after_deletion = self._dirs_after_deletion, set()
                    await self._write_dirs(sorted(dirs), None, "writing the checkpoints after a deletion")
                    await self.cleaner.write_checkpoints()
        except Exception:
            log.exception("error while writing the checkpoints after a deletion")

    # ------------------------------------------------------------------ background tasks

    def start(self) -> None:
        """The background tasks start: periodic and deletion writes take turns (``lock``)."""
        self.lock = asyncio.Lock()

    def stop(self) -> None:
        """The background tasks stopped: a pending deletion write is cancelled (its dirs are
        written by the shutdown that follows, or the next deletion)."""
        self.lock = None
        if self.deletion_task is not None:
            self.deletion_task.cancel()
            self.deletion_task = None
