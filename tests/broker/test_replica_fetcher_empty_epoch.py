"""A follower whose leader-epoch cache ends with an epoch that wrote nothing (it led that epoch
briefly, then lost leadership) must drop that entry when it agrees with the new leader, as
Kafka's UnifiedLog.truncateTo does even when the target offset is the log end offset."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from broker.partition import Partition
from broker.replica_fetcher import ReplicaFetcher, ReplicationSettings
from broker.replica_manager import ReplicaManager
from coordinator.cluster_state import PartitionState
from storage.log_config import resolve_topic_defaults
from storage.log_manager import LogManager
from tests.broker.test_replica_fetcher import FOLLOWER, LEADER, LoopbackClient, write
from tests.storage.batch_factory import BASE_TS
from tests.storage.log_factory import open_log, read_all


@pytest.fixture
def setup(tmp_path):
    lm = LogManager([tmp_path / "leader"], resolve_topic_defaults({}))
    lm.startup()
    lm.create_topic("t", 1, uuid.uuid4(), {})
    follower_log = open_log(tmp_path / "follower")
    yield lm, follower_log
    follower_log.close()
    lm.shutdown()


@pytest.mark.parametrize("skip_offset_for_leader_epoch", [False, True])
def test_follower_with_an_empty_last_epoch_catches_up(setup, skip_offset_for_leader_epoch):
    lm, follower_log = setup
    leader_log = lm.get_log("t", 0)
    # Epoch 0 (broker 0 leads): offsets 0-2, replicated to broker 1.
    write(leader_log, 1, 0, n=3)
    follower_log.append_as_follower(leader_log.read(0, 1 << 20).records)
    # Epoch 1: broker 1 leads briefly (Partition.make_leader assigns (1, 3)) and writes nothing.
    p1 = Partition(follower_log, local_broker_id=FOLLOWER, time_ms=lambda: BASE_TS)
    p1.make_leader(PartitionState("t", 0, FOLLOWER, 1, (LEADER, FOLLOWER), (LEADER, FOLLOWER)))
    assert [tuple(e) for e in follower_log.leader_epoch_cache.entries()] == [(0, 0), (1, 3)]

    async def scenario():
        # Epoch 2: broker 0 leads again (its make_leader assigns (2, 3)) and takes new writes.
        rm = ReplicaManager(LEADER, lm, lambda: BASE_TS)
        state = PartitionState("t", 0, LEADER, 2, (LEADER, FOLLOWER), (LEADER, FOLLOWER))
        rm.on_topics_changed({}, [state])
        write(leader_log, 2, 2, n=2)  # offsets 3-4 in epoch 2
        p1.make_follower(state)
        fetcher = ReplicaFetcher(FOLLOWER, LEADER, lambda _b: None, ReplicationSettings(fetch_backoff_ms=10))
        client = LoopbackClient(rm)
        fetcher.client = client  # type: ignore[assignment]
        fetcher.add(p1)
        if skip_offset_for_leader_epoch:
            fetcher.states[p1.key].truncating = False
        # Bounded by request count, not time: 40 round trips are far more than enough.
        while len(client.requests) < 40 and follower_log.log_end_offset < leader_log.log_end_offset:
            await asyncio.sleep(0.002)
        await fetcher.close()
        return client

    client = asyncio.run(scenario())
    assert follower_log.log_end_offset == leader_log.log_end_offset == 5, (
        f"follower stuck at {follower_log.log_end_offset} after {len(client.requests)} requests"
    )
    assert read_all(follower_log) == read_all(leader_log)
    assert [tuple(e) for e in follower_log.leader_epoch_cache.entries()] == [(0, 0), (2, 3)]
