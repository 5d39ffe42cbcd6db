"""DescribeConfigs / AlterConfigs / IncrementalAlterConfigs authorization (KafkaApis,
ConfigHelper, ConfigAdminManager): which resource types are checked against what, the
denials' messages, and ConfigAdminManager.preprocess's refusals before any check."""

from __future__ import annotations

from coordinator.acl_model import AclOperation as Op
from coordinator.acl_model import ResourceType as T
from protocol.errors import ErrorCode
from protocol.messages import (
    AlterConfigsRequest,
    DescribeConfigsRequest,
    IncrementalAlterConfigsRequest,
)
from tests.security.authz_broker import Secured, create_topic, secured_fixtures, unique
from tests.support.wire_client import WireClient

TOPIC, BROKER, BROKER_LOGGER, CLIENT_METRICS, GROUP = 2, 4, 8, 16, 32
SET = 0


secured, admin, alice, clean_acls = secured_fixtures("authz-configs")


def test_describe_configs_denial_carries_kafkas_message(admin: WireClient, alice: WireClient) -> None:
    """ConfigHelper.handleDescribeConfigsRequest answers an unauthorized resource with
    ``setErrorMessage(error.message)``: "Topic authorization failed." for a topic,
    "Cluster authorization failed." for a broker resource."""
    name = unique("dc")
    create_topic(admin, name)
    r = alice.request(
        DescribeConfigsRequest(
            resources=[
                DescribeConfigsRequest.DescribeConfigsResource(resource_type=TOPIC, resource_name=name),
                DescribeConfigsRequest.DescribeConfigsResource(resource_type=BROKER, resource_name="0"),
            ]
        ),
        4,
    )
    got = {(x.resource_type, x.error_code, x.error_message) for x in r.results}
    assert got == {
        (TOPIC, ErrorCode.TOPIC_AUTHORIZATION_FAILED.code, "Topic authorization failed."),
        (BROKER, ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code, "Cluster authorization failed."),
    }


def test_group_config_resource_denied_with_group_authorization_failed(alice: WireClient) -> None:
    """ConfigHelper.handleDescribeConfigsRequest and KafkaApis.processIncrementalAlterConfigsRequest
    authorize a GROUP config resource (type 32, KIP-848) with DescribeConfigs / AlterConfigs
    on the group and answer GROUP_AUTHORIZATION_FAILED (``configsAuthorizationApiError``)
    when refused, before looking at the resource."""
    group = unique("g")
    d = alice.request(
        DescribeConfigsRequest(
            resources=[
                DescribeConfigsRequest.DescribeConfigsResource(resource_type=GROUP, resource_name=group)
            ]
        ),
        4,
    )
    assert [x.error_code for x in d.results] == [ErrorCode.GROUP_AUTHORIZATION_FAILED.code]
    a = alice.request(
        IncrementalAlterConfigsRequest(
            resources=[
                IncrementalAlterConfigsRequest.AlterConfigsResource(
                    resource_type=GROUP,
                    resource_name=group,
                    configs=[
                        IncrementalAlterConfigsRequest.AlterableConfig(
                            name="consumer.session.timeout.ms", config_operation=SET, value="45000"
                        )
                    ],
                )
            ]
        ),
        1,
    )
    assert [x.error_code for x in a.responses] == [ErrorCode.GROUP_AUTHORIZATION_FAILED.code]


def test_alter_configs_preprocessing_errors_come_before_authorization(
    admin: WireClient, alice: WireClient
) -> None:
    """KafkaApis.handleAlterConfigsRequest / handleIncrementalAlterConfigsRequest run
    ``ConfigAdminManager.preprocess`` first: duplicate config names ("Error due to duplicate
    config keys") and null values ("Null value not supported for : ...") are INVALID_REQUEST
    for the resource, and such a resource is never authorized; only the remaining ones go
    to ``process*AlterConfigsRequest``'s ALTER_CONFIGS check."""
    name = unique("ac")
    create_topic(admin, name)
    legacy = alice.request(
        AlterConfigsRequest(
            resources=[
                AlterConfigsRequest.AlterConfigsResource(
                    resource_type=TOPIC,
                    resource_name=name,
                    configs=[AlterConfigsRequest.AlterableConfig(name="retention.ms", value=None)],
                )
            ]
        ),
        2,
    )
    assert [x.error_code for x in legacy.responses] == [ErrorCode.INVALID_REQUEST.code]
    incremental = alice.request(
        IncrementalAlterConfigsRequest(
            resources=[
                IncrementalAlterConfigsRequest.AlterConfigsResource(
                    resource_type=TOPIC,
                    resource_name=name,
                    configs=[
                        IncrementalAlterConfigsRequest.AlterableConfig(
                            name="retention.ms", config_operation=SET, value="1000"
                        ),
                        IncrementalAlterConfigsRequest.AlterableConfig(
                            name="retention.ms", config_operation=SET, value="2000"
                        ),
                    ],
                )
            ]
        ),
        1,
    )
    assert [x.error_code for x in incremental.responses] == [ErrorCode.INVALID_REQUEST.code]


