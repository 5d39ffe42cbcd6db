"""JoinGroup (key 11), versions 0-9.

Behaviour: Kafka's classic group protocol (``GroupCoordinator.handleJoinGroup``),
served by ``coordinator.groups``. The request parks this connection only (an
async handler) until the rebalance completes: when every known member has
rejoined, when the rebalance timeout fires, or after
``group.initial.rebalance.delay.ms`` for the first rebalance of an empty group.
- An empty group id: INVALID_GROUP_ID; a session timeout outside
  ``group.min/max.session.timeout.ms``: INVALID_SESSION_TIMEOUT.
- A new member of a group with another protocol type, or with no protocol in
  common with all members: INCONSISTENT_GROUP_PROTOCOL.
- The leader's answer carries every member's metadata for the selected
  protocol (the one most members prefer among those all support).
- ``group.max.size``: GROUP_MAX_SIZE_REACHED.
- Static members (``group.instance.id``, KIP-345): a known instance rejoining
  without a member id gets a new id and replaces the old one without a
  rebalance when the selected protocol stays; the old id is then fenced
  (FENCED_INSTANCE_ID).
- The member id is ``<client.id>-<uuid>`` (``<group.instance.id>-<uuid>`` for
  static members), its prefix shortened if the id would not fit a Kafka string
  (32767 bytes; Kafka would fail to serialize its answer); the client host is
  the peer address as Kafka prints it (``/127.0.0.1``).

Version notes: v0 has no rebalance timeout (the session timeout is used);
v2 adds throttle time; v4 makes a new dynamic member join twice
(MEMBER_ID_REQUIRED with its id, KIP-394); v5 adds group.instance.id; v6 is
flexible; v7 returns the protocol type and a nullable protocol name (KIP-559);
v8 adds the reason (KIP-800, logged); v9 adds skip_assignment (KIP-814: a
static leader rejoining a stable group learns it leads without reassigning).

Authorization: Read on the group, else GROUP_AUTHORIZATION_FAILED answered as
``JoinGroupRequest.getErrorResponse``: member id and leader "", generation -1, protocol name
"" (null from v7), whatever member id the request carried.

Not implemented: KIP-848 consumer
groups (ConsumerGroupHeartbeat) and upgrading a classic group to them.
"""

from __future__ import annotations

import asyncio

from broker.handlers import RequestContext, handler, java_host_address
from coordinator.acl_model import AclOperation, ResourceType
from coordinator.group_metadata import JoinRequest, JoinResult
from protocol.errors import ErrorCode
from protocol.messages import ApiKey, JoinGroupRequest, JoinGroupResponse


def client_host(peer: str) -> str:
    """Kafka's ``InetAddress.toString`` of the peer (KafkaApis.handleJoinGroupRequest's
    ``request.context.clientAddress.toString``): ``/<ip>``, the IP as Java writes it
    (``/0:0:0:0:0:0:0:1`` for ``::1``, ``java_host_address``)."""
    host = peer.rsplit(":", 1)[0] if ":" in peer else peer
    return "/" + java_host_address(host.strip("[]"))


def _response(version: int, result: JoinResult) -> JoinGroupResponse:
    protocol_name = result.protocol_name
    # JoinGroupResponse: before v7 the name is not nullable ("" instead); from v7 "" goes as null.
    if version < 7 and protocol_name is None:
        protocol_name = ""
    elif version >= 7 and protocol_name == "":
        protocol_name = None
    return JoinGroupResponse(
        error_code=result.error.code,
        generation_id=result.generation_id,
        protocol_type=result.protocol_type,
        protocol_name=protocol_name,
        leader=result.leader_id,
        skip_assignment=result.skip_assignment,
        member_id=result.member_id,
        members=[
            JoinGroupResponse.JoinGroupResponseMember(
                member_id=m.member_id, group_instance_id=m.group_instance_id, metadata=m.metadata
            )
            for m in result.members
        ],
    )


@handler(ApiKey.JOIN_GROUP, versions=(0, 9))
async def handle_join_group(ctx: RequestContext, request: JoinGroupRequest) -> JoinGroupResponse:
    version = ctx.api_version
    groups = ctx.broker.groups
    if not ctx.authorize(AclOperation.READ, ResourceType.GROUP, request.group_id):
        # KafkaApis.handleJoinGroupRequest: joinGroupRequest.getErrorResponse (UNKNOWN_MEMBER_ID "")
        return _response(version, JoinResult(ErrorCode.GROUP_AUTHORIZATION_FAILED, ""))
    req = JoinRequest(
        group_id=request.group_id,
        member_id=request.member_id,
        group_instance_id=request.group_instance_id,
        client_id=ctx.client_id or "",
        client_host=client_host(ctx.peer),
        rebalance_timeout_ms=request.session_timeout_ms if version == 0 else request.rebalance_timeout_ms,
        session_timeout_ms=request.session_timeout_ms,
        protocol_type=request.protocol_type,
        protocols=[(p.name, bytes(p.metadata)) for p in request.protocols],
        require_known_member_id=version >= 4 and request.group_instance_id is None,
        support_skip_assignment=version >= 9,
        reason=request.reason,
    )
    answer: asyncio.Future[JoinResult] = asyncio.get_running_loop().create_future()

    def respond(result: JoinResult) -> None:
        if not answer.done():  # the connection may be gone (the handler task was cancelled)
            answer.set_result(result)

    groups.join_group(req, respond)
    return _response(version, await answer)
