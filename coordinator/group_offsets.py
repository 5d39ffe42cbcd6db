"""Committed offsets and the internal topic that makes them durable: ``__consumer_offsets``.

Kafka keeps a group's committed offsets and its membership snapshot in the
compacted internal topic ``__consumer_offsets`` (``offsets.topic.num.partitions``
partitions, a group living in partition ``abs(groupId.hashCode) % partitions``).
This module has the three pieces of that, in Kafka's formats, so Kafka's own
tools (and the Spark jobs) can read the topic:

- the record codecs (Kafka's group-coordinator JSON schemas, hand-written):
  keys ``OffsetCommitKey`` (record type 0/1, written as 1) and
  ``GroupMetadataKey`` (type 2); values ``OffsetCommitValue`` v0-4 (written as
  v3, or v1 when a v2-4 commit carries a retention time) and
  ``GroupMetadataValue`` v0-4 (written as v3). A null value is a tombstone.
  Other record types (KIP-848 consumer groups, share groups) are skipped.
- ``OffsetsTopic``: the topic. Created on first use through the LogManager
  (``cleanup.policy=compact``, ``segment.bytes`` = ``offsets.topic.segment.bytes``;
  one marked call site, until the controller creates internal topics); records
  are appended through the broker's ReplicaManager (``PartitionAccess``) with the
  origin COORDINATOR, in one batch per write (a commit is atomic, as Kafka's), with
  ``offsets.commit.required.acks`` (acks=-1: answered once every in-sync replica has it;
  tombstones with acks=0, as ``GroupMetadataManager.cleanupGroupMetadata``), and
  replayed from the log start at broker start. The log cleaner compacts it
  (``cleanup.policy=compact``), as Kafka's; replay steps over the gaps it leaves.
- ``OffsetStore``: the in-memory view (the offset whose record was appended last wins,
  tombstones delete), with Kafka's expiry rule (``OffsetExpirationConditionImpl``).

Transactional offset commits (TxnOffsetCommit) are ``coordinator.group_txn_offsets``:
held pending until their marker; the group coordinator's loader reads the topic with
``group_txn_offsets.replay_resolving_txns``, which resolves transactional batches by
their markers.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Container, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from protocol.errors import ErrorCode, KafkaError
from protocol.primitives import (
    INT16,
    INT32,
    INT64,
    DecodeError,
    EncodeError,
    read_array_length,
    read_bytes,
    read_compact_array_length,
    read_compact_bytes,
    read_compact_nullable_string,
    read_compact_string,
    read_int16,
    read_int32,
    read_int64,
    read_nullable_string,
    read_string,
    read_tagged_fields,
    write_array_length,
    write_bytes,
    write_nullable_string,
    write_string,
)
from protocol.record_batch import iter_batches
from protocol.records import build_batch, decode_batch
from storage.log_config import parse_topic_overrides
from storage.producer_state import AppendOrigin

if TYPE_CHECKING:
    from coordinator.partition_access import PartitionAccess
    from storage.log_manager import LogManager

log = logging.getLogger(__name__)

# Retries of a failed creation (Kafka's retry.backoff.ms and retry.backoff.max.ms defaults).
CREATE_RETRY_BACKOFF_S = 0.1
CREATE_RETRY_BACKOFF_MAX_S = 1.0

OFFSETS_TOPIC = "__consumer_offsets"

# Record types: the int16 version that starts every key (CoordinatorRecordType).
OFFSET_COMMIT_KEY_V0 = 0
OFFSET_COMMIT_KEY_V1 = 1
GROUP_METADATA_KEY_V2 = 2

OFFSET_COMMIT_VALUE_VERSION = 3  # MetadataVersion.offsetCommitValueVersion(false)
OFFSET_COMMIT_VALUE_VERSION_WITH_EXPIRY = 1  # ... (true): the only version with expireTimestamp
GROUP_METADATA_VALUE_VERSION = 3  # MetadataVersion.groupMetadataValueVersion()

NO_METADATA = ""
INVALID_OFFSET = -1
NO_LEADER_EPOCH = -1

# offsets.load.buffer.size: how much of a partition is read per step while loading.
LOAD_BUFFER_BYTES = 5 * 1024 * 1024


# ---------------------------------------------------------------- partitioning


@functools.lru_cache(maxsize=65536)
def java_string_hash(s: str) -> int:
    """Java's ``String.hashCode`` (31-based over UTF-16 code units, int32 overflow)."""
    h = 0
    raw = s.encode("utf-16-be")
    for i in range(0, len(raw), 2):
        h = (31 * h + ((raw[i] << 8) | raw[i + 1])) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


