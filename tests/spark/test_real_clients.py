"""The data source and the jobs over logs written through a running broker by real clients.

The Java client (kafka-clients 4.3) produces with lz4 and zstd, confluent-kafka
(librdkafka) with snappy and gzip (with headers and chosen timestamps), all idempotent.
Spark reads the broker's log dir while the broker runs; what it returns must be exactly
what the clients had acknowledged. The last test stops the broker and plants a duplicate
and a sequence gap into a partition through storage, which the audit must find.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from spark_jobs.audit import DUPLICATE, GAP, audit, is_clean
from spark_jobs.export import export
from spark_jobs.topic_stats import topic_stats
from storage.checkpoints import HIGH_WATERMARK_CHECKPOINT, OffsetCheckpointFile
from storage.partition_log import PartitionLog
from storage.producer_state import AppendOrigin
from tests.spark.crafted_logs import set_high_watermarks
from tests.support.broker_process import BrokerProcess
from tests.support.java_client import JavaClient, require_java

pytestmark = [pytest.mark.spark, pytest.mark.integration]

confluent_kafka = pytest.importorskip("confluent_kafka")

SEGMENT_BYTES = 8 * 1024  # several segments per partition
JAVA_COUNT = 3000
CK_COUNT = 2000
VALUE_SIZE = 120


def wait_until(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def checkpointed(log_dir: Path) -> dict[tuple[str, int], int]:
    return OffsetCheckpointFile(log_dir / HIGH_WATERMARK_CHECKPOINT).read()


def wait_committed(log_dir: Path, ends: dict[tuple[str, int], int], timeout: float = 60.0) -> None:
    """Until the broker's checkpointed high watermarks cover every acknowledged offset."""
    wait_until(
        lambda: all(checkpointed(log_dir).get(tp, -1) >= end for tp, end in ends.items()),
        timeout,
        f"high watermarks {ends} in {HIGH_WATERMARK_CHECKPOINT}",
    )


def create_topics(bootstrap: str, names: dict[str, int]) -> None:
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.create_topics(
        [NewTopic(n, p, 1, config={"segment.bytes": str(SEGMENT_BYTES)}) for n, p in names.items()]
    )
    for f in futures.values():
        f.result(30)


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    log_dir = tmp_path_factory.mktemp("broker") / "data"
    b = BrokerProcess(log_dir, {"replica.high.watermark.checkpoint.interval.ms": "200"})
    b.start()
    yield b
    if b.alive():
        b.stop()


def ck_produce(bootstrap: str, topic: str, codec: str, count: int, t_base: int, tag: str) -> list[dict]:
    """confluent-kafka, idempotent: keys, values, headers and timestamps chosen here; returns the acks."""
    producer = confluent_kafka.Producer(
        {
            "bootstrap.servers": bootstrap,
            "enable.idempotence": True,
            "compression.type": codec,
            "linger.ms": 5,
            "batch.num.messages": 100,
        }
    )
    acked: list[dict] = []
    errors: list = []

    def on_delivery(err, msg, headers):
        if err is not None:
            errors.append(err)
            return
        acked.append(
            {
                "partition": msg.partition(),
                "offset": msg.offset(),
                "key": msg.key(),
                "value": msg.value(),
                "headers": tuple(headers) if headers else None,  # delivery reports carry none
                "timestamp": msg.timestamp()[1],
            }
        )

    for i in range(count):
        headers = [("n", str(i).encode()), ("tag", tag.encode())] if i % 3 else None
        producer.produce(
            topic,
            key=None if i % 10 == 0 else f"key-{i % 7}".encode(),
            value=f"{tag} record {i} ".encode() * (1 + i % 5),
            headers=headers,
            timestamp=t_base + i * 10,
            partition=i % 2,
            on_delivery=lambda err, msg, h=headers: on_delivery(err, msg, h),
        )
        producer.poll(0)
    assert producer.flush(60) == 0
    assert not errors, errors[:5]
    return acked


