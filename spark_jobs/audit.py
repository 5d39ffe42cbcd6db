"""audit: the exactly-once audit of idempotent producers, per producer id and partition.

    python -m spark_jobs.audit /var/lib/moldau/data [--topics orders]; echo $?

Kafka's idempotent producer numbers the records it sends to each partition
0, 1, 2, ... per producer epoch (``DefaultRecordBatch``: a record's sequence
is baseSequence + its offset delta, wrapping from 2147483647 to 0); a bumped
epoch starts again at 0. A log written correctly holds, per (partition,
producer id, epoch), every sequence exactly once and in offset order. This
job walks each producer's records of each partition in offset order and
reports:

- duplicates: an (epoch, sequence) written more than once (each extra copy
  counts, with the offsets of all copies);
- gaps: a sequence that skips ahead within an epoch (the missing sequences
  are counted), or a bumped epoch that does not start at 0; the first
  epoch seen is checked for starting at 0 only when the partition was read
  from offset 0 (else its start may lie before the range or was deleted);
- out of order: a sequence behind the highest one already written that is
  not a duplicate;
- epoch regressions: records of an older epoch after a newer one.

It also lists the transactions open at each partition's high watermark (rebuilt from the
producer snapshots and batch headers, as the broker does): producer id, first offset (the
partition's last stable offset is the oldest of them) and the timestamp of its first batch.
One open for longer than ``--hanging-after-ms`` (default 900000, Kafka's
``transaction.max.timeout.ms``: the coordinator would have aborted it) is hanging, as
``kafka-transactions.sh find-hanging`` reports, and counts as an anomaly.

The exit code is 1 when anything is found, 0 for a clean log, 2 for errors.
Records without a producer id (non-idempotent producers) are not audited. Records are
read read_uncommitted by default (aborted transactions' records carry sequences too).
Everything runs in Spark SQL (window functions over each producer's records
in offset order), so only the anomalies come back to the driver.
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

log = logging.getLogger("spark_jobs.audit")

SEQUENCE_SPACE = 1 << 31
# A sequence that moves back by more than half the space wrapped around (RFC 1982 serial numbers).
HALF_SPACE = 1 << 30

DUPLICATE = "duplicate"
GAP = "gap"
EPOCH_START_GAP = "epoch_start_gap"
OUT_OF_ORDER = "out_of_order"
EPOCH_REGRESSION = "epoch_regression"

COLUMNS = [
    Column("topic", "topic", "<"),
    Column("partition", "partition"),
    Column("producer id", "producerId"),
    Column("epochs", "epochs"),
    Column("records", "records"),
    Column("duplicates", "duplicates"),
    Column("gaps", "gaps"),
    Column("missing seqs", "missingSequences"),
    Column("out of order", "outOfOrder"),
    Column("epoch regr.", "epochRegressions"),
    Column("first offset", "firstOffset"),
    Column("last offset", "lastOffset"),
]
ANOMALY_COLUMNS = [
    Column("kind", "kind", "<"),
    Column("topic", "topic", "<"),
    Column("partition", "partition"),
    Column("producer id", "producerId"),
    Column("epoch", "producerEpoch"),
    Column("sequence", "sequence"),
    Column("offset", "offset"),
    Column("detail", "detail", "<"),
]


def annotate(df: Any, from_offsets: Any) -> Any:
    """Each idempotent record with its anomaly ``kind`` (null when fine) and ``missing`` count.

    ``from_offsets``: a DataFrame (topic, partition, fromOffset) of where each
    partition was read from (an epoch seen first must start at 0 only if 0).
    """
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    records = df.where((F.col("producerId") >= 0) & (F.col("sequence") >= 0)).select(
        "topic", "partition", "producerId", "producerEpoch", "sequence", "offset"
    )
    by_producer = Window.partitionBy("topic", "partition", "producerId").orderBy("offset")
    by_epoch = Window.partitionBy("topic", "partition", "producerId", "producerEpoch").orderBy("offset")
    before = by_epoch.rowsBetween(Window.unboundedPreceding, -1)
    upto = by_epoch.rowsBetween(Window.unboundedPreceding, Window.currentRow)

    prev_seq = F.lag("sequence").over(by_epoch)
    step = F.col("sequence") - prev_seq
    # +1 when the sequence wrapped forward past 2147483647, -1 when a late record from before a wrap shows up
    wrap = F.when(step < -HALF_SPACE, 1).when(step > HALF_SPACE, -1).otherwise(0)
    annotated = (
        records.withColumn("prevEpoch", F.lag("producerEpoch").over(by_producer))
        .withColumn("wrap", wrap)
        .withColumn("wraps", F.sum("wrap").over(upto))
        .withColumn("vseq", F.col("sequence").cast("long") + F.col("wraps") * F.lit(SEQUENCE_SPACE))
        .withColumn("prevMax", F.max("vseq").over(before))
        .withColumn(
            "copies",
            F.count(F.lit(1)).over(
                Window.partitionBy("topic", "partition", "producerId", "producerEpoch", "vseq")
            ),
        )
        .join(F.broadcast(from_offsets), ["topic", "partition"], "left")
    )
    first_in_epoch = F.col("prevMax").isNull()
    # A bumped epoch must start at 0; so must the first epoch seen if the partition was read from offset 0.
    must_start_at_zero = F.col("prevEpoch").isNotNull() | (F.col("fromOffset") == 0)
    kind = (
        F.when(F.col("prevEpoch") > F.col("producerEpoch"), F.lit(EPOCH_REGRESSION))
        .when(first_in_epoch & must_start_at_zero & (F.col("vseq") != 0), F.lit(EPOCH_START_GAP))
        .when(first_in_epoch, F.lit(None))
        .when(F.col("vseq") == F.col("prevMax") + 1, F.lit(None))
        .when(F.col("vseq") > F.col("prevMax") + 1, F.lit(GAP))
        .when(F.col("copies") > 1, F.lit(DUPLICATE))
        .otherwise(F.lit(OUT_OF_ORDER))
    )
    missing = (
        F.when(F.col("kind") == GAP, F.col("vseq") - F.col("prevMax") - 1)
        .when(F.col("kind") == EPOCH_START_GAP, F.col("vseq"))
        .otherwise(F.lit(0))
    )
    return annotated.withColumn("kind", kind).withColumn("missing", missing)


def summarize(annotated: Any) -> list[dict[str, Any]]:
    """Per (topic, partition, producer id): records, epochs and counts of each anomaly."""
    from pyspark.sql import functions as F

    def count_kind(*kinds: str) -> Any:
        return F.sum(F.when(F.col("kind").isin(*kinds), 1).otherwise(0))

    rows = (
        annotated.groupBy("topic", "partition", "producerId")
        .agg(
            F.count(F.lit(1)).alias("records"),
            F.countDistinct("producerEpoch").alias("epochs"),
            count_kind(DUPLICATE).alias("duplicates"),
            count_kind(GAP, EPOCH_START_GAP).alias("gaps"),
            F.sum("missing").alias("missingSequences"),
            count_kind(OUT_OF_ORDER).alias("outOfOrder"),
            count_kind(EPOCH_REGRESSION).alias("epochRegressions"),
            F.min("offset").alias("firstOffset"),
            F.max("offset").alias("lastOffset"),
        )
        .orderBy("topic", "partition", "producerId")
        .collect()
    )
    return [r.asDict() for r in rows]


def anomalies(annotated: Any, limit: int) -> list[dict[str, Any]]:
    """The first ``limit`` anomalies in (topic, partition, offset) order, with a readable detail."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    # Offsets of every copy, so a duplicate names where its original is.
    copies = F.collect_list("offset").over(
        Window.partitionBy("topic", "partition", "producerId", "producerEpoch", "vseq")
    )
    rows = (
        annotated.withColumn("copyOffsets", F.when(F.col("copies") > 1, copies))
        .where(F.col("kind").isNotNull())
        .orderBy("topic", "partition", "offset")
        .limit(limit)
        .collect()
    )
    out = []
    for r in rows:
        d = r.asDict()
        kind = d["kind"]
        if kind == DUPLICATE:
            detail = f"(epoch {d['producerEpoch']}, sequence {d['sequence']}) also at offsets " + ", ".join(
                str(o) for o in sorted(d["copyOffsets"] or []) if o != d["offset"]
            )
        elif kind == GAP:
            first_missing = (d["prevMax"] + 1) % SEQUENCE_SPACE
            last_missing = (d["vseq"] - 1) % SEQUENCE_SPACE
            detail = f"{d['missing']} sequence(s) missing: {first_missing}..{last_missing}"
        elif kind == EPOCH_START_GAP:
            detail = f"epoch starts at sequence {d['sequence']}, not 0: {d['missing']} missing"
        elif kind == EPOCH_REGRESSION:
            detail = f"epoch {d['producerEpoch']} after epoch {d['prevEpoch']}"
        else:
            detail = f"sequence {d['sequence']} after {d['prevMax'] % SEQUENCE_SPACE}, never written before"
        out.append(
            {
                "kind": kind,
                "topic": d["topic"],
                "partition": d["partition"],
                "producerId": d["producerId"],
                "producerEpoch": d["producerEpoch"],
                "sequence": d["sequence"],
                "offset": d["offset"],
                "detail": detail,
            }
        )
    return out


