"""Log compaction with real clients (issue 16, point 1, first "Done when").

The Java client (kafka-clients 4.3) produces 10,000 keys x 20 updates to a compacted topic
with small segments; the broker's cleaner compacts it while and after it is written (the
cleaner's checkpoint, ``cleaner-offset-checkpoint``, shows how far); a consumer then reads
about 10,000 records, each key once below the active segment, each with its latest value.
Tombstones written by confluent-kafka stay until ``delete.retention.ms`` has passed and go
with a later cleaning. A broker killed with ``kill -9`` while cleaning comes back with every
latest value (from the old segments or the new).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from storage.checkpoints import CheckpointError, OffsetCheckpointFile
from storage.log_cleaner_manager import CLEANER_OFFSET_CHECKPOINT
from tests.support.broker_process import BrokerProcess
from tests.support.java_client import JavaClient, parse_value, require_java

pytestmark = pytest.mark.integration

KEYS = 10_000
UPDATES = 20


def wait_until(predicate: Callable[[], bool], what: str, timeout: float = 180.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def checkpoint(data: Path, topic: str) -> int | None:
    try:
        return OffsetCheckpointFile(data / CLEANER_OFFSET_CHECKPOINT).read().get((topic, 0))
    except (FileNotFoundError, CheckpointError):
        return None


def log_file_sizes(data: Path, topic: str) -> dict[Path, int]:
    """The partition's ``.log`` files and their sizes; a file the cleaner swapped or deleted
    between the listing and its stat is left out."""
    sizes = {}
    for path in (data / f"{topic}-0").glob("*.log"):
        try:
            sizes[path] = path.stat().st_size
        except FileNotFoundError:
            continue
    return sizes


def segment_bases(data: Path, topic: str) -> list[int]:
    return sorted(int(p.name.split(".")[0]) for p in (data / f"{topic}-0").glob("*.log"))


def read_all(bootstrap: str, topic: str) -> list[tuple[int, bytes | None, bytes | None]]:
    """(offset, key, value) of every record of partition 0, read with confluent-kafka."""
    from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": "compaction-check", "enable.auto.commit": False}
    )
    try:
        _low, high = consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=30)
        consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
        out: list[tuple[int, bytes | None, bytes | None]] = []
        deadline = time.monotonic() + 120
        while (not out or out[-1][0] < high - 1) and high > 0:
            assert time.monotonic() < deadline, (
                f"read {len(out)} records, up to {out[-1][0] if out else None}"
            )
            msg = consumer.poll(1.0)
            if msg is None:
                continue
            assert msg.error() is None, msg.error()
            out.append((msg.offset(), msg.key(), msg.value()))
        return out
    finally:
        consumer.close()


def produce_raw(bootstrap: str, topic: str, records: list[tuple[bytes, bytes | None]]) -> None:
    from confluent_kafka import Producer

    producer = Producer(
        {"bootstrap.servers": bootstrap, "enable.idempotence": True, "linger.ms": 5, "batch.size": 16384}
    )
    failures: list[str] = []
    for key, value in records:
        producer.produce(
            topic, key=key, value=value, partition=0, on_delivery=lambda e, _m: e and failures.append(str(e))
        )
        producer.poll(0)
    assert producer.flush(60) == 0 and not failures, failures


def latest_by_key(records) -> dict[bytes, bytes | None]:
    latest: dict[bytes, bytes | None] = {}
    for _offset, key, value in records:
        latest[key] = value
    return latest


def check_latest_values(latest: dict[bytes, bytes | None], keys: int, updates: int, skip: int = 0) -> None:
    for k in range(skip, keys):
        parsed = parse_value(latest.get(f"k{k}".encode()))
        assert parsed is not None and parsed.seq == updates - 1, (k, latest.get(f"k{k}".encode()))


def test_java_client_compacted_topic_keeps_the_latest_value_of_every_key(tmp_path):
    require_java()
    data = tmp_path / "data"
    topic = "compacted"
    with BrokerProcess(data, {"log.cleaner.backoff.ms": "100"}) as broker:
        java = JavaClient(broker.bootstrap)
        created = java.create_topic(
            topic,
            1,
            1,
            configs={
                "cleanup.policy": "compact",
                "segment.bytes": str(64 * 1024),
                "min.cleanable.dirty.ratio": "0.01",
                "delete.retention.ms": "3000",
            },
        )
        assert created["ok"], created
        result = java.produce(topic, KEYS * UPDATES, keys=KEYS, value_size=32, partition=0)
        assert result.last["acked"] == KEYS * UPDATES, result.last
        produced_size = sum(log_file_sizes(data, topic).values())

        # Tombstones for the first 100 keys (confluent-kafka), then filler so that they leave
        # the active segment.
        produce_raw(broker.bootstrap, topic, [(f"k{k}".encode(), None) for k in range(100)])
        produce_raw(broker.bootstrap, topic, [(b"filler-%d" % i, b"x" * 40) for i in range(2000)])
        wait_until(
            lambda: checkpoint(data, topic) == segment_bases(data, topic)[-1],
            "the cleaner to reach the active segment",
        )
        records = read_all(broker.bootstrap, topic)
        active_base = segment_bases(data, topic)[-1]
        cleaned = [r for r in records if r[0] < active_base]
        keys_below = [r[1] for r in cleaned]
        assert len(keys_below) == len(set(keys_below)), "a key appears twice in the cleaned part"
        data_records = [r for r in records if not r[1].startswith(b"filler-")]
        assert len(data_records) <= KEYS  # about 10,000: every key at most once
        latest = latest_by_key(records)
        check_latest_values(latest, KEYS, UPDATES, skip=100)
        assert all(latest.get(f"k{k}".encode(), None) is None for k in range(100))
        compacted_size = sum(log_file_sizes(data, topic).values())
        assert compacted_size < produced_size / 5

        # The tombstones stay until delete.retention.ms has passed and a later cleaning runs.
        tombstones = [r for r in records if r[2] is None]
        assert len(tombstones) == 100

        def tombstones_gone() -> bool:
            before = checkpoint(data, topic)
            produce_raw(broker.bootstrap, topic, [(b"filler-%d" % i, b"y" * 40) for i in range(2000)])
            wait_until(
                lambda: (
                    (checkpoint(data, topic) or 0) > (before or 0)
                    and checkpoint(data, topic) == segment_bases(data, topic)[-1]
                ),
                "another cleaning",
            )
            return not [r for r in read_all(broker.bootstrap, topic) if r[2] is None]

        wait_until(tombstones_gone, "the tombstones to go after delete.retention.ms", timeout=120)
        final = read_all(broker.bootstrap, topic)
        check_latest_values(latest_by_key(final), KEYS, UPDATES, skip=100)
        gone = {f"k{k}".encode() for k in range(100)}
        assert not [r for r in final if r[1] in gone]


def _has_file(directory: Path, suffix: str) -> bool:
    """A non-empty file ending with ``suffix`` (a cleaned segment being written, ...)."""
    for p in directory.iterdir():
        try:
            if p.name.endswith(suffix) and p.stat().st_size > 0:
                return True
        except FileNotFoundError:
            continue
    return False


def test_kill_minus_nine_while_cleaning_loses_no_latest_value(tmp_path):
    require_java()
    data = tmp_path / "data"
    topic = "crashy"
    keys, updates = 1000, 20
    # Throttled and read a batch at a time, so that a cleaned segment is being written for a
    # while (seconds): the cleaner writes out what it holds before each throttle sleep.
    overrides = {
        "log.cleaner.backoff.ms": "100",
        "log.cleaner.io.max.bytes.per.second": "20000",
        "log.cleaner.io.buffer.size": "1024",
    }
    broker = BrokerProcess(data, overrides).start()
    try:
        java = JavaClient(broker.bootstrap)
        created = java.create_topic(
            topic,
            1,
            1,
            configs={
                "cleanup.policy": "compact",
                "segment.bytes": str(32 * 1024),
                "min.cleanable.dirty.ratio": "0.01",
            },
        )
        assert created["ok"], created
        result = java.produce(topic, keys * updates, keys=keys, value_size=32, partition=0)
        assert result.last["acked"] == keys * updates, result.last
        part = data / f"{topic}-0"
        # Two crash points: while a cleaned segment is being written, and after a swap
        # (the replaced segments wait as .deleted files for file.delete.delay.ms).
        for suffix in (".log.cleaned", ".log.deleted"):
            wait_until(lambda s=suffix: _has_file(part, s), f"a {suffix} file")
            broker.kill()
            # The swap needs a whole pass: after the first crash, clean faster (the
            # .deleted files then wait file.delete.delay.ms, a minute).
            broker.overrides["log.cleaner.io.max.bytes.per.second"] = "400000"
            broker.start()
            assert not [p.name for p in part.iterdir() if p.name.endswith((".cleaned", ".swap"))]
            latest = latest_by_key(read_all(broker.bootstrap, topic))
            assert len(latest) == keys
            check_latest_values(latest, keys, updates)
    finally:
        if broker.alive():
            broker.kill()


def test_a_consumer_reads_through_segments_the_cleaner_emptied(tmp_path):
    """Every segment below the last update round is superseded whole, and
    ``min.compaction.lag.ms`` (an hour, lowered once all is written) holds the cleaning until
    then, so one round leaves each of them with only an emptied batch (its group's last); a
    round while the records were still coming would clean part of them and the next round
    merge what it emptied. librdkafka doubles its fetch size at
    each answer without a record and fails the partition with MSG_SIZE_TOO_LARGE ("might be
    too large to fetch") once past 1 GiB, after 11 of them: every answer must hold the next
    record, so the consumer reads the latest value of every key without an error."""
    from confluent_kafka.admin import AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, NewTopic

    data = tmp_path / "data"
    topic = "emptied"
    keys, updates = 2000, 6
    with BrokerProcess(data, {"log.cleaner.backoff.ms": "100"}) as broker:
        admin = AdminClient({"bootstrap.servers": broker.bootstrap})
        configs = {
            "cleanup.policy": "compact",
            "segment.bytes": str(16 * 1024),
            "min.cleanable.dirty.ratio": "0.01",
            "min.compaction.lag.ms": "3600000",
        }
        for future in admin.create_topics([NewTopic(topic, 1, 1, config=configs)]).values():
            future.result(30)
        produce_raw(
            broker.bootstrap,
            topic,
            [(f"k{k}".encode(), b"%d-" % u + b"x" * 80) for u in range(updates) for k in range(keys)],
        )
        assert checkpoint(data, topic) is None, "nothing may be cleaned before all is written"
        lag = ConfigEntry("min.compaction.lag.ms", "0", incremental_operation=AlterConfigOpType.SET)
        for future in admin.incremental_alter_configs(
            [ConfigResource("topic", topic, incremental_configs=[lag])]
        ).values():
            future.result(30)
        wait_until(
            lambda: checkpoint(data, topic) == segment_bases(data, topic)[-1],
            "the cleaner to reach the active segment",
        )
        emptied = [p for p, size in log_file_sizes(data, topic).items() if 0 < size < 1000]
        assert len(emptied) > 11, "the round was to leave many emptied segments"
        latest = latest_by_key(read_all(broker.bootstrap, topic))
        assert len(latest) == keys
        assert all(
            value is not None and value.startswith(b"%d-" % (updates - 1)) for value in latest.values()
        )
