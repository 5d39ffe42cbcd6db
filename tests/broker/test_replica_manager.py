"""ReplicaManager: hosting from partition states, internal topics, delayed fetches on high-watermark moves."""

from __future__ import annotations

import asyncio
import inspect
import uuid

import pytest

from broker.fetch_params import FetchParams, FetchPartitionInfo
from broker.inline_answer import InlineAnswer
from broker.replica_manager import ReplicaManager
from coordinator.cluster_state import PartitionState, TopicMetadata
from protocol.errors import ErrorCode, KafkaError
from protocol.record_batch import iter_batches
from storage.log_manager import LogManager
from storage.log_types import FetchIsolation
from storage.producer_state import AppendOrigin
from tests.storage.batch_factory import BASE_TS, make_batch

ME, OTHER = 0, 1


def rm_for(lm: LogManager) -> ReplicaManager:
    return ReplicaManager(ME, lm, lambda: BASE_TS)


def produce(
    rm: ReplicaManager, topic: str, partition: int = 0, n: int = 1, *, version: int | None = 9, acks: int = -1
):
    return rm.append_records(
        [((topic, partition), memoryview(make_batch(n, timestamp=BASE_TS)))],
        required_acks=acks,
        origin=AppendOrigin.CLIENT,
        produce_version=version,
    )[(topic, partition)]


def consumer_fetch(rm: ReplicaManager, topic: str, offset: int, *, min_bytes: int = 1, wait_ms: int = 60_000):
    params = FetchParams(
        max_wait_ms=wait_ms, min_bytes=min_bytes, max_bytes=1 << 20, isolation=FetchIsolation.HIGH_WATERMARK
    )
    return rm.fetch_messages(
        params, [((topic, 0), FetchPartitionInfo(fetch_offset=offset, max_bytes=1 << 20))]
    )


def test_lead_local_logs_leads_every_log_and_only_states_host_later_ones(log_manager):
    log_manager.create_topic("a", 2, uuid.uuid4(), {})
    rm = rm_for(log_manager)
    assert rm.get_partition("a", 0) is None  # nothing hosted before the bootstrap
    rm.lead_local_logs()
    p = rm.get_partition_or_error("a", 1)
    assert p.is_leader and p.leader_epoch == 0 and p.isr == p.replicas == (ME,)
    log_manager.create_topic("later", 1, uuid.uuid4(), {})
    assert rm.get_partition("later", 0) is None  # a log alone is not a hosted partition
    rm.on_topics_changed({}, [PartitionState("later", 0, ME, 0, (ME,), (ME,))])
    assert rm.get_partition_or_error("later", 0).is_leader
    with pytest.raises(KafkaError) as caught:
        rm.get_partition_or_error("nope", 0)
    assert caught.value.error is ErrorCode.UNKNOWN_TOPIC_OR_PARTITION


def test_partition_states_make_leaders_and_followers(log_manager):
    log_manager.create_topic("t", 3, uuid.uuid4(), {})
    rm = rm_for(log_manager)  # not embedded: only what the states say is hosted
    topics = {"t": TopicMetadata("t", uuid.uuid4(), 3)}
    rm.on_topics_changed(
        topics,
        [
            PartitionState("t", 0, ME, 3, (ME, OTHER), (ME, OTHER)),
            PartitionState("t", 1, OTHER, 2, (OTHER, ME), (OTHER, ME)),
            PartitionState("t", 2, OTHER, 1, (OTHER,), (OTHER,)),  # not a replica here
        ],
    )
    leader, follower = rm.get_partition_or_error("t", 0), rm.get_partition_or_error("t", 1)
    assert leader.is_leader and leader.leader_epoch == 3 and set(leader.follower_states) == {OTHER}
    assert not follower.is_leader and follower.leader_id == OTHER
    assert rm.get_partition("t", 2) is None
    assert produce(rm, "t", 1).error.error is ErrorCode.NOT_LEADER_OR_FOLLOWER
    # acks=1 with a follower not caught up: appended, but nothing committed yet
    assert produce(rm, "t", 0, version=9, acks=1).info.base_offset == 0
    assert leader.log.high_watermark == 0
    # a stale state (older partition epoch) is ignored
    rm.on_topics_changed({}, [PartitionState("t", 0, OTHER, 9, (OTHER,), (ME, OTHER), partition_epoch=-5)])
    assert leader.is_leader and leader.leader_epoch == 3


