"""The leader's side of replication, without a network: replica fetches read to the log end
and move the high watermark, the ISR changes, and acks=-1 waits in the DelayedProduce
purgatory (committed, timed out, leadership lost). NOT_ENOUGH_REPLICAS_AFTER_APPEND and an ISR
shrinking below min.insync.replicas under a parked produce are in test_replica_manager.py."""

from __future__ import annotations

import asyncio
import inspect
import uuid

import pytest

from broker.fetch_params import FetchParams, FetchPartitionInfo
from broker.partition import Partition
from broker.replica_manager import ReplicaManager
from coordinator.cluster_state import PartitionState
from protocol.errors import ErrorCode, KafkaError
from protocol.record_batch import iter_batches
from storage.log_manager import LogManager
from storage.log_types import FetchIsolation
from storage.producer_state import AppendOrigin
from tests.storage.batch_factory import BASE_TS, make_batch

ME, F1, F2 = 0, 1, 2


class Clock:
    def __init__(self) -> None:
        self.now = BASE_TS

    def __call__(self) -> int:
        return self.now


class RecordingSink:
    """Stands in for the AlterPartitionManager: keeps the proposals."""

    def __init__(self) -> None:
        self.proposals: list[tuple[str, tuple[int, ...]]] = []

    def submit(self, partition: Partition, new_isr: tuple[int, ...]) -> bool:
        self.proposals.append((partition.topic, new_isr))
        return True


def leader_rm(lm: LogManager, clock: Clock, *, isr=(ME, F1, F2), min_isr: int = 1) -> ReplicaManager:
    lm.create_topic("t", 1, uuid.uuid4(), {"min.insync.replicas": min_isr})
    rm = ReplicaManager(ME, lm, clock, replica_lag_time_max_ms=10_000)
    rm.on_topics_changed({}, [PartitionState("t", 0, ME, 1, tuple(isr), (ME, F1, F2))])
    return rm


def produce(rm: ReplicaManager, n: int = 1, *, acks: int = -1, timeout_ms: int = 30_000):
    return rm.append_records(
        [(("t", 0), memoryview(make_batch(n, timestamp=BASE_TS)))],
        required_acks=acks,
        origin=AppendOrigin.CLIENT,
        timeout_ms=timeout_ms,
        produce_version=9,
    )


def replica_fetch(rm: ReplicaManager, replica: int, offset: int, *, wait_ms: int = 0, epoch: int = 1):
    params = FetchParams(
        max_wait_ms=wait_ms,
        min_bytes=1,
        max_bytes=1 << 20,
        isolation=FetchIsolation.LOG_END,
        replica_id=replica,
    )
    return rm.fetch_messages(
        params,
        [(("t", 0), FetchPartitionInfo(fetch_offset=offset, max_bytes=1 << 20, current_leader_epoch=epoch))],
    )


def test_replica_fetches_read_past_the_high_watermark_and_move_it(log_manager):
    clock = Clock()
    rm = leader_rm(log_manager, clock)
    partition = rm.get_partition_or_error("t", 0)
    assert produce(rm, 3, acks=1)[("t", 0)].info.last_offset == 2
    assert partition.log.high_watermark == 0
    [data] = replica_fetch(rm, F1, 0)
    assert data.error is ErrorCode.NONE and [h.base_offset for _, h in iter_batches(data.records)] == [0]
    assert partition.log.high_watermark == 0  # F2's log end offset is still unknown
    replica_fetch(rm, F1, 3)
    replica_fetch(rm, F2, 2)
    assert partition.log.high_watermark == 2
    [data] = replica_fetch(rm, F2, 3)
    assert partition.log.high_watermark == 3 and data.high_watermark == 3 and data.records == b""
    assert partition.follower_states[F2].log_end_offset == 3
    # a broker that is no replica of it is refused (Partition.followerReplicaOrThrow:
    # UNKNOWN_LEADER_EPOCH with a current leader epoch, else NOT_LEADER_OR_FOLLOWER); a stale
    # epoch is fenced
    [stranger] = replica_fetch(rm, 7, 0)
    assert stranger.error is ErrorCode.UNKNOWN_LEADER_EPOCH and stranger.records == b""
    [stranger] = replica_fetch(rm, 7, 0, epoch=-1)
    assert stranger.error is ErrorCode.NOT_LEADER_OR_FOLLOWER and stranger.records == b""
    [fenced] = replica_fetch(rm, F1, 0, epoch=0)
    assert fenced.error is ErrorCode.FENCED_LEADER_EPOCH


