"""StopReplica with delete (DeleteTopics of a large topic): the partition dirs are renamed
``-delete`` off the event loop, in one executor job with one parent-dir fsync per log dir
(Kafka's ``ReplicaManager.stopReplicas`` -> ``LogManager.asyncDelete`` runs on a request
handler thread), and the answer still follows the renames."""

from __future__ import annotations

import asyncio
import errno
import os
import threading
import uuid
from pathlib import Path

import pytest

import storage.log_creation as log_creation
from broker.replica_manager import ReplicaManager
from coordinator.cluster_state import PartitionState
from protocol.errors import ErrorCode
from storage.log_config import resolve_topic_defaults
from storage.log_dir_failure import LogDirError
from storage.log_manager import LogManager
from storage.partition_metadata import read_partition_metadata
from storage.producer_state import AppendOrigin
from tests.storage.batch_factory import BASE_TS, make_batch

ME = 0
WAIT_S = 10.0  # bounds a wait for an event that is set by construction; nothing is timed


@pytest.fixture
def log_manager(tmp_path):
    lm = LogManager([tmp_path / "d1", tmp_path / "d2"], resolve_topic_defaults({}))
    lm.startup()
    yield lm
    lm.shutdown()


async def _no_overrides(topic: str) -> dict[str, str]:
    return {}


async def host(rm: ReplicaManager, topic: str, partitions: int, topic_id: uuid.UUID, epoch: int = 1) -> None:
    """LeaderAndIsr: this broker leads ``partitions`` partitions of ``topic`` (logs created)."""
    states = [
        PartitionState(topic, p, ME, 0, (ME,), (ME,), controller_epoch=epoch, partition_epoch=0)
        for p in range(partitions)
    ]
    top, errors = await rm.become_leader_or_follower(
        1, epoch, states, {topic: topic_id}, topic_overrides=_no_overrides
    )
    assert top is ErrorCode.NONE and set(errors.values()) == {ErrorCode.NONE}


def produce(rm: ReplicaManager, topic: str, partition: int, n: int = 3) -> None:
    result = rm.append_records(
        [((topic, partition), memoryview(make_batch(n, timestamp=BASE_TS)))],
        required_acks=1,
        origin=AppendOrigin.CLIENT,
        produce_version=9,
    )[(topic, partition)]
    assert result.info is not None and result.info.base_offset == 0


def delete_dirs(lm: LogManager, topic: str) -> list[Path]:
    return [p for d in lm.log_dirs for p in d.iterdir() if p.name.startswith(f"{topic}-")]


