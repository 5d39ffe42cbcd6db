"""What the ZooKeeper-mode controller sends to brokers, and through what.

``ControllerChannel`` is the controller's only way out (Kafka's ``ControllerChannelManager``):
the broker implements it over its inter-broker client; tests fake it. ``send`` must put
the request in the destination's queue *when called* (requests to one broker are
delivered in call order) and return an awaitable of the response.

``RequestBatch`` is Kafka's ``AbstractControllerBrokerRequestBatch``: state changes add
LeaderAndIsr / UpdateMetadata / StopReplica entries; ``send`` builds one request of each
kind per broker and sends all LeaderAndIsr, then all UpdateMetadata, then all StopReplica,
only to registered (live or shutting-down) brokers. Every LeaderAndIsr entry also queues
UpdateMetadata for that partition to every broker. Versions are those of a 3.9 controller
(IBP >= 3.4): LeaderAndIsr v7, UpdateMetadata v8, StopReplica v4, with
``is_kraft_controller=False`` and the target broker's epoch (czxid of its registration).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from coordinator.zk_data import (
    LEADER_DURING_DELETE,
    SECURITY_PROTOCOL_IDS,
    BrokerInfo,
    LeaderIsrAndEpoch,
)
from protocol.messages import LeaderAndIsrRequest, StopReplicaRequest, UpdateMetadataRequest

log = logging.getLogger(__name__)

LEADER_AND_ISR_VERSION = 7
UPDATE_METADATA_VERSION = 8
STOP_REPLICA_VERSION = 4

TopicPartition = tuple[str, int]


class ControllerChannel(Protocol):
    """The controller's connections to the brokers (one ordered queue per broker)."""

    def add_broker(self, broker: BrokerInfo) -> None:
        """A broker registered (or re-registered with new endpoints): open its queue."""

    def remove_broker(self, broker_id: int) -> None:
        """A broker left: drop its queue (pending requests fail)."""

    def send(self, broker_id: int, request: Any, version: int) -> Awaitable[Any]:
        """Queue ``request`` (a generated ``protocol.messages`` request) for ``broker_id`` at
        ``version`` now; the awaitable gives the decoded response or raises."""

    async def drain(self, timeout_s: float) -> None:
        """Wait at most ``timeout_s`` for the requests queued for reachable brokers."""


@dataclass
class ControllerView:
    """What a batch needs of the controller's context (read when the batch is sent)."""

    controller_id: int
    epoch: int
    brokers: Mapping[int, BrokerInfo]  # live or shutting down, with their epochs
    live: Callable[[], set[int]]  # live and not shutting down
    assignments: Mapping[str, Mapping[int, tuple[int, ...]]]
    topic_ids: Mapping[str, uuid.UUID]
    states: Mapping[TopicPartition, LeaderIsrAndEpoch]
    deleting: set[str]
    inter_broker_listener: str
    # AR and RR of partitions being reassigned (KIP-455), carried by LeaderAndIsr
    adding_removing: Mapping[TopicPartition, tuple[tuple[int, ...], tuple[int, ...]]] = field(
        default_factory=dict
    )


