"""The classic group state machine, driven through GroupCoordinator's API with a manual clock.

Timers are a heap of callbacks fired by ``clock.advance(ms)``; nothing sleeps.
The coordinator writes to a real LogManager in ``tmp_path`` (3 offsets partitions).
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable

import pytest

from broker.replica_manager import ReplicaManager
from coordinator.controller import Controller, ControllerTopicStore
from coordinator.group_metadata import GroupState, JoinRequest, JoinResult, SyncResult
from coordinator.groups import GroupCoordinator, LeaveMember, OffsetCommitEntry
from protocol.errors import ErrorCode, KafkaError
from storage.log_config import resolve_topic_defaults
from storage.log_manager import LogManager

E = ErrorCode
S = GroupState
SESSION = 10_000
REBALANCE = 30_000


class _Handle:
    __slots__ = ("cancelled",)

    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualClock:
    """Time and timers under the test's control."""

    def __init__(self, start: int = 1_700_000_000_000) -> None:
        self.now = start
        self._queue: list[tuple[int, int, Callable[[], None], _Handle]] = []
        self._seq = itertools.count()

    def time_ms(self) -> int:
        return self.now

    def call_later(self, delay_ms: int, fn: Callable[[], None]) -> _Handle:
        handle = _Handle()
        heapq.heappush(self._queue, (self.now + max(delay_ms, 0), next(self._seq), fn, handle))
        return handle

    def advance(self, ms: int) -> None:
        end = self.now + ms
        while self._queue and self._queue[0][0] <= end:
            when, _, fn, handle = heapq.heappop(self._queue)
            self.now = max(self.now, when)
            if not handle.cancelled:
                fn()
        self.now = end

    def pending(self) -> int:
        return sum(1 for *_, h in self._queue if not h.cancelled)


@pytest.fixture
def clock():
    return ManualClock()


def embedded_partitions(log_manager, clock) -> tuple[ControllerTopicStore, ReplicaManager]:
    """A lone broker's wiring: the controller creates topics and publishes their partition
    states to the ReplicaManager, the group coordinator's door to ``__consumer_offsets``."""
    rm = ReplicaManager(0, log_manager, clock.time_ms)
    controller = Controller(log_manager, 0, time_ms=clock.time_ms)
    controller.load_from_logs()
    controller.register_listener(rm)
    controller.startup()
    return ControllerTopicStore(log_manager, controller), rm


def make_coordinator(log_manager, clock, **kw) -> GroupCoordinator:
    kw.setdefault("offsets_topic_partitions", 3)
    kw.setdefault("initial_rebalance_delay_ms", 0)
    gc = GroupCoordinator(
        *embedded_partitions(log_manager, clock),
        broker_id=0,
        time_ms=clock.time_ms,
        timers=clock,
        **kw,
    )
    asyncio.run(gc.start())
    return gc


@pytest.fixture
def gc(log_manager, clock):
    return make_coordinator(log_manager, clock)


class Answers:
    """Collects callback answers; ``.last`` is the latest, ``.answered`` says if any came."""

    def __init__(self) -> None:
        self.items: list = []

    def __call__(self, result) -> None:
        self.items.append(result)

    @property
    def answered(self) -> bool:
        return bool(self.items)

    @property
    def last(self):
        assert self.items, "no answer yet"
        return self.items[-1]


def join(
    gc: GroupCoordinator,
    group: str = "g",
    member_id: str = "",
    *,
    instance: str | None = None,
    protocols: list[tuple[str, bytes]] | None = None,
    protocol_type: str = "consumer",
    session: int = SESSION,
    rebalance: int = REBALANCE,
    known_id: bool = False,
    skip: bool = False,
    client_id: str = "client",
) -> Answers:
    answers = Answers()
    gc.join_group(
        JoinRequest(
            group,
            member_id,
            instance,
            client_id,
            "/127.0.0.1",
            rebalance,
            session,
            protocol_type,
            protocols if protocols is not None else [("range", b"meta-" + (member_id or "new").encode())],
            require_known_member_id=known_id,
            support_skip_assignment=skip,
        ),
        answers,
    )
    return answers


