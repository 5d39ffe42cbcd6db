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
- ``fetch_messages`` (broker/replica_reads.py; its request and answer types in
  broker/fetch_params.py): Kafka's ``fetchMessages``: reads every partition now; if fewer
  than ``min_bytes`` are readable it parks a ``DelayedFetch`` (completed when a high
  watermark moves, or for a follower's fetch when the log grows) and returns an awaitable
  of the answer read again at completion. A follower's fetch (``replica_id``) reads to the
  log end and reports its position to the partition (``updateFollowerFetchState``), which
  may move the high watermark and the ISR.
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
(``become_leader_or_follower``, ``stop_replicas``, in broker/replica_state_changes.py with
the log dir failures) with Kafka's controller-epoch and leader-epoch rules, creating
missing logs (``Partition.createLogIfNotExists``) and deleting stopped ones. Both paths share ``_make_leaders_and_followers``, which tells the leadership
listeners (the group coordinator) which partitions this broker now leads or follows.
LeaderAndIsr, StopReplica and UpdateMetadata (``under_state_change_lock``) run one at a
time, in arrival order (Kafka's ``replicaStateChangeLock``), so a newer controller's request
never runs in the middle of an older one's LeaderAndIsr (which awaits config reads).

``ReplicaManager`` inherits those two halves of Kafka's class, ``ReplicaStateChanges``
(broker/replica_state_changes.py) and ``ReplicaReads`` (broker/replica_reads.py): every
caller still calls ``replica_manager.<method>``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, NamedTuple

from broker.metrics import BrokerTopicStats, IsrChangeStats
from broker.partition import REPLICA_LAG_TIME_MAX_MS, LogOffsets, Partition
from broker.purgatory import (
    ActionQueue,
    DelayedFetch,
    DelayedOperation,
    DelayedOperationPurgatory,
    DelayedProduce,
    ProducePartitionStatus,
    check_produce_statuses,
)
from broker.replica_fetcher import Replication, ReplicationSettings
from broker.replica_reads import ReplicaReads
from broker.replica_selector import ReplicaSelection
from broker.replica_state_changes import LeadershipListener, ReplicaStateChanges
from broker.security.client import PLAINTEXT_INTER_BROKER, InterBrokerSecurity
from broker.txn_partitions import AcceptingTransactionVerifier, TransactionVerification, TxnMarkerAppender
from coordinator.cluster_state import INTERNAL_TOPICS, LiveBroker, PartitionState, TopicMetadata
from coordinator.transaction_seams import TransactionVerifier, TxnCompletionListener, TxnMarker
from protocol.errors import ErrorCode, KafkaError
from storage.log_types import FetchIsolation, LogAppendInfo, TimestampAndOffset
from storage.log_validator import (
    FramedBatch,
    NeedsOffload,
    ValidatedBatch,
    validate_batch_for_append,
    validate_produce_records,
)
from storage.producer_state import AppendOrigin
from storage.producer_state_entry import ProducerStateEntry

if TYPE_CHECKING:
    from broker.metadata_cache import MetadataCache
    from storage.log_config import LogConfig
    from storage.log_manager import LogManager
    from storage.partition_log import PartitionLog

log = logging.getLogger(__name__)

TopicPartition = tuple[str, int]
EMBEDDED_LEADER_EPOCH = 0  # a lone broker's partitions never change leader


# ---------------------------------------------------------------------------- results


class PartitionAppendResult(NamedTuple):
    """One partition's append (Kafka's ``LogAppendResult``): the append info or the error."""

    info: LogAppendInfo | None
    error: KafkaError | None = None


class _DeferredAppend(NamedTuple):
    """A partition's append that waits: for its batch's validation on the worker thread
    (``validation``), or behind an earlier deferred append to the same partition (``prev``)."""

    key: TopicPartition
    records: Any
    prev: asyncio.Future[None] | None
    done: asyncio.Future[None]
    validation: asyncio.Future[ValidatedBatch] | None


# Records the produce path framed (FramedBatch) or validated off the loop (ValidatedBatch).
_PREPARED_RECORDS = (FramedBatch, ValidatedBatch)

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


class ReplicaManager(ReplicaStateChanges, ReplicaReads):
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
        # Batches whose validation is too much work for the event loop (NeedsOffload: many
        # compressed records, a large recompression) are validated here, one at a time, as
        # Kafka's request handler threads would; appends to their partitions wait in order.
        self._validation_executor = ThreadPoolExecutor(1, thread_name_prefix="produce-validation")
        self._deferred_appends: dict[TopicPartition, asyncio.Future[None]] = {}
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

    def _online_partition(self, key: TopicPartition) -> Partition | None:
        """A parked produce's view of its partitions (Kafka's DelayedProduce asks
        getPartitionOrError): one in an offline log dir no longer counts as led."""
        partition = self._partitions.get(key)
        if partition is not None and partition.log.dir_state.offline:
            return None
        return partition

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

    def on_topic_deleted(self, topic: TopicMetadata) -> None:
        """Stop serving the topic's partitions; fetches parked on them answer now."""
        for key in [k for k in self._partitions if k[0] == topic.name]:
            self._stop_replica(key)
        self.topic_stats.remove_topic(topic.name)

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

    def close(self) -> None:
        """At the broker's stop, after its listeners: the validation worker's thread ends (a
        validation still queued is dropped with the request it belongs to)."""
        self._validation_executor.shutdown(wait=False, cancel_futures=True)

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
        """The controller accepted an ISR change: commit it, and answer what it unblocks.

        Only a high watermark moved by the change unblocks anything (Kafka's
        ``submitAlterPartition`` completion: ``tryCompleteDelayedRequests`` if
        ``hwIncremented``); checking anyway re-ran every parked fetch watching the partition,
        and a follower's parked fetch watches all its partitions: an AlterPartition answer for
        N partitions cost N x N checks on the loop."""
        if self._partitions.get(partition.key) is not partition:
            return
        if partition.on_alter_partition_committed(leader_epoch, partition_epoch, isr):
            self._complete_delayed_requests(partition.key)

    def maybe_shrink_isrs(self) -> int:
        """Kafka's ``isr-expiration`` task: every led partition drops followers that fell behind."""
        proposed = 0
        for partition in list(self._partitions.values()):
            if partition.is_leader and len(partition.isr) > 1 and partition.maybe_shrink_isr():
                proposed += 1
        return proposed

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
        deferred_appends = self._deferred_appends
        deferred: list[_DeferredAppend] = []
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
            if deferred_appends and key in deferred_appends:
                deferred.append(self._defer_append(key, records, origin, offload=False))
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
            except NeedsOffload:
                deferred.append(self._defer_append(key, records, origin, offload=True))
        for key, error in errors.items():
            if key not in results:  # refused before the append (framing, transactional id)
                results[key] = PartitionAppendResult(None, error)
                stats.record_produce(key[0], error.error, False, hosted=key in hosted)
        if deferred:
            appended = asyncio.ensure_future(
                self._append_deferred(results, deferred, origin, required_acks, produce_version)
            )
            return self._finish_deferred(appended, required_acks, timeout_ms)
        return self._finish_append(results, required_acks, timeout_ms)

    def _finish_append(
        self, results: dict[TopicPartition, PartitionAppendResult], required_acks: int, timeout_ms: int
    ) -> dict[TopicPartition, PartitionAppendResult] | Awaitable[dict[TopicPartition, PartitionAppendResult]]:
        """The request's appends are done: its results now (acks 0 or 1, or nothing to wait
        for), or a DelayedProduce waiting for the high watermarks (acks=-1)."""
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

    # ------------------------------------------------------------------ appends off the loop

    def _defer_append(
        self, key: TopicPartition, records: Any, origin: AppendOrigin, *, offload: bool
    ) -> _DeferredAppend:
        """Queue ``key``'s append behind the partition's earlier deferred one; with ``offload``
        (its batch raised NeedsOffload after the leadership checks), its validation starts now
        on the worker thread without the event loop's budget."""
        loop = asyncio.get_running_loop()
        prev = self._deferred_appends.get(key)
        done: asyncio.Future[None] = loop.create_future()
        self._deferred_appends[key] = done
        validation = self._validate_off_loop(key, records, origin) if offload else None
        return _DeferredAppend(key, records, prev, done, validation)

    def _validate_off_loop(
        self, key: TopicPartition, records: FramedBatch, origin: AppendOrigin
    ) -> asyncio.Future[ValidatedBatch]:
        config = self._partitions[key].log.config
        validate = functools.partial(
            validate_batch_for_append,
            records._replace(budget=None),
            config=config,
            now_ms=self.time_ms(),
            origin=origin,
        )
        return asyncio.get_running_loop().run_in_executor(self._validation_executor, validate)

    async def _append_deferred(
        self,
        results: dict[TopicPartition, PartitionAppendResult],
        deferred: Sequence[_DeferredAppend],
        origin: AppendOrigin,
        required_acks: int,
        produce_version: int | None,
    ) -> dict[TopicPartition, PartitionAppendResult]:
        """The deferred appends of one request, each in its partition's order: a task of its
        own, so that a closed connection does not leave a partition's later appends waiting."""
        stats = self.topic_stats
        try:
            for item in deferred:
                key = item.key
                try:
                    if item.prev is not None:
                        await item.prev
                    records = item.records if item.validation is None else await item.validation
                    try:
                        info = self.append_to_local_log(
                            key,
                            records,
                            origin=origin,
                            required_acks=required_acks,
                            produce_version=produce_version,
                        )
                    except NeedsOffload:  # queued behind another, and past its request's budget
                        records = await self._validate_off_loop(key, records, origin)
                        info = self.append_to_local_log(
                            key,
                            records,
                            origin=origin,
                            required_acks=required_acks,
                            produce_version=produce_version,
                        )
                    results[key] = PartitionAppendResult(info)
                    stats.record_produce(key[0], None, info.duplicate, hosted=True)
                except KafkaError as exc:
                    results[key] = PartitionAppendResult(None, exc)
                    stats.record_produce(key[0], exc.error, False, hosted=key in self._partitions)
                except Exception as exc:  # a bug: this partition's answer only
                    log.exception("appending to %s-%d failed", *key)
                    results[key] = PartitionAppendResult(
                        None, KafkaError(ErrorCode.UNKNOWN_SERVER_ERROR, str(exc))
                    )
                finally:
                    self._release_deferred(item)
        finally:  # cancelled (the broker stopping): the partitions' later appends go on
            for item in deferred:
                self._release_deferred(item)
        return results

    def _release_deferred(self, item: _DeferredAppend) -> None:
        if not item.done.done():
            item.done.set_result(None)
        if self._deferred_appends.get(item.key) is item.done:
            del self._deferred_appends[item.key]

    async def _finish_deferred(
        self,
        appended: asyncio.Future[dict[TopicPartition, PartitionAppendResult]],
        required_acks: int,
        timeout_ms: int,
    ) -> dict[TopicPartition, PartitionAppendResult]:
        # Shielded: the connection going away cancels the answer, not the appends.
        results = await asyncio.shield(appended)
        finished = self._finish_append(results, required_acks, timeout_ms)
        return finished if isinstance(finished, dict) else await finished

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
        if produce_version is not None and not isinstance(records, _PREPARED_RECORDS):
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
