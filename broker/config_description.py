"""Configs as DescribeConfigs and CreateTopics (v5+) report them.

Each entry has a value, a source and, on request, its synonyms in Kafka's
order of precedence (``ConfigHelper.createTopicConfigEntry`` /
``createBrokerConfigEntry``): the topic override, then for each broker property that
supplies the default (most specific first) its dynamic per-broker value
(DYNAMIC_BROKER_CONFIG), its dynamic cluster default (DYNAMIC_DEFAULT_BROKER_CONFIG) and
its server.properties value (STATIC_BROKER_CONFIG), then Kafka's built-in default
(DEFAULT_CONFIG). Broker configs that may change dynamically are not read-only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from broker.config import BROKER_KEYS, DYNAMIC_BROKER_CONFIGS, BrokerConfig, broker_synonyms
from storage.config_def import ConfigSource, ConfigType, render_value
from storage.log_config import TOPIC_CONFIGS


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


def describe_topic_configs(config: BrokerConfig, overrides: Mapping[str, Any]) -> list[ConfigEntry]:
    out = []
    for name, tkey in sorted(TOPIC_CONFIGS.items()):
        key = tkey.key
        synonyms: list[tuple[str, str | None, ConfigSource]] = []
        if name in overrides:
            synonyms.append((name, key.render(overrides[name]), ConfigSource.TOPIC_CONFIG))
        default_entry = None
        for prop, _factor in tkey.synonyms:
            bkey = BROKER_KEYS[prop]
            for value, layer in config.layers(prop):
                synonyms.append((prop, render_value(bkey.type, value), layer))
            if default_entry is None and bkey.default is not None:
                default_entry = (prop, render_value(bkey.type, bkey.default), ConfigSource.DEFAULT_CONFIG)
        synonyms.append(default_entry or (name, key.render(key.default), ConfigSource.DEFAULT_CONFIG))
        source = synonyms[0][2]
        defaults = config.topic_defaults()
        value = overrides[name] if name in overrides else defaults.get(name, key.default)
        out.append(
            ConfigEntry(
                name=name,
                value=key.render(value),
                source=source,
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
    for key, value, _source in config.describe():
        if not per_broker and key.name not in config.dynamic_default:
            continue
        synonyms: list[tuple[str, str | None, ConfigSource]] = []
        for name in broker_synonyms(key.name):
            skey = BROKER_KEYS[name]
            for v, layer in config.layers(name):
                if per_broker or layer != ConfigSource.DYNAMIC_BROKER_CONFIG:
                    synonyms.append((name, None if skey.sensitive else skey.render(v), layer))
            if skey.default is not None:
                synonyms.append(
                    (name, None if skey.sensitive else skey.render(skey.default), ConfigSource.DEFAULT_CONFIG)
                )
        if per_broker:
            rendered = None if key.sensitive else key.render(value)
        else:
            rendered = None if key.sensitive else key.render(config.dynamic_default[key.name])
        out.append(
            ConfigEntry(
                name=key.name,
                value=rendered,
                source=synonyms[0][2] if synonyms else ConfigSource.DEFAULT_CONFIG,
                read_only=key.name not in DYNAMIC_BROKER_CONFIGS,
                sensitive=key.sensitive,
                type=key.type,
                doc=key.doc,
                synonyms=synonyms,
            )
        )
    return out
