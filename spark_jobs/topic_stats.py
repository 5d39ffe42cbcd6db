"""topic_stats: per topic-partition record count, bytes, offset and time ranges, producers.

    python -m spark_jobs.topic_stats /var/lib/moldau/data [--topics orders] [--master URL]
    spark-submit spark_jobs/topic_stats.py /var/lib/moldau/data

For each chosen partition (committed data only, as the data source reads it):
records, log bytes (on-disk batch bytes of the range read), key and value
bytes, first/last offset, first/last record timestamp, and the number of
distinct producer ids (idempotent or transactional producers; -1 is none).
Partitions with nothing in the range are listed with 0 records.
"""

from __future__ import annotations

import argparse
import logging
import sys
from datetime import UTC, datetime
from typing import Any

if __package__ in (None, ""):
    # Run as a file (spark-submit spark_jobs/<job>.py): import the project, not this directory's modules.
    from pathlib import Path

    _here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _here]
    sys.path.insert(0, str(_here.parent))

from spark_jobs.job_cli import (
    Column,
    add_source_arguments,
    plan_for,
    print_json_lines,
    print_table,
    read_source,
    source_options,
    spark_conf,
)
from spark_jobs.progress import StageProgress, configure_logging

log = logging.getLogger("spark_jobs.topic_stats")

COLUMNS = [
    Column("topic", "topic", "<"),
    Column("partition", "partition"),
    Column("records", "records"),
    Column("log bytes", "logBytes"),
    Column("key bytes", "keyBytes"),
    Column("value bytes", "valueBytes"),
    Column("first offset", "firstOffset"),
    Column("last offset", "lastOffset"),
    Column("first timestamp", "firstTimestamp", "<"),
    Column("last timestamp", "lastTimestamp", "<"),
    Column("producers", "producers"),
]


def _iso(ts: datetime | None) -> str | None:
    if ts is None:
        return None
    if ts.tzinfo is None:  # Spark hands naive datetimes in the session time zone
        ts = ts.astimezone()
    return ts.astimezone(UTC).isoformat(timespec="milliseconds")


def topic_stats(spark: Any, options: dict[str, str]) -> list[dict[str, Any]]:
    """One dict per chosen partition, sorted by topic and partition."""
    from pyspark.sql import functions as F

    plan = plan_for(options)
    log_bytes = plan.bytes_by_partition()
    log.info(
        "topic_stats: %d partitions, %d byte ranges, %d bytes to read",
        len(plan.partitions),
        len(plan.reads),
        plan.total_bytes,
    )
    df = read_source(spark, options)
    agg = (
        df.groupBy("topic", "partition")
        .agg(
            F.count(F.lit(1)).alias("records"),
            F.sum(F.coalesce(F.length("key"), F.lit(0))).alias("keyBytes"),
            F.sum(F.coalesce(F.length("value"), F.lit(0))).alias("valueBytes"),
            F.min("offset").alias("firstOffset"),
            F.max("offset").alias("lastOffset"),
            F.min("timestamp").alias("firstTimestamp"),
            F.max("timestamp").alias("lastTimestamp"),
            F.countDistinct(F.when(F.col("producerId") >= 0, F.col("producerId"))).alias("producers"),
        )
        .collect()
    )
    found = {(r["topic"], r["partition"]): r.asDict() for r in agg}
    out = []
    for pr in plan.partitions:
        row = found.get((pr.topic, pr.partition), {})
        out.append(
            {
                "topic": pr.topic,
                "partition": pr.partition,
                "records": row.get("records", 0),
                "logBytes": log_bytes.get((pr.topic, pr.partition), 0),
                "keyBytes": row.get("keyBytes") or 0,
                "valueBytes": row.get("valueBytes") or 0,
                "firstOffset": row.get("firstOffset"),
                "lastOffset": row.get("lastOffset"),
                "firstTimestamp": _iso(row.get("firstTimestamp")),
                "lastTimestamp": _iso(row.get("lastTimestamp")),
                "producers": row.get("producers", 0),
                "fromOffset": pr.from_offset,
                "untilOffset": pr.until_offset,
                "highWatermark": pr.high_watermark,
            }
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="topic_stats", description=__doc__.split("\n")[0])
    add_source_arguments(parser)
    args = parser.parse_args(argv)
    configure_logging(args.verbose)
    from spark_jobs.session import build_session

    spark = build_session("moldau-topic-stats", args.master, spark_conf(args))
    with StageProgress(spark, "topic_stats"):
        rows = topic_stats(spark, source_options(args))
    if args.json:
        print_json_lines(rows)
    else:
        print_table(rows, COLUMNS)
    log.info(
        "topic_stats done: %d records, %d log bytes in %d partitions of %d topics",
        sum(r["records"] for r in rows),
        sum(r["logBytes"] for r in rows),
        len(rows),
        len({r["topic"] for r in rows}),
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
