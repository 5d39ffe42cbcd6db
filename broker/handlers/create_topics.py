"""CreateTopics (key 19), versions 2-7.

Behaviour (Kafka's ``ControllerApis.createTopics`` / ``ReplicationControlManager``):
- Internal topics (``__consumer_offsets``, ``__transaction_state``) belong to the
  broker, which creates them with its own configuration: a client's request for one
  gets INVALID_REQUEST "Creation of internal topic <name> is prohibited." (the answer
  of Kafka's ``ControllerApis.createTopics`` for its internal ``__cluster_metadata``).
- Each topic is validated on its own: name (INVALID_TOPIC_EXCEPTION, also for
  names that collide on '.'/'_'), existence (TOPIC_ALREADY_EXISTS), partitions
  (INVALID_PARTITIONS), replication factor above the live brokers
  (INVALID_REPLICATION_FACTOR), configs (INVALID_CONFIG; a null value "Null value not
  supported for topic configs: <names>", checked right after existence), manual assignments
  (INVALID_REPLICA_ASSIGNMENT; counts and assignments together: INVALID_REQUEST).
- num_partitions / replication_factor -1 take ``num.partitions`` /
  ``default.replication.factor``.
- A name given twice in one request: INVALID_REQUEST for each of its entries.
- ``validate_only`` checks everything and creates nothing.
- v5+: the created (or validated) topic's configs, partition count and
  replication factor are returned.
- A lone broker: its controller creates the topic and publishes it to the broker's
  components. The partitions' files are made off the event loop: the handler awaits every
  creation of the request (parking only this connection) and answers when all have
  finished; a creation of a name already being created answers TOPIC_ALREADY_EXISTS.
- ZooKeeper mode (``coordinator.topic_admin.ZkTopicAdmin``): only the active controller
  creates (NOT_CONTROLLER elsewhere for every topic, before any check or authorization, no
  forwarding, as ZooKeeper-mode Kafka); the topic is
  written to ZooKeeper with Kafka's assignment (``AdminUtils``) and the answer waits until
  every partition has a leader in this broker's metadata, or ``timeout_ms`` (then
  REQUEST_TIMED_OUT; 0 answers at once). The replication factor is bounded by the
  registered brokers; ``max.partitions`` is not applied (it counts one broker's logs).
- Limits: more partitions in one request than ``max.partitions.per.request`` (Moldau's)
  refuse every topic of the request, more than ``max.partitions`` in all (KIP-578) refuse
  the topic that would pass it; both POLICY_VIOLATION with the limit in the message.

Authorization (``KafkaApis.handleCreateTopicsRequest``): Create on the cluster, or on each
topic, else TOPIC_AUTHORIZATION_FAILED ("Authorization failed.") for it. The configs, partition
count, replication factor (v5+) and topic id (v7) of a created topic are filled only with
DescribeConfigs on it (``ZkAdminManager.createTopics``' ``includeConfigsAndMetadata``); without,
they keep the schema's defaults (none, -1, -1, zero) and ``topic_config_error_code`` is
TOPIC_AUTHORIZATION_FAILED, as for a topic refused before creation (a duplicate, no Create).
A topic whose creation failed answers ``topic_config_error_code`` NONE
(``handleCreateTopicsResults``).

Version notes: v2 is the lowest Kafka 4 serves; v5 is flexible and returns
configs; v7 returns topic ids.

Differs from Kafka: Kafka (ZooKeeper mode and KRaft) lets a client create
``__consumer_offsets`` and ``__transaction_state`` with any configuration, e.g.
``cleanup.policy=delete``, which loses committed offsets; Moldau refuses.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from collections.abc import Awaitable

from broker.config_description import describe_topic_configs
from broker.handlers import RequestContext, handler
from coordinator.acl_model import AclOperation, ResourceType
from coordinator.controller import quoted_name
from protocol.errors import ErrorCode, KafkaError
from protocol.messages import ApiKey, CreateTopicsRequest, CreateTopicsResponse

Result = CreateTopicsResponse.CreatableTopicResult
CreatableTopic = CreateTopicsRequest.CreatableTopic


def _configs(ctx: RequestContext, overrides: dict) -> list[CreateTopicsResponse.CreatableTopicConfigs]:
    return [
        CreateTopicsResponse.CreatableTopicConfigs(
            name=e.name,
            value=e.value,
            read_only=e.read_only,
            config_source=int(e.source),
            is_sensitive=e.sensitive,
        )
        for e in describe_topic_configs(ctx.broker.config, overrides)
    ]


def _requested_partitions(request: CreateTopicsRequest, default_partitions: int) -> int:
    return sum(
        len(t.assignments)
        if t.assignments
        else (default_partitions if t.num_partitions == -1 else max(t.num_partitions, 0))
        for t in request.topics
    )


@handler(ApiKey.CREATE_TOPICS, versions=(2, 7))
async def handle_create_topics(ctx: RequestContext, request: CreateTopicsRequest) -> CreateTopicsResponse:
    broker = ctx.broker
    if not broker.topic_admin.is_controller:
        # KafkaApis.handleCreateTopicsRequest: before any check, authorization included
        return CreateTopicsResponse(
            throttle_time_ms=0,
            topics=[Result(name=t.name, error_code=ErrorCode.NOT_CONTROLLER.code) for t in request.topics],
        )
    cfg = broker.config
    per_request = cfg["max.partitions.per.request"]
    requested = _requested_partitions(request, cfg["num.partitions"])
    if requested > per_request:
        message = f"The request asks for {requested} partitions, more than max.partitions.per.request ({per_request})."
        return CreateTopicsResponse(
            throttle_time_ms=0,
            topics=[
                Result(name=t.name, error_code=ErrorCode.POLICY_VIOLATION.code, error_message=message)
                for t in request.topics
            ],
        )
    counts = Counter(t.name for t in request.topics)
    names = set(counts)
    if ctx.authorize(AclOperation.CREATE, ResourceType.CLUSTER, log_denied=False):
        creatable = names
    else:
        creatable = ctx.authorized(AclOperation.CREATE, ResourceType.TOPIC, names)
    describable = ctx.authorized(AclOperation.DESCRIBE_CONFIGS, ResourceType.TOPIC, names, log_denied=False)
    results: list[Result] = []
    creations: list[tuple[Result, Awaitable[uuid.UUID]]] = []
    for t in request.topics:
        refusal = _refused_before_creation(t.name, counts[t.name], creatable, describable)
        if refusal is not None:
            results.append(refusal)
            continue
        result, done = await _create(ctx, request, t, describable)
        results.append(result)
        if done is not None:
            creations.append((result, done))
    # Awaited together: each waits its leaders for up to timeout_ms from now, so the request
    # waits timeout_ms at most, as Kafka's one DelayedCreatePartitions for all its topics.
    outcomes = await asyncio.gather(*(creation for _, creation in creations), return_exceptions=True)
    for (result, _), outcome in zip(creations, outcomes, strict=True):
        if isinstance(outcome, KafkaError):
            _failed(result, outcome.code, outcome.message)
        elif isinstance(outcome, Exception):  # a log dir error: the creation was undone
            _failed(result, ErrorCode.UNKNOWN_SERVER_ERROR.code, f"Cannot create the topic's logs: {outcome}")
        elif isinstance(outcome, BaseException):
            raise outcome
        elif result.name in describable:  # ZkAdminManager.populateIds
            result.topic_id = outcome
    return CreateTopicsResponse(throttle_time_ms=0, topics=results)


async def _create(
    ctx: RequestContext, request: CreateTopicsRequest, t: CreatableTopic, describable: set[str]
) -> tuple[Result, Awaitable[uuid.UUID] | None]:
    """One topic's creation started (or refused): its result, and what completes when its
    leaders are elected (None when nothing is left to wait for)."""
    broker = ctx.broker
    null_configs = [c.name for c in t.configs if c.value is None]
    if null_configs and broker.metadata_cache.get_topic(t.name) is None:
        # ZkAdminManager.createTopics: right after the existence check (an existing topic
        # answers TOPIC_ALREADY_EXISTS), before any other.
        message = "Null value not supported for topic configs: " + ",".join(null_configs)
        return Result(name=t.name, error_code=ErrorCode.INVALID_CONFIG.code, error_message=message), None
    try:
        creation = await broker.topic_admin.create_topic(
            t.name,
            t.num_partitions,
            t.replication_factor,
            {c.name: c.value for c in t.configs},
            assignments=[(a.partition_index, a.broker_ids) for a in t.assignments],
            validate_only=request.validate_only,
            timeout_ms=request.timeout_ms,
        )
    except KafkaError as exc:
        return Result(name=t.name, error_code=exc.code, error_message=exc.message), None
    if t.name in describable:  # ZkAdminManager.maybePopulateMetadataAndConfigs
        result = Result(
            name=t.name,
            error_code=0,
            num_partitions=creation.partitions,
            replication_factor=creation.replication,
            configs=_configs(ctx, creation.overrides),
        )
    else:
        result = Result(name=t.name, error_code=0, topic_config_error_code=_HIDDEN)
    return result, creation.done


_HIDDEN = ErrorCode.TOPIC_AUTHORIZATION_FAILED.code  # the config error of a topic not describable


def _refused_before_creation(
    name: str, count: int, creatable: set[str], describable: set[str]
) -> Result | None:
    """A duplicate entry or a topic the principal may not create; these keep their hidden
    config error (Kafka resets it only for the creations it tried)."""
    config_error = 0 if name in describable else _HIDDEN
    if count > 1:
        return Result(
            name=name,
            error_code=ErrorCode.INVALID_REQUEST.code,
            error_message="Create topics request from client contains multiple entries for the following topics: "
            + quoted_name(name),
            topic_config_error_code=config_error,
        )
    if name not in creatable:
        return Result(
            name=name,
            error_code=ErrorCode.TOPIC_AUTHORIZATION_FAILED.code,
            error_message="Authorization failed.",
            topic_config_error_code=config_error,
        )
    return None


def _failed(result: Result, code: int, message: str) -> None:
    """``handleCreateTopicsResults``: a failed creation resets what DescribeConfigs decided."""
    result.error_code = code
    result.error_message = message
    result.num_partitions = -1
    result.replication_factor = -1
    result.configs = []
    result.topic_config_error_code = 0