def partition_for(group_id: str, num_partitions: int) -> int:
    """Kafka's ``Utils.abs(groupId.hashCode) % numPartitions`` (abs(MIN_VALUE) is 0)."""
    h = java_string_hash(group_id)
    return (0 if h == -(1 << 31) else abs(h)) % num_partitions


def utf16_length(s: str) -> int:
    """``String.length()`` in Java: UTF-16 code units (offset.metadata.max.bytes counts these)."""
    return len(s.encode("utf-16-le", "surrogatepass")) // 2


# ---------------------------------------------------------------- values


@dataclass(frozen=True, slots=True)
class OffsetAndMetadata:
    """One committed offset (Kafka's ``OffsetAndMetadata``)."""

    committed_offset: int
    leader_epoch: int = NO_LEADER_EPOCH
    metadata: str = NO_METADATA
    commit_timestamp_ms: int = -1
    expire_timestamp_ms: int | None = None  # only from v2-4 commits with a retention time


@dataclass(frozen=True, slots=True)
class OffsetKey:
    group: str
    topic: str
    partition: int


@dataclass(frozen=True, slots=True)
class GroupKey:
    group: str


@dataclass(slots=True)
class MemberRecord:
    """A member inside ``GroupMetadataValue``."""

    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    rebalance_timeout_ms: int
    session_timeout_ms: int
    subscription: bytes
    assignment: bytes


@dataclass(slots=True)
class GroupRecord:
    """``GroupMetadataValue``: a classic group's membership snapshot."""

    protocol_type: str
    generation: int
    protocol: str | None
    leader: str | None
    current_state_timestamp_ms: int = -1
    members: list[MemberRecord] = field(default_factory=list)


# ---------------------------------------------------------------- codecs


def encode_offset_key(group: str, topic: str, partition: int) -> bytes:
    w = bytearray(INT16.pack(OFFSET_COMMIT_KEY_V1))
    write_string(w, group)
    write_string(w, topic)
    w += INT32.pack(partition)
    return bytes(w)


def encode_group_key(group: str) -> bytes:
    w = bytearray(INT16.pack(GROUP_METADATA_KEY_V2))
    write_string(w, group)
    return bytes(w)


def decode_key(buf: Any) -> OffsetKey | GroupKey | None:
    """The key of a ``__consumer_offsets`` record; None for record types this broker ignores."""
    version, pos = read_int16(buf, 0)
    if version in (OFFSET_COMMIT_KEY_V0, OFFSET_COMMIT_KEY_V1):
        group, pos = read_string(buf, pos)
        topic, pos = read_string(buf, pos)
        partition, pos = read_int32(buf, pos)
        return OffsetKey(group, topic, partition)
    if version == GROUP_METADATA_KEY_V2:
        group, pos = read_string(buf, pos)
        return GroupKey(group)
    if version < 0:
        raise DecodeError(f"invalid record type {version}")
    return None


def encode_offset_value(om: OffsetAndMetadata) -> bytes:
    """OffsetCommitValue v3, or v1 when the commit carries an explicit expiry."""
    if om.expire_timestamp_ms is not None:
        w = bytearray(INT16.pack(OFFSET_COMMIT_VALUE_VERSION_WITH_EXPIRY))
        w += INT64.pack(om.committed_offset)
        write_string(w, om.metadata)
        w += INT64.pack(om.commit_timestamp_ms)
        w += INT64.pack(om.expire_timestamp_ms)
        return bytes(w)
    w = bytearray(INT16.pack(OFFSET_COMMIT_VALUE_VERSION))
    w += INT64.pack(om.committed_offset)
    w += INT32.pack(om.leader_epoch)
    write_string(w, om.metadata)
    w += INT64.pack(om.commit_timestamp_ms)
    return bytes(w)


