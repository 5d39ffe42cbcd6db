"""DeleteGroups (key 42), versions 0-2.

Behaviour: Kafka's ``GroupCoordinator.handleDeleteGroups`` (``coordinator.groups``):
an Empty group is deleted with all its committed offsets (tombstones for its
offsets and its metadata go to ``__consumer_offsets`` with acks=0, as
``GroupMetadataManager.cleanupGroupMetadata``: a short ISR does not keep them out,
so the group does not come back on a reload); its commits still being written
are not cached. Per group:
GROUP_ID_NOT_FOUND (unknown), NON_EMPTY_GROUP (it has members),
COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS. A group named twice
is answered once (Kafka takes the distinct names).

Version notes: v1 is the same (throttling before the answer); v2 is flexible.

Authorization: Delete on each group, else GROUP_AUTHORIZATION_FAILED for it.
"""

from __future__ import annotations

from broker.authorization import group_denied
from broker.handlers import RequestContext, handler
from coordinator.acl_model import AclOperation
from protocol.errors import ErrorCode
from protocol.messages import ApiKey, DeleteGroupsRequest, DeleteGroupsResponse


@handler(ApiKey.DELETE_GROUPS, versions=(0, 2))
def handle_delete_groups(ctx: RequestContext, request: DeleteGroupsRequest) -> DeleteGroupsResponse:
    names = list(dict.fromkeys(request.groups_names))
    groups = ctx.broker.groups
    denied = group_denied(ctx, AclOperation.DELETE, names)
    results = {
        **groups.delete_groups([n for n in names if n not in denied]),
        **dict.fromkeys(denied, ErrorCode.GROUP_AUTHORIZATION_FAILED),
    }
    return DeleteGroupsResponse(
        results=[
            DeleteGroupsResponse.DeletableGroupResult(group_id=name, error_code=results[name].code)
            for name in names
        ]
    )
