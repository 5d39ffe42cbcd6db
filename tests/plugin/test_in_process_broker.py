"""``broker.testing``: the broker the pytest plugin's fixtures give, and its fault hooks.

Driven here with raw Kafka frames (``WireClient``) so that every hook's effect is seen
exactly: which request got no answer, which connection was closed. The real clients
go through the same hooks in the example project (docs/testing/, run by
tests/plugin/test_plugin_as_user.py).
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka import KafkaError as ClientError
from confluent_kafka import Producer

from broker.testing import full_disk
from broker.testing.embedded import InProcessBroker, TopicCreationError, api_key
from broker.testing.interception import Close
from protocol.errors import ErrorCode
from protocol.messages import ApiKey, ApiVersionsRequest, MetadataRequest
from storage.log_manager import CLEAN_SHUTDOWN_FILE
from tests.support.wire_client import WireClient

NO_ANSWER_S = 0.5  # how long a test waits to see that an answer does not come


@pytest.fixture
def kafka(tmp_path: Path) -> Iterator[InProcessBroker]:
    broker = InProcessBroker(tmp_path / "data").start()
    yield broker
    broker.close()


def _client(kafka: InProcessBroker, client_id: str = "probe") -> WireClient:
    return WireClient("127.0.0.1", kafka.port, client_id=client_id)


def _metadata(c: WireClient, topic: str | None = None):
    topics = None if topic is None else [MetadataRequest.MetadataRequestTopic(name=topic)]
    return c.request(MetadataRequest(topics=topics, allow_auto_topic_creation=False), 12)


def _answered(c: WireClient, request, version: int) -> bool:
    """Send ``request``; True if an answer with its correlation id comes within NO_ANSWER_S."""
    corr = c.send(request, version)
    c.sock.settimeout(NO_ANSWER_S)
    try:
        got, _ = c.recv(request.API_KEY, version)
    except TimeoutError:
        return False
    finally:
        c.sock.settimeout(10)
    assert got == corr
    return True


def test_api_names_and_keys() -> None:
    assert api_key("Produce") is ApiKey.PRODUCE
    assert api_key("ListOffsets") is ApiKey.LIST_OFFSETS
    assert api_key("LIST_OFFSETS") is ApiKey.LIST_OFFSETS
    assert api_key("produce") is ApiKey.PRODUCE
    assert api_key(1) is ApiKey.FETCH
    with pytest.raises(ValueError, match="no Kafka API"):
        api_key("Produse")


def test_bad_or_unknown_properties_are_refused_before_anything_starts(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"unknown broker config keys: no\.such\.key"):
        InProcessBroker(tmp_path, {"no.such.key": 1})
    with pytest.raises(ValueError, match=r"num\.partitions"):
        InProcessBroker(tmp_path, {"num.partitions": "many"})
    with pytest.raises(ValueError, match=r"log\.dirs is chosen for it"):
        InProcessBroker(tmp_path, {"log.dirs": tmp_path / "elsewhere"})
    assert not list(tmp_path.iterdir())


def test_test_defaults_and_overrides(tmp_path: Path) -> None:
    kafka = InProcessBroker(tmp_path, {"num.partitions": 3, "group.initial.rebalance.delay.ms": 100})
    assert kafka.config["num.partitions"] == 3
    assert kafka.config["group.initial.rebalance.delay.ms"] == 100  # the caller wins
    assert kafka.config["offsets.topic.num.partitions"] == 1  # a test default


def test_create_topic(kafka: InProcessBroker) -> None:
    kafka.create_topic("orders", partitions=3, config={"retention.ms": 1000})
    with _client(kafka) as c:
        (topic,) = _metadata(c, "orders").topics
    assert (topic.error_code, len(topic.partitions)) == (0, 3)
    log = kafka.run(lambda: kafka.broker.log_manager.get_log("orders", 0))
    assert log.config.retention_ms == 1000

    with pytest.raises(TopicCreationError, match="TOPIC_ALREADY_EXISTS") as exc:
        kafka.create_topic("orders")
    assert exc.value.error is ErrorCode.TOPIC_ALREADY_EXISTS
    with pytest.raises(TopicCreationError, match="INVALID_CONFIG"):
        kafka.create_topic("other", config={"retention.ms": "soon"})


def test_drop_responses_loses_exactly_the_next_n_answers(kafka: InProcessBroker) -> None:
    lost = kafka.drop_responses("ApiVersions", count=2)
    with _client(kafka) as c:
        assert not _answered(c, ApiVersionsRequest(), 0)
        assert not _answered(c, ApiVersionsRequest(), 0)
        assert _answered(c, ApiVersionsRequest(), 0)
        assert _answered(c, MetadataRequest(topics=[]), 12)  # other APIs were never touched
    assert lost.handled == 2 and not lost.active
    assert kafka.requests("ApiVersions") == 3
    assert kafka.requests(ApiKey.METADATA) == 1


def test_drop_requests_never_handles_them(kafka: InProcessBroker) -> None:
    lost = kafka.drop_requests("CreateTopics")
    with pytest.raises(TimeoutError):
        kafka.create_topic("never", timeout=NO_ANSWER_S)
    assert lost.handled == 1
    kafka.create_topic("never")  # the first was never handled: no TOPIC_ALREADY_EXISTS


def test_a_delayed_answer_arrives(kafka: InProcessBroker) -> None:
    slow = kafka.delay_responses("Metadata", seconds=0.2)
    with _client(kafka) as c:
        assert _metadata(c).brokers[0].port == kafka.port
    assert slow.handled == 1


def test_close_connections_of_one_client_or_all(kafka: InProcessBroker) -> None:
    with _client(kafka, "alpha") as a, _client(kafka, "beta") as b, _client(kafka, "gamma") as g:
        for c in (a, b, g):
            _metadata(c)
        assert kafka.close_connections("alpha") == 1
        assert a.is_closed_by_peer()
        _metadata(b)  # the others are untouched
        assert kafka.close_connections() == 2
        assert b.is_closed_by_peer() and g.is_closed_by_peer()


def test_any_verdict_through_control(kafka: InProcessBroker) -> None:
    seen = []
    kafka.control("Metadata", lambda request: seen.append(request.client_id) or Close())
    with _client(kafka, "delta") as c:
        c.send(MetadataRequest(topics=[]), 12)
        assert c.is_closed_by_peer()
    assert seen == ["delta"]


def test_a_control_that_raises_fails_close(tmp_path: Path) -> None:
    kafka = InProcessBroker(tmp_path).start()

    def broken(request):
        raise RuntimeError("a bug in the test's control")

    kafka.control(None, broken)
    with _client(kafka) as c:
        _metadata(c)  # the request passes
    with pytest.raises(RuntimeError, match="a bug in the test's control"):
        kafka.close()
    assert not kafka.alive


def test_kill_leaves_no_clean_shutdown_and_restart_keeps_port_and_topics(kafka: InProcessBroker) -> None:
    kafka.create_topic("kept", partitions=2)
    address = kafka.bootstrap_servers
    kafka.kill()
    assert not kafka.alive
    assert not (kafka.log_dir / CLEAN_SHUTDOWN_FILE).exists()
    kafka.start()
    assert kafka.bootstrap_servers == address
    with _client(kafka) as c:
        (topic,) = _metadata(c, "kept").topics
    assert (topic.error_code, len(topic.partitions)) == (0, 2)

    kafka.stop()  # clean: the marker is written
    assert (kafka.log_dir / CLEAN_SHUTDOWN_FILE).exists()
    kafka.restart(clean=False)
    assert kafka.alive and len(kafka.startup_seconds) == 3


def test_the_simulated_full_disk_fails_writes_under_its_dir_only(tmp_path: Path) -> None:
    full, other = tmp_path / "full", tmp_path / "other"
    full.mkdir()
    other.mkdir()
    real_pwrite = os.pwrite
    fd_full = os.open(full / "f", os.O_RDWR | os.O_CREAT)
    fd_other = os.open(other / "f", os.O_RDWR | os.O_CREAT)
    try:
        full_disk.fill(full)
        full_disk.fill(full)  # filled twice: freed after two frees
        for write in (lambda fd: os.pwrite(fd, b"x", 0), lambda fd: os.write(fd, b"x")):
            with pytest.raises(OSError) as exc:
                write(fd_full)
            assert exc.value.errno == errno.ENOSPC
            assert write(fd_other) == 1
        full_disk.free(full)
        assert full_disk.is_full(full)
        with pytest.raises(OSError):
            os.pwrite(fd_full, b"x", 0)
        full_disk.free(full)
        assert not full_disk.is_full(full)
        assert os.pwrite is real_pwrite  # the wrappers are gone
        assert os.pwrite(fd_full, b"x", 0) == 1
    finally:
        os.close(fd_full)
        os.close(fd_other)


def test_fill_disk_answers_kafka_storage_error_until_freed(kafka: InProcessBroker) -> None:
    kafka.create_topic("t")
    producer = Producer({"bootstrap.servers": kafka.bootstrap_servers, "retries": 0, "acks": "all"})
    errors = []

    def delivered(err, _message) -> None:
        errors.append(None if err is None else err.code())

    with kafka.disk_full():
        producer.produce("t", b"lost", on_delivery=delivered)
        assert producer.flush(10) == 0
        assert kafka.disk_full_reported()
    assert errors == [ClientError.KAFKA_STORAGE_ERROR]
    assert not full_disk.is_full(kafka.log_dir)

    producer.produce("t", b"kept", on_delivery=delivered)
    assert producer.flush(10) == 0
    assert errors[1:] == [None]
    assert not kafka.disk_full_reported()  # the write that worked resumed the dir


def test_close_frees_the_disk(tmp_path: Path) -> None:
    real_pwrite = os.pwrite
    kafka = InProcessBroker(tmp_path).start()
    kafka.fill_disk()
    assert os.pwrite is not real_pwrite
    kafka.close()
    assert os.pwrite is real_pwrite
