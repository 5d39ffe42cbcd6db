"""Metadata (key 3), versions 0-12.

Behaviour:
- Brokers: this broker, with the advertised endpoint of the listener the
  request came in on. It is also the controller (``controller_id``), which is
  where the Java Admin client sends CreateTopics/DeleteTopics.
- Topics requested: v0's empty list means all topics; from v1 a null list
  means all topics and an empty list none. From v10 a topic may be asked for by
  id (UNKNOWN_TOPIC_ID if there is none).
- Missing topics are created when ``auto.create.topics.enable`` is on and the
  request allows it (always for v0-3, ``allow_auto_topic_creation`` from v4),
  with ``num.partitions`` and ``default.replication.factor``; an illegal name gets
  INVALID_TOPIC_EXCEPTION, a missing topic otherwise UNKNOWN_TOPIC_OR_PARTITION.
- Every partition is led by this broker (leader epoch from the replica manager).
- Authorized operations (v8+): with no authorizer, everything the resource supports.

Version notes: v1 adds controller_id, rack, is_internal and null-means-all;
v2 cluster_id; v3 throttle_time_ms; v4 allow_auto_topic_creation; v5
offline_replicas; v7 leader_epoch; v8 authorized operations; v9 flexible;
v10 topic ids; v11 drops cluster authorized operations; v12 nullable names.

Differs from Kafka: an auto-created topic is answered at once with its
partitions (Kafka answers LEADER_NOT_AVAILABLE until its controller has
elected leaders; here creation is synchronous).
"""

from __future__ import annotations

from broker import authorized_operations as ops
from broker.handlers import RequestContext, handler
from coordinator.controller import TopicMetadata, validate_topic_name
from protocol.errors import ErrorCode, KafkaError
from protocol.messages import ApiKey, MetadataRequest, MetadataResponse
from protocol.primitives import ZERO_UUID

Topic = MetadataResponse.MetadataResponseTopic
Partition = MetadataResponse.MetadataResponsePartition


def topic_response(ctx: RequestContext, t: TopicMetadata, include_ops: bool) -> Topic:
    broker = ctx.broker
    bid = broker.broker_id
    rm = broker.replica_manager
    partitions = []
    for p in range(t.partitions):
        epoch = rm.leader_epoch(t.name, p) if rm is not None else 0
        partitions.append(
            Partition(
                error_code=0,
                partition_index=p,
                leader_id=bid,
                leader_epoch=epoch,
                replica_nodes=[bid],
                isr_nodes=[bid],
                offline_replicas=[],
            )
        )
    return Topic(
        error_code=0,
        name=t.name,
        topic_id=t.topic_id,
        is_internal=t.is_internal,
        partitions=partitions,
        topic_authorized_operations=ops.TOPIC if include_ops else ops.NOT_REQUESTED,
    )


def _error_topic(name: str | None, error: ErrorCode, topic_id=ZERO_UUID) -> Topic:
    return Topic(error_code=error.code, name=name, topic_id=topic_id, partitions=[])


@handler(ApiKey.METADATA, versions=(0, 12))
def handle_metadata(ctx: RequestContext, request: MetadataRequest) -> MetadataResponse:
    broker = ctx.broker
    cfg = broker.config
    controller = broker.controller
    version = ctx.api_version
    include_ops = version >= 8 and request.include_topic_authorized_operations
    known = controller.topics()

    all_topics = request.topics is None or (version == 0 and not request.topics)
    topics: list[Topic] = []
    if all_topics:
        topics = [topic_response(ctx, t, include_ops) for _, t in sorted(known.items())]
    else:
        allow_auto = cfg["auto.create.topics.enable"] and (version < 4 or request.allow_auto_topic_creation)
        seen: set[str] = set()
        for req_topic in request.topics:
            name = req_topic.name
            if name is None:
                t = controller.topic_by_id(req_topic.topic_id)
                if t is None:
                    topics.append(_error_topic(None, ErrorCode.UNKNOWN_TOPIC_ID, req_topic.topic_id))
                else:
                    topics.append(topic_response(ctx, t, include_ops))
                continue
            if name in seen:
                continue
            seen.add(name)
            t = known.get(name)
            if t is None and allow_auto:
                try:
                    validate_topic_name(name)
                    partitions, _, overrides = controller.check_create(
                        name,
                        -1,
                        -1,
                        {},
                        default_partitions=cfg["num.partitions"],
                        default_replication=cfg["default.replication.factor"],
                    )
                    t = controller.create_topic(name, partitions, overrides)
                    if broker.replica_manager is not None:
                        broker.replica_manager.on_topic_created(t)
                except KafkaError as exc:
                    if exc.error == ErrorCode.TOPIC_ALREADY_EXISTS:
                        t = controller.topic(name)
                    else:
                        topics.append(_error_topic(name, exc.error))
                        continue
            if t is None:
                topics.append(_error_topic(name, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION))
            else:
                topics.append(topic_response(ctx, t, include_ops))

    endpoint = broker.endpoint_for(ctx.listener)
    return MetadataResponse(
        throttle_time_ms=0,
        brokers=[
            MetadataResponse.MetadataResponseBroker(
                node_id=broker.broker_id, host=endpoint.host, port=endpoint.port, rack=cfg["broker.rack"]
            )
        ],
        cluster_id=broker.cluster_id,
        controller_id=broker.broker_id,
        topics=topics,
        cluster_authorized_operations=(
            ops.CLUSTER
            if version >= 8 and request.include_cluster_authorized_operations
            else ops.NOT_REQUESTED
        ),
    )
