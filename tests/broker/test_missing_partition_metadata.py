"""A partition directory left without ``partition.metadata`` by a crash (kill -9 between the
directory's creation and the file's write): Kafka's ``UnifiedLog.initializeTopicId`` leaves
such a log without a topic id, and the controller's id is assigned later
(``Partition.checkOrSetTopicId`` -> ``UnifiedLog.assignTopicId``, which writes the file).
Before, Moldau wrote a random id at load, so in ZooKeeper mode every LeaderAndIsr for the
partition answered INCONSISTENT_TOPIC_ID and it was never served again.
"""

from __future__ import annotations

import asyncio
import errno
import uuid
from pathlib import Path

import pytest

from broker.replica_manager import ReplicaManager
from coordinator.cluster_state import PartitionState
from coordinator.controller import Controller
from protocol.errors import ErrorCode
from storage.log_config import resolve_topic_defaults
from storage.log_manager import LogManager
from storage.partition_metadata import read_partition_metadata
from tests.broker.test_replica_manager import ME, produce
from tests.storage.batch_factory import BASE_TS


async def _no_overrides(_topic: str) -> dict[str, str]:
    return {}


def crashed_log_dir(log_dir: Path, topic_id: uuid.UUID, partitions: int, lose: list[int]) -> None:
    """A topic whose partitions in ``lose`` lost their partition.metadata."""
    lm = LogManager([log_dir], resolve_topic_defaults({}))
    lm.startup()
    lm.create_topic("t", partitions, topic_id, {})
    lm.shutdown()
    for p in lose:
        (log_dir / f"t-{p}" / "partition.metadata").unlink()


def reopened(log_dir: Path) -> LogManager:
    lm = LogManager([log_dir], resolve_topic_defaults({}))
    lm.startup()
    return lm


def leader_and_isr(rm: ReplicaManager, topic_id: uuid.UUID, epoch: int = 1):
    state = PartitionState("t", 0, ME, epoch, (ME,), (ME,), controller_epoch=1, partition_epoch=1)
    return asyncio.run(
        rm.become_leader_or_follower(1, 1, [state], {"t": topic_id}, topic_overrides=_no_overrides)
    )


def test_a_log_without_partition_metadata_takes_the_controllers_topic_id(tmp_path):
    """ZooKeeper mode: the log loads without an id (nothing written), the LeaderAndIsr's id is
    taken and written, the partition is served; a second LeaderAndIsr of the same epoch (an
    id assigned without an epoch bump) is accepted too."""
    log_dir = tmp_path / "logs"
    topic_id = uuid.uuid4()
    crashed_log_dir(log_dir, topic_id, 1, lose=[0])
    lm = reopened(log_dir)
    try:
        assert lm.get_log("t", 0).topic_id is None
        assert read_partition_metadata(log_dir / "t-0") is None  # nothing invented at load
        rm = ReplicaManager(ME, lm, lambda: BASE_TS)
        assert leader_and_isr(rm, topic_id) == (ErrorCode.NONE, {("t", 0): ErrorCode.NONE})
        assert produce(rm, "t").error is None
        assert read_partition_metadata(log_dir / "t-0") == topic_id
        assert lm.get_log("t", 0).topic_id == topic_id
        other = uuid.uuid4()
        assert leader_and_isr(rm, other, epoch=2)[1] == {("t", 0): ErrorCode.INCONSISTENT_TOPIC_ID}
    finally:
        lm.shutdown()


def test_a_topic_id_that_cannot_be_written_is_a_storage_error(tmp_path, monkeypatch):
    """The file's write failing (an I/O error) answers KAFKA_STORAGE_ERROR for the partition
    and tells its dir, as Kafka's ``maybeHandleIOException``; the log keeps no id."""
    log_dir = tmp_path / "logs"
    topic_id = uuid.uuid4()
    crashed_log_dir(log_dir, topic_id, 1, lose=[0])
    lm = reopened(log_dir)
    try:
        import storage.partition_log as partition_log

        def failing_write(_path, _topic_id):
            raise OSError(errno.EIO, "Input/output error")

        monkeypatch.setattr(partition_log, "write_partition_metadata", failing_write)
        rm = ReplicaManager(ME, lm, lambda: BASE_TS)
        assert leader_and_isr(rm, topic_id)[1] == {("t", 0): ErrorCode.KAFKA_STORAGE_ERROR}
        assert lm.get_log("t", 0).topic_id is None
        assert lm.get_log("t", 0).dir_state.offline
    finally:
        lm.shutdown()


@pytest.mark.parametrize("lose", [[0], [0, 1]])
def test_embedded_mode_gives_such_logs_the_topics_id(tmp_path, lose):
    """Without ZooKeeper there is no controller to ask: the logs without an id take a sibling
    partition's (the topic's), or a new one when none has it, written to their files."""
    log_dir = tmp_path / "logs"
    topic_id = uuid.uuid4()
    crashed_log_dir(log_dir, topic_id, 2, lose=lose)
    lm = reopened(log_dir)
    try:
        controller = Controller(lm, ME, time_ms=lambda: BASE_TS)
        controller.load_from_logs()
        registered = controller.topic("t")
        ids = {read_partition_metadata(log_dir / f"t-{p}") for p in (0, 1)}
        assert len(ids) == 1 and None not in ids
        assert {lm.get_log("t", p).topic_id for p in (0, 1)} == ids
        assert ids == {registered.topic_id}
        if lose == [0]:
            assert ids == {topic_id}
    finally:
        lm.shutdown()
