"""The ZooKeeper-mode controller's connections to the brokers (Kafka's ``ControllerChannelManager``).

``BrokerChannel`` / ``BrokerChannelManager`` (Kafka's ``RequestSendThread`` and
``ControllerChannelManager``), over the inter-broker client (``broker/network_client.py``)
    One queue and one sender task per destination broker: requests are sent one
    at a time, in order, each retried on retriable errors until it is answered, superseded
    by a newer request with the same ``supersede_key`` (a newer UpdateMetadata for the same
    broker makes an older one pointless) or the broker is removed. Each request has a
    future for its response. ``BrokerChannelManager.update_brokers`` follows the live
    broker set. Queues are unbounded, as Kafka's ``messageQueue`` (a
    ``LinkedBlockingQueue``): every request for a registered broker is delivered, in order,
    however long it cannot be reached, so a broker registered in ZooKeeper but unreachable
    accumulates requests until it is reachable or removed (its registration goes). A bound
    can be set (``max_queued``: ``enqueue`` beyond raises :class:`ChannelQueueFull`) by users
    that can afford to drop requests; the controller's channels have none.

``NetworkControllerChannel`` implements ``coordinator.zk_controller_channel.ControllerChannel``
on them: one ordered queue per registered broker, addressed on the inter-broker listener of
its ``/brokers/ids/<id>`` registration (not the metadata cache: the controller knows brokers
before any UpdateMetadata has told this broker of them). Requests carry the client id
``broker-<id>`` of this broker. The controller sends to itself over the network too, as
Kafka's does. Requests are never superseded: an UpdateMetadata carries only the partitions
that changed, so each one counts.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Any

from broker.network_client import (
    BrokerNotAvailableError,
    ClientClosedError,
    InterBrokerClient,
    NetworkClientError,
)
from broker.security.client import PLAINTEXT_INTER_BROKER, InterBrokerSecurity
from coordinator.zk_data import BrokerInfo

log = logging.getLogger(__name__)

CHANNEL_RETRY_BACKOFF_MS = 100  # RequestSendThread backs off 100 ms after a failed send


class RequestSupersededError(NetworkClientError):
    """A newer request with the same supersede key replaced this one in a channel queue."""

    retriable = False


class ChannelQueueFull(NetworkClientError):
    """A bounded channel already holds ``max_queued`` requests."""

    retriable = False


@dataclass(slots=True)
class _Queued:
    request: Any
    version: int | None
    supersede_key: Hashable | None
    future: asyncio.Future[Any]
    superseded: bool = False


class BrokerChannel:
    """The ordered request queue of one destination broker (Kafka's RequestSendThread)."""

    def __init__(
        self,
        client: InterBrokerClient,
        broker_id: int,
        *,
        max_queued: int | None = None,
        retry_backoff_ms: int = CHANNEL_RETRY_BACKOFF_MS,
    ) -> None:
        self.client = client
        self.broker_id = broker_id
        self.max_queued = max_queued
        self.retry_backoff_ms = retry_backoff_ms
        self.attempts = 0  # sends tried, retries included (for tests and metrics)
        self._queue: deque[_Queued] = deque()
        self._current: _Queued | None = None
        self._wake = asyncio.Event()
        self._closed = False
        # The last send failed (the broker unreachable): a drain does not wait for this queue.
        self.failing = False
        self._task = asyncio.ensure_future(self._run())

    def __len__(self) -> int:
        return len(self._queue) + (self._current is not None)

    def pending(self) -> list[asyncio.Future[Any]]:
        """The futures of the requests not answered yet (the one being sent first)."""
        items = ([self._current] if self._current else []) + list(self._queue)
        return [item.future for item in items if not item.future.done()]

    def enqueue(
        self, request: Any, version: int | None = None, *, supersede_key: Hashable | None = None
    ) -> asyncio.Future[Any]:
        """Queue ``request``; the future gets its response, or the error that ended it.

        A queued (or retrying) request with the same ``supersede_key`` is dropped and its
        future fails with :class:`RequestSupersededError`.
        """
        if self._closed:
            raise ClientClosedError(self.broker_id, "channel closed")
        if supersede_key is not None:
            self._supersede(supersede_key)
        if self.max_queued is not None and len(self._queue) >= self.max_queued:
            raise ChannelQueueFull(self.broker_id, f"{len(self._queue)} requests already queued")
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._queue.append(_Queued(request, version, supersede_key, fut))
        self._wake.set()
        return fut

    def _supersede(self, key: Hashable) -> None:
        error = RequestSupersededError(self.broker_id, f"superseded by a newer request ({key!r})")
        kept: deque[_Queued] = deque()
        for item in self._queue:
            if item.supersede_key == key:
                if not item.future.done():
                    item.future.set_exception(error.copy())
            else:
                kept.append(item)
        self._queue = kept
        current = self._current
        if current is not None and current.supersede_key == key:
            current.superseded = True  # ends at its next failure instead of being retried
            self._wake.set()

    async def _run(self) -> None:
        while not self._closed:
            if not self._queue:
                self._wake.clear()
                await self._wake.wait()
                continue
            item = self._current = self._queue.popleft()
            try:
                await self._deliver(item)
            finally:
                self._current = None

    async def _deliver(self, item: _Queued) -> None:
        while not item.future.done():
            if item.superseded:
                item.future.set_exception(
                    RequestSupersededError(self.broker_id, "superseded by a newer request")
                )
                return
            self.attempts += 1
            try:
                response = await self.client.send(self.broker_id, item.request, item.version)
            except NetworkClientError as exc:
                if not exc.retriable:
                    if not item.future.done():
                        item.future.set_exception(exc)
                    return
                log.debug("channel to broker %d: %s; retrying", self.broker_id, exc)
                self.failing = True
                # RequestSendThread.backoff(); woken early by a superseding request or close.
                self._wake.clear()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self.retry_backoff_ms / 1000):
                        await self._wake.wait()
                continue
            self.failing = False
            if not item.future.done():
                item.future.set_result(response)

    async def close(self) -> None:
        """Stop the sender; every queued request fails with ClientClosedError."""
        if self._closed:
            return
        self._closed = True
        pending = ([self._current] if self._current else []) + list(self._queue)
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        error = ClientClosedError(self.broker_id, "channel closed (broker removed)")
        for item in pending:
            if not item.future.done():
                item.future.set_exception(error.copy())
        self._queue.clear()
        self._current = None


