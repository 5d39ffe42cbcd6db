"""Broker metrics: the plain counters on the hot paths, request instrumentation, and the
Prometheus collectors (scraped over HTTP from an in-process broker, parsed with
prometheus_client's parser)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import socket
import threading
import time
import urllib.request
import uuid

import pytest
from prometheus_client.parser import text_string_to_metric_families

from broker.broker import Broker
from broker.config import BrokerConfig
from broker.fetch_params import FetchParams, FetchPartitionInfo
from broker.handlers import REGISTRY, HandlerSpec, load_handlers
from broker.metrics import (
    BrokerTopicStats,
    LatencyHistogram,
    RequestMetrics,
    error_codes,
)
from broker.metrics_exposition import (
    BrokerCollector,
    BrokerSnapshot,
    ControllerGauges,
    PartitionRow,
    zk_controller_gauges,
)
from broker.partition import Partition
from broker.replica_manager import ReplicaManager
from coordinator import zk_data as zd
from coordinator.cluster_state import PartitionState
from coordinator.zk_election import ControllerContext
from protocol.errors import ErrorCode
from protocol.messages import ApiKey, FetchResponse, MetadataRequest, MetadataResponse, ProduceResponse
from storage.config_def import ConfigError
from storage.log_config import resolve_topic_defaults
from storage.log_manager import LogManager
from storage.log_types import FetchIsolation
from storage.producer_state import AppendOrigin
from tests.broker.test_produce_pipelining import (
    FOLLOWER,
    METADATA_VERSION,
    Harness,
    _frame,
    _produce,
    _read_answer,
    _read_produce,
    _until,
)
from tests.storage.batch_factory import BASE_TS, make_batch
from tests.storage.log_factory import open_log
from tests.support.broker_process import ROOT

ME, OTHER = 0, 1


# ---------------------------------------------------------------------------- plain counters


def test_latency_histogram_buckets_are_cumulative_and_end_at_inf():
    h = LatencyHistogram((1.0, 10.0))
    for value in (0.5, 1.0, 3.0, 50.0):
        h.observe(value)
    assert h.cumulative() == [("1.0", 2), ("10.0", 3), ("+Inf", 4)]
    assert h.count == 4 and h.sum == 54.5
    copy = h.copy()
    h.observe(2.0)
    assert copy.count == 4 and copy.cumulative()[-1] == ("+Inf", 4)


def test_error_codes_walk_every_level_of_a_response():
    P = ProduceResponse.PartitionProduceResponse
    produce = ProduceResponse(
        responses=[
            ProduceResponse.TopicProduceResponse(
                name="a", partition_responses=[P(index=0, error_code=0), P(index=1, error_code=6)]
            ),
            ProduceResponse.TopicProduceResponse(name="b", partition_responses=[P(index=0, error_code=45)]),
        ]
    )
    assert error_codes(produce) == {0: 1, 6: 1, 45: 1}
    fetch = FetchResponse(
        error_code=0,
        responses=[
            FetchResponse.FetchableTopicResponse(
                topic="a", partitions=[FetchResponse.PartitionData(partition_index=0, error_code=1)]
            )
        ],
    )
    assert error_codes(fetch) == {0: 1, 1: 1}  # the top-level code and the partition's


def test_topic_stats_keep_all_topic_totals_when_a_topic_goes():
    stats = BrokerTopicStats()
    stats.record_append("a", 100, 3)
    stats.record_append("b", 50, 1)
    stats.record_produce("a", None, False, hosted=True)
    stats.record_produce("a", None, True, hosted=True)
    stats.record_produce("a", ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, False, hosted=True)
    stats.record_produce("b", ErrorCode.DUPLICATE_SEQUENCE_NUMBER, False, hosted=True)
    stats.record_fetch("a", ErrorCode.NONE, 70, hosted=True)
    stats.record_fetch("a", ErrorCode.OFFSET_OUT_OF_RANGE, 0, hosted=True)
    all_topics, topics = stats.snapshot()
    assert topics["a"]["bytes_in"] == 100 and topics["a"]["messages_in"] == 3
    assert topics["a"]["produce_requests"] == 3 and topics["a"]["failed_produce_requests"] == 1
    assert topics["a"]["duplicate_batches"] == 1 and topics["a"]["out_of_order_sequence_errors"] == 1
    assert topics["b"]["duplicate_sequence_errors"] == 1
    assert topics["a"]["bytes_out"] == 70 and topics["a"]["failed_fetch_requests"] == 1
    assert all_topics["bytes_in"] == 150 and all_topics["fetch_requests"] == 2
    stats.remove_topic("a")
    all_topics, topics = stats.snapshot()
    assert "a" not in topics and all_topics["bytes_in"] == 150


def test_names_of_partitions_not_hosted_count_in_all_topics_only():
    stats = BrokerTopicStats()
    for i in range(100):
        stats.record_produce(f"nope-{i}", ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, False, hosted=False)
        stats.record_fetch(f"nope-{i}", ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 0, hosted=False)
    all_topics, topics = stats.snapshot()
    assert topics == {}
    assert all_topics["failed_produce_requests"] == 100 and all_topics["failed_fetch_requests"] == 100


class AcceptingSink:
    """An ``IsrChangeSink`` that takes every proposal (the test answers for the controller)."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, ...]] = []

    def submit(self, partition, new_isr) -> bool:
        self.sent.append(new_isr)
        return True


