"""Fixtures of the ZooKeeper tests: a real ZooKeeper server (see tests.support.zookeeper_server)."""

from tests.support.zookeeper_server import zk_chroot, zookeeper, zookeeper_shared

__all__ = ["zk_chroot", "zookeeper", "zookeeper_shared"]
