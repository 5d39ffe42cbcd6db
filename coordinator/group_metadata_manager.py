"""The group coordinator's ``__consumer_offsets`` state: Kafka's ``GroupMetadataManager``.

What the classic ``GroupCoordinator`` keeps in and reads from ``__consumer_offsets``, apart
from the request logic (``coordinator.groups``):

- groups' GroupMetadataValue writes (``storeGroup``; acks=-1 completions held by background
  tasks) and tombstones of removed groups and offsets (``cleanupGroupMetadata`` for
  DeleteGroups, OffsetDelete, expiry and ``handleDeletedPartitions``), appended with acks=0;
- replay of a partition (``loadGroupsAndOffsets``: the offset whose record was appended
  last wins, tombstones delete, transactional commits at their COMMIT marker);
- ownership in ZooKeeper mode (``onElection`` / ``onResignation`` with the coordinator
  epoch of ``maybeUpdateCoordinatorEpoch``);
- the offset-expiry timer (``cleanupGroupMetadata``).

A mixin of ``GroupCoordinator``: it uses the coordinator's groups, offsets and topic.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from typing import Any

from coordinator.group_membership import Cancellable, GroupMembership, Timers, guarded
from coordinator.group_metadata import Group, GroupState, Member
from coordinator.group_offsets import (
    GroupKey,
    GroupRecord,
    MemberRecord,
    OffsetAndMetadata,
    OffsetKey,
    OffsetStore,
    decode_group_value,
    decode_key,
    decode_offset_value,
    encode_group_key,
    encode_group_value,
    encode_offset_key,
    partition_for,
)
from coordinator.group_txn_offsets import (
    DecodedOpenCommit,
    PendingTxnOffsets,
    ReplayResolvingTxns,
    decode_open_commits,
)
from coordinator.offsets_topic import OffsetsTopic, replay_off_loop
from protocol.errors import ErrorCode, KafkaError
from protocol.primitives import DecodeError, EncodeError

log = logging.getLogger(__name__)

S = GroupState


class GroupMetadataManager:
    """Storage, loading, ownership and expiry of the coordinator's groups and offsets."""

    groups: dict[str, Group]
    offsets: OffsetStore
    pending_txn_offsets: PendingTxnOffsets
    topic: OffsetsTopic
    topic_name: str
    membership: GroupMembership
    timers: Timers
    time_ms: Callable[[], int]
    active: bool
    loading: set[int]
    owned_partitions: set[int] | None
    offsets_retention_ms: int
    offsets_retention_check_ms: int
    _coordinator_epochs: dict[int, int]
    _load_tasks: dict[int, asyncio.Task]
    _write_tasks: set[asyncio.Task]
    _expiry_timer: Cancellable | None
    partition_for: Callable[[str], int]

    def _has_offsets(self, group: Group) -> bool:
        """Committed offsets, plain commits being written or a transaction's pending ones: an
        Empty group without any may go (Kafka's ``GroupMetadata.hasOffsets``)."""
        group_id = group.group_id
        return (
            self.offsets.has_offsets(group_id)
            or bool(group.pending_offset_commits)
            or self.pending_txn_offsets.has_group(group_id)
        )

    def _remove_groups(self, groups: Iterable[Group], extra: dict[int, list] | None = None) -> int:
        """Drop dead groups with their offsets; tombstones go to the log (errors only logged)."""
        records: dict[int, list[tuple[bytes, bytes | None]]] = defaultdict(list)
        if extra:
            for p, recs in extra.items():
                records[p].extend(recs)
        removed = 0
        for group in groups:
            p = self.partition_for(group.group_id)
            for topic, partition in self.offsets.remove_group(group.group_id):
                records[p].append((encode_offset_key(group.group_id, topic, partition), None))
                removed += 1
            if self.groups.get(group.group_id) is group:
                del self.groups[group.group_id]
            group.pending_offset_commits.clear()  # a Dead group caches nothing more
            self.membership.cancel_group_timers(group)
            # A generation-0 group only stored offsets: it has no metadata record to delete.
            if group.generation_id > 0:
                records[p].append((encode_group_key(group.group_id), None))
        self._append_tombstones(records)
        return removed

    def _append_tombstones(self, records: dict[int, list[tuple[bytes, bytes | None]]]) -> None:
        """Kafka's ``cleanupGroupMetadata`` appends tombstones with requiredAcks=0: memory has
        already forgotten the state, so no min.insync.replicas check may keep them out of
        the log (a reload would bring the deleted groups and offsets back)."""
        for p, recs in records.items():
            if not recs:
                continue
            try:
                written = self.topic.append(p, recs, for_offsets=True, required_acks=0)
            except KafkaError as exc:
                # As Kafka: the next expiry run (or a reload) tries again.
                log.warning("cannot write %d tombstones to %s-%d: %s", len(recs), self.topic_name, p, exc)
                continue
            if not isinstance(written, int):
                self._background(self._log_tombstones_outcome(written, len(recs), p))

    async def _log_tombstones_outcome(self, written: Awaitable[int], count: int, partition: int) -> None:
        try:
            await written
        except KafkaError as exc:
            log.warning("cannot write %d tombstones to %s-%d: %s", count, self.topic_name, partition, exc)

    def _background(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run a write's completion on the loop (a strong reference until it ends)."""
        task = asyncio.get_running_loop().create_task(coro)
        self._write_tasks.add(task)
        task.add_done_callback(self._write_tasks.discard)

    def remove_offsets_of_topic(self, topic: str) -> None:
        """A deleted topic (``GroupCoordinator.handleDeletedPartitions`` ->
        ``cleanupGroupMetadata`` with ``removeOffsets``): every group loses its committed
        offsets of the topic, its commits of it still being written and the open transactions'
        offsets of it; then every Empty
        group left without offsets is Dead and removed at once, not at the next expiry run."""
        records: dict[int, list[tuple[bytes, bytes | None]]] = defaultdict(list)
        for group_id, partition in self.offsets.partitions_of_topic(topic):
            self.offsets.remove(group_id, topic, partition)
            records[self.partition_for(group_id)].append(
                (encode_offset_key(group_id, topic, partition), None)
            )
        self.pending_txn_offsets.remove_topic(topic)
        now = self.time_ms()
        dead: list[Group] = []
        for group in list(self.groups.values()):
            group.remove_pending_offset_commits([tp for tp in group.pending_offset_commits if tp[0] == topic])
            if group.is_state(S.EMPTY) and not self._has_offsets(group):
                log.info(
                    "group %s transitioned to Dead in generation %d", group.group_id, group.generation_id
                )
                group.transition_to(S.DEAD, now)
                dead.append(group)
        removed = sum(len(recs) for recs in records.values())
        if removed or dead:
            log.info("removed %d offsets of deleted topic %s and %d empty groups", removed, topic, len(dead))
        self._remove_groups(dead, records)

    # ---------------------------------------------------------- leadership (ZooKeeper mode)

    def follow_leadership(self) -> None:
        """Coordinate only the ``__consumer_offsets`` partitions this broker leads (ZooKeeper
        mode): from now on ``on_election`` / ``on_resignation`` decide what is owned."""
        if self.owned_partitions is None:
            self.owned_partitions = set()

    def _take_epoch(self, partition: int, epoch: int | None) -> bool:
        """Kafka's ``GroupMetadataManager.maybeUpdateCoordinatorEpoch``: a load or unload goes
        ahead unless the partition's stored coordinator epoch is newer than ``epoch``."""
        current = self._coordinator_epochs.get(partition)
        if epoch is None:
            return True
        if current is None or epoch > current:
            self._coordinator_epochs[partition] = epoch
            return True
        return epoch == current

    def on_election(self, partition: int, epoch: int) -> None:
        """This broker became leader of ``__consumer_offsets``-``partition`` with ``epoch``
        (Kafka's ``onElection``): load it; its groups get COORDINATOR_LOAD_IN_PROGRESS until
        the load is done, then they are owned here."""
        owned = self.owned_partitions
        if owned is None or not self._take_epoch(partition, epoch):
            return
        if partition in owned or partition in self.loading:
            return
        self.loading.add(partition)
        if self.active:
            self._start_load(partition)

    def on_resignation(self, partition: int, epoch: int | None) -> None:
        """This broker no longer leads ``__consumer_offsets``-``partition`` (Kafka's
        ``onResignation``, ``removeGroupsAndOffsets``): a load under way stops, its groups
        and offsets are dropped (parked joins answer NOT_COORDINATOR) and its groups get
        NOT_COORDINATOR from now on.

        The groups leave the coordinator's maps now (C-level pops; the partition of each id
        from the cached hash), so a re-election's load never meets them; what grows with
        their members (answering parked requests, cancelling timers: ``membership.unload``)
        runs in slices on the loop (``_unload_groups``), on these Group objects only."""
        owned = self.owned_partitions
        if owned is None or not self._take_epoch(partition, epoch):
            return
        task = self._load_tasks.pop(partition, None)
        if task is not None:
            task.cancel()
        self.loading.discard(partition)
        owned.discard(partition)
        count = self.topic.partition_count
        groups = self.groups
        gone = [group for group_id, group in groups.items() if partition_for(group_id, count) == partition]
        for group in gone:
            del groups[group.group_id]
        for group_id in [g for g in self.offsets.groups() if partition_for(g, count) == partition]:
            self.offsets.remove_group(group_id)
        self.pending_txn_offsets.drop_groups(
            g for g in self.pending_txn_offsets.all_groups() if partition_for(g, count) == partition
        )
        self._unload_groups(gone)
        log.info("unloaded %d groups of %s-%d (epoch %s)", len(gone), self.topic_name, partition, epoch)

    def _unload_groups(self, gone: list[Group]) -> None:
        """``onGroupUnloaded`` for groups already out of the coordinator's maps: the first
        slice now, the others one per turn of the loop. Until its slice a group is marked
        Dead (its timers then do nothing); a stop meanwhile unloads the rest at once."""
        now = self.time_ms()
        for group in gone[UNLOADED_GROUPS_PER_TURN:]:
            if not group.is_state(S.DEAD):
                group.transition_to(S.DEAD, now)
        for group in gone[:UNLOADED_GROUPS_PER_TURN]:
            self.membership.unload(group)
        if len(gone) > UNLOADED_GROUPS_PER_TURN:
            self._background(self._unload_in_slices(gone))

    async def _unload_in_slices(self, gone: list[Group]) -> None:
        done = UNLOADED_GROUPS_PER_TURN
        try:
            while done < len(gone):
                await asyncio.sleep(0)
                for group in gone[done : done + UNLOADED_GROUPS_PER_TURN]:
                    self.membership.unload(group)
                done += UNLOADED_GROUPS_PER_TURN
        finally:
            for group in gone[done:]:  # cancelled (stop): the rest now
                self.membership.unload(group)

    def _start_load(self, partition: int) -> None:
        self._load_tasks[partition] = asyncio.get_running_loop().create_task(
            self._load_owned(partition), name=f"load-{self.topic_name}-{partition}"
        )

    async def _load_owned(self, partition: int) -> None:
        try:
            await self._load_partition(partition)
        except asyncio.CancelledError:
            raise  # resigned meanwhile: on_resignation has cleaned up
        except Exception:
            log.exception("cannot load %s-%d", self.topic_name, partition)
        self._load_tasks.pop(partition, None)
        if partition in self.loading and self.owned_partitions is not None:
            # Kafka's loadGroupsAndOffsets owns the partition after the load, even a failed one.
            self.loading.discard(partition)
            self.owned_partitions.add(partition)

    # ================================================================== expiry

    def _schedule_expiry(self) -> None:
        self._expiry_timer = self.timers.call_later(
            self.offsets_retention_check_ms, guarded(self._on_expiry_timer)
        )

    def _on_expiry_timer(self) -> None:
        self._expiry_timer = None
        if not self.active:
            return
        try:
            self.cleanup_group_metadata()
        finally:
            if self.active:
                self._schedule_expiry()

    def cleanup_group_metadata(self) -> int:
        """Expire offsets and remove empty groups without offsets; returns offsets expired.

        Which offsets may expire (Kafka's ``ClassicGroup.offsetExpirationCondition``):
        all of an Empty group, counted from when it became empty; in a Stable
        consumer group, those of topics no member subscribes to, counted from their
        commit; all of a simple group (no protocol type), counted from their commit.
        """
        now = self.time_ms()
        records: dict[int, list[tuple[bytes, bytes | None]]] = defaultdict(list)
        dead: list[Group] = []
        expired_count = 0
        for group_id, group in list(self.groups.items()):
            p = self.partition_for(group_id)
            if p in self.loading:
                continue
            base: int | None = None
            keep: frozenset[str] = frozenset()
            expirable = True
            if group.protocol_type is not None:
                if group.is_state(S.EMPTY):
                    base = group.current_state_timestamp
                elif (
                    group.is_consumer_group()
                    and group.subscribed_topics is not None
                    and group.is_state(S.STABLE)
                ):
                    keep = group.subscribed_topics
                else:
                    expirable = False
            if expirable:
                for topic, partition in self.offsets.expired(
                    group_id,
                    now,
                    self.offsets_retention_ms,
                    base_timestamp_ms=base,
                    keep_topics=keep,
                    in_flight=group.pending_offset_commits,
                ):
                    self.offsets.remove(group_id, topic, partition)
                    records[p].append((encode_offset_key(group_id, topic, partition), None))
                    expired_count += 1
            if group.is_state(S.EMPTY) and not self._has_offsets(group):
                log.info("group %s transitioned to Dead in generation %d", group_id, group.generation_id)
                group.transition_to(S.DEAD, now)
                dead.append(group)
        self._remove_groups(dead, records)
        if expired_count or dead:
            log.info("removed %d expired offsets and %d empty groups", expired_count, len(dead))
        return expired_count

    # ================================================================== storage

    def _group_record(self, group: Group, assignment: dict[str, bytes]) -> GroupRecord:
        pname = group.protocol_name
        return GroupRecord(
            protocol_type=group.protocol_type or "",
            generation=group.generation_id,
            protocol=pname,
            leader=group.leader_id,
            current_state_timestamp_ms=-1
            if group.current_state_timestamp is None
            else group.current_state_timestamp,
            members=[
                MemberRecord(
                    m.member_id,
                    m.group_instance_id,
                    m.client_id,
                    m.client_host,
                    m.rebalance_timeout_ms,
                    m.session_timeout_ms,
                    m.metadata(pname) if pname is not None else b"",
                    assignment.get(m.member_id, b""),
                )
                for m in group.members.values()
            ],
        )

    def _store_group(
        self, group: Group, assignment: dict[str, bytes], on_stored: Callable[[ErrorCode], None]
    ) -> None:
        """Write the group's GroupMetadataValue (``storeGroup``); ``on_stored`` gets NONE or
        the mapped error, now or once every in-sync replica has the write (acks=-1)."""
        try:
            value = encode_group_value(self._group_record(group, assignment))
            key = encode_group_key(group.group_id)
        except (EncodeError, ValueError) as exc:
            log.error("group %s: cannot encode group metadata: %s", group.group_id, exc)
            on_stored(ErrorCode.UNKNOWN_SERVER_ERROR)
            return
        p = self.partition_for(group.group_id)
        try:
            written = self.topic.append(p, [(key, value)], for_offsets=False)
        except KafkaError as exc:
            on_stored(exc.error)
            return
        if isinstance(written, int):
            on_stored(ErrorCode.NONE)
        else:
            self._background(self._complete_store_group(written, on_stored))

    @staticmethod
    async def _complete_store_group(written: Awaitable[int], on_stored: Callable[[ErrorCode], None]) -> None:
        try:
            await written
        except KafkaError as exc:
            on_stored(exc.error)
        else:
            on_stored(ErrorCode.NONE)

    async def _load_partition(self, partition: int) -> tuple[int, int]:
        """Replay one partition (``loadGroupsAndOffsets``): tombstones delete; an offset
        replaces the current one unless that one's record was appended later (a transaction's
        offsets come at its COMMIT marker with their batch's offset: Kafka's
        ``CommitRecordMetadataAndOffset.olderThan``); returns (offsets, groups) loaded.

        Kafka runs ``doLoadGroupsAndOffsets`` on the coordinator's scheduler thread; here the
        chunks are read on the event loop (``PartitionReader``) and everything that grows
        with the data runs in an executor thread, one job at a time (``GroupLoad``: decoding,
        transaction resolution, building the groups). The log end is read again at every
        step, so a marker appended meanwhile is replayed (``on_txn_completed`` ignores
        groups not installed yet). The install follows the last check that the log end was
        reached with no await in between, so no marker can fall between the two. A load
        cancelled (resignation, stop) while a job runs drops the job's result: nothing of it
        is installed."""
        load = GroupLoad(self.topic_name, partition, self._group_from_record, self.time_ms)
        await replay_off_loop(self.topic.reader(partition), load)
        loaded = self._install_load(load)
        await self._on_groups_loaded(loaded)
        if load.n_offsets or loaded:
            log.info(
                "loaded %d offsets and %d groups from %s-%d",
                load.n_offsets,
                len(loaded),
                self.topic_name,
                partition,
            )
        return load.n_offsets, len(loaded)

    def _install_load(self, load: GroupLoad) -> list[Group]:
        """Make a caught-up load's groups, offsets and open transactional commits the
        coordinator's, in one step of the loop with C-level bulk updates; returns the groups."""
        self.pending_txn_offsets.add_open_commits(load.open_commits)
        self.offsets.install(load.offsets, load.written_at)
        built = load.built
        if not self.groups.keys().isdisjoint(built):
            # None expected (requests for a loading partition are refused); as before, a group
            # that only has offsets does not replace one already here.
            for group_id in load.bare & self.groups.keys():
                del built[group_id]
        self.groups.update(built)
        return list(built.values())

    async def _on_groups_loaded(self, loaded: list[Group]) -> None:
        """``onGroupLoaded`` for each loaded group (its members' heartbeat deadlines), in
        slices with the loop let go between them, while the partition is still loading (as
        Kafka calls it inside ``doLoadGroupsAndOffsets``). A group no longer installed
        (resignation, removal meanwhile) is skipped."""
        groups = self.groups
        for start in range(0, len(loaded), LOADED_GROUPS_PER_TURN):
            if start:
                await asyncio.sleep(0)
            for group in loaded[start : start + LOADED_GROUPS_PER_TURN]:
                if groups.get(group.group_id) is group:
                    self.membership.on_group_loaded(group)

    def _group_from_record(self, group_id: str, rec: GroupRecord) -> Group:
        now = self.time_ms()
        members = rec.members if rec.protocol is not None else []
        if rec.members and rec.protocol is None:
            log.warning("group %s: members without a protocol in its metadata record; loaded empty", group_id)
        group = Group(group_id, S.STABLE if members else S.EMPTY, now)
        group.generation_id = rec.generation
        group.protocol_type = rec.protocol_type or None
        group.protocol_name = rec.protocol
        group.leader_id = rec.leader if members else None
        group.current_state_timestamp = (
            rec.current_state_timestamp_ms if rec.current_state_timestamp_ms >= 0 else None
        )
        for m in members:
            member = Member(
                m.member_id,
                m.group_instance_id,
                m.client_id,
                m.client_host,
                m.rebalance_timeout_ms,
                m.session_timeout_ms,
                rec.protocol_type,
                [(rec.protocol or "", m.subscription)],
            )
            member.assignment = m.assignment
            group.add(member)
        if members and group.leader_id not in group.members:
            group.leader_id = next(iter(group.members))
        group.subscribed_topics = group.compute_subscribed_topics()
        return group


# Groups whose onGroupLoaded (heartbeat timers) runs per turn of the loop after a load, and
# whose onGroupUnloaded (parked requests answered, timers cancelled) after a resignation.
LOADED_GROUPS_PER_TURN = 1000
UNLOADED_GROUPS_PER_TURN = 1000

TopicPartition = tuple[str, int]


class GroupLoad:
    """What one load of a ``__consumer_offsets`` partition has replayed so far (the maps of
    Kafka's ``doLoadGroupsAndOffsets``), and the groups built from it.

    ``consume`` and ``build`` run in an executor thread, one job at a time awaited by the
    loader, so these structures are never touched by two threads; the loader installs them
    on the loop once caught up (``GroupMetadataManager._install_load``)."""

    def __init__(
        self,
        topic_name: str,
        partition: int,
        group_from_record: Callable[[str, GroupRecord], Group],
        time_ms: Callable[[], int],
    ) -> None:
        self.topic_name = topic_name
        self.partition = partition
        self._group_from_record = group_from_record
        self._time_ms = time_ms
        self.txns = ReplayResolvingTxns()
        # group -> partition -> committed offset, and the log offset of its record
        # (OffsetStore's shapes; a tombstone removes the entry).
        self.offsets: dict[str, dict[TopicPartition, OffsetAndMetadata]] = {}
        self.written_at: dict[str, dict[TopicPartition, int]] = {}
        self.records: dict[str, GroupRecord | None] = {}  # None: a tombstone
        # Built by ``build``: the groups to install (``bare``: those without a metadata
        # record, a simple group that only stores offsets) and the open transactions' offsets.
        self.built: dict[str, Group] = {}
        self.bare: set[str] = set()
        self.open_commits: list[DecodedOpenCommit] = []
        self.n_offsets = 0
        self.stale = True  # records consumed since the last build
        # groups whose records changed since the last build, in log order (the groups' order)
        self._dirty: dict[str, None] = {}
        self._open_groups: set[str] = set()

    def consume(self, data: memoryview, position: int) -> int:
        """Replay one chunk read at ``position``; returns the offset after its last batch."""
        records, nxt = self.txns.resolve(data, position)
        self.stale = True
        offsets, written_at, dirty = self.offsets, self.written_at, self._dirty
        for offset, key, value in records:
            if key is None:
                log.warning(
                    "%s-%d offset %d: record without key skipped", self.topic_name, self.partition, offset
                )
                continue
            try:
                k = decode_key(key)
                if isinstance(k, OffsetKey):
                    group, tp = k.group, (k.topic, k.partition)
                    written = written_at.get(group)
                    if value is None:
                        if written is not None and written.pop(tp, None) is not None:
                            del offsets[group][tp]
                            if not written:
                                del written_at[group], offsets[group]
                    elif written is None:
                        offsets[group] = {tp: decode_offset_value(value)}
                        written_at[group] = {tp: offset}
                    elif written.get(tp, -1) <= offset:
                        offsets[group][tp] = decode_offset_value(value)
                        written[tp] = offset
                    dirty[group] = None
                elif isinstance(k, GroupKey):
                    self.records[k.group] = None if value is None else decode_group_value(value)
                    dirty[k.group] = None
            except DecodeError as exc:
                log.warning(
                    "%s-%d offset %d: undecodable record skipped: %s",
                    self.topic_name,
                    self.partition,
                    offset,
                    exc,
                )
        return nxt

    def build(self) -> None:
        """(Re)build the groups whose records changed since the last build, and the open
        transactions' offsets (their groups are loaded too: Kafka's pendingEmptyGroupOffsets)."""
        self.open_commits = decode_open_commits(self.txns.open_commits)
        open_groups = {group_id for _, group_id, _, _ in self.open_commits}
        dirty = self._dirty
        dirty.update(dict.fromkeys(open_groups ^ self._open_groups))
        self._dirty, self._open_groups, self.stale = {}, open_groups, False
        built, bare = self.built, self.bare
        for group_id in dirty:
            rec = self.records.get(group_id)
            if rec is not None:
                built[group_id] = self._group_from_record(group_id, rec)
                bare.discard(group_id)
            elif group_id in self.offsets or group_id in open_groups:
                built[group_id] = Group(group_id, S.EMPTY, self._time_ms())
                bare.add(group_id)
            else:
                built.pop(group_id, None)
                bare.discard(group_id)
        self.n_offsets = sum(map(len, self.offsets.values()))
