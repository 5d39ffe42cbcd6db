"""File work that grows with a request (or with the log) must not hold the event loop.

Each test holds one kind of file work (an ``os`` call on a given kind of file) on a
``threading.Event`` while a request runs, then shows that the broker still answers another
connection's ApiVersions meanwhile. If the held work runs on the event loop, that answer cannot
come before the release and the probe fails at its deadline (the held call gives up on its
own later, so the broker is never left stuck). Nothing is asserted on timing. (Retention's
slices: tests/storage/test_deferred_file_work.py.)
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from broker.broker import Broker
from broker.config import BrokerConfig
from broker.testing.inprocess import LoopThread
from protocol.messages import (
    ApiVersionsRequest,
    CreateTopicsRequest,
    DeleteRecordsRequest,
)
from storage.producer_state import AppendOrigin
from tests.storage.batch_factory import BASE_TS, make_batch
from tests.support.wire_client import WireClient

PROBE_DEADLINE_S = 10.0  # the probe's answer must come while the work is held
HOLD_LIMIT_S = 30.0  # a held call gives up after this, so a loop-held broker recovers


class Running:
    def __init__(self, loop: LoopThread, broker: Broker, log_dir: Path) -> None:
        self.loop, self.broker, self.log_dir = loop, broker, log_dir
        self.host, self.port = broker.server.bound[0][:2]

    def client(self, timeout: float = 60.0) -> WireClient:
        return WireClient(self.host, self.port, timeout=timeout)

    def on_loop(self, fn: Callable[[], object]) -> object:
        async def run() -> object:
            return fn()

        return self.loop.call(run())


@pytest.fixture
def running(tmp_path: Path) -> Iterator[Callable[..., Running]]:
    started: list[tuple[LoopThread, Broker]] = []

    def start(**overrides: str) -> Running:
        log_dir = tmp_path / "logs"
        values = {"log.dirs": str(log_dir), "listeners": "PLAINTEXT://127.0.0.1:0", **overrides}
        loop = LoopThread("review-broker-loop")
        broker = Broker(BrokerConfig(values))
        loop.call(broker.start())
        started.append((loop, broker))
        return Running(loop, broker, log_dir)

    yield start
    for loop, broker in started:
        with contextlib.suppress(Exception):
            loop.call(broker.stop(), timeout=60)
        loop.close()


class HeldFileWork:
    """Holds every call of ``os.<name>`` whose file matches ``matches`` once ``arm`` is called."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, name: str, matches: Callable[[str], bool]) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self.armed = False
        original = getattr(os, name)

        def held(*args, **kwargs):
            if self.armed and matches(_path_of(name, args)):
                self.entered.set()
                self.release.wait(HOLD_LIMIT_S)
            return original(*args, **kwargs)

        monkeypatch.setattr(os, name, held)

    def arm(self) -> None:
        self.armed = True


def _path_of(name: str, args: tuple) -> str:
    if name == "fsync":
        target = args[0]
        fd = target if isinstance(target, int) else target.fileno()
        try:
            return os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            return ""
    return os.fspath(args[1] if name in ("replace", "rename") else args[0])


def probe_answers_while_held(
    running: Running,
    held: HeldFileWork,
    send: Callable[[WireClient], object],
    *,
    none_is_fine: bool = False,
) -> None:
    """Send ``send``'s request on one connection; once the held work has started, an
    ApiVersions on another connection must be answered before the work is released.
    ``none_is_fine``: a request answered without starting that work at all passes too
    (Kafka does no such file work in the request)."""
    outcome: list[object] = []
    with running.client() as sender, running.client(timeout=PROBE_DEADLINE_S) as probe:
        probe.request(ApiVersionsRequest(), 0)  # connected and warm
        held.arm()
        thread = threading.Thread(target=lambda: outcome.append(send(sender)))
        thread.start()
        try:
            for _ in range(1200):  # up to 60 s for the held work to start
                if held.entered.wait(0.05):
                    break
                if none_is_fine and outcome:
                    return
            else:
                pytest.fail("the held file work never started")
            try:
                answer = probe.request(ApiVersionsRequest(), 0)
            except TimeoutError:
                pytest.fail("the event loop did not answer ApiVersions while the file work was held")
            assert answer.error_code == 0
        finally:
            held.release.set()
            thread.join(120)
    assert outcome, "the request under test was not answered"


