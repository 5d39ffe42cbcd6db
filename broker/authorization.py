"""Request authorization shared by the handlers (Kafka's ``KafkaApis`` / ``AuthHelper`` checks).

Each handler asks ``ctx.authorize`` / ``ctx.authorized`` (``broker.handlers.RequestContext``)
for its own resources; the checks that need more than a line live here so a handler changes
by a few lines only. Without ``authorizer.class.name`` every check passes at once (and the
produce and fetch paths look at nothing).
"""

from __future__ import annotations

from collections.abc import Awaitable, Iterable, Sequence
from typing import Any

from broker.config_description import ConfigResourceType
from broker.fetch_params import FetchPartitionData
from broker.handlers import RequestContext
from broker.replica_manager import PartitionAppendResult, TopicPartition
from coordinator.acl_model import AclOperation, ResourceType
from protocol.errors import ErrorCode, KafkaError

READ, WRITE, DESCRIBE = AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE
TOPIC, GROUP, CLUSTER = ResourceType.TOPIC, ResourceType.GROUP, ResourceType.CLUSTER

_TRANSACTIONAL_FLAG = 0x10  # RecordBatch attributes bit 4
_MAGIC_OFFSET, _ATTRIBUTES_OFFSET = 16, 21  # in a v2 batch header


def _first_batch_transactional(records: Any) -> bool:
    """Kafka's ``RequestUtils.flags``: is the partition's first batch transactional?"""
    if records is None or len(records) < _ATTRIBUTES_OFFSET + 2 or records[_MAGIC_OFFSET] != 2:
        return False
    return bool(records[_ATTRIBUTES_OFFSET + 1] & _TRANSACTIONAL_FLAG)


def produce_denials(ctx: RequestContext, request: Any) -> dict[TopicPartition, PartitionAppendResult]:
    """The partitions a Produce may not write (``handleProduceRequest``): all of them with
    TRANSACTIONAL_ID_AUTHORIZATION_FAILED when a batch is transactional and the principal lacks
    Write on the transactional id, else those of topics without Write (TOPIC_AUTHORIZATION_FAILED)."""
    if not ctx.broker.authorizer.enabled:
        return {}
    keys = [(t.name, p.index) for t in request.topic_data for p in t.partition_data]
    transactional = any(
        _first_batch_transactional(p.records) for t in request.topic_data for p in t.partition_data
    )
    if transactional and not (
        request.transactional_id is not None
        and ctx.authorize(WRITE, ResourceType.TRANSACTIONAL_ID, request.transactional_id)
    ):
        denied = PartitionAppendResult(None, KafkaError(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED))
        return dict.fromkeys(keys, denied)
    writable = ctx.authorized(WRITE, TOPIC, (t.name for t in request.topic_data))
    denied = PartitionAppendResult(None, KafkaError(ErrorCode.TOPIC_AUTHORIZATION_FAILED))
    return {key: denied for key in keys if key[0] not in writable}


def fetch_denied_topics(ctx: RequestContext, replica_id: int, names: Iterable[str]) -> set[str]:
    """The topics a Fetch may not read (``handleFetchRequest``): a follower (replica id >= 0)
    needs ClusterAction on the cluster for all of them, a consumer Read on each topic. ``names``
    are the topics of the fetch's session context (an incremental fetch reads its session's)."""
    if not ctx.broker.authorizer.enabled:
        return set()
    names = set(names)
    if replica_id >= 0:
        return set() if ctx.authorize(AclOperation.CLUSTER_ACTION, CLUSTER) else names
    return names - ctx.authorized(READ, TOPIC, names)


def with_denied_fetches(
    topics: Sequence[str],
    results: Sequence[FetchPartitionData] | Awaitable[Sequence[FetchPartitionData]],
    denied: set[str],
) -> list[FetchPartitionData] | Awaitable[list[FetchPartitionData]]:
    """The fetch results of the allowed partitions with TOPIC_AUTHORIZATION_FAILED put back in
    for the denied ones; ``topics`` names each fetched partition's topic, in order (a list, or
    an awaitable of one)."""
    if isinstance(results, Sequence):
        return _merge_fetches(topics, results, denied)

    async def merged() -> list[FetchPartitionData]:
        return _merge_fetches(topics, await results, denied)

    return merged()


