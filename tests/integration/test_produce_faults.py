"""Idempotent producers under faults (issue 4, "Done when": fault tests).

A :class:`~tests.support.fault_proxy.FaultProxy` sits between the real client and the broker:

- it drops a share of Produce responses (the client times out and re-sends batches the broker
  already wrote) or cuts connections after the broker answered (the client reconnects and
  re-sends at once);
- the broker is killed with SIGKILL in the middle of a stream, while some of its answers are
  held back by the proxy, and restarted on the same data; the same producer keeps retrying
  across the restart;
- the proxy answers one batch with OUT_OF_ORDER_SEQUENCE_NUMBER without the broker seeing it,
  which makes the Java producer bump its epoch (KIP-360) and start every partition again at
  sequence 0.

Afterwards the log holds every record exactly once, in send order per partition, with
unbroken sequences. The proxy's counters prove the faults happened and mattered:
``retried_batches`` are batches sent again after the broker had them, and
``duplicates_confirmed`` counts re-sends the broker answered with the offset it gave the first
time (its duplicate detection at work).

Also the expiry path: a producer silent for longer than ``producer.id.expiration.ms`` is
forgotten, and is then accepted at any sequence (on the wire and with confluent-kafka).

kcat is not driven through faults: it exits as soon as its only broker connection drops
("All broker connections are down").
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from protocol.errors import ErrorCode
from tests.integration.test_idempotent_produce import (
    KEYS,
    Delivery,
    assert_all_delivered,
    check_describe_producers,
    check_log,
    create_topic,
    idempotent_batch,
    init_producer_id,
    java_summary,
    produce_aiokafka,
    produce_confluent,
    produce_kafka_python,
    produce_wire,
    producer_states,
    read_log,
    record_key,
    record_value,
    unique_topic,
)
from tests.support.broker_process import BrokerProcess
from tests.support.fault_proxy import Action, FaultProxy, FaultRule, ProxyStats
from tests.support.java_client import JavaClient, produce_args, require_java

pytestmark = pytest.mark.integration

PRODUCE_KEY = 0
OUT_OF_ORDER = ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER.code

# Short client timeouts, so a dropped response costs about a second.
JAVA_FAST_RETRY = {"retry.backoff.ms": 50, "reconnect.backoff.ms": 50, "reconnect.backoff.max.ms": 200}
CONFLUENT_FAST_RETRY = {
    "request.timeout.ms": 1000,
    "socket.timeout.ms": 1000,
    "retry.backoff.ms": 50,
    "reconnect.backoff.ms": 50,
    "reconnect.backoff.max.ms": 200,
}


@pytest.fixture(scope="module")
def fault_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    b = BrokerProcess(tmp_path_factory.mktemp("produce-faults") / "data", {"num.partitions": "3"})
    b.start()
    yield b
    if b.alive():
        b.stop()


@pytest.fixture
def broker(fault_broker: BrokerProcess) -> BrokerProcess:
    """The module broker, started again if an earlier test left it down."""
    if not fault_broker.alive():
        fault_broker.start()
    return fault_broker


@pytest.fixture
def proxy(broker: BrokerProcess) -> Iterator[FaultProxy]:
    assert broker.port is not None
    px = FaultProxy(broker.host, broker.port, seed=4).start()
    yield px
    px.stop()


@pytest.fixture
def topic(broker: BrokerProcess, request: pytest.FixtureRequest) -> str:
    name = unique_topic(request.node.name.removeprefix("test_")[:30].replace("_", "-"))
    create_topic(broker, name)
    return name


def assert_retries_were_duplicates(stats: ProxyStats) -> None:
    """The faults made the client re-send batches the broker had already written, and the
    broker answered such a re-send with the original offset."""
    assert stats.retried_batches > 0, f"no batch was sent twice: {stats}"
    assert stats.duplicates_confirmed > 0, f"no re-send was answered as a duplicate: {stats}"


# ------------------------------------------------------------------------------ lost responses


def check_faults_left_each_record_once(
    broker, proxy, topic: str, *, stat: str, times: int, instance: str, count: int, describe: bool = True
) -> None:
    """The proxy caused exactly ``times`` faults of kind ``stat``, the client's retries of
    written batches were answered as duplicates, and the log holds each record once, in order."""
    stats = proxy.stats()
    assert getattr(stats, stat) == times, stats
    assert_retries_were_duplicates(stats)
    batches = read_log(broker, topic)
    check_log(batches, {instance: (count, KEYS)})
    if describe:
        check_describe_producers(broker, topic, batches)


@pytest.mark.java
def test_java_dropped_produce_responses_leave_each_record_once(broker, proxy, topic):
    require_java()
    rule = proxy.add_rule(FaultRule(Action.DROP, probability=0.3, after=3, times=2))
    count = 400
    result = JavaClient(proxy.bootstrap).produce(
        topic,
        count,
        instance="java",
        linger_ms=0,
        batch_size=64,
        request_timeout_ms=1500,
        properties=JAVA_FAST_RETRY,
    )
    java_summary(result, count)
    assert rule.fired == 2
    check_faults_left_each_record_once(
        broker, proxy, topic, stat="dropped", times=2, instance="java", count=count
    )


@pytest.mark.java
def test_java_cut_connections_leave_each_record_once(broker, proxy, topic):
    require_java()
    proxy.add_rule(FaultRule(Action.CUT, probability=0.2, after=3, times=4))
    count = 400
    result = JavaClient(proxy.bootstrap).produce(
        topic, count, instance="java", linger_ms=0, batch_size=64, properties=JAVA_FAST_RETRY
    )
    java_summary(result, count)
    check_faults_left_each_record_once(
        broker, proxy, topic, stat="cut", times=4, instance="java", count=count
    )


@pytest.mark.parametrize(
    ("rule", "stat", "count", "describe"),
    [
        pytest.param(
            FaultRule(Action.DROP, probability=0.3, after=3, times=2), "dropped", 300, True, id="dropped"
        ),
        pytest.param(FaultRule(Action.CUT, probability=0.2, after=3, times=4), "cut", 300, True, id="cut"),
        # Answers held past the client's request timeout: the client gives up on the request,
        # reconnects and re-sends batches whose late answers never reach it.
        pytest.param(
            FaultRule(Action.DELAY, probability=0.3, after=3, times=2, delay_s=2.5),
            "delayed",
            200,
            False,
            id="late",
        ),
    ],
)
def test_confluent_kafka_lost_answers_leave_each_record_once(
    broker, proxy, topic, rule, stat, count, describe
):
    proxy.add_rule(rule)
    deliveries = produce_confluent(
        proxy.bootstrap,
        topic,
        count,
        instance="ck",
        config={**CONFLUENT_FAST_RETRY, "batch.num.messages": 1, "linger.ms": 0},
        pause_s=0.002,
    )
    assert_all_delivered(deliveries, count)
    check_faults_left_each_record_once(
        broker, proxy, topic, stat=stat, times=rule.times, instance="ck", count=count, describe=describe
    )


def test_kafka_python_cut_connections_leave_each_record_once(broker, proxy, topic):
    proxy.add_rule(FaultRule(Action.CUT, probability=0.3, after=3, times=3))
    count = 150
    deliveries = produce_kafka_python(
        proxy.bootstrap,
        topic,
        count,
        instance="kp",
        config={"linger_ms": 0, "batch_size": 64, "retry_backoff_ms": 50, "reconnect_backoff_ms": 50},
        pause_s=0.002,
    )
    assert_all_delivered(deliveries, count)
    check_faults_left_each_record_once(
        broker, proxy, topic, stat="cut", times=3, instance="kp", count=count, describe=False
    )


def test_aiokafka_cut_connections_leave_each_record_once(broker, proxy, topic):
    proxy.add_rule(FaultRule(Action.CUT, probability=0.3, after=3, times=3))
    count = 150
    deliveries = produce_aiokafka(
        proxy.bootstrap,
        topic,
        count,
        instance="aio",
        config={"linger_ms": 0, "max_batch_size": 64, "retry_backoff_ms": 50},
        pause_s=0.002,
    )
    assert_all_delivered(deliveries, count)
    check_faults_left_each_record_once(
        broker, proxy, topic, stat="cut", times=3, instance="aio", count=count, describe=False
    )


# ------------------------------------------------------------------------------ kill -9


def _kill_while_answers_are_held(broker: BrokerProcess, proxy: FaultProxy) -> None:
    """Wait until the broker has written batches whose answers the proxy holds back, then
    SIGKILL the broker and start it again on the same data (an unclean shutdown)."""
    proxy.wait_for(lambda s: s.dropped >= 1 and s.swallowed >= 2, "written batches whose answers are lost")
    broker.restart(clean=False)
    broker.wait_for_log("no clean shutdown marker")  # it really recovered from a crash


@pytest.mark.java
def test_java_producer_continues_across_kill_9_without_duplicates(broker, proxy, topic):
    """The broker dies (SIGKILL) with written-but-unanswered batches in flight; after the
    restart the same Java producer re-sends them and the recovered producer state (snapshot
    plus log replay) recognises them as duplicates."""
    require_java()
    proxy.add_rule(FaultRule(Action.DROP, after=20, times=1))
    count = 600
    args = produce_args(
        topic=topic, count=count, keys=KEYS, instance="java", linger_ms=0, batch_size=64, throughput=300
    )
    with JavaClient(proxy.bootstrap).start("produce", *args, properties=JAVA_FAST_RETRY) as stream:
        _kill_while_answers_are_held(broker, proxy)
        result = stream.wait(120)
    java_summary(result, count)
    assert_retries_were_duplicates(proxy.stats())
    batches = read_log(broker, topic)
    check_log(batches, {"java": (count, KEYS)})
    check_describe_producers(broker, topic, batches)


def test_confluent_kafka_producer_continues_across_kill_9_without_duplicates(broker, proxy, topic):
    from confluent_kafka import Producer

    proxy.add_rule(FaultRule(Action.DROP, after=20, times=1))
    count = 400
    producer = Producer(
        {
            "bootstrap.servers": proxy.bootstrap,
            "enable.idempotence": True,
            "linger.ms": 0,
            "batch.num.messages": 1,
            "retry.backoff.ms": 50,
            "reconnect.backoff.ms": 50,
            "reconnect.backoff.max.ms": 200,
        }
    )
    deliveries: list[Delivery] = []

    def send_all() -> None:
        for n in range(count):
            producer.produce(
                topic,
                key=record_key(n),
                value=record_value("ck", n),
                on_delivery=lambda err, msg, n=n: deliveries.append(
                    Delivery(n, None if err is None else str(err), msg.partition(), msg.offset())
                ),
            )
            producer.poll(0.003)
        producer.flush(60)

    sender = threading.Thread(target=send_all, name="confluent-stream")
    sender.start()
    try:
        _kill_while_answers_are_held(broker, proxy)
    finally:
        sender.join(120)
    assert not sender.is_alive(), "the producer did not finish after the restart"
    assert_all_delivered(sorted(deliveries, key=lambda d: d.n), count)
    assert_retries_were_duplicates(proxy.stats())
    batches = read_log(broker, topic)
    check_log(batches, {"ck": (count, KEYS)})
    check_describe_producers(broker, topic, batches)


# ------------------------------------------------------------------------------ epoch bump


@pytest.mark.java
def test_java_epoch_bump_after_a_lost_batch_restarts_sequences_at_zero(broker, proxy, topic):
    """The proxy answers one mid-stream batch OUT_OF_ORDER_SEQUENCE_NUMBER without forwarding
    it (as if the broker had lost it). The Java producer bumps its epoch locally (KIP-360) and
    re-sends from sequence 0 under the new epoch; the broker accepts the higher epoch at
    sequence 0 and nothing is lost or doubled."""
    require_java()
    rule = proxy.add_rule(
        FaultRule(
            Action.INTERCEPT,
            error_code=OUT_OF_ORDER,
            times=1,
            when=lambda ex: any(b.base_sequence >= 20 for b in ex.batches),
        )
    )
    count = 400
    result = JavaClient(proxy.bootstrap).produce(
        topic,
        count,
        instance="java",
        linger_ms=0,
        batch_size=256,
        throughput=1000,
        properties=JAVA_FAST_RETRY,
    )
    java_summary(result, count)
    assert rule.fired == 1 and proxy.stats().intercepted == 1
    batches = read_log(broker, topic)
    check_log(batches, {"java": (count, KEYS)}, epoch_bumps_allowed=True)
    epochs = {b.header.producer_epoch for b in batches}
    assert epochs == {0, 1}, f"expected one epoch bump, the log has epochs {sorted(epochs)}"
    bumped = [b for b in batches if b.header.producer_epoch == 1]
    assert {b.partition for b in bumped} == {0, 1, 2}, "every partition continues under the new epoch"
    states = check_describe_producers(broker, topic, batches)
    assert {s.producer_epoch for p in states.values() for s in p.values()} == {1}


# ------------------------------------------------------------------------------ expiry


@pytest.fixture(scope="module")
def expiry_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    """Producers are forgotten after 1 s of silence, checked every 100 ms."""
    b = BrokerProcess(
        tmp_path_factory.mktemp("producer-expiry") / "data",
        {"producer.id.expiration.ms": "1000", "producer.id.expiration.check.interval.ms": "100"},
    )
    b.start()
    yield b
    if b.alive():
        b.stop()


def wait_until_forgotten(b: BrokerProcess, topic: str, partitions: int, timeout: float = 30.0) -> None:
    """Poll DescribeProducers until no partition of ``topic`` has an active producer."""
    deadline = time.monotonic() + timeout
    while any(producer_states(b, topic, p) for p in range(partitions)):
        assert time.monotonic() < deadline, "producers were not expired"
        time.sleep(0.1)


def test_expired_producer_is_accepted_at_any_sequence(expiry_broker):
    b = expiry_broker
    topic = unique_topic("expiry-wire")
    create_topic(b, topic, partitions=1)
    pid, epoch = init_producer_id(b)
    assert produce_wire(b, topic, 0, idempotent_batch(pid, epoch, 0, 3)).error_code == 0
    # While the broker knows the producer, a gap is refused.
    assert produce_wire(b, topic, 0, idempotent_batch(pid, epoch, 50, 2)).error_code == OUT_OF_ORDER
    assert producer_states(b, topic)[pid].last_sequence == 2
    wait_until_forgotten(b, topic, 1)
    # Forgotten: the same producer is accepted at any sequence, and known again from there.
    answer = produce_wire(b, topic, 0, idempotent_batch(pid, epoch, 50, 2))
    assert answer.error_code == 0 and answer.base_offset == 3, answer
    state = producer_states(b, topic)[pid]
    assert (state.producer_epoch, state.last_sequence) == (epoch, 51), state
    assert produce_wire(b, topic, 0, idempotent_batch(pid, epoch, 60, 1)).error_code == OUT_OF_ORDER


def test_confluent_kafka_producer_idle_past_expiration_continues(expiry_broker):
    """A real producer that pauses longer than producer.id.expiration.ms goes on with its next
    sequence numbers; the broker takes them as a new producer state. Nothing is lost or doubled."""
    from confluent_kafka import Producer

    b = expiry_broker
    topic = unique_topic("expiry-ck")
    create_topic(b, topic)
    producer = Producer({"bootstrap.servers": b.bootstrap, "enable.idempotence": True, "linger.ms": 5})
    deliveries: list[Delivery] = []

    def send(ns: range) -> None:
        for n in ns:
            producer.produce(
                topic,
                key=record_key(n),
                value=record_value("ck", n),
                on_delivery=lambda err, msg, n=n: deliveries.append(
                    Delivery(n, None if err is None else str(err), msg.partition(), msg.offset())
                ),
            )
        assert producer.flush(30) == 0

    send(range(0, 100))
    before = read_log(b, topic)
    wait_until_forgotten(b, topic, 3)
    send(range(100, 200))
    assert_all_delivered(sorted(deliveries, key=lambda d: d.n), 200)
    batches = read_log(b, topic)
    check_log(batches, {"ck": (200, KEYS)})
    # The producer did not start over: its sequences continue after the pause.
    end_before = {x.partition: x.header.next_offset for x in before}
    resumed = [x for x in batches if x.header.base_offset >= end_before[x.partition]]
    assert {x.partition for x in resumed} == set(end_before)
    assert all(x.header.base_sequence > 0 for x in resumed), resumed
    check_describe_producers(b, topic, batches)
