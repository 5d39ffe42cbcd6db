"""Classic groups under extreme requests that reach their members.

A classic group's whole life with every id as long as a Kafka string allows:

Group id, group.instance.id, client id, protocol type and name are each 32767 UTF-8
bytes; the member's metadata and assignment are 100 KiB. The member id the broker
makes (``<group.instance.id>-<uuid>``) must still fit a Kafka string; the group's
GroupMetadataValue with all of them is written to ``__consumer_offsets`` and read back
after a restart; the other group APIs answer with them. Run at an older and at the
newest version of each API. ListGroups v5's types filter is checked on the way.

And the generated extreme requests of the group APIs (tests/broker/test_extreme_requests.py)
aimed at a real member: each case first joins a fresh group (which then awaits its leader's
SyncGroup) and the request is sent with that group id, member id and generation.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiKey,
    DeleteGroupsRequest,
    DescribeGroupsRequest,
    HeartbeatRequest,
    JoinGroupRequest,
    LeaveGroupRequest,
    ListGroupsRequest,
    OffsetCommitRequest,
    OffsetFetchRequest,
    SyncGroupRequest,
)
from tests.broker.test_extreme_requests import (
    CASES,
    KNOWN_TOPIC,
    Case,
    ExtremeBroker,
    check_outcome,
    dispatch,
    request_frame,
)


def _long(char: str, tag: str) -> str:
    """A string of exactly 32767 UTF-8 bytes, ending in ``tag``."""
    width = len(char.encode())
    body = char * ((32767 - len(tag)) // width)
    return body + "z" * (32767 - len(tag) - len(body.encode())) + tag


METADATA = bytes(range(256)) * 400  # 100 KiB
ASSIGNMENT = b"\x5a" * 102_400

# (JoinGroup, SyncGroup, Heartbeat, OffsetCommit, OffsetFetch, DescribeGroups, ListGroups,
#  LeaveGroup, DeleteGroups): the first versions with group.instance.id, and the newest.
VERSION_SETS = {
    "oldest-static": (5, 3, 3, 7, 7, 4, 4, 3, 1),
    "newest": (9, 5, 4, 9, 8, 5, 5, 5, 2),
}


@pytest.fixture(scope="module")
def extreme_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ExtremeBroker]:
    b = ExtremeBroker(tmp_path_factory.mktemp("extreme-groups") / "data")
    yield b
    b.close()


@pytest.mark.parametrize("versions", VERSION_SETS.values(), ids=VERSION_SETS.keys())
def test_group_life_with_32767_byte_ids(extreme_broker: ExtremeBroker, versions: tuple[int, ...]) -> None:
    join_v, sync_v, hb_v, commit_v, fetch_v, describe_v, list_v, leave_v, delete_v = versions
    tag = f"-v{join_v}"
    group, instance = _long("g", tag), _long("\u00e9", tag)
    client_id, ptype, pname = _long("c", tag), _long("\U0001f600", tag), _long("n", tag)
    eb = extreme_broker

    join = eb.call(
        JoinGroupRequest(
            group_id=group,
            session_timeout_ms=10_000,
            rebalance_timeout_ms=10_000,
            member_id="",
            group_instance_id=instance,
            protocol_type=ptype,
            protocols=[JoinGroupRequest.JoinGroupRequestProtocol(name=pname, metadata=METADATA)],
        ),
        join_v,
        client_id,
    )
    assert join.error_code == 0
    member = join.member_id
    assert len(member.encode()) <= 32767 and member.startswith(instance[:1000])
    assert (join.leader, join.generation_id, join.protocol_name) == (member, 1, pname)
    assert [(m.member_id, m.group_instance_id, bytes(m.metadata)) for m in join.members] == [
        (member, instance, METADATA)
    ]

    sync = eb.call(
        SyncGroupRequest(
            group_id=group,
            generation_id=1,
            member_id=member,
            group_instance_id=instance,
            protocol_type=ptype,
            protocol_name=pname,
            assignments=[
                SyncGroupRequest.SyncGroupRequestAssignment(member_id=member, assignment=ASSIGNMENT)
            ],
        ),
        sync_v,
        client_id,
    )
    assert (sync.error_code, bytes(sync.assignment)) == (0, ASSIGNMENT)
    heartbeat = HeartbeatRequest(
        group_id=group, generation_id=1, member_id=member, group_instance_id=instance
    )
    assert eb.call(heartbeat, hb_v).error_code == 0

    def commit(metadata: str) -> int:
        resp = eb.call(
            OffsetCommitRequest(
                group_id=group,
                generation_id_or_member_epoch=1,
                member_id=member,
                group_instance_id=instance,
                topics=[
                    OffsetCommitRequest.OffsetCommitRequestTopic(
                        name=KNOWN_TOPIC,
                        partitions=[
                            OffsetCommitRequest.OffsetCommitRequestPartition(
                                partition_index=0, committed_offset=5, committed_metadata=metadata
                            )
                        ],
                    )
                ],
            ),
            commit_v,
        )
        return resp.topics[0].partitions[0].error_code

    assert commit("m" * 4096) == 0  # offset.metadata.max.bytes
    assert commit("m" * 4097) == ErrorCode.OFFSET_METADATA_TOO_LARGE.code

    # The group's record (all the long fields) is read back from __consumer_offsets.
    eb.restart()

    topics = [OffsetFetchRequest.OffsetFetchRequestTopic(name=KNOWN_TOPIC, partition_indexes=[0])]
    if fetch_v >= 8:
        groups_field = [
            OffsetFetchRequest.OffsetFetchRequestGroup(
                group_id=group,
                topics=[OffsetFetchRequest.OffsetFetchRequestTopics(name=KNOWN_TOPIC, partition_indexes=[0])],
            )
        ]
        fetched = eb.call(OffsetFetchRequest(groups=groups_field), fetch_v).groups[0]
    else:
        fetched = eb.call(OffsetFetchRequest(group_id=group, topics=topics), fetch_v)
    [p] = fetched.topics[0].partitions
    assert (fetched.error_code, p.committed_offset, p.metadata) == (0, 5, "m" * 4096)

    [described] = eb.call(DescribeGroupsRequest(groups=[group]), describe_v).groups
    assert (described.error_code, described.group_state, described.protocol_type) == (0, "Stable", ptype)
    assert described.protocol_data == pname
    [m] = described.members
    assert (m.member_id, m.group_instance_id, m.client_id) == (member, instance, client_id)
    assert (bytes(m.member_metadata), bytes(m.member_assignment)) == (METADATA, ASSIGNMENT)

    def listed(**filters) -> dict[str, tuple[str, str, str]]:
        resp = eb.call(ListGroupsRequest(**filters), list_v)
        assert resp.error_code == 0
        return {g.group_id: (g.protocol_type, g.group_state, g.group_type) for g in resp.groups}

    group_type = "classic" if list_v >= 5 else ""
    assert listed()[group] == (ptype, "Stable", group_type)
    assert group in listed(states_filter=["STABLE"])
    if list_v >= 5:
        assert listed(types_filter=["Classic"])[group] == (ptype, "Stable", "classic")
        assert listed(types_filter=["consumer"]) == {}
        assert listed(types_filter=["no-such-type"]) == {}
        assert group in listed(types_filter=["share", "classic"], states_filter=["stable"])
        assert listed(types_filter=["classic"], states_filter=["empty"]).get(group) is None

    leave = eb.call(
        LeaveGroupRequest(
            group_id=group,
            members=[LeaveGroupRequest.MemberIdentity(member_id=member, group_instance_id=instance)],
        ),
        leave_v,
    )
    assert leave.error_code == 0
    assert [(r.member_id, r.group_instance_id, r.error_code) for r in leave.members] == [
        (member, instance, 0)
    ]
    [deleted] = eb.call(DeleteGroupsRequest(groups_names=[group]), delete_v).results
    assert (deleted.group_id, deleted.error_code) == (group, 0)


GROUP_APIS = {
    ApiKey.JOIN_GROUP,
    ApiKey.SYNC_GROUP,
    ApiKey.HEARTBEAT,
    ApiKey.LEAVE_GROUP,
    ApiKey.OFFSET_COMMIT,
    ApiKey.OFFSET_FETCH,
    ApiKey.DESCRIBE_GROUPS,
    ApiKey.DELETE_GROUPS,
}
# The profiles whose values reach furthest once the ids are a member's (kept few: each case
# joins a group first).
MEMBER_PROFILES = {"null", "known", "known-max", "known-min", "max", "long-ids", "mix-1", "mix-2", "mix-3"}
MEMBER_CASES = [c for c in CASES if c.api_key in GROUP_APIS and c.profile in MEMBER_PROFILES]


def _join_fresh_group(eb: ExtremeBroker, group: str) -> tuple[str, int]:
    join = eb.call(
        JoinGroupRequest(
            group_id=group,
            session_timeout_ms=10_000,
            rebalance_timeout_ms=10_000,
            member_id="",
            protocol_type="consumer",
            protocols=[JoinGroupRequest.JoinGroupRequestProtocol(name="range", metadata=b"\x00\x00")],
        ),
        3,
    )
    assert join.error_code == 0
    return join.member_id, join.generation_id


def _aim_at(request: Any, group: str, member: str, generation: int) -> None:
    """Point a generated request at the group and member (its other fields stay extreme)."""
    for attr, value in (
        ("group_id", group),
        ("member_id", member),
        ("generation_id", generation),
        ("generation_id_or_member_epoch", generation),
    ):
        if hasattr(request, attr) and getattr(request, attr) is not None:
            setattr(request, attr, value)
    for m in getattr(request, "members", None) or []:  # LeaveGroup v3+
        m.member_id = member
    for a in getattr(request, "assignments", None) or []:  # SyncGroup: the leader's assignment
        a.member_id = member
    # The group's protocol, so that a rejoin or a v5 SyncGroup gets past the protocol checks.
    if getattr(request, "protocol_type", None) is not None:
        request.protocol_type = "consumer"
    if getattr(request, "protocol_name", None) is not None:
        request.protocol_name = "range"
    if getattr(request, "protocols", None):
        request.protocols[0].name = "range"
    for g in getattr(request, "groups", None) or []:  # OffsetFetch v8
        if hasattr(g, "group_id"):
            g.group_id = group
    if isinstance(getattr(request, "groups", None), list) and request.API_KEY == ApiKey.DESCRIBE_GROUPS:
        request.groups = [group, *request.groups[:2]]
    if isinstance(getattr(request, "groups_names", None), list):
        request.groups_names = [group, *request.groups_names[:2]]


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in MEMBER_CASES])
def test_group_api_answers_extreme_request_of_a_real_member(
    extreme_broker: ExtremeBroker, case: Case
) -> None:
    group = f"member-{case.id}"
    member, generation = _join_fresh_group(extreme_broker, group)
    frame = request_frame(case, patch=lambda r: _aim_at(r, group, member, generation))
    assert frame is not None
    outcome = extreme_broker.run(dispatch(extreme_broker.broker, case, frame))
    check_outcome(case, outcome)


@pytest.mark.parametrize("version", [2, 3, 4])
def test_offset_commit_with_the_largest_retention_time(extreme_broker: ExtremeBroker, version: int) -> None:
    resp = extreme_broker.call(
        OffsetCommitRequest(
            group_id=f"retention-{version}",
            generation_id_or_member_epoch=-1,
            member_id="",
            retention_time_ms=(1 << 63) - 1,
            topics=[
                OffsetCommitRequest.OffsetCommitRequestTopic(
                    name=KNOWN_TOPIC,
                    partitions=[OffsetCommitRequest.OffsetCommitRequestPartition(partition_index=0)],
                )
            ],
        ),
        version,
    )
    assert resp.topics[0].partitions[0].error_code == 0