def _merge_fetches(
    topics: Sequence[str], results: Sequence[FetchPartitionData], denied: set[str]
) -> list[FetchPartitionData]:
    refused = FetchPartitionData(ErrorCode.TOPIC_AUTHORIZATION_FAILED)
    it = iter(results)
    return [refused if topic in denied else next(it) for topic in topics]


# Errors.<X>.message(): what Kafka writes where it answers ``new ApiError(error)`` or
# ``setErrorMessage(error.message)``
DENIAL_MESSAGES: dict[ErrorCode, str] = {
    ErrorCode.TOPIC_AUTHORIZATION_FAILED: "Topic authorization failed.",
    ErrorCode.GROUP_AUTHORIZATION_FAILED: "Group authorization failed.",
    ErrorCode.CLUSTER_AUTHORIZATION_FAILED: "Cluster authorization failed.",
}


def config_resource_error(
    ctx: RequestContext, operation: AclOperation, resource_type: int, name: str, *, with_message: bool = False
) -> None:
    """DescribeConfigs / AlterConfigs / IncrementalAlterConfigs (``ConfigHelper.
    handleDescribeConfigsRequest``, ``process*AlterConfigsRequest`` and
    ``configsAuthorizationApiError``): a broker, broker-logger or client-metrics resource needs
    the operation on the cluster (CLUSTER_AUTHORIZATION_FAILED), a topic on the topic
    (TOPIC_AUTHORIZATION_FAILED), a group (KIP-848) on the group (GROUP_AUTHORIZATION_FAILED).
    Raises KafkaError when refused: without message as the alter paths' ``new ApiError(error,
    null)``, with Errors' message (``with_message``) as DescribeConfigs. Other types pass."""
    if resource_type == ConfigResourceType.TOPIC:
        allowed, error = ctx.authorize(operation, TOPIC, name), ErrorCode.TOPIC_AUTHORIZATION_FAILED
    elif resource_type == ConfigResourceType.GROUP:
        allowed, error = ctx.authorize(operation, GROUP, name), ErrorCode.GROUP_AUTHORIZATION_FAILED
    elif resource_type in (
        ConfigResourceType.BROKER,
        ConfigResourceType.BROKER_LOGGER,
        ConfigResourceType.CLIENT_METRICS,
    ):
        allowed, error = ctx.authorize(operation, CLUSTER), ErrorCode.CLUSTER_AUTHORIZATION_FAILED
    else:
        return
    if not allowed:
        raise KafkaError(error, DENIAL_MESSAGES[error] if with_message else None)


def group_denied(ctx: RequestContext, operation: AclOperation, groups: Iterable[str]) -> set[str]:
    """The groups among ``groups`` the principal may not do ``operation`` on."""
    names = set(groups)
    return names - ctx.authorized(operation, GROUP, names)


def init_producer_id_error(ctx: RequestContext, transactional_id: str | None) -> ErrorCode | None:
    """InitProducerId (``handleInitProducerIdRequest``): a transactional producer needs Write on
    its transactional id (TRANSACTIONAL_ID_AUTHORIZATION_FAILED); an idempotent one
    IdempotentWrite on the cluster or, KIP-679, Write on at least one topic
    (CLUSTER_AUTHORIZATION_FAILED). None when allowed."""
    authorizer = ctx.broker.authorizer
    if not authorizer.enabled:
        return None
    if transactional_id is not None:
        if ctx.authorize(WRITE, ResourceType.TRANSACTIONAL_ID, transactional_id):
            return None
        return ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED
    # logIfDenied = false (KafkaApis.handleInitProducerIdRequest): KIP-679 may still allow it
    if ctx.authorize(AclOperation.IDEMPOTENT_WRITE, CLUSTER, log_denied=False):
        return None
    if authorizer.authorize_by_resource_type(ctx.principal, ctx.client_host, WRITE, TOPIC):
        return None
    return ErrorCode.CLUSTER_AUTHORIZATION_FAILED
