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

Authorization (``KafkaApis.handleIncrementalAlterConfigsRequest``): only the resources
``ConfigAdminManager.preprocess`` leaves are authorized; its refusals (a resource or config
name twice, a null value, a broker resource naming another broker or an invalid dynamic
config, an unknown type) answer INVALID_REQUEST whatever the ACLs. AlterConfigs on the
cluster for a broker or client-metrics resource (CLUSTER_AUTHORIZATION_FAILED), on the topic
(TOPIC_AUTHORIZATION_FAILED), on the group for a group resource (type 32, KIP-848:
GROUP_AUTHORIZATION_FAILED), all without message; broker loggers are authorized in
preprocessing (CLUSTER_AUTHORIZATION_FAILED "Cluster authorization failed."). An allowed
client-metrics or group resource answers INVALID_REQUEST (Moldau stores neither).
"""

from __future__ import annotations

from collections.abc import Mapping

from broker.config_admin import ConfigUpdate, alter_resources, check_config_names, prepare_incremental_configs
from broker.handlers import RequestContext, handler
from protocol.messages import ApiKey, IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse
from storage.config_def import ConfigKey

DELETE = 1
Result = IncrementalAlterConfigsResponse.AlterConfigsResourceResponse


@handler(ApiKey.INCREMENTAL_ALTER_CONFIGS, versions=(0, 1))
async def handle_incremental_alter_configs(
    ctx: RequestContext, request: IncrementalAlterConfigsRequest
) -> IncrementalAlterConfigsResponse:
    results = await alter_resources(
        ctx, request.resources, Result, _operations, validate_only=request.validate_only, incremental=True
    )
    return IncrementalAlterConfigsResponse(throttle_time_ms=0, responses=results)


def _operations(res: IncrementalAlterConfigsRequest.AlterConfigsResource) -> ConfigUpdate:
    """The operations applied to the current set (a null value only for DELETE)."""
    check_config_names(
        [c.name for c in res.configs],
        [c.name for c in res.configs if c.value is None and c.config_operation != DELETE],
    )
    ops = [(c.name, c.config_operation, c.value) for c in res.configs]

    def changed(current: dict[str, str], keys: Mapping[str, ConfigKey]) -> dict[str, str]:
        return prepare_incremental_configs(ops, current, keys)

    return changed
