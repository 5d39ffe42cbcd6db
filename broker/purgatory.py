"""Purgatory: requests that wait for something to happen, on the event loop.

Kafka's ``DelayedOperationPurgatory``: a ``DelayedOperation`` that cannot complete yet is
watched under keys (here: partitions). Whoever changes a partition calls
``check_and_complete(key)``; each operation watched under it runs ``try_complete``, which
decides from what it can see cheaply (offsets, byte counters) whether it is done and, if
so, calls ``force_complete``. A timer completes it at its deadline (``on_expiration``
first). Nothing polls.

``try_complete_else_watch`` tries once, watches, then tries again, as Kafka does: a change
between the first try and the watch is never missed. ``watch`` watches without trying, for the
replica manager's parked fetches and produces, which have just found in the same turn of the
event loop that they cannot complete (Kafka's second try guards against other threads).

A completed operation resolves its ``future`` (an ``OperationFuture``); the request that
parked it awaits that and builds its answer. Kafka's ``onComplete`` sends the response from
whatever completed the operation (the follower's fetch that moved the high watermark, the
append a parked fetch waited for); here the same happens through the future's inline
callbacks, run inside ``force_complete``, which ``broker.inline_answer`` uses to step the
answer's coroutine there and then instead of a turn of the event loop later. ``cancel``
drops an operation whose request went away (its connection closed).

``ActionQueue`` is Kafka's: the purgatory checks an append asks for (its parked followers'
fetches may complete) wait until the requests read with it have been handled, so one answer
carries every batch they appended.

``DelayedFetch`` waits for ``min_bytes`` to become readable on its partitions (a
follower's fetch: for appends; a consumer's: for high-watermark moves). ``DelayedProduce``
(acks=all) is the same shape: keyed by partition, ``try_complete`` comparing each
partition's high watermark with the offset its append needs, triggered by high-watermark
moves, ISR changes and leadership changes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

from protocol.errors import ErrorCode

if TYPE_CHECKING:
    from broker.partition import Partition
    from storage.log_types import FetchIsolation

PartitionKey = tuple[str, int]

log = logging.getLogger(__name__)


class OperationFuture(asyncio.Future):
    """A delayed operation's future: besides asyncio's callbacks (run on a later turn of the
    loop), inline callbacks run inside ``force_complete``, where the operation completes."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(loop=loop)
        self._inline: list[Callable[[], None]] = []

    def add_inline_callback(self, callback: Callable[[], None]) -> None:
        """Run ``callback()`` when the operation completes (not if it is cancelled)."""
        self._inline.append(callback)

    def remove_inline_callback(self, callback: Callable[[], None]) -> None:
        with contextlib.suppress(ValueError):
            self._inline.remove(callback)

    def run_inline_callbacks(self) -> None:
        callbacks, self._inline = self._inline, []
        for callback in callbacks:
            try:
                callback()
            except Exception:  # one answer's failure is not the completer's (another request)
                log.exception("%r: an inline completion callback failed", self)


class DelayedOperation:
    """An operation that completes once ``try_complete`` says so, or at its deadline."""

    def __init__(self, delay_ms: int) -> None:
        self.delay_ms = max(delay_ms, 0)
        self.future: OperationFuture = OperationFuture(asyncio.get_running_loop())
        self.keys: tuple[Hashable, ...] = ()
        self._timer: asyncio.TimerHandle | None = None
        self._expired = False

    @property
    def is_completed(self) -> bool:
        return self.future.done()

    @property
    def expired(self) -> bool:
        return self._expired

    def try_complete(self) -> bool:
        """Check whether the operation can complete now; if so ``force_complete`` it and return True."""
        raise NotImplementedError

    def on_complete(self) -> None:
        """Called once, when the operation completes (by ``try_complete`` or expiry)."""

    def on_expiration(self) -> None:
        """Called when the deadline passed, before ``on_complete``."""

    def force_complete(self) -> bool:
        """Complete now; False if it already was."""
        if self.future.done():
            return False
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.future.set_result(not self._expired)
        self.on_complete()
        self.future.run_inline_callbacks()  # Kafka's onComplete: the response, from here
        return True

    def _expire(self) -> None:
        if self.future.done():
            return
        self._expired = True
        self.on_expiration()
        self.force_complete()


Op = TypeVar("Op", bound=DelayedOperation)


