"""confluent-kafka (librdkafka) clients against a 3-process ZooKeeper-mode cluster whose brokers
are SIGKILLed: a cooperative-sticky consumer group across a kill of its coordinator and of a
partition leader, the restart of a static member, consume-transform-produce across a kill of
the transaction coordinator and of the output partition's leader, an idempotent producer across
two kills of its partition's leader.

librdkafka has its own protocol code, retries, group (KIP-429 cooperative, KIP-345 static
membership) and transaction / idempotence (KIP-360) state machines, so it meets the failovers
differently from the Java client, aiokafka, kafka-python and KafkaJS. The behaviour expected
is Kafka's: GroupCoordinator / GroupMetadataManager, TransactionCoordinator /
TransactionStateManager, ProducerStateManager."""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from confluent_kafka import Consumer, KafkaError, KafkaException, Message, Producer, TopicPartition

from tests.cluster.client_cluster import (
    check_acked,
    cluster_fixtures,
    coordinator,
    create,
    in_sync,
    kill_and_wait,
    leader,
)
from tests.cluster.librdkafka_clients import ClientLog, Group, Input, fill, read_committed, wait_consumed
from tests.cluster.zk_cluster_checks import topic_summary, wait_until

pytestmark = [pytest.mark.integration, pytest.mark.zookeeper]


cluster, live = cluster_fixtures("rdk")

ASSIGNMENT = [[0, 1, 2], [1, 2, 0], [2, 0, 1], [0, 2, 1], [1, 0, 2], [2, 1, 0]]
N = len(ASSIGNMENT)


def test_rdk_group_across_coordinator_and_leader_sigkill(live):
    """Three cooperative-sticky confluent-kafka consumers (manual synchronous commits) across a
    SIGKILL of the group coordinator, then of a partition leader: every record consumed, none
    consumed again after its offset was committed, and no rebalance at all (nothing revoked or
    lost): the new coordinator loads the group Stable with its members and accepts their
    heartbeats (Kafka: GroupMetadataManager.loadGroupsAndOffsets ->
    GroupCoordinator.onGroupLoaded, which schedules each member's heartbeat expiration anew)."""
    c = live
    topic = f"rdk-grp-{uuid.uuid4().hex[:6]}"
    group = f"g-{uuid.uuid4().hex[:6]}"
    create(c, topic, ASSIGNMENT)
    g = Group(c.bootstrap, group, topic, "cooperative-sticky")
    inp = Input(c, topic, N)
    try:
        for name in ("c1", "c2", "c3"):
            g.add(name)
        wait_until(
            lambda: g.balanced(3, N), "a balanced group", 60, detail=lambda: (g.assignments(), g.errors)
        )
        inp.produce(300)
        wait_consumed(g, inp.ends)
        before = g.rebalance_events()
        coord = coordinator(c, group, 0)
        kill_and_wait(c, coord)
        inp.produce(300)
        wait_consumed(g, inp.ends)
        c.start_broker(coord)
        victim = leader(c, topic, 0)
        kill_and_wait(c, victim)
        inp.produce(300)
        wait_consumed(g, inp.ends)
        c.start_broker(victim)
        inp.produce(60)
        wait_consumed(g, inp.ends)
        wait_until(
            lambda: g.balanced(3, N), "a balanced group", 30, detail=lambda: (g.assignments(), g.errors)
        )
        seen = g.rebalance_events()
    finally:
        g.close()
    assert not g.errors, g.errors
    assert not g.double_after_commit, g.double_after_commit[:10]
    assert seen == before, (seen, g.commit_errors[:5])


