"""I/O errors in a log dir, injected in-process (Kafka's LogDirFailureChannel).

EIO (any I/O error but a full disk) takes the dir offline: one ERROR line, then its
partitions answer KAFKA_STORAGE_ERROR to appends, fetches and ListOffsets until the
next start, the background tasks skip it without a word, and new logs go to the other
dirs. A full disk (ENOSPC) fails the write but leaves the dir online: the next write
that fits resumes it. A creation that fails half-way leaves nothing behind.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from broker.replica_manager import ReplicaManager
from protocol.errors import ErrorCode, KafkaError
from storage.checkpoints import HIGH_WATERMARK_CHECKPOINT, RECOVERY_POINT_CHECKPOINT
from storage.log_config import resolve_topic_defaults
from storage.log_manager import CLEAN_SHUTDOWN_FILE, LogManager
from storage.log_types import LATEST_TIMESTAMP, FetchIsolation
from tests.broker.test_replica_manager import ME, consumer_fetch, produce
from tests.storage.batch_factory import BASE_TS

STORAGE_LOGGERS = ("storage", "broker", "coordinator")


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    return tmp_path / "a", tmp_path / "b"


def _started(dirs: tuple[Path, Path]) -> LogManager:
    lm = LogManager(list(dirs), resolve_topic_defaults({}))
    lm.startup()
    return lm


def _fail_calls_under(monkeypatch, directory: Path, err: int, calls: tuple[str, ...] = ("pwrite",)) -> None:
    """Make ``os.<call>`` on files below ``directory`` raise ``err`` (by the fd's path)."""
    for name in calls:
        real: Callable = getattr(os, name)

        def failing(fd, *args, _real=real):
            if os.readlink(f"/proc/self/fd/{fd}").startswith(str(directory)):
                raise OSError(err, os.strerror(err))
            return _real(fd, *args)

        monkeypatch.setattr(os, name, failing)


def _records(caplog, level: int = logging.INFO) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name.startswith(STORAGE_LOGGERS) and r.levelno >= level]


def _background_passes(lm: LogManager) -> None:
    async def run() -> None:
        await lm.background.flush_pass()
        await lm.background.retention_pass()
        await lm.checkpoints.write_async(HIGH_WATERMARK_CHECKPOINT)
        await lm.checkpoints.write_async(RECOVERY_POINT_CHECKPOINT)

    asyncio.run(run())


def _list_offsets_error(rm: ReplicaManager, topic: str) -> ErrorCode:
    try:
        rm.fetch_offset_for_timestamp(
            topic, 0, LATEST_TIMESTAMP, isolation=FetchIsolation.HIGH_WATERMARK, current_leader_epoch=-1
        )
    except KafkaError as exc:
        return exc.error
    return ErrorCode.NONE


def test_eio_takes_the_dir_offline_and_its_partitions_answer_storage_errors(dirs, monkeypatch, caplog):
    dir_a, dir_b = dirs
    lm = _started(dirs)
    lm.create_topic("on-a", 1, uuid.uuid4(), {})
    lm.create_topic("on-b", 1, uuid.uuid4(), {})
    assert lm.get_log("on-a", 0).dir.parent == dir_a
    assert lm.get_log("on-b", 0).dir.parent == dir_b
    rm = ReplicaManager(ME, lm, lambda: BASE_TS)
    rm.lead_local_logs()
    assert produce(rm, "on-a").error is None

    caplog.set_level(logging.INFO)
    with monkeypatch.context() as patch:
        _fail_calls_under(patch, dir_a, errno.EIO)
        failed = produce(rm, "on-a")
    assert failed.error is not None and failed.error.error is ErrorCode.KAFKA_STORAGE_ERROR
    records = _records(caplog)
    assert len(records) == 1, records
    assert records[0].levelno == logging.ERROR
    assert str(dir_a) in records[0].getMessage() and "Input/output error" in records[0].getMessage()
    assert lm.failure_channel.offline_dirs() == [dir_a]

    # The disk works again, but the dir stays offline until the next start (as Kafka).
    caplog.clear()
    assert produce(rm, "on-a").error.error is ErrorCode.KAFKA_STORAGE_ERROR
    assert consumer_fetch(rm, "on-a", 0, wait_ms=0)[0].error is ErrorCode.KAFKA_STORAGE_ERROR
    assert _list_offsets_error(rm, "on-a") is ErrorCode.KAFKA_STORAGE_ERROR
    # The other dir serves as before; new logs go there.
    assert produce(rm, "on-b").error is None
    assert consumer_fetch(rm, "on-b", 0, wait_ms=0)[0].error is ErrorCode.NONE
    assert _list_offsets_error(rm, "on-b") is ErrorCode.NONE
    lm.create_topic("new", 2, uuid.uuid4(), {})
    assert {lm.get_log("new", p).dir.parent for p in range(2)} == {dir_b}
    # Background tasks skip the offline dir quietly.
    _background_passes(lm)
    _background_passes(lm)
    assert _records(caplog, logging.WARNING) == []

    lm.shutdown()
    assert not (dir_a / CLEAN_SHUTDOWN_FILE).exists()  # recovered at the next start
    assert (dir_b / CLEAN_SHUTDOWN_FILE).exists()
    lm = _started(dirs)
    try:
        rm = ReplicaManager(ME, lm, lambda: BASE_TS)
        rm.lead_local_logs()
        assert lm.get_log("on-a", 0).log_end_offset == 1
        assert produce(rm, "on-a").error is None
    finally:
        lm.shutdown()


