"""The replication failover test: acknowledged records survive repeated leader crashes.

Three brokers on a real ZooKeeper, topics with replication factor 3 and
``min.insync.replicas=2``. The issue's done-when run: Kafka's Java idempotent producer
(``acks=all``) streams 200,000 small records while the test crashes the leader of each
partition in turn five times (restarting each victim and waiting for it to be back in
every ISR) and, in the same run, cuts a follower off through the in-process harness's
link cut until it leaves the ISR, then heals it until it is back. That run uses the
in-process cluster, whose ``kill`` is the harness's kill -9 (nothing reaches the disk
after it, sockets reset, ZooKeeper session gone, no checkpoint written), because only it
has the link cut. Every fault waits for its share of the stream to be acknowledged, and
the producer is stopped only after the last fault (``--stdin-control``), so every fault
falls mid-stream by construction. confluent-kafka and kafka-python stream together
through the same six faults (fewer records), and again through real SIGKILLs of broker
processes; the consumer-group test crashes broker processes with real SIGKILLs too. Afterwards every broker is stopped cleanly and an
independent reader (kafka-python's record parser over each broker's segment files, the
high watermark from its ``replication-offset-checkpoint``) checks that every acknowledged
record is in every replica exactly once, in order, at its acknowledged offset, and that
the replicas are byte-identical below the high watermark.
"""

from __future__ import annotations

import struct
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from tests.cluster.test_replication import (  # noqa: F401 (cluster: the in-process fixture)
    cluster,
    follower_not_controller,
    leader_of,
    partition_view,
    replica_records,
)
from tests.cluster.zk_cluster_checks import agreed_metadata, start_cluster, wait_until
from tests.cluster.zk_cluster_load import ConfluentLoad
from tests.support.cluster import Cluster
from tests.support.java_client import JavaClient, check_exactly_once, produce_args, require_java

pytestmark = [pytest.mark.integration, pytest.mark.zookeeper]

JAVA_RECORDS = 200_000
JAVA_VALUE_BYTES = 100
# The Java stream's rate: 200,000 records in about a minute, so the six faults (each
# gated on its share of the acknowledgements) spread over the stream.
JAVA_RECORDS_PER_S = 3_500
PARTITIONS = 2
# A deadline for a failover (session timeout 6 s, then election) on a loaded machine.
FAILOVER_DEADLINE_S = 60


@pytest.fixture
def zk_cluster(zookeeper_shared: Any, tmp_path: Path):
    c = start_cluster(
        zookeeper_shared,
        f"/failover_{uuid.uuid4().hex[:8]}",
        tmp_path,
        **{"replica.lag.time.max.ms": "10000", "offsets.topic.num.partitions": "1"},
    )
    try:
        yield c
    finally:
        c.close()


def create_rf3_topic(brokers: Cluster, topic: str, partitions: int = PARTITIONS) -> None:
    admin = AdminClient({"bootstrap.servers": brokers.bootstrap})
    futures = admin.create_topics(
        [NewTopic(topic, partitions, 3, config={"min.insync.replicas": "2"})], operation_timeout=30
    )
    assert futures[topic].result(60) is None
    wait_until(lambda: full_isr(brokers, topic, partitions), f"{topic} with three replicas in sync", 60)


def full_isr(brokers: Cluster, topic: str, partitions: int) -> dict[int, int] | None:
    """{partition: leader} once every live broker agrees and every ISR holds all three brokers."""
    view = agreed_metadata(brokers, [topic], [i for i in range(brokers.n) if brokers.alive(i)])
    if view is None:
        return None
    parts = view.topic(topic)
    if len(parts) != partitions or any(sorted(p.isr) != [0, 1, 2] or p.leader < 0 for p in parts.values()):
        return None
    return {n: p.leader for n, p in parts.items()}


# Five kills of a partition's leader and one follower cut, in this order, in both runs.
FAULTS = ("kill", "kill", "cut", "kill", "kill", "kill")


