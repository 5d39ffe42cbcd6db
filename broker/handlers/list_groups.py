"""ListGroups (key 16), versions 0-4.

Behaviour: Kafka's ``GroupCoordinator.handleListGroups`` (``coordinator.groups``):
every group this broker coordinates, with its protocol type ("" for a group
that only stores offsets). While ``__consumer_offsets`` is still loading the
groups loaded so far are listed with COORDINATOR_LOAD_IN_PROGRESS.

Version notes: v1 adds throttle time; v3 is flexible; v4 adds the states
filter (case-insensitive, KIP-518) and each group's state.

Not implemented: v5 (group types filter, KIP-848); authorization.
"""

from __future__ import annotations

from broker.handlers import RequestContext, handler
from protocol.messages import ApiKey, ListGroupsRequest, ListGroupsResponse


@handler(ApiKey.LIST_GROUPS, versions=(0, 4))
def handle_list_groups(ctx: RequestContext, request: ListGroupsRequest) -> ListGroupsResponse:
    groups = ctx.broker.groups
    states = request.states_filter if ctx.api_version >= 4 else []
    error, overviews = groups.list_groups(states)
    return ListGroupsResponse(
        error_code=error.code,
        groups=[
            ListGroupsResponse.ListedGroup(
                group_id=g.group_id, protocol_type=g.protocol_type, group_state=g.state
            )
            for g in overviews
        ],
    )
