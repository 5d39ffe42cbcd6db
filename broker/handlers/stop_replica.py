"""StopReplica (key 5), versions 3-4: the controller stops (and maybe deletes) replicas.

Served only in ZooKeeper mode (``zookeeper.connect`` set): a lone broker neither
advertises nor accepts it (the connection is closed as for an unknown API).

Behaviour (Kafka's ``KafkaApis.handleStopReplicaRequest`` then ``ReplicaManager.stopReplicas``):
- A stale broker epoch (not -1 and older than this broker's ``/brokers/ids`` czxid)
  answers STALE_BROKER_EPOCH (77) at the top, with no partition, and stops nothing.
- A controller epoch older than the last accepted control request's answers
  STALE_CONTROLLER_EPOCH (11) at the top, with no partition.
- Per partition: a hosted partition stops when the request's leader epoch is -2 (topic
  deletion), -1 (none) or at least the partition's, else FENCED_LEADER_EPOCH (74). With
  DeletePartition it is no longer served and its log is deleted (the directory renamed
  ``-delete`` now and removed in the background, Kafka's ``asyncDelete``); an unknown
  partition answers NONE (its log is deleted if asked).
- A deleted ``__consumer_offsets`` or ``__transaction_state`` partition makes its coordinator
  resign it (a reassignment moving it away sends the old replica no LeaderAndIsr).
- It runs after the LeaderAndIsr / StopReplica / UpdateMetadata being applied (Kafka's
  ``replicaStateChangeLock``): a newer controller's StopReplica(delete) arriving during an
  older LeaderAndIsr applies after it, so the partition ends up stopped.
- The stops and the resignations run to their end even if the controller's connection closes
  meanwhile (``run_to_completion``), as Kafka's handler thread finishes the request.

Version notes: v3 carries per-partition leader epoch and delete flag (KIP-570); v4 adds
IsKRaftController (ignored).

Authorization: ClusterAction on the cluster, else CLUSTER_AUTHORIZATION_FAILED at the top and
for every partition (Kafka's ``StopReplicaRequest.getErrorResponse``), checked before the
broker epoch.

Not implemented: replica fetchers to stop (none exist yet); offline log dirs. v0-2 (one
request-level DeletePartitions) are not served.
"""

from __future__ import annotations

from broker.handlers import RequestContext, handler, zookeeper_mode
from broker.handlers.leader_and_isr import is_broker_epoch_stale, run_to_completion
from coordinator.acl_model import AclOperation, ResourceType
from protocol.errors import ErrorCode
from protocol.messages import ApiKey, StopReplicaRequest, StopReplicaResponse


@handler(ApiKey.STOP_REPLICA, versions=(3, 4), served_when=zookeeper_mode)
async def handle_stop_replica(ctx: RequestContext, request: StopReplicaRequest) -> StopReplicaResponse:
    partitions = [
        ((t.topic_name, p.partition_index), p.leader_epoch, p.delete_partition)
        for t in request.topic_states
        for p in t.partition_states
    ]
    if not ctx.authorize(AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER):
        # KafkaApis.handle answers the ClusterAuthorizationException with getErrorResponse
        error = ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code
        return StopReplicaResponse(
            error_code=error,
            partition_errors=[
                StopReplicaResponse.StopReplicaPartitionError(
                    topic_name=topic, partition_index=index, error_code=error
                )
                for (topic, index), _, _ in partitions
            ],
        )
    if is_broker_epoch_stale(ctx, request.broker_epoch):
        # KafkaApis.handleStopReplicaRequest: the top-level error alone, no partition errors
        return StopReplicaResponse(error_code=ErrorCode.STALE_BROKER_EPOCH.code, partition_errors=[])
    top, errors = await run_to_completion(_stop_replicas_and_resign(ctx, request, partitions))
    return StopReplicaResponse(
        error_code=top.code,
        partition_errors=[
            StopReplicaResponse.StopReplicaPartitionError(
                topic_name=topic, partition_index=index, error_code=error.code
            )
            for (topic, index), error in errors.items()
        ],
    )


async def _stop_replicas_and_resign(
    ctx: RequestContext,
    request: StopReplicaRequest,
    partitions: list[tuple[tuple[str, int], int, bool]],
) -> tuple[ErrorCode, dict[tuple[str, int], ErrorCode]]:
    """``ReplicaManager.stopReplicas``, then (KafkaApis.handleStopReplicaRequest) a deleted
    coordinator partition (moved away by a reassignment, which sends no LeaderAndIsr to the
    old replica) resigns its coordinator."""
    top, errors = await ctx.broker.replica_manager.stop_replicas(
        request.controller_id, request.controller_epoch, partitions
    )
    groups, transactions = ctx.broker.groups, ctx.broker.transactions
    for (topic, index), leader_epoch, delete in partitions:
        if not delete or errors.get((topic, index)) is not ErrorCode.NONE:
            continue
        epoch = leader_epoch if leader_epoch >= 0 else None
        if topic == groups.topic_name:
            groups.on_resignation(index, epoch)
        elif topic == transactions.topic_name:
            transactions.on_resignation(index, epoch)
    return top, errors