def inject_faults(
    brokers: Cluster, topic: str, before: Callable[[int, str], None], faults: Sequence[str] = FAULTS
) -> list[int]:
    """``faults`` in turn, each after ``before(n, fault)`` (which waits for the producers'
    progress, so the fault falls mid-stream). A kill is a kill -9 of the leader of partition
    0, 1, 0, ... (``_kill_leader_of``), the cut a follower cut off until it leaves the ISR
    and healed until it is back. Returns the kills' victims."""
    victims: list[int] = []
    cuts = 0
    for n, fault in enumerate(faults):
        before(n, fault)
        if fault == "kill":
            victims.append(_kill_leader_of(brokers, topic, len(victims) % PARTITIONS))
        else:
            cut_a_follower_until_it_leaves_the_isr_and_returns(brokers, topic)
            cuts += 1
    assert cuts == faults.count("cut")
    return victims


# ---------------------------------------------------------------------- the independent reader


def read_checkpoint(log_dir: Path, topic: str) -> dict[int, int]:
    """{partition: high watermark} from a broker's ``replication-offset-checkpoint``
    (Kafka's format: version line, count line, then ``topic partition offset`` lines)."""
    path = log_dir / "replication-offset-checkpoint"
    if not path.exists():
        return {}
    lines = path.read_text().splitlines()
    out = {}
    for line in lines[2:]:
        t, p, hw = line.split()
        if t == topic:
            out[int(p)] = int(hw)
    return out


def raw_batches(log_dir: Path, topic: str, partition: int) -> list[tuple[int, bytes]]:
    """(base offset, bytes) of every record batch in a replica's segment files, in order."""
    out = []
    for segment in sorted((log_dir / f"{topic}-{partition}").glob("*.log")):
        data = segment.read_bytes()
        pos = 0
        while pos + 12 <= len(data):
            base, length = struct.unpack_from(">qi", data, pos)
            if length <= 0 or pos + 12 + length > len(data):
                break
            out.append((base, data[pos : pos + 12 + length]))
            pos += 12 + length
    return out


def log_end(log_dir: Path, topic: str, partition: int) -> int:
    records = replica_records(log_dir, topic, partition)
    return records[-1][0] + 1 if records else 0


def replicas_settled(brokers: Cluster, topic: str, partitions: int) -> bool:
    """Every replica's segment files end at the same offset and every broker's checkpointed
    high watermark has reached it (read from the files while the brokers run)."""
    for p in range(partitions):
        ends = {log_end(brokers.log_dir(i), topic, p) for i in range(brokers.n)}
        if len(ends) != 1:
            return False
        (end,) = ends
        if any(read_checkpoint(brokers.log_dir(i), topic).get(p) != end for i in range(brokers.n)):
            return False
    return True


def check_replicas(
    brokers: Cluster, topic: str, partitions: int, acked: dict[int, dict[int, bytes]]
) -> list[list[tuple[int, bytes | None, bytes | None]]]:
    """Stop every broker cleanly and check the replicas against ``acked``
    ({partition: {offset: value}}). Returns each partition's records (from broker 0)."""
    wait_until(lambda: replicas_settled(brokers, topic, partitions), "every replica at one end and HW", 120)
    for i in range(brokers.n):
        brokers.stop(i)
    dirs = [brokers.log_dir(i) for i in range(brokers.n)]
    logs = []
    for p in range(partitions):
        hws = [read_checkpoint(d, topic).get(p) for d in dirs]
        assert None not in hws, f"{topic}-{p}: a broker checkpointed no high watermark: {hws}"
        hw = min(hws)
        replicas = [replica_records(d, topic, p) for d in dirs]
        # the same records at the same offsets in every replica, offsets dense and in order
        assert replicas[0] == replicas[1] == replicas[2], f"{topic}-{p}: replicas differ"
        offsets = [o for o, _, _ in replicas[0]]
        assert offsets == list(range(len(offsets))), f"{topic}-{p}: offsets not dense"
        values = [v for _, _, v in replicas[0]]
        assert len(values) == len(set(values)), f"{topic}-{p}: a record is in the log twice"
        # every acknowledged record is below the HW, at its acknowledged offset
        by_offset = {o: v for o, _, v in replicas[0]}
        for offset, value in acked.get(p, {}).items():
            assert offset < hw, f"{topic}-{p}: acked offset {offset} not below the HW {hw}"
            assert by_offset.get(offset) == value, (
                f"{topic}-{p}@{offset}: {by_offset.get(offset)!r} != {value!r}"
            )
        # byte-identical below the HW
        below = [[b for base, b in raw_batches(d, topic, p) if base < hw] for d in dirs]
        assert below[0] == below[1] == below[2], f"{topic}-{p}: replicas not byte-identical below HW {hw}"
        assert sum(len(b) for b in below[0]) > 0
        logs.append(replicas[0])
    return logs


