"""Configs as DescribeConfigs and CreateTopics (v5+) report them.

Each entry has a value, a source (its first synonym's, else DEFAULT_CONFIG) and, on request,
its synonyms in Kafka's order (``ConfigHelper.createTopicConfigEntry`` /
``createBrokerConfigEntry`` / ``configSynonyms``): the topic override, then the broker
properties of the config's synonym group (``log.retention.ms``, ``.minutes``, ``.hours``)
collected by source: every dynamic per-broker value (DYNAMIC_BROKER_CONFIG), every dynamic
cluster default (DYNAMIC_DEFAULT_BROKER_CONFIG), every server.properties value
(STATIC_BROKER_CONFIG), every non-null built-in default (DEFAULT_CONFIG); the entries before
the first one named like the config's own broker property are dropped (so ``retention.ms``
has no broker synonyms while ``log.retention.ms`` is set nowhere). The cluster default
resource ("") keeps only the DYNAMIC_DEFAULT_BROKER_CONFIG synonyms. Broker configs that may
change dynamically are not read-only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from broker.config import (
    AUTHORIZER_KEYS,
    BROKER_KEYS,
    BROKER_QUOTA_CONFIGS,
    DYNAMIC_BROKER_CONFIGS,
    KAFKA_CONFIG_TYPES,
    BrokerConfig,
)
from storage.config_def import ConfigSource, ConfigType, render_value
from storage.log_config import TOPIC_CONFIGS


class ConfigResourceType(IntEnum):
    """Kafka's ``ConfigResource.Type`` ids (DescribeConfigs, AlterConfigs, IncrementalAlterConfigs)."""

    TOPIC = 2
    BROKER = 4
    BROKER_LOGGER = 8
    CLIENT_METRICS = 16
    GROUP = 32


@dataclass
class ConfigEntry:
    name: str
    value: str | None
    source: ConfigSource
    read_only: bool
    sensitive: bool
    type: ConfigType
    doc: str
    synonyms: list[tuple[str, str | None, ConfigSource]] = field(default_factory=list)


Synonym = tuple[str, str | None, ConfigSource]

# Kafka's DynamicBrokerConfig.brokerConfigSynonyms: the broker properties that stand for one
# another, most specific first (log.flush.scheduler.interval.ms is log.flush.interval.ms's
# fallback, not a member of its own group).
_SYNONYM_GROUPS: dict[str, list[str]] = {}
for _t in TOPIC_CONFIGS.values():
    _group = [prop for prop, _factor in _t.synonyms]
    if len(_group) > 1:
        _SYNONYM_GROUPS.update(dict.fromkeys(_group, _group))
_SYNONYM_GROUPS["log.flush.interval.ms"] = ["log.flush.interval.ms", "log.flush.scheduler.interval.ms"]
# Broker properties whose Kafka default is null (ConfigDef.convertToStringMapWithPasswordValues
# leaves them out of the DEFAULT_CONFIG synonyms) though Moldau gives them one.
_NULL_KAFKA_DEFAULTS = frozenset({"log.flush.interval.ms"})

_SOURCE_ORDER = (
    ConfigSource.DYNAMIC_BROKER_CONFIG,
    ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG,
    ConfigSource.STATIC_BROKER_CONFIG,
)


def _config_synonyms(config: BrokerConfig, name: str, sensitive: bool) -> list[Synonym]:
    """Kafka's ``ConfigHelper.configSynonyms``: ``name``'s group collected source by source,
    then everything before the first entry named ``name`` dropped."""
    group = _SYNONYM_GROUPS.get(name, [name])
    layers = {prop: config.layers(prop) for prop in group}
    found: list[Synonym] = []
    for source in _SOURCE_ORDER:
        for prop in group:
            for value, layer in layers[prop]:
                if layer == source:
                    rendered = None if sensitive else render_value(BROKER_KEYS[prop].type, value)
                    found.append((prop, rendered, source))
    for prop in group:
        key = BROKER_KEYS[prop]
        if key.default is not None and prop not in _NULL_KAFKA_DEFAULTS:
            rendered = None if sensitive else render_value(key.type, key.default)
            found.append((prop, rendered, ConfigSource.DEFAULT_CONFIG))
    first = next((i for i, s in enumerate(found) if s[0] == name), len(found))
    return found[first:]


def describe_topic_configs(config: BrokerConfig, overrides: Mapping[str, Any]) -> list[ConfigEntry]:
    out = []
    defaults = config.topic_defaults()
    for name, tkey in sorted(TOPIC_CONFIGS.items()):
        key = tkey.key
        # ConfigHelper.createTopicConfigEntry: the override, then the synonyms of the topic
        # config's first broker property.
        synonyms: list[Synonym] = []
        if name in overrides:
            synonyms.append((name, key.render(overrides[name]), ConfigSource.TOPIC_CONFIG))
        if tkey.synonyms:
            synonyms.extend(_config_synonyms(config, tkey.synonyms[0][0], key.sensitive))
        value = overrides[name] if name in overrides else defaults.get(name, key.default)
        out.append(
            ConfigEntry(
                name=name,
                value=key.render(value),
                source=synonyms[0][2] if synonyms else ConfigSource.DEFAULT_CONFIG,
                read_only=False,
                sensitive=key.sensitive,
                type=key.type,
                doc=key.doc,
                synonyms=synonyms,
            )
        )
    return out


def describe_broker_configs(config: BrokerConfig, *, per_broker: bool = True) -> list[ConfigEntry]:
    """This broker's configs (``per_broker``), or the cluster-wide dynamic defaults only (the
    broker resource named "": ``currentDynamicDefaultConfigs``, without per-broker values)."""
    out = []
    for key, value, source in config.describe():
        if not per_broker and key.name not in config.dynamic_default:
            continue
        if key.name in BROKER_QUOTA_CONFIGS and source == ConfigSource.DEFAULT_CONFIG:
            continue  # listed where set only (not KafkaConfig keys)
        sensitive, ctype = key.sensitive, KAFKA_CONFIG_TYPES.get(key.name, key.type)
        if key.name in AUTHORIZER_KEYS:
            if source == ConfigSource.DEFAULT_CONFIG:
                continue
            sensitive, ctype = True, ConfigType.UNKNOWN
        synonyms = _config_synonyms(config, key.name, sensitive)
        if key.name in AUTHORIZER_KEYS:  # no default: KafkaConfig does not define them
            synonyms = [syn for syn in synonyms if syn[2] != ConfigSource.DEFAULT_CONFIG]
        if not per_broker:
            # ConfigHelper.createBrokerConfigEntry(perBrokerConfig = false): only the
            # cluster-level dynamic values.
            synonyms = [s for s in synonyms if s[2] == ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG]
        if per_broker:
            rendered = None if sensitive else key.render(value)
        else:
            rendered = None if sensitive else key.render(config.dynamic_default[key.name])
        out.append(
            ConfigEntry(
                name=key.name,
                value=rendered,
                source=synonyms[0][2] if synonyms else ConfigSource.DEFAULT_CONFIG,
                read_only=key.name not in DYNAMIC_BROKER_CONFIGS,
                sensitive=sensitive,
                type=ctype,
                doc=key.doc,
                synonyms=synonyms,
            )
        )
    return out
