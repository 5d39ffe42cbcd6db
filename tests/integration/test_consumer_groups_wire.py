"""The group APIs on the wire, version by version, against a broker subprocess.

Our own codecs over a raw socket (tests/support/wire_client.py): every request version
the broker serves, the errors Kafka answers, and committed offsets across restarts.
Waits for another connection's effect poll DescribeGroups with a deadline.
"""

from __future__ import annotations

import time

import pytest

from protocol.errors import ErrorCode
from protocol.messages import (
    DeleteGroupsRequest,
    DescribeGroupsRequest,
    FindCoordinatorRequest,
    HeartbeatRequest,
    JoinGroupRequest,
    LeaveGroupRequest,
    ListGroupsRequest,
    MetadataRequest,
    OffsetCommitRequest,
    OffsetFetchRequest,
    SyncGroupRequest,
)
from tests.integration.test_consumer_groups_support import (
    GROUP_OVERRIDES,
    assignment,
    create_topic,
    find_coordinator,
    start_group_broker,
    subscription,
    wire,
)
from tests.support.wire_client import WireClient

pytestmark = pytest.mark.integration

E = ErrorCode
TOPIC = "wire-topic"
Protocol = JoinGroupRequest.JoinGroupRequestProtocol


@pytest.fixture(scope="module")
def group_broker(tmp_path_factory):
    """One broker with fast group settings (and the test topic) for the module."""
    b = start_group_broker(tmp_path_factory.mktemp("group-wire") / "data")
    create_topic(b, TOPIC, 3)
    find_coordinator(b, "any")  # as clients do first: __consumer_offsets exists from here on
    yield b
    if b.alive():
        b.stop()


@pytest.fixture
def gbroker(group_broker):
    return group_broker


def join_request(
    group: str,
    member_id: str = "",
    *,
    instance: str | None = None,
    session: int = 10_000,
    protocol_type: str = "consumer",
    protocols: list | None = None,
) -> JoinGroupRequest:
    return JoinGroupRequest(
        group_id=group,
        session_timeout_ms=session,
        rebalance_timeout_ms=20_000,
        member_id=member_id,
        group_instance_id=instance,
        protocol_type=protocol_type,
        protocols=protocols
        if protocols is not None
        else [Protocol(name="range", metadata=subscription(TOPIC))],
        reason="test",
    )


def join(c: WireClient, version: int, group: str, member_id: str = "", **kw):
    """JoinGroup, answering MEMBER_ID_REQUIRED (v4+) with a second join, as clients do."""
    resp = c.request(join_request(group, member_id, **kw), version)
    if resp.error_code == E.MEMBER_ID_REQUIRED.code:
        assert version >= 4 and not member_id
        resp = c.request(join_request(group, resp.member_id, **kw), version)
    return resp


def sync_request(
    group: str, generation: int, member_id: str, assignments: dict[str, bytes] | None = None, **kw
):
    return SyncGroupRequest(
        group_id=group,
        generation_id=generation,
        member_id=member_id,
        protocol_type=kw.pop("protocol_type", "consumer"),
        protocol_name=kw.pop("protocol_name", "range"),
        assignments=[
            SyncGroupRequest.SyncGroupRequestAssignment(member_id=m, assignment=a)
            for m, a in (assignments or {}).items()
        ],
        **kw,
    )


def describe(c: WireClient, group: str, version: int = 5):
    return c.request(
        DescribeGroupsRequest(groups=[group], include_authorized_operations=True), version
    ).groups[0]


