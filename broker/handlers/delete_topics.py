"""DeleteTopics (key 20), versions 1-6.

Behaviour:
- Each topic is deleted with its partition directories (renamed to
  ``<topic>-<p>.<id>-delete`` and removed, as Kafka's LogManager does). The topic is
  unpublished at once; the renames run off the event loop and the answer waits for them
  (parking only this connection); the removal follows in the background. A topic being
  created is deleted once its creation has finished.
- Unknown names: UNKNOWN_TOPIC_OR_PARTITION; unknown ids (v6+):
  UNKNOWN_TOPIC_ID; ``delete.topic.enable=false``: TOPIC_DELETION_DISABLED.
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
    results = []
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
        if not broker.config["delete.topic.enable"]:
            results.append(
                Result(
                    name=name,
                    topic_id=topic_id,
                    error_code=ErrorCode.TOPIC_DELETION_DISABLED.code,
                    error_message="Topic deletion is disabled.",
                )
            )
            continue
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
        try:
            deleted_id = await admin.delete_topic(name, timeout_ms=timeout.remaining_ms())
        except KafkaError as exc:
            results.append(
                Result(name=name, topic_id=topic_id, error_code=exc.code, error_message=exc.message)
            )
            continue
        results.append(Result(name=name, topic_id=deleted_id, error_code=0))
    return DeleteTopicsResponse(throttle_time_ms=0, responses=results)
