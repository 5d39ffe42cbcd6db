"""aiokafka and kafka-python idempotent producers (acks=all) against an RF 3,
min.insync.replicas 2 partition of a 3-process ZooKeeper-mode cluster, across SIGKILLs."""

from __future__ import annotations

import asyncio
import threading
import uuid
from typing import Any

import pytest

from tests.cluster.client_cluster import check_acked, cluster_fixtures, create, leader
from tests.cluster.zk_cluster_checks import try_metadata, wait_until

pytestmark = [pytest.mark.integration, pytest.mark.zookeeper]


cluster, live = cluster_fixtures("rvidem")


async def aio_produce(cluster, topic: str, total: int, fault, at: int) -> dict[str, int]:
    """aiokafka idempotent producer: ``total`` records in 5-record groups; ``fault()`` (a
    coroutine) runs once ``at`` records are acknowledged; {value: acknowledged offset}."""
    from aiokafka import AIOKafkaProducer

    p = AIOKafkaProducer(
        bootstrap_servers=cluster.bootstrap,
        enable_idempotence=True,
        acks="all",
        request_timeout_ms=45_000,
        retry_backoff_ms=200,
        linger_ms=2,
    )
    await p.start()
    acked: dict[str, int] = {}
    fault_task = None
    try:
        n = 0
        while n < total:
            futs = []
            for _ in range(5):
                v = f"v{n:06d}"
                futs.append((v, await p.send(topic, value=v.encode(), partition=0)))
                n += 1
            for v, f in futs:
                md = await f
                acked[v] = md.offset
            if fault_task is None and n >= at:
                fault_task = asyncio.ensure_future(fault())
                await asyncio.sleep(0)
        if fault_task is not None:
            await fault_task
    finally:
        await p.stop()
    return acked


def test_aiokafka_idempotent_producer_across_leader_sigkill(live):
    """aiokafka idempotent producer across a SIGKILL of the partition leader and its restart:
    each acknowledged record is in every replica once, in order, at its acknowledged offset
    (Kafka: ProducerStateManager duplicate detection, ReplicaManager.appendRecords,
    Partition.makeLeader / makeFollower truncation)."""
    cluster = live
    topic = f"aio-idem-{uuid.uuid4().hex[:6]}"
    create(cluster, topic, [[0, 1, 2]])
    victim = leader(cluster, topic)

    async def fault():
        cluster.kill(victim)
        await asyncio.sleep(3)
        await asyncio.to_thread(cluster.start_broker, victim)

    acked = asyncio.run(aio_produce(cluster, topic, 300, fault, 60))
    assert len(acked) == 300
    check_acked(cluster, topic, acked)


def test_aiokafka_idempotent_producer_across_both_followers_sigkill(live):
    """aiokafka idempotent producer while both followers are SIGKILLed (NOT_ENOUGH_REPLICAS /
    timeouts retried with the same sequences) and restarted: every acknowledged record once,
    at its acknowledged offset, on every replica (Kafka: Partition.appendRecordsToLeader
    min.insync.replicas check, DelayedProduce, ProducerStateManager duplicates)."""
    cluster = live
    topic = f"aio-nenr-{uuid.uuid4().hex[:6]}"
    create(cluster, topic, [[0, 1, 2]])
    lead = leader(cluster, topic)
    followers = [i for i in range(3) if i != lead]

    async def fault():
        for f in followers:
            cluster.kill(f)

        def shrunk():
            v = try_metadata(cluster, lead, [topic])
            return v is not None and v.topic(topic)[0].isr == (lead,)

        await asyncio.to_thread(wait_until, shrunk, "the ISR shrunk to the leader", 30)
        await asyncio.sleep(1)
        for f in followers:
            await asyncio.to_thread(cluster.start_broker, f)

    acked = asyncio.run(aio_produce(cluster, topic, 200, fault, 40))
    assert len(acked) == 200
    check_acked(cluster, topic, acked)


def test_kafka_python_idempotent_producer_across_both_followers_sigkill(live):
    """kafka-python idempotent producer while both followers are SIGKILLed and restarted:
    every acknowledged record once, at its acknowledged offset, on every replica (Kafka:
    Partition.appendRecordsToLeader NOT_ENOUGH_REPLICAS, DelayedProduce,
    ProducerStateManager duplicate detection)."""
    from kafka import KafkaProducer

    cluster = live
    topic = f"kp-nenr-{uuid.uuid4().hex[:6]}"
    create(cluster, topic, [[0, 1, 2]])
    lead = leader(cluster, topic)
    followers = [i for i in range(3) if i != lead]
    p = KafkaProducer(
        bootstrap_servers=cluster.bootstrap,
        acks="all",
        enable_idempotence=True,
        linger_ms=2,
        retries=2**31 - 1,
        retry_backoff_ms=200,
        delivery_timeout_ms=55_000,
        request_timeout_ms=20_000,
    )
    futures: list[tuple[str, Any]] = []
    stop = threading.Event()

    def stream():
        n = 0
        while not stop.is_set() and n < 2000:
            v = f"v{n:06d}"
            futures.append((v, p.send(topic, value=v.encode(), partition=0)))
            n += 1
            stop.wait(0.01)

    t = threading.Thread(target=stream, daemon=True)
    t.start()
    try:
        wait_until(lambda: sum(1 for _, f in list(futures) if f.is_done) >= 50, "50 acked", 30)
        for f in followers:
            cluster.kill(f)
        wait_until(
            lambda: (
                (v := try_metadata(cluster, lead, [topic])) is not None and v.topic(topic)[0].isr == (lead,)
            ),
            "the ISR shrunk to the leader",
            30,
        )
        for f in followers:
            cluster.start_broker(f)
        done_before = sum(1 for _, f in list(futures) if f.is_done)
        wait_until(
            lambda: sum(1 for _, f in list(futures) if f.is_done and f.succeeded()) > done_before + 20,
            "acks after the followers' return",
            40,
        )
    finally:
        stop.set()
        t.join(10)
        p.flush(50)
    failed = [(v, f.exception) for v, f in futures if f.failed()]
    acked = {v: f.get(1).offset for v, f in futures if f.succeeded()}
    p.close(5)
    assert not failed, failed[:3]
    check_acked(cluster, topic, acked)


def test_aiokafka_idempotent_producer_across_sigkill_of_leader_that_is_controller(live):
    """aiokafka idempotent producer while the broker that is both the partition leader and the
    controller is SIGKILLed (a new controller must be elected before the partition gets a new
    leader) and restarted: every acknowledged record once, in order, at its acknowledged offset
    (Kafka: KafkaController.onControllerFailover -> onBrokerFailure -> PartitionStateMachine
    OfflinePartitionLeaderElection)."""
    from tests.cluster.zk_cluster_checks import controller_index

    cluster = live
    ctl = controller_index(cluster)
    topic = f"aio-ctl-{uuid.uuid4().hex[:6]}"
    others = [i for i in range(3) if i != ctl]
    create(cluster, topic, [[ctl, *others]])
    assert leader(cluster, topic) == ctl

    async def fault():
        cluster.kill(ctl)
        await asyncio.to_thread(leader, cluster, topic, 0, ctl)
        await asyncio.sleep(1)
        await asyncio.to_thread(cluster.start_broker, ctl)

    acked = asyncio.run(aio_produce(cluster, topic, 200, fault, 40))
    assert len(acked) == 200
    from tests.cluster.client_cluster import in_sync

    in_sync(cluster, topic, [[ctl, *others]])
    check_acked(cluster, topic, acked)
