"""The data source over the log dirs of a replicated cluster (``brokerLogDirs``).

A real 3-broker ZooKeeper-mode cluster, replication factor 3; confluent-kafka produces
idempotently with acks=all. Topic ``synced`` is fully replicated when the brokers stop;
topic ``lagging`` had one follower stopped before its last records (the ISR shrank
without it), so that follower's copy and checkpointed high watermark stop earlier. Every
broker is stopped cleanly, so every copy's high watermark is in its log dir's
``replication-offset-checkpoint``. Spark then reads over the three brokers' log dirs and
must return each record once, from the copy with the highest high watermark.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from spark_jobs.audit import audit, is_clean
from spark_jobs.job_cli import add_source_arguments, source_options
from spark_jobs.log_files import LogDirs, LogReadError
from spark_jobs.options import OptionError, parse_options
from spark_jobs.planner import plan_batch
from storage.checkpoints import HIGH_WATERMARK_CHECKPOINT, OffsetCheckpointFile
from tests.spark.crafted_logs import set_high_watermarks
from tests.support.cluster import Cluster

pytestmark = [pytest.mark.spark, pytest.mark.integration]

confluent_kafka = pytest.importorskip("confluent_kafka")

SYNCED = 300  # records of "synced" (2 partitions)
BEFORE_STOP = 200  # records of "lagging" every replica holds
AFTER_STOP = 100  # records of "lagging" produced after one follower stopped


def wait_until(condition: Callable[[], Any], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"no {what} within {timeout} s"
        time.sleep(0.05)


def partition_view(cluster: Cluster, i: int, topic: str, partition: int) -> tuple | None:
    """(leader, ISR, log end offset, high watermark) of broker i's replica."""

    def look() -> tuple | None:
        p = cluster.broker(i).replica_manager.get_partition(topic, partition)
        if p is None:
            return None
        return p.leader_id, tuple(sorted(p.isr)), p.log.log_end_offset, p.log.high_watermark

    return cluster.run(look)


def in_sync(cluster: Cluster, topic: str, partition: int, end: int) -> bool:
    """Every replica has ``end`` as its log end offset and its high watermark."""
    views = [partition_view(cluster, i, topic, partition) for i in range(cluster.n)]
    return all(v is not None and v[2] == v[3] == end for v in views)


def produce(cluster: Cluster, topic: str, values: list[tuple[int, bytes]]) -> None:
    producer = confluent_kafka.Producer(
        {"bootstrap.servers": cluster.bootstrap, "acks": "all", "enable.idempotence": True, "linger.ms": 5}
    )
    errors: list[Any] = []

    def report(err: Any, _msg: Any) -> None:
        if err is not None:
            errors.append(err)

    for partition, value in values:
        producer.produce(topic, value=value, partition=partition, on_delivery=report)
        producer.poll(0)
    assert producer.flush(120) == 0
    assert not errors, errors


def checkpointed_hw(log_dir: Path, topic: str, partition: int) -> int:
    return OffsetCheckpointFile(log_dir / HIGH_WATERMARK_CHECKPOINT).read()[(topic, partition)]


