"""FindCoordinator (key 10), versions 0-4.

Behaviour (Kafka's ``KafkaApis.handleFindCoordinatorRequest`` / ``getCoordinator``):
- Key type 0 (group): the coordinator is the leader of the group's partition of
  ``__consumer_offsets``, read from the MetadataCache, and the answer is its endpoint on
  the listener the request came in on (COORDINATOR_NOT_AVAILABLE if the leader has none).
  The offsets topic is created on this first use, as Kafka does:
  COORDINATOR_NOT_AVAILABLE (retriable) until it exists; it is created in the
  background, one partition per event-loop turn.
- Key type 1 (transaction): the same for a transactional id and the leader of its
  partition of ``__transaction_state`` (created on first use the same way).
- Any other key type: INVALID_REQUEST (``CoordinatorType.forId`` rejects it).
- A failed lookup carries Kafka's "no node": node id -1, host "", port -1.

Authorization (before the lookup): Describe on the group (else GROUP_AUTHORIZATION_FAILED)
or on the transactional id (else TRANSACTIONAL_ID_AUTHORIZATION_FAILED).

Version notes: v1 adds key_type and the error message (Kafka sends its error
text, "NONE" on success); v3 is flexible; v4 batches keys (KIP-699): one
``coordinators`` entry per key, no top-level fields.

Not implemented: v5-6 (TRANSACTION_ABORTABLE, share groups, KIP-932).
"""

from __future__ import annotations

import logging
from typing import NamedTuple

from broker.handlers import RequestContext, handler
from coordinator.acl_model import AclOperation, ResourceType
from coordinator.cluster_state import BrokerEndpoint, LiveBroker
from protocol.errors import ErrorCode
from protocol.messages import ApiKey, FindCoordinatorRequest, FindCoordinatorResponse

log = logging.getLogger(__name__)

GROUP_KEY_TYPE = 0
TRANSACTION_KEY_TYPE = 1

_MESSAGES = {
    ErrorCode.NONE: "NONE",  # Errors.NONE.message()
    ErrorCode.COORDINATOR_NOT_AVAILABLE: "The coordinator is not available.",
    ErrorCode.INVALID_REQUEST: "This most likely occurs because of a request being malformed by the client "
    "library or the message was sent to an incompatible broker. See the broker logs for more details.",
    ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED: "Transactional Id authorization failed.",
    ErrorCode.GROUP_AUTHORIZATION_FAILED: "Group authorization failed.",
}


class _Lookup(NamedTuple):
    error: ErrorCode
    message: str | None = None
    node: LiveBroker | None = None
    endpoint: BrokerEndpoint | None = None


def _leader_of(ctx: RequestContext, topic: str, partition: int) -> _Lookup:
    """KafkaApis.getCoordinator: the leader of the key's partition of the internal topic."""
    cache = ctx.broker.metadata_cache
    state = cache.partition_state(topic, partition)
    endpoint = cache.endpoint(state.leader, ctx.listener) if state is not None else None
    if state is None or endpoint is None:
        return _Lookup(ErrorCode.COORDINATOR_NOT_AVAILABLE)
    return _Lookup(ErrorCode.NONE, node=cache.get_alive_broker(state.leader), endpoint=endpoint)


def _lookup(ctx: RequestContext, key_type: int, key: str) -> _Lookup:
    """The coordinator of one key, or the error of its lookup."""
    # KafkaApis.getCoordinator: Describe on the group / transactional id first
    if key_type == GROUP_KEY_TYPE and not ctx.authorize(AclOperation.DESCRIBE, ResourceType.GROUP, key):
        return _Lookup(ErrorCode.GROUP_AUTHORIZATION_FAILED)
    if key_type == TRANSACTION_KEY_TYPE and not ctx.authorize(
        AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, key
    ):
        return _Lookup(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED)
    if key_type == GROUP_KEY_TYPE:
        groups = ctx.broker.groups
        error = groups.find_coordinator(key)
        if error is not ErrorCode.NONE:
            return _Lookup(error)
        return _leader_of(ctx, groups.topic_name, groups.partition_for(key))
    if key_type == TRANSACTION_KEY_TYPE:
        txns = ctx.broker.transactions
        error = txns.find_coordinator(key)
        if error is not ErrorCode.NONE:
            return _Lookup(error)
        return _leader_of(ctx, txns.topic_name, txns.partition_for(key))
    return _Lookup(ErrorCode.INVALID_REQUEST, f"Unknown coordinator type received: {key_type}")


@handler(ApiKey.FIND_COORDINATOR, versions=(0, 4))
def handle_find_coordinator(ctx: RequestContext, request: FindCoordinatorRequest) -> FindCoordinatorResponse:
    if ctx.api_version >= 4:
        coordinators = []
        for key in request.coordinator_keys:
            found = _lookup(ctx, request.key_type, key)
            ok = found.node is not None and found.endpoint is not None
            coordinators.append(
                FindCoordinatorResponse.Coordinator(
                    key=key,
                    node_id=found.node.broker_id if ok else -1,
                    host=found.endpoint.host if ok else "",
                    port=found.endpoint.port if ok else -1,
                    error_code=found.error.code,
                    error_message=found.message
                    if found.message is not None
                    else ("" if ok else _MESSAGES.get(found.error, "")),
                )
            )
        return FindCoordinatorResponse(coordinators=coordinators)
    found = _lookup(ctx, request.key_type, request.key)
    if found.node is None or found.endpoint is None:
        return FindCoordinatorResponse(
            error_code=found.error.code,
            error_message=found.message or _MESSAGES.get(found.error, found.error.name),
            node_id=-1,
            host="",
            port=-1,
        )
    return FindCoordinatorResponse(
        error_code=0,
        error_message=_MESSAGES[ErrorCode.NONE],
        node_id=found.node.broker_id,
        host=found.endpoint.host,
        port=found.endpoint.port,
    )
