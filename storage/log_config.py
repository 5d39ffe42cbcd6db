"""Per-topic log configuration (Kafka's ``LogConfig`` / ``TopicConfig``).

Every topic config has Kafka's name, type and default, and the broker-wide
properties that supply its default (Kafka's "synonyms", most specific first:
``retention.ms`` <- ``log.retention.ms``, ``log.retention.minutes``,
``log.retention.hours``). The broker resolves those into a defaults mapping;
a topic's overrides are layered on top into a ``LogConfig``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from storage.config_def import (
    INT_MAX,
    LONG_MAX,
    ConfigError,
    ConfigKey,
    ConfigType,
    at_least,
    between,
    each_of,
    one_of,
)

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TopicConfigKey:
    key: ConfigKey
    # Broker properties that set the default, most specific first, with the
    # factor that turns their unit into this key's unit (hours -> ms).
    synonyms: tuple[tuple[str, int], ...] = ()
    # Kafka also accepts but Moldau does not act on it (see docs/COMPATIBILITY.md).
    no_effect: bool = False

    @property
    def name(self) -> str:
        return self.key.name


def _k(name: str, ctype: ConfigType, default: Any, doc: str, validator: Any = None) -> ConfigKey:
    return ConfigKey(name, ctype, default, doc, validator)


HOUR_MS = 3_600_000


def _gzip_level(name: str, value: int) -> None:
    """Kafka's ``CompressionType.GZIP``: 1-9, or -1 for the default."""
    if value != -1 and not 1 <= value <= 9:
        raise ConfigError(f"{name}: {value} is not -1 nor in [1, 9]")


MINUTE_MS = 60_000

_THROTTLED_REPLICA = re.compile(r"([0-9]+:[0-9]+)?")


def _throttled_replicas(name: str, value: list[str]) -> None:
    """Kafka's ``ThrottledReplicaListValidator``: ``*`` or ``partition:broker`` entries."""
    proposed = [v.strip() for v in value]
    if not (all(_THROTTLED_REPLICA.fullmatch(v) for v in proposed) or "".join(proposed) == "*"):
        raise ConfigError(
            f"Invalid value [{', '.join(value)}] for configuration {name}: {name} must be the literal"
            " '*' or a list of replicas in the following format:"
            " [partitionId]:[brokerId],[partitionId]:[brokerId],..."
        )


# Kafka 3.9's MetadataVersion: (release, internal versions); a release named alone stands for
# its latest production version, so "4.0" alone (not production in 3.9) is not valid.
_METADATA_VERSIONS = (
    ("0.8.0", 0), ("0.8.1", 0), ("0.8.2", 0), ("0.9.0", 0), ("0.10.0", 2), ("0.10.1", 3),
    ("0.10.2", 1), ("0.11.0", 3), ("1.0", 1), ("1.1", 1), ("2.0", 2), ("2.1", 3), ("2.2", 2),
    ("2.3", 2), ("2.4", 2), ("2.5", 1), ("2.6", 1), ("2.7", 3), ("2.8", 2), ("3.0", 2),
    ("3.1", 1), ("3.2", 1), ("3.3", 4), ("3.4", 1), ("3.5", 3), ("3.6", 3), ("3.7", 5),
    ("3.8", 1), ("3.9", 1), ("4.0", 2),
)  # fmt: skip
_METADATA_VERSION_NAMES = frozenset(
    [release for release, _ivs in _METADATA_VERSIONS if release != "4.0"]
    + [f"{release}-IV{i}" for release, ivs in _METADATA_VERSIONS for i in range(ivs)]
)


def _metadata_version(name: str, value: str) -> None:
    """Kafka's ``MetadataVersionValidator`` (``MetadataVersion.fromVersionString``: the first
    three dot-separated parts of a 0.x version, two of any other, name the version)."""
    parts = value.split(".")
    kept = 3 if value.startswith("0.") else 2
    key = value if kept >= len(parts) else ".".join(parts[:kept])
    if key not in _METADATA_VERSION_NAMES:
        raise ConfigError(
            f"Invalid value {value} for configuration {name}: Version {value} is not a valid version"
        )


