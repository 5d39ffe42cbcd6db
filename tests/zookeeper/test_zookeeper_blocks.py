"""The ZooKeeper side against a real ZooKeeper: session, chroot, Kafka's znodes, block leases.

Most tests share one server per module and isolate themselves with a chroot
each; those that stop, restart or expire things get their own server.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
import time

import pytest
from kazoo.client import KazooClient

from coordinator.producer_id_blocks import (
    LONG_MAX,
    PRODUCER_ID_BLOCK_ZNODE,
    ProducerIdBlock,
    ProducerIdBlockError,
    ProducerIdBlockFatalError,
    ProducerIdsExhaustedError,
    ZooKeeperBlockSource,
    decode_block,
    encode_block,
)
from coordinator.producer_ids import ProducerIdManager, ProducerIdsFatalError, create_producer_id_manager
from coordinator.zookeeper import (
    PERSISTENT_PATHS,
    BrokerEndpoint,
    BrokerRegistration,
    ZooKeeperClient,
    ZooKeeperConnectionError,
)
from protocol.errors import ErrorCode, KafkaError
from tests.support.zookeeper_server import free_port

pytestmark = pytest.mark.zookeeper


def raw_client(server, chroot: str = "") -> KazooClient:
    kz = KazooClient(hosts=server.connect(chroot), timeout=5)
    kz.start(timeout=20)
    return kz


def registration(broker_id: int, port: int = 9092, rack: str | None = None) -> BrokerRegistration:
    return BrokerRegistration(
        broker_id=broker_id,
        endpoints=(
            BrokerEndpoint("INTERNAL", "moldau-1", 29092),
            BrokerEndpoint("EXTERNAL", "localhost", port),
        ),
        rack=rack,
    )


def wall_ms() -> int:
    return int(time.time() * 1000)


def wait_until(condition, timeout: float = 30.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not met within {timeout} s")
        time.sleep(0.05)


@pytest.fixture
def zk_client(zookeeper_shared, zk_chroot):
    clients: list[ZooKeeperClient] = []

    def make(broker_id: int | None = None, *, session_timeout_ms: int = 6000) -> ZooKeeperClient:
        c = ZooKeeperClient(
            zookeeper_shared.connect(zk_chroot),
            session_timeout_ms=session_timeout_ms,
            time_ms=wall_ms,
            registration=registration(broker_id) if broker_id is not None else None,
        )
        c.start()
        clients.append(c)
        return c

    yield make
    for c in clients:
        c.close()


def test_chroot_is_created_with_kafkas_persistent_paths(zookeeper_shared, zk_chroot, zk_client):
    zk_client(1)
    kz = raw_client(zookeeper_shared)
    try:
        assert kz.exists(zk_chroot) is not None
        for path in PERSISTENT_PATHS:
            assert kz.exists(zk_chroot + path) is not None, path
        assert "/config/topics" in PERSISTENT_PATHS and "/brokers/seqid" in PERSISTENT_PATHS
        # nothing of ours outside the chroot
        assert kz.exists("/brokers") is None
        assert kz.exists(PRODUCER_ID_BLOCK_ZNODE) is None
    finally:
        kz.stop()


def test_broker_registration_is_kafkas_ephemeral_json(zookeeper_shared, zk_chroot, zk_client):
    c = zk_client(7)
    kz = raw_client(zookeeper_shared, zk_chroot)
    try:
        data, stat = kz.get("/brokers/ids/7")
        assert stat.ephemeralOwner == c.session_id
        assert c.broker_epoch == stat.czxid
        obj = json.loads(data)
        assert obj["version"] == 5
        assert obj["endpoints"] == ["INTERNAL://moldau-1:29092", "EXTERNAL://localhost:9092"]
        assert obj["listener_security_protocol_map"] == {"INTERNAL": "PLAINTEXT", "EXTERNAL": "PLAINTEXT"}
        assert (obj["host"], obj["port"]) == ("moldau-1", 29092)  # the first PLAINTEXT endpoint
        assert obj["jmx_port"] == -1
        assert isinstance(obj["timestamp"], str) and int(obj["timestamp"]) > 0
        assert obj["features"] == {}
        assert "rack" not in obj
        c.close()
        assert kz.exists("/brokers/ids/7") is None  # the session ended: gone at once
    finally:
        kz.stop()


def test_connection_timeout_fails_the_start():
    port = free_port()  # nothing listens there
    c = ZooKeeperClient(
        f"127.0.0.1:{port}", session_timeout_ms=6000, time_ms=wall_ms, connection_timeout_ms=800
    )
    with pytest.raises(ZooKeeperConnectionError, match=r"zookeeper.connection.timeout.ms"):
        c.start()
    assert isinstance(ZooKeeperConnectionError("x"), OSError)  # the CLI reports OSErrors as start-up failures


def test_blocks_follow_each_other_across_brokers(zookeeper_shared, zk_chroot, zk_client):
    a = ZooKeeperBlockSource(zk_client(1), broker_id=1, block_size=1000)
    b = ZooKeeperBlockSource(zk_client(2), broker_id=2, block_size=500)
    assert a.lease_next_block() == ProducerIdBlock(1, 0, 1000)
    assert b.lease_next_block() == ProducerIdBlock(2, 1000, 500)
    assert a.lease_next_block() == ProducerIdBlock(1, 1500, 1000)
    kz = raw_client(zookeeper_shared, zk_chroot)
    try:
        data, stat = kz.get(PRODUCER_ID_BLOCK_ZNODE)
        assert data == b'{"version":1,"broker":1,"block_start":"1500","block_end":"2499"}'
        assert stat.version == 3  # created empty, then three conditional writes
    finally:
        kz.stop()


def test_a_missing_znode_is_created_with_the_first_block(zookeeper_shared, zk_chroot, zk_client):
    c = zk_client(1)
    kz = raw_client(zookeeper_shared, zk_chroot)
    try:
        kz.delete(PRODUCER_ID_BLOCK_ZNODE)
        src = ZooKeeperBlockSource(c, broker_id=1, block_size=10)
        assert src.lease_next_block() == ProducerIdBlock(1, 0, 10)
        assert decode_block(kz.get(PRODUCER_ID_BLOCK_ZNODE)[0]) == ProducerIdBlock(1, 0, 10)
    finally:
        kz.stop()


def test_conflicting_update_between_read_and_write_is_retried_not_lost(
    zookeeper_shared, zk_chroot, zk_client
):
    c = zk_client(1)
    src = ZooKeeperBlockSource(c, broker_id=1, block_size=100)
    assert src.lease_next_block() == ProducerIdBlock(1, 0, 100)
    other = raw_client(zookeeper_shared, zk_chroot)
    competitor = ProducerIdBlock(9, 100, 50)
    injected = []

    def another_broker_writes():
        # exactly once, between our read and our conditional write
        if not injected:
            injected.append(True)
            other.set(PRODUCER_ID_BLOCK_ZNODE, encode_block(competitor))

    src.before_write = another_broker_writes
    try:
        block = src.lease_next_block()
        assert injected and src.conflicts == 1
        # ours comes after the competitor's: its ids are not handed out twice, nor lost from the znode
        assert block == ProducerIdBlock(1, 150, 100)
        assert decode_block(other.get(PRODUCER_ID_BLOCK_ZNODE)[0]) == block
    finally:
        other.stop()


def test_conflicting_create_of_a_missing_znode_is_retried(zookeeper_shared, zk_chroot, zk_client):
    c = zk_client(1)
    other = raw_client(zookeeper_shared, zk_chroot)
    other.delete(PRODUCER_ID_BLOCK_ZNODE)
    src = ZooKeeperBlockSource(c, broker_id=1, block_size=10)

    def another_broker_creates():
        if src.conflicts == 0 and other.exists(PRODUCER_ID_BLOCK_ZNODE) is None:
            other.create(PRODUCER_ID_BLOCK_ZNODE, encode_block(ProducerIdBlock(3, 0, 10)))

    src.before_write = another_broker_creates
    try:
        assert src.lease_next_block() == ProducerIdBlock(1, 10, 10)
        assert src.conflicts == 1
    finally:
        other.stop()


def test_concurrent_leases_from_many_threads_never_overlap(zookeeper_shared, zk_chroot, zk_client):
    sources = [ZooKeeperBlockSource(zk_client(i), broker_id=i, block_size=7) for i in range(3)]
    results: list[ProducerIdBlock] = []
    lock = threading.Lock()

    def lease(src):
        for _ in range(15):
            b = src.lease_next_block()
            with lock:
                results.append(b)

    threads = [threading.Thread(target=lease, args=(s,)) for s in sources for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(results) == 90
    ranges = sorted((b.first_id, b.last_id) for b in results)
    assert ranges[0][0] == 0
    for (_, last), (first, _) in itertools.pairwise(ranges):
        assert first == last + 1  # contiguous, no overlap, no gap


def test_exhaustion_near_2_63_is_fatal(zookeeper_shared, zk_chroot, zk_client):
    c = zk_client(1)
    kz = raw_client(zookeeper_shared, zk_chroot)
    try:
        kz.set(PRODUCER_ID_BLOCK_ZNODE, encode_block(ProducerIdBlock(2, LONG_MAX - 1500, 1000)))
        src = ZooKeeperBlockSource(c, broker_id=1, block_size=1000)
        with pytest.raises(ProducerIdsExhaustedError, match="exhausted"):
            src.lease_next_block()
        # nothing was written
        assert decode_block(kz.get(PRODUCER_ID_BLOCK_ZNODE)[0]) == ProducerIdBlock(2, LONG_MAX - 1500, 1000)
    finally:
        kz.stop()


def test_garbage_in_the_znode_is_fatal(zookeeper_shared, zk_chroot, zk_client):
    c = zk_client(1)
    kz = raw_client(zookeeper_shared, zk_chroot)
    try:
        kz.set(PRODUCER_ID_BLOCK_ZNODE, b"{not json")
        with pytest.raises(ProducerIdBlockFatalError, match="not a producer-id block"):
            ZooKeeperBlockSource(c, broker_id=1, block_size=10).lease_next_block()
    finally:
        kz.stop()


def test_cluster_id_is_created_once_and_shared(zk_client):
    a, b = zk_client(1), zk_client(2)
    assert a.get_or_create_cluster_id("first-id") == "first-id"
    assert b.get_or_create_cluster_id("second-id") == "first-id"
    data, _ = a.kazoo.get("/cluster/id")
    assert json.loads(data) == {"version": "1", "id": "first-id"}


def test_manager_via_the_factory_registers_and_leases(zookeeper_shared, zk_chroot, tmp_path):
    async def scenario():
        # The broker's start-up: the session first, the manager on it, the registration.
        zk = ZooKeeperClient(zookeeper_shared.connect(zk_chroot), session_timeout_ms=6000, time_ms=wall_ms)
        await asyncio.to_thread(zk.start)
        m = create_producer_id_manager(zookeeper=zk, block_size=20, broker_id=3, data_dir=tmp_path)
        await m.start()
        await asyncio.to_thread(zk.register, registration(3, rack="r1"))
        ids = []
        while len(ids) < 100:
            try:
                ids.append(m.generate_producer_id())
            except KafkaError as exc:
                assert exc.error is ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
                await asyncio.sleep(0.001)
        assert ids == list(range(100))
        assert m.zookeeper is not None
        reg = json.loads(m.zookeeper.kazoo.get("/brokers/ids/3")[0])
        assert reg["rack"] == "r1"
        await m.stop()
        assert zk.connected  # the session is the broker's, not the manager's
        zk.close()
        assert not (tmp_path / "producer-id-block").exists()  # ZooKeeper mode keeps no file

    asyncio.run(scenario())


def test_manager_refuses_to_start_on_garbage(zookeeper_shared, zk_chroot, tmp_path):
    kz = raw_client(zookeeper_shared)
    kz.ensure_path(zk_chroot + PRODUCER_ID_BLOCK_ZNODE)
    kz.set(zk_chroot + PRODUCER_ID_BLOCK_ZNODE, b"garbage")
    kz.stop()

    async def scenario():
        zk = ZooKeeperClient(zookeeper_shared.connect(zk_chroot), session_timeout_ms=6000, time_ms=wall_ms)
        await asyncio.to_thread(zk.start)
        m = create_producer_id_manager(zookeeper=zk, block_size=20, broker_id=3, data_dir=tmp_path)
        with pytest.raises(ProducerIdsFatalError):
            await m.start()
        await m.stop()
        zk.close()

    asyncio.run(scenario())


# ---------------------------------------------------------------------- ZooKeeper trouble (own server)


def test_registration_survives_session_expiry(zookeeper):
    c = ZooKeeperClient(
        zookeeper.connect("/moldau"), session_timeout_ms=4000, time_ms=wall_ms, registration=registration(5)
    )
    c.start()
    reconnected = threading.Event()
    c.add_connection_listener(reconnected.set)
    kz = raw_client(zookeeper, "/moldau")
    try:
        old_session = c.session_id
        old_czxid = kz.get("/brokers/ids/5")[1].czxid
        # Expire the session the way ZooKeeper does: another client takes it over and closes it.
        session_id, password = c.kazoo.client_id
        thief = KazooClient(hosts=zookeeper.connect("/moldau"), client_id=(session_id, password), timeout=4)
        thief.start(timeout=20)
        thief.stop()
        thief.close()
        wait_until(
            lambda: (
                c.session_id not in (None, old_session)
                and (s := kz.exists("/brokers/ids/5")) is not None
                and s.ephemeralOwner == c.session_id
            ),
            what="re-registration with a new session",
        )
        assert reconnected.is_set()
        assert kz.get("/brokers/ids/5")[1].czxid != old_czxid  # a new broker epoch
        assert c.broker_epoch == kz.get("/brokers/ids/5")[1].czxid
    finally:
        kz.stop()
        c.close()


def test_a_stale_registration_is_waited_out(zookeeper):
    stale = raw_client(zookeeper)
    stale.create("/brokers/ids/6", b"{}", ephemeral=True, makepath=True)
    owner = stale.exists("/brokers/ids/6").ephemeralOwner
    c = ZooKeeperClient(
        zookeeper.connect(), session_timeout_ms=4000, time_ms=wall_ms, registration=registration(6)
    )
    # start() waits for the stale node (at most the session timeout and a tick): the old
    # session ends meanwhile, the node goes, ours appears and start() returns.
    threading.Timer(1.0, stale.stop).start()
    try:
        c.start()
        stat = c.kazoo.exists("/brokers/ids/6")
        assert stat is not None and stat.ephemeralOwner == c.session_id != owner
        assert c.broker_epoch == stat.czxid
        assert json.loads(c.kazoo.get("/brokers/ids/6")[0])["version"] == 5
    finally:
        stale.stop()
        stale.close()
        c.close()


def test_zookeeper_outage_held_ids_then_retriable_error_then_ids_again(zookeeper, tmp_path):
    """In process: ZooKeeper goes away mid-stream and comes back on the same port."""

    async def scenario():
        zk = ZooKeeperClient(
            zookeeper.connect("/moldau"),
            session_timeout_ms=10_000,
            time_ms=wall_ms,
            registration=registration(1),
        )
        await asyncio.to_thread(zk.start)
        m = create_producer_id_manager(zookeeper=zk, block_size=50, broker_id=1, data_dir=tmp_path)
        await m.start()
        ids = [m.generate_producer_id() for _ in range(10)]
        await asyncio.to_thread(zookeeper.stop)
        loop = asyncio.get_running_loop()
        errors = 0
        # the held block keeps serving without ZooKeeper
        for _ in range(40):
            ids.append(m.generate_producer_id())
        while True:
            try:
                ids.append(m.generate_producer_id())
            except KafkaError as exc:
                assert exc.error is ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
                errors += 1
                break
        held = len(ids)
        assert held in (50, 100)  # the held block, or also a prefetched one if it arrived in time
        await asyncio.sleep(0.2)  # leases are retried meanwhile (and fail: ZooKeeper is away)
        with pytest.raises(KafkaError):
            m.generate_producer_id()
        await asyncio.to_thread(zookeeper.start)
        deadline = loop.time() + 60
        while len(ids) < held + 60:
            try:
                ids.append(m.generate_producer_id())
            except KafkaError as exc:
                assert exc.error is ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
                assert loop.time() < deadline, "no ids after ZooKeeper came back"
                await asyncio.sleep(0.02)
        assert errors == 1
        assert len(set(ids)) == len(ids)
        assert min(ids[held:]) > max(ids[:held])
        await m.stop()
        zk.close()

    asyncio.run(scenario())


def test_lease_while_disconnected_fails_fast(zookeeper):
    c = ZooKeeperClient(zookeeper.connect(), session_timeout_ms=10_000, time_ms=wall_ms)
    c.start()
    try:
        src = ZooKeeperBlockSource(c, broker_id=1, block_size=10)
        zookeeper.stop()
        wait_until(lambda: not c.connected, what="disconnect noticed")
        # refused at once, not queued until ZooKeeper returns or a request timeout passes
        with pytest.raises(ProducerIdBlockError, match="not connected"):
            src.lease_next_block()
    finally:
        c.close()


def test_manager_without_zookeeper_at_start_does_not_start(tmp_path):
    async def scenario():
        m = ProducerIdManager(
            ZooKeeperBlockSource(
                ZooKeeperClient(
                    f"127.0.0.1:{free_port()}",
                    session_timeout_ms=4000,
                    time_ms=wall_ms,
                    connection_timeout_ms=500,
                ),
                broker_id=1,
                block_size=10,
            )
        )
        with pytest.raises(ZooKeeperConnectionError):
            await m.start()
        await m.stop()

    asyncio.run(scenario())
