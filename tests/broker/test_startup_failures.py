"""Start-up failures: one line on stderr naming the file or port and what to do, no traceback.

Each case runs ``python -m broker`` as the tests' broker subprocess would and checks its
whole stderr: exactly one line (nothing is logged before these failures, which are
found before any log is loaded) and exit code 2, or 1 for an unexpected exception.
"""

from __future__ import annotations

import fcntl
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.broker_process import ROOT, BrokerProcess
from tests.support.wire_client import WireClient

pytestmark = pytest.mark.integration


def _run(cmd: list[str]) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONUNBUFFERED="1", MOLDAU_LOG_LEVEL="INFO")
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env, timeout=60)


def _one_line_failure(result: subprocess.CompletedProcess, code: int = 2) -> str:
    lines = result.stderr.splitlines()
    assert "Traceback" not in result.stderr + result.stdout
    assert result.returncode == code, result.stderr
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("moldau: ")
    return lines[0]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("version=zero\nbroker.id=1\n", "is corrupt (missing or bad 'version'). Restore it"),
        ("version=0\n", "is corrupt (missing or bad 'broker.id'). Restore it"),
        (None, "cannot read"),  # a directory where the file should be
    ],
)
def test_bad_meta_properties(tmp_path: Path, content: str | None, expected: str) -> None:
    data = tmp_path / "data"
    data.mkdir()
    path = data / "meta.properties"
    if content is None:
        path.mkdir()
    else:
        path.write_text(content)
    line = _one_line_failure(_run(BrokerProcess(data).command()))
    assert str(path) in line and expected in line


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{not json", "is corrupt"),
        ('{"version": 1, "topics": ["t"]}', "unsupported content"),
        (None, "cannot read"),  # a directory where the file should be
    ],
)
def test_bad_topic_config_overrides(tmp_path: Path, content: str | None, expected: str) -> None:
    data = tmp_path / "data"
    data.mkdir()
    path = data / "topic-config-overrides.json"
    if content is None:
        path.mkdir()
    else:
        path.write_text(content)
    line = _one_line_failure(_run(BrokerProcess(data).command()))
    assert str(path) in line and expected in line


