"""A classic consumer group and its members: Kafka's ``GroupMetadata`` and ``MemberMetadata``.

Pure state, no I/O and no timers' logic: the coordinator (``coordinator.groups``)
drives the transitions. States and their allowed predecessors are Kafka's
(``GroupMetadata.scala`` / ``ClassicGroupState``):

- Empty: no members (or a "simple" group that only stores offsets).
- PreparingRebalance: joins are parked until every known member rejoined or
  the rebalance timeout fires.
- CompletingRebalance: the leader got everyone's metadata; syncs wait for its
  assignment.
- Stable: assignment distributed; heartbeats keep members alive.
- Dead: removed (deleted, or expired with no offsets left).
"""

from __future__ import annotations

import asyncio
import enum
import uuid
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from protocol.errors import ErrorCode
from protocol.messages import ConsumerProtocolSubscription
from protocol.primitives import DecodeError

if TYPE_CHECKING:
    from coordinator.group_offsets import OffsetAndMetadata

CONSUMER_PROTOCOL_TYPE = "consumer"
CLASSIC_GROUP_TYPE = "classic"  # Kafka's Group.GroupType.CLASSIC: every group of this coordinator
MEMBER_ID_DELIMITER = "-"
MAX_STRING_BYTES = 32767  # what a Kafka string (request, response or record field) can hold
_U32 = 0xFFFFFFFF


def _java_string_hash(s: str) -> int:
    """Java's ``String.hashCode`` (over UTF-16 code units), as an unsigned 32-bit int."""
    h = 0
    units = s.encode("utf-16-be", "surrogatepass")
    for i in range(0, len(units), 2):
        h = (31 * h + (units[i] << 8 | units[i + 1])) & _U32
    return h


def _scala_improve(h: int) -> int:
    """Scala 2.13's ``collection.Hashing.improve``: the hash an immutable HashMap files a key by."""
    h = (h + (~(h << 9) & _U32)) & _U32
    h ^= h >> 14
    h = (h + (h << 4)) & _U32
    return h ^ (h >> 10)


def scala_hash_map_order(names: Iterable[str]) -> list[str]:
    """The order in which a Scala 2.13 ``immutable.HashMap`` (a CHAMP trie) iterates ``names``:
    each node's own keys by ascending 5-bit chunk of the improved hash, then its sub-nodes
    (keys sharing a chunk) the same way, depth first. Keys with equal 32-bit hashes (a
    collision node, in insertion order in Scala) come by name."""

    def order(items: list[tuple[int, str]], shift: int) -> list[str]:
        if shift >= 32:
            return sorted(name for _, name in items)
        chunks: dict[int, list[tuple[int, str]]] = {}
        for item in items:
            chunks.setdefault((item[0] >> shift) & 0x1F, []).append(item)
        ordered = sorted(chunks.items())
        out = [group[0][1] for _, group in ordered if len(group) == 1]
        for _, group in ordered:
            if len(group) > 1:
                out += order(group, shift + 5)
        return out

    return order([(_scala_improve(_java_string_hash(n)), n) for n in names], 0)


def fit_string_prefix(s: str, max_bytes: int) -> str:
    """The longest prefix of ``s`` of at most ``max_bytes`` UTF-8 bytes (whole characters)."""
    raw = s.encode("utf-8")
    if len(raw) <= max_bytes:
        return s
    return raw[:max_bytes].decode("utf-8", "ignore")


class GroupState(enum.Enum):
    EMPTY = "Empty"
    PREPARING_REBALANCE = "PreparingRebalance"
    COMPLETING_REBALANCE = "CompletingRebalance"
    STABLE = "Stable"
    DEAD = "Dead"

    def __str__(self) -> str:
        return self.value


_VALID_PREVIOUS: dict[GroupState, frozenset[GroupState]] = {
    GroupState.PREPARING_REBALANCE: frozenset(
        {GroupState.STABLE, GroupState.COMPLETING_REBALANCE, GroupState.EMPTY}
    ),
    GroupState.COMPLETING_REBALANCE: frozenset({GroupState.PREPARING_REBALANCE}),
    GroupState.STABLE: frozenset({GroupState.COMPLETING_REBALANCE}),
    GroupState.DEAD: frozenset(GroupState),
    GroupState.EMPTY: frozenset({GroupState.PREPARING_REBALANCE}),
}

