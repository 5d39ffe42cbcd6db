"""KafkaJS against a replicated ZooKeeper-mode Moldau cluster of three broker processes, whose
brokers are killed with SIGKILL: an idempotent producer, a consumer group of two, a
transactional producer. Each replica's segment files are read back with an independent reader
(kafka-python's record parser, tests.cluster.client_cluster.replicas_converged).

KafkaJS has its own protocol code, retry and metadata logic and group and transaction state
machines, so it meets the failovers differently from the Java client and librdkafka."""

from __future__ import annotations

import uuid
from collections import Counter, defaultdict
from typing import Any

import pytest

from tests.cluster.client_cluster import (
    check_acked,
    cluster_fixtures,
    coordinator,
    in_sync,
    leader,
    replicas_converged,
)
from tests.cluster.zk_cluster_checks import try_metadata, wait_until
from tests.support.kafkajs_client import require_kafkajs
from tests.support.kafkajs_session import Driver, run

pytestmark = [pytest.mark.integration, pytest.mark.zookeeper]

FAST_RETRY = {"retries": 40, "initialRetryTime": 200, "maxRetryTime": 1000}


cluster, live = cluster_fixtures("kjs", requires=require_kafkajs)


def acked_offsets(acked: list[dict[str, Any]]) -> dict[str, int]:
    """The driver's "acked" lines as value -> the offset it was acknowledged at."""
    return {f"v{a['first'] + j:06d}": int(a["base"]) + j for a in acked for j in range(a["n"])}


def create(cluster, topic: str, assignment: list[list[int]]) -> None:
    d = run(
        cluster.bootstrap,
        "admin-ops",
        ops=[
            {
                "op": "createTopics",
                "args": {
                    "topics": [
                        {
                            "topic": topic,
                            "replicaAssignment": [
                                {"partition": p, "replicas": r} for p, r in enumerate(assignment)
                            ],
                            "configEntries": [{"name": "min.insync.replicas", "value": "2"}],
                        }
                    ]
                },
            }
        ],
    )
    assert d.events("result"), d.lines
    in_sync(cluster, topic, assignment)


def test_idempotent_producer_across_leader_sigkill(live):
    """KafkaJS idempotent producer (acks -1, one in flight) to an RF 3 / min.insync.replicas 2
    partition whose leader is SIGKILLed and later restarted: every acknowledged record is in
    every replica exactly once, in order, at the offset it was acknowledged at (Kafka's
    ProducerStateManager dedup + ReplicaManager.appendRecords, Partition.makeLeader/makeFollower
    truncation)."""
    cluster = live
    topic = f"kjs-idem-{uuid.uuid4().hex[:6]}"
    create(cluster, topic, [[0, 1, 2]])
    victim = leader(cluster, topic)
    d = Driver(
        cluster.bootstrap,
        "idem-produce",
        timeout=55,
        topic=topic,
        sends=80,
        sendSize=5,
        pauseAt=20,
        retry=FAST_RETRY,
    )
    d.wait_for(lambda line: line.get("event") == "paused", "the first 20 sends")
    cluster.kill(victim)
    d.send("go")
    d.wait_for(lambda line: line.get("event") == "acked" and line["first"] >= 150, "sends after the failover")
    cluster.start_broker(victim)
    lines = d.finish()
    assert d.proc.returncode == 0, (lines[-3:], "".join(d.stderr[-30:]))
    failed = [line for line in lines if line.get("event") == "send-failed"]
    acked = [line for line in lines if line.get("event") == "acked"]
    assert not failed, failed[:3]
    check_acked(cluster, topic, acked_offsets(acked))