def test_clients_cannot_append_to_internal_topics(log_manager):
    for name in ("__consumer_offsets", "__transaction_state"):
        log_manager.create_topic(name, 1, uuid.uuid4(), {})
    rm = rm_for(log_manager)
    rm.lead_local_logs()
    for name in ("__consumer_offsets", "__transaction_state"):
        result = produce(rm, name)
        assert result.info is None and result.error.error is ErrorCode.INVALID_TOPIC_EXCEPTION
        assert result.error.message == f"Cannot append to internal topic {name}"
        # the coordinators may
        info = rm.append_to_local_log(
            (name, 0),
            memoryview(make_batch(1, timestamp=BASE_TS)),
            origin=AppendOrigin.COORDINATOR,
            required_acks=1,
        )
        assert info.base_offset == 0
        assert rm.log_offsets(name, 0).high_watermark == 1


def test_invalid_acks_refuse_every_partition(log_manager):
    log_manager.create_topic("t", 2, uuid.uuid4(), {})
    rm = rm_for(log_manager)
    rm.lead_local_logs()
    results = rm.append_records(
        [(("t", 0), make_batch(1)), (("t", 1), make_batch(1))], required_acks=2, origin=AppendOrigin.CLIENT
    )
    assert {r.error.error for r in results.values()} == {ErrorCode.INVALID_REQUIRED_ACKS}
    assert log_manager.get_log("t", 0).log_end_offset == 0


def test_a_delayed_fetch_completes_when_the_high_watermark_moves_not_on_a_raw_append(log_manager):
    async def scenario():
        log_manager.create_topic("t", 1, uuid.uuid4(), {})
        rm = rm_for(log_manager)
        rm.on_topics_changed({}, [PartitionState("t", 0, ME, 0, (ME, OTHER), (ME, OTHER))])
        pending = consumer_fetch(rm, "t", 0)
        assert inspect.isawaitable(pending)
        waiting = asyncio.ensure_future(pending)
        await asyncio.sleep(0)
        assert len(rm.fetch_purgatory) == 1
        produce(rm, "t", acks=1)  # appended, not committed: the follower has not fetched it
        await asyncio.sleep(0)
        assert not waiting.done() and len(rm.fetch_purgatory) == 1
        # the follower catches up (what the replica fetch path will do): the HW moves
        partition = rm.get_partition_or_error("t", 0)
        partition.follower_states[OTHER].log_end_offset = 1
        assert partition.maybe_increment_high_watermark()
        rm._complete_delayed_requests(("t", 0))
        [data] = await asyncio.wait_for(waiting, 30)
        assert data.error is ErrorCode.NONE and data.high_watermark == 1 and len(data.records) > 0
        assert len(rm.fetch_purgatory) == 0

    asyncio.run(scenario())


def test_an_append_right_after_the_first_read_is_not_missed(log_manager):
    async def scenario():
        log_manager.create_topic("t", 1, uuid.uuid4(), {})
        rm = rm_for(log_manager)
        rm.lead_local_logs()
        pending = consumer_fetch(rm, "t", 0)
        produce(rm, "t")  # before the fetch's task ever runs
        [data] = await asyncio.wait_for(asyncio.ensure_future(pending), 30)
        assert len(data.records) > 0 and len(rm.fetch_purgatory) == 0

    asyncio.run(scenario())


def test_a_parked_consumer_fetch_is_checked_after_the_appends_that_moved_the_high_watermark(log_manager):
    """Kafka's ``addCompletePurgatoryAction`` with the high watermark moved (a leader alone in
    its ISR commits at its append): the consumers' parked fetches are checked once the
    requests being handled are, as the followers' are, so the long poll's answer carries every
    batch of a burst of pipelined produces, not the first only."""

    async def scenario():
        log_manager.create_topic("t", 1, uuid.uuid4(), {})
        rm = rm_for(log_manager)
        rm.lead_local_logs()
        pending = consumer_fetch(rm, "t", 0)
        assert inspect.iscoroutine(pending)  # an empty log: parked
        ended: list[InlineAnswer] = []
        answer = InlineAnswer(pending, ended.append)
        answer.start()
        produce(rm, "t", n=2, acks=-1)  # offsets 0-1, committed at once
        produce(rm, "t", n=3, acks=-1)  # offsets 2-4
        assert rm.get_partition_or_error("t", 0).log.high_watermark == 5
        assert not answer.done() and len(rm.fetch_purgatory) == 1
        rm.actions.try_complete_actions()
        assert ended == [answer] and len(rm.fetch_purgatory) == 0
        [data] = answer.result()
        assert data.high_watermark == 5
        assert [h.base_offset for _, h in iter_batches(bytes(data.records))] == [0, 2]

    asyncio.run(scenario())


