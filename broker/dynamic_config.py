"""Dynamic broker configs and the config change handlers (Kafka's ``DynamicBrokerConfig``,
``BrokerConfigHandler``, ``TopicConfigHandler``).

The broker configs Kafka lets change without a restart (``broker.config.DYNAMIC_BROKER_CONFIGS``)
are kept at two levels above server.properties: the cluster-wide default and this broker's
own (a per-broker value wins). Where they are stored:

- ZooKeeper mode: ``/config/brokers/<default>`` and ``/config/brokers/<id>``
  (``{"version":1,"config":{...}}``, values as strings), written with a change notification
  so every broker's config change listener (``coordinator.zk_config_manager``) applies it;
- a lone broker: ``dynamic-broker-configs.json`` in the first log dir, next to
  ``topic-config-overrides.json``: ``{"version": 1, "brokers": {"<default>": {...},
  "<id>": {...}}}`` (values as strings), written atomically.

They are read at start before any log is loaded into a partition (so the topic defaults
include them), and applied live on every change (``reconfigure``): the log manager's topic
defaults (``LogManager.reconfigureDefaultLogConfig``: every log without an override takes
the new value), the connection limits (``DynamicConnectionQuota``: ``max.connections``,
``max.connections.per.ip`` and its overrides, whose host names are resolved again; the
connections already open stay) and the log cleaner (``LogCleaner.reconfigure``: the
``log.cleaner.*`` keys of ``broker.config.CLEANER_DYNAMIC_CONFIGS``; the throttle takes
the new rate at once, the cleaner threads restart with the rest).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from broker.config import BrokerConfig, check_dynamic_configs, parse_connection_overrides
from coordinator.zk_admin import AdminZkClient
from coordinator.zk_partition_state_machine import UNCLEAN_CONFIG
from storage.config_def import ConfigError
from storage.durable_io import atomic_write
from storage.log_cleaner_manager import CleanerConfig
from storage.log_config import parse_stored_topic_overrides

if TYPE_CHECKING:
    from broker.listener import KafkaServer
    from coordinator.zk_controller import KafkaController
    from storage.log_manager import LogManager

log = logging.getLogger(__name__)

DEFAULT_ENTITY = "<default>"  # ZooKeeperInternals.DEFAULT_STRING: the cluster-wide entity
DYNAMIC_CONFIGS_FILE = "dynamic-broker-configs.json"
DYNAMIC_CONFIGS_VERSION = 1


class DynamicConfigStore(Protocol):
    """Where the dynamic broker configs live (blocking calls, run off the loop). ``shared``:
    other brokers write it too (ZooKeeper), so a change starts from what it stores."""

    shared: bool

    def read(self, entity: str) -> dict[str, str]: ...

    def write(self, entity: str, config: Mapping[str, str]) -> None: ...


class FileDynamicConfigStore:
    """A lone broker: ``dynamic-broker-configs.json`` in the first log dir."""

    shared = False  # written by this broker only: what it applied is what it stores

    def __init__(self, path: Path) -> None:
        self.path = path

    def _read_all(self) -> dict[str, dict[str, str]]:
        """Raises OSError or ValueError (not JSON, or not this layout)."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        brokers = data.get("brokers") if isinstance(data, dict) else None
        if (
            not isinstance(data, dict)
            or data.get("version") != DYNAMIC_CONFIGS_VERSION
            or not isinstance(brokers, dict)
            or not all(isinstance(c, dict) for c in brokers.values())
        ):
            raise ValueError("unsupported content")
        return {str(k): {str(n): str(v) for n, v in c.items()} for k, c in brokers.items()}

    def read(self, entity: str) -> dict[str, str]:
        """At start: an unreadable file stops the broker with a one-line reason."""
        try:
            return self._read_all().get(entity, {})
        except (OSError, ValueError) as exc:
            raise ConfigError(f"cannot read {self.path}: {exc}; restore or delete it") from None

    def write(self, entity: str, config: Mapping[str, str]) -> None:
        brokers = self._read_all()
        if config:
            brokers[entity] = dict(config)
        else:
            brokers.pop(entity, None)
        data = {"version": DYNAMIC_CONFIGS_VERSION, "brokers": brokers}
        atomic_write(self.path, json.dumps(data, indent=2, sort_keys=True).encode() + b"\n")


class ZkDynamicConfigStore:
    """ZooKeeper mode: ``/config/brokers/<entity>`` with a change notification."""

    shared = True

    def __init__(self, admin: AdminZkClient) -> None:
        self.admin = admin

    def read(self, entity: str) -> dict[str, str]:
        return self.admin.entity_config("brokers", entity)

    def write(self, entity: str, config: Mapping[str, str]) -> None:
        self.admin.change_broker_config_blocking(entity, config)


