"""The partition leader's side of transactions: markers in, verification of transactional appends.

Two pieces the ``ReplicaManager`` delegates to (it keeps one instance of each):

- ``TxnMarkerAppender`` (Kafka's ``KafkaApis.handleWriteTxnMarkersRequest``): for each
  ``TxnMarker`` a COMMIT or ABORT control batch (``protocol.control_records``) is appended to
  each of its partitions this broker hosts, with origin COORDINATOR and acks=-1 (the
  replica manager's DelayedProduce purgatory waits for the ISR, up to ``request.timeout.ms``).
  Errors per partition as Kafka's: UNKNOWN_TOPIC_OR_PARTITION when the partition is not
  hosted here or its log dir is offline (Kafka's ``onlinePartition``), else the append's own
  (NOT_LEADER_OR_FOLLOWER, NOT_ENOUGH_REPLICAS, TRANSACTION_COORDINATOR_FENCED,
  INVALID_PRODUCER_EPOCH, REQUEST_TIMED_OUT, ...). Once a marker landed on partitions of
  ``__consumer_offsets``, the ``TxnCompletionListener``s are told (the group coordinator
  applies or drops the transaction's pending offsets); a listener that raises turns those
  partitions' answers into UNKNOWN_SERVER_ERROR, as Kafka does.
- ``TransactionVerification`` (KIP-890 part 1, Kafka's ``ReplicaManager.appendRecords`` with
  ``AddPartitionsToTxnManager``): before the first transactional batch of a producer is
  appended to a partition where that producer has no open transaction (of its epoch), the
  injected ``TransactionVerifier`` is asked whether the partition was added to the
  transaction. The partition's producer state hands out a verification guard first; a
  marker appended while the verifier is asked invalidates it, so the batch is then refused
  (INVALID_TXN_STATE) rather than opening a transaction nothing will end. The verifier's
  errors become produce errors as Kafka translates them: PRODUCER_FENCED ->
  INVALID_PRODUCER_EPOCH; TRANSACTION_ABORTABLE -> INVALID_TXN_STATE below Produce v11;
  CONCURRENT_TRANSACTIONS, NETWORK_EXCEPTION, COORDINATOR_LOAD_IN_PROGRESS,
  COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR -> NOT_ENOUGH_REPLICAS (retriable without a
  metadata refresh, for older clients).

``AcceptingTransactionVerifier`` is what a broker with
``transaction.partition.verification.enable=false`` uses (Kafka then skips the check): it
answers NONE for every partition.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from coordinator.transaction_seams import (
    TopicPartitionKey,
    TransactionVerifier,
    TxnCompletionListener,
    TxnMarker,
    VerificationFailed,
)
from protocol.control_records import build_end_txn_marker_batch
from protocol.errors import ErrorCode, KafkaError
from protocol.record_batch import TRANSACTIONAL_MASK, read_header
from storage.log_validator import InlineBudget, validate_produce_records
from storage.producer_state import AppendOrigin

if TYPE_CHECKING:
    from broker.replica_manager import PartitionAppendResult, ReplicaManager

log = logging.getLogger(__name__)

OFFSETS_TOPIC = "__consumer_offsets"

# AddPartitionsToTxnManager / ReplicaManager: coordinator errors a producer should retry.
_RETRY_AS_NOT_ENOUGH_REPLICAS = frozenset(
    {
        ErrorCode.CONCURRENT_TRANSACTIONS,
        ErrorCode.NETWORK_EXCEPTION,
        ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
        ErrorCode.COORDINATOR_NOT_AVAILABLE,
        ErrorCode.NOT_COORDINATOR,
    }
)


class AcceptingTransactionVerifier:
    """``transaction.partition.verification.enable=false``: every partition counts as added."""

    async def verify(
        self,
        transactional_id: str,
        producer_id: int,
        producer_epoch: int,
        partitions: Sequence[TopicPartitionKey],
    ) -> dict[TopicPartitionKey, ErrorCode]:
        return dict.fromkeys(partitions, ErrorCode.NONE)


def produce_error_of_verification(error: ErrorCode, produce_version: int) -> KafkaError:
    """A verifier's error as the produce request answers it (see the module docstring); the
    verifier's own answer stays on it (``VerificationFailed.verified``)."""
    verified = error
    if error is ErrorCode.PRODUCER_FENCED:
        return VerificationFailed(
            ErrorCode.INVALID_PRODUCER_EPOCH, "The producer was fenced by a newer epoch", verified
        )
    if error is ErrorCode.TRANSACTION_ABORTABLE and produce_version < 11:
        error = ErrorCode.INVALID_TXN_STATE
    if error is ErrorCode.INVALID_TXN_STATE:
        return VerificationFailed(error, "Partition was not added to the transaction", verified)
    if error in _RETRY_AS_NOT_ENOUGH_REPLICAS:
        return VerificationFailed(
            ErrorCode.NOT_ENOUGH_REPLICAS,
            f"Unable to verify the partition has been added to the transaction. Underlying error: {error.name}",
            verified,
        )
    return VerificationFailed(error, None, verified)