def test_listener_port_in_use(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line = _one_line_failure(_run(BrokerProcess(tmp_path / "data", port=port).command()))
    assert f"Socket server failed to bind to 127.0.0.1:{port}: Address already in use" in line
    assert "listeners" in line
    # Refused before the logs are touched: nothing was written.
    assert not (tmp_path / "data" / "meta.properties").exists()


def test_log_dir_locked_by_another_process(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    fd = os.open(data / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        line = _one_line_failure(_run(BrokerProcess(data).command()))
    finally:
        os.close(fd)
    assert f"Failed to acquire lock on file .lock in {data}." in line


def test_second_broker_on_the_same_log_dir_is_refused_while_the_first_serves(tmp_path: Path) -> None:
    from confluent_kafka import Consumer, Producer

    data = tmp_path / "data"
    with BrokerProcess(data) as first:
        meta = (data / "meta.properties").read_bytes()
        line = _one_line_failure(_run(BrokerProcess(data).command()))
        assert f"Failed to acquire lock on file .lock in {data}. A Kafka instance in another process" in line
        # The refused broker wrote nothing into the dir it does not own: above all no
        # clean-shutdown marker, which would make the first broker's next start skip recovery.
        assert not (data / ".kafka_cleanshutdown").exists()
        assert (data / "meta.properties").read_bytes() == meta

        producer = Producer({"bootstrap.servers": first.bootstrap, "enable.idempotence": True})
        producer.produce("locked", key=b"k", value=b"still serving")
        assert producer.flush(30) == 0
        consumer = Consumer(
            {"bootstrap.servers": first.bootstrap, "group.id": "g", "auto.offset.reset": "earliest"}
        )
        try:
            consumer.subscribe(["locked"])
            msg = None
            deadline = time.monotonic() + 90  # joining the group takes a few seconds
            while time.monotonic() < deadline:
                msg = consumer.poll(1)
                if msg is not None and msg.error() is None:
                    break
            assert msg is not None and msg.error() is None, msg and msg.error()
            assert msg.value() == b"still serving"
        finally:
            consumer.close()
        with WireClient(first.host, first.port) as wire:
            from protocol.messages import MetadataRequest

            assert wire.request(MetadataRequest(topics=None), 12).brokers[0].port == first.port
        assert first.stop() == 0


_FAILING_START = """
import sys
import broker.broker

async def start(self):
    raise ValueError("boom")

broker.broker.Broker.start = start
from broker.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("level", ["INFO", "DEBUG"])
def test_unexpected_startup_exception_is_one_line(tmp_path: Path, level: str) -> None:
    cmd = [sys.executable, "-c", _FAILING_START, "--override", f"log.dirs={tmp_path / 'data'}"]
    cmd += ["--override", "listeners=PLAINTEXT://127.0.0.1:0", "--log-level", level]
    result = _run(cmd)
    if level == "INFO":
        line = _one_line_failure(result, code=1)
    else:
        # DEBUG adds the traceback as one logfmt line (exc="..."), before the report.
        assert result.returncode == 1
        assert 'exc="Traceback' in result.stderr
        line = result.stderr.splitlines()[-1]
    assert line == "moldau: startup failed: ValueError: boom (rerun with --log-level DEBUG for the traceback)"


def test_deleted_index_is_rebuilt_at_start_with_a_log_line(tmp_path: Path) -> None:
    """Not a failure: a deleted .index is rebuilt, logged as Kafka's LogLoader does."""
    from confluent_kafka import Consumer, Producer

    data = tmp_path / "data"
    broker = BrokerProcess(data, {"log.segment.bytes": "2048", "log.index.interval.bytes": "256"})
    with broker:
        producer = Producer(
            {"bootstrap.servers": broker.bootstrap, "enable.idempotence": True, "linger.ms": 0}
        )
        for i in range(60):
            producer.produce("rebuilt", value=b"%03d" % i + b"x" * 100)
            producer.flush(30)  # one batch each: several segments
        assert broker.stop() == 0
    segments = sorted((data / "rebuilt-0").glob("*.log"))
    assert len(segments) > 2
    (segments[0].with_suffix(".index")).unlink()
    (segments[1].with_suffix(".timeindex")).unlink()
    with broker:  # started again, on the same port
        broker.wait_for_log(
            rf"Could not find offset index file corresponding to log file {segments[0]}, "
            r"recovering segment and rebuilding index files"
        )
        broker.wait_for_log(rf"Could not find time index file corresponding to log file {segments[1]}")
        assert segments[0].with_suffix(".index").exists() and segments[1].with_suffix(".timeindex").exists()
        consumer = Consumer(
            {"bootstrap.servers": broker.bootstrap, "group.id": "r", "auto.offset.reset": "earliest"}
        )
        try:
            consumer.subscribe(["rebuilt"])
            values: list[bytes] = []
            deadline = time.monotonic() + 90
            while len(values) < 60 and time.monotonic() < deadline:
                msg = consumer.poll(1)
                if msg is not None and msg.error() is None:
                    values.append(msg.value()[:3])
            assert values == [b"%03d" % i for i in range(60)]
        finally:
            consumer.close()


def test_another_clusters_log_dir_is_refused_before_its_logs_are_loaded(tmp_path: Path) -> None:
    """A broker started on a log dir of another cluster (meta.properties' cluster.id differs):
    one line with Kafka's InconsistentClusterIdException message, and, as KafkaServer checks
    meta.properties before it builds its LogManager, nothing of the crashed dir is recovered
    or written (above all no clean-shutdown marker, no checkpoints)."""
    from confluent_kafka import Producer

    data = tmp_path / "data"
    first = BrokerProcess(data, {"cluster.id": "AAAAAAAAAAAAAAAAAAAAAA"}).start()
    try:
        producer = Producer({"bootstrap.servers": first.bootstrap})
        producer.produce("other-cluster", value=b"v")
        assert producer.flush(30) == 0
    finally:
        first.kill()  # unclean: the next start would recover
    assert not (data / ".kafka_cleanshutdown").exists()
    before = {p: p.stat().st_mtime_ns for p in data.rglob("*")}
    line = _one_line_failure(_run(BrokerProcess(data, {"cluster.id": "BBBBBBBBBBBBBBBBBBBBBB"}).command()))
    assert "doesn't match stored clusterId Some(AAAAAAAAAAAAAAAAAAAAAA) in meta.properties" in line
    after = {p: p.stat().st_mtime_ns for p in data.rglob("*")}
    assert sorted(str(p) for p in after if before.get(p) != after[p]) == []
