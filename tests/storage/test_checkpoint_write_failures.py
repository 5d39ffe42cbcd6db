"""I/O errors writing a log dir's checkpoint files (Kafka's CheckpointFileWithFailureHandler.write:
the IOException goes to the LogDirFailureChannel and becomes KafkaStorageException):
``cleaner-offset-checkpoint`` and a partition's ``leader-epoch-checkpoint``."""

from __future__ import annotations

import asyncio
import errno
import uuid

import pytest

from protocol.errors import ErrorCode, KafkaError
from storage.log_config import resolve_topic_defaults
from storage.log_manager import LogManager
from tests.broker.test_log_dir_failure import _fail_calls_under
from tests.storage.batch_factory import make_batch
from tests.storage.log_factory import open_log


def test_cleaner_checkpoint_write_error_takes_the_dir_offline(tmp_path, monkeypatch):
    """Kafka LogCleanerManager.updateCheckpoints writes through OffsetCheckpointFile /
    CheckpointFileWithFailureHandler.write: ``logDirFailureChannel.maybeAddOfflineLogDir``,
    then KafkaStorageException (which updateCheckpoints logs); the dir is offline."""
    dir_a, dir_b = tmp_path / "a", tmp_path / "b"
    lm = LogManager([dir_a, dir_b], resolve_topic_defaults({}))
    lm.startup()
    try:
        lm.create_topic("on-a", 1, uuid.uuid4(), {"cleanup.policy": "compact"})
        plog = lm.get_log("on-a", 0)
        assert plog.dir.parent == dir_a
        lm.cleaner.manager.update_checkpoint(plog, 0)
        with monkeypatch.context() as patch:
            _fail_calls_under(patch, dir_a, errno.EIO, calls=("write",))
            asyncio.run(lm.cleaner.write_checkpoints())
        assert lm.failure_channel.offline_dirs() == [dir_a]
    finally:
        lm.shutdown()


def _leader_batches(tmp_path) -> tuple[bytes, int, int]:
    """Two batches of producer 7 written by a leader in epochs 1 and 2: (their bytes, the
    byte position of the second, the offset it starts at)."""
    leader = open_log(tmp_path / "leader")
    batch = make_batch(2, producer_id=7, producer_epoch=0, base_sequence=0)
    leader.append_as_leader(memoryview(batch), 1)
    first_end = leader.log_end_offset
    batch = make_batch(2, producer_id=7, producer_epoch=0, base_sequence=2)
    leader.append_as_leader(memoryview(batch), 2)
    raw = (leader.dir / "00000000000000000000.log").read_bytes()
    split = leader.segments()[0].translate_offset(first_end).position
    leader.close()
    return raw, split, first_end


def test_follower_append_with_a_failing_epoch_checkpoint_appends_nothing(tmp_path, monkeypatch):
    """Kafka UnifiedLog.append (appendAsFollower) assigns the batches' epochs
    (maybeAssignEpochStartOffset -> LeaderEpochFileCache.assign -> CheckpointFileWithFailureHandler
    .write) before the segment is written: the IOException takes the dir offline and the
    append fails with KafkaStorageException, which the fetcher handles per partition, with the
    log end offset and the producer state as they were."""
    raw, split, first_end = _leader_batches(tmp_path)
    follower = open_log(tmp_path / "follower")
    follower.append_as_follower(raw[:split])
    size = follower.active_segment.size
    with monkeypatch.context() as patch:
        _fail_calls_under(patch, follower.dir, errno.EIO, calls=("write",))
        with pytest.raises(KafkaError) as caught:
            follower.append_as_follower(raw[split:])
    assert caught.value.error is ErrorCode.KAFKA_STORAGE_ERROR
    assert follower.dir_state.offline
    assert follower.log_end_offset == first_end and follower.active_segment.size == size
    assert follower.producer_state.active_producers()[7].last_seq == 1
    assert [e.epoch for e in follower.leader_epoch_cache.entries()] == [1]
    follower.close_handlers()


def test_a_full_disk_under_the_epoch_checkpoint_fails_the_append_until_space_is_back(tmp_path, monkeypatch):
    """Moldau's full-disk rule (docs/COMPATIBILITY.md, Disk errors; Kafka takes the dir
    offline): a new epoch's checkpoint that does not fit fails the leader's append with
    KAFKA_STORAGE_ERROR before anything is written, the dir stays online, and the next
    append assigns the epoch again and succeeds."""
    plog = open_log(tmp_path)
    plog.append_as_leader(memoryview(make_batch(1)), 0)
    with monkeypatch.context() as patch:
        _fail_calls_under(patch, plog.dir, errno.ENOSPC, calls=("write",))
        with pytest.raises(KafkaError) as caught:
            plog.append_as_leader(memoryview(make_batch(1)), 1)
    assert caught.value.error is ErrorCode.KAFKA_STORAGE_ERROR
    assert plog.dir_state.full and not plog.dir_state.offline
    assert plog.log_end_offset == 1 and [tuple(e) for e in plog.leader_epoch_cache.entries()] == [(0, 0)]
    assert plog.append_as_leader(memoryview(make_batch(1)), 1).base_offset == 1
    assert [tuple(e) for e in plog.leader_epoch_cache.entries()] == [(0, 0), (1, 1)]
    assert not plog.dir_state.full
    plog.close()
    reopened = open_log(tmp_path)
    assert [tuple(e) for e in reopened.leader_epoch_cache.entries()] == [(0, 0), (1, 1)]
    reopened.close()
