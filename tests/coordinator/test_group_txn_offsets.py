"""TxnOffsetCommit in the group coordinator: pending until the marker, applied on COMMIT,
dropped on ABORT, resolved from the log on a reload (markers written by the ReplicaManager's
``write_txn_markers``, which tells the group coordinator as its TxnCompletionListener)."""

from __future__ import annotations

import asyncio

from coordinator.groups import OffsetCommitEntry
from coordinator.transaction_seams import TxnMarker
from protocol.errors import ErrorCode, KafkaError
from storage.log_config import resolve_topic_defaults
from storage.log_manager import LogManager
from tests.coordinator.test_groups import ManualClock, make_coordinator, stable_group

OFFSETS = "__consumer_offsets"


def open_coordinator(tmp_path, clock):
    lm = LogManager([tmp_path / "logs"], resolve_topic_defaults({}))
    lm.startup()
    gc = make_coordinator(lm, clock)
    gc.topic.partitions.add_txn_completion_listener(gc)
    return lm, gc


def marker(gc, producer_id: int, committed: bool, group: str) -> None:
    rm = gc.topic.partitions
    p = gc.partition_for(group)
    [errors] = asyncio.run(rm.write_txn_markers([TxnMarker(producer_id, 0, committed, 0, ((OFFSETS, p),))]))
    assert errors == {(OFFSETS, p): ErrorCode.NONE}


def commit_txn(gc, *args):
    return asyncio.run(gc.commit_txn_offsets(*args))


def committed(gc, group: str) -> dict:
    return {(t, p): om.committed_offset for t, p, om in gc.fetch_offsets(group, None)}


def test_pending_until_commit_marker_then_applied(tmp_path):
    clock = ManualClock()
    lm, gc = open_coordinator(tmp_path, clock)
    try:
        gc.commit_offsets("g", "", None, -1, [OffsetCommitEntry("t", 0, 3)])
        assert commit_txn(gc, "g", 77, 0, "", None, -1, [OffsetCommitEntry("t", 0, 10)]) == [ErrorCode.NONE]
        assert committed(gc, "g") == {("t", 0): 3}
        assert gc.has_pending_txn_offset("g", "t", 0) and not gc.has_pending_txn_offset("g", "t", 1)
        marker(gc, 77, True, "g")
        assert committed(gc, "g") == {("t", 0): 10}
        assert not gc.has_pending_txn_offset("g", "t", 0)
    finally:
        asyncio.run(gc.stop())
        lm.shutdown()


def test_abort_marker_drops_them(tmp_path):
    clock = ManualClock()
    lm, gc = open_coordinator(tmp_path, clock)
    try:
        commit_txn(gc, "g", 77, 0, "", None, -1, [OffsetCommitEntry("t", 0, 10)])
        commit_txn(gc, "h", 78, 0, "", None, -1, [OffsetCommitEntry("t", 0, 20)])
        marker(gc, 77, False, "g")
        assert committed(gc, "g") == {}
        assert gc.has_pending_txn_offset("h", "t", 0)  # another producer's stay pending
    finally:
        asyncio.run(gc.stop())
        lm.shutdown()


def test_reload_resolves_transactional_commits(tmp_path):
    clock = ManualClock()
    lm, gc = open_coordinator(tmp_path, clock)
    commit_txn(gc, "g", 1, 0, "", None, -1, [OffsetCommitEntry("t", 0, 5)])
    marker(gc, 1, True, "g")
    commit_txn(gc, "g", 2, 0, "", None, -1, [OffsetCommitEntry("t", 1, 6)])
    marker(gc, 2, False, "g")
    commit_txn(gc, "g", 3, 0, "", None, -1, [OffsetCommitEntry("t", 2, 7)])  # still open
    asyncio.run(gc.stop())
    lm.shutdown()

    lm, gc = open_coordinator(tmp_path, clock)
    try:
        assert committed(gc, "g") == {("t", 0): 5}
        assert gc.has_pending_txn_offset("g", "t", 2) and not gc.has_pending_txn_offset("g", "t", 1)
        marker(gc, 3, True, "g")
        assert committed(gc, "g") == {("t", 0): 5, ("t", 2): 7}
    finally:
        asyncio.run(gc.stop())
        lm.shutdown()


def test_member_and_generation_are_checked(tmp_path):
    # Kafka 3.x GroupCoordinator.validateOffsetCommit (isTransactional = true): a member id,
    # an instance id or a generation >= 0 means a member to check; "" is no member.
    clock = ManualClock()
    lm, gc = open_coordinator(tmp_path, clock)
    try:
        leader, _ = stable_group(gc, clock)
        for member, generation, error in (
            ("nobody", -1, ErrorCode.UNKNOWN_MEMBER_ID),
            (leader, 4, ErrorCode.ILLEGAL_GENERATION),
            ("", 4, ErrorCode.UNKNOWN_MEMBER_ID),  # Kafka: validateCurrentMember, not the generation
        ):
            try:
                commit_txn(gc, "g", 1, 0, member, None, generation, [OffsetCommitEntry("t", 0, 6)])
            except KafkaError as exc:
                assert exc.error is error
            else:
                raise AssertionError(f"{member}/{generation} accepted")
        # Without member nor generation (TxnOffsetCommit v0-2) a transactional commit is taken.
        assert commit_txn(gc, "g", 1, 0, "", None, -1, [OffsetCommitEntry("t", 0, 5)]) == [ErrorCode.NONE]
        assert commit_txn(gc, "g", 1, 0, leader, None, 1, [OffsetCommitEntry("t", 0, 6)]) == [ErrorCode.NONE]
    finally:
        asyncio.run(gc.stop())
        lm.shutdown()
