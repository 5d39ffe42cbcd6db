"""format("moldau") in Spark local[2]: batch reads, options, input partitions, streaming."""

from __future__ import annotations

import json
import threading
import time

import pytest

from spark_jobs.datasource import SCHEMA
from tests.spark.conftest import T0
from tests.spark.crafted_logs import Batch, rows_of, set_high_watermarks, write_partition

pytestmark = pytest.mark.spark


def read(spark, path, **options):
    return spark.read.format("moldau").options(**options).load(path)


def test_schema_is_kafkas_plus_producer_fields(spark, crafted):
    df = read(spark, crafted["dirs"])
    assert df.schema == SCHEMA
    assert [f.name for f in df.schema.fields] == [
        "key",
        "value",
        "topic",
        "partition",
        "offset",
        "timestamp",
        "timestampType",
        "headers",
        "producerId",
        "producerEpoch",
        "sequence",
    ]
    assert df.schema["headers"].dataType.simpleString() == "array<struct<key:string,value:binary>>"
    assert df.schema["producerEpoch"].dataType.simpleString() == "smallint"


def test_reads_every_committed_record_of_several_log_dirs(spark, crafted):
    df = read(spark, crafted["dirs"])
    expected = crafted["mixed0"].rows + crafted["mixed1"].rows + crafted["other"].rows
    assert rows_of(df.collect()) == sorted(expected, key=lambda r: (r.topic, r.partition, r.offset))
    # one input partition per segment (several segments in mixed-0), not one per topic-partition
    segments = len(list(crafted["mixed0"].directory.glob("*.log")))
    assert df.rdd.getNumPartitions() >= segments + 2


def test_log_dirs_as_option_and_comma_list(spark, crafted):
    by_option = spark.read.format("moldau").option("logDirs", ",".join(crafted["dirs"])).load()
    by_path = read(spark, ",".join(crafted["dirs"]))
    assert (
        by_option.count()
        == by_path.count()
        == len(crafted["mixed0"].rows + crafted["mixed1"].rows + crafted["other"].rows)
    )


def test_offset_ranges_select_exactly_the_expected_rows(spark, crafted):
    rows = crafted["mixed0"].rows
    offsets = [r.offset for r in rows]
    start, end = offsets[41], offsets[170]
    df = read(
        spark,
        crafted["dirs"],
        topics="mixed",
        startingOffsets=json.dumps({"mixed": {"0": start, "1": -2}}),
        endingOffsets=json.dumps({"mixed": {"0": end, "1": 12}}),
    )
    got = rows_of(df.collect())
    want = [r for r in rows if start <= r.offset < end] + [r for r in crafted["mixed1"].rows if r.offset < 12]
    assert got == sorted(want, key=lambda r: (r.topic, r.partition, r.offset))


def test_timestamp_range_selects_exactly_the_expected_rows(spark, crafted):
    rows = crafted["mixed0"].rows
    df = read(
        spark,
        crafted["dirs"][0],
        topics="mixed",
        partitions="0",
        startingTimestamp=str(T0 + 12_000),
        endingTimestamp=str(T0 + 15_500),
    )
    first = min(r.offset for r in rows if r.timestamp >= T0 + 12_000)
    stop = min(r.offset for r in rows if r.timestamp >= T0 + 15_500)
    assert rows_of(df.collect()) == [r for r in rows if first <= r.offset < stop]


def test_topic_pattern_assign_and_internal_topics(spark, crafted):
    assert {
        r.topic for r in read(spark, crafted["dirs"], topicPattern="oth.*").select("topic").collect()
    } == {"other"}
    assigned = read(spark, crafted["dirs"], assign='{"mixed":[1]}').collect()
    assert {(r.topic, r.partition) for r in assigned} == {("mixed", 1)}
    assert read(spark, crafted["dirs"][0], topics="__internal").count() == 1
    assert read(spark, crafted["dirs"][0]).where("topic = '__internal'").count() == 0