class BrokerChannelManager:
    """One :class:`BrokerChannel` per live destination broker (Kafka's ControllerChannelManager)."""

    def __init__(self, client: InterBrokerClient, **channel_options: Any) -> None:
        self.client = client
        self._options = channel_options
        self.channels: dict[int, BrokerChannel] = {}

    def add_broker(self, broker_id: int) -> BrokerChannel:
        channel = self.channels.get(broker_id)
        if channel is None:
            channel = self.channels[broker_id] = BrokerChannel(self.client, broker_id, **self._options)
        return channel

    async def remove_broker(self, broker_id: int) -> None:
        """Stop the broker's channel (its queued requests fail) and close its connection."""
        channel = self.channels.pop(broker_id, None)
        if channel is not None:
            await channel.close()
        self.client.forget(broker_id)

    async def update_brokers(self, live: Iterable[int]) -> None:
        """Follow the live broker set: channels for new brokers, none for departed ones."""
        live = set(live)
        for broker_id in list(self.channels):
            if broker_id not in live:
                await self.remove_broker(broker_id)
        for broker_id in sorted(live):
            self.add_broker(broker_id)

    def enqueue(
        self,
        broker_id: int,
        request: Any,
        version: int | None = None,
        *,
        supersede_key: Hashable | None = None,
    ) -> asyncio.Future[Any]:
        channel = self.channels.get(broker_id)
        if channel is None:
            raise BrokerNotAvailableError(broker_id, "not a live broker of the channel manager")
        return channel.enqueue(request, version, supersede_key=supersede_key)

    async def close(self) -> None:
        for broker_id in list(self.channels):
            channel = self.channels.pop(broker_id)
            await channel.close()


class NetworkControllerChannel:
    """``ControllerChannel`` over ``BrokerChannelManager`` (one sender task per broker)."""

    def __init__(
        self,
        broker_id: int,
        inter_broker_listener: str,
        security: InterBrokerSecurity = PLAINTEXT_INTER_BROKER,
    ) -> None:
        self.listener = inter_broker_listener
        self._endpoints: dict[int, tuple[str, int]] = {}
        self.client = InterBrokerClient(f"broker-{broker_id}", self._endpoints.get, security=security)
        self.channels = BrokerChannelManager(self.client)
        self._removals: set[asyncio.Task] = set()

    def add_broker(self, broker: BrokerInfo) -> None:
        endpoint = next((e for e in broker.endpoints if e.name == self.listener), None)
        if endpoint is None:
            log.warning(
                "broker %d registered no %s listener: the controller cannot reach it",
                broker.broker_id,
                self.listener,
            )
            return
        address = (endpoint.host, endpoint.port)
        if self._endpoints.get(broker.broker_id, address) != address:
            self.client.disconnect(broker.broker_id)  # re-registered elsewhere: reconnect there
        self._endpoints[broker.broker_id] = address
        self.channels.add_broker(broker.broker_id)

    def remove_broker(self, broker_id: int) -> None:
        self._endpoints.pop(broker_id, None)
        channel = self.channels.channels.pop(broker_id, None)
        self.client.forget(broker_id)
        if channel is not None:
            task = asyncio.get_running_loop().create_task(channel.close())
            self._removals.add(task)
            task.add_done_callback(self._removals.discard)

    def send(self, broker_id: int, request: Any, version: int) -> asyncio.Future[Any]:
        return self.channels.enqueue(broker_id, request, version)

    async def drain(self, timeout_s: float) -> None:
        """Wait (at most ``timeout_s``) until the requests queued for the reachable brokers
        are answered: a controller stopping with its broker sends what it decided last (its
        own controlled shutdown's moves) before its queues are dropped, as Kafka's controller,
        shut down after the broker's replica and log managers, does meanwhile."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while True:
            futures = [f for ch in self.channels.channels.values() if not ch.failing for f in ch.pending()]
            remaining = deadline - loop.time()
            if not futures or remaining <= 0:
                return
            await asyncio.wait(futures, timeout=remaining, return_when=asyncio.FIRST_COMPLETED)

    async def close(self) -> None:
        await self.channels.close()
        if self._removals:
            await asyncio.gather(*self._removals, return_exceptions=True)
        await self.client.close()
