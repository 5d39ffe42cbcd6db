"""Replica fetchers: a follower copies its leaders' logs (Kafka's ``ReplicaFetcherManager``,
``AbstractFetcherThread`` and ``ReplicaFetcherThread``, as asyncio tasks).

``ReplicaFetcherManager`` keeps one ``ReplicaFetcher`` per leader broker
(``num.replica.fetchers`` = 1: fetcher id 0). The ReplicaManager adds a partition when a
LeaderAndIsr makes this broker its follower (or changes its leader or epoch) and removes it
when the broker becomes its leader, stops it or deletes it. A fetcher with no partitions
left ends.

Each fetcher is one task with its own inter-broker connection (client id
``broker-<id>-fetcher-0``, which the test harness's link cuts rely on), to the leader's
endpoint on the inter-broker listener from the MetadataCache; an unknown endpoint or a
failed request backs off ``replica.fetch.backoff.ms``. For its partitions it:

1. truncates first (KIP-101, KIP-279; ``AbstractFetcherThread.truncateToEpochEndOffsets``):
   OffsetForLeaderEpoch with the follower's latest leader epoch; the answer (the leader's
   end offset for that epoch, or for the largest epoch below it) gives the offset to
   truncate to. If the leader's epoch is one the follower does not have, the follower
   truncates to the end of its own largest epoch below it and asks again, until both
   agree. A log without any epoch truncates to its high watermark.
2. fetches (Fetch v12, ``replica_id`` = this broker, ``replica.fetch.wait.max.ms``,
   ``replica.fetch.min.bytes``, ``replica.fetch.max.bytes`` per partition,
   ``replica.fetch.response.max.bytes`` in all, the current leader epoch and the last
   fetched epoch per partition), appends what comes with ``PartitionLog.append_as_follower``
   and takes the high watermark as min(leader's, own log end offset) and the leader's log
   start offset (``ReplicaFetcherThread.processPartitionData``). A diverging epoch in the
   answer (Fetch v12, KIP-320) truncates as step 1 does; OFFSET_OUT_OF_RANGE below the
   leader's log start restarts the log there; above it the follower asks the leader's log end
   offset and truncates to it if its own log is longer (an unclean election), else fetches
   from its own log end (``AbstractFetcherThread.fetchOffsetAndTruncate``); a leadership error
   (NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH, ...) pauses the
   partition for ``replica.fetch.backoff.ms`` until the controller's next LeaderAndIsr.

Fetches use an incremental fetch session (KIP-227; ``broker/fetch_session_handler.py``, Kafka's
``FetchSessionHandler``), one per fetcher: the first fetch is full (epoch 0) and opens a session
on the leader; later ones name only the partitions added or whose fetch state changed, list
those no longer fetched (removed, paused after an error, truncating) as forgotten, and their
answers leave out partitions with nothing new. FETCH_SESSION_ID_NOT_FOUND or
INVALID_FETCH_SESSION_EPOCH (an evicted session, a restarted leader) make the next fetch full,
at once; a leader without a free slot answers session id 0 and is fetched in full. A failed
request (and so a new connection), a diverging epoch or a stale answer also start a new session.

An answer for a partition whose leader epoch or fetch offset changed while it was in flight
is dropped (``AbstractFetcherThread.processFetchRequest``). Everything runs on the event
loop: appends write at most ``replica.fetch.response.max.bytes`` per answer. The one file
write an append would wait for, the leader-epoch checkpoint of the first batches of a new
epoch (Kafka's ``LeaderEpochFileCache.assign`` on the fetcher thread), is written ahead: the
answer's records are checked first (``PartitionLog.check_follower_records``, the append's own
walk of the batches), the checkpoints of the partitions whose batches start new epochs are
written in one executor job (a failure takes the log dir offline as a failed ``assign`` does,
and that partition appends nothing), then the appends run and find them written. An answer
that went stale during that job is dropped as any stale answer, and its log's checkpoint is
written again from its cache (``PartitionLog.write_epoch_checkpoint_soon``).

``Replication`` bundles what the ReplicaManager runs in ZooKeeper mode
(``ReplicaManager.start_replication``): the fetcher manager, the ``AlterPartitionManager``
and the isr-expiration task.

Not implemented: throttling (replication quotas), more than one fetcher per leader.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from broker.alter_partition_manager import AlterPartitionManager
from broker.fetch_session_handler import FetchSessionHandler, PartitionFetchData
from broker.network_client import InterBrokerClient, NetworkClientError
from broker.security.client import PLAINTEXT_INTER_BROKER, InterBrokerSecurity
from protocol.errors import ErrorCode, KafkaError
from protocol.messages import (
    FetchRequest,
    FetchResponse,
    OffsetForLeaderEpochRequest,
    OffsetForLeaderEpochResponse,
)
from storage.leader_epoch import write_pending_checkpoints

if TYPE_CHECKING:
    from broker.metadata_cache import MetadataCache
    from broker.partition import Partition
    from broker.replica_manager import ReplicaManager
    from storage.leader_epoch import PendingCheckpoint
    from storage.partition_log import FollowerRecords, PartitionLog

log = logging.getLogger(__name__)

TopicPartition = tuple[str, int]
FETCH_VERSION = 12  # the newest Fetch with topic names, the one Moldau serves
UNDEFINED_EPOCH = -1
UNDEFINED_EPOCH_OFFSET = -1
# Errors after which the follower waits for the controller (a new LeaderAndIsr).
_LEADERSHIP_ERRORS = frozenset(
    {
        ErrorCode.NOT_LEADER_OR_FOLLOWER,
        ErrorCode.FENCED_LEADER_EPOCH,
        ErrorCode.UNKNOWN_LEADER_EPOCH,
        ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        ErrorCode.UNKNOWN_TOPIC_ID,
        ErrorCode.LEADER_NOT_AVAILABLE,
    }
)
# Top-level Fetch errors after which the next fetch is a full one, at once (KIP-227).
_SESSION_ERRORS = frozenset(
    {ErrorCode.FETCH_SESSION_ID_NOT_FOUND.code, ErrorCode.INVALID_FETCH_SESSION_EPOCH.code}
)


@dataclass(frozen=True, slots=True)
class ReplicationSettings:
    """The broker's replication keys (Kafka's ``ReplicationConfigs``) and its inter-broker listener."""

    inter_broker_listener: str = "PLAINTEXT"
    fetch_max_bytes: int = 1_048_576  # replica.fetch.max.bytes
    fetch_response_max_bytes: int = 10_485_760  # replica.fetch.response.max.bytes
    fetch_wait_max_ms: int = 500  # replica.fetch.wait.max.ms
    fetch_min_bytes: int = 1  # replica.fetch.min.bytes
    fetch_backoff_ms: int = 1_000  # replica.fetch.backoff.ms
    socket_timeout_ms: int = 30_000  # replica.socket.timeout.ms
    lag_time_max_ms: int = 30_000  # replica.lag.time.max.ms
    security: InterBrokerSecurity = PLAINTEXT_INTER_BROKER  # TLS / SASL on the inter-broker listener

    @classmethod
    def from_config(
        cls, config: Any, security: InterBrokerSecurity = PLAINTEXT_INTER_BROKER
    ) -> ReplicationSettings:
        return cls(
            security=security,
            inter_broker_listener=config.inter_broker_listener,
            fetch_max_bytes=config["replica.fetch.max.bytes"],
            fetch_response_max_bytes=config["replica.fetch.response.max.bytes"],
            fetch_wait_max_ms=config["replica.fetch.wait.max.ms"],
            fetch_min_bytes=config["replica.fetch.min.bytes"],
            fetch_backoff_ms=config["replica.fetch.backoff.ms"],
            socket_timeout_ms=config["replica.socket.timeout.ms"],
            lag_time_max_ms=config["replica.lag.time.max.ms"],
        )


@dataclass(slots=True)
class PartitionFetchState:
    """Where one partition's fetching stands (Kafka's ``PartitionFetchState``)."""

    partition: Partition
    leader_epoch: int
    fetch_offset: int
    truncating: bool = True  # ask OffsetForLeaderEpoch before fetching
    delayed_until: float = 0.0  # loop time; paused after an error until then
    # OFFSET_OUT_OF_RANGE at or above the leader's log start: ask the leader's log end offset
    # before fetching again (Kafka's fetchOffsetAndTruncate), with the leader's log start
    # offset of that answer.
    out_of_range: bool = False
    leader_log_start_offset: int = -1
    reset_offset: int = -1  # the fetch offset the last out-of-range reset chose

    def ready(self, now: float) -> bool:
        return self.delayed_until <= now


def truncation_offset(partition: Partition, leader_epoch: int, leader_end_offset: int) -> tuple[int, bool]:
    """Where a follower truncates to agree with its leader, and whether that settles it.

    Kafka's ``AbstractFetcherThread.getOffsetTruncationState`` with (leader epoch, end
    offset) from OffsetForLeaderEpoch or a fetch's diverging epoch.
    """
    plog = partition.log
    end = plog.log_end_offset
    if leader_end_offset == UNDEFINED_EPOCH_OFFSET:
        return end, True  # the leader knows no such epoch: keep the initial fetch offset
    if leader_epoch == UNDEFINED_EPOCH:
        return min(leader_end_offset, end), True
    follower_epoch, follower_end = plog.end_offset_for_epoch(leader_epoch)
    if follower_end == UNDEFINED_EPOCH_OFFSET:
        return min(leader_end_offset, end), True  # no epoch at or below the leader's here
    if follower_epoch != leader_epoch:
        # The follower lacks the leader's epoch: drop its own last epoch and ask again (KIP-279).
        return min(follower_end, end), False
    return min(follower_end, leader_end_offset, end), True


class ReplicaFetcher:
    """Fetches the partitions this broker follows from one leader broker (one task)."""

    def __init__(
        self,
        broker_id: int,
        source_broker_id: int,
        endpoint_for: Callable[[int], tuple[str, int] | None],
        settings: ReplicationSettings,
        high_watermarks_moved: Callable[[list[TopicPartition]], None] = lambda _keys: None,
    ) -> None:
        self.broker_id = broker_id
        self.source_broker_id = source_broker_id
        self.settings = settings
        # The ReplicaManager's completeDelayedFetchRequests: consumers' fetches parked on
        # this follower (KIP-392) wait for its high watermark.
        self._high_watermarks_moved = high_watermarks_moved
        self.client_id = f"broker-{broker_id}-fetcher-0"
        self.client = InterBrokerClient(
            self.client_id,
            endpoint_for,
            request_timeout_ms=settings.socket_timeout_ms + settings.fetch_wait_max_ms,
            security=settings.security,
        )
        self.states: dict[TopicPartition, PartitionFetchState] = {}
        self.session = FetchSessionHandler(source_broker_id)
        self._changed = asyncio.Event()
        self._task: asyncio.Task | None = None
        self.fetches = 0  # answered fetches, for tests and logs

    def __repr__(self) -> str:
        return f"ReplicaFetcher({self.client_id} -> {self.source_broker_id}, {len(self.states)} partitions)"

    # ------------------------------------------------------------------ partitions

    def add(self, partition: Partition) -> None:
        self.states[partition.key] = PartitionFetchState(
            partition, partition.leader_epoch, partition.log.log_end_offset
        )
        self._changed.set()
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(
                self._run(), name=f"replica-fetcher-{self.broker_id}-from-{self.source_broker_id}"
            )

    def remove(self, key: TopicPartition) -> bool:
        removed = self.states.pop(key, None) is not None
        if removed:
            self._changed.set()
        return removed

    async def close(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self.client.close()

    # ------------------------------------------------------------------ the loop

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while self.states:
            now = loop.time()
            ready = [s for s in self.states.values() if s.ready(now)]
            if not ready:
                wake = min(s.delayed_until for s in self.states.values())
                await self._wait_for_change(wake - now)
                continue
            try:
                truncating = [s for s in ready if s.truncating]
                out_of_range = [s for s in ready if s.out_of_range and not s.truncating]
                if truncating:
                    await self._truncate(truncating)
                if out_of_range:
                    await self._fetch_offset_and_truncate(out_of_range)
                if not truncating and not out_of_range:
                    await self._fetch(ready)
            except NetworkClientError as exc:
                log.info("%s: %s; backing off %d ms", self, exc, self.settings.fetch_backoff_ms)
                # ReplicaFetcherBlockingSend closes the node after any failure: the next try
                # connects afresh rather than waiting on a connect stuck in its handshake.
                self.client.disconnect(self.source_broker_id)
            except KafkaError as exc:  # e.g. a log dir went offline under a truncation
                log.warning("%s: %s; backing off %d ms", self, exc, self.settings.fetch_backoff_ms)
            except Exception:  # a bug must not stop replication for good: log, back off, go on
                log.exception(
                    "%s: unexpected failure; backing off %d ms", self, self.settings.fetch_backoff_ms
                )
            else:
                continue
            # After any failure: the next fetch is a full one, opening a new session (a new
            # connection needs one too), once the backoff has passed.
            self.session.restart()
            self._delay(ready, loop.time())

    async def _wait_for_change(self, seconds: float) -> None:
        self._changed.clear()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(max(seconds, 0.0)):
                await self._changed.wait()

    def _delay(self, states: Iterable[PartitionFetchState], now: float) -> None:
        until = now + self.settings.fetch_backoff_ms / 1000
        for state in states:
            state.delayed_until = until

    def _current(self, state: PartitionFetchState) -> bool:
        """The state is still the one this request was built from (not removed or replaced)."""
        return self.states.get(state.partition.key) is state

    # ------------------------------------------------------------------ truncation

    async def _truncate(self, states: Sequence[PartitionFetchState]) -> None:
        asked: list[tuple[PartitionFetchState, int]] = []
        for state in states:
            plog = state.partition.log
            epoch = plog.leader_epoch_cache.latest_epoch
            if epoch is None:
                # No epoch to ask about: Kafka's truncateToHighWatermark.
                self._apply_truncation(state, plog.high_watermark, True)
                continue
            asked.append((state, epoch))
        if not asked:
            return
        answers = await self._epoch_end_offsets(asked)
        now = asyncio.get_running_loop().time()
        for state, _epoch in asked:
            answer = self._answer_for(state, answers, now)
            if answer is not None:
                offset, settled = truncation_offset(state.partition, answer.leader_epoch, answer.end_offset)
                self._apply_truncation(state, offset, settled)

    async def _epoch_end_offsets(
        self, asked: Sequence[tuple[PartitionFetchState, int]]
    ) -> dict[TopicPartition, Any]:
        """OffsetForLeaderEpoch as a replica for (state, epoch) pairs; the answers by partition."""
        topics: dict[str, list[Any]] = {}
        for state, epoch in asked:
            topics.setdefault(state.partition.topic, []).append(
                OffsetForLeaderEpochRequest.OffsetForLeaderPartition(
                    partition=state.partition.partition,
                    current_leader_epoch=state.leader_epoch,
                    leader_epoch=epoch,
                )
            )
        request = OffsetForLeaderEpochRequest(
            replica_id=self.broker_id,
            topics=[
                OffsetForLeaderEpochRequest.OffsetForLeaderTopic(topic=t, partitions=ps)
                for t, ps in topics.items()
            ],
        )
        response: OffsetForLeaderEpochResponse = await self.client.send(self.source_broker_id, request)
        return {(t.topic, p.partition): p for t in response.topics for p in t.partitions}

    def _answer_for(self, state: PartitionFetchState, answers: dict[TopicPartition, Any], now: float) -> Any:
        """The partition's OffsetForLeaderEpoch answer; None (the partition backs off after an
        error) if there is none to act on or the state was replaced meanwhile."""
        if not self._current(state):
            return None
        answer = answers.get(state.partition.key)
        if answer is not None and answer.error_code == 0:
            return answer
        error = (
            ErrorCode.for_code(answer.error_code) if answer is not None else ErrorCode.UNKNOWN_SERVER_ERROR
        )
        log.info("%s: OffsetForLeaderEpoch for %s: %s", self, state.partition.key, error.name)
        self._delay([state], now)
        return None

    def _apply_truncation(self, state: PartitionFetchState, offset: int, settled: bool) -> None:
        partition = state.partition
        if offset < partition.log.log_end_offset:
            log.info(
                "%s: truncating %s-%d to %d (log end offset %d)",
                self,
                partition.topic,
                partition.partition,
                offset,
                partition.log.log_end_offset,
            )
        partition.truncate_to(offset)  # at or past the end: cuts the epoch cache only
        state.fetch_offset = partition.log.log_end_offset
        state.truncating = not settled

    # ------------------------------------------------------------------ out of range

    def _handle_out_of_range(self, state: PartitionFetchState, leader_log_start: int, now: float) -> None:
        """Kafka's ``AbstractFetcherThread.handleOutOfRangeError``. Below the leader's log start
        offset the log restarts there at once (what ``fetchOffsetAndTruncate`` ends with then);
        otherwise the leader's log end offset is asked first (``_fetch_offset_and_truncate``).
        The same offset out of range again right after a reset backs off first, so a leader
        that keeps refusing it is not asked in a loop."""
        partition = state.partition
        if state.fetch_offset == state.reset_offset:
            log.info("%s: %s still out of range at %d; backing off", self, partition.key, state.fetch_offset)
            self._delay([state], now)
        if 0 <= state.fetch_offset < leader_log_start:
            log.info(
                "%s: %s is below the leader's log start offset %d: restarting the log there",
                self,
                partition.key,
                leader_log_start,
            )
            partition.log.truncate_fully_and_start_at(leader_log_start)
            state.fetch_offset = state.reset_offset = leader_log_start
            return
        state.out_of_range = True
        state.leader_log_start_offset = leader_log_start

    async def _fetch_offset_and_truncate(self, states: Sequence[PartitionFetchState]) -> None:
        """Kafka's ``fetchOffsetAndTruncate``: the leader's latest offset, as OffsetForLeaderEpoch
        for the current leader epoch answers it (its log end offset; the ListOffsets handler
        does not answer a replica with it), then ``_reset_fetch_offset``."""
        answers = await self._epoch_end_offsets([(s, s.leader_epoch) for s in states])
        now = asyncio.get_running_loop().time()
        for state in states:
            answer = self._answer_for(state, answers, now)
            if answer is None:
                continue
            if answer.leader_epoch != state.leader_epoch or answer.end_offset < 0:
                log.info(
                    "%s: %s: no log end offset for epoch %d", self, state.partition.key, state.leader_epoch
                )
                self._delay([state], now)
                continue
            self._reset_fetch_offset(state, answer.end_offset)

    def _reset_fetch_offset(self, state: PartitionFetchState, leader_end: int) -> None:
        """Behind the leader's log end offset (an unclean election), truncate to it; otherwise
        fetch from max(leader's log start, own log end), restarting the log at the former when
        it is higher (the leader deleted what the follower lacks)."""
        partition = state.partition
        plog = partition.log
        replica_end = plog.log_end_offset
        leader_start = state.leader_log_start_offset
        if leader_end < replica_end:
            log.warning(
                "%s: %s: resetting the fetch offset from %d to the leader's latest offset %d",
                self,
                partition.key,
                replica_end,
                leader_end,
            )
            partition.truncate_to(leader_end)
        elif leader_start > replica_end:
            log.warning(
                "%s: %s: restarting the log at the leader's log start offset %d (log end offset %d)",
                self,
                partition.key,
                leader_start,
                replica_end,
            )
            plog.truncate_fully_and_start_at(leader_start)
        state.fetch_offset = state.reset_offset = plog.log_end_offset
        state.out_of_range = False

    # ------------------------------------------------------------------ fetch

    async def _fetch(self, states: Sequence[PartitionFetchState]) -> None:
        settings = self.settings
        wanted: dict[TopicPartition, PartitionFetchData] = {}
        for state in states:
            plog = state.partition.log
            latest = plog.leader_epoch_cache.latest_epoch
            wanted[state.partition.key] = PartitionFetchData(
                fetch_offset=state.fetch_offset,
                log_start_offset=plog.log_start_offset,
                current_leader_epoch=state.leader_epoch,
                last_fetched_epoch=UNDEFINED_EPOCH if latest is None else latest,
                max_bytes=settings.fetch_max_bytes,
            )
        # KIP-227: a full fetch opens a session; the next ones name only what changed.
        data = self.session.build(wanted)
        topics: dict[str, list[Any]] = {}
        for (topic, index), d in data.to_send.items():
            topics.setdefault(topic, []).append(
                FetchRequest.FetchPartition(
                    partition=index,
                    current_leader_epoch=d.current_leader_epoch,
                    fetch_offset=d.fetch_offset,
                    last_fetched_epoch=d.last_fetched_epoch,
                    log_start_offset=d.log_start_offset,
                    partition_max_bytes=d.max_bytes,
                )
            )
        forgotten: dict[str, list[int]] = {}
        for topic, index in data.to_forget:
            forgotten.setdefault(topic, []).append(index)
        request = FetchRequest(
            replica_id=self.broker_id,
            max_wait_ms=settings.fetch_wait_max_ms,
            min_bytes=settings.fetch_min_bytes,
            max_bytes=settings.fetch_response_max_bytes,
            isolation_level=0,
            session_id=data.session_id,
            session_epoch=data.epoch,
            topics=[FetchRequest.FetchTopic(topic=t, partitions=ps) for t, ps in topics.items()],
            forgotten_topics_data=[
                FetchRequest.ForgottenTopic(topic=t, partitions=ps) for t, ps in forgotten.items()
            ],
        )
        sent = {s.partition.key: (s, s.fetch_offset, s.leader_epoch) for s in states}
        response: FetchResponse = await self.client.send(self.source_broker_id, request, FETCH_VERSION)
        self.fetches += 1
        answer = self.session.handle_response(data, response)
        if response.error_code in _SESSION_ERRORS:
            # The leader lost or refused the session (evicted, restarted): the next fetch is a
            # full one, at once (ReplicaFetcherThread.fetchFromLeader answers no partitions).
            log.info(
                "%s: Fetch session error %s; fetching in full",
                self,
                ErrorCode.for_code(response.error_code).name,
            )
            return
        if not answer.ok:
            raise NetworkClientError(
                self.source_broker_id, f"Fetch error {ErrorCode.for_code(response.error_code).name}"
            )
        loop = asyncio.get_running_loop()
        now = loop.time()
        answers: list[_Answer] = []
        for topic in response.responses:
            for pdata in topic.partitions:
                entry = sent.get((topic.topic, pdata.partition_index))
                if entry is None:
                    continue
                state, offset, epoch = entry
                if self._stale(state, offset, epoch):
                    continue
                checked = self._check_records(state, pdata, now)
                if checked is not _REFUSED:
                    answers.append(_Answer(state, offset, epoch, pdata, checked))
        # The leader-epoch checkpoints the appends need (the first batches of new epochs),
        # written ahead in one executor job (Kafka assigns on the fetcher thread).
        ahead = [a for a in answers if a.checked is not None and a.prepare_epochs()]
        if ahead:
            failed = await self._write_epochs_ahead(ahead)
            now = loop.time()
            kept = []
            for a in answers:
                if self._stale(a.state, a.offset, a.epoch):
                    if a.write is not None:
                        _epochs_written_for_nothing(a.state.partition.log)
                elif a.state.partition.key in failed:
                    self._append_failed(a.state, failed[a.state.partition.key], now)
                else:
                    kept.append(a)
            answers = kept
        moved: list[TopicPartition] = []
        for a in answers:
            if self._process_partition(a.state, a.data, now, a.checked):
                moved.append(a.state.partition.key)
        if moved:
            self._high_watermarks_moved(moved)

    def _stale(self, state: PartitionFetchState, offset: int, epoch: int) -> bool:
        """The partition changed while its fetch was out (or its epochs were written): its
        answer is dropped. The leader's session takes it as told, so a partition still
        followed asks afresh in full."""
        if self._current(state) and state.fetch_offset == offset and state.leader_epoch == epoch:
            return False
        if state.partition.key in self.states:
            self.session.restart()
        return True

    def _check_records(self, state: PartitionFetchState, data: Any, now: float) -> Any:
        """The answer's records checked for the append (``PartitionLog.check_follower_records``),
        None if there are none to append (an error, a diverging epoch, no records), or
        ``_REFUSED`` (logged, the partition waits) if the log refuses them."""
        if data.error_code != 0 or (
            data.diverging_epoch is not None and data.diverging_epoch.end_offset >= 0
        ):
            return None
        records = data.records
        if records is None or not len(records):
            return None
        try:
            return state.partition.log.check_follower_records(records)
        except KafkaError as exc:  # corrupt fetched data, a failed disk: this partition waits
            self._append_failed(state, exc, now)
            return _REFUSED

    def _append_failed(self, state: PartitionFetchState, exc: KafkaError, now: float) -> None:
        partition = state.partition
        log.warning("%s: appending to %s-%d: %s", self, partition.topic, partition.partition, exc)
        self._delay([state], now)

    async def _write_epochs_ahead(self, ahead: Sequence[_Answer]) -> dict[TopicPartition, KafkaError]:
        """Write the answers' prepared leader-epoch checkpoints in one executor job and record
        them (``LeaderEpochFileCache.written``: a failure goes to the log's dir, offline or
        full); the partitions whose write failed, with their KAFKA_STORAGE_ERROR (their append
        must not happen, as an ``assign`` that cannot write appends nothing). Cancelled (the
        fetcher closed), the job's outcome is still recorded when it ends, and the logs are
        told their files may hold epochs they lack (``write_epoch_checkpoint_soon``)."""
        writes = [a.write for a in ahead]
        job = asyncio.get_running_loop().run_in_executor(None, write_pending_checkpoints, writes)
        try:
            results = await asyncio.shield(job)
        except asyncio.CancelledError:
            job.add_done_callback(lambda done: _record_abandoned_writes(ahead, done))
            raise
        failed: dict[TopicPartition, KafkaError] = {}
        for a, error in zip(ahead, results, strict=True):
            assert a.write is not None
            a.write.cache.written(a.write, error)
            if error is not None:
                failed[a.state.partition.key] = KafkaError(
                    ErrorCode.KAFKA_STORAGE_ERROR,
                    f"Error while writing to checkpoint file {a.write.cache.path}: {error}",
                )
        return failed

    def _process_partition(
        self, state: PartitionFetchState, data: Any, now: float, checked: FollowerRecords | None
    ) -> bool:
        """Kafka's ``processPartitionData`` and the fetcher's error handling for one partition;
        True if the partition's high watermark moved. ``checked``: its records as
        ``_check_records`` checked them."""
        partition = state.partition
        error = ErrorCode.for_code(data.error_code)
        if error is ErrorCode.NONE:
            diverging = data.diverging_epoch
            if diverging is not None and diverging.end_offset >= 0:
                offset, settled = truncation_offset(partition, diverging.epoch, diverging.end_offset)
                self._apply_truncation(state, offset, settled)
                # This answer's high watermark is not taken, and the leader's session will
                # not repeat it if it stays: the next fetch is full.
                self.session.restart()
                return False
            if checked is not None:  # None: nothing to append (``_check_records``)
                try:
                    partition.append_records_as_follower(checked)
                except KafkaError as exc:  # corrupt fetched data, a failed disk: this partition waits
                    self._append_failed(state, exc, now)
                    return False
                state.fetch_offset = partition.log.log_end_offset
            return partition.update_follower_high_watermark(data.high_watermark, data.log_start_offset)
        if error is ErrorCode.OFFSET_OUT_OF_RANGE:
            self._handle_out_of_range(state, data.log_start_offset, now)
            return False
        if error in _LEADERSHIP_ERRORS:
            log.info(
                "%s: %s-%d: %s; waiting for the controller",
                self,
                partition.topic,
                partition.partition,
                error.name,
            )
        else:
            log.warning("%s: %s-%d: %s", self, partition.topic, partition.partition, error.name)
        self._delay([state], now)
        return False


_REFUSED: Any = object()  # _check_records: the log refused the records (logged, backing off)


@dataclass(slots=True)
class _Answer:
    """One partition's part of a fetch answer, taken (not stale), with its records checked."""

    state: PartitionFetchState
    offset: int  # the fetch offset and leader epoch it was asked with
    epoch: int
    data: Any
    checked: FollowerRecords | None  # None: no records to append
    write: PendingCheckpoint | None = None  # the epoch checkpoint written ahead for the append

    def prepare_epochs(self) -> bool:
        """Take the checkpoint write the append's new epochs need (True if there is one)."""
        assert self.checked is not None
        self.write = self.state.partition.log.follower_epoch_checkpoint(self.checked)
        return self.write is not None


def _epochs_written_for_nothing(plog: PartitionLog) -> None:
    """Epochs written ahead for an append that does not happen (the partition changed
    meanwhile): the file may hold epochs the log lacks until its next write, asked for now
    (off the loop). A closed log (deleted) gets nothing."""
    if plog.closed or plog.dir_state.offline:
        return
    try:
        plog.write_epoch_checkpoint_soon()
    except KafkaError as exc:  # written at once (no background writer) and failed: the dir has it
        log.warning("%s: %s", plog.name, exc)


def _record_abandoned_writes(ahead: Sequence[_Answer], job: asyncio.Future) -> None:
    """The outcome of epoch writes whose fetcher was closed (cancelled) while they ran."""
    if job.cancelled() or job.exception() is not None:
        return  # the caches count them in flight: the next write of each writes its entries
    for a, error in zip(ahead, job.result(), strict=True):
        assert a.write is not None
        a.write.cache.written(a.write, error)
        if error is None:
            _epochs_written_for_nothing(a.state.partition.log)


class ReplicaFetcherManager:
    """One ``ReplicaFetcher`` per leader broker of the partitions this broker follows."""

    def __init__(
        self,
        broker_id: int,
        endpoint_for: Callable[[int], tuple[str, int] | None],
        settings: ReplicationSettings,
        high_watermarks_moved: Callable[[list[TopicPartition]], None] = lambda _keys: None,
    ) -> None:
        self.broker_id = broker_id
        self.endpoint_for = endpoint_for
        self.settings = settings
        self.high_watermarks_moved = high_watermarks_moved
        self.fetchers: dict[int, ReplicaFetcher] = {}
        self._closing: set[asyncio.Task] = set()

    def add_partitions(self, partitions: Iterable[Partition]) -> None:
        """Fetch ``partitions`` from their leaders (Kafka's ``addFetcherForPartitions``),
        truncating first; a partition moving to another leader leaves its old fetcher."""
        for partition in partitions:
            self.remove_partitions([partition.key])
            leader = partition.leader_id
            if leader < 0 or leader == self.broker_id:
                continue  # no leader: the controller's next LeaderAndIsr names one
            fetcher = self.fetchers.get(leader)
            if fetcher is None:
                fetcher = self.fetchers[leader] = ReplicaFetcher(
                    self.broker_id,
                    leader,
                    self.endpoint_for,
                    self.settings,
                    self.high_watermarks_moved,
                )
            fetcher.add(partition)

    def remove_partitions(self, keys: Iterable[TopicPartition]) -> None:
        """Stop fetching ``keys`` (Kafka's ``removeFetcherForPartitions``); idle fetchers close."""
        for key in keys:
            for source, fetcher in list(self.fetchers.items()):
                if fetcher.remove(key) and not fetcher.states:
                    del self.fetchers[source]
                    task = asyncio.get_running_loop().create_task(fetcher.close())
                    self._closing.add(task)
                    task.add_done_callback(self._closing.discard)

    def fetcher_for(self, key: TopicPartition) -> ReplicaFetcher | None:
        return next((f for f in self.fetchers.values() if key in f.states), None)

    async def close(self) -> None:
        fetchers, self.fetchers = list(self.fetchers.values()), {}
        await asyncio.gather(*(f.close() for f in fetchers), return_exceptions=True)
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)