def test_nothing_to_read_gives_an_empty_frame(spark, crafted):
    df = read(spark, crafted["dirs"][0], topics="no-such-topic")
    assert df.count() == 0
    assert df.schema == SCHEMA


def test_bad_option_fails_the_query_with_its_message(spark, crafted):
    with pytest.raises(Exception, match="can't be latest for batch"):
        read(spark, crafted["dirs"], startingOffsets="latest").collect()


def test_streaming_follows_the_high_watermark_exactly_once(spark, tmp_path):
    """Records appended (and committed by moving the high watermark) while the query runs
    all arrive once; an uncommitted tail is not read until it is committed."""
    log_dir = tmp_path / "logs"
    log_dir.mkdir()
    first = write_partition(log_dir, "s", 0, [Batch([(b"k", b"early-%d" % i)], [T0]) for i in range(5)])
    set_high_watermarks(log_dir, {("s", 0): first.log_end_offset})

    seen: list[tuple[int, int, bytes]] = []
    cond = threading.Condition()

    def collect(batch_df, batch_id):
        got = [
            (r.partition, r.offset, bytes(r.value))
            for r in batch_df.select("partition", "offset", "value").collect()
        ]
        with cond:
            seen.extend(got)
            cond.notify_all()

    def wait_for(n, timeout=120.0):
        deadline = time.monotonic() + timeout
        with cond:
            while len(seen) < n:
                left = deadline - time.monotonic()
                assert left > 0, f"only {len(seen)} of {n} records arrived: {sorted(seen)[-5:]}"
                cond.wait(left)

    query = (
        spark.readStream.format("moldau")
        .option("startingOffsets", "earliest")
        .load(str(log_dir))
        .writeStream.foreachBatch(collect)
        .trigger(processingTime="200 milliseconds")
        .start()
    )
    try:
        wait_for(5)
        expected = [(0, i, b"early-%d" % i) for i in range(5)]
        pending = None
        for round_ in range(3):
            written = write_partition(
                log_dir, "s", 0, [Batch([(b"k", b"r%d-%d" % (round_, i))], [T0]) for i in range(4)]
            )
            # A second partition appears mid-stream: read from its earliest offset.
            if round_ == 1:
                p1 = write_partition(log_dir, "s", 1, [Batch([(None, b"p1-%d" % i)], [T0]) for i in range(3)])
                set_high_watermarks(log_dir, {("s", 1): p1.log_end_offset})
                expected += [(1, i, b"p1-%d" % i) for i in range(3)]
            # the last batch stays uncommitted until the next round
            set_high_watermarks(log_dir, {("s", 0): written.log_end_offset - 1})
            expected += [(0, r.offset, r.value) for r in written.rows[:-1]]
            if pending is not None:
                expected.append(pending)
            pending = (0, written.rows[-1].offset, written.rows[-1].value)
            wait_for(len(expected))
        assert pending is not None
        set_high_watermarks(log_dir, {("s", 0): pending[1] + 1})
        expected.append(pending)
        wait_for(len(expected))
        query.processAllAvailable()
    finally:
        query.stop()
    assert sorted(seen) == sorted(expected)
    assert len(seen) == len(set(seen)), "a record arrived twice"


def test_available_now_with_a_rate_limit_reads_everything_once(spark, crafted):
    query = (
        spark.readStream.format("moldau")
        .option("logDirs", ",".join(crafted["dirs"]))
        .option("startingOffsets", "earliest")
        .option("maxOffsetsPerTrigger", "100")
        .load()
        .writeStream.format("memory")
        .queryName("moldau_available_now")
        .trigger(availableNow=True)
        .start()
    )
    assert query.awaitTermination(300), "the availableNow query did not finish"
    got = rows_of(spark.sql("select * from moldau_available_now").collect())
    expected = crafted["mixed0"].rows + crafted["mixed1"].rows + crafted["other"].rows
    assert got == sorted(expected, key=lambda r: (r.topic, r.partition, r.offset))
    assert len(query.recentProgress) > 3  # several micro-batches of at most 100 offsets