def decode_offset_value(buf: Any) -> OffsetAndMetadata:
    version, pos = read_int16(buf, 0)
    if not 0 <= version <= 4:
        raise DecodeError(f"unknown OffsetCommitValue version {version}")
    offset, pos = read_int64(buf, pos)
    epoch = NO_LEADER_EPOCH
    if version >= 3:
        epoch, pos = read_int32(buf, pos)
    if version >= 4:
        metadata, pos = read_compact_string(buf, pos)
    else:
        metadata, pos = read_string(buf, pos)
    commit_ts, pos = read_int64(buf, pos)
    expire_ts = None
    if version == 1:
        expire_ts, pos = read_int64(buf, pos)
        if expire_ts == -1:
            expire_ts = None
    if version >= 4:
        _, pos = read_tagged_fields(buf, pos)
    return OffsetAndMetadata(offset, epoch, metadata, commit_ts, expire_ts)


def encode_group_value(rec: GroupRecord) -> bytes:
    """GroupMetadataValue v3 (non-flexible)."""
    w = bytearray(INT16.pack(GROUP_METADATA_VALUE_VERSION))
    write_string(w, rec.protocol_type)
    w += INT32.pack(rec.generation)
    write_nullable_string(w, rec.protocol)
    write_nullable_string(w, rec.leader)
    w += INT64.pack(rec.current_state_timestamp_ms)
    write_array_length(w, len(rec.members))
    for m in rec.members:
        write_string(w, m.member_id)
        write_nullable_string(w, m.group_instance_id)
        write_string(w, m.client_id)
        write_string(w, m.client_host)
        w += INT32.pack(m.rebalance_timeout_ms)
        w += INT32.pack(m.session_timeout_ms)
        write_bytes(w, m.subscription)
        write_bytes(w, m.assignment)
    return bytes(w)


def decode_group_value(buf: Any) -> GroupRecord:
    version, pos = read_int16(buf, 0)
    if not 0 <= version <= 4:
        raise DecodeError(f"unknown GroupMetadataValue version {version}")
    flexible = version >= 4
    rstr = read_compact_string if flexible else read_string
    rnstr = read_compact_nullable_string if flexible else read_nullable_string
    rbytes = read_compact_bytes if flexible else read_bytes
    protocol_type, pos = rstr(buf, pos)
    generation, pos = read_int32(buf, pos)
    protocol, pos = rnstr(buf, pos)
    leader, pos = rnstr(buf, pos)
    state_ts = -1
    if version >= 2:
        state_ts, pos = read_int64(buf, pos)
    n, pos = (read_compact_array_length if flexible else read_array_length)(buf, pos)
    members = []
    for _ in range(max(n, 0)):
        member_id, pos = rstr(buf, pos)
        instance_id = None
        if version >= 3:
            instance_id, pos = rnstr(buf, pos)
        client_id, pos = rstr(buf, pos)
        client_host, pos = rstr(buf, pos)
        rebalance_timeout = -1
        if version >= 1:
            rebalance_timeout, pos = read_int32(buf, pos)
        session_timeout, pos = read_int32(buf, pos)
        if version == 0:
            rebalance_timeout = session_timeout
        subscription, pos = rbytes(buf, pos)
        assignment, pos = rbytes(buf, pos)
        if flexible:
            _, pos = read_tagged_fields(buf, pos)
        members.append(
            MemberRecord(
                member_id,
                instance_id,
                client_id,
                client_host,
                rebalance_timeout,
                session_timeout,
                subscription,
                assignment,
            )
        )
    if flexible:
        _, pos = read_tagged_fields(buf, pos)
    return GroupRecord(protocol_type, generation, protocol, leader, state_ts, members)


# ---------------------------------------------------------------- the internal topic


