"""DescribeUserScramCredentials (key 50), version 0 (KIP-554).

Behaviour: the users asked (null or empty: every user with a credential, sorted by name),
each with the mechanisms and iteration counts of its SCRAM credentials (never salts or
keys), read from the credential store (ZooKeeper ``/config/users`` or the local file).
Errors per user as Kafka's ``ZkAdminManager``: RESOURCE_NOT_FOUND for a user without
credentials or an empty name, DUPLICATE_RESOURCE for a user named twice. Logic in
``broker/security/scram_admin.py``.

Authorization (Kafka's ``handleDescribeUserScramCredentialsRequest``): Describe on the
cluster, else the top-level CLUSTER_AUTHORIZATION_FAILED and one result of that error per user
asked, without a name or message (``DescribeUserScramCredentialsRequest.getErrorResponse``).
"""

from __future__ import annotations

from broker.handlers import RequestContext, handler
from broker.security.scram_admin import describe_user_scram_credentials
from coordinator.acl_model import AclOperation, ResourceType
from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    DescribeUserScramCredentialsRequest,
    DescribeUserScramCredentialsResponse,
)


@handler(ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS, versions=(0, 0))
async def handle_describe_user_scram_credentials(
    ctx: RequestContext, request: DescribeUserScramCredentialsRequest
) -> DescribeUserScramCredentialsResponse:
    if not ctx.authorize(AclOperation.DESCRIBE, ResourceType.CLUSTER):
        refused = ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code
        return DescribeUserScramCredentialsResponse(
            error_code=refused,
            error_message=None,
            results=[
                DescribeUserScramCredentialsResponse.DescribeUserScramCredentialsResult(
                    error_code=refused, error_message=None
                )
                for _ in request.users or ()
            ],
        )
    return await describe_user_scram_credentials(ctx.broker.security, request)
