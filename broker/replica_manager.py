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

The logs themselves are created and deleted by the ``LogManager`` (the embedded
controller does it before it publishes the partition states); the replica manager looks
them up. In ZooKeeper mode the controller's LeaderAndIsr and StopReplica come here
(``become_leader_or_follower``, ``stop_replicas``) with Kafka's controller-epoch and
leader-epoch rules, creating missing logs (``Partition.createLogIfNotExists``) and deleting
stopped ones. Both paths share ``_make_leaders_and_followers``, which tells the leadership
listeners (the group coordinator) which partitions this broker now leads or follows.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from broker.partition import NO_EPOCH, LogOffsets, Partition
from broker.purgatory import DelayedFetch, DelayedOperation, DelayedOperationPurgatory, FetchPartitionStatus
from coordinator.cluster_state import INTERNAL_TOPICS, LiveBroker, PartitionState, TopicMetadata
from coordinator.controller import validate_topic_name
from protocol.errors import ErrorCode, KafkaError
from protocol.record_batch import TRANSACTIONAL_MASK
from storage.log_config import parse_topic_overrides
from storage.log_validator import validate_produce_records
from storage.partition_log import FetchIsolation, LogAppendInfo, TimestampAndOffset
from storage.producer_state import AppendOrigin, ProducerStateEntry

if TYPE_CHECKING:
    from storage.log_config import LogConfig
    from storage.log_manager import LogManager
    from storage.partition_log import PartitionLog

log = logging.getLogger(__name__)