def _storage_error(exc: KafkaError, *, for_offsets: bool) -> KafkaError:
    """Kafka's mapping of append errors for coordinator writes.

    Offsets (``for_offsets``): Kafka 3.9's ``GroupMetadataManager.maybeConvertOffsetCommitError``;
    group metadata: ``storeGroup``'s putCacheCallback. Replica problems ask the client to
    retry, too-large writes are the client's fault. A timeout (offsets.commit.timeout.ms)
    stays REQUEST_TIMED_OUT for offsets (3.9 does not map it; COORDINATOR_NOT_AVAILABLE is
    Kafka 4's ``CoordinatorRuntime``) and makes a group write's members rejoin
    (REBALANCE_IN_PROGRESS).
    """
    e = exc.error
    if e in (
        ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        ErrorCode.NOT_ENOUGH_REPLICAS,
        ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
    ):
        return KafkaError(ErrorCode.COORDINATOR_NOT_AVAILABLE, exc.message)
    if e is ErrorCode.REQUEST_TIMED_OUT:
        return exc if for_offsets else KafkaError(ErrorCode.REBALANCE_IN_PROGRESS, exc.message)
    if e in (ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.KAFKA_STORAGE_ERROR):
        return KafkaError(ErrorCode.NOT_COORDINATOR, exc.message)
    if e in (ErrorCode.MESSAGE_TOO_LARGE, ErrorCode.RECORD_LIST_TOO_LARGE, ErrorCode.INVALID_FETCH_SIZE):
        code = ErrorCode.INVALID_COMMIT_OFFSET_SIZE if for_offsets else ErrorCode.UNKNOWN_SERVER_ERROR
        return KafkaError(code, exc.message)
    return exc if for_offsets else KafkaError(ErrorCode.UNKNOWN_SERVER_ERROR, exc.message)


async def _await_replicated(
    pending: Awaitable[Mapping[tuple[str, int], Any]], key: tuple[str, int], *, for_offsets: bool
) -> int:
    """The base offset of a coordinator write once the partition's high watermark passed it."""
    result = (await pending)[key]
    if result.error is not None:
        raise _storage_error(result.error, for_offsets=for_offsets)
    return result.info.base_offset


Record = tuple[bytes, bytes | None]


