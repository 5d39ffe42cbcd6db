"""What AlterConfigs and IncrementalAlterConfigs share (Kafka's ``ConfigAdminManager``).

Preprocessing (``ConfigAdminManager.preprocess``), before any authorization: a resource named
twice answers INVALID_REQUEST "Each resource must appear at most once." for each entry; a
config name given twice INVALID_REQUEST "Error due to duplicate config keys"; a null value
(other than for DELETE) INVALID_REQUEST "Null value not supported for : <names>"; then by type:

- brokers (type 4): named "" (the cluster default) or this broker's id (else INVALID_REQUEST
  "Unexpected broker id, expected <id>, but received <name>", or "Node id must be an
  integer, but it is: <name>", read as Java's ``Integer.parseInt``: "00" is broker 0 and
  is stored as "0"); the new dynamic config is validated (``DynamicBrokerConfig``): configs
  that cannot change without a restart answer INVALID_REQUEST "Cannot update these configs
  dynamically: Set(<names>)" and bad values INVALID_REQUEST (KAFKA-13609 keeps that code);
- broker loggers (type 8): IncrementalAlterConfigs authorizes AlterConfigs on the cluster
  here (CLUSTER_AUTHORIZATION_FAILED "Cluster authorization failed.") and then answers
  INVALID_REQUEST, Moldau has none; legacy AlterConfigs INVALID_REQUEST "Unknown resource
  type 8";
- topics (2), client metrics (16) and groups (32) pass; any other type INVALID_REQUEST
  "Unknown resource type <t>".

Then each remaining resource is authorized (AlterConfigs on the topic, the group, or the
cluster for brokers and client metrics; TOPIC_ / GROUP_ / CLUSTER_AUTHORIZATION_FAILED without
message, ``configsAuthorizationApiError``) and the allowed ones are changed, the new config
set computed from the current one:

- topics: by the cluster's ``TopicAdmin.alter_topic_config`` (validated as CreateTopics
  validates: INVALID_CONFIG; UNKNOWN_TOPIC_OR_PARTITION; an illegal name
  INVALID_TOPIC_EXCEPTION; the default topic resource "" INVALID_REQUEST "Default topic
  resources are not allowed.");
- brokers: by ``DynamicBrokerConfig`` (validated again, then stored);
- client metrics and groups: INVALID_REQUEST "AlterConfigs is only supported for topics and
  brokers, but resource type is <TYPE>" (``ZkAdminManager``).

``prepare_incremental_configs`` is Kafka's ``ConfigAdminManager.prepareIncrementalConfigs``:
SET, DELETE, APPEND (list configs: the values not yet in the list, added to the current
value or the default) and SUBTRACT (list configs: the values removed); APPEND or SUBTRACT of
a non-list config answers INVALID_CONFIG.
"""

from __future__ import annotations

import logging
import unicodedata
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from broker.authorization import config_resource_error
from broker.config import BROKER_KEYS
from broker.config_description import ConfigResourceType as R
from coordinator.acl_model import AclOperation
from coordinator.controller import validate_topic_name
from protocol.errors import ErrorCode, KafkaError
from storage.config_def import ConfigError, ConfigKey, ConfigType, render_value
from storage.log_config import TOPIC_CONFIGS

if TYPE_CHECKING:
    from broker.handlers import RequestContext

log = logging.getLogger(__name__)

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
    """What AlterConfigs and IncrementalAlterConfigs do, in Kafka's order
    (``KafkaApis.handle[Incremental]AlterConfigsRequest``): ``ConfigAdminManager.preprocess``
    (``_preprocess``: the duplicate check, ``update_of(resource)`` which checks the request's
    config names and says how the new set follows from the current one, then the checks by
    resource type) answers its resources without authorizing them; the others are authorized
    (AlterConfigs, ``process*AlterConfigsRequest``) and the allowed ones changed. Each result
    (``make_result(error_code=, error_message=, resource_type=, resource_name=)``, in request
    order) carries its resource's error."""
    twice = duplicated_resources([(r.resource_type, r.resource_name) for r in resources])
    results = [
        make_result(
            error_code=0, error_message=None, resource_type=r.resource_type, resource_name=r.resource_name
        )
        for r in resources
    ]
    remaining: list[tuple[Any, Result, ConfigUpdate]] = []
    for res, result in zip(resources, results, strict=True):
        try:
            if (res.resource_type, res.resource_name) in twice:
                raise KafkaError(ErrorCode.INVALID_REQUEST, "Each resource must appear at most once.")
            update = update_of(res)
            await _guarded(
                _preprocess(ctx, res.resource_type, res.resource_name, update, incremental=incremental),
                res.resource_type,
                res.resource_name,
            )
        except KafkaError as exc:
            _set_error(result, exc)
            continue
        remaining.append((res, result, update))
    allowed = []
    for res, result, update in remaining:
        try:
            config_resource_error(ctx, AclOperation.ALTER_CONFIGS, res.resource_type, res.resource_name)
        except KafkaError as exc:
            _set_error(result, exc)
            continue
        allowed.append((res, result, update))
    for res, result, update in allowed:
        try:
            await _guarded(
                _alter_resource(
                    ctx, res.resource_type, res.resource_name, update, validate_only=validate_only
                ),
                res.resource_type,
                res.resource_name,
            )
        except KafkaError as exc:
            _set_error(result, exc)
    return results


