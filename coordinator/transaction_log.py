"""``__transaction_state``: the transaction coordinator's durable state, in Kafka's format.

Kafka keeps each transactional id's metadata in the compacted internal topic
``__transaction_state`` (``transaction.state.log.num.partitions`` partitions, an id living in
partition ``abs(transactionalId.hashCode) % partitions``, the same placement as groups).
This module has:

- the record codecs of Kafka's ``TransactionLogKey`` v0 (int16 version 0 | string
  TransactionalId) and ``TransactionLogValue`` v0 and v1 (v1 flexible: compact strings and
  arrays, tagged fields PreviousProducerId (0), NextProducerId (1) and
  ClientTransactionVersion (2)), hand-written like ``group_offsets``'s. Values are written
  as v0 (what a broker without transaction version 2 writes; every Kafka reads it), read
  in both. A null value is a tombstone (an expired transactional id).
- ``TransactionStateTopic``: the topic's creation (a lone broker through its controller, a
  cluster through ZooKeeper, as ``__consumer_offsets``), acks=-1 appends through the
  ReplicaManager with the origin COORDINATOR, and the replay of a partition.

Topic configs are Kafka's ``TransactionStateManager.transactionTopicConfigs``:
``cleanup.policy=compact``, ``compression.type=uncompressed``,
``unclean.leader.election.enable=false``, ``min.insync.replicas`` =
``transaction.state.log.min.isr`` and ``segment.bytes`` = ``transaction.state.log.segment.bytes``.
The replication factor is capped at the brokers there are (as the offsets topic's), and so
is ``min.insync.replicas`` (see docs/COMPATIBILITY.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from coordinator.group_offsets import partition_for
from coordinator.offsets_topic import InternalTopicCreator, PartitionReader
from coordinator.transaction_metadata import TopicPartition, TxnState
from protocol.errors import ErrorCode, KafkaError
from protocol.primitives import (
    INT8,
    INT16,
    INT32,
    INT64,
    DecodeError,
    read_array_length,
    read_compact_array_length,
    read_compact_string,
    read_int8,
    read_int16,
    read_int32,
    read_int64,
    read_string,
    read_tagged_fields,
    varint_size,
    varlong_size,
    write_array_length,
    write_string,
)
from protocol.record_batch import HEADER_SIZE as BATCH_HEADER_SIZE
from protocol.records import build_batch
from storage.log_config import parse_topic_overrides
from storage.producer_state import AppendOrigin

if TYPE_CHECKING:
    from coordinator.partition_access import LogOffsetsView

log = logging.getLogger(__name__)

TRANSACTION_STATE_TOPIC = "__transaction_state"
TXN_KEY_VERSION = 0
TXN_VALUE_VERSION = 0  # TransactionLogValue v0: readable by every Kafka version
LOAD_BUFFER_BYTES = 5 * 1024 * 1024  # transaction.state.log.load.buffer.size
CREATE_RETRY_BACKOFF_S = 0.1
CREATE_RETRY_BACKOFF_MAX_S = 1.0


# ---------------------------------------------------------------- codecs


@dataclass(frozen=True, slots=True)
class TxnLogValue:
    """A ``TransactionLogValue`` as written or read."""

    producer_id: int
    producer_epoch: int
    timeout_ms: int
    state: TxnState
    partitions: frozenset[TopicPartition]
    last_update_ms: int
    start_ms: int
    previous_producer_id: int = -1
    next_producer_id: int = -1
    client_transaction_version: int = 0


def encode_txn_key(transactional_id: str) -> bytes:
    w = bytearray(INT16.pack(TXN_KEY_VERSION))
    write_string(w, transactional_id)
    return bytes(w)


def decode_txn_key(buf: Any) -> str:
    version, pos = read_int16(buf, 0)
    if version != TXN_KEY_VERSION:
        raise DecodeError(f"unknown TransactionLogKey version {version}")
    transactional_id, _ = read_string(buf, pos)
    return transactional_id


def _by_topic(partitions: frozenset[TopicPartition]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for topic, p in sorted(partitions):
        out.setdefault(topic, []).append(p)
    return out


def encode_txn_value(v: TxnLogValue) -> bytes:
    """TransactionLogValue v0. Empty has no partitions (Kafka writes a null array then)."""
    w = bytearray(INT16.pack(TXN_VALUE_VERSION))
    w += INT64.pack(v.producer_id)
    w += INT16.pack(v.producer_epoch)
    w += INT32.pack(v.timeout_ms)
    w += INT8.pack(int(v.state))
    if v.state is TxnState.EMPTY and not v.partitions:
        write_array_length(w, -1)
    else:
        topics = _by_topic(v.partitions)
        write_array_length(w, len(topics))
        for topic, ids in topics.items():
            write_string(w, topic)
            write_array_length(w, len(ids))
            for p in ids:
                w += INT32.pack(p)
    w += INT64.pack(v.last_update_ms)
    w += INT64.pack(v.start_ms)
    return bytes(w)


def decode_txn_value(buf: Any) -> TxnLogValue:
    version, pos = read_int16(buf, 0)
    if version not in (0, 1):
        raise DecodeError(f"unknown TransactionLogValue version {version}")
    flexible = version >= 1
    producer_id, pos = read_int64(buf, pos)
    epoch, pos = read_int16(buf, pos)
    timeout_ms, pos = read_int32(buf, pos)
    status, pos = read_int8(buf, pos)
    try:
        state = TxnState(status)
    except ValueError:
        raise DecodeError(f"unknown TransactionStatus {status}") from None
    n, pos = read_compact_array_length(buf, pos) if flexible else read_array_length(buf, pos)
    partitions: set[TopicPartition] = set()
    for _ in range(max(n, 0)):
        topic, pos = read_compact_string(buf, pos) if flexible else read_string(buf, pos)
        m, pos = read_compact_array_length(buf, pos) if flexible else read_array_length(buf, pos)
        for _ in range(max(m, 0)):
            p, pos = read_int32(buf, pos)
            partitions.add((topic, p))
        if flexible:
            _, pos = read_tagged_fields(buf, pos)
    last_update_ms, pos = read_int64(buf, pos)
    start_ms, pos = read_int64(buf, pos)
    previous, nxt, client_version = -1, -1, 0
    if flexible:
        tagged, pos = read_tagged_fields(buf, pos)
        for tag, raw in tagged:
            if tag == 0:
                previous = INT64.unpack_from(raw)[0]
            elif tag == 1:
                nxt = INT64.unpack_from(raw)[0]
            elif tag == 2:
                client_version = INT16.unpack_from(raw)[0]
    return TxnLogValue(
        producer_id,
        epoch,
        timeout_ms,
        state,
        frozenset(partitions),
        last_update_ms,
        start_ms,
        previous,
        nxt,
        client_version,
    )


def tombstone_batches(
    transactional_ids: Sequence[str], max_batch_bytes: int, timestamp: int
) -> list[tuple[list[str], bytes]]:
    """The tombstones of expired ids as batches of at most ``max_batch_bytes`` (the
    partition's ``max.message.bytes``), each with the ids it carries
    (``TransactionStateManager.removeExpiredTransactionalIds``: a new MemoryRecordsBuilder
    when ``hasRoomFor`` fails; a batch always takes its first record). CPU work that grows
    with the ids: callers run it off the event loop."""
    out: list[tuple[list[str], bytes]] = []
    ids: list[str] = []
    keys: list[tuple[bytes, None]] = []
    size = BATCH_HEADER_SIZE
    for txn_id in transactional_ids:
        key = encode_txn_key(txn_id)
        record = _tombstone_size(len(keys), len(key))
        if keys and size + record > max_batch_bytes:
            out.append((ids, build_batch(keys, timestamp=timestamp)))
            ids, keys, size = [], [], BATCH_HEADER_SIZE
            record = _tombstone_size(0, len(key))
        ids.append(txn_id)
        keys.append((key, None))
        size += record
    if keys:
        out.append((ids, build_batch(keys, timestamp=timestamp)))
    return out


def _tombstone_size(offset_delta: int, key_size: int) -> int:
    """``DefaultRecord.sizeInBytes`` of a null-value record without headers, timestamp delta 0."""
    body = 1 + varlong_size(0) + varint_size(offset_delta) + varint_size(key_size) + key_size
    body += varint_size(-1) + varint_size(0)
    return varint_size(body) + body


# ---------------------------------------------------------------- the topic


class TxnLogAccess(Protocol):
    """What the transaction coordinator needs of the broker's ReplicaManager."""

    def append_records(
        self,
        entries: Sequence[tuple[TopicPartition, object]],
        *,
        required_acks: int,
        origin: AppendOrigin,
        timeout_ms: int = 0,
    ) -> Mapping[TopicPartition, Any] | Awaitable[Mapping[TopicPartition, Any]]: ...

    def read_records(
        self, topic: str, partition: int, fetch_offset: int, max_bytes: int, *, max_offset: int
    ) -> bytes: ...

    def log_offsets(self, topic: str, partition: int) -> LogOffsetsView: ...

    def get_log_config(self, topic: str, partition: int) -> Any | None: ...


class LocalTopicCreator(Protocol):
    """A lone broker's topic store (``ControllerTopicStore``)."""

    def topics(self) -> Mapping[str, Any]: ...

    def create_topic(
        self, name: str, partitions: int, topic_id: uuid.UUID, overrides: Mapping[str, Any]
    ) -> Any: ...

    def add_partitions(self, name: str, new_total: int) -> Any: ...


def append_error(exc: KafkaError) -> ErrorCode:
    """``TransactionStateManager.appendTransactionToLog``'s mapping of append errors."""
    e = exc.error
    if e in (
        ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        ErrorCode.NOT_ENOUGH_REPLICAS,
        ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
        ErrorCode.REQUEST_TIMED_OUT,
    ):
        return ErrorCode.COORDINATOR_NOT_AVAILABLE
    if e in (ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.KAFKA_STORAGE_ERROR):
        return ErrorCode.NOT_COORDINATOR
    if e in (ErrorCode.MESSAGE_TOO_LARGE, ErrorCode.RECORD_LIST_TOO_LARGE):
        return ErrorCode.UNKNOWN_SERVER_ERROR
    return e


class TransactionStateTopic:
    """``__transaction_state``: exists, is created on first use, appended to and replayed."""

    def __init__(
        self,
        access: TxnLogAccess,
        *,
        num_partitions: int,
        segment_bytes: int,
        min_isr: int,
        append_timeout_ms: int,
        time_ms: Callable[[], int],
        local: LocalTopicCreator | None = None,
        cluster: InternalTopicCreator | None = None,
    ) -> None:
        if (local is None) == (cluster is None):
            raise ValueError("a TransactionStateTopic needs exactly one of local or cluster")
        self.access = access
        self.configured_partitions = num_partitions
        self.segment_bytes = segment_bytes
        self.min_isr = min_isr
        self.append_timeout_ms = append_timeout_ms
        self.time_ms = time_ms
        self.local = local
        self.cluster = cluster
        self._creating: asyncio.Task | None = None

    def topic_configs(self, replication: int) -> dict[str, str]:
        return {
            "cleanup.policy": "compact",
            "compression.type": "uncompressed",
            "unclean.leader.election.enable": "false",
            "min.insync.replicas": str(max(1, min(self.min_isr, replication))),
            "segment.bytes": str(self.segment_bytes),
        }

    def existing_partitions(self) -> int | None:
        if self.cluster is not None:
            return self.cluster.partition_count(TRANSACTION_STATE_TOPIC)
        assert self.local is not None
        if self._creating is not None:
            return None
        info = self.local.topics().get(TRANSACTION_STATE_TOPIC)
        return None if info is None else info.partitions

    @property
    def partition_count(self) -> int:
        existing = self.existing_partitions()
        return existing if existing is not None else self.configured_partitions

    def partition_for(self, transactional_id: str) -> int:
        return partition_for(transactional_id, self.partition_count)

    def ready(self) -> bool:
        """FindCoordinator's check: the topic exists; else its creation starts (Kafka's
        auto-creation) and the caller answers COORDINATOR_NOT_AVAILABLE meanwhile."""
        if self._creating is not None:
            return False
        if self.existing_partitions() is not None:
            return True
        self._creating = asyncio.get_running_loop().create_task(
            self._create(), name=f"create-{TRANSACTION_STATE_TOPIC}"
        )
        return False

    async def _create(self) -> None:
        try:
            if self.cluster is not None:
                try:
                    # The creator caps the replication factor at the registered brokers and
                    # min.insync.replicas at it.
                    await self.cluster.create_internal_topic(
                        TRANSACTION_STATE_TOPIC, self.configured_partitions, self.topic_configs(1 << 15)
                    )
                except KafkaError as exc:
                    if exc.error is not ErrorCode.TOPIC_ALREADY_EXISTS:
                        log.warning("cannot create %s: %s", TRANSACTION_STATE_TOPIC, exc.message)
                except Exception as exc:  # ZooKeeper away: the next FindCoordinator retries
                    log.warning("cannot create %s: %s", TRANSACTION_STATE_TOPIC, exc)
                return
            await self._create_locally()
        finally:
            self._creating = None

    async def _create_locally(self) -> None:
        """A lone broker: partition by partition (each is files and directories), retried
        with backoff on storage errors, as ``OffsetsTopic`` does."""
        assert self.local is not None
        overrides = parse_topic_overrides(self.topic_configs(1))
        total = self.configured_partitions
        backoff_s = CREATE_RETRY_BACKOFF_S
        topic_id = uuid.uuid4()
        while True:
            try:
                for n in range(1, total + 1):
                    if n > 1:
                        await asyncio.sleep(0)
                    info = self.local.topics().get(TRANSACTION_STATE_TOPIC)
                    if info is None:
                        self.local.create_topic(TRANSACTION_STATE_TOPIC, n, topic_id, overrides)
                    elif info.partitions < n:
                        self.local.add_partitions(TRANSACTION_STATE_TOPIC, n)
                break
            except (KafkaError, OSError) as exc:
                log.warning("cannot create %s: %s; retrying", TRANSACTION_STATE_TOPIC, exc)
                await asyncio.sleep(backoff_s)
                backoff_s = min(backoff_s * 2, CREATE_RETRY_BACKOFF_MAX_S)
        log.info("created %s with %d partitions", TRANSACTION_STATE_TOPIC, total)

    def complete_interrupted_creation(self) -> None:
        """A lone broker that crashed while creating the topic: add what is missing."""
        if self.local is None:
            return
        info = self.local.topics().get(TRANSACTION_STATE_TOPIC)
        if info is not None and info.partitions < self.configured_partitions:
            self.local.add_partitions(TRANSACTION_STATE_TOPIC, self.configured_partitions)

    async def append(self, partition: int, key: bytes, value: bytes | None) -> None:
        """Write one record with acks=-1 (Kafka's ``appendTransactionToLog``: required acks
        -1, timeout ``request.timeout.ms``); raises KafkaError with the mapped code."""
        await self.append_batch(partition, build_batch([(key, value)], timestamp=self.time_ms()))

    def max_batch_bytes(self, partition: int) -> int | None:
        """The partition's ``max.message.bytes``; None when it is not hosted here."""
        config = self.access.get_log_config(TRANSACTION_STATE_TOPIC, partition)
        return None if config is None else config.max_message_bytes

    async def append_batch(self, partition: int, records: bytes) -> None:
        """Append a built batch with acks=-1 (see ``append``)."""
        batch = memoryview(bytearray(records))
        tp = (TRANSACTION_STATE_TOPIC, partition)
        try:
            results = self.access.append_records(
                [(tp, batch)],
                required_acks=-1,
                origin=AppendOrigin.COORDINATOR,
                timeout_ms=self.append_timeout_ms,
            )
            if not isinstance(results, Mapping):
                results = await results
        except OSError as exc:
            raise KafkaError(ErrorCode.NOT_COORDINATOR, str(exc)) from None
        error = results[tp].error
        if error is not None:
            raise KafkaError(append_error(error), error.message)

    def reader(self, partition: int) -> PartitionReader:
        """The loader's reads of the partition (on the event loop; decoding is off it)."""
        return PartitionReader(self.access, TRANSACTION_STATE_TOPIC, partition, LOAD_BUFFER_BYTES)

    async def close(self) -> None:
        task = self._creating
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
