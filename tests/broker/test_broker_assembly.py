"""Broker assembly: every component exists (and knows the topics) before the server listens,
the ZooKeeper session is the broker's and shared, one clock is injected everywhere.

The broker runs in the test's event loop; ZooKeeper is an in-memory fake.
"""

from __future__ import annotations

import asyncio
import uuid
from types import SimpleNamespace

import pytest
from kazoo.exceptions import NoNodeError

import broker.broker as broker_module
from broker.broker import Broker, Clock
from broker.config import BrokerConfig
from coordinator.cluster_state import BrokerEndpoint, LiveBroker
from storage.log_manager import LogManager

FIXED_MS = 1_700_000_000_000


def config(tmp_path, **extra) -> BrokerConfig:
    return BrokerConfig({"log.dirs": str(tmp_path), "listeners": "PLAINTEXT://127.0.0.1:0", **extra})


def fake_clock() -> Clock:
    return Clock(time_ms=lambda: FIXED_MS, monotonic=lambda: 42.0)


def run(coro) -> None:
    asyncio.run(coro)


def watch_listen(broker: Broker, seen: list) -> None:
    """Record what exists when the server starts listening."""
    real_start = broker.server.start

    async def start(**kwargs: bool) -> None:
        seen.append(
            {
                "components": [
                    hasattr(broker, name)
                    for name in (
                        "log_manager",
                        "producer_ids",
                        "controller",
                        "metadata_cache",
                        "replica_manager",
                        "groups",
                    )
                ],
                "first_block": broker.producer_ids.current_block,
                "topics": broker.metadata_cache.topic_names(),
            }
        )
        await real_start(**kwargs)

    broker.server.start = start


def test_components_and_topics_exist_before_the_server_listens(tmp_path):
    lm = LogManager([tmp_path], {})
    lm.startup()
    tid = uuid.uuid4()
    lm.create_topic("orders", 2, tid, {})
    lm.shutdown()

    async def scenario():
        b = Broker(config(tmp_path, **{"broker.rack": "r1"}), clock=fake_clock())
        seen: list = []
        watch_listen(b, seen)
        await b.start()
        try:
            assert seen[0]["components"] == [True] * 6
            assert seen[0]["first_block"] is not None  # the first producer-id block is leased
            assert seen[0]["topics"] == ["orders"]  # the registry was published before serving
            port = b.server.bound[0][1]
            cache = b.metadata_cache
            assert cache.get_alive_brokers() == [
                LiveBroker(b.broker_id, (BrokerEndpoint("PLAINTEXT", "127.0.0.1", port),), "r1")
            ]
            assert cache.controller_id == b.broker_id
            assert cache.get_topic("orders").topic_id == tid
            state = cache.partition_state("orders", 1)
            assert (state.leader, state.leader_epoch, state.isr, state.replicas) == (
                b.broker_id,
                0,
                (b.broker_id,),
                (b.broker_id,),
            )
            assert b.zookeeper is None
        finally:
            await b.stop()
            await b.stop()  # twice is harmless

    run(scenario())


def test_one_clock_is_injected(tmp_path):
    async def scenario():
        clock = fake_clock()
        b = Broker(config(tmp_path), clock=clock)
        await b.start()
        try:
            assert b.log_manager._time_ms is clock.time_ms
            assert b.controller.time_ms is clock.time_ms
            assert b.groups.time_ms is clock.time_ms
            assert b.producer_ids._clock is clock.monotonic
        finally:
            await b.stop()

    run(scenario())


class FakeZooKeeper:
    """What the broker and the producer-id source use of ZooKeeperClient, in memory."""

    def __init__(self, events: list, connect: str, **kwargs) -> None:
        self.events = events
        self.connect_string = connect
        self.kwargs = kwargs
        self.connected = False
        self.nodes: dict[str, tuple[bytes, int]] = {}

    def start(self) -> None:
        self.events.append("zk start")
        self.connected = True

    def register(self, registration) -> None:
        self.events.append(("zk register", registration))

    def read_topic_configs(self, topics):
        return {t: {} for t in topics}

    def get_or_create_cluster_id(self, proposed: str) -> str:
        self.events.append("zk cluster id")
        return "zk-cluster-id"

    def close(self) -> None:
        self.events.append("zk close")
        self.connected = False

    def add_connection_listener(self, callback) -> None:
        pass

    def get_data(self, path):
        if path not in self.nodes:
            raise NoNodeError()
        data, version = self.nodes[path]
        return data, SimpleNamespace(version=version)

    def create_node(self, path, data, *, ephemeral=False):
        self.events.append(("zk create", path))
        self.nodes[path] = (data, 0)
        return SimpleNamespace(version=0)

    def set_data(self, path, data, version):
        self.events.append(("zk set", path))
        self.nodes[path] = (data, version + 1)
        return SimpleNamespace(version=version + 1)


