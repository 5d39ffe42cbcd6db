"""Committed offsets: Kafka's record formats, commit rules, durability, expiry.

The coordinator writes to a real LogManager in ``tmp_path``; restarts build a new
LogManager and coordinator over the same directory. Expected partition numbers were
computed with Java's ``String.hashCode``.
"""

from __future__ import annotations

import asyncio
import struct
import uuid

import pytest

from coordinator.group_metadata import GroupState
from coordinator.group_offsets import (
    OFFSETS_TOPIC,
    GroupKey,
    GroupRecord,
    MemberRecord,
    OffsetAndMetadata,
    OffsetKey,
    decode_group_value,
    decode_key,
    decode_offset_value,
    encode_group_key,
    encode_group_value,
    encode_offset_key,
    encode_offset_value,
    java_string_hash,
    partition_for,
)
from coordinator.groups import GroupCoordinator, LeaveMember, OffsetCommitEntry
from protocol.errors import ErrorCode, KafkaError
from protocol.messages import ConsumerProtocolSubscription
from protocol.primitives import DecodeError
from protocol.record_batch import iter_batches
from protocol.records import build_batch, decode_all, decode_batch
from storage.log_cleaner import LogCleaner
from storage.log_cleaner_manager import CleanerConfig
from storage.log_config import resolve_topic_defaults
from storage.log_manager import LogManager
from storage.producer_state import AppendOrigin
from tests.coordinator.test_groups import (
    ManualClock,
    embedded_partitions,
    join,
    make_coordinator,
    stable_group,
    sync,
)

E = ErrorCode
DAY = 86_400_000
RETENTION = 7 * DAY
CHECK = 600_000


def _s(text: str) -> bytes:
    raw = text.encode()
    return struct.pack(">h", len(raw)) + raw


class Broker:
    """A LogManager and coordinator over one directory, restartable."""

    def __init__(self, tmp_path, clock: ManualClock, **kw) -> None:
        self.dir = tmp_path / "logs"
        self.clock = clock
        self.kw = kw
        self.lm: LogManager | None = None
        self.gc: GroupCoordinator
        self.start()

    def start(self) -> None:
        self.lm = LogManager([self.dir], resolve_topic_defaults({}))
        self.lm.startup()
        self.kw.setdefault("offsets_retention_ms", RETENTION)
        self.kw.setdefault("offsets_retention_check_ms", CHECK)
        self.kw.setdefault("max_session_timeout_ms", 60 * DAY)  # long sessions keep time jumps short
        self.gc = make_coordinator(self.lm, self.clock, **self.kw)

    def restart(self) -> GroupCoordinator:
        asyncio.run(self.gc.stop())
        assert self.lm is not None
        self.lm.shutdown()
        self.start()
        return self.gc

    def close(self) -> None:
        if self.lm is not None:
            self.lm.shutdown()
            self.lm = None

    def records(self, group: str) -> list[tuple[bytes | None, bytes | None, int]]:
        """(key, value, producer id) of every record of the group's offsets partition."""
        assert self.lm is not None
        plog = self.lm.get_log(OFFSETS_TOPIC, self.gc.partition_for(group))
        out = []
        offset = plog.log_start_offset
        while offset < plog.log_end_offset:  # a read stops at its segment's end
            mv = memoryview(plog.read(offset, 1 << 30).records)
            for pos, header in iter_batches(mv):
                offset = header.next_offset
                for rec in decode_batch(mv[pos : pos + header.size], header):
                    out.append((rec.key, rec.value, header.producer_id))
        return out


@pytest.fixture
def clock():
    return ManualClock()


@pytest.fixture
def broker(tmp_path, clock):
    b = Broker(tmp_path, clock)
    yield b
    b.close()


def offsets_of(gc: GroupCoordinator, group: str) -> dict[tuple[str, int], tuple[int, int, str]]:
    return {
        (t, p): (om.committed_offset, om.leader_epoch, om.metadata)
        for t, p, om in gc.fetch_offsets(group, None)
    }


# ---------------------------------------------------------------- partitioning and codecs