def test_isr_shrinks_and_expands_are_counted_when_the_controller_commits_the_leaders_proposal(tmp_path):
    """Kafka's Partition ``handleAlterPartitionUpdate``: the committed AlterPartition marks its
    proposal (``PendingShrinkIsr`` / ``PendingExpandIsr.notifyListener``); a stale answer and a
    refusal (``handleAlterPartitionError``) mark FailedIsrUpdatesPerSec; an ISR the controller
    sets by LeaderAndIsr marks nothing."""
    now = [BASE_TS]
    plog = open_log(tmp_path)
    sink = AcceptingSink()
    p = Partition(
        plog, local_broker_id=ME, time_ms=lambda: now[0], replica_lag_time_max_ms=100, isr_change_sink=sink
    )
    stats = p.isr_changes
    both = (ME, OTHER)
    p.make_leader(PartitionState("t", 0, ME, 1, both, both, partition_epoch=1))
    p.make_leader(PartitionState("t", 0, ME, 2, (ME,), both, partition_epoch=2))  # the controller's
    p.make_leader(PartitionState("t", 0, ME, 3, both, both, partition_epoch=3))
    assert (stats.shrinks, stats.expands, stats.failed) == (0, 0, 0)
    # the follower never fetches: the leader proposes its removal, the controller commits it
    now[0] += 1000
    assert p.maybe_shrink_isr() and sink.sent == [(ME,)]
    assert (stats.shrinks, stats.expands) == (0, 0)  # proposed, not committed yet
    p.on_alter_partition_committed(3, 4, (ME,))
    assert (p.isr, stats.shrinks, stats.expands) == ((ME,), 1, 0)
    # it catches up: the leader proposes it again, the controller commits
    p.update_follower_fetch_state(OTHER, plog.log_end_offset, 0, now[0], plog.log_end_offset)
    assert sink.sent[-1] == both
    p.on_alter_partition_committed(3, 5, both)
    assert (p.isr, stats.shrinks, stats.expands, stats.failed) == (both, 1, 1, 0)
    p.on_alter_partition_committed(3, 6, both)  # nothing proposed: an answer out of date
    assert (stats.shrinks, stats.expands, stats.failed) == (1, 1, 0)
    # it falls behind again: a refusal, then a commit for an older leader epoch
    p.append_records_to_leader(
        memoryview(bytearray(make_batch(1))), origin=AppendOrigin.CLIENT, required_acks=1
    )
    now[0] += 1000
    assert p.maybe_shrink_isr()
    assert p.on_alter_partition_failed(ErrorCode.OPERATION_NOT_ATTEMPTED) is False
    assert stats.failed == 1
    assert p.maybe_shrink_isr()
    p.on_alter_partition_committed(2, 7, (ME,))
    assert (p.isr, stats.shrinks, stats.expands, stats.failed) == (both, 1, 1, 2)
    plog.close()


