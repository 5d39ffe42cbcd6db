"""Consumer groups of the Java client (classic protocol) while their coordinator moves: the
coordinator broker SIGKILLed, __consumer_offsets' leader re-elected. Kafka does not rebalance a
Stable group whose members reach the new coordinator within their session timeout
(GroupMetadataManager.loadGroup + GroupCoordinator.onGroupLoaded), so an eager consumer keeps
its positions and reads nothing twice."""

from __future__ import annotations

import contextlib

import pytest

from tests.cluster.client_cluster import (
    cluster_fixtures,
    coordinator,
    create,
    kill_and_wait,
    live,
    registered,
)
from tests.cluster.group_move_scenarios import (
    Producer,
    commit_all,
    consume,
    duplicates,
    history,
    stable,
)
from tests.cluster.zk_cluster_checks import wait_until
from tests.support.group_driver import GroupDriver

pytestmark = [pytest.mark.integration, pytest.mark.zookeeper]

cluster, brokers = cluster_fixtures("group_moves")

SESSION = "10000"


def driver(c) -> GroupDriver:
    return GroupDriver(",".join(c.address(i) for i in live(c)))


@pytest.mark.parametrize(("assignor", "static"), [("range", True), ("cooperative-sticky", False)])
def test_stable_group_survives_coordinator_kill(brokers, assignor: str, static: bool) -> None:
    """GroupMetadataManager.loadGroup / GroupCoordinator.onGroupLoaded and handleHeartbeat: a
    Stable group keeps its generation and member ids when its coordinator is killed; no
    consumer rebalances and no record is read twice."""
    c = brokers
    tag = f"{assignor.replace('-', '_')}_{'s' if static else 'd'}"
    topic, group = f"t_stable_{tag}", f"g_stable_{tag}"
    create(c, topic, [[0, 1, 2], [1, 2, 0]])
    prod = Producer(c, topic)
    names = ["A", "B"]
    with driver(c) as d:
        for n in names:
            d.start(
                n, group, topic, assignor, f"{n}-{tag}" if static else "", **{"session.timeout.ms": SESSION}
            )
        prod.send(10)
        consume(d, names, prod.sent)
        before = wait_until(lambda: stable(d, names), "a stable group", 60)
        commit_all(d, names)
        prod.send(10)
        consume(d, names, prod.sent)
        co = coordinator(c, group, 0)
        kill_and_wait(c, co)
        new = coordinator(c, group, 0)
        assert new != co
        prod.send(10)
        consume(d, names, prod.sent)
        commit_all(d, names)
        prod.send(5)
        consume(d, names, prod.sent)
        after = stable(d, names)
        h = history(d, names)
        assert after == before, h
        assert not duplicates(d, names), (duplicates(d, names), h)
        for n in names:
            assert d.generations(n)[-1] == before[n], h


def _offsets_leader_preferred(c) -> int:
    from tests.cluster.test_pyclients_groups import preferred_offsets_leader

    return preferred_offsets_leader(c)


def _elect_offsets_preferred(c) -> None:
    from kafka.admin import KafkaAdminClient

    a = KafkaAdminClient(bootstrap_servers=[c.address(i) for i in live(c)], request_timeout_ms=20_000)
    try:
        a.elect_leaders(0, {"__consumer_offsets": [0]})
    finally:
        a.close()


def _start(d, names, group, topic, assignor, static, tag):
    for n in names:
        d.start(n, group, topic, assignor, f"{n}-{tag}" if static else "", **{"session.timeout.ms": SESSION})


@pytest.mark.parametrize(("assignor", "static"), [("range", True)])
def test_coordinator_restarted_and_leadership_moved_back(brokers, assignor: str, static: bool) -> None:
    """GroupCoordinator.onResignation (GroupMetadataManager.removeGroupsForPartition) on the
    interim coordinator and onElection -> loadGroupsAndOffsets on the returned one: the group
    keeps its generation and member ids across both moves; no record is read twice."""
    from tests.cluster.test_pyclients_groups import in_sync_offsets

    c = brokers
    tag = f"{assignor.replace('-', '_')}_{'s' if static else 'd'}"
    topic, group = f"t_back_{tag}", f"g_back_{tag}"
    create(c, topic, [[0, 1, 2], [1, 2, 0]])
    coordinator(c, group, 0)  # __consumer_offsets exists
    first = _offsets_leader_preferred(c)
    prod = Producer(c, topic)
    names = ["A", "B"]
    with driver(c) as d:
        _start(d, names, group, topic, assignor, static, tag)
        prod.send(10)
        consume(d, names, prod.sent)
        before = wait_until(lambda: stable(d, names), "a stable group", 60)
        assert coordinator(c, group, 0) == first
        commit_all(d, names)
        kill_and_wait(c, first)
        assert coordinator(c, group, 0) != first
        prod.send(10)
        consume(d, names, prod.sent)
        commit_all(d, names)
        c.start_broker(first)
        in_sync_offsets(c)
        _elect_offsets_preferred(c)
        wait_until(lambda: coordinator(c, group, 0) == first, "the coordinator back", 40)
        prod.send(10)
        consume(d, names, prod.sent)
        commit_all(d, names)
        prod.send(5)
        consume(d, names, prod.sent)
        h = history(d, names)
        assert stable(d, names) == before, h
        assert not duplicates(d, names), (duplicates(d, names), h)


