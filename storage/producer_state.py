"""Idempotent producer state of one partition (Kafka's ProducerStateManager and friends).

Per producer id the broker keeps a ``ProducerStateEntry``: the epoch, the last batches
appended (``BatchMetadata``, at most ``batch_window``; Kafka's NUM_BATCHES_TO_RETAIN = 5),
the last timestamp and the transactional fields. Before a client batch is appended,
``check_append`` applies Kafka's rules in Kafka's order (UnifiedLog.analyzeAndValidateProducerState,
ProducerAppendInfo.checkProducerEpoch / checkSequence):

1. duplicate: same epoch and exactly the (first, last) sequence of a cached batch -> that
   BatchMetadata is returned; nothing is appended and the client is answered NONE with the
   original batch's first offset and timestamp;
2. stale epoch -> INVALID_PRODUCER_EPOCH (REPLICATION only logs a warning);
3. sequence (CLIENT only): a new epoch must start at sequence 0 (KIP-360) unless no state is
   known; within an epoch the first sequence must follow the last one, wrapping from
   2147483647 to 0 -> else OUT_OF_ORDER_SEQUENCE_NUMBER. A producer with no state (new,
   expired, truncated away) is accepted at any sequence.

Improvement over Kafka (``duplicate_sequence_error``, on by default): a batch of the current
epoch whose whole sequence range lies before the oldest cached batch was certainly written
already, so it is answered DUPLICATE_SEQUENCE_NUMBER (46) instead of 45. Every client treats
46 as success with an unknown offset (Java Sender.completeBatch, librdkafka
rd_kafka_handle_idempotent_Produce_error, kafka-python Sender._complete_batch, aiokafka
SendProduceReqHandler.handle_response), where 45 would make them bump the epoch and write the
batch a second time. The bound that makes "before" certain:

- Within one epoch the broker only appends in sequence, so the sequences written form one
  unbroken run ending at the entry's last sequence. The entry counts that run
  (``run_length``): a new epoch or a producer with no state starts it at the batch's size;
  every in-sequence batch extends it; a batch that does not follow (only possible when the
  state was lost, or in replay) restarts it. Entries rebuilt from the log (loaded from a
  snapshot, or first seen in the replayed batches) assume the run started at sequence 0 of
  the epoch on this partition, as every client numbers each partition from 0 in each epoch.
  That assumption is wrong only if this epoch was once accepted without state in the middle
  of a gap (KIP-360) and a retry later lands in that gap after a restart.
- A batch is a certain duplicate iff, going back from the first sequence F of the oldest
  cached batch, its last and first sequences lie at distances d_last and d_first (modulo 2^31,
  so the wrap is handled) with 1 <= d_last <= d_first <= min(run_length - window span, 2^30).
  2^30, half the sequence space, is where "before" stops being distinguishable from a gap
  after the last sequence (serial number arithmetic, RFC 1982).

Transactions (Kafka's ProducerAppendInfo / ProducerStateManager): the first transactional
batch of a producer opens its transaction at that batch's offset (``current_txn_first_offset``,
and an entry of the open transactions, kept oldest first); a COMMIT or ABORT marker (a
control batch, appended by the coordinator) ends it, after two checks: the producer epoch
(INVALID_PRODUCER_EPOCH below the current one) and the coordinator epoch (a marker of a lower
coordinator epoch than the last one seen is TRANSACTION_COORDINATOR_FENCED); replication only
warns. An ended transaction keeps holding the last stable offset back until the high
watermark passes its marker (``on_high_watermark_updated``, Kafka's unreplicatedTxns);
``first_unstable_offset`` is the oldest of both. The partition log records aborted ones in the
``.txnindex`` (``storage.transaction_index``) with ``last_stable_offset_for``. A marker of a
transaction without data completes nothing (Kafka: it changes neither LSO nor index).

Snapshots are Kafka's ``<20-digit offset>.snapshot`` files holding the last batch of each
producer; their format is ``storage.producer_snapshot``. The per-producer types
(``ProducerStateEntry``, ``BatchMetadata``, ``TxnMetadata``, ``CompletedTxn``,
``VerificationState``) are ``storage.producer_state_entry``.

Durability, as Kafka's ``takeSnapshot(sync)``: the snapshot a segment roll takes on the event
loop is written without fsync (``take_snapshot(sync=False)``, Kafka's ``UnifiedLog.roll`` ->
``takeSnapshot(false)``); ``sync_snapshots`` fsyncs it and the directory later, off the loop,
with the next flush of the log (Kafka's ``flushProducerStateSnapshot`` in the scheduled
``flush-log`` task). A crash before that may leave it missing or torn: ``load`` then deletes it
and uses an older snapshot or the log start, replaying the log from there. Other snapshots
(clean shutdown) are fsynced before ``take_snapshot`` returns.

Which snapshots are kept, as Kafka's: one per segment base (every roll takes one), so that
recovery from any recovery point finds the snapshot at the base of the first segment it
recovers (Kafka's ``LogLoader.recoverSegment``), plus the clean shutdown's at the log end.
They go with their segments: below the first segment retention kept
(``remove_snapshots_below``: the log renames them ``.deleted`` with the segments, off the loop,
as Kafka's ``deleteSegments`` -> ``removeAndMarkSnapshotForDeletion``; a log start offset moved
by DeleteRecords alone, ``truncate_head``, only changes memory, as Kafka's
``onLogStartOffsetIncremented``), above a truncation's end (``load``), the bases of segments
the cleaner merged away (``delete_snapshots``), and at load every snapshot that is not at a
segment base except the newest one above them all (``load(segment_bases=...)``, Kafka's
``removeStraySnapshots``), or at or below the log start offset. The offsets are kept in memory:
no listing after the load.

Knowingly different from Kafka: snapshots are written to a temporary file and renamed (Kafka
writes in place); those of a truncation or a cleaning are deleted at once (Kafka renames them
``.deleted`` first).
"""

