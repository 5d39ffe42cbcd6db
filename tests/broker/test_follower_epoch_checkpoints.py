"""Leader-epoch checkpoints are written off the event loop on the two control paths that used to
write them on it, once per partition:

1. A follower's append of the first batches of a new leader epoch (Kafka:
   ``ReplicaFetcherThread.processPartitionData`` -> ``UnifiedLog.appendAsFollower`` ->
   ``LeaderEpochFileCache.assign``, on the fetcher thread). The ``ReplicaFetcher`` writes the
   epochs a fetch answer's batches start ahead, all partitions in one executor job, then
   appends: the assigns find the file written.
2. LeaderAndIsr's new leaders while a background write of the same cache (a former leader's
   cut epochs, ``truncateFromEndAsyncFlush``) is still in flight: the epoch written ahead by
   ``_write_new_leader_epochs`` is not written again by ``Partition.make_leader`` on the loop.

The checks record the thread of every write of a ``leader-epoch-checkpoint`` file: none may be
the event loop's (``asyncio.run`` runs it on the main thread here).
"""

from __future__ import annotations

import asyncio
import errno
import os
import threading
import uuid

import pytest

import broker.replica_fetcher as replica_fetcher
import storage.log_background as log_background
from broker.partition import Partition
from broker.replica_fetcher import ReplicaFetcher, ReplicationSettings
from broker.replica_manager import ReplicaManager
from coordinator.cluster_state import PartitionState
from protocol.errors import ErrorCode
from storage.checkpoints import LeaderEpochCheckpointFile
from storage.log_config import resolve_topic_defaults
from storage.log_manager import LogManager
from storage.partition_log import PartitionLog
from tests.broker.test_log_dir_failure import _fail_calls_under
from tests.broker.test_replica_fetcher import LoopbackClient, write
from tests.storage.batch_factory import BASE_TS
from tests.storage.log_factory import open_log

LEADER, FOLLOWER = 0, 1
WAIT_S = 30.0  # bounds a wait for an event that should come; nothing is asserted on timing


