"""The follower's side: ``ReplicaFetcher`` truncates to its leader's history (KIP-101, KIP-279)
and copies the leader's log. The leader is a real ReplicaManager in the same process, reached
through a stand-in for the inter-broker client that calls the Fetch and OffsetForLeaderEpoch
paths the handlers use (``ReplicaManager.fetch_messages``, ``Partition.last_offset_for_leader_epoch``).

The two KIP-101 cases (Kafka before it lost data and let logs diverge) end with the replicas
byte-identical and nothing acknowledged lost.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest

from broker.fetch_params import FetchParams, FetchPartitionInfo
from broker.handlers.fetch import _build as build_fetch_response
from broker.partition import Partition
from broker.replica_fetcher import ReplicaFetcher, ReplicationSettings, truncation_offset
from broker.replica_manager import ReplicaManager
from coordinator.cluster_state import PartitionState
from protocol.errors import KafkaError
from protocol.messages import (
    FetchRequest,
    OffsetForLeaderEpochRequest,
    OffsetForLeaderEpochResponse,
)
from storage.log_config import resolve_topic_defaults
from storage.log_manager import LogManager
from storage.log_types import FetchIsolation
from storage.partition_log import PartitionLog
from storage.producer_state import AppendOrigin
from tests.storage.batch_factory import BASE_TS, make_batch
from tests.storage.log_factory import open_log, read_all

LEADER, FOLLOWER = 0, 1


class LoopbackClient:
    """Answers the fetcher's requests from ``leader`` (a ReplicaManager) as the handlers would."""

    def __init__(self, leader: ReplicaManager) -> None:
        self.leader = leader
        self.requests: list[Any] = []

    async def send(self, broker_id: int, request: Any, version: int | None = None, **_: Any) -> Any:
        await asyncio.sleep(0.001)
        self.requests.append(request)
        if isinstance(request, OffsetForLeaderEpochRequest):
            return self._epochs(request)
        assert isinstance(request, FetchRequest) and request.replica_id == FOLLOWER
        infos = [
            (
                (t.topic, p.partition),
                FetchPartitionInfo(
                    p.fetch_offset,
                    p.partition_max_bytes,
                    p.current_leader_epoch,
                    p.last_fetched_epoch,
                    p.log_start_offset,
                ),
            )
            for t in request.topics
            for p in t.partitions
        ]
        return build_fetch_response(request, self.read(request, infos), False, version or 12)

    def read(self, request: FetchRequest, infos: list[Any]) -> Any:
        """The leader's read for a follower's fetch (no waiting), as ``handle_fetch`` asks it."""
        params = FetchParams(
            max_wait_ms=0,
            min_bytes=request.min_bytes,
            max_bytes=request.max_bytes,
            isolation=FetchIsolation.LOG_END,
            replica_id=request.replica_id,
        )
        return self.leader.fetch_messages(params, infos)

    def _epochs(self, request: OffsetForLeaderEpochRequest) -> OffsetForLeaderEpochResponse:
        topics = []
        for t in request.topics:
            parts = []
            for p in t.partitions:
                try:
                    epoch, end = self.leader.last_offset_for_leader_epoch(
                        t.topic, p.partition, p.leader_epoch, current_leader_epoch=p.current_leader_epoch
                    )
                    parts.append(
                        OffsetForLeaderEpochResponse.EpochEndOffset(
                            partition=p.partition, error_code=0, leader_epoch=epoch, end_offset=end
                        )
                    )
                except KafkaError as exc:
                    parts.append(
                        OffsetForLeaderEpochResponse.EpochEndOffset(
                            partition=p.partition, error_code=exc.code, leader_epoch=-1, end_offset=-1
                        )
                    )
            topics.append(
                OffsetForLeaderEpochResponse.OffsetForLeaderTopicResult(topic=t.topic, partitions=parts)
            )
        return OffsetForLeaderEpochResponse(topics=topics)

    async def close(self) -> None:
        pass


def write(plog: PartitionLog, tag: int, epoch: int, n: int = 1) -> None:
    plog.append_as_leader(
        memoryview(make_batch(n, tag=tag, timestamp=BASE_TS)),
        epoch,
        now_ms=BASE_TS,
        origin=AppendOrigin.CLIENT,
    )


@pytest.fixture
def setup(tmp_path):
    lm = LogManager([tmp_path / "leader"], resolve_topic_defaults({}))
    lm.startup()
    lm.create_topic("t", 1, uuid.uuid4(), {})
    follower_log = open_log(tmp_path / "follower")
    yield lm, follower_log
    follower_log.close()
    lm.shutdown()


