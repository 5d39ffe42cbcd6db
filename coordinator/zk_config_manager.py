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
``change_expiration_ms`` (Kafka: 15 minutes) are deleted after processing. The watching is
the shared ``coordinator/zk_change_notifications.py``.

At start every existing entity of a handled type is handed to its handler (Kafka's
``DynamicConfigManager.startup``), so a change made while this broker was down is not
missed; then every pending notification is processed once. After a reconnection the
children are read (and watched) again. ZooKeeper reads run off the event loop; handlers run
on it, one change at a time, in order.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Mapping
from typing import Protocol

from coordinator import zk_data as zd
from coordinator.zk_change_notifications import CHANGE_EXPIRATION_MS, ZkChangeNotificationListener
from coordinator.zookeeper import ZooKeeperClient, get_children, get_many

log = logging.getLogger(__name__)

__all__ = ["CHANGE_EXPIRATION_MS", "ConfigChangeHandler", "ZkConfigManager", "parse_notification"]

EntityConfig = tuple[str, str, dict[str, str]]  # (entity type, name, config)


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
        self._listener = ZkChangeNotificationListener(
            zk,
            zd.CONFIG_CHANGES_PATH,
            zd.CONFIG_CHANGE_PREFIX,
            self,
            time_ms=time_ms,
            change_expiration_ms=change_expiration_ms,
            name="config",
        )

    async def start(self) -> None:
        """Apply every stored config of the handled types, then the pending notifications."""
        stored = await asyncio.get_running_loop().run_in_executor(None, self._read_all_entities)
        self.apply_changes(stored)
        await self._listener.start()

    async def stop(self) -> None:
        await self._listener.close()

    # ------------------------------------------------------------------ NotificationHandler

    def read_changes(self, notifications: list[tuple[str, bytes]]) -> list[EntityConfig]:
        """Blocking: the entities the notifications name, in order, with their current config
        (unreadable notifications and types without handler are passed over)."""
        wanted = []
        for _, data in notifications:
            parsed = parse_notification(data)
            if parsed is not None and parsed[0] in self.handlers:
                wanted.append(parsed)
        configs = get_many(self.zk, [zd.config_entity_path(t, n) for t, n in wanted])
        return [
            (t, n, zd.decode_config(found[0]) if found is not None else {})
            for (t, n), found in zip(wanted, configs, strict=True)
        ]

    def apply_changes(self, changes: list[EntityConfig]) -> None:
        for entity_type, name, config in changes:
            handler = self.handlers.get(entity_type)
            if handler is None:
                continue
            try:
                handler.process_config_changes(name, config)
            except Exception:
                log.exception("cannot apply the config change of %s/%s", entity_type, name)

    def _read_all_entities(self) -> list[EntityConfig]:
        """Blocking: every ``/config/<type>/<name>`` of the handled types."""
        out = []
        for entity_type in sorted(self.handlers):
            names = sorted(get_children(self.zk, f"{zd.CONFIG_PATH}/{entity_type}"))
            found = get_many(self.zk, [zd.config_entity_path(entity_type, n) for n in names])
            for name, node in zip(names, found, strict=True):
                if node is not None:
                    out.append((entity_type, name, zd.decode_config(node[0])))
        return out
