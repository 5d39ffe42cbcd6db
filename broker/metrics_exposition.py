"""The Prometheus endpoint: ``/metrics`` served by ``prometheus_client`` in a thread of its own.

Names follow what the Prometheus JMX exporter's Kafka rules
(``example_configs/kafka-2_0_0.yml``, ``lowercaseOutputName``) make of Kafka's MBeans, so
dashboards built for Kafka read Moldau: ``kafka.network:type=RequestMetrics,
name=RequestsPerSec,request=Produce,version=9`` becomes
``kafka_network_requestmetrics_requests_total{request="Produce",version="9"}``, a gauge
``kafka.log:type=Log,name=Size,topic=t,partition=0`` becomes ``kafka_log_log_size{topic="t",
partition="0"}``. Kafka's latency histograms (``TotalTimeMs`` ...) are Prometheus histograms of
the same name (``_bucket``/``_sum``/``_count``) instead of the exporter's quantile gauges.
Consumer lag uses the names of the widely used kafka_exporter (``kafka_consumergroup_lag``);
what Kafka has no metric for is named ``moldau_*``. docs/OPERATIONS.md lists them all.

Thread safety. The scrape runs in the endpoint's thread; the broker's state lives on the
event loop and is never read from that thread. A scrape asks the loop for a snapshot
(``asyncio.run_coroutine_threadsafe``): a coroutine that copies counters into plain values
and walks partitions and committed offsets in slices (yielding between them, so a broker
with many partitions is not held), then the thread builds the metric families from that
copy. If the loop does not answer within ``SNAPSHOT_TIMEOUT_S`` the scrape fails (HTTP 500)
rather than read live state.
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from prometheus_client import exposition
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.gc_collector import GCCollector
from prometheus_client.platform_collector import PlatformCollector
from prometheus_client.process_collector import ProcessCollector
from prometheus_client.registry import Collector, CollectorRegistry

from broker.metrics import LatencyHistogram, RequestMetrics
from protocol.errors import ErrorCode

if TYPE_CHECKING:
    from broker.broker import Broker
    from storage.log_manager import LogManager

log = logging.getLogger(__name__)

SNAPSHOT_TIMEOUT_S = 10.0
SLICE = 500  # partitions or groups copied per loop turn


class MetricsEndpoint:
    """A private registry (several brokers may share a process in tests) and its HTTP server."""

    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.port = port
        self.registry = CollectorRegistry()
        self._server: Any = None
        self._thread: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def start(self) -> tuple[str, int]:
        self._loop = asyncio.get_running_loop()
        ProcessCollector(registry=self.registry)
        PlatformCollector(registry=self.registry)
        GCCollector(registry=self.registry)
        self._server, self._thread = exposition.start_http_server(
            self.port, addr=self.host, registry=self.registry
        )
        host, port = self._server.server_address[:2]
        return host, port

    async def stop(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            # shutdown() waits for serve_forever to notice (up to its 0.5 s poll).
            await asyncio.get_running_loop().run_in_executor(None, server.shutdown)
            server.server_close()

    def watch_log_manager(self, log_manager: LogManager, log_flush: LatencyHistogram) -> None:
        assert self._loop is not None
        self.registry.register(LogManagerCollector(self._loop, log_manager, log_flush))

    def attach(self, broker: Broker, requests: RequestMetrics) -> None:
        assert self._loop is not None
        self.registry.register(BrokerCollector(self._loop, broker, requests))


def on_loop(loop: asyncio.AbstractEventLoop, snapshot: Any) -> Any:
    """Run the coroutine ``snapshot`` on the broker's loop from the scrape thread."""
    future = asyncio.run_coroutine_threadsafe(snapshot, loop)
    try:
        return future.result(SNAPSHOT_TIMEOUT_S)
    except TimeoutError:
        future.cancel()
        log.warning("metrics scrape: the event loop gave no snapshot within %.0f s", SNAPSHOT_TIMEOUT_S)
        raise


def histogram(name: str, doc: str, hist: LatencyHistogram, labels: dict[str, str] | None = None) -> Metric:
    family = HistogramMetricFamily(name, doc, labels=list(labels or {}))
    family.add_metric(list((labels or {}).values()), hist.cumulative(), hist.sum)
    return family