TopicPartition = tuple[str, int]
LeadershipListener = Callable[[Sequence[Partition], Sequence[Partition]], None]
# A topic's config overrides as strings (``/config/topics/<t>`` in ZooKeeper mode).
TopicOverridesSource = Callable[[str], Awaitable[Mapping[str, str]]]
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
        # ElectLeaders waiting for this broker's metadata to show the new leaders (Kafka's
        # delayedElectLeaderPurgatory), completed by UpdateMetadata.
        self.elect_leader_purgatory: DelayedOperationPurgatory[DelayedOperation] = DelayedOperationPurgatory(
            "ElectLeader"
        )
        self._leadership_listeners: list[LeadershipListener] = []
        # ZooKeeper mode: the controller epoch of the last accepted control request
        # (Kafka's ReplicaManager.controllerEpoch, KafkaController.InitialControllerEpoch = 0).
        self.controller_epoch = 0
        self._state_change_lock = asyncio.Lock()  # Kafka's replicaStateChangeLock

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
        """Host (or update) every partition whose replicas include this broker (the embedded
        controller's LeaderAndIsr; in ZooKeeper mode ``become_leader_or_follower``)."""
        applied: list[tuple[PartitionState, Partition]] = []
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
            plog = (
                current.log if current is not None else self.log_manager.get_log(state.topic, state.partition)
            )
            if plog is None:
                log.warning("no log for %s-%d, not hosting it", state.topic, state.partition)
                continue
            applied.append((state, self._host(plog)))
        self._make_leaders_and_followers(applied)

    def _host(self, plog: PartitionLog) -> Partition:
        key = (plog.topic, plog.partition)
        current = self._partitions.get(key)
        if current is None:
            current = self._partitions[key] = Partition(
                plog, local_broker_id=self.broker_id, time_ms=self.time_ms
            )
        return current

    def _make_leaders_and_followers(self, applied: Sequence[tuple[PartitionState, Partition]]) -> None:
        """Kafka's ``makeLeaders`` / ``makeFollowers`` then ``onLeadershipChange``: the
        leadership listeners hear of the partitions that changed leader or epoch."""
        leaders: list[Partition] = []
        followers: list[Partition] = []
        for state, partition in applied:
            if state.leader == self.broker_id:
                if partition.make_leader(state):
                    leaders.append(partition)
            elif partition.make_follower(state):
                followers.append(partition)
            # A parked fetch on it sees the new leadership (and answers).
            self.fetch_purgatory.check_and_complete(state.key)
        if leaders or followers:
            for listener in self._leadership_listeners:
                listener(leaders, followers)

    def add_leadership_listener(self, listener: LeadershipListener) -> None:
        """``listener(new_leaders, new_followers)`` runs after every leadership change
        (Kafka's ``RequestHandlerHelper.onLeadershipChange``: the coordinators follow it)."""
        self._leadership_listeners.append(listener)

    def on_topic_deleted(self, topic: TopicMetadata) -> None:
        """Stop serving the topic's partitions; fetches parked on them answer now."""
        for key in [k for k in self._partitions if k[0] == topic.name]:
            self._stop_replica(key)

    def _stop_replica(self, key: TopicPartition) -> None:
        self._partitions.pop(key, None)
        self.fetch_purgatory.complete_all(key)

    # ------------------------------------------------------------------ ZooKeeper mode: control requests

    async def become_leader_or_follower(
        self,
        controller_id: int,
        controller_epoch: int,
        states: Sequence[PartitionState],
        topic_ids: Mapping[str, uuid.UUID],
        *,
        topic_overrides: TopicOverridesSource,
    ) -> tuple[ErrorCode, dict[TopicPartition, ErrorCode]]:
        """LeaderAndIsr (Kafka's ``ReplicaManager.becomeLeaderOrFollower``): (top-level error,
        error per partition of ``states``).

        A controller epoch older than the last accepted one fences the whole request
        (STALE_CONTROLLER_EPOCH for it and every partition). Per partition: a topic id that
        differs from the log's is INCONSISTENT_TOPIC_ID; a newer leader epoch is applied if
        this broker is a replica (else UNKNOWN_TOPIC_OR_PARTITION); an older or equal one is
        STALE_CONTROLLER_EPOCH (equal with a topic id the log lacked: NONE). Missing logs are
        created (``Partition.createLogIfNotExists``) with the topic's overrides from
        ``topic_overrides`` (``/config/topics/<t>``), one per loop turn; a failure there is
        KAFKA_STORAGE_ERROR. ``controller_id`` is for the log only.
        """
        async with self._state_change_lock:
            if controller_epoch < self.controller_epoch:
                log.warning(
                    "ignoring LeaderAndIsr from controller %d with epoch %d: the current controller epoch is %d",
                    controller_id,
                    controller_epoch,
                    self.controller_epoch,
                )
                return ErrorCode.STALE_CONTROLLER_EPOCH, {
                    s.key: ErrorCode.STALE_CONTROLLER_EPOCH for s in states
                }
            self.controller_epoch = controller_epoch
            errors: dict[TopicPartition, ErrorCode] = {}
            accepted: list[PartitionState] = []
            for state in states:
                error = self._check_leader_and_isr_state(state, topic_ids.get(state.topic))
                errors[state.key] = error
                if error is ErrorCode.NONE and (
                    (current := self._partitions.get(state.key)) is None
                    or state.leader_epoch > current.leader_epoch
                ):
                    accepted.append(state)
            applied: list[tuple[PartitionState, Partition]] = []
            overrides_cache: dict[str, Mapping[str, Any]] = {}
            for state in accepted:
                try:
                    plog = await self._get_or_create_log(state, topic_ids, overrides_cache, topic_overrides)
                except Exception as exc:  # a config read, a bad override or a log dir: the log cannot be made
                    log.error("cannot create the log of %s-%d: %s", state.topic, state.partition, exc)
                    errors[state.key] = ErrorCode.KAFKA_STORAGE_ERROR
                    continue
                applied.append((state, self._host(plog)))
            self._make_leaders_and_followers(applied)
            log.info(
                "LeaderAndIsr from controller %d epoch %d: %d partitions applied, %d refused",
                controller_id,
                controller_epoch,
                len(applied),
                sum(1 for e in errors.values() if e is not ErrorCode.NONE),
            )
            return ErrorCode.NONE, errors

    def _check_leader_and_isr_state(self, state: PartitionState, topic_id: uuid.UUID | None) -> ErrorCode:
        """One partition of a LeaderAndIsr, before anything changes (becomeLeaderOrFollower)."""
        # A name or index no controller would send must not become a path (Topic.validate).
        try:
            validate_topic_name(state.topic)
        except KafkaError as exc:
            return exc.error
        if state.partition < 0:
            return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
        current = self._partitions.get(state.key)
        plog = current.log if current is not None else self.log_manager.get_log(state.topic, state.partition)
        log_topic_id = plog.topic_id if plog is not None else None
        if topic_id is not None and log_topic_id is not None and topic_id != log_topic_id:
            # Partition.checkOrSetTopicId / hasConsistentTopicId
            return ErrorCode.INCONSISTENT_TOPIC_ID
        current_epoch = current.leader_epoch if current is not None else NO_EPOCH
        if state.leader_epoch > current_epoch:
            return (
                ErrorCode.NONE if self.broker_id in state.replicas else ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
            )
        if state.leader_epoch == current_epoch and topic_id is not None and log_topic_id is None:
            return ErrorCode.NONE  # a topic id assigned without an epoch bump
        return ErrorCode.STALE_CONTROLLER_EPOCH

    async def _get_or_create_log(
        self,
        state: PartitionState,
        topic_ids: Mapping[str, uuid.UUID],
        overrides_cache: dict[str, Mapping[str, Any]],
        topic_overrides: TopicOverridesSource,
    ) -> PartitionLog:
        plog = self.log_manager.get_log(state.topic, state.partition)
        if plog is not None:
            return plog
        topic = state.topic
        overrides = overrides_cache.get(topic)
        if overrides is None:
            overrides = overrides_cache[topic] = parse_topic_overrides(await topic_overrides(topic))
        await asyncio.sleep(0)  # one log (a directory and files) per loop turn
        plog = self.log_manager.get_log(topic, state.partition)  # made meanwhile?
        if plog is not None:
            return plog
        return self.log_manager.get_or_create_log(
            topic, state.partition, topic_ids.get(topic) or uuid.uuid4(), overrides
        )

    def stop_replicas(
        self,
        controller_id: int,
        controller_epoch: int,
        partitions: Sequence[tuple[TopicPartition, int, bool]],
    ) -> tuple[ErrorCode, dict[TopicPartition, ErrorCode]]:
        """StopReplica (Kafka's ``ReplicaManager.stopReplicas``): ``partitions`` are
        (partition, leader epoch, delete). Returns (top-level error, error per partition).

        A stale controller epoch answers STALE_CONTROLLER_EPOCH with no partition. A hosted
        partition stops if the request's epoch is -2 (deletion), -1 (none) or at least its
        own, else FENCED_LEADER_EPOCH. With delete the partition is no longer hosted and its
        log is deleted (renamed now, removed in the background: ``asyncDelete``); an unknown
        partition's log is deleted too. Parked fetches on stopped partitions answer.
        """
        if controller_epoch < self.controller_epoch:
            log.warning(
                "ignoring StopReplica from controller %d with epoch %d: the current controller epoch is %d",
                controller_id,
                controller_epoch,
                self.controller_epoch,
            )
            return ErrorCode.STALE_CONTROLLER_EPOCH, {}
        self.controller_epoch = controller_epoch
        errors: dict[TopicPartition, ErrorCode] = {}
        for key, leader_epoch, delete in partitions:
            current = self._partitions.get(key)
            if current is not None and leader_epoch not in (-2, -1) and leader_epoch < current.leader_epoch:
                errors[key] = ErrorCode.FENCED_LEADER_EPOCH
                continue
            errors[key] = ErrorCode.NONE
            if delete:
                self._stop_replica(key)
                try:
                    self.log_manager.delete_log(*key)
                except OSError as exc:
                    log.error("cannot delete the log of %s-%d: %s", key[0], key[1], exc)
                    errors[key] = ErrorCode.KAFKA_STORAGE_ERROR
            else:
                # No fetcher to remove yet; parked requests on it answer now.
                self.fetch_purgatory.complete_all(key)
        return ErrorCode.NONE, errors

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