@pytest.mark.parametrize(
    ("text", "java_hash", "partition_of_50"),
    [
        ("hello", 99162322, 22),
        ("", 0, 0),
        ("polygenelubricants", -2147483648, 0),  # Utils.abs(Integer.MIN_VALUE) is 0
        ("Aa", 2112, 12),
        ("BB", 2112, 12),
        ("é", 233, 33),
        ("\U0001f600", 1772899, 49),  # hashed over its two UTF-16 code units
        ("my-group", -1906497762, 12),
        ("console-consumer-12345", 158455506, 6),
    ],
)
def test_partition_for_matches_java(text, java_hash, partition_of_50):
    assert java_string_hash(text) == java_hash
    assert partition_for(text, 50) == partition_of_50


def test_offset_commit_key_and_value_bytes_are_kafkas():
    key = encode_offset_key("g", "t", 3)
    assert key == b"\x00\x01" + _s("g") + _s("t") + struct.pack(">i", 3)
    assert decode_key(key) == OffsetKey("g", "t", 3)
    om = OffsetAndMetadata(42, 7, "meta", 1000)
    value = encode_offset_value(om)
    assert value == struct.pack(">hqi", 3, 42, 7) + _s("meta") + struct.pack(">q", 1000)
    assert decode_offset_value(value) == om
    # A v2-4 commit with a retention time is written as v1, the only version with an expiry.
    expiring = OffsetAndMetadata(42, -1, "", 1000, 5000)
    value = encode_offset_value(expiring)
    assert value == struct.pack(">hq", 1, 42) + _s("") + struct.pack(">qq", 1000, 5000)
    assert decode_offset_value(value) == expiring


def test_group_metadata_key_and_value_round_trip():
    assert encode_group_key("grp") == b"\x00\x02" + _s("grp")
    assert decode_key(encode_group_key("grp")) == GroupKey("grp")
    rec = GroupRecord(
        "consumer",
        5,
        "range",
        "m-1",
        12345,
        [
            MemberRecord("m-1", "inst", "client", "/10.0.0.1", 60000, 45000, b"sub", b"asg"),
            MemberRecord("m-2", None, "client", "/10.0.0.2", 60000, 45000, b"", b""),
        ],
    )
    value = encode_group_value(rec)
    assert value[:2] == b"\x00\x03"
    assert decode_group_value(value) == rec
    empty = GroupRecord("consumer", 6, None, None, 99, [])
    assert decode_group_value(encode_group_value(empty)) == empty


def test_older_and_flexible_value_versions_decode():
    # OffsetCommitValue v0 and v2: offset, metadata, commit timestamp.
    for version in (0, 2):
        value = struct.pack(">hq", version, 9) + _s("m") + struct.pack(">q", 77)
        assert decode_offset_value(value) == OffsetAndMetadata(9, -1, "m", 77)
    # v1 with expire timestamp -1 means no expiry.
    value = struct.pack(">hq", 1, 9) + _s("m") + struct.pack(">qq", 77, -1)
    assert decode_offset_value(value).expire_timestamp_ms is None
    # v4 is flexible: compact string and tagged fields.
    value = struct.pack(">hqi", 4, 9, 3) + bytes([2]) + b"m" + struct.pack(">q", 77) + b"\x00"
    assert decode_offset_value(value) == OffsetAndMetadata(9, 3, "m", 77)

    # GroupMetadataValue v0: no rebalance timeout (it is the session timeout), no state timestamp.
    v0 = (
        struct.pack(">h", 0)
        + _s("consumer")
        + struct.pack(">i", 2)
        + _s("range")
        + _s("m")
        + struct.pack(">i", 1)
        + _s("m")
        + _s("cid")
        + _s("/h")
        + struct.pack(">i", 30000)
        + struct.pack(">i", 3)
        + b"sub"
        + struct.pack(">i", 1)
        + b"a"
    )
    assert decode_group_value(v0) == GroupRecord(
        "consumer", 2, "range", "m", -1, [MemberRecord("m", None, "cid", "/h", 30000, 30000, b"sub", b"a")]
    )
    # GroupMetadataValue v4: compact everything, tagged fields per member and at the end.
    v4 = (
        struct.pack(">h", 4)
        + bytes([9])
        + b"consumer"
        + struct.pack(">i", 2)
        + bytes([6])
        + b"range"
        + bytes([0])  # null leader
        + struct.pack(">q", 5)
        + bytes([2])  # one member
        + bytes([2])
        + b"m"
        + bytes([0])  # null instance id
        + bytes([4])
        + b"cid"
        + bytes([3])
        + b"/h"
        + struct.pack(">ii", 1000, 2000)
        + bytes([4])
        + b"sub"
        + bytes([2])
        + b"a"
        + b"\x00"
        + b"\x00"
    )
    assert decode_group_value(v4) == GroupRecord(
        "consumer", 2, "range", None, 5, [MemberRecord("m", None, "cid", "/h", 1000, 2000, b"sub", b"a")]
    )


