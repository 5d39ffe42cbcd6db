"""Offset commits still waiting for the in-sync replicas (acks=-1, in the DelayedProduce
purgatory) while the expiry task or OffsetDelete runs.

Kafka 3.9 ``GroupMetadataManager.storeOffsets`` stages them (``GroupMetadata.prepareOffsetCommit``:
``pendingOffsetCommits``) before the append: ``removeExpiredOffsets`` never expires a partition
with a pending commit, ``hasOffsets`` counts pending commits (so the group is not removed), and
``removeOffsets`` (OffsetDelete) drops the pending entry so that ``onOffsetCommitAppend`` does
not put that commit in the cache afterwards (the log has the tombstone after it).
"""

from __future__ import annotations

import asyncio
import inspect

from coordinator.groups import OffsetCommitEntry
from protocol.errors import ErrorCode
from tests.coordinator.offsets_partition_harness import ME, OTHER, RETENTION, Node, offsets_of
from tests.coordinator.test_groups import ManualClock

E = ErrorCode


def test_a_commit_in_flight_during_the_expiry_run_is_not_lost(tmp_path):
    """``GroupMetadata.removeExpiredOffsets`` skips partitions in ``pendingOffsetCommits`` and
    ``GroupMetadata.hasOffsets`` counts them, so ``GroupMetadataManager.cleanupGroupMetadata``
    neither tombstones the partition nor removes the group; the commit then lands in the cache
    (``onOffsetCommitAppend``) and survives a reload."""

    async def scenario():
        clock = ManualClock()
        node = Node(tmp_path, clock)
        try:
            gc = await node.start(replicas=(ME, OTHER), isr=(ME, OTHER), min_isr=1)
            first = gc.commit_offsets("s", "", None, -1, [OffsetCommitEntry("t", 0, 1)])
            assert inspect.isawaitable(first)
            first = asyncio.ensure_future(first)
            await asyncio.sleep(0)
            node.ack()
            assert await first == [E.NONE]
            clock.advance(RETENTION - 1)  # the last expiry run was at RETENTION - CHECK
            assert offsets_of(gc, "s") == {("t", 0): 1}
            # A new commit of t-0, waiting for the follower, when the expiry run comes.
            second = gc.commit_offsets("s", "", None, -1, [OffsetCommitEntry("t", 0, 2)])
            assert inspect.isawaitable(second)
            second = asyncio.ensure_future(second)
            await asyncio.sleep(0)
            clock.advance(1)  # expiry run at RETENTION: the stored t-0 (offset 1) is old enough
            node.ack()
            assert await second == [E.NONE]
            await asyncio.sleep(0)
            node.ack()
            # Kafka: the acknowledged commit is what the group has, now and after a reload.
            assert offsets_of(gc, "s") == {("t", 0): 2}
            gc = await node.restart(replicas=(ME,), isr=(ME,))
            assert offsets_of(gc, "s") == {("t", 0): 2}
        finally:
            node.close()

    asyncio.run(scenario())


def test_offset_delete_during_a_commit_in_flight_keeps_cache_and_log_agreeing(tmp_path):
    """``GroupMetadata.removeOffsets`` (OffsetDelete) removes the partition's pending commit,
    so ``GroupMetadata.onOffsetCommitAppend`` does not cache it once its append completes: the
    cache agrees with the log (commit record, then the tombstone), before and after a reload."""

    async def scenario():
        clock = ManualClock()
        node = Node(tmp_path, clock)
        try:
            gc = await node.start(replicas=(ME, OTHER), isr=(ME, OTHER), min_isr=1)
            first = gc.commit_offsets(
                "s", "", None, -1, [OffsetCommitEntry("t", 0, 1), OffsetCommitEntry("t", 1, 1)]
            )
            first = asyncio.ensure_future(first)
            await asyncio.sleep(0)
            node.ack()
            assert await first == [E.NONE, E.NONE]
            second = asyncio.ensure_future(
                gc.commit_offsets("s", "", None, -1, [OffsetCommitEntry("t", 0, 2)])
            )
            await asyncio.sleep(0)
            assert gc.delete_offsets("s", [("t", 0)]) == (E.NONE, {("t", 0): E.NONE})
            node.ack()
            assert await second == [E.NONE]
            await asyncio.sleep(0)
            node.ack()
            before = offsets_of(gc, "s")
            gc = await node.restart(replicas=(ME,), isr=(ME,))
            after = offsets_of(gc, "s")
            assert after == {("t", 1): 1}  # the tombstone follows the commit in the log
            assert before == after  # Kafka: t-0 is not cached either
        finally:
            node.close()

    asyncio.run(scenario())
