"""The data source's reading side without Spark: decoding, byte ranges, offsets, options."""

from __future__ import annotations

import itertools
import os
import random
import shutil
import struct

import pytest

from protocol import compression
from protocol.primitives import DecodeError
from protocol.record_batch import HEADER_SIZE, increment_sequence, read_header
from protocol.records import build_batch, decode_batch, records_section
from spark_jobs.arrow_records import ARROW_SCHEMA, RecordColumns
from spark_jobs.log_files import DataLossError, LogDirs, offset_for_timestamp, plan_reads
from spark_jobs.options import OptionError, parse_options
from spark_jobs.planner import plan_batch, rate_limit
from spark_jobs.range_reader import CorruptRecordError, read_range
from storage.checkpoints import LOG_START_OFFSET_CHECKPOINT, OffsetCheckpointFile
from tests.spark.conftest import CODECS, SMALL_SEGMENTS, T0, TXN_ABORTED, TXN_COMMITTED
from tests.spark.crafted_logs import Batch, arrow_rows, set_high_watermarks, write_partition

pytestmark = pytest.mark.spark


def decode_with_columns(raw: bytes, lo: int = 0, hi: int = 1 << 62):
    cols = RecordColumns("t", 3)
    h = read_header(raw)
    cols.add_batch(
        bytes(records_section(raw, h)),
        h.records_count,
        base_offset=h.base_offset,
        base_timestamp=h.base_timestamp,
        max_timestamp=h.max_timestamp,
        log_append_time=h.timestamp_type == 1,
        producer_id=h.producer_id,
        producer_epoch=h.producer_epoch,
        base_sequence=h.base_sequence,
    )
    return cols.take(lo, hi)


# ---------------------------------------------------------------------- decoding


@pytest.mark.parametrize("codec", CODECS, ids=[compression.NAMES[c] for c in CODECS])
def test_arrow_columns_match_the_protocol_decoder(codec):
    rng = random.Random(codec)
    records = []
    for i in range(300):
        key = None if i % 17 == 0 else rng.randbytes(rng.choice([0, 1, 63, 64, 200, 9000]))
        value = None if i % 19 == 0 else rng.randbytes(rng.choice([0, 5, 64, 8191, 70_000]))
        headers = [(f"h{n}é", None if n == 1 else rng.randbytes(n * 40)) for n in range(i % 4)]
        records.append((key, value, headers))
    timestamps = [T0 + rng.randrange(-5000, 5_000_000) for _ in records]  # deltas of every varint size
    raw = build_batch(
        records,
        base_offset=123_456_789,
        compression_type=codec,
        producer_id=77,
        producer_epoch=5,
        base_sequence=2_147_483_500,  # wraps to 0 inside the batch
        timestamps=timestamps,
    )
    batch = decode_with_columns(raw)
    assert batch.schema.equals(ARROW_SCHEMA)
    got = batch.to_pylist()
    expected = decode_batch(raw)
    assert len(got) == len(expected) == 300
    for row, rec, i in zip(got, expected, range(300), strict=True):
        assert row["offset"] == rec.offset == 123_456_789 + i
        assert row["key"] == rec.key
        assert row["value"] == rec.value
        assert round(row["timestamp"].timestamp() * 1000) == rec.timestamp
        assert row["timestampType"] == 0
        # Kafka's source: null headers for a record without any
        assert row["headers"] == ([{"key": k, "value": v} for k, v in rec.headers] or None)
        assert (row["topic"], row["partition"], row["producerId"], row["producerEpoch"]) == ("t", 3, 77, 5)
        assert row["sequence"] == increment_sequence(2_147_483_500, i)
    assert {r["sequence"] for r in got} >= {2_147_483_647, 0, 1}


def test_log_append_time_and_no_producer():
    raw = build_batch([(b"a", b"1"), (b"b", b"2")], timestamps=[T0, T0 + 5], log_append_time=True)
    rows = decode_with_columns(raw).to_pylist()
    assert [round(r["timestamp"].timestamp() * 1000) for r in rows] == [T0 + 5, T0 + 5]
    assert [r["timestampType"] for r in rows] == [1, 1]
    assert [(r["producerId"], r["producerEpoch"], r["sequence"]) for r in rows] == [(-1, -1, -1)] * 2