TXN_COLUMNS = [
    Column("topic", "topic", "<"),
    Column("partition", "partition"),
    Column("producer id", "producerId"),
    Column("first offset", "firstOffset"),
    Column("first timestamp", "firstTimestamp"),
    Column("LSO", "lastStableOffset"),
    Column("HW", "highWatermark"),
    Column("hanging", "hanging", "<"),
]
HANGING_AFTER_MS = 900_000  # Kafka's transaction.max.timeout.ms


def open_transactions(
    options: dict[str, str], *, hanging_after_ms: int = HANGING_AFTER_MS, now_ms: int | None = None
) -> list[dict[str, Any]]:
    """The transactions open at the high watermark of each chosen partition, oldest first."""
    import time

    from spark_jobs.log_files import LogDirs
    from spark_jobs.options import parse_options
    from spark_jobs.planner import select

    now = int(time.time() * 1000) if now_ms is None else now_ms
    opts = parse_options(options, streaming=False)
    out = []
    for pf in select(opts, LogDirs.scan_brokers(opts.broker_log_dirs)):
        for producer_id, first in sorted(pf.open_transactions.items(), key=lambda kv: kv[1]):
            ts = pf.batch_timestamp(first)
            out.append(
                {
                    "topic": pf.topic,
                    "partition": pf.partition,
                    "producerId": producer_id,
                    "firstOffset": first,
                    "firstTimestamp": ts,
                    "lastStableOffset": pf.last_stable_offset,
                    "highWatermark": pf.high_watermark,
                    "hanging": ts >= 0 and now - ts > hanging_after_ms,
                }
            )
    return out