def test_bad_keys_and_values():
    assert decode_key(struct.pack(">h", 3) + _s("g")) is None  # KIP-848 record types are skipped
    for bad in (b"", b"\x00", b"\xff\xff", b"\x00\x01\x00\x05ab"):
        with pytest.raises(DecodeError):
            decode_key(bad)
    for bad in (b"\x00\x09" + b"\x00" * 20, b"\x00\x03\x00", struct.pack(">hq", 3, 1)):
        with pytest.raises(DecodeError):
            decode_offset_value(bad)
    with pytest.raises(DecodeError):
        decode_group_value(struct.pack(">h", 3) + _s("consumer"))


# ---------------------------------------------------------------- commit rules


def test_simple_consumer_commit_creates_a_group_without_members(broker):
    gc = broker.gc
    assert gc.commit_offsets("solo", "", None, -1, [OffsetCommitEntry("t", 0, 10, 2, "m")]) == [E.NONE]
    group = gc.groups["solo"]
    assert group.state is GroupState.EMPTY and group.protocol_type is None
    assert offsets_of(gc, "solo") == {("t", 0): (10, 2, "m")}
    # The empty group id is a valid group for offset storage.
    assert gc.commit_offsets("", "", None, -1, [OffsetCommitEntry("t", 1, 3)]) == [E.NONE]
    assert offsets_of(gc, "") == {("t", 1): (3, -1, "")}


def test_member_commit_for_a_group_that_does_not_exist(broker):
    """The classic GroupCoordinator.handleCommitOffsets: a member (generation >= 0) of a group
    the coordinator does not have gets ILLEGAL_GENERATION in every version, and no group."""
    entries = [OffsetCommitEntry("t", 0, 1)]
    with pytest.raises(KafkaError) as err:
        broker.gc.commit_offsets("gone", "m", None, 3, entries)
    assert err.value.error is E.ILLEGAL_GENERATION
    assert "gone" not in broker.gc.groups


def test_commit_rules_of_a_group_with_members(broker, clock):
    gc = broker.gc
    leader, _follower = stable_group(gc, clock)
    entries = [OffsetCommitEntry("t", 0, 1)]

    def error_of(member_id, generation, instance=None):
        try:
            gc.commit_offsets("g", member_id, instance, generation, entries)
        except KafkaError as exc:
            return exc.error
        return E.NONE

    assert error_of(leader, 1) is E.NONE
    assert error_of("", -1) is E.UNKNOWN_MEMBER_ID  # only members commit to a live group
    assert error_of("stranger", 1) is E.UNKNOWN_MEMBER_ID
    assert error_of(leader, 0) is E.ILLEGAL_GENERATION
    assert error_of(leader, 1, "i-unknown") is E.UNKNOWN_MEMBER_ID
    join(gc)  # PreparingRebalance: the old generation may still commit
    assert error_of(leader, 1) is E.NONE


def test_commit_during_completing_rebalance_is_refused(broker, clock):
    gc = broker.gc
    answers = join(gc)
    clock.advance(0)
    with pytest.raises(KafkaError) as err:
        gc.commit_offsets("g", answers.last.member_id, None, 1, [OffsetCommitEntry("t", 0, 1)])
    assert err.value.error is E.REBALANCE_IN_PROGRESS


