"""DescribeConfigs (key 32), versions 1-4.

Behaviour:
- Topic resources (type 2): every topic config with its value and source
  (TOPIC_CONFIG for an override (in ZooKeeper mode read from ``/config/topics/<t>``);
  else where the broker default comes from: DYNAMIC_BROKER_CONFIG (this broker's dynamic
  config), DYNAMIC_DEFAULT_BROKER_CONFIG (the cluster-wide one), STATIC_BROKER_CONFIG
  (server.properties), else DEFAULT_CONFIG); UNKNOWN_TOPIC_OR_PARTITION for a missing
  topic, INVALID_TOPIC_EXCEPTION for an illegal name.
- Broker resources (type 4): this broker's id (read as Java's ``Integer.parseInt``: "00"
  is broker 0): every broker config it knows, with the same sources; those that may change
  dynamically (``broker.config.DYNAMIC_BROKER_CONFIGS``) are not read-only. The empty name
  (the cluster default): only the configs set dynamically at the cluster level, as Kafka
  (``currentDynamicDefaultConfigs``), with only their DYNAMIC_DEFAULT_BROKER_CONFIG
  synonyms. Any other name: INVALID_REQUEST ("Broker id must be an integer, but it is:
  <name>" for one that is not a number). Sensitive values are null.
- ``configuration_keys`` (null or empty = all) filters the entries; ``include_synonyms``
  adds the precedence chain; ``include_documentation`` (v3+) the docs.
- No file work; each resource costs its ~40 entries, so resources are handled in slices of
  ``SLICE_RESOURCES`` per loop turn (a request may name 100,000 topics).

Version notes: v1 adds config_source and synonyms (is_default is v0 only);
v3 adds config_type and documentation; v4 is flexible.

Authorization (``ConfigHelper.handleDescribeConfigsRequest``): DescribeConfigs on the cluster
for a broker, broker-logger or client-metrics resource (CLUSTER_AUTHORIZATION_FAILED), on the
topic for a topic (TOPIC_AUTHORIZATION_FAILED, whether it exists or not), on the group for a
group resource (type 32, KIP-848: GROUP_AUTHORIZATION_FAILED), each with Errors' message
("Topic authorization failed."); an allowed client-metrics or group resource answers
INVALID_REQUEST (Moldau has neither).

Not implemented: broker logger resources (type 8) answer INVALID_REQUEST.
"""

from __future__ import annotations

import asyncio

from broker.authorization import config_resource_error
from broker.config_admin import java_int
from broker.config_description import ConfigEntry, describe_broker_configs, describe_topic_configs
from broker.config_description import ConfigResourceType as R
from broker.handlers import RequestContext, handler
from coordinator.acl_model import AclOperation
from coordinator.controller import validate_topic_name
from protocol.errors import ErrorCode, KafkaError
from protocol.messages import ApiKey, DescribeConfigsRequest, DescribeConfigsResponse

SLICE_RESOURCES = 100
Result = DescribeConfigsResponse.DescribeConfigsResult
Entry = DescribeConfigsResponse.DescribeConfigsResourceResult
Synonym = DescribeConfigsResponse.DescribeConfigsSynonym


def _broker_id(name: str) -> int:
    """``ConfigHelper.resourceNameToBrokerId``: the name as Java's ``Integer.parseInt`` reads it
    ("00" is broker 0)."""
    node = java_int(name)
    if node is None:
        raise KafkaError(ErrorCode.INVALID_REQUEST, f"Broker id must be an integer, but it is: {name}")
    return node


def _entries(entries: list[ConfigEntry], keys: list[str] | None, synonyms: bool, docs: bool) -> list[Entry]:
    # ConfigHelper.describeConfigs: a null or empty key list means every config
    wanted = set(keys) if keys else None
    out = []
    for e in entries:
        if wanted is not None and e.name not in wanted:
            continue
        out.append(
            Entry(
                name=e.name,
                value=e.value,
                read_only=e.read_only,
                config_source=int(e.source),
                is_sensitive=e.sensitive,
                synonyms=[Synonym(name=n, value=v, source=int(s)) for n, v, s in e.synonyms]
                if synonyms
                else [],
                config_type=int(e.type),
                documentation=e.doc if docs else None,
            )
        )
    return out


@handler(ApiKey.DESCRIBE_CONFIGS, versions=(1, 4))
async def handle_describe_configs(
    ctx: RequestContext, request: DescribeConfigsRequest
) -> DescribeConfigsResponse:
    broker = ctx.broker
    docs = ctx.api_version >= 3 and request.include_documentation
    # Topic overrides in one read (ZooKeeper mode: /config/topics, one pipelined read).
    known = []
    for res in request.resources:
        if res.resource_type == R.TOPIC and broker.metadata_cache.get_topic(res.resource_name) is not None:
            known.append(res.resource_name)
    overrides = await broker.topic_admin.topic_overrides(known)
    results = []
    for i, res in enumerate(request.resources):
        if i and i % SLICE_RESOURCES == 0:
            await asyncio.sleep(0)  # other clients' requests run between slices
        result = Result(resource_type=res.resource_type, resource_name=res.resource_name, error_code=0)
        try:
            config_resource_error(
                ctx, AclOperation.DESCRIBE_CONFIGS, res.resource_type, res.resource_name, with_message=True
            )
            if res.resource_type == R.TOPIC:
                validate_topic_name(res.resource_name)
                topic_overrides = overrides.get(res.resource_name)
                if topic_overrides is None:
                    raise KafkaError(
                        ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"Topic {res.resource_name} does not exist"
                    )
                entries = describe_topic_configs(broker.config, topic_overrides)
            elif res.resource_type == R.BROKER:
                if res.resource_name != "" and _broker_id(res.resource_name) != broker.broker_id:
                    raise KafkaError(
                        ErrorCode.INVALID_REQUEST,
                        f"Unexpected broker id, expected {broker.broker_id} or empty string, "
                        f"but received {res.resource_name}",
                    )
                entries = describe_broker_configs(broker.config, per_broker=res.resource_name != "")
            elif res.resource_type == R.BROKER_LOGGER:
                raise KafkaError(
                    ErrorCode.INVALID_REQUEST, "Broker logger configs are not supported by Moldau"
                )
            else:
                raise KafkaError(ErrorCode.INVALID_REQUEST, f"Unsupported resource type {res.resource_type}")
        except KafkaError as exc:
            result.error_code = exc.code
            result.error_message = exc.message
            results.append(result)
            continue
        result.configs = _entries(entries, res.configuration_keys, request.include_synonyms, docs)
        results.append(result)
    return DescribeConfigsResponse(throttle_time_ms=0, results=results)