def _create(client: WireClient, name: str, partitions: int, configs: dict[str, str]) -> None:
    request = CreateTopicsRequest(
        topics=[
            CreateTopicsRequest.CreatableTopic(
                name=name,
                num_partitions=partitions,
                replication_factor=1,
                configs=[
                    CreateTopicsRequest.CreatableTopicConfig(name=k, value=v) for k, v in configs.items()
                ],
            )
        ],
        timeout_ms=60_000,
    )
    assert client.request(request, 7).topics[0].error_code == 0


def _fill(running: Running, topic: str, partition: int, batches: int) -> None:
    """``batches`` one-record batches (one segment each with a tiny segment.bytes)."""
    rm = running.broker.replica_manager

    def append() -> None:
        for i in range(batches):
            batch = make_batch(1, timestamp=BASE_TS + i, tag=i)
            result = rm.append_records(
                [((topic, partition), memoryview(batch))], required_acks=1, origin=AppendOrigin.CLIENT
            )
            assert all(r.error is None for r in result.values()), result

    running.on_loop(append)


def _wait_hosted(running: Running, topic: str, partitions: int) -> None:
    async def hosted() -> None:
        for _ in range(6000):
            if running.broker.replica_manager.get_partition(topic, partitions - 1) is not None:
                return
            await asyncio.sleep(0.01)
        raise AssertionError("partitions not hosted")

    running.loop.call(hosted())


def _delete_records(topic: str, partitions: range, offset: int) -> Callable[[WireClient], object]:
    request = DeleteRecordsRequest(
        topics=[
            DeleteRecordsRequest.DeleteRecordsTopic(
                name=topic,
                partitions=[
                    DeleteRecordsRequest.DeleteRecordsPartition(partition_index=p, offset=offset)
                    for p in partitions
                ],
            )
        ],
        timeout_ms=30_000,
    )
    return lambda client: client.request(request, 2)


def test_delete_records_does_not_unlink_producer_snapshots_on_the_event_loop(running, monkeypatch):
    """Kafka's ``UnifiedLog.maybeIncrementLogStartOffset`` (DeleteRecords via
    ``Partition.deleteRecordsOnLeader``) only moves the log start offset and calls
    ``ProducerStateManager.onLogStartOffsetIncremented`` (in memory); snapshot files go later
    with their segments (``UnifiedLog.deleteSegments``, on the scheduler). Moldau's
    ``ProducerStateManager.truncate_head`` unlinks one snapshot per segment below the new start
    on the event loop (3000 segments: a 160-320 ms stall measured)."""
    broker = running()
    with broker.client() as c:
        _create(c, "big", 1, {"segment.bytes": "100"})
    _wait_hosted(broker, "big", 1)
    _fill(broker, "big", 0, 40)
    held = HeldFileWork(monkeypatch, "unlink", lambda path: path.endswith(".snapshot"))
    probe_answers_while_held(broker, held, _delete_records("big", range(1), 30), none_is_fine=True)


def test_delete_records_does_not_fsync_the_leader_epoch_checkpoint_on_the_event_loop(running, monkeypatch):
    """Kafka's ``UnifiedLog.maybeIncrementLogStartOffset`` calls
    ``LeaderEpochFileCache.truncateFromStartAsyncFlush``: the checkpoint is written by a
    scheduler task, not in the request. Moldau's ``PartitionLog._increment_log_start_offset``
    writes and fsyncs ``leader-epoch-checkpoint`` (file and dir) on the event loop, once per
    partition: a DeleteRecords over 2000 partitions stalled every other client for ~1 s."""
    broker = running()
    with broker.client() as c:
        _create(c, "t", 4, {})
    _wait_hosted(broker, "t", 4)
    for p in range(4):
        _fill(broker, "t", p, 3)
    held = HeldFileWork(monkeypatch, "fsync", lambda path: "leader-epoch-checkpoint" in path)
    probe_answers_while_held(broker, held, _delete_records("t", range(4), 2), none_is_fine=True)


