"""ReplicaManager's state changes: the controller's LeaderAndIsr and StopReplica, and log dir failures.

The half of Kafka's ``ReplicaManager`` that changes which partitions this broker hosts and
what it is for them: ``becomeLeaderOrFollower`` (with ``makeLeaders`` / ``makeFollowers``,
``_make_leaders_and_followers`` here, shared with the embedded controller's
``ReplicaManager.on_topics_changed``), ``stopReplicas``, the ``replicaStateChangeLock`` that
runs LeaderAndIsr, StopReplica and UpdateMetadata one at a time, and
``handleLogDirFailure``. ``ReplicaStateChanges`` is a base class of ``ReplicaManager``
(broker/replica_manager.py), which owns the state it uses (set up in its ``__init__``): callers
keep calling ``replica_manager.become_leader_or_follower`` and so on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from broker.partition import NO_EPOCH, Partition
from coordinator.cluster_state import PartitionState
from coordinator.controller import validate_topic_name
from protocol.errors import ErrorCode, KafkaError
from storage.leader_epoch import write_pending_checkpoints
from storage.log_config import parse_stored_topic_overrides
from storage.log_creation import rename_each_for_deletion

if TYPE_CHECKING:
    from broker.purgatory import DelayedFetch, DelayedOperationPurgatory, DelayedProduce
    from broker.replica_fetcher import Replication
    from storage.log_manager import LogManager
    from storage.partition_log import PartitionLog

# ReplicaManager's log lines, under its logger name as before the split.
log = logging.getLogger("broker.replica_manager")

TopicPartition = tuple[str, int]
LeadershipListener = Callable[[Sequence[Partition], Sequence[Partition]], None]
# A topic's config overrides as strings (``/config/topics/<t>`` in ZooKeeper mode).
TopicOverridesSource = Callable[[str], Awaitable[Mapping[str, str]]]

_T = TypeVar("_T")


class ReplicaStateChanges:
    """LeaderAndIsr, StopReplica and log dir failures on the hosted partitions (a base of
    ``ReplicaManager``, whose ``__init__`` sets the attributes below)."""

    broker_id: int
    log_manager: LogManager
    replication: Replication | None
    controller_epoch: int
    fetch_purgatory: DelayedOperationPurgatory[DelayedFetch]
    produce_purgatory: DelayedOperationPurgatory[DelayedProduce]
    _partitions: dict[TopicPartition, Partition]
    _leadership_listeners: list[LeadershipListener]
    _state_change_lock: asyncio.Lock
    _state_changes: int
    _loop: asyncio.AbstractEventLoop | None

    if TYPE_CHECKING:  # ReplicaManager's

        def _host(self, plog: PartitionLog) -> Partition: ...

        def _complete_delayed_requests(self, key: TopicPartition) -> None: ...

    # ------------------------------------------------------------------ leadership changes

    def _make_leaders_and_followers(
        self,
        applied: Sequence[tuple[PartitionState, Partition]],
        storage_errors: Mapping[TopicPartition, str] | None = None,
    ) -> dict[TopicPartition, ErrorCode]:
        """Kafka's ``makeLeaders`` / ``makeFollowers`` then ``onLeadershipChange``: the
        leadership listeners hear of the partitions this broker newly leads (a re-elected
        leader's epoch bump is not news to a coordinator: it does not reload) and of those
        whose leader or epoch changed as a follower. Returns the
        partitions whose change failed (a leader-epoch checkpoint that cannot be written)
        with their error. ``storage_errors``: partitions whose new epoch's checkpoint could not
        be written ahead (``_write_new_leader_epochs``), failed without a change, with why."""
        leaders: list[Partition] = []
        followers: list[Partition] = []
        failed: dict[TopicPartition, ErrorCode] = {}
        for state, partition in applied:
            try:
                if storage_errors and state.key in storage_errors:
                    raise KafkaError(ErrorCode.KAFKA_STORAGE_ERROR, storage_errors[state.key])
                if state.leader == self.broker_id:
                    if partition.make_leader(state):
                        leaders.append(partition)
                elif partition.make_follower(state):
                    followers.append(partition)
            except KafkaError as exc:
                # makeLeaders / makeFollowers catch KafkaStorageException per partition: it is
                # skipped (offline: its log dir is) and answers KAFKA_STORAGE_ERROR.
                log.error(
                    "Skipped the state change of %s-%d to leader %d epoch %d since the replica "
                    "is offline due to storage error: %s",
                    state.topic,
                    state.partition,
                    state.leader,
                    state.leader_epoch,
                    exc,
                )
                failed[state.key] = exc.error
            # A parked fetch or produce on it sees the new leadership (and answers).
            self._complete_delayed_requests(state.key)
        if self.replication is not None:
            # makeLeaders removes their fetchers (and those of the partitions it failed to
            # change); makeFollowers (re)starts them at the new leader, truncating first (KIP-101).
            self.replication.fetchers.remove_partitions([*(p.key for p in leaders), *failed])
            self.replication.fetchers.add_partitions(followers)
        if leaders or followers:
            for listener in self._leadership_listeners:
                listener(leaders, followers)
        return failed

    def add_leadership_listener(self, listener: LeadershipListener) -> None:
        """``listener(new_leaders, new_followers)`` runs after every leadership change
        (Kafka's ``RequestHandlerHelper.onLeadershipChange``: the coordinators follow it)."""
        self._leadership_listeners.append(listener)

    def _stop_replica(self, key: TopicPartition) -> None:
        """No longer host ``key`` (Kafka's ``stopPartitions``): its fetcher goes, and the
        fetches and produces parked on it answer."""
        self._partitions.pop(key, None)
        if self.replication is not None:
            self.replication.fetchers.remove_partitions([key])
        self.fetch_purgatory.complete_all(key)
        self.produce_purgatory.check_and_complete(key)

    # ------------------------------------------------------------------ log dir failures

    def _on_log_dir_offline(self, d: Path) -> None:
        """The failure channel's listener. It runs inside the I/O call that failed: the work
        is done on the loop once that call has returned (Kafka's LogDirFailureHandler thread)."""
        loop = self._loop
        if loop is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # no loop: nothing fetches or is parked
                self.handle_log_dir_failure(d)
                return
        if not loop.is_closed():
            loop.call_soon_threadsafe(self.handle_log_dir_failure, d)

    def handle_log_dir_failure(self, d: Path) -> None:
        """Kafka's ``ReplicaManager.handleLogDirFailure`` (no log-dir event to the controller,
        docs/COMPATIBILITY.md): the partitions of the offline dir (KAFKA_STORAGE_ERROR from
        now on) are no longer fetched, and the fetches and produces parked on them answer."""
        keys = [key for key, partition in self._partitions.items() if partition.log.dir.parent == d]
        replication = self.replication
        if replication is not None:
            followed = [key for key in keys if replication.fetchers.fetcher_for(key) is not None]
            replication.fetchers.remove_partitions(keys)
            if followed:
                log.warning(
                    "Broker %d stopped fetcher for partitions %s because they are in the failed log "
                    "directory %s.",
                    self.broker_id,
                    ", ".join(f"{t}-{p}" for t, p in followed),
                    d,
                )
        for key in keys:
            self.fetch_purgatory.complete_all(key)  # read again: KAFKA_STORAGE_ERROR
            self.produce_purgatory.check_and_complete(key)  # _online_partition: no longer led

    # ------------------------------------------------------------------ ZooKeeper mode: control requests

    @contextlib.asynccontextmanager
    async def _state_change(self) -> AsyncIterator[None]:
        """Kafka's ``inLock(replicaStateChangeLock)`` (asyncio's lock is FIFO: arrival order)."""
        self._state_changes += 1
        try:
            async with self._state_change_lock:
                yield
        finally:
            self._state_changes -= 1

    def under_state_change_lock(self, fn: Callable[[], _T]) -> _T | Coroutine[Any, Any, _T]:
        """``fn()`` (which does not await) under ``replicaStateChangeLock``, as Kafka's
        ``maybeUpdateMetadataCache``: at once when no LeaderAndIsr / StopReplica holds or
        waits for it (nothing can interleave then), else a coroutine running it after them."""
        if self._state_changes == 0:
            return fn()

        async def later() -> _T:
            async with self._state_change():
                return fn()

        return later()

    async def become_leader_or_follower(
        self,
        controller_id: int,
        controller_epoch: int,
        states: Sequence[PartitionState],
        topic_ids: Mapping[str, uuid.UUID],
        *,
        topic_overrides: TopicOverridesSource,
    ) -> tuple[ErrorCode, dict[TopicPartition, ErrorCode]]:
        """LeaderAndIsr (Kafka's ``ReplicaManager.becomeLeaderOrFollower``): (top-level error,
        error per partition of ``states``).

        A controller epoch older than the last accepted one fences the whole request
        (STALE_CONTROLLER_EPOCH for it and every partition). Per partition: a topic id that
        differs from the log's is INCONSISTENT_TOPIC_ID; a newer leader epoch is applied if
        this broker is a replica (else UNKNOWN_TOPIC_OR_PARTITION); an older or equal one is
        STALE_CONTROLLER_EPOCH (equal with a topic id the log lacked: NONE). Missing logs are
        created (``Partition.createLogIfNotExists``) with the topic's overrides from
        ``topic_overrides`` (``/config/topics/<t>``), one per loop turn; a failure there is
        KAFKA_STORAGE_ERROR. ``controller_id`` is for the log only.
        """
        async with self._state_change():
            if controller_epoch < self.controller_epoch:
                log.warning(
                    "ignoring LeaderAndIsr from controller %d with epoch %d: the current controller epoch is %d",
                    controller_id,
                    controller_epoch,
                    self.controller_epoch,
                )
                return ErrorCode.STALE_CONTROLLER_EPOCH, {
                    s.key: ErrorCode.STALE_CONTROLLER_EPOCH for s in states
                }
            self.controller_epoch = controller_epoch
            errors: dict[TopicPartition, ErrorCode] = {}
            accepted: list[PartitionState] = []
            for state in states:
                topic_id = topic_ids.get(state.topic)
                error = self._check_leader_and_isr_state(state, topic_id)
                if error is ErrorCode.NONE and topic_id is not None:
                    error = self._set_missing_topic_id(state, topic_id)
                errors[state.key] = error
                if error is ErrorCode.NONE and (
                    (current := self._partitions.get(state.key)) is None
                    or state.leader_epoch > current.leader_epoch
                ):
                    accepted.append(state)
            applied: list[tuple[PartitionState, Partition]] = []
            overrides_cache: dict[str, Mapping[str, Any]] = {}
            for state in accepted:
                try:
                    plog = await self._get_or_create_log(state, topic_ids, overrides_cache, topic_overrides)
                except Exception as exc:  # a config read, a bad override or a log dir: the log cannot be made
                    log.error("cannot create the log of %s-%d: %s", state.topic, state.partition, exc)
                    errors[state.key] = ErrorCode.KAFKA_STORAGE_ERROR
                    continue
                applied.append((state, self._host(plog)))
            storage_errors = await self._write_new_leader_epochs(applied)
            errors.update(self._make_leaders_and_followers(applied, storage_errors))
            log.info(
                "LeaderAndIsr from controller %d epoch %d: %d partitions applied, %d refused",
                controller_id,
                controller_epoch,
                sum(1 for state, _ in applied if errors[state.key] is ErrorCode.NONE),
                sum(1 for e in errors.values() if e is not ErrorCode.NONE),
            )
            return ErrorCode.NONE, errors

    async def _write_new_leader_epochs(
        self, applied: Sequence[tuple[PartitionState, Partition]]
    ) -> dict[TopicPartition, str]:
        """The leader-epoch checkpoints ``Partition.make_leader`` would write (the new epoch at
        the log end offset), written ahead in one executor job, off the loop (Kafka writes them
        on a request handler thread): ``make_leader`` then finds them written. Returns the
        partitions whose write failed (their dir is told, as by ``assign``), which must not
        change: KAFKA_STORAGE_ERROR, the old epoch kept. A log that moved on meanwhile (an
        append during the write) is assigned again by ``make_leader``, on the loop."""
        pending = []
        for state, partition in applied:
            if state.leader != self.broker_id:
                continue
            plog = partition.log
            if plog.dir_state.offline:
                continue  # make_leader answers KAFKA_STORAGE_ERROR
            write = plog.leader_epoch_cache.prepare_assign(state.leader_epoch, plog.log_end_offset)
            if write is not None:
                pending.append((state.key, write))
        if not pending:
            return {}
        writes = [write for _, write in pending]
        loop = asyncio.get_running_loop()
        # Cancelled (shutdown): the caches count the writes as in flight, so stay dirty and the
        # next write of each (the shutdown's) writes its entries again.
        results = await loop.run_in_executor(None, write_pending_checkpoints, writes)
        failed: dict[TopicPartition, str] = {}
        for (key, write), error in zip(pending, results, strict=True):
            write.cache.written(write, error)
            if error is not None:
                failed[key] = f"Error while writing to checkpoint file {write.cache.path}: {error}"
        return failed

    def _check_leader_and_isr_state(self, state: PartitionState, topic_id: uuid.UUID | None) -> ErrorCode:
        """One partition of a LeaderAndIsr, before anything changes (becomeLeaderOrFollower)."""
        # A name or index no controller would send must not become a path (Topic.validate).
        try:
            validate_topic_name(state.topic)
        except KafkaError as exc:
            return exc.error
        if state.partition < 0:
            return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
        current = self._partitions.get(state.key)
        plog = current.log if current is not None else self.log_manager.get_log(state.topic, state.partition)
        if plog is not None and plog.dir_state.offline:
            # becomeLeaderOrFollower: HostedPartition.Offline answers KAFKA_STORAGE_ERROR.
            return ErrorCode.KAFKA_STORAGE_ERROR
        log_topic_id = plog.topic_id if plog is not None else None
        if topic_id is not None and log_topic_id is not None and topic_id != log_topic_id:
            # Partition.checkOrSetTopicId / hasConsistentTopicId
            return ErrorCode.INCONSISTENT_TOPIC_ID
        current_epoch = current.leader_epoch if current is not None else NO_EPOCH
        if state.leader_epoch > current_epoch:
            return (
                ErrorCode.NONE if self.broker_id in state.replicas else ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
            )
        if state.leader_epoch == current_epoch and topic_id is not None and log_topic_id is None:
            return ErrorCode.NONE  # a topic id assigned without an epoch bump
        return ErrorCode.STALE_CONTROLLER_EPOCH

    def _set_missing_topic_id(self, state: PartitionState, topic_id: uuid.UUID) -> ErrorCode:
        """Kafka's ``Partition.checkOrSetTopicId``: a log loaded without a topic id (its
        partition.metadata lost to a crash) takes the controller's; KAFKA_STORAGE_ERROR if the
        file cannot be written."""
        plog = self.log_manager.get_log(state.topic, state.partition)
        if plog is None or plog.topic_id is not None:
            return ErrorCode.NONE
        try:
            self.log_manager.assign_topic_id(plog, topic_id)
        except KafkaError as exc:
            log.error("cannot record the topic id of %s-%d: %s", state.topic, state.partition, exc)
            return exc.error
        return ErrorCode.NONE

    async def _get_or_create_log(
        self,
        state: PartitionState,
        topic_ids: Mapping[str, uuid.UUID],
        overrides_cache: dict[str, Mapping[str, Any]],
        topic_overrides: TopicOverridesSource,
    ) -> PartitionLog:
        plog = self.log_manager.get_log(state.topic, state.partition)
        if plog is not None:
            return plog
        topic = state.topic
        log_manager = self.log_manager
        log_manager.initializing_logs_of(topic)
        try:
            overrides = overrides_cache.get(topic)
            if overrides is None:
                overrides = overrides_cache[topic] = parse_stored_topic_overrides(
                    topic, await topic_overrides(topic)
                )
            await asyncio.sleep(0)  # one log (a directory and files) per loop turn
            plog = log_manager.get_log(topic, state.partition)  # made meanwhile?
            if plog is not None:
                return plog
            plog = log_manager.get_or_create_log(
                topic, state.partition, topic_ids.get(topic) or uuid.uuid4(), overrides
            )
            # Kafka's finishedInitializingLog: a change of the topic's config that came after
            # the read above found no log to apply it to; read it again (again if another
            # change comes during the read: the latest read is applied last).
            while log_manager.take_topic_config_change(topic):
                fresh = parse_stored_topic_overrides(topic, await topic_overrides(topic))
                overrides_cache[topic] = fresh
                log_manager.set_topic_overrides(topic, fresh)
            return plog
        finally:
            log_manager.finished_initializing_logs_of(topic)

    async def stop_replicas(
        self,
        controller_id: int,
        controller_epoch: int,
        partitions: Sequence[tuple[TopicPartition, int, bool]],
    ) -> tuple[ErrorCode, dict[TopicPartition, ErrorCode]]:
        """StopReplica (Kafka's ``ReplicaManager.stopReplicas``): ``partitions`` are
        (partition, leader epoch, delete). Returns (top-level error, error per partition).

        A stale controller epoch answers STALE_CONTROLLER_EPOCH with no partition. A hosted
        partition stops if the request's epoch is -2 (deletion), -1 (none) or at least its
        own, else FENCED_LEADER_EPOCH. With delete the partition is no longer hosted and its
        log is deleted (renamed now, removed in the background: ``asyncDelete``); an unknown
        partition's log is deleted too. Parked fetches on stopped partitions answer. Runs
        after the LeaderAndIsr / StopReplica in progress (``replicaStateChangeLock``).
        """
        async with self._state_change():
            return await self._stop_replicas(controller_id, controller_epoch, partitions)

    async def _stop_replicas(
        self,
        controller_id: int,
        controller_epoch: int,
        partitions: Sequence[tuple[TopicPartition, int, bool]],
    ) -> tuple[ErrorCode, dict[TopicPartition, ErrorCode]]:
        if controller_epoch < self.controller_epoch:
            log.warning(
                "ignoring StopReplica from controller %d with epoch %d: the current controller epoch is %d",
                controller_id,
                controller_epoch,
                self.controller_epoch,
            )
            return ErrorCode.STALE_CONTROLLER_EPOCH, {}
        self.controller_epoch = controller_epoch
        errors: dict[TopicPartition, ErrorCode] = {}
        deleted: list[tuple[TopicPartition, PartitionLog]] = []
        for key, leader_epoch, delete in partitions:
            current = self._partitions.get(key)
            if current is not None and leader_epoch not in (-2, -1) and leader_epoch < current.leader_epoch:
                errors[key] = ErrorCode.FENCED_LEADER_EPOCH
                continue
            errors[key] = ErrorCode.NONE
            if delete:
                # Out of the log manager first (nothing new reaches the log), then stopped.
                plog = self.log_manager.detach_log(*key)
                self._stop_replica(key)
                if plog is not None:
                    deleted.append((key, plog))
            else:
                # Kafka's stopReplicas: the fetcher goes, parked requests on it answer now.
                if self.replication is not None:
                    self.replication.fetchers.remove_partitions([key])
                self.fetch_purgatory.complete_all(key)
                self.produce_purgatory.check_and_complete(key)
        if deleted:
            for key, exc in await self._delete_detached_logs(deleted):
                log.error("cannot delete the log of %s-%d: %s", key[0], key[1], exc)
                errors[key] = ErrorCode.KAFKA_STORAGE_ERROR
        return ErrorCode.NONE, errors

    async def _delete_detached_logs(
        self, deleted: Sequence[tuple[TopicPartition, PartitionLog]]
    ) -> list[tuple[TopicPartition, OSError]]:
        """Kafka's ``LogManager.asyncDelete`` file work for the logs a StopReplica detached:
        closed and renamed ``-delete`` in ONE executor job (one parent-dir fsync per log dir),
        awaited before the answer; the renamed dirs then go to the log manager (removal,
        checkpoints) on the loop. Returns the partitions whose close or rename failed
        (KAFKA_STORAGE_ERROR; their dir stays as it was, and its log dir goes offline). The state-change lock is held
        meanwhile, so a LeaderAndIsr creating one of them again runs after the renames and
        makes a fresh directory. Cancelled (shutdown), the job still ends in its thread and
        its dirs are handed over then."""
        logs = [plog for _, plog in deleted]
        loop = asyncio.get_running_loop()
        job = loop.run_in_executor(None, rename_each_for_deletion, logs)

        def hand_over(results: Sequence[Path | OSError]) -> list[tuple[TopicPartition, OSError]]:
            renamed = [(plog, r) for plog, r in zip(logs, results, strict=True) if isinstance(r, Path)]
            self.log_manager.logs_renamed_for_deletion([plog for plog, _ in renamed], [r for _, r in renamed])
            failed = []
            for (key, plog), r in zip(deleted, results, strict=True):
                if not isinstance(r, Path):
                    # Kafka's asyncDelete renames under maybeHandleIOException: the dir goes offline
                    self.log_manager.failure_channel.report(
                        plog.dir.parent, r, f"renaming dir for {key[0]}-{key[1]}"
                    )
                    failed.append((key, r))
            return failed

        def hand_over_later(done: asyncio.Future[list[Path | OSError]]) -> None:
            if not done.cancelled() and done.exception() is None:
                hand_over(done.result())

        try:
            results = await asyncio.shield(job)
        except asyncio.CancelledError:
            job.add_done_callback(hand_over_later)
            raise
        return hand_over(results)