Protocols = list[tuple[str, bytes]]
TopicPartition = tuple[str, int]


@dataclass(slots=True)
class JoinRequest:
    """A JoinGroup as the coordinator sees it (v0: rebalance timeout = session timeout)."""

    group_id: str
    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    rebalance_timeout_ms: int
    session_timeout_ms: int
    protocol_type: str
    protocols: Protocols
    require_known_member_id: bool = False  # v4+ dynamic members (KIP-394)
    support_skip_assignment: bool = False  # v9+ (KIP-814)
    reason: str | None = None


@dataclass(slots=True)
class JoinMember:
    """One member's metadata as the leader sees it in its JoinGroup response."""

    member_id: str
    group_instance_id: str | None
    metadata: bytes


@dataclass(slots=True)
class JoinResult:
    """What a JoinGroup is answered with (Kafka's ``JoinGroupResult``)."""

    error: ErrorCode
    member_id: str
    generation_id: int = -1
    protocol_type: str | None = None
    protocol_name: str | None = None
    leader_id: str = ""
    skip_assignment: bool = False
    members: list[JoinMember] = field(default_factory=list)


@dataclass(slots=True)
class SyncResult:
    """What a SyncGroup is answered with (Kafka's ``SyncGroupResult``)."""

    error: ErrorCode
    protocol_type: str | None = None
    protocol_name: str | None = None
    assignment: bytes = b""


JoinCallback = Callable[[JoinResult], None]
SyncCallback = Callable[[SyncResult], None]


class Member:
    """One member of a classic group (Kafka's ``MemberMetadata``)."""

    __slots__ = (
        "assignment",
        "awaiting_join",
        "awaiting_sync",
        "client_host",
        "client_id",
        "group_instance_id",
        "heartbeat_timer",
        "is_new",
        "member_id",
        "protocol_type",
        "protocols",
        "rebalance_timeout_ms",
        "session_timeout_ms",
    )

    def __init__(
        self,
        member_id: str,
        group_instance_id: str | None,
        client_id: str,
        client_host: str,
        rebalance_timeout_ms: int,
        session_timeout_ms: int,
        protocol_type: str,
        protocols: Protocols,
    ) -> None:
        self.member_id = member_id
        self.group_instance_id = group_instance_id
        self.client_id = client_id
        self.client_host = client_host
        self.rebalance_timeout_ms = rebalance_timeout_ms
        self.session_timeout_ms = session_timeout_ms
        self.protocol_type = protocol_type
        self.protocols = protocols
        self.assignment = b""
        self.awaiting_join: JoinCallback | None = None
        self.awaiting_sync: SyncCallback | None = None
        self.is_new = False
        self.heartbeat_timer: asyncio.TimerHandle | Any = None

    @property
    def is_static(self) -> bool:
        return self.group_instance_id is not None

    @property
    def is_awaiting_join(self) -> bool:
        return self.awaiting_join is not None

    @property
    def is_awaiting_sync(self) -> bool:
        return self.awaiting_sync is not None

    def protocol_names(self) -> set[str]:
        return {name for name, _ in self.protocols}

    def metadata(self, protocol: str) -> bytes:
        for name, meta in self.protocols:
            if name == protocol:
                return meta
        raise ValueError(f"member {self.member_id} does not support protocol {protocol}")

    def matches(self, protocols: Protocols) -> bool:
        """Same protocols with the same metadata, in the same order (``MemberMetadata.matches``)."""
        return protocols == self.protocols

    def vote(self, candidates: set[str]) -> str:
        """The member's most preferred protocol among ``candidates``."""
        for name, _ in self.protocols:
            if name in candidates:
                return name
        raise ValueError(f"member {self.member_id} supports none of {sorted(candidates)}")

    def satisfied_by_rebalance(self) -> bool:
        """A session-timeout check passes without a heartbeat (``hasSatisfiedHeartbeat``):
        members parked in a join or sync are alive by definition, except new members,
        which may still expire while awaiting their first join."""
        return not self.is_new and (self.is_awaiting_join or self.is_awaiting_sync)

    def __repr__(self) -> str:
        return (
            f"Member(member_id={self.member_id}, group_instance_id={self.group_instance_id}, "
            f"client_id={self.client_id}, client_host={self.client_host}, "
            f"session_timeout_ms={self.session_timeout_ms}, "
            f"rebalance_timeout_ms={self.rebalance_timeout_ms}, "
            f"protocols={[n for n, _ in self.protocols]})"
        )


