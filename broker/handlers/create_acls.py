"""CreateAcls (key 30), versions 1-3: add ACLs.

Behaviour (Kafka's ``AclApis.handleCreateAcls`` and ``AclAuthorizer.createAcls``): the
principal needs Alter on the cluster, else every creation is CLUSTER_AUTHORIZATION_FAILED;
without ``authorizer.class.name`` every creation is SECURITY_DISABLED. Each creation is
answered on its own: INVALID_REQUEST for a Cluster resource not named ``kafka-cluster``, an
empty name, a name with ``/``, an UNKNOWN or ANY element, a pattern type other than LITERAL
or PREFIXED, a principal not of the form ``Type:name`` or an empty host; a resource type
without ACLs here (DelegationToken, User) is INVALID_REQUEST too. The ACLs of one resource
pattern are written together (ZooKeeper or ``acls.json``, see ``coordinator.acl_store``);
creating an ACL that exists succeeds and changes nothing. A storage failure answers
UNKNOWN_SERVER_ERROR for the creations of that resource.

Version notes: v0 (removed in Kafka 4.0, KIP-896) is not served; v1 adds pattern types
(KIP-290); v2 is flexible; v3 adds the user resource type (KIP-554).

Not implemented: throttling (ThrottleTimeMs is always 0).
"""

from __future__ import annotations

from broker.handlers import RequestContext, handler
from coordinator.acl_model import (
    AccessControlEntry,
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourcePattern,
    ResourceType,
    coerce_enum,
)
from protocol.errors import ErrorCode
from protocol.messages import ApiKey, CreateAclsRequest, CreateAclsResponse


@handler(ApiKey.CREATE_ACLS, versions=(1, 3))
async def handle_create_acls(ctx: RequestContext, request: CreateAclsRequest) -> CreateAclsResponse:
    if not ctx.authorize(AclOperation.ALTER, ResourceType.CLUSTER):
        return _all(request, ErrorCode.CLUSTER_AUTHORIZATION_FAILED, "Request CreateAcls is not authorized.")
    authorizer = ctx.broker.authorizer
    if not authorizer.enabled:
        return _all(request, ErrorCode.SECURITY_DISABLED, "No Authorizer is configured.")
    bindings = [
        AclBinding(
            ResourcePattern(
                ResourceType(coerce_enum(ResourceType, c.resource_type)),
                c.resource_name,
                PatternType(coerce_enum(PatternType, c.resource_pattern_type)),
            ),
            AccessControlEntry(
                c.principal,
                c.host,
                AclOperation(coerce_enum(AclOperation, c.operation)),
                AclPermissionType(coerce_enum(AclPermissionType, c.permission_type)),
            ),
        )
        for c in request.creations
    ]
    results = []
    for failure in await authorizer.create_acls(bindings):
        if failure is None:
            results.append(CreateAclsResponse.AclCreationResult(error_code=0, error_message=None))
        else:
            error = ErrorCode.INVALID_REQUEST if failure.invalid else ErrorCode.UNKNOWN_SERVER_ERROR
            results.append(
                CreateAclsResponse.AclCreationResult(error_code=error.code, error_message=str(failure))
            )
    return CreateAclsResponse(results=results)


def _all(request: CreateAclsRequest, error: ErrorCode, message: str) -> CreateAclsResponse:
    return CreateAclsResponse(
        results=[
            CreateAclsResponse.AclCreationResult(error_code=error.code, error_message=message)
            for _ in request.creations
        ]
    )
