"""KIP-392, fetch from the closest replica: the leader's preferred read replica
(``ReplicaManager.findPreferredReadReplica`` with ``RackAwareReplicaSelector``) and a
follower serving a consumer's Fetch v11+ (``FetchParams.fetchOnlyLeader``), in one process.

The whole path with real consumers (librdkafka and the Java client with ``client.rack``) is in
tests/cluster/test_fetch_from_follower_cluster.py.
"""

from __future__ import annotations

import asyncio
import inspect
import uuid

import pytest

from broker.config import BrokerConfig, ConfigError
from broker.fetch_params import ClientMetadata, FetchParams, FetchPartitionInfo
from broker.fetch_session import FetchManager, FetchSessionCache, SessionPartition
from broker.replica_manager import ReplicaManager
from broker.replica_selector import (
    RACK_AWARE_REPLICA_SELECTOR,
    RackAwareReplicaSelector,
    ReplicaSelection,
    ReplicaView,
    create_replica_selector,
)
from coordinator.cluster_state import PartitionState
from protocol.errors import ErrorCode
from protocol.record_batch import iter_batches
from storage.log_config import resolve_topic_defaults
from storage.log_manager import LogManager
from storage.log_types import FetchIsolation
from storage.producer_state import AppendOrigin
from tests.storage.batch_factory import BASE_TS, make_batch

ME, NEAR, FAR = 0, 1, 2
RACKS = {ME: "rack-a", NEAR: "rack-b", FAR: "rack-c"}
LISTENER = "PLAINTEXT"


# ------------------------------------------------------------------ the selector alone


def view(broker_id: int, rack: str | None, end: int = 100, since: int = 0) -> ReplicaView:
    return ReplicaView(broker_id, rack, end, since)


def test_rack_aware_selector_picks_as_kafkas():
    """Kafka's ``RackAwareReplicaSelector`` (and ``ReplicaSelectorTest``): the consumer's rack,
    the leader when it is in that rack or none is, the most caught-up replica of the rack
    (longest log, then most recently caught up, then highest id)."""
    selector = RackAwareReplicaSelector()
    leader = view(0, "a")
    b1, b2 = view(1, "b", end=90), view(2, "b", end=100)
    assert selector.select("b", [leader, b1, b2], leader) == b2
    assert selector.select("a", [leader, b1, b2], leader) == leader
    assert selector.select("z", [leader, b1, b2], leader) == leader
    assert selector.select("", [leader, b1, b2], leader) == leader
    fresh, stale = view(1, "b", since=10), view(2, "b", since=500)
    assert selector.select("b", [leader, fresh, stale], leader) == fresh
    same1, same2 = view(1, "b"), view(2, "b")
    assert selector.select("b", [leader, same1, same2], leader) == same2


def test_replica_selector_class_accepts_kafkas_built_in_selector_only(tmp_path):
    """``replica.selector.class``: unset (Kafka's null: consumers read from the leader) or
    Kafka's RackAwareReplicaSelector; a class Moldau cannot load is a one-line start-up error."""
    base = {"log.dirs": str(tmp_path)}
    assert BrokerConfig(base)["replica.selector.class"] is None
    assert create_replica_selector("") is None
    cfg = BrokerConfig({**base, "replica.selector.class": RACK_AWARE_REPLICA_SELECTOR})
    assert isinstance(create_replica_selector(cfg["replica.selector.class"]), RackAwareReplicaSelector)
    with pytest.raises(ConfigError, match=r"replica\.selector\.class"):
        BrokerConfig({**base, "replica.selector.class": "com.example.MySelector"})


# ------------------------------------------------------------------ at the leader


def selection(alive: set[int] | None = None) -> ReplicaSelection:
    alive = set(RACKS) if alive is None else alive
    return ReplicaSelection(
        RackAwareReplicaSelector(),
        lambda broker_id, listener: (
            (RACKS[broker_id],) if broker_id in alive and listener == LISTENER else None
        ),
    )


def leader_with_followers(log_manager: LogManager, records: int = 5, **kwargs) -> ReplicaManager:
    """ME leads t-0 (replicas ME, NEAR, FAR, all in sync) holding ``records`` records that
    both followers have fetched."""
    log_manager.create_topic("t", 1, uuid.uuid4(), {})
    rm = ReplicaManager(ME, log_manager, lambda: BASE_TS, **kwargs)
    replicas = (ME, NEAR, FAR)
    rm.on_topics_changed({}, [PartitionState("t", 0, ME, 1, replicas, replicas)])
    result = rm.append_records(
        [(("t", 0), memoryview(make_batch(records, timestamp=BASE_TS)))],
        required_acks=1,
        origin=AppendOrigin.CLIENT,
        produce_version=9,
    )[("t", 0)]
    assert result.error is None
    partition = rm.get_partition_or_error("t", 0)
    for follower in (NEAR, FAR):
        assert partition.update_follower_fetch_state(follower, records, 0, BASE_TS, records) is not None
    assert partition.log.high_watermark == records
    return rm


