"""Records per second reading a 1 GiB partition log: the moldau data source in Spark local[2]
next to the plain Python decoder (protocol.records.decode_batch) on one core.

    .venv/bin/python bench/spark_bench.py [--size-mib 1024] [--value-size 100] [--compression none]

The log is written once through storage's PartitionLog (one idempotent producer, batches of
``--batch-records`` records, Kafka's file layout with its indexes and a
replication-offset-checkpoint) and cached under ``$TMPDIR/moldau-spark-bench``; later runs
with the same parameters reuse it. Rows printed:

- plain decoder, 1 core: every batch of the segment files through ``decode_batch``;
- data source reader, 1 core: the data source's own read path (columnar decoder, Arrow
  batches) over the same byte ranges, without Spark;
- Spark local[2]: ``spark.read.format("moldau").load(dir)`` aggregated (count and the sum
  of value lengths, so every record is decoded and handed to the JVM), best of ``--runs``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from protocol import compression
from protocol.record_batch import CRC_OFFSET, compute_crc, iter_batches
from protocol.records import build_batch, decode_batch
from storage.checkpoints import HIGH_WATERMARK_CHECKPOINT, OffsetCheckpointFile
from storage.log_config import LogConfig
from storage.partition_log import PartitionLog
from storage.producer_state import AppendOrigin

TOPIC = "bench"
MIB = 1024 * 1024
_BASE_SEQUENCE_OFFSET = 53


def generate(directory: Path, size_mib: int, value_size: int, batch_records: int, codec: int) -> dict:
    """Write the log (once); returns its description."""
    marker = directory / "bench.json"
    if marker.exists():
        return json.loads(marker.read_text())
    log_dir = directory / "data"
    log_dir.mkdir(parents=True, exist_ok=True)
    rng = random.Random(1)
    now = int(time.time() * 1000)
    templates = []
    for t in range(16):
        records = [
            (
                f"key-{t}-{i % 100}".encode(),
                rng.randbytes(value_size // 2) + b"x" * (value_size - value_size // 2),
            )
            for i in range(batch_records)
        ]
        templates.append(
            bytearray(
                build_batch(
                    records,
                    compression_type=codec,
                    producer_id=1,
                    producer_epoch=0,
                    base_sequence=0,
                    timestamps=[now + i for i in range(batch_records)],
                )
            )
        )
    plog = PartitionLog(log_dir / f"{TOPIC}-0", LogConfig())
    target = size_mib * MIB
    written = 0
    sequence = 0
    started = time.monotonic()
    try:
        while written < target:
            batch = bytearray(templates[(sequence // batch_records) % len(templates)])
            # a new base sequence (covered by the CRC), so the log is one clean idempotent run
            batch[_BASE_SEQUENCE_OFFSET : _BASE_SEQUENCE_OFFSET + 4] = sequence.to_bytes(4, "big")
            batch[CRC_OFFSET : CRC_OFFSET + 4] = compute_crc(batch, 0, len(batch)).to_bytes(4, "big")
            plog.append_as_leader(memoryview(batch), 0, origin=AppendOrigin.REPLICATION)
            written += len(batch)
            sequence = (sequence + batch_records) % (1 << 31)
            if written // (64 * MIB) != (written - len(batch)) // (64 * MIB):
                print(f"  writing the log: {written // MIB} of {size_mib} MiB", file=sys.stderr)
        records = plog.log_end_offset
    finally:
        plog.close()
    OffsetCheckpointFile(log_dir / HIGH_WATERMARK_CHECKPOINT).write({(TOPIC, 0): records})
    info = {"log_dir": str(log_dir), "records": records, "bytes": written}
    marker.write_text(json.dumps(info))
    print(
        f"  wrote {written / MIB:.0f} MiB, {records} records in {time.monotonic() - started:.1f} s",
        file=sys.stderr,
    )
    return info


def plain_decoder(log_dir: Path) -> int:
    """Every record of every segment through protocol.records.decode_batch (one core)."""
    count = 0
    chunk_size = 16 * MIB
    for segment in sorted((log_dir / f"{TOPIC}-0").glob("*.log")):
        with open(segment, "rb") as f:
            rest = b""
            while True:
                chunk = f.read(chunk_size)
                if not chunk:
                    break
                buf = memoryview(rest + chunk)
                end = 0
                for pos, header in iter_batches(buf):
                    count += len(decode_batch(buf[pos : pos + header.size], header))
                    end = pos + header.size
                rest = bytes(buf[end:])
    return count


def data_source_reader(log_dir: Path) -> int:
    """The data source's read path (spark_jobs.range_reader) over its planned ranges, no Spark."""
    from spark_jobs.options import parse_options
    from spark_jobs.planner import plan_batch
    from spark_jobs.range_reader import read_range

    plan = plan_batch(parse_options({"path": str(log_dir)}, streaming=False))
    return sum(batch.num_rows for r in plan.reads for batch in read_range(r))


