"""The data source against what a Kafka consumer (and Spark's Kafka
source over a Kafka broker) would read. Each test calls the planner / reader directly."""

from __future__ import annotations

import os
from pathlib import Path

from spark_jobs.log_files import LogDirs
from spark_jobs.options import parse_options
from spark_jobs.planner import plan_batch
from spark_jobs.range_reader import read_range
from storage.log_config import LogConfig
from tests.spark.crafted_logs import Batch, arrow_rows, set_high_watermarks, write_partition

T0 = 1_700_000_000_000
TOPIC = "t"


def _read(opts: dict, dirs: LogDirs | None = None):
    ro = parse_options(opts, streaming=False)
    plan = plan_batch(ro, dirs)
    rows = []
    for r in plan.reads:
        rows.extend(arrow_rows(read_range(r, fail_on_data_loss=ro.fail_on_data_loss)))
    return plan, rows


def _open_txn_log(log_dir: Path):
    """Offsets 0..4 plain (ts T0+i), 5 a transactional batch still open (ts T0+5), then 6..9
    plain records of another producer with late timestamps (T0+10_000+i). HW = 10, LSO = 5."""
    batches = [Batch([(b"k", b"plain %d" % i)], [T0 + i]) for i in range(5)]
    batches.append(
        Batch(
            [(b"tx", b"open")],
            [T0 + 5],
            producer_id=77,
            producer_epoch=0,
            base_sequence=0,
            transactional=True,
        )
    )
    batches += [Batch([(b"k", b"late %d" % i)], [T0 + 10_000 + i]) for i in range(4)]
    written = write_partition(log_dir, TOPIC, 0, batches)
    set_high_watermarks(log_dir, {(TOPIC, 0): written.log_end_offset})
    pf = LogDirs.scan([log_dir]).partitions[(TOPIC, 0)]
    assert (pf.high_watermark, pf.last_stable_offset) == (10, 5)
    return written


def test_starting_timestamp_without_match_starts_at_lso_under_read_committed(tmp_path):
    """Spark's KafkaOffsetReaderAdmin.readTimestampOffsets: no offset for the timestamp and
    startingOffsetsByTimestampStrategy=latest -> KafkaOffsetRangeLimit.LATEST, resolved by
    ListOffsets(latest, ListOffsetsOptions(isolationLevel)): the LSO under read_committed
    (Partition.fetchOffsetForTimestamp's lastFetchableOffset). The partition then reads
    nothing; the query does not fail."""
    _open_txn_log(tmp_path)
    opts = {
        "path": str(tmp_path),
        "topics": TOPIC,
        "startingTimestamp": str(T0 + 99_999),  # later than every record
        "startingOffsetsByTimestampStrategy": "latest",
    }
    plan, rows = _read(opts)
    assert [(p.from_offset, p.until_offset) for p in plan.partitions] == [(5, 5)]
    assert rows == []


def test_timestamp_match_at_or_past_lso_is_no_match_under_read_committed(tmp_path):
    """Kafka's ReplicaManager.fetchOffsetForTimestamp: with read_committed a timestamp lookup
    whose offset is >= the last stable offset (Partition.fetchOffsetForTimestamp's
    lastFetchableOffset) answers no offset; Spark's readTimestampOffsets then uses LATEST (the
    LSO) with strategy latest. The match at offset 6 (past LSO 5) must not become a start."""
    _open_txn_log(tmp_path)
    opts = {
        "path": str(tmp_path),
        "topics": TOPIC,
        "startingTimestamp": str(T0 + 10_000),  # first matched by offset 6, past the LSO
        "startingOffsetsByTimestampStrategy": "latest",
    }
    plan, rows = _read(opts)
    assert [(p.from_offset, p.until_offset) for p in plan.partitions] == [(5, 5)]
    assert rows == []


def test_zero_filled_tail_after_the_high_watermark_is_not_read(tmp_path):
    """Kafka's LocalLog.read bounds a fetch by the high watermark's position (maxPosition):
    bytes past the last batch below the HW are never parsed, and LogSegment.recover treats a
    zero-filled tail (a crash before the data blocks reached disk) as a torn tail. The data
    source promises the same ("a crash's torn tail ends at the last whole batch")."""
    written = write_partition(tmp_path, TOPIC, 0, [Batch([(b"k", b"v%d" % i)], [T0 + i]) for i in range(5)])
    set_high_watermarks(tmp_path, {(TOPIC, 0): written.log_end_offset})
    seg = sorted(written.directory.glob("*.log"))[-1]
    with open(seg, "ab") as f:
        f.write(bytes(4096))  # the file grew, the appended batch never reached the disk
    for isolation in ("read_uncommitted", "read_committed"):
        _plan, rows = _read({"path": str(tmp_path), "topics": TOPIC, "isolationLevel": isolation})
        assert [r.offset for r in rows] == [0, 1, 2, 3, 4]


