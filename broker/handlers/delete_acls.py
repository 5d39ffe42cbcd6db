"""DeleteAcls (key 31), versions 1-3: remove the ACLs matching filters.

Behaviour (Kafka's ``AclApis.handleDeleteAcls`` and ``AclAuthorizer.deleteAcls``): the
principal needs Alter on the cluster, else every filter is CLUSTER_AUTHORIZATION_FAILED;
without ``authorizer.class.name`` every filter is SECURITY_DISABLED. A filter with an UNKNOWN
element is INVALID_REQUEST (the others are still applied). Each filter matches as in
DescribeAcls; an ACL matched by several filters is reported under the first. The resources
are those of this broker's cache plus the ones a filter names exactly (an ACL created
through another broker whose notification has not arrived yet is still found, as in Kafka).
Each deleted ACL is listed in its filter's result; a storage failure marks the ACLs of that
resource UNKNOWN_SERVER_ERROR.

Version notes: v0 (removed in Kafka 4.0, KIP-896) is not served; v1 adds pattern types
(KIP-290); v2 is flexible; v3 adds the user resource type (KIP-554).

Not implemented: throttling (ThrottleTimeMs is always 0).
"""

from __future__ import annotations

from broker.handlers import RequestContext, handler
from coordinator.acl_model import AclBindingFilter, AclOperation, ResourceType
from protocol.errors import ErrorCode
from protocol.messages import ApiKey, DeleteAclsRequest, DeleteAclsResponse


@handler(ApiKey.DELETE_ACLS, versions=(1, 3))
async def handle_delete_acls(ctx: RequestContext, request: DeleteAclsRequest) -> DeleteAclsResponse:
    if not ctx.authorize(AclOperation.ALTER, ResourceType.CLUSTER):
        return _all(request, ErrorCode.CLUSTER_AUTHORIZATION_FAILED, "Request DeleteAcls is not authorized.")
    authorizer = ctx.broker.authorizer
    if not authorizer.enabled:
        return _all(request, ErrorCode.SECURITY_DISABLED, "No Authorizer is configured.")
    filters = [
        AclBindingFilter.from_wire(
            f.resource_type_filter,
            f.resource_name_filter,
            f.pattern_type_filter,
            f.principal_filter,
            f.host_filter,
            f.operation,
            f.permission_type,
        )
        for f in request.filters
    ]
    problems = [f.problem() for f in filters]
    valid = [f for f, problem in zip(filters, problems, strict=True) if problem is None]
    deleted = iter(await authorizer.delete_acls(valid))
    results = []
    for problem in problems:
        if problem is not None:
            results.append(_result(ErrorCode.INVALID_REQUEST, problem))
            continue
        result = _result(ErrorCode.NONE, None)
        for binding, failure in next(deleted):
            error = ErrorCode.NONE if failure is None else ErrorCode.UNKNOWN_SERVER_ERROR
            pattern, entry = binding
            result.matching_acls.append(
                DeleteAclsResponse.DeleteAclsMatchingAcl(
                    error_code=error.code,
                    error_message=None if failure is None else str(failure),
                    resource_type=int(pattern.resource_type),
                    resource_name=pattern.name,
                    pattern_type=int(pattern.pattern_type),
                    principal=entry.principal,
                    host=entry.host,
                    operation=int(entry.operation),
                    permission_type=int(entry.permission_type),
                )
            )
        results.append(result)
    return DeleteAclsResponse(filter_results=results)


def _result(error: ErrorCode, message: str | None) -> DeleteAclsResponse.DeleteAclsFilterResult:
    return DeleteAclsResponse.DeleteAclsFilterResult(
        error_code=error.code, error_message=message, matching_acls=[]
    )


def _all(request: DeleteAclsRequest, error: ErrorCode, message: str) -> DeleteAclsResponse:
    return DeleteAclsResponse(filter_results=[_result(error, message) for _ in request.filters])