# ---------------------------------------------------------------------------- log manager


class LogManagerCollector(Collector):
    """Log recovery at start (Kafka's ``LogManager`` gauges) and log flush times."""

    def __init__(
        self, loop: asyncio.AbstractEventLoop, log_manager: LogManager, log_flush: LatencyHistogram
    ) -> None:
        self.loop = loop
        self.log_manager = log_manager
        self.log_flush = log_flush

    async def _snapshot(self) -> tuple[dict[str, int], LatencyHistogram]:
        # logs_to_recover is written by the loading thread: a dict copy is one step.
        return dict(self.log_manager.logs_to_recover), self.log_flush.copy()

    def collect(self) -> Iterator[Metric]:
        remaining, flush = on_loop(self.loop, self._snapshot())
        g = GaugeMetricFamily(
            "kafka_log_logmanager_remaininglogstorecover",
            "Logs of a log dir still to load (and recover) at start",
            labels=["dir"],
        )
        for d, n in sorted(remaining.items()):
            g.add_metric([d], n)
        yield g
        yield histogram(
            "kafka_log_logflushstats_logflushrateandtimems",
            "Time of a log flush (fsync), ms",
            flush,
        )


# ---------------------------------------------------------------------------- broker


class PartitionRow(NamedTuple):
    topic: str
    partition: int
    size: int
    log_start_offset: int
    log_end_offset: int
    high_watermark: int
    segments: int
    is_leader: bool
    leader: int
    # Partition's own predicates (Kafka's isUnderReplicated / isUnderMinIsr / isAtMinIsr: led
    # here, against the replication factor and the effective min ISR)
    under_replicated: bool
    under_min_isr: bool
    at_min_isr: bool
    producers: int
    offline: bool
    reassigning: bool = False


class ControllerGauges(NamedTuple):
    """Kafka's ``KafkaController`` gauges (``updateMetrics``): the active controller's view,
    all 0 on the other brokers."""

    active: int = 0
    offline_partitions: int = 0
    preferred_replica_imbalance: int = 0
    global_topics: int = 0
    global_partitions: int = 0
    topics_to_delete: int = 0
    topics_ineligible_to_delete: int = 0
    active_brokers: int = 0


@dataclass
class BrokerSnapshot:
    requests: dict[str, dict[str, Any]] = field(default_factory=dict)
    all_topics: dict[str, int] = field(default_factory=dict)
    topics: dict[str, dict[str, int]] = field(default_factory=dict)
    isr_shrinks: int = 0
    isr_expands: int = 0
    isr_failed: int = 0
    controller: ControllerGauges = field(default_factory=ControllerGauges)
    purgatories: list[tuple[str, int, int]] = field(default_factory=list)
    connections: dict[str, int] = field(default_factory=dict)
    partitions: list[PartitionRow] = field(default_factory=list)
    offsets: list[tuple[str, str, int, int]] = field(default_factory=list)  # group, topic, partition, offset


def partition_row(p: Any) -> PartitionRow:
    plog = p.log
    return PartitionRow(
        p.topic,
        p.partition,
        plog.size_in_bytes,
        plog.log_start_offset,
        plog.log_end_offset,
        plog.high_watermark,
        len(plog.segments()),
        p.is_leader,
        p.leader_id,
        p.is_under_replicated,
        p.is_under_min_isr,
        p.is_at_min_isr,
        len(plog.producer_state.active_producers()),
        plog.dir_state.offline,
        p.is_reassigning,
    )


