"""The follower's incremental fetch sessions (KIP-227, Kafka's ``FetchSessionHandler``).

The leader is a real ReplicaManager and a real ``FetchManager`` (broker/fetch_session.py) in the
same process, reached through a loopback client that serves Fetch as the handler does (session
context, then the answer built by ``broker/handlers/fetch.py``); the follower is a real
``ReplicaFetcher``. The tests read the requests the fetcher sent and the answers it got.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from broker.fetch_params import FetchPartitionData, FetchPartitionInfo
from broker.fetch_session import EVICTION_MS, FetchManager, FetchSessionCache, SessionPartition
from broker.fetch_session_handler import (
    INITIAL_EPOCH,
    FetchSessionHandler,
    PartitionFetchData,
)
from broker.handlers.fetch import _build as build_fetch_response
from broker.handlers.fetch import _fetch_data
from broker.network_client import NetworkClientError
from broker.partition import Partition
from broker.replica_fetcher import ReplicaFetcher, ReplicationSettings
from broker.replica_manager import ReplicaManager
from coordinator.cluster_state import PartitionState
from protocol.errors import ErrorCode
from protocol.messages import FetchRequest, FetchResponse
from storage.log_config import resolve_topic_defaults
from storage.log_manager import LogManager
from tests.broker.test_replica_fetcher import FOLLOWER, LEADER, LoopbackClient, write
from tests.storage.batch_factory import BASE_TS
from tests.storage.log_factory import open_log, read_all

N = 50
INT32_MAX = 2**31 - 1


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000

    def __call__(self) -> int:
        return self.now


class SessionLoopback(LoopbackClient):
    """Serves the fetcher's Fetch with the leader's fetch sessions, as ``handle_fetch`` does."""

    def __init__(self, leader: ReplicaManager, manager: FetchManager) -> None:
        super().__init__(leader)
        self.manager = manager
        self.answers: list[FetchResponse] = []
        self.fail_next = False
        self.disconnects = 0

    def disconnect(self, broker_id: int) -> None:
        self.disconnects += 1

    async def send(self, broker_id: int, request: Any, version: int | None = None, **kw: Any) -> Any:
        if not isinstance(request, FetchRequest):
            return await super().send(broker_id, request, version, **kw)
        await asyncio.sleep(0.001)
        if self.fail_next:
            self.fail_next = False
            raise NetworkClientError(broker_id, "connection reset")
        self.requests.append(request)
        forgotten = [
            SessionPartition(t.topic, None, p) for t in request.forgotten_topics_data for p in t.partitions
        ]
        context = self.manager.new_context(
            12, request.session_id, request.session_epoch, True, _fetch_data(request, 12), forgotten
        )
        if context.error is not ErrorCode.NONE:
            response = FetchResponse(error_code=context.error.code, session_id=0, responses=[])
        else:
            infos = [((p.topic, p.partition), info) for p, info in context.partitions]
            response = build_fetch_response(context, self.read(request, infos), False, 12)
        self.answers.append(response)
        return response


def named(request: FetchRequest) -> set[tuple[str, int]]:
    return {(t.topic, p.partition) for t in request.topics for p in t.partitions}


def forgotten(request: FetchRequest) -> set[tuple[str, int]]:
    return {(t.topic, p) for t in request.forgotten_topics_data for p in t.partitions}


class Replicas:
    """A leader of ``N`` partitions of topic t and a follower fetching them all."""

    def __init__(self, tmp_path: Any, clock: Clock, slots: int = 10) -> None:
        self.lm = LogManager([tmp_path / "leader"], resolve_topic_defaults({}))
        self.lm.startup()
        self.lm.create_topic("t", N, uuid.uuid4(), {})
        self.rm = ReplicaManager(LEADER, self.lm, lambda: BASE_TS)
        states = [PartitionState("t", i, LEADER, 0, (LEADER, FOLLOWER), (LEADER, FOLLOWER)) for i in range(N)]
        self.rm.on_topics_changed({}, states)
        self.follower_logs = [open_log(tmp_path / "follower", name=f"t-{i}") for i in range(N)]
        self.followers = []
        for plog, state in zip(self.follower_logs, states, strict=True):
            partition = Partition(plog, local_broker_id=FOLLOWER, time_ms=lambda: BASE_TS)
            partition.make_follower(state)
            self.followers.append(partition)
        self.clock = clock
        self.manager = FetchManager(FetchSessionCache(slots, clock))
        self.client = SessionLoopback(self.rm, self.manager)
        self.fetcher = ReplicaFetcher(
            FOLLOWER, LEADER, lambda _b: None, ReplicationSettings(fetch_backoff_ms=10)
        )
        self.fetcher.client = self.client  # type: ignore[assignment]

    def leader_log(self, i: int) -> Any:
        return self.lm.get_log("t", i)

    def start(self) -> None:
        for partition in self.followers:
            self.fetcher.add(partition)

    def caught_up(self, indexes: range | list[int] = range(N)) -> bool:
        return all(
            self.follower_logs[i].log_end_offset == self.leader_log(i).log_end_offset
            and self.follower_logs[i].high_watermark
            == self.leader_log(i).high_watermark
            == self.leader_log(i).log_end_offset
            for i in indexes
        )

    def assert_identical(self) -> None:
        for i in range(N):
            assert read_all(self.follower_logs[i]) == read_all(self.leader_log(i)), f"t-{i}"

    async def close(self) -> None:
        await self.fetcher.close()
        for plog in self.follower_logs:
            plog.close()
        self.lm.shutdown()


async def until(condition: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.005)
    assert condition(), what


@pytest.fixture
def clock() -> Clock:
    return Clock()


def run(tmp_path: Any, clock: Clock, scenario: Callable[[Replicas], Any], slots: int = 10) -> Replicas:
    async def main() -> Replicas:
        replicas = Replicas(tmp_path, clock, slots)
        try:
            for i in range(N):
                write(replicas.leader_log(i), i, 0)
            replicas.start()
            await until(replicas.caught_up, "the follower caught up")
            await scenario(replicas)
            replicas.assert_identical()
        finally:
            await replicas.close()
        return replicas

    return asyncio.run(main())


def test_one_full_fetch_then_incremental_fetches_of_the_partitions_that_moved(tmp_path, clock):
    mark: list[int] = []

    async def scenario(r: Replicas) -> None:
        # Caught up, the answers carrying the new high watermarks may still be coming (the
        # follower may see them before the leader's session answer is recorded here): wait for
        # a steady answer with nothing new, then mark.
        await until(
            lambda: bool(r.client.answers) and not any(t.partitions for t in r.client.answers[-1].responses),
            "a steady incremental answer",
        )
        mark.append(len(r.client.requests))
        for i in (3, 7):
            write(r.leader_log(i), 100 + i, 0, n=2)
        await until(r.caught_up, "the follower caught up again")
        mark.append(len(r.client.requests))

    r = run(tmp_path, clock, scenario)
    requests, answers = r.client.requests, r.client.answers
    first = requests[0]
    assert (first.session_id, first.session_epoch) == (0, INITIAL_EPOCH)
    assert named(first) == {("t", i) for i in range(N)}
    session_id = answers[0].session_id
    assert session_id != 0
    assert len(answers[0].responses[0].partitions) == N
    # Every later fetch is incremental in the one session, epoch after epoch, and names only
    # partitions whose fetch offset moved since the fetch before.
    sent_offsets = {(t.topic, p.partition): p.fetch_offset for t in first.topics for p in t.partitions}
    for epoch, request in enumerate(requests[1:], start=1):
        assert (request.session_id, request.session_epoch) == (session_id, epoch)
        assert not request.forgotten_topics_data
        for t in request.topics:
            for p in t.partitions:
                assert sent_offsets[(t.topic, p.partition)] != p.fetch_offset
                sent_offsets[(t.topic, p.partition)] = p.fetch_offset
    # Once caught up the steady fetches name nothing; the new writes are named alone.
    after_writes = requests[mark[0] : mark[1]]
    assert set().union(*(named(q) for q in after_writes)) <= {("t", 3), ("t", 7)}
    assert any(named(q) == {("t", 3), ("t", 7)} for q in after_writes)
    # Answers leave out the partitions with nothing new.
    assert all(sum(len(t.partitions) for t in a.responses) <= 2 for a in answers[mark[0] : mark[1]])
    assert sum(1 for q in requests if q.session_epoch == INITIAL_EPOCH) == 1


@pytest.mark.parametrize("how", ["evicted", "leader restarted"])
def test_a_lost_session_is_answered_not_found_and_the_follower_fetches_in_full(tmp_path, clock, how):
    async def scenario(r: Replicas) -> None:
        session_id = r.client.answers[0].session_id
        assert r.manager.cache.get(session_id) is not None
        if how == "evicted":
            # One slot, held by the follower's session: a consumer's new session evicts it
            # once it is stale (Kafka's FetchSessionCache.tryEvict) ...
            clock.now += EVICTION_MS + 1
            other = r.manager.new_context(
                12,
                0,
                INITIAL_EPOCH,
                False,
                [(SessionPartition("u", None, 0), FetchPartitionInfo(0, 1000))],
                [],
            )
            consumer_id = other.answer([FetchPartitionData(ErrorCode.NONE, 0, 0, 0, b"")])[1]
            assert r.manager.cache.get(session_id) is None and consumer_id != 0
        else:
            r.client.manager = r.manager = FetchManager(FetchSessionCache(10, clock))
        mark = len(r.client.requests)
        for i in range(0, N, 5):
            write(r.leader_log(i), 200 + i, 0)
        await until(r.caught_up, "the follower caught up after losing its session")
        errors = [a.error_code for a in r.client.answers[mark:]]
        assert ErrorCode.FETCH_SESSION_ID_NOT_FOUND.code in errors
        lost = mark + errors.index(ErrorCode.FETCH_SESSION_ID_NOT_FOUND.code)
        full = r.client.requests[lost + 1]
        assert (full.session_id, full.session_epoch) == (0, INITIAL_EPOCH)
        assert named(full) == {("t", i) for i in range(N)}
        new_id = r.client.answers[lost + 1].session_id
        assert new_id not in (0, session_id)
        later = r.client.requests[lost + 2 :]
        assert all(q.session_id == new_id and q.session_epoch > 0 for q in later)
        if how == "evicted":
            # ... and the follower's new one, privileged, evicts the young consumer session.
            assert r.manager.cache.get(consumer_id) is None

    if how == "evicted":
        run(tmp_path, clock, scenario, slots=1)
    else:
        run(tmp_path, clock, scenario)


def test_a_partition_no_longer_followed_is_forgotten(tmp_path, clock):
    async def scenario(r: Replicas) -> None:
        session_id = r.client.answers[0].session_id
        mark = len(r.client.requests)
        r.fetcher.remove(("t", 5))  # as ReplicaFetcherManager.remove_partitions on StopReplica
        await until(lambda: len(r.client.requests) > mark + 1, "more fetches")
        forgetting = [q for q in r.client.requests[mark:] if forgotten(q)]
        assert [forgotten(q) for q in forgetting] == [{("t", 5)}]
        assert forgetting[0].session_id == session_id and not named(forgetting[0])
        session = r.manager.cache.get(session_id)
        assert session is not None and ("t", 5) not in session.partitions and len(session) == N - 1
        # Writes to it no longer reach the follower; the others still do.
        write(r.leader_log(5), 300, 0)
        write(r.leader_log(6), 301, 0)
        await until(lambda: r.caught_up([6]), "t-6 replicated")
        assert r.follower_logs[5].log_end_offset == 1
        r.fetcher.add(r.followers[5])  # following it again names it again
        await until(r.caught_up, "t-5 replicated again")

    run(tmp_path, clock, scenario)


def test_a_failed_request_starts_a_new_session(tmp_path, clock):
    async def scenario(r: Replicas) -> None:
        session_id = r.client.answers[0].session_id
        mark = len(r.client.requests)
        r.client.fail_next = True
        await until(lambda: not r.client.fail_next and len(r.client.requests) > mark + 1, "fetching again")
        retry = r.client.requests[mark]
        assert r.client.disconnects == 1
        # A full fetch that closes the old session (Kafka's handleError: nextCloseExistingAttemptNew).
        assert (retry.session_id, retry.session_epoch) == (session_id, INITIAL_EPOCH)
        assert named(retry) == {("t", i) for i in range(N)}
        assert r.manager.cache.get(session_id) is None
        write(r.leader_log(9), 400, 0)
        await until(r.caught_up, "caught up in the new session")

    run(tmp_path, clock, scenario)


# ---------------------------------------------------------------------- the handler alone


def fd(offset: int, epoch: int = 0) -> PartitionFetchData:
    return PartitionFetchData(offset, 0, epoch, epoch, 1000)


def answer(
    session_id: int, parts: list[tuple[str, int]] | None = None, error: ErrorCode = ErrorCode.NONE
) -> FetchResponse:
    topics: dict[str, list[Any]] = {}
    for topic, index in parts or ():
        topics.setdefault(topic, []).append(FetchResponse.PartitionData(partition_index=index))
    return FetchResponse(
        error_code=error.code,
        session_id=session_id,
        responses=[FetchResponse.FetchableTopicResponse(topic=t, partitions=ps) for t, ps in topics.items()],
    )


def test_handler_full_then_incremental_with_changes_and_forgotten():
    h = FetchSessionHandler(0)
    a, b, c = ("t", 0), ("t", 1), ("u", 0)
    first = h.build({a: fd(0), b: fd(0)})
    assert first.full and (first.session_id, first.epoch) == (0, 0) and set(first.to_send) == {a, b}
    assert h.handle_response(first, answer(77, [a, b])).ok
    second = h.build({a: fd(5), b: fd(0), c: fd(0)})
    assert not second.full and (second.session_id, second.epoch) == (77, 1)
    assert second.to_send == {a: fd(5), c: fd(0)} and second.to_forget == []
    result = h.handle_response(second, answer(77, [a]))
    assert result.ok and result.omitted == {b, c}  # left out: nothing new for them
    third = h.build({a: fd(5, epoch=1), c: fd(0)})
    assert (third.epoch, third.to_send, third.to_forget) == (2, {a: fd(5, epoch=1)}, [b])


def test_handler_epoch_wraps_to_one():
    h = FetchSessionHandler(0)
    h.handle_response(h.build({("t", 0): fd(0)}), answer(9))
    h.epoch = INT32_MAX
    request = h.build({("t", 0): fd(0)})
    assert request.epoch == INT32_MAX and not request.full
    h.handle_response(request, answer(9))
    assert (h.session_id, h.epoch) == (9, 1)


def test_handler_goes_back_to_full_fetches():
    h = FetchSessionHandler(0)
    want = {("t", 0): fd(0), ("t", 1): fd(3)}
    h.handle_response(h.build(want), answer(9, list(want)))
    # Unknown session: a full fetch without a session id.
    assert not h.handle_response(h.build(want), answer(0, error=ErrorCode.FETCH_SESSION_ID_NOT_FOUND)).ok
    again = h.build(want)
    assert again.full and (again.session_id, again.epoch) == (0, 0) and again.to_send == want
    h.handle_response(again, answer(10, list(want)))
    # Wrong epoch: a full fetch closing the session it names.
    assert not h.handle_response(h.build(want), answer(0, error=ErrorCode.INVALID_FETCH_SESSION_EPOCH)).ok
    again = h.build(want)
    assert again.full and (again.session_id, again.epoch) == (10, 0)
    # No slot on the leader (session id 0): full fetches, with epoch 0, from then on.
    h.handle_response(again, answer(0, list(want)))
    for _ in range(2):
        request = h.build(want)
        assert request.full and (request.session_id, request.epoch) == (0, 0) and request.to_send == want
        h.handle_response(request, answer(0, list(want)))
    # A session the leader ended in an incremental answer (session id 0): full again.
    h.handle_response(h.build(want), answer(11, list(want)))
    h.handle_response(h.build(want), answer(0))
    assert h.build(want).full
    # restart (a failed send, a new connection): full, closing the session.
    h.handle_response(h.build(want), answer(12, list(want)))
    h.restart()
    request = h.build(want)
    assert request.full and (request.session_id, request.epoch) == (12, 0)
