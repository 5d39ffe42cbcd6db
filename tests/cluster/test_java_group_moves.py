"""Consumer groups of the Java client (classic protocol) while their coordinator moves: the
coordinator broker SIGKILLed, __consumer_offsets' leader re-elected. Kafka does not rebalance a
Stable group whose members reach the new coordinator within their session timeout
(GroupMetadataManager.loadGroup + GroupCoordinator.onGroupLoaded), so an eager consumer keeps
its positions and reads nothing twice."""

from __future__ import annotations

import contextlib
import threading

import pytest
from kafka.admin import KafkaAdminClient

from tests.cluster.client_cluster import (
    cluster_fixtures,
    in_sync_offsets,
    kill_and_wait,
    live,
    preferred_offsets_leader,
    registered,
)
from tests.cluster.group_move_scenarios import GroupScenario, assert_unchanged, history, stable
from tests.cluster.zk_cluster_checks import agreed_metadata, wait_until

pytestmark = [pytest.mark.integration, pytest.mark.zookeeper]

cluster, brokers = cluster_fixtures("group_moves")


@pytest.mark.parametrize(("assignor", "static"), [("range", True), ("cooperative-sticky", False)])
def test_stable_group_survives_coordinator_kill(brokers, assignor: str, static: bool) -> None:
    """GroupMetadataManager.loadGroup / GroupCoordinator.onGroupLoaded and handleHeartbeat: a
    Stable group keeps its generation and member ids when its coordinator is killed; no
    consumer rebalances and no record is read twice."""
    c = brokers
    with GroupScenario(c, "stable", assignor, static).stable_group() as s:
        s.flow(10)
        co = s.coordinator()
        kill_and_wait(c, co)
        assert s.coordinator() != co
        s.flow(10)
        s.commit()
        s.flow(5)
        assert_unchanged(s, generations=True)


@pytest.mark.parametrize(("assignor", "static"), [("range", True)])
def test_coordinator_restarted_and_leadership_moved_back(brokers, assignor: str, static: bool) -> None:
    """GroupCoordinator.onResignation (GroupMetadataManager.removeGroupsForPartition) on the
    interim coordinator and onElection -> loadGroupsAndOffsets on the returned one: the group
    keeps its generation and member ids across both moves; no record is read twice."""
    c = brokers
    s = GroupScenario(c, "back", assignor, static)
    s.coordinator()  # __consumer_offsets exists
    first = preferred_offsets_leader(c)
    with s.stable_group(commit=False):
        assert s.coordinator() == first
        s.commit()
        kill_and_wait(c, first)
        assert s.coordinator() != first
        s.flow(10)
        s.commit()
        c.start_broker(first)
        in_sync_offsets(c)
        _elect_offsets_preferred(c)
        wait_until(lambda: s.coordinator() == first, "the coordinator back", 40)
        s.flow(10)
        s.commit()
        s.flow(5)
        assert_unchanged(s)


def _elect_offsets_preferred(c) -> None:
    a = KafkaAdminClient(bootstrap_servers=[c.address(i) for i in live(c)], request_timeout_ms=20_000)
    try:
        a.elect_leaders(0, {"__consumer_offsets": [0]})
    finally:
        a.close()


@pytest.mark.parametrize(("assignor", "static"), [("cooperative-sticky", True)])
def test_coordinator_killed_with_a_commit_in_flight(brokers, assignor: str, static: bool) -> None:
    """GroupMetadataManager.storeOffsets interrupted by the coordinator's death, then
    GroupCoordinator.handleCommitOffsets on the new one: the commit is retried there (or
    fails retriably), the group does not rebalance, nothing is read twice."""
    c = brokers
    with GroupScenario(c, "inflight", assignor, static).stable_group() as s:
        s.flow(10)
        co = s.coordinator()
        for n in s.names:
            assert s.d("commit-async", n)["ok"]
        c.kill(co)
        kill_and_wait(c, co)
        s.flow(10)
        s.commit()
        s.flow(5)
        assert_unchanged(s)


@pytest.mark.parametrize(("assignor", "static"), [("range", False)])
def test_coordinator_stopped_cleanly(brokers, assignor: str, static: bool) -> None:
    """KafkaController controlled shutdown of the coordinator broker: its __consumer_offsets
    leadership moves first (GroupCoordinator.onResignation there, onElection on the new
    leader); the Stable group keeps its generation; nothing is read twice."""
    c = brokers
    with GroupScenario(c, "stop", assignor, static).stable_group() as s:
        s.flow(10)
        co = s.coordinator()
        c.stop(co)
        wait_until(lambda: registered(c, len(live(c))), "the stopped broker gone", 40)
        assert s.coordinator() != co
        s.flow(10)
        s.commit()
        s.flow(5)
        assert_unchanged(s)


@pytest.mark.parametrize("assignor", ["range"])
def test_coordinator_killed_while_preparing_rebalance(brokers, assignor: str) -> None:
    """GroupMetadataManager.loadGroup after a kill during PreparingRebalance: the new
    coordinator has the last stored generation (Stable); the members that were rejoining and
    a new member C form the next generation there; every record is read (at least once)."""
    c = brokers
    tag = assignor.replace("-", "_")
    with GroupScenario(c, "prep", assignor, False, tag=tag).stable_group() as s:
        d = s.d
        assert d("pause-polling", "A")["ok"]
        s.start("C")
        # B sees the rebalance (REBALANCE_IN_PROGRESS on its heartbeat) and rejoins; A does not
        # poll, so the join waits for it.
        wait_until(
            lambda: any(e["t"] in ("revoked", "assigned") for e in (d.drain("B") or d.events["B"])),
            "B in the rebalance",
            30,
        )
        kill_and_wait(c, s.coordinator())
        s.coordinator()
        assert d("resume-polling", "A")["ok"]
        s.prod.send(10)
        names3 = ["A", "B", "C"]
        s.wait_stable(names3, "a stable group of three")
        s.read(names3)
        s.commit(names3)
        h = history(d, names3)
        after = stable(d, names3)
        assert after and {m for _, m in after.values()} >= {m for _, m in s.before.values()}, h