# ---------------------------------------------------------------------- tests


@pytest.fixture
def inprocess_cluster(zookeeper_shared: Any, tmp_path: Path):
    """In-process brokers (for the link cut) on the shared real ZooKeeper."""
    overrides = {
        "offsets.topic.num.partitions": "1",
        # Small, so that a cut-off follower leaves the ISR within seconds.
        "replica.lag.time.max.ms": "2000",
        "replica.fetch.backoff.ms": "200",
        "zookeeper.session.timeout.ms": "6000",
    }
    with Cluster(
        3,
        zookeeper=zookeeper_shared,
        zk_chroot=f"/failover_{uuid.uuid4().hex[:8]}",
        base_dir=tmp_path,
        overrides=overrides,
    ) as c:
        wait_until(
            lambda: (v := agreed_metadata(c)) is not None and v.controller >= 0 and len(v.brokers) == 3,
            "the three brokers to agree on the cluster",
            60,
        )
        yield c


def cut_a_follower_until_it_leaves_the_isr_and_returns(brokers: Cluster, topic: str) -> tuple[int, int]:
    """Cut the link between a leader of ``topic`` and one of its followers until the leader
    drops that follower from the ISR, then heal it until it is back. Both ends of the cut
    keep reaching the controller (their AlterPartition must get through, as in Kafka).
    Returns (leader, follower)."""
    leaders = wait_until(lambda: full_isr(brokers, topic, PARTITIONS), "every replica in sync", 120)
    view = agreed_metadata(brokers, [topic])
    assert view is not None
    controller = view.controller
    not_controller = [i for i in range(brokers.n) if brokers.broker_id(i) != controller]
    partition, leader = next(
        ((p, b) for p, b in sorted(leaders.items()) if b in not_controller),
        (0, leaders[0]),  # the controller leads every partition: it is the leader cut off
    )
    follower = next(i for i in not_controller if i != leader)

    def isr(seen_by: list[int] | None = None) -> list[int]:
        part = agreed_metadata(brokers, [topic], seen_by)
        return [] if part is None else sorted(part.topic(topic)[partition].isr)

    brokers.cut_link(leader, follower)
    try:
        # The leader's view (the follower may miss the controller's updates meanwhile).
        wait_until(lambda: len(isr([leader])) == 2 and follower not in isr([leader]), "the follower out", 60)
    finally:
        brokers.heal_link(leader, follower)
    wait_until(lambda: isr() == [0, 1, 2], "the follower back in the ISR", 120)
    return leader, follower


