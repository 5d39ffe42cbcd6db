"""The ``__transaction_state`` partitions a transaction coordinator owns: Kafka's ``TransactionStateManager``.

What ``coordinator.transaction_coordinator`` keeps in and reads from ``__transaction_state``
(``coordinator.transaction_log``), apart from the request logic:

- the transactional-id -> ``TransactionMetadata`` cache of the partitions owned here
  (``transactionMetadataCache``) and the lookup of an id in it (``getTransactionState``);
- a transition written with acks=-1 and applied once durable (``appendTransactionToLog``);
- ownership and loading.

Loading, as the group coordinator: a lone broker replays every partition of the topic at
start; in ZooKeeper mode (``follow_leadership``) a partition is loaded when this broker
becomes its leader (``on_election``) and dropped on resignation. Meanwhile its ids answer
COORDINATOR_LOAD_IN_PROGRESS, ids of partitions not owned NOT_COORDINATOR. After a load,
transactions found in PrepareCommit/PrepareAbort get their markers sent again (the
coordinator's ``resume`` callback, Kafka's ``sendTxnMarkers``) and ongoing ones are aborted
when their timeout passes (the coordinator's timer).

Owned by ``TransactionCoordinator`` (its ``state``, as Kafka's ``txnManager``); everything
runs on the broker's event loop.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass

from coordinator.offsets_topic import (
    InternalTopicCreator,
    replay_off_loop,
    scan_data_records,
)
from coordinator.transaction_log import (
    TRANSACTION_STATE_TOPIC,
    LocalTopicCreator,
    TransactionStateTopic,
    TxnLogAccess,
    TxnLogValue,
    decode_txn_key,
    decode_txn_value,
    encode_txn_key,
    encode_txn_value,
)
from coordinator.transaction_metadata import (
    NO_PRODUCER_EPOCH,
    TransactionMetadata,
    TxnState,
    TxnTransit,
)
from protocol.errors import ErrorCode, KafkaError
from protocol.primitives import DecodeError

log = logging.getLogger(__name__)

S = TxnState

# (metadata, partition, coordinator epoch) of a transaction found in PrepareCommit/PrepareAbort
ResumeMarkers = Callable[[TransactionMetadata, int, int], None]


@dataclass(frozen=True, slots=True)
class TransactionConfig:
    """Kafka's ``TransactionConfig`` (the broker's transaction.* keys)."""

    num_partitions: int = 50
    segment_bytes: int = 104_857_600
    min_isr: int = 2
    max_timeout_ms: int = 900_000
    id_expiration_ms: int = 604_800_000
    abort_timed_out_interval_ms: int = 10_000
    remove_expired_interval_ms: int = 3_600_000
    request_timeout_ms: int = 30_000


class TransactionStateManager:
    """Transactional ids of the ``__transaction_state`` partitions this broker owns."""

    def __init__(
        self,
        access: TxnLogAccess,
        *,
        config: TransactionConfig,
        time_ms: Callable[[], int],
        resume: ResumeMarkers,
        unload: Callable[[int], None],
        local: LocalTopicCreator | None = None,
        cluster: InternalTopicCreator | None = None,
    ) -> None:
        """``resume``: sends the markers of a transaction found prepared by a load;
        ``unload``: stops the markers of a partition whose ids are dropped."""
        self.time_ms = time_ms
        self._resume = resume
        self._unload = unload
        self.topic = TransactionStateTopic(
            access,
            num_partitions=config.num_partitions,
            segment_bytes=config.segment_bytes,
            min_isr=config.min_isr,
            append_timeout_ms=config.request_timeout_ms,
            time_ms=time_ms,
            local=local,
            cluster=cluster,
        )
        # partition of __transaction_state -> its transactional ids (transactionMetadataCache)
        self.txns: dict[int, dict[str, TransactionMetadata]] = {}
        self.coordinator_epochs: dict[int, int] = {}
        self.loading: set[int] = set()
        # None: every partition is owned (a lone broker); else those led and loaded here.
        self.owned_partitions: set[int] | None = None
        self.active = False
        self._load_tasks: dict[int, asyncio.Task] = {}

    # ================================================================== lifecycle

    @property
    def topic_name(self) -> str:
        return TRANSACTION_STATE_TOPIC

    def partition_for(self, transactional_id: str) -> int:
        return self.topic.partition_for(transactional_id)

    async def start(self) -> None:
        """Load (a lone broker: every existing partition; ZooKeeper mode: those elected so
        far)."""
        self.topic.complete_interrupted_creation()
        self.active = True
        if self.owned_partitions is None:
            count = self.topic.existing_partitions() or 0
            self.loading = set(range(count))
            for p in range(count):
                self.coordinator_epochs.setdefault(p, 0)
            for p in range(count):
                await self._load_partition(p, self.coordinator_epochs[p])
                self.loading.discard(p)
        else:
            for p in sorted(self.loading):
                self.start_load(p)

    def shutdown(self) -> list[asyncio.Task]:
        """Stop serving and cancel the loads (``shutdown``); returns the cancelled loads, for
        the caller to await."""
        self.active = False
        tasks = list(self._load_tasks.values())
        for task in tasks:
            task.cancel()
        self._load_tasks.clear()
        return tasks

    async def close(self) -> None:
        await self.topic.close()

    def follow_leadership(self) -> None:
        """ZooKeeper mode: own only the partitions this broker leads (``on_election``)."""
        if self.owned_partitions is None:
            self.owned_partitions = set()

    # ------------------------------------------------------------------ leadership

    def on_election(self, partition: int, epoch: int) -> bool:
        """This broker now leads ``__transaction_state``-``partition`` (Kafka's ``onElection``):
        the ids of an older epoch are dropped and the partition is loading. True when its load
        is to start now (``start_load``, called by the coordinator)."""
        owned = self.owned_partitions
        if owned is None:
            return False
        current = self.coordinator_epochs.get(partition)
        if current is not None and epoch < current:
            return False
        if partition in owned and current == epoch:
            return False
        self._drop_partition(partition)
        self.coordinator_epochs[partition] = epoch
        self.loading.add(partition)
        return self.active

    def on_resignation(self, partition: int, epoch: int | None) -> None:
        """This broker no longer leads the partition: its ids are dropped, markers stop."""
        owned = self.owned_partitions
        if owned is None:
            return
        current = self.coordinator_epochs.get(partition)
        if epoch is not None and current is not None and epoch < current:
            return
        if epoch is not None:
            self.coordinator_epochs[partition] = epoch
        self._drop_partition(partition)

    def _drop_partition(self, partition: int) -> None:
        task = self._load_tasks.pop(partition, None)
        if task is not None:
            task.cancel()
        self.loading.discard(partition)
        if self.owned_partitions is not None:
            self.owned_partitions.discard(partition)
        self._unload(partition)
        dropped = self.txns.pop(partition, None)
        if dropped:
            log.info(
                "unloaded %d transactional ids of %s-%d", len(dropped), TRANSACTION_STATE_TOPIC, partition
            )

    def start_load(self, partition: int) -> None:
        """Load ``partition`` in the background (``loadTransactionsForTxnTopicPartition``)."""
        epoch = self.coordinator_epochs.get(partition, 0)
        self._load_tasks[partition] = asyncio.get_running_loop().create_task(
            self._load_owned(partition, epoch), name=f"load-{TRANSACTION_STATE_TOPIC}-{partition}"
        )

    async def _load_owned(self, partition: int, epoch: int) -> None:
        prepared: list[TransactionMetadata] = []
        try:
            prepared = await self._load_partition(partition, epoch)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("cannot load %s-%d", TRANSACTION_STATE_TOPIC, partition)
        self._load_tasks.pop(partition, None)
        if partition in self.loading and self.owned_partitions is not None:
            self.loading.discard(partition)
            self.owned_partitions.add(partition)
            self._resume_completions(partition, epoch, prepared)

    async def _load_partition(self, partition: int, epoch: int) -> list[TransactionMetadata]:
        """Replay one partition (``loadTransactionMetadata``): last value wins, tombstones
        remove; returns the transactions left in PrepareCommit/PrepareAbort, whose markers
        are sent again (here for a lone broker, by ``_load_owned`` in ZooKeeper mode).

        Kafka loads on the coordinator's scheduler thread; here the chunks are read on the
        event loop (``PartitionReader``, the log end read again at every step) and decoded,
        and the ``TransactionMetadata`` built, in an executor thread one job at a time
        (``TxnLoad``). The install follows the last check that the log end was reached with
        no await in between; a load cancelled while a job runs drops the job's result."""
        load = TxnLoad(partition)
        await replay_off_loop(self.topic.reader(partition), load)
        txns = self.txns.setdefault(partition, {})
        txns.update(load.built)
        if txns:
            log.info("loaded %d transactional ids from %s-%d", len(txns), TRANSACTION_STATE_TOPIC, partition)
        if self.owned_partitions is None:
            self._resume_completions(partition, epoch, load.prepared)
        return load.prepared

    def _resume_completions(self, partition: int, epoch: int, prepared: list[TransactionMetadata]) -> None:
        for meta in prepared:
            log.info(
                "resuming %s of transactional id %s",
                meta.state.display_name,
                meta.transactional_id,
            )
            self._resume(meta, partition, epoch)

    # ================================================================== lookups

    def transaction_state(self, transactional_id: str) -> tuple[int, int, TransactionMetadata | None]:
        """(partition, coordinator epoch, metadata or None); KafkaError if not served here
        (``getTransactionState``)."""
        if not self.active:
            raise KafkaError(ErrorCode.COORDINATOR_NOT_AVAILABLE)
        p = self.partition_for(transactional_id)
        if p in self.loading:
            raise KafkaError(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS)
        if self.owned_partitions is not None and p not in self.owned_partitions:
            raise KafkaError(ErrorCode.NOT_COORDINATOR)
        return p, self.coordinator_epochs.get(p, 0), self.txns.get(p, {}).get(transactional_id)

    def still_owner(self, partition: int, epoch: int) -> bool:
        """This broker still serves ``partition`` (loaded) at coordinator epoch ``epoch``."""
        if not self.active or partition in self.loading:
            return False
        if self.owned_partitions is not None and partition not in self.owned_partitions:
            return False
        return self.coordinator_epochs.get(partition, 0) == epoch

    async def append_transaction(
        self,
        meta: TransactionMetadata,
        partition: int,
        epoch: int,
        transit: TxnTransit,
        *,
        retry: bool = False,
    ) -> None:
        """Write ``transit`` with acks=-1 and apply it (``appendTransactionToLog``); a failed
        write or a lost coordinatorship drops it (``retry``: a failed write keeps it pending
        for the caller's next attempt) and raises KafkaError."""
        key = encode_txn_key(meta.transactional_id)
        value = (
            None
            if transit.state is S.DEAD
            else encode_txn_value(
                TxnLogValue(
                    transit.producer_id,
                    transit.producer_epoch,
                    transit.timeout_ms,
                    transit.state,
                    transit.partitions,
                    transit.last_update_ms,
                    transit.start_ms,
                )
            )
        )
        try:
            await self.topic.append(partition, key, value)
        except KafkaError as exc:
            if not retry:
                meta.abort_transition()
            log.info(
                "cannot write %s of %s to %s-%d: %s",
                transit.state.display_name,
                meta.transactional_id,
                TRANSACTION_STATE_TOPIC,
                partition,
                exc.error.name,
            )
            raise KafkaError(exc.error, exc.message) from None
        if (
            not self.still_owner(partition, epoch)
            or self.txns.get(partition, {}).get(meta.transactional_id) is not meta
        ):
            meta.abort_transition()
            raise KafkaError(ErrorCode.NOT_COORDINATOR)
        meta.complete_transition(transit)


class TxnLoad:
    """What one load of a ``__transaction_state`` partition has replayed so far, and the
    ``TransactionMetadata`` built from it. ``consume`` and ``build`` run in an executor
    thread, one job at a time awaited by the loader; the loader installs ``built`` on the
    loop once caught up."""

    def __init__(self, partition: int) -> None:
        self.partition = partition
        self.values: dict[str, TxnLogValue | None] = {}  # None: a tombstone
        self.built: dict[str, TransactionMetadata] = {}
        self.prepared: list[TransactionMetadata] = []  # of ``built``, in PrepareCommit/PrepareAbort
        self.stale = True  # records consumed since the last build
        self._dirty: dict[str, None] = {}  # ids changed since the last build, in log order

    def consume(self, data: memoryview, position: int) -> int:
        """Replay one chunk read at ``position``; returns the offset after its last batch."""
        records, nxt = scan_data_records(data, position)
        self.stale = True
        for offset, key, value in records:
            if key is None:
                continue
            try:
                txn_id = decode_txn_key(key)
                self.values[txn_id] = None if value is None else decode_txn_value(value)
                self._dirty[txn_id] = None
            except DecodeError as exc:
                log.warning(
                    "%s-%d offset %d: undecodable record skipped: %s",
                    TRANSACTION_STATE_TOPIC,
                    self.partition,
                    offset,
                    exc,
                )
        return nxt

    def build(self) -> None:
        """(Re)build the metadata of the ids whose records changed since the last build."""
        built = self.built
        for txn_id in self._dirty:
            v = self.values[txn_id]
            if v is None or v.state is S.DEAD:
                built.pop(txn_id, None)
                continue
            built[txn_id] = TransactionMetadata(
                txn_id,
                producer_id=v.producer_id,
                last_producer_id=v.previous_producer_id,
                producer_epoch=v.producer_epoch,
                last_producer_epoch=NO_PRODUCER_EPOCH,
                timeout_ms=v.timeout_ms,
                state=v.state,
                partitions=set(v.partitions),
                start_ms=v.start_ms,
                last_update_ms=v.last_update_ms,
            )
        self._dirty, self.stale = {}, False
        self.prepared = [m for m in built.values() if m.state in (S.PREPARE_COMMIT, S.PREPARE_ABORT)]
