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
- Limit (Moldau's ``max.partitions.per.request``, which bounds CreateTopics too), with or
  without ``validate_only``: when the partitions the request adds, summed over its topics by
  this broker's view of their counts, exceed it, every topic not refused by the checks above
  answers POLICY_VIOLATION "The request adds <n> partitions, more than
  max.partitions.per.request (<limit>)." and nothing grows. Each topic's own count
  (ZooKeeper's, in ZooKeeper mode) is checked again against what the limit leaves before its
  assignment is built; past it, that topic is refused (the earlier ones went ahead). Kafka has
  no limit: a count of 2**31-1 ends in an OutOfMemoryError of its bounded heap, answered as
  an error; unbounded, the assignment would take the machine's memory.
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


def too_many_partitions(adding: int, per_request: int) -> KafkaError:
    """``max.partitions.per.request`` passed (CreateTopics' answer for its limit)."""
    return KafkaError(
        ErrorCode.POLICY_VIOLATION,
        f"The request adds {adding} partitions, more than max.partitions.per.request ({per_request}).",
    )


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
    refusals = [_refusal(ctx, t.name, counts[t.name]) for t in request.topics]
    per_request = ctx.broker.config["max.partitions.per.request"]
    # What the request adds by this broker's view of the topics, before any of them is touched.
    estimate = 0
    for t, refusal in zip(request.topics, refusals, strict=True):
        current = admin.partition_count(t.name) if refusal is None else None
        if current is not None and t.count > current:
            estimate += t.count - current
    if estimate > per_request:
        error = too_many_partitions(estimate, per_request)
        refusals = [
            refusal or Result(name=t.name, error_code=error.code, error_message=error.message)
            for t, refusal in zip(request.topics, refusals, strict=True)
        ]
    added = 0

    def check_adding(adding: int) -> None:
        # The same limit on each topic's own count (ZooKeeper's, or a topic the view above
        # did not have yet), before its assignment is built.
        nonlocal added
        if added + adding > per_request:
            raise too_many_partitions(added + adding, per_request)
        added += adding

    results: list[Result] = []
    for t, refusal in zip(request.topics, refusals, strict=True):
        if refusal is not None:
            results.append(refusal)
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
                check_adding=check_adding,
            )
        except KafkaError as exc:
            results.append(Result(name=t.name, error_code=exc.code, error_message=exc.message))
            continue
        results.append(Result(name=t.name, error_code=0, error_message=None))
    return CreatePartitionsResponse(throttle_time_ms=0, results=results)


def _refusal(ctx: RequestContext, name: str, count: int) -> Result | None:
    """The checks before the topic admin: a duplicate, authorization, an internal topic."""
    if count > 1:
        return Result(
            name=name, error_code=ErrorCode.INVALID_REQUEST.code, error_message="Duplicate topic in request."
        )
    if not ctx.authorize(AclOperation.ALTER, ResourceType.TOPIC, name):
        return Result(
            name=name,
            error_code=ErrorCode.TOPIC_AUTHORIZATION_FAILED.code,
            error_message="The topic authorization is failed.",
        )
    if name in INTERNAL_TOPICS:
        return Result(
            name=name,
            error_code=ErrorCode.INVALID_REQUEST.code,
            error_message=f"Cannot add partitions to the internal topic {name}.",
        )
    return None