def test_min_bytes_counts_what_became_readable_and_the_timeout_answers(log_manager):
    async def scenario():
        log_manager.create_topic("t", 1, uuid.uuid4(), {})
        rm = rm_for(log_manager)
        rm.lead_local_logs()
        one = len(make_batch(1, timestamp=BASE_TS))
        waiting = asyncio.ensure_future(consumer_fetch(rm, "t", 0, min_bytes=2 * one + 1))
        produce(rm, "t")
        produce(rm, "t")
        await asyncio.sleep(0)
        assert not waiting.done()
        produce(rm, "t")
        assert len((await asyncio.wait_for(waiting, 30))[0].records) == 3 * one
        [quiet] = await asyncio.wait_for(asyncio.ensure_future(consumer_fetch(rm, "t", 3, wait_ms=10)), 30)
        assert quiet.error is ErrorCode.NONE and quiet.records == b""

    asyncio.run(scenario())


def test_deleting_a_topic_answers_its_parked_fetches(log_manager):
    async def scenario():
        log_manager.create_topic("t", 1, uuid.uuid4(), {})
        rm = rm_for(log_manager)
        rm.lead_local_logs()
        waiting = asyncio.ensure_future(consumer_fetch(rm, "t", 0))
        await asyncio.sleep(0)
        log_manager.delete_topic("t")
        rm.on_topic_deleted(TopicMetadata("t", uuid.uuid4(), 1))
        [data] = await asyncio.wait_for(waiting, 30)
        assert data.error is ErrorCode.UNKNOWN_TOPIC_OR_PARTITION and data.records == b""
        assert rm.get_partition("t", 0) is None and len(rm.fetch_purgatory) == 0

    asyncio.run(scenario())


def test_a_cancelled_fetch_leaves_the_purgatory(log_manager):
    async def scenario():
        log_manager.create_topic("t", 1, uuid.uuid4(), {})
        rm = rm_for(log_manager)
        rm.lead_local_logs()
        waiting = asyncio.ensure_future(consumer_fetch(rm, "t", 0))
        await asyncio.sleep(0)
        assert len(rm.fetch_purgatory) == 1
        waiting.cancel()
        await asyncio.sleep(0)
        assert len(rm.fetch_purgatory) == 0 and rm.fetch_purgatory.watched(("t", 0)) == 0

    asyncio.run(scenario())


def test_coordinator_writes_wake_fetches_parked_on_the_offsets_topic(log_manager):
    async def scenario():
        log_manager.create_topic("__consumer_offsets", 1, uuid.uuid4(), {})
        rm = rm_for(log_manager)
        rm.lead_local_logs()
        waiting = asyncio.ensure_future(consumer_fetch(rm, "__consumer_offsets", 0))
        await asyncio.sleep(0)
        assert not waiting.done()
        rm.append_to_local_log(
            ("__consumer_offsets", 0),
            memoryview(make_batch(1, timestamp=BASE_TS)),
            origin=AppendOrigin.COORDINATOR,
            required_acks=1,
        )
        [data] = await asyncio.wait_for(waiting, 30)
        assert data.error is ErrorCode.NONE and len(data.records) > 0

    asyncio.run(scenario())


# ------------------------------------------------------------ acks=-1 and min.insync.replicas

THIRD = 2


def parked_produce(rm: ReplicaManager, topic: str, timeout_ms: int) -> asyncio.Future:
    """An acks=-1 produce of one record that the followers have not acknowledged yet."""
    pending = rm.append_records(
        [((topic, 0), memoryview(make_batch(1, timestamp=BASE_TS)))],
        required_acks=-1,
        origin=AppendOrigin.CLIENT,
        timeout_ms=timeout_ms,
        produce_version=9,
    )
    assert inspect.isawaitable(pending)  # appended and parked in the DelayedProduce purgatory
    return asyncio.ensure_future(pending)


def min_isr_leader(log_manager: LogManager) -> tuple[ReplicaManager, object]:
    """This broker leads t-0 (replicas ME, OTHER, THIRD; all in sync) with min.insync.replicas=2."""
    log_manager.create_topic(
        "t", 1, uuid.uuid4(), {"min.insync.replicas": 2}
    )  # typed, as the admin path stores it
    rm = rm_for(log_manager)
    replicas = (ME, OTHER, THIRD)
    rm.on_topics_changed({}, [PartitionState("t", 0, ME, 1, replicas, replicas)])
    return rm, rm.get_partition_or_error("t", 0)


