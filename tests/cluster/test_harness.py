"""The cluster test harness itself (tests/support/cluster.py): interception, link cuts, crashes.

Real clients (confluent-kafka, kafka-python) and raw wire connections talk to
in-process brokers; one test kills a broker subprocess with SIGKILL and watches
its ZooKeeper registration with kazoo.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator

import pytest

from protocol.errors import ErrorCode
from protocol.messages import ApiKey, ApiVersionsRequest, ApiVersionsResponse, MetadataRequest
from storage.log_manager import CLEAN_SHUTDOWN_FILE
from tests.support.cluster import Cluster, wait_port_closed
from tests.support.interception import (
    PASS,
    Close,
    Delay,
    Drop,
    DropResponse,
    Gate,
    InterceptedRequest,
    Replace,
    Respond,
    Transform,
    broker_client_id,
    source_broker,
)
from tests.support.wire_client import WireClient

pytestmark = pytest.mark.integration

ANSWER_S = 30.0  # an answer that must come, on a loaded machine


def wait_until(condition: Callable[[], object], what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"no {what} within {timeout} s"
        time.sleep(0.02)


@pytest.fixture
def cluster(cluster_factory) -> Cluster:
    return cluster_factory(3)


def produce(address: str, topic: str, values: list[bytes]) -> None:
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": address, "acks": "all", "linger.ms": 0})
    errors: list[object] = []
    for v in values:
        producer.produce(topic, v, partition=0, on_delivery=lambda err, _msg: err and errors.append(err))
    assert producer.flush(30) == 0
    assert errors == []


def consume_confluent(address: str, topic: str, count: int, extra: dict | None = None) -> list[bytes]:
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer(
        {
            "bootstrap.servers": address,
            "group.id": "harness",
            "enable.auto.commit": False,
            "fetch.wait.max.ms": 100,
            **(extra or {}),
        }
    )
    try:
        consumer.assign([TopicPartition(topic, 0, 0)])
        got: list[bytes] = []
        deadline = time.monotonic() + 30
        while len(got) < count and time.monotonic() < deadline:
            msg = consumer.poll(0.2)
            if msg is not None and msg.error() is None:
                got.append(msg.value())
        return got
    finally:
        consumer.close()


def fetch_offsets(seen: InterceptedRequest) -> list[tuple[int, int]]:
    """(partition, fetch offset) of every partition a Fetch asks for."""
    return [(p.partition, p.fetch_offset) for t in seen.request.topics for p in t.partitions]


def test_a_dropped_fetch_response_makes_a_real_consumer_fetch_again(cluster, caplog):
    values = [b"r%d" % i for i in range(5)]
    produce(cluster.address(1), "dropped-fetch", values)
    fetches: list[list[tuple[int, int]]] = []
    cluster.control(1, ApiKey.FETCH, lambda r: fetches.append(fetch_offsets(r)), keep=True)

    def drop_first_read(seen: InterceptedRequest):
        return DropResponse() if (0, 0) in fetch_offsets(seen) else None

    dropper = cluster.control(1, ApiKey.FETCH, drop_first_read)
    # socket.timeout.ms bounds librdkafka's wait for the lost answer.
    got = consume_confluent(cluster.address(1), "dropped-fetch", 5, {"socket.timeout.ms": 2000})
    assert got == values
    assert dropper.handled == 1 and not dropper.active
    reads_from_start = [f for f in fetches if (0, 0) in f]
    # The first read at offset 0 lost its answer, so the client asked for offset 0 again.
    assert len(reads_from_start) >= 2, fetches
    # Lost, not refused: the broker closed no connection, the client gave up waiting itself.
    assert not [r for r in caplog.records if r.name == "broker.server" and r.levelno >= logging.WARNING]
    assert cluster.traffic(0).requests[ApiKey.FETCH] == 0  # the control was broker 1's only


def test_a_held_fetch_reaches_a_kafka_python_consumer_once_released(cluster):
    from kafka import KafkaConsumer, TopicPartition

    values = [b"held-%d" % i for i in range(5)]
    produce(cluster.address(0), "held-fetch", values)
    gate = Gate()
    held = cluster.control(
        0, ApiKey.FETCH, lambda r: Delay(until=gate, response=True) if (0, 0) in fetch_offsets(r) else None
    )
    consumer = KafkaConsumer(
        bootstrap_servers=cluster.address(0), enable_auto_commit=False, fetch_max_wait_ms=100
    )
    try:
        tp = TopicPartition("held-fetch", 0)
        consumer.assign([tp])
        consumer.seek(tp, 0)
        got: list[bytes] = []
        deadline = time.monotonic() + 30
        while gate.waiting == 0:
            assert time.monotonic() < deadline, "the fetch never reached the control"
            for records in consumer.poll(timeout_ms=100).values():
                got += [r.value for r in records]
        for _ in range(5):  # the answer is held: nothing can arrive
            for records in consumer.poll(timeout_ms=100).values():
                got += [r.value for r in records]
        assert got == [] and held.handled == 1
        gate.release()
        while len(got) < 5 and time.monotonic() < deadline:
            for records in consumer.poll(timeout_ms=200).values():
                got += [r.value for r in records]
        assert got == values
    finally:
        consumer.close()


def test_verdicts_on_the_wire(cluster):
    port = cluster.port(2)

    def rename(response):
        response.cluster_id = "intercepted"
        return response

    cluster.control(2, ApiKey.METADATA, lambda r: Transform(rename))
    with WireClient("127.0.0.1", port) as w:
        assert w.request(MetadataRequest(topics=[]), 12).cluster_id == "intercepted"
        assert w.request(MetadataRequest(topics=[]), 12).cluster_id != "intercepted"  # used up

    # A control is for its broker only, and stops at remove().
    blackhole = cluster.control(2, None, lambda r: Drop(), keep=True)
    with WireClient("127.0.0.1", cluster.port(0)) as w:
        assert w.request(ApiVersionsRequest(), 0).error_code == 0
    blackhole.remove()
    with WireClient("127.0.0.1", port) as w:
        assert w.request(ApiVersionsRequest(), 0).error_code == 0
    assert blackhole.handled == 0 and not blackhole.active

    # A control that raises lets the request pass; the test sees the exception.
    def broken(_seen: InterceptedRequest):
        raise ValueError("a broken control")

    cluster.control(2, ApiKey.API_VERSIONS, broken)
    with WireClient("127.0.0.1", port) as w:
        assert w.request(ApiVersionsRequest(), 0).error_code == 0
    with pytest.raises(ValueError, match="a broken control"):
        cluster.check_controls()
    cluster.clear_controls()

    # Drop: no answer to the first request; the next one on the connection is answered.
    cluster.control(2, ApiKey.API_VERSIONS, lambda r: Drop())
    with WireClient("127.0.0.1", port) as w:
        lost = w.send(ApiVersionsRequest(), 0)
        answered = w.send(ApiVersionsRequest(), 0)
        correlation, response = w.recv(ApiKey.API_VERSIONS, 0)
        assert (correlation, response.error_code) == (answered, 0) and lost != answered

    # Replace: the handler answers another request; Respond: the handler never runs.
    cluster.control(2, ApiKey.METADATA, lambda r: Replace(MetadataRequest(topics=[])))
    canned = ApiVersionsResponse(error_code=ErrorCode.UNSUPPORTED_VERSION.code, api_keys=[])
    cluster.control(2, ApiKey.API_VERSIONS, lambda r: Respond(canned))
    with WireClient("127.0.0.1", port) as w:
        asked = MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name="replaced-away")])
        assert w.request(asked, 12).topics == []
        assert w.request(ApiVersionsRequest(), 0).error_code == ErrorCode.UNSUPPORTED_VERSION.code
        assert w.request(ApiVersionsRequest(), 0).error_code == 0

    # Close: the connection goes, before or instead of the answer.
    cluster.clear_controls()
    for after in (False, True):
        cluster.control(2, ApiKey.API_VERSIONS, lambda r, a=after: Close(after_handling=a))
        with WireClient("127.0.0.1", port) as w:
            w.send(ApiVersionsRequest(), 0)
            assert w.is_closed_by_peer(10)

    # keep=True: the control handles every request; PASS lets them through.
    seen: list[int] = []
    keeper = cluster.control(
        2, ApiKey.API_VERSIONS, lambda r: seen.append(r.correlation_id) or PASS, keep=True
    )
    with WireClient("127.0.0.1", port) as w:
        ids = [w.send(ApiVersionsRequest(), 0) for _ in range(3)]
        assert [w.recv(ApiKey.API_VERSIONS, 0)[0] for _ in ids] == ids
    assert seen == ids and keeper.handled == 3 and keeper.active


def test_link_cuts_and_isolation(cluster):
    assert source_broker(broker_client_id(1, "fetcher-0")) == 1
    assert source_broker("broker-12") == 12 and source_broker("rdkafka") is None

    # A cut loses the request: no answer ever, so a second tells. An answer that must come
    # gets the time a loaded machine may need.
    def answered(port: int, client_id: str, within: float = 1.0) -> bool:
        with WireClient("127.0.0.1", port, client_id=client_id, timeout=within) as w:
            try:
                return w.request(ApiVersionsRequest(), 0).error_code == 0
            except TimeoutError:
                return False

    follower = WireClient("127.0.0.1", cluster.port(2), client_id=broker_client_id(1, "fetcher-0"))
    client = WireClient("127.0.0.1", cluster.port(2))
    try:
        assert follower.request(ApiVersionsRequest(), 0).error_code == 0
        assert client.request(ApiVersionsRequest(), 0).error_code == 0
        cluster.cut_link(1, 2)
        assert follower.is_closed_by_peer(10)  # the connection from broker 1 was cut
        assert client.request(ApiVersionsRequest(), 0).error_code == 0  # clients still reach it
    finally:
        follower.close()
        client.close()
    assert not answered(cluster.port(2), "broker-1")
    assert not answered(cluster.port(1), "broker-2")  # both ways
    assert answered(cluster.port(2), "broker-0", ANSWER_S)
    assert cluster.traffic(2).dropped_by_cut[1] == 1
    cluster.heal_link(1, 2)
    assert answered(cluster.port(2), "broker-1", ANSWER_S)

    # isolate(from_brokers=False): clients lose broker 0, brokers still reach it.
    client = WireClient("127.0.0.1", cluster.port(0))
    try:
        assert client.request(ApiVersionsRequest(), 0).error_code == 0
        cluster.isolate(0, from_brokers=False)
        assert client.is_closed_by_peer(10)
    finally:
        client.close()
    assert not answered(cluster.port(0), "moldau-test")
    assert answered(cluster.port(0), "broker-1", ANSWER_S)
    cluster.isolate(0)  # and now from the brokers too, both ways
    assert not answered(cluster.port(0), "broker-1")
    assert not answered(cluster.port(1), "broker-0")
    assert answered(cluster.port(1), "moldau-test", ANSWER_S)
    cluster.rejoin(0)
    assert answered(cluster.port(0), "moldau-test", ANSWER_S) and answered(
        cluster.port(1), "broker-0", ANSWER_S
    )


def test_a_crashed_broker_recovers_its_data_on_restart(cluster, caplog):
    caplog.set_level(logging.INFO, logger="storage.log_manager")
    values = [b"kept-%d" % i for i in range(20)]
    produce(cluster.address(1), "crash", values)
    port = cluster.port(1)
    with WireClient("127.0.0.1", port) as connected:
        cluster.kill(1)
        assert connected.is_closed_by_peer(10)
    assert wait_port_closed(cluster.address(1))
    assert not cluster.alive(1)
    assert not (cluster.log_dir(1) / CLEAN_SHUTDOWN_FILE).exists()
    cluster.stop(2)  # a clean stop, for contrast, leaves the marker
    assert (cluster.log_dir(2) / CLEAN_SHUTDOWN_FILE).exists()

    caplog.clear()
    cluster.restart(1)
    assert cluster.port(1) == port
    assert "no clean shutdown marker" in caplog.text
    assert consume_confluent(cluster.address(1), "crash", 20) == values


def test_restarts_keep_every_listener_port(cluster_factory):
    overrides = {
        "listeners": "PLAINTEXT://127.0.0.1:0,REPLICATION://127.0.0.1:0",
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,REPLICATION:PLAINTEXT",
    }
    cluster = cluster_factory(1, overrides=overrides)

    def ports() -> dict[str, int]:
        return {a.name: a.port for a in cluster.broker(0).advertised}

    before = ports()
    assert sorted(before) == ["PLAINTEXT", "REPLICATION"] and 0 not in before.values()
    assert cluster.port(0) == before["PLAINTEXT"]
    cluster.restart(0)
    assert ports() == before
    cluster.restart(0, clean=False)
    assert ports() == before
    with WireClient("127.0.0.1", before["REPLICATION"], client_id=broker_client_id(7)) as w:
        assert w.request(ApiVersionsRequest(), 0).error_code == 0


def registrations(kz) -> list[str]:
    return sorted(kz.get_children("/brokers/ids")) if kz.exists("/brokers/ids") else []


@pytest.fixture
def kazoo_factory() -> Iterator[Callable[[str], object]]:
    from kazoo.client import KazooClient

    clients: list[KazooClient] = []

    def connect(hosts: str) -> KazooClient:
        kz = KazooClient(hosts=hosts, timeout=5)
        kz.start(timeout=20)
        clients.append(kz)
        return kz

    yield connect
    for kz in clients:
        kz.stop()
        kz.close()


@pytest.mark.zookeeper
def test_in_process_crash_ends_the_zookeeper_session_and_restart_registers_again(
    tmp_path, zookeeper_shared, kazoo_factory
):
    with Cluster(3, zookeeper=zookeeper_shared, zk_chroot="/inproc", base_dir=tmp_path) as cluster:
        kz = kazoo_factory(zookeeper_shared.connect("/inproc"))
        wait_until(lambda: registrations(kz) == ["0", "1", "2"], "registrations")
        old_session = kz.get("/brokers/ids/2")[1].ephemeralOwner
        cluster.kill(2)
        # The session is closed without a deregistration: ZooKeeper drops the node itself.
        wait_until(lambda: registrations(kz) == ["0", "1"], "the end of the killed session", timeout=10)
        cluster.restart(2)
        wait_until(lambda: registrations(kz) == ["0", "1", "2"], "the new registration")
        assert kz.get("/brokers/ids/2")[1].ephemeralOwner != old_session
        assert cluster.run(lambda: cluster.broker(2).broker_id) == 2
    assert zookeeper_shared.alive()  # a server the cluster did not start is left running


@pytest.mark.zookeeper
def test_subprocess_kill_9_and_restart_comes_back_in_zookeeper(tmp_path, zookeeper_shared, kazoo_factory):
    overrides = {"zookeeper.session.timeout.ms": "2000"}
    with Cluster(
        3,
        zookeeper=zookeeper_shared,
        zk_chroot="/subprocess",
        mode="subprocess",
        overrides=overrides,
        base_dir=tmp_path,
    ) as cluster:
        kz = kazoo_factory(zookeeper_shared.connect("/subprocess"))
        wait_until(lambda: registrations(kz) == ["0", "1", "2"], "registrations")
        old_session = kz.get("/brokers/ids/1")[1].ephemeralOwner
        cluster.kill(1)
        assert cluster.broker(1).proc.returncode == -9
        # No deregistration: the node goes when the killed broker's session expires.
        wait_until(lambda: registrations(kz) == ["0", "2"], "expiry of the killed session")
        cluster.restart(1)
        wait_until(lambda: registrations(kz) == ["0", "1", "2"], "the new registration")
        assert kz.get("/brokers/ids/1")[1].ephemeralOwner != old_session
        with pytest.raises(NotImplementedError):
            cluster.cut_link(0, 1)
