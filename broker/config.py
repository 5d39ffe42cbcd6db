"""Broker configuration: Kafka's property names and defaults.

Read from a ``server.properties`` file (Java properties syntax) and overridden
by ``--override key=value`` exactly like ``kafka-server-start.sh``. Unknown
keys are warned about; Kafka keys that Moldau accepts but does not act on are
logged once at INFO; a bad value is refused with a one-line ``ConfigError``
before the broker listens.

The ``log.*`` properties (and ``message.max.bytes``, ...) are the defaults of
the per-topic configs; their definitions come from ``storage.log_config``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from broker.replica_selector import REPLICA_SELECTOR_CLASSES
from broker.security.config_keys import DEFAULT_PROTOCOL_MAP, SECURITY_KEYS, SECURITY_PROTOCOLS
from storage.config_def import (
    LONG_MAX,
    ConfigError,
    ConfigKey,
    ConfigSource,
    ConfigType,
    at_least,
    between,
    one_of,
)
from storage.log_cleaner_manager import CLEANER_BROKER_KEYS
from storage.log_config import TOPIC_CONFIGS, broker_default_keys, resolve_topic_defaults

log = logging.getLogger(__name__)

# Moldau's default for queued.max.request.bytes (Kafka's is -1, unbounded): see
# docs/COMPATIBILITY.md. Raised to socket.request.max.bytes when that is larger.
DEFAULT_QUEUED_MAX_REQUEST_BYTES = 512 * 1024 * 1024

# Moldau's partition limits (Kafka has none; see docs/COMPATIBILITY.md): each partition
# costs an open segment and index (3 fds, 2 preallocated index files) and memory.
DEFAULT_MAX_PARTITIONS = 100_000
DEFAULT_MAX_PARTITIONS_PER_REQUEST = 10_000


def _k(
    name: str, ctype: ConfigType, default: Any, doc: str, validator: Any = None, sensitive: bool = False
) -> ConfigKey:
    return ConfigKey(name, ctype, default, doc, validator, sensitive)


BROKER_KEYS: dict[str, ConfigKey] = {
    k.name: k
    for k in [
        # --- server basics (KafkaConfig / ServerConfigs)
        _k(
            "broker.id",
            ConfigType.INT,
            -1,
            "The broker id; -1 takes the id in meta.properties, else 0",
            at_least(-1),
        ),
        _k(
            "cluster.id",
            ConfigType.STRING,
            None,
            "Moldau: cluster id to write into a new meta.properties (random if unset)",
        ),
        _k(
            "listeners",
            ConfigType.LIST,
            ["PLAINTEXT://127.0.0.1:9092"],
            "Listeners to bind (Moldau default: loopback)",
        ),
        _k(
            "advertised.listeners", ConfigType.LIST, None, "Listeners given to clients; defaults to listeners"
        ),
        _k(
            "listener.security.protocol.map",
            ConfigType.STRING,
            DEFAULT_PROTOCOL_MAP,
            "Listener name to security protocol (PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL)",
        ),
        _k("inter.broker.listener.name", ConfigType.STRING, None, "Listener used between brokers"),
        _k("broker.rack", ConfigType.STRING, None, "Rack of the broker"),
        _k("log.dirs", ConfigType.LIST, None, "Directories of the partition logs (overrides log.dir)"),
        _k("log.dir", ConfigType.STRING, "./data", "Directory of the partition logs (Moldau default ./data)"),
        _k("num.partitions", ConfigType.INT, 1, "Default partition count of new topics", at_least(1)),
        _k(
            "default.replication.factor",
            ConfigType.INT,
            1,
            "Default replication factor of new topics",
            at_least(1),
        ),
        _k(
            "auto.create.topics.enable",
            ConfigType.BOOLEAN,
            True,
            "Create topics on Metadata requests that allow it",
        ),
        _k("delete.topic.enable", ConfigType.BOOLEAN, True, "Allow DeleteTopics"),
        # KIP-578 (proposed, not in Kafka): the partitions this broker hosts, in all.
        _k(
            "max.partitions",
            ConfigType.INT,
            DEFAULT_MAX_PARTITIONS,
            "Moldau (KIP-578's name): partitions the broker hosts in all, existing and being"
            " created; a creation past it fails with POLICY_VIOLATION",
            at_least(1),
        ),
        _k(
            "max.partitions.per.request",
            ConfigType.INT,
            DEFAULT_MAX_PARTITIONS_PER_REQUEST,
            "Moldau: partitions one CreateTopics or CreatePartitions request may create; a request"
            " asking more fails with POLICY_VIOLATION for each of its topics",
            at_least(1),
        ),
        _k(
            "socket.request.max.bytes",
            ConfigType.INT,
            104_857_600,
            "Largest request frame accepted",
            at_least(1),
        ),
        _k("socket.send.buffer.bytes", ConfigType.INT, 102_400, "SO_SNDBUF (-1: OS default)"),
        _k("socket.receive.buffer.bytes", ConfigType.INT, 102_400, "SO_RCVBUF (-1: OS default)"),
        _k(
            "connections.max.idle.ms",
            ConfigType.LONG,
            600_000,
            "Close a connection that has sent and received nothing for this long (negative: never)",
        ),
        _k(
            "max.connections",
            ConfigType.INT,
            2_147_483_647,
            "Connections allowed in the broker at any time; over it, new connections wait in the"
            " listen backlog until one closes (the inter-broker listener, when it is one of several,"
            " is exempt and closes the least recently active connection of another listener instead)",
            at_least(0),
        ),
        _k(
            "max.connections.per.ip",
            ConfigType.INT,
            2_147_483_647,
            "Connections allowed from one IP address; a new connection over it is closed at once."
            " 0 only with max.connections.per.ip.overrides",
            at_least(0),
        ),
        _k(
            "max.connections.per.ip.overrides",
            ConfigType.STRING,
            "",
            'Per-IP or hostname overrides of max.connections.per.ip, e.g. "hostName:100,127.0.0.1:200"',
        ),
        _k(
            "queued.max.request.bytes",
            ConfigType.LONG,
            DEFAULT_QUEUED_MAX_REQUEST_BYTES,
            "Bytes of requests being read or queued, across all connections, before no more requests"
            " are read (-1: unbounded). Moldau default 512 MiB, or socket.request.max.bytes if larger"
            " (Kafka: -1)",
        ),
        _k("request.timeout.ms", ConfigType.INT, 30_000, "Upper bound for internal requests", at_least(0)),
        _k(
            "shutdown.timeout.ms",
            ConfigType.LONG,
            30_000,
            "Moldau: time allowed for a graceful shutdown",
            at_least(0),
        ),
        # --- metrics (Moldau's keys: Kafka exposes JMX, scraped through the JMX exporter)
        _k(
            "metrics.prometheus.port",
            ConfigType.INT,
            -1,
            "Moldau: port of the Prometheus endpoint (http://host:port/metrics); -1: off, 0: any free port",
            between(-1, 65535),
        ),
        _k(
            "metrics.prometheus.host",
            ConfigType.STRING,
            "127.0.0.1",
            "Moldau: address the Prometheus endpoint binds (0.0.0.0: every interface)",
        ),
        # --- ZooKeeper
        _k(
            "zookeeper.connect",
            ConfigType.STRING,
            None,
            "ZooKeeper connect string host:port[,host:port][/chroot]",
        ),
        _k(
            "zookeeper.connection.timeout.ms", ConfigType.INT, None, "Time to wait for a ZooKeeper connection"
        ),
        _k("zookeeper.session.timeout.ms", ConfigType.INT, 18_000, "ZooKeeper session timeout", at_least(1)),
        # --- cluster (ZooKeeper mode; KafkaConfig's names and defaults)
        _k(
            "auto.leader.rebalance.enable",
            ConfigType.BOOLEAN,
            True,
            "The controller moves leadership back to preferred replicas when imbalanced",
        ),
        _k(
            "leader.imbalance.check.interval.seconds",
            ConfigType.LONG,
            300,
            "Period of the controller's leader imbalance check",
            at_least(1),
        ),
        _k(
            "leader.imbalance.per.broker.percentage",
            ConfigType.INT,
            10,
            "Share of a broker's partitions not led by it that triggers a rebalance",
            at_least(0),
        ),
        _k(
            "controlled.shutdown.enable",
            ConfigType.BOOLEAN,
            True,
            "On SIGTERM, ask the controller to move leadership away before stopping",
        ),
        _k(
            "controlled.shutdown.max.retries",
            ConfigType.INT,
            3,
            "Controlled shutdown attempts before an unclean shutdown",
            at_least(1),
        ),
        _k(
            "controlled.shutdown.retry.backoff.ms",
            ConfigType.LONG,
            5000,
            "Wait between controlled shutdown attempts",
            at_least(0),
        ),
        # --- log manager (broker-only keys; per-topic defaults are added below)
        _k(
            "log.retention.check.interval.ms", ConfigType.LONG, 300_000, "Retention check period", at_least(1)
        ),
        _k("log.flush.scheduler.interval.ms", ConfigType.LONG, LONG_MAX, "Flush check period", at_least(1)),
        _k(
            "log.flush.offset.checkpoint.interval.ms",
            ConfigType.INT,
            60_000,
            "Recovery point checkpoint period",
            at_least(0),
        ),
        _k(
            "log.flush.start.offset.checkpoint.interval.ms",
            ConfigType.INT,
            60_000,
            "Log start checkpoint period",
            at_least(0),
        ),
        _k(
            "replica.high.watermark.checkpoint.interval.ms",
            ConfigType.LONG,
            5_000,
            "High watermark checkpoint period",
            at_least(1),
        ),
        _k(
            "num.recovery.threads.per.data.dir",
            ConfigType.INT,
            2,
            "Threads that recover logs at startup",
            at_least(1),
        ),
        # --- producer state (TransactionLogConfig / ProducerStateManagerConfig)
        _k(
            "producer.id.expiration.ms",
            ConfigType.INT,
            86_400_000,
            "Forget idle producers after this long (KIP-854)",
            at_least(1),
        ),
        _k(
            "producer.id.expiration.check.interval.ms",
            ConfigType.INT,
            600_000,
            "Producer expiry check period",
            at_least(1),
        ),
        _k(
            "producer.state.batch.window",
            ConfigType.INT,
            5,
            "Moldau: batches cached per producer and partition for duplicate detection (Kafka: 5)",
            between(1, 1000),
        ),
        _k(
            "producer.state.duplicate.sequence.error",
            ConfigType.BOOLEAN,
            True,
            "Moldau: answer DUPLICATE_SEQUENCE_NUMBER for a retry older than the cached window",
        ),
        _k(
            "producer.id.block.size",
            ConfigType.INT,
            1000,
            "Moldau: ids per leased producer-id block (Kafka: 1000)",
            at_least(1),
        ),
        _k(
            "transactional.id.expiration.ms",
            ConfigType.INT,
            604_800_000,
            "Transactional id expiry",
            at_least(1),
        ),
        _k("transaction.max.timeout.ms", ConfigType.INT, 900_000, "Largest transaction timeout", at_least(1)),
        # --- the transaction coordinator (TransactionStateManagerConfig, TransactionLogConfig)
        _k(
            "transaction.state.log.num.partitions",
            ConfigType.INT,
            50,
            "Partitions of __transaction_state",
            at_least(1),
        ),
        _k(
            "transaction.state.log.replication.factor",
            ConfigType.SHORT,
            3,
            "Replication of __transaction_state (capped at the brokers there are)",
            at_least(1),
        ),
        _k(
            "transaction.state.log.min.isr",
            ConfigType.INT,
            2,
            "min.insync.replicas of __transaction_state (capped at its replication)",
            at_least(1),
        ),
        _k(
            "transaction.state.log.segment.bytes",
            ConfigType.INT,
            104_857_600,
            "Segment size of __transaction_state",
            at_least(1),
        ),
        _k(
            "transaction.abort.timed.out.transaction.cleanup.interval.ms",
            ConfigType.INT,
            10_000,
            "How often transactions past their timeout are aborted",
            at_least(1),
        ),
        _k(
            "transaction.remove.expired.transaction.cleanup.interval.ms",
            ConfigType.INT,
            3_600_000,
            "How often expired transactional ids are removed",
            at_least(1),
        ),
        _k(
            "transaction.partition.verification.enable",
            ConfigType.BOOLEAN,
            True,
            "Verify with the transaction coordinator that a partition is in the transaction before "
            "its first transactional batch is appended (KIP-890)",
        ),
        # --- groups and offsets (GroupCoordinatorConfig)
        _k(
            "offsets.topic.num.partitions",
            ConfigType.INT,
            50,
            "Partitions of __consumer_offsets",
            at_least(1),
        ),
        _k(
            "offsets.topic.replication.factor",
            ConfigType.SHORT,
            3,
            "Replication of __consumer_offsets",
            at_least(1),
        ),
        _k(
            "offsets.topic.segment.bytes",
            ConfigType.INT,
            104_857_600,
            "Segment size of __consumer_offsets",
            at_least(1),
        ),
        _k(
            "offsets.retention.minutes",
            ConfigType.INT,
            10_080,
            "Committed offsets of empty groups expire after this",
            at_least(1),
        ),
        _k(
            "offsets.retention.check.interval.ms",
            ConfigType.LONG,
            600_000,
            "Offset expiry check period",
            at_least(1),
        ),
        _k("offset.metadata.max.bytes", ConfigType.INT, 4096, "Largest commit metadata string", at_least(0)),
        _k(
            "offsets.commit.required.acks",
            ConfigType.SHORT,
            -1,
            "acks of the writes to __consumer_offsets (-1: every in-sync replica)",
            at_least(-1),
        ),
        _k(
            "offsets.commit.timeout.ms",
            ConfigType.INT,
            5000,
            "How long a write to __consumer_offsets waits for the in-sync replicas",
            at_least(1),
        ),
        _k(
            "group.initial.rebalance.delay.ms",
            ConfigType.INT,
            3_000,
            "Delay of the first rebalance of an empty group",
            at_least(0),
        ),
        _k(
            "group.min.session.timeout.ms",
            ConfigType.INT,
            6_000,
            "Smallest allowed session timeout",
            at_least(0),
        ),
        _k(
            "group.max.session.timeout.ms",
            ConfigType.INT,
            1_800_000,
            "Largest allowed session timeout",
            at_least(0),
        ),
        _k("group.max.size", ConfigType.INT, 2_147_483_647, "Members per group", at_least(1)),
        # --- replication (ReplicationConfigs)
        _k(
            "replica.lag.time.max.ms",
            ConfigType.LONG,
            30_000,
            "A follower not caught up for this long leaves the ISR",
            at_least(1),
        ),
        _k(
            "replica.fetch.max.bytes",
            ConfigType.INT,
            1_048_576,
            "Bytes a follower asks per partition",
            at_least(0),
        ),
        _k(
            "replica.fetch.response.max.bytes",
            ConfigType.INT,
            10_485_760,
            "Bytes a follower asks per fetch",
            at_least(0),
        ),
        _k(
            "replica.fetch.wait.max.ms",
            ConfigType.INT,
            500,
            "Longest wait of a follower's fetch",
            at_least(0),
        ),
        _k("replica.fetch.min.bytes", ConfigType.INT, 1, "Bytes a follower's fetch waits for", at_least(1)),
        _k(
            "replica.fetch.backoff.ms",
            ConfigType.INT,
            1_000,
            "Follower pause after a fetch error",
            at_least(0),
        ),
        _k(
            "replica.socket.timeout.ms", ConfigType.INT, 30_000, "Follower fetch request timeout", at_least(1)
        ),
        # QuotaConfig.brokerQuotaConfigs: dynamic broker configs (what
        # kafka-reassign-partitions --throttle sets). Accepted and stored; replication and log
        # dir moves are never throttled (docs/COMPATIBILITY.md).
        _k(
            "leader.replication.throttled.rate",
            ConfigType.LONG,
            LONG_MAX,
            "Replication throttle of this broker's leaders, bytes/s (accepted, not applied)",
            at_least(0),
        ),
        _k(
            "follower.replication.throttled.rate",
            ConfigType.LONG,
            LONG_MAX,
            "Replication throttle of this broker's followers, bytes/s (accepted, not applied)",
            at_least(0),
        ),
        _k(
            "replica.alter.log.dirs.io.max.bytes.per.second",
            ConfigType.LONG,
            LONG_MAX,
            "Throttle of replica moves between log dirs, bytes/s (accepted, not applied)",
            at_least(0),
        ),
        _k(
            "replica.selector.class",
            ConfigType.CLASS,
            None,
            "Where consumers read from (KIP-392): unset (the leader) or Kafka's RackAwareReplicaSelector",
            one_of(*REPLICA_SELECTOR_CLASSES),
        ),
        # --- authorization (AclAuthorizer; coordinator.acl_authorizer)
        _k(
            "authorizer.class.name",
            ConfigType.STRING,
            "",
            "Authorizer: empty (none, everything allowed) or Kafka's AclAuthorizer / StandardAuthorizer",
            one_of(
                "",
                "kafka.security.authorizer.AclAuthorizer",
                "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
            ),
        ),
        _k("super.users", ConfigType.STRING, "", "Principals allowed everything (User:a;User:b)"),
        _k(
            "allow.everyone.if.no.acl.found",
            ConfigType.BOOLEAN,
            False,
            "Allow an action on a resource that no ACL names",
        ),
        # --- fetch
        _k("fetch.max.bytes", ConfigType.INT, 57_671_680, "Largest fetch response (KIP-541)", at_least(0)),
        _k(
            "max.incremental.fetch.session.cache.slots",
            ConfigType.INT,
            1000,
            "Fetch sessions kept (KIP-227)",
            at_least(0),
        ),
    ]
}

# Listeners, TLS and SASL (broker/security).
BROKER_KEYS.update(SECURITY_KEYS)
# Log-related broker keys that supply per-topic defaults (log.segment.bytes, ...).
for _name, _key in broker_default_keys().items():
    BROKER_KEYS.setdefault(_name, _key)
# The log cleaner's own keys (log.cleaner.enable, .threads, .dedupe.buffer.size, ...).
for _name, _key in CLEANER_BROKER_KEYS.items():
    BROKER_KEYS.setdefault(_name, _key)

# The authorizer's keys (AclAuthorizer's, not KafkaConfig's): DescribeConfigs lists them only
# where set, with no value, as sensitive and of type UNKNOWN (ConfigHelper.createBrokerConfigEntry:
# KafkaConfig.configType is None, so maybeSensitive).
AUTHORIZER_KEYS: frozenset[str] = frozenset({"super.users", "allow.everyone.if.no.acl.found"})

# Keys Moldau parses as another type than Kafka declares (a list split at once, a class name
# checked): DescribeConfigs reports Kafka's type (SocketServerConfigs, LogConfig,
# ReplicationConfigs).
KAFKA_CONFIG_TYPES: dict[str, ConfigType] = {
    "listeners": ConfigType.STRING,
    "advertised.listeners": ConfigType.STRING,
    "log.dirs": ConfigType.STRING,
    "replica.selector.class": ConfigType.STRING,
}

# Kafka keys Moldau accepts without acting on them (threads, quotas, SSL, KRaft, ...).
ACCEPTED_NO_EFFECT = {
    "num.network.threads",
    "num.io.threads",
    "num.replica.fetchers",
    "num.replica.alter.log.dirs.threads",
    "background.threads",
    "queued.max.requests",
    "group.coordinator.rebalance.protocols",
    "group.coordinator.new.enable",
    "inter.broker.protocol.version",
    "metric.reporters",
    "metrics.num.samples",
    "metrics.sample.window.ms",
    "confluent.support.metrics.enable",
    "offsets.load.buffer.size",
    "zookeeper.set.acl",
    "zookeeper.max.in.flight.requests",
}

# Broker configs that may change without a restart (Kafka's ``DynamicBrokerConfig.AllDynamicConfigs``)
# among those Moldau has: the per-topic defaults (``DynamicLogConfig.ReconfigurableConfigs``:
# the first broker synonym of each topic config, so ``log.retention.ms`` but not
# ``log.retention.hours``), the connection limits (``DynamicConnectionQuota``) and the log
# cleaner's own keys (``LogCleaner.ReconfigurableConfigs``: ``LogCleaner.reconfigure`` restarts
# the cleaner threads with them). Left out: ``unclean.leader.election.enable`` (the controller
# reads it at start only) and ``log.message.format.version`` (as Kafka's
# ``DynamicLogConfig.NonReconfigrableLogConfigs``).
CLEANER_DYNAMIC_CONFIGS: frozenset[str] = frozenset(
    {
        "log.cleaner.threads",
        "log.cleaner.dedupe.buffer.size",
        "log.cleaner.io.buffer.load.factor",
        "log.cleaner.io.buffer.size",
        "log.cleaner.io.max.bytes.per.second",
        "log.cleaner.backoff.ms",
    }
)
# QuotaConfig.brokerQuotaConfigs: not KafkaConfig keys, so DescribeConfigs of a broker lists
# them only where set (ConfigHelper: the config's originals).
BROKER_QUOTA_CONFIGS: frozenset[str] = frozenset(
    {
        "leader.replication.throttled.rate",
        "follower.replication.throttled.rate",
        "replica.alter.log.dirs.io.max.bytes.per.second",
    }
)

DYNAMIC_BROKER_CONFIGS: frozenset[str] = (
    frozenset(
        {t.synonyms[0][0] for t in TOPIC_CONFIGS.values() if t.synonyms}
        - {"unclean.leader.election.enable", "log.message.format.version"}
    )
    | {"max.connections", "max.connections.per.ip", "max.connections.per.ip.overrides"}
    | BROKER_QUOTA_CONFIGS
    | CLEANER_DYNAMIC_CONFIGS
)


def broker_synonyms(name: str) -> list[str]:
    """Kafka's ``DynamicBrokerConfig.brokerConfigSynonyms``: a topic-default property and the
    less specific ones it overrides (``log.retention.ms``, ``.minutes``, ``.hours``)."""
    for t in TOPIC_CONFIGS.values():
        props = [prop for prop, _ in t.synonyms]
        if name in props:
            return props[props.index(name) :]
    return [name]


def check_dynamic_configs(raw: Mapping[str, str], *, per_broker: bool) -> dict[str, Any]:
    """``DynamicBrokerConfig.validateConfigs``: parse a dynamic broker config set (cluster
    default or one broker's). Raises ConfigError with Kafka's message (the request handlers
    answer INVALID_REQUEST, as Kafka's ``ConfigAdminManager``)."""
    static = sorted(name for name in raw if name not in DYNAMIC_BROKER_CONFIGS)
    if static:
        raise ConfigError(f"Cannot update these configs dynamically: Set({', '.join(static)})")
    parsed = {name: BROKER_KEYS[name].parse(value) for name, value in raw.items() if value is not None}
    if "max.connections.per.ip.overrides" in parsed:
        parse_connection_overrides(parsed["max.connections.per.ip.overrides"])  # raises ConfigError
    return parsed


_LISTENER = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)://(?P<host>\[[^\]]*\]|[^:/]*):(?P<port>\d+)$")


@dataclass(frozen=True)
class Listener:
    name: str
    host: str  # empty: all interfaces
    port: int

    def __str__(self) -> str:
        return f"{self.name}://{self.host}:{self.port}"


def parse_listeners(name: str, values: Iterable[str]) -> list[Listener]:
    out = []
    for raw in values:
        m = _LISTENER.match(raw.strip())
        if not m:
            raise ConfigError(f"{name}: {raw!r} is not of the form NAME://host:port")
        port = int(m["port"])
        if not 0 <= port <= 65535:
            raise ConfigError(f"{name}: port {port} out of range")
        out.append(Listener(m["name"].upper(), m["host"].strip("[]"), port))
    names = [lst.name for lst in out]
    if len(set(names)) != len(names):
        raise ConfigError(f"{name}: each listener name must appear once")
    return out


_HOST = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.\-_]*$|^\[?[0-9A-Fa-f:.]+\]?$")