from __future__ import annotations

import itertools
import logging
import os
import threading
import time
from collections.abc import Callable, Collection, Iterable, Mapping
from enum import Enum
from pathlib import Path
from types import MappingProxyType

from protocol.control_records import ControlRecordType, EndTransactionMarker
from protocol.errors import ErrorCode, KafkaError
from protocol.record_batch import (
    CONTROL_MASK,
    INT32_MAX,
    TRANSACTIONAL_MASK,
    BatchHeader,
    increment_sequence,
)
from storage.durable_io import fsync_dir, fsync_file_if_exists
from storage.producer_snapshot import (
    SNAPSHOT_SUFFIX,
    CorruptSnapshotError,
    decode_snapshot,
    snapshot_file_name,
    write_snapshot_file,
)
from storage.producer_state_entry import (
    NO_PRODUCER_EPOCH,
    NO_SEQUENCE,
    NUM_BATCHES_TO_RETAIN,
    SEQUENCE_SPACE,
    BatchMetadata,
    CompletedTxn,
    ProducerStateEntry,
    TxnMetadata,
    VerificationState,
)

log = logging.getLogger(__name__)


class AppendOrigin(Enum):
    """Who appends a batch (Kafka's ``AppendOrigin``); it sets how strict validation is.

    CLIENT: a produce request. REPLICATION: a follower copying the leader, or log
    replay on recovery (no sequence validation, stale epochs only warned about).
    COORDINATOR: the group or transaction coordinator writing its own records.
    """

    CLIENT = "client"
    REPLICATION = "replication"
    COORDINATOR = "coordinator"


def in_sequence(last_seq: int, next_seq: int) -> bool:
    """Kafka's ProducerAppendInfo.inSequence: next follows last, wrapping at INT32_MAX."""
    return next_seq == last_seq + 1 or (next_seq == 0 and last_seq == INT32_MAX)


def _wall_clock_ms() -> int:
    return int(time.time() * 1000)