def wait_for_state(b, group: str, state: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    with wire(b) as c:
        while True:
            if describe(c, group).group_state == state:
                return
            assert time.monotonic() < deadline, f"group {group} never reached {state}"
            time.sleep(0.02)


def commit_request(
    group: str, generation: int, member_id: str, offsets: dict[int, int], **kw
) -> OffsetCommitRequest:
    topic = kw.pop("topic", TOPIC)
    return OffsetCommitRequest(
        group_id=group,
        generation_id_or_member_epoch=generation,
        member_id=member_id,
        topics=[
            OffsetCommitRequest.OffsetCommitRequestTopic(
                name=topic,
                partitions=[
                    OffsetCommitRequest.OffsetCommitRequestPartition(
                        partition_index=p,
                        committed_offset=o,
                        committed_leader_epoch=kw.get("epoch", -1),
                        committed_metadata=kw.get("metadata", f"m{p}"),
                    )
                    for p, o in offsets.items()
                ],
            )
        ],
    )


def fetch(c: WireClient, version: int, group: str, partitions: list[int] | None):
    """{partition: (offset, epoch, metadata, error)} and the group error, for any version."""
    if version >= 8:
        topics = (
            None
            if partitions is None
            else [OffsetFetchRequest.OffsetFetchRequestTopics(name=TOPIC, partition_indexes=partitions)]
        )
        resp = c.request(
            OffsetFetchRequest(
                groups=[OffsetFetchRequest.OffsetFetchRequestGroup(group_id=group, topics=topics)]
            ),
            version,
        )
        g = resp.groups[0]
        error, topics_out = g.error_code, g.topics
    else:
        topics = (
            None
            if partitions is None
            else [OffsetFetchRequest.OffsetFetchRequestTopic(name=TOPIC, partition_indexes=partitions)]
        )
        resp = c.request(OffsetFetchRequest(group_id=group, topics=topics), version)
        error, topics_out = resp.error_code, resp.topics
    got = {}
    for t in topics_out:
        assert t.name == TOPIC
        for p in t.partitions:
            got[p.partition_index] = (p.committed_offset, p.committed_leader_epoch, p.metadata, p.error_code)
    return error, got


# ---------------------------------------------------------------- FindCoordinator


def test_first_find_coordinator_creates_the_offsets_topic(tmp_path):
    b = start_group_broker(tmp_path / "data")
    try:
        with wire(b) as c:
            first = c.request(FindCoordinatorRequest(key="g", key_type=0), 1)
            # As Kafka: not available until the auto-created topic exists (Node.noNode).
            assert (first.error_code, first.node_id, first.host, first.port) == (
                E.COORDINATOR_NOT_AVAILABLE.code,
                -1,
                "",
                -1,
            )
        resp = find_coordinator(b, "g", version=2)
        assert (resp.node_id, resp.host, resp.port) == (0, b.host, b.port)
        with wire(b) as c:
            meta = c.request(MetadataRequest(topics=None), 9)
        offsets_topic = next(t for t in meta.topics if t.name == "__consumer_offsets")
        assert offsets_topic.is_internal
        assert len(offsets_topic.partitions) == int(GROUP_OVERRIDES["offsets.topic.num.partitions"])
    finally:
        b.stop()


def test_find_coordinator_every_version(gbroker):
    find_coordinator(gbroker, "some-group")
    with wire(gbroker) as c:
        for version in range(4):
            resp = c.request(FindCoordinatorRequest(key="some-group", key_type=0), version)
            assert (resp.error_code, resp.node_id, resp.host, resp.port) == (0, 0, gbroker.host, gbroker.port)
            if version >= 1:
                assert resp.error_message == "NONE"  # Kafka sends Errors.NONE.message()
        resp = c.request(FindCoordinatorRequest(key_type=0, coordinator_keys=["a", "b", ""]), 4)
        assert [(x.key, x.error_code, x.node_id, x.port) for x in resp.coordinators] == [
            ("a", 0, 0, gbroker.port),
            ("b", 0, 0, gbroker.port),
            ("", 0, 0, gbroker.port),
        ]


def test_find_coordinator_for_transactions_and_unknown_key_types(gbroker):
    with wire(gbroker) as c:
        # The transaction coordinator: COORDINATOR_NOT_AVAILABLE while __transaction_state is
        # created (the first lookup starts it), then this broker.
        deadline = time.monotonic() + 30
        while True:
            resp = c.request(FindCoordinatorRequest(key="txn", key_type=1), 1)
            if resp.error_code != E.COORDINATOR_NOT_AVAILABLE.code or time.monotonic() > deadline:
                break
        assert (resp.error_code, resp.node_id, resp.port) == (0, 0, gbroker.port)
        resp = c.request(FindCoordinatorRequest(key_type=1, coordinator_keys=["t1", "t2"]), 4)
        assert [(x.error_code, x.port) for x in resp.coordinators] == [(0, gbroker.port)] * 2
        resp = c.request(FindCoordinatorRequest(key="x", key_type=9), 3)
        assert resp.error_code == E.INVALID_REQUEST.code


# ---------------------------------------------------------------- JoinGroup, SyncGroup, Heartbeat, LeaveGroup


@pytest.mark.parametrize(
    ("join_v", "sync_v", "hb_v", "leave_v"),
    [
        (0, 0, 0, 0),
        (1, 1, 1, 1),
        (2, 2, 2, 2),
        (3, 3, 3, 2),
        (4, 3, 3, 3),
        (5, 3, 3, 3),
        (6, 4, 4, 4),
        (7, 5, 4, 4),
        (8, 5, 4, 5),
        (9, 5, 4, 5),
    ],
)
def test_one_member_lifecycle_at_every_version(gbroker, join_v, sync_v, hb_v, leave_v):
    group = f"lifecycle-{join_v}"
    with wire(gbroker, client_id="life") as c:
        first = c.request(join_request(group), join_v)
        if join_v >= 4:
            # KIP-394: a new member first gets its id, and joins with it.
            assert first.error_code == E.MEMBER_ID_REQUIRED.code and first.member_id.startswith("life-")
            assert first.generation_id == -1
            first = c.request(join_request(group, first.member_id), join_v)
        assert first.error_code == 0, first
        member = first.member_id
        assert member.startswith("life-")
        assert (first.generation_id, first.leader, first.protocol_name) == (1, member, "range")
        assert [m.member_id for m in first.members] == [member]
        assert first.members[0].metadata == subscription(TOPIC)
        assert first.protocol_type == ("consumer" if join_v >= 7 else None)
        assert first.skip_assignment is False

        mine = assignment(TOPIC, [0, 1, 2])
        synced = c.request(sync_request(group, 1, member, {member: mine}), sync_v)
        assert (synced.error_code, synced.assignment) == (0, mine)
        assert (synced.protocol_type, synced.protocol_name) == (
            ("consumer", "range") if sync_v >= 5 else (None, None)
        )

        assert (
            c.request(HeartbeatRequest(group_id=group, generation_id=1, member_id=member), hb_v).error_code
            == 0
        )
        assert (
            c.request(HeartbeatRequest(group_id=group, generation_id=0, member_id=member), hb_v).error_code
            == E.ILLEGAL_GENERATION.code
        )

        if leave_v < 3:
            left = c.request(LeaveGroupRequest(group_id=group, member_id=member), leave_v)
            assert left.error_code == 0
        else:
            left = c.request(
                LeaveGroupRequest(
                    group_id=group, members=[LeaveGroupRequest.MemberIdentity(member_id=member)]
                ),
                leave_v,
            )
            assert left.error_code == 0 and [(m.member_id, m.error_code) for m in left.members] == [
                (member, 0)
            ]
        assert describe(c, group).group_state == "Empty"
        assert (
            c.request(HeartbeatRequest(group_id=group, generation_id=2, member_id=member), hb_v).error_code
            == E.UNKNOWN_MEMBER_ID.code
        )


def test_second_member_triggers_a_rebalance_and_the_group_shrinks_when_it_leaves(gbroker):
    group = "two-members"
    with wire(gbroker, "c1") as c1, wire(gbroker, "c2") as c2:
        j1 = join(c1, 5, group)
        m1 = j1.member_id
        assert c1.request(sync_request(group, 1, m1, {m1: assignment(TOPIC, [0, 1, 2])}), 3).error_code == 0

        pending = c2.request(join_request(group), 5)
        assert pending.error_code == E.MEMBER_ID_REQUIRED.code
        m2 = pending.member_id
        c2.send(join_request(group, m2), 5)  # parks c2 until the group has rebalanced
        wait_for_state(gbroker, group, "PreparingRebalance")
        assert (
            c1.request(HeartbeatRequest(group_id=group, generation_id=1, member_id=m1), 3).error_code
            == E.REBALANCE_IN_PROGRESS.code
        )

        rejoined = join(c1, 5, group, m1)
        _, j2 = c2.recv(JoinGroupRequest.API_KEY, 5)
        assert rejoined.error_code == 0 and j2.error_code == 0
        assert rejoined.generation_id == j2.generation_id == 2
        assert rejoined.leader == j2.leader == m1
        assert {m.member_id for m in rejoined.members} == {m1, m2} and j2.members == []

        c2.send(sync_request(group, 2, m2), 3)  # the follower waits for the leader's assignment
        a1, a2 = assignment(TOPIC, [0, 1]), assignment(TOPIC, [2])
        assert c1.request(sync_request(group, 2, m1, {m1: a1, m2: a2}), 3).assignment == a1
        _, s2 = c2.recv(SyncGroupRequest.API_KEY, 3)
        assert (s2.error_code, s2.assignment) == (0, a2)

        left = c2.request(
            LeaveGroupRequest(group_id=group, members=[LeaveGroupRequest.MemberIdentity(member_id=m2)]), 3
        )
        assert left.members[0].error_code == 0
        assert (
            c1.request(HeartbeatRequest(group_id=group, generation_id=2, member_id=m1), 3).error_code
            == E.REBALANCE_IN_PROGRESS.code
        )
        alone = join(c1, 5, group, m1)
        assert alone.generation_id == 3 and [m.member_id for m in alone.members] == [m1]


def test_static_member_restart_keeps_its_place(gbroker):
    group = "static-wire"
    with wire(gbroker, "s1") as c:
        first = join(c, 5, group, instance="host-1")
        old = first.member_id
        assert first.error_code == 0 and old.startswith("host-1-")
        c.request(sync_request(group, 1, old, {old: assignment(TOPIC, [0])}, group_instance_id="host-1"), 3)
    with wire(gbroker, "s1") as c:  # the restarted process: no member id, same instance id
        again = join(c, 5, group, instance="host-1")
        assert again.error_code == 0 and again.generation_id == 1 and again.member_id != old
        synced = c.request(sync_request(group, 1, again.member_id, group_instance_id="host-1"), 3)
        assert synced.assignment == assignment(TOPIC, [0])
        stale = HeartbeatRequest(group_id=group, generation_id=1, member_id=old, group_instance_id="host-1")
        assert c.request(stale, 3).error_code == E.FENCED_INSTANCE_ID.code
        d = describe(c, group, 4)
        assert [(m.member_id, m.group_instance_id) for m in d.members] == [(again.member_id, "host-1")]
        # Administrative removal by instance id (LeaveGroup v3+).
        left = c.request(
            LeaveGroupRequest(
                group_id=group,
                members=[
                    LeaveGroupRequest.MemberIdentity(member_id="", group_instance_id="host-1"),
                    LeaveGroupRequest.MemberIdentity(member_id="", group_instance_id="host-9"),
                ],
            ),
            5,
        )
        assert [(m.group_instance_id, m.error_code) for m in left.members] == [
            ("host-1", 0),
            ("host-9", E.UNKNOWN_MEMBER_ID.code),
        ]


def test_join_errors(gbroker):
    with wire(gbroker) as c:
        assert c.request(join_request("g-err", session=100), 5).error_code == E.INVALID_SESSION_TIMEOUT.code
        assert (
            c.request(join_request("g-err", session=1_800_001), 0).error_code
            == E.INVALID_SESSION_TIMEOUT.code
        )
        assert c.request(join_request(""), 3).error_code == E.INVALID_GROUP_ID.code
        assert (
            c.request(join_request("g-err", protocol_type=""), 3).error_code
            == E.INCONSISTENT_GROUP_PROTOCOL.code
        )
        assert (
            c.request(join_request("g-err", protocols=[]), 3).error_code == E.INCONSISTENT_GROUP_PROTOCOL.code
        )
        unknown = c.request(join_request("never-seen", "someone-1"), 6)
        assert (unknown.error_code, unknown.member_id) == (E.UNKNOWN_MEMBER_ID.code, "someone-1")
        assert unknown.protocol_name == ""  # not nullable before v7
        assert c.request(join_request("never-seen", "someone-1"), 7).protocol_name is None
        # A group of another protocol type refuses the member.
        join(c, 3, "typed")
        assert (
            c.request(join_request("typed", protocol_type="connect"), 3).error_code
            == E.INCONSISTENT_GROUP_PROTOCOL.code
        )


def test_sync_and_heartbeat_errors(gbroker):
    with wire(gbroker) as c:
        j = join(c, 5, "sync-err")
        m = j.member_id
        # v5 requires protocol type and name (SyncGroupRequest.areMandatoryProtocolTypeAndNamePresent).
        assert (
            c.request(sync_request("sync-err", 1, m, protocol_type=None), 5).error_code
            == E.INCONSISTENT_GROUP_PROTOCOL.code
        )
        assert (
            c.request(sync_request("sync-err", 1, m, protocol_name="roundrobin"), 5).error_code
            == E.INCONSISTENT_GROUP_PROTOCOL.code
        )
        assert c.request(sync_request("sync-err", 9, m), 3).error_code == E.ILLEGAL_GENERATION.code
        assert c.request(sync_request("sync-err", 1, "nobody"), 3).error_code == E.UNKNOWN_MEMBER_ID.code
        assert c.request(sync_request("no-such-group", 1, m), 0).error_code == E.UNKNOWN_MEMBER_ID.code
        assert c.request(sync_request("", 1, m), 0).error_code == E.INVALID_GROUP_ID.code
        assert (
            c.request(
                HeartbeatRequest(group_id="sync-err", generation_id=1, member_id="nobody"), 0
            ).error_code
            == E.UNKNOWN_MEMBER_ID.code
        )
        assert (
            c.request(HeartbeatRequest(group_id="", generation_id=1, member_id=m), 4).error_code
            == E.INVALID_GROUP_ID.code
        )
        left = c.request(LeaveGroupRequest(group_id="sync-err", member_id="nobody"), 1)
        assert left.error_code == E.UNKNOWN_MEMBER_ID.code  # v0-2: the member's error at the top


# ---------------------------------------------------------------- Describe, List, Delete


def test_describe_list_and_delete_groups_every_version(gbroker):
    with wire(gbroker, "adm") as c:
        j = join(c, 5, "described", instance="inst-d")
        m = j.member_id
        c.request(sync_request("described", 1, m, {m: b"asg"}, group_instance_id="inst-d"), 3)
        for version in range(6):
            d = describe(c, "described", version)
            assert (d.error_code, d.group_id, d.group_state, d.protocol_type, d.protocol_data) == (
                0,
                "described",
                "Stable",
                "consumer",
                "range",
            )
            [member] = d.members
            assert (member.member_id, member.client_id, member.client_host) == (m, "adm", "/127.0.0.1")
            assert (member.member_metadata, member.member_assignment) == (subscription(TOPIC), b"asg")
            assert member.group_instance_id == ("inst-d" if version >= 4 else None)
            assert d.authorized_operations == ((1 << 3) | (1 << 6) | (1 << 8) if version >= 3 else -(1 << 31))
        dead = describe(c, "nobody-here", 5)
        assert (dead.error_code, dead.group_state, dead.members) == (0, "Dead", [])

        # A simple group (offset storage only) is Empty with no protocol type.
        assert (
            c.request(commit_request("simple-g", -1, "", {0: 1}), 2).topics[0].partitions[0].error_code == 0
        )
        for version in range(5):
            resp = c.request(ListGroupsRequest(), version)
            listed = {g.group_id: g for g in resp.groups}
            assert resp.error_code == 0
            assert listed["described"].protocol_type == "consumer" and listed["simple-g"].protocol_type == ""
            if version >= 4:
                assert (listed["described"].group_state, listed["simple-g"].group_state) == (
                    "Stable",
                    "Empty",
                )
        stable_only = c.request(ListGroupsRequest(states_filter=["stable"]), 4)
        assert "described" in {g.group_id for g in stable_only.groups}
        assert "simple-g" not in {g.group_id for g in stable_only.groups}

        resp = c.request(DeleteGroupsRequest(groups_names=["described", "simple-g", "ghost", "simple-g"]), 2)
        assert [(r.group_id, r.error_code) for r in resp.results] == [
            ("described", E.NON_EMPTY_GROUP.code),
            ("simple-g", 0),
            ("ghost", E.GROUP_ID_NOT_FOUND.code),
        ]
        for version in (0, 1):
            resp = c.request(DeleteGroupsRequest(groups_names=["simple-g"]), version)
            assert resp.results[0].error_code == E.GROUP_ID_NOT_FOUND.code
        _, got = fetch(c, 6, "simple-g", [0])
        assert got == {0: (-1, -1, "", 0)}


# ---------------------------------------------------------------- OffsetCommit, OffsetFetch


@pytest.mark.parametrize("commit_v", range(2, 10))
def test_commit_and_fetch_offsets_every_version(gbroker, commit_v):
    group = f"offsets-{commit_v}"
    with wire(gbroker) as c:
        j = join(c, 5, group)
        m = j.member_id
        c.request(sync_request(group, 1, m, {m: assignment(TOPIC, [0, 1, 2])}), 3)
        resp = c.request(commit_request(group, 1, m, {0: 10, 1: 20}, epoch=3, metadata="hello"), commit_v)
        assert [(p.partition_index, p.error_code) for p in resp.topics[0].partitions] == [(0, 0), (1, 0)]
        for fetch_v in range(1, 9):
            error, got = fetch(c, fetch_v, group, [0, 1, 2])
            epoch = 3 if commit_v >= 6 and fetch_v >= 5 else -1
            assert error == 0
            assert got == {0: (10, epoch, "hello", 0), 1: (20, epoch, "hello", 0), 2: (-1, -1, "", 0)}
            if fetch_v >= 2:  # null topics: everything the group committed
                error, got = fetch(c, fetch_v, group, None)
                assert set(got) == {0, 1}


def test_fetch_several_groups_at_once_v8(gbroker):
    with wire(gbroker) as c:
        for g, offset in (("multi-a", 1), ("multi-b", 2)):
            c.request(commit_request(g, -1, "", {0: offset}), 8)
        resp = c.request(
            OffsetFetchRequest(
                groups=[
                    OffsetFetchRequest.OffsetFetchRequestGroup(group_id="multi-a", topics=None),
                    OffsetFetchRequest.OffsetFetchRequestGroup(
                        group_id="multi-b",
                        topics=[
                            OffsetFetchRequest.OffsetFetchRequestTopics(name=TOPIC, partition_indexes=[0, 1])
                        ],
                    ),
                    OffsetFetchRequest.OffsetFetchRequestGroup(group_id="multi-none", topics=None),
                ],
                require_stable=True,
            ),
            8,
        )
        out = {
            g.group_id: (
                g.error_code,
                {(t.name, p.partition_index): p.committed_offset for t in g.topics for p in t.partitions},
            )
            for g in resp.groups
        }
        assert out == {
            "multi-a": (0, {(TOPIC, 0): 1}),
            "multi-b": (0, {(TOPIC, 0): 2, (TOPIC, 1): -1}),
            "multi-none": (0, {}),
        }


def test_offset_commit_errors(gbroker):
    with wire(gbroker) as c:
        big = c.request(commit_request("errs", -1, "", {0: 1, 1: 1}, metadata="x" * 4097), 8)
        assert [p.error_code for p in big.topics[0].partitions] == [E.OFFSET_METADATA_TOO_LARGE.code] * 2
        unknown_topic = c.request(commit_request("errs", 7, "m", {0: 1}, topic="no-such-topic"), 8)
        # Only unknown partitions: the group is not even looked at.
        assert unknown_topic.topics[0].partitions[0].error_code == E.UNKNOWN_TOPIC_OR_PARTITION.code
        unknown_partition = c.request(commit_request("errs", -1, "", {0: 1, 99: 1, -1: 1}), 8)
        assert [p.error_code for p in unknown_partition.topics[0].partitions] == [
            0,
            E.UNKNOWN_TOPIC_OR_PARTITION.code,
            E.UNKNOWN_TOPIC_OR_PARTITION.code,
        ]
        # A member's commit for a group that does not exist.
        assert (
            c.request(commit_request("no-group", 5, "m", {0: 1}), 8).topics[0].partitions[0].error_code
            == E.ILLEGAL_GENERATION.code
        )
        assert (
            c.request(commit_request("no-group", 5, "m", {0: 1}), 9).topics[0].partitions[0].error_code
            == E.ILLEGAL_GENERATION.code  # not Kafka 4's GROUP_ID_NOT_FOUND: a classic coordinator
        )
        # A live group only takes commits from its members of the current generation.
        j = join(c, 5, "live")
        m = j.member_id
        c.request(sync_request("live", 1, m, {m: b""}), 3)
        errors = {
            "simple": c.request(commit_request("live", -1, "", {0: 1}), 7),
            "stranger": c.request(commit_request("live", 1, "stranger", {0: 1}), 7),
            "old generation": c.request(commit_request("live", 0, m, {0: 1}), 7),
        }
        assert {k: r.topics[0].partitions[0].error_code for k, r in errors.items()} == {
            "simple": E.UNKNOWN_MEMBER_ID.code,
            "stranger": E.UNKNOWN_MEMBER_ID.code,
            "old generation": E.ILLEGAL_GENERATION.code,
        }


# ---------------------------------------------------------------- durability


@pytest.mark.parametrize("clean", [True, False], ids=["restart", "kill-9"])
def test_committed_offsets_survive_a_broker_restart(tmp_path, clean):
    b = start_group_broker(tmp_path / "data")
    try:
        create_topic(b, TOPIC, 3)
        find_coordinator(b, "durable")
        with wire(b) as c:
            j = join(c, 5, "durable")
            m = j.member_id
            c.request(sync_request("durable", 1, m, {m: assignment(TOPIC, [0, 1, 2])}), 3)
            c.request(commit_request("durable", 1, m, {0: 5, 1: 6}, metadata="before"), 8)
            c.request(commit_request("durable", 1, m, {0: 7}, metadata="after"), 8)
            c.request(commit_request("simple", -1, "", {2: 9}), 2)
            assert c.request(DeleteGroupsRequest(groups_names=["simple"]), 2).results[0].error_code == 0
        b.restart(clean=clean)
        with wire(b) as c:
            _, got = fetch(c, 8, "durable", [0, 1, 2])
            assert got == {0: (7, -1, "after", 0), 1: (6, -1, "before", 0), 2: (-1, -1, "", 0)}
            _, got = fetch(c, 3, "simple", None)
            assert got == {}
            # The group itself came back (Stable, generation 1): the member may carry on.
            d = describe(c, "durable")
            assert d.group_state == "Stable" and [x.member_id for x in d.members] == [m]
            assert (
                c.request(HeartbeatRequest(group_id="durable", generation_id=1, member_id=m), 3).error_code
                == 0
            )
    finally:
        if b.alive():
            b.stop()