class CheckpointWrites:
    """The threads that wrote ``leader-epoch-checkpoint`` files below ``under``."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, under: os.PathLike) -> None:
        self.threads: list[int] = []
        real = os.write
        prefix = os.fspath(under)

        def recording(fd, data):
            path = os.readlink(f"/proc/self/fd/{fd}")
            if path.startswith(prefix) and "leader-epoch-checkpoint" in path:
                self.threads.append(threading.get_ident())
            return real(fd, data)

        monkeypatch.setattr(os, "write", recording)

    def on(self, thread_id: int) -> int:
        return sum(1 for t in self.threads if t == thread_id)


def _entries(plog: PartitionLog) -> list[tuple[int, int]]:
    return [tuple(e) for e in plog.leader_epoch_cache.entries()]


def _file_entries(plog: PartitionLog) -> list[tuple[int, int]]:
    return [tuple(e) for e in LeaderEpochCheckpointFile(plog.leader_epoch_cache.path).read()]


class Replicas:
    """A leader ReplicaManager of ``t`` (3 partitions) at epoch 2 whose logs hold batches of
    several epochs, and a follower of each partition (empty logs) with its ReplicaFetcher."""

    def __init__(self, tmp_path) -> None:
        self.lm = LogManager([tmp_path / "leader"], resolve_topic_defaults({}))
        self.lm.startup()
        self.lm.create_topic("t", 3, uuid.uuid4(), {})
        logs = [self.lm.get_log("t", p) for p in range(3)]
        write(logs[0], 1, 0, n=2)  # p0: epoch 0 at 0, epoch 2 at 2
        write(logs[2], 1, 0, n=2)  # p2: epoch 0 at 0, epoch 1 at 2, epoch 2 at 4
        write(logs[2], 2, 1, n=2)
        self.rm = ReplicaManager(LEADER, self.lm, lambda: BASE_TS)
        self.states = [
            PartitionState("t", p, LEADER, 2, (LEADER, FOLLOWER), (LEADER, FOLLOWER)) for p in range(3)
        ]
        self.rm.on_topics_changed({}, self.states)  # p1: epoch 2 at 0
        for p in range(3):
            write(logs[p], 10 + p, 2, n=2)
        self.leader_logs = logs
        self.dir = tmp_path / "follower"
        self.logs = [open_log(self.dir, name=f"t-{p}") for p in range(3)]
        self.partitions = []
        for plog, state in zip(self.logs, self.states, strict=True):
            partition = Partition(plog, local_broker_id=FOLLOWER, time_ms=lambda: BASE_TS)
            partition.make_follower(state)
            self.partitions.append(partition)

    def fetcher(self) -> ReplicaFetcher:
        fetcher = ReplicaFetcher(FOLLOWER, LEADER, lambda _b: None, ReplicationSettings(fetch_backoff_ms=10))
        fetcher.client = LoopbackClient(self.rm)  # type: ignore[assignment]
        return fetcher

    def caught_up(self, p: int) -> bool:
        return self.logs[p].log_end_offset == self.leader_logs[p].log_end_offset

    def close(self) -> None:
        for plog in self.logs:
            plog.close()
        self.lm.shutdown()


@pytest.fixture
def replicas(tmp_path):
    r = Replicas(tmp_path)
    yield r
    r.close()


async def _until(condition, what: str) -> None:
    for _ in range(int(WAIT_S / 0.005)):
        if condition():
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"not reached: {what}")


def test_a_follower_writes_the_new_epochs_of_a_fetch_answer_ahead_off_the_loop(replicas, monkeypatch):
    """Kafka assigns a follower's new epochs on the fetcher thread; here the checkpoints of the
    three partitions (one new epoch, two, three in one answer) are written in one executor
    job, and the appends write none on the loop, not even for an epoch before the last."""
    writes = CheckpointWrites(monkeypatch, replicas.dir)
    jobs: list[int] = []
    real_job = getattr(replica_fetcher, "write_pending_checkpoints", None)
    monkeypatch.setattr(
        replica_fetcher,
        "write_pending_checkpoints",
        lambda pending: jobs.append(len(pending)) or real_job(pending),
        raising=False,  # (so that, without the write-ahead, the test fails on what it checks)
    )

    async def scenario() -> int:
        fetcher = replicas.fetcher()
        for partition in replicas.partitions:
            fetcher.add(partition)
        await _until(lambda: all(replicas.caught_up(p) for p in range(3)), "the followers caught up")
        await fetcher.close()
        return threading.get_ident()

    loop_thread = asyncio.run(scenario())
    for p in range(3):
        assert _entries(replicas.logs[p]) == _entries(replicas.leader_logs[p])
        assert _file_entries(replicas.logs[p]) == _entries(replicas.logs[p])
    assert _entries(replicas.logs[2]) == [(0, 0), (1, 2), (2, 4)]
    assert writes.threads, "no checkpoint was written"
    assert writes.on(loop_thread) == 0, "a follower's checkpoint was written on the event loop"
    assert jobs == [3]  # one job for the answer's three partitions


def test_a_failed_epoch_write_ahead_takes_the_dir_offline_and_appends_nothing(replicas, monkeypatch):
    """As a failed ``assign`` (Kafka's ``CheckpointFileWithFailureHandler``): the log dir is told
    (offline on EIO), the partition's batches are not appended; the other partitions go on."""

    async def scenario() -> None:
        fetcher = replicas.fetcher()
        for partition in replicas.partitions:
            fetcher.add(partition)
        await _until(lambda: replicas.caught_up(0) and replicas.caught_up(2), "the others caught up")
        await _until(lambda: replicas.logs[1].dir_state.offline, "p1's dir offline")
        await fetcher.close()

    with monkeypatch.context() as patch:
        _fail_calls_under(patch, replicas.logs[1].dir, errno.EIO, calls=("write",))
        asyncio.run(scenario())
    assert replicas.logs[1].log_end_offset == 0 and _entries(replicas.logs[1]) == []
    assert _file_entries(replicas.logs[1]) == []


def test_epochs_written_ahead_for_a_partition_that_changed_meanwhile_are_not_kept(replicas, monkeypatch):
    """A partition removed from the fetcher while its epochs were being written: its answer is
    dropped (nothing appended) and the file is brought back to the cache's entries, so it does
    not keep an epoch the log lacks."""
    started, release = threading.Event(), threading.Event()
    real_job = replica_fetcher.write_pending_checkpoints

    def held_job(pending):
        started.set()
        release.wait(WAIT_S)
        return real_job(pending)

    monkeypatch.setattr(replica_fetcher, "write_pending_checkpoints", held_job)

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        fetcher = replicas.fetcher()
        for partition in replicas.partitions:
            fetcher.add(partition)
        assert await loop.run_in_executor(None, started.wait, WAIT_S), "the write-ahead never started"
        fetcher.remove(replicas.partitions[1].key)
        monkeypatch.setattr(replica_fetcher, "write_pending_checkpoints", real_job)
        release.set()
        await _until(lambda: replicas.caught_up(0) and replicas.caught_up(2), "the others caught up")
        await fetcher.close()

    try:
        asyncio.run(scenario())
    finally:
        release.set()
    dropped = replicas.logs[1]
    assert dropped.log_end_offset == 0 and _entries(dropped) == [] == _file_entries(dropped)
    assert not dropped.leader_epoch_cache.dirty
    assert _file_entries(replicas.logs[2]) == [(0, 0), (1, 2), (2, 4)]


def test_leader_and_isr_writes_no_epoch_on_the_loop_while_an_older_background_write_is_in_flight(
    tmp_path, monkeypatch
):
    """A former leader whose last epoch had no records cut it (a follower's truncation, Kafka's
    ``truncateFromEndAsyncFlush``): the log manager's background write of that checkpoint is
    queued and, on a slow disk, still running when LeaderAndIsr makes the broker leader again.
    The new epoch is written ahead in an executor (``_write_new_leader_epochs``) and
    ``Partition.make_leader``'s assign must not write it again on the loop; the older
    background write, done last, does not replace the newer file."""
    lm = LogManager([tmp_path / "logs"], resolve_topic_defaults({}))
    lm.startup()
    background_started, background_release = threading.Event(), threading.Event()
    real_background = log_background.write_pending_checkpoints

    def slow_background_write(pending):  # an executor thread: a slow disk
        background_started.set()
        background_release.wait(WAIT_S)
        return real_background(pending)

    try:
        lm.create_topic("flip", 2, uuid.uuid4(), {})
        ids = {t: info.topic_id for t, info in lm.topics().items()}
        rm = ReplicaManager(1, lm, lambda: BASE_TS)

        async def no_overrides(_topic: str) -> dict:
            return {}

        def leader_and_isr(epoch: int):
            states = [
                PartitionState("flip", p, 1, epoch, (1,), (1,), controller_epoch=1, partition_epoch=epoch)
                for p in range(2)
            ]
            return rm.become_leader_or_follower(1, 1, states, ids, topic_overrides=no_overrides)

        asyncio.run(leader_and_isr(1))
        plogs = [rm.get_partition("flip", p).log for p in range(2)]
        for plog in plogs:
            write(plog, 1, 1, n=3)
        asyncio.run(leader_and_isr(2))  # epoch 2 starts at 3, nothing written in it
        writes = CheckpointWrites(monkeypatch, tmp_path / "logs")
        monkeypatch.setattr(log_background, "write_pending_checkpoints", slow_background_write)

        async def scenario() -> tuple[int, dict]:
            loop = asyncio.get_running_loop()
            for plog in plogs:
                plog.truncate_to(plog.log_end_offset)  # as a follower would: epoch 2 cut
                assert plog.leader_epoch_cache.dirty
            assert await loop.run_in_executor(None, background_started.wait, WAIT_S)
            try:
                _, errors = await leader_and_isr(3)
            finally:
                background_release.set()
            await lm.background.write_epoch_checkpoints_now()
            return threading.get_ident(), errors

        loop_thread, errors = asyncio.run(scenario())
        assert errors == {("flip", 0): ErrorCode.NONE, ("flip", 1): ErrorCode.NONE}
        assert writes.on(loop_thread) == 0, "make_leader wrote an epoch checkpoint on the event loop"
        for plog in plogs:
            assert _entries(plog) == [(1, 0), (3, 3)] == _file_entries(plog)
            assert not plog.leader_epoch_cache.dirty
    finally:
        background_release.set()
        lm.shutdown()
