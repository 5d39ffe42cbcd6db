"""StopReplica(delete) of a coordinator partition whose request task is cancelled (the
controller's connection closes: ``Connection._drop_answers`` cancels outstanding handlers)
while the renames run in their executor job: the stops and the resignations still run to their
end (run_to_completion), as Kafka's handler thread finishes a request whatever its channel does.

Kafka's ``KafkaApis.handleStopReplicaRequest`` runs to its end whatever the connection does:
``replicaManager.stopReplicas`` (asyncDelete renames), then ``groupCoordinator.onResignation``
for each deleted ``__consumer_offsets`` partition. (Before ``run_to_completion`` a cancellation
there left the log gone and the partition stopped, but the coordinator owning its groups.)
"""

from __future__ import annotations

import asyncio
import threading
from types import SimpleNamespace

import pytest

import broker.replica_state_changes as replica_state_changes
from broker.handlers import leader_and_isr
from broker.handlers.leader_and_isr import handle_leader_and_isr
from broker.handlers.stop_replica import handle_stop_replica
from protocol.errors import ErrorCode
from protocol.messages import LeaderAndIsrRequest, StopReplicaRequest
from protocol.primitives import ZERO_UUID
from tests.coordinator.test_coordinator_load import OFFSETS, append, group_with_member, zk_mode_coordinator
from tests.coordinator.test_groups import ManualClock

WAIT_S = 30.0  # bounds waits for events set by construction; nothing is timed

SRR = StopReplicaRequest


class _Txns:
    topic_name = "__transaction_state"

    def on_resignation(self, partition: int, epoch: int | None) -> None:
        pass


def _stop_replica_delete(partition: int, leader_epoch: int) -> StopReplicaRequest:
    return SRR(
        controller_id=1,
        controller_epoch=5,
        broker_epoch=-1,
        topic_states=[
            SRR.StopReplicaTopicState(
                topic_name=OFFSETS,
                partition_states=[
                    SRR.StopReplicaPartitionState(
                        partition_index=partition, leader_epoch=leader_epoch, delete_partition=True
                    )
                ],
            )
        ],
    )


def test_a_stop_replica_delete_cancelled_during_its_renames_still_resigns_the_coordinator(
    log_manager, monkeypatch
):
    """Kafka ``KafkaApis.handleStopReplicaRequest`` / ``GroupCoordinator.onResignation``: once
    the replica of ``__consumer_offsets``-0 is stopped and its log deleted, the coordinator
    resigns it (its groups answer NOT_COORDINATOR, the partition is no longer owned, so a later
    election loads it again). Here the handler task is cancelled while the rename job runs
    (the controller connection closed): the deletion and the resignation complete all the same."""
    clock = ManualClock()
    gc, rm = zk_mode_coordinator(log_manager, clock)
    gc.topic.ensure_created()
    append(rm, group_with_member("g", clock.time_ms()), clock.time_ms())
    entered, release, done = threading.Event(), threading.Event(), threading.Event()
    real = replica_state_changes.rename_each_for_deletion

    def held(logs):
        entered.set()
        release.wait(WAIT_S)
        try:
            return real(logs)
        finally:
            done.set()

    monkeypatch.setattr(replica_state_changes, "rename_each_for_deletion", held)
    ctx = SimpleNamespace(
        broker=SimpleNamespace(replica_manager=rm, groups=gc, transactions=_Txns(), zookeeper=None),
        authorize=lambda *_args: True,
    )

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        await gc.start()
        gc.on_election(0, 1)
        await gc._load_tasks[0]
        assert 0 in gc.owned_partitions and gc.describe_group("g")[0] is ErrorCode.NONE
        task = loop.create_task(handle_stop_replica(ctx, _stop_replica_delete(0, 2)))
        assert await loop.run_in_executor(None, entered.wait, WAIT_S), "the rename job never started"
        task.cancel()  # the connection is gone (Connection._drop_answers)
        release.set()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert await loop.run_in_executor(None, done.wait, WAIT_S)
        for _ in range(5):  # the job's hand-over callback
            await asyncio.sleep(0)
        assert log_manager.get_log(OFFSETS, 0) is None  # the replica is deleted all the same
        assert 0 not in gc.owned_partitions, "the coordinator still owns a partition it no longer hosts"
        assert gc.describe_group("g")[0] is ErrorCode.NOT_COORDINATOR

    try:
        asyncio.run(scenario())
    finally:
        release.set()
        asyncio.run(gc.stop())


def test_a_leader_and_isr_cancelled_during_its_epoch_write_still_applies_the_new_epoch(
    log_manager, monkeypatch
):
    """Kafka ``KafkaApis.handleLeaderAndIsrRequest`` runs ``becomeLeaderOrFollower`` to the end
    whatever the connection does. Here the handler task is cancelled while the new leaders'
    epoch checkpoints are written ahead (the executor job): the partition still takes the new
    leader epoch and partition epoch (left halfway, it stayed in the old one)."""
    clock = ManualClock()
    gc, rm = zk_mode_coordinator(log_manager, clock)
    gc.topic.ensure_created()
    append(rm, group_with_member("g", clock.time_ms()), clock.time_ms())
    entered, release = threading.Event(), threading.Event()
    real = replica_state_changes.write_pending_checkpoints

    def held(writes):
        entered.set()
        release.wait(WAIT_S)
        return real(writes)

    monkeypatch.setattr(replica_state_changes, "write_pending_checkpoints", held)
    ctx = SimpleNamespace(
        broker=SimpleNamespace(replica_manager=rm, groups=gc, transactions=_Txns(), zookeeper=None),
        authorize=lambda *_args: True,
    )
    lair = LeaderAndIsrRequest
    request = lair(
        controller_id=1,
        controller_epoch=5,
        broker_epoch=-1,
        topic_states=[
            lair.LeaderAndIsrTopicState(
                topic_name=OFFSETS,
                topic_id=ZERO_UUID,
                partition_states=[
                    lair.LeaderAndIsrPartitionState(
                        topic_name=OFFSETS,
                        partition_index=0,
                        controller_epoch=5,
                        leader=0,
                        leader_epoch=7,
                        isr=[0],
                        partition_epoch=7,
                        replicas=[0],
                    )
                ],
            )
        ],
    )

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        await gc.start()
        task = loop.create_task(handle_leader_and_isr(ctx, request))
        assert await loop.run_in_executor(None, entered.wait, WAIT_S), "the epoch write never started"
        task.cancel()  # the connection is gone (Connection._drop_answers)
        release.set()
        with pytest.raises(asyncio.CancelledError):
            await task
        # the state change goes on in its own task
        await asyncio.gather(*leader_and_isr._FINISHING)
        partition = rm.get_partition(OFFSETS, 0)
        assert partition is not None and partition.is_leader and partition.leader_epoch == 7
        assert partition.partition_epoch == 7

    try:
        asyncio.run(scenario())
    finally:
        release.set()
        asyncio.run(gc.stop())