class _Pending(NamedTuple):
    """A transactional batch waiting for its verification."""

    key: TopicPartitionKey
    producer_id: int
    producer_epoch: int
    guard: object


Entries = Sequence[tuple[TopicPartitionKey, Any]]


class TransactionVerification:
    """KIP-890 part 1 for one replica manager (see the module docstring)."""

    def __init__(self, replica_manager: ReplicaManager, verifier: TransactionVerifier) -> None:
        self._rm = replica_manager
        self.verifier = verifier

    def prepare(
        self, entries: Entries, transactional_id: str | None, produce_version: int
    ) -> tuple[list[tuple[TopicPartitionKey, Any]], dict[TopicPartitionKey, KafkaError], list[_Pending]]:
        """Frame each partition's records (``validate_produce_records``) and find the batches
        that need verification. Returns (entries with framed records, errors found so far,
        batches to verify)."""
        framed: list[tuple[TopicPartitionKey, Any]] = []
        errors: dict[TopicPartitionKey, KafkaError] = {}
        pending: list[_Pending] = []
        hosted = self._rm._partitions
        budget = InlineBudget()  # the request's record work on the event loop
        for key, records in entries:
            partition = hosted.get(key)
            if partition is None:
                framed.append((key, records))  # the append answers UNKNOWN_TOPIC_OR_PARTITION first
                continue
            try:
                batch = validate_produce_records(records, produce_version, budget)
            except KafkaError as exc:
                errors[key] = exc
                continue
            framed.append((key, batch))
            if not batch.attributes & TRANSACTIONAL_MASK:
                continue
            if transactional_id is None:
                # KafkaApis.handleProduceRequest: transactional records need a transactional id.
                errors[key] = KafkaError(
                    ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
                    "Transactional records were sent without a transactional id",
                )
                continue
            if partition.leader_id != partition.local_broker_id:
                continue  # the append answers NOT_LEADER_OR_FOLLOWER
            header = read_header(batch.buf, 0)
            guard = partition.log.producer_state.start_verification(
                header.producer_id, header.producer_epoch, header.base_sequence
            )
            if guard is not None:
                pending.append(_Pending(key, header.producer_id, header.producer_epoch, guard))
        return framed, errors, pending

    async def verify(
        self, transactional_id: str, pending: Sequence[_Pending], produce_version: int
    ) -> dict[TopicPartitionKey, KafkaError]:
        """Ask the verifier, once per producer id; the errors per partition."""
        by_producer: dict[tuple[int, int], list[TopicPartitionKey]] = {}
        for p in pending:
            by_producer.setdefault((p.producer_id, p.producer_epoch), []).append(p.key)

        async def one(
            pid: int, epoch: int, keys: list[TopicPartitionKey]
        ) -> dict[TopicPartitionKey, ErrorCode]:
            try:
                return await self.verifier.verify(transactional_id, pid, epoch, keys)
            except Exception:  # a verifier failure must not fail the whole produce request
                log.exception("Verifying the transaction of producer %d on %s failed", pid, keys)
                return dict.fromkeys(keys, ErrorCode.NETWORK_EXCEPTION)

        answers = await asyncio.gather(*(one(pid, epoch, keys) for (pid, epoch), keys in by_producer.items()))
        errors: dict[TopicPartitionKey, KafkaError] = {}
        for ((_pid, _epoch), keys), answer in zip(by_producer.items(), answers, strict=True):
            for key in keys:
                error = answer.get(key, ErrorCode.INVALID_TXN_STATE)
                if error is not ErrorCode.NONE:
                    errors[key] = produce_error_of_verification(error, produce_version)
        return errors

    def guard_still_valid(self, p: _Pending) -> bool:
        """Right before the append: no marker ended the producer's transaction meanwhile."""
        partition = self._rm._partitions.get(p.key)
        return partition is not None and partition.log.producer_state.verification_guard_valid(
            p.producer_id, p.guard
        )


