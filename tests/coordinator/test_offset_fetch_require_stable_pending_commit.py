"""OffsetFetch ``require_stable`` (v7+, KIP-447) while a plain OffsetCommit of the partition is
still being written (acks=-1, waiting for the in-sync replicas).

Kafka 3.9 ``GroupMetadataManager.getOffsets``: with ``requireStable`` a partition for which
``GroupMetadata.hasPendingOffsetCommitsForTopicPartition`` holds answers
UNSTABLE_OFFSET_COMMIT; that check covers ``pendingOffsetCommits`` (plain commits staged by
``storeOffsets``/``prepareOffsetCommit`` until their append completes) as well as pending
transactional ones. The client retries and then reads the new offset instead of the old one.
"""

from __future__ import annotations

import asyncio
import inspect
from types import SimpleNamespace

from broker.handlers.offset_fetch import _fetch
from coordinator.groups import OffsetCommitEntry
from protocol.errors import ErrorCode
from protocol.messages import OffsetFetchRequest
from tests.coordinator.offsets_partition_harness import ME, OTHER, Node
from tests.coordinator.test_groups import ManualClock

E = ErrorCode


def _ctx(gc):
    return SimpleNamespace(
        broker=SimpleNamespace(groups=gc),
        authorize=lambda *_a, **_k: True,
        authorized=lambda _op, _rt, names: set(names),
    )


def test_require_stable_answers_unstable_while_a_plain_commit_is_being_written(tmp_path):
    """``GroupMetadataManager.getOffsets`` / ``GroupMetadata.hasPendingOffsetCommitsForTopicPartition``."""

    async def scenario():
        node = Node(tmp_path, ManualClock())
        try:
            gc = await node.start(replicas=(ME, OTHER), isr=(ME, OTHER), min_isr=1)
            first = asyncio.ensure_future(
                gc.commit_offsets("s", "", None, -1, [OffsetCommitEntry("t", 0, 1)])
            )
            await asyncio.sleep(0)
            node.ack()
            assert await first == [E.NONE]
            second = gc.commit_offsets("s", "", None, -1, [OffsetCommitEntry("t", 0, 2)])
            assert inspect.isawaitable(second)
            second = asyncio.ensure_future(second)
            await asyncio.sleep(0)
            topics = [OffsetFetchRequest.OffsetFetchRequestTopic(name="t", partition_indexes=[0])]
            error, found = _fetch(_ctx(gc), "s", topics, True)
            assert error is E.NONE
            [(name, [(partition, offset, _epoch, _meta, perror)])] = found
            assert (name, partition) == ("t", 0)
            # Kafka: UNSTABLE_OFFSET_COMMIT (retried); not the offset being replaced.
            assert (offset, perror) == (-1, E.UNSTABLE_OFFSET_COMMIT)
            node.ack()
            assert await second == [E.NONE]
        finally:
            node.close()

    asyncio.run(scenario())
