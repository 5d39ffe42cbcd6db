"""DescribeProducers (key 61), version 0.

Behaviour (KIP-664, Kafka's ``ReplicaManager.activeProducerState``): for each
requested partition, the active producers of its ProducerStateManager: producer
id, epoch, last sequence, last timestamp (the max timestamp of its last batch),
coordinator epoch and current transaction start offset (-1: none). Operators
use it to see what the idempotence checks are working from. Any replica answers from
its own log (``Partition.activeProducerState``: leader or follower alike, so replicas can be
compared); a partition this broker does not host: NOT_LEADER_OR_FOLLOWER, or
UNKNOWN_TOPIC_OR_PARTITION with an error message when the topic is unknown.

Authorization (``KafkaApis.handleDescribeProducersRequest``): per requested topic, its name is
validated first (``Topic.validate``: INVALID_TOPIC_EXCEPTION with its message for every
partition, not authorized), then Read on the topic, else TOPIC_AUTHORIZATION_FAILED "Topic
authorization failed." for its partitions.

Version notes: v0 is the only version (flexible).
"""

from __future__ import annotations

from broker.authorization import DENIAL_MESSAGES
from broker.handlers import RequestContext, handler
from coordinator.acl_model import AclOperation, ResourceType
from coordinator.controller import validate_topic_name
from protocol.errors import ErrorCode, KafkaError
from protocol.messages import ApiKey, DescribeProducersRequest, DescribeProducersResponse

TopicResponse = DescribeProducersResponse.TopicResponse
PartitionResponse = DescribeProducersResponse.PartitionResponse
ProducerState = DescribeProducersResponse.ProducerState


@handler(ApiKey.DESCRIBE_PRODUCERS, versions=(0, 0))
def handle_describe_producers(
    ctx: RequestContext, request: DescribeProducersRequest
) -> DescribeProducersResponse:
    rm = ctx.broker.replica_manager
    topics = []
    for t in request.topics:
        topic_error = _topic_error(ctx, t.name)
        parts = []
        for index in t.partition_indexes:
            if topic_error is not None:
                parts.append(_error(index, topic_error))
                continue
            try:
                active = rm.describe_producers(t.name, index)
            except KafkaError as exc:
                parts.append(_error(index, exc))
                continue
            producers = [
                ProducerState(
                    producer_id=e.producer_id,
                    producer_epoch=e.producer_epoch,
                    last_sequence=e.last_seq,
                    last_timestamp=e.last_timestamp,
                    coordinator_epoch=e.coordinator_epoch,
                    current_txn_start_offset=e.current_txn_first_offset,
                )
                for _, e in active
            ]
            parts.append(PartitionResponse(partition_index=index, error_code=0, active_producers=producers))
        topics.append(TopicResponse(name=t.name, partitions=parts))
    return DescribeProducersResponse(throttle_time_ms=0, topics=topics)


def _error(index: int, exc: KafkaError) -> DescribeProducersResponse.PartitionResponse:
    return PartitionResponse(partition_index=index, error_code=exc.code, error_message=exc.message)


def _topic_error(ctx: RequestContext, name: str) -> KafkaError | None:
    """``checkValidTopic`` before the Read check, once per requested topic (as Kafka's
    ``authorize``, not a filter over the distinct names)."""
    try:
        validate_topic_name(name)
    except KafkaError as exc:
        return exc
    if not ctx.authorize(AclOperation.READ, ResourceType.TOPIC, name):
        error = ErrorCode.TOPIC_AUTHORIZATION_FAILED
        return KafkaError(error, DENIAL_MESSAGES[error])
    return None
