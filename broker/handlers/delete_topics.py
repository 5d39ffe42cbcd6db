"""DeleteTopics (key 20), versions 1-6.

Behaviour:
- Each topic is deleted with its partition directories (renamed to
  ``<topic>-<p>.<id>-delete`` and removed, as Kafka's LogManager does). The topic is
  unpublished at once; the renames run off the event loop and the answer waits for them
  (parking only this connection); the removal follows in the background. A topic being
  created is deleted once its creation has finished.
- Unknown names: UNKNOWN_TOPIC_OR_PARTITION; unknown ids (v6+):
  UNKNOWN_TOPIC_ID; ``delete.topic.enable=false``: TOPIC_DELETION_DISABLED for every entry
  (INVALID_REQUEST below v3), before ids are resolved. A topic named twice is deleted once:
  its first entry carries the outcome, the others NONE (Kafka's result collection).
- A lone broker: its controller deletes the topic and tells the broker's components: the
  replica manager stops serving it, and the group coordinator removes its committed
  offsets from every group (Kafka's ``GroupCoordinator.onPartitionsDeleted``),
  written as tombstones.
- ZooKeeper mode: only the active controller accepts (NOT_CONTROLLER elsewhere, before any check); the
  topic is marked in ``/admin/delete_topics`` and the answer waits until this broker's
  metadata no longer has it (Kafka's DelayedDeleteTopics), or ``timeout_ms``
  (REQUEST_TIMED_OUT), one timeout for all the request's topics. The controller's StopReplica removes every replica.

Authorization (after the ``delete.topic.enable`` check): Delete on each topic, else
TOPIC_AUTHORIZATION_FAILED; a topic named by id also needs Describe, else the answer has the
id but not the name.

Version notes: v4 is flexible; v5 adds error messages; v6 names topics by name
or by id (``topics`` replaces ``topic_names``).
"""

from __future__ import annotations

from broker.handlers import RequestContext, handler
from coordinator.acl_model import AclOperation, ResourceType
from coordinator.topic_admin import RequestTimeout
from protocol.errors import ErrorCode, KafkaError
from protocol.messages import ApiKey, DeleteTopicsRequest, DeleteTopicsResponse
from protocol.primitives import ZERO_UUID

Result = DeleteTopicsResponse.DeletableTopicResult


@handler(ApiKey.DELETE_TOPICS, versions=(1, 6))
async def handle_delete_topics(ctx: RequestContext, request: DeleteTopicsRequest) -> DeleteTopicsResponse:
    broker = ctx.broker
    admin = broker.topic_admin
    timeout = RequestTimeout(request.timeout_ms, broker.clock.monotonic)
    if ctx.api_version >= 6:
        wanted = [(t.name, t.topic_id) for t in request.topics]
    else:
        wanted = [(name, ZERO_UUID) for name in request.topic_names]
    if not admin.is_controller:
        # KafkaApis.handleDeleteTopicsRequest: before delete.topic.enable and authorization
        return DeleteTopicsResponse(
            throttle_time_ms=0,
            responses=[
                Result(name=name, topic_id=topic_id, error_code=ErrorCode.NOT_CONTROLLER.code)
                for name, topic_id in wanted
            ],
        )
    if not broker.config["delete.topic.enable"]:
        # KafkaApis.handleDeleteTopicsRequest: before the ids are resolved; v0-v2 have no
        # TOPIC_DELETION_DISABLED.
        error = ErrorCode.INVALID_REQUEST if ctx.api_version < 3 else ErrorCode.TOPIC_DELETION_DISABLED
        return DeleteTopicsResponse(
            throttle_time_ms=0,
            responses=[
                Result(
                    name=name,
                    topic_id=topic_id,
                    error_code=error.code,
                    error_message="Topic deletion is disabled.",
                )
                for name, topic_id in wanted
            ],
        )
    results = []
    deleting: dict[str, int] = {}  # name -> the error code of its first entry
    for name, topic_id in wanted:
        if name is None:
            found = admin.topic_name_by_id(topic_id)
            if found is None:
                results.append(
                    Result(
                        name=None,
                        topic_id=topic_id,
                        error_code=ErrorCode.UNKNOWN_TOPIC_ID.code,
                        error_message="This server does not host this topic ID.",
                    )
                )
                continue
            name = found
        if topic_id != ZERO_UUID and not ctx.authorize(AclOperation.DESCRIBE, ResourceType.TOPIC, name):
            # named by id without Describe: the name is not disclosed
            results.append(
                Result(name=None, topic_id=topic_id, error_code=ErrorCode.TOPIC_AUTHORIZATION_FAILED.code)
            )
            continue
        if not ctx.authorize(AclOperation.DELETE, ResourceType.TOPIC, name):
            results.append(
                Result(name=name, topic_id=topic_id, error_code=ErrorCode.TOPIC_AUTHORIZATION_FAILED.code)
            )
            continue
        if name in deleting:
            # Named twice: Kafka deletes the request's set of names once and sets each name's
            # outcome on its first entry (DeletableTopicResultCollection.find); the others
            # answer NONE, unless the name failed the existence check all entries went through.
            unknown = deleting[name] == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code
            results.append(Result(name=name, topic_id=topic_id, error_code=deleting[name] if unknown else 0))
            continue
        try:
            deleted_id = await admin.delete_topic(name, timeout_ms=timeout.remaining_ms())
        except KafkaError as exc:
            deleting[name] = exc.code
            results.append(
                Result(name=name, topic_id=topic_id, error_code=exc.code, error_message=exc.message)
            )
            continue
        deleting[name] = 0
        results.append(Result(name=name, topic_id=deleted_id, error_code=0))
    return DeleteTopicsResponse(throttle_time_ms=0, responses=results)
