"""ReplicaManager: the only door from handlers and coordinators to the partitions this broker hosts.

Kafka's ``ReplicaManager``: it keeps one ``Partition`` per hosted partition (created and
changed by the controller's partition states, ``ClusterMetadataListener``), routes appends
and reads to them, and completes delayed operations when a partition's high watermark
moves. Handlers see results (``PartitionAppendResult``, ``FetchPartitionData``, offsets),
never a ``PartitionLog``.

- ``append_records``: Kafka's ``appendRecords`` with ``appendToLocalLog``. Per partition:
  unknown partition, the produce request's framing checks, internal topics (only the
  coordinators may append to them), then ``Partition.append_records_to_leader``. It
  returns the per-partition results, or an awaitable of them once an acks=-1 append has
  to wait for followers (a ``DelayedProduce`` in a purgatory keyed by partition).
- ``fetch_messages``: Kafka's ``fetchMessages``: reads every partition now; if fewer than
  ``min_bytes`` are readable it parks a ``DelayedFetch`` (completed when a high watermark
  moves) and returns an awaitable of the answer read again at completion.
- ListOffsets, OffsetForLeaderEpoch, DescribeProducers and the coordinators' access
  (``coordinator.partition_access.PartitionAccess``) go through here as well.

The logs themselves are created and deleted by the ``LogManager`` (the controller does it
before it publishes the partition states); the replica manager looks them up.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from broker.partition import NO_EPOCH, LogOffsets, Partition
from broker.purgatory import DelayedFetch, DelayedOperationPurgatory, FetchPartitionStatus
from coordinator.cluster_state import INTERNAL_TOPICS, LiveBroker, PartitionState, TopicMetadata
from protocol.errors import ErrorCode, KafkaError
from protocol.record_batch import TRANSACTIONAL_MASK
from storage.log_validator import validate_produce_records
from storage.partition_log import FetchIsolation, LogAppendInfo, TimestampAndOffset
from storage.producer_state import AppendOrigin, ProducerStateEntry

if TYPE_CHECKING:
    from storage.log_config import LogConfig
    from storage.log_manager import LogManager

log = logging.getLogger(__name__)

TopicPartition = tuple[str, int]
EMBEDDED_LEADER_EPOCH = 0  # a lone broker's partitions never change leader


# ---------------------------------------------------------------------------- results


class PartitionAppendResult(NamedTuple):
    """One partition's append (Kafka's ``LogAppendResult``): the append info or the error."""

    info: LogAppendInfo | None
    error: KafkaError | None = None


class FetchPartitionInfo(NamedTuple):
    """What a fetch asks of one partition (Kafka's ``FetchRequest.PartitionData``)."""

    fetch_offset: int
    max_bytes: int
    current_leader_epoch: int = NO_EPOCH
    last_fetched_epoch: int = NO_EPOCH


@dataclass(frozen=True, slots=True)
class FetchParams:
    """A fetch's request-level settings (Kafka's ``FetchParams``); consumers only for now."""

    max_wait_ms: int
    min_bytes: int
    max_bytes: int
    isolation: FetchIsolation


class FetchPartitionData(NamedTuple):
    """One partition's fetch answer (Kafka's ``FetchPartitionData``); records are never None.

    On an error the offsets are the partition's when it is hosted, else -1.
    """

    error: ErrorCode
    high_watermark: int = -1
    last_stable_offset: int = -1
    log_start_offset: int = -1
    records: bytes = b""
    diverging_epoch: tuple[int, int] | None = None


# ---------------------------------------------------------------------------- manager


class ReplicaManager:
    """Hosted partitions and the operations on them (implements ``ClusterMetadataListener``)."""

    def __init__(self, broker_id: int, log_manager: LogManager, time_ms: Callable[[], int]) -> None:
        self.broker_id = broker_id
        self.log_manager = log_manager
        self.time_ms = time_ms
        self._partitions: dict[TopicPartition, Partition] = {}
        self.fetch_purgatory: DelayedOperationPurgatory[DelayedFetch] = DelayedOperationPurgatory("Fetch")

    # ------------------------------------------------------------------ partitions

    def lead_local_logs(self) -> None:
        """Lead every local log as a lone broker does (epoch 0, replicas = ISR = this broker).

        For tests that build a ReplicaManager without a controller; a broker's controller
        publishes these states itself (``on_topics_changed``).
        """
        me = (self.broker_id,)
        self.on_topics_changed(
            {},
            [
                PartitionState(plog.topic, plog.partition, self.broker_id, EMBEDDED_LEADER_EPOCH, me, me)
                for plog in self.log_manager.logs()
            ],
        )

    def get_partition(self, topic: str, partition: int) -> Partition | None:
        return self._partitions.get((topic, partition))

    def get_partition_or_error(self, topic: str, partition: int) -> Partition:
        found = self.get_partition(topic, partition)
        if found is None:
            raise KafkaError(
                ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic-partition."
            )
        return found

    def _hosted(self, key: TopicPartition) -> Partition | None:
        return self._partitions.get(key)

    # ------------------------------------------------------------------ ClusterMetadataListener

    def on_brokers_changed(self, brokers: Sequence[LiveBroker]) -> None:
        """Nothing to do until followers fetch from leaders."""

    def on_topics_changed(
        self, topics: Mapping[str, TopicMetadata], states: Sequence[PartitionState]
    ) -> None:
        """Host (or update) every partition whose replicas include this broker (LeaderAndIsr)."""
        for state in states:
            key = state.key
            current = self._partitions.get(key)
            if self.broker_id not in state.replicas:
                if current is not None:
                    self._stop_replica(key)
                continue
            if current is not None and state.partition_epoch < current.partition_epoch:
                log.info("ignoring stale state of %s-%d: %s", state.topic, state.partition, state)
                continue
            if current is None:
                plog = self.log_manager.get_log(state.topic, state.partition)
                if plog is None:
                    log.warning("no log for %s-%d, not hosting it", state.topic, state.partition)
                    continue
                current = Partition(plog, local_broker_id=self.broker_id, time_ms=self.time_ms)
                self._partitions[key] = current
            if state.leader == self.broker_id:
                current.make_leader(state)
            else:
                current.make_follower(state)
            # A parked fetch on it sees the new leadership (and answers).
            self.fetch_purgatory.check_and_complete(key)

    def on_topic_deleted(self, topic: TopicMetadata) -> None:
        """Stop serving the topic's partitions; fetches parked on them answer now."""
        for key in [k for k in self._partitions if k[0] == topic.name]:
            self._stop_replica(key)

    def _stop_replica(self, key: TopicPartition) -> None:
        self._partitions.pop(key, None)
        self.fetch_purgatory.complete_all(key)

    # ------------------------------------------------------------------ append

    def append_records(
        self,
        entries: Sequence[tuple[TopicPartition, object]],
        *,
        required_acks: int,
        origin: AppendOrigin,
        timeout_ms: int = 0,
        produce_version: int | None = None,
    ) -> dict[TopicPartition, PartitionAppendResult] | Awaitable[dict[TopicPartition, PartitionAppendResult]]:
        """Append each partition's records as leader (Kafka's ``appendRecords``).

        ``produce_version`` is set for a Produce request: its framing checks run first
        (``ProduceRequest.validateRecords``). Results come back now: with the leader alone
        in the ISR an append is committed as it is written. (acks=-1 with followers will
        park a DelayedProduce for ``timeout_ms`` and return an awaitable of the results.)
        """
        if required_acks not in (-1, 0, 1):
            error = KafkaError(ErrorCode.INVALID_REQUIRED_ACKS)
            return {key: PartitionAppendResult(None, error) for key, _ in entries}
        results: dict[TopicPartition, PartitionAppendResult] = {}
        for key, records in entries:
            try:
                info = self.append_to_local_log(
                    key, records, origin=origin, required_acks=required_acks, produce_version=produce_version
                )
                results[key] = PartitionAppendResult(info)
            except KafkaError as exc:
                results[key] = PartitionAppendResult(None, exc)
        return results

    def append_to_local_log(
        self,
        key: TopicPartition,
        records: object,
        *,
        origin: AppendOrigin,
        required_acks: int,
        produce_version: int | None = None,
    ) -> LogAppendInfo:
        """One partition's local append (Kafka's ``appendToLocalLog``); KafkaError if refused."""
        topic, index = key
        # KafkaApis.handleProduceRequest: unknown partitions before record checks
        partition = self._partitions.get(key) or self.get_partition_or_error(topic, index)
        if produce_version is not None:
            records = validate_produce_records(records, produce_version)
            if records.attributes & TRANSACTIONAL_MASK:
                # No transaction coordinator exists, so no producer can hold a transactional
                # id (InitProducerId refuses them with the same code); accepting the batch
                # would open a transaction nothing could end.
                raise KafkaError(
                    ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
                    "Transactional records are not supported by this broker",
                )
        if topic in INTERNAL_TOPICS and origin is not AppendOrigin.COORDINATOR:
            # ReplicaManager.appendToLocalLog: Topic.isInternal without internalTopicsAllowed
            raise KafkaError(ErrorCode.INVALID_TOPIC_EXCEPTION, f"Cannot append to internal topic {topic}")
        info, hw_moved = partition.append_records_to_leader(
            records, origin=origin, required_acks=required_acks
        )
        if hw_moved:
            self._complete_delayed_requests(key)
        return info

    def _complete_delayed_requests(self, key: TopicPartition) -> None:
        """The high watermark of ``key`` moved: parked operations on it may complete (Kafka's
        ``tryCompleteDelayedRequests``; a DelayedProduce purgatory joins here)."""
        self.fetch_purgatory.check_and_complete(key)

    # ------------------------------------------------------------------ fetch

    def fetch_messages(
        self, params: FetchParams, infos: Sequence[tuple[TopicPartition, FetchPartitionInfo]]
    ) -> list[FetchPartitionData] | Awaitable[list[FetchPartitionData]]:
        """Read every partition now, or park until ``min_bytes`` are readable (Kafka's ``fetchMessages``).

        Answers at once when ``max_wait_ms`` is 0, nothing is asked, enough bytes were read,
        or a partition has an error or a diverging epoch; otherwise returns an awaitable of
        the partitions read again when the ``DelayedFetch`` completes or expires.
        """
        results, bytes_read = self._read_from_local_log(params, infos)
        if (
            params.max_wait_ms <= 0
            or not infos
            or bytes_read >= params.min_bytes
            or any(r.error is not ErrorCode.NONE or r.diverging_epoch is not None for r in results)
        ):
            return results
        statuses = []
        for key, info in infos:
            partition = self._partitions[key]  # hosted: it was just read without error
            statuses.append(
                FetchPartitionStatus(
                    key,
                    info.fetch_offset,
                    info.max_bytes,
                    partition.leader_epoch,
                    partition.bytes_below(params.isolation),
                )
            )
        delayed = DelayedFetch(
            params.max_wait_ms,
            min_bytes=params.min_bytes,
            bytes_read=bytes_read,
            isolation=params.isolation,
            statuses=statuses,
            partition_of=self._hosted,
        )
        # The counters were taken with the read above, in the same loop turn: an append
        # after it grows them, so try_complete_else_watch sees it.
        if self.fetch_purgatory.try_complete_else_watch(delayed, [key for key, _ in infos]):
            return self._read_from_local_log(params, infos)[0]
        return self._complete_fetch(delayed, params, infos)

    async def _complete_fetch(
        self,
        delayed: DelayedFetch,
        params: FetchParams,
        infos: Sequence[tuple[TopicPartition, FetchPartitionInfo]],
    ) -> list[FetchPartitionData]:
        try:
            await delayed.future
        finally:
            # The request may be gone (connection closed): stop watching for it.
            self.fetch_purgatory.cancel(delayed)
        return self._read_from_local_log(params, infos)[0]

    def _read_from_local_log(
        self, params: FetchParams, infos: Sequence[tuple[TopicPartition, FetchPartitionInfo]]
    ) -> tuple[list[FetchPartitionData], int]:
        """Kafka's ``readFromLocalLog``: each partition within the request's byte budget; the
        first partition with data returns at least one whole batch (KIP-74)."""
        budget = params.max_bytes
        min_one = True
        total = 0
        out: list[FetchPartitionData] = []
        for (topic, index), info in infos:
            partition = None
            try:
                partition = self.get_partition_or_error(topic, index)
                read = partition.read_records(
                    info.fetch_offset,
                    min(info.max_bytes, budget),
                    isolation=params.isolation,
                    min_one_batch=min_one,
                    current_leader_epoch=info.current_leader_epoch,
                    last_fetched_epoch=info.last_fetched_epoch,
                )
            except KafkaError as exc:
                if partition is None:
                    out.append(FetchPartitionData(exc.error))
                else:
                    offsets = partition.offsets()
                    out.append(
                        FetchPartitionData(
                            exc.error,
                            offsets.high_watermark,
                            offsets.last_stable_offset,
                            offsets.log_start_offset,
                        )
                    )
                continue
            size = len(read.records)
            if size:
                min_one = False
                total += size
                budget = max(budget - size, 0)
            out.append(
                FetchPartitionData(
                    ErrorCode.NONE,
                    read.high_watermark,
                    read.last_stable_offset,
                    read.log_start_offset,
                    read.records,
                    read.diverging_epoch,
                )
            )
        return out, total

    # ------------------------------------------------------------------ offsets, producers

    def fetch_offset_for_timestamp(
        self,
        topic: str,
        partition: int,
        timestamp: int,
        *,
        isolation: FetchIsolation,
        current_leader_epoch: int,
    ) -> TimestampAndOffset:
        """ListOffsets for one partition (Kafka's ``fetchOffsetForTimestamp``); KafkaError if not served."""
        return self.get_partition_or_error(topic, partition).fetch_offset_for_timestamp(
            timestamp, isolation=isolation, current_leader_epoch=current_leader_epoch
        )

    def last_offset_for_leader_epoch(
        self, topic: str, partition: int, leader_epoch: int, *, current_leader_epoch: int
    ) -> tuple[int, int]:
        """OffsetForLeaderEpoch for one partition: (epoch, end offset); KafkaError if not served."""
        return self.get_partition_or_error(topic, partition).last_offset_for_leader_epoch(
            leader_epoch, current_leader_epoch=current_leader_epoch
        )

    def describe_producers(self, topic: str, partition: int) -> list[tuple[int, ProducerStateEntry]]:
        """Active producers of one partition (Kafka's ``activeProducerState``); KafkaError if not served."""
        return self.get_partition_or_error(topic, partition).active_producers()

    # ------------------------------------------------------------------ the coordinators' access

    def read_records(
        self, topic: str, partition: int, fetch_offset: int, max_bytes: int, *, max_offset: int
    ) -> bytes:
        """Whole batches from the local log up to ``max_offset`` (a coordinator loading its state)."""
        return (
            self.get_partition_or_error(topic, partition)
            .read_records(
                fetch_offset,
                max_bytes,
                isolation=FetchIsolation.LOG_END,
                min_one_batch=True,
                max_offset=max_offset,
            )
            .records
        )

    def log_offsets(self, topic: str, partition: int) -> LogOffsets:
        return self.get_partition_or_error(topic, partition).offsets()

    def get_log_config(self, topic: str, partition: int) -> LogConfig | None:
        found = self.get_partition(topic, partition)
        return found.config if found is not None else None

    def delete_records(self, topic: str, partition: int, offset: int) -> int:
        """Move the log start offset (Kafka's ``deleteRecords``); returns the new one."""
        return self.get_partition_or_error(topic, partition).delete_records_on_leader(offset)
