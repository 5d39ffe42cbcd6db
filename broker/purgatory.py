"""Purgatory: requests that wait for something to happen, on the event loop.

Kafka parks delayed operations in a ``DelayedOperationPurgatory`` keyed by
partition and completes them when a watched event occurs or their timeout
fires. Here a delayed fetch (``min_bytes`` not yet reached) registers a
``FetchWaiter`` on each partition it reads; every append to one of them adds
its size, and the waiter completes once ``min_bytes`` have arrived or its
``max_wait_ms`` runs out. Nothing polls: appends wake waiters directly.

(A delayed produce, acks=all waiting on followers, joins this module with the
cluster work: with one replica an append is fully replicated when written.)
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable, Iterator

PartitionKey = tuple[str, int]


class FetchWaiter:
    __slots__ = ("accumulated", "future", "keys", "min_bytes")

    def __init__(self, keys: list[PartitionKey], min_bytes: int, accumulated: int) -> None:
        self.keys = keys
        self.min_bytes = min_bytes
        self.accumulated = accumulated
        self.future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

    def complete(self, satisfied: bool) -> None:
        if not self.future.done():
            self.future.set_result(satisfied)


class FetchPurgatory:
    def __init__(self) -> None:
        self._watchers: dict[PartitionKey, set[FetchWaiter]] = {}

    def __len__(self) -> int:
        return sum(len(w) for w in self._watchers.values())

    @contextlib.contextmanager
    def watch(self, keys: Iterable[PartitionKey], min_bytes: int, timeout_ms: int) -> Iterator[FetchWaiter]:
        """Register a waiter on the partitions for the ``with`` block.

        Callers register first and then look at the partitions, so an append
        between the two cannot be missed (Kafka's ``tryCompleteElseWatch``).
        The waiter's future resolves True when ``min_bytes`` have been appended
        (or a partition changed), False when ``timeout_ms`` runs out.
        """
        waiter = FetchWaiter(list(keys), min_bytes, 0)
        for key in waiter.keys:
            self._watchers.setdefault(key, set()).add(waiter)
        handle = asyncio.get_running_loop().call_later(max(timeout_ms, 0) / 1000.0, waiter.complete, False)
        try:
            yield waiter
        finally:
            handle.cancel()
            for key in waiter.keys:
                watchers = self._watchers.get(key)
                if watchers is not None:
                    watchers.discard(waiter)
                    if not watchers:
                        del self._watchers[key]

    def on_append(self, key: PartitionKey, nbytes: int) -> None:
        watchers = self._watchers.get(key)
        if not watchers:
            return
        for waiter in list(watchers):
            waiter.accumulated += nbytes
            if waiter.accumulated >= waiter.min_bytes:
                waiter.complete(True)

    def on_partition_change(self, key: PartitionKey) -> None:
        """The partition went away or moved (deleted, truncated): waiters answer now."""
        for waiter in list(self._watchers.get(key, ())):
            waiter.complete(True)

    def wake_all(self) -> None:
        for watchers in list(self._watchers.values()):
            for waiter in list(watchers):
                waiter.complete(True)
