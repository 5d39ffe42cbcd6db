"""AlterConfigs (key 33), versions 0-2.

Behaviour (Kafka's ``ConfigAdminManager.preprocess`` for the legacy request, see
``broker.config_admin``): the configs given REPLACE the resource's whole set (Kafka's
semantics: a config not named loses its override or dynamic value). Topics (type 2): the
new override set is validated as CreateTopics validates (INVALID_CONFIG,
UNKNOWN_TOPIC_OR_PARTITION) and stored (the overrides file and the logs at once; in
ZooKeeper mode ``/config/topics/<t>`` and a change notification, from any broker, applied
by every broker to the logs it hosts). Brokers (type 4, "" for the cluster default or this
broker's id): the dynamic broker configs, applied live; configs that need a restart answer
INVALID_REQUEST "Cannot update these configs dynamically: Set(...)". A null value answers
INVALID_REQUEST. ``validate_only`` checks everything and changes nothing.

Version notes: v1 is the same (throttling before the answer); v2 is flexible.

Authorization (``KafkaApis.handleAlterConfigsRequest``): only the resources
``ConfigAdminManager.preprocess`` leaves are authorized; its refusals (a resource or config
name twice, a null value, a broker resource naming another broker or an invalid dynamic
config, a broker-logger or unknown type) answer INVALID_REQUEST whatever the ACLs.
AlterConfigs on the cluster for a broker or client-metrics resource
(CLUSTER_AUTHORIZATION_FAILED), on the topic (TOPIC_AUTHORIZATION_FAILED), on the group for a
group resource (type 32, KIP-848: GROUP_AUTHORIZATION_FAILED), all without message. An
allowed client-metrics or group resource answers INVALID_REQUEST (Moldau stores neither).

Not implemented: ``alter.config.policy.class.name``.
"""

from __future__ import annotations

from collections.abc import Mapping

from broker.config_admin import ConfigUpdate, alter_resources, check_config_names
from broker.handlers import RequestContext, handler
from protocol.messages import AlterConfigsRequest, AlterConfigsResponse, ApiKey
from storage.config_def import ConfigKey

Result = AlterConfigsResponse.AlterConfigsResourceResponse


@handler(ApiKey.ALTER_CONFIGS, versions=(0, 2))
async def handle_alter_configs(ctx: RequestContext, request: AlterConfigsRequest) -> AlterConfigsResponse:
    results = await alter_resources(
        ctx, request.resources, Result, _replacement, validate_only=request.validate_only, incremental=False
    )
    return AlterConfigsResponse(throttle_time_ms=0, responses=results)


def _replacement(res: AlterConfigsRequest.AlterConfigsResource) -> ConfigUpdate:
    """The given configs replace the whole set (a null value: INVALID_REQUEST)."""
    check_config_names([c.name for c in res.configs], [c.name for c in res.configs if c.value is None])
    given = {c.name: c.value or "" for c in res.configs}

    def replaced(_current: dict[str, str], _keys: Mapping[str, ConfigKey]) -> dict[str, str]:
        return dict(given)

    return replaced