def test_a_follower_serves_no_fetches(log_manager):
    log_manager.create_topic("t", 1, uuid.uuid4(), {})
    rm = ReplicaManager(ME, log_manager, Clock())
    rm.on_topics_changed({}, [PartitionState("t", 0, F1, 1, (F1, ME), (F1, ME))])
    [data] = replica_fetch(rm, F2, 0)
    assert data.error is ErrorCode.NOT_LEADER_OR_FOLLOWER


def test_acks_all_waits_for_every_in_sync_replica(log_manager):
    async def scenario():
        rm = leader_rm(log_manager, Clock())
        pending = produce(rm, 2)
        assert inspect.isawaitable(pending)
        waiting = asyncio.ensure_future(pending)
        await asyncio.sleep(0)
        assert not waiting.done() and len(rm.produce_purgatory) == 1
        replica_fetch(rm, F1, 2)
        await asyncio.sleep(0)
        assert not waiting.done()  # F2 has not fetched
        replica_fetch(rm, F2, 2)
        result = (await asyncio.wait_for(waiting, 30))[("t", 0)]
        assert result.error is None and result.info.base_offset == 0
        assert len(rm.produce_purgatory) == 0

    asyncio.run(scenario())


def test_acks_all_times_out_when_a_follower_never_fetches(log_manager):
    async def scenario():
        rm = leader_rm(log_manager, Clock())
        replica_fetch(rm, F1, 0)
        pending = produce(rm, 1, timeout_ms=50)
        replica_fetch(rm, F1, 1)
        result = (await asyncio.wait_for(asyncio.ensure_future(pending), 30))[("t", 0)]
        assert result.error is not None and result.error.error is ErrorCode.REQUEST_TIMED_OUT
        # the record was appended nonetheless (Kafka's semantics: not acknowledged, not undone)
        assert rm.get_partition_or_error("t", 0).log.log_end_offset == 1

    asyncio.run(scenario())


def test_under_min_insync_replicas_nothing_commits_and_acks_all_is_refused(log_manager):
    async def scenario():
        clock = Clock()
        rm = leader_rm(log_manager, clock, min_isr=2)
        partition = rm.get_partition_or_error("t", 0)
        waiting = asyncio.ensure_future(produce(rm, 1, timeout_ms=200))
        await asyncio.sleep(0)
        # the followers never fetched for longer than the lag time, and the controller
        # commits an ISR of the leader alone: below min.insync.replicas the high
        # watermark stays (isUnderMinIsr), so the waiting produce times out
        clock.now += 20_000
        rm.on_isr_committed(partition, 1, 1, (ME,))
        assert partition.log.high_watermark == 0
        result = (await asyncio.wait_for(waiting, 30))[("t", 0)]
        assert result.error.error is ErrorCode.REQUEST_TIMED_OUT
        # a new acks=-1 produce is refused before appending; acks=1 appends, uncommitted
        refused = produce(rm, 1)[("t", 0)]
        assert refused.error.error is ErrorCode.NOT_ENOUGH_REPLICAS and partition.log.log_end_offset == 1
        assert produce(rm, 1, acks=1)[("t", 0)].info.base_offset == 1
        assert partition.log.high_watermark == 0

    asyncio.run(scenario())


def test_acks_all_answers_not_leader_when_leadership_moves_while_waiting(log_manager):
    async def scenario():
        rm = leader_rm(log_manager, Clock())
        waiting = asyncio.ensure_future(produce(rm, 1))
        await asyncio.sleep(0)
        rm.on_topics_changed({}, [PartitionState("t", 0, F1, 2, (F1, F2), (ME, F1, F2), partition_epoch=1)])
        result = (await asyncio.wait_for(waiting, 30))[("t", 0)]
        assert result.error.error is ErrorCode.NOT_LEADER_OR_FOLLOWER

    asyncio.run(scenario())


