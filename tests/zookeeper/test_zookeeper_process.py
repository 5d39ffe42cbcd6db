"""The shipped ZooKeeper process (``broker.testing.zookeeper``): start, kill, restart."""

from __future__ import annotations

import pytest
from kazoo.client import KazooClient

from broker.testing.zookeeper import ZooKeeperProcess, zookeeper_unavailable


def test_restart_keeps_port_and_znodes_and_kill_ends_it(tmp_path):
    reason = zookeeper_unavailable()
    if reason:
        pytest.skip(f"ZooKeeper unavailable: {reason}")
    with ZooKeeperProcess(tmp_path / "zk") as server:
        assert server.alive() and server.serving()
        port = server.port
        kz = KazooClient(hosts=server.connect())
        kz.start(timeout=30)
        try:
            kz.create("/kept", b"v", makepath=True)
        finally:
            kz.stop()
            kz.close()

        server.restart()
        assert server.port == port and server.serving()
        kz = KazooClient(hosts=server.connect_string)
        kz.start(timeout=30)
        try:
            assert kz.get("/kept")[0] == b"v"
        finally:
            kz.stop()
            kz.close()

        server.kill()
        assert not server.alive()
        assert not server.ruok()
    assert not server.alive()
