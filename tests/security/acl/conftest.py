"""Fixtures of the ACL tests: a real ZooKeeper shared by a module (tests.support.zookeeper_server)."""

from tests.support.zookeeper_server import zookeeper_shared

__all__ = ["zookeeper_shared"]