class ProducerStateManager:
    """Producer id -> ProducerStateEntry for one partition, with its ``.snapshot`` files.

    Not thread-safe: like the rest of a partition it is used from the event loop only, except
    ``sync_snapshots``, which may run in an executor while the loop carries on.
    """

    def __init__(
        self,
        partition_dir: Path,
        *,
        producer_id_expiration_ms: int = 86_400_000,
        batch_window: int = NUM_BATCHES_TO_RETAIN,
        duplicate_sequence_error: bool = True,
        time_ms: Callable[[], int] = _wall_clock_ms,
        listing: Collection[str] | None = None,
    ) -> None:
        """``listing``: the names in ``partition_dir`` when the caller has just listed it."""
        if batch_window < 1:
            raise ValueError(f"producer.state.batch.window must be at least 1, not {batch_window}")
        self.partition_dir = Path(partition_dir)
        self.producer_id_expiration_ms = producer_id_expiration_ms
        self.batch_window = batch_window
        self.duplicate_sequence_error = duplicate_sequence_error
        self._time_ms = time_ms
        self._producers: dict[int, ProducerStateEntry] = {}
        # Kafka's ongoingTxns / unreplicatedTxns, keyed by first offset, oldest first: open
        # transactions, and ended ones whose marker the high watermark has not passed yet.
        # Transactions start in offset order, so insertion order is offset order (``load``
        # sorts what a snapshot gives).
        self._ongoing_txns: dict[int, TxnMetadata] = {}
        self._unreplicated_txns: dict[int, TxnMetadata] = {}
        # KIP-890 verification guards by producer id (Kafka's VerificationStateEntry).
        self._verification_states: dict[int, VerificationState] = {}
        self.map_end_offset = 0
        self._last_snap_offset = 0
        self._snapshots: dict[int, Path] = self._scan_snapshot_files(listing)
        # Snapshots written with sync=False and not yet fsynced, by write number. Shared with
        # sync_snapshots (an executor thread), hence the lock; it is never held during an fsync.
        self._unsynced: dict[int, Path] = {}
        self._unsynced_lock = threading.Lock()
        self._write_numbers = itertools.count()

    # ---------------------------------------------------------------------- append path

    def check_append(
        self, header: BatchHeader, origin: AppendOrigin, marker: EndTransactionMarker | None = None
    ) -> BatchMetadata | None:
        """Kafka's rules for one batch about to be appended (see the module docstring).

        Returns None to go ahead, or the cached BatchMetadata the batch duplicates. Raises
        KafkaError INVALID_PRODUCER_EPOCH, OUT_OF_ORDER_SEQUENCE_NUMBER,
        DUPLICATE_SEQUENCE_NUMBER or INVALID_TXN_STATE; for a transaction marker
        (``marker``, a control batch) INVALID_PRODUCER_EPOCH or TRANSACTION_COORDINATOR_FENCED.
        Batches without a producer id pass.
        """
        producer_id = header.producer_id
        if producer_id < 0:
            return None
        entry = self._producers.get(producer_id)
        attributes = header.attributes
        if (
            entry is not None
            and origin is AppendOrigin.CLIENT
            and not attributes & CONTROL_MASK
            and header.producer_epoch == entry.producer_epoch
            and entry.batch_metadata
            and header.base_sequence == entry.batch_metadata[-1].last_seq + 1
            and (entry.current_txn_first_offset < 0 or attributes & TRANSACTIONAL_MASK)
            and not self._verification_states
        ):
            # The next batch of the producer's run (the common case): the checks below with
            # their outcome known (its epoch is the current one, its sequence follows the
            # last, it keeps to its open transaction if it has one), but for a duplicate.
            return entry.batch_with_sequence_range(header.base_sequence, header.last_sequence)
        if attributes & CONTROL_MASK:
            self._check_end_txn_marker(entry, header, origin, marker)
            return None
        epoch = header.producer_epoch
        first_seq = header.base_sequence
        last_seq = header.last_sequence
        if entry is None:
            current_epoch = NO_PRODUCER_EPOCH
        else:
            current_epoch = entry.producer_epoch
            # UnifiedLog.analyzeAndValidateProducerState: duplicates first, client appends only.
            if origin is AppendOrigin.CLIENT and epoch == current_epoch:
                duplicate = entry.batch_with_sequence_range(first_seq, last_seq)
                if duplicate is not None:
                    return duplicate

        # ProducerAppendInfo.checkProducerEpoch (REPLICATION only warns, in update)
        if epoch < current_epoch and origin is not AppendOrigin.REPLICATION:
            raise KafkaError(
                ErrorCode.INVALID_PRODUCER_EPOCH,
                f"Epoch of producer {producer_id} is {epoch}, which is smaller than the last seen "
                f"epoch {current_epoch}",
            )

        if origin is AppendOrigin.CLIENT:
            self._check_sequence(entry, producer_id, epoch, current_epoch, first_seq, last_seq)
            if entry is not None and entry.has_ongoing_txn and not header.is_transactional:
                raise KafkaError(
                    ErrorCode.INVALID_TXN_STATE,
                    f"Non-transactional batch of producer {producer_id} while its transaction "
                    f"started at offset {entry.current_txn_first_offset} is open",
                )
        return None

    @staticmethod
    def _check_end_txn_marker(
        entry: ProducerStateEntry | None,
        header: BatchHeader,
        origin: AppendOrigin,
        marker: EndTransactionMarker | None,
    ) -> None:
        """ProducerAppendInfo.appendEndTxnMarker's checks: the producer epoch, then the
        coordinator epoch (a marker of an older coordinator is fenced). Replication only warns."""
        if entry is None or origin is AppendOrigin.REPLICATION:
            return
        if header.producer_epoch < entry.producer_epoch:
            raise KafkaError(
                ErrorCode.INVALID_PRODUCER_EPOCH,
                f"Epoch of producer {header.producer_id} is {header.producer_epoch}, which is smaller "
                f"than the last seen epoch {entry.producer_epoch}",
            )
        if marker is not None and entry.coordinator_epoch > marker.coordinator_epoch:
            raise KafkaError(
                ErrorCode.TRANSACTION_COORDINATOR_FENCED,
                f"Invalid coordinator epoch for producer {header.producer_id}: "
                f"{marker.coordinator_epoch} (zombie), {entry.coordinator_epoch} (current)",
            )

    def _check_sequence(
        self,
        entry: ProducerStateEntry | None,
        producer_id: int,
        epoch: int,
        current_epoch: int,
        first_seq: int,
        last_seq: int,
    ) -> None:
        """ProducerAppendInfo.checkSequence."""
        verification = self._verification_states.get(producer_id)
        if verification is not None and first_seq > verification.lowest_sequence:
            # A lower sequence of this producer is still being verified (or failed to be, and
            # will be retried): writing this one first would make that retry out of order
            # for good (Kafka's VerificationStateEntry.lowestSequence).
            raise KafkaError(
                ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
                f"Out of order sequence number for producer {producer_id}: {first_seq} (incoming seq. "
                f"number), {verification.lowest_sequence} (earliest seen sequence)",
            )
        if epoch != current_epoch:
            if first_seq != 0 and current_epoch != NO_PRODUCER_EPOCH:
                raise KafkaError(
                    ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
                    f"Invalid sequence number for new epoch of producer {producer_id}: {epoch} "
                    f"(request epoch), {first_seq} (seq. number), {current_epoch} (current producer epoch)",
                )
            return
        current_last_seq = entry.last_seq if entry is not None else NO_SEQUENCE
        # No epoch known (state lost to retention or DeleteRecords): any sequence is fine.
        if current_epoch == NO_PRODUCER_EPOCH or in_sequence(current_last_seq, first_seq):
            return
        if (
            self.duplicate_sequence_error
            and entry is not None
            and entry.is_certain_duplicate(first_seq, last_seq)
        ):
            raise KafkaError(
                ErrorCode.DUPLICATE_SEQUENCE_NUMBER,
                f"Batch [{first_seq}, {last_seq}] of producer {producer_id} epoch {epoch} was already "
                f"written before the oldest cached batch (first sequence {entry.first_seq})",
            )
        raise KafkaError(
            ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
            f"Out of order sequence number for producer {producer_id}: {first_seq} (incoming seq. "
            f"number), {current_last_seq} (current end sequence number)",
        )

    def update(
        self,
        header: BatchHeader,
        first_offset: int,
        timestamp: int,
        origin: AppendOrigin,
        marker: EndTransactionMarker | None = None,
    ) -> CompletedTxn | None:
        """Record a batch written at ``first_offset`` (ProducerAppendInfo.append + update).

        ``timestamp`` is the batch max timestamp as written (the log append time on
        LogAppendTime topics). For a control batch ``marker`` is its COMMIT / ABORT marker
        (None for an emptied or unknown control batch); the transaction it ends is returned
        (Kafka's ``CompletedTxn``, only for a transaction that had data) and moves from the
        open transactions to those waiting for the high watermark (``complete_txn``).
        Never raises: validation is ``check_append``.
        """
        producer_id = header.producer_id
        if producer_id < 0:
            return None
        last_offset = first_offset + header.last_offset_delta
        if last_offset + 1 > self.map_end_offset:
            self.map_end_offset = last_offset + 1
        entry = self._producers.get(producer_id)
        first_sight = entry is None
        if entry is None:
            entry = ProducerStateEntry(producer_id, window=self.batch_window)
            self._producers[producer_id] = entry
        epoch = header.producer_epoch
        if epoch < entry.producer_epoch:
            # Kafka's checkProducerEpoch for REPLICATION; the entry takes the batch's epoch anyway.
            log.warning(
                "Epoch of producer %d is %d at offset %d, smaller than the last seen epoch %d",
                producer_id,
                epoch,
                first_offset,
                entry.producer_epoch,
            )

        if header.is_control:
            if marker is None:
                # An emptied control batch: its transaction was cleaned away (Kafka: no-op).
                return None
            # ProducerAppendInfo.appendEndTxnMarker: no batch metadata; only a transaction
            # that had data is completed (an empty one changes neither LSO nor .txnindex).
            completed = None
            if entry.has_ongoing_txn:
                completed = CompletedTxn(
                    producer_id,
                    entry.current_txn_first_offset,
                    first_offset,
                    marker.control_type is ControlRecordType.ABORT,
                )
            # A marker ends what a pending verification was about.
            self._verification_states.pop(producer_id, None)
            entry.maybe_update_producer_epoch(epoch)
            entry.coordinator_epoch = marker.coordinator_epoch
            entry.current_txn_first_offset = -1
            entry.last_timestamp = timestamp
            if completed is not None:
                self.complete_txn(completed)
            return completed

        first_seq = header.base_sequence
        offset_delta = header.last_offset_delta
        count = offset_delta + 1
        batches = entry.batch_metadata
        continues = entry.producer_epoch == epoch and batches and in_sequence(batches[-1].last_seq, first_seq)
        if continues:
            run = entry.run_length + count
        elif first_sight and origin is not AppendOrigin.CLIENT:
            run = header.last_sequence + 1  # first seen while rebuilding from the log: assume it began at 0
        else:
            run = count  # a new epoch, a producer accepted without state, or a gap: only this batch is known
        if not continues:
            entry.maybe_update_producer_epoch(epoch)
        # BatchHeader.last_sequence, inline
        last_seq = NO_SEQUENCE if first_seq == NO_SEQUENCE else increment_sequence(first_seq, offset_delta)
        batches.append(BatchMetadata(last_seq, last_offset, offset_delta, timestamp))
        entry.run_length = run if run < SEQUENCE_SPACE else SEQUENCE_SPACE
        entry.last_timestamp = timestamp
        if header.attributes & TRANSACTIONAL_MASK and entry.current_txn_first_offset < 0:
            entry.current_txn_first_offset = first_offset
            self._ongoing_txns[first_offset] = TxnMetadata(producer_id, first_offset)
            self._verification_states.pop(producer_id, None)
        return None

    # ------------------------------------------------------------------ transactions

    def start_verification(self, producer_id: int, producer_epoch: int, base_sequence: int) -> object | None:
        """KIP-890: a guard to hold while the coordinator is asked whether this partition is in
        the producer's transaction; None when no verification is needed (its transaction of
        this epoch is open here already). Kafka's ``maybeStartTransactionVerification`` /
        ``maybeCreateVerificationStateEntry``: the lowest sequence seen meanwhile is kept, and
        a later batch of the producer above it is refused until a transactional batch lands."""
        entry = self._producers.get(producer_id)
        if entry is not None and entry.has_ongoing_txn and entry.producer_epoch == producer_epoch:
            return None
        state = self._verification_states.get(producer_id)
        if state is None:
            state = VerificationState(self._time_ms(), base_sequence, producer_epoch)
            self._verification_states[producer_id] = state
        else:
            state.update_lowest_sequence(base_sequence, producer_epoch)
        return state

    def verification_guard_valid(self, producer_id: int, guard: object) -> bool:
        """Whether a verified batch may still be appended: its producer's transaction is open
        (another batch opened it meanwhile) or no marker invalidated the guard."""
        entry = self._producers.get(producer_id)
        if entry is not None and entry.has_ongoing_txn:
            return True
        return self._verification_states.get(producer_id) is guard

    def complete_txn(self, completed: CompletedTxn) -> None:
        """Kafka's ``completeTxn``: the transaction waits for the high watermark to pass its
        marker before it stops holding the last stable offset back."""
        txn = self._ongoing_txns.pop(completed.first_offset, None)
        if txn is None:
            log.warning("%s: completed transaction %s was not open", self.partition_dir.name, completed)
            return
        txn.last_offset = completed.last_offset
        self._unreplicated_txns[completed.first_offset] = txn

    def last_stable_offset_for(self, completed: CompletedTxn) -> int:
        """The LSO to record with an aborted transaction in ``.txnindex`` (Kafka's
        ``lastStableOffset(completedTxn)``): the first offset of the oldest other open
        transaction, else the offset after the marker."""
        for txn in self._ongoing_txns.values():
            if txn.producer_id != completed.producer_id:
                return txn.first_offset
        return completed.last_offset + 1

    def on_high_watermark_updated(self, high_watermark: int) -> None:
        """Kafka's ``onHighWatermarkUpdated``: ended transactions whose marker is below the
        high watermark no longer count."""
        unreplicated = self._unreplicated_txns
        while unreplicated:
            first = next(iter(unreplicated))
            if unreplicated[first].last_offset >= high_watermark:
                break
            del unreplicated[first]

    def first_unstable_offset(self) -> int | None:
        """The first offset of the oldest open (or not yet replicated) transaction, None if none
        (Kafka's ``firstUnstableOffset``)."""
        first = None
        if self._unreplicated_txns:
            # Kept in marker order (``on_high_watermark_updated`` stops at the first marker
            # still above the high watermark), so the oldest first offset is the smallest key
            # (Kafka's unreplicatedTxns is a TreeMap by first offset: its firstEntry).
            first = min(self._unreplicated_txns)
        if self._ongoing_txns:
            ongoing = next(iter(self._ongoing_txns))
            first = ongoing if first is None else min(first, ongoing)
        return first

    def ongoing_txns(self) -> list[TxnMetadata]:
        """The open transactions, oldest first."""
        return list(self._ongoing_txns.values())

    def _reset_txns_from_entries(self) -> None:
        txns = sorted(
            (e.current_txn_first_offset, e.producer_id) for e in self._producers.values() if e.has_ongoing_txn
        )
        self._ongoing_txns = {first: TxnMetadata(pid, first) for first, pid in txns}
        self._unreplicated_txns = {}

    def update_map_end_offset(self, offset: int) -> None:
        """The offset up to which the state reflects the log (the next snapshot's name)."""
        self.map_end_offset = offset

    def last_entry(self, producer_id: int) -> ProducerStateEntry | None:
        return self._producers.get(producer_id)

    def active_producers(self) -> Mapping[int, ProducerStateEntry]:
        """Producer id -> entry, read-only (DescribeProducers)."""
        return MappingProxyType(self._producers)

    def remove_expired_producers(self, now_ms: int) -> None:
        """Drop producers silent for producer.id.expiration.ms that have no open transaction."""
        expired = [pid for pid, e in self._producers.items() if self._is_expired(e, now_ms)]
        for pid in expired:
            del self._producers[pid]
            self._verification_states.pop(pid, None)
        # Verifications of producers that never appended here expire too (a refused or
        # abandoned transaction), or their states would pile up.
        stale = [
            pid
            for pid, v in self._verification_states.items()
            if now_ms - v.timestamp_ms >= self.producer_id_expiration_ms
        ]
        for pid in stale:
            del self._verification_states[pid]
        if expired:
            log.debug("Expired %d producer ids in %s", len(expired), self.partition_dir)

    def _is_expired(self, entry: ProducerStateEntry, now_ms: int) -> bool:
        return not entry.has_ongoing_txn and now_ms - entry.last_timestamp >= self.producer_id_expiration_ms

    # ------------------------------------------------------------------------ lifecycle

    def load(
        self,
        log_start_offset: int,
        log_end_offset: int,
        *,
        listing: Collection[str] | None = None,
        segment_bases: Collection[int] | None = None,
    ) -> int:
        """Reload from the newest valid snapshot in (log_start_offset, log_end_offset].

        Kafka's truncateAndReload + loadFromSnapshot: snapshots outside that range are
        deleted, a corrupt one is deleted and the next older one tried, expired producers are
        dropped. Returns the offset from which the caller must replay batches through
        ``update(..., REPLICATION)`` (the snapshot's offset, else the log start offset).
        ``listing``: the names in the partition directory when the caller has just listed it.
        ``segment_bases`` (the log's load): the snapshots at none of these offsets are deleted
        first, except the newest if it lies above them all (Kafka's ``removeStraySnapshots``:
        the clean shutdown's snapshot at the log end).
        """
        self._producers.clear()
        self._snapshots = self._scan_snapshot_files(listing)
        if segment_bases is not None:
            self._remove_stray_snapshots(segment_bases)
        for offset in list(self._snapshots):
            if offset > log_end_offset or offset <= log_start_offset:
                self._delete_snapshot(offset)
        now = self._time_ms()
        while self._snapshots:
            offset = max(self._snapshots)
            path = self._snapshots[offset]
            try:
                log.info("Loading producer state from snapshot file '%s'", path)
                entries = decode_snapshot(path.read_bytes(), window=self.batch_window)
            except (CorruptSnapshotError, OSError) as exc:
                log.warning("Failed to load producer snapshot from '%s': %s", path, exc)
                self._delete_snapshot(offset)
                continue
            for entry in entries:
                if not self._is_expired(entry, now):
                    self._producers[entry.producer_id] = entry
            # Kafka's loadProducerEntry: a snapshot's CurrentTxnFirstOffset is an open transaction.
            self._reset_txns_from_entries()
            self.map_end_offset = self._last_snap_offset = offset
            return offset
        self._reset_txns_from_entries()
        self.map_end_offset = self._last_snap_offset = log_start_offset
        return log_start_offset

    def take_snapshot(self, *, sync: bool = True) -> Path | None:
        """Write ``<map_end_offset>.snapshot`` unless one at that offset or later exists.

        Without ``sync`` (a segment roll on the event loop, Kafka's ``takeSnapshot(false)``)
        nothing is fsynced here; the file is remembered for the next ``sync_snapshots``.
        """
        if self.map_end_offset <= self._last_snap_offset:
            return None
        offset = self.map_end_offset
        path = self.partition_dir / snapshot_file_name(offset)
        start = time.monotonic()
        write_snapshot_file(path, self._producers.values(), sync=sync)
        if not sync:
            with self._unsynced_lock:
                self._unsynced[next(self._write_numbers)] = path
        log.info(
            "Wrote producer snapshot at offset %d with %d producer ids in %d ms.",
            offset,
            len(self._producers),
            (time.monotonic() - start) * 1000,
        )
        self._snapshots[offset] = path
        self._last_snap_offset = offset
        return path

    @property
    def has_unsynced_snapshots(self) -> bool:
        """Whether a snapshot written with ``sync=False`` still waits for ``sync_snapshots``."""
        return bool(self._unsynced)

    def sync_snapshots(self) -> int:
        """fsync the snapshots written with ``sync=False``, then the directory; returns how many.

        Kafka's ``flushProducerStateSnapshot``. Safe from an executor thread while the loop
        writes or deletes snapshots: files are opened by path (one deleted meanwhile is
        skipped), and only the snapshots seen at the start are marked synced, after the
        directory fsync. If an fsync raises, they stay pending for the next call.
        """
        with self._unsynced_lock:
            pending = dict(self._unsynced)
        if not pending:
            return 0
        for path in pending.values():
            fsync_file_if_exists(path)
        fsync_dir(self.partition_dir, best_effort=True)
        with self._unsynced_lock:
            for number in pending:
                self._unsynced.pop(number, None)
        return len(pending)

    def truncate_head(self, new_log_start_offset: int) -> None:
        """The log start moved (retention, DeleteRecords), in memory only (Kafka's
        ``onLogStartOffsetIncremented``): the in-memory producers are kept (KIP-360), and so
        are the snapshot files below it, until their segments go (``remove_snapshots_below``).
        """
        # Kafka's onLogStartOffsetIncremented: ended transactions below the start are gone.
        self._unreplicated_txns = {
            first: txn
            for first, txn in self._unreplicated_txns.items()
            if txn.last_offset >= new_log_start_offset
        }
        if self.map_end_offset < new_log_start_offset:
            self.map_end_offset = new_log_start_offset
        self._last_snap_offset = max(self._snapshots, default=new_log_start_offset)

    def truncate_fully_and_start_at(self, offset: int) -> None:
        """Forget every producer and snapshot; the log restarts at ``offset``."""
        self._producers.clear()
        self._ongoing_txns = {}
        self._unreplicated_txns = {}
        self._verification_states = {}
        for snap in list(self._snapshots):
            self._delete_snapshot(snap)
        self._last_snap_offset = 0
        self.map_end_offset = offset

    def remove_snapshots_below(self, offset: int) -> list[Path]:
        """Forget the snapshots below ``offset`` (the first segment retention kept) and return
        their paths: the caller renames them ``.deleted`` with the segments, off the loop
        (Kafka's ``removeAndMarkSnapshotForDeletion`` of ``deleteProducerSnapshots``)."""
        gone = [o for o in self._snapshots if o < offset]
        return [self._snapshots.pop(o) for o in gone]

    def delete_snapshots(self, offsets: Iterable[int]) -> None:
        """Delete the snapshots at ``offsets`` (the bases of segments the cleaner merged into
        another one: Kafka's ``deleteProducerSnapshots`` of ``replaceSegments``)."""
        for offset in offsets:
            self._delete_snapshot(offset)

    def _remove_stray_snapshots(self, segment_bases: Collection[int]) -> None:
        """Kafka's ``removeStraySnapshots``: a snapshot at no segment base goes, unless it is
        the newest one and lies above every base."""
        bases = set(segment_bases)
        strays = sorted(o for o in self._snapshots if o not in bases)
        if strays and (not bases or strays[-1] > max(bases)):
            strays.pop()
        for offset in strays:
            log.debug("Deleting producer snapshot %s: no segment starts there", self._snapshots[offset])
            self._delete_snapshot(offset)

    def snapshot_offsets(self) -> list[int]:
        """Offsets of the snapshot files, oldest first."""
        return sorted(self._snapshots)

    def _scan_snapshot_files(self, listing: Collection[str] | None = None) -> dict[int, Path]:
        found: dict[int, Path] = {}
        if listing is not None:
            # The caller's listing (a start loads partitions by the thousand): only the
            # snapshot names are checked to be files.
            entries = [(name, None) for name in listing]
        else:
            try:
                # One scandir (no stat per entry).
                with os.scandir(self.partition_dir) as scan:
                    entries = [(e.name, e.is_file()) for e in scan]
            except (FileNotFoundError, NotADirectoryError):
                return found
        for name, is_file in entries:
            if name.endswith(SNAPSHOT_SUFFIX + ".tmp"):
                (self.partition_dir / name).unlink(missing_ok=True)  # a write cut by a crash
                continue
            if not name.endswith(SNAPSHOT_SUFFIX):
                continue
            path = self.partition_dir / name
            if not (is_file if is_file is not None else path.is_file()):
                continue
            stem = name[: -len(SNAPSHOT_SUFFIX)]
            if not stem.isdigit():
                log.warning("Ignoring '%s': not an offset-named producer snapshot", path)
                continue
            found[int(stem)] = path
        return found

    def _delete_snapshot(self, offset: int) -> None:
        path = self._snapshots.pop(offset, None)
        if path is not None:
            path.unlink(missing_ok=True)
