"""The cluster view the controller publishes: live brokers, topics and partition states.

In ZooKeeper-mode Kafka the controller owns every partition's leadership and ISR and tells
the brokers with LeaderAndIsr (the partitions a broker hosts) and UpdateMetadata (the
whole cluster view, kept in each broker's ``MetadataCache``). These are the values those
requests carry (``LeaderAndIsrPartitionState`` / ``UpdateMetadataPartitionState``), and
``ClusterMetadataListener`` is how the broker's components receive them: the controller
(or, on a follower broker, whatever applies the controller's messages) calls every
registered listener, on the event loop, in registration order.

A lone broker without ZooKeeper is its own controller: every partition is led by it with
leader epoch 0, its replica list and ISR are the broker alone.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

INTERNAL_TOPICS = frozenset({"__consumer_offsets", "__transaction_state"})
NO_LEADER = -1  # LeaderAndIsr.NoLeader


@dataclass(frozen=True, slots=True)
class BrokerEndpoint:
    """One advertised listener of a broker (``listener_name``, ``host``, ``port``)."""

    name: str
    host: str
    port: int


@dataclass(frozen=True, slots=True)
class LiveBroker:
    """A broker registered in the cluster (Kafka's ``/brokers/ids/<id>``)."""

    broker_id: int
    endpoints: tuple[BrokerEndpoint, ...]
    rack: str | None = None

    def endpoint(self, listener: str) -> BrokerEndpoint | None:
        for ep in self.endpoints:
            if ep.name == listener:
                return ep
        return None


@dataclass(frozen=True, slots=True)
class PartitionState:
    """Leadership of one partition (``LeaderAndIsrPartitionState``).

    ``partition_epoch`` is the version of the partition's state (the state znode's
    version in ZooKeeper mode); a change based on an older one is refused.
    ``adding_replicas`` / ``removing_replicas``: a reassignment in flight (LeaderAndIsr's
    AddingReplicas / RemovingReplicas, Kafka's ``OngoingReassignmentState``).
    """

    topic: str
    partition: int
    leader: int
    leader_epoch: int
    isr: tuple[int, ...]
    replicas: tuple[int, ...]
    offline_replicas: tuple[int, ...] = ()
    controller_epoch: int = 0
    partition_epoch: int = 0
    adding_replicas: tuple[int, ...] = ()
    removing_replicas: tuple[int, ...] = ()

    @property
    def key(self) -> tuple[str, int]:
        return (self.topic, self.partition)


@dataclass(slots=True)
class TopicMetadata:
    """A topic as the controller knows it: id, partition count, config overrides."""

    name: str
    topic_id: uuid.UUID
    partitions: int
    overrides: dict[str, Any] = field(default_factory=dict)

    @property
    def is_internal(self) -> bool:
        return self.name in INTERNAL_TOPICS


class ClusterMetadataListener(Protocol):
    """Receives the controller's changes (what UpdateMetadata and LeaderAndIsr carry)."""

    def on_brokers_changed(self, brokers: Sequence[LiveBroker]) -> None:
        """The complete set of live brokers."""

    def on_topics_changed(
        self, topics: Mapping[str, TopicMetadata], states: Sequence[PartitionState]
    ) -> None:
        """Topics created or grown (``topics``, complete entries) and partition states that
        changed (new partitions, leader or ISR changes). ``states`` may name partitions of
        topics not in ``topics`` (a leadership change only)."""

    def on_topic_deleted(self, topic: TopicMetadata) -> None:
        """The topic is gone: its partitions stop being served (StopReplica with delete)."""
