"""WriteTxnMarkers (key 27), version 1.

Behaviour (Kafka's ``KafkaApis.handleWriteTxnMarkersRequest``): the transaction coordinator
asks the leader of each partition of a finished transaction to append its COMMIT or ABORT
marker. For each marker the replica manager (``ReplicaManager.write_txn_markers``, see
``broker/txn_partitions.py``) appends one control batch (the producer id and epoch, the
coordinator epoch) to each listed partition hosted here, with origin COORDINATOR (internal
topics allowed), and waits as acks=-1 does, up to ``request.timeout.ms``. Errors per
partition: UNKNOWN_TOPIC_OR_PARTITION (not hosted here, or in an offline log dir),
NOT_LEADER_OR_FOLLOWER, NOT_ENOUGH_REPLICAS, REQUEST_TIMED_OUT, INVALID_PRODUCER_EPOCH (a
producer epoch below the partition's), TRANSACTION_COORDINATOR_FENCED (a coordinator epoch
below the last marker's). Markers landing on ``__consumer_offsets`` partitions make the group
coordinator apply (commit) or drop (abort) the transaction's pending offsets. The answer
lists one entry per producer id (markers of the same producer id are merged, as Kafka's
response is keyed by producer id), topics and partitions in the request's order.

Version notes: v1 (flexible) is the only version of the message specs Moldau is generated
from; Kafka 3.9 also serves v0 (the same fields, not flexible), which Kafka 4.0 removed.
v2 (TransactionVersion, KIP-890 part 2) is not served.

Authorization (Kafka's ``handleWriteTxnMarkersRequest``): the request is inter-broker only
and needs Alter or ClusterAction on the cluster, else every partition answers
CLUSTER_AUTHORIZATION_FAILED (``WriteTxnMarkersRequest.getErrorResponse``).
"""

from __future__ import annotations

from broker.handlers import RequestContext, handler
from coordinator.acl_model import AclOperation, ResourceType
from coordinator.transaction_seams import TxnMarker
from protocol.errors import ErrorCode
from protocol.messages import ApiKey, WriteTxnMarkersRequest, WriteTxnMarkersResponse

MarkerResult = WriteTxnMarkersResponse.WritableTxnMarkerResult
TopicResult = WriteTxnMarkersResponse.WritableTxnMarkerTopicResult
PartitionResult = WriteTxnMarkersResponse.WritableTxnMarkerPartitionResult


@handler(ApiKey.WRITE_TXN_MARKERS, versions=(1, 1))
async def handle_write_txn_markers(
    ctx: RequestContext, request: WriteTxnMarkersRequest
) -> WriteTxnMarkersResponse:
    markers = [
        TxnMarker(
            producer_id=m.producer_id,
            producer_epoch=m.producer_epoch,
            committed=m.transaction_result,
            coordinator_epoch=m.coordinator_epoch,
            partitions=tuple((t.name, p) for t in m.topics for p in t.partition_indexes),
        )
        for m in request.markers
    ]
    # Kafka 3.9 asks Alter on the cluster first (not audited), then ClusterAction
    if not (
        ctx.authorize(AclOperation.ALTER, ResourceType.CLUSTER, log_denied=False)
        or ctx.authorize(AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER)
    ):
        results = [dict.fromkeys(m.partitions, ErrorCode.CLUSTER_AUTHORIZATION_FAILED) for m in markers]
    else:
        results = await ctx.broker.replica_manager.write_txn_markers(markers) if markers else []
    by_producer: dict[int, dict[str, dict[int, int]]] = {}
    for marker, errors in zip(markers, results, strict=True):
        topics = by_producer.setdefault(marker.producer_id, {})
        for topic, partition in marker.partitions:
            topics.setdefault(topic, {})[partition] = errors[(topic, partition)].code
    return WriteTxnMarkersResponse(
        markers=[
            MarkerResult(
                producer_id=pid,
                topics=[
                    TopicResult(
                        name=topic,
                        partitions=[
                            PartitionResult(partition_index=p, error_code=code) for p, code in parts.items()
                        ],
                    )
                    for topic, parts in topics.items()
                ],
            )
            for pid, topics in by_producer.items()
        ]
    )
