"""ListGroups (key 16), versions 0-5.

Behaviour: Kafka's ``GroupCoordinator.handleListGroups`` (``coordinator.groups``):
every group this broker coordinates, with its protocol type ("" for a group
that only stores offsets). While ``__consumer_offsets`` is still loading the
groups loaded so far are listed with COORDINATOR_LOAD_IN_PROGRESS.
- States filter (v4+): case-insensitive (KIP-518); an unknown state matches
  no group.
- Types filter (v5+, KIP-848): case-insensitive names of group types
  (``GroupMetadataManager.listGroups`` parses them with ``GroupType.parse``;
  a name it does not know is "unknown" and matches no group). Every group here
  is a classic group: a filter without "classic" lists none.

Version notes: v1 adds throttle time; v3 is flexible; v4 adds the states
filter and each group's state; v5 adds the types filter and each group's type
("classic").

Not implemented: KIP-848 consumer groups and share groups (no group has
another type).

Authorization: with Describe on the cluster every group is listed, else only the groups the
principal may describe.
"""

from __future__ import annotations

from broker.handlers import RequestContext, handler
from coordinator.acl_model import AclOperation, ResourceType
from coordinator.group_metadata import CLASSIC_GROUP_TYPE
from protocol.messages import ApiKey, ListGroupsRequest, ListGroupsResponse

# Kafka's Group.GroupType names; anything else parses as "unknown" (which no group has).
_GROUP_TYPES = frozenset({"consumer", CLASSIC_GROUP_TYPE, "share"})


def _wanted_types(types_filter: list[str]) -> set[str]:
    return {t.lower() if t.lower() in _GROUP_TYPES else "unknown" for t in types_filter}


@handler(ApiKey.LIST_GROUPS, versions=(0, 5))
def handle_list_groups(ctx: RequestContext, request: ListGroupsRequest) -> ListGroupsResponse:
    groups = ctx.broker.groups
    version = ctx.api_version
    states = request.states_filter if version >= 4 else []
    error, overviews = groups.list_groups(states)
    types = _wanted_types(request.types_filter) if version >= 5 else set()
    if types and CLASSIC_GROUP_TYPE not in types:
        overviews = []
    if not ctx.authorize(AclOperation.DESCRIBE, ResourceType.CLUSTER, log_denied=False):
        overviews = [
            g
            for g in overviews
            if ctx.authorize(AclOperation.DESCRIBE, ResourceType.GROUP, g.group_id, log_denied=False)
        ]
    return ListGroupsResponse(
        error_code=error.code,
        groups=[
            ListGroupsResponse.ListedGroup(
                group_id=g.group_id,
                protocol_type=g.protocol_type,
                group_state=g.state,
                group_type=CLASSIC_GROUP_TYPE,
            )
            for g in overviews
        ],
    )