def test_static_member_with_a_stale_id_is_fenced_on_commit(broker, clock):
    gc = broker.gc
    first = join(gc, instance="i-1")
    clock.advance(0)
    old = first.last.member_id
    sync(gc, old, 1, {old: b"a"}, instance="i-1")
    join(gc, instance="i-1", protocols=[("range", b"meta-" + old.encode())])
    with pytest.raises(KafkaError) as err:
        gc.commit_offsets("g", old, "i-1", 1, [OffsetCommitEntry("t", 0, 1)])
    assert err.value.error is E.FENCED_INSTANCE_ID


def test_metadata_size_limit_applies_per_partition(broker):
    gc = broker.gc
    entries = [
        OffsetCommitEntry("t", 0, 1, metadata="x" * 4096),
        OffsetCommitEntry("t", 1, 2, metadata="x" * 4097),
        OffsetCommitEntry("t", 2, 3, metadata="\U0001f600" * 2049),  # 4098 UTF-16 code units
        OffsetCommitEntry("t", 3, 4, metadata=None),
    ]
    results = gc.commit_offsets("g", "", None, -1, entries)
    assert results == [E.NONE, E.OFFSET_METADATA_TOO_LARGE, E.OFFSET_METADATA_TOO_LARGE, E.NONE]
    assert offsets_of(gc, "g") == {("t", 0): (1, -1, "x" * 4096), ("t", 3): (4, -1, "")}


def test_fetch_answers_requested_partitions_and_all(broker):
    gc = broker.gc
    gc.commit_offsets("g", "", None, -1, [OffsetCommitEntry("a", 0, 5, 1, "m"), OffsetCommitEntry("b", 2, 6)])
    found = gc.fetch_offsets("g", [("a", 0), ("a", 1), ("zzz", 0)])
    assert [(t, p, om.committed_offset if om else None) for t, p, om in found] == [
        ("a", 0, 5),
        ("a", 1, None),
        ("zzz", 0, None),
    ]
    assert offsets_of(gc, "g") == {("a", 0): (5, 1, "m"), ("b", 2): (6, -1, "")}
    assert gc.fetch_offsets("unknown", None) == []
    assert gc.fetch_offsets("unknown", [("a", 0)]) == [("a", 0, None)]


def test_a_failed_write_answers_the_mapped_error_and_stores_nothing(tmp_path, clock):
    b = Broker(tmp_path, clock, offsets_segment_bytes=300)
    try:
        gc = b.gc
        entries = [OffsetCommitEntry("topic-with-a-long-name", p, p) for p in range(10)]
        assert gc.commit_offsets("g", "", None, -1, entries) == [E.INVALID_COMMIT_OFFSET_SIZE] * 10
        assert gc.fetch_offsets("g", None) == []
        assert "g" not in gc.groups
    finally:
        b.close()


# ---------------------------------------------------------------- durability


def test_offsets_survive_a_restart_in_kafkas_format(broker, clock):
    gc = broker.gc
    leader, _ = stable_group(gc, clock)
    gc.commit_offsets(
        "g", leader, None, 1, [OffsetCommitEntry("t", 0, 100, 4, "meta"), OffsetCommitEntry("t", 1, 7)]
    )
    gc.commit_offsets("g", leader, None, 1, [OffsetCommitEntry("t", 0, 150, 4, "later")])
    records = broker.records("g")
    assert all(pid == -1 for _, _, pid in records)
    decoded = [
        (
            decode_key(k),
            decode_offset_value(v) if isinstance(decode_key(k), OffsetKey) else decode_group_value(v),
        )
        for k, v, _ in records
    ]
    offset_records = [(k, v.committed_offset) for k, v in decoded if isinstance(k, OffsetKey)]
    assert offset_records == [
        (OffsetKey("g", "t", 0), 100),
        (OffsetKey("g", "t", 1), 7),
        (OffsetKey("g", "t", 0), 150),
    ]
    group_records = [v for k, v in decoded if isinstance(k, GroupKey)]
    assert group_records[-1].generation == 1 and {m.member_id for m in group_records[-1].members} == set(
        gc.groups["g"].members
    )

    gc = broker.restart()
    assert offsets_of(gc, "g") == {("t", 0): (150, 4, "later"), ("t", 1): (7, -1, "")}


