"""A follower told OFFSET_OUT_OF_RANGE (Kafka's ``AbstractFetcherThread.handleOutOfRangeError``
-> ``fetchOffsetAndTruncate``). The leader is a real ReplicaManager reached through the
loopback client of tests/broker/test_replica_fetcher.py."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest

from broker.fetch_params import FetchPartitionData
from broker.partition import Partition
from broker.replica_fetcher import PartitionFetchState, ReplicaFetcher, ReplicationSettings
from broker.replica_manager import ReplicaManager
from coordinator.cluster_state import PartitionState
from protocol.errors import ErrorCode
from protocol.messages import FetchRequest
from storage.log_config import resolve_topic_defaults
from storage.log_manager import LogManager
from storage.partition_log import PartitionLog
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


MAX_REQUESTS = 200  # far more than any catch-up here needs


async def follow(
    lm: LogManager,
    follower_log: PartitionLog,
    leader_epoch: int,
    *,
    client_cls: type[LoopbackClient] = LoopbackClient,
    backoff_ms: int = 10,
    seconds: float = 10,
    until_caught_up: bool = True,
) -> LoopbackClient:
    """Run the follower's fetcher until it has the leader's log (if ``until_caught_up``), has
    sent MAX_REQUESTS or ``seconds`` passed."""
    rm = ReplicaManager(LEADER, lm, lambda: BASE_TS)
    state = PartitionState("t", 0, LEADER, leader_epoch, (LEADER, FOLLOWER), (LEADER, FOLLOWER))
    rm.on_topics_changed({}, [state])
    leader_log = rm.get_partition_or_error("t", 0).log
    follower = Partition(follower_log, local_broker_id=FOLLOWER, time_ms=lambda: BASE_TS)
    follower.make_follower(state)
    fetcher = ReplicaFetcher(
        FOLLOWER, LEADER, lambda _b: None, ReplicationSettings(fetch_backoff_ms=backoff_ms)
    )
    client = client_cls(rm)
    fetcher.client = client  # type: ignore[assignment]
    fetcher.add(follower)
    deadline = asyncio.get_running_loop().time() + seconds
    while asyncio.get_running_loop().time() < deadline and len(client.requests) < MAX_REQUESTS:
        if (
            until_caught_up
            and not fetcher.states[follower.key].truncating
            and follower_log.log_end_offset == leader_log.log_end_offset
            and follower_log.high_watermark == leader_log.high_watermark
        ):
            break
        await asyncio.sleep(0.005)
    await fetcher.close()
    return client


def test_a_follower_past_the_leaders_end_without_epochs_truncates_to_the_leaders_end(setup):
    """Kafka's ``AbstractFetcherThread.handleOutOfRangeError`` -> ``fetchOffsetAndTruncate``: on
    OFFSET_OUT_OF_RANGE the follower asks the leader's latest offset and, when it is behind its
    own log end offset, truncates to it and goes on fetching (the unclean-election case the
    comment there describes). A follower whose leader-epoch cache is empty (lost
    ``leader-epoch-checkpoint``) and whose high watermark is past the new leader's log end must
    not fetch the same out-of-range offset forever."""
    lm, follower_log = setup
    leader_log = lm.get_log("t", 0)
    write(leader_log, 1, 0, n=5)  # the (uncleanly elected) leader has offsets 0-4
    write(follower_log, 1, 0, n=5)
    write(follower_log, 2, 0, n=5)  # the follower had 0-9, all committed by the old leader
    follower_log.update_high_watermark(10)
    follower_log.leader_epoch_cache.clear()  # no epochs: Kafka's truncateToHighWatermark path

    client = asyncio.run(follow(lm, follower_log, leader_epoch=1))

    fetches = [r for r in client.requests if isinstance(r, FetchRequest)]
    assert len(client.requests) < MAX_REQUESTS, (
        f"{len(fetches)} fetches at offsets "
        f"{sorted({p.fetch_offset for r in fetches for t in r.topics for p in t.partitions})}, "
        f"follower log end {follower_log.log_end_offset}"
    )
    assert follower_log.log_end_offset == leader_log.log_end_offset == 5
    assert read_all(follower_log) == read_all(leader_log)


class AlwaysOutOfRange(LoopbackClient):
    """A leader that answers every fetch OFFSET_OUT_OF_RANGE (log start 0) and whose log end
    offset (OffsetForLeaderEpoch) is the follower's own."""

    def read(self, request: FetchRequest, infos: list[Any]) -> Any:
        return [FetchPartitionData(ErrorCode.OFFSET_OUT_OF_RANGE, 0, 0, 0) for _ in infos]


def test_an_offset_out_of_range_again_after_a_reset_backs_off(setup):
    """``handleOutOfRangeError``: a reset that leaves the follower where it was (the leader's
    log end is not below its own) is followed by the same fetch; the same offset out of range
    again waits ``replica.fetch.backoff.ms`` before the next reset, rather than loop."""
    lm, follower_log = setup
    write(lm.get_log("t", 0), 1, 0, n=3)
    write(follower_log, 1, 0, n=3)

    client = asyncio.run(
        follow(
            lm,
            follower_log,
            1,
            client_cls=AlwaysOutOfRange,
            backoff_ms=100,
            seconds=0.35,
            until_caught_up=False,
        )
    )

    assert len(client.requests) < 20  # a hot loop sends one every millisecond
    assert follower_log.log_end_offset == 3  # nothing lost


def reset(tmp_path, follower_end: int, leader_end: int, leader_start: int) -> PartitionLog:
    plog = open_log(tmp_path)
    for tag in range(follower_end):
        write(plog, tag, 0)  # one batch per offset: a truncation cuts between them
    partition = Partition(plog, local_broker_id=FOLLOWER, time_ms=lambda: BASE_TS)
    fetcher = ReplicaFetcher(FOLLOWER, LEADER, lambda _b: None, ReplicationSettings())
    state = PartitionFetchState(partition, 1, follower_end, truncating=False)
    state.out_of_range, state.leader_log_start_offset = True, leader_start
    fetcher._reset_fetch_offset(state, leader_end)
    assert not state.out_of_range and state.fetch_offset == plog.log_end_offset
    return plog


def test_fetch_offset_and_truncate_cases(tmp_path):
    """``fetchOffsetAndTruncate``: leader's latest offset below the follower's log end ->
    truncate to it; otherwise fetch from max(leader's log start, own log end), truncating
    fully and starting at the leader's log start only when that is higher."""
    behind = reset(tmp_path / "a", follower_end=8, leader_end=5, leader_start=0)
    assert behind.log_end_offset == 5
    behind.close()
    ahead = reset(tmp_path / "b", follower_end=8, leader_end=12, leader_start=3)
    assert (ahead.log_start_offset, ahead.log_end_offset) == (0, 8)  # kept as it is
    ahead.close()
    deleted = reset(tmp_path / "c", follower_end=4, leader_end=30, leader_start=20)
    assert (deleted.log_start_offset, deleted.log_end_offset) == (20, 20)
    deleted.close()
