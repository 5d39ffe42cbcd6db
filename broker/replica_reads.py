"""ReplicaManager's fetch read path: ``fetch_messages`` and its reads of the local logs.

The read half of Kafka's ``ReplicaManager``: ``fetchMessages`` (answer now, or park a
``DelayedFetch`` until ``min_bytes`` are readable), ``readFromLog`` / ``readFromLocalLog``
(``_read_from_local_log``: each partition within the request's byte budget, a follower's
fetch state updated), ``findPreferredReadReplica`` (KIP-392) and
``completeDelayedFetchRequests``. The request and answer types are in broker/fetch_params.py
(Kafka's ``FetchParams``, ``FetchPartitionData``). ``ReplicaReads`` is a base class of
``ReplicaManager`` (broker/replica_manager.py), which owns the state it uses (set up in its
``__init__``): callers keep calling ``replica_manager.fetch_messages``, with no extra call or
attribute hop per request.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from broker.fetch_params import ClientMetadata, FetchParams, FetchPartitionData, FetchPartitionInfo
from broker.purgatory import DelayedFetch, FetchPartitionStatus
from protocol.errors import ErrorCode, KafkaError
from storage.file_records import FileRecords

if TYPE_CHECKING:
    from broker.metrics import BrokerTopicStats
    from broker.partition import Partition
    from broker.purgatory import DelayedOperationPurgatory
    from broker.replica_selector import ReplicaSelection

TopicPartition = tuple[str, int]
MAX_FILE_RECORDS_PER_FETCH = 64  # FileRecords (descriptors held) in one fetch answer
# A fetch of more partitions is read in slices of this many, the event loop let go between.
FETCH_PARTITIONS_PER_TURN = 256


class ReplicaReads:
    """Fetches from the hosted partitions (a base of ``ReplicaManager``, whose ``__init__``
    sets the attributes below)."""

    broker_id: int
    time_ms: Callable[[], int]
    replica_selection: ReplicaSelection | None
    topic_stats: BrokerTopicStats
    fetch_purgatory: DelayedOperationPurgatory[DelayedFetch]
    _partitions: dict[TopicPartition, Partition]

    if TYPE_CHECKING:  # ReplicaManager's

        def get_partition_or_error(self, topic: str, partition: int) -> Partition: ...

        def _hosted(self, key: TopicPartition) -> Partition | None: ...

        def _complete_delayed_requests(self, key: TopicPartition) -> None: ...

    def fetch_messages(
        self, params: FetchParams, infos: Sequence[tuple[TopicPartition, FetchPartitionInfo]]
    ) -> list[FetchPartitionData] | Awaitable[list[FetchPartitionData]]:
        """Read every partition now, or park until ``min_bytes`` are readable (Kafka's ``fetchMessages``).

        Answers at once when ``max_wait_ms`` is 0, nothing is asked, ``min_bytes`` are
        readable (Kafka's ``bytesReadable``: a partition whose read a whole batch did not fit
        counts as its limit, so a full response always is enough, the handler capping
        ``min_bytes`` at ``max_bytes``), or a partition has an error, a diverging epoch or a
        preferred read replica (KIP-392); otherwise returns an awaitable of
        the partitions read again when the ``DelayedFetch`` completes or expires.

        A fetch of more than ``FETCH_PARTITIONS_PER_TURN`` partitions (a follower's or a
        consumer's first fetch of a session over thousands) is read in slices, the loop let
        go between them (``_fetch_in_slices``): Kafka reads it on a request handler thread.
        """
        if len(infos) > FETCH_PARTITIONS_PER_TURN:
            return self._fetch_in_slices(params, infos)
        results, readable = self._read_from_local_log(params, infos)
        if _answer_now(params, infos, results, readable):
            return self._count_fetched(infos, results)
        _close_file_records(results)  # read again when the DelayedFetch completes
        statuses = []
        for (key, info), read_bytes in zip(infos, readable, strict=True):
            partition = self._partitions[key]  # hosted: it was just read without error
            statuses.append(
                FetchPartitionStatus(
                    key,
                    info.fetch_offset,
                    info.max_bytes,
                    partition.leader_epoch,
                    partition.bytes_below(params.isolation),
                    read_bytes,
                )
            )
        delayed = self._delayed_fetch(params, statuses)
        # The counters were taken with the read above, in the same loop turn: nothing can have
        # grown them yet, and an append from now on finds the operation watched.
        self.fetch_purgatory.watch(delayed, [key for key, _ in infos])
        return self._complete_fetch(delayed, params, infos)

    async def _fetch_in_slices(
        self, params: FetchParams, infos: Sequence[tuple[TopicPartition, FetchPartitionInfo]]
    ) -> list[FetchPartitionData]:
        """``fetch_messages`` for many partitions: the same reads and the same decision, the
        reads ``FETCH_PARTITIONS_PER_TURN`` at a time. Each partition's counters for a
        DelayedFetch are taken in the turn it is read; as the slices let appends in, the
        operation is tried once more as it is watched (Kafka's ``tryCompleteElseWatch``)."""
        marks: list[tuple[int, int]] = []  # (leader epoch, bytes_below) of each read partition
        state = await self._read_in_slices(params, infos, marks=marks)
        results, readable = state.out, state.readable
        if _answer_now(params, infos, results, readable):
            return self._count_fetched(infos, results)
        _close_file_records(results)
        statuses = [
            FetchPartitionStatus(key, info.fetch_offset, info.max_bytes, epoch, below, read_bytes)
            for (key, info), (epoch, below), read_bytes in zip(infos, marks, readable, strict=True)
        ]
        delayed = self._delayed_fetch(params, statuses)
        self.fetch_purgatory.try_complete_else_watch(delayed, [key for key, _ in infos])
        return await self._complete_fetch(delayed, params, infos)

    async def _read_in_slices(
        self,
        params: FetchParams,
        infos: Sequence[tuple[TopicPartition, FetchPartitionInfo]],
        *,
        from_purgatory: bool = False,
        marks: list[tuple[int, int]] | None = None,
    ) -> _LocalRead:
        """``_read_from_local_log`` of ``infos`` a slice per turn of the loop (``marks``: each
        read partition's leader epoch and readable-bytes counter, taken with its read). What
        was read is given back if the request goes away meanwhile."""
        state = _LocalRead(params)
        try:
            for start in range(0, len(infos), FETCH_PARTITIONS_PER_TURN):
                if start:
                    await asyncio.sleep(0)
                part = infos[start : start + FETCH_PARTITIONS_PER_TURN]
                self._read_from_local_log(params, part, from_purgatory=from_purgatory, state=state)
                if marks is not None:
                    hosted = self._partitions
                    for (key, _), result in zip(part, state.out[start:], strict=True):
                        partition = hosted.get(key) if result.error is ErrorCode.NONE else None
                        marks.append(
                            (-1, 0)
                            if partition is None
                            else (partition.leader_epoch, partition.bytes_below(params.isolation))
                        )
        except BaseException:
            _close_file_records(state.out)
            raise
        return state

    def _delayed_fetch(self, params: FetchParams, statuses: list[FetchPartitionStatus]) -> DelayedFetch:
        return DelayedFetch(
            params.max_wait_ms,
            min_bytes=params.min_bytes,
            isolation=params.isolation,
            statuses=statuses,
            partition_of=self._hosted,
            fetch_only_leader=params.fetch_only_leader,
        )

    async def _complete_fetch(
        self,
        delayed: DelayedFetch,
        params: FetchParams,
        infos: Sequence[tuple[TopicPartition, FetchPartitionInfo]],
    ) -> list[FetchPartitionData]:
        try:
            await delayed.future
        finally:
            # The request may be gone (connection closed): stop watching for it.
            self.fetch_purgatory.cancel(delayed)
        if len(infos) > FETCH_PARTITIONS_PER_TURN:
            results = (await self._read_in_slices(params, infos, from_purgatory=True)).out
        else:
            results = self._read_from_local_log(params, infos, from_purgatory=True)[0]
        return self._count_fetched(infos, results)

    def _count_fetched(
        self, infos: Sequence[tuple[TopicPartition, FetchPartitionInfo]], results: list[FetchPartitionData]
    ) -> list[FetchPartitionData]:
        """Kafka's BytesOut and fetch request meters, per partition of the answer sent."""
        stats = self.topic_stats
        hosted = self._partitions
        for (key, _), result in zip(infos, results, strict=True):
            stats.record_fetch(key[0], result.error, len(result.records), hosted=key in hosted)
        return results

    def _read_from_local_log(
        self,
        params: FetchParams,
        infos: Sequence[tuple[TopicPartition, FetchPartitionInfo]],
        *,
        from_purgatory: bool = False,
        state: _LocalRead | None = None,
    ) -> tuple[list[FetchPartitionData], list[int]]:
        """Kafka's ``readFromLocalLog``: each partition within the request's byte budget; the
        first partition with data returns at least one whole batch (KIP-74). A follower's
        fetch state is updated by its first read only, not by the read of a completed
        DelayedFetch (``from_purgatory``, Kafka's ``readFromPurgatory``).

        Returns the answers and the bytes readable of each partition as Kafka counts them:
        the bytes read, or the read's limit (``max_bytes`` of the partition, or what is left
        of the response's) when a whole batch did not fit it. Kafka's read fills its limit
        with a partial batch; Moldau answers whole batches only, so a full response counts as
        full (``max_bytes``) towards ``min_bytes`` all the same. ``state`` carries the read
        across the slices of a large fetch (``_read_in_slices``)."""
        if state is None:
            state = _LocalRead(params)
        budget = state.budget
        min_one = state.min_one
        readable = state.readable
        out = state.out
        follower = params.replica_id if params.is_from_follower else -1
        only_leader = params.fetch_only_leader
        consumer = params.client_metadata
        selection = self.replica_selection if consumer is not None else None
        file_slices = state.file_slices
        for (topic, index), info in infos:
            partition = None
            readable.append(0)
            try:
                partition = self.get_partition_or_error(topic, index)
                if selection is not None and partition.is_leader:
                    redirect = self._redirect_to_preferred_replica(selection, consumer, partition, info)
                    if redirect is not None:
                        out.append(redirect)
                        continue
                read = partition.read_records(
                    info.fetch_offset,
                    min(info.max_bytes, budget),
                    isolation=params.isolation,
                    min_one_batch=min_one,
                    current_leader_epoch=info.current_leader_epoch,
                    last_fetched_epoch=info.last_fetched_epoch,
                    fetch_only_from_leader=only_leader,
                    file_records=file_slices > 0,
                    replica_id=follower,
                )
            except KafkaError as exc:
                out.append(_error_answer(exc.error, partition))
                continue
            records = read.records
            # ReplicaManager.updateFollowerFetchState: the fetch offset is the follower's log end
            # offset (read_records refused a broker that is no replica).
            if (
                follower >= 0
                and not from_purgatory
                and read.diverging_epoch is None
                and partition.update_follower_fetch_state(
                    follower, info.fetch_offset, info.log_start_offset, self.time_ms(), read.log_end_offset
                )
            ):
                self._complete_delayed_requests((topic, index))
            if isinstance(records, FileRecords):
                file_slices -= 1
            size = len(records)
            # ReplicaManager.readFromLocalLog: Kafka's read of min(partition max bytes, what is
            # left of the response's) bytes ends with a partial batch when a whole one does
            # not fit, and counts that limit in bytesReadable
            readable[-1] = max(size, min(info.max_bytes, budget)) if read.limited else size
            if size:
                min_one = False
                budget = max(budget - size, 0)
            out.append(
                FetchPartitionData(
                    ErrorCode.NONE,
                    partition.log.high_watermark if follower >= 0 else read.high_watermark,
                    read.last_stable_offset,
                    read.log_start_offset,
                    records,
                    read.diverging_epoch,
                    read.aborted_transactions,
                )
            )
        state.budget, state.min_one, state.file_slices = budget, min_one, file_slices
        return out, readable

    def _redirect_to_preferred_replica(
        self,
        selection: ReplicaSelection,
        consumer: ClientMetadata,
        partition: Partition,
        info: FetchPartitionInfo,
    ) -> FetchPartitionData | None:
        """KIP-392 at the leader (Kafka's ``findPreferredReadReplica`` and ``readFromLocalLog``):
        when the selector names a follower, the answer is that broker's id with the
        partition's offsets and no records (the read is skipped); None to read here. The
        consumer's leader epoch is checked first (FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH)."""
        preferred = selection.preferred_read_replica(
            consumer.rack_id,
            consumer.listener,
            self.broker_id,
            partition.log.log_end_offset,
            partition.preferred_read_candidates(info.fetch_offset, self.time_ms()),
        )
        if preferred < 0:
            return None
        plog = partition.local_log(info.current_leader_epoch, require_leader=False)
        return FetchPartitionData(
            ErrorCode.NONE,
            plog.high_watermark,
            plog.last_stable_offset,
            plog.log_start_offset,
            preferred_read_replica=preferred,
        )

    def complete_delayed_fetch_requests(self, keys: Sequence[TopicPartition]) -> None:
        """A follower's high watermark moved on these partitions: consumers' fetches parked
        here (KIP-392) may complete (Kafka's ``completeDelayedFetchRequests``, called by the
        replica fetcher after each answer)."""
        for key in keys:
            self.fetch_purgatory.check_and_complete(key)


class _LocalRead:
    """One read of a fetch's partitions as it goes (Kafka's ``readFromLocalLog`` locals): what
    is left of the response's byte budget, whether the next partition with data must return
    a whole batch even past its limit (KIP-74), the FileRecords still allowed, the answers
    and their readable bytes so far."""

    __slots__ = ("budget", "file_slices", "min_one", "out", "readable")

    def __init__(self, params: FetchParams) -> None:
        self.budget = params.max_bytes
        self.min_one = True
        # Each FileRecords holds descriptors until its response is written: a fetch of many
        # partitions reads the ones past this many as bytes.
        self.file_slices = MAX_FILE_RECORDS_PER_FETCH if params.file_records else 0
        self.out: list[FetchPartitionData] = []
        self.readable: list[int] = []


def _answer_now(
    params: FetchParams,
    infos: Sequence[tuple[TopicPartition, FetchPartitionInfo]],
    results: list[FetchPartitionData],
    readable: list[int],
) -> bool:
    """Kafka's ``fetchMessages`` test for answering without parking the fetch."""
    return (
        params.max_wait_ms <= 0
        or not infos
        or sum(readable) >= params.min_bytes
        or any(
            r.error is not ErrorCode.NONE or r.diverging_epoch is not None or r.preferred_read_replica >= 0
            for r in results
        )
    )


def _error_answer(error: ErrorCode, partition: Partition | None) -> FetchPartitionData:
    """A partition's read that failed (Kafka's ``createLogReadResult(e)``): the error, with
    the partition's offsets when it is hosted, else -1."""
    if partition is None:
        return FetchPartitionData(error)
    offsets = partition.offsets()
    return FetchPartitionData(
        error, offsets.high_watermark, offsets.last_stable_offset, offsets.log_start_offset
    )


def _close_file_records(results: Sequence[FetchPartitionData]) -> None:
    """Give back the descriptors of an answer that will not be sent."""
    for result in results:
        if isinstance(result.records, FileRecords):
            result.records.close()