class FakeDynamicConfigStore:
    """``/config/brokers`` with no dynamic broker configs."""

    shared = True

    def __init__(self, admin) -> None:
        self.admin = admin

    def read(self, entity: str) -> dict:
        return {}

    def write(self, entity: str, config) -> None:
        raise AssertionError("nothing is written at start")


class FakeConfigManager:
    """The config change listener: records its life cycle."""

    def __init__(self, zk, handlers, **kwargs) -> None:
        self.zk = zk
        self.handlers = handlers
        self.events = zk.events

    async def start(self) -> None:
        self.events.append("config changes start")

    async def stop(self) -> None:
        self.events.append("config changes stop")


class FakeKafkaController:
    """Records its life cycle; never becomes active."""

    active = False

    def __init__(self, events: list, broker_id: int, zk, channel, **kwargs) -> None:
        self.events = events
        self.zk = zk

    async def startup(self) -> None:
        self.events.append("controller startup")

    async def shutdown(self) -> None:
        self.events.append("controller shutdown")


def test_the_zookeeper_session_is_the_brokers_and_shared(tmp_path, monkeypatch):
    events: list = []
    made: list[FakeZooKeeper] = []
    controllers: list[FakeKafkaController] = []

    def make(connect, **kwargs):
        zk = FakeZooKeeper(events, connect, **kwargs)
        made.append(zk)
        return zk

    def make_controller(*args, **kwargs):
        controllers.append(FakeKafkaController(events, *args, **kwargs))
        return controllers[-1]

    monkeypatch.setattr(broker_module, "ZooKeeperClient", make)
    monkeypatch.setattr(broker_module, "KafkaController", make_controller)
    monkeypatch.setattr(broker_module, "ZkDynamicConfigStore", FakeDynamicConfigStore)
    monkeypatch.setattr(broker_module, "ZkConfigManager", FakeConfigManager)

    async def scenario():
        clock = fake_clock()
        # (controlled shutdown needs a controller to talk to: tested in test_controlled_shutdown)
        b = Broker(
            config(
                tmp_path, **{"zookeeper.connect": "zk:2181/moldau", "controlled.shutdown.enable": "false"}
            ),
            clock=clock,
        )
        real_start = b.server.start
        real_accept = b.server.start_accepting

        async def listen(**kwargs: bool) -> None:
            events.append("listen")
            await real_start(**kwargs)
            # bound, not serving: a request would wait in the backlog until registered
            assert b.server.bound and not b.server.serving

        def accept() -> None:
            events.append("accept")
            real_accept()

        b.server.start = listen
        b.server.start_accepting = accept
        await b.start()
        (zk,) = made
        assert b.zookeeper is zk
        assert b.producer_ids.source.zookeeper is zk  # injected, not created by the manager
        assert zk.kwargs["time_ms"] is clock.time_ms
        kinds = [e if isinstance(e, str) else e[0] for e in events]
        # session, first producer-id block, listen, the registration with the bound port,
        # requests accepted (KafkaServer's enableRequestProcessing after registerBroker),
        # then the controller (it may win the election and talk to this broker)
        assert kinds == [
            "zk start",
            "zk cluster id",
            "zk create",
            "config changes start",  # topic and broker config changes, before any request
            "listen",
            "zk register",
            "accept",
            "controller startup",
        ]
        assert all(a.accepting for a in b.server._acceptors)
        assert b.cluster_id == "zk-cluster-id"  # the cluster's, from /cluster/id
        (controller,) = controllers
        assert controller.zk is zk
        registration = events[-3][1]
        assert registration.endpoints == (BrokerEndpoint("PLAINTEXT", "127.0.0.1", b.server.bound[0][1]),)
        await b.stop()
        # the manager's stop leaves the session alone; the broker closes it once, after it
        # and after the controller
        assert events.count("zk close") == 1
        assert events.index("controller shutdown") < events.index("zk close")
        assert not zk.connected

    run(scenario())


def test_a_failed_start_is_cleaned_up(tmp_path, monkeypatch):
    class Unreachable(FakeZooKeeper):
        def start(self) -> None:
            raise ConnectionError("no ZooKeeper")

    events: list = []
    monkeypatch.setattr(
        broker_module, "ZooKeeperClient", lambda connect, **kw: Unreachable(events, connect, **kw)
    )

    async def scenario():
        b = Broker(config(tmp_path, **{"zookeeper.connect": "zk:2181"}))
        with pytest.raises(ConnectionError):
            await b.start()
        assert b.server.bound == []  # never listened
        await b.stop()
        assert events == ["zk close"]
        # the log dirs were released: another broker can start on them
        again = Broker(config(tmp_path))
        await again.start()
        await again.stop()

    run(scenario())
