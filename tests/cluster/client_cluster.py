"""Helpers of the real-client cluster tests (tests/cluster/test_pyclients_*.py with aiokafka and
kafka-python, test_kafkajs_failures.py with KafkaJS: three broker processes on a real
ZooKeeper, killed with SIGKILL), built on
tests.cluster.zk_cluster_checks and failure_scenarios (every replica's log read back with
kafka-python's record parser)."""

from __future__ import annotations

import asyncio
import inspect
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import pytest
from kafka.admin import KafkaAdminClient, NewTopic

from protocol.messages import FindCoordinatorRequest
from tests.cluster.failure_scenarios import replica_records
from tests.cluster.zk_cluster_checks import agreed_metadata, restore_brokers, start_cluster, wait_until
from tests.support.wire_client import WireClient

OVERRIDES = {
    "offsets.topic.num.partitions": "1",
    "transaction.state.log.num.partitions": "1",
    "replica.lag.time.max.ms": "3000",
    "replica.fetch.backoff.ms": "200",
    "auto.leader.rebalance.enable": "false",
    "auto.create.topics.enable": "false",
    "transaction.abort.timed.out.transaction.cleanup.interval.ms": "500",
}


def make_cluster(zk: Any, tmp_path_factory: Any, prefix: str):
    return start_cluster(
        zk, f"/{prefix}_{uuid.uuid4().hex[:8]}", tmp_path_factory.mktemp(prefix), **OVERRIDES
    )


def cluster_fixtures(prefix: str, *, requires: Callable[[], None] | None = None) -> tuple[Any, Any]:
    """A module's cluster fixture (``make_cluster`` once per module; ``requires`` first, e.g. a
    client's availability check) and a per-test one giving the cluster with every broker
    running before and after the test. Assign them to the names the tests ask for:
    ``cluster, live = cluster_fixtures("grp")``."""

    @pytest.fixture(scope="module")
    def cluster(zookeeper_shared: Any, tmp_path_factory: pytest.TempPathFactory):
        if requires is not None:
            requires()
        c = make_cluster(zookeeper_shared, tmp_path_factory, prefix)
        try:
            yield c
        finally:
            c.close()

    @pytest.fixture
    def live(cluster):
        restore_brokers(cluster)
        yield cluster
        restore_brokers(cluster)

    return cluster, live


def live(c) -> list[int]:
    return [i for i in range(c.n) if c.alive(i)]


def registered(c, n: int) -> bool:
    v = agreed_metadata(c, None, live(c))
    return v is not None and len(v.brokers) == n and v.controller in live(c)


def kill_and_wait(c, i: int) -> None:
    """SIGKILL broker i and wait until its ZooKeeper session is gone and the rest agree."""
    c.kill(i)
    wait_until(lambda: registered(c, len(live(c))), f"broker {i} gone from every live broker's view", 40)


def create(cluster, topic: str, assignment: list[list[int]], **configs: str) -> None:
    admin = KafkaAdminClient(bootstrap_servers=cluster.bootstrap, request_timeout_ms=30_000)
    try:
        admin.create_topics(
            [
                NewTopic(
                    topic,
                    replica_assignments={p: r for p, r in enumerate(assignment)},
                    topic_configs={"min.insync.replicas": "2", **configs},
                )
            ]
        )
    finally:
        admin.close()
    in_sync(cluster, topic, assignment)


def in_sync(cluster, topic: str, assignment: list[list[int]], timeout: float = 40) -> None:
    def ok() -> bool:
        v = agreed_metadata(cluster, [topic])
        if v is None:
            return False
        parts = v.topic(topic)
        return len(parts) == len(assignment) and all(
            parts[p].leader >= 0 and sorted(parts[p].isr) == sorted(r) for p, r in enumerate(assignment)
        )

    wait_until(ok, f"{topic} with every replica in sync", timeout)


def leader(cluster, topic: str, partition: int = 0, not_: int | None = None) -> int:
    def look() -> int | None:
        v = agreed_metadata(cluster, [topic])
        if v is None:
            return None
        p = v.topic(topic).get(partition)
        if p is None or p.leader < 0 or p.leader == not_ or not cluster.alive(p.leader):
            return None
        return p.leader + 1

    return wait_until(look, f"a live leader of {topic}-{partition}", 40) - 1


