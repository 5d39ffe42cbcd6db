"""Limits of the connection layer: request memory in total, connection counts.

``RequestMemoryPool`` keeps ``queued.max.request.bytes`` (Kafka's ``MemoryPool``
as ``Selector`` uses it); ``ConnectionQuotas`` keeps ``max.connections``,
``max.connections.per.ip`` and ``max.connections.per.ip.overrides`` (Kafka's
``ConnectionQuotas``). ``broker.server`` applies both.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections import deque
from typing import Protocol

SMALL_REQUEST_BYTES = 64 * 1024  # frames up to this size may use the pool's reserve
SMALL_REQUEST_RESERVE_MAX = 64 * 1024 * 1024


class MemoryWaiter(Protocol):
    """A connection waiting for the pool (``broker.server.KafkaConnection``)."""

    wanted_bytes: int

    def memory_granted(self) -> None: ...


class RequestMemoryPool:
    """``queued.max.request.bytes``: the bytes of requests being read or queued.

    As Kafka's ``SimpleMemoryPool`` under ``Selector``: a frame is accounted with
    its full size as soon as its size prefix is read (so a frame admitted can
    always be completed; its buffer still grows only as bytes arrive), and is
    released when its response has been produced. A connection whose frame is
    not admitted stops being read and waits, first come first served.

    Moldau addition: frames above ``SMALL_REQUEST_BYTES`` may fill the pool only
    up to ``large_limit`` (a quarter of it, at most 64 MiB, is kept for small
    requests), and are admitted only if they fit (or if no other large frame is
    held, so a frame up to ``socket.request.max.bytes`` always gets through).
    Slow uploads of big frames therefore cannot stop Metadata, Fetch or
    Heartbeat requests of other clients. ``used`` never exceeds ``capacity`` by
    more than the frames already read when the pool ran out (at most one read
    per connection), and reading stops until it is back under.
    """

    def __init__(self, capacity: int) -> None:
        self.capacity = max(capacity, 0)  # 0: unbounded (Kafka's -1, MemoryPool.NONE)
        reserve = min(self.capacity // 4, SMALL_REQUEST_RESERVE_MAX)
        self.large_limit = self.capacity - reserve
        self.used = 0
        self.large_used = 0
        self.peak = 0
        self.waiting_bytes = 0  # bytes read of frames waiting for admission (not in ``used``)
        self.refusals = 0  # times a connection had to wait
        self._waiting_small: deque[MemoryWaiter] = deque()
        self._waiting_large: deque[MemoryWaiter] = deque()

    @property
    def exhausted(self) -> bool:
        return self.capacity > 0 and self.used >= self.capacity

    def admits(self, size: int) -> bool:
        if not self.capacity:
            return True
        if size <= SMALL_REQUEST_BYTES:
            return self.used + size <= self.capacity
        return self.large_used == 0 or self.used + size <= self.large_limit

    def take(self, size: int) -> None:
        self.used += size
        if size > SMALL_REQUEST_BYTES:
            self.large_used += size
        if self.used > self.peak:
            self.peak = self.used

    def release(self, size: int) -> None:
        self.used -= size
        if size > SMALL_REQUEST_BYTES:
            self.large_used -= size
        if self._waiting_small or self._waiting_large:
            self._wake()

    def release_sum(self, size: int, large: int) -> None:
        """Release the frames of a closed connection: ``size`` bytes, ``large`` of them
        in frames above SMALL_REQUEST_BYTES."""
        self.used -= size
        self.large_used -= large
        if self._waiting_small or self._waiting_large:
            self._wake()

    def wait(self, conn: MemoryWaiter, size: int) -> None:
        self.refusals += 1
        (self._waiting_large if size > SMALL_REQUEST_BYTES else self._waiting_small).append(conn)

    def cancel(self, conn: MemoryWaiter) -> None:
        for q in (self._waiting_small, self._waiting_large):
            with contextlib.suppress(ValueError):
                q.remove(conn)

    @property
    def waiting(self) -> int:
        return len(self._waiting_small) + len(self._waiting_large)

    def _wake(self) -> None:
        # Small frames first (they cannot hold the pool for long), then large ones in order.
        while self._waiting_small and self.admits(self._waiting_small[0].wanted_bytes):
            self._waiting_small.popleft().memory_granted()
        while self._waiting_large and self.admits(self._waiting_large[0].wanted_bytes):
            self._waiting_large.popleft().memory_granted()


class ConnectionQuotas:
    """``max.connections``, ``max.connections.per.ip`` and its overrides (Kafka's
    ``ConnectionQuotas``; listener-level limits and connection rates are not kept)."""

    def __init__(
        self,
        max_connections: int,
        max_per_ip: int,
        overrides: dict[str, int],
        protected_listener: str | None,
    ) -> None:
        self.max_connections = max_connections
        self.max_per_ip = max_per_ip
        self.overrides = overrides  # host -> count, resolved to addresses by resolve()
        self.protected_listener = protected_listener
        self.total = 0
        self.per_ip: dict[str, int] = {}
        self._limit_by_ip: dict[str, int] = {}

    async def resolve(self, loop: asyncio.AbstractEventLoop) -> None:
        """Map each override host to its addresses (Kafka: ``InetAddress.getByName``)."""
        for host, count in self.overrides.items():
            infos = await loop.getaddrinfo(host, None, type=socket.SOCK_STREAM)
            for info in infos:
                self._limit_by_ip[normalize_ip(str(info[4][0]))] = count

    async def update_overrides(self, overrides: dict[str, int], loop: asyncio.AbstractEventLoop) -> None:
        """A dynamic ``max.connections.per.ip.overrides`` (Kafka's
        ``updateMaxConnectionsPerIpOverride``): resolved first, then swapped in whole; the
        connections already open are kept, new ones count against the new limits."""
        resolved: dict[str, int] = {}
        for host, count in overrides.items():
            for info in await loop.getaddrinfo(host, None, type=socket.SOCK_STREAM):
                resolved[normalize_ip(str(info[4][0]))] = count
        self.overrides = dict(overrides)
        self._limit_by_ip = resolved

    def limit_for(self, ip: str) -> int:
        return self._limit_by_ip.get(ip, self.max_per_ip)

    def slot_available(self, listener: str) -> bool:
        # ConnectionQuotas.connectionSlotAvailable: the inter-broker listener (when there
        # are several) is not held back by the broker-wide limit.
        return listener == self.protected_listener or self.total < self.max_connections

    def exceeded(self) -> bool:
        return self.total > self.max_connections

    def inc(self, ip: str) -> bool:
        """Count a new connection from ``ip``; False (not counted) if over its limit."""
        count = self.per_ip.get(ip, 0)
        if count >= self.limit_for(ip):
            return False
        self.per_ip[ip] = count + 1
        self.total += 1
        return True

    def dec(self, ip: str) -> None:
        count = self.per_ip.get(ip, 0)
        if count <= 1:
            self.per_ip.pop(ip, None)
        else:
            self.per_ip[ip] = count - 1
        self.total -= 1


def normalize_ip(ip: str) -> str:
    """An IPv4 client of a dual-stack socket counts as its IPv4 address."""
    ip = ip.split("%", 1)[0]
    return ip[7:] if ip.startswith("::ffff:") and "." in ip else ip
