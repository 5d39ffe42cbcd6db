"""The log dir's checkpoints after a deletion (Kafka's ``LogManager.asyncDelete``): the
recovery-point, log-start-offset, high-watermark and cleaner checkpoints are written without
the deleted partitions at once, so a topic created again under the same name never takes the
old partition's entries after a crash."""

from __future__ import annotations

import asyncio
import errno
import signal
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from pathlib import Path

from storage.checkpoints import (
    HIGH_WATERMARK_CHECKPOINT,
    LOG_START_OFFSET_CHECKPOINT,
    RECOVERY_POINT_CHECKPOINT,
    OffsetCheckpointFile,
)
from storage.log_cleaner_manager import CLEANER_OFFSET_CHECKPOINT
from storage.log_config import resolve_topic_defaults
from storage.log_creation import rename_for_deletion
from storage.log_manager import LogManager, LogManagerIntervals
from tests.broker.test_log_dir_failure import _fail_calls_under
from tests.storage.batch_factory import make_batch

REPO = Path(__file__).resolve().parents[2]
OFFSET_CHECKPOINTS = (RECOVERY_POINT_CHECKPOINT, LOG_START_OFFSET_CHECKPOINT, HIGH_WATERMARK_CHECKPOINT)
# The periodic checkpoints stay out of the way: only a deletion writes.
QUIET = LogManagerIntervals(
    retention_check_ms=3_600_000,
    recovery_point_checkpoint_ms=3_600_000,
    log_start_offset_checkpoint_ms=3_600_000,
    high_watermark_checkpoint_ms=3_600_000,
)


def _fill(lm: LogManager, topic: str, partition: int, *, start: int) -> None:
    plog = lm.get_log(topic, partition)
    for _ in range(10):
        plog.append_as_leader(memoryview(make_batch(2, timestamp=int(time.time() * 1000))), 0)
    plog.update_high_watermark(plog.log_end_offset)
    plog.delete_records_before(start)


def _topics_in(d: Path, name: str) -> set[str]:
    return {topic for topic, _ in OffsetCheckpointFile(d / name).read()}