def test_offset_bounds_cut_straddling_batches():
    raw = build_batch([(None, b"%d" % i) for i in range(10)], base_offset=100, timestamp=T0)
    rows = decode_with_columns(raw, 103, 107).to_pylist()
    assert [r["offset"] for r in rows] == [103, 104, 105, 106]
    assert decode_with_columns(raw, 200, 300) is None


def _section(raw: bytes) -> tuple[bytes, int]:
    return raw[HEADER_SIZE:], read_header(raw).records_count


@pytest.mark.parametrize(
    "damage",
    [
        "count_too_high",
        "count_too_low",
        "truncated",
        "trailing_bytes",
        "negative_key_length",
        "negative_record_length",
        "null_header_key",
        "bad_utf8_header_key",
        "length_mismatch",
    ],
)
def test_malformed_records_raise_decode_error(damage):
    raw = build_batch([(b"key", b"value", [("h", b"v")]), (b"k2", b"v2")], timestamp=T0)
    data, count = _section(raw)
    data = bytearray(data)
    if damage == "count_too_high":
        count += 1
    elif damage == "count_too_low":
        count -= 1
    elif damage == "truncated":
        data = data[:-3]
    elif damage == "trailing_bytes":
        data += b"\x00\x00"
    elif damage == "negative_key_length":
        data[4] = 0x03  # key length -2 (zigzag 3)
    elif damage == "negative_record_length":
        data[0] = 0x03
    elif damage == "null_header_key":
        idx = bytes(data).index(b"value") + 5 + 1  # headers count, then header key length
        data[idx] = 0x01
    elif damage == "bad_utf8_header_key":
        idx = bytes(data).index(b"h\x02v")
        data[idx] = 0xFF
    elif damage == "length_mismatch":
        data[0] += 2
    cols = RecordColumns("t", 0)
    with pytest.raises(DecodeError):
        # framing errors show in add_batch, field errors when the columns are built
        cols.add_batch(
            bytes(data),
            count,
            base_offset=0,
            base_timestamp=T0,
            max_timestamp=T0,
            log_append_time=False,
            producer_id=-1,
            producer_epoch=-1,
            base_sequence=-1,
        )
        cols.take(0, 1 << 62)


