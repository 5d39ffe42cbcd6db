"""The fetch session cache (KIP-227): contexts, epochs, omitted partitions, forgetting, eviction."""

from __future__ import annotations

import uuid

from broker.fetch_params import FetchPartitionData, FetchPartitionInfo
from broker.fetch_session import (
    EVICTION_MS,
    FINAL_EPOCH,
    INITIAL_EPOCH,
    FetchManager,
    FetchSessionCache,
    SessionPartition,
    next_epoch,
)
from protocol.errors import ErrorCode


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000

    def __call__(self) -> int:
        return self.now


def part(topic: str, index: int) -> SessionPartition:
    return SessionPartition(topic, None, index)


def req(topic: str, index: int, offset: int = 0) -> tuple[SessionPartition, FetchPartitionInfo]:
    return part(topic, index), FetchPartitionInfo(fetch_offset=offset, max_bytes=1000)


def data(
    hw: int = 10,
    records: bytes = b"",
    error: ErrorCode = ErrorCode.NONE,
    lso: int | None = None,
    start: int = 0,
):
    return FetchPartitionData(error, hw, hw if lso is None else lso, start, records)


def manager(slots: int = 10) -> tuple[FetchManager, Clock]:
    clock = Clock()
    return FetchManager(FetchSessionCache(slots, clock)), clock


def open_session(fm: FetchManager, parts, *, follower: bool = False, results=None) -> int:
    ctx = fm.new_context(12, 0, INITIAL_EPOCH, follower, parts, [])
    error, session_id, send = ctx.answer(results or [data() for _ in parts])
    assert error is ErrorCode.NONE and send == list(range(len(parts)))
    return session_id


def test_full_fetch_creates_a_session_and_incremental_fetches_omit_unchanged_partitions():
    fm, _ = manager()
    sid = open_session(fm, [req("a", 0), req("a", 1), req("b", 0)])
    assert sid > 0 and fm.cache.get(sid).epoch == 1

    # Epoch 1 names nothing: every session partition is read, none has changed.
    ctx = fm.new_context(12, sid, 1, False, [], [])
    assert [p.topic for p, _ in ctx.partitions] == ["a", "a", "b"]
    assert ctx.answer([data(), data(), data()]) == (ErrorCode.NONE, sid, [])

    # New records, a moved high watermark, log start or last stable offset are answered.
    ctx = fm.new_context(12, sid, 2, False, [req("a", 1, offset=5)], [])
    assert ctx.partitions[1][1].fetch_offset == 5  # the new parameters replace the cached ones
    assert ctx.answer([data(records=b"x"), data(hw=11), data()])[2] == [0, 1]
    ctx = fm.new_context(12, sid, 3, False, [], [])
    # "a"-0 returned data so it moved to the back of the session.
    assert [(p.topic, p.partition) for p, _ in ctx.partitions] == [("a", 1), ("b", 0), ("a", 0)]
    assert ctx.answer([data(hw=11), data(start=3), data(lso=7)])[2] == [1, 2]
    assert fm.cache.get(sid).epoch == 4


def test_an_error_is_always_answered_and_the_partition_again_once_the_error_is_gone():
    fm, _ = manager()
    sid = open_session(fm, [req("a", 0)])
    err = FetchPartitionData(ErrorCode.NOT_LEADER_OR_FOLLOWER)
    for epoch in (1, 2):
        assert fm.new_context(12, sid, epoch, False, [], []).answer([err])[2] == [0]
    # Same offsets as before the error: still answered, the error cleared the cached state.
    assert fm.new_context(12, sid, 3, False, [], []).answer([data()])[2] == [0]
    assert fm.new_context(12, sid, 4, False, [], []).answer([data()])[2] == []


def test_session_errors_and_epoch_rules():
    fm, _ = manager()
    sid = open_session(fm, [req("a", 0)])
    assert fm.new_context(12, sid + 1, 1, False, [], []).error is ErrorCode.FETCH_SESSION_ID_NOT_FOUND
    assert fm.new_context(12, sid, 2, False, [], []).error is ErrorCode.INVALID_FETCH_SESSION_EPOCH
    # Session id 0 with an incremental epoch names no session.
    assert fm.new_context(12, 0, 3, False, [], []).error is ErrorCode.FETCH_SESSION_ID_NOT_FOUND
    # The failed attempts did not move the epoch.
    assert fm.new_context(12, sid, 1, False, [], []).error is ErrorCode.NONE
    # A session made by name is not usable by a topic-id request (v13+), nor the other way.
    assert fm.new_context(13, sid, 2, False, [], []).error is ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR
    tid = uuid.uuid4()
    by_id = fm.new_context(13, 0, 0, False, [(SessionPartition("t", tid, 0), FetchPartitionInfo(0, 100))], [])
    _, id_sid, _ = by_id.answer([data()])
    assert fm.new_context(12, id_sid, 1, False, [], []).error is ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR
    assert fm.new_context(13, id_sid, 1, False, [], []).error is ErrorCode.NONE


def test_topic_id_sessions_resolve_names_learned_later():
    fm, _ = manager()
    tid = uuid.uuid4()
    ctx = fm.new_context(13, 0, 0, False, [(SessionPartition(None, tid, 0), FetchPartitionInfo(0, 100))], [])
    _, sid, _ = ctx.answer([FetchPartitionData(ErrorCode.UNKNOWN_TOPIC_ID)])
    ctx = fm.new_context(13, sid, 1, False, [], [], topic_names={tid: "named"})
    assert ctx.partitions[0][0] == SessionPartition("named", tid, 0)


