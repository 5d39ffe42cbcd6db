"""The pytest plugin shipped with Moldau (entry point ``pytest11``): real brokers for tests.

Installing the package registers it; docs/TESTING.md is the user's guide. Fixtures:

- ``moldau_broker``: a fresh broker for the test (its own log dir and free port,
  stopped after the test); an :class:`broker.testing.embedded.InProcessBroker`.
- ``moldau_broker_session``: one broker for the whole session (fast suites; topics
  and data persist from test to test). After each test that used it, its faults are
  cleared, its disk freed, and it is started again if the test stopped or killed it.
- ``moldau_broker_factory``: ``moldau_broker_factory(overrides)`` starts more brokers
  (each a one-broker cluster of its own), closed after the test.
- ``moldau_cluster``: N brokers (default 3; ``@pytest.mark.moldau_cluster(brokers=N,
  overrides={...})``) sharing a ZooKeeper, replicating, stopped after the test; an
  :class:`broker.testing.cluster.InProcessCluster`.
- ``moldau_cluster_factory``: ``moldau_cluster_factory(brokers=3, overrides=None)`` starts
  more clusters, closed after the test.
- ``moldau_zookeeper``: the ZooKeeper of the session's clusters (each has a chroot of its
  own): the system's ZooKeeper started once (``broker/testing/zookeeper.py``), or the one
  named by ``--moldau-zookeeper`` / the ini key ``moldau_zookeeper``. Tests using a cluster
  are skipped, with the reason, where no ZooKeeper can be started (no ``java``, no jar).

Broker properties: ``--moldau-override key=value`` (repeatable) on the command line,
``moldau_overrides`` (one ``key=value`` a line) in the ini file; the command line wins
over the ini file, and the factory's ``overrides`` over both. At the end, the terminal
summary shows how many brokers started and how long they took.

The broker is imported only when a fixture is used, so the plugin costs nothing to
suites that do not use it.
"""

from __future__ import annotations

import contextlib
import statistics
import uuid
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from broker.testing.cluster import InProcessCluster
    from broker.testing.embedded import InProcessBroker