def consumer_fetch(
    rm: ReplicaManager,
    offset: int,
    *,
    rack: str | None = "rack-b",
    min_bytes: int = 1,
    wait_ms: int = 0,
    epoch: int = -1,
    isolation: FetchIsolation = FetchIsolation.HIGH_WATERMARK,
):
    """A consumer's fetch of t-0; ``rack`` None is a Fetch v10 or older (no client metadata)."""
    params = FetchParams(
        max_wait_ms=wait_ms,
        min_bytes=min_bytes,
        max_bytes=1 << 20,
        isolation=isolation,
        client_metadata=None if rack is None else ClientMetadata(rack, LISTENER),
    )
    info = FetchPartitionInfo(fetch_offset=offset, max_bytes=1 << 20, current_leader_epoch=epoch)
    return rm.fetch_messages(params, [(("t", 0), info)])


def test_the_leader_names_the_in_sync_follower_of_the_consumers_rack(log_manager):
    """``findPreferredReadReplica``: the answer carries the follower's id, the partition's
    offsets and no records, at once (a fetch waiting for min_bytes is not parked:
    ``fetchMessages``' hasPreferredReadReplica)."""
    rm = leader_with_followers(log_manager, replica_selection=selection())
    [data] = consumer_fetch(rm, 0, min_bytes=1 << 20, wait_ms=60_000)
    assert data.error is ErrorCode.NONE and data.preferred_read_replica == NEAR
    assert len(data.records) == 0
    assert (data.high_watermark, data.last_stable_offset, data.log_start_offset) == (5, 5, 0)
    [data] = consumer_fetch(rm, 0, rack="rack-c")
    assert data.preferred_read_replica == FAR


def test_the_leader_serves_the_fetch_itself_when_no_follower_fits(log_manager):
    """Kafka leaves the leader out of the answer (-1) and reads: the consumer's rack is the
    leader's or no replica's, no rack given, a Fetch before v11, a follower out of the ISR,
    one whose log does not reach the fetch offset, one not alive on the consumer's listener,
    or no ``replica.selector.class``."""
    rm = leader_with_followers(log_manager, replica_selection=selection())
    for rack in ("rack-a", "rack-z", "", None):
        [data] = consumer_fetch(rm, 0, rack=rack)
        assert data.preferred_read_replica == -1 and len(data.records) > 0, rack
    partition = rm.get_partition_or_error("t", 0)
    partition.follower_states[NEAR].log_end_offset = 3
    [data] = consumer_fetch(rm, 4)
    assert data.preferred_read_replica == -1 and len(data.records) > 0
    [data] = consumer_fetch(rm, 3)
    assert data.preferred_read_replica == NEAR
    partition.isr = (ME, FAR)
    [data] = consumer_fetch(rm, 0)
    assert data.preferred_read_replica == -1

    other = LogManager([log_manager.log_dirs[0].parent / "other"], resolve_topic_defaults({}))
    other.startup()
    try:
        rm = leader_with_followers(other, replica_selection=selection(alive={ME, FAR}))
        [data] = consumer_fetch(rm, 0)
        assert data.preferred_read_replica == -1
    finally:
        other.shutdown()


def test_without_a_selector_and_for_followers_nothing_is_redirected(log_manager):
    rm = leader_with_followers(log_manager)
    [data] = consumer_fetch(rm, 0)
    assert data.preferred_read_replica == -1 and len(data.records) > 0
    rm.replica_selection = selection()
    params = FetchParams(
        max_wait_ms=0, min_bytes=1, max_bytes=1 << 20, isolation=FetchIsolation.LOG_END, replica_id=NEAR
    )
    [data] = rm.fetch_messages(params, [(("t", 0), FetchPartitionInfo(fetch_offset=0, max_bytes=1 << 20))])
    assert data.preferred_read_replica == -1 and len(data.records) > 0


def test_the_redirect_checks_the_consumers_leader_epoch(log_manager):
    """``fetchOffsetSnapshot(currentLeaderEpoch)`` before answering a preferred replica."""
    rm = leader_with_followers(log_manager, replica_selection=selection())
    [data] = consumer_fetch(rm, 0, epoch=0)
    assert data.error is ErrorCode.FENCED_LEADER_EPOCH and data.preferred_read_replica == -1
    [data] = consumer_fetch(rm, 0, epoch=2)
    assert data.error is ErrorCode.UNKNOWN_LEADER_EPOCH


def test_a_session_answers_a_preferred_replica_even_when_nothing_else_changed(log_manager):
    """``CachedPartition.maybeUpdateResponseData``: a preferred read replica is always answered,
    so an incremental fetch does not leave the consumer without it."""
    rm = leader_with_followers(log_manager, replica_selection=selection())
    manager = FetchManager(FetchSessionCache(10, lambda: BASE_TS))
    part = SessionPartition("t", None, 0)
    info = FetchPartitionInfo(fetch_offset=0, max_bytes=1 << 20)
    full = manager.new_context(12, 0, 0, False, [(part, info)], [])
    results = consumer_fetch(rm, 0)
    _, session_id, sent = full.answer(results)
    assert session_id > 0 and sent == [0]
    incremental = manager.new_context(12, session_id, 1, False, [], [])
    _, _, sent = incremental.answer(consumer_fetch(rm, 0))
    assert sent == [0]


