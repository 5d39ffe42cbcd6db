"""The ``moldau`` data source: Kafka-format partition logs as a Spark DataFrame (batch and streaming).

    spark.dataSource.register(MoldauDataSource)    # spark_jobs.session does this
    df = spark.read.format("moldau").option("topics", "orders").load("/var/lib/moldau/data")
    q = spark.readStream.format("moldau").load(log_dir).writeStream...

Rows have the schema of Spark's Kafka source (key, value, topic, partition,
offset, timestamp, timestampType, headers) plus producerId, producerEpoch
and sequence (the record's own: baseSequence + offset delta, -1 without
idempotence). Options: see ``spark_jobs.options``.

Work is split into one Spark input partition per segment, or per byte range
of a large segment (``maxBytesPerPartition``, ``minPartitions``); executors
read whole batches straight from the ``.log`` files (``spark_jobs.range_reader``)
and hand Arrow batches to Spark. Only committed data is read: nothing at or
past the high watermark in ``replication-offset-checkpoint``, and with
read_committed (the default ``isolationLevel``) nothing at or past the last
stable offset (the first offset of a transaction still open there, rebuilt from
the producer snapshots and batch headers), aborted transactions' records are
skipped through the ``.txnindex`` files, and control batches (transaction
markers) never become rows.

Streaming offsets are Spark's Kafka source JSON (``{"topic":{"0":42}}``);
each micro-batch reads up to the high watermark the broker last
checkpointed (``replica.high.watermark.checkpoint.interval.ms``, 5 s by
default), so new data shows up with that delay. Partitions that appear
later are read from their earliest offset, as Kafka's source does.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence

import pyarrow as pa
from pyspark.sql.datasource import DataSource, DataSourceReader, DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import (
    ReadAllAvailable,
    ReadLimit,
    ReadMaxRows,
    SupportsTriggerAvailableNow,
)
from pyspark.sql.types import (
    ArrayType,
    BinaryType,
    IntegerType,
    LongType,
    ShortType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)

from spark_jobs.log_files import DataLossError, LogDirs, PartitionFiles, ReadRange
from spark_jobs.options import OptionError, ReadOptions, parse_options
from spark_jobs.planner import (
    PartitionRange,
    StreamOffsets,
    check_start,
    from_stream_offsets,
    plan_batch,
    rate_limit,
    resolve,
    select,
    split_reads,
    to_stream_offsets,
)
from spark_jobs.range_reader import read_range

log = logging.getLogger(__name__)

FORMAT = "moldau"

# Spark's Kafka source schema (KafkaRecordToRowConverter, with headers), then the producer fields.
SCHEMA = StructType(
    [
        StructField("key", BinaryType()),
        StructField("value", BinaryType()),
        StructField("topic", StringType()),
        StructField("partition", IntegerType()),
        StructField("offset", LongType()),
        StructField("timestamp", TimestampType()),
        StructField("timestampType", IntegerType()),
        StructField(
            "headers",
            ArrayType(StructType([StructField("key", StringType()), StructField("value", BinaryType())])),
        ),
        StructField("producerId", LongType()),
        StructField("producerEpoch", ShortType()),
        StructField("sequence", IntegerType()),
    ]
)


class SegmentRangePartition(InputPartition):
    """One Spark input partition: whole batches of one byte range of one segment."""

    def __init__(self, read: ReadRange) -> None:
        super().__init__(read)
        self.read = read


def _read(opts: ReadOptions, partition: InputPartition) -> Iterator[pa.RecordBatch]:
    if not isinstance(partition, SegmentRangePartition):
        return iter(())
    return read_range(partition.read, check_crcs=opts.check_crcs, fail_on_data_loss=opts.fail_on_data_loss)


class MoldauDataSource(DataSource):
    """``format("moldau")``: batch and streaming reads of Moldau's (Kafka's) partition logs."""

    @classmethod
    def name(cls) -> str:
        return FORMAT

    def schema(self) -> StructType:
        return SCHEMA

    def reader(self, schema: StructType) -> DataSourceReader:
        _check_schema(schema)
        return MoldauBatchReader(parse_options(self.options, streaming=False))

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        _check_schema(schema)
        return MoldauStreamReader(parse_options(self.options, streaming=True))


def _check_schema(schema: StructType) -> None:
    if schema is not None and schema != SCHEMA:
        raise OptionError(f"the moldau source has a fixed schema ({SCHEMA.simpleString()}); got {schema}")


class MoldauBatchReader(DataSourceReader):
    def __init__(self, opts: ReadOptions) -> None:
        self.opts = opts

    def partitions(self) -> Sequence[InputPartition]:
        plan = plan_batch(self.opts)
        if not plan.reads:
            # Nothing committed in range: one partition that reads nothing (an empty list
            # of partitions takes the JVM down in pyspark 4.3).
            return [InputPartition(None)]
        return [SegmentRangePartition(r) for r in plan.reads]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        return _read(self.opts, partition)


class MoldauStreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """Micro-batches of [previous end, high watermark) per partition (Kafka's ``KafkaMicroBatchStream``)."""

    def __init__(self, opts: ReadOptions) -> None:
        self.opts = opts
        self._available_now: dict[tuple[str, int], int] | None = None

    def _scan(self) -> LogDirs:
        return LogDirs.scan_brokers(self.opts.broker_log_dirs)

    def initialOffset(self) -> StreamOffsets:
        dirs = self._scan()
        chosen = select(self.opts, dirs)
        starts = resolve(
            self.opts.starting,
            chosen,
            starting=True,
            no_match_latest=self.opts.no_match_latest,
            read_committed=self.opts.read_committed,
        )
        offsets = {
            tp: check_start(dirs.partitions[tp], off, self.opts.fail_on_data_loss)
            for tp, off in starts.items()
        }
        log.info("moldau stream starts at %s", offsets)
        return to_stream_offsets(offsets)

    def _selected(self) -> dict[tuple[str, int], PartitionFiles]:
        return {(pf.topic, pf.partition): pf for pf in select(self.opts, self._scan())}

    def _latest(self) -> dict[tuple[str, int], int]:
        return {tp: pf.end_offset(self.opts.read_committed) for tp, pf in self._selected().items()}

    def prepareForTriggerAvailableNow(self) -> None:
        self._available_now = self._latest()

    def getDefaultReadLimit(self) -> ReadLimit:
        if self.opts.max_offsets_per_trigger:
            return ReadMaxRows(self.opts.max_offsets_per_trigger)
        return ReadAllAvailable()

    def reportLatestOffset(self) -> StreamOffsets:
        return to_stream_offsets(self._latest())

    def latestOffset(
        self, start: StreamOffsets | None = None, limit: ReadLimit | None = None
    ) -> StreamOffsets:
        selected = self._selected()
        latest = {tp: pf.end_offset(self.opts.read_committed) for tp, pf in selected.items()}
        if self._available_now is not None:
            # Trigger.AvailableNow: never past what was there when the query started.
            latest = {tp: min(off, self._available_now.get(tp, off)) for tp, off in latest.items()}
        begin = from_stream_offsets(start)
        if start is not None:
            for tp, off in begin.items():
                if tp not in latest:
                    self._data_loss(f"partition {tp[0]}-{tp[1]} is gone from the log dirs")
                    continue
                if latest[tp] < off:
                    # The log went backwards (recreated topic, truncation): keep the old position.
                    self._data_loss(
                        f"{tp[0]}-{tp[1]}: high watermark {latest[tp]} is below the offset {off} already read"
                    )
                    latest[tp] = off
        if isinstance(limit, ReadMaxRows) and start is not None:
            # New partitions count from their earliest offset, as partitions() reads them.
            first = {
                tp: begin.get(tp, selected[tp].log_start_offset if tp in selected else 0) for tp in latest
            }
            latest = rate_limit(first, latest, limit.max_rows)
        return to_stream_offsets(latest)

    def partitions(self, start: StreamOffsets, end: StreamOffsets) -> Sequence[InputPartition]:
        begin = from_stream_offsets(start)
        until = from_stream_offsets(end)
        dirs = self._scan()
        chosen = {}
        ranges = []
        for tp, stop in sorted(until.items()):
            pf = dirs.partitions.get(tp)
            if pf is None:
                self._data_loss(f"partition {tp[0]}-{tp[1]} is gone from the log dirs")
                continue
            # A partition that appeared after the query started is read from its earliest offset.
            first = check_start(pf, begin.get(tp, pf.log_start_offset), self.opts.fail_on_data_loss)
            stop = min(stop, pf.end_offset(self.opts.read_committed))
            if stop > first:
                chosen[tp] = pf
                ranges.append(
                    PartitionRange(tp[0], tp[1], first, stop, pf.log_start_offset, pf.high_watermark)
                )
        reads = split_reads(chosen, ranges, self.opts)
        return [SegmentRangePartition(r) for r in reads]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        return _read(self.opts, partition)

    def commit(self, end: StreamOffsets) -> None:
        log.debug("moldau stream committed %s", end)

    def _data_loss(self, msg: str) -> None:
        if self.opts.fail_on_data_loss:
            raise DataLossError(msg + "; some data may have been lost (set failOnDataLoss=false to go on)")
        log.warning("%s; some data may have been lost", msg)
