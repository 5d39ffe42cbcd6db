"""The broker process: assembles storage, coordinators and the TCP server.

Start-up order (Kafka's ``KafkaServer.startup``): handlers are registered, the logs under
``log.dirs`` are loaded (recovered after an unclean shutdown, off the event loop); the
ZooKeeper session (with ``zookeeper.connect``) is started and shared by whatever needs it;
``meta.properties`` is checked against the cluster id (``/cluster/id`` in ZooKeeper mode);
the producer-id manager leases its first block; then the cluster components are built:

- a lone broker (no ZooKeeper): its embedded controller loads the topic registry from the
  log dirs and publishes every partition state to the MetadataCache, ReplicaManager and
  group coordinator; this broker leads everything;
- ZooKeeper mode: a KafkaController (active on the broker holding ``/controller``), an
  empty MetadataCache and a ReplicaManager that hosts nothing until the controller's
  LeaderAndIsr; the group coordinator owns the ``__consumer_offsets`` partitions this
  broker leads.

Only then does the server listen. The listeners' bound ports are what the broker
advertises (a port of 0 is learned from the bind), so the live broker is published right
after binding, before the event loop can run a request; in ZooKeeper mode it is then
registered in ``/brokers/ids``, only then accepts connections (Kafka enables request
processing after ``registerBroker``), and the controller starts (the active controller sends
this broker its UpdateMetadata and LeaderAndIsr). The group coordinator loads
``__consumer_offsets`` while serving (COORDINATOR_LOAD_IN_PROGRESS meanwhile, as Kafka).

Shut-down reverses it and ends with the logs' checkpoints and the clean-shutdown marker, so
the next start skips recovery.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from broker.config import BrokerConfig, Listener
from broker.controlled_shutdown import controlled_shutdown
from broker.controller_channel import NetworkControllerChannel
from broker.dynamic_config import (
    DYNAMIC_CONFIGS_FILE,
    DynamicBrokerConfig,
    FileDynamicConfigStore,
    TopicConfigHandler,
    ZkDynamicConfigStore,
)
from broker.fetch_session import FetchManager, FetchSessionCache
from broker.handlers import load_handlers
from broker.listener import KafkaServer
from broker.metadata_cache import MetadataCache
from broker.metrics import BrokerMetrics
from broker.partition import Partition
from broker.replica_manager import ReplicaManager
from broker.replica_selector import ReplicaSelection, create_replica_selector
from broker.security.credential_store import CREDENTIALS_FILE, FileCredentialStore, ZkCredentialStore
from broker.security.manager import BrokerSecurity
from broker.txn_marker_channel import TxnMarkerChannel, TxnVerifier
from broker.txn_partitions import AcceptingTransactionVerifier
from coordinator.acl_authorizer import Authorizer, create_authorizer
from coordinator.cluster_state import BrokerEndpoint, LiveBroker
from coordinator.controller import Controller, ControllerTopicStore
from coordinator.groups import GroupCoordinator
from coordinator.producer_ids import ProducerIdManager, create_producer_id_manager
from coordinator.topic_admin import (
    ClusterInternalTopics,
    EmbeddedTopicAdmin,
    TopicAdmin,
    TopicDefaults,
    ZkTopicAdmin,
)
from coordinator.transaction_coordinator import TransactionCoordinator
from coordinator.transaction_markers import NO_LEADER
from coordinator.transaction_seams import TransactionVerifier
from coordinator.transaction_state_manager import TransactionConfig
from coordinator.zk_admin import AdminZkClient
from coordinator.zk_config_manager import ZkConfigManager
from coordinator.zk_controller import KafkaController
from coordinator.zookeeper import BrokerRegistration, ZooKeeperClient
from storage.config_def import ConfigError
from storage.log_manager import CleanerConfig, LogManager, LogManagerIntervals, ProducerStateOptions
from storage.partition_metadata import random_kafka_uuid, uuid_to_kafka_str

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Clock:
    """The broker's one clock, injected into every component that reads the time."""

    time_ms: Callable[[], int]  # wall clock, milliseconds (timestamps, retention, expiry)
    monotonic: Callable[[], float]  # seconds, for intervals and backoffs


