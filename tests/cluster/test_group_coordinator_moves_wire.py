"""What a new group coordinator answers, on the wire, to the members of a group it loaded after
its predecessor was SIGKILLed (three ZooKeeper-mode broker processes). Kafka's loaded group
is the last GroupMetadata record's generation, Stable (GroupMetadataManager.loadGroup /
readGroupMessageValue), whatever rebalance was under way on the dead coordinator; its members
heartbeat, commit, sync and rejoin with their old member ids and that generation
(GroupCoordinator.handleHeartbeat / handleCommitOffsets / handleSyncGroup / handleJoinGroup);
before the load: NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS (Heartbeat: NONE, SyncGroup:
REBALANCE_IN_PROGRESS), never UNKNOWN_MEMBER_ID or ILLEGAL_GENERATION."""

from __future__ import annotations

import time

import pytest

from protocol.errors import ErrorCode
from protocol.messages import (
    DescribeGroupsRequest,
    HeartbeatRequest,
    JoinGroupRequest,
    OffsetCommitRequest,
    SyncGroupRequest,
)
from tests.cluster.client_cluster import cluster_fixtures, coordinator, create, kill_and_wait
from tests.integration.test_consumer_groups_support import assignment, subscription
from tests.support.wire_client import WireClient

pytestmark = [pytest.mark.integration, pytest.mark.zookeeper]

E = ErrorCode
cluster, brokers = cluster_fixtures("group_moves_wire")

RETRY = {E.NOT_COORDINATOR.code, E.COORDINATOR_LOAD_IN_PROGRESS.code, E.COORDINATOR_NOT_AVAILABLE.code}
JV, SV, HV, CV = 7, 5, 4, 8


def join_req(group, member_id, topic, extra=()):
    return JoinGroupRequest(
        group_id=group,
        session_timeout_ms=10_000,
        rebalance_timeout_ms=30_000,
        member_id=member_id,
        group_instance_id=None,
        protocol_type="consumer",
        protocols=[
            JoinGroupRequest.JoinGroupRequestProtocol(name="range", metadata=subscription(topic, *extra))
        ],
        reason="test",
    )


def sync_req(group, gen, member, assignments=None):
    return SyncGroupRequest(
        group_id=group,
        generation_id=gen,
        member_id=member,
        protocol_type="consumer",
        protocol_name="range",
        assignments=[
            SyncGroupRequest.SyncGroupRequestAssignment(member_id=m, assignment=a)
            for m, a in (assignments or {}).items()
        ],
    )


def hb_req(group, gen, member):
    return HeartbeatRequest(group_id=group, generation_id=gen, member_id=member)


def commit_req(group, gen, member, topic, offset):
    return OffsetCommitRequest(
        group_id=group,
        generation_id_or_member_epoch=gen,
        member_id=member,
        topics=[
            OffsetCommitRequest.OffsetCommitRequestTopic(
                name=topic,
                partitions=[
                    OffsetCommitRequest.OffsetCommitRequestPartition(
                        partition_index=0,
                        committed_offset=offset,
                        committed_leader_epoch=-1,
                        committed_metadata="",
                    )
                ],
            )
        ],
    )


def first_join(c: WireClient, group, topic):
    r = c.request(join_req(group, "", topic), JV)
    assert r.error_code == E.MEMBER_ID_REQUIRED.code, r
    return r.member_id


def until_answered(c_factory, request, version, error_of, seen: list, timeout: float = 40):
    """Send ``request`` to the (new) coordinator until its answer is not a retriable coordinator
    error, as clients do; every error seen is kept in ``seen``."""
    end = time.monotonic() + timeout
    while True:
        with c_factory() as c:
            r = c.request(request, version)
        seen.append(error_of(r))
        if error_of(r) not in RETRY:
            return r
        assert time.monotonic() < end, seen
        time.sleep(0.05)