def follower_fetch(rm: ReplicaManager, offset: int):
    """OTHER's fetch of t-0 from ``offset`` (leader epoch 1), waiting up to a minute."""
    params = FetchParams(
        max_wait_ms=60_000, min_bytes=1, max_bytes=1 << 20, isolation=FetchIsolation.LOG_END, replica_id=OTHER
    )
    info = FetchPartitionInfo(fetch_offset=offset, max_bytes=1 << 20, current_leader_epoch=1)
    return rm.fetch_messages(params, [(("t", 0), info)])


def test_an_isr_shrinking_below_min_insync_under_a_committed_append_answers_after_append(log_manager):
    """Kafka's ``Partition.checkEnoughReplicasReachOffset``: the high watermark passed the
    append, but when the DelayedProduce is checked the ISR is below min.insync.replicas:
    the records are in the log and the producer gets NOT_ENOUGH_REPLICAS_AFTER_APPEND (20),
    not a success. (In Kafka the fetch path moves the high watermark and completes delayed
    requests in two steps, and an ISR change can land between them: here the follower's
    fetch state is updated on the Partition, without the manager's completion step.)"""

    async def scenario():
        rm, partition = min_isr_leader(log_manager)
        waiting = parked_produce(rm, "t", timeout_ms=60_000)
        await asyncio.sleep(0)
        assert not waiting.done() and len(rm.produce_purgatory) == 1
        for follower in (OTHER, THIRD):
            assert partition.update_follower_fetch_state(follower, 1, 0, BASE_TS, 1) is not None
        assert partition.log.high_watermark == 1
        assert not waiting.done()  # nothing checked the purgatory yet
        # the controller commits an ISR of the leader alone (both followers dropped); the high
        # watermark does not move, and the fetch path's completion step comes next
        rm.on_isr_committed(partition, partition.leader_epoch, partition.partition_epoch + 1, (ME,))
        rm._complete_delayed_requests(("t", 0))
        result = (await asyncio.wait_for(waiting, 30))[("t", 0)]
        assert result.info is None and result.error.error is ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND
        assert partition.log.log_end_offset == 1  # appended all the same
        assert len(rm.produce_purgatory) == 0

    asyncio.run(scenario())


def test_an_isr_shrinking_below_min_insync_before_the_followers_ack_never_acknowledges(log_manager):
    """The ISR shrinks to the leader alone while the produce waits for its followers: the
    high watermark no longer moves (``maybeIncrementLeaderHW``'s ``isUnderMinIsr``,
    KAFKA-15583 / KIP-966), so the append is never acknowledged: REQUEST_TIMED_OUT at the
    produce timeout, not a success. The next acks=-1 produce is refused before appending
    (NOT_ENOUGH_REPLICAS, 19); once a follower is back in the ISR, the parked records
    commit and acks=-1 works again."""

    async def scenario():
        rm, partition = min_isr_leader(log_manager)
        waiting = parked_produce(rm, "t", timeout_ms=300)
        await asyncio.sleep(0)
        rm.on_isr_committed(partition, partition.leader_epoch, partition.partition_epoch + 1, (ME,))
        assert not waiting.done()
        # the followers fetch the record, but they are out of the ISR: the high watermark stays
        for follower in (OTHER, THIRD):
            assert rm.fetch_messages(  # a replica fetch, as the Fetch handler makes it
                FetchParams(
                    max_wait_ms=0,
                    min_bytes=1,
                    max_bytes=1 << 20,
                    isolation=FetchIsolation.LOG_END,
                    replica_id=follower,
                ),
                [(("t", 0), FetchPartitionInfo(fetch_offset=1, max_bytes=1 << 20))],
            )
        assert partition.log.high_watermark == 0
        result = (await asyncio.wait_for(waiting, 30))[("t", 0)]
        assert result.info is None and result.error.error is ErrorCode.REQUEST_TIMED_OUT
        refused = produce(rm, "t")
        assert refused.info is None and refused.error.error is ErrorCode.NOT_ENOUGH_REPLICAS
        assert partition.log.log_end_offset == 1  # the refused batch was not appended
        rm.on_isr_committed(partition, partition.leader_epoch, partition.partition_epoch + 1, (ME, OTHER))
        assert partition.log.high_watermark == 1
        waiting = parked_produce(rm, "t", timeout_ms=60_000)
        for follower in (OTHER, THIRD):
            partition.update_follower_fetch_state(follower, 2, 0, BASE_TS, 2)
        rm._complete_delayed_requests(("t", 0))
        result = (await asyncio.wait_for(waiting, 30))[("t", 0)]
        assert result.error is None and result.info.base_offset == 1

    asyncio.run(scenario())