# ---------------------------------------------------------------------- what the ReplicaManager runs


class Replication:
    """What replication runs in ZooKeeper mode, owned by the ReplicaManager: the replica
    fetchers, the AlterPartition sender and the isr-expiration task (Kafka's
    ``ReplicaManager.startup``: every ``replica.lag.time.max.ms`` / 2)."""

    def __init__(
        self,
        replica_manager: ReplicaManager,
        metadata_cache: MetadataCache,
        settings: ReplicationSettings,
        broker_epoch: Callable[[], int | None],
    ) -> None:
        self.metadata_cache = metadata_cache
        self.settings = settings
        listener = settings.inter_broker_listener

        def endpoint_for(broker_id: int) -> tuple[str, int] | None:
            endpoint = metadata_cache.endpoint(broker_id, listener)
            return (endpoint.host, endpoint.port) if endpoint is not None else None

        broker_id = replica_manager.broker_id
        self.fetchers = ReplicaFetcherManager(
            broker_id, endpoint_for, settings, replica_manager.complete_delayed_fetch_requests
        )
        self.alter_partition = AlterPartitionManager(
            broker_id,
            endpoint_for,
            lambda: metadata_cache.controller_id,
            broker_epoch,
            replica_manager.on_isr_committed,
            security=settings.security,
        )
        self._isr_expiration = asyncio.get_running_loop().create_task(
            self._expire_isrs(replica_manager, settings.lag_time_max_ms / 2000),
            name=f"isr-expiration-{broker_id}",
        )

    def is_broker_alive(self, broker_id: int) -> bool:
        return self.metadata_cache.is_alive(broker_id)

    @staticmethod
    async def _expire_isrs(replica_manager: ReplicaManager, interval_s: float) -> None:
        while True:
            await asyncio.sleep(interval_s)
            try:
                replica_manager.maybe_shrink_isrs()
            except Exception:  # a bug must not end the task: the next round tries again
                log.exception("isr-expiration failed")

    async def stop(self) -> None:
        self._isr_expiration.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._isr_expiration
        await self.fetchers.close()
        await self.alter_partition.close()
