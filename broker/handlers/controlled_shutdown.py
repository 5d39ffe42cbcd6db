"""ControlledShutdown (key 7), versions 1-3: a broker asks the controller to move its leaders away.

Served only in ZooKeeper mode (``zookeeper.connect`` set): a lone broker neither
advertises nor accepts it (the connection is closed as for an unknown API).

Behaviour (Kafka's ``KafkaApis.handleControlledShutdownRequest`` then
``KafkaController.controlledShutdown``, ZK_CLUSTER_FACTS §5): the request goes to this
broker's ``KafkaController`` as an event of its queue, which
- answers STALE_CONTROLLER_EPOCH (11) when this broker is not the active controller
  (Kafka's ``ControllerMovedException`` through ``getErrorResponse``; the asking broker
  re-reads the controller from its metadata and retries);
- answers STALE_BROKER_EPOCH (77) when ``BrokerEpoch`` is not -1 and older than the
  epoch (czxid) of the broker's registration the controller knows;
- answers BROKER_NOT_AVAILABLE (8) for a broker that is not registered;
- otherwise marks the broker shutting down, moves the leadership of its replicated
  partitions to other ISR members, takes it out of the ISR of those it follows, and
  answers NONE with ``RemainingPartitions``: the replicated partitions it still leads (no
  other in-sync replica), as Kafka's ``partitionLeadersOnBroker``: those with one replica
  and those of topics being deleted, which no election can move, do not count.
Every error answer has no remaining partitions (``getErrorResponse``).

Version notes: v1 has only BrokerId (the epoch is then -1, never stale); v2 adds
BrokerEpoch; v3 is flexible (what a Kafka 2.4+ broker sends).

Authorization: ClusterAction on the cluster, else CLUSTER_AUTHORIZATION_FAILED.

Not implemented: v0 (Kafka serves 0-3). ControlledShutdown v0 has a request header
without client id, which this server cannot tell from a v1 header (it derives header
versions from the request version's flexibility), so v0 is neither advertised nor
accepted; only brokers older than Kafka 0.9 send it. Kafka exempts the response from throttling, and nothing is
throttled here.
"""

from __future__ import annotations

from broker.handlers import RequestContext, handler, zookeeper_mode
from coordinator.acl_model import AclOperation, ResourceType
from protocol.errors import ErrorCode
from protocol.messages import ApiKey, ControlledShutdownRequest, ControlledShutdownResponse


@handler(ApiKey.CONTROLLED_SHUTDOWN, versions=(1, 3), served_when=zookeeper_mode)
async def handle_controlled_shutdown(
    ctx: RequestContext, request: ControlledShutdownRequest
) -> ControlledShutdownResponse:
    if not ctx.authorize(AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER):
        return ControlledShutdownResponse(error_code=ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code)
    error, remaining = await ctx.broker.kafka_controller.controlled_shutdown(
        request.broker_id, request.broker_epoch
    )
    return ControlledShutdownResponse(
        error_code=error.code,
        remaining_partitions=[
            ControlledShutdownResponse.RemainingPartition(topic_name=topic, partition_index=partition)
            for topic, partition in remaining
        ],
    )
