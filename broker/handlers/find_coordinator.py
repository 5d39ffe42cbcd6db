"""FindCoordinator (key 10), versions 0-4.

Behaviour (Kafka's ``KafkaApis.handleFindCoordinatorRequest`` / ``getCoordinator``):
- Key type 0 (group): this broker coordinates every group (it leads every
  partition of ``__consumer_offsets``); the answer is its endpoint on the
  listener the request came in on. The offsets topic is created on this first
  use, as Kafka does: COORDINATOR_NOT_AVAILABLE (retriable) until it exists;
  it is created in the background, one partition per event-loop turn.
- Key type 1 (transaction): no transaction coordinator exists yet, so every
  key gets INVALID_REQUEST with a message saying so (the Java client fails
  ``initTransactions`` with it at once instead of retrying for max.block.ms).
- Any other key type: INVALID_REQUEST (``CoordinatorType.forId`` rejects it).
- A failed lookup carries Kafka's "no node": node id -1, host "", port -1.

Version notes: v1 adds key_type and the error message (Kafka sends its error
text, "NONE" on success); v3 is flexible; v4 batches keys (KIP-699): one
``coordinators`` entry per key, no top-level fields.

Not implemented: v5-6 (TRANSACTION_ABORTABLE, share groups, KIP-932).
"""

from __future__ import annotations

from broker.handlers import RequestContext, handler
from protocol.errors import ErrorCode
from protocol.messages import ApiKey, FindCoordinatorRequest, FindCoordinatorResponse

GROUP_KEY_TYPE = 0
TRANSACTION_KEY_TYPE = 1

_MESSAGES = {
    ErrorCode.NONE: "NONE",  # Errors.NONE.message()
    ErrorCode.COORDINATOR_NOT_AVAILABLE: "The coordinator is not available.",
    ErrorCode.INVALID_REQUEST: "This most likely occurs because of a request being malformed by the client "
    "library or the message was sent to an incompatible broker. See the broker logs for more details.",
}
_NO_TXN_COORDINATOR = (
    "Transactions are not supported by this broker: it has no transaction coordinator (key type 1)."
)


def _lookup(ctx: RequestContext, key_type: int, key: str) -> tuple[ErrorCode, str | None]:
    """(error, message) of the coordinator lookup for one key."""
    if key_type == GROUP_KEY_TYPE:
        groups = ctx.broker.groups
        if groups is None:
            return ErrorCode.COORDINATOR_NOT_AVAILABLE, None
        return groups.find_coordinator(key), None
    if key_type == TRANSACTION_KEY_TYPE:
        return ErrorCode.INVALID_REQUEST, _NO_TXN_COORDINATOR
    return ErrorCode.INVALID_REQUEST, f"Unknown coordinator type received: {key_type}"


@handler(ApiKey.FIND_COORDINATOR, versions=(0, 4))
def handle_find_coordinator(ctx: RequestContext, request: FindCoordinatorRequest) -> FindCoordinatorResponse:
    endpoint = ctx.broker.endpoint_for(ctx.listener)
    if ctx.api_version >= 4:
        coordinators = []
        for key in request.coordinator_keys:
            error, message = _lookup(ctx, request.key_type, key)
            ok = error is ErrorCode.NONE
            coordinators.append(
                FindCoordinatorResponse.Coordinator(
                    key=key,
                    node_id=ctx.broker.broker_id if ok else -1,
                    host=endpoint.host if ok else "",
                    port=endpoint.port if ok else -1,
                    error_code=error.code,
                    error_message=message
                    if message is not None
                    else ("" if ok else _MESSAGES.get(error, "")),
                )
            )
        return FindCoordinatorResponse(coordinators=coordinators)
    error, message = _lookup(ctx, request.key_type, request.key)
    if error is not ErrorCode.NONE:
        return FindCoordinatorResponse(
            error_code=error.code,
            error_message=message or _MESSAGES.get(error, error.name),
            node_id=-1,
            host="",
            port=-1,
        )
    return FindCoordinatorResponse(
        error_code=0,
        error_message=_MESSAGES[ErrorCode.NONE],
        node_id=ctx.broker.broker_id,
        host=endpoint.host,
        port=endpoint.port,
    )
