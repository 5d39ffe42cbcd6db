"""LeaderAndIsr (key 4), versions 5-7: the controller tells a replica who leads its partitions.

Served only in ZooKeeper mode (``zookeeper.connect`` set): a lone broker neither
advertises nor accepts it (the connection is closed as for an unknown API).

Behaviour (Kafka's ``KafkaApis.handleLeaderAndIsrRequest`` then
``ReplicaManager.becomeLeaderOrFollower``):
- A broker epoch other than -1 and older than this broker's (the czxid of its
  ``/brokers/ids/<id>`` znode) answers STALE_BROKER_EPOCH (77) at the top and for every
  partition (``isBrokerEpochStale``); a newer one is accepted.
- A controller epoch older than the last accepted control request's answers
  STALE_CONTROLLER_EPOCH (11) at the top and for every partition.
- Per partition: INCONSISTENT_TOPIC_ID (103) if the topic id differs from the log's; a newer
  leader epoch is applied when this broker is in ``Replicas`` (else
  UNKNOWN_TOPIC_OR_PARTITION); an older or equal one is STALE_CONTROLLER_EPOCH (equal with
  a topic id the log lacked: NONE). Missing logs are created with the topic's overrides
  read from ``/config/topics/<t>`` (off the event loop); a failure is KAFKA_STORAGE_ERROR.
- The partitions become leader (Leader == this broker) or follower with the leader epoch,
  ISR, replicas and partition epoch; the group coordinator loads the ``__consumer_offsets``
  partitions this broker now leads and drops those it now follows.
- The response lists every partition of the request by topic id.

Version notes: v5 answers by topic id; v6 adds LeaderRecoveryState; v7 adds
IsKRaftController (always false from a ZooKeeper controller, ignored).

Authorization: ClusterAction on the cluster, else CLUSTER_AUTHORIZATION_FAILED everywhere.

The state change runs to its end even if the controller's connection closes meanwhile
(``run_to_completion``), as Kafka's handler thread finishes it.

Not implemented: LiveLeaders, the Type field (full/incremental, KRaft migration). v0-4
(name-keyed responses, IBP < 2.8) are not served.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Coroutine, Mapping
from typing import Any, TypeVar

from broker.handlers import RequestContext, handler, zookeeper_mode
from coordinator.acl_model import AclOperation, ResourceType
from coordinator.cluster_state import PartitionState
from protocol.errors import ErrorCode
from protocol.messages import ApiKey, LeaderAndIsrRequest, LeaderAndIsrResponse
from protocol.primitives import ZERO_UUID

log = logging.getLogger(__name__)

T = TypeVar("T")
UNKNOWN_BROKER_EPOCH = -1  # AbstractControlRequest.UNKNOWN_BROKER_EPOCH


def is_broker_epoch_stale(ctx: RequestContext, request_epoch: int) -> bool:
    """Kafka's ``ZkBrokerEpochManager.isBrokerEpochStale``: -1 is never stale, a newer
    epoch is accepted (the controller may have seen a re-registration first)."""
    if request_epoch == UNKNOWN_BROKER_EPOCH:
        return False
    zookeeper = ctx.broker.zookeeper
    mine = zookeeper.broker_epoch if zookeeper is not None else None
    return mine is not None and request_epoch < mine


# The control requests' state changes running to their end after their request went away.
_FINISHING: set[asyncio.Task] = set()


async def run_to_completion(change: Coroutine[Any, Any, T]) -> T:
    """A control request's state change (LeaderAndIsr, StopReplica and the coordinators'
    elections and resignations that follow) runs to its end even when the request's task is
    cancelled (its connection closed): Kafka's request handler thread finishes a request
    whatever became of its channel, only the answer is lost. Left halfway, a deleted
    ``__consumer_offsets`` partition would keep its groups served here."""
    task = asyncio.ensure_future(change)
    _FINISHING.add(task)
    task.add_done_callback(_finished)
    return await asyncio.shield(task)


def _finished(task: asyncio.Task) -> None:
    _FINISHING.discard(task)
    if not task.cancelled() and task.exception() is not None:
        log.error("a control request's state change failed: %r", task.exception())


def _error_response(request: LeaderAndIsrRequest, error: ErrorCode) -> LeaderAndIsrResponse:
    """``LeaderAndIsrRequest.getErrorResponse``: the error at the top and for every partition."""
    return LeaderAndIsrResponse(
        error_code=error.code,
        topics=[
            LeaderAndIsrResponse.LeaderAndIsrTopicError(
                topic_id=t.topic_id,
                partition_errors=[
                    LeaderAndIsrResponse.LeaderAndIsrPartitionError(
                        partition_index=p.partition_index, error_code=error.code
                    )
                    for p in t.partition_states
                ],
            )
            for t in request.topic_states
        ],
    )


async def _topic_overrides(ctx: RequestContext, topic: str) -> Mapping[str, str]:
    zookeeper = ctx.broker.zookeeper
    if zookeeper is None:  # not served outside ZooKeeper mode
        return {}
    return await asyncio.get_running_loop().run_in_executor(None, zookeeper.read_topic_config, topic)


@handler(ApiKey.LEADER_AND_ISR, versions=(5, 7), served_when=zookeeper_mode)
async def handle_leader_and_isr(ctx: RequestContext, request: LeaderAndIsrRequest) -> LeaderAndIsrResponse:
    if not ctx.authorize(AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER):
        return _error_response(request, ErrorCode.CLUSTER_AUTHORIZATION_FAILED)
    if is_broker_epoch_stale(ctx, request.broker_epoch):
        return _error_response(request, ErrorCode.STALE_BROKER_EPOCH)
    states: list[PartitionState] = []
    topic_ids: dict[str, uuid.UUID] = {}
    for t in request.topic_states:
        if t.topic_id != ZERO_UUID:
            topic_ids[t.topic_name] = t.topic_id
        for p in t.partition_states:
            states.append(
                PartitionState(
                    t.topic_name,
                    p.partition_index,
                    p.leader,
                    p.leader_epoch,
                    tuple(p.isr),
                    tuple(p.replicas),
                    controller_epoch=p.controller_epoch,
                    partition_epoch=p.partition_epoch,
                    adding_replicas=tuple(p.adding_replicas),
                    removing_replicas=tuple(p.removing_replicas),
                )
            )
    top, errors = await run_to_completion(
        ctx.broker.replica_manager.become_leader_or_follower(
            request.controller_id,
            request.controller_epoch,
            states,
            topic_ids,
            topic_overrides=lambda topic: _topic_overrides(ctx, topic),
        )
    )
    if top is not ErrorCode.NONE:
        return _error_response(request, top)
    return LeaderAndIsrResponse(
        error_code=ErrorCode.NONE.code,
        topics=[
            LeaderAndIsrResponse.LeaderAndIsrTopicError(
                topic_id=t.topic_id,
                partition_errors=[
                    LeaderAndIsrResponse.LeaderAndIsrPartitionError(
                        partition_index=p.partition_index,
                        error_code=errors[(t.topic_name, p.partition_index)].code,
                    )
                    for p in t.partition_states
                ],
            )
            for t in request.topic_states
        ],
    )
