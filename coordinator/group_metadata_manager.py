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
)
from coordinator.group_txn_offsets import PendingTxnOffsets, replay_resolving_txns
from coordinator.offsets_topic import OffsetsTopic
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
        NOT_COORDINATOR from now on."""
        owned = self.owned_partitions
        if owned is None or not self._take_epoch(partition, epoch):
            return
        task = self._load_tasks.pop(partition, None)
        if task is not None:
            task.cancel()
        self.loading.discard(partition)
        owned.discard(partition)
        removed = 0
        for group_id in [g for g in self.groups if self.partition_for(g) == partition]:
            group = self.groups.pop(group_id)
            self.membership.unload(group)
            removed += 1
        for group_id in [g for g in self.offsets.groups() if self.partition_for(g) == partition]:
            self.offsets.remove_group(group_id)
        self.pending_txn_offsets.drop_groups(
            g for g in self.pending_txn_offsets.all_groups() if self.partition_for(g) == partition
        )
        log.info("unloaded %d groups of %s-%d (epoch %s)", removed, self.topic_name, partition, epoch)

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
        ``CommitRecordMetadataAndOffset.olderThan``)."""
        # key -> (log offset of its record, offset); None: deleted
        offsets: dict[OffsetKey, tuple[int, OffsetAndMetadata] | None] = {}
        groups: dict[str, tuple[GroupRecord, bytes] | None] = {}
        replayed = 0
        # Transactional commits count at their COMMIT marker; those without one stay pending.
        txn_replay = replay_resolving_txns(self.topic.partitions, self.topic_name, partition)
        for chunk in txn_replay:
            replayed += len(chunk)
            for offset, key, value in chunk:
                if key is None:
                    log.warning(
                        "%s-%d offset %d: record without key skipped", self.topic_name, partition, offset
                    )
                    continue
                try:
                    k = decode_key(key)
                    if isinstance(k, OffsetKey):
                        if value is None:
                            offsets[k] = None
                        else:
                            current = offsets.get(k)
                            if current is None or current[0] <= offset:
                                offsets[k] = (offset, decode_offset_value(value))
                    elif isinstance(k, GroupKey):
                        groups[k.group] = None if value is None else (decode_group_value(value), value)
                except DecodeError as exc:
                    log.warning(
                        "%s-%d offset %d: undecodable record skipped: %s",
                        self.topic_name,
                        partition,
                        offset,
                        exc,
                    )
            await asyncio.sleep(0)  # let the loop serve other requests between chunks
        pending_groups = self.pending_txn_offsets.add_open_commits(txn_replay.open_commits)
        n_offsets = 0
        for k, entry in offsets.items():
            if entry is not None:
                self.offsets.put(k.group, k.topic, k.partition, entry[1], entry[0])
                n_offsets += 1
        loaded: list[Group] = []
        for group_id, entry in groups.items():
            if entry is not None:
                group = self._group_from_record(group_id, entry[0])
                self.groups[group_id] = group
                loaded.append(group)
        # Offsets, or a transaction's pending ones (Kafka's pendingEmptyGroupOffsets), without
        # group metadata: a simple group that only stores offsets.
        for group_id in {k.group for k, entry in offsets.items() if entry is not None} | pending_groups:
            if group_id not in self.groups:
                group = self.groups[group_id] = Group(group_id, S.EMPTY, self.time_ms())
                loaded.append(group)
        for group in loaded:
            self.membership.on_group_loaded(group)
        if n_offsets or loaded:
            log.info(
                "loaded %d offsets and %d groups from %s-%d",
                n_offsets,
                len(loaded),
                self.topic_name,
                partition,
            )
        return n_offsets, len(loaded)

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
