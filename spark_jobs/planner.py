"""From options to work: which partitions, which offsets, which byte ranges (Spark's driver side).

Offsets resolve as Spark's Kafka source resolves them against a broker
(``KafkaOffsetReaderAdmin``), with the log dirs standing in for ListOffsets:
earliest is the log start offset, latest the high watermark recorded in
``replication-offset-checkpoint``, a timestamp the first committed offset
whose record timestamp is at least that (through the time index). Nothing at
or past the high watermark is ever planned. Over several brokers' log dirs
(``brokerLogDirs``) each partition is planned on one replica's copy, the one
with the highest high watermark (``LogDirs.scan_brokers``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from spark_jobs.log_files import (
    DataLossError,
    LogDirs,
    PartitionFiles,
    ReadRange,
    offset_for_timestamp,
    plan_reads,
)
from spark_jobs.options import EARLIEST, LATEST, OffsetSpec, OptionError, ReadOptions

log = logging.getLogger(__name__)

TopicPartition = tuple[str, int]


@dataclass(frozen=True, slots=True)
class PartitionRange:
    """The offsets [from_offset, until_offset) of one partition to read, and its bounds then."""

    topic: str
    partition: int
    from_offset: int
    until_offset: int
    log_start_offset: int
    high_watermark: int


@dataclass(frozen=True)
class Plan:
    partitions: list[PartitionRange]
    reads: list[ReadRange]

    @property
    def total_bytes(self) -> int:
        return sum(r.size for r in self.reads)

    def bytes_by_partition(self) -> dict[TopicPartition, int]:
        out: dict[TopicPartition, int] = {}
        for r in self.reads:
            out[(r.topic, r.partition)] = out.get((r.topic, r.partition), 0) + r.size
        return out


def select(opts: ReadOptions, dirs: LogDirs, *, warn_missing: bool = False) -> list[PartitionFiles]:
    chosen = dirs.select(opts.topics, opts.topic_pattern, opts.partitions)
    if opts.topics and warn_missing:
        present = {pf.topic for pf in dirs.partitions.values()}
        missing = [t for t in opts.topics if t not in present]
        if missing:
            # As a Kafka consumer subscribed to a topic that does not exist: nothing to read.
            log.warning("topics %s are not in log dirs %s", missing, ", ".join(opts.log_dirs))
    return chosen


def _check_named_partitions(spec: OffsetSpec, chosen: Iterable[PartitionFiles], name: str) -> None:
    """KafkaOffsetReaderAdmin.validateTopicPartitions: the JSON must name exactly the chosen partitions."""
    named = set(spec.offsets or {})
    assigned = {(pf.topic, pf.partition) for pf in chosen}
    if named != assigned:
        raise OptionError(
            f"If {name} contains specific offsets, you must specify all TopicPartitions.\n"
            f"Use -1 for latest, -2 for earliest.\n"
            f"Specified: {sorted(named)} Assigned: {sorted(assigned)}"
        )


def resolve(
    spec: OffsetSpec,
    chosen: list[PartitionFiles],
    *,
    starting: bool,
    no_match_latest: bool = False,
    read_committed: bool = False,
) -> dict[TopicPartition, int]:
    """Offsets of ``spec`` for every chosen partition (not yet checked against the log bounds).

    "latest" is the high watermark, or the last stable offset for read_committed (as a Kafka
    consumer's ``endOffsets``)."""
    name = "startingOffsets" if starting else "endingOffsets"
    if spec.kind in ("offsets", "timestamps"):
        _check_named_partitions(spec, chosen, name + ("ByTimestamp" if spec.kind == "timestamps" else ""))
    out: dict[TopicPartition, int] = {}
    for pf in chosen:
        tp = (pf.topic, pf.partition)
        if spec.kind == "earliest":
            out[tp] = pf.log_start_offset
        elif spec.kind == "latest":
            out[tp] = pf.end_offset(read_committed)
        elif spec.kind == "offsets":
            value = (spec.offsets or {})[tp]
            out[tp] = (
                pf.log_start_offset
                if value == EARLIEST
                else pf.end_offset(read_committed)
                if value == LATEST
                else value
            )
        else:
            ts = spec.timestamp if spec.kind == "timestamp" else (spec.offsets or {})[tp]
            assert ts is not None
            found = offset_for_timestamp(pf, ts, read_committed=read_committed)
            if found is None:
                # KafkaOffsetReaderAdmin.readTimestampOffsets
                if starting and not no_match_latest:
                    raise OptionError(
                        f"No offset matched from request of topic-partition {pf.topic}-{pf.partition} "
                        f"and timestamp {ts}."
                    )
                # LATEST through ListOffsets with the query's isolation level: the LSO under
                # read_committed (Partition.fetchOffsetForTimestamp's lastFetchableOffset).
                found = pf.end_offset(read_committed)
            out[tp] = found
    return out


def check_start(pf: PartitionFiles, offset: int, fail_on_data_loss: bool) -> int:
    """A starting offset below the log start offset is data loss (Kafka's failOnDataLoss)."""
    if offset < pf.log_start_offset:
        msg = (
            f"{pf.topic}-{pf.partition}: offsets {offset}..{pf.log_start_offset - 1} are no longer in "
            f"the log (log start offset {pf.log_start_offset}); some data may have been lost"
        )
        if fail_on_data_loss:
            raise DataLossError(msg + ". Set failOnDataLoss=false to read what is left.")
        log.warning(msg)
        return pf.log_start_offset
    return offset


def split_reads(
    chosen: Mapping[TopicPartition, PartitionFiles],
    ranges: list[PartitionRange],
    opts: ReadOptions,
) -> list[ReadRange]:
    """Byte ranges for the offset ranges; split finer when fewer than ``minPartitions``."""
    max_bytes = opts.max_bytes_per_partition

    def plan(limit: int) -> list[ReadRange]:
        out: list[ReadRange] = []
        for pr in ranges:
            out.extend(
                plan_reads(
                    chosen[(pr.topic, pr.partition)],
                    pr.from_offset,
                    pr.until_offset,
                    max_bytes=limit,
                    with_aborted=opts.read_committed,
                )
            )
        return out

    reads = plan(max_bytes)
    if 0 < len(reads) < opts.min_partitions:
        total = sum(r.size for r in reads)
        reads = plan(max(1, min(max_bytes, -(-total // opts.min_partitions))))
    return reads


def plan_batch(opts: ReadOptions, dirs: LogDirs | None = None) -> Plan:
    """Everything a batch query reads: per partition [start, min(end, high watermark))."""
    dirs = dirs or LogDirs.scan_brokers(opts.broker_log_dirs)
    chosen = select(opts, dirs, warn_missing=True)
    starts = resolve(
        opts.starting,
        chosen,
        starting=True,
        no_match_latest=opts.no_match_latest,
        read_committed=opts.read_committed,
    )
    ends = resolve(opts.ending, chosen, starting=False, read_committed=opts.read_committed)
    ranges = []
    for pf in chosen:
        tp = (pf.topic, pf.partition)
        start = check_start(pf, starts[tp], opts.fail_on_data_loss)
        end = ends[tp]
        # read_committed never reads past the last stable offset (an open transaction).
        readable = pf.end_offset(opts.read_committed)
        if end > readable:
            log.warning(
                "%s-%d: ending offset %d is past the %s %d; reading up to it",
                pf.topic,
                pf.partition,
                end,
                "last stable offset" if opts.read_committed else "high watermark",
                readable,
            )
            end = readable
        if start > end:
            # KafkaSourceRDD's check on each offset range
            raise OptionError(
                f"Beginning offset {start} is after the ending offset {end} for topic {pf.topic} "
                f"partition {pf.partition}."
            )
        ranges.append(
            PartitionRange(pf.topic, pf.partition, start, end, pf.log_start_offset, pf.high_watermark)
        )
    by_tp = {(pf.topic, pf.partition): pf for pf in chosen}
    reads = split_reads(by_tp, [r for r in ranges if r.until_offset > r.from_offset], opts)
    log.info(
        "planned %d partitions of %d topics: %d byte ranges, %d bytes",
        len(ranges),
        len({r.topic for r in ranges}),
        len(reads),
        sum(r.size for r in reads),
    )
    return Plan(ranges, reads)


# ---------------------------------------------------------------------- streaming offsets

StreamOffsets = dict[str, dict[str, int]]  # Spark's Kafka source JSON: {"topic": {"0": offset}}


def to_stream_offsets(offsets: Mapping[TopicPartition, int]) -> StreamOffsets:
    out: StreamOffsets = {}
    for (topic, part), off in sorted(offsets.items()):
        out.setdefault(topic, {})[str(part)] = int(off)
    return out


def from_stream_offsets(offsets: Mapping[str, Mapping[str, int]] | None) -> dict[TopicPartition, int]:
    return {(t, int(p)): int(o) for t, parts in (offsets or {}).items() for p, o in parts.items()}


def rate_limit(
    start: Mapping[TopicPartition, int], until: Mapping[TopicPartition, int], limit: int
) -> dict[TopicPartition, int]:
    """Spark's KafkaMicroBatchStream.rateLimit: share ``limit`` offsets among partitions by their lag."""
    sizes = {tp: end - start[tp] for tp, end in until.items() if tp in start and end - start[tp] > 0}
    total = float(sum(sizes.values()))
    if total < 1:
        return dict(until)
    out = {}
    for tp, end in until.items():
        if tp not in sizes:
            out[tp] = end
            continue
        prorate = limit * (sizes[tp] / total)
        step = int(prorate) if prorate >= 1 else (1 if prorate > 0 else 0)
        out[tp] = min(end, start[tp] + step)
    return out