class Group:
    """A classic group's membership state (Kafka's ``GroupMetadata``)."""

    def __init__(self, group_id: str, state: GroupState, now_ms: int) -> None:
        self.group_id = group_id
        self.state = state
        self.current_state_timestamp: int | None = now_ms
        self.protocol_type: str | None = None
        self.protocol_name: str | None = None
        self.generation_id = 0
        self.leader_id: str | None = None
        self.members: dict[str, Member] = {}
        self.static_members: dict[str, str] = {}  # group.instance.id -> member id
        self.pending_members: set[str] = set()  # ids handed out with MEMBER_ID_REQUIRED
        self.pending_sync_members: set[str] = set()
        self.num_awaiting_join = 0
        self.supported_protocols: Counter[str] = Counter()
        self.new_member_added = False
        self.subscribed_topics: frozenset[str] | None = None
        # Timers owned by the coordinator: the delayed join (rebalance), the delayed sync
        # and the expiry of pending member ids.
        self.join_timer: Any = None
        self.join_timer_initial = False
        self.sync_timer: Any = None
        self.sync_timer_generation = -1
        self.pending_member_timers: dict[str, Any] = {}
        # Plain OffsetCommits appended but not yet acknowledged by the ISR (acks=-1), the last
        # staged per partition (Kafka's GroupMetadata.pendingOffsetCommits): they keep the
        # partition from expiring and the group from being removed, and make OffsetFetch
        # require_stable answer UNSTABLE_OFFSET_COMMIT.
        self.pending_offset_commits: dict[TopicPartition, OffsetAndMetadata] = {}

    # ------------------------------------------------------------------ queries

    def is_state(self, state: GroupState) -> bool:
        return self.state is state

    def has(self, member_id: str) -> bool:
        return member_id in self.members

    def get(self, member_id: str) -> Member:
        return self.members[member_id]

    @property
    def size(self) -> int:
        return len(self.members)

    def is_leader(self, member_id: str) -> bool:
        return self.leader_id == member_id

    def current_static_member_id(self, group_instance_id: str) -> str | None:
        return self.static_members.get(group_instance_id)

    def is_pending_member(self, member_id: str) -> bool:
        return member_id in self.pending_members

    def has_all_members_joined(self) -> bool:
        return len(self.members) == self.num_awaiting_join and not self.pending_members

    def not_yet_rejoined_members(self) -> list[Member]:
        return [m for m in self.members.values() if not m.is_awaiting_join]

    def has_received_sync_from_all_members(self) -> bool:
        return not self.pending_sync_members

    @property
    def rebalance_timeout_ms(self) -> int:
        return max((m.rebalance_timeout_ms for m in self.members.values()), default=0)

    def can_rebalance(self) -> bool:
        return self.state in _VALID_PREVIOUS[GroupState.PREPARING_REBALANCE]

    def is_consumer_group(self) -> bool:
        return self.protocol_type == CONSUMER_PROTOCOL_TYPE

    def is_subscribed_to_topic(self, topic: str) -> bool:
        return True if self.subscribed_topics is None else topic in self.subscribed_topics

    def generate_member_id(self, client_id: str, group_instance_id: str | None) -> str:
        """``<group.instance.id or client.id>-<uuid>`` (Kafka's ``generateMemberId``), with the
        prefix shortened so the id still fits a Kafka string (32767 UTF-8 bytes)."""
        prefix = group_instance_id if group_instance_id is not None else client_id
        suffix = f"{MEMBER_ID_DELIMITER}{uuid.uuid4()}"
        return fit_string_prefix(prefix, MAX_STRING_BYTES - len(suffix)) + suffix

    def supports_protocols(self, protocol_type: str, protocols: set[str]) -> bool:
        """A member may join if its type matches and one of its protocols is supported by all."""
        if self.state is GroupState.EMPTY:
            return bool(protocol_type) and bool(protocols)
        n = len(self.members)
        return self.protocol_type == protocol_type and any(
            self.supported_protocols[p] == n for p in protocols
        )

    def candidate_protocols(self) -> set[str]:
        n = len(self.members)
        return {p for p, count in self.supported_protocols.items() if count == n}

    def select_protocol(self) -> str:
        """The protocol with most votes among those every member supports (``selectProtocol``)."""
        if not self.members:
            raise ValueError("cannot select a protocol for an empty group")
        candidates = self.candidate_protocols()
        votes = Counter(m.vote(candidates) for m in self.members.values())
        # Kafka counts the votes with groupBy (a Scala immutable HashMap) and takes maxBy of it:
        # a tie goes to the protocol that map iterates first, which depends on the names only,
        # so a group whose members keep their preferences keeps its protocol.
        top = max(votes.values())
        tied = [name for name, count in votes.items() if count == top]
        return tied[0] if len(tied) == 1 else scala_hash_map_order(tied)[0]

    # ------------------------------------------------------------------ pending offset commits

    def has_pending_offset_commit(self, tp: TopicPartition) -> bool:
        return tp in self.pending_offset_commits

    def prepare_offset_commit(self, offsets: Iterable[tuple[TopicPartition, OffsetAndMetadata]]) -> None:
        """Stage a commit before its append (``GroupMetadata.prepareOffsetCommit``)."""
        self.pending_offset_commits.update(offsets)

    def on_offset_commit_append(self, tp: TopicPartition, om: OffsetAndMetadata) -> bool:
        """The append of ``om`` for ``tp`` completed (``GroupMetadata.onOffsetCommitAppend``):
        True if the partition is still staged, so ``om`` goes to the cache (False when
        OffsetDelete, a topic deletion or the group's removal dropped it meanwhile). ``om``
        is unstaged if it is the partition's latest staged commit."""
        staged = tp in self.pending_offset_commits
        if self.pending_offset_commits.get(tp) is om:
            del self.pending_offset_commits[tp]
        return staged

    def fail_pending_offset_write(self, tp: TopicPartition, om: OffsetAndMetadata) -> None:
        """The append of ``om`` failed (``GroupMetadata.failPendingOffsetWrite``)."""
        if self.pending_offset_commits.get(tp) is om:
            del self.pending_offset_commits[tp]

    def remove_pending_offset_commits(self, tps: Iterable[TopicPartition]) -> None:
        """Deleted partitions lose their staged commits (``GroupMetadata.removeOffsets``)."""
        for tp in tps:
            self.pending_offset_commits.pop(tp, None)

    # ------------------------------------------------------------------ changes

    def transition_to(self, state: GroupState, now_ms: int) -> None:
        if self.state not in _VALID_PREVIOUS[state]:
            raise RuntimeError(
                f"Group {self.group_id} should be in one of {sorted(map(str, _VALID_PREVIOUS[state]))} "
                f"before moving to {state}; it is {self.state}"
            )
        self.state = state
        self.current_state_timestamp = now_ms

    def add(self, member: Member, callback: JoinCallback | None = None) -> None:
        if member.group_instance_id is not None:
            if member.group_instance_id in self.static_members:
                raise RuntimeError(f"static member {member.group_instance_id} is already in {self.group_id}")
            self.static_members[member.group_instance_id] = member.member_id
        if not self.members:
            self.protocol_type = member.protocol_type
        if self.leader_id is None:
            self.leader_id = member.member_id
        self.members[member.member_id] = member
        self.supported_protocols.update(member.protocol_names())
        member.awaiting_join = callback
        if callback is not None:
            self.num_awaiting_join += 1
        self.pending_members.discard(member.member_id)

    def remove(self, member_id: str) -> Member | None:
        member = self.members.pop(member_id, None)
        if member is not None:
            self.supported_protocols.subtract(member.protocol_names())
            self.supported_protocols += Counter()  # drop zero counts
            if member.is_awaiting_join:
                self.num_awaiting_join -= 1
            if member.group_instance_id is not None:
                self.static_members.pop(member.group_instance_id, None)
        if self.is_leader(member_id):
            self.leader_id = next(iter(self.members), None)
        self.pending_members.discard(member_id)
        self.pending_sync_members.discard(member_id)
        return member

    def update_member(
        self,
        member: Member,
        protocols: Protocols,
        rebalance_timeout_ms: int,
        session_timeout_ms: int,
        callback: JoinCallback | None,
    ) -> None:
        self.supported_protocols.subtract(member.protocol_names())
        member.protocols = protocols
        self.supported_protocols.update(member.protocol_names())
        self.supported_protocols += Counter()
        member.rebalance_timeout_ms = rebalance_timeout_ms
        member.session_timeout_ms = session_timeout_ms
        if callback is not None and not member.is_awaiting_join:
            self.num_awaiting_join += 1
        elif callback is None and member.is_awaiting_join:
            self.num_awaiting_join -= 1
        member.awaiting_join = callback

    def maybe_invoke_join_callback(self, member: Member, result: JoinResult) -> None:
        callback = member.awaiting_join
        if callback is not None:
            member.awaiting_join = None
            self.num_awaiting_join -= 1
            callback(result)

    def maybe_invoke_sync_callback(self, member: Member, result: SyncResult) -> bool:
        callback = member.awaiting_sync
        if callback is None:
            return False
        member.awaiting_sync = None
        callback(result)
        return True

    def replace_static_member(self, group_instance_id: str, old_member_id: str, new_member_id: str) -> Member:
        """Give a static member a new member id; a parked request of the old id is fenced."""
        member = self.members.pop(old_member_id)
        self.maybe_invoke_join_callback(member, JoinResult(ErrorCode.FENCED_INSTANCE_ID, old_member_id))
        self.maybe_invoke_sync_callback(member, SyncResult(ErrorCode.FENCED_INSTANCE_ID))
        member.member_id = new_member_id
        self.members[new_member_id] = member
        if self.is_leader(old_member_id):
            self.leader_id = new_member_id
        self.static_members[group_instance_id] = new_member_id
        if old_member_id in self.pending_sync_members:
            self.pending_sync_members.discard(old_member_id)
            self.pending_sync_members.add(new_member_id)
        return member

    def maybe_elect_new_joined_leader(self) -> bool:
        """Keep the leader if it rejoined, else elect any member that did; False if none did."""
        if self.leader_id is None:
            return False
        if self.members[self.leader_id].is_awaiting_join:
            return True
        for member_id, member in self.members.items():
            if member.is_awaiting_join:
                self.leader_id = member_id
                return True
        return False

    def init_next_generation(self, now_ms: int) -> None:
        self.generation_id += 1
        if self.members:
            self.protocol_name = self.select_protocol()
            self.subscribed_topics = self.compute_subscribed_topics()
            self.transition_to(GroupState.COMPLETING_REBALANCE, now_ms)
        else:
            self.protocol_name = None
            self.subscribed_topics = self.compute_subscribed_topics()
            self.transition_to(GroupState.EMPTY, now_ms)
        self.pending_sync_members.clear()

    def current_member_metadata(self) -> list[JoinMember]:
        if self.state in (GroupState.DEAD, GroupState.PREPARING_REBALANCE) or self.protocol_name is None:
            raise RuntimeError(f"cannot get member metadata of group {self.group_id} in state {self.state}")
        return [
            JoinMember(m.member_id, m.group_instance_id, m.metadata(self.protocol_name))
            for m in self.members.values()
        ]

    def compute_subscribed_topics(self) -> frozenset[str] | None:
        """Topics the members subscribe to, for the consumer protocol (None if unknown).

        Parsed with the v0 layout that prefixes every ConsumerProtocolSubscription
        version, as Kafka does (``computeSubscribedTopics``).
        """
        if self.protocol_type != CONSUMER_PROTOCOL_TYPE:
            return None
        if not self.members:
            return frozenset()
        if self.protocol_name is None:
            return None
        topics: set[str] = set()
        try:
            for m in self.members.values():
                sub, _ = ConsumerProtocolSubscription.decode_from(m.metadata(self.protocol_name), 0, 2)
                topics.update(sub.topics)
        except (DecodeError, ValueError, IndexError):
            return None
        return frozenset(topics)

    def group_assignment(self) -> dict[str, bytes]:
        return {m.member_id: m.assignment for m in self.members.values()}

    def all_members(self) -> Iterable[Member]:
        return list(self.members.values())

    def __repr__(self) -> str:
        return (
            f"Group(group_id={self.group_id}, generation={self.generation_id}, "
            f"protocol_type={self.protocol_type}, state={self.state}, members={list(self.members.values())})"
        )
