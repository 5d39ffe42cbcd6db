"""Leader election for the ZooKeeper-mode controller: its context and Kafka's algorithms.

``ControllerContext`` is Kafka's (the active controller's view of brokers, assignments and
partition states); ``elect`` is ``PartitionLeaderElectionAlgorithms`` with the new
ISR / recovery state / recipients rules of ``Election`` (see ZK_CLUSTER_FACTS §4).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum

from coordinator import zk_data as zd

TopicPartition = tuple[str, int]


class ElectionType(Enum):
    PREFERRED = 0
    UNCLEAN = 1


class Strategy(Enum):
    """``PartitionLeaderElectionStrategy``."""

    OFFLINE = "OfflinePartitionLeaderElectionStrategy"
    PREFERRED = "PreferredReplicaPartitionLeaderElectionStrategy"
    CONTROLLED_SHUTDOWN = "ControlledShutdownPartitionLeaderElectionStrategy"
    REASSIGN = "ReassignPartitionLeaderElectionStrategy"


@dataclass(frozen=True)
class ReplicaAssignment:
    """Kafka's ``ReplicaAssignment``: a partition's full replica set (RS) and, while it is
    being reassigned (KIP-455), the replicas being added (AR) and removed (RR)."""

    replicas: tuple[int, ...]
    adding: tuple[int, ...] = ()
    removing: tuple[int, ...] = ()

    @property
    def origin(self) -> tuple[int, ...]:
        """ORS: the replicas before the reassignment."""
        return tuple(r for r in self.replicas if r not in self.adding)

    @property
    def target(self) -> tuple[int, ...]:
        """TRS: the replicas after it."""
        return tuple(r for r in self.replicas if r not in self.removing)

    @property
    def being_reassigned(self) -> bool:
        return bool(self.adding or self.removing)

    def reassign_to(self, target: Sequence[int]) -> ReplicaAssignment:
        """``ReplicaAssignment.reassignTo``: RS = TRS + ORS (target first, no duplicates)."""
        origin = self.origin
        full = tuple(dict.fromkeys([*target, *origin]))
        return ReplicaAssignment(
            full, tuple(r for r in full if r not in origin), tuple(r for r in full if r not in target)
        )


@dataclass
class ControllerContext:
    """Kafka's ``ControllerContext``: the active controller's view of the cluster."""

    epoch: int = 0
    epoch_zk_version: int = 0
    brokers: dict[int, zd.BrokerInfo] = field(default_factory=dict)  # live or shutting down
    shutting_down: set[int] = field(default_factory=set)
    assignments: dict[str, dict[int, tuple[int, ...]]] = field(default_factory=dict)
    topic_ids: dict[str, uuid.UUID] = field(default_factory=dict)
    states: dict[TopicPartition, zd.LeaderIsrAndEpoch] = field(default_factory=dict)
    topics_to_delete: set[str] = field(default_factory=set)
    deletion_ineligible: set[str] = field(default_factory=set)
    deletion_started: set[str] = field(default_factory=set)
    replicas_deleted: dict[str, set[tuple[int, int]]] = field(default_factory=dict)
    # AR and RR of partitions whose assignment has them (``partitionFullReplicaAssignment``),
    # and Kafka's ``partitionsBeingReassigned``
    adding_removing: dict[TopicPartition, tuple[tuple[int, ...], tuple[int, ...]]] = field(
        default_factory=dict
    )
    being_reassigned: set[TopicPartition] = field(default_factory=set)

    def full_assignment(self, tp: TopicPartition) -> ReplicaAssignment:
        adding, removing = self.adding_removing.get(tp, ((), ()))
        return ReplicaAssignment(self.replicas(tp), adding, removing)

    def set_full_assignment(self, tp: TopicPartition, assignment: ReplicaAssignment) -> None:
        """``updatePartitionFullReplicaAssignment``."""
        self.assignments.setdefault(tp[0], {})[tp[1]] = assignment.replicas
        if assignment.being_reassigned:
            self.adding_removing[tp] = (assignment.adding, assignment.removing)
        else:
            self.adding_removing.pop(tp, None)

    def live(self) -> set[int]:
        return set(self.brokers) - self.shutting_down

    def replicas(self, tp: TopicPartition) -> tuple[int, ...]:
        return self.assignments.get(tp[0], {}).get(tp[1], ())

    def all_partitions(self) -> list[TopicPartition]:
        return [(t, p) for t, parts in sorted(self.assignments.items()) for p in sorted(parts)]

    def partitions_on_broker(self, broker_id: int) -> list[TopicPartition]:
        return [tp for tp in self.all_partitions() if broker_id in self.replicas(tp)]


@dataclass(frozen=True)
class ElectionResult:
    leader: int
    isr: tuple[int, ...]
    recovery_state: int
    recipients: tuple[int, ...]


def elect(
    strategy: Strategy,
    assignment: Sequence[int],
    current: zd.LeaderIsrAndEpoch,
    live: set[int],
    shutting_down: set[int],
    *,
    unclean: bool = False,
) -> ElectionResult | None:
    """Kafka's ``PartitionLeaderElectionAlgorithms`` + ``Election``: the new leader, ISR,
    recovery state and LeaderAndIsr recipients, or None when no replica can lead."""
    isr = current.isr
    if strategy is Strategy.OFFLINE:
        leader = next((r for r in assignment if r in live and r in isr), None)
        if leader is None and unclean:
            leader = next((r for r in assignment if r in live), None)
        if leader is None:
            return None
        if leader in isr:  # a clean election keeps the recovery state (Election.leaderForOffline)
            return ElectionResult(
                leader,
                tuple(r for r in isr if r in live),
                current.leader_recovery_state,
                live_replicas(assignment, live),
            )
        # KIP-704: an unclean leader recovers first (IBP >= 3.2)
        return ElectionResult(leader, (leader,), zd.RECOVERING, live_replicas(assignment, live))
    if strategy is Strategy.REASSIGN:
        # the first target replica (the assignment is TRS by now) live and in the ISR; ISR kept
        leader = next((r for r in assignment if r in live and r in isr), None)
        if leader is None:
            return None
        return ElectionResult(leader, isr, current.leader_recovery_state, live_replicas(assignment, live))
    if strategy is Strategy.PREFERRED:
        if assignment and assignment[0] in live and assignment[0] in isr:
            return ElectionResult(
                assignment[0], isr, current.leader_recovery_state, live_replicas(assignment, live)
            )
        return None
    # controlled shutdown: an ISR member that is not shutting down
    live_or_shutting = live | shutting_down
    leader = next(
        (r for r in assignment if r in live_or_shutting and r in isr and r not in shutting_down), None
    )
    if leader is None:
        return None
    new_isr = tuple(r for r in isr if r not in shutting_down)
    return ElectionResult(
        leader, new_isr, current.leader_recovery_state, live_replicas(assignment, live_or_shutting)
    )


def live_replicas(assignment: Sequence[int], live: set[int]) -> tuple[int, ...]:
    return tuple(r for r in assignment if r in live)