def test_rdk_static_member_restart_within_session_timeout(live):
    """Two static confluent-kafka consumers (group.instance.id, range): one is closed and a new
    consumer with the same group.instance.id rejoins within session.timeout.ms: no rebalance,
    the other member's assignment is never revoked, each ends with its partitions of before
    (Kafka: GroupCoordinator.handleJoinGroup -> updateStaticMemberAndRebalance on a Stable group
    with unchanged protocols; static members send no LeaveGroup on close, KIP-345)."""
    c = live
    topic = f"rdk-static-{uuid.uuid4().hex[:6]}"
    group = f"g-{uuid.uuid4().hex[:6]}"
    create(c, topic, ASSIGNMENT)
    g = Group(c.bootstrap, group, topic, "range", **{"session.timeout.ms": 30_000})
    inp = Input(c, topic, N)
    try:
        g.add("s1", **{"group.instance.id": "inst-1"})
        g.add("s2", **{"group.instance.id": "inst-2"})
        wait_until(
            lambda: g.balanced(2, N), "a balanced group", 60, detail=lambda: (g.assignments(), g.errors)
        )
        inp.produce(120)
        wait_consumed(g, inp.ends)
        s1_events = list(g.member("s1").events)
        before = g.assignments()
        g.remove("s2")
        wait_until(lambda: "s2" in g.closed, "s2 closed", 30)
        g.add("s2b", **{"group.instance.id": "inst-2"})
        wait_until(
            lambda: len(g.members) == 2 and g.balanced(2, N),
            "s2 back",
            60,
            detail=lambda: (g.assignments(), g.errors),
        )
        inp.produce(120)
        wait_consumed(g, inp.ends)
        after = g.assignments()
        s1_after = list(g.member("s1").events)
    finally:
        g.close()
    assert not g.errors, g.errors
    assert after["s1"] == before["s1"] and after["s2b"] == before["s2"], (before, after)
    assert s1_after == s1_events, (s1_events, s1_after)
    assert not g.double_after_commit, g.double_after_commit[:10]


N_IN = 240


def test_rdk_consume_transform_produce_across_coordinator_and_leader_sigkill(live):
    """confluent-kafka consume-transform-produce (Producer.init_transactions,
    send_offsets_to_transaction with consumer_group_metadata(), commit_transaction /
    abort_transaction, every fifth transaction aborted on purpose) while the transaction
    coordinator, then the output partition's leader, are SIGKILLed inside a transaction and
    restarted at once, before their ZooKeeper sessions expire (the controller sees a bounce:
    failure plus startup): no fatal error and no abortable one, the read_committed output holds
    every input exactly once and nothing of the aborted transactions (Kafka:
    TransactionCoordinator.handleInitProducerId / handleEndTransaction after
    TransactionStateManager.loadTransactionsForTxnTopicPartition,
    TransactionMarkerChannelManager, GroupCoordinator.handleTxnCommitOffsets, Partition LSO)."""
    c = live
    src = f"rdk-in-{uuid.uuid4().hex[:6]}"
    dst = f"rdk-out-{uuid.uuid4().hex[:6]}"
    group = f"g-{uuid.uuid4().hex[:6]}"
    txn_id = f"tx-{uuid.uuid4().hex[:6]}"
    create(c, src, [[0, 1, 2]])
    create(c, dst, [[1, 2, 0]])
    fill(c, src, N_IN)
    plog = ClientLog()
    p = Producer(
        {
            "bootstrap.servers": c.bootstrap,
            "transactional.id": txn_id,
            "transaction.timeout.ms": 60_000,
            "message.timeout.ms": 60_000,
            **plog.config(),
        }
    )
    k = Consumer(
        {
            "bootstrap.servers": c.bootstrap,
            "group.id": group,
            "isolation.level": "read_committed",
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
            "session.timeout.ms": 30_000,
        }
    )
    k.subscribe([src])
    p.init_transactions(60)
    tp = TopicPartition(src, 0)
    state: dict[str, Any] = {"txns": 0, "aborted": 0, "commits": 0, "requires_abort": [], "retried": []}
    fatal: list[str] = []

    def rewind() -> None:
        [committed] = k.committed([tp], timeout=30)
        k.seek(TopicPartition(src, 0, max(committed.offset, 0)))

    faults = {6: "coordinator", 16: "leader"}
    killed: list[int] = []
    deadline = time.monotonic() + 150
    try:
        while time.monotonic() < deadline:
            msgs = [m for m in k.consume(10, 1.0) if not m.error()]
            if not msgs:
                if k.assignment() and k.position([tp])[0].offset >= N_IN:
                    break
                continue
            n = state["txns"]
            state["txns"] += 1
            deliberate_abort = n % 5 == 4
            try:
                p.begin_transaction()
                for m in msgs:
                    p.produce(dst, value=b"o" + m.value(), partition=0)
                if deliberate_abort:
                    p.produce(dst, value=f"ABORTED-{n}".encode(), partition=0)
                p.send_offsets_to_transaction(k.position(k.assignment()), k.consumer_group_metadata(), 60)
                if n in faults:
                    victim = coordinator(c, txn_id, 1) if faults.pop(n) == "coordinator" else leader(c, dst)
                    c.kill(victim)
                    c.start_broker(victim)
                    killed.append(victim)
                if deliberate_abort:
                    p.abort_transaction(60)
                    state["aborted"] += 1
                    rewind()
                    continue
                while True:
                    try:
                        p.commit_transaction(60)
                        state["commits"] += 1
                        break
                    except KafkaException as e:
                        if not e.args[0].retriable():
                            raise
                        state["retried"].append(str(e.args[0]))
            except KafkaException as e:
                err = e.args[0]
                if not err.txn_requires_abort():
                    fatal.append(f"txn {n}: {err}")
                    break
                state["requires_abort"].append(str(err))
                p.abort_transaction(60)
                rewind()
    finally:
        k.close()
        p.flush(30)
    assert not fatal, (fatal, state, plog.fatal())
    assert not plog.fatal(), plog.fatal()
    out = read_committed(c, dst)
    aborted = [v for v in out if v.startswith("ABORTED")]
    assert not aborted, aborted[:5]
    dups = [v for v, n in Counter(out).items() if n > 1]
    missing = sorted({f"oi{i:05d}" for i in range(N_IN)} - set(out))
    assert not dups and not missing, (dups[:5], missing[:5], state)
    assert not state["requires_abort"], state
    assert len(killed) == 2 and state["aborted"] >= 4, (killed, state)


