"""Follow a ZooKeeper change-notification path: Kafka's ``ZkNodeChangeNotificationListener``.

Whoever changes shared state (a config, an ACL) records it as a sequential child
``<root>/<prefix>NNNNNNNNNN`` whose data names what changed. Every broker watches the children
of ``<root>`` and, in sequence order, hands each notification newer than the last it processed
to its handler; notifications older than ``change_expiration_ms`` (Kafka: 15 minutes) are
deleted after reading (``purgeObsoleteNotifications``). A watch event or a reconnection
schedules one more pass; passes never overlap, and a pass asked for while one runs follows it.

ZooKeeper reads block, so a handler works in two halves: ``read_changes`` runs off the event
loop with the new notifications (and may read the state they name from ZooKeeper), then
``apply_changes`` runs on the loop with what it returned.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar

from kazoo.exceptions import NoNodeError

from coordinator.zookeeper import ZooKeeperClient, get_children, get_many

log = logging.getLogger(__name__)

CHANGE_EXPIRATION_MS = 15 * 60 * 1000  # ZkNodeChangeNotificationListener's changeExpirationMs

Changes = TypeVar("Changes")


class NotificationHandler(Protocol[Changes]):
    """Kafka's ``NotificationHandler``, split in a blocking read and an apply on the loop."""

    def read_changes(self, notifications: list[tuple[str, bytes]]) -> Changes:
        """Blocking: what the notifications ``(child name, data)``, oldest first, changed."""
        ...

    def apply_changes(self, changes: Changes) -> None:
        """On the loop: apply what :meth:`read_changes` returned."""
        ...


class ZkChangeNotificationListener(Generic[Changes]):
    """Hands the notifications under ``root`` to ``handler``, each once, in sequence order."""

    def __init__(
        self,
        zk: ZooKeeperClient,
        root: str,
        prefix: str,
        handler: NotificationHandler[Changes],
        *,
        time_ms: Callable[[], int],
        change_expiration_ms: int = CHANGE_EXPIRATION_MS,
        name: str,
    ) -> None:
        self.zk = zk
        self.root = root
        self.prefix = prefix
        self.handler = handler
        self.time_ms = time_ms
        self.change_expiration_ms = change_expiration_ms
        self.name = name
        self.last_executed_change = -1
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task | None = None
        self._again = False
        self._closed = False

    async def start(self) -> None:
        """Process the pending notifications, then follow new ones (and reconnections). The
        first pass is the listener's task as any other: a watch firing while it reads makes one
        more pass after it (Kafka's listener processes on one thread), not a second one beside
        it that could apply an older read last."""
        loop = self._loop = asyncio.get_running_loop()
        self.zk.add_connection_listener(self._schedule_threadsafe)
        self._again = False
        first = self._task = loop.create_task(self._process(), name=f"{self.name}-change-listener")
        await first
        if self._again:
            self._schedule()

    async def close(self) -> None:
        self._closed = True
        task = self._task
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    # ------------------------------------------------------------------ watch (kazoo threads)

    def _on_watch(self, event: Any) -> None:
        if event.type != "NONE":
            self._schedule_threadsafe()

    def _schedule_threadsafe(self) -> None:
        loop = self._loop
        if loop is not None and not self._closed and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(self._schedule)

    def _schedule(self) -> None:
        if self._closed:
            return
        if self._task is not None and not self._task.done():
            self._again = True  # one more pass when this one ends
            return
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"{self.name}-change-listener")

    async def _run(self) -> None:
        while True:
            self._again = False
            try:
                await self._process()
            except Exception as exc:  # ZooKeeper away: the reconnection schedules a new pass
                log.warning("cannot process %s change notifications: %s", self.name, exc)
            if not self._again or self._closed:
                return

    # ------------------------------------------------------------------ processing

    async def _process(self) -> None:
        assert self._loop is not None
        read = await self._loop.run_in_executor(None, self._read_new_changes, self.last_executed_change)
        if read is None:
            return
        last, changes = read
        if not self._closed:
            self.handler.apply_changes(changes)
        self.last_executed_change = max(self.last_executed_change, last)

    def _sequence(self, child: str) -> int:
        try:
            return int(child.removeprefix(self.prefix))
        except ValueError:
            return -1

    def _read_new_changes(self, last: int) -> tuple[int, Changes] | None:
        """Blocking: the handler's reading of the notifications after ``last`` with the newest
        sequence among them (None when there are none); re-arms the watch and purges expired
        notifications (every child is read once per pass, for both)."""
        children = get_children(self.zk, self.root, watch=self._on_watch)
        notes = dict(zip(children, get_many(self.zk, [f"{self.root}/{c}" for c in children]), strict=True))
        pending = sorted((s, c) for c in children if (s := self._sequence(c)) > last)
        read = None
        if pending:
            found = [(child, note[0]) for _, child in pending if (note := notes[child]) is not None]
            read = pending[-1][0], self.handler.read_changes(found)
        self._purge_obsolete(notes)
        return read

    def _purge_obsolete(self, notes: dict[str, tuple[bytes, Any] | None]) -> None:
        """Blocking: Kafka's ``purgeObsoleteNotifications``, over every child on each pass,
        also one with nothing new (those processed in earlier passes too, or the root grows
        for as long as the broker runs): a notification older than ``change_expiration_ms``
        is deleted."""
        horizon = self.time_ms() - self.change_expiration_ms
        for child, note in notes.items():
            if note is not None and note[1].ctime < horizon:
                with contextlib.suppress(NoNodeError):
                    self.zk._client().delete(f"{self.root}/{child}")
