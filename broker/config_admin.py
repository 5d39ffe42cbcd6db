"""What AlterConfigs and IncrementalAlterConfigs share (Kafka's ``ConfigAdminManager``).

Per request: a resource named twice answers INVALID_REQUEST "Each resource must appear at
most once." for each entry. Per resource: a config name given twice answers INVALID_REQUEST
"Error due to duplicate config keys"; a null value (other than for DELETE) INVALID_REQUEST
"Null value not supported for : <names>". Then the resource's new config set is computed
from its current one and handed over:

- topics (type 2): to the cluster's ``TopicAdmin.alter_topic_config`` (validated as
  CreateTopics validates: INVALID_CONFIG; UNKNOWN_TOPIC_OR_PARTITION; an illegal name
  INVALID_TOPIC_EXCEPTION; the default topic resource "" INVALID_REQUEST "Default topic
  resources are not allowed.");
- brokers (type 4): named "" (the cluster default) or this broker's id (else INVALID_REQUEST
  "Unexpected broker id, expected <id>, but received <name>", or "Node id must be an
  integer, but it is: <name>", read as Java's ``Integer.parseInt``: "00" is broker 0 and
  is stored as "0"), to ``DynamicBrokerConfig``; configs that cannot change
  without a restart answer INVALID_REQUEST "Cannot update these configs dynamically:
  Set(<names>)" and bad values INVALID_REQUEST (KAFKA-13609 keeps that code);
- broker loggers (type 8, IncrementalAlterConfigs only in Kafka): INVALID_REQUEST, Moldau
  has none; any other type INVALID_REQUEST "Unknown resource type <t>".

``prepare_incremental_configs`` is Kafka's ``ConfigAdminManager.prepareIncrementalConfigs``:
SET, DELETE, APPEND (list configs: the values not yet in the list, added to the current
value or the default) and SUBTRACT (list configs: the values removed); APPEND or SUBTRACT of
a non-list config answers INVALID_CONFIG.
"""

from __future__ import annotations

import logging
import unicodedata
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from broker.authorization import config_resource_error
from broker.config import BROKER_KEYS
from coordinator.acl_model import AclOperation
from coordinator.controller import validate_topic_name
from protocol.errors import ErrorCode, KafkaError
from storage.config_def import ConfigError, ConfigKey, ConfigType, render_value
from storage.log_config import TOPIC_CONFIGS

if TYPE_CHECKING:
    from broker.handlers import RequestContext

log = logging.getLogger(__name__)

TOPIC, BROKER, BROKER_LOGGER = 2, 4, 8
SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3  # AlterConfigOp.OpType ids

TOPIC_KEYS: dict[str, ConfigKey] = {name: t.key for name, t in TOPIC_CONFIGS.items()}


def bounded_message(message: str | None, limit: int = 2048) -> str | None:
    """An error message quoting client-given names, cut to fit a Kafka string."""
    return message if message is None or len(message) <= limit else message[:limit] + "..."


def duplicated_resources(resources: Sequence[tuple[int, str]]) -> set[tuple[int, str]]:
    return {r for r, n in Counter(resources).items() if n > 1}


def check_config_names(names: Sequence[str], null_values: Sequence[str]) -> None:
    if len(set(names)) != len(names):
        raise KafkaError(ErrorCode.INVALID_REQUEST, "Error due to duplicate config keys")
    if null_values:
        raise KafkaError(
            ErrorCode.INVALID_REQUEST, "Null value not supported for : " + ", ".join(null_values)
        )


def prepare_incremental_configs(
    ops: Sequence[tuple[str, int, str | None]], current: dict[str, str], keys: Mapping[str, ConfigKey]
) -> dict[str, str]:
    """Apply (name, operation, value) to ``current`` (a copy is returned)."""
    out = dict(current)
    for name, op, value in ops:
        if op == SET:
            out[name] = value or ""
        elif op == DELETE:
            out.pop(name, None)
        elif op in (APPEND, SUBTRACT):
            key = keys.get(name)
            if key is None:
                raise KafkaError(ErrorCode.INVALID_CONFIG, f"Unknown config name: {name}")
            if key.type != ConfigType.LIST:
                verb = "append" if op == APPEND else "subtract"
                raise KafkaError(
                    ErrorCode.INVALID_CONFIG, f"Config value {verb} is not allowed for config key: {name}"
                )
            old_text = out[name] if name in out else (render_value(ConfigType.LIST, key.default) or "")
            old = [v for v in old_text.split(",") if v] if old_text else []
            given = (value or "").split(",")
            if op == APPEND:
                new = old + [v for v in dict.fromkeys(given) if v not in old]
            else:
                new = [v for v in old if v not in given]
            out[name] = ",".join(new)
        else:
            raise KafkaError(ErrorCode.INVALID_REQUEST, f"Unknown operations type {op}")
    return out


def _render_overrides(overrides: Mapping[str, object]) -> dict[str, str]:
    out = {}
    for name, value in overrides.items():
        key = TOPIC_KEYS.get(name)
        rendered = key.render(value) if key is not None else str(value)
        if rendered is not None:
            out[name] = rendered
    return out