_STARTS = pytest.StashKey[list[float]]()
_OVERRIDES = pytest.StashKey[dict[str, str]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("moldau", "Moldau broker fixtures")
    group.addoption(
        "--moldau-override",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        dest="moldau_overrides",
        help="a broker property for the moldau_broker fixtures (repeatable; wins over the ini file)",
    )
    group.addoption(
        "--moldau-zookeeper",
        default=None,
        metavar="HOST:PORT",
        dest="moldau_zookeeper",
        help="an external ZooKeeper for the moldau_cluster fixtures (default: start the system's)",
    )
    parser.addini(
        "moldau_zookeeper",
        default="",
        help="an external ZooKeeper (host:port) for the moldau_cluster fixtures",
    )
    parser.addini(
        "moldau_overrides",
        type="linelist",
        default=[],
        help="broker properties for the moldau_broker fixtures, one key=value a line",
    )


def _parse(items: list[str], where: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise pytest.UsageError(f"{where}: expected key=value, got {item!r}")
        out[key.strip()] = value.strip()
    return out


def pytest_configure(config: pytest.Config) -> None:
    overrides = _parse(config.getini("moldau_overrides"), "moldau_overrides")
    overrides.update(_parse(config.getoption("moldau_overrides") or [], "--moldau-override"))
    if overrides:
        _check(overrides)
    config.stash[_OVERRIDES] = overrides
    config.stash[_STARTS] = []
    config.addinivalue_line(
        "markers",
        "moldau_cluster(brokers=3, overrides=None): the size and broker properties of the test's moldau_cluster",
    )


def _check(overrides: Mapping[str, str]) -> None:
    """A bad value or an unknown key stops the session at once, not in every test."""
    from broker.config import BrokerConfig
    from broker.testing.embedded import CHOSEN_KEYS

    chosen = sorted(CHOSEN_KEYS & set(overrides))
    if chosen:
        raise pytest.UsageError(f"moldau broker properties: {', '.join(chosen)} is chosen by the fixtures")
    try:
        unknown = BrokerConfig.load(None, [f"{k}={v}" for k, v in overrides.items()]).unknown
    except ValueError as exc:
        raise pytest.UsageError(f"moldau broker properties: {exc}") from None
    if unknown:
        raise pytest.UsageError(f"moldau broker properties: unknown keys {', '.join(sorted(unknown))}")


def _start(config: pytest.Config, log_dir: object, overrides: Mapping[str, object]) -> InProcessBroker:
    from broker.testing.embedded import InProcessBroker

    broker = InProcessBroker(log_dir, {**config.stash[_OVERRIDES], **overrides})  # type: ignore[arg-type]
    try:
        broker.start()
    except BaseException:
        with contextlib.suppress(Exception):
            broker.close()
        raise
    config.stash[_STARTS].append(broker.startup_seconds[-1])
    return broker


def _close(config: pytest.Config, broker: InProcessBroker) -> None:
    count = len(broker.startup_seconds)
    try:
        broker.close()
    finally:
        config.stash[_STARTS].extend(broker.startup_seconds[1:count])  # restarts in the test


@pytest.fixture
def moldau_broker(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[InProcessBroker]:
    """A broker of its own for this test: ``moldau_broker.bootstrap_servers``."""
    broker = _start(request.config, tmp_path_factory.mktemp("moldau"), {})
    yield broker
    _close(request.config, broker)


@pytest.fixture(scope="session")
def moldau_broker_session(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[InProcessBroker]:
    """One broker for the session; topics and records persist from test to test."""
    broker = _start(request.config, tmp_path_factory.mktemp("moldau-session"), {})
    yield broker
    _close(request.config, broker)


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    """After a test that used the session broker (and after its other fixtures' teardown):
    no fault outlives it, the broker runs. An error here is the test's teardown error."""
    broker = (getattr(item, "funcargs", None) or {}).get("moldau_broker_session")
    if broker is None:
        return
    broker.clear_faults()
    broker.free_disk()
    if not broker.alive:
        broker.start()
    broker.check_controls()


@pytest.fixture
def moldau_broker_factory(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Callable[..., InProcessBroker]]:
    """``moldau_broker_factory({"num.partitions": 3})``: another started broker, closed after the test."""
    started: list[InProcessBroker] = []

    def make(overrides: Mapping[str, object] | None = None) -> InProcessBroker:
        broker = _start(request.config, tmp_path_factory.mktemp("moldau"), overrides or {})
        started.append(broker)
        return broker

    yield make
    errors: list[BaseException] = []
    for broker in started:
        try:
            _close(request.config, broker)
        except Exception as exc:
            errors.append(exc)
    if errors:
        raise errors[0]


# ---------------------------------------------------------------------- clusters


class ZooKeeperEndpoint:
    """The ZooKeeper the session's clusters share: ``connect(chroot)`` is a ``zookeeper.connect``."""

    def __init__(self, connect_string: str) -> None:
        self.connect_string = connect_string

    def connect(self, chroot: str = "") -> str:
        return self.connect_string + chroot


@pytest.fixture(scope="session")
def moldau_zookeeper(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ZooKeeperEndpoint]:
    """The session's ZooKeeper: external (``--moldau-zookeeper``) or the system's, started once."""
    external = request.config.getoption("moldau_zookeeper") or request.config.getini("moldau_zookeeper")
    if external:
        yield ZooKeeperEndpoint(str(external).strip())
        return
    from broker.testing.zookeeper import ZooKeeperProcess, zookeeper_unavailable

    reason = zookeeper_unavailable()
    if reason:
        pytest.skip(f"moldau_cluster needs a ZooKeeper: {reason}")
    server = ZooKeeperProcess(tmp_path_factory.mktemp("moldau-zookeeper")).start()
    try:
        yield ZooKeeperEndpoint(server.connect())
    finally:
        server.stop()


def _start_cluster(
    config: pytest.Config,
    zookeeper: ZooKeeperEndpoint,
    base_dir: object,
    brokers: int,
    overrides: Mapping[str, object],
) -> InProcessCluster:
    from broker.testing.cluster import InProcessCluster

    chroot = f"/moldau-{uuid.uuid4().hex[:12]}"  # one per cluster: clusters never meet
    cluster = InProcessCluster(
        brokers,
        zookeeper.connect(chroot),
        base_dir,
        {**config.stash[_OVERRIDES], **overrides},  # type: ignore[arg-type]
    )
    return cluster.start()


def _close_cluster(config: pytest.Config, cluster: InProcessCluster) -> None:
    try:
        cluster.close()
    finally:
        config.stash[_STARTS].extend(cluster.startup_seconds)


@pytest.fixture
def moldau_cluster(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    moldau_zookeeper: ZooKeeperEndpoint,
) -> Iterator[InProcessCluster]:
    """A cluster of its own for this test: ``moldau_cluster.bootstrap_servers``."""
    marker = request.node.get_closest_marker("moldau_cluster")
    kwargs = dict(marker.kwargs) if marker is not None else {}
    brokers = int(kwargs.pop("brokers", 3))
    overrides = kwargs.pop("overrides", None) or {}
    if kwargs:
        raise pytest.UsageError(f"moldau_cluster marker: unknown arguments {', '.join(sorted(kwargs))}")
    cluster = _start_cluster(
        request.config, moldau_zookeeper, tmp_path_factory.mktemp("moldau-cluster"), brokers, overrides
    )
    yield cluster
    _close_cluster(request.config, cluster)


@pytest.fixture
def moldau_cluster_factory(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    moldau_zookeeper: ZooKeeperEndpoint,
) -> Iterator[Callable[..., InProcessCluster]]:
    """``moldau_cluster_factory(brokers=3, overrides=None)``: another started cluster, closed after the test."""
    started: list[InProcessCluster] = []

    def make(brokers: int = 3, overrides: Mapping[str, object] | None = None) -> InProcessCluster:
        cluster = _start_cluster(
            request.config,
            moldau_zookeeper,
            tmp_path_factory.mktemp("moldau-cluster"),
            brokers,
            overrides or {},
        )
        started.append(cluster)
        return cluster

    yield make
    errors: list[BaseException] = []
    for cluster in started:
        try:
            _close_cluster(request.config, cluster)
        except Exception as exc:
            errors.append(exc)
    if errors:
        raise errors[0]


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    starts = config.stash.get(_STARTS, [])
    if starts:
        terminalreporter.write_line(
            f"moldau: {len(starts)} broker start{'s' if len(starts) != 1 else ''}, "
            f"median {statistics.median(starts) * 1000:.0f} ms, max {max(starts) * 1000:.0f} ms"
        )
