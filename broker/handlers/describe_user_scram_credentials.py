"""DescribeUserScramCredentials (key 50), version 0 (KIP-554).

Behaviour: the users asked (null or empty: every user with a credential, sorted by name),
each with the mechanisms and iteration counts of its SCRAM credentials (never salts or
keys), read from the credential store (ZooKeeper ``/config/users`` or the local file).
Errors per user as Kafka's ``ZkAdminManager``: RESOURCE_NOT_FOUND for a user without
credentials or an empty name, DUPLICATE_RESOURCE for a user named twice. Logic in
``broker/security/scram_admin.py``.

Not implemented here: authorization (Kafka requires DescribeConfigs on the cluster; the
authorizer adds it).
"""

from __future__ import annotations

from broker.handlers import RequestContext, handler
from broker.security.scram_admin import describe_user_scram_credentials
from protocol.messages import (
    ApiKey,
    DescribeUserScramCredentialsRequest,
    DescribeUserScramCredentialsResponse,
)


@handler(ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS, versions=(0, 0))
async def handle_describe_user_scram_credentials(
    ctx: RequestContext, request: DescribeUserScramCredentialsRequest
) -> DescribeUserScramCredentialsResponse:
    return await describe_user_scram_credentials(ctx.broker.security, request)