def _parse_stored(entity: str, raw: Mapping[str, str], per_broker: bool) -> dict[str, Any]:
    """Stored values that cannot be used (another version's, hand edits) are skipped with a
    warning rather than stopping the broker (Kafka logs and ignores them too)."""
    out: dict[str, Any] = {}
    for name, value in raw.items():
        try:
            out.update(check_dynamic_configs({name: value}, per_broker=per_broker))
        except ConfigError as exc:
            log.warning("ignoring dynamic broker config %s of %s: %s", name, entity, exc)
    return out


class DynamicBrokerConfig:
    """This broker's dynamic configs: loaded at start, changed by the admin APIs (or, in
    ZooKeeper mode, by any broker through the change listener), applied live."""

    def __init__(self, config: BrokerConfig, broker_id: int, store: DynamicConfigStore) -> None:
        self.config = config
        self.broker_id = broker_id
        self.store = store
        self.raw: dict[str, dict[str, str]] = {DEFAULT_ENTITY: {}, str(broker_id): {}}
        self._log_manager: LogManager | None = None
        self._server: KafkaServer | None = None
        self._lock = asyncio.Lock()
        self._cleaner_config: CleanerConfig | None = None  # what the cleaner last took
        self._connection_overrides: dict[str, int] | None = None  # what the quotas last took
        self._resolving: asyncio.Task | None = None

    def entity(self, resource_name: str) -> str:
        """The stored entity of a broker resource name ("" is the cluster default)."""
        return DEFAULT_ENTITY if resource_name == "" else resource_name

    def load(self) -> None:
        """Blocking: read both levels and set them on the config (before the logs use it)."""
        for entity in (DEFAULT_ENTITY, str(self.broker_id)):
            self.raw[entity] = dict(self.store.read(entity))
        self._set_layers()

    def attach(self, log_manager: LogManager, server: KafkaServer) -> None:
        """The components a change reconfigures (built after ``load``)."""
        self._log_manager = log_manager
        self._server = server
        self.reconfigure()

    def _set_layers(self) -> None:
        self.config.set_dynamic(
            _parse_stored(DEFAULT_ENTITY, self.raw[DEFAULT_ENTITY], per_broker=False),
            _parse_stored(str(self.broker_id), self.raw[str(self.broker_id)], per_broker=True),
        )

    def current(self, resource_name: str) -> dict[str, str]:
        return dict(self.raw.get(self.entity(resource_name), {}))

    async def alter(
        self,
        resource_name: str,
        change: Callable[[dict[str, str]], dict[str, str]],
        *,
        validate_only: bool,
    ) -> None:
        """Replace one level's configs (``resource_name`` "" or this broker's id) with
        ``change(stored)``; raises ConfigError for what Kafka refuses (KafkaError from
        ``change``). Persisted, then applied here (in ZooKeeper mode every broker's listener
        applies it too). One change at a time: a read-modify-write of the stored set."""
        async with self._lock:
            entity = self.entity(resource_name)
            per_broker = resource_name != ""
            # ZkAdminManager starts from the stored set (``fetchEntityConfig``), not from what
            # this broker has applied: a change made through another broker may not have
            # reached this one's listener yet, and would be written away.
            loop = asyncio.get_running_loop()
            if self.store.shared:
                stored = await loop.run_in_executor(None, self.store.read, entity)
            else:
                stored = self.current(resource_name)
            config = change(dict(stored))
            # Only what the request sets is refused when Moldau cannot change it; a stored
            # key it does not apply (e.g. Kafka's dynamic ``num.io.threads``, written by
            # Kafka's own tools) is kept as it is and goes on being ignored (``_parse_stored``).
            changed = {name: value for name, value in config.items() if stored.get(name) != value}
            parsed = check_dynamic_configs(changed, per_broker=per_broker)
            kept = {name: value for name, value in config.items() if name not in changed}
            parsed = {**_parse_stored(entity, kept, per_broker=per_broker), **parsed}
            self._validate(entity, parsed)
            if validate_only:
                return
            await loop.run_in_executor(None, self.store.write, entity, dict(config))
            self.process_config_changes(entity, config)

    def _effective(self, name: str, entity: str, parsed: Mapping[str, Any]) -> Any:
        """``name``'s value once ``entity``'s level holds ``parsed`` (the other level as is)."""
        me = str(self.broker_id)
        broker = parsed if entity == me else self.config.dynamic_broker
        default = parsed if entity == DEFAULT_ENTITY else self.config.dynamic_default
        if name in broker:
            return broker[name]
        if name in default:
            return default[name]
        return self.config.static_values[name]

    def _validate(self, entity: str, parsed: Mapping[str, Any]) -> None:
        """What ``DynamicBrokerConfig.validate`` checks of the new config beyond each value."""
        per_ip = self._effective("max.connections.per.ip", entity, parsed)
        overrides = parse_connection_overrides(
            self._effective("max.connections.per.ip.overrides", entity, parsed)
        )
        if per_ip == 0 and not overrides:
            # KafkaConfig's check, run on the new config.
            raise ConfigError(
                "max.connections.per.ip can be set to zero only if max.connections.per.ip.overrides property is set"
            )
        if self.config["log.cleaner.enable"] and "log.cleaner.threads" in parsed:
            # LogCleaner.validateReconfiguration (only a running cleaner is reconfigurable)
            threads = self._effective("log.cleaner.threads", entity, parsed)
            current = self.config["log.cleaner.threads"]
            if threads < 1:
                raise ConfigError("Log cleaner threads should be at least 1")
            if threads < current // 2:
                raise ConfigError(
                    f"Log cleaner threads cannot be reduced to less than half the current value {current}"
                )
            if threads > current * 2:
                raise ConfigError(
                    f"Log cleaner threads cannot be increased to more than double the current value {current}"
                )

    def process_config_changes(self, entity_name: str, config: Mapping[str, str]) -> None:
        """``BrokerConfigHandler``: the cluster default or this broker's configs changed."""
        if entity_name not in (DEFAULT_ENTITY, str(self.broker_id)):
            return  # another broker's
        if self.raw.get(entity_name) == dict(config):
            return
        self.raw[entity_name] = dict(config)
        self._set_layers()
        log.info("dynamic broker configs of %s are now %s", entity_name, dict(config))
        self.reconfigure()

    def reconfigure(self) -> None:
        """Push the effective values to the components that use them."""
        cfg = self.config
        if self._log_manager is not None:
            self._log_manager.set_topic_defaults(cfg.topic_defaults())
            cleaner_config = CleanerConfig.from_broker_values(cfg.values)
            if self._cleaner_config is None:
                self._cleaner_config = cleaner_config  # the one the cleaner was built with
            elif cleaner_config != self._cleaner_config:
                self._cleaner_config = cleaner_config
                log.info("reconfiguring the log cleaner: %s", cleaner_config)
                self._log_manager.cleaner.reconfigure(cleaner_config)
        server = self._server
        if server is not None:
            server.quotas.max_connections = cfg["max.connections"]
            server.quotas.max_per_ip = cfg["max.connections.per.ip"]
            server.connection_limits_changed()
            overrides = dict(cfg.max_connections_per_ip_overrides)
            if self._connection_overrides is None:
                self._connection_overrides = overrides  # resolved by the server at start
            elif overrides != self._connection_overrides:
                self._connection_overrides = overrides
                self._resolve_overrides(server, overrides)

    def _resolve_overrides(self, server: KafkaServer, overrides: dict[str, int]) -> None:
        """``updateMaxConnectionsPerIpOverride``: the host names resolved in a task (changes
        applied in order: a newer one waits for the one before)."""
        previous = self._resolving

        async def resolve() -> None:
            if previous is not None:
                with contextlib.suppress(Exception, asyncio.CancelledError):
                    await previous
            try:
                await server.quotas.update_overrides(overrides, asyncio.get_running_loop())
            except OSError as exc:
                log.error("max.connections.per.ip.overrides: cannot resolve %s: %s", overrides, exc)

        self._resolving = asyncio.get_running_loop().create_task(resolve())


class TopicConfigHandler:
    """``TopicConfigHandler`` (ZooKeeper mode): a topic's overrides changed in
    ``/config/topics/<t>``; the logs this broker hosts take them at once, and when the topic
    allows unclean leader election the controller (if active here) elects for its partitions
    without a leader."""

    def __init__(self, log_manager: LogManager, controller: KafkaController) -> None:
        self.log_manager = log_manager
        self.controller = controller

    def process_config_changes(self, entity_name: str, config: Mapping[str, str]) -> None:
        # Kafka's processConfigChanges: Try(...toBoolean).getOrElse(false), on every broker.
        if config.get(UNCLEAN_CONFIG, "").strip().lower() == "true":
            self.controller.enable_topic_unclean_leader_election(entity_name)
        self.log_manager.topic_config_updated(entity_name)  # a log being made reads it again
        overrides = parse_stored_topic_overrides(entity_name, config)
        current = self.log_manager.topic_overrides(entity_name)
        if current is None or current == overrides:
            return  # not hosted here (a log created later reads /config/topics), or unchanged
        self.log_manager.set_topic_overrides(entity_name, overrides)