class OffsetsTopic:
    """``__consumer_offsets``: create (LogManager), append and replay (``PartitionAccess``)."""

    def __init__(
        self,
        log_manager: LogManager,
        partitions: PartitionAccess,
        *,
        num_partitions: int,
        segment_bytes: int,
        time_ms: Callable[[], int],
        commit_required_acks: int = -1,
        commit_timeout_ms: int = 5000,
    ) -> None:
        # The LogManager only creates the topic and tells whether it exists (see
        # _create_partitions); every append and read goes through ``partitions``.
        self.log_manager = log_manager
        self.partitions = partitions
        self.configured_partitions = num_partitions
        self.segment_bytes = segment_bytes
        self.time_ms = time_ms
        # offsets.commit.required.acks / offsets.commit.timeout.ms (GroupCoordinatorConfig)
        self.commit_required_acks = commit_required_acks
        self.commit_timeout_ms = commit_timeout_ms
        self._existing: int | None = None
        self._creating: asyncio.Task | None = None

    def existing_partitions(self) -> int | None:
        """Partitions of the topic if it exists (cached: Kafka never changes the count)."""
        # Existence is the LogManager's knowledge until the controller publishes the topic.
        if self._creating is not None or self.log_manager.get_log(OFFSETS_TOPIC, 0) is None:
            self._existing = None  # not created yet (or being created), or deleted
            return None
        if self._existing is None:
            info = self.log_manager.topics().get(OFFSETS_TOPIC)
            self._existing = None if info is None else info.partitions
        return self._existing

    @property
    def partition_count(self) -> int:
        # An existing topic keeps its partition count (Kafka reads it from the metadata),
        # whatever offsets.topic.num.partitions says now.
        existing = self.existing_partitions()
        return existing if existing is not None else self.configured_partitions

    def partition_for(self, group_id: str) -> int:
        return partition_for(group_id, self.partition_count)

    @property
    def creating(self) -> bool:
        return self._creating is not None

    def _overrides(self) -> dict[str, Any]:
        return parse_topic_overrides(
            {
                # GroupCoordinator.offsetsTopicConfigs
                "cleanup.policy": "compact",
                "segment.bytes": str(self.segment_bytes),
                "compression.type": "producer",
            }
        )

    def ensure_created(self) -> None:
        """Create the whole topic now if it does not exist (the write path's fallback)."""
        if self._creating is not None:
            raise KafkaError(ErrorCode.COORDINATOR_NOT_AVAILABLE, f"{OFFSETS_TOPIC} is being created")
        if self.existing_partitions() is not None:
            return
        self._create_partitions(self.configured_partitions)
        log.info("created %s with %d partitions", OFFSETS_TOPIC, self.configured_partitions)

    def _create_partitions(self, total: int) -> None:
        """Create the topic, or grow it, to ``total`` partitions.

        THE ONE PLACE the group coordinator creates logs, through the LogManager: until the
        controller creates internal topics (and publishes their partition states), the
        lone broker's ReplicaManager hosts the new logs when they are first used.
        """
        info = self.log_manager.topics().get(OFFSETS_TOPIC)
        if info is None:
            self.log_manager.create_topic(OFFSETS_TOPIC, total, uuid.uuid4(), self._overrides())
        elif info.partitions < total:
            self.log_manager.add_partitions(OFFSETS_TOPIC, total)

    async def close(self) -> None:
        """At shutdown, a creation still under way is finished at once (Kafka's creation is atomic)."""
        task = self._creating
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            try:
                self._add_missing_partitions()
            except KafkaError as exc:
                log.warning("cannot complete the creation of %s at shutdown: %s", OFFSETS_TOPIC, exc)

    def complete_interrupted_creation(self) -> None:
        """At start: a topic with fewer partitions than configured and no record at all was
        left half-created by a crash; finish it (no group can have moved yet)."""
        existing = self.existing_partitions()
        if existing is None or existing >= self.configured_partitions:
            return
        if all(self._log_end_offset(p) == 0 for p in range(existing)):
            log.info(
                "completing the creation of %s (%d of %d partitions)",
                OFFSETS_TOPIC,
                existing,
                self.configured_partitions,
            )
            self._add_missing_partitions()

    def _log_end_offset(self, partition: int) -> int | None:
        try:
            return self.partitions.log_offsets(OFFSETS_TOPIC, partition).log_end_offset
        except KafkaError:
            return None

    def _add_missing_partitions(self) -> None:
        if self.log_manager.topics().get(OFFSETS_TOPIC) is not None:
            self._create_partitions(self.configured_partitions)
        self._existing = None

    def ready(self) -> bool:
        """FindCoordinator's check: True if the topic exists; else start creating it.

        As Kafka (which auto-creates the topic and answers COORDINATOR_NOT_AVAILABLE until
        it exists), the creation runs in the background, one partition per loop turn: each
        partition is a directory and files, ~15 ms, so 50 at once would stall the loop.
        Without a running loop (tools, tests) the topic is created at once.
        """
        if self._creating is not None:
            return False
        if self.existing_partitions() is not None:
            return True
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.ensure_created()
            return True
        self._creating = loop.create_task(self._create_gradually(), name="create-__consumer_offsets")
        return False

    async def _create_gradually(self) -> None:
        """Create the topic partition by partition; a storage error (full or failed log dir)
        is retried with backoff (Kafka's retry.backoff.ms / retry.backoff.max.ms defaults),
        logged once when it starts failing and once when it succeeds. FindCoordinator answers
        COORDINATOR_NOT_AVAILABLE (retriable) until then."""
        total = self.configured_partitions
        started = time.monotonic()
        failures = 0
        backoff_s = CREATE_RETRY_BACKOFF_S
        try:
            while True:
                try:
                    for n in range(1, total + 1):
                        if n > 1:
                            await asyncio.sleep(0)
                        self._create_partitions(n)
                    break
                except (KafkaError, OSError) as exc:
                    if failures == 0:
                        log.warning(
                            "cannot create %s: %s; retrying with backoff until it succeeds",
                            OFFSETS_TOPIC,
                            exc,
                        )
                    failures += 1
                    await asyncio.sleep(backoff_s)
                    backoff_s = min(backoff_s * 2, CREATE_RETRY_BACKOFF_MAX_S)
            log.info(
                "created %s with %d partitions in %.0f ms%s",
                OFFSETS_TOPIC,
                total,
                (time.monotonic() - started) * 1000,
                f" after {failures} failed attempts" if failures else "",
            )
        except Exception:
            log.exception("cannot create %s", OFFSETS_TOPIC)
        finally:
            self._creating = None
            self._existing = None

    def append(
        self,
        partition: int,
        records: list[Record],
        *,
        for_offsets: bool,
        required_acks: int | None = None,
    ) -> int | Awaitable[int]:
        """Append ``records`` as one batch (a commit is atomic, as Kafka's); returns its base
        offset once the write is committed. Raises (or the awaitable raises) mapped KafkaErrors.

        Through the ReplicaManager with the origin COORDINATOR and Kafka's
        ``offsets.commit.required.acks`` (default -1) and ``offsets.commit.timeout.ms``
        (``GroupMetadataManager.appendForGroup``): with acks=-1 the partition's
        ``min.insync.replicas`` is checked before the append (NOT_ENOUGH_REPLICAS) and the
        write waits in the produce purgatory until the high watermark passes it, so an
        acknowledged commit is on every in-sync replica. The base offset comes back at once
        when nothing has to wait (acks 0 or 1, or a lone in-sync replica); else an awaitable.
        ``required_acks`` overrides the configured acks: tombstones pass 0, as Kafka's
        ``cleanupGroupMetadata`` (no min.insync.replicas check and no wait, so a short ISR
        cannot keep deleted state in the log once memory has forgotten it).
        """
        self.ensure_created()
        batch = memoryview(bytearray(build_batch(records, timestamp=self.time_ms())))
        key = (OFFSETS_TOPIC, partition)
        acks = self.commit_required_acks if required_acks is None else required_acks
        try:
            outcome = self.partitions.append_records(
                [(key, batch)],
                required_acks=acks,
                origin=AppendOrigin.COORDINATOR,
                timeout_ms=self.commit_timeout_ms,
            )
        except OSError as exc:
            log.error("cannot append to %s-%d: %s", OFFSETS_TOPIC, partition, exc)
            raise KafkaError(ErrorCode.NOT_COORDINATOR, str(exc)) from None
        if not isinstance(outcome, Mapping):
            return _await_replicated(outcome, key, for_offsets=for_offsets)
        result = outcome[key]
        if result.error is not None:
            raise _storage_error(result.error, for_offsets=for_offsets)
        return result.info.base_offset

    def replay(self, partition: int) -> Iterator[list[tuple[int, bytes | None, bytes | None]]]:
        """(offset, key, value) of every record of the partition, in chunks of about
        ``LOAD_BUFFER_BYTES`` (the loader yields to the event loop between chunks)."""
        return read_topic_records(self.partitions, OFFSETS_TOPIC, partition, LOAD_BUFFER_BYTES)


