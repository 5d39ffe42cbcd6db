"""AlterPartition (key 56), versions 0-3: a partition leader asks the controller to change its ISR.

Served only in ZooKeeper mode (``zookeeper.connect`` set): a lone broker neither
advertises nor accepts it (the connection is closed as for an unknown API). Kafka 3.9
serves all of 0-3 to ZooKeeper-mode brokers (``listeners: zkBroker``).

Behaviour (Kafka's ``KafkaApis.handleAlterPartitionRequest`` then
``KafkaController.tryProcessAlterPartition``, ZK_CLUSTER_FACTS §7):
- On a broker that is not the active controller: top-level NOT_CONTROLLER (41) and no
  topics (``AlterPartitionRequest.getErrorResponse``); the leader retries at the
  controller its metadata names.
- Otherwise the request is an event of the controller's queue: an unknown broker or a
  ``BrokerEpoch`` other than the registered one is top-level STALE_BROKER_EPOCH (77);
  per partition, in Kafka's order, UNKNOWN_TOPIC_ID / UNKNOWN_TOPIC_OR_PARTITION,
  NOT_CONTROLLER (the request is newer than the controller's view), FENCED_LEADER_EPOCH,
  an idempotent success when nothing changes, INVALID_UPDATE_VERSION, INVALID_REQUEST
  (leader recovery rules), INELIGIBLE_REPLICA (OPERATION_NOT_ATTEMPTED for v0-1) for an
  ISR member that is not live; accepted changes are written to the state znode
  (fenced) and published with UpdateMetadata, and the answer carries the new leader,
  epochs, ISR and partition epoch. A controller that lost its election meanwhile answers
  NOT_CONTROLLER; an unexpected failure UNKNOWN_SERVER_ERROR.

Version notes: v1 adds LeaderRecoveryState (KIP-704); v2 names topics by id instead of
name (KIP-841); v3 sends the ISR as ``NewIsrWithEpochs`` (KIP-903; broker epochs are -1
in ZooKeeper mode and not checked).

Authorization: ClusterAction on the cluster, else CLUSTER_AUTHORIZATION_FAILED.

Not implemented: Kafka exempts
the response from throttling, and nothing is throttled here. Completing a partition
reassignment after an ISR change (no reassignments yet).
"""

from __future__ import annotations

from broker.handlers import RequestContext, handler, zookeeper_mode
from coordinator.acl_model import AclOperation, ResourceType
from protocol.errors import ErrorCode
from protocol.messages import AlterPartitionRequest, AlterPartitionResponse, ApiKey


@handler(ApiKey.ALTER_PARTITION, versions=(0, 3), served_when=zookeeper_mode)
async def handle_alter_partition(
    ctx: RequestContext, request: AlterPartitionRequest
) -> AlterPartitionResponse:
    if not ctx.authorize(AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER):
        return AlterPartitionResponse(error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code)
    controller = ctx.broker.kafka_controller
    if not controller.active:
        return AlterPartitionResponse(error_code=ErrorCode.NOT_CONTROLLER.code)
    return await controller.alter_partition(request, ctx.api_version)