def test_a_duplicate_of_a_parked_fetch_answers_invalid_epoch():
    fm, _ = manager()
    sid = open_session(fm, [req("a", 0)])
    parked = fm.new_context(12, sid, 1, False, [], [])
    retry = fm.new_context(12, sid, 2, False, [], [])
    assert parked.answer([data(records=b"x")]) == (ErrorCode.INVALID_FETCH_SESSION_EPOCH, sid, [])
    assert retry.answer([data(records=b"x")]) == (ErrorCode.NONE, sid, [0])


def test_forgotten_partitions_leave_the_session_and_forgetting_all_closes_it():
    fm, _ = manager()
    sid = open_session(fm, [req("a", 0), req("a", 1)])
    ctx = fm.new_context(12, sid, 1, False, [req("b", 0)], [part("a", 0), part("zz", 9)])
    assert [(p.topic, p.partition) for p, _ in ctx.partitions] == [("a", 1), ("b", 0)]
    # The added partition is answered the first time even with nothing new.
    assert ctx.answer([data(), data()])[2] == [1]
    ctx = fm.new_context(12, sid, 2, False, [], [part("a", 1), part("b", 0)])
    assert fm.cache.get(sid) is None and ctx.partitions == []
    assert ctx.answer([]) == (ErrorCode.NONE, 0, [])


def test_final_epoch_and_old_versions_are_sessionless_and_a_full_fetch_closes_its_session():
    fm, _ = manager()
    sid = open_session(fm, [req("a", 0)])
    ctx = fm.new_context(12, sid, FINAL_EPOCH, False, [req("a", 0)], [])
    assert fm.cache.get(sid) is None and ctx.answer([data()]) == (ErrorCode.NONE, 0, [0])
    assert len(fm.cache) == 0
    # Fetch v4-v6 carry no session fields: whatever the fields hold, no session.
    assert fm.new_context(6, 77, 5, False, [req("a", 0)], []).answer([data()]) == (ErrorCode.NONE, 0, [0])
    sid = open_session(fm, [req("a", 0)])
    sid2 = open_session(fm, [req("a", 0)])
    fm.new_context(12, sid, INITIAL_EPOCH, False, [req("a", 0)], [])
    assert fm.cache.get(sid) is None and fm.cache.get(sid2) is not None


def test_a_full_cache_answers_sessionless_until_a_newcomer_is_worth_an_eviction():
    fm, _ = manager(slots=2)
    small = open_session(fm, [req("a", 0)])
    big = open_session(fm, [req("a", 0), req("a", 1), req("a", 2)])
    # Young consumer sessions cannot be evicted by a consumer, even a larger one.
    ctx = fm.new_context(12, 0, 0, False, [req("b", i) for i in range(5)], [])
    assert ctx.answer([data()] * 5)[1] == 0
    # A follower (privileged) evicts the smallest consumer session at once.
    follower = open_session(fm, [req("c", 0)], follower=True)
    assert follower > 0 and fm.cache.get(small) is None and fm.cache.evictions == 1
    # A young privileged session is safe from another follower; the consumer one is not.
    other = open_session(fm, [req("c", 0)], follower=True)
    assert fm.cache.get(big) is None and fm.cache.get(follower) is not None and other > 0
    assert fm.new_context(12, 0, 0, True, [req("d", 0)], []).answer([data()])[1] == 0


def test_aged_sessions_give_way_to_larger_ones_and_stale_ones_to_anyone():
    fm, clock = manager(slots=2)
    one = open_session(fm, [req("a", 0)])
    three = open_session(fm, [req("a", 0), req("a", 1), req("a", 2)])
    clock.now += EVICTION_MS // 2
    for sid in (one, three):  # both used, neither stale
        fm.new_context(12, sid, 1, False, [], []).answer([data()] * len(fm.cache.get(sid)))
    clock.now += EVICTION_MS // 2 + 10
    for sid in (one, three):
        fm.new_context(12, sid, 2, False, [], []).answer([data()] * len(fm.cache.get(sid)))
    # Both are aged now; a two-partition session evicts the one-partition one, not the other.
    two = fm.new_context(12, 0, 0, False, [req("b", 0), req("b", 1)], []).answer([data()] * 2)[1]
    assert two > 0 and fm.cache.get(one) is None and fm.cache.get(three) is not None
    # A one-partition newcomer is worth less than both.
    assert fm.new_context(12, 0, 0, False, [req("c", 0)], []).answer([data()])[1] == 0
    # Unused for longer than the eviction time, the least recently used is stale.
    clock.now += 1
    fm.new_context(12, three, 3, False, [], []).answer([data()] * 3)
    clock.now += EVICTION_MS + 1
    fm.new_context(12, three, 4, False, [], []).answer([data()] * 3)
    assert fm.new_context(12, 0, 0, False, [req("c", 0)], []).answer([data()])[1] > 0
    assert fm.cache.get(two) is None and fm.cache.get(three) is not None


def test_no_slots_means_no_sessions():
    fm, _ = manager(slots=0)
    assert fm.new_context(12, 0, 0, True, [req("a", 0)], []).answer([data()]) == (ErrorCode.NONE, 0, [0])


def test_epochs_wrap_to_one():
    assert next_epoch(0) == 1 and next_epoch(2**31 - 1) == 1 and next_epoch(-1) == -1