# ---------------------------------------------------------------- the in-memory store


class InternalTopicCreator(Protocol):
    """ZooKeeper mode: the cluster's view of an internal topic, and its creation (the broker
    implements it with its MetadataCache and AdminZkClient)."""

    def partition_count(self, topic: str) -> int | None:
        """The topic's partitions as the cluster knows them (None: it does not exist)."""
        ...

    async def create_internal_topic(self, topic: str, partitions: int, configs: dict[str, str]) -> None:
        """Write the topic (TOPIC_ALREADY_EXISTS when another broker was first is fine)."""
        ...


class ClusterOffsetsTopic(OffsetsTopic):
    """``__consumer_offsets`` of a ZooKeeper-mode cluster: it exists when the cluster view
    has it (this broker may host only some of its partitions, or none), and FindCoordinator's
    first use creates it cluster-wide with one znode write (Kafka's
    ``AutoTopicCreationManager``), retried on the next FindCoordinator if it fails. The
    logs of the partitions this broker hosts are made by the LeaderAndIsr that follows."""

    def __init__(
        self,
        creator: InternalTopicCreator,
        partitions: PartitionAccess,
        *,
        num_partitions: int,
        segment_bytes: int,
        time_ms: Callable[[], int],
        commit_required_acks: int = -1,
        commit_timeout_ms: int = 5000,
    ) -> None:
        super().__init__(
            None,  # type: ignore[arg-type]  # no local creation in a cluster
            partitions,
            num_partitions=num_partitions,
            segment_bytes=segment_bytes,
            time_ms=time_ms,
            commit_required_acks=commit_required_acks,
            commit_timeout_ms=commit_timeout_ms,
        )
        self.creator = creator

    def existing_partitions(self) -> int | None:
        return self.creator.partition_count(OFFSETS_TOPIC)

    def ensure_created(self) -> None:
        if self.existing_partitions() is None:
            self.ready()
            raise KafkaError(ErrorCode.COORDINATOR_NOT_AVAILABLE, f"{OFFSETS_TOPIC} does not exist yet")

    def complete_interrupted_creation(self) -> None:
        """Nothing to complete: the topic is one znode, written at once."""

    def ready(self) -> bool:
        if self.existing_partitions() is not None:
            return True
        if self._creating is None:
            self._creating = asyncio.get_running_loop().create_task(
                self._create_in_cluster(), name="create-__consumer_offsets"
            )
        return False

    async def _create_in_cluster(self) -> None:
        configs = {
            # GroupCoordinator.offsetsTopicConfigs
            "cleanup.policy": "compact",
            "segment.bytes": str(self.segment_bytes),
            "compression.type": "producer",
        }
        try:
            await self.creator.create_internal_topic(OFFSETS_TOPIC, self.configured_partitions, configs)
        except KafkaError as exc:
            if exc.error is not ErrorCode.TOPIC_ALREADY_EXISTS:
                log.warning("cannot create %s: %s", OFFSETS_TOPIC, exc.message)
        except Exception as exc:  # ZooKeeper unreachable: the next FindCoordinator retries
            log.warning("cannot create %s: %s", OFFSETS_TOPIC, exc)
        finally:
            self._creating = None

    async def close(self) -> None:
        task = self._creating
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