@pytest.fixture(scope="module")
def produced(broker):
    """Produce to four topics (two clients, four codecs) and wait until all of it is committed."""
    java = JavaClient(broker.bootstrap, runtime=require_java())
    create_topics(broker.bootstrap, {"java-lz4": 2, "java-zstd": 2, "ck-snappy": 2, "ck-gzip": 2})
    out: dict[str, list[dict]] = {}
    for topic, codec in (("java-lz4", "lz4"), ("java-zstd", "zstd")):
        result = java.produce(
            topic,
            JAVA_COUNT,
            value_size=VALUE_SIZE,
            keys=16,
            compression=codec,
            instance=topic,
            linger_ms=5,
            print_acks=True,
        )
        assert result.last["ok"], result.last
        out[topic] = [
            {
                "partition": a["partition"],
                "offset": a["offset"],
                "key": f"k{a['key']}".encode(),
                "value": f"m1|{topic}|{a['key']}|{a['seq']}|".encode().ljust(VALUE_SIZE, b"."),
                "headers": None,
            }
            for a in result.events("ack")
        ]
        assert len(out[topic]) == JAVA_COUNT
    t_base = int(time.time() * 1000) - 600_000
    for topic, codec in (("ck-snappy", "snappy"), ("ck-gzip", "gzip")):
        out[topic] = ck_produce(broker.bootstrap, topic, codec, CK_COUNT, t_base, topic)
        assert len(out[topic]) == CK_COUNT
    ends = {}
    for topic, acks in out.items():
        for a in acks:
            tp = (topic, a["partition"])
            ends[tp] = max(ends.get(tp, 0), a["offset"] + 1)
    wait_committed(broker.log_dir, ends)
    return {"acks": out, "t_base": t_base, "ends": ends}


def rows(df, with_ts: bool = False) -> list[dict]:
    out = []
    for r in df.collect():
        d = {
            "partition": r["partition"],
            "offset": r["offset"],
            "key": None if r["key"] is None else bytes(r["key"]),
            "value": bytes(r["value"]),
            "headers": None
            if r["headers"] is None
            else tuple((h["key"], bytes(h["value"])) for h in r["headers"]),
        }
        if with_ts:
            d["timestamp"] = round(r["timestamp"].timestamp() * 1000)
        out.append(d)
    return sorted(out, key=lambda d: (d["partition"], d["offset"]))


def expected(acks: list[dict], with_ts: bool = False) -> list[dict]:
    keys = ["partition", "offset", "key", "value", "headers"] + (["timestamp"] if with_ts else [])
    return sorted(({k: a[k] for k in keys} for a in acks), key=lambda d: (d["partition"], d["offset"]))


@pytest.mark.parametrize("topic", ["java-lz4", "java-zstd", "ck-snappy", "ck-gzip"])
def test_records_match_what_the_clients_produced(spark, broker, produced, topic):
    df = spark.read.format("moldau").option("topics", topic).load(str(broker.log_dir))
    with_ts = topic.startswith("ck-")
    assert rows(df, with_ts) == expected(produced["acks"][topic], with_ts)
    # several segments per partition, one Spark input partition each
    segments = len(list((broker.log_dir / f"{topic}-0").glob("*.log")))
    assert segments > 1
    assert df.rdd.getNumPartitions() >= segments
    producers = df.where("producerId >= 0").select("producerId").distinct().count()
    assert producers == 1  # one idempotent producer per topic


def test_offset_range_selects_exactly_the_expected_rows(spark, broker, produced):
    acks = produced["acks"]["java-zstd"]
    df = (
        spark.read.format("moldau")
        .option("topics", "java-zstd")
        .option("startingOffsets", json.dumps({"java-zstd": {"0": 100, "1": -2}}))
        .option("endingOffsets", json.dumps({"java-zstd": {"0": 1234, "1": 7}}))
        .load(str(broker.log_dir))
    )
    want = [
        a
        for a in acks
        if (a["partition"] == 0 and 100 <= a["offset"] < 1234) or (a["partition"] == 1 and a["offset"] < 7)
    ]
    assert rows(df) == expected(want)


def test_timestamp_range_selects_exactly_the_expected_rows(spark, broker, produced):
    acks = produced["acks"]["ck-snappy"]
    start = produced["t_base"] + 5_005
    end = produced["t_base"] + 12_340
    df = (
        spark.read.format("moldau")
        .option("topics", "ck-snappy")
        .option("startingTimestamp", str(start))
        .option("endingTimestamp", str(end))
        .load(str(broker.log_dir))
    )
    # per partition: from the first record at or after start to the first at or after end
    want = []
    for p in (0, 1):
        mine = sorted((a for a in acks if a["partition"] == p), key=lambda a: a["offset"])
        lo = next(a["offset"] for a in mine if a["timestamp"] >= start)
        hi = next(a["offset"] for a in mine if a["timestamp"] >= end)
        want += [a for a in mine if lo <= a["offset"] < hi]
    got = rows(df, with_ts=True)
    assert got == expected(want, with_ts=True)
    assert got and all(start <= r["timestamp"] < end for r in got)