def test_broker_resource_of_another_broker_is_invalid_before_authorization(alice: WireClient) -> None:
    """ConfigAdminManager.preprocess: a BROKER resource naming another broker fails
    ``validateResourceNameIsCurrentNodeId`` (INVALID_REQUEST) before the ALTER_CONFIGS check
    on the cluster, which only the resources left after preprocessing get."""
    r = alice.request(
        IncrementalAlterConfigsRequest(
            resources=[
                IncrementalAlterConfigsRequest.AlterConfigsResource(
                    resource_type=BROKER,
                    resource_name="7",
                    configs=[
                        IncrementalAlterConfigsRequest.AlterableConfig(
                            name="log.retention.ms", config_operation=SET, value="1000"
                        )
                    ],
                )
            ]
        ),
        1,
    )
    assert [x.error_code for x in r.responses] == [ErrorCode.INVALID_REQUEST.code]


def test_legacy_alter_configs_broker_logger_is_invalid_before_authorization(alice: WireClient) -> None:
    """ConfigAdminManager.preprocess(AlterConfigsRequestData): legacy AlterConfigs does not
    support BROKER_LOGGER (type 8): "Unknown resource type 8", INVALID_REQUEST, before (and
    instead of) the ALTER_CONFIGS check on the cluster."""
    r = alice.request(
        AlterConfigsRequest(
            resources=[
                AlterConfigsRequest.AlterConfigsResource(
                    resource_type=8,
                    resource_name="0",
                    configs=[AlterConfigsRequest.AlterableConfig(name="kafka", value="DEBUG")],
                )
            ]
        ),
        2,
    )
    assert [x.error_code for x in r.responses] == [ErrorCode.INVALID_REQUEST.code]


def _describe(client: WireClient, rtype: int, name: str) -> tuple[int, str | None]:
    r = client.request(
        DescribeConfigsRequest(
            resources=[
                DescribeConfigsRequest.DescribeConfigsResource(resource_type=rtype, resource_name=name)
            ]
        ),
        4,
    )
    (result,) = r.results
    return result.error_code, result.error_message


def _incremental(
    client: WireClient, rtype: int, name: str, config: str, value: str
) -> tuple[int, str | None]:
    r = client.request(
        IncrementalAlterConfigsRequest(
            resources=[
                IncrementalAlterConfigsRequest.AlterConfigsResource(
                    resource_type=rtype,
                    resource_name=name,
                    configs=[
                        IncrementalAlterConfigsRequest.AlterableConfig(
                            name=config, config_operation=SET, value=value
                        )
                    ],
                )
            ]
        ),
        1,
    )
    (result,) = r.responses
    return result.error_code, result.error_message


def test_client_metrics_resource_is_checked_against_the_cluster(alice: WireClient) -> None:
    """ConfigHelper.handleDescribeConfigsRequest and process*AlterConfigsRequest authorize a
    CLIENT_METRICS resource (type 16) with DescribeConfigs / AlterConfigs on the cluster:
    CLUSTER_AUTHORIZATION_FAILED, with Errors' message when describing, without
    (``configsAuthorizationApiError``'s ``new ApiError(error, null)``) when altering."""
    cluster_auth = ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code
    assert _describe(alice, CLIENT_METRICS, "sub") == (cluster_auth, "Cluster authorization failed.")
    assert _incremental(alice, CLIENT_METRICS, "sub", "interval.ms", "1000") == (cluster_auth, None)


def test_allowed_group_resource_is_invalid_request(secured: Secured, alice: WireClient) -> None:
    """With AlterConfigs on the group, a GROUP config resource passes authorization and is
    refused by ZkAdminManager.incrementalAlterConfigs: INVALID_REQUEST "AlterConfigs is only
    supported for topics and brokers, but resource type is GROUP"."""
    group = unique("g")
    secured.grant(T.GROUP, group, Op.ALTER_CONFIGS)
    assert _incremental(alice, GROUP, group, "consumer.session.timeout.ms", "45000") == (
        ErrorCode.INVALID_REQUEST.code,
        "AlterConfigs is only supported for topics and brokers, but resource type is GROUP",
    )


def test_incremental_broker_logger_is_authorized_in_preprocessing(
    admin: WireClient, alice: WireClient
) -> None:
    """ConfigAdminManager.preprocess hands a BROKER_LOGGER resource to
    RuntimeLoggerManager.applyChangesForResource, which refuses an unauthorized principal with
    ``ClusterAuthorizationException(Errors.CLUSTER_AUTHORIZATION_FAILED.message())``: the
    message is carried. Allowed, Moldau (no broker loggers) answers INVALID_REQUEST."""
    assert _incremental(alice, BROKER_LOGGER, "0", "kafka", "DEBUG") == (
        ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code,
        "Cluster authorization failed.",
    )
    assert _incremental(admin, BROKER_LOGGER, "0", "kafka", "DEBUG")[0] == ErrorCode.INVALID_REQUEST.code
