"""Broker processes sharing a real ZooKeeper: unique producer ids, Kafka's znodes, ZooKeeper outages.

Each broker is a real ``python -m broker`` with ``zookeeper.connect`` (and a
chroot) set; clients are raw wire connections (and confluent-kafka).
"""

from __future__ import annotations

import contextlib
import json
import logging
import queue
import signal
import threading
import time

import pytest
from kazoo.client import KazooClient

from protocol.errors import ErrorCode
from protocol.messages import FetchRequest, InitProducerIdRequest, MetadataRequest
from protocol.record_batch import iter_batches
from tests.support.broker_process import BrokerProcess
from tests.support.wire_client import WireClient

pytestmark = [pytest.mark.zookeeper, pytest.mark.integration]

LOAD_IN_PROGRESS = ErrorCode.COORDINATOR_LOAD_IN_PROGRESS.code


def init_producer_id(client: WireClient, version: int = 4) -> tuple[int, int, int]:
    r = client.request(InitProducerIdRequest(transactional_id=None, transaction_timeout_ms=60000), version)
    return r.error_code, r.producer_id, r.producer_epoch


def fresh_id(client: WireClient, version: int = 4, timeout: float = 60.0) -> int:
    """An id, retrying COORDINATOR_LOAD_IN_PROGRESS as clients do."""
    deadline = time.monotonic() + timeout
    while True:
        err, pid, epoch = init_producer_id(client, version)
        if err == 0:
            assert epoch == 0
            return pid
        assert err == LOAD_IN_PROGRESS, err
        assert time.monotonic() < deadline, "no producer id in time"
        time.sleep(0.01)


def read_znode(server, path: str) -> tuple[bytes, object]:
    kz = KazooClient(hosts=server.connect(), timeout=5)
    kz.start(timeout=20)
    try:
        return kz.get(path)
    finally:
        kz.stop()
        kz.close()


def znode_exists(server, path: str) -> bool:
    kz = KazooClient(hosts=server.connect(), timeout=5)
    kz.start(timeout=20)
    try:
        return kz.exists(path) is not None
    finally:
        kz.stop()
        kz.close()