def test_jobs_over_the_client_logs(spark, broker, produced, tmp_path):
    opts = {"logDirs": str(broker.log_dir), "topics": "java-lz4,java-zstd,ck-snappy,ck-gzip"}
    stats = {(s["topic"], s["partition"]): s for s in topic_stats(spark, opts)}
    for topic, acks in produced["acks"].items():
        for p in (0, 1):
            mine = [a for a in acks if a["partition"] == p]
            s = stats[(topic, p)]
            assert s["records"] == len(mine)
            assert (s["firstOffset"], s["lastOffset"]) == (0, max(a["offset"] for a in mine))
            assert s["producers"] == 1
            assert s["logBytes"] > 0
    result = export(spark, opts, str(tmp_path / "out"))
    assert result["rows"] == sum(len(a) for a in produced["acks"].values())
    back = spark.read.parquet(str(tmp_path / "out")).where("topic = 'ck-gzip'")
    assert rows(back) == expected(produced["acks"]["ck-gzip"])
    clean = audit(spark, opts)
    assert is_clean(clean), clean["anomalies"][:5]
    assert clean["totals"]["records"] == sum(len(a) for a in produced["acks"].values())
    assert clean["totals"]["producers"] == 4


def test_streaming_query_gets_records_produced_while_it_runs_exactly_once(spark, broker, produced):
    create_topics(broker.bootstrap, {"live": 2})
    wait_until(lambda: (broker.log_dir / "live-1").is_dir(), 30, "the live topic's partitions")
    seen: list[tuple[int, int, bytes]] = []
    cond = threading.Condition()

    def sink(batch_df, batch_id):
        got = [
            (r.partition, r.offset, bytes(r.value))
            for r in batch_df.select("partition", "offset", "value").collect()
        ]
        with cond:
            seen.extend(got)
            cond.notify_all()

    query = (
        spark.readStream.format("moldau")
        .option("topics", "live")
        .option("startingOffsets", "earliest")
        .load(str(broker.log_dir))
        .writeStream.foreachBatch(sink)
        .trigger(processingTime="300 milliseconds")
        .start()
    )
    acked: list[tuple[int, int, bytes]] = []
    try:
        producer = confluent_kafka.Producer(
            {"bootstrap.servers": broker.bootstrap, "enable.idempotence": True, "compression.type": "lz4"}
        )

        def on_delivery(err, msg):
            assert err is None, err
            acked.append((msg.partition(), msg.offset(), msg.value()))

        for burst in range(4):
            for i in range(250):
                producer.produce(
                    "live", value=b"burst %d record %d" % (burst, i), partition=i % 2, on_delivery=on_delivery
                )
            assert producer.flush(30) == 0
            # the query picks up each burst once the broker checkpoints its high watermark
            target = len(acked)
            deadline = time.monotonic() + 90
            with cond:
                while len(seen) < target:
                    left = deadline - time.monotonic()
                    assert left > 0, f"only {len(seen)} of {target} records arrived"
                    cond.wait(left)
    finally:
        query.stop()
    assert sorted(seen) == sorted(acked)
    assert len(seen) == len(set(seen)) == 1000


def test_audit_finds_a_planted_duplicate_and_gap(spark, broker, produced):
    """Stop the broker, append through storage a copy of a batch already in the log (same producer
    id, epoch and sequences at new offsets) and a batch that skips two sequences; the audit must
    report exactly those."""
    broker.stop()
    directory = broker.log_dir / "java-lz4-0"
    plog = PartitionLog(directory, _topic_config())
    try:
        last_batch = None
        for _seg, header in plog.iter_headers(0):
            if header.producer_id >= 0:
                last_batch = header
        assert last_batch is not None
        copy = plog.read(last_batch.base_offset, last_batch.size).records[: last_batch.size]
        dup = plog.append_as_leader(memoryview(bytearray(copy)), 0, origin=AppendOrigin.REPLICATION)
        from protocol.records import build_batch

        skipping = build_batch(
            [(b"planted", b"after a gap")],
            producer_id=last_batch.producer_id,
            producer_epoch=last_batch.producer_epoch,
            base_sequence=(last_batch.last_sequence + 3) % (1 << 31),
        )
        gap = plog.append_as_leader(memoryview(bytearray(skipping)), 0, origin=AppendOrigin.REPLICATION)
        end = plog.log_end_offset
    finally:
        plog.close()
    set_high_watermarks(broker.log_dir, {("java-lz4", 0): end})
    result = audit(spark, {"logDirs": str(broker.log_dir), "topics": "java-lz4"}, max_anomalies=100_000)
    found = [(a["kind"], a["partition"], a["offset"]) for a in result["anomalies"]]
    n = last_batch.records_count
    assert found == [(DUPLICATE, 0, dup.base_offset + i) for i in range(n)] + [(GAP, 0, gap.base_offset)]
    t = result["totals"]
    assert (t["duplicates"], t["gaps"], t["missingSequences"]) == (n, 1, 2)


def _topic_config():
    from storage.log_config import LogConfig

    return LogConfig(segment_bytes=SEGMENT_BYTES)