@pytest.mark.parametrize(("assignor", "static"), [("cooperative-sticky", True)])
def test_coordinator_killed_with_a_commit_in_flight(brokers, assignor: str, static: bool) -> None:
    """GroupMetadataManager.storeOffsets interrupted by the coordinator's death, then
    GroupCoordinator.handleCommitOffsets on the new one: the commit is retried there (or
    fails retriably), the group does not rebalance, nothing is read twice."""
    c = brokers
    tag = f"{assignor.replace('-', '_')}_{'s' if static else 'd'}"
    topic, group = f"t_inflight_{tag}", f"g_inflight_{tag}"
    create(c, topic, [[0, 1, 2], [1, 2, 0]])
    prod = Producer(c, topic)
    names = ["A", "B"]
    with driver(c) as d:
        _start(d, names, group, topic, assignor, static, tag)
        prod.send(10)
        consume(d, names, prod.sent)
        before = wait_until(lambda: stable(d, names), "a stable group", 60)
        commit_all(d, names)
        prod.send(10)
        consume(d, names, prod.sent)
        co = coordinator(c, group, 0)
        for n in names:
            assert d("commit-async", n)["ok"]
        c.kill(co)
        kill_and_wait(c, co)
        prod.send(10)
        consume(d, names, prod.sent)
        commit_all(d, names)
        prod.send(5)
        consume(d, names, prod.sent)
        h = history(d, names)
        assert stable(d, names) == before, h
        assert not duplicates(d, names), (duplicates(d, names), h)


@pytest.mark.parametrize(("assignor", "static"), [("range", False)])
def test_coordinator_stopped_cleanly(brokers, assignor: str, static: bool) -> None:
    """KafkaController controlled shutdown of the coordinator broker: its __consumer_offsets
    leadership moves first (GroupCoordinator.onResignation there, onElection on the new
    leader); the Stable group keeps its generation; nothing is read twice."""
    c = brokers
    tag = f"{assignor.replace('-', '_')}_{'s' if static else 'd'}"
    topic, group = f"t_stop_{tag}", f"g_stop_{tag}"
    create(c, topic, [[0, 1, 2], [1, 2, 0]])
    prod = Producer(c, topic)
    names = ["A", "B"]
    with driver(c) as d:
        _start(d, names, group, topic, assignor, static, tag)
        prod.send(10)
        consume(d, names, prod.sent)
        before = wait_until(lambda: stable(d, names), "a stable group", 60)
        commit_all(d, names)
        prod.send(10)
        consume(d, names, prod.sent)
        co = coordinator(c, group, 0)
        c.stop(co)
        wait_until(lambda: registered(c, len(live(c))), "the stopped broker gone", 40)
        assert coordinator(c, group, 0) != co
        prod.send(10)
        consume(d, names, prod.sent)
        commit_all(d, names)
        prod.send(5)
        consume(d, names, prod.sent)
        h = history(d, names)
        assert stable(d, names) == before, h
        assert not duplicates(d, names), (duplicates(d, names), h)


