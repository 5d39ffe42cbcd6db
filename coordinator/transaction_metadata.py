"""One transactional id's state and its transitions (Kafka's ``TransactionMetadata``).

A transactional id maps to a producer id and epoch, a timeout, the partitions of its
current transaction and a state of Kafka's state machine::

    Empty -> Ongoing -> PrepareCommit -> CompleteCommit -> (Ongoing | Empty by re-init)
                     -> PrepareAbort  -> CompleteAbort  -> ...
    Ongoing -> PrepareEpochFence (re-init or timeout, in memory only) -> PrepareAbort
    Empty | CompleteCommit | CompleteAbort -> Dead (transactional id expired)

Every change is first prepared (``prepare_*`` returns a ``TxnTransit``, the metadata only
records it as ``pending``), written to ``__transaction_state``, and applied by
``complete_transition`` once the write is durable; a failed write drops the pending
transition (``abort_transition``). While a transition is pending the id answers
CONCURRENT_TRANSACTIONS (Kafka's ``pendingTransitionInProgress``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

from protocol.errors import ErrorCode

NO_PRODUCER_ID = -1
NO_PRODUCER_EPOCH = -1
MAX_PRODUCER_EPOCH = (1 << 15) - 1  # Short.MaxValue

TopicPartition = tuple[str, int]


class TxnState(IntEnum):
    """Kafka's ``TransactionState`` with the ids written as TransactionStatus."""

    EMPTY = 0
    ONGOING = 1
    PREPARE_COMMIT = 2
    PREPARE_ABORT = 3
    COMPLETE_COMMIT = 4
    COMPLETE_ABORT = 5
    DEAD = 6
    PREPARE_EPOCH_FENCE = 7

    @property
    def display_name(self) -> str:
        """The name DescribeTransactions and ListTransactions show (``TransactionState.name``)."""
        return _NAMES[self]

    @classmethod
    def from_name(cls, name: str) -> TxnState | None:
        return _BY_NAME.get(name)


_NAMES = {
    TxnState.EMPTY: "Empty",
    TxnState.ONGOING: "Ongoing",
    TxnState.PREPARE_COMMIT: "PrepareCommit",
    TxnState.PREPARE_ABORT: "PrepareAbort",
    TxnState.COMPLETE_COMMIT: "CompleteCommit",
    TxnState.COMPLETE_ABORT: "CompleteAbort",
    TxnState.DEAD: "Dead",
    TxnState.PREPARE_EPOCH_FENCE: "PrepareEpochFence",
}
_BY_NAME = {v: k for k, v in _NAMES.items()}

S = TxnState

# TransactionState.validPreviousStates
_VALID_PREVIOUS: dict[TxnState, frozenset[TxnState]] = {
    S.EMPTY: frozenset({S.EMPTY, S.COMPLETE_COMMIT, S.COMPLETE_ABORT}),
    S.ONGOING: frozenset({S.ONGOING, S.EMPTY, S.COMPLETE_COMMIT, S.COMPLETE_ABORT}),
    S.PREPARE_COMMIT: frozenset({S.ONGOING}),
    S.PREPARE_ABORT: frozenset({S.ONGOING, S.PREPARE_EPOCH_FENCE}),
    S.COMPLETE_COMMIT: frozenset({S.PREPARE_COMMIT}),
    S.COMPLETE_ABORT: frozenset({S.PREPARE_ABORT}),
    S.DEAD: frozenset({S.EMPTY, S.COMPLETE_COMMIT, S.COMPLETE_ABORT}),
    S.PREPARE_EPOCH_FENCE: frozenset({S.ONGOING}),
}


def is_epoch_exhausted(epoch: int) -> bool:
    """``TransactionMetadata.isEpochExhausted``: one epoch is kept for fencing."""
    return epoch >= MAX_PRODUCER_EPOCH - 1


@dataclass(frozen=True, slots=True)
class TxnTransit:
    """A prepared state, what is written to ``__transaction_state`` (``TxnTransitMetadata``)."""

    producer_id: int
    last_producer_id: int
    producer_epoch: int
    last_producer_epoch: int
    timeout_ms: int
    state: TxnState
    partitions: frozenset[TopicPartition]
    start_ms: int
    last_update_ms: int


class TransactionError(Exception):
    """A request the state machine refuses, with the error code to answer."""

    def __init__(self, error: ErrorCode, message: str = "") -> None:
        super().__init__(message or error.name)
        self.error = error