def parse_connection_overrides(text: str | None) -> dict[str, int]:
    """``max.connections.per.ip.overrides``: ``host:count,host:count`` (hosts are IP addresses
    or names; an IPv6 address may be bracketed)."""
    out: dict[str, int] = {}
    for item in (text or "").split(","):
        item = item.strip()
        if not item:
            continue
        host, sep, count = item.rpartition(":")
        host = host.strip()
        if not sep or not _HOST.match(host) or not count.strip().isdigit():
            raise ConfigError(f"max.connections.per.ip.overrides: {item!r} is not host:count")
        out[host.strip("[]")] = int(count)
    return out


def parse_properties(text: str) -> dict[str, str]:
    """Java ``.properties`` syntax: ``key=value`` or ``key: value``, ``#``/``!`` comments,
    backslash line continuations."""
    props: dict[str, str] = {}
    pending = ""
    for raw_line in text.splitlines():
        line = raw_line.strip() if not pending else raw_line.lstrip()
        if not pending and (not line or line[0] in "#!"):
            continue
        if line.endswith("\\") and not line.endswith("\\\\"):
            pending += line[:-1]
            continue
        line = pending + line
        pending = ""
        m = re.match(r"^((?:\\.|[^=:\s])+)\s*[=:\s]\s*(.*)$", line)
        if m:
            key, value = m.group(1), m.group(2)
        else:
            key, value = line, ""
        props[key.replace("\\", "")] = value.strip()
    return props


