"""Consumer groups with the real clients: Java kafka-clients 4.3, confluent-kafka, kafka-python,
aiokafka and kcat (issue 5's "Done when" points for groups and committed offsets).

- every client consumes a 3-partition topic in a group, in order per partition, and commits;
- two consumers of one group split the partitions, lose nothing, and the one left takes all;
- committed offsets survive a broker restart (clean and kill -9): a consumer started after it
  resumes right after the last commit.

Records are produced with confluent-kafka to explicit partitions, value ``"<partition>:<i>"``,
so order and completeness are checked per partition. Waits for another process poll a
condition with a deadline.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable

import pytest

from protocol.messages import OffsetFetchRequest
from tests.integration.test_consumer_groups_support import create_topic, start_group_broker, wire
from tests.support.java_client import JavaClient, consume_args, require_java
from tests.support.kcat import Kcat, require_kcat

pytestmark = pytest.mark.integration

PARTITIONS = 3
PER_PARTITION = 20


@pytest.fixture(scope="module")
def group_broker(tmp_path_factory):
    b = start_group_broker(tmp_path_factory.mktemp("group-clients") / "data")
    yield b
    if b.alive():
        b.stop()


def wait_until(
    condition: Callable[[], bool], what: str, timeout: float = 120.0, step: Callable[[], None] | None = None
) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        if step is not None:
            step()
        else:
            time.sleep(0.05)


def produce(bootstrap: str, topic: str, start: int = 0, count: int = PER_PARTITION) -> None:
    """``count`` records into every partition, values ``"<p>:<i>"`` for i from ``start``."""
    from confluent_kafka import Producer

    p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True})
    for part in range(PARTITIONS):
        for i in range(start, start + count):
            p.produce(topic, value=f"{part}:{i}".encode(), partition=part)
    assert p.flush(30) == 0


def check_in_order(records: Iterable[tuple[int, int, str]], per_partition: int, start: int = 0) -> None:
    """Each partition read exactly offsets start..start+n-1, in order, with the values written there."""
    by_partition: dict[int, list[tuple[int, str]]] = {}
    for p, o, v in records:
        by_partition.setdefault(p, []).append((o, v))
    assert sorted(by_partition) == list(range(PARTITIONS))
    for p, got in by_partition.items():
        expected = [(i, f"{p}:{i}") for i in range(start, start + per_partition)]
        assert got == expected, f"partition {p}: {got[:5]}... != {expected[:5]}..."


def committed(bootstrap_broker, group: str, topic: str) -> dict[int, int]:
    with wire(bootstrap_broker) as c:
        resp = c.request(OffsetFetchRequest(group_id=group, topics=None), 6)
        assert resp.error_code == 0
        return {
            p.partition_index: p.committed_offset
            for t in resp.topics
            if t.name == topic
            for p in t.partitions
        }


def _text(value: bytes | str | None) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


# ---------------------------------------------------------------- one consumer per client


def consume_java(bootstrap: str, topic: str, group: str, expect: int) -> list[tuple[int, int, str]]:
    require_java()
    result = JavaClient(bootstrap, client_id=f"{group}-java").consume(
        topic, group=group, expect=expect, commit="sync"
    )
    summary = result.last
    assert summary["ok"], summary
    return [(r["p"], r["o"], r["v"]) for r in result.records()]


def consume_confluent(bootstrap: str, topic: str, group: str, expect: int) -> list[tuple[int, int, str]]:
    from confluent_kafka import Consumer

    c = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": group,
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }
    )
    out: list[tuple[int, int, str]] = []
    try:
        c.subscribe([topic])
        deadline = time.monotonic() + 60
        while len(out) < expect and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is None:
                continue
            assert m.error() is None, m.error()
            out.append((m.partition(), m.offset(), _text(m.value())))
            c.commit(message=m, asynchronous=False)
    finally:
        c.close()
    return out


def consume_kafka_python(bootstrap: str, topic: str, group: str, expect: int) -> list[tuple[int, int, str]]:
    from kafka import KafkaConsumer

    c = KafkaConsumer(
        topic,
        bootstrap_servers=bootstrap,
        group_id=group,
        auto_offset_reset="earliest",
        enable_auto_commit=False,
    )
    out: list[tuple[int, int, str]] = []
    try:
        deadline = time.monotonic() + 60
        while len(out) < expect and time.monotonic() < deadline:
            for _tp, msgs in c.poll(500).items():
                out += [(m.partition, m.offset, _text(m.value)) for m in msgs]
            c.commit()
    finally:
        c.close()
    return out


def consume_aiokafka(bootstrap: str, topic: str, group: str, expect: int) -> list[tuple[int, int, str]]:
    from aiokafka import AIOKafkaConsumer

    async def run() -> list[tuple[int, int, str]]:
        c = AIOKafkaConsumer(
            topic,
            bootstrap_servers=bootstrap,
            group_id=group,
            auto_offset_reset="earliest",
            enable_auto_commit=False,
        )
        await c.start()
        out: list[tuple[int, int, str]] = []
        try:
            deadline = time.monotonic() + 60
            while len(out) < expect and time.monotonic() < deadline:
                for _tp, msgs in (await c.getmany(timeout_ms=500)).items():
                    out += [(m.partition, m.offset, _text(m.value)) for m in msgs]
                await c.commit()
        finally:
            await c.stop()
        return out

    return asyncio.run(run())


def consume_kcat(bootstrap: str, topic: str, group: str, expect: int) -> list[tuple[int, int, str]]:
    require_kcat()
    # kcat -G: librdkafka's balanced consumer; it exits at the end of the partitions and commits.
    return [(m.partition, m.offset, _text(m.value)) for m in Kcat(bootstrap).consume(topic, group=group)]


CLIENTS = {
    "java": consume_java,
    "confluent-kafka": consume_confluent,
    "kafka-python": consume_kafka_python,
    "aiokafka": consume_aiokafka,
    "kcat": consume_kcat,
}


@pytest.mark.parametrize("client", list(CLIENTS))
def test_each_client_consumes_a_three_partition_topic_in_a_group_and_commits(group_broker, client):
    topic, group = f"cg-{client}", f"group-{client}"
    create_topic(group_broker, topic, PARTITIONS)
    produce(group_broker.bootstrap, topic)
    records = CLIENTS[client](group_broker.bootstrap, topic, group, PARTITIONS * PER_PARTITION)
    check_in_order(records, PER_PARTITION)
    assert committed(group_broker, group, topic) == dict.fromkeys(range(PARTITIONS), PER_PARTITION)


# ---------------------------------------------------------------- two consumers of one group


def test_two_confluent_consumers_split_partitions_and_the_last_one_takes_all(group_broker):
    from confluent_kafka import Consumer

    topic, group = "cg-two-confluent", "group-two-confluent"
    create_topic(group_broker, topic, PARTITIONS)
    assigned: dict[str, set[int]] = {"a": set(), "b": set()}
    records: list[tuple[int, int, str]] = []

    def consumer(name: str) -> Consumer:
        c = Consumer(
            {
                "bootstrap.servers": group_broker.bootstrap,
                "group.id": group,
                "client.id": name,
                "auto.offset.reset": "earliest",
                "enable.auto.commit": False,
            }
        )

        def on_assign(_c, partitions):
            assigned[name] = {p.partition for p in partitions}

        def on_revoke(_c, partitions):
            assigned[name] = set()

        c.subscribe([topic], on_assign=on_assign, on_revoke=on_revoke)
        return c

    def poll(*consumers: Consumer) -> None:
        for c in consumers:
            m = c.poll(0.1)
            if m is not None:
                assert m.error() is None, m.error()
                records.append((m.partition(), m.offset(), _text(m.value())))
                c.commit(message=m, asynchronous=False)

    a = consumer("a")
    wait_until(
        lambda: assigned["a"] == {0, 1, 2}, "the first consumer to own every partition", step=lambda: poll(a)
    )
    b = consumer("b")
    # The second join rebalances the group: both must poll for it to complete.
    wait_until(
        lambda: assigned["a"] and assigned["b"] and assigned["a"] | assigned["b"] == {0, 1, 2},
        "the partitions to be split between the two consumers",
        step=lambda: poll(a, b),
    )
    assert not assigned["a"] & assigned["b"]
    produce(group_broker.bootstrap, topic)
    wait_until(lambda: len(records) >= PARTITIONS * PER_PARTITION, "every record", step=lambda: poll(a, b))
    owner = {p: ("a" if p in assigned["a"] else "b") for p in range(PARTITIONS)}
    assert {owner[p] for p in range(PARTITIONS)} == {"a", "b"}

    b.close()  # leaves the group
    wait_until(
        lambda: assigned["a"] == {0, 1, 2},
        "the remaining consumer to own every partition",
        step=lambda: poll(a),
    )
    produce(group_broker.bootstrap, topic, start=PER_PARTITION)
    wait_until(
        lambda: len(records) >= 2 * PARTITIONS * PER_PARTITION,
        "the records after the leave",
        step=lambda: poll(a),
    )
    a.close()
    check_in_order(sorted(records), 2 * PER_PARTITION)
    assert committed(group_broker, group, topic) == dict.fromkeys(range(PARTITIONS), 2 * PER_PARTITION)


@pytest.mark.java
def test_two_java_consumers_split_partitions_and_the_last_one_takes_all(group_broker):
    require_java()
    topic, group = "cg-two-java", "group-two-java"
    create_topic(group_broker, topic, PARTITIONS)
    client = JavaClient(group_broker.bootstrap)
    args = consume_args(topic=topic, group=group, timeout_ms=180_000, commit="sync", stdin_control=True)

    def assignment_of(proc) -> set[int] | None:
        events = [line for line in list(proc.lines) if line.get("event") in ("assigned", "revoked", "lost")]
        if not events or events[-1]["event"] != "assigned":
            return None
        return {p for _t, p in events[-1]["partitions"]}

    def consumed(*procs) -> list[tuple[int, int, str]]:
        return [(r["p"], r["o"], r["v"]) for proc in procs for r in list(proc.lines) if "o" in r and "p" in r]

    with client.start("consume", *args) as a:
        wait_until(lambda: assignment_of(a) == {0, 1, 2}, "the first consumer to own every partition")
        with client.start("consume", *args) as b:
            wait_until(
                lambda: (
                    (sa := assignment_of(a)) is not None
                    and (sb := assignment_of(b)) is not None
                    and bool(sa)
                    and bool(sb)
                    and sa | sb == {0, 1, 2}
                    and not sa & sb
                ),
                "the partitions to be split between the two consumers",
            )
            produce(group_broker.bootstrap, topic)
            wait_until(lambda: len(consumed(a, b)) >= PARTITIONS * PER_PARTITION, "every record")
            b.stop()
            summary_b = b.wait().last
            assert summary_b["ok"], (summary_b["errors"], summary_b["timed_out"])
        wait_until(lambda: assignment_of(a) == {0, 1, 2}, "the remaining consumer to own every partition")
        produce(group_broker.bootstrap, topic, start=PER_PARTITION)
        wait_until(
            lambda: len(consumed(a, b)) >= 2 * PARTITIONS * PER_PARTITION, "the records after the leave"
        )
        a.stop()
        summary_a = a.wait().last
        assert summary_a["ok"], (summary_a["errors"], summary_a["timed_out"])
    records = consumed(a, b)
    check_in_order(sorted(records), 2 * PER_PARTITION)
    b_partitions = {p for p, _o, _v in consumed(b)}
    assert b_partitions and b_partitions != {0, 1, 2}  # b really had a share
    assert summary_a["committed"] == {topic: {str(p): 2 * PER_PARTITION for p in range(PARTITIONS)}}


# ---------------------------------------------------------------- committed offsets across restarts


@pytest.mark.parametrize(
    "clean",
    [
        True,
        pytest.param(
            False,
        ),
    ],
    ids=["restart", "kill-9"],
)
def test_confluent_consumer_resumes_after_the_last_commit_across_a_restart(tmp_path, clean):
    from confluent_kafka import Consumer, TopicPartition

    b = start_group_broker(tmp_path / "data")
    try:
        topic, group = "cg-restart", "group-restart"
        create_topic(b, topic, PARTITIONS)
        produce(b.bootstrap, topic)
        conf = {
            "bootstrap.servers": b.bootstrap,
            "group.id": group,
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
        }
        first = Consumer(conf)
        first.subscribe([topic])
        seen: list[tuple[int, int]] = []
        deadline = time.monotonic() + 60
        while len(seen) < PARTITIONS * PER_PARTITION and time.monotonic() < deadline:
            m = first.poll(0.5)
            if m is not None and m.error() is None:
                seen.append((m.partition(), m.offset()))
        # The last commit: 7 per partition (as if the rest was not processed yet).
        first.commit(offsets=[TopicPartition(topic, p, 7) for p in range(PARTITIONS)], asynchronous=False)
        first.close()

        b.restart(clean=clean)

        second = Consumer(conf)
        second.subscribe([topic])
        records: list[tuple[int, int, str]] = []
        deadline = time.monotonic() + 15
        while len(records) < PARTITIONS * (PER_PARTITION - 7) and time.monotonic() < deadline:
            m = second.poll(0.5)
            if m is not None:
                assert m.error() is None, m.error()
                records.append((m.partition(), m.offset(), _text(m.value())))
        second.close()
        check_in_order(records, PER_PARTITION - 7, start=7)
    finally:
        if b.alive():
            b.stop()


@pytest.mark.java
def test_java_consumer_resumes_after_the_last_commit_across_a_restart(tmp_path):
    require_java()
    b = start_group_broker(tmp_path / "data")
    try:
        topic, group = "cg-restart-java", "group-restart-java"
        create_topic(b, topic, PARTITIONS)
        produce(b.bootstrap, topic)
        first = consume_java(b.bootstrap, topic, group, PARTITIONS * PER_PARTITION)
        check_in_order(first, PER_PARTITION)
        b.restart()
        produce(b.bootstrap, topic, start=PER_PARTITION, count=5)
        after = consume_java(b.bootstrap, topic, group, PARTITIONS * 5)
        check_in_order(after, 5, start=PER_PARTITION)
        assert committed(b, group, topic) == dict.fromkeys(range(PARTITIONS), PER_PARTITION + 5)
    finally:
        if b.alive():
            b.stop()


@pytest.mark.java
def test_java_static_member_restart_rejoins_without_a_rebalance(group_broker):
    """KIP-345 with the real client: a restarted consumer with the same group.instance.id takes
    its old place (new member id, same generation) and resumes after its commit."""
    from protocol.messages import DescribeGroupsRequest, OffsetCommitRequest

    require_java()
    topic, group = "cg-static-java", "group-static-java"
    create_topic(group_broker, topic, PARTITIONS)
    produce(group_broker.bootstrap, topic)
    client = JavaClient(group_broker.bootstrap, properties={"group.instance.id": "static-1"})

    def members() -> list[tuple[str, str | None]]:
        with wire(group_broker) as c:
            g = c.request(DescribeGroupsRequest(groups=[group]), 4).groups[0]
            assert g.group_state == "Stable"
            return [(m.member_id, m.group_instance_id) for m in g.members]

    first = client.consume(topic, group=group, expect=PARTITIONS * PER_PARTITION)
    assert first.last["ok"], first.last
    [(old_id, instance)] = members()  # a static member does not leave when it closes
    assert instance == "static-1"
    produce(group_broker.bootstrap, topic, start=PER_PARTITION, count=5)
    second = client.consume(topic, group=group, expect=PARTITIONS * 5)
    assert second.last["ok"], second.last
    check_in_order([(r["p"], r["o"], r["v"]) for r in second.records()], 5, start=PER_PARTITION)
    [(new_id, instance)] = members()
    assert instance == "static-1" and new_id != old_id
    # Still generation 1: the rejoin replaced the member without a rebalance.
    with wire(group_broker) as c:
        resp = c.request(
            OffsetCommitRequest(
                group_id=group,
                generation_id_or_member_epoch=1,
                member_id=new_id,
                group_instance_id="static-1",
                topics=[
                    OffsetCommitRequest.OffsetCommitRequestTopic(
                        name=topic,
                        partitions=[
                            OffsetCommitRequest.OffsetCommitRequestPartition(
                                partition_index=0, committed_offset=PER_PARTITION + 5
                            )
                        ],
                    )
                ],
            ),
            7,
        )
        assert resp.topics[0].partitions[0].error_code == 0
