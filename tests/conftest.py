"""Shared fixtures: a real broker subprocess per test (or per module), an in-process log
manager."""

from __future__ import annotations

import pytest

from storage.log_config import resolve_topic_defaults
from storage.log_manager import LogManager
from tests.support.broker_process import BrokerProcess


@pytest.fixture
def log_manager(tmp_path):
    """A started ``LogManager`` of one log dir with Kafka's topic defaults, shut down after."""
    lm = LogManager([tmp_path / "logs"], resolve_topic_defaults({}))
    lm.startup()
    yield lm
    lm.shutdown()


@pytest.fixture
def broker(tmp_path):
    """A fresh broker with its own log dir, stopped gracefully after the test."""
    b = BrokerProcess(tmp_path / "data")
    b.start()
    yield b
    if b.alive():
        b.stop()


@pytest.fixture
def broker_factory(tmp_path):
    """Start brokers with custom overrides: ``broker_factory({"num.partitions": "3"})``."""
    started: list[BrokerProcess] = []

    def make(overrides=None, *, name="data", **kw) -> BrokerProcess:
        b = BrokerProcess(tmp_path / name, overrides, **kw)
        b.start()
        started.append(b)
        return b

    yield make
    for b in started:
        if b.alive():
            b.stop()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """With MOLDAU_REQUIRE_ALL=1 (CI), a skipped test is a failure: in CI every
    component the issues name exists, so a skip can only hide a broken set-up."""
    outcome = yield
    report = outcome.get_result()
    import os

    if report.when == "call" and report.failed:
        _attach_broker_logs(item, report)
    if os.environ.get("MOLDAU_REQUIRE_ALL") == "1" and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.longrepr = f"skipped in CI (MOLDAU_REQUIRE_ALL=1): {reason}"


BROKER_LOG_TAIL = 60  # lines of each broker process shown with a failed test


def _attach_broker_logs(item, report) -> None:
    """A failed test on a cluster of broker processes shows the last log lines of each (its
    stderr, connection lines left out): what CI kept of a failure is then more than a timeout."""
    from tests.support.cluster import Cluster

    seen: set[int] = set()
    for value in getattr(item, "funcargs", {}).values():
        clusters = value if isinstance(value, tuple) else (value,)
        for c in clusters:
            if not isinstance(c, Cluster) or id(c) in seen or c.mode != "subprocess":
                continue
            seen.add(id(c))
            for i in range(c.n):
                try:
                    lines = [x for x in c._node(i).process.lines if 'msg="connection' not in x]
                except Exception:  # the harness changed under us: nothing to add
                    continue
                if lines:
                    report.sections.append(
                        (f"broker {i} log (last lines)", "\n".join(lines[-BROKER_LOG_TAIL:]))
                    )


# The modules whose tests take longest (pytest --durations), run first: the two workers then
# finish together instead of one running a minute-long test alone at the end of the suite.
SLOW_FIRST = (
    "tests/test_docs_commands.py",
    "tests/cluster/test_replication_failover.py",
    "tests/spark/",
    "tests/cluster/test_librdkafka_failures.py",
    "tests/plugin/test_plugin_as_user.py",
    "tests/cluster/test_kafkajs_failures.py",
    "tests/cluster/test_pyclients_groups.py",
    "tests/cluster/test_java_failures.py",
    "tests/zookeeper/test_docker_compose.py",
    "tests/integration/test_log_compaction.py",
)


def pytest_collection_modifyitems(session, config, items) -> None:
    def rank(item) -> int:
        path = item.nodeid.split("::", 1)[0]
        return next((i for i, prefix in enumerate(SLOW_FIRST) if path.startswith(prefix)), len(SLOW_FIRST))

    items.sort(key=rank)  # stable: each module's tests stay in their order