class BrokerConfig:
    """The broker's parsed properties, with Kafka's defaults filled in."""

    def __init__(self, props: Mapping[str, str] | None = None) -> None:
        raw = dict(props or {})
        self.explicit: dict[str, str] = {}
        self.values: dict[str, Any] = {}
        self.unknown: list[str] = []
        self.no_effect: list[str] = []
        # ``listener.name.<listener>.<key>``: per-listener security configs (broker/security).
        self.listener_overrides: dict[str, str] = {}
        for name, value in raw.items():
            if name.startswith("listener.name."):
                self.listener_overrides[name] = value
                continue
            key = BROKER_KEYS.get(name)
            if key is None:
                if name in ACCEPTED_NO_EFFECT:
                    self.no_effect.append(name)
                else:
                    self.unknown.append(name)
                continue
            self.explicit[name] = value
            self.values[name] = key.parse(value)
        for name, key in BROKER_KEYS.items():
            self.values.setdefault(name, key.default)
        self._check()
        # server.properties as read; the dynamic layers (``set_dynamic``) go on top of it.
        self.static_values: dict[str, Any] = dict(self.values)
        self.dynamic_default: dict[str, Any] = {}  # cluster-wide (/config/brokers/<default>)
        self.dynamic_broker: dict[str, Any] = {}  # this broker's (/config/brokers/<id>)

    @classmethod
    def load(cls, path: str | Path | None = None, overrides: Iterable[str] = ()) -> BrokerConfig:
        props: dict[str, str] = {}
        if path is not None:
            try:
                props.update(parse_properties(Path(path).read_text()))
            except OSError as exc:
                raise ConfigError(f"cannot read {path}: {exc.strerror}") from None
        for item in overrides:
            if "=" not in item:
                raise ConfigError(f"--override {item!r}: expected key=value")
            k, v = item.split("=", 1)
            props[k.strip()] = v.strip()
        return cls(props)

    def warn_unknown(self) -> None:
        for name in self.unknown:
            log.warning("unknown config key ignored: %s", name)
        if self.no_effect:
            log.info("Kafka config keys accepted without effect: %s", ", ".join(sorted(self.no_effect)))

    def _check(self) -> None:
        self.listeners = parse_listeners("listeners", self.values["listeners"])
        if not self.listeners:
            raise ConfigError("listeners: at least one listener is required")
        adv = self.values["advertised.listeners"]
        self.advertised_listeners = (
            parse_listeners("advertised.listeners", adv) if adv else list(self.listeners)
        )
        self._check_security_protocols()
        dirs = self.values["log.dirs"] or [self.values["log.dir"]]
        self.log_dirs = [Path(d).expanduser() for d in dirs]
        if not self.log_dirs:
            raise ConfigError("log.dirs: at least one directory is required")
        one_of("CreateTime", "LogAppendTime")(
            "log.message.timestamp.type", self.values.get("log.message.timestamp.type") or "CreateTime"
        )
        self._check_connection_limits()
        if self.values["offsets.commit.required.acks"] > self.values["offsets.topic.replication.factor"]:
            # KafkaConfig's require(...)
            raise ConfigError(
                "offsets.commit.required.acks must be greater or equal -1 and less or equal to"
                " offsets.topic.replication.factor"
            )
        zk = self.values["zookeeper.connect"]
        if zk is not None and not re.match(r"^[^,/\s]+(,[^,/\s]+)*(/[^\s]*)?$", zk):
            raise ConfigError(f"zookeeper.connect: {zk!r} is not host:port[,host:port][/chroot]")
        if zk is not None and self.inter_broker_listener not in {a.name for a in self.advertised_listeners}:
            # KafkaConfig: the controller and the replicas reach this broker on that listener.
            raise ConfigError(
                f"inter.broker.listener.name: {self.inter_broker_listener} must be a listener name"
                " defined in advertised.listeners"
            )

    def _check_security_protocols(self) -> None:
        """``listener.security.protocol.map`` and the inter-broker listener, as KafkaConfig checks them."""
        protocols: dict[str, str] = {}
        for pair in str(self.values["listener.security.protocol.map"]).split(","):
            if not pair.strip():
                continue
            n, sep, p = pair.partition(":")
            proto = p.strip().upper()
            if not sep or proto not in SECURITY_PROTOCOLS:
                raise ConfigError(
                    f"listener.security.protocol.map: {pair.strip()!r} is not LISTENER:PROTOCOL"
                )
            protocols[n.strip().upper()] = proto
        for lst in [*self.listeners, *self.advertised_listeners]:
            if lst.name not in protocols:
                raise ConfigError(f"listeners: no security protocol defined for listener {lst.name}")
        self.security_protocols = protocols
        if (
            "inter.broker.listener.name" in self.explicit
            and "security.inter.broker.protocol" in self.explicit
        ):
            raise ConfigError(
                "Only one of inter.broker.listener.name and security.inter.broker.protocol should be set."
            )

    def _check_connection_limits(self) -> None:
        # KafkaConfig: queued.max.request.bytes, when bounded, must hold the largest request
        # (SimpleMemoryPool refuses a single allocation above its size).
        max_request = self.values["socket.request.max.bytes"]
        queued = self.values["queued.max.request.bytes"]
        if queued > 0 and queued < max_request:
            if "queued.max.request.bytes" in self.explicit:
                raise ConfigError(
                    f"queued.max.request.bytes ({queued}) must be larger or equal to"
                    f" socket.request.max.bytes ({max_request})"
                )
            self.values["queued.max.request.bytes"] = max_request
        self.max_connections_per_ip_overrides = parse_connection_overrides(
            self.values["max.connections.per.ip.overrides"]
        )
        if self.values["max.connections.per.ip"] == 0 and not self.max_connections_per_ip_overrides:
            raise ConfigError(
                "max.connections.per.ip can be set to zero only if"
                " max.connections.per.ip.overrides property is set"
            )

    # ------------------------------------------------------------------ access

    @property
    def inter_broker_listener(self) -> str:
        """``inter.broker.listener.name``, else the listener named after
        ``security.inter.broker.protocol`` (PLAINTEXT), as Kafka's KafkaConfig."""
        return (
            self.values["inter.broker.listener.name"] or self.values["security.inter.broker.protocol"]
        ).upper()

    def __getitem__(self, name: str) -> Any:
        return self.values[name]

    def get(self, name: str, default: Any = None) -> Any:
        return self.values.get(name, default)

    @property
    def broker_id(self) -> int:
        return self.values["broker.id"]

    def topic_defaults(self) -> dict[str, Any]:
        """Per-topic config defaults resolved from the log.* properties (dynamic ones first)."""
        names = set(self.explicit) | set(self.dynamic_default) | set(self.dynamic_broker)
        return resolve_topic_defaults({k: self.values.get(k) for k in names})

    def set_dynamic(self, default: Mapping[str, Any], broker: Mapping[str, Any]) -> None:
        """Replace the dynamic layers (parsed values, see ``check_dynamic_configs``): a value is
        this broker's dynamic one, else the cluster default, else server.properties', else
        Kafka's default (``DynamicBrokerConfig`` precedence)."""
        self.dynamic_default = dict(default)
        self.dynamic_broker = dict(broker)
        for name in DYNAMIC_BROKER_CONFIGS:
            if name in self.dynamic_broker:
                self.values[name] = self.dynamic_broker[name]
            elif name in self.dynamic_default:
                self.values[name] = self.dynamic_default[name]
            else:
                self.values[name] = self.static_values[name]
        self.max_connections_per_ip_overrides = parse_connection_overrides(
            self.values["max.connections.per.ip.overrides"]
        )

    def layers(self, name: str) -> list[tuple[Any, ConfigSource]]:
        """Where ``name`` is set, most specific first (Kafka's ``configSynonyms`` sources)."""
        out: list[tuple[Any, ConfigSource]] = []
        if name in self.dynamic_broker:
            out.append((self.dynamic_broker[name], ConfigSource.DYNAMIC_BROKER_CONFIG))
        if name in self.dynamic_default:
            out.append((self.dynamic_default[name], ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG))
        if name in self.explicit:
            out.append((self.static_values[name], ConfigSource.STATIC_BROKER_CONFIG))
        return out

    def source(self, name: str) -> ConfigSource:
        found = self.layers(name)
        return found[0][1] if found else ConfigSource.DEFAULT_CONFIG

    def describe(self) -> list[tuple[ConfigKey, Any, ConfigSource]]:
        """Every broker key with its value and source, for DescribeConfigs."""
        return [(key, self.values[name], self.source(name)) for name, key in sorted(BROKER_KEYS.items())]


__all__ = [
    "AUTHORIZER_KEYS",
    "BROKER_KEYS",
    "BROKER_QUOTA_CONFIGS",
    "CLEANER_DYNAMIC_CONFIGS",
    "DYNAMIC_BROKER_CONFIGS",
    "KAFKA_CONFIG_TYPES",
    "BrokerConfig",
    "ConfigError",
    "Listener",
    "broker_synonyms",
    "check_dynamic_configs",
    "parse_connection_overrides",
    "parse_properties",
]