def test_a_reassignment_in_flight_counts_in_the_replicas_not_the_replication_factor(tmp_path):
    """Kafka's Partition: ``assignmentState.replicationFactor`` leaves the adding replicas of
    an ``OngoingReassignmentState`` out (``isUnderReplicated``), ``effectiveMinIsr`` counts
    every replica (``remoteReplicasMap.size + 1``); both from LeaderAndIsr's
    AddingReplicas / RemovingReplicas, which a later LeaderAndIsr without them clears."""
    plog = open_log(tmp_path, min_insync_replicas=3)
    p = Partition(plog, local_broker_id=ME, time_ms=lambda: BASE_TS)
    moving = PartitionState(
        "t",
        0,
        ME,
        1,
        (ME, OTHER),
        (OTHER, 2, ME),
        partition_epoch=1,
        adding_replicas=(2,),
        removing_replicas=(ME,),
    )
    p.make_leader(moving)
    assert (p.replication_factor, p.effective_min_isr, p.is_reassigning) == (2, 3, True)
    assert not p.is_under_replicated and p.is_under_min_isr and not p.is_at_min_isr
    done = PartitionState("t", 0, ME, 2, (ME, OTHER), (ME, OTHER, 2), partition_epoch=2)
    p.make_leader(done)
    assert (p.replication_factor, p.effective_min_isr, p.is_reassigning) == (3, 3, False)
    assert p.is_under_replicated
    p.make_follower(PartitionState("t", 0, OTHER, 3, (OTHER, ME), (OTHER, ME), adding_replicas=(ME,)))
    assert p.is_reassigning and not p.is_under_replicated and not p.is_under_min_isr  # not the leader
    plog.close()


def test_the_replica_manager_counts_appends_duplicates_and_fetched_bytes(log_manager):
    log_manager.create_topic("t", 1, uuid.uuid4(), {})
    rm = ReplicaManager(ME, log_manager, lambda: BASE_TS)
    rm.lead_local_logs()
    batch = make_batch(4, value_size=100, producer_id=7, producer_epoch=0, base_sequence=0)
    for _ in range(2):  # the second is a duplicate: answered, not appended
        rm.append_records([(("t", 0), memoryview(batch))], required_acks=-1, origin=AppendOrigin.CLIENT)
    out_of_order = make_batch(1, producer_id=7, producer_epoch=0, base_sequence=9)
    rm.append_records([(("t", 0), memoryview(out_of_order))], required_acks=-1, origin=AppendOrigin.CLIENT)
    params = FetchParams(
        max_wait_ms=0, min_bytes=1, max_bytes=1 << 20, isolation=FetchIsolation.HIGH_WATERMARK
    )
    fetched = rm.fetch_messages(params, [(("t", 0), FetchPartitionInfo(0, 1 << 20))])
    t = rm.topic_stats.topics["t"]
    assert t.bytes_in == len(batch) == log_manager.get_log("t", 0).size_in_bytes
    assert t.messages_in == 4
    assert (t.produce_requests, t.duplicate_batches, t.failed_produce_requests) == (3, 1, 1)
    assert t.out_of_order_sequence_errors == 1
    assert t.bytes_out == len(fetched[0].records) == len(batch) and t.fetch_requests == 1
    rm.append_records([(("gone", 0), memoryview(batch))], required_acks=-1, origin=AppendOrigin.CLIENT)
    rm.fetch_messages(params, [(("gone", 0), FetchPartitionInfo(0, 1 << 20))])
    assert "gone" not in rm.topic_stats.topics
    assert rm.topic_stats.all_topics.failed_produce_requests == 2  # the out-of-order one and this
    assert rm.topic_stats.all_topics.failed_fetch_requests == 1


def test_a_parked_fetch_counts_its_bytes_once_when_it_answers(log_manager):
    async def scenario():
        log_manager.create_topic("t", 1, uuid.uuid4(), {})
        rm = ReplicaManager(ME, log_manager, lambda: BASE_TS)
        rm.lead_local_logs()
        params = FetchParams(
            max_wait_ms=60_000, min_bytes=1, max_bytes=1 << 20, isolation=FetchIsolation.HIGH_WATERMARK
        )
        waiting = asyncio.ensure_future(
            rm.fetch_messages(params, [(("t", 0), FetchPartitionInfo(0, 1 << 20))])
        )
        await asyncio.sleep(0)
        assert rm.fetch_purgatory.watched_count() == 1
        assert "t" not in rm.topic_stats.topics or rm.topic_stats.topics["t"].fetch_requests == 0
        batch = make_batch(2)
        rm.append_records([(("t", 0), memoryview(batch))], required_acks=1, origin=AppendOrigin.CLIENT)
        answer = await asyncio.wait_for(waiting, 10)
        t = rm.topic_stats.topics["t"]
        assert (t.fetch_requests, t.bytes_out) == (1, len(batch)) == (1, len(answer[0].records))
        assert rm.fetch_purgatory.watched_count() == 0

    asyncio.run(scenario())