async def replicate(
    lm: LogManager,
    follower_log: PartitionLog,
    leader_epoch: int,
    *,
    client_cls: type[LoopbackClient] = LoopbackClient,
    skip_truncation: bool = False,
) -> tuple[Partition, ReplicaFetcher, LoopbackClient]:
    """Make the leader lead at ``leader_epoch`` and the follower fetch until it has the leader's
    log, through a ``client_cls`` to the leader. ``skip_truncation`` skips the fetcher's
    OffsetForLeaderEpoch step (as a follower that trusts Fetch v12's ``last_fetched_epoch``
    check, KIP-320)."""
    rm = ReplicaManager(LEADER, lm, lambda: BASE_TS)
    state = PartitionState("t", 0, LEADER, leader_epoch, (LEADER, FOLLOWER), (LEADER, FOLLOWER))
    rm.on_topics_changed({}, [state])
    follower = Partition(follower_log, local_broker_id=FOLLOWER, time_ms=lambda: BASE_TS)
    follower.make_follower(state)
    fetcher = ReplicaFetcher(FOLLOWER, LEADER, lambda _b: None, ReplicationSettings(fetch_backoff_ms=10))
    client = client_cls(rm)
    fetcher.client = client  # type: ignore[assignment]
    fetcher.add(follower)
    if skip_truncation:
        fetcher.states[follower.key].truncating = False  # before the fetcher's task first runs
    leader_log = rm.get_partition_or_error("t", 0).log
    for _ in range(2000):
        fs = fetcher.states[follower.key]
        if (
            not fs.truncating
            and follower_log.log_end_offset == leader_log.log_end_offset
            and (follower_log.high_watermark == leader_log.high_watermark == leader_log.log_end_offset)
        ):
            break
        await asyncio.sleep(0.005)
    await fetcher.close()
    return follower, fetcher, client


def test_kip101_no_data_lost_to_a_stale_follower_high_watermark(setup):
    """Before KIP-101 a restarted follower truncated to its high watermark and lost m2."""
    lm, follower_log = setup
    leader_log = lm.get_log("t", 0)
    for tag in (1, 2):
        write(leader_log, tag, 0)
    follower_log.append_as_follower(leader_log.read(0, 1 << 20).records)
    follower_log.update_high_watermark(1)  # the follower learned of m2's commit too late

    async def scenario():
        await replicate(lm, follower_log, leader_epoch=1)

    asyncio.run(scenario())
    assert follower_log.log_end_offset == 2
    assert read_all(follower_log) == read_all(leader_log)


def test_kip101_divergent_logs_become_the_leaders(setup):
    """The old leader wrote m2 (epoch 0) that no follower had; the new leader wrote m3 at the
    same offset (epoch 1). The old leader comes back as a follower: m2 goes, m3 comes."""
    lm, follower_log = setup
    leader_log = lm.get_log("t", 0)
    write(leader_log, 1, 0)
    follower_log.append_as_follower(leader_log.read(0, 1 << 20).records)
    write(follower_log, 2, 0)  # m2, only on the old leader
    leader_log.leader_epoch_cache.assign(1, 1)
    write(leader_log, 3, 1)  # m3 at offset 1 in epoch 1
    write(leader_log, 4, 1)

    async def scenario():
        return await replicate(lm, follower_log, leader_epoch=1)

    _, _, client = asyncio.run(scenario())
    assert read_all(follower_log) == read_all(leader_log)
    assert follower_log.leader_epoch_cache.entries() == leader_log.leader_epoch_cache.entries()
    assert any(
        isinstance(r, OffsetForLeaderEpochRequest) and r.replica_id == FOLLOWER for r in client.requests
    )


def test_kip279_a_follower_lacking_the_leaders_epoch_truncates_in_rounds(setup):
    """Follower epochs 0, 1 (1 never reached the leader); leader epochs 0, 2: the follower
    drops its epoch 1, then agrees on the end of epoch 0."""
    lm, follower_log = setup
    leader_log = lm.get_log("t", 0)
    for tag in (1, 2):
        write(leader_log, tag, 0)
    follower_log.append_as_follower(leader_log.read(0, 1 << 20).records)
    write(leader_log, 3, 0)  # offset 2, epoch 0: the follower never got it
    follower_log.leader_epoch_cache.assign(1, 2)
    write(follower_log, 9, 1, n=3)  # offsets 2-4 in epoch 1, only here
    leader_log.leader_epoch_cache.assign(2, 3)
    write(leader_log, 4, 2)

    # one round by hand: the leader answers epoch 1 with (0, 3); the follower has epoch 0 up to 2
    plain = Partition(follower_log, local_broker_id=FOLLOWER, time_ms=lambda: BASE_TS)
    assert leader_log.end_offset_for_epoch(1) == (0, 3)
    assert truncation_offset(plain, 0, 3) == (2, True)

    async def scenario():
        return await replicate(lm, follower_log, leader_epoch=2)

    asyncio.run(scenario())
    assert read_all(follower_log) == read_all(leader_log)
    assert [tuple(e) for e in follower_log.leader_epoch_cache.entries()] == [(0, 0), (2, 3)]


