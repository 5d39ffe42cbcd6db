"""CreatePartitions (key 37), versions 0-3: grow a topic's partition count.

Behaviour (Kafka's ``KafkaApis.handleCreatePartitionsRequest`` and
``ZkAdminManager.createPartitions``):
- A topic named twice in one request: INVALID_REQUEST "Duplicate topic in request." for
  it; the others go ahead.
- ``count`` must be above the current count (INVALID_PARTITIONS); unknown topics
  UNKNOWN_TOPIC_OR_PARTITION; a topic queued for deletion INVALID_TOPIC_EXCEPTION.
- ``assignments`` (optional) give one replica list per new partition, checked as Kafka's
  ``AdminZkClient.validateReplicaAssignment`` (INVALID_REPLICA_ASSIGNMENT); without them
  the new partitions are assigned as ``AdminUtils`` does, continuing from partition 0's
  leader.
- ``validate_only`` checks and changes nothing.
- A lone broker adds the partitions' logs (off the event loop) and publishes them;
  ZooKeeper mode: only the active controller accepts (NOT_CONTROLLER elsewhere, before any check, no
  forwarding), the assignment znode is updated and the answer waits until every new
  partition has a leader in this broker's metadata, or ``timeout_ms`` (REQUEST_TIMED_OUT),
  one timeout for all the request's topics.

Authorization: Alter on each topic, else TOPIC_AUTHORIZATION_FAILED ("The topic
authorization is failed."), after the duplicate check.

Differs from Kafka: the internal topics cannot be grown (INVALID_REQUEST): a different
``__consumer_offsets`` count moves every group to another partition.

Version notes: v2 is flexible; v3 has no change (KIP-599's throttling).
"""

from __future__ import annotations

from collections import Counter

from broker.handlers import RequestContext, handler
from coordinator.acl_model import AclOperation, ResourceType
from coordinator.cluster_state import INTERNAL_TOPICS
from coordinator.controller import validate_topic_name
from coordinator.topic_admin import RequestTimeout
from protocol.errors import ErrorCode, KafkaError
from protocol.messages import ApiKey, CreatePartitionsRequest, CreatePartitionsResponse

Result = CreatePartitionsResponse.CreatePartitionsTopicResult


@handler(ApiKey.CREATE_PARTITIONS, versions=(0, 3))
async def handle_create_partitions(
    ctx: RequestContext, request: CreatePartitionsRequest
) -> CreatePartitionsResponse:
    admin = ctx.broker.topic_admin
    timeout = RequestTimeout(request.timeout_ms, ctx.broker.clock.monotonic)
    counts = Counter(t.name for t in request.topics)
    if not admin.is_controller:
        # KafkaApis.handleCreatePartitionsRequest: before any check (one answer per name)
        return CreatePartitionsResponse(
            throttle_time_ms=0,
            results=[Result(name=name, error_code=ErrorCode.NOT_CONTROLLER.code) for name in counts],
        )
    results: list[Result] = []
    for t in request.topics:
        if counts[t.name] > 1:
            results.append(
                Result(
                    name=t.name,
                    error_code=ErrorCode.INVALID_REQUEST.code,
                    error_message="Duplicate topic in request.",
                )
            )
            continue
        if not ctx.authorize(AclOperation.ALTER, ResourceType.TOPIC, t.name):
            results.append(
                Result(
                    name=t.name,
                    error_code=ErrorCode.TOPIC_AUTHORIZATION_FAILED.code,
                    error_message="The topic authorization is failed.",
                )
            )
            continue
        if t.name in INTERNAL_TOPICS:
            results.append(
                Result(
                    name=t.name,
                    error_code=ErrorCode.INVALID_REQUEST.code,
                    error_message=f"Cannot add partitions to the internal topic {t.name}.",
                )
            )
            continue
        assignments = [a.broker_ids for a in t.assignments] if t.assignments is not None else None
        try:
            validate_topic_name(t.name)  # a name no topic can have is not echoed back whole
            await admin.create_partitions(
                t.name,
                t.count,
                assignments or None,
                validate_only=request.validate_only,
                timeout_ms=timeout.remaining_ms(),
            )
        except KafkaError as exc:
            results.append(Result(name=t.name, error_code=exc.code, error_message=exc.message))
            continue
        results.append(Result(name=t.name, error_code=0, error_message=None))
    return CreatePartitionsResponse(throttle_time_ms=0, results=results)