def test_a_failed_fsync_takes_the_dir_offline_without_a_traceback(dirs, monkeypatch, caplog):
    dir_a, _ = dirs
    lm = _started(dirs)
    try:
        lm.create_topic("on-a", 1, uuid.uuid4(), {})
        rm = ReplicaManager(ME, lm, lambda: BASE_TS)
        rm.lead_local_logs()
        assert produce(rm, "on-a", n=3).error is None
        plog = lm.get_log("on-a", 0)
        caplog.set_level(logging.INFO)
        with monkeypatch.context() as patch:
            _fail_calls_under(patch, dir_a, errno.EIO, calls=("fsync",))
            assert asyncio.run(lm.flush_log(plog)) == 0  # the recovery point stays
            _background_passes(lm)
            _background_passes(lm)
        records = _records(caplog, logging.WARNING)
        assert len(records) == 1 and records[0].levelno == logging.ERROR, records
        assert records[0].exc_info is None
        assert lm.failure_channel.offline_dirs() == [dir_a]
        assert lm.get_log("on-a", 0).recovery_point == 0  # nothing was made durable
        assert produce(rm, "on-a").error.error is ErrorCode.KAFKA_STORAGE_ERROR
    finally:
        lm.shutdown()


def test_enospc_fails_the_write_and_the_dir_recovers_when_space_frees(dirs, monkeypatch, caplog):
    dir_a, _ = dirs
    lm = _started(dirs)
    try:
        lm.create_topic("on-a", 1, uuid.uuid4(), {})
        rm = ReplicaManager(ME, lm, lambda: BASE_TS)
        rm.lead_local_logs()
        assert produce(rm, "on-a", n=2).error is None
        caplog.set_level(logging.INFO)
        with monkeypatch.context() as patch:
            _fail_calls_under(patch, dir_a, errno.ENOSPC, calls=("pwrite", "write"))
            for _ in range(5):
                assert produce(rm, "on-a").error.error is ErrorCode.KAFKA_STORAGE_ERROR
            # Reads still work: the dir is online.
            assert consumer_fetch(rm, "on-a", 0, wait_ms=0)[0].error is ErrorCode.NONE
            _background_passes(lm)
        records = _records(caplog, logging.WARNING)
        assert [(r.levelno, "is full" in r.getMessage()) for r in records] == [(logging.WARNING, True)]
        assert lm.failure_channel.offline_dirs() == []

        caplog.clear()
        info = produce(rm, "on-a").info
        assert info is not None and info.base_offset == 2  # nothing of the failed writes is left
        assert [r.getMessage() for r in _records(caplog)] == [
            f"log dir {dir_a} has space again; writes resume"
        ]
        read = consumer_fetch(rm, "on-a", 0, wait_ms=0)[0]
        assert read.error is ErrorCode.NONE and read.high_watermark == 3
    finally:
        lm.shutdown()


def test_a_creation_failing_half_way_leaves_nothing_behind(dirs, monkeypatch):
    dir_a, dir_b = dirs
    lm = _started(dirs)
    try:
        import storage.log_creation as log_creation_module

        real = log_creation_module.write_partition_metadata
        calls = []

        def fail_on_the_third(path, topic_id):
            calls.append(path)
            if len(calls) == 3:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            return real(path, topic_id)

        with monkeypatch.context() as patch:
            patch.setattr(log_creation_module, "write_partition_metadata", fail_on_the_third)
            with pytest.raises(KafkaError) as err:
                lm.create_topic("t", 4, uuid.uuid4(), {"retention.ms": 1000})
        assert err.value.error is ErrorCode.KAFKA_STORAGE_ERROR
        assert "t" not in lm.topics()
        assert lm.get_log("t", 0) is None
        assert not list(dir_a.glob("t-*")) and not list(dir_b.glob("t-*"))
        # The same topic can be created once the disk has room again.
        logs = lm.create_topic("t", 4, uuid.uuid4(), {"retention.ms": 1000})
        assert len(logs) == 4
    finally:
        lm.shutdown()
    lm = _started(dirs)
    try:
        assert lm.topics()["t"].partitions == 4
    finally:
        lm.shutdown()


def test_a_read_error_takes_the_dir_offline(dirs, monkeypatch, caplog):
    dir_a, _ = dirs
    lm = _started(dirs)
    try:
        lm.create_topic("on-a", 1, uuid.uuid4(), {})
        rm = ReplicaManager(ME, lm, lambda: BASE_TS)
        rm.lead_local_logs()
        assert produce(rm, "on-a", n=3).error is None
        caplog.set_level(logging.INFO)
        with monkeypatch.context() as patch:
            _fail_calls_under(patch, dir_a, errno.EIO, calls=("pread",))
            assert consumer_fetch(rm, "on-a", 0, wait_ms=0)[0].error is ErrorCode.KAFKA_STORAGE_ERROR
        assert lm.failure_channel.offline_dirs() == [dir_a]
        assert len(_records(caplog, logging.WARNING)) == 1
        assert consumer_fetch(rm, "on-a", 0, wait_ms=0)[0].error is ErrorCode.KAFKA_STORAGE_ERROR
    finally:
        lm.shutdown()


def test_all_dirs_offline_refuses_new_logs_with_a_storage_error(dirs, monkeypatch):
    lm = _started(dirs)
    try:
        for d in dirs:
            lm.failure_channel.report(d, OSError(errno.EIO, "Input/output error"), "testing")
        with pytest.raises(KafkaError) as err:
            lm.create_topic("t", 1, uuid.uuid4(), {})
        assert err.value.error is ErrorCode.KAFKA_STORAGE_ERROR
        assert "t" not in lm.topics()
    finally:
        lm.shutdown()