def audit(
    spark: Any,
    options: dict[str, str],
    *,
    max_anomalies: int = 100,
    hanging_after_ms: int = HANGING_AFTER_MS,
    now_ms: int | None = None,
) -> dict[str, Any]:
    """Run the audit; returns per-producer rows, the first anomalies, open transactions and totals.

    Records are read read_uncommitted unless ``isolationLevel`` says otherwise: the sequences
    of aborted transactions were written too, and skipping them would show as gaps."""
    if not any(k.lower() in ("isolationlevel", "kafka.isolation.level") for k in options):
        options = {**options, "isolationLevel": "read_uncommitted"}
    from pyspark import StorageLevel

    plan = plan_for(options)
    log.info("audit: %d partitions, %d bytes of log", len(plan.partitions), plan.total_bytes)
    from_offsets = spark.createDataFrame(
        [(pr.topic, pr.partition, pr.from_offset) for pr in plan.partitions] or [("", -1, -1)],
        "topic string, partition int, fromOffset long",
    )
    annotated = annotate(read_source(spark, options), from_offsets).persist(StorageLevel.MEMORY_AND_DISK)
    try:
        producers = summarize(annotated)
        found = anomalies(annotated, max_anomalies)
    finally:
        annotated.unpersist()
    totals = {
        key: sum(p[key] or 0 for p in producers)
        for key in ("records", "duplicates", "gaps", "missingSequences", "outOfOrder", "epochRegressions")
    }
    totals["producers"] = len({p["producerId"] for p in producers})
    totals["partitions"] = len({(p["topic"], p["partition"]) for p in producers})
    txns = open_transactions(options, hanging_after_ms=hanging_after_ms, now_ms=now_ms)
    totals["openTransactions"] = len(txns)
    totals["hangingTransactions"] = sum(1 for t in txns if t["hanging"])
    return {"producers": producers, "anomalies": found, "openTransactions": txns, "totals": totals}


def is_clean(result: dict[str, Any]) -> bool:
    t = result["totals"]
    return not (
        t["duplicates"]
        or t["gaps"]
        or t["outOfOrder"]
        or t["epochRegressions"]
        or t.get("hangingTransactions")
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="audit", description=__doc__.split("\n")[0])
    add_source_arguments(parser)
    parser.add_argument("--max-anomalies", type=int, default=100, help="anomalies to list (default 100)")
    parser.add_argument(
        "--hanging-after-ms",
        type=int,
        default=HANGING_AFTER_MS,
        help="an open transaction older than this is hanging (default 900000)",
    )
    args = parser.parse_args(argv)
    configure_logging(args.verbose)
    from spark_jobs.session import build_session

    try:
        spark = build_session("moldau-audit", args.master, spark_conf(args))
        with StageProgress(spark, "audit"):
            result = audit(
                spark,
                source_options(args),
                max_anomalies=args.max_anomalies,
                hanging_after_ms=args.hanging_after_ms,
            )
    except Exception as exc:
        log.error("audit failed: %s", exc)
        return 2
    if args.json:
        print_json_lines(
            [
                {"totals": result["totals"]},
                *result["producers"],
                *result["anomalies"],
                *({"openTransaction": t} for t in result["openTransactions"]),
            ]
        )
    else:
        print_table(result["producers"], COLUMNS)
        if result["anomalies"]:
            print()
            print_table(result["anomalies"], ANOMALY_COLUMNS)
        if result["openTransactions"]:
            print()
            print_table(result["openTransactions"], TXN_COLUMNS)
    t = result["totals"]
    clean = is_clean(result)
    (log.info if clean else log.error)(
        "audit %s: %d records of %d producers in %d partitions: %d duplicates, %d gaps "
        "(%d sequences missing), %d out of order, %d epoch regressions, %d open transactions (%d hanging)",
        "passed" if clean else "FAILED",
        t["records"],
        t["producers"],
        t["partitions"],
        t["duplicates"],
        t["gaps"],
        t["missingSequences"],
        t["outOfOrder"],
        t["epochRegressions"],
        t["openTransactions"],
        t["hangingTransactions"],
    )
    if t["records"] == 0:
        log.warning("audit: no records with a producer id in the range (nothing idempotent to audit)")
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