def test_a_parked_replica_fetch_wakes_on_an_append(log_manager):
    async def scenario():
        rm = leader_rm(log_manager, Clock())
        pending = replica_fetch(rm, F1, 0, wait_ms=60_000)
        assert inspect.isawaitable(pending)
        waiting = asyncio.ensure_future(pending)
        await asyncio.sleep(0)
        produce(rm, 2, acks=1)
        [data] = await asyncio.wait_for(waiting, 30)
        assert [h.last_offset for _, h in iter_batches(data.records)] == [1]

    asyncio.run(scenario())


def test_isr_shrinks_after_the_lag_time_and_expands_at_the_high_watermark(log_manager):
    clock = Clock()
    rm = leader_rm(log_manager, clock)
    sink = RecordingSink()
    partition = rm.get_partition_or_error("t", 0)
    partition._isr_change_sink = sink
    produce(rm, 2, acks=1)
    replica_fetch(rm, F1, 2)
    replica_fetch(rm, F2, 0)
    clock.now += 5_000
    assert not partition.maybe_shrink_isr() and sink.proposals == []
    replica_fetch(rm, F1, 2)  # F1 caught up again; F2 last caught up at the LeaderAndIsr
    clock.now += 6_000
    assert partition.maybe_shrink_isr()
    assert sink.proposals == [("t", (ME, F1))]
    assert partition.isr == (ME, F1, F2)  # not before the controller commits it
    assert not partition.maybe_shrink_isr()  # one change at a time
    partition.on_alter_partition_committed(1, 1, (ME, F1))
    assert partition.isr == (ME, F1) and partition.log.high_watermark == 2  # F2 no longer holds it
    # F2 comes back: once at the high watermark it is proposed, and counts for it at once
    replica_fetch(rm, F2, 1)
    assert sink.proposals[-1] == ("t", (ME, F1))
    produce(rm, 1, acks=1)
    replica_fetch(rm, F2, 2)
    assert sink.proposals[-1] == ("t", (ME, F1, F2))
    assert partition.maximal_isr == (ME, F1, F2)
    replica_fetch(rm, F1, 3)
    assert partition.log.high_watermark == 2  # F2 (pending in the ISR) holds it
    replica_fetch(rm, F2, 3)
    assert partition.log.high_watermark == 3
    # a refusal drops the pending change; a stale answer is ignored
    partition.on_alter_partition_failed(ErrorCode.INELIGIBLE_REPLICA)
    assert partition.pending_isr is None and partition.isr == (ME, F1)
    partition.on_alter_partition_committed(0, 5, (ME,))
    assert partition.isr == (ME, F1)


def test_a_new_leader_with_a_lagging_high_watermark_answers_offset_not_available(log_manager):
    clock = Clock()
    rm = leader_rm(log_manager, clock)
    produce(rm, 3, acks=1)  # offsets 0-2, not committed (the followers never fetched)
    partition = rm.get_partition_or_error("t", 0)
    # re-elected with a new epoch: it starts at 3, above the high watermark 0
    rm.on_topics_changed({}, [PartitionState("t", 0, ME, 2, (ME, F1, F2), (ME, F1, F2), partition_epoch=1)])
    latest = lambda: rm.fetch_offset_for_timestamp(  # noqa: E731
        "t", 0, -1, isolation=FetchIsolation.HIGH_WATERMARK, current_leader_epoch=-1
    )
    with pytest.raises(KafkaError) as caught:
        latest()
    assert caught.value.error is ErrorCode.OFFSET_NOT_AVAILABLE
    assert (
        rm.fetch_offset_for_timestamp(
            "t", 0, -2, isolation=FetchIsolation.HIGH_WATERMARK, current_leader_epoch=-1
        ).offset
        == 0
    )
    replica_fetch(rm, F1, 3, epoch=2)
    replica_fetch(rm, F2, 3, epoch=2)
    assert partition.log.high_watermark == 3 and latest().offset == 3