def test_random_bytes_never_crash_the_decoder():
    rng = random.Random(11)
    good = _section(build_batch([(b"k%d" % i, b"v" * i, [("h", b"x")]) for i in range(20)], timestamp=T0))[0]
    for _ in range(3000):
        data = bytearray(good)
        for _ in range(rng.randrange(1, 6)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        if rng.random() < 0.3:
            data = data[: rng.randrange(len(data))]
        cols = RecordColumns("t", 0)
        try:
            cols.add_batch(
                bytes(data),
                rng.choice([20, 0, 21, 1000]),
                base_offset=0,
                base_timestamp=T0,
                max_timestamp=T0,
                log_append_time=False,
                producer_id=-1,
                producer_epoch=-1,
                base_sequence=-1,
            )
            cols.take(0, 1 << 62)
        except DecodeError:
            pass


# ---------------------------------------------------------------------- reading log files


def read_all(pf, lo, hi, max_bytes=1 << 30, **kw):
    rows = []
    for r in plan_reads(pf, lo, hi, max_bytes=max_bytes):
        rows.extend(arrow_rows(read_range(r, **kw)))
    return rows


def test_reads_exactly_the_committed_data_rows(crafted, crafted_log_dirs):
    mixed0 = crafted["mixed0"]
    pf = crafted_log_dirs.partitions[("mixed", 0)]
    assert len(pf.segments) >= 4, "the crafted log should span several segments"
    assert pf.high_watermark == mixed0.log_end_offset
    rows = read_all(pf, pf.log_start_offset, pf.high_watermark)
    assert rows == mixed0.rows
    # every codec, the LogAppendTime batch and the committed transaction are in; markers are not
    assert {r.timestamp_type for r in rows} == {0, 1}
    assert any(r.producer_id == TXN_COMMITTED for r in rows)
    assert not any(r.producer_id == TXN_ABORTED for r in rows)


def test_read_uncommitted_keeps_aborted_transactions(crafted_log_dirs):
    pf = crafted_log_dirs.partitions[("mixed", 0)]
    ranges = plan_reads(pf, 0, pf.high_watermark, max_bytes=1 << 30, with_aborted=False)
    rows = [r for rr in ranges for r in arrow_rows(read_range(rr))]
    aborted = [r.value for r in rows if r.producer_id == TXN_ABORTED]
    assert aborted == [b"aborted 0", b"aborted 1"]


def test_high_watermark_bounds_every_read(crafted, crafted_log_dirs):
    pf = crafted_log_dirs.partitions[("mixed", 1)]
    assert pf.high_watermark == 30
    assert read_all(pf, 0, pf.high_watermark) == crafted["mixed1"].rows
    opts = parse_options({"path": crafted["dirs"][0], "topics": "mixed", "partitions": "1"}, streaming=False)
    plan = plan_batch(opts)
    assert [(p.from_offset, p.until_offset) for p in plan.partitions] == [(0, 30)]
    # asking for more than the high watermark still stops there
    opts = parse_options(
        {"path": crafted["dirs"][0], "assign": '{"mixed":[1]}', "endingOffsets": '{"mixed":{"1":45}}'},
        streaming=False,
    )
    assert [(p.from_offset, p.until_offset) for p in plan_batch(opts).partitions] == [(0, 30)]


def test_partition_without_checkpoint_entry_reads_nothing(tmp_path):
    write_partition(tmp_path, "t", 0, [Batch([(b"k", b"v")], [T0])])
    pf = LogDirs.scan([tmp_path]).partitions[("t", 0)]
    assert pf.high_watermark == 0
    assert read_all(pf, 0, pf.high_watermark) == []


def test_byte_ranges_split_at_batch_boundaries_without_loss_or_overlap(crafted, crafted_log_dirs):
    pf = crafted_log_dirs.partitions[("mixed", 0)]
    whole = plan_reads(pf, 0, pf.high_watermark, max_bytes=1 << 30)
    assert len(whole) == len(pf.segments)
    split = plan_reads(pf, 0, pf.high_watermark, max_bytes=700)
    assert len(split) > len(whole)
    for a, b in itertools.pairwise(split):
        if a.path == b.path:
            assert a.end_position == b.start_position
    rows = [r for rr in split for r in arrow_rows(read_range(rr))]
    assert rows == crafted["mixed0"].rows
    # a starting offset inside a segment starts at the batch holding it
    mid = crafted["mixed0"].rows[137].offset
    assert read_all(pf, mid, pf.high_watermark, max_bytes=700) == crafted["mixed0"].rows[137:]


def test_partial_trailing_batch_is_never_read(tmp_path):
    written = write_partition(tmp_path, "t", 0, [Batch([(b"k", b"v%d" % i)], [T0]) for i in range(5)])
    segment = next(written.directory.glob("*.log"))
    half = build_batch([(b"k", b"in flight" * 50)], timestamp=T0, base_offset=5)
    with open(segment, "ab") as f:
        f.write(half[: len(half) // 2])
    # even with a high watermark past it (a log dir copied while its broker ran): the high
    # watermark is clamped to the last whole batch (Kafka's UnifiedLog.updateHighWatermark)
    set_high_watermarks(tmp_path, {("t", 0): 6})
    pf = LogDirs.scan([tmp_path]).partitions[("t", 0)]
    assert pf.high_watermark == 5
    rows = read_all(pf, 0, 6)
    assert [r.value for r in rows] == [b"v%d" % i for i in range(5)]
    # the rest of the batch arrives: now it is read
    with open(segment, "ab") as f:
        f.write(half[len(half) // 2 :])
    assert len(read_all(pf, 0, 6)) == 6
    assert LogDirs.scan([tmp_path]).partitions[("t", 0)].high_watermark == 6


def test_crc_mismatch_is_reported_unless_checks_are_off(tmp_path):
    written = write_partition(tmp_path, "t", 0, [Batch([(b"k", b"value-%d" % i)], [T0]) for i in range(3)])
    set_high_watermarks(tmp_path, {("t", 0): 3})
    segment = next(written.directory.glob("*.log"))
    data = bytearray(segment.read_bytes())
    data[data.index(b"value-1")] ^= 0x01
    segment.write_bytes(bytes(data))
    pf = LogDirs.scan([tmp_path]).partitions[("t", 0)]
    with pytest.raises(CorruptRecordError, match="CRC"):
        read_all(pf, 0, 3)
    assert [r.value for r in read_all(pf, 0, 3, check_crcs=False)] == [b"value-0", b"walue-1", b"value-2"]


def test_segment_deleted_after_planning_is_data_loss(tmp_path):
    write_partition(
        tmp_path, "t", 0, [Batch([(b"k", b"x" * 100)], [T0]) for _ in range(60)], config=SMALL_SEGMENTS
    )
    set_high_watermarks(tmp_path, {("t", 0): 60})
    pf = LogDirs.scan([tmp_path]).partitions[("t", 0)]
    ranges = plan_reads(pf, 0, 60, max_bytes=1 << 30)
    first = ranges[0]
    # retention renames to .deleted first: still readable
    os.rename(first.path, first.path + ".deleted")
    assert len(arrow_rows(read_range(first))) > 0
    os.unlink(first.path + ".deleted")
    with pytest.raises(DataLossError):
        list(read_range(first))
    assert list(read_range(first, fail_on_data_loss=False)) == []


def _swap_in(directory, bases, keep):
    """A cleaner's swap cut after its commit point: ``<bases[0]>.log.swap`` holds the batches
    of the segments ``bases`` that ``keep(n)`` keeps (n counts their batches)."""
    from spark_jobs.log_files import iter_batch_bounds

    kept = bytearray()
    n = 0
    for base in bases:
        data = (directory / f"{base:020d}.log").read_bytes()
        fd = os.open(directory / f"{base:020d}.log", os.O_RDONLY)
        try:
            for b in iter_batch_bounds(fd, 0, len(data), directory / "x"):
                if keep(n):
                    kept += data[b.position : b.position + b.size]
                n += 1
        finally:
            os.close(fd)
    (directory / f"{bases[0]:020d}.log.swap").write_bytes(kept)


def test_a_committed_swap_replaces_the_segments_it_covers(tmp_path):
    """Kafka's LogLoader.removeTempFilesAndCollectSwapFiles, read-only: a .log.swap with no
    .cleaned at or below it is committed and replaces the listed segments in
    [its base, its next offset); with a lower .cleaned (a commit cut halfway, KAFKA-6264) it
    is not, and the old segments are read."""
    written = write_partition(
        tmp_path,
        "t",
        0,
        [Batch([(b"k", b"x" * 400)], [T0]) for _ in range(60)],
        config=SMALL_SEGMENTS,
    )
    set_high_watermarks(tmp_path, {("t", 0): 60})
    bases = LogDirs.scan([tmp_path]).partitions[("t", 0)].segments
    assert len(bases) >= 4
    # segments 1 and 2 cleaned into one, every other batch left out; the old ones still listed
    _swap_in(written.directory, bases[1:3], lambda n: n % 2 == 0)
    pf = LogDirs.scan([tmp_path]).partitions[("t", 0)]
    assert pf.segments == (bases[0], bases[1], *bases[3:])
    cleaned = [o for o in range(bases[1], bases[3]) if (o - bases[1]) % 2 == 0]
    expected = [*range(bases[1]), *cleaned, *range(bases[3], 60)]
    assert [r.offset for r in read_all(pf, 0, 60, max_bytes=700)] == expected
    # a .cleaned at or below the swap: an unfinished commit, the old segments stay
    (written.directory / f"{bases[1]:020d}.index.cleaned").write_bytes(b"")
    pf = LogDirs.scan([tmp_path]).partitions[("t", 0)]
    assert pf.segments == bases
    assert [r.offset for r in read_all(pf, 0, 60)] == list(range(60))


def test_the_largest_log_start_of_any_copy_is_kept(tmp_path):
    """A DeleteRecords every replica applied (Kafka's DelayedDeleteRecords) hides the records
    even when the chosen copy's log-start-offset-checkpoint predates it."""
    dirs = [tmp_path / "b0", tmp_path / "b1"]
    for i, d in enumerate(dirs):
        d.mkdir()
        write_partition(d, "t", 0, [Batch([(b"k", b"%d" % n)], [T0]) for n in range(10)])
        set_high_watermarks(d, {("t", 0): 10 - i})  # b0 is chosen
    OffsetCheckpointFile(dirs[1] / LOG_START_OFFSET_CHECKPOINT).write({("t", 0): 4})
    pf = LogDirs.scan_brokers([[dirs[0]], [dirs[1]]]).partitions[("t", 0)]
    assert (pf.directory.parent, pf.log_start_offset, pf.high_watermark) == (dirs[0], 4, 10)
    assert [r.offset for r in read_all(pf, pf.log_start_offset, pf.high_watermark)] == list(range(4, 10))


def test_log_start_offset_checkpoint_hides_deleted_records(tmp_path):
    write_partition(tmp_path, "t", 0, [Batch([(b"k", b"%d" % i)], [T0]) for i in range(10)])
    set_high_watermarks(tmp_path, {("t", 0): 10})
    OffsetCheckpointFile(tmp_path / LOG_START_OFFSET_CHECKPOINT).write({("t", 0): 4})
    opts = {"path": str(tmp_path)}
    plan = plan_batch(parse_options(opts, streaming=False))
    assert [(p.from_offset, p.until_offset) for p in plan.partitions] == [(4, 10)]
    below = {**opts, "startingOffsets": '{"t":{"0":2}}'}
    with pytest.raises(DataLossError):
        plan_batch(parse_options(below, streaming=False))
    lenient = plan_batch(parse_options({**below, "failOnDataLoss": "false"}, streaming=False))
    assert [(p.from_offset, p.until_offset) for p in lenient.partitions] == [(4, 10)]


def test_corrupt_batch_header_is_an_error_not_a_crash(tmp_path):
    written = write_partition(tmp_path, "t", 0, [Batch([(b"k", b"v")], [T0]) for _ in range(3)])
    set_high_watermarks(tmp_path, {("t", 0): 3})
    segment = next(written.directory.glob("*.log"))
    data = bytearray(segment.read_bytes())
    size = len(data) // 3
    struct.pack_into(">i", data, size + 8, 5)  # second batch: a length no batch can have
    segment.write_bytes(bytes(data))
    pf = LogDirs.scan([tmp_path]).partitions[("t", 0)]
    with pytest.raises(OSError, match="record batch"):
        read_all(pf, 0, 3)


# ---------------------------------------------------------------------- offsets and options


def test_offset_for_timestamp_is_the_first_committed_record_at_or_after_it(crafted, crafted_log_dirs):
    pf = crafted_log_dirs.partitions[("mixed", 0)]
    rows = crafted["mixed0"].rows
    for target in [T0 - 1, T0, T0 + 1, T0 + 4_005, T0 + 10_000, T0 + 10_003, T0 + 17_000, T0 + 29_009]:
        expected = min((r.offset for r in rows if r.timestamp >= target), default=None)
        assert offset_for_timestamp(pf, target) == expected, target
    assert offset_for_timestamp(pf, T0 + 10**9) is None


def test_starting_and_ending_timestamps(crafted):
    base = {"path": crafted["dirs"][0], "topics": "mixed", "partitions": "0"}
    plan = plan_batch(
        parse_options(
            {**base, "startingTimestamp": str(T0 + 7_000), "endingTimestamp": str(T0 + 9_000)},
            streaming=False,
        )
    )
    rows = crafted["mixed0"].rows
    first = min(r.offset for r in rows if r.timestamp >= T0 + 7_000)
    last = min(r.offset for r in rows if r.timestamp >= T0 + 9_000)
    assert [(p.from_offset, p.until_offset) for p in plan.partitions] == [(first, last)]
    late = {**base, "startingTimestamp": str(T0 + 10**9)}
    with pytest.raises(OptionError, match="No offset matched"):
        plan_batch(parse_options(late, streaming=False))
    plan = plan_batch(
        parse_options({**late, "startingOffsetsByTimestampStrategy": "latest"}, streaming=False)
    )
    assert plan.partitions[0].from_offset == plan.partitions[0].until_offset


def test_per_partition_json_must_name_every_partition(crafted):
    base = {"path": crafted["dirs"][0], "topics": "mixed"}
    with pytest.raises(OptionError, match="must specify all TopicPartitions"):
        plan_batch(parse_options({**base, "startingOffsets": '{"mixed":{"0":5}}'}, streaming=False))
    plan = plan_batch(
        parse_options(
            {
                **base,
                "startingOffsets": '{"mixed":{"0":5,"1":-2}}',
                "endingOffsets": '{"mixed":{"0":-1,"1":20}}',
            },
            streaming=False,
        )
    )
    hw0 = crafted["mixed0"].log_end_offset
    assert [(p.partition, p.from_offset, p.until_offset) for p in plan.partitions] == [
        (0, 5, hw0),
        (1, 0, 20),
    ]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"startingOffsets": "latest"}, "can't be latest for batch"),
        ({"startingOffsets": '{"t":{"0":-1}}'}, "can't be latest for batch"),
        ({"endingOffsets": "earliest"}, "can't be earliest for batch"),
        ({"endingOffsets": '{"t":{"0":-2}}'}, "can't be earliest for batch"),
        ({"startingOffsets": "{not json"}, "expected e.g."),
        ({"startingOffsets": '{"t":{"0":"x"}}'}, "expected e.g."),
        ({"startingOffsets": '{"t":{"0":-3}}'}, "not valid"),
        ({"startingTimestamp": "yesterday"}, "milliseconds"),
        ({"topics": "a", "topicPattern": "b"}, "only one of"),
        ({"topicPattern": "("}, "not a valid regex"),
        ({"partitions": "0,x"}, "partition numbers"),
        ({"failOnDataLoss": "maybe"}, "true or false"),
        ({"maxBytesPerPartition": "0"}, "at least 1"),
        ({"isolationLevel": "dirty"}, "read_committed"),
        ({"startingOffsetsByTimestampStrategy": "skip"}, "error or latest"),
    ],
)
def test_bad_options_are_refused(options, message):
    with pytest.raises(OptionError, match=message):
        parse_options({"path": "/nowhere", **options}, streaming=False)


def test_streaming_option_rules():
    with pytest.raises(OptionError, match="not valid in streaming"):
        parse_options({"path": "/x", "endingOffsets": "latest"}, streaming=True)
    assert parse_options({"path": "/x"}, streaming=True).starting.kind == "latest"
    with pytest.raises(OptionError, match="no log dir"):
        parse_options({}, streaming=True)


def test_start_after_end_is_refused(crafted):
    opts = {"path": crafted["dirs"][0], "assign": '{"mixed":[1]}', "startingOffsets": '{"mixed":{"1":31}}'}
    with pytest.raises(OptionError, match="after the ending offset"):
        plan_batch(parse_options(opts, streaming=False))


def test_topic_selection(crafted):
    dirs = LogDirs.scan(crafted["dirs"])
    names = lambda chosen: sorted(f"{p.topic}-{p.partition}" for p in chosen)  # noqa: E731
    assert names(dirs.select()) == ["mixed-0", "mixed-1", "other-0"]
    assert names(dirs.select(topics=["__internal"])) == ["__internal-0"]
    assert names(dirs.select(topic_pattern="m.*")) == ["mixed-0", "mixed-1"]
    assert names(dirs.select(topic_pattern="mix")) == []
    assert names(dirs.select(partitions={1})) == ["mixed-1"]
    assert names(dirs.select(partitions={"other": {0}})) == ["other-0"]


def test_same_partition_in_two_log_dirs_is_refused(tmp_path):
    for d in ("a", "b"):
        write_partition(tmp_path / d, "t", 0, [Batch([(b"k", b"v")], [T0])])
    with pytest.raises(OSError, match="two log dirs"):
        LogDirs.scan([tmp_path / "a", tmp_path / "b"])
    shutil.rmtree(tmp_path / "b" / "t-0")
    assert list(LogDirs.scan([tmp_path / "a", tmp_path / "b"]).partitions) == [("t", 0)]


def test_min_partitions_splits_further(crafted):
    base = {"path": crafted["dirs"][0], "topics": "mixed", "partitions": "0"}
    few = plan_batch(parse_options(base, streaming=False))
    many = plan_batch(parse_options({**base, "minPartitions": "40"}, streaming=False))
    assert len(many.reads) > len(few.reads)
    assert many.total_bytes == few.total_bytes


def test_rate_limit_shares_by_lag():
    start = {("t", 0): 0, ("t", 1): 100, ("t", 2): 5}
    until = {("t", 0): 300, ("t", 1): 200, ("t", 2): 5}
    capped = rate_limit(start, until, 100)
    assert capped == {("t", 0): 75, ("t", 1): 125, ("t", 2): 5}
    assert rate_limit(start, until, 10_000) == until


def test_records_of_length_zero_or_one_are_refused():
    for body in (b"\x00", b"\x02\x00"):  # length 0; length 1 holding only the attributes
        cols = RecordColumns("t", 0)
        with pytest.raises(DecodeError):
            cols.add_batch(
                body,
                1,
                base_offset=0,
                base_timestamp=T0,
                max_timestamp=T0,
                log_append_time=False,
                producer_id=-1,
                producer_epoch=-1,
                base_sequence=-1,
            )
            cols.take(0, 1 << 62)


# ---------------------------------------------------------------------- the stream reader's offsets


def test_stream_reader_offsets_rate_limit_and_new_partitions(tmp_path):
    from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadMaxRows

    from spark_jobs.datasource import MoldauStreamReader, SegmentRangePartition

    write_partition(tmp_path, "s", 0, [Batch([(b"k", b"%d" % i)], [T0]) for i in range(40)])
    set_high_watermarks(tmp_path, {("s", 0): 40})
    reader = MoldauStreamReader(
        parse_options({"path": str(tmp_path), "maxOffsetsPerTrigger": "15"}, streaming=True)
    )
    start = reader.initialOffset()
    assert start == {"s": {"0": 40}}  # streaming starts at latest by default
    earliest = MoldauStreamReader(
        parse_options({"path": str(tmp_path), "startingOffsets": "earliest"}, streaming=True)
    )
    assert earliest.initialOffset() == {"s": {"0": 0}}
    assert reader.getDefaultReadLimit() == ReadMaxRows(15)
    assert reader.latestOffset({"s": {"0": 0}}, ReadMaxRows(15)) == {"s": {"0": 15}}
    assert reader.latestOffset({"s": {"0": 0}}, ReadAllAvailable()) == {"s": {"0": 40}}
    # a partition that appears later is read from its earliest offset
    write_partition(tmp_path, "s", 1, [Batch([(b"k", b"p1-%d" % i)], [T0]) for i in range(4)])
    set_high_watermarks(tmp_path, {("s", 1): 4})
    end = reader.latestOffset(start, ReadAllAvailable())
    assert end == {"s": {"0": 40, "1": 4}}
    parts = reader.partitions(start, end)
    assert [(p.read.topic, p.read.partition, p.read.from_offset, p.read.until_offset) for p in parts] == [
        ("s", 1, 0, 4)
    ]
    assert all(isinstance(p, SegmentRangePartition) for p in parts)
    assert [r.value for p in parts for r in arrow_rows(reader.read(p))] == [b"p1-%d" % i for i in range(4)]
    assert reader.partitions(end, end) == []
    # Trigger.AvailableNow: nothing past what was there when the query started
    reader.prepareForTriggerAvailableNow()
    write_partition(tmp_path, "s", 1, [Batch([(b"k", b"late")], [T0])])
    set_high_watermarks(tmp_path, {("s", 1): 5})
    assert reader.latestOffset(end, ReadAllAvailable()) == end


def test_stream_reader_reports_a_log_that_went_backwards(tmp_path):
    from pyspark.sql.streaming.datasource import ReadAllAvailable

    from spark_jobs.datasource import MoldauStreamReader

    write_partition(tmp_path, "s", 0, [Batch([(b"k", b"v")], [T0]) for _ in range(5)])
    set_high_watermarks(tmp_path, {("s", 0): 5})
    strict = MoldauStreamReader(parse_options({"path": str(tmp_path)}, streaming=True))
    with pytest.raises(DataLossError):
        strict.latestOffset({"s": {"0": 9}}, ReadAllAvailable())
    lenient = MoldauStreamReader(
        parse_options({"path": str(tmp_path), "failOnDataLoss": "false"}, streaming=True)
    )
    assert lenient.latestOffset({"s": {"0": 9}}, ReadAllAvailable()) == {"s": {"0": 9}}
    with pytest.raises(DataLossError):
        strict.latestOffset({"gone": {"0": 1}, "s": {"0": 5}}, ReadAllAvailable())


def test_an_index_ahead_of_a_truncated_log_is_not_trusted(tmp_path):
    """After a crash (before the broker recovers the log) the index may point past the data."""
    written = write_partition(tmp_path, "t", 0, [Batch([(b"k", b"v" * 200)], [T0]) for _ in range(40)])
    segment = next(written.directory.glob("*.log"))
    data = segment.read_bytes()
    cut = len(data) // 2 + 17  # half the batches and a torn one
    segment.write_bytes(data[:cut])
    set_high_watermarks(tmp_path, {("t", 0): 40})
    pf = LogDirs.scan([tmp_path]).partitions[("t", 0)]
    whole = len(data) // 40
    expected = [r.value for r in written.rows[: cut // whole]]
    for max_bytes in (1 << 30, 1000):
        assert [r.value for r in read_all(pf, 0, 40, max_bytes=max_bytes)] == expected
    assert [r.offset for r in read_all(pf, 30, 40, max_bytes=1000)] == []
    assert [r.offset for r in read_all(pf, 5, 40, max_bytes=1000)] == list(range(5, cut // whole))
