"""Groups left without offsets by a topic deletion.

Kafka 3.9 ``GroupCoordinator.handleDeletedPartitions`` (``onPartitionsDeleted``, from the
controller's UpdateMetadata in ZooKeeper mode) runs ``GroupMetadataManager.cleanupGroupMetadata``
over every group with ``removeOffsets(deleted partitions)``: an Empty group left without
offsets transitions to Dead there and is removed from the cache (with its GroupMetadata
tombstone when its generation is above 0), at once, not at the next expiry run.
"""

from __future__ import annotations

import asyncio
import inspect

from coordinator.group_offsets import encode_group_key
from coordinator.groups import LeaveMember, OffsetCommitEntry
from protocol.errors import ErrorCode
from tests.coordinator.offsets_partition_harness import ME, OTHER, Node, offsets_of
from tests.coordinator.test_groups import ManualClock, stable_group

E = ErrorCode


def test_an_empty_group_whose_only_topic_is_deleted_goes_at_once(tmp_path):
    """``GroupCoordinator.handleDeletedPartitions`` -> ``cleanupGroupMetadata``: Empty without
    offsets -> Dead, removed (ListGroups no longer shows it, DescribeGroups says Dead)."""

    async def scenario():
        clock = ManualClock()
        node = Node(tmp_path, clock)
        try:
            gc = await node.start(replicas=(ME,), isr=(ME,))
            assert gc.commit_offsets("simple", "", None, -1, [OffsetCommitEntry("doomed", 0, 1)]) == [E.NONE]
            leader, follower = stable_group(gc, clock)
            assert gc.commit_offsets("g", leader, None, 1, [OffsetCommitEntry("doomed", 0, 3)]) == [E.NONE]
            gc.leave_group("g", [LeaveMember(leader), LeaveMember(follower)])
            clock.advance(0)
            assert str(gc.groups["g"].state) == "Empty"
            gc.remove_offsets_of_topic("doomed")
            _, listed = gc.list_groups()
            assert [o.group_id for o in listed] == []
            assert gc.describe_group("g")[1].state == "Dead"
            # Generation 1: its GroupMetadata tombstone is in the log, so a reload agrees.
            assert node.records()[-1] == (encode_group_key("g"), None)
            gc = await node.restart()
            assert "g" not in gc.groups and "simple" not in gc.groups
        finally:
            node.close()

    asyncio.run(scenario())


def test_a_commit_of_the_deleted_topic_in_flight_is_not_cached(tmp_path):
    """``GroupMetadata.removeOffsets`` drops the deleted partition's pending commit too, so
    the group has no offsets (``hasOffsets``), goes at once, and the commit's completion
    caches nothing (``onOffsetCommitAppend`` finds no pending entry)."""

    async def scenario():
        node = Node(tmp_path, ManualClock())
        try:
            gc = await node.start(replicas=(ME, OTHER), isr=(ME, OTHER), min_isr=1)
            in_flight = gc.commit_offsets("s", "", None, -1, [OffsetCommitEntry("doomed", 0, 1)])
            assert inspect.isawaitable(in_flight)
            in_flight = asyncio.ensure_future(in_flight)
            gc.remove_offsets_of_topic("doomed")
            assert not gc.has_pending_offset_commit("s", "doomed", 0)
            assert "s" not in gc.groups
            node.ack()
            assert await in_flight == [E.NONE]
            assert offsets_of(gc, "s") == {} and "s" not in gc.groups
        finally:
            node.close()

    asyncio.run(scenario())
