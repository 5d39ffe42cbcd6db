"""Typed configuration keys, as Kafka's ``ConfigDef`` declares them.

Shared by the per-topic log configs (``storage.log_config``) and the broker's
own configs (``broker.config``): a key has a name, a Kafka type (which
DescribeConfigs reports), a default, and an optional validator. Values arrive
as strings (server.properties, ``--override``, CreateTopics configs) and are
parsed here; a bad value raises ``ConfigError`` with a one-line reason.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

LONG_MAX = (1 << 63) - 1
INT_MAX = (1 << 31) - 1


class ConfigError(ValueError):
    """A configuration value that Kafka would refuse (INVALID_CONFIG)."""


class ConfigType(IntEnum):
    """DescribeConfigs v3+ ConfigType (``DescribeConfigsResponse.ConfigType``)."""

    UNKNOWN = 0
    BOOLEAN = 1
    STRING = 2
    INT = 3
    SHORT = 4
    LONG = 5
    DOUBLE = 6
    LIST = 7
    CLASS = 8
    PASSWORD = 9


class ConfigSource(IntEnum):
    """DescribeConfigs ConfigSource (``DescribeConfigsResponse.ConfigSource``)."""

    UNKNOWN = 0
    TOPIC_CONFIG = 1
    DYNAMIC_BROKER_CONFIG = 2
    DYNAMIC_DEFAULT_BROKER_CONFIG = 3
    STATIC_BROKER_CONFIG = 4
    DEFAULT_CONFIG = 5
    DYNAMIC_BROKER_LOGGER_CONFIG = 6
    CLIENT_METRICS_CONFIG = 7
    GROUP_CONFIG = 8


@dataclass(frozen=True)
class ConfigKey:
    name: str
    type: ConfigType
    default: Any
    doc: str = ""
    validator: Callable[[str, Any], None] | None = None
    sensitive: bool = False

    def parse(self, raw: Any) -> Any:
        """Parse a raw (usually string) value to this key's type and validate it."""
        value = parse_value(self.name, self.type, raw)
        if self.validator is not None and value is not None:
            self.validator(self.name, value)
        return value

    def render(self, value: Any) -> str | None:
        """The string form DescribeConfigs reports."""
        return render_value(self.type, value)


def invalid_value(name: str, value: Any, reason: str) -> str:
    """Kafka's ``ConfigException(name, value, message)`` text (what admin tools show)."""
    shown = ("true" if value else "false") if isinstance(value, bool) else value
    return f"Invalid value {shown} for configuration {name}: {reason}"


def parse_value(name: str, ctype: ConfigType, raw: Any) -> Any:
    if raw is None:
        return None
    if ctype in (ConfigType.INT, ConfigType.LONG, ConfigType.SHORT):
        if isinstance(raw, bool):
            raise ConfigError(invalid_value(name, raw, f"Not a number of type {ctype.name}"))
        if isinstance(raw, int):
            value = raw
        else:
            try:
                value = int(str(raw).strip())
            except ValueError:
                raise ConfigError(invalid_value(name, raw, f"Not a number of type {ctype.name}")) from None
        limit = {ConfigType.INT: INT_MAX, ConfigType.LONG: LONG_MAX, ConfigType.SHORT: 32767}[ctype]
        if not -limit - 1 <= value <= limit:
            raise ConfigError(invalid_value(name, raw, f"Not a number of type {ctype.name}"))
        return value
    if ctype == ConfigType.DOUBLE:
        try:
            return float(raw)
        except (TypeError, ValueError):
            raise ConfigError(invalid_value(name, raw, "Not a number of type DOUBLE")) from None
    if ctype == ConfigType.BOOLEAN:
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in ("true", "false"):
            return text == "true"
        raise ConfigError(invalid_value(name, raw, "Expected value to be either true or false"))
    if ctype == ConfigType.LIST:
        if isinstance(raw, list | tuple):
            return [str(x) for x in raw]
        text = str(raw).strip()
        return [x.strip() for x in text.split(",") if x.strip()] if text else []
    return str(raw).strip() if isinstance(raw, str) else str(raw)


def render_value(ctype: ConfigType, value: Any) -> str | None:
    if value is None:
        return None
    if ctype == ConfigType.BOOLEAN:
        return "true" if value else "false"
    if ctype == ConfigType.LIST:
        return ",".join(value)
    return str(value)


# ------------------------------------------------------------------ validators


def at_least(minimum: int | float) -> Callable[[str, Any], None]:
    def check(name: str, value: Any) -> None:
        if value < minimum:
            raise ConfigError(invalid_value(name, value, f"Value must be at least {minimum}"))

    return check


def between(lo: int | float, hi: int | float) -> Callable[[str, Any], None]:
    def check(name: str, value: Any) -> None:
        if value < lo:
            raise ConfigError(invalid_value(name, value, f"Value must be at least {lo}"))
        if value > hi:
            raise ConfigError(invalid_value(name, value, f"Value must be no more than {hi}"))

    return check


def one_of(*choices: str) -> Callable[[str, Any], None]:
    def check(name: str, value: Any) -> None:
        if value not in choices:
            raise ConfigError(invalid_value(name, value, f"String must be one of: {', '.join(choices)}"))

    return check


def each_of(*choices: str) -> Callable[[str, Any], None]:
    def check(name: str, value: Sequence[str]) -> None:
        for v in value:
            if v not in choices:
                raise ConfigError(invalid_value(name, v, f"String must be one of: {', '.join(choices)}"))

    return check
