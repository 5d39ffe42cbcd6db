"""The broker process: wires storage, coordinators and the TCP server together.

Start-up order: handlers are registered, the logs under ``log.dirs`` are loaded
(recovered after an unclean shutdown, off the event loop), ``meta.properties``
gives the cluster id, the coordinators start, and only then does the server
listen. Shut-down reverses it and ends with the logs' checkpoints and the
clean-shutdown marker, so the next start skips recovery.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from broker.config import BrokerConfig, Listener
from broker.handlers import load_handlers
from broker.replica_manager import ReplicaManager
from broker.server import KafkaServer
from coordinator.controller import Controller
from coordinator.groups import GroupCoordinator
from coordinator.producer_ids import ProducerIdManager, create_producer_id_manager
from coordinator.zookeeper import BrokerEndpoint, BrokerRegistration
from storage.config_def import ConfigError
from storage.log_manager import LogManager, LogManagerIntervals, ProducerStateOptions

log = logging.getLogger(__name__)


def _now_ms() -> int:
    return int(time.time() * 1000)


class Broker:
    def __init__(self, config: BrokerConfig) -> None:
        self.config = config
        self.server = KafkaServer(self)
        self.broker_id: int = max(config.broker_id, 0)
        self.cluster_id: str = ""
        self.log_manager: LogManager | None = None
        self.controller: Controller | None = None
        self.replica_manager: ReplicaManager | None = None
        self.groups: GroupCoordinator | None = None
        self.producer_ids: ProducerIdManager | None = None
        self.advertised: list[Listener] = []
        self._tasks: list[asyncio.Task] = []
        self.started = asyncio.Event()

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        cfg = self.config
        load_handlers()
        loop = asyncio.get_running_loop()
        for d in cfg.log_dirs:
            try:
                d.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise ConfigError(f"log.dirs: cannot create {d}: {exc.strerror}") from None
        self.log_manager = LogManager(
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
            time_ms=_now_ms,
        )
        await loop.run_in_executor(None, self.log_manager.startup)
        self.broker_id, self.cluster_id = self.log_manager.ensure_meta_properties(
            cfg.broker_id, cfg["cluster.id"]
        )
        self.controller = Controller(self.log_manager, self.broker_id)
        self.replica_manager = ReplicaManager(self.broker_id, self.log_manager, _now_ms)
        self.replica_manager.start_embedded()  # until a controller publishes partition states
        await self.server.start()
        self._fix_advertised_ports()
        # Producer-id blocks: leased from ZooKeeper (which also registers this broker
        # under /brokers/ids) or from a lease file in the first log dir.
        self.producer_ids = create_producer_id_manager(
            zookeeper_connect=cfg["zookeeper.connect"],
            session_timeout_ms=cfg["zookeeper.session.timeout.ms"],
            connection_timeout_ms=cfg["zookeeper.connection.timeout.ms"],
            block_size=cfg["producer.id.block.size"],
            broker_id=self.broker_id,
            data_dir=cfg.log_dirs[0],
            registration=BrokerRegistration(
                broker_id=self.broker_id,
                endpoints=[BrokerEndpoint(a.name, a.host, a.port) for a in self.advertised],
                rack=cfg["broker.rack"],
            ),
        )
        await self.producer_ids.start()
        self.groups = GroupCoordinator(
            self.log_manager,
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
            time_ms=_now_ms,
        )
        await self.groups.start()
        self._tasks.append(asyncio.create_task(self.log_manager.run_background_tasks(), name="log-manager"))
        self.started.set()
        log.info(
            "broker %d started (cluster %s), advertising %s",
            self.broker_id,
            self.cluster_id,
            ", ".join(str(a) for a in self.advertised),
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
        await self.server.stop()
        if self.groups is not None:
            await self.groups.stop()
        if self.producer_ids is not None:
            await self.producer_ids.stop()
        for t in self._tasks:
            t.cancel()
        for t in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t
        self._tasks.clear()
        if self.log_manager is not None:
            await asyncio.get_running_loop().run_in_executor(None, self.log_manager.shutdown)
            self.log_manager = None

    # ------------------------------------------------------------------ views for handlers

    def endpoint_for(self, listener_name: str | None = None) -> Listener:
        for adv in self.advertised:
            if listener_name is None or adv.name == listener_name:
                return adv
        return self.advertised[0]
