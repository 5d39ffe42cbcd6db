"""Partition: one partition this broker hosts, as leader or follower (Kafka's ``kafka.cluster.Partition``).

It holds the partition's ``PartitionLog``, the leadership the controller published (leader
id, leader epoch, replicas, ISR) and, on a leader, the state of each follower. Every
request that touches a partition goes through here, so these decisions live in one place:

- who may be read from or appended to: the leader only (NOT_LEADER_OR_FOLLOWER
  otherwise), with the client's view of the leader epoch fenced first (KIP-320:
  FENCED_LEADER_EPOCH below ours, UNKNOWN_LEADER_EPOCH above);
- the high watermark (``maybe_increment_high_watermark``): the smallest log end offset
  over the ISR. With the leader alone in the ISR that is its log end offset, so the high
  watermark follows every append; followers' offsets join the minimum once replication
  fills ``follower_states``. Nothing else sets a high watermark;
- ``min.insync.replicas`` for acks=-1 (NOT_ENOUGH_REPLICAS);
- what a fetch may see (``FetchIsolation``: the log end for followers, the high watermark
  for read_uncommitted consumers, the last stable offset for read_committed ones).

For the delayed-fetch purgatory the partition counts bytes: ``bytes_below(isolation)`` is
the number of bytes appended (``LOG_END``) or committed (high watermark, last stable offset)
since it was hosted, so a parked fetch knows how much became readable without reading.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from broker.metrics import IsrChangeStats
from coordinator.cluster_state import NO_LEADER, PartitionState
from protocol.errors import ErrorCode, KafkaError
from storage.log_config import LogConfig
from storage.partition_log import (
    EARLIEST_LOCAL_TIMESTAMP,
    EARLIEST_TIMESTAMP,
    LATEST_TIMESTAMP,
    FetchIsolation,
    LogAppendInfo,
    PartitionLog,
    TimestampAndOffset,
)
from storage.producer_state import AppendOrigin, ProducerStateEntry

log = logging.getLogger(__name__)

NO_EPOCH = -1  # a request without a leader epoch (Optional.empty in Kafka)


@dataclass(slots=True)
class FollowerState:
    """What the leader knows of one follower (Kafka's ``Replica`` / ``ReplicaState``)."""

    replica_id: int
    log_end_offset: int = -1  # unknown until the follower fetches (UnifiedLog.UnknownOffset)
    log_start_offset: int = -1
    last_caught_up_time_ms: int = 0


class LogReadInfo(NamedTuple):
    """One partition's read (Kafka's ``LogReadInfo``): whole batches and the offsets of then."""

    records: bytes
    high_watermark: int
    last_stable_offset: int
    log_start_offset: int
    log_end_offset: int
    diverging_epoch: tuple[int, int] | None = None  # (epoch, end offset), Fetch v12


@dataclass(frozen=True, slots=True)
class LogOffsets:
    """A partition's offsets at one moment (Kafka's ``LogOffsetSnapshot``)."""

    log_start_offset: int
    log_end_offset: int
    high_watermark: int
    last_stable_offset: int


class Partition:
    """One hosted partition: its log, its leadership, and the leader's decisions about it."""

    def __init__(
        self,
        log: PartitionLog,
        *,
        local_broker_id: int,
        time_ms: Callable[[], int],
        isr_changes: IsrChangeStats | None = None,
    ) -> None:
        self.topic = log.topic
        self.partition = log.partition
        self.log = log
        self.local_broker_id = local_broker_id
        self._time_ms = time_ms
        self.leader_id = NO_LEADER
        self.leader_epoch = NO_EPOCH
        self.partition_epoch = -1
        self.replicas: tuple[int, ...] = ()
        self.isr: tuple[int, ...] = ()
        self.follower_states: dict[int, FollowerState] = {}
        # The ReplicaManager's ISR shrink/expand meters (a partition of its own in unit tests).
        self.isr_changes = isr_changes if isr_changes is not None else IsrChangeStats()
        # Byte counters for the delayed-fetch purgatory: bytes appended since hosted, and
        # bytes below the high watermark; (end offset, appended bytes) of each batch above it.
        self._appended_bytes = 0
        self._committed_bytes = 0
        self._uncommitted: deque[tuple[int, int]] = deque()

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
        self.isr = tuple(state.isr)

    def make_leader(self, state: PartitionState) -> bool:
        """Become (or stay) leader with ``state``; True if this is a new leader epoch.

        Kafka's ``Partition.makeLeader``: the new epoch starts at the log end offset in the
        leader-epoch cache (so OffsetForLeaderEpoch answers (epoch, LEO) even for a partition
        never written to), follower states are reset for the new replica set, and the high
        watermark is recomputed (after an unclean shutdown the checkpointed one may lag).
        """
        new_epoch = state.leader_epoch != self.leader_epoch or not self.is_leader
        old_isr = self.isr
        self._update_assignment(state)
        if not new_epoch and self.isr != old_isr:
            # The leader stays in its epoch and only the ISR changed: an ISR shrink or
            # expansion (Kafka meters them where the leader changes its ISR, AlterPartition).
            self.isr_changes.record(old_isr, self.isr)
        cache = self.log.leader_epoch_cache
        if cache.latest_epoch != state.leader_epoch:
            cache.assign(state.leader_epoch, self.log.log_end_offset)
        if new_epoch:
            self.follower_states = {r: FollowerState(r) for r in self.replicas if r != self.local_broker_id}
        self.maybe_increment_high_watermark()
        return new_epoch

    def make_follower(self, state: PartitionState) -> bool:
        """Record that another broker leads (Kafka's ``makeFollower``); True if the epoch changed.

        Fetching from the leader (and truncating to it) is the replication work's.
        """
        changed = state.leader_epoch != self.leader_epoch or state.leader != self.leader_id
        self._update_assignment(state)
        self.follower_states = {}
        return changed

    def check_current_leader_epoch(self, current_leader_epoch: int) -> None:
        """KIP-320 fencing of the requester's view of the leader epoch (-1: not given)."""
        if current_leader_epoch < 0 or current_leader_epoch == self.leader_epoch:
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

    def maybe_increment_high_watermark(self) -> bool:
        """Move the high watermark to the smallest log end offset over the ISR; True if it moved.

        Kafka's ``maybeIncrementLeaderHW``. A follower whose log end offset is not known yet
        holds it back (as Kafka's unknown offset does). Only a leader decides.
        """
        me = self.local_broker_id
        if self.leader_id != me:
            return False
        plog = self.log
        new_hw = plog.log_end_offset
        for replica in self.isr:
            if replica != me:
                follower = self.follower_states.get(replica)
                new_hw = min(new_hw, follower.log_end_offset if follower is not None else -1)
        if new_hw <= plog.high_watermark:
            return False
        plog.update_high_watermark(new_hw)
        hw = plog.high_watermark
        pending = self._uncommitted
        while pending and pending[0][0] <= hw:
            self._committed_bytes = pending.popleft()[1]
        return True

    def bytes_below(self, isolation: FetchIsolation) -> int:
        """Bytes made readable for ``isolation`` since this partition was hosted (a counter)."""
        if isolation is FetchIsolation.LOG_END:
            return self._appended_bytes
        return self._committed_bytes

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
        min_isr = plog.config.min_insync_replicas
        if required_acks == -1 and len(self.isr) < min_isr:
            raise KafkaError(
                ErrorCode.NOT_ENOUGH_REPLICAS,
                f"The size of the current ISR {len(self.isr)} is insufficient to satisfy the min.isr "
                f"requirement of {min_isr} for partition {self.topic}-{self.partition}",
            )
        info = plog.append_as_leader(records, self.leader_epoch, now_ms=self._time_ms(), origin=origin)
        if info.duplicate:
            return info, False
        self._appended_bytes += info.size
        self._uncommitted.append((info.last_offset + 1, self._appended_bytes))
        return info, self.maybe_increment_high_watermark()

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
    ) -> LogReadInfo:
        """Whole batches from ``fetch_offset`` up to what ``isolation`` allows (Kafka's
        ``Partition.fetchRecords`` / ``readRecords``); KafkaError for a partition error.

        ``last_fetched_epoch`` (Fetch v12) is checked against the leader-epoch cache: a
        diverging epoch is reported instead of records, as KIP-320 describes.
        """
        plog = self.local_log(current_leader_epoch, require_leader=fetch_only_from_leader)
        # Offsets are taken before the read, as Kafka does, so they never run ahead of it.
        hw, lso, start = plog.high_watermark, plog.last_stable_offset, plog.log_start_offset
        limit = self.fetch_offsets(isolation)
        if max_offset is not None:
            limit = min(limit, max_offset)
        diverging = None
        if last_fetched_epoch >= 0:
            epoch, end = plog.end_offset_for_epoch(last_fetched_epoch)
            if epoch != last_fetched_epoch or end < fetch_offset:
                diverging = (epoch, end)
        data = plog.read(fetch_offset, max_bytes, max_offset=limit, min_one_batch=min_one_batch)
        return LogReadInfo(data.records, hw, lso, start, plog.log_end_offset, diverging)

    def fetch_offset_for_timestamp(
        self, timestamp: int, *, isolation: FetchIsolation, current_leader_epoch: int = NO_EPOCH
    ) -> TimestampAndOffset:
        """ListOffsets for this partition (Kafka's ``Partition.fetchOffsetForTimestamp``).

        -1 latest: the last fetchable offset for the isolation with our leader epoch;
        -2 / -4 earliest: the log start offset with the epoch that wrote it; any other
        timestamp: the log's answer, or (-1, -1, -1) when it is at or past the fetchable end.
        """
        plog = self.local_log(current_leader_epoch)
        fetchable = self.fetch_offsets(isolation)
        if timestamp == LATEST_TIMESTAMP:
            return TimestampAndOffset(-1, fetchable, self.leader_epoch)
        if timestamp in (EARLIEST_TIMESTAMP, EARLIEST_LOCAL_TIMESTAMP):
            start = plog.log_start_offset
            return TimestampAndOffset(-1, start, plog.leader_epoch_for_offset(start))
        found = plog.fetch_offset_by_timestamp(timestamp)
        if found is None or found.offset >= fetchable:
            return TimestampAndOffset(-1, -1, -1)
        return found

    def last_offset_for_leader_epoch(
        self, leader_epoch: int, *, current_leader_epoch: int = NO_EPOCH, fetch_only_from_leader: bool = True
    ) -> tuple[int, int]:
        """OffsetForLeaderEpoch: (epoch, end offset) from the leader-epoch cache, (-1, -1) if unknown."""
        plog = self.local_log(current_leader_epoch, require_leader=fetch_only_from_leader)
        epoch, end = plog.end_offset_for_epoch(leader_epoch)
        return epoch, end

    def active_producers(self) -> list[tuple[int, ProducerStateEntry]]:
        """DescribeProducers (Kafka's ``Partition.activeProducerState``), by producer id."""
        plog = self.local_log()
        return sorted(plog.producer_state.active_producers().items())

    def delete_records_on_leader(self, offset: int) -> int:
        """DeleteRecords (Kafka's ``deleteRecordsOnLeader``): returns the new log start offset."""
        return self.local_log().delete_records_before(offset)