def _set_error(result: Any, exc: KafkaError) -> None:
    result.error_code = exc.code
    result.error_message = bounded_message(exc.message)


async def _guarded(step: Awaitable[None], resource_type: int, name: str) -> None:
    """``step``, whose failure to read or store (a full disk, ZooKeeper away) answers
    UNKNOWN_SERVER_ERROR for this resource, as Kafka's ``ApiError.fromThrowable``."""
    try:
        await step
    except KafkaError:
        raise
    except Exception as exc:
        log.warning("cannot change the configs of resource %d %r: %s", resource_type, name[:256], exc)
        raise KafkaError(ErrorCode.UNKNOWN_SERVER_ERROR, f"Cannot store the configs: {exc}") from None


async def _preprocess(
    ctx: RequestContext, resource_type: int, name: str, new_configs: ConfigUpdate, *, incremental: bool
) -> None:
    """``ConfigAdminManager.preprocess`` by resource type, before any authorization: a broker
    resource's name (``validateResourceNameIsCurrentNodeId``) and new dynamic config
    (``validateBrokerConfigChange``, nothing stored); broker loggers (IncrementalAlterConfigs
    only, which authorizes them here as ``RuntimeLoggerManager.applyChangesForResource``);
    topics, client metrics and groups pass; any other type is unknown."""
    if resource_type == R.BROKER:
        await _alter_broker(ctx, name, new_configs, validate_only=True)
    elif resource_type == R.BROKER_LOGGER and incremental:
        config_resource_error(ctx, AclOperation.ALTER_CONFIGS, resource_type, name, with_message=True)
        raise KafkaError(ErrorCode.INVALID_REQUEST, "Broker logger configs are not supported by Moldau")
    elif resource_type not in (R.TOPIC, R.CLIENT_METRICS, R.GROUP):
        # legacy AlterConfigs does not support BROKER_LOGGER: caught here too
        raise KafkaError(ErrorCode.INVALID_REQUEST, f"Unknown resource type {resource_type}")


async def _alter_broker(
    ctx: RequestContext, name: str, new_configs: ConfigUpdate, *, validate_only: bool
) -> None:
    level = _check_broker_name(ctx, name)
    try:
        await ctx.broker.dynamic_config.alter(
            level, lambda current: new_configs(current, BROKER_KEYS), validate_only=validate_only
        )
    except ConfigError as exc:
        raise KafkaError(ErrorCode.INVALID_REQUEST, str(exc)) from None


async def _alter_resource(
    ctx: RequestContext, resource_type: int, name: str, new_configs: ConfigUpdate, *, validate_only: bool
) -> None:
    """Compute a preprocessed, authorized resource's new config set from its current one and
    store it (``ZkAdminManager.[incremental]AlterConfigs``); raises KafkaError with Kafka's code."""
    broker = ctx.broker
    if resource_type == R.TOPIC:
        if name == "":  # ZkAdminManager.alterTopicConfigs / incrementalAlterConfigs
            raise KafkaError(ErrorCode.INVALID_REQUEST, "Default topic resources are not allowed.")
        validate_topic_name(name)
        current = await broker.topic_admin.topic_overrides([name])
        configs = new_configs(_render_overrides(current.get(name, {})), TOPIC_KEYS)
        await broker.topic_admin.alter_topic_config(name, configs, validate_only=validate_only)
    elif resource_type == R.BROKER:
        await _alter_broker(ctx, name, new_configs, validate_only=validate_only)
    else:  # client metrics and groups: ZkAdminManager stores neither
        raise KafkaError(
            ErrorCode.INVALID_REQUEST,
            f"AlterConfigs is only supported for topics and brokers, but resource type is {R(resource_type).name}",
        )
