"""SyncGroup (key 14), versions 0-5.

Behaviour: Kafka's ``GroupCoordinator.handleSyncGroup`` (``coordinator.groups``).
After a rebalance the leader sends the assignment of every member; the other
members' SyncGroup parks their connection until it arrives (or until the
group rebalances again: REBALANCE_IN_PROGRESS). Members without an
assignment from the leader get an empty one. In a stable group every member
gets its current assignment at once.
- Empty group id: INVALID_GROUP_ID; unknown group or member: UNKNOWN_MEMBER_ID;
  wrong generation: ILLEGAL_GENERATION; a static member with a stale member id:
  FENCED_INSTANCE_ID; group rebalancing: REBALANCE_IN_PROGRESS; group still
  loading: REBALANCE_IN_PROGRESS (as Kafka: older clients do not know
  COORDINATOR_LOAD_IN_PROGRESS here, and the rebalance must start over).
- v5: protocol type and name must be sent (else INCONSISTENT_GROUP_PROTOCOL,
  ``SyncGroupRequest.areMandatoryProtocolTypeAndNamePresent``, checked before
  authorization) and match the group's (else INCONSISTENT_GROUP_PROTOCOL).
- The leader's assignment is written to ``__consumer_offsets`` (the group's
  GroupMetadataValue) before anyone is answered.

Version notes: v1 adds throttle time; v3 adds group.instance.id; v4 is
flexible; v5 carries protocol type and name both ways (KIP-559).

Authorization: Read on the group, else GROUP_AUTHORIZATION_FAILED (after the v5 check
above, as ``KafkaApis.handleSyncGroupRequest``).
"""

from __future__ import annotations

import asyncio

from broker.handlers import RequestContext, handler
from coordinator.acl_model import AclOperation, ResourceType
from coordinator.group_metadata import SyncResult
from protocol.errors import ErrorCode
from protocol.messages import ApiKey, SyncGroupRequest, SyncGroupResponse


def _response(result: SyncResult) -> SyncGroupResponse:
    return SyncGroupResponse(
        error_code=result.error.code,
        protocol_type=result.protocol_type,
        protocol_name=result.protocol_name,
        assignment=result.assignment,
    )


@handler(ApiKey.SYNC_GROUP, versions=(0, 5))
async def handle_sync_group(ctx: RequestContext, request: SyncGroupRequest) -> SyncGroupResponse:
    groups = ctx.broker.groups
    # KafkaApis.handleSyncGroupRequest: the mandatory fields before the Read check
    if ctx.api_version >= 5 and (request.protocol_type is None or request.protocol_name is None):
        return _response(SyncResult(ErrorCode.INCONSISTENT_GROUP_PROTOCOL))
    if not ctx.authorize(AclOperation.READ, ResourceType.GROUP, request.group_id):
        return _response(SyncResult(ErrorCode.GROUP_AUTHORIZATION_FAILED))
    assignments = {a.member_id: bytes(a.assignment) for a in request.assignments}  # the last one wins
    answer: asyncio.Future[SyncResult] = asyncio.get_running_loop().create_future()

    def respond(result: SyncResult) -> None:
        if not answer.done():  # the connection may be gone (the handler task was cancelled)
            answer.set_result(result)

    groups.sync_group(
        request.group_id,
        request.generation_id,
        request.member_id,
        request.group_instance_id,
        request.protocol_type,
        request.protocol_name,
        assignments,
        respond,
    )
    return _response(await answer)