def test_log_manager_reports_flush_times_and_logs_left_to_load(tmp_path):
    lm = LogManager([tmp_path], resolve_topic_defaults({}))
    lm.startup()
    lm.create_topic("t", 3, uuid.uuid4(), {})
    lm.shutdown()
    lm = LogManager([tmp_path], resolve_topic_defaults({}))
    seen = []
    register = lm._register
    lm._register = lambda plog: (seen.append(dict(lm.logs_to_recover)), register(plog))
    lm.startup()
    assert seen == [{str(tmp_path): 3}, {str(tmp_path): 2}, {str(tmp_path): 1}]
    assert lm.logs_to_recover == {str(tmp_path): 0}
    flushes = []
    lm.on_flush_time = flushes.append
    plog = lm.get_log("t", 0)
    plog.append_as_leader(memoryview(make_batch(1)), 0, now_ms=BASE_TS, origin=AppendOrigin.CLIENT)
    asyncio.run(lm.flush_log(plog))
    assert len(flushes) == 1 and flushes[0] >= 0
    lm.shutdown()


# ---------------------------------------------------------------------------- requests


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _spec(fn, *, is_async=False) -> HandlerSpec:
    load_handlers()
    return HandlerSpec(
        api_key=0,
        min_version=3,
        max_version=11,
        advertised_min=0,
        fn=fn,
        is_async=is_async,
        request_cls=REGISTRY[ApiKey.PRODUCE].request_cls,
        response_cls=ProduceResponse,
        name="Produce",
    )


class Ctx:
    api_version = 9


def test_requests_are_counted_by_version_error_and_time_local_and_remote():
    clock = FakeClock()
    metrics = RequestMetrics(clock)
    P = ProduceResponse.PartitionProduceResponse

    def answer(code: int) -> ProduceResponse:
        return ProduceResponse(
            responses=[
                ProduceResponse.TopicProduceResponse(name="t", partition_responses=[P(error_code=code)])
            ]
        )

    def sync_handler(ctx, request):
        clock.now += 0.002  # 2 ms in the handler
        return answer(0)

    table = metrics.instrument({0: _spec(sync_handler)})
    assert table[0].fn(Ctx(), None) == answer(0)
    stats = metrics.apis["Produce"]
    assert stats.requests == {9: 1} and stats.errors == {0: 1}
    assert stats.local.count == 1 and stats.local.sum == pytest.approx(2.0)
    assert stats.remote.sum == 0 and stats.total.sum == pytest.approx(2.0)

    release = asyncio.Event()

    async def waits():
        await release.wait()
        clock.now += 0.5  # 500 ms parked
        return answer(6)

    def parks(ctx, request):
        clock.now += 0.001
        return waits()

    async def run_parked():
        table = metrics.instrument({0: _spec(parks)})
        pending = table[0].fn(Ctx(), None)
        assert not isinstance(pending, ProduceResponse)
        release.set()
        return await pending

    assert asyncio.run(run_parked()) == answer(6)
    assert stats.requests == {9: 2} and stats.errors == {0: 1, 6: 1}
    assert stats.remote.count == 2 and stats.remote.sum == pytest.approx(500.0)
    assert stats.total.sum == pytest.approx(503.0)

    async def async_handler(ctx, request):
        return None  # acks=0: no answer, still a request

    async def run_async():
        table = metrics.instrument({0: _spec(async_handler, is_async=True)})
        assert table[0].is_async is False  # the server awaits whatever is not a Message
        return await table[0].fn(Ctx(), None)

    assert asyncio.run(run_async()) is None
    assert stats.requests == {9: 3} and stats.errors == {0: 1, 6: 1}
    assert stats.queue.count == 0  # no stamp from a server: no queue time

    # The server stamps the frame when read whole; the handler started 30 ms later.
    metrics.received = clock.now
    clock.now += 0.030
    table = metrics.instrument({0: _spec(sync_handler)})
    table[0].fn(Ctx(), None)
    assert stats.queue.count == 1 and stats.queue.sum == pytest.approx(30.0)
    assert stats.total.sum == pytest.approx(503.0 + 32.0)  # the total counts from the receipt
    assert metrics.received is None  # a stamp serves one request
    table[0].fn(Ctx(), None)
    assert stats.queue.count == 1


