"""UpdateMetadata (key 6), versions 6-8: the controller's cluster view for every broker.

Served only in ZooKeeper mode (``zookeeper.connect`` set): a lone broker neither
advertises nor accepts it (the connection is closed as for an unknown API).

Behaviour (Kafka's ``KafkaApis.handleUpdateMetadataRequest`` then
``ReplicaManager.maybeUpdateMetadataCache`` / ``ZkMetadataCache.updateMetadata``):
- A stale broker epoch (not -1 and older than this broker's ``/brokers/ids`` czxid)
  answers STALE_BROKER_EPOCH (77).
- A controller epoch older than the last accepted control request's answers
  STALE_CONTROLLER_EPOCH (11) (Kafka's ControllerMovedException).
- Otherwise the MetadataCache is updated: the alive brokers become exactly
  ``LiveBrokers`` (every endpoint and the rack), the controller id is ``ControllerId``
  (negative: none), partition states are upserted (leader, leader epoch, ISR, replicas,
  offline replicas, zkVersion as partition epoch) and a leader of -2 removes the
  partition; the group coordinator drops the committed offsets of topics that went away
  (``onPartitionsDeleted``). Metadata, FindCoordinator and the KIP-951 leader hints answer
  from the cache.

Version notes: v6 is flexible; v7 adds TopicId; v8 adds IsKRaftController (ignored).

Delayed ElectLeaders waiting for the partitions of the request are completed.

The epoch check and the update run under Kafka's ``replicaStateChangeLock``
(``ReplicaManager.maybeUpdateMetadataCache``): at once when no LeaderAndIsr / StopReplica is
being applied, else after them (the answer then comes later).

Authorization: ClusterAction on the cluster, else CLUSTER_AUTHORIZATION_FAILED.

Not implemented: completing delayed CreateTopics;
security protocols other than PLAINTEXT are kept only as listener names. v0-5 are not served.
"""

from __future__ import annotations

import uuid
from collections.abc import Coroutine
from typing import Any

from broker.handlers import RequestContext, handler, zookeeper_mode
from broker.handlers.leader_and_isr import is_broker_epoch_stale
from coordinator.acl_model import AclOperation, ResourceType
from coordinator.cluster_state import BrokerEndpoint, LiveBroker, PartitionState
from protocol.errors import ErrorCode
from protocol.messages import ApiKey, UpdateMetadataRequest, UpdateMetadataResponse
from protocol.primitives import ZERO_UUID


@handler(ApiKey.UPDATE_METADATA, versions=(6, 8), served_when=zookeeper_mode)
def handle_update_metadata(
    ctx: RequestContext, request: UpdateMetadataRequest
) -> UpdateMetadataResponse | Coroutine[Any, Any, UpdateMetadataResponse]:
    if not ctx.authorize(AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER):
        return UpdateMetadataResponse(error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code)
    if is_broker_epoch_stale(ctx, request.broker_epoch):
        return UpdateMetadataResponse(error_code=ErrorCode.STALE_BROKER_EPOCH.code)
    return ctx.broker.replica_manager.under_state_change_lock(lambda: _update_metadata(ctx, request))


def _update_metadata(ctx: RequestContext, request: UpdateMetadataRequest) -> UpdateMetadataResponse:
    """``ReplicaManager.maybeUpdateMetadataCache`` (under ``replicaStateChangeLock``)."""
    replica_manager = ctx.broker.replica_manager
    if request.controller_epoch < replica_manager.controller_epoch:
        return UpdateMetadataResponse(error_code=ErrorCode.STALE_CONTROLLER_EPOCH.code)
    replica_manager.controller_epoch = request.controller_epoch
    brokers = [
        LiveBroker(
            b.id,
            tuple(BrokerEndpoint(ep.listener, ep.host, ep.port) for ep in b.endpoints),
            b.rack or None,
        )
        for b in request.live_brokers
    ]
    topic_ids: dict[str, uuid.UUID | None] = {}
    states: list[PartitionState] = []
    for t in request.topic_states:
        topic_ids[t.topic_name] = t.topic_id if t.topic_id != ZERO_UUID else None
        for p in t.partition_states:
            states.append(
                PartitionState(
                    t.topic_name,
                    p.partition_index,
                    p.leader,
                    p.leader_epoch,
                    tuple(p.isr),
                    tuple(p.replicas),
                    tuple(p.offline_replicas),
                    controller_epoch=p.controller_epoch,
                    partition_epoch=p.zk_version,
                )
            )
    deleted = ctx.broker.metadata_cache.update_metadata(request.controller_id, brokers, topic_ids, states)
    for topic in deleted:
        ctx.broker.groups.remove_offsets_of_topic(topic)
    elections = replica_manager.elect_leader_purgatory
    if len(elections):  # KafkaApis.handleUpdateMetadataRequest: tryCompleteElection per partition
        for state in states:
            elections.check_and_complete(state.key)
    return UpdateMetadataResponse(error_code=ErrorCode.NONE.code)