@pytest.fixture(scope="module")
def replicated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from confluent_kafka.admin import AdminClient, NewTopic

    base = tmp_path_factory.mktemp("replicated")
    overrides = {
        "offsets.topic.num.partitions": "1",
        "replica.lag.time.max.ms": "2000",
        "replica.fetch.backoff.ms": "200",
    }
    with Cluster(3, zookeeper=True, base_dir=base, overrides=overrides) as cluster:
        wait_until(
            lambda: cluster.run(
                lambda: all(
                    c.controller_id >= 0 and len(c.get_alive_brokers()) == cluster.n
                    for c in (cluster.broker(i).metadata_cache for i in range(cluster.n))
                )
            ),
            "every broker knowing the controller and its peers",
        )
        admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
        futures = admin.create_topics(
            [NewTopic("synced", 2, 3), NewTopic("lagging", 1, 3, config={"min.insync.replicas": "1"})],
            operation_timeout=30,
            request_timeout=40,
        )
        for future in futures.values():
            future.result(60)
        synced = [(i % 2, f"synced {i}".encode()) for i in range(SYNCED)]
        lagging = [(0, f"lagging {i}".encode()) for i in range(BEFORE_STOP + AFTER_STOP)]
        produce(cluster, "synced", synced)
        produce(cluster, "lagging", lagging[:BEFORE_STOP])
        for p in (0, 1):
            wait_until(lambda p=p: in_sync(cluster, "synced", p, SYNCED // 2), f"synced-{p} in sync")
        wait_until(lambda: in_sync(cluster, "lagging", 0, BEFORE_STOP), "lagging-0 in sync")

        leader = partition_view(cluster, 0, "lagging", 0)[0]  # type: ignore[index]
        lagger = next(i for i in range(cluster.n) if i != leader)
        cluster.stop(lagger)
        # acks=all completes once the leader has dropped the stopped follower from the ISR.
        produce(cluster, "lagging", lagging[BEFORE_STOP:])
        for i in range(cluster.n):
            if cluster.alive(i):
                cluster.stop(i)
        dirs = [cluster.log_dir(i) for i in range(cluster.n)]
    return {"dirs": dirs, "lagger": lagger, "leader": leader, "synced": synced, "lagging": lagging}


def broker_dirs(replicated: dict[str, Any], first: int | None = None) -> str:
    """``brokerLogDirs`` for the three brokers, broker ``first`` first."""
    order = list(range(len(replicated["dirs"])))
    if first is not None:
        order.remove(first)
        order.insert(0, first)
    return ";".join(str(replicated["dirs"][i]) for i in order)


# ---------------------------------------------------------------------- choice of the replica


def test_the_lagging_followers_copy_has_a_lower_checkpointed_high_watermark(replicated):
    dirs, lagger, leader = replicated["dirs"], replicated["lagger"], replicated["leader"]
    assert checkpointed_hw(dirs[lagger], "lagging", 0) == BEFORE_STOP
    assert checkpointed_hw(dirs[leader], "lagging", 0) == BEFORE_STOP + AFTER_STOP


def test_the_plan_reads_each_partition_from_the_copy_with_the_highest_high_watermark(replicated):
    dirs, lagger = replicated["dirs"], replicated["lagger"]
    plan = plan_batch(
        parse_options({"brokerLogDirs": broker_dirs(replicated, first=lagger)}, streaming=False)
    )
    ranges = {(r.topic, r.partition): r for r in plan.partitions}
    assert set(ranges) == {("synced", 0), ("synced", 1), ("lagging", 0)}
    assert ranges[("lagging", 0)].until_offset == BEFORE_STOP + AFTER_STOP
    lagging_paths = {Path(r.path).parent.parent for r in plan.reads if r.topic == "lagging"}
    assert lagging_paths and dirs[lagger] not in lagging_paths
    # every copy of "synced" has the same high watermark: the first broker's is read
    synced_paths = {Path(r.path).parent.parent for r in plan.reads if r.topic == "synced"}
    assert synced_paths == {dirs[lagger]}
    assert ranges[("synced", 0)].until_offset == ranges[("synced", 1)].until_offset == SYNCED // 2


def test_a_lower_checkpointed_high_watermark_loses_even_when_listed_first(tmp_path, replicated):
    """Simulated lag: only the checkpoint of one copy is lowered; that copy is never read."""
    dirs = replicated["dirs"]
    lowered = LogDirs.scan([dirs[0]])
    copy = tmp_path / "copy"
    shutil.copytree(dirs[0], copy)
    set_high_watermarks(copy, {("synced", 1): 10})
    chosen = LogDirs.scan_brokers([[copy], [dirs[1]], [dirs[2]]]).partitions[("synced", 1)]
    assert chosen.directory.parent == dirs[1]
    assert chosen.high_watermark == lowered.partitions[("synced", 1)].high_watermark == SYNCED // 2
    # alone, the lowered copy is read only up to its own high watermark
    alone = plan_batch(parse_options({"logDirs": str(copy), "topics": "synced"}, streaming=False))
    assert {(r.partition, r.until_offset) for r in alone.partitions} == {(0, SYNCED // 2), (1, 10)}


def test_one_brokers_log_dirs_still_refuse_a_partition_in_two_dirs(replicated):
    dirs = [str(d) for d in replicated["dirs"]]
    with pytest.raises(LogReadError, match="two log dirs"):
        plan_batch(parse_options({"logDirs": ",".join(dirs)}, streaming=False))
    with pytest.raises(LogReadError, match="two log dirs"):
        LogDirs.scan_brokers([[dirs[0], dirs[1]], [dirs[2]]])


def test_broker_log_dirs_option_rules():
    opts = parse_options({"brokerLogDirs": "/a,/b; /c ;;/d"}, streaming=False)
    assert opts.broker_log_dirs == (("/a", "/b"), ("/c",), ("/d",))
    assert opts.log_dirs == ("/a", "/b", "/c", "/d")
    assert parse_options({"logDirs": "/a,/b"}, streaming=False).broker_log_dirs == (("/a", "/b"),)
    with pytest.raises(OptionError, match="not both"):
        parse_options({"brokerLogDirs": "/a;/b", "logDirs": "/c"}, streaming=False)
    with pytest.raises(OptionError, match="twice"):
        parse_options({"brokerLogDirs": "/a;/b,/a"}, streaming=False)
    with pytest.raises(OptionError, match="empty"):
        parse_options({"brokerLogDirs": " ; "}, streaming=False)


def test_the_jobs_brokers_flag_maps_to_broker_log_dirs():
    import argparse

    parser = argparse.ArgumentParser()
    add_source_arguments(parser)
    args = parser.parse_args(["--brokers", "/b0/a,/b0/b", "/b1", "/b2"])
    assert source_options(args)["brokerLogDirs"] == "/b0/a,/b0/b;/b1;/b2"
    assert source_options(parser.parse_args(["/a", "/b"])) == {"logDirs": "/a,/b"}


# ---------------------------------------------------------------------- through Spark


def test_spark_returns_each_record_once_over_three_brokers(spark, replicated):
    rows = (
        spark.read.format("moldau")
        .option("brokerLogDirs", broker_dirs(replicated))
        .option("topics", "synced")
        .load()
        .select("partition", "offset", "value")
        .collect()
    )
    got = sorted((r.partition, r.offset, bytes(r.value)) for r in rows)
    expected = sorted(
        (p, i // 2, value) for i, (p, value) in enumerate(replicated["synced"])
    )  # alternate partitions: record i is offset i // 2 of partition i % 2
    assert got == expected


def test_spark_reads_every_record_once_from_the_best_copy_past_a_lagging_follower(spark, replicated):
    options = {"brokerLogDirs": broker_dirs(replicated, first=replicated["lagger"]), "topics": "lagging"}
    rows = spark.read.format("moldau").options(**options).load().select("offset", "value").collect()
    got = sorted((r.offset, bytes(r.value)) for r in rows)
    assert got == [(i, value) for i, (_, value) in enumerate(replicated["lagging"])]

    result = audit(spark, options)
    assert is_clean(result), result["anomalies"]
    assert result["totals"]["records"] == BEFORE_STOP + AFTER_STOP
    assert result["totals"]["partitions"] == 1
