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
  to wait for followers (a ``DelayedProduce`` in a purgatory keyed by partition,
  completed by high-watermark, ISR and leadership changes).
- ``fetch_messages``: Kafka's ``fetchMessages``: reads every partition now; if fewer than
  ``min_bytes`` are readable it parks a ``DelayedFetch`` (completed when a high watermark
  moves, or for a follower's fetch when the log grows) and returns an awaitable of the
  answer read again at completion. A follower's fetch (``replica_id``) reads to the log end
  and reports its position to the partition (``updateFollowerFetchState``), which may move
  the high watermark and the ISR.
- Replication (ZooKeeper mode, ``start_replication``): the ``ReplicaFetcherManager``
  (broker/replica_fetcher.py) follows the leadership changes of LeaderAndIsr and
  StopReplica, the ``AlterPartitionManager`` (broker/alter_partition_manager.py) sends the
  partitions' ISR changes to the controller, and the isr-expiration task checks the led
  partitions every ``replica.lag.time.max.ms`` / 2.
- Transactions (``broker/txn_partitions.py``): ``write_txn_markers`` appends COMMIT / ABORT
  markers (WriteTxnMarkers, acks=-1) and tells the ``TxnCompletionListener``s about
  ``__consumer_offsets`` ones; ``append_records`` verifies a producer's first transactional
  batch on a partition with the injected ``TransactionVerifier`` (KIP-890) before appending.
- ListOffsets, OffsetForLeaderEpoch, DescribeProducers and the coordinators' access
  (``coordinator.partition_access.PartitionAccess``) go through here as well.

The logs themselves are created and deleted by the ``LogManager`` (the embedded
controller does it before it publishes the partition states); the replica manager looks
them up. In ZooKeeper mode the controller's LeaderAndIsr and StopReplica come here
(``become_leader_or_follower``, ``stop_replicas``) with Kafka's controller-epoch and
leader-epoch rules, creating missing logs (``Partition.createLogIfNotExists``) and deleting
stopped ones. Both paths share ``_make_leaders_and_followers``, which tells the leadership
listeners (the group coordinator) which partitions this broker now leads or follows.
LeaderAndIsr, StopReplica and UpdateMetadata (``under_state_change_lock``) run one at a
time, in arrival order (Kafka's ``replicaStateChangeLock``), so a newer controller's request
never runs in the middle of an older one's LeaderAndIsr (which awaits config reads).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from broker.metrics import BrokerTopicStats, IsrChangeStats
from broker.partition import NO_EPOCH, REPLICA_LAG_TIME_MAX_MS, LogOffsets, Partition
from broker.purgatory import (
    ActionQueue,
    DelayedFetch,
    DelayedOperation,
    DelayedOperationPurgatory,
    DelayedProduce,
    FetchPartitionStatus,
    ProducePartitionStatus,
    check_produce_statuses,
)
from broker.replica_fetcher import Replication, ReplicationSettings
from broker.replica_selector import ReplicaSelection
from broker.security.client import PLAINTEXT_INTER_BROKER, InterBrokerSecurity
from broker.txn_partitions import AcceptingTransactionVerifier, TransactionVerification, TxnMarkerAppender
from coordinator.cluster_state import INTERNAL_TOPICS, LiveBroker, PartitionState, TopicMetadata
from coordinator.controller import validate_topic_name
from coordinator.transaction_seams import TransactionVerifier, TxnCompletionListener, TxnMarker
from protocol.errors import ErrorCode, KafkaError
from storage.file_records import FileRecords
from storage.log_config import parse_topic_overrides
from storage.log_validator import FramedBatch, validate_produce_records
from storage.partition_log import FetchIsolation, LogAppendInfo, TimestampAndOffset
from storage.producer_state import AppendOrigin, ProducerStateEntry
from storage.transaction_index import AbortedTxn

if TYPE_CHECKING:
    from broker.metadata_cache import MetadataCache
    from storage.log_config import LogConfig
    from storage.log_manager import LogManager
    from storage.partition_log import PartitionLog

log = logging.getLogger(__name__)

TopicPartition = tuple[str, int]
LeadershipListener = Callable[[Sequence[Partition], Sequence[Partition]], None]
# A topic's config overrides as strings (``/config/topics/<t>`` in ZooKeeper mode).
TopicOverridesSource = Callable[[str], Awaitable[Mapping[str, str]]]
EMBEDDED_LEADER_EPOCH = 0  # a lone broker's partitions never change leader
MAX_FILE_RECORDS_PER_FETCH = 64  # FileRecords (descriptors held) in one fetch answer


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
    log_start_offset: int = -1  # a follower's (Fetch v5+)


@dataclass(frozen=True, slots=True)
class ClientMetadata:
    """A consumer's Fetch v11+ (Kafka's ``DefaultClientMetadata``): its ``client.rack`` (empty
    when not set) and the listener it came through (whose endpoints it can reach)."""

    rack_id: str
    listener: str


@dataclass(frozen=True, slots=True)
class FetchParams:
    """A fetch's request-level settings (Kafka's ``FetchParams``).

    ``replica_id`` >= 0 is a follower's fetch: it reads up to the log end offset and
    reports the follower's position (``Partition.update_follower_fetch_state``).
    ``client_metadata`` is a consumer's Fetch v11+ (KIP-392): it may be served by a
    follower, and its leader may name a preferred read replica.
    """

    max_wait_ms: int
    min_bytes: int
    max_bytes: int
    isolation: FetchIsolation
    replica_id: int = -1
    # The records may come back as FileRecords (sent from the segment files by the
    # connection's response writer, broker/response_writer.py) instead of bytes.
    file_records: bool = False
    client_metadata: ClientMetadata | None = None

    @property
    def is_from_follower(self) -> bool:
        return self.replica_id >= 0

    @property
    def fetch_only_leader(self) -> bool:
        """Kafka's ``FetchParams.fetchOnlyLeader``: followers and consumers older than Fetch
        v11 read from the leader only; a v11+ consumer may read from a follower too."""
        return self.replica_id >= 0 or self.client_metadata is None


class FetchPartitionData(NamedTuple):
    """One partition's fetch answer (Kafka's ``FetchPartitionData``); records are never None.

    On an error the offsets are the partition's when it is hosted, else -1.
    """

    error: ErrorCode
    high_watermark: int = -1
    last_stable_offset: int = -1
    log_start_offset: int = -1
    records: bytes | FileRecords = b""  # FileRecords only for FetchParams.file_records
    diverging_epoch: tuple[int, int] | None = None
    aborted_transactions: Sequence[AbortedTxn] | None = None  # read_committed only
    preferred_read_replica: int = -1  # KIP-392: read from this broker (no records then)


# Messages of the errors an acks=-1 produce gets while it waits (Kafka's DelayedProduce).
_PRODUCE_WAIT_ERRORS = {
    ErrorCode.REQUEST_TIMED_OUT: "The followers did not acknowledge the records within the produce timeout",
    ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND: (
        "The records were appended but the in-sync replicas fell below min.insync.replicas"
    ),
    ErrorCode.NOT_LEADER_OR_FOLLOWER: "This broker stopped leading the partition before the records were acknowledged",
    ErrorCode.KAFKA_STORAGE_ERROR: "The log dir of the partition went offline before the records were acknowledged",
}


# ---------------------------------------------------------------------------- manager

_T = TypeVar("_T")


class ReplicaManager:
    """Hosted partitions and the operations on them (implements ``ClusterMetadataListener``)."""

    def __init__(
        self,
        broker_id: int,
        log_manager: LogManager,
        time_ms: Callable[[], int],
        *,
        replica_lag_time_max_ms: int = REPLICA_LAG_TIME_MAX_MS,
        transaction_verifier: TransactionVerifier | None = None,
        request_timeout_ms: int = 30_000,
        replica_selection: ReplicaSelection | None = None,
    ) -> None:
        self.broker_id = broker_id
        # KIP-392: replica.selector.class and the racks it chooses by (Kafka's
        # replicaSelectorOpt); None when consumers always read from the leader.
        self.replica_selection = replica_selection
        self.log_manager = log_manager
        self.time_ms = time_ms
        self.replica_lag_time_max_ms = replica_lag_time_max_ms
        self._partitions: dict[TopicPartition, Partition] = {}
        self.fetch_purgatory: DelayedOperationPurgatory[DelayedFetch] = DelayedOperationPurgatory("Fetch")
        # ElectLeaders waiting for this broker's metadata to show the new leaders (Kafka's
        # delayedElectLeaderPurgatory), completed by UpdateMetadata.
        self.elect_leader_purgatory: DelayedOperationPurgatory[DelayedOperation] = DelayedOperationPurgatory(
            "ElectLeader"
        )
        self.produce_purgatory: DelayedOperationPurgatory[DelayedProduce] = DelayedOperationPurgatory(
            "Produce"
        )
        # Purgatory checks asked for by appends, run after the requests being handled
        # (Kafka's ReplicaManager.actionQueue; the server calls try_complete_actions).
        self.actions = ActionQueue()
        # ZooKeeper mode (``start_replication``): the replica fetchers, the AlterPartition
        # sender and the isr-expiration task; None for a lone broker.
        self.replication: Replication | None = None
        self._leadership_listeners: list[LeadershipListener] = []
        # ZooKeeper mode: the controller epoch of the last accepted control request
        # (Kafka's ReplicaManager.controllerEpoch, KafkaController.InitialControllerEpoch = 0).
        self.controller_epoch = 0
        self._state_change_lock = asyncio.Lock()  # Kafka's replicaStateChangeLock
        self._state_changes = 0  # control requests holding or waiting for it
        # Kafka's BrokerTopicStats and ISR change meters: plain counters, read by the metrics.
        self.topic_stats = BrokerTopicStats()
        self.isr_changes = IsrChangeStats()
        # Transactions (broker/txn_partitions.py): KIP-890 verification of transactional
        # appends (without a verifier, as with transaction.partition.verification.enable=false,
        # every partition counts as added) and WriteTxnMarkers.
        self.txn_verification = TransactionVerification(
            self, transaction_verifier if transaction_verifier is not None else AcceptingTransactionVerifier()
        )
        self.txn_markers = TxnMarkerAppender(self, time_ms, timeout_ms=request_timeout_ms)
        # Kafka's LogDirFailureHandler: a log dir going offline reaches handle_log_dir_failure
        # on the loop (the broker builds this on its loop; tests may not).
        self._loop: asyncio.AbstractEventLoop | None = None
        with contextlib.suppress(RuntimeError):
            self._loop = asyncio.get_running_loop()
        log_manager.failure_channel.add_offline_listener(self._on_log_dir_offline)

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
            # Kafka's getPartitionOrError: a partition the cluster has but this broker hosts
            # no replica of (a reassignment moved it, the client's metadata is stale) sends the
            # client to refresh its metadata; UNKNOWN_TOPIC_OR_PARTITION only when it is unknown.
            replication = self.replication
            if (
                replication is not None
                and replication.metadata_cache.partition_state(topic, partition) is not None
            ):
                raise KafkaError(
                    ErrorCode.NOT_LEADER_OR_FOLLOWER,
                    "This server is not the leader for that topic-partition.",
                )
            raise KafkaError(
                ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic-partition."
            )
        return found

    def _hosted(self, key: TopicPartition) -> Partition | None:
        return self._partitions.get(key)

    def partitions(self) -> list[Partition]:
        """Every hosted partition (a copy: the metrics walk it across loop turns)."""
        return list(self._partitions.values())

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
                plog,
                local_broker_id=self.broker_id,
                time_ms=self.time_ms,
                isr_changes=self.isr_changes,
                replica_lag_time_max_ms=self.replica_lag_time_max_ms,
                isr_change_sink=self,
                is_replica_isr_eligible=self._is_replica_isr_eligible,
            )
        return current

    # ------------------------------------------------------------------ replication

    def start_replication(
        self,
        metadata_cache: MetadataCache,
        config: Mapping[str, Any],
        *,
        broker_epoch: Callable[[], int | None],
        security: InterBrokerSecurity = PLAINTEXT_INTER_BROKER,
    ) -> None:
        """Follow leaders and change ISRs (ZooKeeper mode; Kafka's ``ReplicaManager.startup``):
        the replica fetchers (one per leader broker, over the inter-broker listener), the
        AlterPartition sender to the controller, and the isr-expiration task every
        ``replica.lag.time.max.ms`` / 2. ``config`` is the broker's; ``stop_replication`` ends them."""
        settings = ReplicationSettings.from_config(config, security)
        self.replica_lag_time_max_ms = settings.lag_time_max_ms
        for partition in self._partitions.values():
            partition.replica_lag_time_max_ms = settings.lag_time_max_ms
        self.replication = Replication(self, metadata_cache, settings, broker_epoch)

    async def stop_replication(self) -> None:
        replication, self.replication = self.replication, None
        if replication is not None:
            await replication.stop()

    def submit(self, partition: Partition, new_isr: tuple[int, ...]) -> bool:
        """``IsrChangeSink`` for the hosted partitions: AlterPartition to the controller."""
        if self.replication is None:
            return False
        return self.replication.alter_partition.submit(partition, new_isr)

    def _is_replica_isr_eligible(self, broker_id: int) -> bool:
        """Kafka's ``isReplicaIsrEligible`` in ZooKeeper mode: the broker is alive in the metadata cache."""
        return self.replication is None or self.replication.is_broker_alive(broker_id)

    def on_isr_committed(
        self, partition: Partition, leader_epoch: int, partition_epoch: int, isr: tuple[int, ...]
    ) -> None:
        """The controller accepted an ISR change: commit it, and answer what it unblocks."""
        if self._partitions.get(partition.key) is not partition:
            return
        partition.on_alter_partition_committed(leader_epoch, partition_epoch, isr)
        self._complete_delayed_requests(partition.key)

    def maybe_shrink_isrs(self) -> int:
        """Kafka's ``isr-expiration`` task: every led partition drops followers that fell behind."""
        proposed = 0
        for partition in list(self._partitions.values()):
            if partition.is_leader and len(partition.isr) > 1 and partition.maybe_shrink_isr():
                proposed += 1
        return proposed

    def _make_leaders_and_followers(
        self, applied: Sequence[tuple[PartitionState, Partition]]
    ) -> dict[TopicPartition, ErrorCode]:
        """Kafka's ``makeLeaders`` / ``makeFollowers`` then ``onLeadershipChange``: the
        leadership listeners hear of the partitions this broker newly leads (a re-elected
        leader's epoch bump is not news to a coordinator: it does not reload) and of those
        whose leader or epoch changed as a follower. Returns the partitions whose change
        failed (a leader-epoch checkpoint that cannot be written) with their error."""
        leaders: list[Partition] = []
        followers: list[Partition] = []
        failed: dict[TopicPartition, ErrorCode] = {}
        for state, partition in applied:
            try:
                if state.leader == self.broker_id:
                    if partition.make_leader(state):
                        leaders.append(partition)
                elif partition.make_follower(state):
                    followers.append(partition)
            except KafkaError as exc:
                # makeLeaders / makeFollowers catch KafkaStorageException per partition: it is
                # skipped (offline: its log dir is) and answers KAFKA_STORAGE_ERROR.
                log.error(
                    "Skipped the state change of %s-%d to leader %d epoch %d since the replica "
                    "is offline due to storage error: %s",
                    state.topic,
                    state.partition,
                    state.leader,
                    state.leader_epoch,
                    exc,
                )
                failed[state.key] = exc.error
            # A parked fetch or produce on it sees the new leadership (and answers).
            self._complete_delayed_requests(state.key)
        if self.replication is not None:
            # makeLeaders removes their fetchers (and those of the partitions it failed to
            # change); makeFollowers (re)starts them at the new leader, truncating first (KIP-101).
            self.replication.fetchers.remove_partitions([*(p.key for p in leaders), *failed])
            self.replication.fetchers.add_partitions(followers)
        if leaders or followers:
            for listener in self._leadership_listeners:
                listener(leaders, followers)
        return failed

    def add_leadership_listener(self, listener: LeadershipListener) -> None:
        """``listener(new_leaders, new_followers)`` runs after every leadership change
        (Kafka's ``RequestHandlerHelper.onLeadershipChange``: the coordinators follow it)."""
        self._leadership_listeners.append(listener)

    def on_topic_deleted(self, topic: TopicMetadata) -> None:
        """Stop serving the topic's partitions; fetches parked on them answer now."""
        for key in [k for k in self._partitions if k[0] == topic.name]:
            self._stop_replica(key)
        self.topic_stats.remove_topic(topic.name)

    def _stop_replica(self, key: TopicPartition) -> None:
        self._partitions.pop(key, None)
        if self.replication is not None:
            self.replication.fetchers.remove_partitions([key])
        self.fetch_purgatory.complete_all(key)
        self.produce_purgatory.check_and_complete(key)

    # ------------------------------------------------------------------ log dir failures

    def _on_log_dir_offline(self, d: Path) -> None:
        """The failure channel's listener. It runs inside the I/O call that failed: the work
        is done on the loop once that call has returned (Kafka's LogDirFailureHandler thread)."""
        loop = self._loop
        if loop is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # no loop: nothing fetches or is parked
                self.handle_log_dir_failure(d)
                return
        if not loop.is_closed():
            loop.call_soon_threadsafe(self.handle_log_dir_failure, d)

    def handle_log_dir_failure(self, d: Path) -> None:
        """Kafka's ``ReplicaManager.handleLogDirFailure`` (no log-dir event to the controller,
        docs/COMPATIBILITY.md): the partitions of the offline dir (KAFKA_STORAGE_ERROR from
        now on) are no longer fetched, and the fetches and produces parked on them answer."""
        keys = [key for key, partition in self._partitions.items() if partition.log.dir.parent == d]
        replication = self.replication
        if replication is not None:
            followed = [key for key in keys if replication.fetchers.fetcher_for(key) is not None]
            replication.fetchers.remove_partitions(keys)
            if followed:
                log.warning(
                    "Broker %d stopped fetcher for partitions %s because they are in the failed log "
                    "directory %s.",
                    self.broker_id,
                    ", ".join(f"{t}-{p}" for t, p in followed),
                    d,
                )
        for key in keys:
            self.fetch_purgatory.complete_all(key)  # read again: KAFKA_STORAGE_ERROR
            self.produce_purgatory.check_and_complete(key)  # _online_partition: no longer led

    def _online_partition(self, key: TopicPartition) -> Partition | None:
        """A parked produce's view of its partitions (Kafka's DelayedProduce asks
        getPartitionOrError): one in an offline log dir no longer counts as led."""
        partition = self._partitions.get(key)
        if partition is not None and partition.log.dir_state.offline:
            return None
        return partition

    # ------------------------------------------------------------------ ZooKeeper mode: control requests

    @contextlib.asynccontextmanager
    async def _state_change(self) -> AsyncIterator[None]:
        """Kafka's ``inLock(replicaStateChangeLock)`` (asyncio's lock is FIFO: arrival order)."""
        self._state_changes += 1
        try:
            async with self._state_change_lock:
                yield
        finally:
            self._state_changes -= 1

    def under_state_change_lock(self, fn: Callable[[], _T]) -> _T | Coroutine[Any, Any, _T]:
        """``fn()`` (which does not await) under ``replicaStateChangeLock``, as Kafka's
        ``maybeUpdateMetadataCache``: at once when no LeaderAndIsr / StopReplica holds or
        waits for it (nothing can interleave then), else a coroutine running it after them."""
        if self._state_changes == 0:
            return fn()

        async def later() -> _T:
            async with self._state_change():
                return fn()

        return later()

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
        async with self._state_change():
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
                topic_id = topic_ids.get(state.topic)
                error = self._check_leader_and_isr_state(state, topic_id)
                if error is ErrorCode.NONE and topic_id is not None:
                    error = self._set_missing_topic_id(state, topic_id)
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
            errors.update(self._make_leaders_and_followers(applied))
            log.info(
                "LeaderAndIsr from controller %d epoch %d: %d partitions applied, %d refused",
                controller_id,
                controller_epoch,
                sum(1 for state, _ in applied if errors[state.key] is ErrorCode.NONE),
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
        if plog is not None and plog.dir_state.offline:
            # becomeLeaderOrFollower: HostedPartition.Offline answers KAFKA_STORAGE_ERROR.
            return ErrorCode.KAFKA_STORAGE_ERROR
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

    def _set_missing_topic_id(self, state: PartitionState, topic_id: uuid.UUID) -> ErrorCode:
        """Kafka's ``Partition.checkOrSetTopicId``: a log loaded without a topic id (its
        partition.metadata lost to a crash) takes the controller's; KAFKA_STORAGE_ERROR if the
        file cannot be written."""
        plog = self.log_manager.get_log(state.topic, state.partition)
        if plog is None or plog.topic_id is not None:
            return ErrorCode.NONE
        try:
            self.log_manager.assign_topic_id(plog, topic_id)
        except KafkaError as exc:
            log.error("cannot record the topic id of %s-%d: %s", state.topic, state.partition, exc)
            return exc.error
        return ErrorCode.NONE

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

    async def stop_replicas(
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
        partition's log is deleted too. Parked fetches on stopped partitions answer. Runs
        after the LeaderAndIsr / StopReplica in progress (``replicaStateChangeLock``).
        """
        async with self._state_change():
            return self._stop_replicas(controller_id, controller_epoch, partitions)

    def _stop_replicas(
        self,
        controller_id: int,
        controller_epoch: int,
        partitions: Sequence[tuple[TopicPartition, int, bool]],
    ) -> tuple[ErrorCode, dict[TopicPartition, ErrorCode]]:
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
                # Kafka's stopReplicas: the fetcher goes, parked requests on it answer now.
                if self.replication is not None:
                    self.replication.fetchers.remove_partitions([key])
                self.fetch_purgatory.complete_all(key)
                self.produce_purgatory.check_and_complete(key)
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
        transactional_id: str | None = None,
    ) -> dict[TopicPartition, PartitionAppendResult] | Awaitable[dict[TopicPartition, PartitionAppendResult]]:
        """Append each partition's records as leader (Kafka's ``appendRecords``).

        ``produce_version`` is set for a Produce request (and for TxnOffsetCommit's verified
        write, framed as Produce v10): its framing checks run first
        (``ProduceRequest.validateRecords``). With acks 0 or 1 the results come back now.
        With acks=-1, if some partition was appended, a ``DelayedProduce`` waits up to
        ``timeout_ms`` for each appended partition's high watermark to pass its append
        (``delayedProduceRequestRequired``) and an awaitable of the results is returned.
        A transactional batch that opens its producer's transaction on a partition is first
        verified with the transaction coordinator (KIP-890, ``broker.txn_partitions``): then
        an awaitable is returned as well.
        """
        if required_acks not in (-1, 0, 1):
            return self._refuse_required_acks(entries, produce_version)
        if produce_version is None:
            return self._append_now(entries, {}, (), required_acks, origin, timeout_ms, None)
        framed, errors, pending = self.txn_verification.prepare(entries, transactional_id, produce_version)
        if not pending:
            return self._append_now(framed, errors, (), required_acks, origin, timeout_ms, produce_version)
        return self._verify_then_append(
            framed,
            errors,
            pending,
            transactional_id or "",
            required_acks,
            origin,
            timeout_ms,
            produce_version,
        )

    def _refuse_required_acks(
        self, entries: Sequence[tuple[TopicPartition, object]], produce_version: int | None
    ) -> dict[TopicPartition, PartitionAppendResult]:
        """acks outside -1, 0, 1: KafkaApis.handleProduceRequest answers the partitions the
        cluster does not know and the records that fail its framing checks first; only the
        others reach ``ReplicaManager.appendRecords``, which answers INVALID_REQUIRED_ACKS."""
        results: dict[TopicPartition, PartitionAppendResult] = {}
        for key, records in entries:
            error = KafkaError(ErrorCode.INVALID_REQUIRED_ACKS)
            try:
                self.get_partition_or_error(*key)
                if produce_version is not None:
                    validate_produce_records(records, produce_version)
            except KafkaError as exc:
                if exc.error is not ErrorCode.NOT_LEADER_OR_FOLLOWER:  # known: Kafka appends it
                    error = exc
            results[key] = PartitionAppendResult(None, error)
        return results

    async def _verify_then_append(
        self,
        entries: Sequence[tuple[TopicPartition, object]],
        errors: dict[TopicPartition, KafkaError],
        pending: Sequence[Any],
        transactional_id: str,
        required_acks: int,
        origin: AppendOrigin,
        timeout_ms: int,
        produce_version: int,
    ) -> dict[TopicPartition, PartitionAppendResult]:
        errors.update(await self.txn_verification.verify(transactional_id, pending, produce_version))
        result = self._append_now(
            entries, errors, pending, required_acks, origin, timeout_ms, produce_version
        )
        return result if isinstance(result, dict) else await result

    def _append_now(
        self,
        entries: Sequence[tuple[TopicPartition, object]],
        errors: Mapping[TopicPartition, KafkaError],
        verified: Sequence[Any],
        required_acks: int,
        origin: AppendOrigin,
        timeout_ms: int,
        produce_version: int | None,
    ) -> dict[TopicPartition, PartitionAppendResult] | Awaitable[dict[TopicPartition, PartitionAppendResult]]:
        results: dict[TopicPartition, PartitionAppendResult] = {}
        stats = self.topic_stats
        hosted = self._partitions
        guards = {p.key: p for p in verified}
        for key, records in entries:
            error = errors.get(key)
            if error is None and key in guards and not self.txn_verification.guard_still_valid(guards[key]):
                # The transaction ended while the coordinator was asked (Kafka's VerificationGuard).
                error = KafkaError(
                    ErrorCode.INVALID_TXN_STATE, "Record was not part of an ongoing transaction"
                )
            if error is not None:
                results[key] = PartitionAppendResult(None, error)
                stats.record_produce(key[0], error.error, False, hosted=key in hosted)
                continue
            try:
                info = self.append_to_local_log(
                    key, records, origin=origin, required_acks=required_acks, produce_version=produce_version
                )
                results[key] = PartitionAppendResult(info)
                stats.record_produce(key[0], None, info.duplicate, hosted=True)
            except KafkaError as exc:
                results[key] = PartitionAppendResult(None, exc)
                stats.record_produce(key[0], exc.error, False, hosted=key in hosted)
        for key, error in errors.items():
            if key not in results:  # refused before the append (framing, transactional id)
                results[key] = PartitionAppendResult(None, error)
                stats.record_produce(key[0], error.error, False, hosted=key in hosted)
        if required_acks != -1:
            return results
        statuses = [
            ProducePartitionStatus(key, result.info.last_offset + 1)
            for key, result in results.items()
            if result.info is not None
        ]
        if not statuses or check_produce_statuses(statuses, self._hosted):
            return self._produce_results(results, statuses)  # committed already (e.g. a lone leader)
        delayed = DelayedProduce(timeout_ms, statuses=statuses, partition_of=self._online_partition)
        # check_produce_statuses just found it waiting, in this turn of the loop.
        self.produce_purgatory.watch(delayed, [s.key for s in statuses])
        return self._complete_produce(delayed, results, statuses)

    async def _complete_produce(
        self,
        delayed: DelayedProduce,
        results: dict[TopicPartition, PartitionAppendResult],
        statuses: Sequence[ProducePartitionStatus],
    ) -> dict[TopicPartition, PartitionAppendResult]:
        try:
            await delayed.future
        finally:
            self.produce_purgatory.cancel(delayed)  # the request may be gone (connection closed)
        return self._produce_results(results, statuses)

    def _produce_results(
        self, results: dict[TopicPartition, PartitionAppendResult], statuses: Sequence[ProducePartitionStatus]
    ) -> dict[TopicPartition, PartitionAppendResult]:
        """Kafka's ``DelayedProduce.onComplete``: each waiting partition's error, if any."""
        for status in statuses:
            error = status.error
            if error is not None and error is not ErrorCode.NONE:
                if error is ErrorCode.NOT_LEADER_OR_FOLLOWER:
                    partition = self._partitions.get(status.key)
                    if partition is not None and partition.log.dir_state.offline:
                        error = ErrorCode.KAFKA_STORAGE_ERROR  # getPartitionOrError: Offline
                results[status.key] = PartitionAppendResult(
                    None, KafkaError(error, _PRODUCE_WAIT_ERRORS.get(error))
                )
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
        if produce_version is not None and not isinstance(records, FramedBatch):
            records = validate_produce_records(records, produce_version)
        if topic in INTERNAL_TOPICS and origin is not AppendOrigin.COORDINATOR:
            # ReplicaManager.appendToLocalLog: Topic.isInternal without internalTopicsAllowed
            raise KafkaError(ErrorCode.INVALID_TOPIC_EXCEPTION, f"Cannot append to internal topic {topic}")
        info, hw_moved = partition.append_records_to_leader(
            records, origin=origin, required_acks=required_acks
        )
        if info.duplicate:  # nothing was written: nothing moved
            return info
        self.topic_stats.record_append(topic, info.size, info.num_records)
        # addCompletePurgatoryAction: the log end offset moved, which followers' parked
        # fetches wait for; checked once the requests read with this one are handled.
        self.actions.add(self.fetch_purgatory, key)
        if hw_moved:
            # The high watermark moved too (a leader alone in its ISR): consumers' parked
            # fetches and parked produces may complete, checked likewise, so a consumer's long
            # poll is answered with the whole burst of produces read together, not the first.
            self.actions.add(self.produce_purgatory, key)
        return info

    async def write_txn_markers(self, markers: Sequence[TxnMarker]) -> list[dict[TopicPartition, ErrorCode]]:
        """Append each marker's COMMIT / ABORT control batch to its partitions led here, acks=-1;
        one error per partition of each marker, in order (``broker.txn_partitions``)."""
        return await self.txn_markers.write(markers)

    def add_txn_completion_listener(self, listener: TxnCompletionListener) -> None:
        """Told when markers landed on partitions of ``__consumer_offsets``."""
        self.txn_markers.add_listener(listener)

    def _complete_delayed_requests(self, key: TopicPartition) -> None:
        """The high watermark, ISR or leadership of ``key`` changed: parked operations on it
        may complete (Kafka's ``tryCompleteDelayedRequests``)."""
        self.fetch_purgatory.check_and_complete(key)
        self.produce_purgatory.check_and_complete(key)

    # ------------------------------------------------------------------ fetch

    def fetch_messages(
        self, params: FetchParams, infos: Sequence[tuple[TopicPartition, FetchPartitionInfo]]
    ) -> list[FetchPartitionData] | Awaitable[list[FetchPartitionData]]:
        """Read every partition now, or park until ``min_bytes`` are readable (Kafka's ``fetchMessages``).

        Answers at once when ``max_wait_ms`` is 0, nothing is asked, ``min_bytes`` are
        readable (Kafka's ``bytesReadable``: a partition whose read a whole batch did not fit
        counts as its limit, so a full response always is enough, the handler capping
        ``min_bytes`` at ``max_bytes``), or a partition has an error, a diverging epoch or a
        preferred read replica (KIP-392); otherwise returns an awaitable of
        the partitions read again when the ``DelayedFetch`` completes or expires.
        """
        results, readable = self._read_from_local_log(params, infos)
        if (
            params.max_wait_ms <= 0
            or not infos
            or sum(readable) >= params.min_bytes
            or any(
                r.error is not ErrorCode.NONE
                or r.diverging_epoch is not None
                or r.preferred_read_replica >= 0
                for r in results
            )
        ):
            return self._count_fetched(infos, results)
        _close_file_records(results)  # read again when the DelayedFetch completes
        statuses = []
        for (key, info), read_bytes in zip(infos, readable, strict=True):
            partition = self._partitions[key]  # hosted: it was just read without error
            statuses.append(
                FetchPartitionStatus(
                    key,
                    info.fetch_offset,
                    info.max_bytes,
                    partition.leader_epoch,
                    partition.bytes_below(params.isolation),
                    read_bytes,
                )
            )
        delayed = DelayedFetch(
            params.max_wait_ms,
            min_bytes=params.min_bytes,
            isolation=params.isolation,
            statuses=statuses,
            partition_of=self._hosted,
            fetch_only_leader=params.fetch_only_leader,
        )
        # The counters were taken with the read above, in the same loop turn: nothing can have
        # grown them yet, and an append from now on finds the operation watched.
        self.fetch_purgatory.watch(delayed, [key for key, _ in infos])
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
        return self._count_fetched(infos, self._read_from_local_log(params, infos, from_purgatory=True)[0])

    def _count_fetched(
        self, infos: Sequence[tuple[TopicPartition, FetchPartitionInfo]], results: list[FetchPartitionData]
    ) -> list[FetchPartitionData]:
        """Kafka's BytesOut and fetch request meters, per partition of the answer sent."""
        stats = self.topic_stats
        hosted = self._partitions
        for (key, _), result in zip(infos, results, strict=True):
            stats.record_fetch(key[0], result.error, len(result.records), hosted=key in hosted)
        return results

    def _read_from_local_log(
        self,
        params: FetchParams,
        infos: Sequence[tuple[TopicPartition, FetchPartitionInfo]],
        *,
        from_purgatory: bool = False,
    ) -> tuple[list[FetchPartitionData], list[int]]:
        """Kafka's ``readFromLocalLog``: each partition within the request's byte budget; the
        first partition with data returns at least one whole batch (KIP-74). A follower's
        fetch state is updated by its first read only, not by the read of a completed
        DelayedFetch (``from_purgatory``, Kafka's ``readFromPurgatory``).

        Returns the answers and the bytes readable of each partition as Kafka counts them:
        the bytes read, or the read's limit (``max_bytes`` of the partition, or what is left
        of the response's) when a whole batch did not fit it. Kafka's read fills its limit
        with a partial batch; Moldau answers whole batches only, so a full response counts as
        full (``max_bytes``) towards ``min_bytes`` all the same."""
        budget = params.max_bytes
        min_one = True
        readable: list[int] = []
        out: list[FetchPartitionData] = []
        follower = params.replica_id if params.is_from_follower else -1
        only_leader = params.fetch_only_leader
        consumer = params.client_metadata
        selection = self.replica_selection if consumer is not None else None
        # Each FileRecords holds descriptors until its response is written: a fetch of many
        # partitions reads the ones past this many as bytes.
        file_slices = MAX_FILE_RECORDS_PER_FETCH if params.file_records else 0
        for (topic, index), info in infos:
            partition = None
            readable.append(0)
            try:
                partition = self.get_partition_or_error(topic, index)
                if selection is not None and partition.is_leader:
                    redirect = self._redirect_to_preferred_replica(selection, consumer, partition, info)
                    if redirect is not None:
                        out.append(redirect)
                        continue
                read = partition.read_records(
                    info.fetch_offset,
                    min(info.max_bytes, budget),
                    isolation=params.isolation,
                    min_one_batch=min_one,
                    current_leader_epoch=info.current_leader_epoch,
                    last_fetched_epoch=info.last_fetched_epoch,
                    fetch_only_from_leader=only_leader,
                    file_records=file_slices > 0,
                    replica_id=follower,
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
            records = read.records
            # ReplicaManager.updateFollowerFetchState: the fetch offset is the follower's log end
            # offset (read_records refused a broker that is no replica).
            if (
                follower >= 0
                and not from_purgatory
                and read.diverging_epoch is None
                and partition.update_follower_fetch_state(
                    follower, info.fetch_offset, info.log_start_offset, self.time_ms(), read.log_end_offset
                )
            ):
                self._complete_delayed_requests((topic, index))
            if isinstance(records, FileRecords):
                file_slices -= 1
            size = len(records)
            # ReplicaManager.readFromLocalLog: Kafka's read of min(partition max bytes, what is
            # left of the response's) bytes ends with a partial batch when a whole one does
            # not fit, and counts that limit in bytesReadable
            readable[-1] = max(size, min(info.max_bytes, budget)) if read.limited else size
            if size:
                min_one = False
                budget = max(budget - size, 0)
            out.append(
                FetchPartitionData(
                    ErrorCode.NONE,
                    partition.log.high_watermark if follower >= 0 else read.high_watermark,
                    read.last_stable_offset,
                    read.log_start_offset,
                    records,
                    read.diverging_epoch,
                    read.aborted_transactions,
                )
            )
        return out, readable

    def _redirect_to_preferred_replica(
        self,
        selection: ReplicaSelection,
        consumer: ClientMetadata,
        partition: Partition,
        info: FetchPartitionInfo,
    ) -> FetchPartitionData | None:
        """KIP-392 at the leader (Kafka's ``findPreferredReadReplica`` and ``readFromLocalLog``):
        when the selector names a follower, the answer is that broker's id with the
        partition's offsets and no records (the read is skipped); None to read here. The
        consumer's leader epoch is checked first (FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH)."""
        preferred = selection.preferred_read_replica(
            consumer.rack_id,
            consumer.listener,
            self.broker_id,
            partition.log.log_end_offset,
            partition.preferred_read_candidates(info.fetch_offset, self.time_ms()),
        )
        if preferred < 0:
            return None
        plog = partition.local_log(info.current_leader_epoch, require_leader=False)
        return FetchPartitionData(
            ErrorCode.NONE,
            plog.high_watermark,
            plog.last_stable_offset,
            plog.log_start_offset,
            preferred_read_replica=preferred,
        )

    def complete_delayed_fetch_requests(self, keys: Sequence[TopicPartition]) -> None:
        """A follower's high watermark moved on these partitions: consumers' fetches parked
        here (KIP-392) may complete (Kafka's ``completeDelayedFetchRequests``, called by the
        replica fetcher after each answer)."""
        for key in keys:
            self.fetch_purgatory.check_and_complete(key)

    # ------------------------------------------------------------------ offsets, producers

    def fetch_offset_for_timestamp(
        self,
        topic: str,
        partition: int,
        timestamp: int,
        *,
        isolation: FetchIsolation,
        current_leader_epoch: int,
        fetch_only_from_leader: bool = True,
    ) -> TimestampAndOffset:
        """ListOffsets for one partition (Kafka's ``fetchOffsetForTimestamp``); KafkaError if not served."""
        return self.get_partition_or_error(topic, partition).fetch_offset_for_timestamp(
            timestamp,
            isolation=isolation,
            current_leader_epoch=current_leader_epoch,
            fetch_only_from_leader=fetch_only_from_leader,
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


def _close_file_records(results: Sequence[FetchPartitionData]) -> None:
    """Give back the descriptors of an answer that will not be sent."""
    for result in results:
        if isinstance(result.records, FileRecords):
            result.records.close()
