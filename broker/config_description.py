"""Configs as DescribeConfigs and CreateTopics (v5+) report them.

Each entry has a value, a source and, on request, its synonyms in Kafka's
order of precedence (``ConfigHelper.createTopicConfigEntry`` /
``createBrokerConfigEntry``): the topic override, then each broker property that
supplies the default and is set in server.properties (STATIC_BROKER_CONFIG),
then Kafka's built-in default (DEFAULT_CONFIG).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from broker.config import BROKER_KEYS, BrokerConfig
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
            if prop in config.explicit:
                synonyms.append(
                    (prop, render_value(bkey.type, config[prop]), ConfigSource.STATIC_BROKER_CONFIG)
                )
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


def describe_broker_configs(config: BrokerConfig) -> list[ConfigEntry]:
    out = []
    for key, value, source in config.describe():
        rendered = None if key.sensitive else key.render(value)
        synonyms = [(key.name, rendered, source)]
        if source == ConfigSource.STATIC_BROKER_CONFIG and key.default is not None:
            synonyms.append((key.name, key.render(key.default), ConfigSource.DEFAULT_CONFIG))
        out.append(
            ConfigEntry(
                name=key.name,
                value=rendered,
                source=source,
                read_only=True,  # no dynamic broker configs
                sensitive=key.sensitive,
                type=key.type,
                doc=key.doc,
                synonyms=synonyms,
            )
        )
    return out