def test_an_isr_commit_checks_the_parked_requests_only_when_the_high_watermark_moved(
    log_manager, monkeypatch
):
    """Kafka's ``Partition.submitAlterPartition`` completion: ``tryCompleteDelayedRequests``
    only if ``handleAlterPartitionUpdate`` moved the high watermark. (Every commit checked them
    before: a follower's parked fetch watches all its partitions, so one AlterPartition answer
    for N partitions re-ran N x N partition checks on the loop.)"""

    async def scenario():
        rm, partition = min_isr_leader(log_manager)
        waiting = parked_produce(rm, "t", timeout_ms=60_000)
        await asyncio.sleep(0)
        checked: list = []
        complete = rm._complete_delayed_requests
        monkeypatch.setattr(
            rm, "_complete_delayed_requests", lambda key: (checked.append(key), complete(key))
        )
        # a commit that leaves the high watermark alone: the leader alone, under min ISR
        rm.on_isr_committed(partition, partition.leader_epoch, partition.partition_epoch + 1, (ME,))
        assert checked == [] and not waiting.done()
        for follower in (OTHER, THIRD):  # they catch up, out of the ISR: the HW stays
            partition.update_follower_fetch_state(follower, 1, 0, BASE_TS, 1)
        assert partition.log.high_watermark == 0
        # OTHER back in the ISR moves the high watermark: the parked produce completes
        rm.on_isr_committed(partition, partition.leader_epoch, partition.partition_epoch + 1, (ME, OTHER))
        assert partition.log.high_watermark == 1 and checked == [("t", 0)]
        result = (await asyncio.wait_for(waiting, 30))[("t", 0)]
        assert result.error is None and result.info.base_offset == 0

    asyncio.run(scenario())


def test_a_completed_follower_fetch_keeps_the_fetch_state_of_its_first_read(log_manager):
    """Kafka's ``fetchMessages`` updates a follower's fetch state after its first read only;
    the read of its DelayedFetch once completed (``readFromPurgatory``) does not: the follower
    told its log end offset when it asked, and the leader's log end offset it then saw is the
    one its catch-up time is measured against (``Replica.updateFetchState``)."""

    async def scenario():
        rm, partition = min_isr_leader(log_manager)
        produce(rm, "t", acks=1)  # offset 0
        pending = follower_fetch(rm, 1)
        assert inspect.isawaitable(pending)  # at the log end: parked
        follower = partition.follower_states[OTHER]
        assert (follower.log_end_offset, follower.last_fetch_leader_log_end_offset) == (1, 1)
        state = (follower.last_caught_up_time_ms, follower.last_fetch_time_ms)
        produce(rm, "t", acks=1)  # offset 1 completes the parked fetch
        [data] = await asyncio.wait_for(asyncio.ensure_future(pending), 30)
        assert data.error is ErrorCode.NONE and len(data.records) > 0
        assert (follower.log_end_offset, follower.last_fetch_leader_log_end_offset) == (1, 1)
        assert (follower.last_caught_up_time_ms, follower.last_fetch_time_ms) == state

    asyncio.run(scenario())


def test_a_parked_follower_fetch_is_checked_after_the_appends_and_carries_them_all(log_manager):
    """Kafka's ActionQueue: an append asks for its parked followers' fetches to be checked
    once the requests being handled are (``try_complete_actions``, which the server runs
    after each pass over a connection's frames), not at once: the answer, stepped where the
    fetch completes (InlineAnswer), carries every batch of the burst, not the first only."""

    async def scenario():
        rm, _partition = min_isr_leader(log_manager)
        pending = follower_fetch(rm, 0)
        assert inspect.iscoroutine(pending)  # an empty log: parked
        ended: list[InlineAnswer] = []
        answer = InlineAnswer(pending, ended.append)
        answer.start()
        produce(rm, "t", n=2, acks=1)  # offsets 0-1
        produce(rm, "t", n=3, acks=1)  # offsets 2-4
        assert not answer.done() and len(rm.actions) == 1
        rm.actions.try_complete_actions()
        assert ended == [answer]
        [data] = answer.result()
        assert [h.base_offset for _, h in iter_batches(bytes(data.records))] == [0, 2]

    asyncio.run(scenario())