async def zk_controller_gauges(controller: Any) -> ControllerGauges:
    """ZooKeeper mode: Kafka's ``KafkaController.updateMetrics`` from the active controller's
    ``ControllerContext`` (``coordinator/zk_election.py``), 0 elsewhere. Kafka keeps
    ``offlinePartitionCount`` and ``preferredReplicaImbalanceCount`` as counters updated with
    each partition state change; here they are counted from the same state at scrape time,
    ``SLICE`` partitions per loop turn:

    - offline (``ControllerContext.updatePartitionStateMetrics``): a partition with a
      leadership (``partitionLeadershipInfo``) whose leader is no live broker is in
      ``OfflinePartition`` (a broker's failure moves it there, a failed election keeps it
      there, a controller's failover finds it there: ``initializePartitionState``); one
      without leadership is a ``NewPartition`` that could not be created, not counted; the
      partitions of a topic whose deletion has started are not counted;
    - preferred-replica imbalance (``hasPreferredLeader``): led by another broker than its
      first replica, or, while a reassignment adds that first replica, once that replica is
      in the ISR (balanced before); topics queued for deletion are not counted.
    """
    if not controller.active:
        return ControllerGauges()
    ctx = controller.ctx
    states = list(ctx.states.items())  # the context changes between slices
    brokers = set(ctx.brokers)  # live or shutting down
    deleting, deletion_started = set(ctx.topics_to_delete), set(ctx.deletion_started)
    offline = imbalanced = 0
    for start in range(0, len(states), SLICE):
        for tp, state in states[start : start + SLICE]:
            if tp[0] not in deletion_started and state.leader not in brokers:
                offline += 1
            if tp[0] in deleting:
                continue
            assignment = ctx.full_assignment(tp)
            if not assignment.replicas:
                continue
            preferred = assignment.replicas[0]
            if assignment.being_reassigned and preferred in assignment.adding:
                # Kafka's hasPreferredLeader: a reassigning partition counts as balanced until
                # the new preferred replica joins the ISR (then imbalanced, even if it leads).
                imbalanced += preferred in state.isr
            else:
                imbalanced += state.leader != preferred
        await asyncio.sleep(0)
    return ControllerGauges(
        active=1,
        offline_partitions=offline,
        preferred_replica_imbalance=imbalanced,
        global_topics=len(ctx.assignments),
        global_partitions=len(states),
        topics_to_delete=len(deleting),
        topics_ineligible_to_delete=len(ctx.deletion_ineligible),
        active_brokers=len(brokers),
    )


async def embedded_controller_gauges(controller: Any, rows: list[PartitionRow]) -> ControllerGauges:
    """Without ZooKeeper the broker is the cluster's only broker and its controller: it
    hosts every partition, so the partitions it hosts without a leader are the cluster's
    offline partitions; topics are deleted at once (none queued)."""
    topics = controller.topics()
    keys = [(name, p) for name, meta in topics.items() for p in range(meta.partitions)]
    partitions = imbalanced = 0
    for start in range(0, len(keys), SLICE):
        for name, p in keys[start : start + SLICE]:
            state = controller.partition_state(name, p)
            if state is None:
                continue
            partitions += 1
            imbalanced += bool(state.replicas) and state.leader != state.replicas[0]
        await asyncio.sleep(0)
    return ControllerGauges(
        active=1,
        offline_partitions=sum(1 for r in rows if r.leader < 0),
        preferred_replica_imbalance=imbalanced,
        global_topics=len(topics),
        global_partitions=partitions,
        active_brokers=len(controller.live_brokers),
    )


# (counter field of BrokerTopicStats, metric name, help)
TOPIC_COUNTERS = (
    ("bytes_in", "kafka_server_brokertopicmetrics_bytesin", "Bytes appended (BytesInPerSec)"),
    ("bytes_out", "kafka_server_brokertopicmetrics_bytesout", "Record bytes fetched (BytesOutPerSec)"),
    ("messages_in", "kafka_server_brokertopicmetrics_messagesin", "Records appended (MessagesInPerSec)"),
    (
        "produce_requests",
        "kafka_server_brokertopicmetrics_totalproducerequests",
        "Partitions of Produce requests (TotalProduceRequestsPerSec)",
    ),
    (
        "failed_produce_requests",
        "kafka_server_brokertopicmetrics_failedproducerequests",
        "Partitions of Produce requests answered with an error (FailedProduceRequestsPerSec)",
    ),
    (
        "fetch_requests",
        "kafka_server_brokertopicmetrics_totalfetchrequests",
        "Partitions of Fetch answers (TotalFetchRequestsPerSec)",
    ),
    (
        "failed_fetch_requests",
        "kafka_server_brokertopicmetrics_failedfetchrequests",
        "Partitions of Fetch answers with an error (FailedFetchRequestsPerSec)",
    ),
    (
        "duplicate_batches",
        "moldau_producer_duplicate_batches",
        "Idempotent batches answered as duplicates of an appended batch (not appended again)",
    ),
    (
        "out_of_order_sequence_errors",
        "moldau_producer_out_of_order_sequence_errors",
        "Batches refused with OUT_OF_ORDER_SEQUENCE_NUMBER (45)",
    ),
    (
        "duplicate_sequence_errors",
        "moldau_producer_duplicate_sequence_errors",
        "Batches refused with DUPLICATE_SEQUENCE_NUMBER (46): retries older than the cached window",
    ),
)