def test_deleted_group_stays_deleted_after_a_restart(broker, clock):
    gc = broker.gc
    leader, follower = stable_group(gc, clock)
    gc.commit_offsets("g", leader, None, 1, [OffsetCommitEntry("t", 0, 1)])
    gc.leave_group("g", [LeaveMember(leader), LeaveMember(follower)])
    clock.advance(0)
    assert gc.groups["g"].state is GroupState.EMPTY
    assert gc.delete_groups(["g"]) == {"g": E.NONE}
    tombstones = [decode_key(k) for k, v, _ in broker.records("g") if v is None]
    assert tombstones == [OffsetKey("g", "t", 0), GroupKey("g")]
    gc = broker.restart()
    assert "g" not in gc.groups and gc.fetch_offsets("g", None) == []


def test_existing_topic_keeps_its_partition_count(tmp_path, clock):
    b = Broker(tmp_path, clock, offsets_topic_partitions=3)
    try:
        b.gc.commit_offsets("my-group", "", None, -1, [OffsetCommitEntry("t", 0, 11)])
        b.kw["offsets_topic_partitions"] = 50
        gc = b.restart()
        assert gc.partition_for("my-group") == partition_for("my-group", 3)
        assert offsets_of(gc, "my-group") == {("t", 0): (11, -1, "")}
    finally:
        b.close()


def test_the_load_skips_records_it_cannot_use(broker):
    gc = broker.gc
    gc.commit_offsets("g", "", None, -1, [OffsetCommitEntry("t", 0, 1)])
    assert broker.lm is not None
    plog = broker.lm.get_log(OFFSETS_TOPIC, gc.partition_for("g"))
    junk = [
        (None, b"no key"),
        (b"\x00", b"short key"),
        (struct.pack(">h", 5) + _s("g"), b"a KIP-848 record"),
        (encode_offset_key("g", "t", 1), b"\x00\x09 unknown value version"),
        (encode_offset_key("g", "t", 2), encode_offset_value(OffsetAndMetadata(22))),
    ]
    # Appended as a replica would: a leader refuses keyless records in a compacted topic.
    plog.append_as_leader(memoryview(bytearray(build_batch(junk))), 0, origin=AppendOrigin.REPLICATION)
    plog.update_high_watermark(plog.log_end_offset)
    gc = broker.restart()
    assert offsets_of(gc, "g") == {("t", 0): (1, -1, ""), ("t", 2): (22, -1, "")}


def test_deleted_topic_offsets_are_removed(broker):
    gc = broker.gc
    gc.commit_offsets(
        "g1", "", None, -1, [OffsetCommitEntry("doomed", 0, 1), OffsetCommitEntry("kept", 0, 2)]
    )
    gc.commit_offsets("g2", "", None, -1, [OffsetCommitEntry("doomed", 3, 1)])
    gc.remove_offsets_of_topic("doomed")
    assert offsets_of(gc, "g1") == {("kept", 0): (2, -1, "")}
    assert offsets_of(gc, "g2") == {}
    gc = broker.restart()
    assert offsets_of(gc, "g1") == {("kept", 0): (2, -1, "")} and offsets_of(gc, "g2") == {}


# ---------------------------------------------------------------- expiry (offsets.retention.minutes)


def test_offsets_of_an_empty_group_expire_after_the_retention_since_it_emptied(broker, clock):
    gc = broker.gc
    leader, follower = stable_group(gc, clock, session=DAY, rebalance=DAY)
    gc.commit_offsets("g", leader, None, 1, [OffsetCommitEntry("t", 0, 5)])
    # The group stays alive for 10 days: its offsets do not expire meanwhile.
    for _ in range(10):
        clock.advance(DAY - 1)
        gc.heartbeat("g", leader, None, 1)
        gc.heartbeat("g", follower, None, 1)
    assert offsets_of(gc, "g") == {("t", 0): (5, -1, "")}
    gc.leave_group("g", [LeaveMember(leader), LeaveMember(follower)])
    clock.advance(0)
    assert gc.groups["g"].state is GroupState.EMPTY
    clock.advance(RETENTION - CHECK)
    assert offsets_of(gc, "g") == {("t", 0): (5, -1, "")}
    clock.advance(2 * CHECK)  # a check past the retention
    assert "g" not in gc.groups and gc.fetch_offsets("g", None) == []
    tombstones = [decode_key(k) for k, v, _ in broker.records("g") if v is None]
    assert tombstones == [OffsetKey("g", "t", 0), GroupKey("g")]
    gc = broker.restart()
    assert gc.fetch_offsets("g", None) == [] and "g" not in gc.groups


