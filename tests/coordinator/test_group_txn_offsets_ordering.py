"""Transactional offset commits against plain commits, offset expiry and reloads.

As Kafka 3.x's classic group coordinator (``GroupMetadata``, ``GroupMetadataManager``):
a committed transaction's offset does not replace one whose record was appended after its
batch, live or on a reload; a group whose only offsets are a transaction's pending ones
is neither removed by the expiry run or OffsetDelete nor forgotten by a reload; and a
TxnOffsetCommit with a generation validates its member.
"""

from __future__ import annotations

import asyncio

import pytest

from coordinator.groups import OffsetCommitEntry
from protocol.errors import ErrorCode, KafkaError
from tests.coordinator.test_group_txn_offsets import commit_txn, committed, marker, open_coordinator
from tests.coordinator.test_groups import ManualClock, stable_group


def test_commit_marker_keeps_a_plain_commit_appended_after_the_txn_batch(tmp_path):
    # Kafka: GroupMetadata.completePendingTxnOffsetCommit keeps the offset whose record was
    # appended last (CommitRecordMetadataAndOffset.olderThan).
    clock = ManualClock()
    lm, gc = open_coordinator(tmp_path, clock)
    try:
        commit_txn(
            gc, "g", 77, 0, "", None, -1, [OffsetCommitEntry("t", 0, 10), OffsetCommitEntry("t", 1, 11)]
        )
        gc.commit_offsets("g", "", None, -1, [OffsetCommitEntry("t", 0, 20)])
        marker(gc, 77, True, "g")
        assert committed(gc, "g") == {("t", 0): 20, ("t", 1): 11}
    finally:
        asyncio.run(gc.stop())
        lm.shutdown()


def test_reload_keeps_a_plain_commit_appended_after_the_txn_batch(tmp_path):
    # Kafka: doLoadGroupsAndOffsets applies a COMMIT's offsets only where olderThan says so.
    clock = ManualClock()
    lm, gc = open_coordinator(tmp_path, clock)
    commit_txn(gc, "g", 77, 0, "", None, -1, [OffsetCommitEntry("t", 0, 10), OffsetCommitEntry("t", 1, 11)])
    gc.commit_offsets("g", "", None, -1, [OffsetCommitEntry("t", 0, 20)])
    marker(gc, 77, True, "g")
    asyncio.run(gc.stop())
    lm.shutdown()
    lm, gc = open_coordinator(tmp_path, clock)
    try:
        assert committed(gc, "g") == {("t", 0): 20, ("t", 1): 11}
    finally:
        asyncio.run(gc.stop())
        lm.shutdown()


def test_expiry_run_keeps_a_group_whose_only_offsets_are_pending_txn_ones(tmp_path):
    # Kafka: GroupMetadata.hasOffsets counts pendingTransactionalOffsetCommits, so
    # cleanupGroupMetadata does not remove the group while a transaction is open.
    clock = ManualClock()
    lm, gc = open_coordinator(tmp_path, clock)
    try:
        commit_txn(gc, "g", 77, 0, "", None, -1, [OffsetCommitEntry("t", 0, 10)])
        gc.cleanup_group_metadata()
        assert "g" in gc.groups
        marker(gc, 77, True, "g")
        assert committed(gc, "g") == {("t", 0): 10}
    finally:
        asyncio.run(gc.stop())
        lm.shutdown()


def test_offset_delete_keeps_a_group_whose_only_offsets_are_pending_txn_ones(tmp_path):
    # Kafka: handleDeleteOffsets removes an Empty group only when hasOffsets is false.
    clock = ManualClock()
    lm, gc = open_coordinator(tmp_path, clock)
    try:
        commit_txn(gc, "g", 77, 0, "", None, -1, [OffsetCommitEntry("t", 0, 10)])
        assert gc.delete_offsets("g", [("t", 1)]) == (ErrorCode.NONE, {("t", 1): ErrorCode.NONE})
        assert "g" in gc.groups
        marker(gc, 77, True, "g")
        assert committed(gc, "g") == {("t", 0): 10}
    finally:
        asyncio.run(gc.stop())
        lm.shutdown()


def test_reload_recreates_a_group_whose_only_offsets_are_pending_txn_ones(tmp_path):
    # Kafka: doLoadGroupsAndOffsets creates the groups of pendingEmptyGroupOffsets too.
    clock = ManualClock()
    lm, gc = open_coordinator(tmp_path, clock)
    commit_txn(gc, "g", 77, 0, "", None, -1, [OffsetCommitEntry("t", 0, 10)])
    asyncio.run(gc.stop())
    lm.shutdown()
    lm, gc = open_coordinator(tmp_path, clock)
    try:
        assert gc.has_pending_txn_offset("g", "t", 0)
        marker(gc, 77, True, "g")
        assert committed(gc, "g") == {("t", 0): 10}
    finally:
        asyncio.run(gc.stop())
        lm.shutdown()


def test_txn_commit_with_a_generation_but_no_member_id_is_unknown_member(tmp_path):
    # Kafka 3.x GroupCoordinator.validateOffsetCommit: generationId >= 0 means a member to
    # validate, for TxnOffsetCommit too; "" is no member.
    clock = ManualClock()
    lm, gc = open_coordinator(tmp_path, clock)
    try:
        stable_group(gc, clock, 1)
        with pytest.raises(KafkaError) as exc:
            commit_txn(gc, "g", 77, 0, "", None, 1, [OffsetCommitEntry("t", 0, 10)])
        assert exc.value.error is ErrorCode.UNKNOWN_MEMBER_ID
    finally:
        asyncio.run(gc.stop())
        lm.shutdown()


def test_offset_delete_drops_the_pending_txn_offsets_of_its_partitions(tmp_path):
    # Kafka: GroupMetadata.removeOffsets drops pendingTransactionalOffsetCommits of the
    # partitions too, so the COMMIT marker cannot bring a deleted offset back.
    clock = ManualClock()
    lm, gc = open_coordinator(tmp_path, clock)
    try:
        commit_txn(
            gc, "g", 77, 0, "", None, -1, [OffsetCommitEntry("t", 0, 10), OffsetCommitEntry("t", 1, 11)]
        )
        assert gc.delete_offsets("g", [("t", 0)]) == (ErrorCode.NONE, {("t", 0): ErrorCode.NONE})
        marker(gc, 77, True, "g")
        assert committed(gc, "g") == {("t", 1): 11}
    finally:
        asyncio.run(gc.stop())
        lm.shutdown()


def test_a_deleted_topic_drops_pending_txn_offsets_and_the_group_they_kept(tmp_path):
    # Kafka: handleDeletedPartitions -> cleanupGroupMetadata(removeOffsets): the pending
    # transactional offsets of the topic go, and an Empty group left without offsets is Dead.
    clock = ManualClock()
    lm, gc = open_coordinator(tmp_path, clock)
    try:
        commit_txn(gc, "g", 77, 0, "", None, -1, [OffsetCommitEntry("t", 0, 10)])
        gc.remove_offsets_of_topic("t")
        assert "g" not in gc.groups
        marker(gc, 77, True, "g")
        assert committed(gc, "g") == {}
    finally:
        asyncio.run(gc.stop())
        lm.shutdown()