_TOPIC_CONFIG_TABLE = [
    TopicConfigKey(
        _k(
            "cleanup.policy",
            ConfigType.LIST,
            ["delete"],
            "delete or compact",
            each_of("compact", "delete"),
        ),
        (("log.cleanup.policy", 1),),
    ),
    TopicConfigKey(
        _k(
            "compression.type",
            ConfigType.STRING,
            "producer",
            "Final compression type: producer (keep the producer's codec), uncompressed or a codec",
            one_of("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"),
        ),
        (("compression.type", 1),),
    ),
    # KIP-390 (Kafka 3.8): the levels the broker compresses at (compression.type)
    TopicConfigKey(
        _k(
            "compression.gzip.level",
            ConfigType.INT,
            -1,
            "gzip level when compression.type is gzip (-1: zlib's default)",
            _gzip_level,
        ),
        (("compression.gzip.level", 1),),
    ),
    TopicConfigKey(
        _k(
            "compression.lz4.level",
            ConfigType.INT,
            9,
            "lz4 level when compression.type is lz4",
            between(1, 17),
        ),
        (("compression.lz4.level", 1),),
    ),
    TopicConfigKey(
        _k(
            "compression.zstd.level",
            ConfigType.INT,
            3,
            "zstd level when compression.type is zstd",
            between(-131072, 22),
        ),
        (("compression.zstd.level", 1),),
    ),
    TopicConfigKey(
        _k(
            "delete.retention.ms",
            ConfigType.LONG,
            86_400_000,
            "Tombstone retention (compaction)",
            at_least(0),
        ),
        (("log.cleaner.delete.retention.ms", 1),),
    ),
    TopicConfigKey(
        _k("file.delete.delay.ms", ConfigType.LONG, 60_000, "Delay before deleting a file", at_least(0)),
        (("log.segment.delete.delay.ms", 1),),
    ),
    TopicConfigKey(
        _k("flush.messages", ConfigType.LONG, LONG_MAX, "fsync after this many messages", at_least(1)),
        (("log.flush.interval.messages", 1),),
    ),
    TopicConfigKey(
        _k("flush.ms", ConfigType.LONG, LONG_MAX, "fsync after this many ms", at_least(0)),
        (("log.flush.interval.ms", 1),),
    ),
    TopicConfigKey(
        _k(
            "index.interval.bytes",
            ConfigType.INT,
            4096,
            "Bytes between offset-index entries",
            at_least(0),
        ),
        (("log.index.interval.bytes", 1),),
    ),
    TopicConfigKey(
        _k("max.compaction.lag.ms", ConfigType.LONG, LONG_MAX, "Compaction lag bound", at_least(1)),
        (("log.cleaner.max.compaction.lag.ms", 1),),
    ),
    TopicConfigKey(
        _k("max.message.bytes", ConfigType.INT, 1_048_588, "Largest record batch", at_least(0)),
        (("message.max.bytes", 1),),
    ),
    TopicConfigKey(
        # Kafka 3.9's default (ServerLogConfigs); KIP-1030 made it one hour in Kafka 4.0.
        _k(
            "message.timestamp.after.max.ms",
            ConfigType.LONG,
            LONG_MAX,
            "Largest allowed future timestamp skew (CreateTime)",
            at_least(0),
        ),
        (("log.message.timestamp.after.max.ms", 1),),
    ),
    TopicConfigKey(
        _k(
            "message.timestamp.before.max.ms",
            ConfigType.LONG,
            LONG_MAX,
            "Largest allowed past timestamp skew (CreateTime)",
            at_least(0),
        ),
        (("log.message.timestamp.before.max.ms", 1),),
    ),
    TopicConfigKey(
        _k(
            "message.timestamp.type",
            ConfigType.STRING,
            "CreateTime",
            "CreateTime or LogAppendTime",
            one_of("CreateTime", "LogAppendTime"),
        ),
        (("log.message.timestamp.type", 1),),
    ),
    TopicConfigKey(
        _k("min.cleanable.dirty.ratio", ConfigType.DOUBLE, 0.5, "Compaction trigger", between(0, 1)),
        (("log.cleaner.min.cleanable.ratio", 1),),
    ),
    TopicConfigKey(
        _k("min.compaction.lag.ms", ConfigType.LONG, 0, "Compaction lag", at_least(0)),
        (("log.cleaner.min.compaction.lag.ms", 1),),
    ),
    TopicConfigKey(
        _k(
            "min.insync.replicas",
            ConfigType.INT,
            1,
            "Replicas that must acknowledge acks=all",
            at_least(1),
        ),
        (("min.insync.replicas", 1),),
    ),
    TopicConfigKey(
        _k("preallocate", ConfigType.BOOLEAN, False, "Preallocate segment files"),
        (("log.preallocate", 1),),
        no_effect=True,
    ),
    TopicConfigKey(
        _k("retention.bytes", ConfigType.LONG, -1, "Size bound of a partition's log; -1 unbounded"),
        (("log.retention.bytes", 1),),
    ),
    TopicConfigKey(
        _k(
            "retention.ms",
            ConfigType.LONG,
            7 * 24 * HOUR_MS,
            "Age bound of old segments; -1 unbounded",
            at_least(-1),
        ),
        (("log.retention.ms", 1), ("log.retention.minutes", MINUTE_MS), ("log.retention.hours", HOUR_MS)),
    ),
    TopicConfigKey(
        # Read by the ZooKeeper-mode controller from /config/topics/<t> and the broker
        # default (KafkaController's unclean election, KIP-106's default false).
        _k(
            "unclean.leader.election.enable",
            ConfigType.BOOLEAN,
            False,
            "Elect an out-of-sync replica when no ISR member is alive (may lose records)",
        ),
        (("unclean.leader.election.enable", 1),),
    ),
    TopicConfigKey(
        # KIP-1030 raised the minimum to 1 MiB in Kafka 4.0; Moldau keeps 14
        # (Kafka 3.x) so tests can roll segments quickly.
        _k("segment.bytes", ConfigType.INT, 1_073_741_824, "Segment file size", at_least(14)),
        (("log.segment.bytes", 1),),
    ),
    TopicConfigKey(
        _k("segment.index.bytes", ConfigType.INT, 10_485_760, "Offset index size", at_least(8)),
        (("log.index.size.max.bytes", 1),),
    ),
    TopicConfigKey(
        _k(
            "segment.jitter.ms",
            ConfigType.LONG,
            0,
            "Random jitter subtracted from segment.ms",
            at_least(0),
        ),
        (("log.roll.jitter.ms", 1), ("log.roll.jitter.hours", HOUR_MS)),
    ),
    TopicConfigKey(
        _k("segment.ms", ConfigType.LONG, 7 * 24 * HOUR_MS, "Roll a segment after this age", at_least(1)),
        (("log.roll.ms", 1), ("log.roll.hours", HOUR_MS)),
    ),
    # Kafka 3.9 topic configs that Moldau stores and describes but never acts on: no
    # replication quotas, no down-conversion (Fetch v4+ only), no tiered storage.
    # Kafka's LogConfig.CONFIGS_WITH_NO_SERVER_DEFAULTS have no broker synonym.
    TopicConfigKey(
        _k(
            "leader.replication.throttled.replicas",
            ConfigType.LIST,
            [],
            "Replicas (partition:broker, or *) throttled on the leader side (no effect)",
            _throttled_replicas,
        ),
        no_effect=True,
    ),
    TopicConfigKey(
        _k(
            "follower.replication.throttled.replicas",
            ConfigType.LIST,
            [],
            "Replicas (partition:broker, or *) throttled on the follower side (no effect)",
            _throttled_replicas,
        ),
        no_effect=True,
    ),
    TopicConfigKey(
        _k(
            "message.downconversion.enable",
            ConfigType.BOOLEAN,
            True,
            "Down-convert records for old consumers (no effect: no down-conversion)",
        ),
        (("log.message.downconversion.enable", 1),),
        no_effect=True,
    ),
    TopicConfigKey(
        # Deprecated in Kafka 3.x (ignored from inter.broker.protocol.version 3.0), gone in 4.0.
        _k(
            "message.format.version",
            ConfigType.STRING,
            "3.0-IV1",
            "Message format version (no effect: records are always v2)",
            _metadata_version,
        ),
        (("log.message.format.version", 1),),
        no_effect=True,
    ),
    TopicConfigKey(
        # Deprecated in Kafka 3.6 (KIP-937), gone in 4.0.
        _k(
            "message.timestamp.difference.max.ms",
            ConfigType.LONG,
            LONG_MAX,
            "Largest allowed timestamp skew (no effect: see message.timestamp.before/after.max.ms)",
            at_least(0),
        ),
        (("log.message.timestamp.difference.max.ms", 1),),
        no_effect=True,
    ),
    TopicConfigKey(
        _k("remote.storage.enable", ConfigType.BOOLEAN, False, "Tiered storage (refused when true)"),
        no_effect=True,
    ),
    TopicConfigKey(
        _k(
            "local.retention.ms",
            ConfigType.LONG,
            -2,
            "Local retention under tiered storage; -2: retention.ms (no effect)",
            at_least(-2),
        ),
        (("log.local.retention.ms", 1),),
        no_effect=True,
    ),
    TopicConfigKey(
        _k(
            "local.retention.bytes",
            ConfigType.LONG,
            -2,
            "Local retention under tiered storage; -2: retention.bytes (no effect)",
            at_least(-2),
        ),
        (("log.local.retention.bytes", 1),),
        no_effect=True,
    ),
    TopicConfigKey(
        _k("remote.log.copy.disable", ConfigType.BOOLEAN, False, "Tiered storage (refused when true)"),
        no_effect=True,
    ),
    TopicConfigKey(
        _k(
            "remote.log.delete.on.disable",
            ConfigType.BOOLEAN,
            False,
            "Tiered storage (refused when true)",
        ),
        no_effect=True,
    ),
]
TOPIC_CONFIGS: dict[str, TopicConfigKey] = {t.name: t for t in _TOPIC_CONFIG_TABLE}
if len(TOPIC_CONFIGS) != len(_TOPIC_CONFIG_TABLE):  # only the last of two declarations would count
    raise RuntimeError("a topic config is declared twice in storage.log_config")