# ------------------------------------------------------------------ at a follower


def follower_holding(log_manager: LogManager, records: int = 5, high_watermark: int = 3) -> ReplicaManager:
    """ME follows NEAR on t-0 (epoch 2) with ``records`` records (3 in the first batch), its high watermark at
    ``high_watermark`` (as the leader's answers told it)."""
    log_manager.create_topic("t", 1, uuid.uuid4(), {})
    rm = ReplicaManager(ME, log_manager, lambda: BASE_TS)
    replicas = (ME, NEAR)
    rm.on_topics_changed({}, [PartitionState("t", 0, ME, 1, replicas, replicas)])
    for n in (3, records - 3):  # two batches: a high watermark of 3 falls between them
        rm.append_records(
            [(("t", 0), memoryview(make_batch(n, timestamp=BASE_TS)))],
            required_acks=1,
            origin=AppendOrigin.CLIENT,
            produce_version=9,
        )
    rm.on_topics_changed({}, [PartitionState("t", 0, NEAR, 2, replicas, replicas, partition_epoch=1)])
    partition = rm.get_partition_or_error("t", 0)
    assert not partition.is_leader
    partition.update_follower_high_watermark(high_watermark, 0)
    assert partition.log.high_watermark == high_watermark
    return rm


def test_a_follower_serves_a_v11_consumer_up_to_its_high_watermark(log_manager):
    """``FetchParams.fetchOnlyLeader`` is false for a consumer's Fetch v11+: a follower reads
    for it, bounded by its own high watermark; a Fetch v10 or older is still refused."""
    rm = follower_holding(log_manager, records=5, high_watermark=5)
    [data] = consumer_fetch(rm, 0, epoch=2)
    assert data.error is ErrorCode.NONE and data.high_watermark == 5 and len(data.records) > 0
    [data] = consumer_fetch(rm, 0, rack=None)
    assert data.error is ErrorCode.NOT_LEADER_OR_FOLLOWER and len(data.records) == 0
    [data] = consumer_fetch(rm, 0, epoch=1)
    assert data.error is ErrorCode.FENCED_LEADER_EPOCH


def test_a_follower_answers_offsets_between_its_high_watermark_and_log_end_empty(log_manager):
    """``LocalLog.read``: past the high watermark but within the log nothing is returned and
    nothing is wrong (the follower's high watermark lags the leader's); past the log end it
    is OFFSET_OUT_OF_RANGE (the consumer then goes back to the leader)."""
    rm = follower_holding(log_manager, records=5, high_watermark=3)
    [data] = consumer_fetch(rm, 0)
    assert data.error is ErrorCode.NONE and data.high_watermark == 3
    assert [h.last_offset for _, h in iter_batches(bytes(data.records))] == [2]  # whole batches below it
    [data] = consumer_fetch(rm, 4)
    assert data.error is ErrorCode.NONE and len(data.records) == 0
    [data] = consumer_fetch(rm, 6)
    assert data.error is ErrorCode.OFFSET_OUT_OF_RANGE


def test_a_consumer_fetch_parked_on_a_follower_completes_when_its_high_watermark_moves(log_manager):
    """DelayedFetch on a follower (KIP-392): not completed because this broker is no leader,
    completed when the replica fetcher moves the high watermark (Kafka's
    ``completeDelayedFetchRequests``)."""

    async def scenario():
        rm = follower_holding(log_manager, records=5, high_watermark=5)
        pending = consumer_fetch(rm, 5, wait_ms=60_000)
        assert inspect.isawaitable(pending)
        waiting = asyncio.ensure_future(pending)
        await asyncio.sleep(0)
        partition = rm.get_partition_or_error("t", 0)
        # an append as follower moves nothing a consumer may read
        rm.complete_delayed_fetch_requests([("t", 0)])
        await asyncio.sleep(0)
        assert not waiting.done() and len(rm.fetch_purgatory) == 1
        # the leader's answer: records, then the high watermark
        plog = partition.log
        batch = make_batch(2, timestamp=BASE_TS)
        batch[0:8] = (5).to_bytes(8, "big")  # base offset 5
        batch[12:16] = (2).to_bytes(4, "big")  # partition leader epoch
        partition.append_records_as_follower(memoryview(batch))
        assert plog.log_end_offset == 7
        assert partition.update_follower_high_watermark(7, 0)
        rm.complete_delayed_fetch_requests([("t", 0)])
        [data] = await asyncio.wait_for(waiting, 30)
        assert data.error is ErrorCode.NONE and data.high_watermark == 7 and len(data.records) > 0
        assert len(rm.fetch_purgatory) == 0

    asyncio.run(scenario())
