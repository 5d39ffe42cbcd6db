"""DescribeGroups (key 15), versions 0-5.

Behaviour: Kafka's ``GroupCoordinator.handleDescribeGroup`` for each group
named (``coordinator.groups``): state (Empty, PreparingRebalance,
CompletingRebalance, Stable, Dead), protocol type, and in a Stable group the
selected protocol and each member's metadata and assignment (other states
list members without them). An unknown group is described as Dead with no
members and no error, as Kafka does before v6. An empty group id is allowed
(it is a valid group for offset storage). Per-group errors:
COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS, GROUP_AUTHORIZATION_FAILED
(the principal lacks Describe on the group; it is not described).

Version notes: v1 adds throttle time; v3 adds authorized operations on request
(KIP-430: what the principal may do on the group; no authorizer: READ, DESCRIBE,
DELETE); v4 adds members' group.instance.id;
v5 is flexible.

Not implemented: v6 (GROUP_ID_NOT_FOUND for unknown groups, KIP-1043).
"""

from __future__ import annotations

from broker import authorized_operations as ops
from broker.handlers import RequestContext, handler
from coordinator.acl_model import AclOperation, ResourceType
from protocol.errors import ErrorCode
from protocol.messages import ApiKey, DescribeGroupsRequest, DescribeGroupsResponse

Described = DescribeGroupsResponse.DescribedGroup


@handler(ApiKey.DESCRIBE_GROUPS, versions=(0, 5))
def handle_describe_groups(ctx: RequestContext, request: DescribeGroupsRequest) -> DescribeGroupsResponse:
    groups = ctx.broker.groups
    with_ops = ctx.api_version >= 3 and request.include_authorized_operations
    described = []
    for group_id in request.groups:
        if not ctx.authorize(AclOperation.DESCRIBE, ResourceType.GROUP, group_id):
            described.append(
                Described(error_code=ErrorCode.GROUP_AUTHORIZATION_FAILED.code, group_id=group_id)
            )
            continue
        error, summary = groups.describe_group(group_id)
        described.append(
            Described(
                error_code=error.code,
                group_id=group_id,
                group_state=summary.state,
                protocol_type=summary.protocol_type,
                protocol_data=summary.protocol,
                members=[
                    DescribeGroupsResponse.DescribedGroupMember(
                        member_id=m.member_id,
                        group_instance_id=m.group_instance_id,
                        client_id=m.client_id,
                        client_host=m.client_host,
                        member_metadata=m.metadata,
                        member_assignment=m.assignment,
                    )
                    for m in summary.members
                ],
                authorized_operations=ops.group(ctx, group_id)
                if with_ops and error is ErrorCode.NONE
                else ops.NOT_REQUESTED,
            )
        )
    return DescribeGroupsResponse(groups=described)
