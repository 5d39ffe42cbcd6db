"""Heartbeat (key 12), versions 0-4.

Behaviour: Kafka's ``GroupCoordinator.handleHeartbeat`` (``coordinator.groups``):
a heartbeat from a member of the current generation restarts its session
timer. Errors: INVALID_GROUP_ID (empty id), UNKNOWN_MEMBER_ID (unknown group
or member, or an empty group), FENCED_INSTANCE_ID (a static member's stale
member id), ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS (the member must
rejoin; its session is kept alive meanwhile). While the group's offsets
partition is still loading the answer is NONE, as Kafka's.

Version notes: v1 adds throttle time; v3 adds group.instance.id; v4 is flexible.

Authorization: Read on the group, else GROUP_AUTHORIZATION_FAILED.
"""

from __future__ import annotations

from broker.handlers import RequestContext, handler
from coordinator.acl_model import AclOperation, ResourceType
from protocol.errors import ErrorCode
from protocol.messages import ApiKey, HeartbeatRequest, HeartbeatResponse


@handler(ApiKey.HEARTBEAT, versions=(0, 4))
def handle_heartbeat(ctx: RequestContext, request: HeartbeatRequest) -> HeartbeatResponse:
    if not ctx.authorize(AclOperation.READ, ResourceType.GROUP, request.group_id):
        return HeartbeatResponse(error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED.code)
    groups = ctx.broker.groups
    error = groups.heartbeat(
        request.group_id, request.member_id, request.group_instance_id, request.generation_id
    )
    return HeartbeatResponse(error_code=error.code)