def test_offsets_of_a_simple_group_expire_after_the_retention_since_their_commit(broker, clock):
    gc = broker.gc
    gc.commit_offsets("s", "", None, -1, [OffsetCommitEntry("t", 0, 1)])
    clock.advance(3 * DAY)
    gc.commit_offsets("s", "", None, -1, [OffsetCommitEntry("t", 1, 1)])
    clock.advance(RETENTION - 3 * DAY)
    assert set(offsets_of(gc, "s")) == {("t", 1)}
    clock.advance(3 * DAY)
    assert "s" not in gc.groups


def test_stable_consumer_group_keeps_offsets_of_subscribed_topics(broker, clock):
    gc = broker.gc
    meta = b"\x00\x00" + bytes(ConsumerProtocolSubscription(topics=["subscribed"]).encode(0))
    leader, follower = stable_group(gc, clock, protocols=[("range", meta)], session=DAY, rebalance=DAY)
    assert gc.groups["g"].subscribed_topics == frozenset({"subscribed"})
    gc.commit_offsets(
        "g", leader, None, 1, [OffsetCommitEntry("subscribed", 0, 1), OffsetCommitEntry("old", 0, 1)]
    )
    for _ in range(8):
        clock.advance(DAY - 1)
        gc.heartbeat("g", leader, None, 1)
        gc.heartbeat("g", follower, None, 1)
    assert set(offsets_of(gc, "g")) == {("subscribed", 0)}


def test_a_v2_retention_time_overrides_the_broker_retention(broker, clock):
    gc = broker.gc
    gc.commit_offsets("s", "", None, -1, [OffsetCommitEntry("t", 0, 1)], retention_ms=1_000)
    assert decode_offset_value(broker.records("s")[-1][1]).expire_timestamp_ms == clock.now + 1_000
    clock.advance(CHECK)
    assert "s" not in gc.groups


def test_a_rebalancing_group_loses_no_offsets(broker, clock):
    gc = broker.gc
    leader, follower = stable_group(gc, clock, session=20 * DAY, rebalance=20 * DAY)
    gc.commit_offsets("g", leader, None, 1, [OffsetCommitEntry("t", 0, 1)])
    join(gc, member_id=leader, session=20 * DAY, rebalance=20 * DAY)
    clock.advance(RETENTION + CHECK)
    assert gc.groups["g"].state is GroupState.PREPARING_REBALANCE
    assert set(offsets_of(gc, "g")) == {("t", 0)}
    assert follower in gc.groups["g"].members


def test_find_coordinator_creates_the_topic_in_the_background(tmp_path, clock):
    lm = LogManager([tmp_path / "logs"], resolve_topic_defaults({}))
    lm.startup()
    gc = GroupCoordinator(
        *embedded_partitions(lm, clock),
        broker_id=0,
        offsets_topic_partitions=6,
        time_ms=clock.time_ms,
        timers=clock,
    )
    answers: list[ErrorCode] = []

    async def scenario() -> None:
        await gc.start()
        while True:
            answers.append(gc.find_coordinator("g"))
            if answers[-1] is E.NONE:
                break
            await asyncio.sleep(0)  # one partition is created per loop turn

    try:
        asyncio.run(scenario())
        assert answers[0] is E.COORDINATOR_NOT_AVAILABLE and answers[-1] is E.NONE
        assert set(answers[:-1]) == {E.COORDINATOR_NOT_AVAILABLE}
        assert lm.topics()[OFFSETS_TOPIC].partitions == 6
        assert lm.topic_config(OFFSETS_TOPIC).cleanup_policy == ("compact",)
        assert gc.partition_for("g") == partition_for("g", 6)
    finally:
        lm.shutdown()