@dataclass(slots=True)
class TransactionMetadata:
    transactional_id: str
    producer_id: int
    last_producer_id: int
    producer_epoch: int
    last_producer_epoch: int
    timeout_ms: int
    state: TxnState
    partitions: set[TopicPartition] = field(default_factory=set)
    start_ms: int = -1
    last_update_ms: int = -1
    pending: TxnState | None = None
    # An epoch fence whose write failed: the epoch was bumped but never returned, so the
    # next fence keeps it (Kafka's hasFailedEpochFence).
    failed_epoch_fence: bool = False

    @property
    def pending_in_progress(self) -> bool:
        return self.pending is not None

    @property
    def epoch_exhausted(self) -> bool:
        return is_epoch_exhausted(self.producer_epoch)

    def _transit(
        self,
        state: TxnState,
        *,
        producer_id: int | None = None,
        last_producer_id: int | None = None,
        epoch: int | None = None,
        last_epoch: int | None = None,
        timeout_ms: int | None = None,
        partitions: frozenset[TopicPartition] | None = None,
        start_ms: int | None = None,
        now_ms: int,
    ) -> TxnTransit:
        """``prepareTransitionTo``: check the transition, record it as pending."""
        if self.pending is not None:
            raise TransactionError(ErrorCode.CONCURRENT_TRANSACTIONS)
        if self.state not in _VALID_PREVIOUS[state]:
            raise TransactionError(
                ErrorCode.INVALID_TXN_STATE,
                f"{self.transactional_id}: illegal transition {self.state.display_name} -> {state.display_name}",
            )
        self.pending = state
        return TxnTransit(
            producer_id=self.producer_id if producer_id is None else producer_id,
            last_producer_id=self.last_producer_id if last_producer_id is None else last_producer_id,
            producer_epoch=self.producer_epoch if epoch is None else epoch,
            last_producer_epoch=self.last_producer_epoch if last_epoch is None else last_epoch,
            timeout_ms=self.timeout_ms if timeout_ms is None else timeout_ms,
            state=state,
            partitions=frozenset(self.partitions) if partitions is None else partitions,
            start_ms=self.start_ms if start_ms is None else start_ms,
            last_update_ms=now_ms,
        )

    # ------------------------------------------------------------------ the prepares

    def prepare_increment_epoch(self, timeout_ms: int, expected_epoch: int | None, now_ms: int) -> TxnTransit:
        """``prepareIncrementProducerEpoch`` (InitProducerId): the next epoch, or the current
        one again for a retry of the last bump (KIP-360); PRODUCER_FENCED for a stale epoch."""
        bumped = self.producer_epoch + 1
        if expected_epoch is None:
            epoch, last_epoch = bumped, NO_PRODUCER_EPOCH
        elif self.producer_epoch == NO_PRODUCER_EPOCH or expected_epoch == self.producer_epoch:
            epoch, last_epoch = bumped, self.producer_epoch
        elif expected_epoch == self.last_producer_epoch:
            epoch, last_epoch = self.producer_epoch, self.last_producer_epoch  # a retry
        else:
            raise TransactionError(ErrorCode.PRODUCER_FENCED)
        return self._transit(
            S.EMPTY,
            epoch=epoch,
            last_epoch=last_epoch,
            timeout_ms=timeout_ms,
            partitions=frozenset(),
            start_ms=-1,
            now_ms=now_ms,
        )

    def prepare_producer_id_rotation(
        self, new_producer_id: int, timeout_ms: int, now_ms: int, record_last_epoch: bool
    ) -> TxnTransit:
        """``prepareProducerIdRotation``: the epoch is exhausted, a new producer id at epoch 0."""
        return self._transit(
            S.EMPTY,
            producer_id=new_producer_id,
            last_producer_id=self.producer_id,
            epoch=0,
            last_epoch=self.producer_epoch if record_last_epoch else NO_PRODUCER_EPOCH,
            timeout_ms=timeout_ms,
            partitions=frozenset(),
            start_ms=-1,
            now_ms=now_ms,
        )

    def prepare_fence_epoch(self) -> int:
        """``prepareFenceProducerEpoch``: the epoch the abort of the ongoing transaction uses
        (bumped unless a fence already failed or the epoch is at its maximum); the state
        becomes pending PrepareEpochFence, in memory only."""
        if self.pending is not None:
            raise TransactionError(ErrorCode.CONCURRENT_TRANSACTIONS)
        if self.state is not S.ONGOING:
            raise TransactionError(ErrorCode.INVALID_TXN_STATE)
        if self.producer_epoch >= MAX_PRODUCER_EPOCH or self.failed_epoch_fence:
            bumped = self.producer_epoch
        else:
            bumped = self.producer_epoch + 1
        self.pending = S.PREPARE_EPOCH_FENCE
        return bumped

    def prepare_add_partitions(self, partitions: frozenset[TopicPartition], now_ms: int) -> TxnTransit:
        """``prepareAddPartitions``: a new transaction starts its clock."""
        new_start = self.state in (S.EMPTY, S.COMPLETE_COMMIT, S.COMPLETE_ABORT)
        return self._transit(
            S.ONGOING,
            partitions=frozenset(self.partitions | partitions) if not new_start else partitions,
            start_ms=now_ms if new_start else self.start_ms,
            now_ms=now_ms,
        )

    def prepare_abort_or_commit(
        self, state: TxnState, now_ms: int, *, epoch: int | None = None
    ) -> TxnTransit:
        return self._transit(state, epoch=epoch, now_ms=now_ms)

    def prepare_complete(self, now_ms: int) -> TxnTransit:
        """``prepareComplete``: markers written; the partitions are cleared."""
        state = S.COMPLETE_COMMIT if self.state is S.PREPARE_COMMIT else S.COMPLETE_ABORT
        return self._transit(state, partitions=frozenset(), now_ms=now_ms)

    def prepare_dead(self, now_ms: int) -> TxnTransit:
        """``prepareDead``: the transactional id expires (a tombstone is written)."""
        return self._transit(S.DEAD, partitions=frozenset(), now_ms=now_ms)

    # ------------------------------------------------------------------ completion

    def complete_transition(self, transit: TxnTransit) -> None:
        """``completeTransitionTo``: the prepared state was written; apply it."""
        self.pending = None
        self.producer_id = transit.producer_id
        self.last_producer_id = transit.last_producer_id
        self.producer_epoch = transit.producer_epoch
        self.last_producer_epoch = transit.last_producer_epoch
        self.timeout_ms = transit.timeout_ms
        self.state = transit.state
        self.partitions = set(transit.partitions)
        self.start_ms = transit.start_ms
        self.last_update_ms = transit.last_update_ms

    def abort_transition(self) -> None:
        self.pending = None