def sync(
    gc: GroupCoordinator,
    member_id: str,
    generation: int,
    assignments: dict[str, bytes] | None = None,
    *,
    group: str = "g",
    instance: str | None = None,
    protocol_type: str | None = None,
    protocol_name: str | None = None,
) -> Answers:
    answers = Answers()
    gc.sync_group(
        group, generation, member_id, instance, protocol_type, protocol_name, assignments or {}, answers
    )
    return answers


def stable_group(gc, clock, n: int = 2, group: str = "g", **kw) -> list[str]:
    """n dynamic members joined, synced and Stable (generation 1); returns member ids (leader first)."""
    joins = [join(gc, group, **kw) for _ in range(n)]
    clock.advance(0)  # the initial delayed join (delay 0) completes
    results = [j.last for j in joins]
    assert all(r.error is E.NONE for r in results)
    leader = results[0].leader_id
    ids = [r.member_id for r in results]
    ids.sort(key=lambda m: m != leader)
    syncs = [sync(gc, m, 1, {x: x.encode() for x in ids} if m == leader else None, group=group) for m in ids]
    assert all(s.last.error is E.NONE for s in syncs)
    assert gc.groups[group].state is S.STABLE
    return ids


# ---------------------------------------------------------------- joining


def test_v4_new_member_gets_member_id_required_then_joins(gc, clock):
    first = join(gc, known_id=True, client_id="app")
    result: JoinResult = first.last
    assert result.error is E.MEMBER_ID_REQUIRED
    assert result.member_id.startswith("app-") and len(result.member_id) == len("app-") + 36
    assert gc.groups["g"].state is S.EMPTY  # a pending member does not start a rebalance
    second = join(gc, member_id=result.member_id, known_id=True)
    assert not second.answered  # parked until the initial delayed join fires
    clock.advance(0)
    ok = second.last
    assert ok.error is E.NONE
    assert (ok.member_id, ok.leader_id, ok.generation_id) == (result.member_id, result.member_id, 1)
    assert ok.protocol_type == "consumer" and ok.protocol_name == "range"
    assert [m.member_id for m in ok.members] == [result.member_id]
    assert gc.groups["g"].state is S.COMPLETING_REBALANCE


def test_pre_v4_new_member_joins_at_once_with_a_generated_id(gc, clock):
    answers = join(gc, client_id="legacy")
    clock.advance(0)
    assert answers.last.error is E.NONE
    assert answers.last.member_id.startswith("legacy-")


def test_pending_member_id_expires_after_the_session_timeout(gc, clock):
    pending = join(gc, known_id=True).last.member_id
    assert gc.groups["g"].pending_members == {pending}
    clock.advance(SESSION)
    assert gc.groups["g"].pending_members == set()
    late = join(gc, member_id=pending, known_id=True)
    assert late.last.error is E.UNKNOWN_MEMBER_ID


def test_known_member_id_of_an_unknown_group_is_unknown(gc):
    assert join(gc, "nope", member_id="m-1").last.error is E.UNKNOWN_MEMBER_ID
    assert "nope" not in gc.groups


@pytest.mark.parametrize("session", [5_999, 1_800_001])
def test_session_timeout_outside_the_broker_bounds(gc, session):
    assert join(gc, session=session).last.error is E.INVALID_SESSION_TIMEOUT


def test_empty_group_id_is_invalid_for_membership_apis(gc):
    assert join(gc, "").last.error is E.INVALID_GROUP_ID
    assert sync(gc, "m", 1, group="").last.error is E.INVALID_GROUP_ID
    assert gc.heartbeat("", "m", None, 1) is E.INVALID_GROUP_ID
    assert gc.leave_group("", [LeaveMember("m")]) == (E.INVALID_GROUP_ID, [])


