"""The group coordinator: classic consumer groups and their committed offsets.

Mirrors Kafka's classic ``GroupCoordinator`` (core/.../coordinator/group/GroupCoordinator.scala,
the last Scala version, whose behaviour Kafka 4's ``GroupMetadataManager`` and
``OffsetMetadataManager`` keep for classic groups). The pieces:

- ``coordinator.group_metadata``: a group's and a member's state (GroupMetadata, MemberMetadata);
- ``coordinator.group_membership``: JoinGroup, SyncGroup, Heartbeat, LeaveGroup, rebalances;
- ``coordinator.group_offsets``: committed offsets and the ``__consumer_offsets`` records;
- ``coordinator.offsets_topic``: ``__consumer_offsets`` itself (creation, appends, replay);
- ``coordinator.group_metadata_manager``: what is stored in and loaded from
  ``__consumer_offsets``, partition ownership in ZooKeeper mode, offset expiry
  (Kafka's ``GroupMetadataManager``; a mixin of the coordinator);
- this module: lifecycle, group validation, FindCoordinator, DescribeGroups, ListGroups,
  DeleteGroups, OffsetDelete, OffsetCommit, OffsetFetch, TxnOffsetCommit.

Everything runs on the broker's event loop (no locks); timers are loop handles.
Committed offsets go to ``__consumer_offsets`` before they are answered (one
batch per OffsetCommit), and a group's membership snapshot (GroupMetadataValue)
is written when a generation's assignment is set, when the group becomes empty
and when a static member is replaced. ``start()`` replays every partition of
the topic (COORDINATOR_LOAD_IN_PROGRESS meanwhile); in ZooKeeper mode
(``follow_leadership``) only the partitions this broker leads are owned: each is
loaded on ``on_election`` and dropped on ``on_resignation`` (Kafka's
``onElection`` / ``onResignation``), and groups of other partitions get
NOT_COORDINATOR. Offsets of empty groups
expire after ``offsets.retention.minutes`` (checked every
``offsets.retention.check.interval.ms``), written as tombstones.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from coordinator.group_membership import (
    Cancellable,
    GroupMembership,
    LeaveMember,
    LoopTimers,
    Timers,
)
from coordinator.group_metadata import Group, GroupState
from coordinator.group_metadata_manager import GroupMetadataManager
from coordinator.group_offsets import (
    OffsetAndMetadata,
    OffsetStore,
    encode_offset_key,
    encode_offset_value,
    utf16_length,
)
from coordinator.group_txn_offsets import (
    PendingTxnOffsets,
    write_txn_offsets,
)
from coordinator.offsets_topic import ClusterOffsetsTopic, InternalTopicCreator, OffsetsTopic
from protocol.errors import ErrorCode, KafkaError

if TYPE_CHECKING:
    from coordinator.cluster_state import LiveBroker, PartitionState, TopicMetadata
    from coordinator.partition_access import PartitionAccess
    from storage.log_manager import LogManager

log = logging.getLogger(__name__)

INT64_MAX = (1 << 63) - 1

DEFAULT_RETENTION_TIME = -1  # OffsetCommitRequest.DEFAULT_RETENTION_TIME
MAX_STRING_BYTES = 32767

S = GroupState


def _wall_ms() -> int:
    return int(time.time() * 1000)


@dataclass(slots=True)
class OffsetCommitEntry:
    topic: str
    partition: int
    offset: int
    leader_epoch: int = -1
    metadata: str | None = None


@dataclass(slots=True)
class MemberSummary:
    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    metadata: bytes
    assignment: bytes


@dataclass(slots=True)
class GroupSummary:
    """What DescribeGroups shows of a group (Kafka's ``GroupSummary``)."""

    state: str
    protocol_type: str
    protocol: str
    members: list[MemberSummary] = field(default_factory=list)


@dataclass(slots=True)
class GroupOverview:
    group_id: str
    protocol_type: str
    state: str


NO_STATE_SUMMARY = GroupSummary("", "", "")
DEAD_SUMMARY = GroupSummary(str(S.DEAD), "", "")


class GroupCoordinator(GroupMetadataManager):
    """Classic consumer groups and their committed offsets, for every group this broker owns."""

    def __init__(
        self,
        log_manager: LogManager,
        partitions: PartitionAccess,
        *,
        broker_id: int,
        offsets_topic_partitions: int = 50,
        offsets_segment_bytes: int = 104_857_600,
        offsets_retention_ms: int = 7 * 24 * 3_600_000,
        offsets_retention_check_ms: int = 600_000,
        initial_rebalance_delay_ms: int = 3_000,
        min_session_timeout_ms: int = 6_000,
        max_session_timeout_ms: int = 1_800_000,
        max_group_size: int = 2_147_483_647,
        offset_metadata_max_bytes: int = 4096,
        offsets_commit_required_acks: int = -1,
        offsets_commit_timeout_ms: int = 5000,
        time_ms: Callable[[], int] | None = None,
        timers: Timers | None = None,
        cluster_topics: InternalTopicCreator | None = None,
    ) -> None:
        self.broker_id = broker_id
        self.offsets_retention_ms = offsets_retention_ms
        self.offsets_retention_check_ms = offsets_retention_check_ms
        self.max_group_size = max_group_size
        self.offset_metadata_max_bytes = offset_metadata_max_bytes
        self.time_ms = time_ms or _wall_ms
        self.timers: Timers = timers or LoopTimers()
        # A lone broker creates __consumer_offsets in its log dirs; in ZooKeeper mode
        # (``cluster_topics``) the cluster does, and this broker coordinates what it leads.
        self.topic: OffsetsTopic
        if cluster_topics is None:
            self.topic = OffsetsTopic(
                log_manager,
                partitions,
                num_partitions=offsets_topic_partitions,
                segment_bytes=offsets_segment_bytes,
                time_ms=self.time_ms,
                commit_required_acks=offsets_commit_required_acks,
                commit_timeout_ms=offsets_commit_timeout_ms,
            )
        else:
            self.topic = ClusterOffsetsTopic(
                cluster_topics,
                partitions,
                num_partitions=offsets_topic_partitions,
                segment_bytes=offsets_segment_bytes,
                time_ms=self.time_ms,
                commit_required_acks=offsets_commit_required_acks,
                commit_timeout_ms=offsets_commit_timeout_ms,
            )
        self.groups: dict[str, Group] = {}
        self.offsets = OffsetStore()
        self.pending_txn_offsets = PendingTxnOffsets()  # TxnOffsetCommits awaiting their marker
        # The GroupMetadataValue last written for each group, as written (for compaction).
        self.active = False
        self.loading: set[int] = set()
        # None: this broker coordinates every partition (a lone broker leads them all).
        # A set once ``follow_leadership`` is called (ZooKeeper mode): the partitions of
        # ``__consumer_offsets`` this broker leads and has loaded (Kafka's ownedPartitions).
        self.owned_partitions: set[int] | None = None
        self._coordinator_epochs: dict[int, int] = {}  # Kafka's epochForPartitionId
        self._load_tasks: dict[int, asyncio.Task] = {}
        self._write_tasks: set[asyncio.Task] = set()  # writes waiting for the ISR (acks=-1)
        self._expiry_timer: Cancellable | None = None
        self.membership = GroupMembership(
            self.groups,
            timers=self.timers,
            time_ms=self.time_ms,
            validate_group_status=self._validate_group_status,
            store_group=self._store_group,
            partition_for=self.partition_for,
            initial_rebalance_delay_ms=initial_rebalance_delay_ms,
            min_session_timeout_ms=min_session_timeout_ms,
            max_session_timeout_ms=max_session_timeout_ms,
            max_group_size=max_group_size,
        )
        # The membership requests are served by GroupMembership.
        self.join_group = self.membership.join_group
        self.sync_group = self.membership.sync_group
        self.heartbeat = self.membership.heartbeat
        self.leave_group = self.membership.leave_group

    # ================================================================== lifecycle

    async def start(self) -> None:
        """Replay ``__consumer_offsets`` (if it exists) and start the offset-expiry timer.

        The coordinator is active during the load: requests for a group whose
        partition is still loading get COORDINATOR_LOAD_IN_PROGRESS.
        """
        self.topic.complete_interrupted_creation()
        if self.owned_partitions is not None:
            # Partitions are loaded as this broker is elected their leader (on_election);
            # those elected before the start load now.
            self.active = True
            for p in sorted(self.loading):
                self._start_load(p)
            self._schedule_expiry()
            return
        count = self.topic.existing_partitions()
        self.loading = set(range(count or 0))
        self.active = True
        if count:
            started = time.monotonic()
            offsets = groups = 0
            for p in range(count):
                n_off, n_grp = await self._load_partition(p)
                offsets += n_off
                groups += n_grp
                self.loading.discard(p)
            log.info(
                "loaded %d committed offsets and %d groups from %d partitions of %s in %.0f ms",
                offsets,
                groups,
                count,
                self.topic_name,
                (time.monotonic() - started) * 1000,
            )
        self._schedule_expiry()

    async def stop(self) -> None:
        """Stop serving: parked joins and syncs are answered NOT_COORDINATOR (``onGroupUnloaded``)."""
        self.active = False
        if self._expiry_timer is not None:
            self._expiry_timer.cancel()
            self._expiry_timer = None
        for task in self._load_tasks.values():
            task.cancel()
        self._load_tasks.clear()
        for task in list(self._write_tasks):
            task.cancel()
        for group in list(self.groups.values()):
            self.membership.unload(group)
        self.groups.clear()
        await self.topic.close()

    @property
    def topic_name(self) -> str:
        return "__consumer_offsets"

    def partition_for(self, group_id: str) -> int:
        return self.topic.partition_for(group_id)

    def find_coordinator(self, group_id: str) -> ErrorCode:
        """FindCoordinator for a group: COORDINATOR_NOT_AVAILABLE until ``__consumer_offsets``
        exists; the first call starts creating it, as Kafka's auto-creation does."""
        if not self.active:
            return ErrorCode.COORDINATOR_NOT_AVAILABLE
        try:
            ready = self.topic.ready()
        except (KafkaError, OSError) as exc:
            log.warning("cannot create %s: %s", self.topic_name, exc)
            return ErrorCode.COORDINATOR_NOT_AVAILABLE
        return ErrorCode.NONE if ready else ErrorCode.COORDINATOR_NOT_AVAILABLE

    def _validate_group_status(self, group_id: str | None, *, allow_empty_id: bool) -> ErrorCode | None:
        """Kafka's ``validateGroupStatus``: group id, active, loaded."""
        # OffsetCommit/OffsetFetch/DescribeGroups/DeleteGroups accept "" (isValidGroupId).
        if group_id is None or (not allow_empty_id and not group_id):
            return ErrorCode.INVALID_GROUP_ID
        if not self.active:
            return ErrorCode.COORDINATOR_NOT_AVAILABLE
        if self.loading and self.partition_for(group_id) in self.loading:
            return ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
        owned = self.owned_partitions
        if owned is not None and self.partition_for(group_id) not in owned:
            return ErrorCode.NOT_COORDINATOR
        return None

    # ================================================================== Describe, List, Delete

    def describe_group(self, group_id: str) -> tuple[ErrorCode, GroupSummary]:
        error = self._validate_group_status(group_id, allow_empty_id=True)
        if error is not None:
            return error, NO_STATE_SUMMARY
        group = self.groups.get(group_id)
        if group is None:
            return ErrorCode.NONE, DEAD_SUMMARY
        if group.is_state(S.STABLE) and group.protocol_name is not None:
            pname = group.protocol_name
            members = [
                MemberSummary(
                    m.member_id,
                    m.group_instance_id,
                    m.client_id,
                    m.client_host,
                    m.metadata(pname),
                    m.assignment,
                )
                for m in group.members.values()
            ]
            return ErrorCode.NONE, GroupSummary(str(group.state), group.protocol_type or "", pname, members)
        members = [
            MemberSummary(m.member_id, m.group_instance_id, m.client_id, m.client_host, b"", b"")
            for m in group.members.values()
        ]
        return ErrorCode.NONE, GroupSummary(str(group.state), group.protocol_type or "", "", members)

    def list_groups(self, states: Iterable[str] = ()) -> tuple[ErrorCode, list[GroupOverview]]:
        if not self.active:
            return ErrorCode.COORDINATOR_NOT_AVAILABLE, []
        error = ErrorCode.COORDINATOR_LOAD_IN_PROGRESS if self.loading else ErrorCode.NONE
        wanted = {s.lower() for s in states}
        return error, [
            GroupOverview(g.group_id, g.protocol_type or "", str(g.state))
            for g in self.groups.values()
            if not wanted or str(g.state).lower() in wanted
        ]

    def delete_groups(self, group_ids: Iterable[str]) -> dict[str, ErrorCode]:
        """Kafka's ``handleDeleteGroups``: only empty groups go, with all their offsets."""
        results: dict[str, ErrorCode] = {}
        eligible: list[Group] = []
        for group_id in dict.fromkeys(group_ids):
            error = self._validate_group_status(group_id, allow_empty_id=True)
            if error is not None:
                results[group_id] = error
                continue
            group = self.groups.get(group_id)
            if group is None or group.is_state(S.DEAD):
                results[group_id] = ErrorCode.GROUP_ID_NOT_FOUND
            elif group.is_state(S.EMPTY):
                group.transition_to(S.DEAD, self.time_ms())
                eligible.append(group)
            else:
                results[group_id] = ErrorCode.NON_EMPTY_GROUP
        if eligible:
            removed = self._remove_groups(eligible)
            for group in eligible:
                results[group.group_id] = ErrorCode.NONE
            log.info(
                "deleted groups %s (%d offsets removed)", ", ".join(g.group_id for g in eligible), removed
            )
        return results

    def delete_offsets(
        self, group_id: str, partitions: Sequence[tuple[str, int]]
    ) -> tuple[ErrorCode, dict[tuple[str, int], ErrorCode]]:
        """OffsetDelete (Kafka's ``GroupCoordinator.handleDeleteOffsets``): (group error,
        error per partition). An Empty group loses the offsets asked for; a consumer group
        rebalancing or Stable keeps those of topics its members subscribe to
        (GROUP_SUBSCRIBED_TO_TOPIC) and loses the others; any other group: NON_EMPTY_GROUP.
        A group left Empty without offsets goes, as in ``cleanupGroupMetadata``."""
        error = self._validate_group_status(group_id, allow_empty_id=False)
        if error is not None:
            return error, {}
        group = self.groups.get(group_id)
        if group is None or group.is_state(S.DEAD):
            return ErrorCode.GROUP_ID_NOT_FOUND, {}
        results: dict[tuple[str, int], ErrorCode] = {}
        if group.is_state(S.EMPTY):
            eligible = list(partitions)
        elif group.is_consumer_group():  # PreparingRebalance, CompletingRebalance, Stable
            eligible = []
            for tp in partitions:
                if group.is_subscribed_to_topic(tp[0]):
                    results[tp] = ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC
                else:
                    eligible.append(tp)
        else:
            return ErrorCode.NON_EMPTY_GROUP, {}
        records: dict[int, list[tuple[bytes, bytes | None]]] = defaultdict(list)
        p = self.partition_for(group_id)
        # A commit of them still being written is not cached once it completes (removeOffsets).
        group.remove_pending_offset_commits(eligible)
        self.pending_txn_offsets.remove_partitions(group_id, eligible)
        for topic, partition in eligible:
            if self.offsets.remove(group_id, topic, partition):
                records[p].append((encode_offset_key(group_id, topic, partition), None))
            results[(topic, partition)] = ErrorCode.NONE
        deleted = len(records[p])
        dead: list[Group] = []
        if group.is_state(S.EMPTY) and not self._has_offsets(group):
            group.transition_to(S.DEAD, self.time_ms())
            dead.append(group)
        self._remove_groups(dead, records)
        if deleted:
            log.info("deleted %d committed offsets of group %s", deleted, group_id)
        return ErrorCode.NONE, results

    # ================================================================== offsets

    def commit_offsets(
        self,
        group_id: str,
        member_id: str,
        group_instance_id: str | None,
        generation_id: int,
        entries: Sequence[OffsetCommitEntry],
        *,
        retention_ms: int = DEFAULT_RETENTION_TIME,
    ) -> list[ErrorCode] | Awaitable[list[ErrorCode]]:
        """Store offsets durably; one error per entry. Group-level errors raise KafkaError.

        The errors come back now when the write is committed at once, else an awaitable
        of them (acks=-1 waiting for the in-sync replicas)."""
        error = self._validate_group_status(group_id, allow_empty_id=True)
        if error is not None:
            raise KafkaError(error)
        group = self.groups.get(group_id)
        created = False
        if group is None:
            if generation_id >= 0:
                # A group member's commit for a group that is gone: ILLEGAL_GENERATION in every
                # version (the classic GroupCoordinator.handleCommitOffsets; Kafka 4's
                # OffsetMetadataManager answers GROUP_ID_NOT_FOUND from v9, which the classic Java
                # consumer takes as a fatal "Unexpected error in commit").
                raise KafkaError(ErrorCode.ILLEGAL_GENERATION)
            # Generation -1: the admin client or a consumer without group management: a
            # "simple" group is created on the fly.
            group = self.groups[group_id] = Group(group_id, S.EMPTY, self.time_ms())
            created = True
        error = self._validate_offset_commit(group, member_id, group_instance_id, generation_id)
        if error is not None:
            raise KafkaError(error)
        if group.state in (S.STABLE, S.PREPARING_REBALANCE) and group.has(member_id):
            # A commit from a member keeps its session alive, as a heartbeat would.
            self.membership.schedule_heartbeat(group, group.get(member_id))
        now = self.time_ms()
        # Kafka adds these as Java longs, so a huge retention wraps into the past; clamp
        # instead (the offset then never expires) so the record stays encodable.
        expire = None if retention_ms == DEFAULT_RETENTION_TIME else min(now + retention_ms, INT64_MAX)
        results: list[ErrorCode] = []
        records: list[tuple[bytes, bytes | None]] = []
        staged: list[tuple[OffsetCommitEntry, OffsetAndMetadata]] = []
        for e in entries:
            metadata = "" if e.metadata is None else e.metadata
            if (
                utf16_length(metadata) > self.offset_metadata_max_bytes
                or len(metadata.encode("utf-8")) > MAX_STRING_BYTES
            ):
                results.append(ErrorCode.OFFSET_METADATA_TOO_LARGE)
                continue
            om = OffsetAndMetadata(e.offset, e.leader_epoch, metadata, now, expire)
            records.append((encode_offset_key(group_id, e.topic, e.partition), encode_offset_value(om)))
            staged.append((e, om))
            results.append(ErrorCode.NONE)
        if not records:
            return results
        # Staged until the append completes (GroupMetadataManager.storeOffsets ->
        # GroupMetadata.prepareOffsetCommit): expiry, OffsetFetch require_stable and
        # OffsetDelete see the commit in flight.
        group.prepare_offset_commit(((e.topic, e.partition), om) for e, om in staged)
        try:
            written = self.topic.append(self.partition_for(group_id), records, for_offsets=True)
        except KafkaError as exc:
            return self._offsets_not_stored(group, created, staged, results, exc)
        if isinstance(written, int):
            self._offsets_stored(group, staged, written)
            return results
        return self._complete_commit(written, group, staged, results)

    async def _complete_commit(
        self,
        written: Awaitable[int],
        group: Group,
        staged: list[tuple[OffsetCommitEntry, OffsetAndMetadata]],
        results: list[ErrorCode],
    ) -> list[ErrorCode]:
        """acks=-1: the offsets become visible once every in-sync replica has them
        (``GroupMetadataManager.storeOffsets``' putCacheCallback)."""
        try:
            base_offset = await written
        except KafkaError as exc:
            # The simple group this commit created stays (empty, removed by the expiry run
            # as Kafka's cleanup does): another commit to it may be waiting meanwhile.
            return self._offsets_not_stored(group, False, staged, results, exc)
        self._offsets_stored(group, staged, base_offset)
        return results

    def _offsets_stored(
        self, group: Group, staged: list[tuple[OffsetCommitEntry, OffsetAndMetadata]], base_offset: int
    ) -> None:
        """Kafka's ``GroupMetadata.onOffsetCommitAppend``: only partitions still staged are
        cached (OffsetDelete or a topic deletion may have dropped them meanwhile, writing
        their tombstones after this commit's records), and an offset whose record (in the
        batch at ``base_offset``) was appended before the current one's does not replace it."""
        if self.groups.get(group.group_id) is not group or group.is_state(S.DEAD):
            return  # unloaded or removed while the write waited (onOffsetCommitAppend skipped)
        for e, om in staged:
            if group.on_offset_commit_append((e.topic, e.partition), om):
                self.offsets.put(group.group_id, e.topic, e.partition, om, base_offset)

    def _offsets_not_stored(
        self,
        group: Group,
        created: bool,
        staged: list[tuple[OffsetCommitEntry, OffsetAndMetadata]],
        results: list[ErrorCode],
        exc: KafkaError,
    ) -> list[ErrorCode]:
        """The append failed: unstage its offsets (``GroupMetadata.failPendingOffsetWrite``)
        and answer the mapped error for each partition that was written."""
        group_id = group.group_id
        log.warning("group %s: cannot store %d offsets: %s", group_id, len(staged), exc)
        for e, om in staged:
            group.fail_pending_offset_write((e.topic, e.partition), om)
        if created and not self._has_offsets(group) and self.groups.get(group_id) is group:
            del self.groups[group_id]
        return [exc.error if r is ErrorCode.NONE else r for r in results]

    def _validate_offset_commit(
        self,
        group: Group,
        member_id: str,
        group_instance_id: str | None,
        generation_id: int,
        *,
        transactional: bool = False,
    ) -> ErrorCode | None:
        """``validateOffsetCommit`` of a classic group (Kafka 3.x ``GroupCoordinator``): a
        member id, an instance id or a generation means a member to check, for TxnOffsetCommit
        too. Transactional commits skip the rest: TxnOffsetCommit v0-2 carry no member, and
        Kafka's ``doTxnCommitOffsets`` has no CompletingRebalance check."""
        if group.is_state(S.DEAD):
            return ErrorCode.COORDINATOR_NOT_AVAILABLE
        if generation_id < 0 and group.is_state(S.EMPTY):
            return None  # admin client or simple consumer on an empty group
        if generation_id >= 0 or member_id != "" or group_instance_id is not None:
            error = self.membership.validate_current_member(group, member_id, group_instance_id)
            if error is not None:
                return error
            if generation_id != group.generation_id:
                return ErrorCode.ILLEGAL_GENERATION
        elif transactional:
            return None
        elif not group.is_state(S.EMPTY):
            return ErrorCode.UNKNOWN_MEMBER_ID  # only members commit to a group with members
        if not transactional and group.is_state(S.COMPLETING_REBALANCE):
            return ErrorCode.REBALANCE_IN_PROGRESS
        return None

    def fetch_offsets(
        self, group_id: str, partitions: Sequence[tuple[str, int]] | None, *, require_stable: bool = False
    ) -> list[tuple[str, int, OffsetAndMetadata | None]]:
        """Committed offsets of ``partitions`` (None: all the group has). Group errors raise.

        Offsets are returned whatever the group's state (a group may use Kafka only to
        store offsets). ``require_stable`` (v7+) is the handler's: it asks
        ``has_pending_offset_commit`` per partition.
        """
        error = self._validate_group_status(group_id, allow_empty_id=True)
        if error is not None:
            raise KafkaError(error)
        if partitions is None:
            return [(t, p, om) for (t, p), om in self.offsets.group_offsets(group_id).items()]
        return [(t, p, self.offsets.get(group_id, t, p)) for t, p in partitions]

    # ================================================================== transactional offsets

    async def commit_txn_offsets(
        self,
        group_id: str,
        producer_id: int,
        producer_epoch: int,
        member_id: str,
        group_instance_id: str | None,
        generation_id: int,
        entries: Sequence[OffsetCommitEntry],
        transactional_id: str | None = None,
        api_version: int = 3,
    ) -> list[ErrorCode]:
        """TxnOffsetCommit (classic ``handleTxnCommitOffsets``): the offsets are written as a
        transactional batch of the producer (acks=-1) and held pending until its marker
        (``coordinator.group_txn_offsets``); with ``transactional_id`` the write is verified
        against the producer's transaction first (KIP-890). Group-level errors raise KafkaError."""
        error = self._validate_group_status(group_id, allow_empty_id=True)
        if error is not None:
            raise KafkaError(error)
        group = self.groups.get(group_id)
        if group is None:
            group = self.groups[group_id] = Group(group_id, S.EMPTY, self.time_ms())
        error = self._validate_offset_commit(
            group, member_id, group_instance_id, generation_id, transactional=True
        )
        if error is not None:
            raise KafkaError(error)
        return await write_txn_offsets(
            self.topic,
            self.partition_for(group_id),
            group_id,
            producer_id,
            producer_epoch,
            [(e.topic, e.partition, e.offset, e.leader_epoch, e.metadata) for e in entries],
            self.pending_txn_offsets,
            now_ms=self.time_ms(),
            metadata_max_bytes=self.offset_metadata_max_bytes,
            transactional_id=transactional_id,
            api_version=api_version,
        )

    def has_pending_txn_offset(self, group_id: str, topic: str, partition: int) -> bool:
        """A transactional commit of the partition awaits its marker."""
        return self.pending_txn_offsets.is_pending(group_id, (topic, partition))

    def has_pending_offset_commit(self, group_id: str, topic: str, partition: int) -> bool:
        """OffsetFetch ``require_stable``: a plain commit of the partition is being written, or
        a transactional one awaits its marker (Kafka's
        ``GroupMetadata.hasPendingOffsetCommitsForTopicPartition``)."""
        group = self.groups.get(group_id)
        if group is not None and group.has_pending_offset_commit((topic, partition)):
            return True
        return self.has_pending_txn_offset(group_id, topic, partition)

    def on_txn_completed(self, producer_id: int, committed: bool, offsets_partitions: Iterable[int]) -> None:
        """``TxnCompletionListener``: the marker of ``producer_id`` was appended to these
        partitions of ``__consumer_offsets``; their groups' pending offsets apply or go. A
        committed offset does not replace one whose record was appended after its batch
        (Kafka's ``GroupMetadata.completePendingTxnOffsetCommit``)."""
        wanted = set(offsets_partitions)
        groups = [
            g for g in self.pending_txn_offsets.groups_of(producer_id) if self.partition_for(g) in wanted
        ]
        applied = 0
        for group_id, (topic, partition), pending in self.pending_txn_offsets.complete(producer_id, groups):
            if (
                committed
                and group_id in self.groups
                and self.offsets.put(group_id, topic, partition, pending.offset, pending.batch_offset)
            ):
                applied += 1
        if applied:
            log.debug("producer %d committed %d transactional offsets", producer_id, applied)

    # ---------------------------------------------------------- ClusterMetadataListener

    def on_brokers_changed(self, brokers: Sequence[LiveBroker]) -> None:
        pass  # every group is coordinated here whatever brokers live

    def on_topics_changed(
        self, topics: Mapping[str, TopicMetadata], states: Sequence[PartitionState]
    ) -> None:
        pass  # offsets may be committed for any topic; nothing to do when one appears

    def on_topic_deleted(self, topic: TopicMetadata) -> None:
        """The controller deleted ``topic``: its committed offsets go too."""
        self.remove_offsets_of_topic(topic.name)


__all__ = [
    "GroupCoordinator",
    "GroupOverview",
    "GroupSummary",
    "LeaveMember",
    "LoopTimers",
    "MemberSummary",
    "OffsetCommitEntry",
    "Timers",
]
