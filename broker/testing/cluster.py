"""N Moldau brokers in the test process sharing a ZooKeeper: a replicated Kafka cluster for tests.

:class:`InProcessCluster` is what the pytest plugin's ``moldau_cluster`` fixtures give a
test (``broker/testing/plugin.py``, docs/TESTING.md); it works without pytest too::

    zookeeper = ZooKeeperProcess(tmp_dir / "zk").start()
    with InProcessCluster(3, zookeeper.connect("/orders-test"), tmp_dir) as cluster:
        cluster.create_topic("orders", partitions=3, replication_factor=3)
        producer = Producer({"bootstrap.servers": cluster.bootstrap_servers, "acks": "all"})
        cluster.kill(cluster.leader("orders", 0))  # a crash: no checkpoint, no clean shutdown
        cluster.cut_link(1, 2)  # requests between brokers 1 and 2 are lost
        cluster.heal_link(1, 2)
        cluster.restart(0)

Brokers have ids 0..N-1, each its own log dir under the base dir and a free port of
127.0.0.1 (kept across restarts); ``zookeeper_connect`` (with a chroot, one per cluster)
is their ``zookeeper.connect``. They all run on one asyncio loop in a daemon thread
(``broker/testing/inprocess.py``), so clients in the test talk to them over real sockets,
and their requests pass through a :class:`broker.testing.interception.BrokerInterceptor`
on a :class:`broker.testing.interception.Network` the fault hooks program.

Link cuts follow Kafka's client ids: a request whose client id is ``broker-<id>`` or
``broker-<id>-...`` (replica fetchers, the controller's channel) comes from broker <id>.
A cut loses requests (no answer, connections closed), it does not refuse connections: a
network partition. ZooKeeper traffic is not cut.

:data:`CLUSTER_DEFAULTS` differ from a production broker where a test would otherwise
wait (the group coordinator's partitions and rebalance delay, one controlled-shutdown
attempt); the caller's overrides win.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import tempfile
import time
from collections.abc import Callable, Coroutine, Mapping
from pathlib import Path
from typing import Any

from broker.broker import Broker
from broker.config import BrokerConfig, Listener, parse_listeners
from broker.testing.embedded import (
    CHOSEN_KEYS,
    CREATE_TOPICS_VERSION,
    TopicCreationError,
    api_key,
    request_once,
)
from broker.testing.inprocess import START_TIMEOUT_S, InProcessNode, LoopThread
from broker.testing.interception import Control, ControlFn, Delay, Drop, DropResponse, Network, Verdict
from protocol.errors import ErrorCode
from protocol.messages import CreateTopicsRequest, MetadataRequest

CLUSTER_DEFAULTS: dict[str, str] = {
    "offsets.topic.num.partitions": "1",
    "group.initial.rebalance.delay.ms": "0",
    # closing a whole cluster would otherwise wait out Kafka's 3 controlled-shutdown
    # attempts, 5 s apart, for the last broker's unmovable leaders
    "controlled.shutdown.max.retries": "1",
}

# chosen by the cluster for each broker
CLUSTER_CHOSEN_KEYS = CHOSEN_KEYS | {"zookeeper.connect"}


class InProcessCluster:
    """``brokers`` brokers (ids 0..N-1) sharing the ZooKeeper at ``zookeeper_connect``."""

    def __init__(
        self,
        brokers: int,
        zookeeper_connect: str,
        base_dir: str | Path | None = None,
        overrides: Mapping[str, object] | None = None,
    ) -> None:
        if brokers < 1:
            raise ValueError("a cluster needs at least one broker")
        self.size = brokers
        self.zookeeper_connect = zookeeper_connect
        self._own_dir = base_dir is None
        self.base_dir = (
            Path(tempfile.mkdtemp(prefix="moldau-cluster-")) if base_dir is None else Path(base_dir)
        )
        self.overrides = {k: str(v) for k, v in (overrides or {}).items()}
        chosen = sorted(CLUSTER_CHOSEN_KEYS & set(self.overrides))
        if chosen:
            raise ValueError(f"a test cluster's {', '.join(chosen)} is chosen for it: do not override it")
        self.network = Network()
        self._nodes = [
            InProcessNode(i, self.base_dir / f"broker-{i}", self.network, self._properties)
            for i in range(brokers)
        ]
        self._loop: LoopThread | None = None
        self.startup_seconds: list[float] = []  # of every broker start, in order
        config = self._nodes[0].config()
        if config.unknown:
            raise ValueError(f"unknown broker config keys: {', '.join(sorted(config.unknown))}")

    def _properties(self, index: int, log_dir: Path, ports: Mapping[str, int]) -> dict[str, str]:
        props = {
            "broker.id": str(index),
            "log.dirs": str(log_dir),
            "listeners": "PLAINTEXT://127.0.0.1:0",
            "zookeeper.connect": self.zookeeper_connect,
            "offsets.topic.replication.factor": str(min(3, self.size)),
            **CLUSTER_DEFAULTS,
            **self.overrides,
        }
        listeners = parse_listeners("listeners", props["listeners"].split(","))
        props["listeners"] = ",".join(
            str(Listener(lst.name, lst.host, ports.get(lst.name, 0) if lst.port == 0 else lst.port))
            for lst in listeners
        )
        return props

    # ------------------------------------------------------------------ lifecycle

    def start(self, timeout: float = 60.0) -> InProcessCluster:
        """Start every broker; returns once each knows all of them and the same controller."""
        if self._loop is None:
            self._loop = LoopThread(name="moldau-cluster")
        began = time.perf_counter()

        async def start_all() -> None:
            await asyncio.gather(*(node.start() for node in self._nodes if not node.alive))

        try:
            self._loop.call(start_all(), timeout=START_TIMEOUT_S * 2)
            self.startup_seconds += [time.perf_counter() - began] * self.size
            self._wait(
                lambda: self._agreed_controller() is not None,
                "every broker to agree on a controller",
                timeout,
            )
        except BaseException:
            self.close()
            raise
        return self

    def close(self) -> None:
        """Stop every live broker cleanly and the loop; raise what a control raised."""
        try:
            if self._loop is not None:

                async def stop_all() -> None:
                    await asyncio.gather(*(n.stop() for n in self._nodes if n.alive), return_exceptions=True)

                with contextlib.suppress(Exception):
                    self._loop.call(stop_all(), timeout=120)
                self._loop.close()
                self._loop = None
        finally:
            if self._own_dir:
                shutil.rmtree(self.base_dir, ignore_errors=True)
        self.check_controls()

    def __enter__(self) -> InProcessCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ what it is

    def _node(self, i: int) -> InProcessNode:
        if not 0 <= i < self.size:
            raise IndexError(f"no broker {i} in a cluster of {self.size}")
        return self._nodes[i]

    @property
    def bootstrap_servers(self) -> str:
        """Every broker's ``127.0.0.1:<port>``, comma-separated (the same across restarts)."""
        return ",".join(self.address(i) for i in range(self.size))

    def address(self, i: int) -> str:
        node = self._node(i)
        if not node.port:
            raise RuntimeError(f"broker {i} has not started")
        return f"127.0.0.1:{node.port}"

    def port(self, i: int) -> int:
        return self._node(i).port

    def log_dir(self, i: int) -> Path:
        return self._node(i).log_dir

    def alive(self, i: int) -> bool:
        return self._node(i).alive

    def broker(self, i: int) -> Broker:
        """Broker ``i``'s ``Broker`` object (touch it through ``run``: it lives on another thread)."""
        node = self._node(i)
        if node.broker is None:
            raise RuntimeError(f"broker {i} is not running")
        return node.broker

    def config(self, i: int) -> BrokerConfig:
        node = self._node(i)
        return node.broker.config if node.broker is not None else node.config()

    def run(self, fn: Callable[[], Any] | Coroutine[Any, Any, Any], timeout: float = 30.0) -> Any:
        """Run ``fn()`` (or await a coroutine) on the brokers' loop and return its result."""
        if asyncio.iscoroutine(fn):
            return self._call(fn, timeout)

        async def call() -> Any:
            return fn()  # type: ignore[operator]

        return self._call(call(), timeout)

    def _call(self, coro: Coroutine[Any, Any, Any], timeout: float | None = START_TIMEOUT_S) -> Any:
        if self._loop is None:
            coro.close()
            raise RuntimeError("the cluster has not started")
        return self._loop.call(coro, timeout)

    def _live(self) -> list[int]:
        return [i for i in range(self.size) if self._node(i).alive]

    def _agreed_controller(self) -> int | None:
        """The controller id every live broker's metadata names, with every live broker in it."""

        def look() -> int | None:
            live = self._live()
            seen = set()
            for i in live:
                cache = self.broker(i).metadata_cache
                if any(not cache.is_alive(b) for b in live):
                    return None
                seen.add(cache.controller_id)
            return seen.pop() if len(seen) == 1 and -1 not in seen else None

        return self.run(look)

    def controller(self, timeout: float = 30.0) -> int:
        """The id of the active controller (once every live broker agrees on it)."""
        return self._wait(
            lambda: (c := self._agreed_controller()) is not None and (c,), "a controller", timeout
        )[0]

    def partition(self, topic: str, partition: int = 0, *, broker: int | None = None) -> Any:
        """The partition's state in a live broker's metadata (``leader``, ``leader_epoch``,
        ``replicas``, ``isr``), or None if that broker does not know it."""
        i = self._live()[0] if broker is None else broker
        return self.run(lambda: self.broker(i).metadata_cache.partition_state(topic, partition))

    def leader(self, topic: str, partition: int = 0, timeout: float = 30.0) -> int:
        """The partition's leader: a live broker every live broker's metadata names (waits for it)."""

        def agreed() -> tuple[int] | None:
            leaders = {
                getattr(self.partition(topic, partition, broker=i), "leader", -1) for i in self._live()
            }
            return (leaders.pop(),) if len(leaders) == 1 and leaders <= set(self._live()) else None

        return self._wait(agreed, f"a leader of {topic}-{partition}", timeout)[0]

    def wait_in_sync(self, topic: str, partitions: int | None = None, timeout: float = 30.0) -> None:
        """Wait until every partition of ``topic`` (its first ``partitions``) has every replica
        in its ISR, in every live broker's metadata."""

        def in_sync() -> bool:
            def look() -> bool:
                for i in self._live():
                    states = self.broker(i).metadata_cache.partition_states(topic)
                    if not states or (partitions is not None and len(states) < partitions):
                        return False
                    if any(set(s.replicas) != set(s.isr) for s in states):
                        return False
                return True

            return bool(self.run(look))

        self._wait(in_sync, f"every replica of {topic} in sync", timeout)

    @staticmethod
    def _wait(condition: Callable[[], Any], what: str, timeout: float) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            result = condition()
            if result:
                return result
            if time.monotonic() > deadline:
                raise TimeoutError(f"no {what} within {timeout} s")
            time.sleep(0.02)

    # ------------------------------------------------------------------ topics

    def create_topic(
        self,
        name: str,
        partitions: int = 1,
        replication_factor: int | None = None,
        config: Mapping[str, object] | None = None,
        *,
        timeout: float = 30.0,
    ) -> None:
        """Create a topic through the controller (CreateTopics, as an admin client would) and wait
        until every live broker's metadata shows each partition with a leader. The replication
        factor defaults to the number of brokers, at most 3. Raises ``TopicCreationError``."""
        rf = min(3, self.size) if replication_factor is None else replication_factor
        topic = CreateTopicsRequest.CreatableTopic(
            name=name,
            num_partitions=partitions,
            replication_factor=rf,
            configs=[
                CreateTopicsRequest.CreatableTopicConfig(name=k, value=str(v))
                for k, v in (config or {}).items()
            ],
        )
        request = CreateTopicsRequest(topics=[topic], timeout_ms=int(timeout * 1000))
        deadline = time.monotonic() + timeout
        while True:
            controller = self.controller(timeout)
            (result,) = request_once(self.port(controller), request, CREATE_TOPICS_VERSION, timeout).topics
            error = ErrorCode.for_code(result.error_code)
            if error is ErrorCode.NOT_CONTROLLER and time.monotonic() < deadline:
                time.sleep(0.05)  # the controller moved meanwhile
                continue
            if error is not ErrorCode.NONE:
                raise TopicCreationError(name, error, result.error_message)
            break

        def led_everywhere() -> bool:
            def look() -> bool:
                for i in self._live():
                    states = self.broker(i).metadata_cache.partition_states(name)
                    if len(states) < partitions or any(s.leader < 0 for s in states):
                        return False
                return True

            return bool(self.run(look))

        self._wait(led_everywhere, f"topic {name} led in every broker's metadata", timeout)

    def metadata(self, i: int, topics: list[str] | None = None, timeout: float = 10.0) -> Any:
        """Broker ``i``'s answer to Metadata v12 (all topics, or ``topics``), as clients see it."""
        request = MetadataRequest(
            topics=None if topics is None else [MetadataRequest.MetadataRequestTopic(name=t) for t in topics],
            allow_auto_topic_creation=False,
        )
        return request_once(self.port(i), request, 12, timeout)

    # ------------------------------------------------------------------ brokers down and up

    def kill(self, i: int) -> None:
        """Crash broker ``i`` as kill -9 would (``broker/testing/inprocess.py``): nothing more
        reaches its disk, no checkpoint, its ZooKeeper session closed (the controller sees it
        gone at once), its clients' connections reset. ``start_broker(i)`` recovers it."""
        node = self._node(i)
        if not node.alive:
            raise RuntimeError(f"broker {i} is not running")
        self._call(node.kill())

    def stop(self, i: int) -> None:
        """Stop broker ``i`` cleanly (controlled shutdown, checkpoints, clean-shutdown marker)."""
        node = self._node(i)
        if node.alive:
            self._call(node.stop(), timeout=120)

    def start_broker(self, i: int) -> None:
        """Start a stopped or killed broker ``i`` again: same id, log dir and port."""
        node = self._node(i)
        if node.alive:
            raise RuntimeError(f"broker {i} is running")
        began = time.perf_counter()
        self._call(node.start())
        self.startup_seconds.append(time.perf_counter() - began)

    def restart(self, i: int, *, clean: bool = True) -> None:
        """Stop (``clean=False``: kill) broker ``i`` if it runs, then start it again."""
        if self.alive(i):
            if clean:
                self.stop(i)
            else:
                self.kill(i)
        self.start_broker(i)

    # ------------------------------------------------------------------ network faults

    def cut_link(self, a: int, b: int, *, both_ways: bool = True) -> None:
        """Lose every request from broker ``a`` to broker ``b`` (and back, unless
        ``both_ways=False``: then only ``a``'s requests to ``b``), closing their connections.
        Replica fetching, the controller's requests and AlterPartition are requests."""
        self._node(a)
        self._node(b)
        self.network.cut(a, b, both_ways)
        self._close_blocked([a, b])

    def heal_link(self, a: int, b: int) -> None:
        """Restore the link between brokers ``a`` and ``b``."""
        self.network.heal(a, b)

    def isolate(self, i: int, *, from_brokers: bool = True) -> None:
        """Cut broker ``i`` off from clients (and, by default, from the other brokers)."""
        self._node(i)
        self.network.isolate(i, from_brokers)
        self._close_blocked(range(self.size))

    def rejoin(self, i: int) -> None:
        """Undo ``isolate(i)``."""
        self.network.rejoin(i)

    def heal_all(self) -> None:
        """Undo every cut and isolation."""
        self.network.heal_all()

    def _close_blocked(self, brokers: Any) -> None:
        targets = [b for b in brokers if self._node(b).alive]

        async def close() -> None:
            for b in targets:
                self.network.close_blocked_connections(b)

        self._call(close(), timeout=10)

    # ------------------------------------------------------------------ request faults

    def control(
        self,
        broker: int | None,
        api: int | str | None,
        fn: ControlFn,
        *,
        keep: bool = False,
        times: int | None = None,
    ) -> Control:
        """Intercept requests of ``api`` (None: all) at broker ``broker`` (None: every broker)
        with ``fn(InterceptedRequest) -> Verdict | None`` (``broker/testing/interception.py``)."""
        if broker is not None:
            self._node(broker)
        return self.network.add_control(fn, broker, None if api is None else api_key(api), keep, times)

    def _next(self, broker: int | None, api: int | str, verdict: Verdict, count: int) -> Control:
        return self.control(broker, api, lambda _request: verdict, times=count)

    def drop_requests(self, api: int | str, count: int = 1, *, broker: int | None = None) -> Control:
        """The next ``count`` requests of ``api`` (at ``broker``, or any) are lost unanswered."""
        return self._next(broker, api, Drop(), count)

    def drop_responses(self, api: int | str, count: int = 1, *, broker: int | None = None) -> Control:
        """The next ``count`` requests of ``api`` are handled, their answers lost."""
        return self._next(broker, api, DropResponse(), count)

    def delay_responses(
        self, api: int | str, seconds: float, count: int = 1, *, broker: int | None = None
    ) -> Control:
        """The answers to the next ``count`` requests of ``api`` are held ``seconds``."""
        return self._next(broker, api, Delay(seconds=seconds, response=True), count)

    def clear_faults(self) -> None:
        """Remove every control and undo every cut."""
        self.network.clear_controls()
        self.network.heal_all()

    def check_controls(self) -> None:
        """Raise (once) the first exception a control raised."""
        errors = self.network.errors
        if errors:
            first = errors[0]
            errors.clear()
            raise first
