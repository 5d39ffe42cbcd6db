"""The AlterPartition sender (broker/alter_partition_manager.py) against a stand-in controller:
what it sends, one proposal per partition at a time, commits, refusals and retries."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from broker.alter_partition_manager import AlterPartitionManager
from broker.network_client import BrokerDisconnectedError
from broker.partition import Partition
from coordinator.cluster_state import PartitionState
from protocol.errors import ErrorCode
from protocol.messages import AlterPartitionRequest, AlterPartitionResponse
from tests.storage.batch_factory import BASE_TS
from tests.storage.log_factory import open_log

ME, F1, F2 = 0, 1, 2
CONTROLLER = 2


class FakeController:
    """Answers with scripted replies (an exception, a top-level error, or per-partition errors)."""

    def __init__(self, replies: list[Any]) -> None:
        self.replies = replies
        self.requests: list[AlterPartitionRequest] = []

    async def send(self, broker_id: int, request: Any, version: int | None = None, **_: Any) -> Any:
        assert broker_id == CONTROLLER
        self.requests.append(request)
        reply = self.replies.pop(0) if self.replies else None
        if isinstance(reply, Exception):
            raise reply
        if isinstance(reply, ErrorCode):
            return AlterPartitionResponse(error_code=reply.code)
        per_partition: dict[int, ErrorCode] = reply or {}
        topics = []
        for t in request.topics:
            parts = []
            for p in t.partitions:
                error = per_partition.get(p.partition_index, ErrorCode.NONE)
                parts.append(
                    AlterPartitionResponse.PartitionData(
                        partition_index=p.partition_index,
                        error_code=error.code,
                        leader_id=request.broker_id,
                        leader_epoch=p.leader_epoch,
                        isr=[b.broker_id for b in p.new_isr_with_epochs],
                        partition_epoch=p.partition_epoch + 1,
                    )
                )
            topics.append(AlterPartitionResponse.TopicData(topic_id=t.topic_id, partitions=parts))
        return AlterPartitionResponse(error_code=0, topics=topics)

    def disconnect(self, broker_id: int) -> None:
        pass

    async def close(self) -> None:
        pass


def leader(tmp_path, index: int, topic_id: uuid.UUID) -> Partition:
    plog = open_log(tmp_path, name=f"t-{index}")
    plog.topic_id = topic_id
    p = Partition(plog, local_broker_id=ME, time_ms=lambda: BASE_TS)
    p.make_leader(PartitionState("t", index, ME, 3, (ME, F1, F2), (ME, F1, F2), partition_epoch=7))
    return p


def manager(controller: FakeController, committed: list[tuple]) -> AlterPartitionManager:
    def on_committed(
        partition: Partition, leader_epoch: int, partition_epoch: int, isr: tuple[int, ...]
    ) -> None:
        committed.append((partition.partition, leader_epoch, partition_epoch, isr))
        partition.on_alter_partition_committed(leader_epoch, partition_epoch, isr)

    m = AlterPartitionManager(
        ME, lambda _b: None, lambda: CONTROLLER, lambda: 1234, on_committed, retry_backoff_ms=1
    )
    m.client = controller  # type: ignore[assignment]
    return m


async def settle(m: AlterPartitionManager) -> None:
    for _ in range(500):
        if not m.pending():
            return
        await asyncio.sleep(0.002)
    raise AssertionError("proposals still pending")


def test_proposals_are_sent_with_kafkas_fields_and_committed(tmp_path):
    async def scenario():
        topic_id = uuid.uuid4()
        p0, p1 = leader(tmp_path, 0, topic_id), leader(tmp_path, 1, topic_id)
        controller = FakeController(
            [BrokerDisconnectedError(CONTROLLER, "gone"), ErrorCode.NOT_CONTROLLER, None]
        )
        committed: list[tuple] = []
        m = manager(controller, committed)
        p0.pending_isr = (ME, F1)
        assert m.submit(p0, (ME, F1))
        assert not m.submit(p0, (ME,))  # one proposal per partition at a time
        p1.pending_isr = (ME, F2)
        assert m.submit(p1, (ME, F2))
        await settle(m)
        assert sorted(committed) == [(0, 3, 8, (ME, F1)), (1, 3, 8, (ME, F2))]
        assert p0.isr == (ME, F1) and p0.partition_epoch == 8 and p0.pending_isr is None
        last = controller.requests[-1]
        assert (last.broker_id, last.broker_epoch) == (ME, 1234)
        (topic,) = last.topics
        assert (topic.topic_name, topic.topic_id) == ("t", topic_id)
        sent = {p.partition_index: p for p in topic.partitions}
        assert sent[0].leader_epoch == 3 and sent[0].partition_epoch == 7 and sent[0].new_isr == [ME, F1]
        assert [(b.broker_id, b.broker_epoch) for b in sent[0].new_isr_with_epochs] == [(ME, -1), (F1, -1)]
        assert len(controller.requests) == 3  # a network failure and NOT_CONTROLLER were retried
        await m.close()
        p0.log.close()
        p1.log.close()

    asyncio.run(scenario())


def test_refusals_drop_the_pending_change_or_wait_for_metadata(tmp_path):
    async def scenario():
        topic_id = uuid.uuid4()
        p0, p1 = leader(tmp_path, 0, topic_id), leader(tmp_path, 1, topic_id)
        controller = FakeController([{0: ErrorCode.INELIGIBLE_REPLICA, 1: ErrorCode.FENCED_LEADER_EPOCH}])
        m = manager(controller, [])
        for p in (p0, p1):
            p.pending_isr = (ME, F1)
            m.submit(p, (ME, F1))
        await settle(m)
        assert p0.pending_isr is None and p0.isr == (ME, F1, F2)  # may be proposed again
        assert p1.pending_isr == (ME, F1)  # waits for the controller's LeaderAndIsr
        p1.make_leader(PartitionState("t", 1, ME, 4, (ME, F1), (ME, F1, F2), partition_epoch=9))
        assert p1.pending_isr is None and p1.isr == (ME, F1)
        await m.close()
        p0.log.close()
        p1.log.close()

    asyncio.run(scenario())