def test_protocol_type_must_match_and_a_protocol_must_be_common(gc, clock):
    stable_group(gc, clock, 1, protocols=[("range", b"x")])
    assert join(gc, protocol_type="connect").last.error is E.INCONSISTENT_GROUP_PROTOCOL
    assert join(gc, protocols=[("roundrobin", b"y")]).last.error is E.INCONSISTENT_GROUP_PROTOCOL
    # An empty group takes any non-empty type, but not an empty one or no protocols.
    assert join(gc, "other", protocol_type="").last.error is E.INCONSISTENT_GROUP_PROTOCOL
    assert join(gc, "third", protocols=[]).last.error is E.INCONSISTENT_GROUP_PROTOCOL


def test_protocol_is_chosen_by_vote_among_those_all_support(gc, clock):
    a = join(gc, protocols=[("range", b"a"), ("roundrobin", b"a2"), ("sticky", b"a3")])
    b = join(gc, protocols=[("roundrobin", b"b"), ("range", b"b2")])
    c = join(gc, protocols=[("roundrobin", b"c"), ("range", b"c2")])
    clock.advance(0)
    for answers in (a, b, c):
        assert answers.last.protocol_name == "roundrobin"
    leader = a.last
    assert leader.leader_id == leader.member_id  # the first member leads
    assert {m.member_id: m.metadata for m in leader.members} == {
        a.last.member_id: b"a2",
        b.last.member_id: b"b",
        c.last.member_id: b"c",
    }
    assert b.last.members == [] and c.last.members == []  # followers get no metadata


def test_initial_rebalance_delay_waits_for_newcomers_up_to_the_rebalance_timeout(log_manager, clock):
    gc = make_coordinator(log_manager, clock, initial_rebalance_delay_ms=3_000)
    a = join(gc, rebalance=10_000)
    clock.advance(2_000)
    b = join(gc, rebalance=10_000)
    clock.advance(1_000)  # the first delay ends, but a newcomer arrived: wait another delay
    assert not a.answered and not b.answered
    assert gc.groups["g"].state is S.PREPARING_REBALANCE
    clock.advance(2_999)
    assert not a.answered
    clock.advance(1)
    assert a.last.error is E.NONE and b.last.error is E.NONE
    assert len(a.last.members) == 2


def test_initial_delay_without_newcomers_completes_after_one_delay(log_manager, clock):
    gc = make_coordinator(log_manager, clock, initial_rebalance_delay_ms=3_000)
    a = join(gc)
    clock.advance(2_999)
    assert not a.answered
    clock.advance(1)
    assert a.last.error is E.NONE and a.last.generation_id == 1


def test_rebalance_completes_as_soon_as_every_known_member_rejoined(gc, clock):
    m1, m2 = stable_group(gc, clock)
    newcomer = join(gc)
    assert gc.groups["g"].state is S.PREPARING_REBALANCE
    assert gc.heartbeat("g", m1, None, 1) is E.REBALANCE_IN_PROGRESS
    r1 = join(gc, member_id=m1)
    assert not r1.answered
    r2 = join(gc, member_id=m2)
    # Everyone is in: no timer needed.
    for answers in (newcomer, r1, r2):
        assert answers.last.error is E.NONE and answers.last.generation_id == 2
    assert len(r1.last.members) == 3  # m1 stays the leader