def broker_default_keys() -> dict[str, ConfigKey]:
    """The broker properties that supply topic defaults, keyed by property name.

    Their defaults are the topic defaults in the property's own unit
    (``log.retention.hours`` = 168); a property with no default of its own
    (``log.retention.ms``) defaults to None and defers to the next synonym.
    """
    out: dict[str, ConfigKey] = {}
    for t in TOPIC_CONFIGS.values():
        last = len(t.synonyms) - 1
        for i, (prop, factor) in enumerate(t.synonyms):
            if prop in out:
                continue
            default = t.key.default if factor == 1 else t.key.default // factor
            if i != last:
                default = None
            # flush.ms defers to log.flush.scheduler.interval.ms in Kafka; both default to Long.MAX.
            # The hour and minute synonyms (log.retention.hours, log.roll.jitter.hours...) are
            # INT in Kafka's LogConfig.SERVER_CONFIG_DEF, the millisecond ones LONG.
            ctype = ConfigType.INT if factor != 1 and t.key.type is ConfigType.LONG else t.key.type
            out[prop] = ConfigKey(prop, ctype, default, t.key.doc, t.key.validator)
    return out


def resolve_topic_defaults(broker_props: Mapping[str, Any]) -> dict[str, Any]:
    """Topic-config defaults from parsed broker properties (None = not set)."""
    out: dict[str, Any] = {}
    for t in TOPIC_CONFIGS.values():
        value = t.key.default
        for prop, factor in t.synonyms:
            v = broker_props.get(prop)
            if v is not None:
                value = v * factor if factor != 1 else v
                break
        out[t.name] = value
    return out