@dataclass
class RequestBatch:
    view: ControllerView
    leader_and_isr: dict[int, dict[TopicPartition, tuple[LeaderIsrAndEpoch, bool]]] = field(
        default_factory=dict
    )
    metadata_brokers: set[int] = field(default_factory=set)
    metadata_partitions: set[TopicPartition] = field(default_factory=set)
    stop_replica: dict[int, dict[TopicPartition, tuple[bool, int]]] = field(default_factory=dict)

    def add_leader_and_isr(
        self, broker_ids: Iterable[int], tp: TopicPartition, state: LeaderIsrAndEpoch, *, is_new: bool = False
    ) -> None:
        """``addLeaderAndIsrRequestForBrokers``: the state to those replicas, metadata to all."""
        for b in broker_ids:
            if b in self.view.brokers:
                self.leader_and_isr.setdefault(b, {})[tp] = (state, is_new)
        self.add_update_metadata(self.view.brokers.keys(), [tp])

    def add_update_metadata(self, broker_ids: Iterable[int], partitions: Iterable[TopicPartition]) -> None:
        self.metadata_brokers.update(b for b in broker_ids if b in self.view.brokers)
        self.metadata_partitions.update(partitions)

    def add_stop_replica(
        self, broker_id: int, tp: TopicPartition, *, delete: bool, leader_epoch: int
    ) -> None:
        if broker_id in self.view.brokers:
            self.stop_replica.setdefault(broker_id, {})[tp] = (delete, leader_epoch)

    @property
    def empty(self) -> bool:
        return not (self.leader_and_isr or self.metadata_brokers or self.stop_replica)

    # ------------------------------------------------------------------ building

    def _leader_and_isr_request(
        self, broker_id: int, entries: Mapping[TopicPartition, tuple[LeaderIsrAndEpoch, bool]]
    ) -> LeaderAndIsrRequest:
        v = self.view
        by_topic: dict[str, list[LeaderAndIsrRequest.LeaderAndIsrPartitionState]] = {}
        leaders: set[int] = set()
        for (topic, p), (state, is_new) in sorted(entries.items()):
            leaders.add(state.leader)
            adding, removing = v.adding_removing.get((topic, p), ((), ()))
            by_topic.setdefault(topic, []).append(
                LeaderAndIsrRequest.LeaderAndIsrPartitionState(
                    topic_name=topic,
                    partition_index=p,
                    controller_epoch=state.controller_epoch,
                    leader=state.leader,
                    leader_epoch=state.leader_epoch,
                    isr=list(state.isr),
                    partition_epoch=state.partition_epoch,
                    replicas=list(v.assignments.get(topic, {}).get(p, ())),
                    adding_replicas=list(adding),
                    removing_replicas=list(removing),
                    is_new=is_new,
                    leader_recovery_state=state.leader_recovery_state,
                )
            )
        live_leaders = []
        for b in sorted(leaders):
            info = v.brokers.get(b)
            ep = (
                next((e for e in info.endpoints if e.name == v.inter_broker_listener), None) if info else None
            )
            if ep is not None:
                live_leaders.append(
                    LeaderAndIsrRequest.LeaderAndIsrLiveLeader(broker_id=b, host_name=ep.host, port=ep.port)
                )
        return LeaderAndIsrRequest(
            controller_id=v.controller_id,
            is_kraft_controller=False,
            controller_epoch=v.epoch,
            broker_epoch=v.brokers[broker_id].epoch,
            type=0,
            topic_states=[
                LeaderAndIsrRequest.LeaderAndIsrTopicState(
                    topic_name=t, topic_id=v.topic_ids.get(t, uuid.UUID(int=0)), partition_states=states
                )
                for t, states in by_topic.items()
            ],
            live_leaders=live_leaders,
        )

    def _metadata_topic_states(self) -> list[UpdateMetadataRequest.UpdateMetadataTopicState]:
        v = self.view
        live = v.live()
        by_topic: dict[str, list[UpdateMetadataRequest.UpdateMetadataPartitionState]] = {}
        for topic, p in sorted(self.metadata_partitions):
            state = v.states.get((topic, p))
            if state is None:  # no leadership yet (a new partition with no live replica)
                continue
            replicas = v.assignments.get(topic, {}).get(p, ())
            by_topic.setdefault(topic, []).append(
                UpdateMetadataRequest.UpdateMetadataPartitionState(
                    topic_name=topic,
                    partition_index=p,
                    controller_epoch=state.controller_epoch,
                    leader=LEADER_DURING_DELETE if topic in v.deleting else state.leader,
                    leader_epoch=state.leader_epoch,
                    isr=list(state.isr),
                    zk_version=state.partition_epoch,
                    replicas=list(replicas),
                    offline_replicas=[r for r in replicas if r not in live],
                )
            )
        return [
            UpdateMetadataRequest.UpdateMetadataTopicState(
                topic_name=t, topic_id=v.topic_ids.get(t, uuid.UUID(int=0)), partition_states=states
            )
            for t, states in by_topic.items()
        ]

    def _live_brokers(self) -> list[UpdateMetadataRequest.UpdateMetadataBroker]:
        out = []
        for b, info in sorted(self.view.brokers.items()):
            out.append(
                UpdateMetadataRequest.UpdateMetadataBroker(
                    id=b,
                    endpoints=[
                        UpdateMetadataRequest.UpdateMetadataEndpoint(
                            port=e.port,
                            host=e.host,
                            listener=e.name,
                            security_protocol=SECURITY_PROTOCOL_IDS.get(info.security_protocol(e.name), 0),
                        )
                        for e in info.endpoints
                    ],
                    rack=info.rack,
                )
            )
        return out

    def _stop_replica_request(
        self, broker_id: int, entries: Mapping[TopicPartition, tuple[bool, int]]
    ) -> StopReplicaRequest:
        v = self.view
        by_topic: dict[str, list[StopReplicaRequest.StopReplicaPartitionState]] = {}
        for (topic, p), (delete, epoch) in sorted(entries.items()):
            by_topic.setdefault(topic, []).append(
                StopReplicaRequest.StopReplicaPartitionState(
                    partition_index=p, leader_epoch=epoch, delete_partition=delete
                )
            )
        return StopReplicaRequest(
            controller_id=v.controller_id,
            is_kraft_controller=False,
            controller_epoch=v.epoch,
            broker_epoch=v.brokers[broker_id].epoch,
            topic_states=[
                StopReplicaRequest.StopReplicaTopicState(topic_name=t, partition_states=states)
                for t, states in by_topic.items()
            ],
        )

    # ------------------------------------------------------------------ sending

    def send(
        self,
        channel: ControllerChannel,
        on_stop_replica: Callable[[int, StopReplicaRequest, Any], None] | None = None,
    ) -> None:
        """Send everything (Kafka's ``sendRequestsToBrokers``) and clear the batch."""
        v = self.view
        for b, entries in sorted(self.leader_and_isr.items()):
            if b in v.brokers:
                _send(channel, b, self._leader_and_isr_request(b, entries), LEADER_AND_ISR_VERSION)
        if self.metadata_brokers:
            topic_states = self._metadata_topic_states()
            live_brokers = self._live_brokers()
            for b in sorted(self.metadata_brokers):
                if b in v.brokers:
                    request = UpdateMetadataRequest(
                        controller_id=v.controller_id,
                        is_kraft_controller=False,
                        type=0,
                        controller_epoch=v.epoch,
                        broker_epoch=v.brokers[b].epoch,
                        topic_states=topic_states,
                        live_brokers=live_brokers,
                    )
                    _send(channel, b, request, UPDATE_METADATA_VERSION)
        for b, entries in sorted(self.stop_replica.items()):
            if b in v.brokers:
                request = self._stop_replica_request(b, entries)
                fut = _send(channel, b, request, STOP_REPLICA_VERSION)
                if on_stop_replica is not None and any(delete for delete, _ in entries.values()):
                    fut.add_done_callback(
                        lambda f, b=b, request=request: (
                            on_stop_replica(
                                b, request, f.exception() if f.exception() is not None else f.result()
                            )
                            if not f.cancelled()
                            else None
                        )
                    )
        self.leader_and_isr.clear()
        self.metadata_brokers.clear()
        self.metadata_partitions.clear()
        self.stop_replica.clear()


def _send(channel: ControllerChannel, broker_id: int, request: Any, version: int) -> asyncio.Future:
    try:
        fut = asyncio.ensure_future(channel.send(broker_id, request, version))
    except Exception as exc:  # the channel refused at once (broker gone)
        fut = asyncio.get_running_loop().create_future()
        fut.set_exception(exc)
    fut.add_done_callback(_log_failure(broker_id, type(request).__name__))
    return fut


def _log_failure(broker_id: int, name: str) -> Callable[[asyncio.Future], None]:
    def done(f: asyncio.Future) -> None:
        if not f.cancelled() and f.exception() is not None:
            log.info("%s to broker %d failed: %s", name, broker_id, f.exception())

    return done
