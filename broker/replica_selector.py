"""Which replica a consumer should read from (KIP-392, fetch from the closest replica).

Kafka's ``org.apache.kafka.common.replica`` package and ``ReplicaManager.findPreferredReadReplica``:
a leader given a consumer's Fetch v11+ (with the consumer's ``client.rack``) asks the broker's
``replica.selector.class`` which replica the consumer should read from; when the answer is
another broker, the partition's answer carries no records and that broker's id as
``preferred_read_replica``, and the consumer fetches from it from then on (until it errs, or
``metadata.max.age.ms`` passes and it asks the leader again).

Kafka loads the selector by class name; Moldau has Kafka's one built-in selector,
``RackAwareReplicaSelector``, and ``replica.selector.class`` may name only it (or nothing:
consumers always read from the leader, Kafka's default).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

RACK_AWARE_REPLICA_SELECTOR = "org.apache.kafka.common.replica.RackAwareReplicaSelector"
REPLICA_SELECTOR_CLASSES = ("", RACK_AWARE_REPLICA_SELECTOR)


@dataclass(frozen=True, slots=True)
class ReplicaView:
    """One replica as the selector sees it (Kafka's ``ReplicaView.DefaultReplicaView``): its
    broker, that broker's rack (None without ``broker.rack``), how far its log reaches and how
    long ago it was last caught up with the leader (0 for the leader)."""

    broker_id: int
    rack: str | None
    log_end_offset: int
    time_since_last_caught_up_ms: int


class ReplicaSelector(Protocol):
    """Kafka's ``ReplicaSelector``: the replica a consumer should read from, if any."""

    def select(
        self, client_rack: str, replicas: Iterable[ReplicaView], leader: ReplicaView
    ) -> ReplicaView | None: ...


def _most_caught_up(view: ReplicaView) -> tuple[int, int, int]:
    """``ReplicaView.comparator``: the longest log, then the most recently caught up, then the
    highest broker id (the maximum wins)."""
    return (view.log_end_offset, -view.time_since_last_caught_up_ms, view.broker_id)


class RackAwareReplicaSelector:
    """Kafka's ``RackAwareReplicaSelector``: a replica in the consumer's rack (the leader if it
    is in that rack, else the most caught-up one there); the leader when the consumer names no
    rack or no replica shares it."""

    def select(
        self, client_rack: str, replicas: Iterable[ReplicaView], leader: ReplicaView
    ) -> ReplicaView | None:
        if not client_rack:
            return leader
        same_rack = [r for r in replicas if r.rack == client_rack]
        if not same_rack or leader in same_rack:
            return leader
        return max(same_rack, key=_most_caught_up)


def create_replica_selector(class_name: str | None) -> ReplicaSelector | None:
    """The selector ``replica.selector.class`` names (Kafka's ``createReplicaSelector``); None
    for none (the config's values are checked when the config is read)."""
    if class_name == RACK_AWARE_REPLICA_SELECTOR:
        return RackAwareReplicaSelector()
    return None


@dataclass(frozen=True, slots=True)
class ReplicaSelection:
    """What ``ReplicaManager`` needs to pick a consumer's preferred read replica: the broker's
    selector and, per replica, its rack as the consumer's listener shows it (``endpoint``: None
    when that broker is not alive or has no such listener: Kafka's ``Node.noNode()``, never
    chosen)."""

    selector: ReplicaSelector
    endpoint: Callable[[int, str], tuple[str | None] | None]

    def preferred_read_replica(
        self,
        client_rack: str,
        listener: str,
        leader_id: int,
        leader_log_end_offset: int,
        candidates: Iterable[tuple[int, int, int]],
    ) -> int:
        """The broker id the consumer should read from, or -1 for the leader (Kafka leaves the
        leader out of the answer even when the selector picks it). ``candidates`` are the
        followers that may serve the fetch offset: (broker id, log end offset, time since last
        caught up)."""
        replicas = []
        for broker_id, log_end_offset, since_caught_up in candidates:
            found = self.endpoint(broker_id, listener)
            if found is not None:
                replicas.append(ReplicaView(broker_id, found[0], log_end_offset, since_caught_up))
        found = self.endpoint(leader_id, listener)
        leader = ReplicaView(leader_id, None if found is None else found[0], leader_log_end_offset, 0)
        replicas.append(leader)
        chosen = self.selector.select(client_rack, replicas, leader)
        if chosen is None or chosen == leader:
            return -1
        return chosen.broker_id