class RenameRecorder:
    """Records the thread of every ``-delete`` rename and parent-dir fsync of a deletion;
    optionally holds the renames (in whatever thread) until ``release``."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *, hold: bool = False) -> None:
        self.renames: list[tuple[int, str]] = []
        self.fsyncs: list[tuple[int, Path]] = []
        self.entered = threading.Event()
        self.release = threading.Event()
        if not hold:
            self.release.set()
        self.loop_thread = threading.get_ident()
        real_replace, real_fsync_dir = os.replace, log_creation.fsync_dir

        def replace(src, dst, *args, **kwargs):
            if os.fspath(dst).endswith("-delete"):
                self.renames.append((threading.get_ident(), os.fspath(src)))
                self.entered.set()
                if threading.get_ident() != self.loop_thread:  # holding the loop would hang the test
                    self.release.wait(WAIT_S)
            return real_replace(src, dst, *args, **kwargs)

        def fsync_dir(path, *args, **kwargs):
            self.fsyncs.append((threading.get_ident(), Path(path)))
            return real_fsync_dir(path, *args, **kwargs)

        monkeypatch.setattr(os, "replace", replace)
        monkeypatch.setattr(log_creation, "fsync_dir", fsync_dir)


def test_stop_replica_with_delete_renames_off_the_loop_in_one_job_one_fsync_per_dir(log_manager, monkeypatch):
    """The renames and the parent-dir fsyncs run in one executor thread, never on the loop's
    (before: one rename and one fsync of the parent per partition, on the loop)."""

    async def scenario():
        rm = ReplicaManager(ME, log_manager, lambda: BASE_TS)
        await host(rm, "doomed", 6, uuid.uuid4())
        await host(rm, "keep", 2, uuid.uuid4())
        recorder = RenameRecorder(monkeypatch)
        top, errors = await rm.stop_replicas(1, 1, [(("doomed", p), -2, True) for p in range(6)])
        assert top is ErrorCode.NONE and errors == {("doomed", p): ErrorCode.NONE for p in range(6)}
        return recorder

    recorder = asyncio.run(scenario())
    assert len(recorder.renames) == 6
    threads = {thread for thread, _ in recorder.renames}
    assert recorder.loop_thread not in threads, "a partition dir was renamed on the event loop"
    assert len(threads) == 1, "the renames were not one executor job"
    assert sorted(path for _, path in recorder.fsyncs) == sorted(log_manager.log_dirs)  # once per dir
    assert {thread for thread, _ in recorder.fsyncs} == threads
    assert delete_dirs(log_manager, "doomed") == []  # removed (no background tasks: at once)
    assert set(log_manager.topics()) == {"keep"}
    assert all(log_manager.get_log("doomed", p) is None for p in range(6))


def test_the_loop_serves_while_the_renames_run_and_the_answer_follows_them(log_manager, monkeypatch):
    """With the renames held in their executor thread the loop goes on (a produce to another
    topic is served); the deleted partitions are neither hosted nor in the log manager, and
    the StopReplica answers only once the dirs are renamed."""

    async def scenario():
        rm = ReplicaManager(ME, log_manager, lambda: BASE_TS)
        await host(rm, "doomed", 4, uuid.uuid4())
        await host(rm, "keep", 1, uuid.uuid4())
        recorder = RenameRecorder(monkeypatch, hold=True)
        stopping = asyncio.create_task(rm.stop_replicas(1, 1, [(("doomed", p), -2, True) for p in range(4)]))
        loop = asyncio.get_running_loop()
        assert await loop.run_in_executor(None, recorder.entered.wait, WAIT_S)
        assert recorder.loop_thread not in {thread for thread, _ in recorder.renames}
        produce(rm, "keep", 0)  # the loop is free
        assert not stopping.done()
        assert all(rm.get_partition("doomed", p) is None for p in range(4))
        assert all(log_manager.get_log("doomed", p) is None for p in range(4))
        assert "doomed" not in log_manager.topics()
        recorder.release.set()
        top, errors = await asyncio.wait_for(stopping, WAIT_S)
        assert top is ErrorCode.NONE and set(errors.values()) == {ErrorCode.NONE}
        assert len(recorder.renames) == 4
        assert delete_dirs(log_manager, "doomed") == []

    asyncio.run(scenario())


def test_a_topic_created_again_while_the_renames_run_gets_fresh_dirs(log_manager, monkeypatch):
    """DeleteTopics then CreateTopics of the same name: the new topic's LeaderAndIsr, sent while
    the old dirs are being renamed, waits for the StopReplica (replicaStateChangeLock) and makes
    new, empty logs with the new topic id, never the old one's files."""

    async def scenario():
        rm = ReplicaManager(ME, log_manager, lambda: BASE_TS)
        old_id, new_id = uuid.uuid4(), uuid.uuid4()
        await host(rm, "t", 3, old_id)
        for p in range(3):
            produce(rm, "t", p)
        old_dirs = {p: log_manager.get_log("t", p).dir for p in range(3)}
        recorder = RenameRecorder(monkeypatch, hold=True)
        stopping = asyncio.create_task(rm.stop_replicas(1, 1, [(("t", p), -2, True) for p in range(3)]))
        loop = asyncio.get_running_loop()
        assert await loop.run_in_executor(None, recorder.entered.wait, WAIT_S)
        creating = asyncio.create_task(host(rm, "t", 3, new_id, epoch=2))
        for _ in range(5):
            await asyncio.sleep(0)
        assert not creating.done()  # behind the StopReplica
        assert all(log_manager.get_log("t", p) is None for p in range(3))
        recorder.release.set()
        top, errors = await asyncio.wait_for(stopping, WAIT_S)
        assert top is ErrorCode.NONE and set(errors.values()) == {ErrorCode.NONE}
        await asyncio.wait_for(creating, WAIT_S)
        for p in range(3):
            plog = log_manager.get_log("t", p)
            assert plog.log_end_offset == 0 and plog.topic_id == new_id
            assert read_partition_metadata(plog.dir) == new_id
            assert plog.dir.parent == old_dirs[p].parent or not old_dirs[p].exists()
            assert rm.get_partition("t", p).log is plog
        assert not [p for p in delete_dirs(log_manager, "t") if p.name.endswith("-delete")]

    asyncio.run(scenario())


