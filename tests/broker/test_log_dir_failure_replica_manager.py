"""The ReplicaManager when a log dir fails (Kafka's ReplicaManager: makeLeaders catching
KafkaStorageException per partition, ListOffsets through maybeHandleIOException,
handleLogDirFailure completing what waits on the dir's partitions)."""

from __future__ import annotations

import asyncio
import errno
import uuid

from broker.replica_manager import ReplicaManager
from coordinator.cluster_state import PartitionState
from protocol.errors import ErrorCode, KafkaError
from storage.log_config import resolve_topic_defaults
from storage.log_manager import LogManager
from storage.log_types import FetchIsolation
from tests.broker.test_log_dir_failure import _fail_calls_under
from tests.broker.test_replica_manager import ME, OTHER, consumer_fetch, parked_produce, produce
from tests.storage.batch_factory import BASE_TS


def _two_dir_manager(tmp_path) -> LogManager:
    """Dirs a and b with topic on-a in a and on-b in b."""
    lm = LogManager([tmp_path / "a", tmp_path / "b"], resolve_topic_defaults({}))
    lm.startup()
    lm.create_topic("on-a", 1, uuid.uuid4(), {})
    lm.create_topic("on-b", 1, uuid.uuid4(), {})
    assert lm.get_log("on-a", 0).dir.parent == tmp_path / "a"
    return lm


async def _no_overrides(_topic: str) -> dict[str, str]:
    return {}


def _leader_and_isr(rm: ReplicaManager, lm: LogManager, epoch: int, *topics: str):
    ids = {t: info.topic_id for t, info in lm.topics().items()}
    states = [
        PartitionState(t, 0, ME, epoch, (ME,), (ME,), controller_epoch=1, partition_epoch=epoch)
        for t in topics
    ]
    return rm.become_leader_or_follower(1, 1, states, ids, topic_overrides=_no_overrides)


def test_leader_and_isr_with_a_failing_epoch_checkpoint_answers_storage_error(tmp_path, monkeypatch):
    """Kafka ReplicaManager.makeLeaders: a KafkaStorageException (the epoch checkpoint write of
    Partition.makeLeader -> maybeAssignEpochStartOffset) marks that partition offline and answers
    KAFKA_STORAGE_ERROR for it; the other partitions of the LeaderAndIsr become leaders and
    the dir is offline (LogDirFailureChannel). A later LeaderAndIsr answers KAFKA_STORAGE_ERROR
    for it at once (becomeLeaderOrFollower: HostedPartition.Offline)."""
    dir_a = tmp_path / "a"
    lm = _two_dir_manager(tmp_path)
    try:
        rm = ReplicaManager(ME, lm, lambda: BASE_TS)
        with monkeypatch.context() as patch:
            _fail_calls_under(patch, dir_a, errno.EIO, calls=("write",))
            top, errors = asyncio.run(_leader_and_isr(rm, lm, 5, "on-a", "on-b"))
        assert top is ErrorCode.NONE
        assert errors == {("on-a", 0): ErrorCode.KAFKA_STORAGE_ERROR, ("on-b", 0): ErrorCode.NONE}
        assert lm.failure_channel.offline_dirs() == [dir_a]
        assert produce(rm, "on-b").error is None
        assert produce(rm, "on-a").error.error is ErrorCode.KAFKA_STORAGE_ERROR
        _, errors = asyncio.run(_leader_and_isr(rm, lm, 6, "on-a"))
        assert errors == {("on-a", 0): ErrorCode.KAFKA_STORAGE_ERROR}
    finally:
        lm.shutdown()


def test_list_offsets_by_timestamp_read_error_is_a_storage_error(tmp_path, monkeypatch):
    """Kafka UnifiedLog.fetchOffsetByTimestamp runs in maybeHandleIOException: an IOException
    reading the segment takes the dir offline (LogDirFailureChannel) and ListOffsets answers
    KAFKA_STORAGE_ERROR for the partition (not a closed connection)."""
    lm = _two_dir_manager(tmp_path)
    try:
        rm = ReplicaManager(ME, lm, lambda: BASE_TS)
        rm.lead_local_logs()
        for _ in range(3):
            assert produce(rm, "on-a", n=2).error is None
        error = ErrorCode.NONE
        with monkeypatch.context() as patch:
            _fail_calls_under(patch, tmp_path / "a", errno.EIO, calls=("pread", "read"))
            try:
                rm.fetch_offset_for_timestamp(
                    "on-a", 0, BASE_TS, isolation=FetchIsolation.HIGH_WATERMARK, current_leader_epoch=-1
                )
            except KafkaError as exc:
                error = exc.error
        assert error is ErrorCode.KAFKA_STORAGE_ERROR
        assert lm.failure_channel.offline_dirs() == [tmp_path / "a"]
    finally:
        lm.shutdown()


def test_a_failed_dir_answers_the_fetches_and_produces_parked_on_its_partitions(tmp_path):
    """Kafka ReplicaManager.handleLogDirFailure marks the dir's partitions offline; their
    parked operations answer as DelayedProduce / DelayedFetch.tryComplete find them
    (getPartitionOrError: KAFKA_STORAGE_ERROR), not at their timeout. Parked operations on
    the other dirs' partitions keep waiting."""
    lm = _two_dir_manager(tmp_path)

    async def scenario() -> None:
        rm = ReplicaManager(ME, lm, lambda: BASE_TS)
        rm.on_topics_changed(
            {}, [PartitionState(t, 0, ME, 1, (ME, OTHER), (ME, OTHER)) for t in ("on-a", "on-b")]
        )
        produce_a = parked_produce(rm, "on-a", timeout_ms=60_000)
        produce_b = parked_produce(rm, "on-b", timeout_ms=60_000)
        fetch_a = asyncio.ensure_future(consumer_fetch(rm, "on-a", 0))
        fetch_b = asyncio.ensure_future(consumer_fetch(rm, "on-b", 0))
        await asyncio.sleep(0)
        assert not any(f.done() for f in (produce_a, produce_b, fetch_a, fetch_b))
        lm.get_log("on-a", 0).dir_state.report(OSError(errno.EIO, "Input/output error"), "testing")
        result = (await asyncio.wait_for(produce_a, 10))[("on-a", 0)]
        assert result.info is None and result.error.error is ErrorCode.KAFKA_STORAGE_ERROR
        (fetched,) = await asyncio.wait_for(fetch_a, 10)
        assert fetched.error is ErrorCode.KAFKA_STORAGE_ERROR
        await asyncio.sleep(0.05)
        assert not produce_b.done() and not fetch_b.done()
        for future in (produce_b, fetch_b):
            future.cancel()

    try:
        asyncio.run(scenario())
    finally:
        lm.shutdown()
