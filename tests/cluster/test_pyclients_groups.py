"""Consumer groups of two aiokafka / kafka-python consumers against a 3-process ZooKeeper-mode
cluster, across a SIGKILL of a partition leader and of the group coordinator."""

from __future__ import annotations

import asyncio
import threading
import uuid
from typing import Any

import pytest
from kafka import KafkaProducer, TopicPartition
from kafka.admin import KafkaAdminClient

from tests.cluster.client_cluster import (
    cluster_fixtures,
    coordinator,
    create,
    in_sync_offsets,
    leader,
    poll_until,
    preferred_offsets_leader,
)
from tests.cluster.zk_cluster_checks import wait_until

pytestmark = [pytest.mark.integration, pytest.mark.zookeeper]


cluster, live = cluster_fixtures("rvgrp")


class Load:
    def __init__(self, cluster, topic):
        self.cluster, self.topic, self.produced = cluster, topic, 0

    def produce(self, n: int) -> None:
        p = KafkaProducer(
            bootstrap_servers=self.cluster.bootstrap, acks="all", retries=50, retry_backoff_ms=200
        )
        fs = []
        for j in range(n):
            k = self.produced + j
            fs.append(p.send(self.topic, value=f"m{k:05d}".encode(), partition=k % 2))
        for f in fs:
            f.get(60)
        p.close(5)
        self.produced += n

    def ends(self) -> dict[int, int]:
        return {p: (self.produced + 1 - p) // 2 for p in (0, 1)}

    def assert_read(self, seen: dict[int, set[int]]) -> None:
        """Every record produced is among the offsets ``seen`` of its partition, and nothing else."""
        for p, end in self.ends().items():
            assert seen[p] == set(range(end)), (
                f"partition {p}: missing {sorted(set(range(end)) - seen[p])[:10]}"
            )


def member_config(cluster, group: str, interval_ms: int) -> dict[str, Any]:
    """An auto-committing group member's settings (aiokafka and kafka-python alike): commits
    and heartbeats every ``interval_ms``, a 10 s session, starting at the log end when the
    group has no committed offset."""
    return {
        "bootstrap_servers": cluster.bootstrap,
        "group_id": group,
        "auto_offset_reset": "latest",
        "enable_auto_commit": True,
        "auto_commit_interval_ms": interval_ms,
        "session_timeout_ms": 10_000,
        "heartbeat_interval_ms": interval_ms,
        "request_timeout_ms": 15_000,
        "retry_backoff_ms": 200,
    }


def collect_offsets(seen: dict[int, set[int]]):
    """A ``poll_until`` collector: each record's offset into ``seen`` by partition."""
    return lambda p, msgs: seen[p].update(m.offset for m in msgs)


def committed(cluster, group: str, topic: str) -> dict[int, int]:
    a = KafkaAdminClient(bootstrap_servers=cluster.bootstrap, request_timeout_ms=20_000)
    try:
        r = a.list_group_offsets(group)[group]
    except Exception:
        return {}
    finally:
        a.close()
    return {tp.partition: om.offset for tp, om in r.items() if tp.topic == topic}


def describe(cluster, group):
    a = KafkaAdminClient(bootstrap_servers=cluster.bootstrap, request_timeout_ms=20_000)
    try:
        return a.describe_groups([group])
    except Exception as e:
        return e
    finally:
        a.close()


def precommit(cluster, group: str, topic: str) -> None:
    """Commit offset 0 for both partitions, so that the consumers (auto_offset_reset='latest')
    start from committed offsets and only an OFFSET_OUT_OF_RANGE answer would make them jump."""
    from kafka import KafkaConsumer
    from kafka.structs import OffsetAndMetadata

    k = KafkaConsumer(bootstrap_servers=cluster.bootstrap, group_id=group, enable_auto_commit=False)
    k.commit({TopicPartition(topic, p): OffsetAndMetadata(0, "", -1) for p in (0, 1)})
    k.close(autocommit=False)


def scenario(cluster, topic, group, seen_count, assignments, internals=lambda: None):
    """The shared fault sequence; ``seen_count()`` is how many distinct records were read."""
    load = Load(cluster, topic)
    load.produce(100)
    wait_until(lambda: seen_count() >= 100, "the first 100 records", 40)
    victim = leader(cluster, topic, 0)
    cluster.kill(victim)
    leader(cluster, topic, 0, not_=victim)
    load.produce(50)
    wait_until(lambda: seen_count() >= 150, "records after the leader failover", 40)
    cluster.start_broker(victim)
    coord = coordinator(cluster, group, 0)
    cluster.kill(coord)
    load.produce(50)
    wait_until(lambda: seen_count() >= 200, "records after the coordinator failover", 45)
    cluster.start_broker(coord)
    wait_until(
        lambda: committed(cluster, group, topic) == load.ends(), "commits at the log end", 30, step=0.5
    )
    wait_until(
        lambda: sorted(p for a in assignments() for p in a) == [0, 1] and all(assignments()),
        "both partitions assigned, one to each consumer",
        30,
        detail=lambda: (assignments(), describe(cluster, group), internals()),
    )
    return load


def test_aiokafka_group_across_leader_and_coordinator_sigkill(live):
    """Two aiokafka consumers of one group (auto commit) while a partition leader and then the
    group coordinator are SIGKILLed: no record skipped, the committed offsets reach the log end
    on the new coordinator, the group is rebalanced (Kafka: GroupCoordinator.onElection ->
    GroupMetadataManager.loadGroupsAndOffsets, handleJoinGroup / handleSyncGroup)."""
    from aiokafka import AIOKafkaConsumer

    cluster = live
    topic = f"aio-grp-{uuid.uuid4().hex[:6]}"
    group = f"g-{uuid.uuid4().hex[:6]}"
    create(cluster, topic, [[0, 1, 2], [1, 2, 0]])
    precommit(cluster, group, topic)
    seen: dict[int, set[int]] = {0: set(), 1: set()}
    consumers: list[Any] = []
    stop = threading.Event()
    errors: list[BaseException] = []

    async def consume():
        for _ in range(2):
            c = AIOKafkaConsumer(topic, **member_config(cluster, group, 500))
            await c.start()
            consumers.append(c)
        try:
            await poll_until(consumers, stop.is_set, collect_offsets(seen))
        finally:
            for c in consumers:
                await c.stop()

    def runner():
        try:
            asyncio.run(consume())
        except BaseException as e:
            errors.append(e)

    t = threading.Thread(target=runner, daemon=True)
    t.start()
    try:
        load = scenario(
            cluster,
            topic,
            group,
            lambda: len(seen[0]) + len(seen[1]),
            lambda: [{tp.partition for tp in c.assignment()} for c in list(consumers)],
        )
    finally:
        stop.set()
        t.join(30)
    assert not errors, errors
    load.assert_read(seen)


def test_kafka_python_group_across_leader_and_coordinator_sigkill(live):
    """Two kafka-python KafkaConsumers of one group (auto commit) while a partition leader and
    then the group coordinator are SIGKILLed: no record skipped, committed offsets reach the
    log end on the new coordinator, the group is rebalanced (Kafka: GroupCoordinator,
    GroupMetadataManager.loadGroupsAndOffsets)."""
    from kafka import KafkaConsumer

    cluster = live
    topic = f"kp-grp-{uuid.uuid4().hex[:6]}"
    group = f"g-{uuid.uuid4().hex[:6]}"
    create(cluster, topic, [[0, 1, 2], [1, 2, 0]])
    precommit(cluster, group, topic)
    seen: dict[int, set[int]] = {0: set(), 1: set()}
    lock = threading.Lock()
    consumers: list[Any] = []
    stop = threading.Event()
    errors: list[BaseException] = []

    def consume():
        c = KafkaConsumer(topic, **member_config(cluster, group, 500))
        consumers.append(c)
        try:
            while not stop.is_set():
                for tp, msgs in c.poll(timeout_ms=1000).items():
                    with lock:
                        for m in msgs:
                            seen[tp.partition].add(m.offset)
        except BaseException as e:
            errors.append(e)
        finally:
            c.close()

    threads = [threading.Thread(target=consume, daemon=True) for _ in range(2)]
    for t in threads:
        t.start()
    try:
        load = scenario(
            cluster,
            topic,
            group,
            lambda: len(seen[0]) + len(seen[1]),
            lambda: [{tp.partition for tp in c.assignment()} for c in list(consumers)],
            lambda: [
                (
                    c._coordinator.coordinator_id,
                    c._coordinator.state,
                    c._coordinator._generation,
                    getattr(c._coordinator, "_heartbeat_thread", None),
                )
                for c in consumers
            ],
        )
    finally:
        stop.set()
        for t in threads:
            t.join(30)
    assert not errors, errors
    load.assert_read(seen)


def test_acknowledged_commits_survive_coordinator_sigkill_repeatedly(live):
    """Commits acknowledged by the group coordinator (aiokafka commit() and kafka-python
    commit() returning) survive a SIGKILL of the coordinator right after: the new coordinator
    answers OffsetFetch with exactly the acknowledged offsets, three kills in a row (Kafka:
    GroupMetadataManager.storeOffsets with offsets.commit.required.acks=-1, then
    loadGroupsAndOffsets on the new leader of __consumer_offsets)."""
    from aiokafka import AIOKafkaConsumer
    from aiokafka.structs import TopicPartition as ATP
    from kafka import KafkaConsumer

    cluster = live
    topic = f"commit-{uuid.uuid4().hex[:6]}"
    create(cluster, topic, [[0, 1, 2], [1, 2, 0]])
    Load(cluster, topic).produce(200)
    group_a = f"ga-{uuid.uuid4().hex[:6]}"
    group_k = f"gk-{uuid.uuid4().hex[:6]}"
    for round_ in range(3):
        want = {0: 10 * (round_ + 1), 1: 7 * (round_ + 1)}

        async def aio_commit(want=want):
            c = AIOKafkaConsumer(
                bootstrap_servers=cluster.bootstrap,
                group_id=group_a,
                enable_auto_commit=False,
                request_timeout_ms=20_000,
                retry_backoff_ms=200,
            )
            await c.start()
            try:
                c.assign([ATP(topic, 0), ATP(topic, 1)])
                await c.commit({ATP(topic, p): o for p, o in want.items()})
            finally:
                await c.stop()

        asyncio.run(aio_commit())
        k = KafkaConsumer(
            bootstrap_servers=cluster.bootstrap,
            group_id=group_k,
            enable_auto_commit=False,
            request_timeout_ms=20_000,
            retry_backoff_ms=200,
        )
        from kafka.structs import OffsetAndMetadata

        k.commit({TopicPartition(topic, p): OffsetAndMetadata(o, "", -1) for p, o in want.items()})
        k.close(autocommit=False)
        ca, ck = coordinator(cluster, group_a, 0), coordinator(cluster, group_k, 0)
        assert ca == ck  # one __consumer_offsets partition
        cluster.kill(ca)
        wait_until(
            lambda want=want: (
                committed(cluster, group_a, topic) == want and committed(cluster, group_k, topic) == want
            ),
            f"round {round_}: acknowledged commits on the new coordinator",
            40,
            step=0.5,
            detail=lambda: (committed(cluster, group_a, topic), committed(cluster, group_k, topic)),
        )
        cluster.start_broker(ca)


def test_aiokafka_rebalance_interrupted_by_coordinator_sigkill(live):
    """A second aiokafka consumer joins a group of one and the group coordinator is SIGKILLed
    while that rebalance is under way: on the new coordinator the group completes a rebalance
    with one partition per consumer, and consumption resumes from the committed offsets
    (Kafka: GroupMetadataManager.loadGroupsAndOffsets restores the last stable generation,
    GroupCoordinator.handleJoinGroup / handleSyncGroup on the new coordinator)."""
    from aiokafka import AIOKafkaConsumer

    cluster = live
    topic = f"aio-rb-{uuid.uuid4().hex[:6]}"
    group = f"g-{uuid.uuid4().hex[:6]}"
    create(cluster, topic, [[0, 1, 2], [1, 2, 0]])
    precommit(cluster, group, topic)
    load = Load(cluster, topic)
    load.produce(40)
    seen: dict[int, set[int]] = {0: set(), 1: set()}
    info: dict[str, Any] = {}

    def make():
        return AIOKafkaConsumer(topic, **member_config(cluster, group, 300))

    async def drain(cs, until, timeout):
        await poll_until(
            cs,
            until,
            collect_offsets(seen),
            timeout=timeout,
            detail=lambda: (info, [c.assignment() for c in cs], {p: len(s) for p, s in seen.items()}),
        )

    async def main():
        a = make()
        await a.start()
        cs = [a]
        try:
            await drain(cs, lambda: sum(map(len, seen.values())) >= 40, 30)
            coord = await asyncio.to_thread(coordinator, cluster, group, 0)
            b = make()
            start_b = asyncio.ensure_future(b.start())
            cs.append(b)
            await asyncio.sleep(0.3)
            cluster.kill(coord)
            info["coord"] = coord
            await asyncio.wait_for(start_b, 60)  # bounded: a hang fails with the brokers' logs
            await asyncio.to_thread(load.produce, 40)
            await drain(
                cs,
                lambda: (
                    sum(map(len, seen.values())) >= 80
                    and sorted(p for c in cs for p in (tp.partition for tp in c.assignment())) == [0, 1]
                    and all(c.assignment() for c in cs)
                ),
                45,
            )
        finally:
            for c in cs:
                await asyncio.wait_for(c.stop(), 30)

    try:
        asyncio.run(main())
    finally:
        if "coord" in info and not cluster.alive(info["coord"]):
            cluster.start_broker(info["coord"])
    load.assert_read(seen)


def test_coordinator_moves_back_by_preferred_election_while_group_is_active(live):
    """An aiokafka group's coordinator is SIGKILLed and restarted, then a preferred leader
    election (kafka-python elect_leaders) moves __consumer_offsets-0 back to it: the interim
    coordinator unloads the group (kafka-python list_groups, which asks every broker, lists it
    once), the consumers follow the move, their commits continue on the returned coordinator
    and no record is skipped (Kafka: GroupCoordinator.onResignation ->
    GroupMetadataManager.removeGroupsForPartition, onElection -> loadGroupsAndOffsets)."""
    from aiokafka import AIOKafkaConsumer
    from kafka.admin import KafkaAdminClient as Admin

    cluster = live
    topic = f"aio-back-{uuid.uuid4().hex[:6]}"
    group = f"g-{uuid.uuid4().hex[:6]}"
    create(cluster, topic, [[0, 1, 2], [1, 2, 0]])
    precommit(cluster, group, topic)
    load = Load(cluster, topic)
    seen: dict[int, set[int]] = {0: set(), 1: set()}
    info: dict[str, Any] = {}

    async def drain(cs, until, timeout, what):
        await poll_until(
            cs,
            until,
            collect_offsets(seen),
            timeout=timeout,
            detail=lambda: (what, info, {p: len(s) for p, s in seen.items()}),
        )

    def listed_groups():
        a = Admin(bootstrap_servers=cluster.bootstrap, request_timeout_ms=20_000)
        try:
            return [g["group_id"] for g in a.list_groups()]
        finally:
            a.close()

    async def main():
        cs = [AIOKafkaConsumer(topic, **member_config(cluster, group, 300)) for _ in range(2)]
        for c in cs:
            await c.start()
        try:
            await asyncio.to_thread(load.produce, 40)
            await drain(cs, lambda: sum(map(len, seen.values())) >= 40, 30, "first 40")
            # The module's cluster is shared: an earlier test's kills may have left
            # __consumer_offsets-0 away from its preferred replica, the one the election
            # below moves it back to. Start from there.
            coord = await asyncio.to_thread(preferred_offsets_leader, cluster)
            await asyncio.to_thread(
                wait_until, lambda: coordinator(cluster, group, 0) == coord, "the preferred coordinator", 30
            )
            info["first"] = coord
            cluster.kill(coord)
            await asyncio.to_thread(load.produce, 40)
            await drain(cs, lambda: sum(map(len, seen.values())) >= 80, 40, "after kill")
            await asyncio.to_thread(cluster.start_broker, coord)
            await asyncio.to_thread(in_sync_offsets, cluster)
            a = Admin(bootstrap_servers=cluster.bootstrap, request_timeout_ms=20_000)
            try:
                info["elect"] = await asyncio.to_thread(a.elect_leaders, 0, {"__consumer_offsets": [0]})
            finally:
                a.close()
            await asyncio.to_thread(
                wait_until, lambda: coordinator(cluster, group, 0) == coord, "the coordinator back", 30
            )
            await asyncio.to_thread(load.produce, 40)
            await drain(cs, lambda: sum(map(len, seen.values())) >= 120, 40, "after move back")
            info["listed"] = await asyncio.to_thread(listed_groups)
            await asyncio.to_thread(
                wait_until,
                lambda: committed(cluster, group, topic) == load.ends(),
                "commits at the log end on the returned coordinator",
                30,
                0.5,
            )
        finally:
            for c in cs:
                await c.stop()

    asyncio.run(main())
    assert info["listed"].count(group) == 1, info
    load.assert_read(seen)


def test_committed_metadata_and_leader_epoch_survive_coordinator_sigkill(live):
    """kafka-python commits offsets with metadata and a leader epoch; after a SIGKILL of the
    group coordinator the new one answers OffsetFetch with the same offset, metadata and
    committed leader epoch (Kafka: OffsetCommitValue v3 written by
    GroupMetadataManager.offsetCommitValue, read back by loadGroupsAndOffsets)."""
    from kafka import KafkaConsumer
    from kafka.structs import OffsetAndMetadata

    cluster = live
    topic = f"kp-epoch-{uuid.uuid4().hex[:6]}"
    group = f"g-{uuid.uuid4().hex[:6]}"
    create(cluster, topic, [[0, 1, 2], [1, 2, 0]])
    k = KafkaConsumer(bootstrap_servers=cluster.bootstrap, group_id=group, enable_auto_commit=False)
    want = {
        TopicPartition(topic, 0): OffsetAndMetadata(5, "meta-0", 3),
        TopicPartition(topic, 1): OffsetAndMetadata(9, "", -1),
    }
    k.commit(want)
    k.close(autocommit=False)

    def fetch():
        live = ",".join(cluster.address(i) for i in range(cluster.n) if cluster.alive(i))
        a = KafkaAdminClient(bootstrap_servers=live, request_timeout_ms=20_000)
        try:
            return {tp: tuple(om) for tp, om in a.list_group_offsets(group)[group].items()}
        except Exception as e:
            return repr(e)
        finally:
            a.close()

    expected = {tp: tuple(om) for tp, om in want.items()}
    before = fetch()
    coord = coordinator(cluster, group, 0)
    cluster.kill(coord)
    wait_until(
        lambda: fetch() == expected,
        "the same commits on the new coordinator",
        40,
        0.5,
        detail=lambda: (before, fetch()),
    )
