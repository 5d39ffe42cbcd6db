"""Sending a transaction's COMMIT or ABORT markers to its partitions' leaders.

Kafka's ``TransactionMarkerChannelManager`` with its ``TransactionMarkerRequestCompletionHandler``:
once PrepareCommit/PrepareAbort is durable, each partition of the transaction gets a marker
through its current leader; the transaction completes (CompleteCommit/CompleteAbort is
written) when every partition has answered. Per partition:

- NONE: done;
- the leader moved or is unknown, the partition is not (yet) there, too few replicas, a
  timeout, a storage error, an unreachable broker: retried after ``retry.backoff.ms`` at the
  partition's leader as the metadata then says (a partition without a leader waits, Kafka's
  unknown-broker queue);
- a partition that no longer exists (deleted topic), or one that cannot take markers
  (UNSUPPORTED_FOR_MESSAGE_FORMAT): dropped;
- INVALID_PRODUCER_EPOCH or TRANSACTION_COORDINATOR_FENCED: a newer coordinator owns the
  transaction; sending stops and the transaction is left to it.

A partition done (its marker written, or dropped) is reported at once, so the coordinator
takes it out of the transaction (``TransactionMarkerRequestCompletionHandler`` calls
``txnMetadata.removePartition``): DescribeTransactions lists the partitions still waiting.

One sending task per transaction (Kafka batches transactions per destination broker; the
markers of one transaction to one broker still go in one request).
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import Callable, Collection
from dataclasses import dataclass
from enum import Enum

from coordinator.transaction_metadata import TopicPartition, TxnTransit
from coordinator.transaction_seams import TxnMarker, TxnMarkerWriter
from protocol.errors import ErrorCode

log = logging.getLogger(__name__)

RETRY_BACKOFF_S = 0.1  # retry.backoff.ms

# Where a partition's marker goes: a broker id, NO_LEADER (wait), or None (it does not exist).
NO_LEADER = -1
LeaderLookup = Callable[[str, int], int | None]

_RETRIABLE = frozenset(
    {
        ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        ErrorCode.NOT_LEADER_OR_FOLLOWER,
        ErrorCode.NOT_ENOUGH_REPLICAS,
        ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
        ErrorCode.REQUEST_TIMED_OUT,
        ErrorCode.KAFKA_STORAGE_ERROR,
        ErrorCode.LEADER_NOT_AVAILABLE,
        ErrorCode.NETWORK_EXCEPTION,
        ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
        ErrorCode.BROKER_NOT_AVAILABLE,
    }
)
_ABORT_SENDING = frozenset({ErrorCode.INVALID_PRODUCER_EPOCH, ErrorCode.TRANSACTION_COORDINATOR_FENCED})


class MarkerOutcome(Enum):
    WRITTEN = "written"  # every partition has its marker (or was dropped)
    FENCED = "fenced"  # a newer coordinator owns the transaction
    CANCELLED = "cancelled"  # this coordinator stopped owning it


@dataclass(frozen=True, slots=True)
class PendingMarkers:
    """Kafka's ``PendingCompleteTxn``: the markers out and the CompleteCommit/CompleteAbort
    prepared with them (``prepareComplete``), written once every partition is done."""

    transactional_id: str
    txn_partition: int  # the __transaction_state partition of the transactional id
    marker: TxnMarker
    complete: TxnTransit


OnMarkersDone = Callable[[PendingMarkers, MarkerOutcome], None]
OnPartitionsDone = Callable[[PendingMarkers, Collection[TopicPartition]], None]


class TransactionMarkerSender:
    """Sends markers until written, with retries (see the module docstring)."""

    def __init__(
        self,
        writer: TxnMarkerWriter,
        leader_of: LeaderLookup,
        *,
        retry_backoff_s: float = RETRY_BACKOFF_S,
    ) -> None:
        self.writer = writer
        self.leader_of = leader_of
        self.retry_backoff_s = retry_backoff_s
        self._tasks: dict[str, asyncio.Task] = {}
        self._by_partition: dict[int, set[str]] = defaultdict(set)

    def pending(self, transactional_id: str) -> bool:
        return transactional_id in self._tasks

    def send(
        self, pending: PendingMarkers, on_done: OnMarkersDone, on_partitions_done: OnPartitionsDone
    ) -> None:
        """Start sending; ``on_partitions_done`` runs as partitions are done, ``on_done`` once,
        on the loop, with the outcome."""
        txn_id = pending.transactional_id
        old = self._tasks.pop(txn_id, None)
        if old is not None:
            old.cancel()
        task = asyncio.get_running_loop().create_task(
            self._run(pending, on_done, on_partitions_done), name=f"txn-markers-{txn_id}"
        )
        self._tasks[txn_id] = task
        self._by_partition[pending.txn_partition].add(txn_id)

    def _forget(self, pending: PendingMarkers) -> None:
        txn_id = pending.transactional_id
        if self._tasks.get(txn_id) is asyncio.current_task():
            del self._tasks[txn_id]
            self._by_partition[pending.txn_partition].discard(txn_id)

    async def _run(
        self, pending: PendingMarkers, on_done: OnMarkersDone, on_partitions_done: OnPartitionsDone
    ) -> None:
        outcome = MarkerOutcome.CANCELLED
        try:
            outcome = await self._send_until_written(pending, on_partitions_done)
        except asyncio.CancelledError:
            self._forget(pending)
            raise
        except Exception:
            log.exception("markers of %s failed", pending.transactional_id)
        self._forget(pending)
        on_done(pending, outcome)

    async def _send_until_written(
        self, pending: PendingMarkers, on_partitions_done: OnPartitionsDone
    ) -> MarkerOutcome:
        marker = pending.marker
        remaining: set[TopicPartition] = set(marker.partitions)
        while remaining:
            by_broker: dict[int, list[TopicPartition]] = defaultdict(list)
            gone: list[TopicPartition] = []
            for tp in sorted(remaining):
                leader = self.leader_of(*tp)
                if leader is None:
                    log.info("partition %s-%d no longer exists: its marker is dropped", *tp)
                    gone.append(tp)
                elif leader != NO_LEADER:
                    by_broker[leader].append(tp)
            if gone:
                # addTxnMarkersToBrokerQueue: a partition without a leader endpoint is removed
                remaining.difference_update(gone)
                on_partitions_done(pending, gone)
            if by_broker:
                brokers = list(by_broker)
                answers = await asyncio.gather(
                    *(self._write(b, marker._replace(partitions=tuple(by_broker[b]))) for b in brokers)
                )
                done: list[TopicPartition] = []
                fenced = False
                for broker, errors in zip(brokers, answers, strict=True):
                    for tp in by_broker[broker]:
                        verdict = _verdict(marker, tp, errors.get(tp, ErrorCode.NETWORK_EXCEPTION))
                        fenced = fenced or verdict is None
                        if verdict:
                            done.append(tp)
                if done:
                    remaining.difference_update(done)
                    on_partitions_done(pending, done)
                if fenced:
                    return MarkerOutcome.FENCED
            if remaining:
                await asyncio.sleep(self.retry_backoff_s)
        return MarkerOutcome.WRITTEN

    async def _write(self, broker_id: int, marker: TxnMarker) -> dict[TopicPartition, ErrorCode]:
        try:
            results = await self.writer.write_txn_markers(broker_id, [marker])
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.info("cannot send markers to broker %d: %s; retrying", broker_id, exc)
            return {}
        return results[0] if results else {}

    def cancel_partition(self, txn_partition: int) -> None:
        """Stop sending the markers of transactions of a resigned partition
        (``removeMarkersForTxnTopicPartition``)."""
        for txn_id in list(self._by_partition.pop(txn_partition, ())):
            task = self._tasks.pop(txn_id, None)
            if task is not None:
                task.cancel()

    async def close(self) -> None:
        tasks = list(self._tasks.values())
        self._tasks.clear()
        self._by_partition.clear()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _verdict(marker: TxnMarker, tp: TopicPartition, error: ErrorCode) -> bool | None:
    """One partition's answer (``TransactionMarkerRequestCompletionHandler.onComplete``):
    True done, False retried, None the transaction is fenced (sending stops)."""
    if error is ErrorCode.NONE:
        return True
    if error in _ABORT_SENDING:
        log.info(
            "marker of producer %d on %s-%d answered %s: sending stops",
            marker.producer_id,
            *tp,
            error.name,
        )
        return None
    if error in _RETRIABLE:
        return False
    # Kafka treats the rest as fatal for the partition; dropping it lets the transaction
    # complete instead of retrying for ever.
    log.error("marker of producer %d on %s-%d failed with %s: dropped", marker.producer_id, *tp, error.name)
    return True