def test_stop_during_the_topic_creation(tmp_path, clock):
    lm = LogManager([tmp_path / "logs"], resolve_topic_defaults({}))
    lm.startup()
    gc = GroupCoordinator(
        *embedded_partitions(lm, clock),
        broker_id=0,
        offsets_topic_partitions=50,
        time_ms=clock.time_ms,
        timers=clock,
    )

    async def scenario() -> None:
        await gc.start()
        assert gc.find_coordinator("g") is E.COORDINATOR_NOT_AVAILABLE
        await asyncio.sleep(0)
        await gc.stop()

    try:
        asyncio.run(scenario())
        assert not gc.topic.creating
        assert lm.topics()[OFFSETS_TOPIC].partitions == 50  # finished at once, never left half-made
    finally:
        lm.shutdown()


def test_a_creation_interrupted_by_a_crash_is_completed_at_start(tmp_path, clock):
    lm = LogManager([tmp_path / "logs"], resolve_topic_defaults({}))
    lm.startup()
    lm.create_topic(OFFSETS_TOPIC, 4, uuid.uuid4(), {})  # what a kill -9 mid-creation leaves
    try:
        gc = make_coordinator(lm, clock, offsets_topic_partitions=10)
        assert lm.topics()[OFFSETS_TOPIC].partitions == 10
        assert gc.partition_for("my-group") == partition_for("my-group", 10)
    finally:
        lm.shutdown()


# ---------------------------------------------------------------- compaction by the log cleaner


def test_offsets_and_groups_survive_many_cleanings_of_the_offsets_topic(tmp_path, clock):
    """``__consumer_offsets`` is compacted by the log cleaner (cleanup.policy=compact), as
    Kafka's: after rounds of commits and cleanings the partition holds about the live
    records, and a restart replays the latest offsets and the group over the gaps."""
    b = Broker(tmp_path, clock, offsets_segment_bytes=1024)
    try:
        gc = b.gc
        leader, _ = stable_group(gc, clock)
        assert b.lm is not None
        partition = gc.partition_for("g")
        plog = b.lm.get_log(OFFSETS_TOPIC, partition)
        for round_ in range(5):
            for i in range(100):  # the same two partitions committed over and over
                n = round_ * 100 + i
                gc.commit_offsets(
                    "g", leader, None, 1, [OffsetCommitEntry("t", 0, n), OffsetCommitEntry("t", 1, n)]
                )
            gc.commit_offsets("gone", "", None, -1, [OffsetCommitEntry("t", 0, 1)])
            assert gc.delete_groups(["gone"]) == {"gone": E.NONE}
            cleaner = LogCleaner(CleanerConfig(), [b.dir], lambda: [plog], time_ms=clock.time_ms)
            cleaned = _clean_once(cleaner)
            assert cleaned is not None and cleaned > 0
        records = sum(len(rs) for _h, rs in _batches(plog))
        # Five rounds wrote over 1,000 records; what is left is the live ones plus the
        # uncleaned active segment.
        assert records < 300
        gc = b.restart()
        assert offsets_of(gc, "g") == {("t", 0): (499, -1, ""), ("t", 1): (499, -1, "")}
        assert gc.groups["g"].state is GroupState.STABLE and gc.groups["g"].leader_id == leader
        assert "gone" not in gc.groups and gc.fetch_offsets("gone", None) == []
    finally:
        b.close()


def _clean_once(cleaner: LogCleaner) -> int | None:
    async def go() -> int | None:
        try:
            return await cleaner.clean_filthiest_log()
        finally:
            cleaner.close()

    return asyncio.run(go())


def _batches(plog) -> list[tuple]:
    """(header, records) of every batch from the log start to the log end."""
    out = []
    offset = plog.log_start_offset
    while offset < plog.log_end_offset:
        data = plog.read(offset, 1 << 24).records
        assert data, f"nothing at {offset}"
        for header, records in decode_all(data):
            out.append((header, records))
            offset = header.next_offset
    return out