def is_offset_expired(
    om: OffsetAndMetadata, now_ms: int, retention_ms: int, base_timestamp_ms: int | None
) -> bool:
    """Kafka's ``OffsetExpirationConditionImpl.isOffsetExpired``."""
    if om.expire_timestamp_ms is not None:
        # Older commits (v2-4 with a retention time) keep their own expiry.
        return now_ms >= om.expire_timestamp_ms
    base = om.commit_timestamp_ms if base_timestamp_ms is None else base_timestamp_ms
    return now_ms - base >= retention_ms


class OffsetStore:
    """Committed offsets by group, topic and partition, each with the log offset of the
    record that holds it: the record appended last wins, as in Kafka's
    ``CommitRecordMetadataAndOffset.olderThan`` (a transactional commit applies at its
    marker, yet a plain commit appended after its batch stays)."""

    def __init__(self) -> None:
        self._by_group: dict[str, dict[tuple[str, int], OffsetAndMetadata]] = {}
        # group -> partition -> where its offset's record is in __consumer_offsets (-1: unknown)
        self._written_at: dict[str, dict[tuple[str, int], int]] = {}

    def __len__(self) -> int:
        return sum(len(v) for v in self._by_group.values())

    def groups(self) -> list[str]:
        return list(self._by_group)

    def get(self, group: str, topic: str, partition: int) -> OffsetAndMetadata | None:
        offsets = self._by_group.get(group)
        return None if offsets is None else offsets.get((topic, partition))

    def group_offsets(self, group: str) -> Mapping[tuple[str, int], OffsetAndMetadata]:
        return self._by_group.get(group, {})

    def has_offsets(self, group: str) -> bool:
        return bool(self._by_group.get(group))

    def put(
        self, group: str, topic: str, partition: int, om: OffsetAndMetadata, log_offset: int = -1
    ) -> bool:
        """Store ``om``, written at ``log_offset`` of the group's partition, unless the current
        offset's record was appended after it; True if stored. An unknown ``log_offset`` (-1)
        counts as the newest. Records of one batch share its offset: the later one wins."""
        tp = (topic, partition)
        written = self._written_at.get(group)
        if written is None:
            written = self._written_at[group] = {}
        elif log_offset >= 0 and written.get(tp, -1) > log_offset:
            return False
        written[tp] = log_offset
        self._by_group.setdefault(group, {})[tp] = om
        return True

    def remove(self, group: str, topic: str, partition: int) -> bool:
        offsets = self._by_group.get(group)
        if offsets is None or offsets.pop((topic, partition), None) is None:
            return False
        written = self._written_at[group]
        del written[(topic, partition)]
        if not offsets:
            del self._by_group[group]
            del self._written_at[group]
        return True

    def remove_group(self, group: str) -> list[tuple[str, int]]:
        self._written_at.pop(group, None)
        return list(self._by_group.pop(group, {}))

    def partitions_of_topic(self, topic: str) -> list[tuple[str, int]]:
        """(group, partition) pairs holding an offset of ``topic``."""
        return [(g, p) for g, offsets in self._by_group.items() for (t, p) in offsets if t == topic]

    def expired(
        self,
        group: str,
        now_ms: int,
        retention_ms: int,
        *,
        base_timestamp_ms: int | None,
        keep_topics: frozenset[str] = frozenset(),
        in_flight: Container[tuple[str, int]] = (),
    ) -> list[tuple[str, int]]:
        """Partitions whose offsets expired (topics in ``keep_topics`` never do, nor partitions
        ``in_flight``: a commit of them is being written, as Kafka's
        ``GroupMetadata.removeExpiredOffsets`` skips ``pendingOffsetCommits``)."""
        return [
            tp
            for tp, om in self._by_group.get(group, {}).items()
            if tp[0] not in keep_topics
            and tp not in in_flight
            and is_offset_expired(om, now_ms, retention_ms, base_timestamp_ms)
        ]


