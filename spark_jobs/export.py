"""export: a range of topics to Parquet, partitioned by topic and partition.

    python -m spark_jobs.export /var/lib/moldau/data --output /tmp/orders.parquet \\
        --topics orders --starting-offsets '{"orders":{"0":1000}}'

Writes every column of the data source; ``topic`` and ``partition`` become
the directory levels ``topic=<name>/partition=<n>`` (Spark's ``partitionBy``),
so ``spark.read.parquet(output)`` gives them back as columns. The summary
lists the offset range written per partition and the rows written (counted
while writing, with ``DataFrame.observe``).
"""

from __future__ import annotations

import argparse
import logging
import sys
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

log = logging.getLogger("spark_jobs.export")

COLUMNS = [
    Column("topic", "topic", "<"),
    Column("partition", "partition"),
    Column("from offset", "fromOffset"),
    Column("until offset", "untilOffset"),
    Column("log bytes", "logBytes"),
]


def export(
    spark: Any,
    options: dict[str, str],
    output: str,
    *,
    mode: str = "errorifexists",
    compression: str = "snappy",
) -> dict[str, Any]:
    """Write the range to ``output``; returns the planned ranges and the rows written."""
    from pyspark.sql import Observation
    from pyspark.sql import functions as F

    plan = plan_for(options)
    log_bytes = plan.bytes_by_partition()
    log.info(
        "export: %d partitions, %d bytes of log to %s (mode %s)",
        len(plan.partitions),
        plan.total_bytes,
        output,
        mode,
    )
    observation = Observation("moldau_export")
    df = read_source(spark, options).observe(
        observation,
        F.count(F.lit(1)).alias("rows"),
        F.min("offset").alias("minOffset"),
        F.max("offset").alias("maxOffset"),
    )
    df.write.mode(mode).option("compression", compression).partitionBy("topic", "partition").parquet(output)
    metrics = observation.get
    return {
        "output": output,
        "rows": metrics.get("rows", 0),
        "partitions": [
            {
                "topic": pr.topic,
                "partition": pr.partition,
                "fromOffset": pr.from_offset,
                "untilOffset": pr.until_offset,
                "logBytes": log_bytes.get((pr.topic, pr.partition), 0),
            }
            for pr in plan.partitions
        ],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="export", description=__doc__.split("\n")[0])
    add_source_arguments(parser)
    parser.add_argument("--output", required=True, help="Parquet output directory (any Hadoop path)")
    parser.add_argument(
        "--mode",
        default="errorifexists",
        choices=["errorifexists", "overwrite", "append", "ignore"],
        help="what to do when the output exists (Spark's save modes)",
    )
    parser.add_argument(
        "--compression", default="snappy", help="Parquet codec (snappy, zstd, gzip, none, ...)"
    )
    args = parser.parse_args(argv)
    configure_logging(args.verbose)
    from spark_jobs.session import build_session

    spark = build_session("moldau-export", args.master, spark_conf(args))
    with StageProgress(spark, "export"):
        result = export(
            spark, source_options(args), args.output, mode=args.mode, compression=args.compression
        )
    if args.json:
        print_json_lines([{"output": result["output"], "rows": result["rows"]}, *result["partitions"]])
    else:
        print_table(result["partitions"], COLUMNS)
    log.info(
        "export done: %d rows of %d partitions written to %s",
        result["rows"],
        len(result["partitions"]),
        result["output"],
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
