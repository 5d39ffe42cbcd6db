"""ListPartitionReassignments (key 46), version 0: the partition reassignments in progress (KIP-455).

Behaviour (Kafka 3.9 ZooKeeper mode: ``KafkaApis.handleListPartitionReassignmentsRequest``,
``KafkaController.processListPartitionReassignments``):
- ``Topics`` null lists every partition being reassigned; otherwise those of the listed
  partitions that are (others, unknown ones included, are left out without an error).
  Each shows its full replica set during the move (``Replicas``: target replicas first,
  then the original ones) with ``AddingReplicas`` and ``RemovingReplicas``.
- ZooKeeper mode: answered by this broker's controller; a broker that is not the active
  controller answers the top-level NOT_CONTROLLER (41) with Kafka's message.
- Embedded mode (one broker, no ZooKeeper): nothing is ever in progress (a one-broker
  reassignment completes when it is made), so the list is empty.

Authorization (Kafka's ``authorizeClusterOperation(request, DESCRIBE)``): Describe on the
cluster, else the top-level CLUSTER_AUTHORIZATION_FAILED with this broker's message, and the
partitions asked listed without replicas (``ListPartitionReassignmentsRequest.getErrorResponse``).

Not implemented: throttling (ThrottleTimeMs is always 0).
"""

from __future__ import annotations

from broker.handlers import RequestContext, handler, zookeeper_mode
from broker.handlers.alter_partition_reassignments import NOT_AUTHORIZED_MESSAGE, NOT_CONTROLLER_MESSAGE
from coordinator.acl_model import AclOperation, ResourceType
from coordinator.zk_election import ReplicaAssignment, TopicPartition
from protocol.errors import ErrorCode
from protocol.messages import ApiKey, ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse


@handler(ApiKey.LIST_PARTITION_REASSIGNMENTS, versions=(0, 0))
async def handle_list_partition_reassignments(
    ctx: RequestContext, request: ListPartitionReassignmentsRequest
) -> ListPartitionReassignmentsResponse:
    if not ctx.authorize(AclOperation.DESCRIBE, ResourceType.CLUSTER):
        return ListPartitionReassignmentsResponse(
            error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code,
            error_message=NOT_AUTHORIZED_MESSAGE.format("ListPartitionReassignments"),
            topics=[
                ListPartitionReassignmentsResponse.OngoingTopicReassignment(
                    name=t.name,
                    partitions=[
                        ListPartitionReassignmentsResponse.OngoingPartitionReassignment(
                            partition_index=p, replicas=[], adding_replicas=[], removing_replicas=[]
                        )
                        for p in t.partition_indexes
                    ],
                )
                for t in request.topics or ()
            ],
        )
    wanted: list[TopicPartition] | None = None
    if request.topics is not None:
        wanted = [(t.name, p) for t in request.topics for p in t.partition_indexes]
    found: dict[TopicPartition, ReplicaAssignment] | ErrorCode = {}
    if zookeeper_mode(ctx.broker):
        found = await ctx.broker.kafka_controller.list_partition_reassignments(wanted)
    if isinstance(found, ErrorCode):
        return ListPartitionReassignmentsResponse(
            error_code=found.code, error_message=NOT_CONTROLLER_MESSAGE, topics=[]
        )
    by_topic: dict[str, list[ListPartitionReassignmentsResponse.OngoingPartitionReassignment]] = {}
    for (topic, partition), assignment in found.items():
        by_topic.setdefault(topic, []).append(
            ListPartitionReassignmentsResponse.OngoingPartitionReassignment(
                partition_index=partition,
                replicas=list(assignment.replicas),
                adding_replicas=list(assignment.adding),
                removing_replicas=list(assignment.removing),
            )
        )
    return ListPartitionReassignmentsResponse(
        error_code=0,
        error_message=None,
        topics=[
            ListPartitionReassignmentsResponse.OngoingTopicReassignment(name=t, partitions=parts)
            for t, parts in by_topic.items()
        ],
    )