class TxnMarkerAppender:
    """WriteTxnMarkers on this broker's partitions (see the module docstring)."""

    def __init__(
        self, replica_manager: ReplicaManager, time_ms: Callable[[], int], *, timeout_ms: int = 30_000
    ) -> None:
        self._rm = replica_manager
        self._time_ms = time_ms
        self.timeout_ms = timeout_ms
        self._listeners: list[TxnCompletionListener] = []

    def add_listener(self, listener: TxnCompletionListener) -> None:
        self._listeners.append(listener)

    async def write(self, markers: Sequence[TxnMarker]) -> list[dict[TopicPartitionKey, ErrorCode]]:
        """One error per partition of each marker, in the markers' order."""
        results: list[dict[TopicPartitionKey, ErrorCode]] = [{} for _ in markers]
        waiting: list[tuple[int, Awaitable[dict[TopicPartitionKey, PartitionAppendResult]]]] = []
        now = self._time_ms()
        for i, marker in enumerate(markers):
            entries = []
            for key in marker.partitions:
                partition = self._rm._partitions.get(key)
                if partition is None or partition.log.dir_state.offline:
                    results[i][key] = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
                    continue
                batch = build_end_txn_marker_batch(
                    producer_id=marker.producer_id,
                    producer_epoch=marker.producer_epoch,
                    committed=marker.committed,
                    coordinator_epoch=marker.coordinator_epoch,
                    timestamp=now,
                )
                entries.append((key, memoryview(bytearray(batch))))
            if not entries:
                continue
            appended = self._rm.append_records(
                entries, required_acks=-1, origin=AppendOrigin.COORDINATOR, timeout_ms=self.timeout_ms
            )
            if isinstance(appended, dict):
                self._record(results[i], appended)
            else:
                waiting.append((i, appended))
        if waiting:
            done = await asyncio.gather(*(w for _, w in waiting))
            for (i, _), appended in zip(waiting, done, strict=True):
                self._record(results[i], appended)
        for marker, errors in zip(markers, results, strict=True):
            self._tell_listeners(marker, errors)
        return results

    @staticmethod
    def _record(
        errors: dict[TopicPartitionKey, ErrorCode], appended: dict[TopicPartitionKey, PartitionAppendResult]
    ) -> None:
        for key, result in appended.items():
            errors[key] = ErrorCode.NONE if result.error is None else result.error.error

    def _tell_listeners(self, marker: TxnMarker, errors: dict[TopicPartitionKey, ErrorCode]) -> None:
        offsets_partitions = [
            p for (topic, p), error in errors.items() if topic == OFFSETS_TOPIC and error is ErrorCode.NONE
        ]
        if not offsets_partitions or not self._listeners:
            return
        for listener in self._listeners:
            try:
                listener.on_txn_completed(marker.producer_id, marker.committed, offsets_partitions)
            except Exception:
                log.exception(
                    "Received an exception while trying to update the offsets cache on transaction marker append"
                )
                for p in offsets_partitions:
                    errors[(OFFSETS_TOPIC, p)] = ErrorCode.UNKNOWN_SERVER_ERROR
