"""Partition: one partition this broker hosts, as leader or follower (Kafka's ``kafka.cluster.Partition``).

It holds the partition's ``PartitionLog``, the leadership the controller published (leader
id, leader epoch, replicas, ISR) and, on a leader, the state of each follower. Every
request that touches a partition goes through here, so these decisions live in one place:

- who may be read from or appended to: the leader only (NOT_LEADER_OR_FOLLOWER
  otherwise), with the client's view of the leader epoch fenced first (KIP-320:
  FENCED_LEADER_EPOCH below ours, UNKNOWN_LEADER_EPOCH above);
- the high watermark (``maybe_increment_high_watermark``): the smallest log end offset
  over the ISR (and over followers caught up that may join it), Kafka's
  ``maybeIncrementLeaderHW``. With the leader alone in the ISR that is its log end offset,
  so the high watermark follows every append; each follower fetch reports the follower's
  log end offset (``update_follower_fetch_state``). A follower takes min(leader's high
  watermark, own log end offset) from each fetch response (``update_follower_high_watermark``);
- the ISR (Kafka's ``maybeExpandIsr`` / ``maybeShrinkIsr``): a follower that reached the
  high watermark joins, one that did not catch up for ``replica.lag.time.max.ms`` leaves;
  each change is proposed to the controller through the ``IsrChangeSink`` (AlterPartition,
  KIP-497), one at a time, and committed when it answers (``on_alter_partition_*``);
- ``min.insync.replicas`` for acks=-1 (NOT_ENOUGH_REPLICAS);
- what a fetch may see (``FetchIsolation``: the log end for followers, the high watermark
  for read_uncommitted consumers, the last stable offset for read_committed ones).

For the delayed-fetch purgatory the partition counts bytes: ``bytes_below(isolation)`` is
the number of bytes of the log below its log end offset (``LOG_END``), high watermark or last
stable offset, counted from one origin (the log as it was when hosted counts too: its tail
above the high watermark is measured once from the segments), so a parked fetch knows how much
became readable without reading (Kafka's ``DelayedFetch`` compares log positions). Those
counters are the base class ``FetchByteCounters`` (broker/partition_fetch_counters.py).
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from broker.metrics import IsrChangeStats
from broker.partition_fetch_counters import FetchByteCounters
from coordinator.cluster_state import NO_LEADER, PartitionState
from protocol.errors import ErrorCode, KafkaError
from storage.file_records import FileRecords
from storage.log_config import LogConfig
from storage.log_types import (
    EARLIEST_LOCAL_TIMESTAMP,
    EARLIEST_TIMESTAMP,
    LATEST_TIMESTAMP,
    FetchIsolation,
    LogAppendInfo,
    TimestampAndOffset,
)
from storage.partition_log import FollowerRecords, PartitionLog
from storage.producer_state import AppendOrigin
from storage.producer_state_entry import ProducerStateEntry
from storage.transaction_index import AbortedTxn

log = logging.getLogger(__name__)

NO_EPOCH = -1  # a request without a leader epoch (Optional.empty in Kafka)
REPLICA_LAG_TIME_MAX_MS = 30_000  # replica.lag.time.max.ms


class IsrChangeSink(Protocol):
    """Where a leader proposes ISR changes (the AlterPartitionManager, KIP-497)."""

    def submit(self, partition: Partition, new_isr: tuple[int, ...]) -> bool:
        """Send ``new_isr`` for ``partition``; False if it cannot be sent (nothing pending then)."""
        ...


@dataclass(slots=True)
class FollowerState:
    """What the leader knows of one follower (Kafka's ``Replica`` / ``ReplicaState``)."""

    replica_id: int
    log_end_offset: int = -1  # unknown until the follower fetches (UnifiedLog.UnknownOffset)
    log_start_offset: int = -1
    last_caught_up_time_ms: int = 0
    last_fetch_leader_log_end_offset: int = -1
    last_fetch_time_ms: int = 0

    def update_fetch_state(
        self, fetch_offset: int, log_start_offset: int, fetch_time_ms: int, leader_end_offset: int
    ) -> None:
        """Kafka's ``Replica.updateFetchStateOrThrow``: the follower is caught up at this fetch if
        it asked for the leader's log end offset, or caught up at its previous fetch if it asked
        for at least the leader's log end offset of that fetch."""
        if fetch_offset >= leader_end_offset:
            self.last_caught_up_time_ms = max(self.last_caught_up_time_ms, fetch_time_ms)
        elif fetch_offset >= self.last_fetch_leader_log_end_offset:
            self.last_caught_up_time_ms = max(self.last_caught_up_time_ms, self.last_fetch_time_ms)
        self.log_start_offset = log_start_offset
        self.log_end_offset = fetch_offset
        self.last_fetch_leader_log_end_offset = leader_end_offset
        self.last_fetch_time_ms = fetch_time_ms

    def reset(self, now_ms: int, leader_end_offset: int, *, is_new_leader: bool, in_sync: bool) -> None:
        """Kafka's ``Replica.resetReplicaState`` at a new leader epoch. A new leader knows
        nothing of the follower yet; a leader re-elected in a new epoch keeps its log end and
        log start offsets (so the high watermark does not wait for every follower to fetch
        again). Either way an ISR member counts as caught up now and any other one as never,
        so the high watermark is not held back by a follower no longer in sync."""
        self.last_caught_up_time_ms = now_ms if in_sync else 0
        if is_new_leader:
            self.log_start_offset = -1
            self.log_end_offset = -1
            self.last_fetch_leader_log_end_offset = -1
            self.last_fetch_time_ms = 0
        else:
            self.last_fetch_leader_log_end_offset = leader_end_offset
            # 0 for a follower out of the ISR: it may not rejoin before it fetches again
            self.last_fetch_time_ms = now_ms if in_sync else 0

    def is_caught_up(self, leader_end_offset: int, now_ms: int, max_lag_ms: int) -> bool:
        """Kafka's ``ReplicaState.isCaughtUp``."""
        return leader_end_offset == self.log_end_offset or now_ms - self.last_caught_up_time_ms <= max_lag_ms


class LogReadInfo(NamedTuple):
    """One partition's read (Kafka's ``LogReadInfo``): whole batches and the offsets of then."""

    records: bytes
    high_watermark: int
    last_stable_offset: int
    log_start_offset: int
    log_end_offset: int
    diverging_epoch: tuple[int, int] | None = None  # (epoch, end offset), Fetch v12
    # read_committed: the aborted transactions overlapping the records read (else None)
    aborted_transactions: list[AbortedTxn] | None = None
    # a whole batch below the limit did not fit max_bytes (FetchDataInfo.limited)
    limited: bool = False


@dataclass(frozen=True, slots=True)
class LogOffsets:
    """A partition's offsets at one moment (Kafka's ``LogOffsetSnapshot``)."""

    log_start_offset: int
    log_end_offset: int
    high_watermark: int
    last_stable_offset: int


class Partition(FetchByteCounters):
    """One hosted partition: its log, its leadership, and the leader's decisions about it."""

    def __init__(
        self,
        log: PartitionLog,
        *,
        local_broker_id: int,
        time_ms: Callable[[], int],
        isr_changes: IsrChangeStats | None = None,
        replica_lag_time_max_ms: int = REPLICA_LAG_TIME_MAX_MS,
        isr_change_sink: IsrChangeSink | None = None,
        is_replica_isr_eligible: Callable[[int], bool] = lambda _broker_id: True,
    ) -> None:
        self.topic = log.topic
        self.partition = log.partition
        self.log = log
        self.local_broker_id = local_broker_id
        self._time_ms = time_ms
        self.replica_lag_time_max_ms = replica_lag_time_max_ms
        self._isr_change_sink = isr_change_sink
        self._is_replica_isr_eligible = is_replica_isr_eligible
        self.leader_id = NO_LEADER
        self.leader_epoch = NO_EPOCH
        self.partition_epoch = -1
        self.replicas: tuple[int, ...] = ()
        # The replicas a reassignment in flight adds and removes (LeaderAndIsr's
        # AddingReplicas / RemovingReplicas: Kafka's OngoingReassignmentState); () when none.
        self.adding_replicas: tuple[int, ...] = ()
        self.removing_replicas: tuple[int, ...] = ()
        self.isr: tuple[int, ...] = ()  # the committed ISR (Kafka's partitionState.isr)
        # An ISR change sent to the controller and not answered yet (Kafka's PendingExpandIsr /
        # PendingShrinkIsr); the high watermark counts the larger of the two ISRs meanwhile.
        self.pending_isr: tuple[int, ...] | None = None
        self.follower_states: dict[int, FollowerState] = {}
        # The ReplicaManager's ISR shrink/expand meters (a partition of its own in unit tests).
        self.isr_changes = isr_changes if isr_changes is not None else IsrChangeStats()
        # Byte counters for the delayed-fetch purgatory (``bytes_below``): the bytes of the log
        # from one origin up to the log end (appended), the high watermark (committed) and the
        # last stable offset (stable); the first two with the offset they count to. (end
        # offset, bytes) of each batch (a follower: each append) between them: above the high
        # watermark in _uncommitted, between the last stable offset and it in _unstable.
        self._appended_bytes = self._committed_bytes = self._stable_bytes = 0
        self._appended_at = self._committed_at = 0
        self._floor = 0  # the stable bytes at the last seeding: no counter has been lower since
        self._uncommitted: deque[tuple[int, int]] = deque()
        self._unstable: deque[tuple[int, int]] = deque()
        self._seed_byte_counters()

    def __repr__(self) -> str:
        return (
            f"Partition({self.topic}-{self.partition}, leader={self.leader_id}, "
            f"epoch={self.leader_epoch}, isr={list(self.isr)})"
        )

    @property
    def key(self) -> tuple[str, int]:
        return (self.topic, self.partition)

    @property
    def is_leader(self) -> bool:
        return self.leader_id == self.local_broker_id

    @property
    def config(self) -> LogConfig:
        return self.log.config

    # ------------------------------------------------------------------ leadership

    def _update_assignment(self, state: PartitionState) -> None:
        self.leader_id = state.leader
        self.leader_epoch = state.leader_epoch
        self.partition_epoch = state.partition_epoch
        self.replicas = tuple(state.replicas)
        self.adding_replicas = tuple(state.adding_replicas)
        self.removing_replicas = tuple(state.removing_replicas)
        self.isr = tuple(state.isr)
        self.pending_isr = None  # the controller's state replaces whatever was in flight

    @property
    def replication_factor(self) -> int:
        """Kafka's ``assignmentState.replicationFactor``: the replicas, less those a
        reassignment in flight is adding (``OngoingReassignmentState`` keeps the size of the
        original replicas)."""
        adding = self.adding_replicas
        if not adding:
            return len(self.replicas)
        return sum(1 for r in self.replicas if r not in adding)

    @property
    def is_reassigning(self) -> bool:
        """Kafka's ``isReassigning``: the last LeaderAndIsr named replicas being added or removed."""
        return bool(self.adding_replicas or self.removing_replicas)

    @property
    def is_under_replicated(self) -> bool:
        """Kafka's ``isUnderReplicated``: led here with an ISR smaller than the replication factor."""
        return self.is_leader and self.replication_factor > len(self.isr)

    def make_leader(self, state: PartitionState) -> bool:
        """Become (or stay) leader with ``state``; True if this broker was not the leader
        (Kafka's ``isNewLeader``: only then do the coordinators load the partition).

        Kafka's ``Partition.makeLeader``: the new epoch starts at the log end offset in the
        leader-epoch cache (so OffsetForLeaderEpoch answers (epoch, LEO) even for a partition
        never written to), follower states are reset for the new epoch (``resetReplicaState``:
        a leader re-elected keeps what it knows of its followers) and the high watermark is
        recomputed (after an unclean shutdown the checkpointed one may lag). The epoch is
        assigned first: if its checkpoint cannot be written (KAFKA_STORAGE_ERROR) nothing
        changed, as Kafka's ``makeLeader`` keeps its leader epoch when
        ``maybeAssignEpochStartOffset`` throws. LeaderAndIsr writes that checkpoint ahead, off
        the loop (``ReplicaStateChanges._write_new_leader_epochs``): the assign here then
        writes nothing, unless the log end moved meanwhile. The state's adding / removing
        replicas are LeaderAndIsr's (a reassignment in flight). An ISR the controller sets here is
        not an ISR shrink or expansion: Kafka meters only its own committed AlterPartition
        (``on_alter_partition_committed``).
        """
        cache = self.log.leader_epoch_cache
        if cache.latest_epoch != state.leader_epoch:
            cache.assign(state.leader_epoch, self.log.log_end_offset)
        is_new_leader = not self.is_leader
        new_epoch = state.leader_epoch != self.leader_epoch or is_new_leader
        self._update_assignment(state)
        # Kafka's updateAssignmentAndIsr: a replica keeps its state, one new to the assignment
        # starts unknown (a new leader's states are all reset below).
        states = self.follower_states
        self.follower_states = {
            r: states.get(r) or FollowerState(r) for r in self.replicas if r != self.local_broker_id
        }
        if new_epoch:
            now, leo = self._time_ms(), self.log.log_end_offset
            for replica, follower in self.follower_states.items():
                follower.reset(now, leo, is_new_leader=is_new_leader, in_sync=replica in self.isr)
        self.maybe_increment_high_watermark()
        return is_new_leader

    def make_follower(self, state: PartitionState) -> bool:
        """Record that another broker leads (Kafka's ``makeFollower``); True if the epoch changed.

        The replica fetcher then truncates this log to the leader's and fetches from it.
        """
        changed = state.leader_epoch != self.leader_epoch or state.leader != self.leader_id
        self._update_assignment(state)
        self.follower_states = {}
        return changed

    def check_current_leader_epoch(self, current_leader_epoch: int) -> None:
        """KIP-320 fencing of the requester's view of the leader epoch. Only -1 means "not given"
        (ReplicaManager.lastOffsetForLeaderEpoch, fetchOffset): another negative epoch is fenced
        as any older one; Fetch turns every negative one into -1 first (FetchRequest.optionalEpoch)."""
        if current_leader_epoch == NO_EPOCH or current_leader_epoch == self.leader_epoch:
            return
        if current_leader_epoch < self.leader_epoch:
            raise KafkaError(
                ErrorCode.FENCED_LEADER_EPOCH,
                f"The leader epoch in the request {current_leader_epoch} is older than the "
                f"current leader epoch {self.leader_epoch} of {self.topic}-{self.partition}",
            )
        raise KafkaError(
            ErrorCode.UNKNOWN_LEADER_EPOCH,
            f"The leader epoch in the request {current_leader_epoch} is newer than the "
            f"current leader epoch {self.leader_epoch} of {self.topic}-{self.partition}",
        )

    def local_log(self, current_leader_epoch: int = NO_EPOCH, *, require_leader: bool = True) -> PartitionLog:
        """Kafka's ``Partition.getLocalLog``: epoch fencing first, then leadership; a log in
        an offline log dir answers KAFKA_STORAGE_ERROR (ReplicaManager.getPartitionOrError)."""
        self.log.check_online()
        self.check_current_leader_epoch(current_leader_epoch)
        if require_leader and not self.is_leader:
            raise KafkaError(
                ErrorCode.NOT_LEADER_OR_FOLLOWER,
                f"Leader not local for partition {self.topic}-{self.partition} on broker {self.local_broker_id}",
            )
        return self.log

    # ------------------------------------------------------------------ high watermark

    @property
    def effective_min_isr(self) -> int:
        """min.insync.replicas capped at the number of replicas (Kafka's ``effectiveMinIsr``:
        ``remoteReplicasMap.size + 1``, so replicas a reassignment is adding count, unlike in
        ``replication_factor``)."""
        return max(1, min(self.log.config.min_insync_replicas, len(self.replicas)))

    @property
    def is_under_min_isr(self) -> bool:
        """Kafka's ``isUnderMinIsr``: led here with an ISR below the effective min ISR."""
        return self.is_leader and len(self.isr) < self.effective_min_isr

    @property
    def is_at_min_isr(self) -> bool:
        """Kafka's ``isAtMinIsr``: led here with an ISR of exactly the effective min ISR."""
        return self.is_leader and len(self.isr) == self.effective_min_isr

    @property
    def maximal_isr(self) -> tuple[int, ...]:
        """The ISR the high watermark waits for: the committed one, plus a follower whose
        joining is in flight (Kafka's ``maximalIsr``: an expansion counts at once, a
        shrink only once committed)."""
        pending = self.pending_isr
        if pending is not None and len(pending) > len(self.isr):
            return pending
        return self.isr

    def maybe_increment_high_watermark(self) -> bool:
        """Move the high watermark to the smallest log end offset over the ISR; True if it moved.

        Kafka's ``maybeIncrementLeaderHW``: nothing moves while the committed ISR is smaller
        than min.insync.replicas (capped at the replication factor: ``isUnderMinIsr``,
        KAFKA-15583); every follower of the maximal ISR counts, and so does a follower
        outside it that is caught up and may join it (the high watermark waits for it
        rather than run ahead of a replica about to be in sync). A follower whose log end
        offset is not known yet (-1) holds it back; an ISR member that is not a replica does
        not count. Only a leader decides.
        """
        me = self.local_broker_id
        if self.leader_id != me:
            return False
        plog = self.log
        if len(self.isr) < self.effective_min_isr:
            return False
        leader_end = plog.log_end_offset
        new_hw = leader_end
        isr = self.maximal_isr
        now = -1
        for replica, follower in self.follower_states.items():
            offset = follower.log_end_offset
            if offset >= new_hw:
                continue
            if replica in isr:
                new_hw = offset
                continue
            if now < 0:
                now = self._time_ms()
            if follower.is_caught_up(leader_end, now, self.replica_lag_time_max_ms) and (
                self._is_replica_isr_eligible(replica)
            ):
                new_hw = offset
        # An ISR member that is not a replica (a reassignment's LeaderAndIsr names the target
        # replicas with the old ISR) has no follower state and does not count, as Kafka's loop
        # over its remote replicas; maybe_shrink_isr proposes its removal.
        if new_hw <= plog.high_watermark:
            return False
        plog.update_high_watermark(new_hw)
        self._commit_bytes(plog.high_watermark)
        return True

    # ------------------------------------------------------------------ byte counters (delayed fetches)
    # In the base class FetchByteCounters (broker/partition_fetch_counters.py): bytes_below,
    # _seed_byte_counters, _count_append, _commit_bytes and _advance_stable.

    # ------------------------------------------------------------------ followers (on the leader)

    def update_follower_fetch_state(
        self,
        replica_id: int,
        fetch_offset: int,
        log_start_offset: int,
        fetch_time_ms: int,
        leader_end_offset: int,
    ) -> bool | None:
        """A follower fetched at ``fetch_offset`` (Kafka's ``Partition.updateFollowerFetchState``).

        Records its log end offset and catch-up time, maybe proposes it for the ISR, and
        maybe moves the high watermark. Returns whether the high watermark moved, or None
        if ``replica_id`` is not a replica of this partition (``read_records`` refuses such a
        broker's fetch first).
        """
        follower = self.follower_states.get(replica_id)
        if follower is None:
            return None
        previous_end = follower.log_end_offset
        follower.update_fetch_state(fetch_offset, log_start_offset, fetch_time_ms, leader_end_offset)
        self.maybe_expand_isr(follower)
        if previous_end == follower.log_end_offset:
            return False
        return self.maybe_increment_high_watermark()

    def maybe_expand_isr(self, follower: FollowerState) -> None:
        """Kafka's ``maybeExpandIsr``: a follower not in the ISR joins once its log end offset
        reached the high watermark and the start of this leader epoch (``isFollowerInSync``)."""
        replica = follower.replica_id
        if self.pending_isr is not None or replica in self.isr or not self.is_leader:
            return
        plog = self.log
        epoch_start = plog.leader_epoch_cache.latest_entry()
        if follower.log_end_offset < plog.high_watermark or (
            epoch_start is None or follower.log_end_offset < epoch_start.start_offset
        ):
            return
        if not self._is_replica_isr_eligible(replica):
            return
        self._propose_isr((*self.isr, replica), f"follower {replica} caught up")

    def maybe_shrink_isr(self) -> bool:
        """Kafka's ``maybeShrinkIsr`` (the ``isr-expiration`` task): followers of the ISR that
        did not catch up for ``replica.lag.time.max.ms`` are proposed for removal. True if a
        change was proposed."""
        if not self.is_leader or self.pending_isr is not None:
            return False
        leader_end = self.log.log_end_offset
        now = self._time_ms()
        # isFollowerOutOfSync: an ISR member that is no replica (no follower state) is out of sync
        out_of_sync = [
            r
            for r in self.isr
            if r != self.local_broker_id
            and (
                (f := self.follower_states.get(r)) is None
                or not f.is_caught_up(leader_end, now, self.replica_lag_time_max_ms)
            )
        ]
        if not out_of_sync:
            return False
        new_isr = tuple(r for r in self.isr if r not in out_of_sync)
        return self._propose_isr(new_isr, f"followers {out_of_sync} out of sync")

    def _propose_isr(self, new_isr: tuple[int, ...], reason: str) -> bool:
        sink = self._isr_change_sink
        if sink is None:
            return False
        log.info(
            "%s-%d: proposing ISR %s (was %s): %s",
            self.topic,
            self.partition,
            list(new_isr),
            list(self.isr),
            reason,
        )
        self.pending_isr = new_isr
        if not sink.submit(self, new_isr):
            self.pending_isr = None
            return False
        return True

    def on_alter_partition_committed(
        self, leader_epoch: int, partition_epoch: int, isr: tuple[int, ...]
    ) -> bool:
        """The controller accepted an ISR change (Kafka's ``handleAlterPartitionUpdate``).

        Ignored if this broker's leadership moved on meanwhile (Kafka marks that a failed ISR
        update); otherwise the ISR and partition epoch are committed and the proposal in
        flight is metered, as Kafka's ``proposedIsrState.notifyListener``: an expansion
        (IsrExpandsPerSec) or a shrink (IsrShrinksPerSec), even when the controller found
        nothing to change. Returns whether the high watermark moved (the ISR may have shrunk).
        """
        if not self.is_leader:
            return False
        if leader_epoch != self.leader_epoch or partition_epoch < self.partition_epoch:
            if self.pending_isr is not None:
                self.isr_changes.failed += 1
            return False
        proposed = self.pending_isr
        if proposed is not None:
            if set(proposed) - set(self.isr):
                self.isr_changes.expands += 1
            else:
                self.isr_changes.shrinks += 1
        self.isr = isr
        self.partition_epoch = partition_epoch
        self.pending_isr = None
        log.info(
            "%s-%d: ISR is now %s (partition epoch %d)",
            self.topic,
            self.partition,
            list(isr),
            partition_epoch,
        )
        return self.maybe_increment_high_watermark()

    def is_pending_isr_change(
        self, new_isr: tuple[int, ...], leader_epoch: int, partition_epoch: int
    ) -> bool:
        """Whether a proposal sent with these epochs is still the pending one (Kafka's
        ``partitionState == proposedIsrState`` in ``submitAlterPartition``): an answer to an
        older one is ignored, as a LeaderAndIsr or a commit has replaced it meanwhile."""
        return (
            self.pending_isr == new_isr
            and self.leader_epoch == leader_epoch
            and self.partition_epoch == partition_epoch
            and self.is_leader
        )

    def on_alter_partition_failed(self, error: ErrorCode) -> bool:
        """The controller refused the pending change (Kafka's ``handleAlterPartitionError``);
        returns whether the same proposal is to be sent again.

        OPERATION_NOT_ATTEMPTED and INELIGIBLE_REPLICA: the controller says it did not apply
        it, so the committed state is back (the change may be proposed again). After the
        errors of a stale view of the partition, the change stays pending until the
        controller's LeaderAndIsr replaces it. Any other error (a deposed controller's
        NOT_CONTROLLER, UNKNOWN_SERVER_ERROR, ...) is retried with the same proposal.
        """
        name = f"{self.topic}-{self.partition}"
        self.isr_changes.failed += 1  # Kafka's FailedIsrUpdatesPerSec (handleAlterPartitionError)
        if error in (ErrorCode.OPERATION_NOT_ATTEMPTED, ErrorCode.INELIGIBLE_REPLICA):
            log.info("%s: ISR change refused (%s); back to the committed ISR", name, error.name)
            self.pending_isr = None
            return False
        if error in (
            ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
            ErrorCode.UNKNOWN_TOPIC_ID,
            ErrorCode.FENCED_LEADER_EPOCH,
            ErrorCode.INVALID_UPDATE_VERSION,
            ErrorCode.INVALID_REQUEST,
            ErrorCode.NEW_LEADER_ELECTED,
        ):
            log.info("%s: ISR change refused (%s), waiting for new metadata", name, error.name)
            return False
        log.warning("%s: ISR change %s failed (%s); retrying", name, list(self.pending_isr or ()), error.name)
        return True

    # ------------------------------------------------------------------ follower side

    def append_records_as_follower(self, records: memoryview | bytes | FollowerRecords) -> int:
        """Append batches fetched from the leader (Kafka's ``appendRecordsToFollowerOrFutureReplica``);
        returns the bytes appended."""
        plog = self.log
        before = plog.log_end_offset
        size = plog.append_as_follower(records)
        if size and plog.log_end_offset > before:
            self._count_append(before, size)
        return size

    def update_follower_high_watermark(
        self, leader_high_watermark: int, leader_log_start_offset: int
    ) -> bool:
        """A fetch response's offsets (Kafka's ``ReplicaFetcherThread.processPartitionData``):
        high watermark = min(leader's, own log end offset), then the log start offset moved up
        to the leader's. In that order, as Kafka: the log start offset may not pass the high
        watermark, and in a fetch session the leader tells a moved log start offset once.
        True if the high watermark moved (consumers' fetches parked here may complete, KIP-392)."""
        plog = self.log
        hw = min(leader_high_watermark, plog.log_end_offset)
        moved = hw > plog.high_watermark
        if moved:
            plog.update_high_watermark(hw)
            self._commit_bytes(plog.high_watermark)
        if leader_log_start_offset > plog.log_start_offset:
            plog.maybe_increment_log_start_offset(leader_log_start_offset)
        return moved

    def truncate_to(self, offset: int) -> None:
        """Truncate the log to ``offset`` (a follower agreeing with its leader, KIP-101/279)."""
        plog = self.log
        hw, in_step = plog.high_watermark, plog.log_end_offset == self._appended_at
        if not plog.truncate_to(offset):  # nothing removed (the epoch cache may still be cut)
            return
        leo = plog.log_end_offset
        if plog.high_watermark < hw or not in_step:
            # Committed records went (or the log had changed under the counters): the fetches
            # parked here complete, as Kafka's DelayedFetch does for a fetch offset past the
            # new end offset.
            self._seed_byte_counters(below=self._floor)
            return
        # Only records above the high watermark went (a follower's divergent tail): the
        # committed and stable counts stand, the appended one goes back to the new log end.
        pending = self._uncommitted
        while pending and pending[-1][0] > leo:
            pending.pop()
        end, counted = pending[-1] if pending else (self._committed_at, self._committed_bytes)
        if end < leo:  # the log was cut inside one counted append
            try:
                counted += plog.bytes_between(end, leo)
            except KafkaError:  # the log dir went offline
                self._seed_byte_counters(below=self._floor)
                return
            pending.append((leo, counted))
        self._appended_bytes, self._appended_at = counted, leo

    # ------------------------------------------------------------------ append

    def append_records_to_leader(
        self, records: object, *, origin: AppendOrigin, required_acks: int
    ) -> tuple[LogAppendInfo, bool]:
        """Append as leader; (append info, whether the high watermark moved). KafkaError if refused.

        Kafka's ``Partition.appendRecordsToLeader``: leadership, then min.insync.replicas
        for acks=-1, then the log's own validation and append.
        """
        if self.leader_id != self.local_broker_id:
            self.local_log()  # raises NOT_LEADER_OR_FOLLOWER
        plog = self.log
        min_isr = self.effective_min_isr
        if required_acks == -1 and len(self.isr) < min_isr:
            raise KafkaError(
                ErrorCode.NOT_ENOUGH_REPLICAS,
                f"The size of the current ISR {len(self.isr)} is insufficient to satisfy the min.isr "
                f"requirement of {min_isr} for partition {self.topic}-{self.partition}",
            )
        info = plog.append_as_leader(records, self.leader_epoch, now_ms=self._time_ms(), origin=origin)
        if info.duplicate:
            return info, False
        self._count_append(info.base_offset, info.size)
        return info, self.maybe_increment_high_watermark()

    @property
    def in_sync_replica_count(self) -> int:
        return len(self.isr)

    # ------------------------------------------------------------------ reads

    def fetch_offsets(self, isolation: FetchIsolation) -> int:
        """The first offset a read with ``isolation`` may not return."""
        plog = self.log
        if isolation is FetchIsolation.LOG_END:
            return plog.log_end_offset
        if isolation is FetchIsolation.TXN_COMMITTED:
            return plog.last_stable_offset
        return plog.high_watermark

    def offsets(self) -> LogOffsets:
        plog = self.log
        return LogOffsets(
            plog.log_start_offset, plog.log_end_offset, plog.high_watermark, plog.last_stable_offset
        )

    def preferred_read_candidates(self, fetch_offset: int, now_ms: int) -> list[tuple[int, int, int]]:
        """The followers that may serve a consumer's read at ``fetch_offset`` (KIP-392, Kafka's
        ``ReplicaManager.findPreferredReadReplica``): in the ISR (one out of it may lag for
        good) with ``fetch_offset`` inside their log; (broker id, log end offset, ms since it
        was last caught up) each."""
        isr = self.isr
        return [
            (replica, f.log_end_offset, now_ms - f.last_caught_up_time_ms)
            for replica, f in self.follower_states.items()
            if replica in isr and f.log_start_offset <= fetch_offset <= f.log_end_offset
        ]

    def read_records(
        self,
        fetch_offset: int,
        max_bytes: int,
        *,
        isolation: FetchIsolation,
        min_one_batch: bool,
        current_leader_epoch: int = NO_EPOCH,
        last_fetched_epoch: int = NO_EPOCH,
        fetch_only_from_leader: bool = True,
        max_offset: int | None = None,
        file_records: bool = False,
        replica_id: int = -1,
    ) -> LogReadInfo:
        """Whole batches from ``fetch_offset`` up to what ``isolation`` allows (Kafka's
        ``Partition.fetchRecords`` / ``readRecords``); KafkaError for a partition error.

        ``last_fetched_epoch`` (Fetch v12) is checked against the leader-epoch cache before
        the read (``_diverging_epoch``): a diverging epoch is reported instead of records, as
        KIP-320 describes. A follower's fetch (``replica_id`` >= 0) from a broker that is not
        a replica is refused (``followerReplicaOrThrow``): UNKNOWN_LEADER_EPOCH when it names
        the current leader epoch (its metadata is behind), else NOT_LEADER_OR_FOLLOWER.
        """
        plog = self.local_log(current_leader_epoch, require_leader=fetch_only_from_leader)
        if replica_id >= 0 and replica_id not in self.follower_states:
            raise KafkaError(
                ErrorCode.UNKNOWN_LEADER_EPOCH
                if current_leader_epoch >= 0
                else ErrorCode.NOT_LEADER_OR_FOLLOWER,
                f"Replica {replica_id} is not a replica of {self.topic}-{self.partition}",
            )
        # Offsets are taken before the read, as Kafka does, so they never run ahead of it.
        hw, lso, start = plog.high_watermark, plog.last_stable_offset, plog.log_start_offset
        limit = self.fetch_offsets(isolation)
        if max_offset is not None:
            limit = min(limit, max_offset)
        if last_fetched_epoch >= 0:
            diverging = self._diverging_epoch(plog, fetch_offset, last_fetched_epoch)
            if diverging is not None:
                # FetchDataInfo.empty: nothing after the point where the logs diverge is sent
                return LogReadInfo(b"", hw, lso, start, plog.log_end_offset, diverging)
        data = plog.read(
            fetch_offset, max_bytes, max_offset=limit, min_one_batch=min_one_batch, file_records=file_records
        )
        aborted = None
        if isolation is FetchIsolation.TXN_COMMITTED:
            try:
                aborted = plog.aborted_transactions_for_read(fetch_offset, data, limit)
            except KafkaError:
                if isinstance(data.records, FileRecords):
                    data.records.close()  # not sent: give its descriptors back
                raise
        return LogReadInfo(data.records, hw, lso, start, plog.log_end_offset, None, aborted, data.limited)

    def _diverging_epoch(
        self, plog: PartitionLog, fetch_offset: int, last_fetched_epoch: int
    ) -> tuple[int, int] | None:
        """Kafka's ``Partition.readRecords`` check of a Fetch v12 ``lastFetchedEpoch``, before
        any read: OFFSET_OUT_OF_RANGE when the epoch's end is unknown here or the fetch offset
        is below the log start offset; else (epoch, end offset) if the reader's log diverges
        from ours (even past our log end, after an unclean election), None if it does not."""
        epoch, end = plog.end_offset_for_epoch(last_fetched_epoch)
        if epoch < 0 or end < 0:
            raise KafkaError(
                ErrorCode.OFFSET_OUT_OF_RANGE,
                f"Could not determine the end offset of the last fetched epoch {last_fetched_epoch} "
                f"for partition {self.topic}-{self.partition}",
            )
        if fetch_offset < plog.log_start_offset:
            raise KafkaError(
                ErrorCode.OFFSET_OUT_OF_RANGE,
                f"Received request for offset {fetch_offset} for partition {self.topic}-{self.partition}, "
                f"but we only have log segments in the range {plog.log_start_offset} to {plog.log_end_offset}.",
            )
        if epoch < last_fetched_epoch or end < fetch_offset:
            return (epoch, end)
        return None

    def fetch_offset_for_timestamp(
        self,
        timestamp: int,
        *,
        isolation: FetchIsolation,
        current_leader_epoch: int = NO_EPOCH,
        fetch_only_from_leader: bool = True,
    ) -> TimestampAndOffset:
        """ListOffsets for this partition (Kafka's ``Partition.fetchOffsetForTimestamp``).

        -1 latest: the last fetchable offset for the isolation with our leader epoch;
        -2 / -4 earliest: the log start offset with the epoch that wrote it; any other
        timestamp: the log's answer, or (-1, -1, -1) when it is at or past the fetchable end.
        A new leader whose high watermark has not reached the start of its epoch yet answers
        latest and past-the-end lookups with OFFSET_NOT_AVAILABLE (retriable), as Kafka does:
        its high watermark may still lag what the previous leader had committed. A replica's
        or debugging request (``isolation`` LOG_END) reads up to the log end and is never
        told OFFSET_NOT_AVAILABLE; a debugging one may read a follower's log
        (``fetch_only_from_leader`` False).
        """
        plog = self.local_log(current_leader_epoch, require_leader=fetch_only_from_leader)
        fetchable = self.fetch_offsets(isolation)
        if timestamp in (EARLIEST_TIMESTAMP, EARLIEST_LOCAL_TIMESTAMP):
            start = plog.log_start_offset
            return TimestampAndOffset(-1, start, plog.leader_epoch_for_offset(start))
        epoch_start = plog.leader_epoch_cache.latest_entry()
        lagging = (
            isolation is not FetchIsolation.LOG_END
            and epoch_start is not None
            and epoch_start.epoch == self.leader_epoch
            and epoch_start.start_offset > plog.high_watermark
        )
        if timestamp == LATEST_TIMESTAMP:
            if lagging:
                raise self._offset_not_available(epoch_start.start_offset)  # type: ignore[union-attr]
            return TimestampAndOffset(-1, fetchable, self.leader_epoch)
        found = plog.fetch_offset_by_timestamp(timestamp)
        if found is None or found.offset >= fetchable:
            if lagging:
                raise self._offset_not_available(epoch_start.start_offset)  # type: ignore[union-attr]
            return TimestampAndOffset(-1, -1, -1)
        return found

    def _offset_not_available(self, epoch_start: int) -> KafkaError:
        return KafkaError(
            ErrorCode.OFFSET_NOT_AVAILABLE,
            f"Failed to fetch offsets for partition {self.topic}-{self.partition} with leader epoch "
            f"{self.leader_epoch} as this partition's high watermark ({self.log.high_watermark}) is "
            f"lagging behind the start offset from the beginning of this epoch ({epoch_start}).",
        )

    def last_offset_for_leader_epoch(
        self, leader_epoch: int, *, current_leader_epoch: int = NO_EPOCH, fetch_only_from_leader: bool = True
    ) -> tuple[int, int]:
        """OffsetForLeaderEpoch: (epoch, end offset) from the leader-epoch cache, (-1, -1) if unknown."""
        plog = self.local_log(current_leader_epoch, require_leader=fetch_only_from_leader)
        epoch, end = plog.end_offset_for_epoch(leader_epoch)
        return epoch, end

    def active_producers(self) -> list[tuple[int, ProducerStateEntry]]:
        """DescribeProducers (Kafka's ``Partition.activeProducerState``), by producer id: any
        replica answers from its own log (operators compare replicas: kafka-transactions
        describe-producers --broker-id), an offline log dir with KAFKA_STORAGE_ERROR."""
        plog = self.local_log(require_leader=False)
        return sorted(plog.producer_state.active_producers().items())

    def delete_records_on_leader(self, offset: int) -> int:
        """DeleteRecords (Kafka's ``deleteRecordsOnLeader``): returns the new log start offset."""
        return self.local_log().delete_records_before(offset)