class DelayedOperationPurgatory(Generic[Op]):
    """Delayed operations watched by key; ``len()`` is the number still waiting."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._watchers: dict[Hashable, set[Op]] = {}
        self._waiting: set[Op] = set()

    def __len__(self) -> int:
        return len(self._waiting)

    def watched(self, key: Hashable) -> int:
        return len(self._watchers.get(key, ()))

    def watched_count(self) -> int:
        """Operations watched, once per key they watch (Kafka's ``PurgatorySize``)."""
        return sum(len(watchers) for watchers in self._watchers.values())

    def try_complete_else_watch(self, operation: Op, keys: Iterable[Hashable]) -> bool:
        """Complete ``operation`` now if it can, else watch it under ``keys`` until it can
        or its delay passes. True if it completed here."""
        if operation.try_complete():
            return True
        self._add_watches(operation, keys)
        # Kafka's safeTryCompleteOrElse: a change between the first try and the watch is seen.
        if operation.try_complete():
            self._unwatch(operation)
            return True
        self._schedule_expiry(operation)
        return False

    def watch(self, operation: Op, keys: Iterable[Hashable]) -> None:
        """Watch ``operation`` under ``keys`` until it can complete or its delay passes, with
        no try first: for a caller that has just found, in the same turn of the event loop,
        that it cannot complete yet (a parked fetch's read, an acks=-1 produce's statuses).
        Kafka tries again after watching because its threads may change the keys meanwhile;
        nothing else runs on this loop between that check and the watch."""
        self._add_watches(operation, keys)
        self._schedule_expiry(operation)

    def _add_watches(self, operation: Op, keys: Iterable[Hashable]) -> None:
        operation.keys = tuple(dict.fromkeys(keys))
        for key in operation.keys:
            self._watchers.setdefault(key, set()).add(operation)
        self._waiting.add(operation)

    def _schedule_expiry(self, operation: Op) -> None:
        operation._timer = asyncio.get_running_loop().call_later(
            operation.delay_ms / 1000.0, self._expire, operation
        )

    def check_and_complete(self, key: Hashable) -> int:
        """Something changed under ``key``: try the operations watching it; returns how many completed."""
        watchers = self._watchers.get(key)
        if not watchers:
            return 0
        completed = 0
        for operation in list(watchers):
            if operation.is_completed or operation.try_complete():
                self._unwatch(operation)
                completed += 1
        return completed

    def complete_all(self, key: Hashable) -> None:
        """Complete every operation watching ``key`` now (its partition went away)."""
        for operation in list(self._watchers.get(key, ())):
            operation.force_complete()
            self._unwatch(operation)

    def cancel(self, operation: Op) -> None:
        """Drop ``operation`` without completing it (its request is gone)."""
        if operation._timer is not None:
            operation._timer.cancel()
            operation._timer = None
        self._unwatch(operation)

    def _expire(self, operation: Op) -> None:
        operation._expire()
        self._unwatch(operation)

    def _unwatch(self, operation: Op) -> None:
        self._waiting.discard(operation)
        for key in operation.keys:
            watchers = self._watchers.get(key)
            if watchers is not None:
                watchers.discard(operation)
                if not watchers:
                    del self._watchers[key]


class ActionQueue:
    """Kafka's ``ActionQueue``: purgatory checks asked for by an append, run once the request
    (here: the requests read with it) has been handled.

    A follower's parked fetch completes when the leader's log grows; checked at each append,
    it would answer with the first batch of a burst of pipelined produces and leave the others
    for its next fetch. The server runs ``try_complete_actions`` after each pass over a
    connection's frames (Kafka's ``KafkaApis.handle``: ``tryCompleteActions`` after every
    request); an append outside a request (a coordinator's write) has its checks run by the
    next turn of the event loop.
    """

    def __init__(self) -> None:
        self._pending: dict[tuple[DelayedOperationPurgatory, Hashable], None] = {}

    def __len__(self) -> int:
        return len(self._pending)

    def add(self, purgatory: DelayedOperationPurgatory, key: Hashable) -> None:
        """``purgatory.check_and_complete(key)`` once the requests being handled are."""
        pending = self._pending
        if not pending:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # no event loop (a synchronous caller): nothing can wait
                purgatory.check_and_complete(key)
                return
            loop.call_soon(self.try_complete_actions)
        pending[(purgatory, key)] = None

    def try_complete_actions(self) -> None:
        pending = self._pending
        while pending:
            purgatory, key = next(iter(pending))
            del pending[(purgatory, key)]
            try:
                purgatory.check_and_complete(key)
            except Exception:  # Kafka's tryCompleteActions: logged, the others still run
                log.exception("%s purgatory: the check of %r failed", purgatory.name, key)


# ---------------------------------------------------------------------------- delayed fetch


@dataclass(frozen=True, slots=True)
class FetchPartitionStatus:
    """One partition of a parked fetch, as it was when first read (Kafka's ``FetchPartitionStatus``).

    ``readable_bytes`` is the partition's ``bytes_below(isolation)`` counter at that read;
    whatever it grew by since has become readable for this fetch, on top of the ``read_bytes``
    that read counted (``ReplicaManager._read_from_local_log``).
    """

    key: PartitionKey
    fetch_offset: int
    max_bytes: int
    leader_epoch: int
    readable_bytes: int
    read_bytes: int = 0


class DelayedFetch(DelayedOperation):
    """A fetch waiting for ``min_bytes`` (Kafka's ``DelayedFetch``).

    It completes when, on some partition, the leadership changed or the partition went
    away (Kafka's cases A and D; a consumer's fetch served by a follower, KIP-392, waits
    while the partition keeps its leader epoch), the readable bytes went back (the log was truncated
    or replaced: case B), or enough bytes became readable across its partitions (Kafka's
    case G: each partition counts the bytes from its fetch offset to what the isolation
    allows, ``endOffset.positionDiff(fetchOffset)``, at most its ``max_bytes``). Readiness is
    decided from the partitions' counters, without reading the log.
    """

    def __init__(
        self,
        delay_ms: int,
        *,
        min_bytes: int,
        isolation: FetchIsolation,
        statuses: Sequence[FetchPartitionStatus],
        partition_of: Callable[[PartitionKey], Partition | None],
        fetch_only_leader: bool = True,
    ) -> None:
        super().__init__(delay_ms)
        self.min_bytes = min_bytes
        self.isolation = isolation
        self.statuses = statuses
        self._partition_of = partition_of
        self.fetch_only_leader = fetch_only_leader  # False: a consumer's v11+ fetch (KIP-392)

    def try_complete(self) -> bool:
        accumulated = 0
        only_leader = self.fetch_only_leader
        for status in self.statuses:
            partition = self._partition_of(status.key)
            if (
                partition is None
                or (only_leader and not partition.is_leader)
                or partition.leader_epoch != status.leader_epoch
            ):
                return self.force_complete()
            grown = partition.bytes_below(self.isolation) - status.readable_bytes
            if grown < 0:
                return self.force_complete()
            accumulated += min(status.read_bytes + grown, status.max_bytes)
        if accumulated >= self.min_bytes:
            return self.force_complete()
        return False


# ---------------------------------------------------------------------------- delayed produce


@dataclass(slots=True)
class ProducePartitionStatus:
    """One partition of a parked acks=-1 produce (Kafka's ``ProducePartitionStatus``):
    the high watermark it waits for, and the error it completed with (None while waiting)."""

    key: PartitionKey
    required_offset: int
    acks_pending: bool = True
    error: ErrorCode | None = None


def check_produce_statuses(
    statuses: Sequence[ProducePartitionStatus], partition_of: Callable[[PartitionKey], Partition | None]
) -> bool:
    """Settle the partitions whose acknowledgement is decided; True when none waits any more."""
    waiting = False
    for status in statuses:
        if not status.acks_pending:
            continue
        partition = partition_of(status.key)
        if partition is None or not partition.is_leader:
            status.acks_pending, status.error = False, ErrorCode.NOT_LEADER_OR_FOLLOWER
        elif partition.log.high_watermark >= status.required_offset:
            # Partition.checkEnoughReplicasReachOffset
            enough = partition.effective_min_isr <= len(partition.maximal_isr)
            status.acks_pending = False
            status.error = ErrorCode.NONE if enough else ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND
        else:
            waiting = True
    return not waiting


class DelayedProduce(DelayedOperation):
    """An acks=-1 produce waiting for the followers (Kafka's ``DelayedProduce``).

    Each partition completes when its high watermark reaches the offset after its append
    (NOT_ENOUGH_REPLICAS_AFTER_APPEND if the ISR meanwhile fell below min.insync.replicas:
    ``Partition.checkEnoughReplicasReachOffset``), or with NOT_LEADER_OR_FOLLOWER once this
    broker no longer leads it; the operation completes when no partition waits. At the
    deadline the ones still waiting get REQUEST_TIMED_OUT.
    """

    def __init__(
        self,
        delay_ms: int,
        *,
        statuses: Sequence[ProducePartitionStatus],
        partition_of: Callable[[PartitionKey], Partition | None],
    ) -> None:
        super().__init__(delay_ms)
        self.statuses = statuses
        self._partition_of = partition_of

    def try_complete(self) -> bool:
        if not check_produce_statuses(self.statuses, self._partition_of):
            return False
        return self.force_complete()

    def on_expiration(self) -> None:
        for status in self.statuses:
            if status.acks_pending:
                status.acks_pending, status.error = False, ErrorCode.REQUEST_TIMED_OUT