def test_truncation_offset_cases(tmp_path):
    plog = open_log(tmp_path)
    write(plog, 1, 0, n=3)  # 0-2 epoch 0
    plog.leader_epoch_cache.assign(2, 3)
    write(plog, 2, 2, n=2)  # 3-4 epoch 2
    plog.update_high_watermark(4)
    p = Partition(plog, local_broker_id=FOLLOWER, time_ms=lambda: BASE_TS)
    assert truncation_offset(p, -1, -1) == (5, True)  # the leader knows nothing: the fetch offset stays
    assert truncation_offset(p, -1, 3) == (3, True)
    assert truncation_offset(p, 2, 10) == (5, True)  # same epoch, the leader is ahead
    assert truncation_offset(p, 2, 4) == (4, True)
    assert truncation_offset(p, 1, 7) == (3, False)  # epoch 1 unknown here: drop epoch 2, ask again
    assert truncation_offset(p, 0, 1) == (1, True)
    plog.close()


class FetchOnlyClient(LoopbackClient):
    """A leader reached by Fetch alone: the follower must agree through ``diverging_epoch``."""

    def __init__(self, leader: ReplicaManager) -> None:
        super().__init__(leader)
        self.diverging: list[tuple[int, int, int]] = []  # (fetch offset, epoch, end offset)

    async def send(self, broker_id: int, request: Any, version: int | None = None, **kw: Any) -> Any:
        assert not isinstance(request, OffsetForLeaderEpochRequest), "the fetcher asked OffsetForLeaderEpoch"
        response = await super().send(broker_id, request, version, **kw)
        offsets = {(t.topic, p.partition): p.fetch_offset for t in request.topics for p in t.partitions}
        for topic in response.responses:
            for data in topic.partitions:
                d = data.diverging_epoch
                if d is not None and d.end_offset >= 0:
                    self.diverging.append(
                        (offsets[(topic.topic, data.partition_index)], d.epoch, d.end_offset)
                    )
        return response


def test_a_fetch_answered_with_a_diverging_epoch_truncates_the_follower_and_goes_on(setup):
    """KIP-320 (Fetch v12): the follower fetches at its end with its last epoch; the leader
    answers with the end of that epoch in its own history instead of records
    (``diverging_epoch``). The follower truncates there (``ReplicaFetcherThread``'s
    ``truncateOnFetchResponse``), fetches again from that offset and ends byte-identical."""
    lm, follower_log = setup
    leader_log = lm.get_log("t", 0)
    write(leader_log, 1, 0, n=2)  # offsets 0-1, epoch 0, on both
    follower_log.append_as_follower(leader_log.read(0, 1 << 20).records)
    write(follower_log, 2, 0, n=3)  # offsets 2-4, epoch 0: only on the old leader
    leader_log.leader_epoch_cache.assign(1, 2)
    write(leader_log, 3, 1, n=2)  # offsets 2-3, epoch 1: the new leader's history
    write(leader_log, 4, 1)
    assert follower_log.log_end_offset == 5 and leader_log.log_end_offset == 5

    _, _, client = asyncio.run(
        replicate(lm, follower_log, leader_epoch=1, client_cls=FetchOnlyClient, skip_truncation=True)
    )
    assert isinstance(client, FetchOnlyClient)
    # fetched at 5 with last epoch 0, answered "epoch 0 ends at 2"
    assert client.diverging == [(5, 0, 2)]
    fetch_offsets = [p.fetch_offset for r in client.requests for t in r.topics for p in t.partitions]
    assert fetch_offsets[:2] == [5, 2]  # after the truncation it fetches from the divergence point
    assert read_all(follower_log) == read_all(leader_log)
    assert follower_log.leader_epoch_cache.entries() == leader_log.leader_epoch_cache.entries()
    assert follower_log.high_watermark == 5


def test_a_diverging_epoch_the_follower_lacks_truncates_to_its_earlier_epoch(setup):
    """KIP-279 through Fetch: the follower's last epoch (1) never reached the leader, whose
    answer is the end of its largest epoch below it (0 ends at 3); the follower has epoch 0
    only up to 2, so it truncates to 2, drops its epoch 1 and copies the leader from there."""
    lm, follower_log = setup
    leader_log = lm.get_log("t", 0)
    write(leader_log, 1, 0, n=2)  # 0-1 epoch 0
    follower_log.append_as_follower(leader_log.read(0, 1 << 20).records)
    write(leader_log, 2, 0)  # offset 2 epoch 0: the follower never got it
    follower_log.leader_epoch_cache.assign(1, 2)
    write(follower_log, 9, 1, n=3)  # 2-4 epoch 1, only here
    leader_log.leader_epoch_cache.assign(2, 3)
    write(leader_log, 4, 2, n=2)  # 3-4 epoch 2

    _, _, client = asyncio.run(
        replicate(lm, follower_log, leader_epoch=2, client_cls=FetchOnlyClient, skip_truncation=True)
    )
    assert isinstance(client, FetchOnlyClient)
    assert client.diverging[0] == (5, 0, 3)
    assert read_all(follower_log) == read_all(leader_log)
    assert [tuple(e) for e in follower_log.leader_epoch_cache.entries()] == [(0, 0), (2, 3)]