def test_a_log_created_while_its_old_dir_is_being_renamed_never_takes_the_old_files(log_manager, monkeypatch):
    """At the log manager: a detached log's dir keeps its name until the rename job reaches it.
    A creation of the same partition meanwhile is refused and leaves the old dir alone (before:
    the refused creation removed the old dir, and the rename then failed); once renamed, the
    partition is created afresh."""

    async def scenario():
        old_id, new_id = uuid.uuid4(), uuid.uuid4()
        log_manager.create_topic("t", 1, old_id, {})
        plog = log_manager.get_log("t", 0)
        plog.append_as_leader(memoryview(make_batch(3, timestamp=BASE_TS)), leader_epoch=0)
        old_dir = plog.dir
        old_files = sorted(p.name for p in old_dir.iterdir())
        recorder = RenameRecorder(monkeypatch, hold=True)
        detached = log_manager.detach_log("t", 0)
        assert detached is plog and log_manager.get_log("t", 0) is None
        loop = asyncio.get_running_loop()
        job = loop.run_in_executor(None, log_creation.rename_each_for_deletion, [plog])
        assert await loop.run_in_executor(None, recorder.entered.wait, WAIT_S)
        with pytest.raises(LogDirError):
            log_manager.get_or_create_log("t", 0, new_id, {})
        assert sorted(p.name for p in old_dir.iterdir()) == old_files  # untouched
        recorder.release.set()
        (renamed,) = await asyncio.wait_for(job, WAIT_S)
        assert isinstance(renamed, Path) and renamed.name.endswith("-delete") and not old_dir.exists()
        assert sorted(p.name for p in renamed.iterdir()) == old_files
        log_manager.logs_renamed_for_deletion([plog], [renamed])
        fresh = log_manager.get_or_create_log("t", 0, new_id, {})
        assert fresh is not plog and fresh.dir == old_dir and fresh.log_end_offset == 0
        assert read_partition_metadata(fresh.dir) == new_id

    asyncio.run(scenario())


def test_a_failed_rename_answers_kafka_storage_error_for_that_partition_only(log_manager, monkeypatch):
    """An OSError renaming one partition's dir is KAFKA_STORAGE_ERROR for it (no longer hosted,
    its dir left in place) and takes its log dir offline (Kafka's asyncDelete renames under
    maybeHandleIOException); the other partitions are deleted."""

    async def scenario():
        rm = ReplicaManager(ME, log_manager, lambda: BASE_TS)
        await host(rm, "doomed", 3, uuid.uuid4())
        broken = log_manager.get_log("doomed", 1).dir
        real_replace = os.replace

        def replace(src, dst, *args, **kwargs):
            if Path(src) == broken and os.fspath(dst).endswith("-delete"):
                raise OSError(errno.EIO, "Input/output error", os.fspath(src))
            return real_replace(src, dst, *args, **kwargs)

        monkeypatch.setattr(os, "replace", replace)
        top, errors = await rm.stop_replicas(1, 1, [(("doomed", p), -2, True) for p in range(3)])
        assert top is ErrorCode.NONE
        assert errors == {
            ("doomed", 0): ErrorCode.NONE,
            ("doomed", 1): ErrorCode.KAFKA_STORAGE_ERROR,
            ("doomed", 2): ErrorCode.NONE,
        }
        assert all(rm.get_partition("doomed", p) is None for p in range(3))
        assert all(log_manager.get_log("doomed", p) is None for p in range(3))
        assert delete_dirs(log_manager, "doomed") == [broken]
        assert log_manager.failure_channel.is_offline(broken.parent)

    asyncio.run(scenario())


class _CountingScans(dict):
    """The log manager's map of hosted logs, counting full iterations over it."""

    scans = 0

    def __iter__(self):
        self.scans += 1
        return super().__iter__()


def test_deleting_partitions_does_not_scan_the_hosted_logs(tmp_path):
    """Whether a deleted partition was its topic's last is a per-topic count, not a scan of
    every hosted log per partition (quadratic for a topic of thousands of partitions). The
    topic's id and overrides go with its last partition."""
    lm = LogManager([tmp_path / "d"], resolve_topic_defaults({}))
    counting = _CountingScans()
    lm._logs = lm.checkpoints._logs = lm.background._logs = counting
    lm.startup()
    try:
        lm.create_topic("doomed", 8, uuid.uuid4(), {"retention.ms": "1000"})
        lm.create_topic("keep", 2, uuid.uuid4(), {})
        deletions: list[list[Path]] = []
        lm.checkpoints.after_deletion = lambda dirs: deletions.append(list(dirs))  # its own write scans
        counting.scans = 0
        for p in range(7):
            assert lm.delete_log("doomed", p)
            assert lm.topic_overrides("doomed") == {"retention.ms": "1000"}
        assert counting.scans == 0
        assert lm.delete_log("doomed", 7)
        assert not lm.delete_log("doomed", 7)
        assert counting.scans == 0
        assert lm.topic_overrides("doomed") is None and set(lm.topics()) == {"keep"}
        assert len(deletions) == 8
        lm.create_topic("doomed", 1, uuid.uuid4(), {})  # a new topic of the name
        assert lm.topics()["doomed"].partitions == 1
    finally:
        lm.shutdown()
