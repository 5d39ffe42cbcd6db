"""A real ZooKeeper server for the tests and benches: ``broker.testing.zookeeper`` plus fixtures.

The server itself is the shipped :class:`broker.testing.zookeeper.ZooKeeperProcess` (the
system's ZooKeeper as a Java subprocess on a free port of 127.0.0.1, kept across
``stop()``/``kill()``/``restart()`` with its data dir). :class:`ZooKeeperServer` only
turns "cannot start one here" into a skip, as the project's own tests want.

The ``zookeeper`` fixture gives a fresh server per test; ``zookeeper_shared``
one per module (tests then isolate themselves with a chroot each).
"""

from __future__ import annotations

import os

import pytest

from broker.testing.zookeeper import ZooKeeperProcess, free_port, zookeeper_unavailable

__all__ = [
    "ZooKeeperServer",
    "free_port",
    "zk_chroot",
    "zookeeper",
    "zookeeper_available",
    "zookeeper_shared",
]

# None if a ZooKeeper server can be started here, else why not.
zookeeper_available = zookeeper_unavailable


class ZooKeeperServer(ZooKeeperProcess):
    """A ZooKeeper process whose ``start()`` skips the test where none can run."""

    def start(self, timeout: float = 60.0) -> ZooKeeperServer:
        reason = zookeeper_unavailable()
        if reason:
            pytest.skip(f"ZooKeeper unavailable: {reason}")
        super().start(timeout)
        return self


@pytest.fixture
def zookeeper(tmp_path):
    """A fresh ZooKeeper for this test (it may stop and restart it)."""
    server = ZooKeeperServer(tmp_path / "zookeeper")
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def zookeeper_shared(tmp_path_factory):
    """One ZooKeeper for a module; each test should use its own chroot."""
    server = ZooKeeperServer(tmp_path_factory.mktemp("zookeeper"))
    server.start()
    yield server
    server.stop()


@pytest.fixture
def zk_chroot(request) -> str:
    """A chroot unique to this test: ``/t_<test name>``."""
    name = "".join(c if c.isalnum() else "_" for c in request.node.name)[:80]
    return f"/t_{name}_{os.getpid()}"
