"""DescribeAcls (key 29), versions 1-3: the ACLs matching a filter.

Behaviour (Kafka's ``AclApis.handleDescribeAcls``): the principal needs Describe on the
cluster, else CLUSTER_AUTHORIZATION_FAILED (checked first, as Kafka's
``authorizeClusterOperation``); without ``authorizer.class.name`` the answer is
SECURITY_DISABLED ("No Authorizer is configured on the broker"). A filter with an UNKNOWN
element (resource type, pattern type, operation or permission type code this broker does
not know) is INVALID_REQUEST. Otherwise every ACL of this broker's cache that matches:
resource type (ANY matches all), name (null matches all), pattern type (ANY; MATCH: the
literal, wildcard and prefixed patterns that apply to the named resource; or exact),
principal, host (null matches all), operation and permission type (ANY matches all),
grouped by resource pattern.

Version notes: v0 (removed in Kafka 4.0, KIP-896; Kafka 3.9 serves it) had no pattern types
and is not served; v1 adds them (KIP-290); v2 is flexible; v3 adds the user resource type
(KIP-554), which this broker stores no ACLs for.

Not implemented: throttling (ThrottleTimeMs is always 0).
"""

from __future__ import annotations

from itertools import groupby

from broker.handlers import RequestContext, handler
from coordinator.acl_model import AclBindingFilter, AclOperation, ResourceType
from protocol.errors import ErrorCode
from protocol.messages import ApiKey, DescribeAclsRequest, DescribeAclsResponse


@handler(ApiKey.DESCRIBE_ACLS, versions=(1, 3))
def handle_describe_acls(ctx: RequestContext, request: DescribeAclsRequest) -> DescribeAclsResponse:
    if not ctx.authorize(AclOperation.DESCRIBE, ResourceType.CLUSTER):
        return _error(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, "Request DescribeAcls is not authorized.")
    authorizer = ctx.broker.authorizer
    if not authorizer.enabled:
        return _error(ErrorCode.SECURITY_DISABLED, "No Authorizer is configured on the broker")
    acl_filter = AclBindingFilter.from_wire(
        request.resource_type_filter,
        request.resource_name_filter,
        request.pattern_type_filter,
        request.principal_filter,
        request.host_filter,
        request.operation,
        request.permission_type,
    )
    problem = acl_filter.problem()
    if problem is not None:
        return _error(ErrorCode.INVALID_REQUEST, problem)
    resources = []
    for pattern, bindings in groupby(authorizer.acls(acl_filter), key=lambda b: b.pattern):
        resources.append(
            DescribeAclsResponse.DescribeAclsResource(
                resource_type=int(pattern.resource_type),
                resource_name=pattern.name,
                pattern_type=int(pattern.pattern_type),
                acls=[
                    DescribeAclsResponse.AclDescription(
                        principal=b.entry.principal,
                        host=b.entry.host,
                        operation=int(b.entry.operation),
                        permission_type=int(b.entry.permission_type),
                    )
                    for b in bindings
                ],
            )
        )
    return DescribeAclsResponse(error_code=0, error_message=None, resources=resources)


def _error(error: ErrorCode, message: str) -> DescribeAclsResponse:
    return DescribeAclsResponse(error_code=error.code, error_message=message, resources=[])