@pytest.mark.parametrize("assignor", ["range"])
def test_coordinator_killed_while_preparing_rebalance(brokers, assignor: str) -> None:
    """GroupMetadataManager.loadGroup after a kill during PreparingRebalance: the new
    coordinator has the last stored generation (Stable); the members that were rejoining and
    a new member C form the next generation there; every record is read (at least once)."""
    c = brokers
    tag = assignor.replace("-", "_")
    topic, group = f"t_prep_{tag}", f"g_prep_{tag}"
    create(c, topic, [[0, 1, 2], [1, 2, 0]])
    prod = Producer(c, topic)
    names = ["A", "B"]
    with driver(c) as d:
        _start(d, names, group, topic, assignor, False, tag)
        prod.send(10)
        consume(d, names, prod.sent)
        before = wait_until(lambda: stable(d, names), "a stable group", 60)
        commit_all(d, names)
        assert d("pause-polling", "A")["ok"]
        d.start("C", group, topic, assignor, "", **{"session.timeout.ms": SESSION})
        # B sees the rebalance (REBALANCE_IN_PROGRESS on its heartbeat) and rejoins; A does not
        # poll, so the join waits for it.
        wait_until(
            lambda: any(e["t"] in ("revoked", "assigned") for e in (d.drain("B") or d.events["B"])),
            "B in the rebalance",
            30,
        )
        co = coordinator(c, group, 0)
        kill_and_wait(c, co)
        coordinator(c, group, 0)
        assert d("resume-polling", "A")["ok"]
        prod.send(10)
        names3 = ["A", "B", "C"]
        wait_until(lambda: stable(d, names3), "a stable group of three", 60)
        consume(d, names3, prod.sent)
        commit_all(d, names3)
        h = history(d, names3)
        after = stable(d, names3)
        assert after and {m for _, m in after.values()} >= {m for _, m in before.values()}, h


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
    topic, group = f"t_srst_{tag}", f"g_srst_{tag}"
    create(c, topic, [[0, 1, 2], [1, 2, 0]])
    prod = Producer(c, topic)
    names = ["A", "B"]
    with driver(c) as d:
        _start(d, ["A"], group, topic, assignor, True, tag)
        prod.send(5)
        consume(d, ["A"], prod.sent)
        _start(d, ["B"], group, topic, assignor, True, tag)
        before = wait_until(lambda: stable(d, names), "a stable group", 60)
        prod.send(10)
        consume(d, names, prod.sent)
        commit_all(d, names)
        # A started first: it leads the group
        gone, stays = ("A", "B") if leader_restarts else ("B", "A")
        d.drain(stays)
        mark = len(d.events[stays])
        r = d("close", gone)
        assert r["ok"], r
        del d.events[gone]
        co = coordinator(c, group, 0)
        kill_and_wait(c, co)
        coordinator(c, group, 0)
        d.start(gone + "2", group, topic, assignor, f"{gone}-{tag}", **{"session.timeout.ms": SESSION})
        prod.send(10)
        now = [stays, gone + "2"]
        after = wait_until(lambda: stable(d, now), "the restarted member in the group", 60)
        consume(d, now, prod.sent)
        commit_all(d, now)
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
    import threading

    c = brokers
    tag = f"{assignor.replace('-', '_')}_{'s' if static else 'd'}"
    topic, group = f"t_load_{tag}", f"g_load_{tag}"
    create(c, topic, [[0, 1, 2], [1, 2, 0]], **{"min.insync.replicas": "1"})
    prod = Producer(c, topic)
    names = ["A", "B"]
    with driver(c) as d:
        _start(d, names, group, topic, assignor, static, tag)
        prod.send(10)
        consume(d, names, prod.sent)
        before = wait_until(lambda: stable(d, names), "a stable group", 60)
        for n in names:
            assert d("commit-every", n, 200)["ok"]
        stop = threading.Event()

        def produce_loop():
            while not stop.is_set():
                with contextlib.suppress(Exception):
                    prod.send(3)

        t = threading.Thread(target=produce_loop, daemon=True)
        t.start()
        try:
            co1 = coordinator(c, group, 0)
            kill_and_wait(c, co1)
            co2 = coordinator(c, group, 0)
            kill_and_wait(c, co2)
            coordinator(c, group, 0)
        finally:
            stop.set()
            t.join(60)
        prod.send(5)
        consume(d, names, prod.sent, timeout=90)
        for n in names:
            assert d("commit-every", n, 0)["ok"]
        commit_all(d, names)
        h = history(d, names)
        assert stable(d, names) == before, h
        assert not duplicates(d, names), (duplicates(d, names), h)
        fails = [e for n in names for e in d.events[n] if e["t"] == "autocommit" and not e["ok"]]
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
    group does not notice."""
    from tests.cluster.zk_cluster_checks import agreed_metadata

    c = brokers
    tag = f"{assignor.replace('-', '_')}_{'s' if static else 'd'}"
    topic, group = f"t_fkill_{tag}", f"g_fkill_{tag}"
    create(c, topic, [[0, 1, 2], [1, 2, 0]], **{"min.insync.replicas": "1"})
    prod = Producer(c, topic)
    names = ["A", "B"]
    with driver(c) as d:
        _start(d, names, group, topic, assignor, static, tag)
        prod.send(10)
        consume(d, names, prod.sent)
        before = wait_until(lambda: stable(d, names), "a stable group", 60)
        commit_all(d, names)
        co = coordinator(c, group, 0)
        epoch0 = agreed_metadata(c, ["__consumer_offsets"]).topic("__consumer_offsets")[0].leader_epoch
        follower = next(i for i in range(c.n) if i != co)
        kill_and_wait(c, follower)
        wait_until(
            lambda: (
                (v := agreed_metadata(c, ["__consumer_offsets"], live(c))) is not None
                and v.topic("__consumer_offsets")[0].leader_epoch > epoch0
            ),
            "the leader epoch bump",
            20,
        )
        assert coordinator(c, group, 0) == co
        prod.send(10)
        consume(d, names, prod.sent)
        commit_all(d, names)
        h = history(d, names)
        assert stable(d, names) == before, h
        assert not duplicates(d, names), (duplicates(d, names), h)
