"""AlterPartitionReassignments (key 45), version 0: move partitions to other brokers (KIP-455).

Behaviour (Kafka 3.9 ZooKeeper mode: ``KafkaApis.handleAlterPartitionReassignmentsRequest``,
``KafkaController.processApiPartitionReassignment``; the algorithm is in
``coordinator/zk_reassignment.py``):
- ZooKeeper mode: the request goes to this broker's controller (an event of its queue; a
  plain ZooKeeper-mode Kafka does not forward). A broker that is not the active controller
  answers the top-level NOT_CONTROLLER (41) with Kafka's message and no partition.
- Per partition: ``Replicas`` null cancels the partition's reassignment in progress
  (NO_REASSIGNMENT_IN_PROGRESS (85) if there is none); a list is checked as Kafka's
  ``validateReplicas``: empty, duplicate ids, a negative id, or a new replica on a broker
  that is not alive give INVALID_REPLICA_ASSIGNMENT (39) with Kafka's message; an unknown
  partition or a topic being deleted UNKNOWN_TOPIC_OR_PARTITION ("The partition does not
  exist."). NONE means the reassignment started (or completed at once: a target already
  in the ISR, such as the current replicas); the data moves in the background and
  ListPartitionReassignments shows it until it completes.
- Embedded mode (no ZooKeeper): a one-broker cluster, answered as Kafka's controller
  answers there: the only live broker is this one, so a target of exactly this broker
  completes at once (NONE), any other broker id is INVALID_REPLICA_ASSIGNMENT (not alive),
  a cancellation is NO_REASSIGNMENT_IN_PROGRESS.
- ``TimeoutMs`` is not waited on (Kafka's ZooKeeper-mode controller answers once the
  reassignment has started).

Version notes: v1 (``AllowReplicationFactorChange``, KIP-860) exists only in KRaft-mode
Kafka 4; a 3.9 ZooKeeper-mode broker serves v0, as here.

Authorization (Kafka's ``authorizeClusterOperation(request, ALTER)``): Alter on the cluster,
else CLUSTER_AUTHORIZATION_FAILED at the top and for every partition asked
(``AlterPartitionReassignmentsRequest.getErrorResponse``), with this broker's message.

Not implemented: throttling (ThrottleTimeMs is always 0).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from broker.handlers import RequestContext, handler, zookeeper_mode
from coordinator.acl_model import AclOperation, ResourceType
from coordinator.zk_election import ReplicaAssignment, TopicPartition
from coordinator.zk_reassignment import NO_REASSIGNMENT, NOT_FOUND, ReassignmentResult
from protocol.errors import ErrorCode
from protocol.messages import (
    AlterPartitionReassignmentsRequest,
    AlterPartitionReassignmentsResponse,
    ApiKey,
)

NOT_CONTROLLER_MESSAGE = "This is not the correct controller for this cluster."  # NotControllerException
# Kafka's AuthHelper.authorizeClusterOperation puts the request's toString in the message
NOT_AUTHORIZED_MESSAGE = "Request {} is not authorized."


def _requested(request: AlterPartitionReassignmentsRequest) -> dict[TopicPartition, list[int] | None]:
    # Kafka builds a map: a partition listed twice keeps its last entry
    return {
        (t.name, p.partition_index): (None if p.replicas is None else list(p.replicas))
        for t in request.topics
        for p in t.partitions
    }


def _embedded_results(
    ctx: RequestContext, reassignments: Mapping[TopicPartition, Sequence[int] | None]
) -> dict[TopicPartition, ReassignmentResult]:
    """Kafka's controller of a one-broker cluster: nothing is ever being reassigned."""
    cache = ctx.broker.metadata_cache
    me = ctx.broker.broker_id
    out: dict[TopicPartition, ReassignmentResult] = {}
    for tp, target in reassignments.items():
        state = cache.partition_state(*tp)
        if target is None:
            out[tp] = (ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, NO_REASSIGNMENT)
            continue
        shown = f"ArrayBuffer({', '.join(map(str, target))})"
        adding = ReplicaAssignment(state.replicas if state is not None else ()).reassign_to(target).adding
        if not target:
            out[tp] = (
                ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                "Empty replica list specified in partition reassignment.",
            )
        elif len(set(target)) != len(target):
            out[tp] = (
                ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                f"Duplicate replica ids in partition reassignment replica list: {shown}",
            )
        elif any(r < 0 for r in target):
            out[tp] = (ErrorCode.INVALID_REPLICA_ASSIGNMENT, f"Invalid broker id in replica list: {shown}")
        elif any(r != me for r in adding):
            out[tp] = (
                ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                "Replica assignment has brokers that are not alive. Replica list: "
                f"ArrayBuffer({', '.join(map(str, adding))}), live broker list: Set({me})",
            )
        elif state is None:
            out[tp] = (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, NOT_FOUND)
        else:
            out[tp] = (ErrorCode.NONE, None)  # the target is this broker: complete at once
    return out


def _refused(request: AlterPartitionReassignmentsRequest) -> AlterPartitionReassignmentsResponse:
    refused, message = (
        ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code,
        NOT_AUTHORIZED_MESSAGE.format("AlterPartitionReassignments"),
    )
    R = AlterPartitionReassignmentsResponse
    return R(
        error_code=refused,
        error_message=message,
        responses=[
            R.ReassignableTopicResponse(
                name=t.name,
                partitions=[
                    R.ReassignablePartitionResponse(
                        partition_index=p.partition_index, error_code=refused, error_message=message
                    )
                    for p in t.partitions
                ],
            )
            for t in request.topics
        ],
    )


@handler(ApiKey.ALTER_PARTITION_REASSIGNMENTS, versions=(0, 0))
async def handle_alter_partition_reassignments(
    ctx: RequestContext, request: AlterPartitionReassignmentsRequest
) -> AlterPartitionReassignmentsResponse:
    if not ctx.authorize(AclOperation.ALTER, ResourceType.CLUSTER):
        return _refused(request)
    requested = _requested(request)
    if zookeeper_mode(ctx.broker):
        results = await ctx.broker.kafka_controller.alter_partition_reassignments(requested)
    else:
        results = _embedded_results(ctx, requested)
    if isinstance(results, ErrorCode):
        return AlterPartitionReassignmentsResponse(
            error_code=results.code, error_message=NOT_CONTROLLER_MESSAGE, responses=[]
        )
    by_topic: dict[str, list[AlterPartitionReassignmentsResponse.ReassignablePartitionResponse]] = {}
    for (topic, partition), (error, message) in results.items():
        by_topic.setdefault(topic, []).append(
            AlterPartitionReassignmentsResponse.ReassignablePartitionResponse(
                partition_index=partition, error_code=error.code, error_message=message
            )
        )
    return AlterPartitionReassignmentsResponse(
        error_code=0,
        error_message=None,
        responses=[
            AlterPartitionReassignmentsResponse.ReassignableTopicResponse(name=t, partitions=parts)
            for t, parts in by_topic.items()
        ],
    )
