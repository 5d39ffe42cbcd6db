"""The transaction coordinator (Kafka's ``TransactionCoordinator``).

Each transactional id belongs to one partition of ``__transaction_state``
(``coordinator.transaction_log``); the broker leading that partition is its coordinator.
The ids of the partitions this broker owns (``TransactionMetadata``), their loading and
their log writes are its ``TransactionStateManager`` (``coordinator.transaction_state_manager``,
Kafka's ``txnManager``). This module serves InitProducerId with a transactional id,
AddPartitionsToTxn (and the brokers' KIP-890 verification), AddOffsetsToTxn, EndTxn,
DescribeTransactions and ListTransactions, and drives a transaction's end:
PrepareCommit/PrepareAbort written with acks=-1, markers sent to each partition's leader
(``coordinator.transaction_markers``), CompleteCommit/CompleteAbort written. Markers are sent
again for the transactions a load finds in PrepareCommit/PrepareAbort, and stop for a
partition the state drops.

Timers: every ``transaction.abort.timed.out.transaction.cleanup.interval.ms`` the ongoing
transactions older than their timeout are aborted with a bumped epoch (the producer is
fenced); every ``transaction.remove.expired.transaction.cleanup.interval.ms`` the ids idle
(Empty, CompleteCommit, CompleteAbort) for ``transactional.id.expiration.ms`` are removed
(their tombstones written as one batch per partition, split at ``max.message.bytes``).

Everything runs on the broker's event loop; a transition in flight (written but not yet
durable, or CompleteCommit/CompleteAbort waiting for the markers) makes other requests for
the id answer CONCURRENT_TRANSACTIONS.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Collection, Coroutine, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from coordinator.offsets_topic import InternalTopicCreator
from coordinator.transaction_listing import TxnDescription, TxnListing, describe_metadata, list_metadata
from coordinator.transaction_log import (
    TRANSACTION_STATE_TOPIC,
    LocalTopicCreator,
    TransactionStateTopic,
    TxnLogAccess,
    tombstone_batches,
)
from coordinator.transaction_markers import (
    LeaderLookup,
    MarkerOutcome,
    PendingMarkers,
    TransactionMarkerSender,
)
from coordinator.transaction_metadata import (
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    TopicPartition,
    TransactionError,
    TransactionMetadata,
    TxnState,
    TxnTransit,
    is_epoch_exhausted,
)
from coordinator.transaction_seams import TxnMarker, TxnMarkerWriter
from coordinator.transaction_state_manager import TransactionConfig, TransactionStateManager
from protocol.errors import ErrorCode, KafkaError

log = logging.getLogger(__name__)

S = TxnState
COMPLETE_RETRY_BACKOFF_S = 0.1
EXPIRY_SLICE = 1000  # ids checked per event-loop step by the expiration timer
_EXPIRABLE = frozenset({S.EMPTY, S.COMPLETE_COMMIT, S.COMPLETE_ABORT})  # TransactionState.isExpirationAllowed


class ProducerIdSource(Protocol):
    def generate_producer_id(self) -> int: ...


@dataclass(slots=True)
class InitResult:
    error: ErrorCode
    producer_id: int = NO_PRODUCER_ID
    producer_epoch: int = NO_PRODUCER_EPOCH


def _wall_ms() -> int:
    return int(time.time() * 1000)


class TransactionCoordinator:
    """Transactional ids of the ``__transaction_state`` partitions this broker owns; their
    state, loading and log writes are its ``state`` (``TransactionStateManager``)."""

    def __init__(
        self,
        access: TxnLogAccess,
        producer_ids: ProducerIdSource,
        marker_writer: TxnMarkerWriter,
        leader_of: LeaderLookup,
        *,
        config: TransactionConfig,
        local: LocalTopicCreator | None = None,
        cluster: InternalTopicCreator | None = None,
        time_ms: Callable[[], int] | None = None,
    ) -> None:
        self.config = config
        self.time_ms = time_ms or _wall_ms
        self.producer_ids = producer_ids
        self.markers = TransactionMarkerSender(marker_writer, leader_of)
        # Kafka's txnManager: the cache of transactional ids, loading, appendTransactionToLog
        self.state = TransactionStateManager(
            access,
            config=config,
            time_ms=self.time_ms,
            resume=self._send_markers,
            unload=self._remove_markers,
            local=local,
            cluster=cluster,
        )
        # One pending handle per periodic job (Kafka schedules each once, at a fixed rate).
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._expiry_run: asyncio.Task | None = None
        self._background: set[asyncio.Task] = set()

    # ================================================================== lifecycle

    @property
    def topic_name(self) -> str:
        return self.state.topic_name

    @property
    def topic(self) -> TransactionStateTopic:
        return self.state.topic

    @property
    def txns(self) -> dict[int, dict[str, TransactionMetadata]]:
        """Partition of ``__transaction_state`` -> its transactional ids (the state's cache)."""
        return self.state.txns

    @property
    def loading(self) -> set[int]:
        return self.state.loading

    @property
    def owned_partitions(self) -> set[int] | None:
        return self.state.owned_partitions

    @property
    def active(self) -> bool:
        return self.state.active

    def partition_for(self, transactional_id: str) -> int:
        return self.state.partition_for(transactional_id)

    async def start(self) -> None:
        """Load (a lone broker: every existing partition; ZooKeeper mode: those elected so
        far) and start the abort and expiry timers."""
        await self.state.start()
        self._schedule("abort", self.config.abort_timed_out_interval_ms, self._abort_timer)
        self._schedule("expiry", self.config.remove_expired_interval_ms, self._expiry_timer)

    async def stop(self) -> None:
        loads = self.state.shutdown()
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        for task in list(self._background):
            task.cancel()
        await asyncio.gather(*loads, *self._background, return_exceptions=True)
        await self.markers.close()
        await self.state.close()

    def follow_leadership(self) -> None:
        """ZooKeeper mode: own only the partitions this broker leads (``on_election``)."""
        self.state.follow_leadership()

    def find_coordinator(self, transactional_id: str) -> ErrorCode:
        """FindCoordinator for a transactional id: COORDINATOR_NOT_AVAILABLE until the
        topic exists (the first call starts creating it)."""
        if not self.active:
            return ErrorCode.COORDINATOR_NOT_AVAILABLE
        try:
            ready = self.topic.ready()
        except (KafkaError, OSError) as exc:
            log.warning("cannot create %s: %s", TRANSACTION_STATE_TOPIC, exc)
            return ErrorCode.COORDINATOR_NOT_AVAILABLE
        return ErrorCode.NONE if ready else ErrorCode.COORDINATOR_NOT_AVAILABLE

    # ------------------------------------------------------------------ leadership

    def on_election(self, partition: int, epoch: int) -> None:
        """This broker now leads ``__transaction_state``-``partition`` (Kafka's ``onElection``)."""
        if self.state.on_election(partition, epoch):
            self._start_load(partition)

    def on_resignation(self, partition: int, epoch: int | None) -> None:
        """This broker no longer leads the partition: its ids are dropped, markers stop."""
        self.state.on_resignation(partition, epoch)

    def _start_load(self, partition: int) -> None:
        self.state.start_load(partition)

    def _remove_markers(self, partition: int) -> None:
        """``removeMarkersForTxnTopicPartition``, as the state drops the partition's ids."""
        self.markers.cancel_partition(partition)

    # ================================================================== InitProducerId

    async def init_producer_id(
        self, transactional_id: str, timeout_ms: int, expected: tuple[int, int] | None
    ) -> InitResult:
        """InitProducerId with a transactional id (``handleInitProducerId``); ``expected`` is
        the (producer id, epoch) of a v3+ request that carries one (KIP-360)."""
        if transactional_id == "":
            return InitResult(ErrorCode.INVALID_REQUEST)
        if timeout_ms <= 0 or timeout_ms > self.config.max_timeout_ms:
            return InitResult(ErrorCode.INVALID_TRANSACTION_TIMEOUT)
        try:
            p, epoch, meta = self.state.transaction_state(transactional_id)
            if meta is None:
                meta = TransactionMetadata(
                    transactional_id,
                    producer_id=self.producer_ids.generate_producer_id(),
                    last_producer_id=NO_PRODUCER_ID,
                    producer_epoch=NO_PRODUCER_EPOCH,
                    last_producer_epoch=NO_PRODUCER_EPOCH,
                    timeout_ms=timeout_ms,
                    state=S.EMPTY,
                    last_update_ms=self.time_ms(),
                )
                self.state.txns.setdefault(p, {})[transactional_id] = meta
            transit = self._prepare_init(meta, timeout_ms, expected)
        except KafkaError as exc:
            return InitResult(exc.error)
        except TransactionError as exc:
            return InitResult(exc.error)
        if transit is None:
            # An ongoing transaction: abort it with a bumped epoch first; the client retries
            # on CONCURRENT_TRANSACTIONS and gets the epoch after it.
            fence_epoch = meta.prepare_fence_epoch()
            error = await self._end_transaction(
                transactional_id, meta.producer_id, fence_epoch, committed=False, from_client=False
            )
            return InitResult(ErrorCode.CONCURRENT_TRANSACTIONS if error is ErrorCode.NONE else error)
        try:
            await self.state.append_transaction(meta, p, epoch, transit)
        except KafkaError as exc:
            return InitResult(exc.error)
        log.info(
            "initialized transactional id %s with producer id %d and epoch %d on %s-%d",
            transactional_id,
            meta.producer_id,
            meta.producer_epoch,
            TRANSACTION_STATE_TOPIC,
            p,
        )
        return InitResult(ErrorCode.NONE, meta.producer_id, meta.producer_epoch)

    def _prepare_init(
        self, meta: TransactionMetadata, timeout_ms: int, expected: tuple[int, int] | None
    ) -> TxnTransit | None:
        """``prepareInitProducerIdTransit``; None: the ongoing transaction is fenced first."""
        if meta.pending_in_progress:
            raise TransactionError(ErrorCode.CONCURRENT_TRANSACTIONS)
        if expected is not None:
            pid, exp_epoch = expected
            valid = (
                meta.producer_epoch == NO_PRODUCER_EPOCH
                or pid == meta.producer_id
                or (pid == meta.last_producer_id and is_epoch_exhausted(exp_epoch))
            )
            if not valid:
                raise TransactionError(ErrorCode.PRODUCER_FENCED)
        if meta.state in (S.PREPARE_ABORT, S.PREPARE_COMMIT):
            raise TransactionError(ErrorCode.CONCURRENT_TRANSACTIONS)
        if meta.state is S.ONGOING:
            return None
        if meta.state in (S.EMPTY, S.COMPLETE_ABORT, S.COMPLETE_COMMIT):
            now = self.time_ms()
            if meta.epoch_exhausted and (expected is None or expected[1] == meta.producer_epoch):
                return meta.prepare_producer_id_rotation(
                    self.producer_ids.generate_producer_id(), timeout_ms, now, expected is not None
                )
            return meta.prepare_increment_epoch(timeout_ms, None if expected is None else expected[1], now)
        raise TransactionError(ErrorCode.UNKNOWN_SERVER_ERROR, f"illegal state {meta.state.display_name}")

    # ================================================================== AddPartitions, verify

    async def add_partitions(
        self,
        transactional_id: str,
        producer_id: int,
        producer_epoch: int,
        partitions: Iterable[TopicPartition],
    ) -> ErrorCode:
        """``handleAddPartitionsToTransaction``: one error for all the partitions."""
        if not transactional_id:
            return ErrorCode.INVALID_REQUEST
        wanted = frozenset(partitions)
        try:
            p, epoch, meta = self.state.transaction_state(transactional_id)
            if meta is None or meta.producer_id != producer_id:
                return ErrorCode.INVALID_PRODUCER_ID_MAPPING
            if meta.producer_epoch != producer_epoch:
                return ErrorCode.PRODUCER_FENCED
            if meta.pending_in_progress or meta.state in (S.PREPARE_COMMIT, S.PREPARE_ABORT):
                return ErrorCode.CONCURRENT_TRANSACTIONS
            if meta.state is S.ONGOING and wanted <= meta.partitions:
                return ErrorCode.NONE
            transit = meta.prepare_add_partitions(wanted, self.time_ms())
            await self.state.append_transaction(meta, p, epoch, transit)
        except (KafkaError, TransactionError) as exc:
            return exc.error
        return ErrorCode.NONE

    def verify_partitions(
        self,
        transactional_id: str,
        producer_id: int,
        producer_epoch: int,
        partitions: Sequence[TopicPartition],
    ) -> dict[TopicPartition, ErrorCode]:
        """KIP-890 part 1 (``handleVerifyPartitionsInTransaction``): NONE for each partition
        of the ongoing transaction, TRANSACTION_ABORTABLE for the others (as Kafka 3.8+; the
        broker that asked answers INVALID_TXN_STATE to a Produce below v11); an empty id is
        INVALID_REQUEST for each."""
        if not transactional_id:
            return dict.fromkeys(partitions, ErrorCode.INVALID_REQUEST)
        try:
            _, _, meta = self.state.transaction_state(transactional_id)
            if meta is None or meta.producer_id != producer_id:
                raise KafkaError(ErrorCode.INVALID_PRODUCER_ID_MAPPING)
            if meta.producer_epoch != producer_epoch:
                raise KafkaError(ErrorCode.PRODUCER_FENCED)
            if meta.state in (S.PREPARE_COMMIT, S.PREPARE_ABORT):
                raise KafkaError(ErrorCode.CONCURRENT_TRANSACTIONS)
        except KafkaError as exc:
            return dict.fromkeys(partitions, exc.error)
        ongoing = meta.state is S.ONGOING
        return {
            tp: ErrorCode.NONE if ongoing and tp in meta.partitions else ErrorCode.TRANSACTION_ABORTABLE
            for tp in partitions
        }

    async def verify(
        self,
        transactional_id: str,
        producer_id: int,
        producer_epoch: int,
        partitions: Sequence[TopicPartition],
    ) -> dict[TopicPartition, ErrorCode]:
        """``TransactionVerifier`` for partitions led by this broker when it is the coordinator."""
        return self.verify_partitions(transactional_id, producer_id, producer_epoch, partitions)

    # ================================================================== EndTxn

    async def end_txn(
        self, transactional_id: str, producer_id: int, producer_epoch: int, committed: bool
    ) -> ErrorCode:
        return await self._end_transaction(
            transactional_id, producer_id, producer_epoch, committed=committed, from_client=True
        )

    async def _end_transaction(
        self,
        transactional_id: str,
        producer_id: int,
        producer_epoch: int,
        *,
        committed: bool,
        from_client: bool,
    ) -> ErrorCode:
        """``endTransaction``: Prepare* written (the answer follows), markers sent, Complete*
        written when they are all in."""
        if not transactional_id:
            return ErrorCode.INVALID_REQUEST
        want = S.PREPARE_COMMIT if committed else S.PREPARE_ABORT
        try:
            p, epoch, meta = self.state.transaction_state(transactional_id)
        except KafkaError as exc:
            return exc.error
        if meta is None or meta.producer_id != producer_id:
            return ErrorCode.INVALID_PRODUCER_ID_MAPPING
        fencing = meta.pending is S.PREPARE_EPOCH_FENCE
        if (from_client and producer_epoch != meta.producer_epoch) or producer_epoch < meta.producer_epoch:
            if fencing and not from_client:
                meta.abort_transition()
            return ErrorCode.PRODUCER_FENCED
        if meta.pending_in_progress and not fencing:
            return ErrorCode.CONCURRENT_TRANSACTIONS
        state = meta.state
        if state is S.ONGOING:
            if fencing:
                if committed:
                    return ErrorCode.CONCURRENT_TRANSACTIONS
                # The abort of a fence carries the bumped epoch (never returned to a client).
                meta.pending = None
                meta.producer_epoch = producer_epoch
                meta.last_producer_epoch = NO_PRODUCER_EPOCH
            transit = meta.prepare_abort_or_commit(want, self.time_ms())
        elif state is S.COMPLETE_COMMIT:
            return ErrorCode.NONE if committed else ErrorCode.INVALID_TXN_STATE
        elif state is S.COMPLETE_ABORT:
            return ErrorCode.NONE if not committed else ErrorCode.INVALID_TXN_STATE
        elif state is S.PREPARE_COMMIT:
            return ErrorCode.CONCURRENT_TRANSACTIONS if committed else ErrorCode.INVALID_TXN_STATE
        elif state is S.PREPARE_ABORT:
            return ErrorCode.CONCURRENT_TRANSACTIONS if not committed else ErrorCode.INVALID_TXN_STATE
        else:
            return ErrorCode.INVALID_TXN_STATE
        try:
            await self.state.append_transaction(meta, p, epoch, transit)
        except KafkaError as exc:
            if fencing:
                meta.failed_epoch_fence = True
            return exc.error
        meta.failed_epoch_fence = False
        self._send_markers(meta, p, epoch)
        return ErrorCode.NONE

    def _send_markers(self, meta: TransactionMetadata, partition: int, epoch: int) -> None:
        """Prepare CompleteCommit/CompleteAbort and send the markers (``sendTxnMarkersCallback``,
        ``loadTransactionsForTxnTopicPartition``): the pending Complete* makes every request of
        the id answer CONCURRENT_TRANSACTIONS until it is written (``pendingTransitionInProgress``
        is checked before the state)."""
        complete = meta.prepare_complete(self.time_ms())
        committed = meta.state is S.PREPARE_COMMIT
        marker = TxnMarker(
            meta.producer_id, meta.producer_epoch, committed, epoch, tuple(sorted(meta.partitions))
        )
        self.markers.send(
            PendingMarkers(meta.transactional_id, partition, marker, complete),
            self._on_markers_done,
            self._on_partitions_done,
        )

    def _pending_meta(self, pending: PendingMarkers) -> TransactionMetadata | None:
        """The metadata ``pending`` was prepared on, if this coordinator still has it."""
        partition, epoch = pending.txn_partition, pending.marker.coordinator_epoch
        if not self.state.still_owner(partition, epoch):
            return None
        meta = self.state.txns.get(partition, {}).get(pending.transactional_id)
        if meta is None or meta.pending is not pending.complete.state:
            return None
        return meta if meta.producer_id == pending.marker.producer_id else None

    def _on_partitions_done(self, pending: PendingMarkers, partitions: Collection[TopicPartition]) -> None:
        """``txnMetadata.removePartition`` (TransactionMarkerRequestCompletionHandler): a
        partition whose marker is written or dropped leaves the transaction."""
        meta = self._pending_meta(pending)
        if meta is not None:
            meta.partitions.difference_update(partitions)

    def _on_markers_done(self, pending: PendingMarkers, outcome: MarkerOutcome) -> None:
        # Fenced: the pending Complete* stays, as Kafka's (a newer coordinator takes over).
        if outcome is not MarkerOutcome.WRITTEN:
            return
        task = asyncio.get_running_loop().create_task(
            self._complete(pending), name=f"txn-complete-{pending.transactional_id}"
        )
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _complete(self, pending: PendingMarkers) -> None:
        """Write the prepared CompleteCommit/CompleteAbort (``TransactionMarkerChannelManager.
        tryAppendToLog``), retried while this broker still coordinates the transaction; the
        pending transition stays between the attempts (``retryOnError``)."""
        while (meta := self._pending_meta(pending)) is not None:
            try:
                await self.state.append_transaction(
                    meta,
                    pending.txn_partition,
                    pending.marker.coordinator_epoch,
                    pending.complete,
                    retry=True,
                )
                log.debug("completed %s of %s", meta.state.display_name, pending.transactional_id)
                return
            except KafkaError as exc:
                if exc.error is ErrorCode.NOT_COORDINATOR:
                    # appendTransactionToLog: an error not retried drops the pending transition
                    if meta.pending is pending.complete.state:
                        meta.abort_transition()
                    return
            await asyncio.sleep(COMPLETE_RETRY_BACKOFF_S)

    # ================================================================== Describe, List

    def describe(self, transactional_id: str) -> TxnDescription:
        """DescribeTransactions for one id (``handleDescribeTransactions``)."""
        if not self.active:
            return TxnDescription(ErrorCode.COORDINATOR_NOT_AVAILABLE)
        if not transactional_id:
            return TxnDescription(ErrorCode.INVALID_REQUEST)
        try:
            _, _, meta = self.state.transaction_state(transactional_id)
        except KafkaError as exc:
            return TxnDescription(exc.error)
        return describe_metadata(meta)

    def list_transactions(
        self,
        states: Iterable[str],
        producer_ids: Iterable[int],
        duration_ms: int = -1,
        id_pattern: str | None = None,
    ) -> tuple[ErrorCode, list[str], list[TxnListing]]:
        """``listTransactionStates``: (error, unknown state filters, matching transactions)."""
        if not self.active:
            return ErrorCode.COORDINATOR_NOT_AVAILABLE, [], []
        if self.state.loading:
            # listTransactionStates: while any partition loads, the error alone (no partial list)
            return ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, [], []
        every = (meta for txns in self.state.txns.values() for meta in txns.values())
        return list_metadata(
            every, ErrorCode.NONE, states, producer_ids, duration_ms, id_pattern, self.time_ms()
        )

    # ================================================================== timers

    def _schedule(self, name: str, interval_ms: int, job: Callable[[], None]) -> None:
        """(Re)arm the periodic job ``name``: the handle replaces the fired one."""
        self._timers[name] = asyncio.get_running_loop().call_later(interval_ms / 1000, job)

    def _abort_timer(self) -> None:
        """``transaction-abort`` (TransactionCoordinator.startup)."""
        if not self.active:
            return
        try:
            self.abort_timed_out_transactions()
        finally:
            self._schedule("abort", self.config.abort_timed_out_interval_ms, self._abort_timer)

    def abort_timed_out_transactions(self) -> int:
        """``abortTimedOutTransactions``: ongoing transactions past their timeout are aborted
        with a bumped epoch, which fences their producer."""
        now = self.time_ms()
        started = 0
        for partition, txns in self.state.txns.items():
            if partition in self.state.loading:
                continue
            for meta in list(txns.values()):
                if meta.state is not S.ONGOING or meta.pending_in_progress:
                    continue
                if meta.start_ms + meta.timeout_ms >= now:
                    continue
                fence_epoch = meta.prepare_fence_epoch()
                log.info(
                    "aborting transaction of %s (producer id %d) after its timeout of %d ms",
                    meta.transactional_id,
                    meta.producer_id,
                    meta.timeout_ms,
                )
                self._spawn(
                    self._end_transaction(
                        meta.transactional_id,
                        meta.producer_id,
                        fence_epoch,
                        committed=False,
                        from_client=False,
                    )
                )
                started += 1
        return started

    def _expiry_timer(self) -> None:
        """``transactionalId-expiration`` (TransactionStateManager.enableTransactionalIdExpiration);
        a run still going (writing its tombstones) is not doubled."""
        if not self.active:
            return
        try:
            if self._expiry_run is None or self._expiry_run.done():
                self._expiry_run = self._spawn(self._expire_in_slices())
        finally:
            self._schedule("expiry", self.config.remove_expired_interval_ms, self._expiry_timer)

    def expire_transactional_ids(self) -> int:
        """``removeExpiredTransactionalIds`` at once: each id idle for
        ``transactional.id.expiration.ms`` gets its pending Dead in the same step as the check
        (Kafka does both under the metadata's lock), so no request can slip in between; the
        tombstones are then written, one batch per partition. Returns how many ids expire."""
        now = self.time_ms()
        expired = 0
        for partition, epoch, max_bytes, metas in self._expirable_partitions():
            found = self._prepare_expiry(partition, epoch, metas, now)
            if found:
                self._spawn(self._write_tombstones(partition, epoch, found, max_bytes))
                expired += len(found)
        return expired

    async def _expire_in_slices(self) -> int:
        """The timer's run of ``expire_transactional_ids``: ``EXPIRY_SLICE`` ids per event-loop
        step, so that many ids do not hold the loop; returns once the tombstones are written."""
        now = self.time_ms()
        expired = 0
        writes: list[asyncio.Task] = []
        for partition, epoch, max_bytes, metas in self._expirable_partitions():
            found: list[TransactionMetadata] = []
            for start in range(0, len(metas), EXPIRY_SLICE):
                if start:
                    await asyncio.sleep(0)
                found += self._prepare_expiry(partition, epoch, metas[start : start + EXPIRY_SLICE], now)
            if found:
                writes.append(self._spawn(self._write_tombstones(partition, epoch, found, max_bytes)))
                expired += len(found)
        await asyncio.gather(*writes, return_exceptions=True)
        return expired

    def _expirable_partitions(self) -> Iterator[tuple[int, int, int, list[TransactionMetadata]]]:
        """(partition, coordinator epoch, ``max.message.bytes``, its ids) of each partition
        whose ids may expire now: owned here, with its log here (looked at as the iteration
        reaches it)."""
        for partition in list(self.state.txns):
            epoch = self.state.coordinator_epochs.get(partition, 0)
            if not self.state.still_owner(partition, epoch):
                continue
            max_bytes = self.state.topic.max_batch_bytes(partition)
            if max_bytes is None:
                # removeExpiredTransactionalIds: no log config, the partition is not local
                log.warning(
                    "cannot expire ids of %s-%d: its log is not here", TRANSACTION_STATE_TOPIC, partition
                )
                continue
            yield partition, epoch, max_bytes, list(self.state.txns.get(partition, {}).values())

    def _prepare_expiry(
        self, partition: int, epoch: int, metas: Iterable[TransactionMetadata], now: int
    ) -> list[TransactionMetadata]:
        """``shouldExpire`` then ``prepareDead`` for each id, in one synchronous step."""
        if not self.state.still_owner(partition, epoch):
            return []
        txns = self.state.txns.get(partition, {})
        deadline = now - self.config.id_expiration_ms
        found: list[TransactionMetadata] = []
        for meta in metas:
            if meta.pending_in_progress or meta.state not in _EXPIRABLE or meta.last_update_ms > deadline:
                continue
            if txns.get(meta.transactional_id) is meta:
                meta.prepare_dead(now)
                found.append(meta)
        return found

    async def _write_tombstones(
        self, partition: int, epoch: int, metas: list[TransactionMetadata], max_bytes: int
    ) -> None:
        """``writeTombstonesForExpiredTransactionalIds``: the tombstones in batches of at most
        ``max.message.bytes`` (built off the event loop), each appended with acks=-1; its ids
        are removed once it is durable, else they lose their pending Dead."""
        by_id = {meta.transactional_id: meta for meta in metas}
        try:
            batches = await asyncio.get_running_loop().run_in_executor(
                None, tombstone_batches, list(by_id), max_bytes, self.time_ms()
            )
        except BaseException:
            self._tombstones_written(partition, epoch, metas, ErrorCode.UNKNOWN_SERVER_ERROR)
            raise
        for ids, batch in batches:
            error = ErrorCode.NONE if self.state.still_owner(partition, epoch) else ErrorCode.NOT_COORDINATOR
            if error is ErrorCode.NONE:
                try:
                    await self.state.topic.append_batch(partition, batch)
                except KafkaError as exc:
                    error = exc.error
            self._tombstones_written(partition, epoch, [by_id[i] for i in ids], error)

    def _tombstones_written(
        self, partition: int, epoch: int, metas: list[TransactionMetadata], error: ErrorCode
    ) -> None:
        """``removeFromCacheCallback``."""
        txns = self.state.txns.get(partition, {})
        durable = error is ErrorCode.NONE and self.state.still_owner(partition, epoch)
        removed = 0
        for meta in metas:
            if durable and meta.pending is S.DEAD and txns.get(meta.transactional_id) is meta:
                del txns[meta.transactional_id]
                removed += 1
            elif meta.pending is S.DEAD:
                meta.abort_transition()
        if removed:
            log.info("expired %d transactional ids of %s-%d", removed, TRANSACTION_STATE_TOPIC, partition)
        if removed < len(metas):
            log.info(
                "cannot expire %d transactional ids of %s-%d: %s",
                len(metas) - removed,
                TRANSACTION_STATE_TOPIC,
                partition,
                error.name,
            )

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> asyncio.Task:
        task = asyncio.get_running_loop().create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task