@pytest.mark.parametrize("assignor", ["range"])
@pytest.mark.parametrize("leader_restarts", [True], ids=["leader"])
def test_static_member_restarts_across_coordinator_kill(
    brokers, assignor: str, leader_restarts: bool
) -> None:
    """GroupCoordinator.updateStaticMemberAndRebalance on a loaded group (KIP-345): a static
    member that closed (no LeaveGroup) and restarts with its group.instance.id on the new
    coordinator takes its old place without a rebalance; the other member keeps its
    generation and partitions."""
    c = brokers
    tag = f"{assignor.replace('-', '_')}_{'l' if leader_restarts else 'f'}"
    s = GroupScenario(c, "srst", assignor, True, tag=tag)
    with s.driven():
        d = s.d
        s.start("A")
        s.flow(5, ["A"])
        s.start("B")
        before = s.wait_stable()
        s.flow(10)
        s.commit()
        # A started first: it leads the group
        gone, stays = ("A", "B") if leader_restarts else ("B", "A")
        d.drain(stays)
        mark = len(d.events[stays])
        r = d("close", gone)
        assert r["ok"], r
        del d.events[gone]
        kill_and_wait(c, s.coordinator())
        s.coordinator()
        s.start(gone + "2", instance=f"{gone}-{tag}")
        s.prod.send(10)
        now = [stays, gone + "2"]
        after = s.wait_stable(now, "the restarted member in the group")
        s.read(now)
        s.commit(now)
        h = history(d, now)
        assert after[stays] == before[stays], h
        assert after[gone + "2"][0] == before[stays][0], h
        later = [e for e in d.events[stays][mark:] if e["t"] in ("revoked", "assigned", "lost")]
        assert later == [], (later, h)


@pytest.mark.parametrize(("assignor", "static"), [("range", True)])
def test_kills_under_load_with_frequent_commits(brokers, assignor: str, static: bool) -> None:
    """GroupCoordinator.handleCommitOffsets / handleHeartbeat across two coordinator kills in
    quick succession while records flow and each consumer commits its positions every 200 ms
    (commits in flight at the kill): every commit error is retriable, no rebalance, no
    record read twice."""
    c = brokers
    scenario = GroupScenario(c, "load", assignor, static, **{"min.insync.replicas": "1"})
    with scenario.stable_group(commit=False) as s:
        for n in s.names:
            assert s.d("commit-every", n, 200)["ok"]
        stop = threading.Event()

        def produce_loop():
            while not stop.is_set():
                with contextlib.suppress(Exception):
                    s.prod.send(3)

        t = threading.Thread(target=produce_loop, daemon=True)
        t.start()
        try:
            kill_and_wait(c, s.coordinator())
            kill_and_wait(c, s.coordinator())
            s.coordinator()
        finally:
            stop.set()
            t.join(60)
        s.flow(5, timeout=90)
        for n in s.names:
            assert s.d("commit-every", n, 0)["ok"]
        s.commit()
        assert_unchanged(s)
        fails = [e for n in s.names for e in s.d.events[n] if e["t"] == "autocommit" and not e["ok"]]
        assert all(
            e["error"] in ("RetriableCommitFailedException", "TimeoutException")
            or e["error_code"] in ("NOT_COORDINATOR", "COORDINATOR_NOT_AVAILABLE", "REQUEST_TIMED_OUT")
            for e in fails
        ), fails


@pytest.mark.parametrize(("assignor", "static"), [("range", False)])
def test_offsets_follower_killed_leader_epoch_bump(brokers, assignor: str, static: bool) -> None:
    """ReplicaManager.makeLeaders (Partition.makeLeader returns false for a leader that stays)
    and onLeadershipChange: a __consumer_offsets follower killed bumps the partition's leader
    epoch on the coordinator without a reload (GroupCoordinator.onElection is not called); the
    group does not notice. (The controller bumps the epoch when it takes the dead follower out
    of the ISR; a follower the leader already shrank out of it, as a loaded host may make it
    with replica.lag.time.max.ms at 3 s, leaves with no bump: the group must not notice either.)"""
    c = brokers
    scenario = GroupScenario(c, "fkill", assignor, static, **{"min.insync.replicas": "1"})
    with scenario.stable_group() as s:
        co = s.coordinator()

        def offsets_partition():
            v = agreed_metadata(c, ["__consumer_offsets"], live(c))
            return v.topic("__consumer_offsets")[0] if v is not None else None

        before = wait_until(lambda: (p := offsets_partition()) and len(p.isr) == c.n and p, "a full ISR", 40)
        follower = next(i for i in range(c.n) if i != co)
        kill_and_wait(c, follower)
        after = wait_until(
            lambda: (p := offsets_partition()) and follower not in p.isr and p,
            "the follower out of the ISR",
            40,
        )
        assert after.leader == before.leader
        assert s.coordinator() == co
        s.flow(10)
        s.commit()
        assert_unchanged(s)