# ---------------------------------------------------------------------------- collectors


def row(
    topic, partition, *, leader=ME, isr=1, replicas=1, hw=10, min_isr=1, reassigning=False
) -> PartitionRow:
    return PartitionRow(
        topic,
        partition,
        1000,
        0,
        hw,
        hw,
        1,
        leader == ME,
        leader,
        # as Partition's is_under_replicated / is_under_min_isr / is_at_min_isr
        leader == ME and isr < replicas,
        leader == ME and isr < min_isr,
        leader == ME and isr == min_isr,
        2,
        False,
        reassigning,
    )


def families(metrics) -> dict[str, list]:
    return {m.name: m.samples for m in metrics}


def test_lag_is_the_high_watermark_less_the_commit_and_only_for_led_partitions():
    snap = BrokerSnapshot(
        partitions=[row("t", 0, hw=10), row("t", 1, hw=7), row("u", 0, leader=OTHER, hw=99)],
        offsets=[("g", "t", 0, 4), ("g", "t", 1, 7), ("g", "u", 0, 1), ("h", "t", 0, 12)],
    )
    out = families(BrokerCollector._lag_metrics(snap))
    lag = {
        (s.labels["consumergroup"], s.labels["topic"], s.labels["partition"]): s.value
        for s in out["kafka_consumergroup_lag"]
    }
    assert lag == {("g", "t", "0"): 6, ("g", "t", "1"): 0, ("h", "t", "0"): 0}
    assert len(out["kafka_consumergroup_current_offset"]) == 4
    sums = {
        (s.labels["consumergroup"], s.labels["topic"]): s.value for s in out["kafka_consumergroup_lag_sum"]
    }
    assert sums == {("g", "t"): 6, ("h", "t"): 0}


def test_replica_manager_gauges_count_under_replicated_and_offline_partitions():
    snap = BrokerSnapshot(
        partitions=[
            row("t", 0, isr=1, replicas=2, min_isr=2),  # under-replicated and under min ISR
            row("t", 1, isr=2, replicas=2, min_isr=2),  # at min ISR
            row("t", 2, leader=-1, isr=0, replicas=2),  # offline: no leader
            row("t", 3, leader=OTHER, isr=1, replicas=2),  # led elsewhere: not this broker's count
            row("t", 4, isr=2, replicas=2, reassigning=True),  # a move in flight, led here
        ],
        isr_shrinks=3,
        isr_expands=2,
        isr_failed=1,
    )
    out = {
        name: samples[0].value
        for name, samples in families(BrokerCollector._replica_manager_metrics(snap)).items()
    }
    assert out["kafka_server_replicamanager_partitioncount"] == 5
    assert out["kafka_server_replicamanager_leadercount"] == 3
    assert out["kafka_server_replicamanager_underreplicatedpartitions"] == 1
    assert out["kafka_server_replicamanager_underminisrpartitioncount"] == 1
    assert out["kafka_server_replicamanager_atminisrpartitioncount"] == 1
    assert out["kafka_server_replicamanager_reassigningpartitions"] == 1
    assert out["kafka_server_replicamanager_produceridcount"] == 6
    assert out["kafka_server_replicamanager_isrshrinks"] == 3
    assert out["kafka_server_replicamanager_isrexpands"] == 2
    assert out["kafka_server_replicamanager_failedisrupdates"] == 1


class FakeZkController:
    def __init__(self, ctx, active: bool = True) -> None:
        self.ctx = ctx
        self.active = active


