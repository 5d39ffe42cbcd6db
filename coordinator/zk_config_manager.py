"""Config changes made through any broker, applied by every broker (ZooKeeper mode).

Kafka's ``ZkConfigManager`` (``DynamicConfigManager``) with its
``ZkNodeChangeNotificationListener``: whoever changes an entity's config
(``AdminZkClient.changeTopicConfig`` / ``changeBrokerConfig``) writes
``/config/<type>/<name>`` and then a sequential ``/config/changes/config_change_NNNNNNNNNN``
notification naming the entity (``{"version":2,"entity_path":"topics/t"}``; version 1's
``entity_type``/``entity_name`` are read too). Every broker watches the children of
``/config/changes`` and, in sequence order, for each notification newer than the last it
processed, re-reads the entity's config and hands it to the handler of its type (topics:
the logs this broker hosts; brokers: the dynamic broker configs). Notifications older than
``change_expiration_ms`` (Kafka: 15 minutes) are deleted after processing.

At start every existing entity of a handled type is handed to its handler (Kafka's
``DynamicConfigManager.startup``), so a change made while this broker was down is not
missed; then every pending notification is processed once. After a reconnection the
children are read (and watched) again. ZooKeeper reads run off the event loop; handlers run
on it, one change at a time, in order.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from kazoo.exceptions import NoNodeError

from coordinator import zk_data as zd
from coordinator.zookeeper import ZooKeeperClient, get_children, get_many

log = logging.getLogger(__name__)

CHANGE_EXPIRATION_MS = 15 * 60 * 1000  # ZkConfigManager's changeExpirationMs


class ConfigChangeHandler(Protocol):
    """Kafka's ``ConfigHandler``: applies the new config of one entity (called on the loop)."""

    def process_config_changes(self, entity_name: str, config: Mapping[str, str]) -> None: ...


def parse_notification(data: bytes) -> tuple[str, str] | None:
    """(entity type, entity name) of a change notification, version 1 or 2; None if unreadable."""
    try:
        obj = json.loads(data)
    except ValueError:
        return None
    if not isinstance(obj, dict):
        return None
    if obj.get("version") == 2 and isinstance(obj.get("entity_path"), str):
        entity_type, sep, name = obj["entity_path"].partition("/")
        return (entity_type, name) if sep and name else None
    if obj.get("version") == 1 and isinstance(obj.get("entity_type"), str):
        return obj["entity_type"], str(obj.get("entity_name"))
    return None


def _sequence(child: str) -> int:
    try:
        return int(child.removeprefix(zd.CONFIG_CHANGE_PREFIX))
    except ValueError:
        return -1


class ZkConfigManager:
    """Watches ``/config/changes`` and hands each changed entity's config to its handler."""

    def __init__(
        self,
        zk: ZooKeeperClient,
        handlers: Mapping[str, ConfigChangeHandler],
        *,
        time_ms: Callable[[], int],
        change_expiration_ms: int = CHANGE_EXPIRATION_MS,
    ) -> None:
        self.zk = zk
        self.handlers = dict(handlers)
        self.time_ms = time_ms
        self.change_expiration_ms = change_expiration_ms
        self.last_executed_change = -1
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task | None = None
        self._again = False
        self._closed = False

    async def start(self) -> None:
        """Apply every stored config of the handled types, then the pending notifications."""
        self._loop = asyncio.get_running_loop()
        self.zk.add_connection_listener(self._on_reconnect)
        stored = await self._loop.run_in_executor(None, self._read_all_entities)
        for entity_type, name, config in stored:
            self._apply(entity_type, name, config)
        await self._process()

    async def stop(self) -> None:
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

    def _on_reconnect(self) -> None:
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
        self._task = asyncio.get_running_loop().create_task(self._run(), name="config-change-listener")

    async def _run(self) -> None:
        while True:
            self._again = False
            try:
                await self._process()
            except Exception as exc:  # ZooKeeper away: the reconnection schedules a new pass
                log.warning("cannot process config change notifications: %s", exc)
            if not self._again or self._closed:
                return

    # ------------------------------------------------------------------ processing

    async def _process(self) -> None:
        assert self._loop is not None
        changes = await self._loop.run_in_executor(None, self._read_new_changes, self.last_executed_change)
        for sequence, entity in changes:
            if entity is not None:
                self._apply(*entity)
            self.last_executed_change = max(self.last_executed_change, sequence)

    def _apply(self, entity_type: str, name: str, config: Mapping[str, str]) -> None:
        handler = self.handlers.get(entity_type)
        if handler is None:
            return
        try:
            handler.process_config_changes(name, config)
        except Exception:
            log.exception("cannot apply the config change of %s/%s", entity_type, name)

    def _read_all_entities(self) -> list[tuple[str, str, dict[str, str]]]:
        """Blocking: every ``/config/<type>/<name>`` of the handled types."""
        out = []
        for entity_type in sorted(self.handlers):
            names = sorted(get_children(self.zk, f"{zd.CONFIG_PATH}/{entity_type}"))
            found = get_many(self.zk, [zd.config_entity_path(entity_type, n) for n in names])
            for name, node in zip(names, found, strict=True):
                if node is not None:
                    out.append((entity_type, name, zd.decode_config(node[0])))
        return out

    def _read_new_changes(self, last: int) -> list[tuple[int, tuple[str, str, dict[str, str]] | None]]:
        """Blocking: the notifications after ``last`` in sequence order, each with its entity's
        current config (None when unreadable or for a type without handler); re-arms the
        watch and purges expired notifications (``purgeObsoleteNotifications``)."""
        children = get_children(self.zk, zd.CONFIG_CHANGES_PATH, watch=self._on_watch)
        pending = sorted((s, c) for c in children if (s := _sequence(c)) > last)
        paths = [f"{zd.CONFIG_CHANGES_PATH}/{c}" for _, c in pending]
        notes = get_many(self.zk, paths)
        entities: list[tuple[int, tuple[str, str] | None]] = []
        for (sequence, _), note in zip(pending, notes, strict=True):
            parsed = parse_notification(note[0]) if note is not None else None
            if parsed is not None and parsed[0] not in self.handlers:
                parsed = None
            entities.append((sequence, parsed))
        wanted = [e for _, e in entities if e is not None]
        configs = get_many(self.zk, [zd.config_entity_path(t, n) for t, n in wanted])
        by_entity = {
            e: zd.decode_config(found[0]) if found is not None else {}
            for e, found in zip(wanted, configs, strict=True)
        }
        out: list[tuple[int, tuple[str, str, dict[str, str]] | None]] = []
        for sequence, entity in entities:
            out.append((sequence, (entity[0], entity[1], by_entity[entity]) if entity is not None else None))
        self._purge(pending, notes)
        return out

    def _purge(self, pending: list[tuple[int, str]], notes: list[tuple[bytes, Any] | None]) -> None:
        horizon = self.time_ms() - self.change_expiration_ms
        for (_, child), note in zip(pending, notes, strict=True):
            if note is not None and note[1].ctime < horizon:
                with contextlib.suppress(NoNodeError):
                    self.zk._client().delete(f"{zd.CONFIG_CHANGES_PATH}/{child}")