def coordinator(cluster, key: str, key_type: int) -> int:
    def look() -> int | None:
        for i in range(cluster.n):
            if not cluster.alive(i):
                continue
            try:
                with WireClient("127.0.0.1", cluster.port(i), timeout=5) as c:
                    r = c.request(FindCoordinatorRequest(key=key, key_type=key_type), 2)
            except (OSError, ConnectionError):
                continue
            if r.error_code == 0:
                return r.node_id + 1
        return None

    return wait_until(look, f"the coordinator of {key}", 40) - 1


def replicas_converged(cluster, topic: str, partitions: int) -> dict[tuple[int, int], list]:
    def same():
        out = {}
        for p in range(partitions):
            logs = [replica_records(cluster.log_dir(i), topic, p) for i in range(cluster.n)]
            if any(log != logs[0] for log in logs):
                return None
            out.update({(i, p): logs[i] for i in range(cluster.n)})
        return out

    return wait_until(same, f"the replicas of {topic} identical", 40)


def check_acked(cluster, topic: str, acked: dict[str, int]) -> None:
    """Every acknowledged value once in every replica, at its acknowledged offset, in order."""
    in_sync(cluster, topic, [sorted(range(cluster.n))])
    logs = replicas_converged(cluster, topic, 1)
    for i in range(cluster.n):
        values = [v.decode() for _, _, v in logs[(i, 0)]]
        dups = [v for v, c in Counter(values).items() if c > 1]
        assert not dups, f"replica {i}: duplicates {dups[:5]}"
        at = {v.decode(): o for o, _, v in logs[(i, 0)]}
        wrong = {v: (o, at.get(v)) for v, o in acked.items() if at.get(v) != o}
        assert not wrong, f"replica {i}: acked (offset, found at) {list(wrong.items())[:5]}"
        assert values == sorted(values), f"replica {i} out of order"


def in_sync_offsets(cluster) -> None:
    """__consumer_offsets-0 with all three replicas in sync again."""

    def ok():
        v = agreed_metadata(cluster, ["__consumer_offsets"])
        return v is not None and len(v.topic("__consumer_offsets")[0].isr) == 3

    wait_until(ok, "__consumer_offsets-0 fully in sync", 40)


def preferred_offsets_leader(cluster) -> int:
    """__consumer_offsets-0 fully in sync and led by its preferred replica (a preferred
    election if it is not); that replica's id."""
    in_sync_offsets(cluster)
    view = agreed_metadata(cluster, ["__consumer_offsets"])
    preferred = view.topic("__consumer_offsets")[0].replicas[0]
    a = KafkaAdminClient(bootstrap_servers=cluster.bootstrap, request_timeout_ms=20_000)
    try:
        a.elect_leaders(0, {"__consumer_offsets": [0]})  # ELECTION_NOT_NEEDED when it leads
    finally:
        a.close()
    return preferred


GETMANY_GRACE_S = 30.0  # past its own timeout, a getmany that does not return is a hang


async def poll_until(
    consumers: Iterable[Any],
    until: Callable[[], bool | Awaitable[bool]],
    collect: Callable[[int, list], None],
    *,
    timeout: float | None = None,
    poll_ms: int = 100,
    detail: Callable[[], Any] | None = None,
) -> bool:
    """Poll aiokafka ``consumers`` in turn (``getmany(timeout_ms=poll_ms)``), handing each
    partition's records to ``collect(partition, records)``, until ``until()`` (a bool, or an
    awaitable of one) holds: True. Past ``timeout`` seconds (None: no limit) False, or, given
    ``detail``, an AssertionError carrying ``detail()``."""
    loop = asyncio.get_running_loop()
    deadline = None if timeout is None else loop.time() + timeout
    while True:
        done = until()
        if inspect.isawaitable(done):
            done = await done
        if done:
            return True
        if deadline is not None and loop.time() >= deadline:
            if detail is not None:
                raise AssertionError(detail())
            return False
        for c in consumers:
            try:
                batches = await asyncio.wait_for(
                    c.getmany(timeout_ms=poll_ms), poll_ms / 1000 + GETMANY_GRACE_S
                )
            except TimeoutError:
                raise AssertionError(
                    f"getmany(timeout_ms={poll_ms}) did not return in {GETMANY_GRACE_S} s more"
                    + (f": {detail()!r}" if detail is not None else "")
                ) from None
            for tp, msgs in batches.items():
                collect(tp.partition, msgs)
