"""DUPLICATE_SEQUENCE_NUMBER (46) versus OUT_OF_ORDER_SEQUENCE_NUMBER (45) for old retries
(issue 4, point 4: "verify how each real client treats 46 before making it the default").

The broker answers 46 for a retry of the current epoch whose whole sequence range lies before
the batches it caches (``producer.state.duplicate.sequence.error=true``); Kafka answers 45
there. Such a retry happens whenever a client has more batches in flight than the broker
remembers: most simply after a clean restart, since a ``.snapshot`` keeps only the last batch
of each producer (Kafka's format), so a client re-sending the 2nd..5th batch of its window gets
45 from Kafka.

What the clients do, read in their sources and pinned by the tests below:

- Java kafka-clients 4.3, ``Sender.completeBatch``: 46 is not retriable, and the
  ``error == Errors.DUPLICATE_SEQUENCE_NUMBER`` branch completes the batch as a success
  ("The only thing we can do is to return success to the user and not return a valid offset
  and timestamp"): the callback gets offset -1. 45 goes through ``TransactionManager.canRetry``:
  for the idempotent producer, a 45 on the next expected sequence requests an epoch bump and a
  retry, so the batch, which the broker has, is written again under the new epoch: a duplicate.
- librdkafka (confluent-kafka 2.16, kcat's 2.0.2), ``rd_kafka_handle_idempotent_Produce_error``
  in rdkafka_request.c: 46 "Treat as success, however offset and timestamp will be invalid"
  (status PERSISTED, error voided); 45 on the head-of-line batch (``first_seq == next_ack_seq``)
  raises a fatal error ("sequence desynchronization with broker"): the producer is dead and its
  queued records are purged.
- kafka-python 3.0, ``kafka/producer/sender.py`` ``Sender._complete_batch``: 46 is turned into
  success ("records already committed, treating as success"), offsets -1
  (``FutureRecordMetadata`` keeps -1 for every record). 45 is not retriable: the records fail
  with OutOfOrderSequenceNumberError although the broker has them; the producer continues.
- aiokafka 0.14, ``aiokafka/producer/sender.py`` ``SendProduceReqHandler.handle_response``:
  46 calls ``batch.done(offset, ...)`` like a success, with the -1 from the response as base
  offset; ``MessageBatch.done`` (aiokafka/producer/message_accumulator.py) adds each record's
  relative offset, so the records of the batch report -1, 0, 1, ... (wrong offsets, but the
  records are delivered). 45 is not retriable: the records fail with OutOfOrderSequenceNumber
  although the broker has them.

So every client reports records answered 46 as delivered, and none of them copes with 45 for
a batch the broker already has. Recommendation: keep ``producer.state.duplicate.sequence.error``
on by default.

How the tests provoke it: on the wire (WireClient) the broker really answers 46 with the switch
on and 45 with it off; with the real clients the fault proxy cuts the connection after one
batch was written (the client re-sends it) and rewrites the answer to that re-send to 46 or 45;
and in the real situation, a clean broker restart while the proxy holds back the answers to
five written batches, the Java and librdkafka producers are run against both settings.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from protocol.errors import ErrorCode
from tests.integration.test_idempotent_produce import (
    Delivery,
    LogBatch,
    check_log,
    create_topic,
    idempotent_batch,
    init_producer_id,
    log_records,
    produce_aiokafka,
    produce_kafka_python,
    produce_kcat,
    produce_on,
    producer_states,
    read_log,
    record_key,
    record_value,
    unique_topic,
    wire,
)
from tests.support.broker_process import BrokerProcess
from tests.support.fault_proxy import Action, BatchKey, FaultProxy, FaultRule, ProxyStats
from tests.support.java_client import JavaClient, check_exactly_once, produce_args, require_java
from tests.support.kcat import require_kcat

pytestmark = pytest.mark.integration

DUPLICATE = ErrorCode.DUPLICATE_SEQUENCE_NUMBER.code  # 46
OUT_OF_ORDER = ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER.code  # 45
COUNT = 60
KEYS = 4  # one partition: record n has sequence n, so a batch's sequences name its records


@pytest.fixture(scope="module")
def brokers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[bool, BrokerProcess]]:
    """One broker with producer.state.duplicate.sequence.error on, one with it off."""
    started = {}
    for switch in (True, False):
        b = BrokerProcess(
            tmp_path_factory.mktemp(f"dupseq-{switch}") / "data",
            {"num.partitions": "1", "producer.state.duplicate.sequence.error": str(switch).lower()},
        )
        started[switch] = b.start()
    yield started
    for b in started.values():
        if b.alive():
            b.stop()


def running(brokers: dict[bool, BrokerProcess], switch: bool) -> BrokerProcess:
    b = brokers[switch]
    if not b.alive():
        b.start()
    return b


@pytest.fixture
def on_broker(brokers: dict[bool, BrokerProcess]) -> BrokerProcess:
    return running(brokers, True)


@pytest.fixture
def proxy(on_broker: BrokerProcess) -> Iterator[FaultProxy]:
    assert on_broker.port is not None
    px = FaultProxy(on_broker.host, on_broker.port, seed=46).start()
    yield px
    px.stop()


def new_topic(b: BrokerProcess, prefix: str) -> str:
    name = unique_topic(prefix)
    create_topic(b, name, partitions=1)
    return name


# ---------------------------------------------------------------------------------- the wire


@pytest.mark.parametrize(("switch", "code"), [(True, DUPLICATE), (False, OUT_OF_ORDER)], ids=["on", "off"])
def test_retry_older_than_the_cached_batches(brokers, switch, code):
    """Seven batches of two records; the broker caches the last five. A re-send of either of
    the first two is answered 46 with the switch on, 45 with it off; nothing is appended. A
    re-send of a cached batch is a duplicate answered NONE with its original offset."""
    b = running(brokers, switch)
    topic = new_topic(b, "old-retry")
    pid, epoch = init_producer_id(b)
    with wire(b) as c:
        for i in range(7):
            answer = produce_on(c, topic, 0, idempotent_batch(pid, epoch, 2 * i, 2))
            assert (answer.error_code, answer.base_offset) == (0, 2 * i), answer
        for i in (0, 1):
            answer = produce_on(c, topic, 0, idempotent_batch(pid, epoch, 2 * i, 2))
            assert answer.error_code == code, answer
            assert answer.base_offset == -1, answer
        cached = produce_on(c, topic, 0, idempotent_batch(pid, epoch, 4, 2))
        assert (cached.error_code, cached.base_offset) == (0, 4), cached
        # Nothing was appended by the re-sends: the next batch lands at offset 14.
        answer = produce_on(c, topic, 0, idempotent_batch(pid, epoch, 14, 1))
        assert (answer.error_code, answer.base_offset) == (0, 14), answer
    assert producer_states(b, topic)[pid].last_sequence == 14


@pytest.mark.parametrize("switch", [True, False], ids=["on", "off"])
def test_a_gap_after_the_last_sequence_is_out_of_order_either_way(brokers, switch):
    """46 is only for ranges before the cached batches; a batch after a gap is still 45."""
    b = running(brokers, switch)
    topic = new_topic(b, "gap")
    pid, epoch = init_producer_id(b)
    with wire(b) as c:
        for i in range(7):
            assert produce_on(c, topic, 0, idempotent_batch(pid, epoch, i)).error_code == 0
        assert produce_on(c, topic, 0, idempotent_batch(pid, epoch, 9)).error_code == OUT_OF_ORDER
        # A range straddling the oldest cached batch is not certainly a duplicate.
        assert produce_on(c, topic, 0, idempotent_batch(pid, epoch, 1, 2)).error_code == OUT_OF_ORDER


@pytest.mark.parametrize(("switch", "code"), [(True, DUPLICATE), (False, OUT_OF_ORDER)], ids=["on", "off"])
def test_retry_after_a_clean_restart_is_older_than_the_snapshot(brokers, switch, code):
    """After a clean shutdown the producer state comes from the ``.snapshot``, which keeps only
    the last batch of each producer (Kafka's format): a re-send of the batch before it is
    46 with the switch on, 45 (Kafka's answer) with it off."""
    b = running(brokers, switch)
    topic = new_topic(b, "restart")
    pid, epoch = init_producer_id(b)
    with wire(b) as c:
        for i in range(5):
            assert produce_on(c, topic, 0, idempotent_batch(pid, epoch, i)).error_code == 0
    b.restart(clean=True)
    with wire(b) as c:
        assert produce_on(c, topic, 0, idempotent_batch(pid, epoch, 3)).error_code == code
        last = produce_on(c, topic, 0, idempotent_batch(pid, epoch, 4))
        assert (last.error_code, last.base_offset) == (0, 4), last
        assert produce_on(c, topic, 0, idempotent_batch(pid, epoch, 5)).error_code == 0
    assert len(log_records(read_log(b, topic, 1))) == 6


# ------------------------------------------------------------------------ clients, rewritten


@dataclass
class ClientRun:
    """A client's run: what it reported per record, a fatal error if any, and the proxy's view."""

    instance: str
    deliveries: list[Delivery]
    fatal: str | None
    stats: ProxyStats
    batches: list[LogBatch]

    def rewritten_batch(self) -> BatchKey:
        keys = [
            batch for action, _, batches in self.stats.events if action is Action.REWRITE for batch in batches
        ]
        assert len(keys) == 1, self.stats.events
        return keys[0]

    def records_of(self, key: BatchKey) -> list[int]:
        # One partition and one producer epoch: sequence n is record n.
        assert key.producer_epoch == 0
        return list(range(key.base_sequence, key.last_sequence + 1))

    def report(self) -> Any:
        return check_exactly_once(log_records(self.batches), {self.instance: (COUNT, KEYS)})


def rewrite_one_retry(proxy: FaultProxy, code: int) -> None:
    """Cut the connection once the broker has answered a batch starting at sequence 8 or
    later (the client re-sends that batch), then hand the client ``code`` instead of the
    broker's answer to the re-send. The clients' batches are kept small, so such a batch
    exists however the records were grouped."""
    proxy.add_rule(
        FaultRule(
            Action.CUT,
            first_attempts_only=True,
            times=1,
            when=lambda ex: any(b.base_sequence >= 8 for b in ex.batches),
        )
    )
    proxy.add_rule(FaultRule(Action.REWRITE, retries_only=True, times=1, error_code=code))


def run_java(b: BrokerProcess, proxy: FaultProxy, topic: str) -> ClientRun:
    require_java()
    result = JavaClient(proxy.bootstrap).produce(
        topic,
        COUNT,
        keys=KEYS,
        instance="java",
        linger_ms=0,
        batch_size=64,
        throughput=300,
        print_acks=True,
        properties={"retry.backoff.ms": 50},
        timeout=120,
    )
    summary = result.last
    deliveries = [
        Delivery(int(e["seq"]) * KEYS + int(e["key"]), None, e["partition"], e["offset"])
        for e in result.events("ack")
    ]
    deliveries += [
        Delivery(int(e["seq"]) * KEYS + int(e["key"]), e.get("error_code") or e["error"], None, None)
        for e in summary["errors"]
        if "seq" in e
    ]
    assert summary["failed"] <= len(summary["errors"]), "more failures than the driver sampled"
    return ClientRun(
        "java", sorted(deliveries, key=lambda d: d.n), None, proxy.stats(), read_log(b, topic, 1)
    )


def run_confluent(b: BrokerProcess, proxy: FaultProxy, topic: str) -> ClientRun:
    from confluent_kafka import KafkaException, Producer

    producer = Producer(
        {
            "bootstrap.servers": proxy.bootstrap,
            "enable.idempotence": True,
            "linger.ms": 0,
            "batch.num.messages": 3,
            "retry.backoff.ms": 50,
            "reconnect.backoff.ms": 50,
        }
    )
    deliveries: list[Delivery] = []
    fatal = None
    try:
        for n in range(COUNT):
            producer.produce(
                topic,
                key=record_key(n, KEYS),
                value=record_value("ck", n, KEYS),
                on_delivery=lambda err, msg, n=n: deliveries.append(
                    Delivery(n, None if err is None else err.name(), msg.partition(), msg.offset())
                ),
            )
            # The first request waits for the producer id; alone, it keeps the rest in
            # separate batches.
            producer.flush(10) if n == 0 else producer.poll(0.003)
        producer.flush(30)
    except KafkaException as exc:
        fatal = exc.args[0].name()
        # Deliver the purge reports. The binding may call a report's callback while the fatal
        # error it raises again is still set (a SystemError of confluent-kafka's, depending on
        # how librdkafka's events fall): the next call serves the reports left.
        for _ in range(3):
            with contextlib.suppress(KafkaException, SystemError):
                producer.flush(5)
            if not len(producer):
                break
    return ClientRun("ck", sorted(deliveries, key=lambda d: d.n), fatal, proxy.stats(), read_log(b, topic, 1))


def run_kafka_python(b: BrokerProcess, proxy: FaultProxy, topic: str) -> ClientRun:
    deliveries = produce_kafka_python(
        proxy.bootstrap,
        topic,
        COUNT,
        instance="kp",
        keys=KEYS,
        config={"linger_ms": 0, "batch_size": 100, "retry_backoff_ms": 50},
        pause_s=0.003,
    )
    return ClientRun("kp", deliveries, None, proxy.stats(), read_log(b, topic, 1))


def run_aiokafka(b: BrokerProcess, proxy: FaultProxy, topic: str) -> ClientRun:
    # linger with small batches: several records per batch (so the offsets of a 46 batch
    # show), and many batches.
    deliveries = produce_aiokafka(
        proxy.bootstrap,
        topic,
        COUNT,
        instance="aio",
        keys=KEYS,
        config={"linger_ms": 20, "max_batch_size": 200, "retry_backoff_ms": 50},
        pause_s=0.002,
    )
    return ClientRun("aio", deliveries, None, proxy.stats(), read_log(b, topic, 1))


def assert_46_reached_the_client(run: ClientRun) -> list[int]:
    """The proxy really answered one re-send with 46; returns that batch's records."""
    assert run.stats.cut == 1 and run.stats.rewritten == 1, run.stats
    assert run.stats.produce_errors_to_client[DUPLICATE] == 1, run.stats
    return run.records_of(run.rewritten_batch())


def assert_delivered_once_and_continued(run: ClientRun, batch: list[int]) -> None:
    """Every record reported delivered, the log exactly once, and records after the 46 batch
    delivered at their real offsets (the producer carried on)."""
    assert [d.n for d in run.deliveries] == list(range(COUNT))
    assert run.fatal is None
    assert [d for d in run.deliveries if d.error] == []
    check_log(run.batches, {run.instance: (COUNT, KEYS)})
    after = [d for d in run.deliveries if d.n > batch[-1]]
    assert after and all(d.offset == d.n for d in after), after


@pytest.mark.java
def test_java_takes_46_for_a_retry_as_delivered_without_offset(on_broker, proxy):
    topic = new_topic(on_broker, "java-46")
    rewrite_one_retry(proxy, DUPLICATE)
    run = run_java(on_broker, proxy, topic)
    batch = assert_46_reached_the_client(run)
    assert_delivered_once_and_continued(run, batch)
    assert [d.offset for d in run.deliveries if d.n in batch] == [-1] * len(batch)


def test_confluent_kafka_takes_46_for_a_retry_as_delivered_without_offset(on_broker, proxy):
    topic = new_topic(on_broker, "ck-46")
    rewrite_one_retry(proxy, DUPLICATE)
    run = run_confluent(on_broker, proxy, topic)
    batch = assert_46_reached_the_client(run)
    assert_delivered_once_and_continued(run, batch)
    # librdkafka's RD_KAFKA_OFFSET_INVALID, which confluent-kafka shows as None.
    assert [d.offset for d in run.deliveries if d.n in batch] == [None] * len(batch)


def test_kafka_python_takes_46_for_a_retry_as_delivered_without_offset(on_broker, proxy):
    topic = new_topic(on_broker, "kp-46")
    rewrite_one_retry(proxy, DUPLICATE)
    run = run_kafka_python(on_broker, proxy, topic)
    batch = assert_46_reached_the_client(run)
    assert_delivered_once_and_continued(run, batch)
    assert [d.offset for d in run.deliveries if d.n in batch] == [-1] * len(batch)


def test_aiokafka_takes_46_for_a_retry_as_delivered_with_made_up_offsets(on_broker, proxy):
    topic = new_topic(on_broker, "aio-46")
    rewrite_one_retry(proxy, DUPLICATE)
    run = run_aiokafka(on_broker, proxy, topic)
    batch = assert_46_reached_the_client(run)
    assert_delivered_once_and_continued(run, batch)
    # MessageBatch.done adds each record's relative offset to the -1 of the response.
    assert len(batch) >= 2, "linger should have put several records in the batch"
    assert [d.offset for d in run.deliveries if d.n in batch] == [-1 + i for i in range(len(batch))]


def test_kcat_takes_46_as_delivered(on_broker, proxy):
    """kcat (librdkafka 2.0.2) exits on a lost connection, so the 46 answers a first attempt
    (the batch was written): kcat reports no failure and the log is exactly once."""
    require_kcat()
    topic = new_topic(on_broker, "kcat-46")
    proxy.add_rule(FaultRule(Action.REWRITE, after=3, times=1, error_code=DUPLICATE))
    produce_kcat(
        proxy.bootstrap,
        topic,
        COUNT,
        instance="kcat",
        keys=KEYS,
        config={"linger.ms": 0, "batch.num.messages": 2},
    )
    assert proxy.stats().produce_errors_to_client[DUPLICATE] == 1
    check_log(read_log(on_broker, topic, 1), {"kcat": (COUNT, KEYS)})


def test_a_larger_batch_window_keeps_older_retries_exact(broker_factory):
    """producer.state.batch.window=10: the broker remembers ten batches per producer, so a
    client may keep more than five requests in flight and still get exact duplicates (NONE
    with the original offset) for all of them."""
    b = broker_factory({"producer.state.batch.window": "10"}, name="window-10")
    topic = new_topic(b, "window")
    pid, epoch = init_producer_id(b)
    with wire(b) as c:
        for i in range(10):
            assert produce_on(c, topic, 0, idempotent_batch(pid, epoch, i)).base_offset == i
        for i in range(10):
            again = produce_on(c, topic, 0, idempotent_batch(pid, epoch, i))
            assert (again.error_code, again.base_offset) == (0, i), again
        assert produce_on(c, topic, 0, idempotent_batch(pid, epoch, 10)).error_code == 0
        # The eleventh batch pushed the first one out: now it is older than the window.
        assert produce_on(c, topic, 0, idempotent_batch(pid, epoch, 0)).error_code == DUPLICATE


# What 45, Kafka's answer to a retry older than its cached batches, does to the same clients.


@pytest.mark.java
def test_java_rewrites_a_batch_answered_45_under_a_new_epoch(on_broker, proxy):
    topic = new_topic(on_broker, "java-45")
    rewrite_one_retry(proxy, OUT_OF_ORDER)
    run = run_java(on_broker, proxy, topic)
    assert run.stats.produce_errors_to_client[OUT_OF_ORDER] == 1, run.stats
    batch = run.records_of(run.rewritten_batch())
    assert [d for d in run.deliveries if d.error] == [] and len(run.deliveries) == COUNT
    # The client bumped its epoch and sent the batch again: its records are in the log twice.
    report = run.report()
    doubled = {pv.seq * KEYS + int(pv.key) for pv, _ in report.duplicates}
    assert set(batch) <= doubled, report
    assert {x.header.producer_epoch for x in run.batches} == {0, 1}


def test_confluent_kafka_dies_on_45_for_its_oldest_batch(on_broker, proxy):
    topic = new_topic(on_broker, "ck-45")
    rewrite_one_retry(proxy, OUT_OF_ORDER)
    run = run_confluent(on_broker, proxy, topic)
    assert run.stats.produce_errors_to_client[OUT_OF_ORDER] == 1, run.stats
    batch = run.records_of(run.rewritten_batch())
    # The loop's poll raises the fatal error with its code; when librdkafka's thread sets it
    # just after a poll returned, the next produce raises _FATAL instead (the producer is dead
    # either way). The 45 shows in the batch's reports.
    assert run.fatal in ("OUT_OF_ORDER_SEQUENCE_NUMBER", "_FATAL"), run.fatal
    failed = {d.n: d.error for d in run.deliveries if d.error}
    assert all(failed.get(n) == "OUT_OF_ORDER_SEQUENCE_NUMBER" for n in batch), failed
    # ... although the broker has that batch.
    report = run.report()
    assert all(("ck", str(n % KEYS), n // KEYS) not in report.missing for n in batch)


@pytest.mark.parametrize("client", ["kafka-python", "aiokafka"])
def test_python_clients_fail_records_answered_45_that_the_broker_has(on_broker, proxy, client):
    topic = new_topic(on_broker, f"{client}-45")
    rewrite_one_retry(proxy, OUT_OF_ORDER)
    run = (run_kafka_python if client == "kafka-python" else run_aiokafka)(on_broker, proxy, topic)
    assert run.stats.produce_errors_to_client[OUT_OF_ORDER] == 1, run.stats
    batch = run.records_of(run.rewritten_batch())
    failed = sorted(d.n for d in run.deliveries if d.error)
    assert failed == batch, run.deliveries
    assert all("OutOfOrderSequenceNumber" in (d.error or "") for d in run.deliveries if d.n in batch)
    # The records reported failed are in the log, exactly once; the producer went on.
    check_log(run.batches, {run.instance: (COUNT, KEYS)})


# ------------------------------------------------------------------- clients, clean restart


def hold_answers_then_restart(b: BrokerProcess, proxy: FaultProxy) -> None:
    """Once the broker has written five batches whose answers the proxy swallows (a full
    in-flight window), stop it cleanly (a snapshot with only the last batch) and start it."""
    proxy.wait_for(lambda s: s.dropped == 1 and s.swallowed >= 4, "five written, unanswered batches")
    b.restart(clean=True)


@pytest.fixture(params=[True, False], ids=["switch-on", "switch-off"])
def restart_setup(request, brokers) -> Iterator[tuple[bool, BrokerProcess, FaultProxy, str]]:
    switch = request.param
    b = running(brokers, switch)
    assert b.port is not None
    topic = new_topic(b, "lost-acks")
    px = FaultProxy(b.host, b.port, seed=5).start()
    px.add_rule(FaultRule(Action.DROP, after=10, times=1))
    yield switch, b, px, topic
    px.stop()


@pytest.mark.java
def test_java_retries_after_a_clean_restart(restart_setup):
    """Switch on: the re-sends older than the snapshot get 46, the Java producer counts them
    delivered, the log is exactly once. Switch off (Kafka's behaviour): 45, an epoch bump, and
    the records of those batches are written a second time."""
    require_java()
    switch, b, proxy, topic = restart_setup
    count = 200
    args = produce_args(
        topic=topic, count=count, keys=KEYS, instance="java", linger_ms=0, batch_size=64, throughput=400
    )
    with JavaClient(proxy.bootstrap).start("produce", *args, properties={"retry.backoff.ms": 50}) as stream:
        hold_answers_then_restart(b, proxy)
        summary = stream.wait(120).last
    assert summary["ok"] and summary["acked"] == count, summary
    stats = proxy.stats()
    report = check_exactly_once(log_records(read_log(b, topic, 1)), {"java": (count, KEYS)})
    if switch:
        assert stats.produce_errors_to_client[DUPLICATE] >= 1, stats
        assert report.ok, report
    else:
        assert stats.produce_errors_to_client[OUT_OF_ORDER] >= 1, stats
        assert report.duplicates and not report.missing, report


def test_confluent_kafka_retries_after_a_clean_restart(restart_setup):
    """Switch on: 46, all delivered, exactly once. Switch off (Kafka's behaviour): 45 on the
    oldest unacknowledged batch is fatal for librdkafka; the records it had queued are lost."""
    from confluent_kafka import KafkaException, Producer

    switch, b, proxy, topic = restart_setup
    count = 200
    producer = Producer(
        {
            "bootstrap.servers": proxy.bootstrap,
            "enable.idempotence": True,
            "linger.ms": 0,
            "batch.num.messages": 1,
            "retry.backoff.ms": 50,
            "reconnect.backoff.ms": 50,
        }
    )
    errors: list[str] = []
    fatal: list[str] = []

    def send_all() -> None:
        try:
            for n in range(count):
                producer.produce(
                    topic,
                    key=record_key(n, KEYS),
                    value=record_value("ck", n, KEYS),
                    on_delivery=lambda err, msg: err is not None and errors.append(err.name()),
                )
                producer.poll(0.004)
            producer.flush(60)
        except KafkaException as exc:
            fatal.append(exc.args[0].name())

    sender = threading.Thread(target=send_all, name="confluent-restart")
    sender.start()
    try:
        hold_answers_then_restart(b, proxy)
    finally:
        sender.join(120)
    stats = proxy.stats()
    report = check_exactly_once(log_records(read_log(b, topic, 1)), {"ck": (count, KEYS)})
    if switch:
        assert (fatal, errors) == ([], []), (fatal, errors[:5])
        assert stats.produce_errors_to_client[DUPLICATE] >= 1, stats
        assert report.ok, report
    else:
        assert fatal == ["OUT_OF_ORDER_SEQUENCE_NUMBER"], fatal
        assert stats.produce_errors_to_client[OUT_OF_ORDER] >= 1, stats
        assert report.missing and not report.duplicates, report