def parse_topic_overrides(raw: Mapping[str, str | None]) -> dict[str, Any]:
    """Validate topic config overrides (CreateTopics / AlterConfigs).

    Unknown names and bad values raise ConfigError (Kafka: INVALID_CONFIG).
    A None value means "no override" and is dropped.
    """
    out: dict[str, Any] = {}
    for name, value in raw.items():
        t = TOPIC_CONFIGS.get(name)
        if t is None:
            raise ConfigError(f"Unknown topic config name: {name}")
        if value is None:
            continue
        out[name] = t.key.parse(value)
    return out


def check_topic_values(overrides: Mapping[str, Any]) -> None:
    """Kafka 3.9's ``LogConfig.validateTopicLogConfigValues`` of ZooKeeper mode over an override
    set (the other keys at their topic defaults), without tiered storage
    (``remote.log.storage.system.enable`` false), raising ConfigError with Kafka's message:
    ``validateValues`` (min.compaction.lag.ms above max.compaction.lag.ms), then
    ``validateNoInvalidRemoteStorageConfigsInZK`` (remote.log.delete.on.disable or
    remote.log.copy.disable true), then ``validateRemoteStorageOnlyIfSystemEnabled``
    (remote.storage.enable true)."""
    low = overrides.get("min.compaction.lag.ms", LogConfig.min_compaction_lag_ms)
    high = overrides.get("max.compaction.lag.ms", LogConfig.max_compaction_lag_ms)
    if low > high:
        raise ConfigError(
            f"conflict topic config setting min.compaction.lag.ms ({low}) > max.compaction.lag.ms ({high})"
        )
    if overrides.get("remote.log.delete.on.disable") or overrides.get("remote.log.copy.disable"):
        raise ConfigError(
            "It is invalid to set `remote.log.delete.on.disable` or `remote.log.copy.disable` under"
            " Zookeeper's mode."
        )
    if overrides.get("remote.storage.enable"):
        raise ConfigError(
            "Tiered Storage functionality is disabled in the broker. Topic cannot be configured with"
            " remote log storage."
        )