def test_zk_controller_gauges_are_the_active_controllers_cluster_wide_counts():
    """Kafka's KafkaController ``updateMetrics`` from its ControllerContext: offline partitions
    (leader on no live broker; not those of a topic whose deletion started:
    ``updatePartitionStateMetrics``), preferred-replica imbalance (``hasPreferredLeader``: a
    reassignment adding the first replica counts until it is in the ISR; topics queued for
    deletion not counted), topics, partitions with a leadership, brokers; all 0 elsewhere."""
    ctx = ControllerContext()
    ctx.brokers = {b: zd.BrokerInfo(b, ()) for b in (0, 1)}  # broker 2 is dead
    ctx.assignments = {
        "a": {0: (0, 1), 1: (2, 0), 2: (2,), 3: (3, 0)},
        "gone": {0: (2,)},
        "queued": {0: (2, 1), 1: (2,)},
    }
    ctx.adding_removing = {("a", 3): ((3,), (1,))}
    state = zd.LeaderIsrAndEpoch
    ctx.states = {
        ("a", 0): state(0, 1, (0, 1), 1),  # online, preferred
        ("a", 1): state(0, 2, (0,), 1),  # online, led by its second replica
        ("a", 2): state(-1, 3, (2,), 1),  # offline (its only replica is dead), so imbalanced too
        ("a", 3): state(0, 1, (0,), 1),  # being moved to 3, not in the ISR yet: balanced (Kafka)
        ("gone", 0): state(-1, 1, (2,), 1),  # deletion started: not counted
        ("queued", 0): state(1, 1, (1,), 1),  # queued for deletion: imbalance not counted
        ("queued", 1): state(2, 1, (2,), 1),  # queued (not started): offline counts
    }
    ctx.topics_to_delete = {"gone", "queued"}
    ctx.deletion_started = {"gone"}
    ctx.deletion_ineligible = {"queued"}
    got = asyncio.run(zk_controller_gauges(FakeZkController(ctx)))
    assert got == ControllerGauges(
        active=1,
        offline_partitions=2,
        preferred_replica_imbalance=2,
        global_topics=3,
        global_partitions=7,
        topics_to_delete=2,
        topics_ineligible_to_delete=1,
        active_brokers=2,
    )
    assert asyncio.run(zk_controller_gauges(FakeZkController(ctx, active=False))) == ControllerGauges()
    out = {m.name: m.samples[0].value for m in BrokerCollector._controller_metrics(got)}
    assert out["kafka_controller_kafkacontroller_activecontrollercount"] == 1
    assert out["kafka_controller_kafkacontroller_offlinepartitionscount"] == 2
    assert out["kafka_controller_kafkacontroller_preferredreplicaimbalancecount"] == 2


def scrape(host: str, port: int) -> dict[str, list]:
    text = urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=30).read().decode()
    return {f.name: f.samples for f in text_string_to_metric_families(text)}


def value(samples, name: str, **labels) -> float:
    found = [s.value for s in samples if s.name == name and s.labels == labels]
    assert len(found) == 1, (name, labels, samples)
    return found[0]


def metrics_config(log_dir) -> BrokerConfig:
    """A broker on any free port with the metrics endpoint on (any free port too)."""
    return BrokerConfig(
        {"log.dirs": str(log_dir), "listeners": "PLAINTEXT://127.0.0.1:0", "metrics.prometheus.port": "0"}
    )


def test_an_in_process_broker_serves_partition_and_request_metrics(tmp_path):
    exported: dict[str, list] = {}

    async def scenario():
        b = Broker(metrics_config(tmp_path))
        await b.start()
        try:
            assert b.server.handlers[ApiKey.PRODUCE].fn is not REGISTRY[ApiKey.PRODUCE].fn  # timed
            b.log_manager.create_topic("t", 1, uuid.uuid4(), {})
            # the controller's state for it, with a second replica not in the ISR
            b.replica_manager.on_topics_changed(
                {}, [PartitionState("t", 0, b.broker_id, 0, (b.broker_id,), (b.broker_id, 5))]
            )
            batch = make_batch(3, value_size=50)
            b.replica_manager.append_records(
                [(("t", 0), memoryview(batch))], required_acks=1, origin=AppendOrigin.CLIENT
            )
            got = await asyncio.to_thread(scrape, *b.metrics.bound)
            labels = {"topic": "t", "partition": "0"}
            assert value(got["kafka_log_log_logendoffset"], "kafka_log_log_logendoffset", **labels) == 3
            assert value(got["kafka_log_log_size"], "kafka_log_log_size", **labels) == len(batch)
            assert value(got["kafka_log_log_logstartoffset"], "kafka_log_log_logstartoffset", **labels) == 0
            name = "kafka_server_brokertopicmetrics_bytesin"
            assert value(got[name], name + "_total", topic="t") == len(batch)
            assert value(got[name], name + "_total") == len(batch)  # all topics
            name = "kafka_server_replicamanager_underreplicatedpartitions"
            assert value(got[name], name) == 1
            name = "kafka_server_socket_server_metrics_connection_count"
            assert value(got[name], name, listener="PLAINTEXT") == 0
            name = "kafka_log_logmanager_remaininglogstorecover"
            assert value(got[name], name, dir=str(tmp_path)) == 0
            name = "kafka_server_delayedoperationpurgatory_purgatorysize"
            assert value(got[name], name, delayedOperation="Fetch") == 0
            exported.update(got)
        finally:
            await b.stop()

    asyncio.run(scenario())
    # The dashboard and the operations guide name only metrics the endpoint exports.
    names = set(exported)
    dashboard = json.loads((ROOT / "docs" / "grafana-dashboard.json").read_text())
    exprs = [t["expr"] for p in dashboard["panels"] for t in p.get("targets", ())]
    exprs += [v["query"]["query"] for v in dashboard["templating"]["list"] if v["type"] == "query"]
    used = {m for e in exprs for m in re.findall(r"\b((?:kafka|moldau|process)_[a-z_]+)", e)}
    docs = (ROOT / "docs" / "OPERATIONS.md").read_text().split("## Metrics", 1)[1]
    documented = set(re.findall(r"`((?:kafka|moldau)_[a-z_]+)", docs))
    assert len(used) > 20 and len(documented) > 30

    def family(metric: str) -> str:
        return metric if metric in names else re.sub(r"_(bucket|sum|count|total)$", "", metric)

    assert {m for m in used if family(m) not in names} == set()
    assert {m for m in documented if family(m) not in names} == set()
    # and every exported Kafka or Moldau family is documented
    assert {n for n in names if n.startswith(("kafka_", "moldau_"))} - {
        family(d) for d in documented
    } == set()