def spark_local(log_dir: Path, runs: int, master: str) -> list[tuple[float, int]]:
    from pyspark.sql import functions as F

    from spark_jobs.session import build_session

    spark = build_session(
        "moldau-bench", master, {"spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false"}
    )
    spark.sparkContext.setLogLevel("ERROR")
    out = []
    try:
        for _ in range(runs):
            df = spark.read.format("moldau").load(str(log_dir))
            started = time.perf_counter()
            row = df.agg(F.count(F.lit(1)).alias("n"), F.sum(F.length("value")).alias("bytes")).collect()[0]
            out.append((time.perf_counter() - started, row["n"]))
    finally:
        spark.stop()
    return out


def timed(fn, *args) -> tuple[float, int]:
    started = time.perf_counter()
    n = fn(*args)
    return time.perf_counter() - started, n


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size-mib", type=int, default=1024)
    parser.add_argument("--value-size", type=int, default=100)
    parser.add_argument("--batch-records", type=int, default=500)
    parser.add_argument("--compression", default="none", choices=sorted(compression.BY_NAME))
    parser.add_argument("--runs", type=int, default=2, help="Spark runs (the first one starts the workers)")
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--cache-dir", default=os.path.join(tempfile.gettempdir(), "moldau-spark-bench"))
    parser.add_argument("--skip-plain", action="store_true", help="skip the plain decoder row")
    args = parser.parse_args(argv)

    params = f"{args.size_mib}-{args.value_size}-{args.batch_records}-{args.compression}"
    directory = Path(args.cache_dir) / hashlib.sha1(params.encode()).hexdigest()[:12]
    info = generate(
        directory, args.size_mib, args.value_size, args.batch_records, compression.BY_NAME[args.compression]
    )
    log_dir = Path(info["log_dir"])
    size = info["bytes"]
    print(
        f"log: {size / MIB:.0f} MiB, {info['records']} records of {args.value_size}-byte values, "
        f"{args.batch_records} per batch, compression {args.compression} ({log_dir})"
    )
    rows = []
    if not args.skip_plain:
        rows.append(("plain decoder (decode_batch)", "1", *timed(plain_decoder, log_dir)))
    rows.append(("data source reader, no Spark", "1", *timed(data_source_reader, log_dir)))
    spark_runs = spark_local(log_dir, args.runs, args.master)
    best = min(spark_runs)
    rows.append((f"Spark {args.master}, moldau source", args.master, *best))
    print()
    print(f"{'reader':<34} {'cores':>9} {'records':>11} {'seconds':>8} {'records/s':>11} {'MiB/s':>7}")
    for name, cores, seconds, n in rows:
        assert n == info["records"], f"{name} read {n} records, the log has {info['records']}"
        print(
            f"{name:<34} {cores:>9} {n:>11} {seconds:>8.1f} {n / seconds:>11,.0f} {size / MIB / seconds:>7.1f}"
        )
    if len(spark_runs) > 1:
        print(
            f"(Spark runs: {', '.join(f'{s:.1f} s' for s, _ in spark_runs)}; the first starts the Python workers)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