def test_rebalance_timeout_drops_members_that_did_not_rejoin(gc, clock):
    m1, m2 = stable_group(gc, clock)
    assert gc.leave_group("g", [LeaveMember(m1)]) == (E.NONE, [E.NONE])
    # m2 keeps heartbeating (REBALANCE_IN_PROGRESS) but never rejoins, as a consumer stuck
    # in its poll loop: the rebalance timeout, not the session, drops it.
    for _ in range(REBALANCE // 5_000 - 1):
        clock.advance(5_000)
        assert gc.heartbeat("g", m2, None, 1) is E.REBALANCE_IN_PROGRESS
    clock.advance(4_999)
    assert gc.groups["g"].state is S.PREPARING_REBALANCE
    clock.advance(1)
    group = gc.groups["g"]
    assert group.state is S.EMPTY and group.generation_id == 2 and not group.members


def test_rejoin_during_completing_rebalance_with_same_metadata_gets_the_same_generation(gc, clock):
    answers = join(gc)
    clock.advance(0)
    mid = answers.last.member_id
    again = join(gc, member_id=mid, protocols=[("range", b"meta-new")])
    assert again.last.error is E.NONE and again.last.generation_id == 1
    assert gc.groups["g"].state is S.COMPLETING_REBALANCE


def test_follower_rejoining_a_stable_group_unchanged_does_not_rebalance(gc, clock):
    leader, follower = stable_group(gc, clock)
    again = join(gc, member_id=follower, protocols=[("range", b"meta-new")])
    assert again.last.error is E.NONE and again.last.generation_id == 1
    assert again.last.leader_id == leader and again.last.members == []
    assert gc.groups["g"].state is S.STABLE


def test_leader_rejoining_a_stable_group_forces_a_rebalance(gc, clock):
    leader, follower = stable_group(gc, clock)
    again = join(gc, member_id=leader, protocols=[("range", b"meta-new")])
    assert not again.answered
    assert gc.groups["g"].state is S.PREPARING_REBALANCE
    join(gc, member_id=follower, protocols=[("range", b"meta-new")])
    assert again.last.generation_id == 2


def test_follower_with_new_metadata_forces_a_rebalance(gc, clock):
    _leader, follower = stable_group(gc, clock)
    join(gc, member_id=follower, protocols=[("range", b"changed")])
    assert gc.groups["g"].state is S.PREPARING_REBALANCE


def test_group_max_size(log_manager, clock):
    gc = make_coordinator(log_manager, clock, max_group_size=2)
    stable_group(gc, clock, 2)
    refused = join(gc)
    assert refused.last.error is E.GROUP_MAX_SIZE_REACHED and refused.last.member_id == ""
    assert gc.groups["g"].state is S.STABLE


# ---------------------------------------------------------------- syncing


def test_followers_wait_for_the_leaders_assignment(gc, clock):
    a, b = join(gc), join(gc)
    clock.advance(0)
    leader, follower = a.last.member_id, b.last.member_id
    waiting = sync(gc, follower, 1)
    assert not waiting.answered
    done = sync(gc, leader, 1, {leader: b"A", follower: b"B", "stranger": b"X"})
    assert done.last == SyncResult(E.NONE, "consumer", "range", b"A")
    assert waiting.last == SyncResult(E.NONE, "consumer", "range", b"B")
    assert gc.groups["g"].state is S.STABLE
    # Once stable, a sync returns the current assignment at once.
    assert sync(gc, follower, 1).last.assignment == b"B"


def test_member_missing_from_the_assignment_gets_an_empty_one(gc, clock):
    a, b = join(gc), join(gc)
    clock.advance(0)
    waiting = sync(gc, b.last.member_id, 1)
    sync(gc, a.last.member_id, 1, {a.last.member_id: b"A"})
    assert waiting.last.error is E.NONE and waiting.last.assignment == b""


def test_sync_errors(gc, clock):
    a, b = join(gc), join(gc)
    clock.advance(0)
    leader, follower = a.last.member_id, b.last.member_id
    assert sync(gc, "nobody", 1).last.error is E.UNKNOWN_MEMBER_ID
    assert sync(gc, leader, 1, group="unknown-group").last.error is E.UNKNOWN_MEMBER_ID
    assert sync(gc, leader, 7).last.error is E.ILLEGAL_GENERATION
    assert sync(gc, leader, 1, protocol_type="connect").last.error is E.INCONSISTENT_GROUP_PROTOCOL
    assert sync(gc, leader, 1, protocol_name="roundrobin").last.error is E.INCONSISTENT_GROUP_PROTOCOL
    waiting = sync(gc, follower, 1, protocol_type="consumer", protocol_name="range")
    assert not waiting.answered
    # A new member arrives before the leader syncs: the parked follower must rejoin.
    join(gc)
    assert waiting.last == SyncResult(E.REBALANCE_IN_PROGRESS)
    assert sync(gc, follower, 1).last.error is E.REBALANCE_IN_PROGRESS


def test_members_that_never_sync_are_removed_after_the_rebalance_timeout(gc, clock):
    a, b = join(gc, rebalance=8_000), join(gc, rebalance=8_000)
    clock.advance(0)
    leader, follower = a.last.member_id, b.last.member_id
    sync(gc, leader, 1, {leader: b"A", follower: b"B"})
    assert gc.groups["g"].state is S.STABLE
    clock.advance(7_999)
    assert gc.groups["g"].has(follower)
    clock.advance(1)
    group = gc.groups["g"]
    assert not group.has(follower)
    assert group.state is S.PREPARING_REBALANCE
    assert gc.heartbeat("g", leader, None, 1) is E.REBALANCE_IN_PROGRESS


# ---------------------------------------------------------------- heartbeats and sessions


def test_heartbeat_errors(gc, clock):
    leader, _ = stable_group(gc, clock)
    assert gc.heartbeat("g", leader, None, 1) is E.NONE
    assert gc.heartbeat("g", "nobody", None, 1) is E.UNKNOWN_MEMBER_ID
    assert gc.heartbeat("other", leader, None, 1) is E.UNKNOWN_MEMBER_ID
    assert gc.heartbeat("g", leader, None, 0) is E.ILLEGAL_GENERATION
    join(gc)
    assert gc.heartbeat("g", leader, None, 1) is E.REBALANCE_IN_PROGRESS


def test_heartbeat_during_completing_rebalance_is_fine(gc, clock):
    a = join(gc)
    clock.advance(0)
    assert gc.heartbeat("g", a.last.member_id, None, 1) is E.NONE


def test_heartbeats_keep_a_member_alive_and_silence_expires_it(gc, clock):
    leader, follower = stable_group(gc, clock)
    for _ in range(5):
        clock.advance(SESSION - 1)
        assert gc.heartbeat("g", leader, None, 1) is E.NONE
        assert gc.heartbeat("g", follower, None, 1) is E.NONE
    clock.advance(SESSION - 1)
    assert gc.heartbeat("g", leader, None, 1) is E.NONE
    clock.advance(1)  # the follower's session ends
    group = gc.groups["g"]
    assert not group.has(follower) and group.state is S.PREPARING_REBALANCE
    assert gc.heartbeat("g", follower, None, 1) is E.UNKNOWN_MEMBER_ID
    # The survivor rejoins and takes the group alone.
    alone = join(gc, member_id=leader)
    assert alone.last.generation_id == 2 and [m.member_id for m in alone.last.members] == [leader]


def test_an_offset_commit_keeps_the_session_alive(gc, clock):
    leader, follower = stable_group(gc, clock)
    clock.advance(SESSION - 1)
    gc.heartbeat("g", leader, None, 1)
    gc.commit_offsets("g", follower, None, 1, [OffsetCommitEntry("t", 0, 5)])
    clock.advance(SESSION - 1)
    assert gc.groups["g"].has(follower)


def test_members_parked_in_a_rebalance_do_not_expire(gc, clock):
    leader, follower = stable_group(gc, clock)
    parked = join(gc, member_id=leader)
    clock.advance(SESSION + 1)  # the leader's session timer fires while it waits: it stays
    assert gc.groups["g"].has(leader)
    assert not gc.groups["g"].has(follower)  # silent follower expired; the join completes
    assert parked.last.error is E.NONE and parked.last.generation_id == 2


# ---------------------------------------------------------------- leaving


def test_leave_group_rebalances_and_the_other_member_takes_everything(gc, clock):
    m1, m2 = stable_group(gc, clock)
    assert gc.leave_group("g", [LeaveMember(m2)]) == (E.NONE, [E.NONE])
    assert gc.heartbeat("g", m1, None, 1) is E.REBALANCE_IN_PROGRESS
    again = join(gc, member_id=m1)
    assert again.last.generation_id == 2 and [m.member_id for m in again.last.members] == [m1]


def test_leave_answers_per_member(gc, clock):
    m1, m2 = stable_group(gc, clock)
    error, per_member = gc.leave_group("g", [LeaveMember("ghost"), LeaveMember(m1), LeaveMember(m2)])
    assert error is E.NONE and per_member == [E.UNKNOWN_MEMBER_ID, E.NONE, E.NONE]
    assert gc.leave_group("no-such-group", [LeaveMember("a"), LeaveMember("b")]) == (
        E.NONE,
        [E.UNKNOWN_MEMBER_ID, E.UNKNOWN_MEMBER_ID],
    )


def test_leaving_member_parked_in_join_is_answered(gc, clock):
    m1, m2 = stable_group(gc, clock)
    parked = join(gc, member_id=m1)
    gc.leave_group("g", [LeaveMember(m1)])
    assert parked.last.error is E.UNKNOWN_MEMBER_ID
    assert gc.groups["g"].has(m2)


def test_pending_member_can_leave(gc):
    pending = join(gc, known_id=True).last.member_id
    assert gc.leave_group("g", [LeaveMember(pending)]) == (E.NONE, [E.NONE])
    assert gc.groups["g"].pending_members == set()


# ---------------------------------------------------------------- static membership (KIP-345)


def test_static_member_rejoining_keeps_the_generation_and_fences_the_old_id(gc, clock):
    a = join(gc, instance="i-a", known_id=True)  # static members never get MEMBER_ID_REQUIRED
    b = join(gc, instance="i-b")
    clock.advance(0)
    old_a, old_b = a.last.member_id, b.last.member_id
    assert old_a.startswith("i-a-")
    sync(gc, old_a, 1, {old_a: b"A", old_b: b"B"}, instance="i-a")
    sync(gc, old_b, 1, instance="i-b")
    # i-b restarts: it joins without a member id and replaces its old one, no rebalance.
    again = join(gc, instance="i-b", protocols=[("range", b"meta-" + old_b.encode())])
    result = again.last
    assert result.error is E.NONE and result.generation_id == 1
    new_b = result.member_id
    assert new_b != old_b and new_b.startswith("i-b-")
    assert result.leader_id == old_a and result.members == []
    group = gc.groups["g"]
    assert group.state is S.STABLE and group.static_members["i-b"] == new_b
    assert sync(gc, new_b, 1, instance="i-b").last.assignment == b"B"  # assignment kept
    # The old incarnation is fenced.
    assert gc.heartbeat("g", old_b, "i-b", 1) is E.FENCED_INSTANCE_ID
    assert join(gc, member_id=old_b, instance="i-b").last.error is E.FENCED_INSTANCE_ID
    assert sync(gc, old_b, 1, instance="i-b").last.error is E.FENCED_INSTANCE_ID
    assert gc.heartbeat("g", new_b, "i-b", 1) is E.NONE


def test_static_leader_rejoin_v9_is_told_to_skip_the_assignment(gc, clock):
    a = join(gc, instance="i-a", protocols=[("range", b"x")])
    b = join(gc, instance="i-b", protocols=[("range", b"y")])
    clock.advance(0)
    leader, other = a.last.member_id, b.last.member_id
    sync(gc, leader, 1, {leader: b"A", other: b"B"}, instance="i-a")
    again = join(gc, instance="i-a", protocols=[("range", b"x")], skip=True)
    result = again.last
    assert result.error is E.NONE and result.skip_assignment
    assert result.leader_id == result.member_id != leader
    assert sorted(m.metadata for m in result.members) == [b"x", b"y"]
    assert gc.groups["g"].state is S.STABLE


def test_static_leader_rejoin_before_v9_gets_its_old_id_as_leader(gc, clock):
    a = join(gc, instance="i-a")
    clock.advance(0)
    leader = a.last.member_id
    sync(gc, leader, 1, {leader: b"A"}, instance="i-a")
    again = join(gc, instance="i-a", protocols=[("range", b"meta-" + leader.encode())])
    result = again.last
    assert result.leader_id == leader != result.member_id and not result.skip_assignment
    assert gc.groups["g"].leader_id == result.member_id  # it does lead, it just does not know


def test_static_member_rejoining_with_another_protocol_triggers_a_rebalance(gc, clock):
    a = join(gc, instance="i-a", protocols=[("range", b"x"), ("roundrobin", b"x")])
    clock.advance(0)
    leader = a.last.member_id
    sync(gc, leader, 1, {leader: b"A"}, instance="i-a")
    again = join(gc, instance="i-a", protocols=[("roundrobin", b"x")])
    # A new generation with the new protocol (it completes at once: its only member rejoined).
    result = again.last
    assert result.error is E.NONE and result.generation_id == 2
    assert result.protocol_name == "roundrobin" and result.leader_id == result.member_id != leader
    assert gc.groups["g"].state is S.COMPLETING_REBALANCE


def test_static_member_that_does_not_rejoin_stays_through_a_rebalance(gc, clock):
    a = join(gc, instance="i-a")
    b = join(gc)
    clock.advance(0)
    static_id, dynamic_id = a.last.member_id, b.last.member_id
    sync(gc, static_id, 1, {static_id: b"A", dynamic_id: b"B"}, instance="i-a")
    sync(gc, dynamic_id, 1)
    join(gc, member_id=dynamic_id, protocols=[("range", b"changed")])
    # The static member stays alive (heartbeats) but never rejoins before the rebalance timeout.
    for _ in range(REBALANCE // 5_000):
        clock.advance(5_000)
        gc.heartbeat("g", static_id, "i-a", 1)
    group = gc.groups["g"]
    assert group.has(static_id) and group.has(dynamic_id)
    assert group.generation_id == 2


def test_leave_by_group_instance_id(gc, clock):
    a = join(gc, instance="i-a")
    clock.advance(0)
    mid = a.last.member_id
    error, per = gc.leave_group("g", [LeaveMember("", "i-a"), LeaveMember("", "i-zzz")])
    assert (error, per) == (E.NONE, [E.NONE, E.UNKNOWN_MEMBER_ID])
    assert not gc.groups["g"].has(mid)


def test_leave_with_a_stale_static_member_id_is_fenced(gc, clock):
    a = join(gc, instance="i-a")
    clock.advance(0)
    assert gc.leave_group("g", [LeaveMember("i-a-stale", "i-a")]) == (E.NONE, [E.FENCED_INSTANCE_ID])
    assert gc.groups["g"].has(a.last.member_id)


# ---------------------------------------------------------------- describe, list, delete


def test_describe_list_and_delete(gc, clock):
    m1, m2 = stable_group(gc, clock, protocols=[("range", b"sub")])
    error, summary = gc.describe_group("g")
    assert error is E.NONE and (summary.state, summary.protocol_type, summary.protocol) == (
        "Stable",
        "consumer",
        "range",
    )
    assert {m.member_id: (m.metadata, m.assignment) for m in summary.members} == {
        m1: (b"sub", m1.encode()),
        m2: (b"sub", m2.encode()),
    }
    assert all(m.client_id == "client" and m.client_host == "/127.0.0.1" for m in summary.members)
    assert gc.describe_group("missing") == (E.NONE, gc.describe_group("missing")[1])
    assert gc.describe_group("missing")[1].state == "Dead"
    assert gc.delete_groups(["g", "missing"]) == {"g": E.NON_EMPTY_GROUP, "missing": E.GROUP_ID_NOT_FOUND}

    join(gc)  # rebalancing: the description has no metadata
    _, summary = gc.describe_group("g")
    assert summary.state == "PreparingRebalance" and summary.protocol == ""
    assert all(m.metadata == b"" and m.assignment == b"" for m in summary.members)

    gc.commit_offsets("simple", "", None, -1, [OffsetCommitEntry("t", 0, 1)])
    error, listed = gc.list_groups()
    assert error is E.NONE
    assert {(g.group_id, g.protocol_type, g.state) for g in listed} == {
        ("g", "consumer", "PreparingRebalance"),
        ("simple", "", "Empty"),
    }
    assert [g.group_id for g in gc.list_groups(["empty"])[1]] == ["simple"]
    assert gc.delete_groups(["simple", "simple"]) == {"simple": E.NONE}
    assert gc.fetch_offsets("simple", [("t", 0)]) == [("t", 0, None)]
    assert gc.delete_groups(["simple"]) == {"simple": E.GROUP_ID_NOT_FOUND}


# ---------------------------------------------------------------- lifecycle


def test_stop_answers_parked_requests_with_not_coordinator(gc, clock):
    m1, m2 = stable_group(gc, clock)
    parked = join(gc, member_id=m1)
    asyncio.run(gc.stop())
    assert parked.last.error is E.NOT_COORDINATOR
    assert clock.pending() == 0  # every timer is gone
    assert gc.heartbeat("g", m2, None, 1) is E.COORDINATOR_NOT_AVAILABLE
    assert join(gc).last.error is E.COORDINATOR_NOT_AVAILABLE
    with pytest.raises(KafkaError) as err:
        gc.fetch_offsets("g", None)
    assert err.value.error is E.COORDINATOR_NOT_AVAILABLE


def test_group_state_is_restored_after_a_restart(tmp_path, clock):
    lm = LogManager([tmp_path / "logs"], resolve_topic_defaults({}))
    lm.startup()
    gc = make_coordinator(lm, clock)
    leader, follower = stable_group(gc, clock)
    asyncio.run(gc.stop())
    lm.shutdown()

    lm = LogManager([tmp_path / "logs"], resolve_topic_defaults({}))
    lm.startup()
    try:
        gc = make_coordinator(lm, clock)
        group = gc.groups["g"]
        assert group.state is S.STABLE and group.generation_id == 1 and group.leader_id == leader
        # Live members carry on with their generation...
        assert gc.heartbeat("g", leader, None, 1) is E.NONE
        assert sync(gc, follower, 1).last.assignment == follower.encode()
        # ...and a member that never comes back expires with its session.
        clock.advance(SESSION - 1)
        gc.heartbeat("g", leader, None, 1)
        clock.advance(1)
        assert not gc.groups["g"].has(follower)
    finally:
        lm.shutdown()


def test_requests_during_the_load_get_load_in_progress(tmp_path, clock):
    lm = LogManager([tmp_path / "logs"], resolve_topic_defaults({}))
    lm.startup()
    gc = make_coordinator(lm, clock)
    gc.commit_offsets("g", "", None, -1, [OffsetCommitEntry("t", 0, 9)])
    lm.shutdown()

    lm = LogManager([tmp_path / "logs"], resolve_topic_defaults({}))
    lm.startup()
    gc = GroupCoordinator(
        *embedded_partitions(lm, clock),
        broker_id=0,
        offsets_topic_partitions=3,
        time_ms=clock.time_ms,
        timers=clock,
    )
    seen: dict[str, object] = {}

    async def scenario() -> None:
        load = asyncio.ensure_future(gc.start())
        await asyncio.sleep(0)  # the load yields after the chunk of the group's partition
        assert not load.done()
        seen["join"] = join(gc).last.error
        seen["heartbeat"] = gc.heartbeat("g", "m", None, 1)
        seen["sync"] = sync(gc, "m", 1).last.error
        seen["list"] = gc.list_groups()[0]
        with pytest.raises(KafkaError) as err:
            gc.commit_offsets("g", "", None, -1, [OffsetCommitEntry("t", 0, 10)])
        seen["commit"] = err.value.error
        await load

    try:
        asyncio.run(scenario())
        assert seen == {
            "join": E.COORDINATOR_LOAD_IN_PROGRESS,
            "heartbeat": E.NONE,  # answered blindly while loading, as Kafka
            "sync": E.REBALANCE_IN_PROGRESS,
            "list": E.COORDINATOR_LOAD_IN_PROGRESS,
            "commit": E.COORDINATOR_LOAD_IN_PROGRESS,
        }
        assert gc.fetch_offsets("g", [("t", 0)])[0][2].committed_offset == 9
    finally:
        lm.shutdown()