def test_a_request_behind_a_parked_produce_shows_its_queue_time_and_the_produce_purgatory(tmp_path):
    """An acks=all produce waits for a follower (in the ISR, never fetching), a Metadata request
    pipelined behind it waits in the connection's queue: the scrape shows the produce in the
    Produce purgatory, then the Metadata request's queue time. The request clock is a manual
    one, so the times are exact (set by the test, not measured)."""

    async def scenario():
        b = Broker(metrics_config(tmp_path))
        clock = FakeClock()
        b.metrics.requests.clock = clock  # before start: the handlers are wrapped with it
        await b.start()
        reader, writer = await asyncio.open_connection(*b.server.bound[0])
        try:
            me = b.broker_id
            b.controller.create_topic("t", 1, {})
            b.replica_manager.on_topics_changed(
                {}, [PartitionState("t", 0, me, 1, (me, FOLLOWER), (me, FOLLOWER))]
            )
            h = Harness(b, reader, writer)
            await h.send(_produce(1, 0), _frame(MetadataRequest(topics=[]), METADATA_VERSION, 2))
            await _until(lambda: len(b.replica_manager.produce_purgatory) == 1)
            got = await asyncio.to_thread(scrape, *b.metrics.bound)
            name = "kafka_server_delayedoperationpurgatory_purgatorysize"
            assert value(got[name], name, delayedOperation="Produce") == 1
            assert value(got[name], name, delayedOperation="Fetch") == 0
            assert value(got[name], name, delayedOperation="ElectLeader") == 0
            name = "kafka_server_delayedoperationpurgatory_numdelayedoperations"
            assert value(got[name], name, delayedOperation="Produce") == 1
            clock.now += 5.0  # the follower catches up 5 s later
            h.follower_fetched(0)
            assert await _read_produce(reader) == (1, 0, 0)
            correlation_id, _ = await _read_answer(reader, MetadataResponse, METADATA_VERSION)
            assert correlation_id == 2
            got = await asyncio.to_thread(scrape, *b.metrics.bound)
            name = "kafka_server_delayedoperationpurgatory_purgatorysize"
            assert value(got[name], name, delayedOperation="Produce") == 0
            queue = got["kafka_network_requestmetrics_requestqueuetimems"]
            qname = "kafka_network_requestmetrics_requestqueuetimems"
            assert value(queue, qname + "_count", request="Metadata") == 1
            assert value(queue, qname + "_sum", request="Metadata") == 5000.0  # behind the produce
            assert value(queue, qname + "_count", request="Produce") == 1
            assert value(queue, qname + "_sum", request="Produce") == 0.0  # handled as it came
            remote = got["kafka_network_requestmetrics_remotetimems"]
            assert value(remote, "kafka_network_requestmetrics_remotetimems_sum", request="Produce") == 5000.0
            total = got["kafka_network_requestmetrics_totaltimems"]
            assert value(total, "kafka_network_requestmetrics_totaltimems_sum", request="Metadata") == 5000.0
        finally:
            writer.close()
            await b.stop()

    asyncio.run(scenario())