__all__ = [
    "INVALID_OFFSET",
    "NO_LEADER_EPOCH",
    "NO_METADATA",
    "OFFSETS_TOPIC",
    "EncodeError",
    "GroupKey",
    "GroupRecord",
    "MemberRecord",
    "OffsetAndMetadata",
    "OffsetKey",
    "OffsetStore",
    "OffsetsTopic",
    "decode_group_value",
    "decode_key",
    "decode_offset_value",
    "encode_group_key",
    "encode_group_value",
    "encode_offset_key",
    "encode_offset_value",
    "is_offset_expired",
    "java_string_hash",
    "partition_for",
    "utf16_length",
]


def read_topic_records(
    access: Any, topic: str, partition: int, chunk_bytes: int
) -> Iterator[list[tuple[int, bytes | None, bytes | None]]]:
    """(offset, key, value) of every data record of an internal topic's partition, from its log
    start to the end it had when the read began, in chunks of about ``chunk_bytes`` (the
    coordinators' loaders yield to the event loop between chunks); control batches skipped.
    ``access`` has ``log_offsets`` and ``read_records`` (the ReplicaManager)."""
    try:
        offsets = access.log_offsets(topic, partition)
    except KafkaError:
        return
    pos, end = offsets.log_start_offset, offsets.log_end_offset
    while pos < end:
        data = access.read_records(topic, partition, pos, chunk_bytes, max_offset=end)
        if not data:
            break
        mv = memoryview(data)
        chunk: list[tuple[int, bytes | None, bytes | None]] = []
        nxt = pos
        for bpos, header in iter_batches(mv):
            nxt = header.next_offset
            if header.is_control:
                continue
            for rec in decode_batch(mv[bpos : bpos + header.size], header):
                if rec.offset >= pos:
                    chunk.append((rec.offset, rec.key, rec.value))
        if nxt <= pos:
            break
        pos = nxt
        yield chunk
