"""A broker's group coordinator over a real LogManager and ReplicaManager whose
``__consumer_offsets``-0 has the replicas and ISR the test gives (one partition), so the
coordinator's writes go through Kafka's leader append rules (min.insync.replicas for
acks=-1, the DelayedProduce purgatory until the followers' fetches move the high watermark).
"""

from __future__ import annotations

import inspect
import uuid

from broker.fetch_params import FetchParams, FetchPartitionInfo
from broker.replica_manager import ReplicaManager
from coordinator.cluster_state import PartitionState
from coordinator.group_offsets import OFFSETS_TOPIC
from coordinator.groups import GroupCoordinator
from protocol.record_batch import iter_batches
from protocol.records import decode_batch
from storage.log_config import parse_topic_overrides, resolve_topic_defaults
from storage.log_manager import LogManager
from storage.log_types import FetchIsolation
from tests.coordinator.test_groups import ManualClock

ME, OTHER, THIRD = 0, 1, 2
DAY = 86_400_000
RETENTION = 7 * DAY
CHECK = 600_000


class Node:
    """One broker's log dir, ReplicaManager and GroupCoordinator (restartable)."""

    def __init__(self, tmp_path, clock: ManualClock) -> None:
        self.dir = tmp_path / "logs"
        self.clock = clock
        self.lm: LogManager | None = None
        self.rm: ReplicaManager
        self.gc: GroupCoordinator
        self.epoch = 0

    async def start(self, *, replicas=(ME,), isr=(ME,), min_isr: int = 2, **kw) -> GroupCoordinator:
        self.lm = LogManager([self.dir], resolve_topic_defaults({}))
        self.lm.startup()
        if self.lm.get_log(OFFSETS_TOPIC, 0) is None:
            self.lm.create_topic(
                OFFSETS_TOPIC,
                1,
                uuid.uuid4(),
                parse_topic_overrides({"cleanup.policy": "compact", "min.insync.replicas": str(min_isr)}),
            )
        self.rm = ReplicaManager(ME, self.lm, self.clock.time_ms)
        self.epoch += 1
        self.rm.on_topics_changed(
            {}, [PartitionState(OFFSETS_TOPIC, 0, ME, self.epoch, tuple(isr), tuple(replicas))]
        )
        kw.setdefault("offsets_retention_ms", RETENTION)
        kw.setdefault("offsets_retention_check_ms", CHECK)
        kw.setdefault("initial_rebalance_delay_ms", 0)
        kw.setdefault("max_session_timeout_ms", 60 * DAY)
        self.gc = GroupCoordinator(
            self.lm,
            self.rm,
            broker_id=ME,
            offsets_topic_partitions=1,
            time_ms=self.clock.time_ms,
            timers=self.clock,
            **kw,
        )
        await self.gc.start()
        return self.gc

    async def stop(self) -> None:
        await self.gc.stop()
        assert self.lm is not None
        self.lm.shutdown()
        self.lm = None

    async def restart(self, **kw) -> GroupCoordinator:
        await self.stop()
        return await self.start(**kw)

    def close(self) -> None:
        if self.lm is not None:
            self.lm.shutdown()
            self.lm = None

    def ack(self, follower: int = OTHER) -> None:
        """``follower`` fetches to the log end: the high watermark passes every append."""
        leo = self.rm.log_offsets(OFFSETS_TOPIC, 0).log_end_offset
        params = FetchParams(
            max_wait_ms=0,
            min_bytes=1,
            max_bytes=1 << 20,
            isolation=FetchIsolation.LOG_END,
            replica_id=follower,
        )
        info = FetchPartitionInfo(fetch_offset=leo, max_bytes=1 << 20, current_leader_epoch=self.epoch)
        result = self.rm.fetch_messages(params, [((OFFSETS_TOPIC, 0), info)])
        assert not inspect.isawaitable(result)

    def records(self) -> list[tuple[bytes | None, bytes | None]]:
        assert self.lm is not None
        plog = self.lm.get_log(OFFSETS_TOPIC, 0)
        out = []
        offset = plog.log_start_offset
        while offset < plog.log_end_offset:
            mv = memoryview(plog.read(offset, 1 << 30).records)
            for pos, header in iter_batches(mv):
                offset = header.next_offset
                for rec in decode_batch(mv[pos : pos + header.size], header):
                    out.append((rec.key, rec.value))
        return out


def offsets_of(gc: GroupCoordinator, group: str) -> dict[tuple[str, int], int]:
    return {(t, p): om.committed_offset for t, p, om in gc.fetch_offsets(group, None) if om is not None}
