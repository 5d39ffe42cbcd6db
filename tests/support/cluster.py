"""A test cluster of N Moldau brokers, with fault injection (franz-go kfake's ``ControlKey``).

``Cluster`` starts N brokers, each with its own log dir and an ephemeral port
(kept across restarts, so clients reconnect to the same address), broker ids
0..N-1 (``cluster.broker_id(i) == i``), and with ``zookeeper=True`` a real
ZooKeeper (``tests/support/zookeeper_server.py``) whose address (with the
``zk_chroot``, default ``/moldau``) every broker gets as ``zookeeper.connect``.

Two modes:

- ``mode="inprocess"`` (default): every broker is a ``broker.broker.Broker`` on
  one asyncio event loop, run by a background thread, so synchronous clients
  (kafka-python, confluent-kafka, the Java client, ``WireClient``) in the test
  thread talk to them over real sockets. Start-up is fast, broker objects can
  be inspected (``cluster.broker(i)``, ``cluster.run(coro)`` runs on their loop),
  and requests can be intercepted: ``control``, ``cut_link``, ``isolate``.
  ``kill(i)`` emulates a crash: every file descriptor the process holds under
  the broker's log dirs is pointed at /dev/null (nothing reaches the disk
  after that instant, unflushed page-cache data stays as after a kill -9, and
  the ``.lock`` is released), its sockets are reset, its ZooKeeper session is
  closed (its ephemeral ``/brokers/ids/<id>`` goes at once; no explicit
  deregistration) and its tasks are cancelled; no checkpoint and no
  clean-shutdown marker are written. Use it to test recovery and failover.
- ``mode="subprocess"``: every broker is a ``python -m broker`` process
  (``tests/support/broker_process.BrokerProcess``); ``kill(i)`` is a real
  SIGKILL, and a ZooKeeper session then lives on until it expires
  (``zookeeper.session.timeout.ms``), as after a real crash. Use it when the
  crash must be real (fsync, session expiry, a process that cannot clean up);
  ``control``/``cut_link``/``isolate`` are not available there; for faults
  between a client and one broker, put a ``tests/support/fault_proxy.FaultProxy``
  in front of ``cluster.address(i)``.

Fault injection (in-process mode, see ``broker/testing/interception.py``):

- ``control(broker, api_key, fn, keep=False)``: ``fn(InterceptedRequest)``
  returns None (not handled), ``PASS``, ``Drop()``, ``DropResponse()``,
  ``Close()``, ``Delay(seconds=..., until=Gate())``, ``Replace(request)``,
  ``Respond(response)`` or ``Transform(fn)``; the control is removed after the
  first request it handles unless ``keep=True``. ``broker``/``api_key`` None
  match every broker/request.
- ``cut_link(a, b)``: requests from broker a arriving at broker b (and from b
  at a, unless ``both_ways=False``) are lost (no answer), and the connections
  already made are closed. ``heal_link(a, b)`` undoes it.
- ``isolate(i)``: broker i loses every request from clients and from the
  other brokers, and its own requests to them are lost (``from_brokers=False``:
  cut off from clients only). ``rejoin(i)`` undoes it; ``heal_all()`` undoes
  every cut. Cuts outlive a restart of the broker.
- A cut does not refuse TCP connections: they are accepted, then nothing is
  answered (a network partition, seen by a client as request timeouts).

Link-cut convention (the replication work must follow it): a request comes
from broker <id> when its header's client_id is ``broker-<id>`` or
``broker-<id>-<purpose>`` (``interception.broker_client_id(id, "fetcher-0")``,
like Kafka's replica fetcher ``broker-<id>-fetcher-<n>``); any other client_id
is a client's. A connection belongs to the source of the requests it carried.
ZooKeeper traffic is not cut (the session of an isolated broker lives on;
stop ZooKeeper itself with ``cluster.zookeeper.stop()`` for that).

``cluster.traffic(i)`` counts the requests broker i got (by API key) and those
lost to cuts (by source). More listeners can be given as ``listeners``
(``PLAINTEXT://127.0.0.1:0,REPLICATION://127.0.0.1:0``, in-process mode): each
keeps its port across restarts.

Example (``cluster_factory`` is the fixture form: closed after the test, which
fails if a control raised)::

    from tests.support.cluster import Cluster
    from tests.support.interception import DropResponse, Delay, Gate

    with Cluster(n=3, zookeeper=True, base_dir=tmp_path) as cluster:
        seen = []
        cluster.control(1, ApiKey.FETCH, lambda r: seen.append(r) or DropResponse())
        consumer = Consumer({"bootstrap.servers": cluster.address(1), ...})
        ...
        gate = Gate()
        cluster.control(None, ApiKey.PRODUCE, lambda r: Delay(until=gate, response=True), keep=True)
        ...  # acks are held at every broker until gate.release()
        cluster.kill(2)     # crash
        cluster.restart(2)  # same id, log dir and port
        cluster.cut_link(0, 1)
        cluster.isolate(0)

Limits of the in-process mode: one plain asyncio loop (not uvloop) runs all
brokers, so a broker that blocks the loop stalls the others; ``kill`` needs
Linux (``/proc/self/fd``); plain callbacks a crashed broker had scheduled
(``loop.call_later``) still run, on its dead objects (the tasks they start are
cancelled, and its files are /dev/null by then).

Today every broker is its own one-broker cluster for topics (they share only
ZooKeeper: producer-id blocks and ``/brokers/ids``), so a client should talk to
one broker (``cluster.address(i)``); ``cluster.bootstrap`` lists them all for
the replicated cluster to come.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import shutil
import socket
import tempfile
import time
from collections.abc import Callable, Coroutine, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from broker.broker import Broker
from broker.config import Listener, parse_listeners
from broker.testing.inprocess import START_TIMEOUT_S, InProcessNode, LoopThread
from tests.support.broker_process import BrokerProcess
from tests.support.interception import (
    BrokerTraffic,
    Control,
    ControlFn,
    Network,
)
from tests.support.zookeeper_server import ZooKeeperServer

log = logging.getLogger(__name__)

# The in-process machinery (loop thread, crash emulation, node) is shared with the
# pytest plugin shipped in the package: broker/testing/inprocess.py.
_LoopThread = LoopThread


class _InProcessNode(InProcessNode):
    def __init__(self, cluster: Cluster, index: int, log_dir: Path) -> None:
        super().__init__(index, log_dir, cluster.network, cluster.broker_properties)
        self.cluster = cluster


class _SubprocessNode:
    def __init__(self, cluster: Cluster, index: int, log_dir: Path) -> None:
        self.cluster = cluster
        self.index = index
        self.log_dir = log_dir
        props = cluster.broker_properties(index, log_dir, {})
        if props["listeners"] != "PLAINTEXT://127.0.0.1:0":
            raise ValueError("mode='subprocess' runs each broker on one PLAINTEXT listener")
        for key in ("log.dirs", "listeners"):  # BrokerProcess sets them (and keeps the port)
            props.pop(key)
        self.process = BrokerProcess(log_dir, props)

    @property
    def alive(self) -> bool:
        return self.process.alive()

    @property
    def port(self) -> int:
        return self.process.port or 0

    def start(self) -> None:
        self.process.start(START_TIMEOUT_S)

    def stop(self) -> None:
        self.process.stop()

    def kill(self) -> None:
        self.process.kill()


# ---------------------------------------------------------------------- the cluster


class Cluster:
    """N brokers (and optionally ZooKeeper) for a test; a context manager."""

    def __init__(
        self,
        n: int = 3,
        *,
        zookeeper: bool | ZooKeeperServer = False,
        zk_chroot: str = "/moldau",
        mode: str = "inprocess",
        overrides: Mapping[str, str] | None = None,
        broker_overrides: Mapping[int, Mapping[str, str]] | None = None,
        base_dir: str | Path | None = None,
    ) -> None:
        if mode not in ("inprocess", "subprocess"):
            raise ValueError(f"mode must be 'inprocess' or 'subprocess', not {mode!r}")
        if n < 1:
            raise ValueError("a cluster needs at least one broker")
        self.n = n
        self.mode = mode
        self.overrides = {k: str(v) for k, v in (overrides or {}).items()}
        self.broker_overrides = {
            i: {k: str(v) for k, v in o.items()} for i, o in (broker_overrides or {}).items()
        }
        self._own_dir = base_dir is None
        self.base_dir = (
            Path(tempfile.mkdtemp(prefix="moldau-cluster-")) if base_dir is None else Path(base_dir)
        )
        self._zookeeper_arg = zookeeper
        self.zk_chroot = zk_chroot
        self.zookeeper: ZooKeeperServer | None = None
        self._own_zookeeper = False
        self.network = Network()
        self._loop: _LoopThread | None = None
        self._nodes: list[_InProcessNode | _SubprocessNode] = []
        self._started = False

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> Cluster:
        try:
            self._start_zookeeper()
            dirs = [self.base_dir / f"broker-{i}" for i in range(self.n)]
            if self.mode == "inprocess":
                self._loop = _LoopThread()
                self._nodes = [_InProcessNode(self, i, d) for i, d in enumerate(dirs)]

                async def start_all() -> None:
                    await asyncio.gather(*(node.start() for node in self._nodes))  # type: ignore[union-attr]

                self._loop.call(start_all(), timeout=START_TIMEOUT_S * 2)
            else:
                self._nodes = [_SubprocessNode(self, i, d) for i, d in enumerate(dirs)]
                with concurrent.futures.ThreadPoolExecutor(self.n) as pool:
                    for f in [pool.submit(node.start) for node in self._nodes]:  # type: ignore[union-attr]
                        f.result()
        except BaseException:
            self.close()
            raise
        self._started = True
        return self

    def _start_zookeeper(self) -> None:
        arg = self._zookeeper_arg
        if isinstance(arg, ZooKeeperServer):
            self.zookeeper = arg
        elif arg:
            self.zookeeper = ZooKeeperServer(self.base_dir / "zookeeper")
            self._own_zookeeper = True
            self.zookeeper.start()

    def broker_properties(self, index: int, log_dir: Path, ports: Mapping[str, int]) -> dict[str, str]:
        """The overrides broker ``index`` starts with; a listener on port 0 (the default
        ``PLAINTEXT://127.0.0.1:0``, or more of them given as ``listeners``) gets the port
        it had before (``ports``, by listener name), so a restart keeps the addresses."""
        props = {
            "broker.id": str(index),
            "log.dirs": str(log_dir),
            "listeners": "PLAINTEXT://127.0.0.1:0",
        }
        if self.zookeeper is not None:
            props["zookeeper.connect"] = self.zookeeper.connect(self.zk_chroot)
            # One controlled-shutdown attempt: closing a whole cluster would otherwise wait
            # out Kafka's 3 attempts 5 s apart for the last broker's unmovable leaders.
            # Tests of controlled shutdown set their own.
            props["controlled.shutdown.max.retries"] = "1"
        props.update(self.overrides)
        props.update(self.broker_overrides.get(index, {}))
        listeners = parse_listeners("listeners", props["listeners"].split(","))
        props["listeners"] = ",".join(
            str(Listener(lst.name, lst.host, ports.get(lst.name, 0) if lst.port == 0 else lst.port))
            for lst in listeners
        )
        return props

    def close(self) -> None:
        """Stop every live broker cleanly, then ZooKeeper (if the cluster started it)."""
        try:
            if self._loop is not None:

                async def stop_all() -> None:
                    await asyncio.gather(
                        *(n.stop() for n in self._nodes if n.alive),  # type: ignore[misc]
                        return_exceptions=True,
                    )

                with contextlib.suppress(Exception):
                    self._loop.call(stop_all(), timeout=60)
                self._loop.close()
                self._loop = None
            else:
                for node in self._nodes:
                    if node.alive:
                        with contextlib.suppress(Exception):
                            node.stop()  # type: ignore[call-arg]
        finally:
            if self._own_zookeeper and self.zookeeper is not None:
                self.zookeeper.stop()
            if self._own_dir:
                shutil.rmtree(self.base_dir, ignore_errors=True)

    def __enter__(self) -> Cluster:
        return self.start()

    def __exit__(self, exc_type: object, *exc: object) -> None:
        self.close()
        if exc_type is None:
            self.check_controls()

    # ------------------------------------------------------------------ brokers

    def _node(self, i: int) -> _InProcessNode | _SubprocessNode:
        if not 0 <= i < len(self._nodes):
            raise IndexError(f"no broker {i} in a cluster of {self.n}")
        return self._nodes[i]

    def broker(self, i: int) -> Broker | BrokerProcess:
        """The ``Broker`` object (in-process; raises if it is down) or the ``BrokerProcess``."""
        node = self._node(i)
        if isinstance(node, _SubprocessNode):
            return node.process
        if node.broker is None:
            raise RuntimeError(f"broker {i} is not running")
        return node.broker

    def broker_id(self, i: int) -> int:
        return i

    def port(self, i: int) -> int:
        return self._node(i).port

    def address(self, i: int) -> str:
        """``host:port`` of broker ``i`` (the same across restarts)."""
        return f"127.0.0.1:{self.port(i)}"

    @property
    def bootstrap(self) -> str:
        return ",".join(self.address(i) for i in range(self.n))

    def log_dir(self, i: int) -> Path:
        return self._node(i).log_dir

    def alive(self, i: int) -> bool:
        return self._node(i).alive

    def kill(self, i: int) -> None:
        """Crash broker ``i`` (in-process: emulated, see the module docstring; subprocess: SIGKILL)."""
        node = self._node(i)
        if isinstance(node, _InProcessNode):
            self._call(node.kill())
        else:
            node.kill()

    def stop(self, i: int) -> None:
        """Stop broker ``i`` cleanly (checkpoints, clean-shutdown marker, deregistration)."""
        node = self._node(i)
        if isinstance(node, _InProcessNode):
            self._call(node.stop())
        else:
            node.stop()

    def start_broker(self, i: int) -> None:
        """Start a stopped or killed broker ``i`` again: same id, log dir and port."""
        node = self._node(i)
        if node.alive:
            raise RuntimeError(f"broker {i} is running")
        if isinstance(node, _InProcessNode):
            self._call(node.start())
        else:
            node.start()

    def restart(self, i: int, *, clean: bool = True) -> None:
        """Stop broker ``i`` if it runs (cleanly, or ``clean=False``: kill), then start it again."""
        if self.alive(i):
            if clean:
                self.stop(i)
            else:
                self.kill(i)
        self.start_broker(i)

    def run(self, fn: Callable[[], Any] | Coroutine[Any, Any, Any], timeout: float = 30.0) -> Any:
        """Run ``fn()`` (or await a coroutine) on the brokers' loop: inspect them thread-safely."""
        if asyncio.iscoroutine(fn):
            return self._call(fn, timeout)  # type: ignore[arg-type]

        async def call() -> Any:
            return fn()  # type: ignore[operator]

        return self._call(call(), timeout)

    def _call(self, coro: Coroutine[Any, Any, Any], timeout: float | None = START_TIMEOUT_S) -> Any:
        if self._loop is None:
            coro.close()
            raise RuntimeError("the cluster is not running in-process")
        return self._loop.call(coro, timeout)

    # ------------------------------------------------------------------ fault injection

    def _in_process_only(self, what: str) -> None:
        if self.mode != "inprocess":
            raise NotImplementedError(
                f"{what} needs mode='inprocess' (requests are intercepted in the broker)"
            )

    def control(
        self, broker: int | None, api_key: int | None, fn: ControlFn, *, keep: bool = False
    ) -> Control:
        """Intercept requests of ``api_key`` (None: all) at broker ``broker`` (None: all); see
        ``broker/testing/interception.py``. Returns the control (``.calls``, ``.handled``, ``.remove()``)."""
        self._in_process_only("control")
        if broker is not None:
            self._node(broker)
        return self.network.add_control(fn, broker, api_key, keep)

    def clear_controls(self) -> None:
        self.network.clear_controls()

    def check_controls(self) -> None:
        """Raise (once) the first exception a control raised; controls run on the brokers' loop,
        where an exception only lets the request pass. The cluster's exit calls it too."""
        errors = self.network.errors
        if errors:
            first = errors[0]
            errors.clear()
            raise first

    def traffic(self, i: int) -> BrokerTraffic:
        """Requests broker ``i`` got, by API key, and those lost to cuts, by source."""
        self._in_process_only("traffic")
        return self.network.traffic.setdefault(i, BrokerTraffic())

    def cut_link(self, a: int, b: int, *, both_ways: bool = True) -> None:
        """Lose every request from broker ``a`` to ``b`` (and back), closing their connections."""
        self._in_process_only("cut_link")
        for i in (a, b):
            self._node(i)
        self.network.cut(a, b, both_ways)
        self._close_blocked([a, b])

    def heal_link(self, a: int, b: int) -> None:
        self._in_process_only("heal_link")
        self.network.heal(a, b)

    def isolate(self, i: int, *, from_brokers: bool = True) -> None:
        """Cut broker ``i`` off from clients (and, by default, from the other brokers)."""
        self._in_process_only("isolate")
        self._node(i)
        self.network.isolate(i, from_brokers)
        self._close_blocked(range(self.n))

    def rejoin(self, i: int) -> None:
        """Undo ``isolate(i)``."""
        self._in_process_only("rejoin")
        self.network.rejoin(i)

    def heal_all(self) -> None:
        self._in_process_only("heal_all")
        self.network.heal_all()

    def _close_blocked(self, brokers: Any) -> None:
        targets = list(brokers)

        async def close() -> None:
            for b in targets:
                self.network.close_blocked_connections(b)

        self._call(close(), timeout=10)


def wait_port_closed(address: str, timeout: float = 10.0) -> bool:
    """True once nothing accepts connections at ``host:port`` (a broker is down)."""
    host, port = address.rsplit(":", 1)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection((host, int(port)), timeout=1):
                pass
        except OSError:
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def cluster_factory(tmp_path: Path) -> Iterator[Callable[..., Cluster]]:
    """``cluster_factory(n=3, **Cluster kwargs)``: started clusters, closed after the test
    (which then fails if one of their controls raised)."""
    clusters: list[Cluster] = []

    def make(n: int = 3, **kwargs: Any) -> Cluster:
        kwargs.setdefault("base_dir", tmp_path / f"cluster-{len(clusters)}")
        cluster = Cluster(n, **kwargs)
        clusters.append(cluster)
        return cluster.start()

    yield make
    for cluster in clusters:
        cluster.close()
    for cluster in clusters:
        cluster.check_controls()