def wait_until(condition, what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"no {what} within {timeout} s"
        time.sleep(0.1)


@pytest.fixture
def zk_brokers(tmp_path, zookeeper):
    started: list[BrokerProcess] = []

    def make(broker_id: int, chroot: str = "/moldau", **overrides: str) -> BrokerProcess:
        props = {
            "zookeeper.connect": zookeeper.connect(chroot),
            "zookeeper.session.timeout.ms": "6000",
            "broker.id": str(broker_id),
            **overrides,
        }
        b = BrokerProcess(tmp_path / f"broker-{broker_id}", props)
        b.start()
        started.append(b)
        return b

    yield make
    for b in started:
        if b.alive():
            b.stop()


def test_three_brokers_hand_out_thousands_of_distinct_ids_concurrently(zookeeper, zk_brokers):
    # small blocks: each broker leases many, so they race for the znode
    brokers = [zk_brokers(i, **{"producer.id.block.size": "40"}) for i in (1, 2, 3)]
    results: queue.Queue = queue.Queue()

    def worker(b: BrokerProcess, version: int) -> None:
        try:
            with WireClient(b.host, b.port) as c:
                results.put([fresh_id(c, version) for _ in range(250)])
        except BaseException as exc:  # reported below
            results.put(exc)

    threads = [
        threading.Thread(target=worker, args=(b, v)) for b in brokers for v in (0, 2, 4)
    ]  # 9 connections
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    ids: list[int] = []
    while not results.empty():
        got = results.get()
        if isinstance(got, BaseException):
            raise got
        assert got == sorted(got)  # ids of one connection only grow
        ids += got
    assert len(ids) == 2250
    assert len(set(ids)) == 2250, "a producer id was handed out twice"

    data, stat = read_znode(zookeeper, "/moldau/latest_producer_id_block")
    latest = json.loads(data)
    assert set(latest) == {"version", "broker", "block_start", "block_end"}
    assert latest["version"] == 1 and latest["broker"] in (1, 2, 3)
    assert isinstance(latest["block_start"], str) and isinstance(latest["block_end"], str)
    # producer.id.block.size ids a lease, or a multiple of it while demand outruns the leases
    size = int(latest["block_end"]) - int(latest["block_start"]) + 1
    assert size % 40 == 0 and 40 <= size <= 64 * 40
    assert int(latest["block_end"]) >= max(ids)
    # one conditional write per leased block; together the blocks cover every id handed out
    assert int(latest["block_end"]) + 1 >= 2250
    assert stat.version >= (int(latest["block_end"]) + 1) // (64 * 40)
    # every broker is registered, with the port it really listens on
    for b in brokers:
        reg = json.loads(read_znode(zookeeper, f"/moldau/brokers/ids/{b.overrides['broker.id']}")[0])
        assert reg["version"] == 5
        assert reg["endpoints"] == [f"PLAINTEXT://127.0.0.1:{b.port}"]
        assert (reg["host"], reg["port"]) == ("127.0.0.1", b.port)


def test_zookeeper_outage_ids_from_held_block_then_retriable_then_ids_again(zookeeper, zk_brokers):
    b = zk_brokers(1, **{"producer.id.block.size": "100", "zookeeper.session.timeout.ms": "10000"})
    with WireClient(b.host, b.port) as c, WireClient(b.host, b.port) as other:
        before = [fresh_id(c) for _ in range(20)]
        # Once it is the controller it has its cluster view: a new broker's Metadata would
        # otherwise wait for one (FIRST_CLUSTER_VIEW_WAIT_S), and ZooKeeper is about to go.
        b.wait_for_log("broker 1 is the controller")
        zookeeper.stop()
        b.wait_for_log("lost the connection to ZooKeeper")
        during: list[int] = []
        while True:
            err, pid, _ = init_producer_id(c)
            if err != 0:
                break
            during.append(pid)
            if len(during) % 20 == 0:  # other requests are served meanwhile
                assert other.request(MetadataRequest(topics=None), 12).brokers[0].port == b.port
        assert err == LOAD_IN_PROGRESS
        assert len(before) + len(during) == 100  # exactly the rest of the held block
        for _ in range(5):  # stays retriable while ZooKeeper is away
            assert init_producer_id(c)[0] == LOAD_IN_PROGRESS
            assert other.request(MetadataRequest(topics=None), 12).brokers
        b.wait_for_log("could not lease a producer-id block")
        zookeeper.start()
        after = [fresh_id(c) for _ in range(150)]
    ids = before + during + after
    assert len(set(ids)) == len(ids)
    assert min(after) > max(before + during)
    b.wait_for_log("reconnected to ZooKeeper|new ZooKeeper session")
    assert b.alive()
    # one line per state change, not kazoo's warning per reconnection attempt
    assert not [line for line in b.lines if "Connection dropped" in line]


def test_broker_registers_again_after_its_session_expired(zookeeper, zk_brokers):
    """The broker freezes (a long GC pause, SIGSTOP) past its session timeout: ZooKeeper expires the
    session and drops /brokers/ids/4; once the broker runs again it builds a new session and registers."""
    b = zk_brokers(4, **{"zookeeper.session.timeout.ms": "2000", "producer.id.block.size": "10"})
    _, before = read_znode(zookeeper, "/moldau/brokers/ids/4")
    with WireClient(b.host, b.port) as c:
        ids = [fresh_id(c) for _ in range(5)]
    assert b.proc is not None
    b.proc.send_signal(signal.SIGSTOP)
    try:
        wait_until(lambda: not znode_exists(zookeeper, "/moldau/brokers/ids/4"), "session expiry")
    finally:
        b.proc.send_signal(signal.SIGCONT)
    wait_until(lambda: znode_exists(zookeeper, "/moldau/brokers/ids/4"), "registration with a new session")
    _, after = read_znode(zookeeper, "/moldau/brokers/ids/4")
    assert after.czxid != before.czxid and after.ephemeralOwner != before.ephemeralOwner
    b.wait_for_log("ZooKeeper session expired")
    b.wait_for_log("new ZooKeeper session")
    with WireClient(b.host, b.port) as c:
        ids += [fresh_id(c) for _ in range(30)]  # leasing works on the new session
    assert len(set(ids)) == len(ids)


def test_broker_without_zookeeper_does_not_start(tmp_path):
    from tests.support.zookeeper_server import free_port

    b = BrokerProcess(
        tmp_path / "data",
        {"zookeeper.connect": f"127.0.0.1:{free_port()}", "zookeeper.connection.timeout.ms": "1000"},
    )
    # BrokerProcess.start raises when it sees the exit, or returns if stderr closed first
    with contextlib.suppress(RuntimeError):
        b.start()
    assert b.proc is not None and b.proc.wait(30) == 1  # the CLI's exit code for a failed start-up
    b.wait_for_log(r"startup failed: timed out after 1000 ms .*zookeeper.connection.timeout.ms")
    assert not any("started" in line for line in b.lines)


def test_kill_9_restart_with_zookeeper_keeps_ids_unique(zookeeper, zk_brokers):
    b = zk_brokers(2, **{"producer.id.block.size": "30"})
    seen: list[int] = []
    for _ in range(3):
        with WireClient(b.host, b.port) as c:
            seen += [fresh_id(c) for _ in range(45)]
        b.restart(clean=False)
    with WireClient(b.host, b.port) as c:
        seen += [fresh_id(c) for _ in range(10)]
    assert len(set(seen)) == len(seen)


def test_confluent_kafka_idempotent_producer_gets_a_leased_id_and_produces(zookeeper, zk_brokers):
    confluent_kafka = pytest.importorskip("confluent_kafka")
    from confluent_kafka.admin import AdminClient, NewTopic

    b = zk_brokers(1, **{"producer.id.block.size": "1000"})
    with WireClient(b.host, b.port) as c:
        taken = fresh_id(c)
    admin = AdminClient({"bootstrap.servers": b.bootstrap})
    for f in admin.create_topics([NewTopic("idem", 3, 1)]).values():
        f.result(20)
    records: list[str] = []

    class Capture(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record.getMessage())

    logger = logging.getLogger("test.librdkafka")
    logger.addHandler(Capture())
    logger.setLevel(logging.DEBUG)
    producer = confluent_kafka.Producer(
        {"bootstrap.servers": b.bootstrap, "enable.idempotence": True, "debug": "eos", "linger.ms": 5},
        logger=logger,
    )
    failures: list[object] = []
    try:
        for i in range(300):
            producer.produce(
                "idem", key=str(i % 11), value=f"v{i}", on_delivery=lambda e, m: e and failures.append(e)
            )
        assert producer.flush(30) == 0
    finally:
        producer.flush(5)
    assert not failures
    acquired = next(r for r in records if "Acquired PID" in r)
    # "Acquired PID{Id:N,Epoch:0}": the id after ours, from the same leased block
    assert f"PID{{Id:{taken + 1},Epoch:0}}" in acquired
    # every batch in the log carries that producer id and epoch
    count = 0
    with WireClient(b.host, b.port) as c:
        for partition in range(3):
            fetch = FetchRequest(
                max_wait_ms=0,
                topics=[
                    FetchRequest.FetchTopic(
                        topic="idem",
                        partitions=[
                            FetchRequest.FetchPartition(partition=partition, partition_max_bytes=1 << 20)
                        ],
                    )
                ],
            )
            data = c.request(fetch, 4).responses[0].partitions[0]
            assert data.error_code == 0
            for _, header in iter_batches(memoryview(data.records or b"")):
                assert (header.producer_id, header.producer_epoch) == (taken + 1, 0)
                count += header.records_count
    assert count == 300