def test_segment_compacted_between_planning_and_reading(tmp_path):
    """A Kafka consumer reads by offset, so a cleaner swap (LocalLog.replaceSegments: the
    cleaned segment takes the first replaced segment's base offset and file name) between
    two fetches only makes superseded records disappear; it never yields a
    CorruptRecordException. The data source plans byte positions of <base>.log on the driver
    and its executors open <base>.log by name later: after a swap those positions belong to
    another file. Here (failOnDataLoss=false, so only real damage may fail) the read must give
    the cleaned segment's records, as a consumer reading after the swap would (read at the
    old file's positions, records 8 and 9 would be silently dropped as a "truncated" file with
    failOnDataLoss=false, and fail the query with it true)."""
    cfg = LogConfig(segment_bytes=100_000, index_interval_bytes=1)
    # Keys repeat: k0..k4 twice, values of different sizes so batch positions differ.
    batches = [Batch([(b"k%d" % (i % 5), b"x" * (10 + 37 * i))], [T0 + i]) for i in range(10)]
    written = write_partition(tmp_path, TOPIC, 0, batches, config=cfg)
    # Roll so segment 0 is not the active one.
    from storage.partition_log import PartitionLog

    plog = PartitionLog(written.directory, cfg)
    plog.roll()
    plog.close()
    set_high_watermarks(tmp_path, {(TOPIC, 0): written.log_end_offset})
    seg = written.directory / "00000000000000000000.log"
    data = seg.read_bytes()
    opts = {
        "path": str(tmp_path),
        "topics": TOPIC,
        "failOnDataLoss": "false",
        "maxBytesPerPartition": str(len(data) // 3),
    }
    ro = parse_options(opts, streaming=False)
    plan = plan_batch(ro)
    assert len(plan.reads) >= 2
    # The cleaner keeps the latest record of each key: offsets 5..9 (a cleaned segment is
    # the retained batches, copied whole, under the same base offset's name).
    from spark_jobs.log_files import iter_batch_bounds

    fd = os.open(seg, os.O_RDONLY)
    try:
        bounds = list(iter_batch_bounds(fd, 0, len(data), seg))
    finally:
        os.close(fd)
    kept = b"".join(data[b.position : b.position + b.size] for b in bounds if b.base_offset >= 5)
    cleaned = seg.with_name(seg.name + ".cleaned")
    cleaned.write_bytes(kept)
    os.replace(cleaned, seg)
    rows = []
    for r in plan.reads:
        rows.extend(arrow_rows(read_range(r, fail_on_data_loss=False)))
    assert sorted(r.offset for r in rows) == [5, 6, 7, 8, 9]


def test_timestamp_lookup_matches_transaction_markers_as_kafka_does(tmp_path):
    """Kafka's FileRecords.searchForTimestamp (LogSegment.findOffsetByTimestamp, ListOffsets by
    timestamp) looks at every batch, control batches included: a COMMIT marker whose
    timestamp is at or after the target is the answer. Spark's Kafka source then uses that
    offset. Here: 0 transactional record (ts T0+1000), 1 COMMIT marker (ts T0+5000), 2 plain
    record appended after the commit with an earlier CreateTime (T0+2000). Timestamp T0+4000
    resolves to offset 1: endingTimestamp reads only offset 0, startingTimestamp reads offset 2."""
    from tests.spark.crafted_logs import COMMIT, control_batch

    batches = [
        Batch(
            [(b"tx", b"committed")],
            [T0 + 1000],
            producer_id=5,
            producer_epoch=0,
            base_sequence=0,
            transactional=True,
        ),
        control_batch(5, 0, COMMIT, T0 + 5000),
        Batch([(b"k", b"plain")], [T0 + 2000]),
    ]
    written = write_partition(tmp_path, TOPIC, 0, batches)
    set_high_watermarks(tmp_path, {(TOPIC, 0): written.log_end_offset})
    base = {"path": str(tmp_path), "topics": TOPIC}
    plan, rows = _read({**base, "endingTimestamp": str(T0 + 4000)})
    assert [(p.from_offset, p.until_offset) for p in plan.partitions] == [(0, 1)]
    assert [r.offset for r in rows] == [0]
    plan, rows = _read({**base, "startingTimestamp": str(T0 + 4000)})
    assert [r.offset for r in rows] == [2]