def test_recreated_topic_survives_kill_minus_nine_after_delete(tmp_path):
    """Kafka LogManager.asyncDelete rewrites recovery-point-offset-checkpoint and
    log-start-offset-checkpoint of the dir without the deleted partition
    (checkpointRecoveryOffsetsInDir / checkpointLogStartOffsetsInDir), so a topic deleted
    and created again under the same name does not inherit the old partition's log start
    offset. Left until the next periodic checkpoint, a kill -9 in that window has the load
    see a log start offset above the new log's end and truncate it fully (all acknowledged
    data lost)."""
    d = tmp_path / "d"
    script = textwrap.dedent(
        f"""
        import os, signal, sys, time, uuid
        sys.path.insert(0, {str(REPO)!r})
        from storage.log_config import resolve_topic_defaults
        from storage.log_manager import LogManager
        from tests.storage.batch_factory import make_batch
        lm = LogManager([{str(d)!r}], resolve_topic_defaults({{}}))
        lm.startup()
        now = int(time.time() * 1000)
        lm.create_topic("t", 1, uuid.uuid4(), {{}})
        plog = lm.get_log("t", 0)
        for _ in range(10):
            plog.append_as_leader(memoryview(make_batch(2, timestamp=now)), 0)
        plog.update_high_watermark(plog.log_end_offset)
        plog.delete_records_before(15)
        lm.checkpoint_now()  # the periodic checkpoint task
        lm.delete_topic("t")
        lm.create_topic("t", 1, uuid.uuid4(), {{}})
        plog = lm.get_log("t", 0)
        for _ in range(3):
            plog.append_as_leader(memoryview(make_batch(2, timestamp=now)), 0)
        print(plog.log_start_offset, plog.log_end_offset, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert proc.stdout.split() == ["0", "6"]
    lm = LogManager([d], resolve_topic_defaults({}))
    lm.startup()
    try:
        plog = lm.get_log("t", 0)
        assert (plog.log_start_offset, plog.log_end_offset) == (0, 6)
    finally:
        lm.shutdown()


def test_deletions_on_the_loop_write_each_dir_once_off_the_loop(tmp_path):
    """A StopReplica deleting many partitions (ReplicaManager -> delete_log, one call each, on
    the loop) and a DeleteTopics (detach_topic, then rename_for_deletion in an executor):
    the checkpoints are written by one task, in the default executor, once per dir for the
    deletions made before it runs (Kafka's asyncDelete of a set: each dir once). The other
    logs' entries are kept, as they were."""
    dirs = [tmp_path / "d1", tmp_path / "d2"]
    lm = LogManager(dirs, resolve_topic_defaults({}), intervals=QUIET)
    lm.startup()
    lm.create_topic("gone", 4, uuid.uuid4(), {})
    lm.create_topic("keep", 2, uuid.uuid4(), {})
    lm.create_topic("later", 2, uuid.uuid4(), {})
    for topic in ("gone", "keep", "later"):
        for p in range(lm.topics()[topic].partitions):
            _fill(lm, topic, p, start=5)
    lm.checkpoint_now()
    keep_entries = {
        d: {name: OffsetCheckpointFile(d / name).read() for name in OFFSET_CHECKPOINTS} for d in dirs
    }
    writes: list[tuple[Path, str]] = []
    real_write = lm.checkpoints.write_files

    def recording_write(d, data):
        writes.append((d, threading.current_thread().name))
        real_write(d, data)

    lm.checkpoints.write_files = recording_write

    async def scenario():
        task = asyncio.create_task(lm.run_background_tasks())
        try:
            await asyncio.sleep(0)  # let run_background_tasks install its wakeup event
            for p in range(4):  # one StopReplica: no await between the deletions
                assert lm.delete_log("gone", p)
            assert writes == []  # nothing written on the loop
            for d in dirs:
                assert "gone" in _topics_in(d, RECOVERY_POINT_CHECKPOINT)
            await asyncio.wait_for(lm.checkpoints.deletion_task, 10)
            assert sorted(d for d, _ in writes) == dirs
            assert all(thread != threading.current_thread().name for _, thread in writes)
            logs = lm.detach_topic("later")
            renamed = await asyncio.get_running_loop().run_in_executor(None, rename_for_deletion, logs)
            lm.dirs_renamed_for_deletion(renamed)
            await asyncio.wait_for(lm.checkpoints.deletion_task, 10)
            assert len(writes) == 4
        finally:
            task.cancel()

    asyncio.run(scenario())
    for d in dirs:
        for name in OFFSET_CHECKPOINTS:
            found = OffsetCheckpointFile(d / name).read()
            assert {topic for topic, _ in found} <= {"keep"}, (d, name)
            assert found == {k: v for k, v in keep_entries[d][name].items() if k[0] == "keep"}
    assert sum(len(OffsetCheckpointFile(d / LOG_START_OFFSET_CHECKPOINT).read()) for d in dirs) == 2
    lm.shutdown()


def test_the_cleaner_checkpoint_loses_a_deleted_partition_at_once(tmp_path):
    """Kafka asyncDelete -> cleaner.updateCheckpoints(partitionToRemove)."""
    d = tmp_path / "d"
    lm = LogManager([d], resolve_topic_defaults({}))
    lm.startup()
    try:
        lm.create_topic("c", 2, uuid.uuid4(), {"cleanup.policy": "compact"})
        for p in range(2):
            _fill(lm, "c", p, start=0)
            lm.cleaner.manager.update_checkpoint(lm.get_log("c", p), 8)
        lm.cleaner.write_checkpoints_now([("c", 0), ("c", 1)])
        assert OffsetCheckpointFile(d / CLEANER_OFFSET_CHECKPOINT).read() == {("c", 0): 8, ("c", 1): 8}
        assert lm.delete_log("c", 1)
        assert OffsetCheckpointFile(d / CLEANER_OFFSET_CHECKPOINT).read() == {("c", 0): 8}
    finally:
        lm.shutdown()


def test_a_failed_checkpoint_write_after_a_deletion_takes_the_dir_offline(tmp_path, monkeypatch):
    """Kafka checkpointRecoveryOffsetsInDir: an IOException is
    logDirFailureChannel.maybeAddOfflineLogDir; the deletion itself stands."""
    dir_a, dir_b = tmp_path / "a", tmp_path / "b"
    lm = LogManager([dir_a, dir_b], resolve_topic_defaults({}))
    lm.startup()
    try:
        lm.create_topic("on-a", 1, uuid.uuid4(), {})
        lm.create_topic("on-b", 1, uuid.uuid4(), {})
        assert lm.get_log("on-a", 0).dir.parent == dir_a
        with monkeypatch.context() as patch:
            _fail_calls_under(patch, dir_a / RECOVERY_POINT_CHECKPOINT, errno.EIO, calls=("write",))
            lm.delete_topic("on-a")
        assert lm.get_log("on-a", 0) is None and "on-a" not in lm.topics()
        assert lm.failure_channel.offline_dirs() == [dir_a]
        assert lm.get_log("on-b", 0) is not None
    finally:
        lm.shutdown()
