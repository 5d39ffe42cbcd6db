"""MetadataCache: this broker's view of the cluster (Kafka's ``MetadataCache`` / ``ZkMetadataCache``).

In ZooKeeper-mode Kafka every broker keeps the cluster view the controller sends it in
UpdateMetadata: the live brokers with their listeners and racks, every topic with its id and
every partition's leader, leader epoch, replicas, ISR and offline replicas, and the id of the
controller. Metadata, DescribeCluster and FindCoordinator answer from it alone, so what a
client sees is what the controller last published, never a component's private state.

Here the cache is a ``ClusterMetadataListener``: the controller publishes to it on the event
loop, and it answers queries synchronously. The controller id is set by whoever knows it
(the broker itself when it is its own controller; later the controller election).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence

from coordinator.cluster_state import (
    NO_LEADER,
    BrokerEndpoint,
    LiveBroker,
    PartitionState,
    TopicMetadata,
)
from coordinator.controller import unify_collision_chars

NO_CONTROLLER = -1  # MetadataResponse.NO_CONTROLLER_ID
LEADER_DURING_DELETE = -2  # LeaderAndIsr.LeaderDuringDelete: the topic is being deleted


class MetadataCache:
    """The cluster as the controller last published it."""

    def __init__(self, broker_id: int, cluster_id: str, *, controller_id: int = NO_CONTROLLER) -> None:
        self.broker_id = broker_id
        self.cluster_id = cluster_id
        self.controller_id = controller_id
        # False in ZooKeeper mode until the controller's first UpdateMetadata.
        self.has_cluster_view = controller_id != NO_CONTROLLER
        self._brokers: dict[int, LiveBroker] = {}
        self._topics: dict[str, TopicMetadata] = {}
        self._topics_by_id: dict[uuid.UUID, TopicMetadata] = {}
        # '.'/'_'-unified name -> topic (Kafka's Topic.hasCollision, looked up per auto-creation)
        self._by_unified_name: dict[str, str] = {}
        self._states: dict[str, dict[int, PartitionState]] = {}
        # Requests waiting for the cluster view to change (DelayedCreatePartitions, ...).
        self._waiters: list[tuple[Callable[[], bool], asyncio.Future[None]]] = []
        # What is derived from the view (the Metadata handler's encoded topic entries) is
        # valid while ``topic_version(name)`` stays; ``derived`` is emptied when the brokers
        # change (their endpoints decide a partition's leader and error).
        self.derived: dict[object, object] = {}
        self._changes = 0
        self._topic_changed: dict[str, int] = {}

    # ------------------------------------------------------------------ ClusterMetadataListener

    def on_brokers_changed(self, brokers: Sequence[LiveBroker]) -> None:
        self._brokers = {b.broker_id: b for b in brokers}
        self.derived.clear()
        self._notify()

    def on_topics_changed(
        self, topics: Mapping[str, TopicMetadata], states: Sequence[PartitionState]
    ) -> None:
        for name, topic in topics.items():
            old = self._topics.get(name)
            if old is not None and old.topic_id != topic.topic_id:
                self._topics_by_id.pop(old.topic_id, None)
            self._topics[name] = topic
            self._topics_by_id[topic.topic_id] = topic
            self._by_unified_name[unify_collision_chars(name)] = name
        for state in states:
            self._states.setdefault(state.topic, {})[state.partition] = state
        self._topics_touched(topics.keys() | {state.topic for state in states})
        self._notify()

    def on_topic_deleted(self, topic: TopicMetadata) -> None:
        known = self._topics.pop(topic.name, None)
        if known is not None:
            self._topics_by_id.pop(known.topic_id, None)
            self._by_unified_name.pop(unify_collision_chars(topic.name), None)
        self._states.pop(topic.name, None)
        # A deleted name keeps no counter (topic churn must not grow the cache); a topic of
        # that name created later is touched again, with a newer version than any entry
        # derived before.
        self._changes += 1
        self._topic_changed.pop(topic.name, None)
        self._notify()

    def set_controller(self, controller_id: int) -> None:
        """The controller changed (UpdateMetadata's ``controllerId``)."""
        self.controller_id = controller_id
        self._notify()

    def update_metadata(
        self,
        controller_id: int,
        brokers: Sequence[LiveBroker],
        topic_ids: Mapping[str, uuid.UUID | None],
        states: Sequence[PartitionState],
    ) -> list[str]:
        """UpdateMetadata (Kafka's ``ZkMetadataCache.updateMetadata``); returns the topics
        whose last partition went away.

        The alive brokers become exactly ``brokers``; the controller id is the request's
        (negative: none); partition states are upserted, a leader of -2
        (``LeaderDuringDelete``) removing the partition. A topic gets the id the request
        names (a topic first seen without one gets a random id, never shown to clients
        as the controller always sends ids from IBP 2.8 on).
        """
        new_brokers = {b.broker_id: b for b in brokers}
        if new_brokers != self._brokers:
            self.derived.clear()
        self._brokers = new_brokers
        self.controller_id = controller_id if controller_id >= 0 else NO_CONTROLLER
        self.has_cluster_view = True
        touched: set[str] = set()
        for state in states:
            touched.add(state.topic)
            if state.leader == LEADER_DURING_DELETE:
                self._states.get(state.topic, {}).pop(state.partition, None)
            else:
                self._states.setdefault(state.topic, {})[state.partition] = state
        deleted: list[str] = []
        for name in sorted(touched):
            parts = self._states.get(name)
            old = self._topics.get(name)
            if not parts:
                self._states.pop(name, None)
                if old is not None:
                    self.on_topic_deleted(old)
                deleted.append(name)
                continue
            topic_id = topic_ids.get(name) or (old.topic_id if old is not None else uuid.uuid4())
            if old is not None and old.topic_id == topic_id:
                old.partitions = len(parts)
                continue
            if old is not None:
                self._topics_by_id.pop(old.topic_id, None)
            topic = TopicMetadata(name, topic_id, len(parts), dict(old.overrides) if old is not None else {})
            self._topics[name] = topic
            self._topics_by_id[topic_id] = topic
            self._by_unified_name[unify_collision_chars(name)] = name
        self._topics_touched(touched)
        self._notify()
        return deleted

    # ------------------------------------------------------------------ waiting for changes

    async def wait_until(self, condition: Callable[[], bool], timeout_s: float) -> bool:
        """True once ``condition()`` holds, checked now and after every update; False when
        ``timeout_s`` passes first (Kafka's DelayedCreatePartitions / DelayedDeleteTopics)."""
        if condition():
            return True
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        entry = (condition, fut)
        self._waiters.append(entry)
        try:
            async with asyncio.timeout(timeout_s):
                await fut
            return True
        except TimeoutError:
            return False
        finally:
            if entry in self._waiters:
                self._waiters.remove(entry)

    def _topics_touched(self, names: Iterable[str]) -> None:
        self._changes += 1
        for name in names:
            self._topic_changed[name] = self._changes

    def topic_version(self, name: str) -> int:
        """Changes whenever the topic or one of its partition states changes."""
        return self._topic_changed.get(name, 0)

    def _notify(self) -> None:
        if not self._waiters:
            return
        waiting = []
        for condition, fut in self._waiters:
            if fut.done():
                continue
            if condition():
                fut.set_result(None)
            else:
                waiting.append((condition, fut))
        self._waiters = waiting

    # ------------------------------------------------------------------ brokers

    def get_alive_brokers(self) -> list[LiveBroker]:
        return [self._brokers[b] for b in sorted(self._brokers)]

    def get_alive_broker(self, broker_id: int) -> LiveBroker | None:
        return self._brokers.get(broker_id)

    def is_alive(self, broker_id: int) -> bool:
        return broker_id in self._brokers

    def endpoint(self, broker_id: int, listener: str) -> BrokerEndpoint | None:
        """The broker's endpoint on ``listener`` (None if it is not alive or has no such listener)."""
        broker = self._brokers.get(broker_id)
        return broker.endpoint(listener) if broker is not None else None

    def alive_endpoints(self, listener: str) -> list[tuple[LiveBroker, BrokerEndpoint]]:
        """Kafka's ``getAliveBrokerNodes(listenerName)``: brokers without that listener are left out."""
        out = []
        for broker in self.get_alive_brokers():
            ep = broker.endpoint(listener)
            if ep is not None:
                out.append((broker, ep))
        return out

    # ------------------------------------------------------------------ topics and partitions

    def topic_names(self) -> list[str]:
        return sorted(self._topics)

    def topic_colliding_with(self, unified_name: str) -> str | None:
        """The topic whose name is ``unified_name`` once '.' and '_' are unified, if any."""
        return self._by_unified_name.get(unified_name)

    def get_topic(self, name: str) -> TopicMetadata | None:
        return self._topics.get(name)

    def get_topic_by_id(self, topic_id: uuid.UUID) -> TopicMetadata | None:
        return self._topics_by_id.get(topic_id)

    def contains(self, name: str) -> bool:
        return name in self._topics

    def partition_state(self, topic: str, partition: int) -> PartitionState | None:
        return self._states.get(topic, {}).get(partition)

    def partition_states(self, topic: str) -> list[PartitionState]:
        states = self._states.get(topic, {})
        return [states[p] for p in sorted(states)]

    def leader_epoch(self, topic: str, partition: int) -> int:
        """The partition's leader epoch, 0 if unknown (the group coordinator stamps it into its batches)."""
        state = self.partition_state(topic, partition)
        return state.leader_epoch if state is not None else 0

    def leader_endpoint(self, topic: str, partition: int, listener: str) -> BrokerEndpoint | None:
        """Kafka's ``getPartitionLeaderEndpoint``: the alive leader's endpoint on ``listener``."""
        state = self.partition_state(topic, partition)
        if state is None or state.leader == NO_LEADER:
            return None
        return self.endpoint(state.leader, listener)