def test_java_idempotent_producer_200k_through_five_leader_kills_and_a_follower_cut(
    inprocess_cluster: Cluster,
) -> None:
    require_java()
    brokers = inprocess_cluster
    topic = "failover-java"
    create_rf3_topic(brokers, topic)
    keys = 16
    args = produce_args(
        topic=topic,
        count=0,  # until stopped: the stream ends only after the last fault
        value_size=JAVA_VALUE_BYTES,
        keys=keys,
        instance="java",
        linger_ms=5,
        throughput=JAVA_RECORDS_PER_S,
        print_acks=True,
        progress_every=1000,
        stdin_control=True,
    )
    with JavaClient(brokers.bootstrap).start("produce", *args, properties={"retry.backoff.ms": 50}) as stream:

        def acked() -> int:
            for line in reversed(stream.lines):
                if line.get("event") == "progress":
                    return int(line["acked"])
            return 0

        def share_acked(n: int, _fault: str) -> None:
            # Fault n waits for the n+1-th share of the stream: it lands mid-stream.
            share = (n + 1) * JAVA_RECORDS // (len(FAULTS) + 2)
            wait_until(lambda: acked() >= share, f"{share} records acknowledged", 180)

        try:
            victims = inject_faults(brokers, topic, share_acked)
            wait_until(lambda: acked() >= JAVA_RECORDS, f"{JAVA_RECORDS} records acknowledged", 300)
        finally:
            stream.stop()
        summary = stream.wait(180).last
    assert len(victims) == 5
    sent = summary["sent"]
    assert summary["ok"] and summary["acked"] == sent >= JAVA_RECORDS, summary
    ack_lines = [line for line in stream.lines if line.get("event") == "ack"]
    assert len(ack_lines) == sent
    acked_values: dict[int, dict[int, bytes]] = {}
    for line in ack_lines:
        # ProduceCommand.value: the header padded with '.' to the value size
        value = f"m1|java|{line['key']}|{line['seq']}|".encode().ljust(JAVA_VALUE_BYTES, b".")
        acked_values.setdefault(line["partition"], {})[line["offset"]] = value
    logs = check_replicas(brokers, topic, PARTITIONS, acked_values)
    report = check_exactly_once(
        [(p, o, v) for p, records in enumerate(logs) for o, _, v in records], {"java": (sent, keys)}
    )
    assert report.ok, report


def _kill_leader_of(brokers: Cluster, topic: str, partition: int) -> int:
    """One kill of ``inject_faults``: kill -9 ``partition``'s leader, wait for a new leader,
    restart the victim and wait for it to be back in every ISR. Returns the victim."""
    leaders = wait_until(lambda: full_isr(brokers, topic, PARTITIONS), "every replica in sync", 120)
    victim = leaders[partition]
    brokers.kill(victim)
    live = [i for i in range(brokers.n) if i != victim]

    def moved() -> bool:
        view = agreed_metadata(brokers, [topic], live)
        return view is not None and view.topic(topic)[partition].leader in live

    wait_until(
        moved, f"a new leader of {topic}-{partition} after killing broker {victim}", FAILOVER_DEADLINE_S
    )
    brokers.start_broker(victim)
    wait_until(lambda: full_isr(brokers, topic, PARTITIONS), f"broker {victim} back in every ISR", 120)
    return victim


# In-process brokers: the Java run's faults (the link cut needs them; their kill is the
# harness's kill -9). Broker processes: real SIGKILLs (a session that ends only when it
# expires, a process that never writes another byte).
PYTHON_CLIENT_RUNS = {
    "in-process, five kills and a cut": ("inprocess_cluster", FAULTS),
    "processes, three SIGKILLs": ("zk_cluster", ("kill", "kill", "kill")),
}


