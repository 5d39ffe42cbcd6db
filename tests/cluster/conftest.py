"""Fixtures of the cluster tests: ``cluster_factory`` (tests.support.cluster) and a real
ZooKeeper shared by a module (tests.support.zookeeper_server)."""

from tests.support.cluster import cluster_factory
from tests.support.zookeeper_server import zookeeper_shared

__all__ = ["cluster_factory", "zookeeper_shared"]