# (PartitionRow field, metric name, help): Kafka's kafka.log:type=Log gauges.
LOG_GAUGES = (
    ("size", "kafka_log_log_size", "Bytes of the partition's log segments"),
    ("log_end_offset", "kafka_log_log_logendoffset", "Log end offset"),
    ("log_start_offset", "kafka_log_log_logstartoffset", "Log start offset"),
    ("segments", "kafka_log_log_numlogsegments", "Segments of the log"),
    ("high_watermark", "moldau_log_log_highwatermark", "High watermark"),
    ("producers", "moldau_log_log_activeproducers", "Producers with state in the partition"),
)


class BrokerCollector(Collector):
    """Requests, topics, partitions, replication, purgatories, connections and group lag."""

    def __init__(self, loop: asyncio.AbstractEventLoop, broker: Broker, requests: RequestMetrics) -> None:
        self.loop = loop
        self.broker = broker
        self.requests = requests

    async def _snapshot(self) -> BrokerSnapshot:
        broker = self.broker
        rm = broker.replica_manager
        snap = BrokerSnapshot()
        snap.requests = self.requests.snapshot()
        snap.all_topics, snap.topics = rm.topic_stats.snapshot()
        isr = rm.isr_changes
        snap.isr_shrinks, snap.isr_expands, snap.isr_failed = isr.shrinks, isr.expands, isr.failed
        # Kafka's DelayedOperationPurgatory gauges, one per purgatory (delayedOperation=Produce, ...).
        snap.purgatories = [
            (p.name, p.watched_count(), len(p))
            for p in (rm.produce_purgatory, rm.fetch_purgatory, rm.elect_leader_purgatory)
        ]
        snap.connections = dict(collections.Counter(c.listener for c in broker.server.connections))
        partitions = rm.partitions()
        for start in range(0, len(partitions), SLICE):
            for p in partitions[start : start + SLICE]:
                try:
                    snap.partitions.append(partition_row(p))
                except Exception:  # deleted meanwhile (its log closed): left out of this scrape
                    continue
            await asyncio.sleep(0)
        if broker.zookeeper is not None:
            snap.controller = await zk_controller_gauges(broker.kafka_controller)
        else:
            snap.controller = await embedded_controller_gauges(broker.controller, snap.partitions)
        store = broker.groups.offsets
        groups = store.groups()
        for start in range(0, len(groups), SLICE):
            for group in groups[start : start + SLICE]:
                for (topic, partition), om in list(store.group_offsets(group).items()):
                    snap.offsets.append((group, topic, partition, om.committed_offset))
            await asyncio.sleep(0)
        return snap

    def collect(self) -> Iterator[Metric]:
        snap: BrokerSnapshot = on_loop(self.loop, self._snapshot())
        yield from self._request_metrics(snap)
        yield from self._topic_metrics(snap)
        yield from self._partition_metrics(snap)
        yield from self._replica_manager_metrics(snap)
        yield from self._controller_metrics(snap.controller)
        yield from self._lag_metrics(snap)
        g = GaugeMetricFamily(
            "kafka_server_delayedoperationpurgatory_purgatorysize",
            "Operations watched in a purgatory, counted once per key they watch (PurgatorySize)",
            labels=["delayedOperation"],
        )
        n = GaugeMetricFamily(
            "kafka_server_delayedoperationpurgatory_numdelayedoperations",
            "Operations waiting in a purgatory (NumDelayedOperations)",
            labels=["delayedOperation"],
        )
        for name, watched, waiting in snap.purgatories:
            g.add_metric([name], watched)
            n.add_metric([name], waiting)
        yield g
        yield n
        c = GaugeMetricFamily(
            "kafka_server_socket_server_metrics_connection_count",
            "Open client connections (socket-server-metrics connection-count)",
            labels=["listener"],
        )
        for listener in sorted({lst.name for lst in self.broker.config.listeners} | set(snap.connections)):
            c.add_metric([listener], snap.connections.get(listener, 0))
        yield c

    @staticmethod
    def _request_metrics(snap: BrokerSnapshot) -> Iterator[Metric]:
        requests = CounterMetricFamily(
            "kafka_network_requestmetrics_requests",
            "Requests handled, by API and version (RequestsPerSec)",
            labels=["request", "version"],
        )
        errors = CounterMetricFamily(
            "kafka_network_requestmetrics_errors",
            "Error codes in responses, NONE included (ErrorsPerSec)",
            labels=["request", "error"],
        )
        times = {
            "total": HistogramMetricFamily(
                "kafka_network_requestmetrics_totaltimems",
                "Time from the request's receipt (read whole) to its answer, ms (TotalTimeMs)",
                labels=["request"],
            ),
            "queue": HistogramMetricFamily(
                "kafka_network_requestmetrics_requestqueuetimems",
                "Time from the request's receipt until its handler started, ms (RequestQueueTimeMs)",
                labels=["request"],
            ),
            "local": HistogramMetricFamily(
                "kafka_network_requestmetrics_localtimems",
                "Time in the request's handler, ms (LocalTimeMs)",
                labels=["request"],
            ),
            "remote": HistogramMetricFamily(
                "kafka_network_requestmetrics_remotetimems",
                "Time the request waited (a purgatory, a group rebalance, an append), ms (RemoteTimeMs)",
                labels=["request"],
            ),
        }
        for name, api in sorted(snap.requests.items()):
            for version, n in sorted(api["requests"].items()):
                requests.add_metric([name, str(version)], n)
            for code, n in sorted(api["errors"].items()):
                errors.add_metric([name, _error_name(code)], n)
            if api["total"].count:
                for kind, family in times.items():
                    hist: LatencyHistogram = api[kind]
                    family.add_metric([name], hist.cumulative(), hist.sum)
        yield requests
        yield errors
        yield from times.values()

    @staticmethod
    def _topic_metrics(snap: BrokerSnapshot) -> Iterator[Metric]:
        for attr, name, doc in TOPIC_COUNTERS:
            family = CounterMetricFamily(name, doc + "; without a topic label: all topics", labels=["topic"])
            # Kafka's all-topics meter is the same MBean without the topic key.
            family.add_sample(name + "_total", {}, snap.all_topics[attr])
            for topic, counters in sorted(snap.topics.items()):
                family.add_metric([topic], counters[attr])
            yield family

    @staticmethod
    def _partition_metrics(snap: BrokerSnapshot) -> Iterator[Metric]:
        for attr, name, doc in LOG_GAUGES:
            family = GaugeMetricFamily(name, doc, labels=["topic", "partition"])
            for row in snap.partitions:
                family.add_metric([row.topic, str(row.partition)], getattr(row, attr))
            yield family

    @staticmethod
    def _replica_manager_metrics(snap: BrokerSnapshot) -> Iterator[Metric]:
        rows = snap.partitions
        leaders = [r for r in rows if r.is_leader]
        gauges = (
            ("partitioncount", "Partitions hosted by this broker", len(rows)),
            ("leadercount", "Partitions this broker leads", len(leaders)),
            (
                "underreplicatedpartitions",
                "Led partitions whose ISR is smaller than their replication factor (a reassignment's"
                " adding replicas left out)",
                sum(1 for r in rows if r.under_replicated),
            ),
            (
                "underminisrpartitioncount",
                "Led partitions whose ISR is below min(min.insync.replicas, replicas)",
                sum(1 for r in rows if r.under_min_isr),
            ),
            (
                "atminisrpartitioncount",
                "Led partitions whose ISR is exactly min(min.insync.replicas, replicas)",
                sum(1 for r in rows if r.at_min_isr),
            ),
            (
                "reassigningpartitions",
                "Led partitions a reassignment is moving",
                sum(1 for r in leaders if r.reassigning),
            ),
            (
                "offlinereplicacount",
                "Hosted partitions in an offline log dir",
                sum(1 for r in rows if r.offline),
            ),
            (
                "produceridcount",
                "Producers with state, over the led partitions",
                sum(r.producers for r in leaders),
            ),
        )
        for name, doc, value in gauges:
            yield GaugeMetricFamily(f"kafka_server_replicamanager_{name}", doc, value=value)
        yield CounterMetricFamily(
            "kafka_server_replicamanager_isrshrinks",
            "ISR shrinks this leader proposed and the controller committed (IsrShrinksPerSec)",
            value=snap.isr_shrinks,
        )
        yield CounterMetricFamily(
            "kafka_server_replicamanager_isrexpands",
            "ISR expansions this leader proposed and the controller committed (IsrExpandsPerSec)",
            value=snap.isr_expands,
        )
        yield CounterMetricFamily(
            "kafka_server_replicamanager_failedisrupdates",
            "ISR changes the controller refused, or answered for a stale leader epoch (FailedIsrUpdatesPerSec)",
            value=snap.isr_failed,
        )

    @staticmethod
    def _controller_metrics(c: ControllerGauges) -> Iterator[Metric]:
        gauges = (
            ("activecontrollercount", "1 on the active controller, else 0", c.active),
            (
                "offlinepartitionscount",
                "Partitions of the cluster whose leader is no live broker (active controller; else 0)",
                c.offline_partitions,
            ),
            (
                "preferredreplicaimbalancecount",
                "Partitions not led by their preferred (first) replica (active controller; else 0)",
                c.preferred_replica_imbalance,
            ),
            ("globaltopiccount", "Topics of the cluster (active controller; else 0)", c.global_topics),
            (
                "globalpartitioncount",
                "Partitions of the cluster with a leadership (active controller; else 0)",
                c.global_partitions,
            ),
            (
                "topicstodeletecount",
                "Topics queued for deletion (active controller; else 0)",
                c.topics_to_delete,
            ),
            (
                "topicsineligibletodeletecount",
                "Topics queued for deletion that cannot be deleted now (active controller; else 0)",
                c.topics_ineligible_to_delete,
            ),
            (
                "activebrokercount",
                "Live brokers, shutting down included (active controller; else 0)",
                c.active_brokers,
            ),
        )
        for name, doc, value in gauges:
            yield GaugeMetricFamily(f"kafka_controller_kafkacontroller_{name}", doc, value=value)

    @staticmethod
    def _lag_metrics(snap: BrokerSnapshot) -> Iterator[Metric]:
        """Committed offsets and lag (high watermark - committed) of the partitions this
        broker leads; a commit of a partition led elsewhere gets its offset, not a lag."""
        high_watermarks = {(r.topic, r.partition): r.high_watermark for r in snap.partitions if r.is_leader}
        labels = ["consumergroup", "topic", "partition"]
        current = GaugeMetricFamily(
            "kafka_consumergroup_current_offset", "Committed offset of a group", labels=labels
        )
        lag = GaugeMetricFamily(
            "kafka_consumergroup_lag", "High watermark minus the group's committed offset", labels=labels
        )
        lag_sum = GaugeMetricFamily(
            "kafka_consumergroup_lag_sum", "Lag of a group over a topic's partitions", labels=labels[:2]
        )
        sums: dict[tuple[str, str], int] = {}
        for group, topic, partition, offset in sorted(snap.offsets):
            values = [group, topic, str(partition)]
            current.add_metric(values, offset)
            hw = high_watermarks.get((topic, partition))
            if hw is None or offset < 0:
                continue
            behind = max(hw - offset, 0)
            lag.add_metric(values, behind)
            sums[(group, topic)] = sums.get((group, topic), 0) + behind
        for (group, topic), total in sorted(sums.items()):
            lag_sum.add_metric([group, topic], total)
        yield current
        yield lag
        yield lag_sum


def _error_name(code: int) -> str:
    return ErrorCode.for_code(code).name  # an unknown code: UNKNOWN_SERVER_ERROR