@pytest.mark.parametrize("run", list(PYTHON_CLIENT_RUNS))
def test_confluent_and_kafka_python_idempotent_producers_through_leader_kills(
    run: str, request: pytest.FixtureRequest
) -> None:
    """confluent-kafka and kafka-python (both idempotent, acks=all) stream into one topic
    while the leaders of its partitions are killed in turn (each victim restarted and back
    in every ISR) and, on in-process brokers, a follower is cut off until it leaves the ISR
    and healed until it is back; each fault waits for both producers to have new
    acknowledgements, so it falls mid-stream for each."""
    import threading

    from kafka import KafkaProducer

    fixture, faults = PYTHON_CLIENT_RUNS[run]
    brokers: Cluster = request.getfixturevalue(fixture)
    topic = "failover-py"
    create_rf3_topic(brokers, topic)
    confluent = ConfluentLoad(brokers.bootstrap, topic, interval=0.005)
    kp = KafkaProducer(
        bootstrap_servers=brokers.bootstrap,
        acks="all",
        enable_idempotence=True,
        linger_ms=5,
        retries=2**31 - 1,
        delivery_timeout_ms=120_000,
        request_timeout_ms=30_000,
    )
    kp_futures: list[tuple[bytes, Any]] = []
    stop = threading.Event()

    def stream() -> None:
        n = 0
        while not stop.is_set():
            value = b"kp|%d" % n
            kp_futures.append((value, kp.send(topic, key=b"k%d" % (n % 16), value=value)))
            n += 1
            stop.wait(0.005)
        kp.flush(150)

    writer = threading.Thread(target=stream, daemon=True)
    writer.start()
    marks = [0, 0]

    def progressed() -> bool:
        now = [confluent.acked_count(), sum(1 for _, f in list(kp_futures) if f.is_done and f.succeeded())]
        if now[0] > marks[0] and now[1] > marks[1]:
            marks[:] = now
            return True
        return False

    def both_progressed(n: int, fault: str) -> None:
        wait_until(progressed, f"both producers acknowledged before fault {n} ({fault})", FAILOVER_DEADLINE_S)

    try:
        victims = inject_faults(brokers, topic, both_progressed, faults)
        wait_until(progressed, "both producers acknowledged after the last fault", FAILOVER_DEADLINE_S)
    finally:
        stop.set()
        confluent.stop()
        writer.join(160)
    assert not writer.is_alive(), "kafka-python did not finish flushing"
    assert len(victims) == faults.count("kill")
    try:
        kp_acked = [(value, f.get(timeout=30)) for value, f in kp_futures]
    finally:
        kp.close(10)
    assert confluent.unflushed == 0 and not confluent.errors, confluent.errors[:5]
    assert len(confluent.acked) == confluent.sent
    acked: dict[int, dict[int, bytes]] = {}
    for partition, offset, value in confluent.acked:
        acked.setdefault(partition, {})[offset] = value.encode()
    for value, md in kp_acked:
        assert md.offset not in acked.setdefault(md.partition, {}), "two records acked at one offset"
        acked[md.partition][md.offset] = value
    logs = check_replicas(brokers, topic, PARTITIONS, acked)
    in_logs = [v for records in logs for _, _, v in records]
    assert (
        len(in_logs) == len(set(in_logs)) == confluent.sent + len(kp_futures)
    )  # nothing twice, nothing lost
    for prefix in (b"c|", b"kp|"):
        for records in logs:  # in order per partition: each producer's counter increases
            mine = [int(v.split(b"|")[1]) for _, _, v in records if v.startswith(prefix)]
            assert mine == sorted(mine)


def test_a_follower_cut_off_leaves_the_isr_and_returns_while_confluent_produces(cluster: Cluster) -> None:  # noqa: F811 (the in-process fixture)
    """In-process cluster (``replica.lag.time.max.ms`` 3 s): a follower's link to the leader
    is cut until the leader drops it from the ISR, then healed until it is back; a
    confluent-kafka producer (idempotent, acks=all, min.insync 2) streams throughout."""
    from tests.cluster.test_replication import create_topic

    topic = "cut-follower"
    create_topic(cluster, topic, config={"min.insync.replicas": "2"})
    leader = leader_of(cluster, topic)
    # The leader's AlterPartition must reach the controller: the cut follower is not it.
    follower = follower_not_controller(cluster, leader)
    load = ConfluentLoad(cluster.bootstrap, topic, interval=0.005)
    try:
        wait_until(lambda: load.acked_count() > 200, "records acknowledged before the cut", 60)
        cluster.cut_link(leader, follower)
        wait_until(
            lambda: follower not in partition_view(cluster, leader, topic)[2],
            "the follower out of the ISR",
            60,
        )
        during = load.acked_count()
        wait_until(lambda: load.acked_count() > during + 200, "acks=all going on with two in sync", 60)
        cluster.heal_link(leader, follower)
        wait_until(
            lambda: follower in partition_view(cluster, leader, topic)[2], "the follower back in the ISR", 60
        )
        after = load.acked_count()
        wait_until(lambda: load.acked_count() > after + 200, "records acknowledged after the return", 60)
    finally:
        load.stop()
    assert load.unflushed == 0 and not load.errors, load.errors[:5]
    acked: dict[int, dict[int, bytes]] = {}
    for partition, offset, value in load.acked:
        acked.setdefault(partition, {})[offset] = value.encode()
    assert len(load.acked) == load.sent
    logs = check_replicas(cluster, topic, 1, acked)
    assert len(logs[0]) == load.sent


