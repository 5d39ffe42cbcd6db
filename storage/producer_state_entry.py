"""The state kept per producer id on one partition (Kafka's ``ProducerStateEntry``, with its
``BatchMetadata``, ``TxnMetadata``, ``CompletedTxn`` and ``VerificationStateEntry``).

``ProducerStateEntry`` holds a producer's epoch, its last batches (``BatchMetadata``, at most
the window; Kafka's NUM_BATCHES_TO_RETAIN = 5), its last timestamp and its transactional
fields, plus ``run_length``: the sequences known to be written, unbroken, in the current epoch,
which bound the certain duplicates answered DUPLICATE_SEQUENCE_NUMBER (the bound is explained
in ``storage.producer_state``'s module docstring). ``storage.producer_state.ProducerStateManager``
keeps these per partition and applies the append checks; ``storage.producer_snapshot``
persists them.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from protocol.record_batch import INT32_MAX, decrement_sequence

NUM_BATCHES_TO_RETAIN = 5  # Kafka's ProducerStateEntry.NUM_BATCHES_TO_RETAIN
NO_PRODUCER_EPOCH = -1
NO_SEQUENCE = -1
SEQUENCE_SPACE = INT32_MAX + 1  # sequences wrap from 2147483647 to 0
DUPLICATE_SEARCH_BOUND = SEQUENCE_SPACE // 2


class BatchMetadata(NamedTuple):
    """One appended batch of a producer (Kafka's BatchMetadata)."""

    last_seq: int
    last_offset: int
    offset_delta: int
    timestamp: int

    @property
    def first_seq(self) -> int:
        return decrement_sequence(self.last_seq, self.offset_delta)

    @property
    def first_offset(self) -> int:
        return self.last_offset - self.offset_delta


class CompletedTxn(NamedTuple):
    """A transaction a COMMIT or ABORT marker ended (Kafka's ``CompletedTxn``): its first data
    offset and the marker's offset."""

    producer_id: int
    first_offset: int
    last_offset: int
    is_aborted: bool


class TxnMetadata:
    """An open transaction (Kafka's ``TxnMetadata``); ``last_offset`` is set once its marker is
    appended, while it waits for the high watermark to pass the marker."""

    __slots__ = ("first_offset", "last_offset", "producer_id")

    def __init__(self, producer_id: int, first_offset: int, last_offset: int = -1) -> None:
        self.producer_id = producer_id
        self.first_offset = first_offset
        self.last_offset = last_offset

    def __repr__(self) -> str:
        return (
            f"TxnMetadata(producer_id={self.producer_id}, first={self.first_offset}, last={self.last_offset})"
        )


class ProducerStateEntry:
    """The state of one producer id on this partition (Kafka's ProducerStateEntry)."""

    __slots__ = (
        "batch_metadata",
        "coordinator_epoch",
        "current_txn_first_offset",
        "last_timestamp",
        "producer_epoch",
        "producer_id",
        "run_length",
    )

    def __init__(
        self,
        producer_id: int,
        producer_epoch: int = NO_PRODUCER_EPOCH,
        *,
        coordinator_epoch: int = -1,
        last_timestamp: int = -1,
        current_txn_first_offset: int = -1,
        batches: Iterable[BatchMetadata] = (),
        window: int = NUM_BATCHES_TO_RETAIN,
        run_length: int = 0,
    ) -> None:
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch
        self.coordinator_epoch = coordinator_epoch
        self.last_timestamp = last_timestamp
        # first offset of the ongoing transaction, -1 when there is none (as in the snapshot)
        self.current_txn_first_offset = current_txn_first_offset
        self.batch_metadata: deque[BatchMetadata] = deque(batches, maxlen=window)
        # sequences known to be written, unbroken, in this epoch, ending at last_seq
        self.run_length = run_length

    def __repr__(self) -> str:
        return (
            f"ProducerStateEntry(producer_id={self.producer_id}, epoch={self.producer_epoch}, "
            f"batches={list(self.batch_metadata)}, last_timestamp={self.last_timestamp}, "
            f"coordinator_epoch={self.coordinator_epoch}, "
            f"current_txn_first_offset={self.current_txn_first_offset})"
        )

    @property
    def is_empty(self) -> bool:
        return not self.batch_metadata

    @property
    def first_seq(self) -> int:
        return self.batch_metadata[0].first_seq if self.batch_metadata else NO_SEQUENCE

    @property
    def last_seq(self) -> int:
        return self.batch_metadata[-1].last_seq if self.batch_metadata else NO_SEQUENCE

    @property
    def last_data_offset(self) -> int:
        return self.batch_metadata[-1].last_offset if self.batch_metadata else -1

    @property
    def last_offset_delta(self) -> int:
        return self.batch_metadata[-1].offset_delta if self.batch_metadata else 0

    @property
    def has_ongoing_txn(self) -> bool:
        return self.current_txn_first_offset >= 0

    def batch_with_sequence_range(self, first_seq: int, last_seq: int) -> BatchMetadata | None:
        """The cached batch with exactly this sequence range (Kafka's findDuplicateBatch)."""
        for batch in self.batch_metadata:
            if batch.last_seq == last_seq and batch.first_seq == first_seq:
                return batch
        return None

    def is_certain_duplicate(self, first_seq: int, last_seq: int) -> bool:
        """True iff [first_seq, last_seq] lies wholly in the run written before the oldest cached batch.

        See ``storage.producer_state``'s module docstring for the bound.
        """
        if not self.batch_metadata:
            return False
        oldest_first = self.batch_metadata[0].first_seq
        window_span = (self.last_seq - oldest_first) % SEQUENCE_SPACE + 1
        known_before = min(self.run_length - window_span, DUPLICATE_SEARCH_BOUND)
        if known_before <= 0:
            return False
        d_last = (oldest_first - last_seq) % SEQUENCE_SPACE
        d_first = (oldest_first - first_seq) % SEQUENCE_SPACE
        return 1 <= d_last <= d_first <= known_before

    def maybe_update_producer_epoch(self, producer_epoch: int) -> bool:
        """A different epoch clears the cached batches (Kafka's maybeUpdateProducerEpoch)."""
        if self.producer_epoch != producer_epoch:
            self.batch_metadata.clear()
            self.producer_epoch = producer_epoch
            self.run_length = 0
            return True
        return False


@dataclass(slots=True, eq=False)
class VerificationState:
    """A transaction verification in progress for one producer (Kafka's
    ``VerificationStateEntry``); the object itself is the guard a verified batch holds."""

    timestamp_ms: int
    lowest_sequence: int
    epoch: int

    def update_lowest_sequence(self, sequence: int, epoch: int) -> None:
        """``maybeUpdateLowestSequenceAndEpoch``."""
        if epoch > self.epoch:
            self.epoch, self.lowest_sequence = epoch, sequence
        elif epoch == self.epoch and sequence < self.lowest_sequence:
            self.lowest_sequence = sequence