def test_consumer_group_across_leader_and_coordinator_sigkill(live):
    """Two KafkaJS consumers of one group while the leader of a partition and then the group
    coordinator are SIGKILLed: no record is skipped, and the committed offsets end at the log
    end (Kafka's GroupCoordinator loading __consumer_offsets on the new leader,
    GroupMetadataManager.loadGroupsAndOffsets)."""
    cluster = live
    topic = f"kjs-grp-{uuid.uuid4().hex[:6]}"
    group = f"g-{uuid.uuid4().hex[:6]}"
    create(cluster, topic, [[0, 1, 2], [1, 2, 0]])
    produced = 0

    def produce(n: int) -> None:
        nonlocal produced
        msgs = [{"value": f"m{produced + j:05d}", "partition": (produced + j) % 2} for j in range(n)]
        r = run(
            cluster.bootstrap,
            "admin-ops",
            ops=[{"op": "produce", "args": {"topic": topic, "acks": -1, "messages": msgs}}],
            retry=FAST_RETRY,
        )
        assert r.events("result"), r.lines
        produced += n

    produce(100)
    d = Driver(cluster.bootstrap, "group", timeout=58, topic=topic, groupId=group, retry=FAST_RETRY)
    seen: set[str] = set()

    def consumed(count: int):
        def check(line):
            if "v" in line:
                seen.add(line["v"])
            return len(seen) >= count

        return check

    d.wait_for(consumed(100), "the first 100 records")
    victim = leader(cluster, topic, 0)
    cluster.kill(victim)
    leader(cluster, topic, 0, not_=victim)
    produce(50)
    d.wait_for(consumed(150), "records after the leader failover")
    cluster.start_broker(victim)
    coord = coordinator(cluster, group, 0)
    cluster.kill(coord)
    produce(50)
    d.wait_for(consumed(200), "records after the coordinator failover", 50)
    cluster.start_broker(coord)
    ends = {p: (produced + 1 - p) // 2 for p in (0, 1)}

    def committed_offsets() -> dict[int, int]:
        r = run(
            cluster.bootstrap,
            "admin-ops",
            ops=[{"op": "fetchOffsets", "args": {"groupId": group, "topics": [topic]}}],
        )
        res = r.events("result")
        if not res:
            return {}
        return {int(p["partition"]): int(p["offset"]) for p in res[0]["result"][0]["partitions"]}

    # KafkaJS keeps its coordinator until it answers NOT_COORDINATOR (as against Kafka):
    # wait for the group to commit everything before stopping it
    wait_until(lambda: committed_offsets() == ends, "the group's commits at the log end", 40, step=1)
    d.send("stop")
    lines = d.finish()
    assert not [line for line in lines if line.get("event") == "crash" and not line["restart"]], lines[-5:]
    offsets = defaultdict(set)
    for line in lines:
        if "v" in line:
            offsets[line["p"]].add(line["o"])
    for p, end in ends.items():
        assert offsets[p] == set(range(end)), (
            f"partition {p}: missing {sorted(set(range(end)) - offsets[p])[:10]}"
        )
    r = run(
        cluster.bootstrap,
        "admin-ops",
        ops=[{"op": "fetchOffsets", "args": {"groupId": group, "topics": [topic]}}],
    )
    committed = {
        int(p["partition"]): int(p["offset"]) for p in r.events("result")[0]["result"][0]["partitions"]
    }
    assert committed == ends, "".join(d.stderr[-60:])


def test_transaction_across_coordinator_sigkill(live):
    """A KafkaJS transactional producer whose transaction coordinator is SIGKILLed between two
    sends of one transaction: the transaction then commits (or, if the client gives up, aborts)
    as a whole and the producer goes on (Kafka's TransactionStateManager loading
    __transaction_state on the new leader, TransactionCoordinator.handleEndTransaction)."""
    cluster = live
    topic = f"kjs-txn-{uuid.uuid4().hex[:6]}"
    txn_id = f"tx-{uuid.uuid4().hex[:6]}"
    create(cluster, topic, [[0, 1, 2]])
    d = Driver(
        cluster.bootstrap,
        "txn",
        timeout=58,
        topic=topic,
        transactionalId=txn_id,
        first=["a1", "a2"],
        second=["b1", "b2"],
        third=["c1"],
        retry=FAST_RETRY,
    )
    d.wait_for(lambda line: line.get("event") == "sent-first", "the first send")
    coord = coordinator(cluster, txn_id, 1)
    cluster.kill(coord)
    d.send("go")
    lines = d.finish()
    assert d.proc.returncode == 0, (lines[-4:], "".join(d.stderr[-40:]))
    cluster.start_broker(coord)
    in_sync(cluster, topic, [[0, 1, 2]])
    events = [line.get("event") for line in lines]
    logs = replicas_converged(cluster, topic, 1)
    values = [v.decode() for _, k, v in logs[(0, 0)] if v is not None and not v.startswith(b"\x00\x00")]
    assert "committed" in events, lines
    assert Counter(values) == Counter(["a1", "a2", "b1", "b2", "c1"]), values


def test_idempotent_producer_across_both_followers_sigkill(live):
    """KafkaJS idempotent producer (acks -1) to an RF 3 / min.insync.replicas 2 partition whose
    two followers are SIGKILLed (NOT_ENOUGH_REPLICAS[_AFTER_APPEND] / timeouts, retried with the
    same sequence numbers) and restarted: every acknowledged record is in every replica exactly
    once, at its acknowledged offset (Kafka's ProducerStateManager duplicate detection returning
    the first append's offsets, DelayedProduce / Partition.checkEnoughReplicasReachOffset)."""
    cluster = live
    topic = f"kjs-nenr-{uuid.uuid4().hex[:6]}"
    create(cluster, topic, [[0, 1, 2]])
    lead = leader(cluster, topic)
    followers = [i for i in range(3) if i != lead]
    d = Driver(
        cluster.bootstrap,
        "idem-produce",
        timeout=55,
        topic=topic,
        sends=60,
        sendSize=5,
        pauseAt=15,
        retry=FAST_RETRY,
    )
    d.wait_for(lambda line: line.get("event") == "paused", "the first 15 sends")
    for f in followers:
        cluster.kill(f)
    d.send("go")
    # the leader alone: its ISR shrinks to itself, sends are refused or time out
    wait_until(
        lambda: (v := try_metadata(cluster, lead, [topic])) is not None and v.topic(topic)[0].isr == (lead,),
        "the ISR shrunk to the leader",
        30,
    )
    for f in followers:
        cluster.start_broker(f)
    lines = d.finish()
    assert d.proc.returncode == 0, (lines[-3:], "".join(d.stderr[-30:]))
    acked = [line for line in lines if line.get("event") == "acked"]
    failed = [line for line in lines if line.get("event") == "send-failed"]
    assert not failed, failed[:3]
    check_acked(cluster, topic, acked_offsets(acked))


def test_fetch_topic_offsets_during_open_transaction(live):
    """KafkaJS ``admin.fetchTopicOffsets`` (ListOffsets, READ_COMMITTED) while a transaction is
    open on an RF 3 partition: ``high`` is the last stable offset, the first offset of the open
    transaction (Kafka: ReplicaManager.fetchOffsetForTimestamp -> Partition
    .fetchOffsetForTimestamp, LATEST under READ_COMMITTED = lastStableOffset)."""
    cluster = live
    topic = f"kjs-lso-{uuid.uuid4().hex[:6]}"
    create(cluster, topic, [[0, 1, 2]])
    r = run(
        cluster.bootstrap,
        "admin-ops",
        ops=[
            {
                "op": "produce",
                "args": {
                    "topic": topic,
                    "acks": -1,
                    "messages": [{"value": "p0", "partition": 0}, {"value": "p1", "partition": 0}],
                },
            }
        ],
    )
    assert r.events("result"), r.lines
    d = Driver(
        cluster.bootstrap,
        "txn",
        timeout=40,
        topic=topic,
        transactionalId=f"tx-{uuid.uuid4().hex[:6]}",
        first=["a1", "a2"],
        second=["b1"],
        third=["c1"],
    )
    d.wait_for(lambda line: line.get("event") == "sent-first", "the first send")
    r = run(cluster.bootstrap, "admin-ops", ops=[{"op": "fetchTopicOffsets", "argList": [topic]}])
    d.send("go")
    d.finish()
    (offsets,) = r.events("result")
    assert [(int(p["low"]), int(p["high"])) for p in offsets["result"]] == [(0, 2)]