def offsets_leader(brokers: Cluster) -> int | None:
    """The leader of ``__consumer_offsets-0`` (the only partition here): the group coordinator."""
    live = [i for i in range(brokers.n) if brokers.alive(i)]
    view = agreed_metadata(brokers, ["__consumer_offsets"], live)
    if view is None:
        return None
    part = view.topic("__consumer_offsets").get(0)
    return part.leader if part is not None and part.leader in live else None


def wait_coordinator(brokers: Cluster, not_on: int | None = None) -> int:
    """The group coordinator's broker once there is one (and it is not ``not_on``)."""
    found = wait_until(
        lambda: (c := offsets_leader(brokers)) is not None and c != not_on and (c,), "a group coordinator", 60
    )
    return found[0]


def test_a_consumer_group_reads_across_leader_kills_and_its_offsets_survive_the_coordinator(
    zk_cluster: Cluster,
) -> None:
    """A confluent-kafka consumer in a group (committing as it goes) keeps reading while the
    group coordinator's broker and the topic's leader are killed; after a commit the
    coordinator's broker is killed again and a new member of the group resumes at the
    committed offset."""
    import threading

    from confluent_kafka import Consumer, TopicPartition

    from tests.cluster.test_replication import produce

    topic, group = "failover-group", f"group-{uuid.uuid4().hex[:6]}"
    create_rf3_topic(zk_cluster, topic, partitions=1)
    config = {
        "bootstrap.servers": zk_cluster.bootstrap,
        "group.id": group,
        "enable.auto.commit": False,
        "auto.offset.reset": "earliest",
        "session.timeout.ms": 45_000,
    }
    load = ConfluentLoad(zk_cluster.bootstrap, topic, interval=0.01)
    consumed: list[tuple[int, bytes]] = []
    stop = threading.Event()

    def read() -> None:
        consumer = Consumer(config)
        consumer.subscribe([topic])
        while not stop.is_set():
            msg = consumer.poll(0.5)
            if msg is None or msg.error():
                continue
            consumed.append((msg.offset(), msg.value()))
            if len(consumed) % 50 == 0:
                consumer.commit(asynchronous=True)  # failures during a failover are retried later
        consumer.commit(asynchronous=False)
        consumer.close()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        for kill in range(2):  # the coordinator's broker, then the topic's leader
            before = len(consumed)
            wait_until(lambda n=before: len(consumed) > n + 100, "the group consuming", 90)
            leader = wait_until(lambda: full_isr(zk_cluster, topic, 1), "the topic in sync", 120)[0]
            victim = wait_coordinator(zk_cluster) if kill == 0 else leader
            zk_cluster.kill(victim)
            wait_coordinator(zk_cluster, not_on=victim)
            before = len(consumed)
            wait_until(lambda n=before: len(consumed) > n + 100, "the group consuming after the kill", 90)
            zk_cluster.start_broker(victim)
            wait_until(lambda: full_isr(zk_cluster, topic, 1), f"broker {victim} back in the ISR", 120)
    finally:
        load.stop()
    assert load.unflushed == 0 and not load.errors, load.errors[:5]
    acked = {(o, v.encode()) for _, o, v in load.acked}
    wait_until(lambda: acked <= set(consumed), "every acknowledged record consumed", 90)
    stop.set()
    reader.join(60)
    assert not reader.is_alive()
    read_offsets = [o for o, _ in consumed]
    # across the kills the member may re-read from its last commit, never skip
    assert set(read_offsets) == set(range(max(read_offsets) + 1))

    probe = Consumer(config)
    try:
        committed = probe.committed([TopicPartition(topic, 0)], timeout=30)[0].offset
    finally:
        probe.close()
    assert committed == max(read_offsets) + 1
    coordinator = wait_coordinator(zk_cluster)
    zk_cluster.kill(coordinator)
    wait_coordinator(zk_cluster, not_on=coordinator)
    new_offsets = produce(zk_cluster, topic, [b"after-%d" % i for i in range(10)])
    assert min(new_offsets) == committed
    resumed = Consumer(config)
    resumed.subscribe([topic])
    try:
        first = wait_until(
            lambda: (m := resumed.poll(1.0)) is not None and not m.error() and m, "a record", 90
        )
        assert (first.offset(), first.value()) == (committed, b"after-0")
    finally:
        resumed.close()
