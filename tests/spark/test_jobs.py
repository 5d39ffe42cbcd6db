"""The jobs (topic_stats, export, audit) over crafted logs, in-process and as commands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from spark_jobs.audit import (
    DUPLICATE,
    EPOCH_REGRESSION,
    EPOCH_START_GAP,
    GAP,
    OUT_OF_ORDER,
    audit,
    is_clean,
)
from spark_jobs.export import export
from spark_jobs.topic_stats import topic_stats
from tests.spark.conftest import T0
from tests.spark.crafted_logs import Batch, rows_of, set_high_watermarks, write_partition

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]


def iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds")


def test_topic_stats_per_partition(spark, crafted):
    stats = {
        (s["topic"], s["partition"]): s for s in topic_stats(spark, {"logDirs": ",".join(crafted["dirs"])})
    }
    assert set(stats) == {("mixed", 0), ("mixed", 1), ("other", 0)}
    for name in ("mixed0", "mixed1", "other"):
        rows = crafted[name].rows
        s = stats[(rows[0].topic, rows[0].partition)]
        assert s["records"] == len(rows)
        assert s["keyBytes"] == sum(len(r.key) for r in rows if r.key is not None)
        assert s["valueBytes"] == sum(len(r.value) for r in rows if r.value is not None)
        assert (s["firstOffset"], s["lastOffset"]) == (rows[0].offset, rows[-1].offset)
        assert s["firstTimestamp"] == iso(min(r.timestamp for r in rows))
        assert s["lastTimestamp"] == iso(max(r.timestamp for r in rows))
        assert s["producers"] == len({r.producer_id for r in rows if r.producer_id >= 0})
    # every byte of the mixed-0 segments but the 200-byte partial batch at the end
    on_disk = sum(p.stat().st_size for p in crafted["mixed0"].directory.glob("*.log"))
    assert stats[("mixed", 0)]["logBytes"] == on_disk - 200
    assert stats[("mixed", 0)]["producers"] == 2  # the idempotent one and the committed transaction


def test_topic_stats_lists_empty_ranges(spark, crafted):
    stats = topic_stats(
        spark,
        {"logDirs": crafted["dirs"][0], "assign": '{"mixed":[1]}', "startingOffsets": '{"mixed":{"1":30}}'},
    )
    assert [(s["partition"], s["records"], s["firstOffset"], s["logBytes"]) for s in stats] == [
        (1, 0, None, 0)
    ]


def test_export_to_parquet_partitioned_by_topic_and_partition(spark, crafted, tmp_path):
    out = tmp_path / "export"
    result = export(spark, {"logDirs": ",".join(crafted["dirs"]), "topics": "mixed,other"}, str(out))
    expected = sorted(
        crafted["mixed0"].rows + crafted["mixed1"].rows + crafted["other"].rows,
        key=lambda r: (r.topic, r.partition, r.offset),
    )
    assert result["rows"] == len(expected)
    assert {p.name for p in out.iterdir() if p.is_dir()} == {"topic=mixed", "topic=other"}
    assert (out / "topic=mixed" / "partition=1").is_dir()
    back = spark.read.parquet(str(out))
    assert rows_of(back.collect()) == expected
    # an offset range of one partition, appended
    export(
        spark,
        {"logDirs": crafted["dirs"][0], "assign": '{"mixed":[1]}', "endingOffsets": '{"mixed":{"1":3}}'},
        str(out),
        mode="append",
    )
    assert spark.read.parquet(str(out)).where("topic = 'mixed' and partition = 1").count() == 30 + 3


def test_audit_of_a_clean_log_finds_nothing(spark, crafted):
    result = audit(spark, {"logDirs": ",".join(crafted["dirs"])})
    assert result["anomalies"] == []
    assert is_clean(result)
    t = result["totals"]
    assert (t["duplicates"], t["gaps"], t["outOfOrder"], t["epochRegressions"]) == (0, 0, 0, 0)
    idempotent = [r for r in crafted["mixed0"].rows if r.producer_id >= 0]
    # The audit reads read_uncommitted: the aborted transaction's 2 records are audited too.
    assert t["records"] == len(idempotent) + 2


def idempotent(pid, epoch, seq, n, ts=T0, tag=""):
    return Batch(
        [(b"k", f"{pid}/{epoch}/{seq + i}{tag}".encode()) for i in range(n)],
        [ts] * n,
        producer_id=pid,
        producer_epoch=epoch,
        base_sequence=seq,
    )


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    """A log with known anomalies, written through storage like a broker (or a bug) would."""
    log_dir = tmp_path_factory.mktemp("audit")
    p0 = write_partition(
        log_dir,
        "audited",
        0,
        [
            idempotent(500, 0, 0, 10),  # offsets 0..9
            idempotent(500, 0, 10, 10),  # 10..19
            idempotent(500, 0, 10, 10, tag=" again"),  # 20..29: the same (epoch, sequences) again
            idempotent(500, 0, 20, 10),  # 30..39
            idempotent(500, 0, 35, 5),  # 40..44: sequences 30..34 skipped
            idempotent(500, 1, 0, 3),  # 45..47: epoch bump, restarts at 0: fine
            idempotent(500, 2, 4, 2),  # 48..49: epoch bump starting at 4: 0..3 missing
            # 50..52: up to the wrap; read from offset 0 this epoch should have started at 0
            idempotent(600, 0, 2_147_483_645, 3),
            idempotent(600, 0, 0, 3),  # 53..55: wrapped to 0: fine
            Batch([(b"plain", b"x")], [T0]),  # 56: no producer: not audited
            idempotent(800, 1, 0, 2),  # 57..58
            idempotent(800, 0, 7, 1),  # 59: an older epoch after a newer one
        ],
    )
    p1 = write_partition(
        log_dir,
        "audited",
        1,
        [
            idempotent(500, 0, 0, 4),  # 0..3: the same producer id on another partition: separate
            idempotent(700, 0, 0, 3),  # 4..6
            idempotent(700, 0, 1, 1, tag=" again"),  # 7: a single duplicated record
            idempotent(700, 0, 3, 2),  # 8..9
        ],
    )
    set_high_watermarks(log_dir, {("audited", 0): p0.log_end_offset, ("audited", 1): p1.log_end_offset})
    return log_dir


def test_audit_finds_planted_duplicates_and_gaps(spark, planted):
    result = audit(spark, {"logDirs": str(planted)})
    found = {(a["kind"], a["partition"], a["producerId"], a["offset"]) for a in result["anomalies"]}
    dup_offsets = {(0, 500, o) for o in range(20, 30)} | {(1, 700, 7)}
    expected = {(DUPLICATE, p, pid, o) for p, pid, o in dup_offsets} | {
        (GAP, 0, 500, 40),
        (EPOCH_START_GAP, 0, 500, 48),
        (EPOCH_START_GAP, 0, 600, 50),
        (EPOCH_REGRESSION, 0, 800, 59),
    }
    assert found == expected
    by_producer = {(p["partition"], p["producerId"]): p for p in result["producers"]}
    p500 = by_producer[(0, 500)]
    assert (p500["duplicates"], p500["gaps"], p500["missingSequences"], p500["epochs"]) == (10, 2, 5 + 4, 3)
    # the wrap from 2147483647 to 0 is no gap; only the epoch's start is
    assert (by_producer[(0, 600)]["gaps"], by_producer[(0, 600)]["missingSequences"]) == (1, 2_147_483_645)
    assert by_producer[(1, 500)]["records"] == 4 and by_producer[(1, 500)]["gaps"] == 0
    assert by_producer[(1, 700)]["duplicates"] == 1
    assert by_producer[(0, 800)]["epochRegressions"] == 1
    assert not any(p["outOfOrder"] for p in result["producers"])
    assert not is_clean(result)
    dup = next(a for a in result["anomalies"] if a["offset"] == 25)
    assert dup["detail"] == "(epoch 0, sequence 15) also at offsets 15"
    gap = next(a for a in result["anomalies"] if a["kind"] == GAP)
    assert gap["detail"] == "5 sequence(s) missing: 30..34"


def test_audit_starting_mid_log_does_not_blame_the_first_epoch(spark, planted):
    result = audit(spark, {"logDirs": str(planted), "startingOffsets": '{"audited":{"0":3,"1":5}}'})
    kinds = {(a["kind"], a["partition"], a["producerId"]) for a in result["anomalies"]}
    # 700 starts at sequence 1 from offset 5, 600 at 2147483645: not gaps when read mid-log
    assert not {k for k in kinds if k[0] == EPOCH_START_GAP and k[2] in (600, 700)}
    assert (GAP, 0, 500) in kinds and (EPOCH_START_GAP, 0, 500) in kinds
    assert (DUPLICATE, 1, 700) in kinds


def test_out_of_order_without_duplicate(spark, tmp_path):
    write_partition(
        tmp_path, "t", 0, [idempotent(9, 0, 0, 5), idempotent(9, 0, 7, 2), idempotent(9, 0, 5, 2)]
    )
    set_high_watermarks(tmp_path, {("t", 0): 9})
    result = audit(spark, {"logDirs": str(tmp_path)})
    assert [(a["kind"], a["offset"]) for a in result["anomalies"]] == [
        (GAP, 5),
        (OUT_OF_ORDER, 7),
        (OUT_OF_ORDER, 8),
    ]


def job_env() -> dict[str, str]:
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable)
    env["SPARK_LOCAL_IP"] = "127.0.0.1"
    return env


def test_audit_command_exit_codes(planted):
    """python -m spark_jobs.audit: exit 1 and the anomalies on stdout (JSON lines)."""
    proc = subprocess.run(
        [sys.executable, "-m", "spark_jobs.audit", str(planted), "--master", "local[2]", "--json"],
        cwd=ROOT,
        env=job_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 1, proc.stderr[-3000:]
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    totals = lines[0]["totals"]
    assert (totals["duplicates"], totals["gaps"], totals["epochRegressions"]) == (11, 3, 1)
    assert "audit FAILED" in proc.stderr
    assert "audit: stage" in proc.stderr or "audit: " in proc.stderr


def test_topic_stats_with_spark_submit(crafted):
    """spark-submit spark_jobs/topic_stats.py works as is (no --py-files needed in local mode)."""
    spark_submit = Path(sys.executable).parent / "spark-submit"
    proc = subprocess.run(
        [str(spark_submit), "--master", "local[2]", "spark_jobs/topic_stats.py", *crafted["dirs"]],
        cwd=ROOT,
        env=job_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    # spark-submit merges the driver's stderr (log lines) into its stdout
    lines = [line.split() for line in proc.stdout.splitlines()]
    header = next(i for i, line in enumerate(lines) if line[:3] == ["topic", "partition", "records"])
    counts = {(r[0], int(r[1])): int(r[2]) for r in lines[header + 1 : header + 4]}
    assert counts == {
        ("mixed", 0): len(crafted["mixed0"].rows),
        ("mixed", 1): len(crafted["mixed1"].rows),
        ("other", 0): len(crafted["other"].rows),
    }
    assert "topic_stats done" in proc.stdout + proc.stderr


def test_job_command_lines_in_process(spark, crafted, planted, tmp_path, capsys):
    """Each job's main(): arguments, output and exit code (on the already running session)."""
    from spark_jobs import audit as audit_job
    from spark_jobs import export as export_job
    from spark_jobs import topic_stats as stats_job

    assert stats_job.main([*crafted["dirs"], "--topic-pattern", "oth.*", "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["topic"], r["partition"], r["records"]) for r in lines] == [("other", 0, 7)]

    out = tmp_path / "cli-export"
    argv = [crafted["dirs"][0], "--topics", "mixed", "--partitions", "1", "--output", str(out)]
    assert export_job.main([*argv, "--ending-offsets", '{"mixed":{"1":20}}', "--compression", "zstd"]) == 0
    captured = capsys.readouterr()
    table = captured.out
    assert "mixed" in table and "20" in table, captured
    assert spark.read.parquet(str(out)).count() == 20
    with pytest.raises(Exception, match="already exists"):
        export_job.main(argv)  # errorifexists by default
    assert export_job.main([*argv, "--mode", "overwrite"]) == 0
    assert spark.read.parquet(str(out)).count() == 30

    assert audit_job.main([str(planted), "--partitions", "1"]) == 1
    printed = capsys.readouterr().out
    assert "duplicate" in printed and "also at offsets 5" in printed
    assert audit_job.main([*crafted["dirs"]]) == 0
    assert audit_job.main(["/no/such/dir"]) == 2
