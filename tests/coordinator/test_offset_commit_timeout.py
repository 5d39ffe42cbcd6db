"""``offsets.commit.timeout.ms``: an offset commit whose write the in-sync replicas do not
acknowledge in time.

Kafka 3.9: ``GroupMetadataManager.appendForGroup`` appends with
``offsets.commit.required.acks`` (-1) and ``offsets.commit.timeout.ms``; at the timeout the
``DelayedProduce`` status is REQUEST_TIMED_OUT, which ``createPutCacheCallback`` passes through
``GroupMetadataManager.maybeConvertOffsetCommitError`` unchanged (only UNKNOWN_TOPIC_OR_PARTITION /
NOT_ENOUGH_REPLICAS(_AFTER_APPEND) become COORDINATOR_NOT_AVAILABLE): the OffsetCommit answer
carries REQUEST_TIMED_OUT (7). (COORDINATOR_NOT_AVAILABLE for a timeout is Kafka 4's
``CoordinatorRuntime`` mapping, not the ZooKeeper-mode classic coordinator's.)
"""

from __future__ import annotations

import asyncio
import inspect

from coordinator.groups import OffsetCommitEntry
from coordinator.offsets_topic import _storage_error
from protocol.errors import ErrorCode, KafkaError
from tests.coordinator.offsets_partition_harness import ME, OTHER, Node, offsets_of
from tests.coordinator.test_groups import ManualClock

E = ErrorCode


def test_a_commit_not_acknowledged_in_time_answers_request_timed_out(tmp_path):
    """``GroupMetadataManager.maybeConvertOffsetCommitError``: REQUEST_TIMED_OUT is not mapped."""

    async def scenario():
        node = Node(tmp_path, ManualClock())
        try:
            gc = await node.start(
                replicas=(ME, OTHER), isr=(ME, OTHER), min_isr=1, offsets_commit_timeout_ms=50
            )
            pending = gc.commit_offsets("s", "", None, -1, [OffsetCommitEntry("t", 0, 1)])
            assert inspect.isawaitable(pending)
            assert gc.has_pending_offset_commit("s", "t", 0)  # staged while it waits
            result = await asyncio.wait_for(pending, 30)  # the follower never fetches
            assert offsets_of(gc, "s") == {}
            assert result == [E.REQUEST_TIMED_OUT]
            # GroupMetadata.failPendingOffsetWrite: the failed commit is no longer pending.
            assert not gc.has_pending_offset_commit("s", "t", 0)
        finally:
            node.close()

    asyncio.run(scenario())


def test_a_group_metadata_write_that_times_out_asks_the_members_to_rejoin():
    """``GroupMetadataManager.storeGroup``'s putCacheCallback maps REQUEST_TIMED_OUT to
    REBALANCE_IN_PROGRESS for group writes; only offset commits keep it."""
    timeout = KafkaError(E.REQUEST_TIMED_OUT, "timed out")
    assert _storage_error(timeout, for_offsets=False).error is E.REBALANCE_IN_PROGRESS
    assert _storage_error(timeout, for_offsets=True).error is E.REQUEST_TIMED_OUT
    short_isr = KafkaError(E.NOT_ENOUGH_REPLICAS_AFTER_APPEND, "")
    assert _storage_error(short_isr, for_offsets=True).error is E.COORDINATOR_NOT_AVAILABLE
