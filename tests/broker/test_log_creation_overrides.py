"""The overrides a replica's new log is made with (``Partition.createLogIfNotExists`` ->
``LogManager.getOrCreateLog`` with ``fetchLogConfig``): read from ``/config/topics/<t>``, as
stored by the cluster, possibly by Kafka's own tools."""

from __future__ import annotations

import asyncio
import uuid

from broker.replica_manager import ReplicaManager
from coordinator.cluster_state import PartitionState
from protocol.errors import ErrorCode
from tests.broker.test_replica_manager import ME
from tests.storage.batch_factory import BASE_TS


def test_a_stored_override_moldau_does_not_know_does_not_stop_the_log(log_manager):
    """Kafka's ``LogConfig.fromProps`` takes the names it knows and leaves the others (a
    topic's config may hold names of another Kafka version or a vendor's); Moldau made the
    log with the strict parser of CreateTopics and answered KAFKA_STORAGE_ERROR, so the
    replica was never made. Values it cannot parse are skipped the same way."""
    rm = ReplicaManager(ME, log_manager, lambda: BASE_TS)
    state = PartitionState("t", 0, ME, 1, (ME,), (ME,), controller_epoch=1, partition_epoch=1)

    async def stored(_topic: str) -> dict[str, str]:
        return {"retention.ms": "1000", "confluent.placement.constraints": "{}", "segment.ms": "soon"}

    answer = asyncio.run(
        rm.become_leader_or_follower(1, 1, [state], {"t": uuid.uuid4()}, topic_overrides=stored)
    )
    assert answer == (ErrorCode.NONE, {("t", 0): ErrorCode.NONE})
    config = log_manager.get_log("t", 0).config
    assert (config.retention_ms, config.segment_ms) == (1000, 7 * 24 * 3_600_000)
