"""A full log dir: partition errors, not crashes (docs/COMPATIBILITY.md, "Disk errors").

Each test mounts its own small tmpfs (root can; CI runs as root) and fills it. Then a
produce answers KAFKA_STORAGE_ERROR, CreateTopics and Metadata auto-creation answer an
error code on a connection that stays open, FindCoordinator answers
COORDINATOR_NOT_AVAILABLE while ``__consumer_offsets`` cannot be created, the broker log
stays short (no traceback, a line per state change), and a topic in another log dir
works throughout. A full dir stays online: once space is freed, writes succeed again.
"""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from protocol.errors import ErrorCode
from protocol.messages import (
    ApiVersionsRequest,
    CreateTopicsRequest,
    FindCoordinatorRequest,
    MetadataRequest,
)
from tests.support.broker_process import BrokerProcess
from tests.support.wire_client import WireClient

pytestmark = pytest.mark.integration

TMPFS_SIZE = "4m"
QUIET_PERIOD_S = 10.0
BIG = 64 * 1024  # larger than the page a segment may still have room in


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A small tmpfs of its own, unmounted at teardown."""
    mount_point = tmp_path / "tmpfs"
    mount_point.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={TMPFS_SIZE}", "tmpfs", str(mount_point)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs (needs root / CAP_SYS_ADMIN): {done.stderr.strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


def _fill(directory: Path) -> Path:
    """Write a file until the file system is full; returns it (delete it to free the space)."""
    filler = directory / "filler"
    chunk = b"\0" * 65536
    with open(filler, "wb", buffering=0) as f:
        while True:
            try:
                f.write(chunk)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC, exc
                break
        # The last pages: write byte by byte in small pieces until nothing fits.
        for size in (4096, 512, 1):
            with contextlib.suppress(OSError):
                while True:
                    f.write(b"\0" * size)
    return filler


def _create(c: WireClient, name: str) -> CreateTopicsRequest.CreatableTopic:
    resp = c.request(
        CreateTopicsRequest(
            topics=[CreateTopicsRequest.CreatableTopic(name=name, num_partitions=1, replication_factor=1)],
            timeout_ms=10_000,
        ),
        5,
    )
    return resp.topics[0]


def _auto_create(c: WireClient, name: str):
    resp = c.request(
        MetadataRequest(
            topics=[MetadataRequest.MetadataRequestTopic(name=name)], allow_auto_topic_creation=True
        ),
        9,
    )
    return resp.topics[0]


def _api_versions_answers(c: WireClient) -> bool:
    return c.request(ApiVersionsRequest(), 0).error_code == 0


def _find_coordinator(c: WireClient, group: str) -> int:
    return c.request(FindCoordinatorRequest(key=group, key_type=0), 3).error_code


def _produce(bootstrap: str, topic: str, n: int = 1, *, value_size: int = 0) -> list[object]:
    """Produce ``n`` records with confluent-kafka (no retries); the delivery errors (None = ok).

    ``value_size`` pads the values: a small batch may still fit in the page the segment
    file already holds, so a write meant to meet the full disk is larger than a page.
    """
    from confluent_kafka import Producer

    producer = Producer(
        {
            "bootstrap.servers": bootstrap,
            "message.timeout.ms": 20_000,
            "retries": 0,
            "compression.type": "none",
        }
    )
    reports: list[object] = []
    for i in range(n):
        producer.produce(
            topic,
            value=(b"v%d" % i).ljust(value_size, b"x"),
            partition=0,
            on_delivery=lambda err, msg: reports.append(err),
        )
    assert producer.flush(40) == 0
    assert len(reports) == n
    return reports


def _consume_all(bootstrap: str, topic: str, expected: int) -> int:
    """Read partition 0 from the start without a group; the number of records read."""
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "unused", "enable.auto.commit": False})
    try:
        consumer.assign([TopicPartition(topic, 0, 0)])
        got = 0
        deadline = time.monotonic() + 30
        while got < expected and time.monotonic() < deadline:
            msg = consumer.poll(1.0)
            if msg is not None and msg.error() is None:
                got += 1
        return got
    finally:
        consumer.close()


def _lines_since(broker: BrokerProcess, start: int) -> list[str]:
    return broker.lines[start:]


def _assert_quiet(lines: list[str], most: int, *, warnings_only: bool = False) -> None:
    """No traceback, and at most ``most`` lines (of level WARNING and above if ``warnings_only``)."""
    assert not any("Traceback" in line for line in lines), "\n".join(lines)
    if warnings_only:
        lines = [line for line in lines if "level=WARNING" in line or "level=ERROR" in line]
    assert len(lines) <= most, "\n".join(lines)


def test_a_full_single_log_dir_answers_errors_and_recovers_when_space_frees(tmpfs):
    from confluent_kafka import KafkaError as CKafkaError

    data = tmpfs / "data"
    broker = BrokerProcess(
        data,
        {
            "offsets.topic.num.partitions": "1",
            # Checkpoints every second: the background tasks meet the full disk often.
            "replica.high.watermark.checkpoint.interval.ms": "1000",
            "log.flush.offset.checkpoint.interval.ms": "1000",
        },
    )
    broker.start()
    try:
        with WireClient(broker.host, broker.port) as c:
            assert _create(c, "events").error_code == 0
        assert _produce(broker.bootstrap, "events", 5) == [None] * 5

        filler = _fill(tmpfs)
        full_from = len(broker.lines)

        # Produce: a storage error, seen by the client.
        errors = _produce(broker.bootstrap, "events", value_size=BIG)
        assert errors[0] is not None and errors[0].code() == CKafkaError.KAFKA_STORAGE_ERROR, errors

        with WireClient(broker.host, broker.port) as c:
            # CreateTopics and Metadata auto-creation: an error code, the connection stays open.
            created = _create(c, "more")
            assert created.error_code == ErrorCode.KAFKA_STORAGE_ERROR.code, created
            assert _api_versions_answers(c)
            # Auto-creation runs in the background: Kafka's LEADER_NOT_AVAILABLE at once, and
            # the creation that fails on the full disk leaves nothing (checked below).
            auto = _auto_create(c, "auto")
            assert auto.error_code == ErrorCode.LEADER_NOT_AVAILABLE.code, auto
            assert _api_versions_answers(c)
            # __consumer_offsets cannot be created: retriable COORDINATOR_NOT_AVAILABLE.
            assert _find_coordinator(c, "g") == ErrorCode.COORDINATOR_NOT_AVAILABLE.code
            # No topic was half-created: neither is listed.
            listed = c.request(MetadataRequest(topics=None, allow_auto_topic_creation=False), 9)
            assert {t.name for t in listed.topics} == {"events"}

            # The offsets topic's first failure is logged by its creation task: wait for it.
            broker.wait_for_log(r"cannot create __consumer_offsets")
            # The background tasks (checkpoints every second, flushes, the offsets topic's
            # retries) run against the full disk for a while and say nothing more.
            quiet_from = len(broker.lines)
            time.sleep(QUIET_PERIOD_S)  # nothing to await: the point is that nothing happens
            _assert_quiet(_lines_since(broker, quiet_from), most=0)
            assert _find_coordinator(c, "g") == ErrorCode.COORDINATOR_NOT_AVAILABLE.code
        assert broker.alive()
        # The whole full-disk period: one line for the full dir, one for the offsets topic.
        full_lines = _lines_since(broker, full_from)
        _assert_quiet(full_lines, most=2)
        assert sum("is full" in line for line in full_lines) == 1, full_lines
        assert not list(data.glob("more-*")) and not list(data.glob("auto-*"))

        # Space again: writes, creation and the group coordinator work again.
        filler.unlink()
        assert _produce(broker.bootstrap, "events", 3) == [None] * 3
        broker.wait_for_log(r"has space again")
        with WireClient(broker.host, broker.port) as c:
            assert _create(c, "more").error_code == 0
            deadline = time.monotonic() + 30
            while _find_coordinator(c, "g") != 0:
                assert time.monotonic() < deadline, "the coordinator never became available"
                time.sleep(0.2)
        broker.wait_for_log(r"created __consumer_offsets .* after \d+ failed attempts")
        assert _consume_all(broker.bootstrap, "events", 8) == 8
    finally:
        broker.stop()
    # The next start is clean and finds every record.
    broker.start()
    try:
        assert _consume_all(broker.bootstrap, "events", 8) == 8
        with WireClient(broker.host, broker.port) as c:
            names = {t.name for t in c.request(MetadataRequest(topics=None), 9).topics}
            assert {"events", "more"} <= names
    finally:
        broker.stop()


def test_a_topic_in_a_healthy_log_dir_works_while_another_dir_is_full(tmpfs, tmp_path):
    from confluent_kafka import KafkaError as CKafkaError

    full_dir = tmpfs / "data"
    healthy_dir = tmp_path / "healthy"
    # The healthy dir first: the first dir also holds the topic config overrides file,
    # which __consumer_offsets (compacted) needs (docs/COMPATIBILITY.md, "Disk errors").
    broker = BrokerProcess(
        full_dir, {"log.dirs": f"{healthy_dir},{full_dir}", "offsets.topic.num.partitions": "1"}
    )
    broker.start()
    try:
        with WireClient(broker.host, broker.port) as c:
            # A new partition goes to the dir with the fewest (the first one on a tie).
            assert _create(c, "on-healthy").error_code == 0
            assert _create(c, "on-full").error_code == 0
        assert (full_dir / "on-full-0").is_dir()
        assert (healthy_dir / "on-healthy-0").is_dir()

        filler = _fill(tmpfs)
        full_from = len(broker.lines)
        for round_ in range(3):
            errors = _produce(broker.bootstrap, "on-full", value_size=BIG)
            assert errors[0] is not None and errors[0].code() == CKafkaError.KAFKA_STORAGE_ERROR
            assert _produce(broker.bootstrap, "on-healthy", 10) == [None] * 10
            assert _consume_all(broker.bootstrap, "on-healthy", 10 * (round_ + 1)) == 10 * (round_ + 1)
        # One line: the full dir. __consumer_offsets (the consumer asked for a coordinator)
        # was created in the healthy dir, as a dir known full is chosen last.
        _assert_quiet(_lines_since(broker, full_from), most=1, warnings_only=True)
        assert (healthy_dir / "__consumer_offsets-0").is_dir()

        filler.unlink()
        assert _produce(broker.bootstrap, "on-full", 2) == [None] * 2
        assert _consume_all(broker.bootstrap, "on-full", 2) == 2
    finally:
        broker.stop()


def test_the_fill_helper_really_fills(tmpfs):
    """Guards the tests above: after ``_fill`` not one more byte fits."""
    _fill(tmpfs)
    with pytest.raises(OSError) as err, open(tmpfs / "more", "wb", buffering=0) as f:
        f.write(b"x" * 4096)
        os.fsync(f.fileno())
    assert err.value.errno == errno.ENOSPC