def test_log_loading_can_be_watched_while_it_runs(tmp_path, monkeypatch):
    lm = LogManager([tmp_path], resolve_topic_defaults({}))
    lm.startup()
    lm.create_topic("t", 3, uuid.uuid4(), {})
    lm.shutdown()
    gate = threading.Event()
    loaded: list = []
    register = LogManager._register

    def register_then_hold(self, plog):
        register(self, plog)
        loaded.append(plog)
        if len(loaded) == 1:
            gate.wait(60)  # the loading thread holds after its first log

    monkeypatch.setattr(LogManager, "_register", register_then_hold)
    gauge = "kafka_log_logmanager_remaininglogstorecover"

    async def scenario():
        b = Broker(metrics_config(tmp_path))
        starting = asyncio.create_task(b.start())
        try:
            deadline = time.monotonic() + 60
            while not loaded:
                assert time.monotonic() < deadline and not starting.done()
                await asyncio.sleep(0.01)
            during = await asyncio.to_thread(scrape, *b.metrics.bound)
            assert value(during[gauge], gauge, dir=str(tmp_path)) == 3  # none counted done yet
            assert "kafka_log_log_size" not in during  # the partitions are not hosted yet
            gate.set()
            await starting
            after = await asyncio.to_thread(scrape, *b.metrics.bound)
            assert value(after[gauge], gauge, dir=str(tmp_path)) == 0
            assert len(after["kafka_log_log_size"]) == 3
        finally:
            gate.set()
            with contextlib.suppress(Exception):
                await starting
            await b.stop()

    asyncio.run(scenario())


def test_without_the_port_nothing_is_served_or_wrapped(tmp_path):
    async def scenario():
        b = Broker(BrokerConfig({"log.dirs": str(tmp_path), "listeners": "PLAINTEXT://127.0.0.1:0"}))
        await b.start()
        try:
            assert b.metrics.endpoint is None and b.metrics.bound is None
            assert all(spec.fn is REGISTRY[key].fn for key, spec in b.server.handlers.items())
        finally:
            await b.stop()

    asyncio.run(scenario())


def test_a_port_in_use_stops_the_start_with_a_config_error(tmp_path):
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]

    async def scenario():
        b = Broker(
            BrokerConfig(
                {
                    "log.dirs": str(tmp_path),
                    "listeners": "PLAINTEXT://127.0.0.1:0",
                    "metrics.prometheus.port": str(port),
                }
            )
        )
        try:
            with pytest.raises(ConfigError, match=r"metrics\.prometheus\.port"):
                await b.start()
        finally:
            await b.stop()

    try:
        asyncio.run(scenario())
    finally:
        taken.close()


def test_a_reassignment_adding_the_preferred_replica_is_imbalanced_once_it_joins_the_isr():
    """Kafka's ``ControllerContext.hasPreferredLeader``: while a reassignment adds the preferred
    (first) replica the partition counts as balanced until that replica is in the ISR
    ("reassigning partitions are not counted as imbalanced until the new replica joins the
    ISR"); in the ISR and not yet leading, it is imbalanced."""

    def imbalance(isr: tuple[int, ...]) -> int:
        ctx = ControllerContext()
        ctx.brokers = {b: zd.BrokerInfo(b, ()) for b in (0, 1, 2)}
        # [0, 1] moving to [2, 0]: the full set is [2, 0, 1], 2 being added, 1 removed.
        ctx.assignments = {"t": {0: (2, 0, 1)}}
        ctx.adding_removing = {("t", 0): ((2,), (1,))}
        ctx.being_reassigned = {("t", 0)}
        ctx.states = {("t", 0): zd.LeaderIsrAndEpoch(0, 1, isr, 1)}  # led by 0 throughout
        return asyncio.run(zk_controller_gauges(FakeZkController(ctx))).preferred_replica_imbalance

    assert imbalance((0, 1)) == 0  # 2 still catching up
    assert imbalance((0, 1, 2)) == 1  # 2 in the ISR, 0 still leads