@pytest.mark.parametrize("state", ["stable", "preparing", "completing"])
def test_new_coordinator_answers_loaded_members(brokers, state: str) -> None:
    """GroupCoordinator.handleHeartbeat / handleCommitOffsets / handleSyncGroup /
    handleJoinGroup on the coordinator that loaded the group (GroupMetadataManager.loadGroup):
    the members of the last stored generation carry on with it, without a rebalance."""
    c = brokers
    topic, group = f"t_wire_{state}", f"g_wire_{state}"
    create(c, topic, [[0, 1, 2]])
    co = coordinator(c, group, 0)
    a1, a2 = assignment(topic, [0]), assignment(topic, [])
    with WireClient("127.0.0.1", c.port(co)) as c1, WireClient("127.0.0.1", c.port(co)) as c2:
        m1 = first_join(c1, group, topic)
        r = c1.request(join_req(group, m1, topic), JV)
        assert (r.error_code, r.generation_id, r.leader) == (0, 1, m1), r
        assert c1.request(sync_req(group, 1, m1, {m1: a1}), SV).error_code == 0
        m2 = first_join(c2, group, topic)
        c2.send(join_req(group, m2, topic), JV)  # parks: M1 must rejoin
        r1 = c1.request(join_req(group, m1, topic), JV)
        _, r2 = c2.recv(11, JV)
        assert r1.error_code == r2.error_code == 0 and r1.generation_id == r2.generation_id == 2, (r1, r2)
        assert c1.request(sync_req(group, 2, m1, {m1: a1, m2: a2}), SV).error_code == 0
        assert c2.request(sync_req(group, 2, m2), SV).assignment == a2
        assert c1.request(commit_req(group, 2, m1, topic, 5), CV).topics[0].partitions[0].error_code == 0
        if state in ("preparing", "completing"):
            # M2 changes its subscription: PreparingRebalance until M1 rejoins
            c2.send(join_req(group, m2, topic, extra=("other",)), JV)
            end = time.monotonic() + 10
            while (
                c1.request(DescribeGroupsRequest(groups=[group]), 5).groups[0].group_state
                != "PreparingRebalance"
            ):
                assert time.monotonic() < end
                time.sleep(0.02)
            assert c1.request(hb_req(group, 2, m1), HV).error_code == E.REBALANCE_IN_PROGRESS.code
            if state == "completing":
                r1 = c1.request(join_req(group, m1, topic), JV)
                _, r2 = c2.recv(11, JV)
                assert r1.generation_id == r2.generation_id == 3, (r1, r2)
                # no SyncGroup from the leader: CompletingRebalance
        d = c1.request(DescribeGroupsRequest(groups=[group]), 5).groups[0]
        expected = {
            "stable": "Stable",
            "preparing": "PreparingRebalance",
            "completing": "CompletingRebalance",
        }
        assert d.group_state == expected[state], d
    kill_and_wait(c, co)
    new = coordinator(c, group, 0)
    assert new != co

    def conn():
        return WireClient("127.0.0.1", c.port(coordinator(c, group, 0)))

    seen: dict[str, list] = {"hb1": [], "commit": [], "sync": [], "join": [], "hb2": []}
    r = until_answered(conn, hb_req(group, 2, m1), HV, lambda r: r.error_code, seen["hb1"])
    # A blind NONE during the load is Kafka's too; the answer after it must be NONE as well.
    r = until_answered(
        conn,
        commit_req(group, 2, m2, topic, 7),
        CV,
        lambda r: r.topics[0].partitions[0].error_code,
        seen["commit"],
    )
    assert r.topics[0].partitions[0].error_code == 0, seen
    r = until_answered(conn, sync_req(group, 2, m2), SV, lambda r: r.error_code, seen["sync"])
    assert (r.error_code, r.assignment) == (0, a2), (r, seen)
    r = until_answered(conn, join_req(group, m2, topic), JV, lambda r: r.error_code, seen["join"])
    assert (r.error_code, r.generation_id, r.leader) == (0, 2, m1), (r, seen)
    r = until_answered(conn, hb_req(group, 2, m1), HV, lambda r: r.error_code, seen["hb2"])
    assert r.error_code == 0, seen
    bad = {E.UNKNOWN_MEMBER_ID.code, E.ILLEGAL_GENERATION.code}
    assert not any(e in bad for errs in seen.values() for e in errs), seen
    with conn() as w:
        d = w.request(DescribeGroupsRequest(groups=[group]), 5).groups[0]
    assert d.group_state == "Stable" and sorted(m.member_id for m in d.members) == sorted([m1, m2]), d