SYSTEM_CLOCK = Clock(time_ms=lambda: int(time.time() * 1000), monotonic=time.monotonic)


class Broker:
    """One broker. Its components exist from ``start()`` on, before the server listens."""

    log_manager: LogManager
    zookeeper: ZooKeeperClient | None  # None: a lone broker without ZooKeeper (embedded mode)
    producer_ids: ProducerIdManager
    controller: Controller  # embedded mode only: this broker is the cluster's controller
    kafka_controller: KafkaController  # ZooKeeper mode only (its APIs are served only then)
    controller_channel: NetworkControllerChannel  # ZooKeeper mode only
    topic_admin: TopicAdmin
    dynamic_config: DynamicBrokerConfig
    metadata_cache: MetadataCache
    replica_manager: ReplicaManager
    fetch_manager: FetchManager
    groups: GroupCoordinator
    authorizer: Authorizer  # AllowAll without authorizer.class.name
    security: BrokerSecurity
    transactions: TransactionCoordinator
    txn_verifier: TxnVerifier  # KIP-890 verification for the ReplicaManager's produce path

    def __init__(self, config: BrokerConfig, *, clock: Clock = SYSTEM_CLOCK) -> None:
        self.config = config
        self.clock = clock
        self.metrics = BrokerMetrics(config["metrics.prometheus.port"], config["metrics.prometheus.host"])
        self.server = KafkaServer(self)
        # KIP-227 fetch sessions (broker memory only: a restart forgets them).
        self.fetch_manager = FetchManager(
            FetchSessionCache(config["max.incremental.fetch.session.cache.slots"], clock.time_ms)
        )
        self.broker_id: int = max(config.broker_id, 0)
        self.cluster_id: str = ""
        self.advertised: list[Listener] = []
        self.started = asyncio.Event()
        # What start() has brought up, closed in reverse order by stop().
        self._running = contextlib.AsyncExitStack()

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        cfg = self.config
        load_handlers()
        loop = asyncio.get_running_loop()
        # TLS contexts and SASL configs first: a bad key store stops the start at once.
        self.security = BrokerSecurity.from_config(cfg, self.clock.monotonic)
        _create_log_dirs(cfg.log_dirs)
        # The metrics endpoint first: log recovery can be watched while it runs.
        await self.metrics.start_endpoint()
        self._running.push_async_callback(self.metrics.stop_endpoint)
        # ZooKeeper next (Kafka's initZkClient): in ZooKeeper mode the logs' topic configs
        # are /config/topics, read by the log manager as it loads them.
        await self._start_zookeeper()
        self.log_manager = self._build_log_manager()
        self.metrics.watch_log_manager(self.log_manager)
        # Until the logs are loaded, a stop only releases the dirs' locks (writes nothing).
        self._running.push_async_callback(self._shutdown_log_manager)
        await loop.run_in_executor(None, self.log_manager.open_dirs)
        cluster_id = cfg["cluster.id"]
        if self.zookeeper is not None:
            # KafkaServer.getOrGenerateClusterId: the cluster's id is /cluster/id, the first
            # broker's; a log dir of another cluster refuses to start (InconsistentClusterId)
            # before any log is loaded or recovered (KafkaServer checks meta.properties before
            # it builds its LogManager), so the refused dir is left as it was.
            proposed = uuid_to_kafka_str(random_kafka_uuid())
            cluster_id = await loop.run_in_executor(None, self.zookeeper.get_or_create_cluster_id, proposed)
        self.broker_id, self.cluster_id = self.log_manager.ensure_meta_properties(cfg.broker_id, cluster_id)
        await loop.run_in_executor(None, self.log_manager.load_logs)
        await self._load_dynamic_config()
        # Producer-id blocks: leased from ZooKeeper or from a lease file in the first log dir.
        self.producer_ids = create_producer_id_manager(
            zookeeper=self.zookeeper,
            block_size=cfg["producer.id.block.size"],
            broker_id=self.broker_id,
            data_dir=cfg.log_dirs[0],
            clock=self.clock.monotonic,
        )
        self._running.push_async_callback(self.producer_ids.stop)
        await self.producer_ids.start()
        await self._start_authorizer()
        await self.security.attach_store(
            ZkCredentialStore(AdminZkClient(self.zookeeper))
            if self.zookeeper is not None
            else FileCredentialStore(cfg.log_dirs[0] / CREDENTIALS_FILE)
        )
        self._build_cluster_components()
        self.metrics.attach(self)
        self._running.push_async_callback(self.groups.stop)
        self._running.push_async_callback(self.transactions.stop)
        if self.zookeeper is not None:
            await self._watch_config_changes(self.zookeeper)
        background = asyncio.create_task(self.log_manager.run_background_tasks(), name="log-manager")
        self._running.push_async_callback(_cancel, background)

        await self.server.start(accept=self.zookeeper is None)
        self._running.push_async_callback(self.server.stop)
        # No await from the bind to the publication: no request runs before the broker is known.
        self._fix_advertised_ports()
        if self.zookeeper is None:
            self.controller.update_live_brokers([self.live_broker()])
        else:
            # Until the controller's first UpdateMetadata, Metadata names this broker alone:
            # an empty broker list makes clients (librdkafka) drop the bootstrap connection.
            self.metadata_cache.on_brokers_changed([self.live_broker()])
            await self._join_cluster(self.zookeeper)
        await self.groups.start()
        await self.transactions.start()
        if self.zookeeper is not None and cfg["controlled.shutdown.enable"]:
            # First thing at stop, while this broker still serves (it may be the controller).
            self._running.push_async_callback(self._controlled_shutdown, self.zookeeper)
        self.started.set()
        log.info(
            "broker %d started (cluster %s), advertising %s",
            self.broker_id,
            self.cluster_id,
            ", ".join(str(a) for a in self.advertised),
        )

    async def _load_dynamic_config(self) -> None:
        """Dynamic broker configs (Kafka's ``DynamicBrokerConfig.initialize``): applied to the
        logs before any is served, and to the connection limits before the listeners open."""
        cfg = self.config
        store = (
            ZkDynamicConfigStore(AdminZkClient(self.zookeeper))
            if self.zookeeper is not None
            else FileDynamicConfigStore(cfg.log_dirs[0] / DYNAMIC_CONFIGS_FILE)
        )
        self.dynamic_config = DynamicBrokerConfig(cfg, self.broker_id, store)
        await asyncio.get_running_loop().run_in_executor(None, self.dynamic_config.load)
        self.dynamic_config.attach(self.log_manager, self.server)

    async def _watch_config_changes(self, zookeeper: ZooKeeperClient) -> None:
        """Kafka's ``ZkConfigManager``: config changes made through any broker, applied here too."""
        config_changes = ZkConfigManager(
            zookeeper,
            {
                "topics": TopicConfigHandler(self.log_manager, self.kafka_controller),
                "brokers": self.dynamic_config,
                "users": self.security.credentials,
            },
            time_ms=self.clock.time_ms,
        )
        self._running.push_async_callback(config_changes.stop)
        await config_changes.start()

    async def _start_authorizer(self) -> None:
        """``authorizer.class.name``: the ACLs are loaded (ZooKeeper or the first log dir's
        ``acls.json``) before any request is served."""
        cfg = self.config
        try:
            self.authorizer = create_authorizer(
                cfg["authorizer.class.name"],
                super_users=cfg["super.users"],
                allow_everyone_if_no_acl_found=cfg["allow.everyone.if.no.acl.found"],
                zookeeper=self.zookeeper,
                data_dir=cfg.log_dirs[0],
                time_ms=self.clock.time_ms,
            )
        except ValueError as exc:
            raise ConfigError(f"super.users / authorizer.class.name: {exc}") from None
        self._running.push_async_callback(self.authorizer.close)
        await self.authorizer.start()

    def _build_log_manager(self) -> LogManager:
        cfg = self.config
        return LogManager(
            cfg.log_dirs,
            cfg.topic_defaults(),
            producer_state=ProducerStateOptions(
                producer_id_expiration_ms=cfg["producer.id.expiration.ms"],
                batch_window=cfg["producer.state.batch.window"],
                duplicate_sequence_error=cfg["producer.state.duplicate.sequence.error"],
            ),
            intervals=LogManagerIntervals(
                retention_check_ms=cfg["log.retention.check.interval.ms"],
                flush_check_ms=min(cfg["log.flush.scheduler.interval.ms"], 1000),
                recovery_point_checkpoint_ms=cfg["log.flush.offset.checkpoint.interval.ms"],
                log_start_offset_checkpoint_ms=cfg["log.flush.start.offset.checkpoint.interval.ms"],
                high_watermark_checkpoint_ms=cfg["replica.high.watermark.checkpoint.interval.ms"],
                producer_expiration_check_ms=cfg["producer.id.expiration.check.interval.ms"],
            ),
            cleaner=CleanerConfig.from_broker_values(cfg.values),
            time_ms=self.clock.time_ms,
            topic_configs=self.zookeeper.read_topic_configs if self.zookeeper is not None else None,
        )

    async def _start_zookeeper(self) -> None:
        """Kafka's ``initZkClient``: one session for the broker (chroot, persistent paths).
        The broker registers itself once its ports are bound."""
        cfg = self.config
        self.zookeeper = None
        if not cfg["zookeeper.connect"]:
            return
        zk = ZooKeeperClient(
            cfg["zookeeper.connect"],
            session_timeout_ms=cfg["zookeeper.session.timeout.ms"],
            connection_timeout_ms=cfg["zookeeper.connection.timeout.ms"],
            time_ms=self.clock.time_ms,
        )
        self.zookeeper = zk
        self._running.push_async_callback(asyncio.to_thread, zk.close)
        await asyncio.get_running_loop().run_in_executor(None, zk.start)

    def _topic_defaults(self) -> TopicDefaults:
        cfg = self.config
        return TopicDefaults(cfg["num.partitions"], cfg["default.replication.factor"], cfg["max.partitions"])

    def _build_group_coordinator(
        self, store: Any, cluster_topics: ClusterInternalTopics | None
    ) -> GroupCoordinator:
        cfg = self.config
        return GroupCoordinator(
            store,
            self.replica_manager,
            broker_id=self.broker_id,
            offsets_topic_partitions=cfg["offsets.topic.num.partitions"],
            offsets_segment_bytes=cfg["offsets.topic.segment.bytes"],
            offsets_retention_ms=cfg["offsets.retention.minutes"] * 60_000,
            offsets_retention_check_ms=cfg["offsets.retention.check.interval.ms"],
            initial_rebalance_delay_ms=cfg["group.initial.rebalance.delay.ms"],
            min_session_timeout_ms=cfg["group.min.session.timeout.ms"],
            max_session_timeout_ms=cfg["group.max.session.timeout.ms"],
            max_group_size=cfg["group.max.size"],
            offset_metadata_max_bytes=cfg["offset.metadata.max.bytes"],
            offsets_commit_required_acks=cfg["offsets.commit.required.acks"],
            offsets_commit_timeout_ms=cfg["offsets.commit.timeout.ms"],
            time_ms=self.clock.time_ms,
            cluster_topics=cluster_topics,
        )

    def _build_transaction_coordinator(self, cluster_topics: ClusterInternalTopics | None) -> None:
        """The transaction coordinator, its marker channel and the KIP-890 verifier (after
        the group coordinator, whose ``__consumer_offsets`` partitions markers also reach)."""
        cfg = self.config
        listener = cfg.inter_broker_listener
        timeout_ms = cfg["request.timeout.ms"]
        markers = TxnMarkerChannel(
            self.broker_id,
            self.replica_manager,
            self.metadata_cache,
            listener,
            timeout_ms,
            self.security.inter_broker,
        )
        self._running.push_async_callback(markers.close)
        self.transactions = TransactionCoordinator(
            self.replica_manager,
            self.producer_ids,
            markers,
            self._partition_leader,
            config=TransactionConfig(
                num_partitions=cfg["transaction.state.log.num.partitions"],
                segment_bytes=cfg["transaction.state.log.segment.bytes"],
                min_isr=cfg["transaction.state.log.min.isr"],
                max_timeout_ms=cfg["transaction.max.timeout.ms"],
                id_expiration_ms=cfg["transactional.id.expiration.ms"],
                abort_timed_out_interval_ms=cfg[
                    "transaction.abort.timed.out.transaction.cleanup.interval.ms"
                ],
                remove_expired_interval_ms=cfg["transaction.remove.expired.transaction.cleanup.interval.ms"],
                request_timeout_ms=timeout_ms,
            ),
            local=ControllerTopicStore(self.log_manager, self.controller) if cluster_topics is None else None,
            cluster=cluster_topics,
            time_ms=self.clock.time_ms,
        )
        # Markers landing in __consumer_offsets apply or drop pending TxnOffsetCommits.
        self.replica_manager.add_txn_completion_listener(self.groups)

    def _partition_leader(self, topic: str, partition: int) -> int | None:
        """Where a partition's transaction marker goes: its leader, -1 while it has none (or
        while the cache has no partition states yet), None once it does not exist."""
        state = self.metadata_cache.partition_state(topic, partition)
        if state is not None:
            return state.leader if state.leader >= 0 else NO_LEADER
        # ZooKeeper mode: the controller's LeaderAndIsr making this broker a transaction
        # coordinator comes before the UpdateMetadata carrying the partition states
        # (ControllerBrokerRequestBatch.sendRequestsToBrokers); a broker that just started has
        # none yet. Until the cache knows __transaction_state, an unknown partition is "not
        # known yet", not deleted (TransactionMarkerChannelManager.addTxnMarkersToBrokerQueue
        # skips only partitions the cache has no leader for).
        if not self.metadata_cache.contains(self.transactions.topic_name):
            return NO_LEADER
        return None

    def _build_cluster_components(self) -> None:
        """The controller and its listeners (embedded mode), or the ZooKeeper-mode controller
        with this broker's MetadataCache and ReplicaManager waiting for its requests."""
        cfg = self.config
        # The verifier asks the transaction coordinator, built after the ReplicaManager it
        # writes through: it looks the coordinator and the cluster view up when it is asked.
        self.txn_verifier = TxnVerifier(
            self.broker_id,
            lambda: self.transactions,
            lambda: self.metadata_cache,
            cfg.inter_broker_listener,
            cfg["request.timeout.ms"],
            self.security.inter_broker,
        )
        self._running.push_async_callback(self.txn_verifier.close)
        self.replica_manager = ReplicaManager(
            self.broker_id,
            self.log_manager,
            self.clock.time_ms,
            transaction_verifier=self._transaction_verifier(),
            request_timeout_ms=self.config["request.timeout.ms"],
            replica_selection=self._replica_selection(),
        )
        self._running.callback(self.replica_manager.close)
        if self.zookeeper is None:
            self._build_embedded()
        else:
            self._build_zookeeper_mode(self.zookeeper)

    def _replica_selection(self) -> ReplicaSelection | None:
        """KIP-392: ``replica.selector.class`` and the racks of the replicas as a consumer's
        listener shows them (the MetadataCache, built after the ReplicaManager, is looked up
        when a leader chooses); None without a selector (consumers read from the leader)."""
        selector = create_replica_selector(self.config["replica.selector.class"])
        if selector is None:
            return None

        def endpoint(broker_id: int, listener: str) -> tuple[str | None] | None:
            broker = self.metadata_cache.get_alive_broker(broker_id)
            if broker is None or broker.endpoint(listener) is None:
                return None
            return (broker.rack,)

        return ReplicaSelection(selector, endpoint)

    def _transaction_verifier(self) -> TransactionVerifier:
        """KIP-890 part 1: what the produce path asks before a transaction's first batch on a
        partition. With ``transaction.partition.verification.enable=false`` Kafka skips the
        check: every partition is accepted. Until this broker has a transaction coordinator to
        ask, it accepts as well (an error here would have clients retry forever)."""
        if not self.config["transaction.partition.verification.enable"]:
            return AcceptingTransactionVerifier()
        return self.txn_verifier

    def _build_embedded(self) -> None:
        """A lone broker is its own controller: every existing topic is published to the
        MetadataCache, ReplicaManager and group coordinator before the first request."""
        self.controller = Controller(self.log_manager, self.broker_id, time_ms=self.clock.time_ms)
        self.controller.load_from_logs()
        # At stop, creations and deletions under way finish before the logs are closed.
        self._running.push_async_callback(self.controller.finish_changes)
        # This broker is the controller: Metadata and DescribeCluster name it.
        self.metadata_cache = MetadataCache(self.broker_id, self.cluster_id, controller_id=self.broker_id)
        self.topic_admin = EmbeddedTopicAdmin(self.controller, self._topic_defaults())
        self.groups = self._build_group_coordinator(
            ControllerTopicStore(self.log_manager, self.controller), None
        )
        self.controller.register_listener(self.metadata_cache)
        self.controller.register_listener(self.replica_manager)
        self.controller.register_listener(self.groups)
        self._build_transaction_coordinator(None)
        # The topics are known before the first request; the live broker follows the bind.
        self.controller.startup()

    def _build_zookeeper_mode(self, zk: ZooKeeperClient) -> None:
        """ZooKeeper mode (Kafka's ``KafkaServer`` with ``KafkaController``): this broker
        hosts nothing until the active controller's LeaderAndIsr names its partitions, and
        its cluster view is the controller's UpdateMetadata. Every broker runs a
        ``KafkaController``; the one holding ``/controller`` is active. The group
        coordinator owns the ``__consumer_offsets`` partitions this broker leads (Kafka's
        onLeadershipChange; facts §11)."""
        cfg = self.config
        self.metadata_cache = MetadataCache(self.broker_id, self.cluster_id)
        admin = AdminZkClient(zk)
        self.controller_channel = NetworkControllerChannel(
            self.broker_id, cfg.inter_broker_listener, self.security.inter_broker
        )
        self.kafka_controller = KafkaController(
            self.broker_id,
            zk,
            self.controller_channel,
            time_ms=self.clock.time_ms,
            inter_broker_listener=cfg.inter_broker_listener,
            unclean_leader_election_enable=cfg["unclean.leader.election.enable"],
            auto_leader_rebalance_enable=cfg["auto.leader.rebalance.enable"],
            leader_imbalance_check_interval_s=float(cfg["leader.imbalance.check.interval.seconds"]),
            leader_imbalance_per_broker_percentage=cfg["leader.imbalance.per.broker.percentage"],
            delete_topic_enable=cfg["delete.topic.enable"],
        )
        zk_topic_admin = ZkTopicAdmin(
            admin,
            self.kafka_controller,
            self.metadata_cache,
            self._topic_defaults(),
            monotonic=self.clock.monotonic,
        )
        self.topic_admin = zk_topic_admin
        self._running.push_async_callback(zk_topic_admin.close)
        cluster_topics = ClusterInternalTopics(
            admin, self.metadata_cache, cfg["offsets.topic.replication.factor"]
        )
        self.groups = self._build_group_coordinator(self.log_manager, cluster_topics)
        self.groups.follow_leadership()
        self._build_transaction_coordinator(
            ClusterInternalTopics(admin, self.metadata_cache, cfg["transaction.state.log.replication.factor"])
        )
        self.transactions.follow_leadership()
        self.replica_manager.add_leadership_listener(self._on_leadership_change)
        self.replica_manager.start_replication(
            self.metadata_cache,
            cfg,
            broker_epoch=lambda: zk.broker_epoch,
            security=self.security.inter_broker,
        )
        self._running.push_async_callback(self.replica_manager.stop_replication)

    async def _join_cluster(self, zk: ZooKeeperClient) -> None:
        """Register in ``/brokers/ids`` and start the controller (``KafkaServer.startup``):
        the active controller then sends this broker its UpdateMetadata and LeaderAndIsr."""
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, zk.register, self._registration())
        # Requests are served from here on (KafkaServer.startup: registerBroker, then the
        # controller, then enableRequestProcessing; the controller may send to this broker).
        self.server.start_accepting()
        self._running.push_async_callback(self.controller_channel.close)
        await self.kafka_controller.startup()
        self._running.push_async_callback(self.kafka_controller.shutdown)

    async def _controlled_shutdown(self, zk: ZooKeeperClient) -> None:
        """Kafka's ``KafkaServer.controlledShutdown``: ask the controller to move this broker's
        leaderships away before stopping, so clients move on at once (a rolling restart
        causes no unavailability); after ``controlled.shutdown.max.retries`` failed attempts
        the broker stops anyway."""
        cfg = self.config
        await controlled_shutdown(
            self.metadata_cache,
            listener=cfg.inter_broker_listener,
            broker_id=self.broker_id,
            broker_epoch=zk.broker_epoch,
            max_retries=cfg["controlled.shutdown.max.retries"],
            retry_backoff_ms=cfg["controlled.shutdown.retry.backoff.ms"],
            request_timeout_ms=cfg["request.timeout.ms"],
            security=self.security.inter_broker,
        )

    def _on_leadership_change(self, leaders: Sequence[Partition], followers: Sequence[Partition]) -> None:
        """Kafka's ``RequestHandlerHelper.onLeadershipChange``: coordinators follow leadership."""
        for partition in leaders:
            if partition.topic == self.groups.topic_name:
                self.groups.on_election(partition.partition, partition.leader_epoch)
            elif partition.topic == self.transactions.topic_name:
                self.transactions.on_election(partition.partition, partition.leader_epoch)
        for partition in followers:
            if partition.topic == self.groups.topic_name:
                self.groups.on_resignation(partition.partition, partition.leader_epoch)
            elif partition.topic == self.transactions.topic_name:
                self.transactions.on_resignation(partition.partition, partition.leader_epoch)

    def live_broker(self) -> LiveBroker:
        """This broker as the cluster sees it: its advertised listeners and rack."""
        return LiveBroker(
            self.broker_id,
            tuple(BrokerEndpoint(a.name, a.host, a.port) for a in self.advertised),
            self.config["broker.rack"],
        )

    def _registration(self) -> BrokerRegistration:
        broker = self.live_broker()
        return BrokerRegistration(
            broker_id=self.broker_id,
            endpoints=broker.endpoints,
            rack=broker.rack,
            security_protocols=self.config.security_protocols,
        )

    def _fix_advertised_ports(self) -> None:
        """A listener on port 0 advertises the port it really got."""
        bound = dict(zip([lst.name for lst in self.config.listeners], self.server.bound, strict=False))
        out = []
        for adv in self.config.advertised_listeners:
            host, port = adv.host, adv.port
            if port == 0 and adv.name in bound:
                port = bound[adv.name][1]
            if not host:
                host = bound.get(adv.name, ("127.0.0.1", 0))[0]
                if host in ("0.0.0.0", "::"):
                    host = "127.0.0.1"
            out.append(Listener(adv.name, host, port))
        self.advertised = out

    async def stop(self) -> None:
        """Close what start() brought up, in reverse order (safe after a failed start, and twice)."""
        running, self._running = self._running, contextlib.AsyncExitStack()
        await running.aclose()

    async def _shutdown_log_manager(self) -> None:
        await asyncio.get_running_loop().run_in_executor(None, self.log_manager.shutdown)


def _create_log_dirs(log_dirs: list[Path]) -> None:
    """A dir that cannot be created is taken offline by the log manager, which starts with the
    others (Kafka's ``createAndValidateLogDirs``); with none usable the start stops here."""
    failed = []
    for d in log_dirs:
        try:
            d.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            failed.append(f"log.dirs: cannot create {d}: {exc.strerror}")
    if failed and len(failed) == len(log_dirs):
        raise ConfigError(failed[0])


async def _cancel(task: asyncio.Task) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await task
