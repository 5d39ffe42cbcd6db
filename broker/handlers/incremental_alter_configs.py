"""IncrementalAlterConfigs (key 44), versions 0-1.

Behaviour (Kafka's ``ConfigAdminManager.preprocess`` and ``prepareIncrementalConfigs``, see
``broker.config_admin``): each resource's configs change by operation (SET, DELETE, APPEND
and SUBTRACT for list configs); the others keep their values. Topics (type 2): the new
override set is validated as CreateTopics validates (INVALID_CONFIG,
UNKNOWN_TOPIC_OR_PARTITION) and stored (the overrides file and the logs at once; in
ZooKeeper mode ``/config/topics/<t>`` and a change notification, from any broker, which
every broker applies to the logs it hosts). Brokers (type 4, "" for the cluster default or
this broker's id): the dynamic broker configs (``broker.dynamic_config``), applied live;
configs that need a restart answer INVALID_REQUEST "Cannot update these configs
dynamically: Set(...)". ``validate_only`` checks everything and changes nothing.

Version notes: v1 is flexible.

Not implemented: broker logger resources (type 8) answer INVALID_REQUEST;
``alter.config.policy.class.name``.

Authorization: AlterConfigs on the cluster for a broker resource (CLUSTER_AUTHORIZATION_FAILED),
on the topic for a topic (TOPIC_AUTHORIZATION_FAILED), checked after the duplicate check.
"""

from __future__ import annotations

from collections.abc import Mapping

from broker.authorization import config_resource_error
from broker.config_admin import (
    alter_resource,
    bounded_message,
    check_config_names,
    duplicated_resources,
    prepare_incremental_configs,
)
from broker.handlers import RequestContext, handler
from coordinator.acl_model import AclOperation
from protocol.errors import ErrorCode, KafkaError
from protocol.messages import ApiKey, IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse
from storage.config_def import ConfigKey

DELETE = 1
Result = IncrementalAlterConfigsResponse.AlterConfigsResourceResponse


@handler(ApiKey.INCREMENTAL_ALTER_CONFIGS, versions=(0, 1))
async def handle_incremental_alter_configs(
    ctx: RequestContext, request: IncrementalAlterConfigsRequest
) -> IncrementalAlterConfigsResponse:
    twice = duplicated_resources([(r.resource_type, r.resource_name) for r in request.resources])
    results = []
    for res in request.resources:
        result = Result(
            error_code=0, error_message=None, resource_type=res.resource_type, resource_name=res.resource_name
        )
        results.append(result)
        try:
            if (res.resource_type, res.resource_name) in twice:
                raise KafkaError(ErrorCode.INVALID_REQUEST, "Each resource must appear at most once.")
            config_resource_error(ctx, AclOperation.ALTER_CONFIGS, res.resource_type, res.resource_name)
            check_config_names(
                [c.name for c in res.configs],
                [c.name for c in res.configs if c.value is None and c.config_operation != DELETE],
            )
            ops = [(c.name, c.config_operation, c.value) for c in res.configs]

            def changed(current: dict[str, str], keys: Mapping[str, ConfigKey], ops=ops) -> dict[str, str]:
                return prepare_incremental_configs(ops, current, keys)

            await alter_resource(
                ctx,
                res.resource_type,
                res.resource_name,
                changed,
                validate_only=request.validate_only,
                incremental=True,
            )
        except KafkaError as exc:
            result.error_code = exc.code
            result.error_message = bounded_message(exc.message)
    return IncrementalAlterConfigsResponse(throttle_time_ms=0, responses=results)