@pytest.mark.parametrize("version", [8, 9])
def test_member_commit_for_a_group_the_coordinator_does_not_have(brokers, version: int) -> None:
    """GroupCoordinator.handleCommitOffsets (Kafka 3.9's classic coordinator, the one a
    ZooKeeper-mode broker runs, through GroupCoordinatorAdapter.commitOffsets for every
    OffsetCommit version): a commit with a generation >= 0 for a group the coordinator does
    not have answers ILLEGAL_GENERATION ("a request coming from an older generation"), which
    the Java consumer handles by resetting its generation and rejoining (CommitFailedException);
    GROUP_ID_NOT_FOUND is not an answer a classic OffsetCommit gets from Kafka 3.9, and the
    Java consumer fails the commit with a fatal KafkaException("Unexpected error in commit")."""
    c = brokers
    topic, group = f"t_wire_nogroup_v{version}", f"g_wire_nogroup_v{version}"
    create(c, topic, [[0, 1, 2]])
    co = coordinator(c, group, 0)
    with WireClient("127.0.0.1", c.port(co)) as w:
        r = w.request(commit_req(group, 4, "consumer-1-0b5e", topic, 10), version)
    assert r.topics[0].partitions[0].error_code == E.ILLEGAL_GENERATION.code, r


def test_answers_of_the_next_coordinator_through_the_move(brokers) -> None:
    """GroupCoordinator.validateGroupStatus / handleHeartbeat / handleSyncGroup on the broker
    that becomes the coordinator, asked without pause from before the kill until after its
    load: NOT_COORDINATOR, then (while loading) Heartbeat NONE, OffsetCommit and JoinGroup
    COORDINATOR_LOAD_IN_PROGRESS, SyncGroup REBALANCE_IN_PROGRESS, then the loaded group's
    answers; never UNKNOWN_MEMBER_ID or ILLEGAL_GENERATION for its members."""
    import threading

    from tests.cluster.zk_cluster_checks import agreed_metadata

    c = brokers
    topic, group = "t_wire_through", "g_wire_through"
    create(c, topic, [[0, 1, 2]])
    co = coordinator(c, group, 0)
    a1 = assignment(topic, [0])
    with WireClient("127.0.0.1", c.port(co)) as c1:
        m1 = first_join(c1, group, topic)
        r = c1.request(join_req(group, m1, topic), JV)
        assert r.generation_id == 1
        assert c1.request(sync_req(group, 1, m1, {m1: a1}), SV).error_code == 0
    v = agreed_metadata(c, ["__consumer_offsets"]).topic("__consumer_offsets")[0]
    nxt = next(b for b in v.replicas if b != co and b in v.isr)
    seen: list[tuple[str, int]] = []
    stop = threading.Event()

    def hammer():
        reqs = [
            ("hb", hb_req(group, 1, m1), HV, lambda r: r.error_code),
            (
                "commit",
                commit_req(group, 1, m1, topic, 3),
                CV,
                lambda r: r.topics[0].partitions[0].error_code,
            ),
            ("sync", sync_req(group, 1, m1), SV, lambda r: r.error_code),
            ("join", join_req(group, m1, topic), JV, lambda r: r.error_code),
        ]
        with WireClient("127.0.0.1", c.port(nxt)) as w:
            while not stop.is_set():
                for name, req, ver, err in reqs:
                    if name == "join":
                        continue  # the leader's JoinGroup would start a rebalance (as in Kafka)
                    e = err(w.request(req, ver))
                    if not seen or seen[-1] != (name, e):
                        seen.append((name, e))

    t = threading.Thread(target=hammer, daemon=True)
    t.start()
    kill_and_wait(c, co)
    assert coordinator(c, group, 0) == nxt
    wait_until_ok = time.monotonic() + 30
    while not all((n, 0) in seen[-4:] for n in ("hb", "commit", "sync")):
        assert time.monotonic() < wait_until_ok, seen
        time.sleep(0.1)
    stop.set()
    t.join(10)
    bad = {E.UNKNOWN_MEMBER_ID.code, E.ILLEGAL_GENERATION.code}
    assert not [s for s in seen if s[1] in bad], seen
