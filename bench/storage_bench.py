"""Storage benchmark: PartitionLog append and sequential read next to plain write()/read().

    python bench/storage_bench.py [--dir DIR] [--mib 256] [--repeat 5]

Batches of ~256 KiB (1 KiB and 100 B records) are built once with
``protocol.records.build_batch``, outside the timed loops. Each append resets the
batch's baseOffset to 0 (a client batch; the log patches it in place), then goes
through the whole leader path: validation (header, CRC-32C), producer-state check,
offset assignment, roll check, one ``os.pwrite``, index bookkeeping. The ceiling
is a plain ``os.write`` of the same bytes to a file in the same directory. Reads
are ``PartitionLog.read`` of 1 MiB (a consumer's default max.partition.fetch.bytes)
from offset 0 to the end, next to plain 1 MiB ``os.read`` calls of a file of the
same size. Nothing is fsynced (Kafka's defaults do not fsync either); reads come
from the page cache. The last rows show that an append costs the same for the
same batch size whether it holds 10 or 10,000 records.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import struct
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from protocol.record_batch import set_base_offset
from protocol.records import build_batch
from storage.log_config import LogConfig
from storage.partition_log import PartitionLog

BATCH_BYTES = 256 * 1024
READ_BYTES = 1024 * 1024
BOUNDS = struct.Struct(">qi11xi")  # baseOffset, batchLength, lastOffsetDelta


def make_batch(record_count: int, batch_bytes: int = BATCH_BYTES) -> bytearray:
    """A CreateTime batch of ``record_count`` equal records, about ``batch_bytes`` long."""
    per_record = max(1, (batch_bytes - 61) // record_count - 8)
    value = b"v" * per_record
    now = int(time.time() * 1000)
    return bytearray(build_batch([(None, value)] * record_count, timestamp=now))


def records_for(record_size: int) -> int:
    return max(1, BATCH_BYTES // (record_size + 8))


class Timing:
    """Wall-clock and user-CPU seconds of one timed section."""

    def __enter__(self) -> Timing:
        os.sync()  # start every run with no dirty pages of an earlier one
        usage = resource.getrusage(resource.RUSAGE_SELF)
        self._user, self._sys = usage.ru_utime, usage.ru_stime
        self._wall = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = time.perf_counter() - self._wall
        usage = resource.getrusage(resource.RUSAGE_SELF)
        self.user = usage.ru_utime - self._user
        self.cpu = self.user + usage.ru_stime - self._sys


def plain_write(directory: Path, batch: bytes, count: int) -> Timing:
    fd = os.open(directory / "plain.bin", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        with Timing() as t:
            for _ in range(count):
                os.write(fd, batch)
    finally:
        os.close(fd)
    return t


def plain_read(directory: Path, nbytes: int) -> Timing:
    fd = os.open(directory / "plain.bin", os.O_RDONLY)
    total = 0
    try:
        with Timing() as t:
            while True:
                chunk = os.read(fd, READ_BYTES)
                if not chunk:
                    break
                total += len(chunk)
    finally:
        os.close(fd)
    assert total == nbytes
    return t


def append(directory: Path, batch: bytearray, count: int) -> tuple[Timing, PartitionLog]:
    log_dir = directory / "bench-0"
    if log_dir.exists():
        shutil.rmtree(log_dir)
    plog = PartitionLog(log_dir, LogConfig())
    view = memoryview(batch)
    append_as_leader = plog.append_as_leader
    with Timing() as t:
        for _ in range(count):
            set_base_offset(view, 0, 0)  # a fresh client batch each time
            append_as_leader(view, 0)
    plog.update_high_watermark(plog.log_end_offset)
    return t, plog


def read(plog: PartitionLog, nbytes: int) -> Timing:
    offset, total = 0, 0
    end = plog.log_end_offset
    with Timing() as t:
        while offset < end:
            data = plog.read(offset, READ_BYTES, max_offset=end).records
            total += len(data)
            offset = next_offset(data)
    assert total == nbytes, (total, nbytes)
    return t


def next_offset(data: bytes) -> int:
    """One past the last offset of the last batch in ``data`` (a consumer's next fetch offset)."""
    pos, nxt = 0, 0
    while pos < len(data):
        base, length, delta = BOUNDS.unpack_from(data, pos)
        nxt = base + delta + 1
        pos += length + 12
    return nxt


def median(timings: list[Timing]) -> tuple[float, float, float]:
    """Medians of (wall, user CPU, user+system CPU) seconds."""
    return (
        statistics.median(t.wall for t in timings),
        statistics.median(t.user for t in timings),
        statistics.median(t.cpu for t in timings),
    )


def ratio(ceiling: tuple[float, float, float], measured: tuple[float, float, float], what: str) -> str:
    return (
        f"{100 * ceiling[0] / measured[0]:.0f}% of {what} (CPU time: {100 * ceiling[2] / measured[2]:.0f}%)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--dir", type=Path, default=Path(tempfile.gettempdir()), help="where to write (one disk)"
    )
    parser.add_argument("--mib", type=int, default=256, help="bytes appended per run, in MiB")
    parser.add_argument("--repeat", type=int, default=5, help="runs per case, interleaved (medians shown)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="moldau-bench-", dir=args.dir))
    rows: list[tuple[str, float, float, float, float, str]] = []

    def row(name: str, nbytes: int, ops: float, timing: tuple[float, float, float], note: str = "") -> None:
        wall, user, cpu = timing
        rows.append((name, nbytes / wall / 1e6, wall / ops * 1e6, user / ops * 1e6, cpu / ops * 1e6, note))

    try:
        count = args.mib * 1024 * 1024 // BATCH_BYTES
        for record_size in (1024, 100):
            n = records_for(record_size)
            batch = make_batch(n)
            nbytes = len(batch) * count
            writes, appends, reads, log_reads = [], [], [], []
            for _ in range(args.repeat):  # interleaved, so load changes hit both alike
                writes.append(plain_write(work, bytes(batch), count))
                reads.append(plain_read(work, nbytes))
                t, plog = append(work, batch, count)
                appends.append(t)
                log_reads.append(read(plog, nbytes))
                plog.close()
            w, a, r, lr = median(writes), median(appends), median(reads), median(log_reads)
            row(f"plain write() {len(batch) // 1024} KiB", nbytes, count, w)
            row(
                f"append {record_size} B records, {n}/batch",
                nbytes,
                count,
                a,
                ratio(w, a, "write()"),
            )
            row("plain read() 1 MiB", nbytes, nbytes / READ_BYTES, r)
            row(
                f"read 1 MiB, {record_size} B records",
                nbytes,
                nbytes / READ_BYTES,
                lr,
                ratio(r, lr, "read()"),
            )
            os.unlink(work / "plain.bin")
        small = max(256, count // 2)
        batches = {n: make_batch(n) for n in (10, 10_000)}
        timings: dict[int, list[Timing]] = {n: [] for n in batches}
        for _ in range(args.repeat):
            for n, batch in batches.items():
                t, plog = append(work, batch, small)
                plog.close()
                timings[n].append(t)
        for n, batch in batches.items():
            row(
                f"append {n} records/batch ({len(batch) // 1024} KiB)",
                len(batch) * small,
                small,
                median(timings[n]),
                "same cost",
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{'case':<38} {'MB/s':>7} {'us/op':>7} {'user us':>8} {'cpu us':>7}  note")
    print("-" * 110)
    for name, rate, us, user_us, cpu_us, note in rows:
        print(f"{name:<38} {rate:>7.0f} {us:>7.1f} {user_us:>8.1f} {cpu_us:>7.1f}  {note}")
    print("us/op: wall time per append (one batch) or per 1 MiB read. user us: Python-side CPU;")
    print("cpu us: user + system CPU (with the kernel's copies), steadier than wall time on a busy host.")


if __name__ == "__main__":
    main()
