"""Dynamic ``log.cleaner.*`` and ``max.connections.per.ip.overrides`` broker configs, changed
by real admin clients (IncrementalAlterConfigs on the broker entity) and seen to act.

- ``log.cleaner.backoff.ms``: a broker whose cleaner sleeps an hour between looks leaves a
  dirty compacted topic alone; lowered through confluent-kafka's admin client, the cleaner
  restarts at once (``LogCleaner.reconfigure``) and compacts it: a consumer reading from the
  start sees one record per key (and the active segment's).
- ``log.cleaner.threads`` / ``log.cleaner.io.max.bytes.per.second``: the cleaner runs with
  the new thread count and throttle rate; Kafka's limits on the thread count are refused
  with its messages; DescribeConfigs shows the source.
- ``log.cleaner.dedupe.buffer.size`` / ``.io.buffer.size`` / ``.io.buffer.load.factor``: the
  restarted cleaner's offset map and read buffer have the new sizes.
- ``max.connections.per.ip.overrides``: set through the Java Admin to 2 for
  127.0.0.1, the third connection from there is closed at once; the existing ones stay;
  removed, a third connection is served again.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from confluent_kafka import Consumer, KafkaException, Producer
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    ConfigSource,
    ResourceType,
)

from broker.testing.embedded import InProcessBroker
from protocol.messages import ApiVersionsRequest
from storage.log_cleaner_filter import OFFSET_MAP_BYTES_PER_ENTRY
from tests.support.java_client import JavaClient, require_java
from tests.support.polling import wait_until
from tests.support.wire_client import WireClient


@pytest.fixture
def kafka(tmp_path) -> Iterator[InProcessBroker]:
    with InProcessBroker(tmp_path, {"log.cleaner.backoff.ms": 3_600_000}) as broker:
        yield broker


def alter_broker(kafka: InProcessBroker, **settings: str | None) -> None:
    """confluent-kafka: IncrementalAlterConfigs of broker 0 (None deletes the key)."""
    admin = AdminClient({"bootstrap.servers": kafka.bootstrap_servers})
    entries = [
        ConfigEntry(
            name.replace("_", "."),
            value,
            incremental_operation=AlterConfigOpType.SET if value is not None else AlterConfigOpType.DELETE,
        )
        for name, value in settings.items()
    ]
    resource = ConfigResource(ResourceType.BROKER, "0", incremental_configs=entries)
    admin.incremental_alter_configs([resource], request_timeout=30)[resource].result(30)


def read_all(kafka: InProcessBroker, topic: str, end: int) -> list[tuple[bytes, bytes]]:
    """(key, value) of every record of partition 0 up to ``end`` (exclusive), from the start."""
    consumer = Consumer(
        {
            "bootstrap.servers": kafka.bootstrap_servers,
            "group.id": uuid.uuid4().hex,
            "auto.offset.reset": "earliest",
            "enable.partition.eof": True,
        }
    )
    consumer.subscribe([topic])
    out = []
    while True:
        message = consumer.poll(10)
        assert message is not None, "the consumer got nothing"
        if message.error() is not None:
            break  # end of partition
        out.append((message.key(), message.value()))
        if message.offset() + 1 >= end:
            break
    consumer.close()
    return out


def test_a_lowered_cleaner_backoff_restarts_the_cleaner_which_compacts_at_once(
    kafka: InProcessBroker,
) -> None:
    kafka.create_topic(
        "compacted",
        config={"cleanup.policy": "compact", "segment.bytes": 2048, "min.cleanable.dirty.ratio": 0.01},
    )
    producer = Producer({"bootstrap.servers": kafka.bootstrap_servers, "linger.ms": 0})
    for i in range(300):
        producer.produce("compacted", key=b"k%d" % (i % 10), value=b"v%03d-" % i + b"x" * 60, partition=0)
        producer.flush(10)  # one batch per record: many segments
    cleaner = kafka.run(lambda: kafka.broker.log_manager.cleaner)
    segments = kafka.run(lambda: len(kafka.broker.log_manager.get_log("compacted", 0).segments()))
    assert segments > 5
    assert kafka.run(lambda: cleaner.rounds) == 0  # asleep for an hour since the start

    alter_broker(kafka, log_cleaner_backoff_ms="100")
    wait_until(lambda: kafka.run(lambda: cleaner.rounds) >= 1, "a cleaning round after the change")
    assert kafka.run(lambda: (cleaner.restarts, cleaner.config.backoff_ms)) == (1, 100)
    records = read_all(kafka, "compacted", 300)
    latest = {b"k%d" % k: max(i for i in range(300) if i % 10 == k) for k in range(10)}
    # every key's latest value is there, and most older ones are gone
    assert all(
        any(key == k and value.startswith(b"v%03d-" % i) for key, value in records) for k, i in latest.items()
    )
    assert len(records) < 100, len(records)


def test_cleaner_threads_and_io_rate_change_live_within_kafkas_limits(kafka: InProcessBroker) -> None:
    cleaner = kafka.run(lambda: kafka.broker.log_manager.cleaner)
    alter_broker(kafka, log_cleaner_threads="2", log_cleaner_io_max_bytes_per_second="1048576")
    wait_until(lambda: kafka.run(lambda: cleaner.restarts) == 1, "the cleaner restarting")
    assert kafka.run(lambda: (cleaner.config.threads, cleaner.throttler.rate)) == (2, 1048576.0)

    for threads, message in [
        ("5", "Log cleaner threads cannot be increased to more than double the current value 2"),
        ("0", "Log cleaner threads should be at least 1"),
    ]:
        with pytest.raises(KafkaException) as refused:
            alter_broker(kafka, log_cleaner_threads=threads)
        assert refused.value.args[0].name() == "INVALID_REQUEST" and message in refused.value.args[0].str()
    assert kafka.run(lambda: cleaner.config.threads) == 2

    admin = AdminClient({"bootstrap.servers": kafka.bootstrap_servers})
    resource = ConfigResource(ResourceType.BROKER, "0")
    described = admin.describe_configs([resource], request_timeout=30)[resource].result(30)
    threads = described["log.cleaner.threads"]
    assert (threads.value, threads.source, threads.is_read_only) == (
        "2",
        ConfigSource.DYNAMIC_BROKER_CONFIG.value,
        False,
    )

    alter_broker(kafka, log_cleaner_threads=None, log_cleaner_io_max_bytes_per_second=None)
    wait_until(lambda: kafka.run(lambda: cleaner.restarts) == 2, "the cleaner restarting again")
    assert kafka.run(lambda: cleaner.config.threads) == 1


def test_cleaner_buffer_sizes_and_load_factor_change_live(kafka: InProcessBroker) -> None:
    """``log.cleaner.dedupe.buffer.size``, ``.io.buffer.size`` and ``.io.buffer.load.factor``
    (Kafka's ``LogCleaner.ReconfigurableConfigs``): the restarted cleaner cleans with an offset
    map of the new size and load factor and reads with the new buffer size."""
    kafka.create_topic(
        "sized",
        config={"cleanup.policy": "compact", "segment.bytes": 1024, "min.cleanable.dirty.ratio": 0.01},
    )
    producer = Producer({"bootstrap.servers": kafka.bootstrap_servers, "linger.ms": 0})
    for i in range(40):
        producer.produce("sized", key=b"k%d" % (i % 4), value=b"v%02d-" % i + b"x" * 60, partition=0)
        producer.flush(10)  # one batch per record: several segments
    cleaner = kafka.run(lambda: kafka.broker.log_manager.cleaner)
    seen: list[tuple[int, int, int]] = []  # (map slots, map capacity, read buffer) of each cleaning

    def spy_on_cleanings() -> None:
        clean = cleaner.clean

        async def spied(ltc, omap, thread_id):
            seen.append((omap.slots, omap.max_entries, cleaner.cleaner.io_buffer_size))
            return await clean(ltc, omap, thread_id)

        cleaner.clean = spied

    kafka.run(spy_on_cleanings)
    dedupe, io_buffer = 2 * 1024 * 1024, 64 * 1024
    alter_broker(
        kafka,
        log_cleaner_dedupe_buffer_size=str(dedupe),
        log_cleaner_io_buffer_size=str(io_buffer),
        log_cleaner_io_buffer_load_factor="0.5",
        log_cleaner_backoff_ms="100",
    )
    wait_until(lambda: kafka.run(lambda: cleaner.rounds) >= 1, "a cleaning round after the change")
    config = kafka.run(lambda: cleaner.config)
    assert (config.dedupe_buffer_size, config.io_buffer_size, config.io_buffer_load_factor) == (
        dedupe,
        io_buffer,
        0.5,
    )
    slots = dedupe // config.threads // OFFSET_MAP_BYTES_PER_ENTRY
    assert seen and seen[-1] == (slots, int(slots * 0.5), io_buffer)
    records = read_all(kafka, "sized", 40)
    assert len(records) < 40  # it cleaned


def served(kafka: InProcessBroker) -> WireClient | None:
    """A new connection that gets an answer (None if the broker closed it). A refused one is
    closed at once; an answer may take seconds on a loaded machine (a timeout is an OSError
    too, so a short one would read as a refusal)."""
    client = WireClient("127.0.0.1", kafka.port, timeout=30)
    try:
        client.request(ApiVersionsRequest(), 0)
    except (OSError, ConnectionError, EOFError):
        client.close()
        return None
    return client


def test_connection_overrides_per_ip_change_live(kafka: InProcessBroker) -> None:
    java = JavaClient(kafka.bootstrap_servers, runtime=require_java())
    result = java.incremental_alter_configs(
        "broker", "0", set_={"max.connections.per.ip.overrides": "127.0.0.1:2"}
    )
    assert result["ok"], result
    quotas = kafka.run(lambda: kafka.broker.server.quotas)
    wait_until(lambda: kafka.run(lambda: quotas.limit_for("127.0.0.1")) == 2, "the override applied")
    wait_until(
        lambda: kafka.run(lambda: quotas.per_ip.get("127.0.0.1", 0)) == 0, "the admin's connection closed"
    )

    first, second = served(kafka), served(kafka)
    assert first is not None and second is not None
    assert served(kafka) is None  # the third from 127.0.0.1 is closed at once
    second.close()
    wait_until(lambda: kafka.run(lambda: quotas.per_ip.get("127.0.0.1", 0)) == 1, "a slot freed")

    alter_broker(kafka, max_connections_per_ip_overrides=None)  # back to max.connections.per.ip
    wait_until(lambda: kafka.run(lambda: quotas.limit_for("127.0.0.1")) > 2, "the override removed")
    extra = [served(kafka) for _ in range(3)]
    assert all(c is not None for c in extra)
    for c in [first, *extra]:
        assert c is not None
        c.close()