def test_leader_and_isr_does_not_fsync_epoch_checkpoints_on_the_event_loop(running, monkeypatch):
    """Kafka's ``ReplicaManager.becomeLeaderOrFollower`` -> ``makeLeaders`` ->
    ``Partition.makeLeader`` -> ``LeaderEpochFileCache.assign`` writes and fsyncs each
    partition's ``leader-epoch-checkpoint`` on a request handler thread: other clients'
    requests go on meanwhile. Moldau's LeaderAndIsr handler runs
    ``ReplicaStateChanges._make_leaders_and_followers`` -> ``Partition.make_leader`` ->
    ``LeaderEpochCache.assign`` (write, fsync of the file and of the dir) for every partition
    on the event loop, so an election moving thousands of partitions to this broker holds
    every client for thousands of fsyncs. (The handler is driven here through the
    ReplicaManager call it makes, on the broker's loop.)"""
    from coordinator.cluster_state import PartitionState

    broker = running()
    with broker.client() as c:
        _create(c, "moved", 4, {})
    _wait_hosted(broker, "moved", 4)
    rm = broker.broker.replica_manager
    me = broker.broker.broker_id
    topic_id = broker.broker.metadata_cache.get_topic("moved").topic_id
    states = [
        PartitionState(
            "moved", p, me, rm.get_partition("moved", p).leader_epoch + 1, (me,), (me,), controller_epoch=1
        )
        for p in range(4)
    ]

    async def no_overrides(_topic: str) -> dict:
        return {}

    def leader_and_isr(_client: WireClient) -> object:
        return broker.loop.call(
            rm.become_leader_or_follower(me, 1, states, {"moved": topic_id}, topic_overrides=no_overrides),
            timeout=120,
        )

    held = HeldFileWork(monkeypatch, "fsync", lambda path: "leader-epoch-checkpoint" in path)
    probe_answers_while_held(broker, held, leader_and_isr)


def test_leader_and_isr_epoch_written_ahead_fails_without_changing_the_partition(tmp_path, monkeypatch):
    """The new leaders' epoch checkpoints are written ahead in one executor job; one that
    cannot be written (EIO) answers KAFKA_STORAGE_ERROR with nothing changed: the partition
    keeps its old leader epoch and its cache its entries (Kafka's makeLeader keeps its epoch
    when maybeAssignEpochStartOffset throws), its dir goes offline; the others become
    leaders, their checkpoints written off the loop's thread, and not again on it."""
    import errno
    import uuid

    from broker.replica_manager import ReplicaManager
    from coordinator.cluster_state import PartitionState
    from protocol.errors import ErrorCode
    from storage.log_config import resolve_topic_defaults
    from storage.log_manager import LogManager
    from tests.broker.test_log_dir_failure import _fail_calls_under

    lm = LogManager([tmp_path / "a", tmp_path / "b"], resolve_topic_defaults({}))
    lm.startup()
    try:
        lm.create_topic("on-a", 1, uuid.uuid4(), {})
        lm.create_topic("on-b", 1, uuid.uuid4(), {})
        assert lm.get_log("on-a", 0).dir.parent == tmp_path / "a"
        rm = ReplicaManager(1, lm, lambda: BASE_TS)
        ids = {t: info.topic_id for t, info in lm.topics().items()}

        async def no_overrides(_topic: str) -> dict:
            return {}

        def leader_and_isr(epoch: int):
            states = [
                PartitionState(t, 0, 1, epoch, (1,), (1,), controller_epoch=1, partition_epoch=epoch)
                for t in ("on-a", "on-b")
            ]
            return rm.become_leader_or_follower(1, 1, states, ids, topic_overrides=no_overrides)

        asyncio.run(leader_and_isr(1))
        on_a = rm.get_partition("on-a", 0)
        entries_before = on_a.log.leader_epoch_cache.entries()
        writers: list[str] = []
        real_write = os.write

        def recording_write(fd, data):
            if "leader-epoch-checkpoint" in os.readlink(f"/proc/self/fd/{fd}"):
                writers.append(threading.current_thread().name)
            return real_write(fd, data)

        monkeypatch.setattr(os, "write", recording_write)
        with monkeypatch.context() as patch:
            _fail_calls_under(patch, tmp_path / "a", errno.EIO, calls=("write",))
            _, errors = asyncio.run(leader_and_isr(2))
        assert errors == {("on-a", 0): ErrorCode.KAFKA_STORAGE_ERROR, ("on-b", 0): ErrorCode.NONE}
        assert on_a.leader_epoch == 1 and on_a.log.leader_epoch_cache.entries() == entries_before
        assert rm.get_partition("on-b", 0).leader_epoch == 2
        assert rm.get_partition("on-b", 0).log.leader_epoch_cache.latest_epoch == 2
        assert lm.failure_channel.offline_dirs() == [tmp_path / "a"]
        assert writers and threading.main_thread().name not in writers
    finally:
        lm.shutdown()
