"""The seams between the transaction coordinator and the partitions it writes to.

The coordinator (``coordinator/``) decides; the partitions' leaders (``broker/``'s
``ReplicaManager``) append. Kafka's split is the model: the TransactionCoordinator sends
WriteTxnMarkers to each partition's leader (``TransactionMarkerChannelManager``), a leader
asks the coordinator before it appends the first transactional batch of a producer
(KIP-890 part 1, ``AddPartitionsToTxnManager``), and the group coordinator applies or drops
a transaction's pending offsets when its marker lands in ``__consumer_offsets``
(``GroupCoordinator.scheduleHandleTxnCompletion``). coordinator never imports broker, so
these Protocols are what each side is given.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple, Protocol

from protocol.errors import ErrorCode, KafkaError

TopicPartitionKey = tuple[str, int]


class VerificationFailed(KafkaError):
    """A transactional append refused by its verification (KIP-890 part 1), as Produce
    answers it; ``verified`` is the transaction coordinator's own answer, which a
    TxnOffsetCommit maps its own way (``GroupCoordinator.handleTxnCommitOffsets``)."""

    def __init__(self, error: ErrorCode, message: str | None, verified: ErrorCode) -> None:
        super().__init__(error, message)
        self.verified = verified


class TxnMarker(NamedTuple):
    """One WriteTxnMarkers entry: end a producer's transaction on these partitions."""

    producer_id: int
    producer_epoch: int
    committed: bool  # COMMIT (True) or ABORT (False) control record
    coordinator_epoch: int
    partitions: tuple[TopicPartitionKey, ...]


class TxnMarkerWriter(Protocol):
    """Appends markers on the partitions led by ``broker_id`` (this broker in-process, another
    through WriteTxnMarkers). Waits as Kafka's handler does (acks=-1) and answers one error per
    partition of each marker, in the markers' order."""

    async def write_txn_markers(
        self, broker_id: int, markers: Sequence[TxnMarker]
    ) -> list[dict[TopicPartitionKey, ErrorCode]]: ...


class TransactionVerifier(Protocol):
    """KIP-890 part 1: is each partition part of this producer's ongoing transaction?

    Answers NONE per partition that was added with AddPartitionsToTxn, INVALID_TXN_STATE
    (or the coordinator's own error, e.g. NOT_COORDINATOR, PRODUCER_FENCED) otherwise."""

    async def verify(
        self,
        transactional_id: str,
        producer_id: int,
        producer_epoch: int,
        partitions: Sequence[TopicPartitionKey],
    ) -> dict[TopicPartitionKey, ErrorCode]: ...


class TxnCompletionListener(Protocol):
    """Told when a transaction marker has been appended to partitions of ``__consumer_offsets``
    (the group coordinator then applies, on commit, or drops the pending TxnOffsetCommits)."""

    def on_txn_completed(
        self, producer_id: int, committed: bool, offsets_partitions: Iterable[int]
    ) -> None: ...