def test_rdk_idempotent_producer_across_two_leader_sigkills(live):
    """confluent-kafka idempotent Producer (acks=all, max.in.flight 5, long message timeout)
    streaming while the partition leader is SIGKILLed twice (each restarted): every delivered
    record once, in order, at its delivered offset on every replica, and no fatal idempotent
    producer error (Kafka: ProducerStateManager / ProducerAppendInfo sequence checks,
    Partition.makeLeader, KIP-360 UNKNOWN_PRODUCER_ID handling)."""
    c = live
    topic = f"rdk-idem-{uuid.uuid4().hex[:6]}"
    create(c, topic, [[0, 1, 2]])
    log = ClientLog()
    p = Producer(
        {
            "bootstrap.servers": c.bootstrap,
            "enable.idempotence": True,
            "acks": "all",
            "max.in.flight.requests.per.connection": 5,
            "message.timeout.ms": 120_000,
            "linger.ms": 5,
            "batch.num.messages": 20,
            "retry.backoff.ms": 200,
            "debug": "eos,protocol,broker,topic,msg",
            **log.config(),
        }
    )
    acked: dict[str, int] = {}
    failed: list[tuple[bytes, KafkaError]] = []
    stop = threading.Event()

    def report(err: KafkaError | None, msg: Message) -> None:
        if err is not None:
            failed.append((msg.value(), err))
        else:
            acked[msg.value().decode()] = msg.offset()

    def stream() -> None:
        """Keep at most 200 records undelivered."""
        n = 0
        while not stop.is_set():
            if n - len(acked) - len(failed) < 200:
                try:
                    p.produce(topic, value=f"v{n:06d}".encode(), partition=0, on_delivery=report)
                    n += 1
                except BufferError:
                    pass
            p.poll(0.005)

    def delivered(n: int) -> Callable[[], bool]:
        return lambda: len(acked) >= n

    t = threading.Thread(target=stream, daemon=True)
    t.start()
    try:
        for _ in range(2):
            in_sync(c, topic, [[0, 1, 2]])
            base = len(acked)
            wait_until(delivered(base + 200), "200 more delivered", 60)
            victim = leader(c, topic)
            kill_and_wait(c, victim)
            leader(c, topic, 0, not_=victim)
            base = len(acked)
            wait_until(
                delivered(base + 100),
                "deliveries after the failover",
                60,
                detail=lambda: (len(acked), topic_summary(c, topic)),
            )
            c.start_broker(victim)
        wait_until(delivered(base + 300), "deliveries after the restart", 60)
    finally:
        stop.set()
        t.join(30)
    assert p.flush(120) == 0
    assert not log.fatal(), log.fatal()
    assert not failed, failed[:3]
    assert not log.grep("Fatal"), log.grep("Fatal")[:5]
    check_acked(c, topic, acked)
