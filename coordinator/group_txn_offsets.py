"""Transactional offset commits (TxnOffsetCommit) held pending until their transaction ends.

Kafka's classic ``GroupMetadata.pendingTransactionalOffsetCommits`` with
``GroupMetadataManager.storeOffsets(producerId, ...)`` and ``handleTxnCompletion``:

- a TxnOffsetCommit's offsets are written to the group's partition of ``__consumer_offsets``
  as one transactional batch of the producer (its producer id and epoch, the transactional
  bit set), and kept pending per producer id, with the offset of the batch that holds them;
- when the transaction's marker has been appended to that partition, a COMMIT moves them to
  the committed offsets (unless a later plain commit of the same partition was appended
  after them: the later write wins, as in Kafka's ``completePendingTxnOffsetCommit``), an
  ABORT drops them;
- OffsetFetch with ``require_stable`` answers UNSTABLE_OFFSET_COMMIT for a partition with a
  pending transactional commit.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Awaitable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from coordinator.group_offsets import (
    OFFSETS_TOPIC,
    OffsetAndMetadata,
    OffsetKey,
    decode_key,
    decode_offset_value,
    encode_offset_key,
    encode_offset_value,
    utf16_length,
)
from coordinator.offsets_topic import OffsetsTopic, _storage_error
from coordinator.transaction_seams import VerificationFailed
from protocol.errors import ErrorCode, KafkaError
from protocol.primitives import DecodeError
from protocol.record_batch import iter_batches
from protocol.records import build_batch, decode_batch
from storage.producer_state import AppendOrigin

TopicPartition = tuple[str, int]


@dataclass(slots=True)
class PendingOffset:
    # Where the transactional batch was appended; -1 while the write is in flight
    # (set once it is appended, as Kafka's GroupMetadata.onTxnOffsetCommitAppend does).
    batch_offset: int
    offset: OffsetAndMetadata  # to apply on commit


class PendingTxnOffsets:
    """producer id -> group -> partition -> the offset its transaction would commit."""

    def __init__(self) -> None:
        self._by_producer: dict[int, dict[str, dict[TopicPartition, PendingOffset]]] = defaultdict(dict)
        # group -> partition -> producer ids with a pending commit of it (for require_stable)
        self._by_group: dict[str, dict[TopicPartition, set[int]]] = defaultdict(lambda: defaultdict(set))

    def add(self, producer_id: int, group_id: str, tp: TopicPartition, pending: PendingOffset) -> None:
        self._by_producer[producer_id].setdefault(group_id, {})[tp] = pending
        self._by_group[group_id][tp].add(producer_id)

    def add_open_commits(self, open_commits: Iterable[DecodedOpenCommit]) -> None:
        """At the end of a load: the transactional commits no marker has ended yet
        (``decode_open_commits`` of ``ReplayResolvingTxns.open_commits``)."""
        for producer_id, group_id, tp, pending in open_commits:
            self.add(producer_id, group_id, tp, pending)

    def discard(self, producer_id: int, group_id: str, tps: Iterable[TopicPartition]) -> None:
        """A write failed: its offsets are no longer pending."""
        groups = self._by_producer.get(producer_id, {})
        by_tp = groups.get(group_id, {})
        for tp in tps:
            by_tp.pop(tp, None)
            producers = self._by_group.get(group_id, {}).get(tp)
            if producers is not None:
                producers.discard(producer_id)
                if not producers:
                    del self._by_group[group_id][tp]
        if group_id in self._by_group and not self._by_group[group_id]:
            del self._by_group[group_id]
        if group_id in groups and not by_tp:
            del groups[group_id]
        if producer_id in self._by_producer and not groups:
            del self._by_producer[producer_id]

    def remove_partitions(self, group_id: str, tps: Iterable[TopicPartition]) -> None:
        """Offsets deleted (OffsetDelete, a deleted topic): no transaction commits them any
        more (Kafka's ``GroupMetadata.removeOffsets`` drops the pending transactional ones)."""
        by_tp = self._by_group.get(group_id)
        if not by_tp:
            return
        for tp in tps:
            for producer_id in by_tp.pop(tp, ()):
                groups = self._by_producer.get(producer_id, {})
                offsets = groups.get(group_id)
                if offsets is not None:
                    offsets.pop(tp, None)
                    if not offsets:
                        del groups[group_id]
                if not groups:
                    self._by_producer.pop(producer_id, None)
        if not by_tp:
            del self._by_group[group_id]

    def remove_topic(self, topic: str) -> None:
        """A deleted topic: no transaction commits offsets of it any more."""
        for group_id, by_tp in list(self._by_group.items()):
            self.remove_partitions(group_id, [tp for tp in by_tp if tp[0] == topic])

    def is_pending(self, group_id: str, tp: TopicPartition) -> bool:
        by_tp = self._by_group.get(group_id)
        return bool(by_tp and by_tp.get(tp))

    def has_group(self, group_id: str) -> bool:
        return group_id in self._by_group

    def complete(
        self, producer_id: int, groups_in: Iterable[str] | None = None
    ) -> Iterator[tuple[str, TopicPartition, PendingOffset]]:
        """Remove the producer's pending offsets (of ``groups_in`` only, if given) and yield them."""
        groups = self._by_producer.get(producer_id)
        if not groups:
            return
        chosen = list(groups) if groups_in is None else [g for g in groups_in if g in groups]
        for group_id in chosen:
            for tp, pending in groups.pop(group_id).items():
                producers = self._by_group[group_id][tp]
                producers.discard(producer_id)
                if not producers:
                    del self._by_group[group_id][tp]
                if not self._by_group[group_id]:
                    del self._by_group[group_id]
                yield group_id, tp, pending
        if not groups:
            del self._by_producer[producer_id]

    def all_groups(self) -> list[str]:
        return list(self._by_group)

    def groups_of(self, producer_id: int) -> list[str]:
        return list(self._by_producer.get(producer_id, {}))

    def drop_groups(self, group_ids: Iterable[str]) -> None:
        """The groups were unloaded (their partition resigned)."""
        wanted = set(group_ids)
        for producer_id in list(self._by_producer):
            for _ in self.complete(producer_id, [g for g in self._by_producer[producer_id] if g in wanted]):
                pass


# The Produce version the verified append is framed as; its verification errors are then
# answered as TxnOffsetCommit's (``offsets_error_of_verification``).
VERIFY_AS_PRODUCE_VERSION = 10


def offsets_error_of_verification(verified: ErrorCode, txn_offset_commit_version: int) -> ErrorCode:
    """The transaction coordinator's verification answer as TxnOffsetCommit answers it
    (``AddPartitionsToTxnManager``: PRODUCER_FENCED as INVALID_PRODUCER_EPOCH,
    TRANSACTION_ABORTABLE as INVALID_TXN_STATE below v4, KIP-890; then
    ``GroupMetadataManager.maybeConvertOffsetCommitError``: NETWORK_EXCEPTION as
    COORDINATOR_LOAD_IN_PROGRESS; the rest as it is, e.g. CONCURRENT_TRANSACTIONS)."""
    if verified is ErrorCode.PRODUCER_FENCED:
        return ErrorCode.INVALID_PRODUCER_EPOCH
    if verified is ErrorCode.TRANSACTION_ABORTABLE and txn_offset_commit_version < 4:
        return ErrorCode.INVALID_TXN_STATE
    if verified is ErrorCode.NETWORK_EXCEPTION:
        return ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
    return verified


class TxnOffsetsAccess(Protocol):
    """The ReplicaManager's acks=-1 append, as the TxnOffsetCommit write uses it."""

    def append_records(
        self,
        entries: Sequence[tuple[TopicPartition, object]],
        *,
        required_acks: int,
        origin: AppendOrigin,
        timeout_ms: int = 0,
        produce_version: int | None = None,
        transactional_id: str | None = None,
    ) -> Mapping[TopicPartition, Any] | Awaitable[Mapping[TopicPartition, Any]]: ...


async def write_txn_offsets(
    topic: OffsetsTopic,
    partition: int,
    group_id: str,
    producer_id: int,
    producer_epoch: int,
    entries: Sequence[tuple[str, int, int, int, str | None]],
    pending: PendingTxnOffsets,
    *,
    now_ms: int,
    metadata_max_bytes: int,
    transactional_id: str | None = None,
    api_version: int = 3,
) -> list[ErrorCode]:
    """Write (topic, partition, offset, leader epoch, metadata) entries of a TxnOffsetCommit
    as one transactional batch of the producer to the group's partition, acks=-1 (Kafka's
    ``storeOffsets`` with a producer id); an error per entry. The offsets are pending from
    before the write (``prepareTxnOffsetCommit``), so a marker that lands meanwhile (the
    transaction timed out) finds them; a failed write takes them back.

    With ``transactional_id`` the append is verified first, as a transactional Produce is
    (KIP-890 part 1; Kafka's ``GroupMetadataManager.storeOffsets`` through
    ``ReplicaManager.appendRecords`` with verification): unless the producer already has
    an open transaction of its epoch on the partition, the transaction coordinator is asked
    whether the group's partition was added (AddOffsetsToTxn). Its answers are
    TxnOffsetCommit's of ``api_version`` (``offsets_error_of_verification``)."""
    results: list[ErrorCode] = []
    records: list[tuple[bytes, bytes | None]] = []
    staged: list[tuple[TopicPartition, OffsetAndMetadata]] = []
    for t, p, offset, leader_epoch, metadata in entries:
        metadata = metadata or ""
        if utf16_length(metadata) > metadata_max_bytes:
            results.append(ErrorCode.OFFSET_METADATA_TOO_LARGE)
            continue
        om = OffsetAndMetadata(offset, leader_epoch, metadata, now_ms, None)
        records.append((encode_offset_key(group_id, t, p), encode_offset_value(om)))
        staged.append(((t, p), om))
        results.append(ErrorCode.NONE)
    if not records:
        return results
    key = (OFFSETS_TOPIC, partition)
    entries_in_flight = [(tp, PendingOffset(-1, om)) for tp, om in staged]
    for tp, entry in entries_in_flight:
        pending.add(producer_id, group_id, tp, entry)
    error: ErrorCode | None = None
    try:
        topic.ensure_created()
        access: TxnOffsetsAccess = topic.partitions  # type: ignore[assignment]  # the ReplicaManager
        answer = access.append_records(
            [(key, transactional_batch(records, producer_id, producer_epoch, now_ms))],
            required_acks=-1,
            origin=AppendOrigin.COORDINATOR,
            timeout_ms=topic.commit_timeout_ms,  # offsets.commit.timeout.ms
            produce_version=None if transactional_id is None else VERIFY_AS_PRODUCE_VERSION,
            transactional_id=transactional_id,
        )
        if not isinstance(answer, Mapping):
            answer = await answer
        if answer[key].error is not None:
            raise answer[key].error
    except VerificationFailed as exc:
        error = offsets_error_of_verification(exc.verified, api_version)
    except KafkaError as exc:
        error = _storage_error(exc, for_offsets=True).error
    if error is not None:
        pending.discard(producer_id, group_id, [tp for tp, _ in entries_in_flight])
        return [error if r is ErrorCode.NONE else r for r in results]
    batch_offset = answer[key].info.base_offset
    for _, entry in entries_in_flight:
        entry.batch_offset = batch_offset  # the COMMIT marker compares it with plain commits
    return results


def transactional_batch(
    records: list[tuple[bytes, bytes | None]], producer_id: int, producer_epoch: int, timestamp: int
) -> memoryview:
    """One transactional batch of the producer (base sequence 0, as Kafka's ``storeOffsets``:
    coordinator appends are not sequence-checked)."""
    return memoryview(
        bytearray(
            build_batch(
                records,
                producer_id=producer_id,
                producer_epoch=producer_epoch,
                base_sequence=0,
                timestamp=timestamp,
                transactional=True,
            )
        )
    )


CONTROL_COMMIT = 1  # ControlRecordType.COMMIT (ABORT is 0)

# A transactional commit still without its marker: (producer id, offset of its batch, key, value).
OpenCommit = tuple[int, int, bytes, bytes | None]


class ReplayResolvingTxns:
    """The records of a ``__consumer_offsets`` partition as its loader wants them (Kafka's
    ``doLoadGroupsAndOffsets``): plain records in log order; a producer's transactional
    records at the place of its COMMIT marker, with the offset of their batch (dropped at
    an ABORT one); those still without a marker are in ``open_commits``.

    Fed chunk after chunk (``resolve``) of what ``offsets_topic.PartitionReader`` reads, in
    log order, by one thread at a time (the loader's executor job; the loop awaits it)."""

    def __init__(self) -> None:
        self._open_txns: dict[int, list[OpenCommit]] = {}

    def resolve(
        self, data: memoryview, position: int
    ) -> tuple[list[tuple[int, bytes | None, bytes | None]], int]:
        """(offset, key, value) of the records that count, from the whole batches of
        ``data`` at or after ``position``, and the offset after its last batch."""
        open_txns = self._open_txns
        chunk: list[tuple[int, bytes | None, bytes | None]] = []
        nxt = position
        for bpos, header in iter_batches(data):
            nxt = header.next_offset
            records = [
                r for r in decode_batch(data[bpos : bpos + header.size], header) if r.offset >= position
            ]
            if header.is_control:
                committed = any(
                    r.key is not None
                    and len(r.key) >= 4
                    and int.from_bytes(r.key[2:4], "big") == CONTROL_COMMIT
                    for r in records
                )
                done = open_txns.pop(header.producer_id, [])
                if committed:
                    chunk.extend((off, key, value) for _, off, key, value in done)
                continue
            if header.is_transactional:
                txn = open_txns.setdefault(header.producer_id, [])
                txn.extend((header.producer_id, header.base_offset, r.key, r.value) for r in records if r.key)
                continue
            chunk.extend((r.offset, r.key, r.value) for r in records)
        return chunk, nxt

    @property
    def open_commits(self) -> list[OpenCommit]:
        """The transactional commits no marker has ended so far, oldest producer first."""
        return [commit for txn in self._open_txns.values() for commit in txn]


# An open commit decoded: (producer id, group, partition, its pending offset).
DecodedOpenCommit = tuple[int, str, TopicPartition, PendingOffset]


def decode_open_commits(open_commits: Iterable[OpenCommit]) -> list[DecodedOpenCommit]:
    """``ReplayResolvingTxns.open_commits`` decoded (off the loop), undecodable ones left out,
    for ``PendingTxnOffsets.add_open_commits``."""
    decoded: list[DecodedOpenCommit] = []
    for producer_id, batch_offset, key, value in open_commits:
        try:
            k = decode_key(key)
            if isinstance(k, OffsetKey) and value is not None:
                pending = PendingOffset(batch_offset, decode_offset_value(value))
                decoded.append((producer_id, k.group, (k.topic, k.partition), pending))
        except DecodeError:
            continue
    return decoded
