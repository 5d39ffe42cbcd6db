"""Moldau for tests: an in-process broker with fault hooks, and the pytest plugin.

- ``broker.testing.plugin``: the pytest plugin (entry point ``pytest11``), fixtures
  ``moldau_broker``, ``moldau_broker_session``, ``moldau_broker_factory``,
  ``moldau_cluster``, ``moldau_cluster_factory``, ``moldau_zookeeper`` (docs/TESTING.md);
- ``broker.testing.embedded.InProcessBroker``: the broker those fixtures give;
- ``broker.testing.cluster.InProcessCluster``: the replicated cluster (N brokers sharing a
  ZooKeeper) of ``moldau_cluster``; ``broker.testing.zookeeper``: the system's ZooKeeper
  as a subprocess;
- ``broker.testing.interception``: the verdicts a control returns (``Drop``,
  ``DropResponse``, ``Delay``, ``Close``, ...);
- ``broker.testing.inprocess``: the event loop thread and the crash emulation.

Nothing here is imported by the broker itself.
"""
