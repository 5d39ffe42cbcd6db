"""Tombstones of deleted groups and offsets while ``__consumer_offsets``' ISR is below
``min.insync.replicas``.

Kafka 3.9 ``GroupMetadataManager.cleanupGroupMetadata`` (used by ``handleDeleteGroups``,
``handleDeleteOffsets``, ``handleDeletedPartitions`` and the expiry task) appends the
tombstones with ``partition.appendRecordsToLeader(records, AppendOrigin.COORDINATOR,
requiredAcks = 0)``: ``Partition.appendRecordsToLeader`` checks min.insync.replicas only for
requiredAcks == -1, so the tombstones are in the leader's log however short the ISR is, and a
reload (coordinator move or restart) does not bring the deleted state back.
"""

from __future__ import annotations

import asyncio

from coordinator.groups import LeaveMember, OffsetCommitEntry
from protocol.errors import ErrorCode
from tests.coordinator.offsets_partition_harness import CHECK, ME, OTHER, RETENTION, THIRD, Node, offsets_of
from tests.coordinator.test_groups import ManualClock, stable_group

E = ErrorCode
FULL = (ME, OTHER, THIRD)


def test_deleted_group_stays_deleted_after_reload_when_the_isr_is_short(tmp_path):
    """``GroupCoordinator.handleDeleteGroups`` -> ``GroupMetadataManager.cleanupGroupMetadata``:
    tombstones appended with requiredAcks=0 (no min.insync.replicas check)."""

    async def scenario():
        node = Node(tmp_path, ManualClock())
        try:
            # A lone replica: commits are acknowledged at once.
            gc = await node.start(replicas=(ME,), isr=(ME,))
            assert gc.commit_offsets("s", "", None, -1, [OffsetCommitEntry("t", 0, 5)]) == [E.NONE]
            # The coordinator moves / restarts: 3 replicas, the other two out of the ISR,
            # min.insync.replicas=2 (commits now answer COORDINATOR_NOT_AVAILABLE).
            gc = await node.restart(replicas=FULL, isr=(ME,))
            assert offsets_of(gc, "s") == {("t", 0): 5}
            refused = gc.commit_offsets("other", "", None, -1, [OffsetCommitEntry("t", 0, 1)])
            assert refused == [E.COORDINATOR_NOT_AVAILABLE]  # acks=-1 writes are refused
            assert gc.delete_groups(["s"]) == {"s": E.NONE}
            assert "s" not in gc.groups
            gc = await node.restart(replicas=FULL, isr=(ME,))
            # Kafka: the offset tombstone is in the log; the deleted group does not come back.
            assert offsets_of(gc, "s") == {}
            assert "s" not in gc.groups
        finally:
            node.close()

    asyncio.run(scenario())


def test_deleted_offsets_stay_deleted_after_reload_when_the_isr_is_short(tmp_path):
    """``GroupCoordinator.handleDeleteOffsets`` -> ``GroupMetadataManager.cleanupGroupMetadata``:
    tombstones appended with requiredAcks=0 (no min.insync.replicas check)."""

    async def scenario():
        node = Node(tmp_path, ManualClock())
        try:
            gc = await node.start(replicas=(ME,), isr=(ME,))
            entries = [OffsetCommitEntry("t", 0, 5), OffsetCommitEntry("t", 1, 6)]
            assert gc.commit_offsets("s", "", None, -1, entries) == [E.NONE, E.NONE]
            gc = await node.restart(replicas=FULL, isr=(ME,))
            assert gc.delete_offsets("s", [("t", 0)]) == (E.NONE, {("t", 0): E.NONE})
            assert offsets_of(gc, "s") == {("t", 1): 6}
            gc = await node.restart(replicas=FULL, isr=(ME,))
            assert offsets_of(gc, "s") == {("t", 1): 6}
        finally:
            node.close()

    asyncio.run(scenario())


def test_expired_group_stays_removed_after_reload_when_the_isr_is_short(tmp_path):
    """``GroupMetadataManager.cleanupGroupMetadata`` (the offsets-expiry task): the expired
    offsets' and the dead group's tombstones are appended with requiredAcks=0."""

    async def scenario():
        clock = ManualClock()
        node = Node(tmp_path, clock)
        try:
            gc = await node.start(replicas=(ME,), isr=(ME,))
            leader, follower = stable_group(gc, clock)
            assert gc.commit_offsets("g", leader, None, 1, [OffsetCommitEntry("t", 0, 5)]) == [E.NONE]
            gc.leave_group("g", [LeaveMember(leader), LeaveMember(follower)])
            clock.advance(0)
            assert str(gc.groups["g"].state) == "Empty"
            gc = await node.restart(replicas=FULL, isr=(ME,))
            clock.advance(RETENTION + CHECK)
            assert "g" not in gc.groups  # expired: offsets and group removed
            gc = await node.restart(replicas=FULL, isr=(ME,))
            assert offsets_of(gc, "g") == {}
            assert "g" not in gc.groups
        finally:
            node.close()

    asyncio.run(scenario())
