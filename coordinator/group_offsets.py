"""Committed offsets and the records that make them durable in ``__consumer_offsets``.

Kafka keeps a group's committed offsets and its membership snapshot in the
compacted internal topic ``__consumer_offsets`` (``offsets.topic.num.partitions``
partitions, a group living in partition ``abs(groupId.hashCode) % partitions``).
This module and ``coordinator.offsets_topic`` have the three pieces of that, in
Kafka's formats, so Kafka's own tools (and the Spark jobs) can read the topic:

- the record codecs (here; Kafka's group-coordinator JSON schemas, hand-written):
  keys ``OffsetCommitKey`` (record type 0/1, written as 1) and
  ``GroupMetadataKey`` (type 2); values ``OffsetCommitValue`` v0-4 (written as
  v3, or v1 when a v2-4 commit carries a retention time) and
  ``GroupMetadataValue`` v0-4 (written as v3). A null value is a tombstone.
  Other record types (KIP-848 consumer groups, share groups) are skipped.
- ``OffsetsTopic`` (``coordinator.offsets_topic``): the topic, created on first use,
  appended to through the broker's ReplicaManager (one batch per write) and replayed
  from the log start at broker start.
- ``OffsetStore`` (here): the in-memory view (the offset whose record was appended last wins,
  tombstones delete), with Kafka's expiry rule (``OffsetExpirationConditionImpl``).

Transactional offset commits (TxnOffsetCommit) are ``coordinator.group_txn_offsets``:
held pending until their marker; the group coordinator's loader resolves transactional
batches by their markers with ``group_txn_offsets.ReplayResolvingTxns``.
"""

from __future__ import annotations

import functools
from collections.abc import Container, Mapping
from dataclasses import dataclass, field
from typing import Any

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


# ---------------------------------------------------------------- the in-memory store


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

    def install(
        self,
        offsets: dict[str, dict[tuple[str, int], OffsetAndMetadata]],
        written_at: dict[str, dict[tuple[str, int], int]],
    ) -> None:
        """A loaded partition's offsets (group -> partition -> offset, and where each record
        is), taken over as they are: one C-level ``dict.update`` instead of a ``put`` per
        offset, so a large load does not hold the event loop. A group already here (none is
        expected: a loading partition's groups are refused) gets ``put``'s rule per offset."""
        if not self._by_group.keys().isdisjoint(offsets):
            for group in self._by_group.keys() & offsets.keys():
                for (topic, partition), om in offsets.pop(group).items():
                    self.put(group, topic, partition, om, written_at[group][(topic, partition)])
                del written_at[group]
        self._by_group.update(offsets)
        self._written_at.update(written_at)

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
