"""Log dirs that fail while the broker starts (Kafka's ``LogManager.createAndValidateLogDirs`` /
``lockLogDirs`` / ``loadLogs``): an I/O error in one dir takes that dir offline; the other dirs
load and serve. Only when no dir is left does the start fail (Kafka: ``Exit.halt``)."""

from __future__ import annotations

import errno
import os
import uuid
from pathlib import Path

import pytest

from broker.replica_manager import ReplicaManager
from storage.log_config import resolve_topic_defaults
from storage.log_dir_failure import LogDirError
from storage.log_manager import CLEAN_SHUTDOWN_FILE, LogManager
from storage.partition_metadata import META_PROPERTIES_FILE
from tests.broker.test_log_dir_failure import _fail_calls_under
from tests.broker.test_replica_manager import ME, produce
from tests.storage.batch_factory import BASE_TS


def _two_dirs_with_data(tmp_path: Path) -> tuple[Path, Path]:
    """Dirs a and b, each holding one topic (on-a, on-b) with 3 records, shut down cleanly."""
    dir_a, dir_b = tmp_path / "a", tmp_path / "b"
    lm = LogManager([dir_a, dir_b], resolve_topic_defaults({}))
    lm.startup()
    lm.create_topic("on-a", 1, uuid.uuid4(), {})
    lm.create_topic("on-b", 1, uuid.uuid4(), {})
    assert lm.get_log("on-a", 0).dir.parent == dir_a
    assert lm.get_log("on-b", 0).dir.parent == dir_b
    rm = ReplicaManager(ME, lm, lambda: BASE_TS)
    rm.lead_local_logs()
    assert produce(rm, "on-a", n=3).error is None
    assert produce(rm, "on-b", n=3).error is None
    lm.shutdown()
    return dir_a, dir_b


def test_an_io_error_while_loading_one_dir_leaves_the_other_dirs_loaded(tmp_path, monkeypatch):
    """Kafka LogManager.loadLogs: an IOException while loading a log of one dir is
    handleIOException -> logDirFailureChannel.maybeAddOfflineLogDir; the broker starts with
    the other dirs (it halts only when no dir is left, createAndValidateLogDirs). The failed
    dir's logs are not hosted."""
    dir_a, dir_b = _two_dirs_with_data(tmp_path)
    (dir_a / CLEAN_SHUTDOWN_FILE).unlink()  # dir a crashed: its segments are recovered (read)
    lm = LogManager([dir_a, dir_b], resolve_topic_defaults({}))
    with monkeypatch.context() as patch:
        _fail_calls_under(patch, dir_a / "on-a-0", errno.EIO, calls=("pread", "read"))
        lm.startup()
    try:
        assert lm.failure_channel.offline_dirs() == [dir_a]
        assert lm.get_log("on-a", 0) is None and "on-a" not in lm.topics()
        assert lm.get_log("on-b", 0) is not None and lm.get_log("on-b", 0).log_end_offset == 3
    finally:
        lm.shutdown()
    assert not (dir_a / CLEAN_SHUTDOWN_FILE).exists()  # recovered again at the next start


def test_a_log_dir_that_is_not_a_directory_is_offline_and_the_others_start(tmp_path):
    """Kafka LogManager.createAndValidateLogDirs: a dir that cannot be created or is not a
    readable directory is an IOException -> maybeAddOfflineLogDir; the broker starts with the
    live dirs (Exit.halt only when liveLogDirs is empty), and meta.properties is read and
    written in the live dirs only (KafkaServer: the offline dirs are left out)."""
    _, dir_b = _two_dirs_with_data(tmp_path)
    broken = tmp_path / "broken"
    broken.write_bytes(b"not a directory")  # e.g. a mount point gone bad
    lm = LogManager([broken, dir_b], resolve_topic_defaults({}))
    lm.startup()
    try:
        assert lm.failure_channel.is_offline(broken)
        assert lm.get_log("on-b", 0) is not None and lm.get_log("on-b", 0).log_end_offset == 3
        broker_id, _cluster = lm.ensure_meta_properties(7, None)
        assert broker_id == 7 and (dir_b / META_PROPERTIES_FILE).is_file()
        assert broken.read_bytes() == b"not a directory"
    finally:
        lm.shutdown()


def test_a_start_with_every_log_dir_failed_stops(tmp_path):
    """Kafka LogManager.createAndValidateLogDirs: "Shutdown broker because none of the
    specified log dirs ... can be created or validated" when no dir is left."""
    broken = [tmp_path / "x", tmp_path / "y"]
    for path in broken:
        path.write_bytes(b"")
    lm = LogManager(broken, resolve_topic_defaults({}))
    with pytest.raises(LogDirError, match="none of the specified log dirs") as caught:
        lm.startup()
    lm.shutdown()
    assert all(f"cannot create log dir {path}" in str(caught.value) for path in broken)


def test_an_io_error_reading_partition_metadata_does_not_rewrite_the_topic_id(tmp_path, monkeypatch):
    """Kafka PartitionMetadataFile.read: an IOException reading ``partition.metadata`` goes to
    the LogDirFailureChannel and throws KafkaStorageException (UnifiedLog.initializeTopicId),
    so the dir goes offline; the file is never replaced by a new random topic id."""
    dir_a, dir_b = _two_dirs_with_data(tmp_path)
    meta = dir_a / "on-a-0" / "partition.metadata"
    before = meta.read_bytes()
    lm = LogManager([dir_a, dir_b], resolve_topic_defaults({}))
    with monkeypatch.context() as patch:
        real_read = os.read

        def failing_read(fd: int, n: int) -> bytes:
            if os.readlink(f"/proc/self/fd/{fd}") == str(meta):
                raise OSError(errno.EIO, os.strerror(errno.EIO))
            return real_read(fd, n)

        patch.setattr(os, "read", failing_read)
        lm.startup()
    try:
        assert meta.read_bytes() == before
        assert lm.failure_channel.offline_dirs() == [dir_a]
        assert lm.get_log("on-b", 0) is not None
    finally:
        lm.shutdown()