def parse_stored_topic_overrides(topic: str, raw: Mapping[str, str | None]) -> dict[str, Any]:
    """Overrides as stored by the cluster (``/config/topics/<t>``, possibly written by Kafka's
    own tools): names Moldau does not know and values it cannot parse are skipped with a
    warning instead of failing the topic."""
    out: dict[str, Any] = {}
    for name, value in raw.items():
        t = TOPIC_CONFIGS.get(name)
        if t is None or value is None:
            if t is None:
                log.warning("topic %s: ignoring unknown config %s", topic, name)
            continue
        try:
            out[name] = t.key.parse(value)
        except ConfigError as exc:
            log.warning("topic %s: ignoring config %s: %s", topic, name, exc)
    return out


@dataclass(frozen=True)
class LogConfig:
    """The effective configuration of one partition's log."""

    cleanup_policy: tuple[str, ...] = ("delete",)
    compression_type: str = "producer"
    compression_gzip_level: int = -1
    compression_lz4_level: int = 9
    compression_zstd_level: int = 3
    delete_retention_ms: int = 86_400_000
    file_delete_delay_ms: int = 60_000
    flush_messages: int = LONG_MAX
    flush_ms: int = LONG_MAX
    index_interval_bytes: int = 4096
    max_compaction_lag_ms: int = LONG_MAX
    max_message_bytes: int = 1_048_588
    message_timestamp_after_max_ms: int = LONG_MAX
    message_timestamp_before_max_ms: int = LONG_MAX
    message_timestamp_type: str = "CreateTime"
    min_cleanable_dirty_ratio: float = 0.5
    min_compaction_lag_ms: int = 0
    min_insync_replicas: int = 1
    retention_bytes: int = -1
    retention_ms: int = 7 * 24 * HOUR_MS
    segment_bytes: int = 1_073_741_824
    segment_index_bytes: int = 10_485_760
    segment_jitter_ms: int = 0
    segment_ms: int = 7 * 24 * HOUR_MS
    unclean_leader_election_enable: bool = False

    @classmethod
    def from_values(
        cls, defaults: Mapping[str, Any], overrides: Mapping[str, Any] | None = None
    ) -> LogConfig:
        merged = dict(defaults)
        if overrides:
            merged.update(overrides)
        kwargs: dict[str, Any] = {}
        for f in fields(cls):
            name = f.name.replace("_", ".")
            if name in merged and merged[name] is not None:
                v = merged[name]
                kwargs[f.name] = tuple(v) if isinstance(v, list) else v
        return cls(**kwargs)

    @property
    def log_append_time(self) -> bool:
        return self.message_timestamp_type == "LogAppendTime"

    @property
    def max_segment_ms(self) -> int:
        """How long a segment may stay active: a compacted log rolls by max.compaction.lag.ms
        too, since the cleaner never cleans the active segment (KIP-354, Kafka's
        ``LogConfig.maxSegmentMs``)."""
        if self.compact and self.max_compaction_lag_ms > 0:
            return min(self.max_compaction_lag_ms, self.segment_ms)
        return self.segment_ms

    @property
    def compact(self) -> bool:
        """``cleanup.policy`` holds ``compact``: the log cleaner owns this log (Kafka's ``LogConfig.compact``)."""
        return "compact" in self.cleanup_policy


__all__ = [
    "INT_MAX",
    "LONG_MAX",
    "TOPIC_CONFIGS",
    "ConfigError",
    "LogConfig",
    "TopicConfigKey",
    "broker_default_keys",
    "check_topic_values",
    "parse_stored_topic_overrides",
    "parse_topic_overrides",
    "resolve_topic_defaults",
]
