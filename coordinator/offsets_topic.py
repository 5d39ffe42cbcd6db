"""``__consumer_offsets`` itself: its creation, the group coordinator's appends, and its replay.

The topic half of Kafka's ``GroupMetadataManager`` (core/.../coordinator/group/
GroupMetadataManager.scala): ``appendForGroup`` (with ``maybeConvertOffsetCommitError`` and
``storeGroup``'s error mapping) for the writes of ``storeGroup``, ``storeOffsets`` and
``cleanupGroupMetadata``, the read loop of ``doLoadGroupsAndOffsets``, and the topic's
creation (``GroupCoordinator.offsetsTopicConfigs``, created as Kafka's
``AutoTopicCreationManager`` does on FindCoordinator). What the records hold (their codecs)
and the committed offsets in memory (``OffsetStore``) are ``coordinator.group_offsets``.

- ``OffsetsTopic``: the topic. Created on first use through the LogManager
  (``cleanup.policy=compact``, ``segment.bytes`` = ``offsets.topic.segment.bytes``;
  one marked call site, until the controller creates internal topics); records
  are appended through the broker's ReplicaManager (``PartitionAccess``) with the
  origin COORDINATOR, in one batch per write (a commit is atomic, as Kafka's), with
  ``offsets.commit.required.acks`` (acks=-1: answered once every in-sync replica has it;
  tombstones with acks=0, as ``GroupMetadataManager.cleanupGroupMetadata``), and
  replayed from the log start at broker start. The log cleaner compacts it
  (``cleanup.policy=compact``), as Kafka's; replay steps over the gaps it leaves.
- ``ClusterOffsetsTopic``: the same in a ZooKeeper-mode cluster, created cluster-wide
  through an ``InternalTopicCreator`` (which ``__transaction_state`` uses too).
- ``PartitionReader``, ``replay_off_loop`` and ``scan_data_records``: the replay of an
  internal topic's partition (read on the event loop, decoded off it), shared with the
  transaction coordinator's loader.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from coordinator.group_offsets import OFFSETS_TOPIC, partition_for
from protocol.errors import ErrorCode, KafkaError
from protocol.record_batch import iter_batches
from protocol.records import build_batch, decode_batch
from storage.log_config import parse_topic_overrides
from storage.producer_state import AppendOrigin

if TYPE_CHECKING:
    from coordinator.partition_access import PartitionAccess
    from storage.log_manager import LogManager

# The topic's log lines, under the logger name they had before the split.
log = logging.getLogger("coordinator.group_offsets")

# Retries of a failed creation (Kafka's retry.backoff.ms and retry.backoff.max.ms defaults).
CREATE_RETRY_BACKOFF_S = 0.1
CREATE_RETRY_BACKOFF_MAX_S = 1.0

# offsets.load.buffer.size: how much of a partition is read per step while loading.
LOAD_BUFFER_BYTES = 5 * 1024 * 1024


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

    def reader(self, partition: int) -> PartitionReader:
        """The loader's reads of the partition (on the event loop; decoding is off it)."""
        return PartitionReader(self.partitions, OFFSETS_TOPIC, partition, LOAD_BUFFER_BYTES)


# ---------------------------------------------------------------- a ZooKeeper-mode cluster


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


# ---------------------------------------------------------------- replay


class PartitionReader:
    """The read loop of Kafka's ``GroupMetadataManager.doLoadGroupsAndOffsets`` and
    ``TransactionStateManager.loadTransactionMetadata``: whole batches from the log start
    while the position is below the log end, the end read again at every step (Kafka's
    ``logEndOffset`` is a def), so what is appended while a partition loads (a transaction's
    marker) is read as well. ``access`` has ``log_offsets`` and ``read_records`` (the
    ReplicaManager).

    On the event loop: the segment list changes there, and a chunk is at most about
    ``chunk_bytes`` (offsets.load.buffer.size) of page-cache reads. What a chunk holds is
    decoded by the caller, off the loop (``scan_data_records``), which then ``advance``s."""

    def __init__(self, access: Any, topic: str, partition: int, chunk_bytes: int = LOAD_BUFFER_BYTES) -> None:
        self.access = access
        self.topic = topic
        self.partition = partition
        self.chunk_bytes = chunk_bytes
        self.position: int | None = None  # the log start offset once first read
        self._stalled = False

    def next_chunk(self) -> memoryview | None:
        """Whole batches from the position on (at least one), or None when the position has
        reached the log end as it is now (or the partition is not served here any more)."""
        if self._stalled:
            return None
        try:
            offsets = self.access.log_offsets(self.topic, self.partition)
        except KafkaError:
            return None
        if self.position is None:
            self.position = offsets.log_start_offset
        end = offsets.log_end_offset
        if self.position >= end:
            return None
        data = self.access.read_records(
            self.topic, self.partition, self.position, self.chunk_bytes, max_offset=end
        )
        return memoryview(data) if data else None

    def advance(self, next_offset: int) -> None:
        """The chunk just read ends before ``next_offset`` (its last batch's next offset)."""
        assert self.position is not None
        if next_offset <= self.position:
            self._stalled = True  # no whole batch in it: reading it again would loop forever
        else:
            self.position = next_offset


class PartitionLoad(Protocol):
    """What a coordinator's load replays (``GroupLoad``, ``TxnLoad``): ``consume`` and
    ``build`` run in an executor thread, one at a time."""

    stale: bool  # records consumed since the last build

    def consume(self, data: memoryview, position: int) -> int: ...

    def build(self) -> None: ...


async def replay_off_loop(reader: PartitionReader, load: PartitionLoad) -> None:
    """Read the partition with ``reader`` on the loop and replay each chunk into ``load`` in
    an executor, building again whenever records arrived since the last build, until the log
    end is reached with nothing left to build. Returns on the loop right after that check:
    the caller installs the load in the same step, so no record can fall in between."""
    loop = asyncio.get_running_loop()
    while True:
        data = reader.next_chunk()
        if data is not None:
            reader.advance(await loop.run_in_executor(None, load.consume, data, reader.position))
        elif load.stale:
            await loop.run_in_executor(None, load.build)
        else:
            return


def scan_data_records(
    data: memoryview, position: int
) -> tuple[list[tuple[int, bytes | None, bytes | None]], int]:
    """(offset, key, value) of the data records at or after ``position`` in the whole batches
    of ``data`` (control batches skipped), and the offset after its last batch. Pure CPU
    work, run off the event loop by the loaders."""
    records: list[tuple[int, bytes | None, bytes | None]] = []
    nxt = position
    for bpos, header in iter_batches(data):
        nxt = header.next_offset
        if header.is_control:
            continue
        for rec in decode_batch(data[bpos : bpos + header.size], header):
            if rec.offset >= position:
                records.append((rec.offset, rec.key, rec.value))
    return records, nxt


__all__ = [
    "ClusterOffsetsTopic",
    "InternalTopicCreator",
    "OffsetsTopic",
    "PartitionReader",
    "replay_off_loop",
    "scan_data_records",
]
