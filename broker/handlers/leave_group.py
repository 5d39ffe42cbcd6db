"""LeaveGroup (key 13), versions 0-5.

Behaviour: Kafka's ``GroupCoordinator.handleLeaveGroup`` (``coordinator.groups``).
Each leaving member is removed and the group rebalances (a member parked in
JoinGroup is answered UNKNOWN_MEMBER_ID). A member id "" with a
``group.instance.id`` removes that static member, whatever its member id
(administrative removal, KIP-345). Per member: UNKNOWN_MEMBER_ID (unknown
member or group), FENCED_INSTANCE_ID (instance id mapped to another member
id). Top level: INVALID_GROUP_ID (empty id), COORDINATOR_NOT_AVAILABLE,
COORDINATOR_LOAD_IN_PROGRESS.

Version notes: v0-2 name one member and carry one error code (the top-level
error, else the member's, as Kafka's ``LeaveGroupResponse``); v3 batches
members with group.instance.id and answers per member; v4 is flexible; v5
adds the reason (KIP-800, logged).

Authorization: Read on the group, else GROUP_AUTHORIZATION_FAILED (no member results).
"""

from __future__ import annotations

from broker.handlers import RequestContext, handler
from coordinator.acl_model import AclOperation, ResourceType
from coordinator.group_membership import LeaveMember
from protocol.errors import ErrorCode
from protocol.messages import ApiKey, LeaveGroupRequest, LeaveGroupResponse


@handler(ApiKey.LEAVE_GROUP, versions=(0, 5))
def handle_leave_group(ctx: RequestContext, request: LeaveGroupRequest) -> LeaveGroupResponse:
    version = ctx.api_version
    if not ctx.authorize(AclOperation.READ, ResourceType.GROUP, request.group_id):
        return LeaveGroupResponse(error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED.code)
    if version < 3:
        members = [LeaveMember(request.member_id)]
    else:
        members = [LeaveMember(m.member_id, m.group_instance_id, m.reason) for m in request.members]
    groups = ctx.broker.groups
    error, member_errors = groups.leave_group(request.group_id, members)
    if version < 3:
        code = error
        if code is ErrorCode.NONE:
            code = next((e for e in member_errors if e is not ErrorCode.NONE), ErrorCode.NONE)
        return LeaveGroupResponse(error_code=code.code)
    return LeaveGroupResponse(
        error_code=error.code,
        members=[
            LeaveGroupResponse.MemberResponse(
                member_id=m.member_id, group_instance_id=m.group_instance_id, error_code=e.code
            )
            for m, e in zip(members, member_errors, strict=False)
        ],
    )
