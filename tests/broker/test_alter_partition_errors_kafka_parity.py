"""What a leader does with an AlterPartition partition-level error or a missing answer, as
Kafka's ``Partition.handleAlterPartitionError`` / ``submitAlterPartition`` and
``DefaultAlterPartitionManager.handleAlterPartitionResponse``. The controller is the stand-in
of tests/broker/test_replica_fetcher_alter_partition.py."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from coordinator.cluster_state import PartitionState
from protocol.errors import ErrorCode
from protocol.messages import AlterPartitionResponse
from tests.broker.test_replica_fetcher_alter_partition import (
    F1,
    F2,
    ME,
    FakeController,
    leader,
    manager,
)

OMIT = "omit"  # a reply that answers no partition


class ScriptedController(FakeController):
    """FakeController that can also leave every partition out of its answer (``OMIT``) and run
    ``before_reply`` while a request is in flight."""

    def __init__(self, replies: list[Any], before_reply: Callable[[], None] | None = None) -> None:
        super().__init__(replies)
        self.before_reply = before_reply

    async def send(self, broker_id: int, request: Any, version: int | None = None, **kw: Any) -> Any:
        if self.before_reply is not None:
            self.before_reply()
        if self.replies and self.replies[0] == OMIT:
            self.replies.pop(0)
            self.requests.append(request)
            return AlterPartitionResponse(error_code=0, topics=[])
        return await super().send(broker_id, request, version, **kw)


async def wait_for(condition: Callable[[], bool], what: str) -> None:
    for _ in range(500):
        if condition():
            return
        await asyncio.sleep(0.002)
    raise AssertionError(what)


@pytest.mark.parametrize("error", [ErrorCode.NOT_CONTROLLER, ErrorCode.UNKNOWN_SERVER_ERROR])
def test_an_unexpected_partition_error_resends_the_same_isr_change(tmp_path, error):
    """Kafka's ``Partition.handleAlterPartitionError``: OPERATION_NOT_ATTEMPTED and
    INELIGIBLE_REPLICA reset to the committed state; UNKNOWN_TOPIC_OR_PARTITION,
    UNKNOWN_TOPIC_ID, FENCED_LEADER_EPOCH, INVALID_UPDATE_VERSION, INVALID_REQUEST and
    NEW_LEADER_ELECTED wait for new metadata; every other error (``case _``: e.g. the
    partition-level NOT_CONTROLLER a deposed ZooKeeper-mode controller answers when the
    leader's epochs are newer than its own, or UNKNOWN_SERVER_ERROR after a failed znode
    write) returns ``shouldRetry = true`` and the same proposal is submitted again, so an ISR
    shrink is committed without waiting for the next isr-expiration round (the high
    watermark waits for the removed follower until then)."""

    async def scenario():
        p0 = leader(tmp_path, 0, uuid.uuid4())
        controller = FakeController([{0: error}, None])
        committed: list[tuple] = []
        m = manager(controller, committed)
        p0.pending_isr = (ME, F1)  # a shrink proposed by the isr-expiration task
        assert m.submit(p0, (ME, F1))
        try:
            await wait_for(lambda: len(controller.requests) >= 2, "the ISR change was not sent again")
            await wait_for(lambda: p0.isr == (ME, F1), "the ISR change was not committed")
        finally:
            await m.close()
            p0.log.close()
        assert committed == [(0, 3, 8, (ME, F1))]
        assert controller.requests[1].topics[0].partitions[0].partition_epoch == 7  # the same proposal

    asyncio.run(scenario())


def test_operation_not_attempted_goes_back_to_the_committed_isr(tmp_path):
    """``handleAlterPartitionError``: OPERATION_NOT_ATTEMPTED (like INELIGIBLE_REPLICA) means the
    controller did not apply the change: the committed state is back and nothing is resent."""

    async def scenario():
        p0 = leader(tmp_path, 0, uuid.uuid4())
        controller = FakeController([{0: ErrorCode.OPERATION_NOT_ATTEMPTED}])
        m = manager(controller, [])
        p0.pending_isr = (ME, F1)
        m.submit(p0, (ME, F1))
        try:
            await wait_for(lambda: not m.pending(), "the proposal stayed pending")
            await asyncio.sleep(0.02)
        finally:
            await m.close()
            p0.log.close()
        assert p0.pending_isr is None and p0.isr == (ME, F1, F2)
        assert len(controller.requests) == 1

    asyncio.run(scenario())


def test_a_partition_missing_from_the_answer_is_sent_again(tmp_path):
    """``DefaultAlterPartitionManager.handleAlterPartitionResponse`` iterates over the items
    sent: one the controller's answer leaves out stays unsent and goes out again (it is not
    taken as a failure)."""

    async def scenario():
        p0 = leader(tmp_path, 0, uuid.uuid4())
        controller = ScriptedController([OMIT, None])
        committed: list[tuple] = []
        m = manager(controller, committed)
        p0.pending_isr = (ME, F1)
        m.submit(p0, (ME, F1))
        try:
            await wait_for(lambda: p0.isr == (ME, F1), "the ISR change was not committed")
        finally:
            await m.close()
            p0.log.close()
        assert len(controller.requests) == 2 and committed == [(0, 3, 8, (ME, F1))]

    asyncio.run(scenario())


def test_resending_after_a_partition_error_backs_off(tmp_path):
    """A controller that keeps failing one partition: each resend waits ``retry_backoff_ms``
    (Kafka's channel retries after ``retry.backoff.ms``), no hot loop."""

    async def scenario():
        p0 = leader(tmp_path, 0, uuid.uuid4())
        controller = FakeController([{0: ErrorCode.UNKNOWN_SERVER_ERROR}] * 1000)
        m = manager(controller, [])
        m.retry_backoff_ms = 50
        p0.pending_isr = (ME, F1)
        m.submit(p0, (ME, F1))
        try:
            await asyncio.sleep(0.3)
        finally:
            await m.close()
            p0.log.close()
        assert 2 <= len(controller.requests) <= 10
        assert p0.pending_isr == (ME, F1)  # still pending, still retried

    asyncio.run(scenario())


def test_an_error_for_a_proposal_replaced_meanwhile_is_not_resent(tmp_path):
    """``Partition.submitAlterPartition``: when ``partitionState`` is no longer the proposed one
    (a LeaderAndIsr arrived while the request was in flight), the answer is ignored: the
    old proposal is not resent."""

    async def scenario():
        p0 = leader(tmp_path, 0, uuid.uuid4())

        def leader_and_isr() -> None:
            p0.make_leader(PartitionState("t", 0, ME, 4, (ME, F1, F2), (ME, F1, F2), partition_epoch=8))

        controller = ScriptedController([{0: ErrorCode.UNKNOWN_SERVER_ERROR}], before_reply=leader_and_isr)
        m = manager(controller, [])
        p0.pending_isr = (ME, F1)
        m.submit(p0, (ME, F1))
        try:
            await wait_for(lambda: not m.pending(), "the stale proposal stayed pending")
            await asyncio.sleep(0.02)
        finally:
            await m.close()
            p0.log.close()
        assert len(controller.requests) == 1
        assert p0.pending_isr is None and p0.isr == (ME, F1, F2) and p0.leader_epoch == 4

    asyncio.run(scenario())
