"""AlterUserScramCredentials (key 51), version 0 (KIP-554).

Behaviour: upsertions (user, mechanism, iterations, salt, salted password) and deletions
(user, mechanism) are applied per user, as Kafka's ``ZkAdminManager``: an empty user name or
too few (< 4096) / too many (> 16384) iterations is UNACCEPTABLE_CREDENTIAL, an unknown
mechanism UNSUPPORTED_SASL_MECHANISM, the same (user, mechanism) twice DUPLICATE_RESOURCE,
deleting a credential that does not exist RESOURCE_NOT_FOUND; a user with any of these is
not changed. The rest are persisted (ZooKeeper ``/config/users/<user>`` with a change
notification, so every broker's credential cache follows; else the local credentials file)
and take effect at once for new authentications on this broker. Logic in
``broker/security/scram_admin.py``.

Authorization (Kafka's ``handleAlterUserScramCredentialsRequest``): Alter on the cluster,
else CLUSTER_AUTHORIZATION_FAILED for each user named, sorted, without a message
(``AlterUserScramCredentialsRequest.getErrorResponse``).

Only the active controller writes (ZooKeeper-mode Kafka, which does not forward it): every
other broker answers NOT_CONTROLLER for each user named, sorted, before authorization, and the
clients (Java Admin, librdkafka) send it to the controller again.
"""

from __future__ import annotations

from broker.handlers import RequestContext, handler
from broker.security.scram_admin import alter_user_scram_credentials
from coordinator.acl_model import AclOperation, ResourceType
from protocol.errors import ErrorCode
from protocol.messages import AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse, ApiKey


@handler(ApiKey.ALTER_USER_SCRAM_CREDENTIALS, versions=(0, 0))
async def handle_alter_user_scram_credentials(
    ctx: RequestContext, request: AlterUserScramCredentialsRequest
) -> AlterUserScramCredentialsResponse:
    if not ctx.broker.topic_admin.is_controller:
        return _every_user_fails(request, ErrorCode.NOT_CONTROLLER)
    if not ctx.authorize(AclOperation.ALTER, ResourceType.CLUSTER):
        return _every_user_fails(request, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    return await alter_user_scram_credentials(ctx.broker.security, request)


def _every_user_fails(
    request: AlterUserScramCredentialsRequest, error: ErrorCode
) -> AlterUserScramCredentialsResponse:
    """``AlterUserScramCredentialsRequest.getErrorResponse``: each user named, sorted, no message."""
    users = {d.name for d in request.deletions} | {u.name for u in request.upsertions}
    return AlterUserScramCredentialsResponse(
        results=[
            AlterUserScramCredentialsResponse.AlterUserScramCredentialsResult(
                user=user, error_code=error.code, error_message=None
            )
            for user in sorted(users)
        ]
    )