def java_int(text: str) -> int | None:
    """``text`` as Java's ``Integer.parseInt`` reads it (Kafka's ``name.toInt``), else None: an
    optional sign, then only decimal digits (``Character.digit`` takes any Unicode decimal digit
    of the Basic Multilingual Plane; no spaces, no underscores), within the int range."""
    digits = text[1:] if text[:1] in ("+", "-") else text
    if not digits or not all(c.isdecimal() and ord(c) <= 0xFFFF for c in digits):
        return None
    significant = digits.lstrip("".join(c for c in set(digits) if unicodedata.decimal(c) == 0))
    if len(significant) > 10:  # past the int range (and Python's int() digit limit)
        return None
    value = int(significant or "0") * (-1 if text[0] == "-" else 1)
    return value if -(2**31) <= value < 2**31 else None


def _check_broker_name(ctx: RequestContext, name: str) -> str:
    """``ConfigAdminManager.validateResourceNameIsCurrentNodeId`` ("" is the cluster default);
    returns the name the level is stored under: "" or the node id as Kafka writes it ("00" is
    broker 0, stored as "0")."""
    if name == "":
        return name
    node = java_int(name)
    if node is None:
        raise KafkaError(ErrorCode.INVALID_REQUEST, f"Node id must be an integer, but it is: {name}")
    if node != ctx.broker.broker_id:
        raise KafkaError(
            ErrorCode.INVALID_REQUEST,
            f"Unexpected broker id, expected {ctx.broker.broker_id}, but received {name}",
        )
    return str(node)


ConfigUpdate = Callable[[dict[str, str], Mapping[str, ConfigKey]], dict[str, str]]
Result = TypeVar("Result")


async def alter_resources(
    ctx: RequestContext,
    resources: Sequence[Any],
    make_result: Callable[..., Result],
    update_of: Callable[[Any], ConfigUpdate],
    *,
    validate_only: bool,
    incremental: bool,
) -> list[Result]:
    """What AlterConfigs and IncrementalAlterConfigs do per resource, in order: the duplicate
    check, AlterConfigs authorization, ``update_of(resource)`` (checks the request's config
    names and says how the new set follows from the current one) and the change. Each result
    (``make_result(error_code=, error_message=, resource_type=, resource_name=)``) carries its
    resource's error."""
    twice = duplicated_resources([(r.resource_type, r.resource_name) for r in resources])
    results = []
    for res in resources:
        result = make_result(
            error_code=0, error_message=None, resource_type=res.resource_type, resource_name=res.resource_name
        )
        results.append(result)
        try:
            if (res.resource_type, res.resource_name) in twice:
                raise KafkaError(ErrorCode.INVALID_REQUEST, "Each resource must appear at most once.")
            config_resource_error(ctx, AclOperation.ALTER_CONFIGS, res.resource_type, res.resource_name)
            await alter_resource(
                ctx,
                res.resource_type,
                res.resource_name,
                update_of(res),
                validate_only=validate_only,
                incremental=incremental,
            )
        except KafkaError as exc:
            result.error_code = exc.code
            result.error_message = bounded_message(exc.message)
    return results


async def alter_resource(
    ctx: RequestContext,
    resource_type: int,
    name: str,
    new_configs: Callable[[dict[str, str], Mapping[str, ConfigKey]], dict[str, str]],
    *,
    validate_only: bool,
    incremental: bool,
) -> None:
    """Compute the resource's new config set from its current one and store it; raises
    KafkaError with Kafka's code. A failure to store (a full disk, ZooKeeper away) answers
    UNKNOWN_SERVER_ERROR for this resource, as Kafka's ``ApiError.fromThrowable``."""
    try:
        await _alter_resource(
            ctx, resource_type, name, new_configs, validate_only=validate_only, incremental=incremental
        )
    except KafkaError:
        raise
    except Exception as exc:
        log.warning("cannot change the configs of resource %d %r: %s", resource_type, name[:256], exc)
        raise KafkaError(ErrorCode.UNKNOWN_SERVER_ERROR, f"Cannot store the configs: {exc}") from None


async def _alter_resource(
    ctx: RequestContext,
    resource_type: int,
    name: str,
    new_configs: Callable[[dict[str, str], Mapping[str, ConfigKey]], dict[str, str]],
    *,
    validate_only: bool,
    incremental: bool,
) -> None:
    broker = ctx.broker
    if resource_type == TOPIC:
        if name == "":  # ZkAdminManager.alterTopicConfigs / incrementalAlterConfigs
            raise KafkaError(ErrorCode.INVALID_REQUEST, "Default topic resources are not allowed.")
        validate_topic_name(name)
        current = await broker.topic_admin.topic_overrides([name])
        configs = new_configs(_render_overrides(current.get(name, {})), TOPIC_KEYS)
        await broker.topic_admin.alter_topic_config(name, configs, validate_only=validate_only)
    elif resource_type == BROKER:
        level = _check_broker_name(ctx, name)
        try:
            await broker.dynamic_config.alter(
                level, lambda current: new_configs(current, BROKER_KEYS), validate_only=validate_only
            )
        except ConfigError as exc:
            raise KafkaError(ErrorCode.INVALID_REQUEST, str(exc)) from None
    elif resource_type == BROKER_LOGGER and incremental:
        raise KafkaError(ErrorCode.INVALID_REQUEST, "Broker logger configs are not supported by Moldau")
    else:
        raise KafkaError(ErrorCode.INVALID_REQUEST, f"Unknown resource type {resource_type}")
