"""Fixtures of the Spark tests: one local[2] SparkSession for the whole run, crafted logs.

Spark starts slowly (a JVM, then Python workers), so every Spark test module shares
the session-scoped ``spark`` fixture.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from protocol import compression
from spark_jobs.log_files import LogDirs
from storage.log_config import LogConfig
from storage.transaction_index import decode_entries
from tests.spark.crafted_logs import (
    ABORT,
    COMMIT,
    Batch,
    WrittenPartition,
    control_batch,
    set_high_watermarks,
    write_partition,
)

# pytest's 300 s per-test timeout (pyproject) counts fixture set-up: the first Spark test of
# each xdist worker pays for the shared session's JVM start, which took 200 s on a loaded
# 2-core machine with the other worker starting its own, and the job CLI tests start a JVM
# of their own. A timeout firing inside a py4j call also leaves the shared session answering
# the wrong calls, which failed every later Spark test of that worker. The bound stays a
# stall catcher, sized for that load.
SPARK_TEST_TIMEOUT_S = 900


def pytest_collection_modifyitems(config, items):
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.timeout(SPARK_TEST_TIMEOUT_S))


T0 = 1_700_000_000_000  # ms; batch i of "mixed-0" has timestamps T0 + i*1000 + j
SMALL_SEGMENTS = LogConfig(segment_bytes=8192, index_interval_bytes=300)
AUDITED_PRODUCER = 1000
TXN_COMMITTED = 2000
TXN_ABORTED = 3000
CODECS = (compression.NONE, compression.GZIP, compression.SNAPPY, compression.LZ4, compression.ZSTD)


@pytest.fixture(scope="session")
def spark():
    from spark_jobs.session import build_session

    session = build_session(
        "moldau-tests",
        "local[2]",
        {
            "spark.ui.enabled": "false",
            "spark.sql.shuffle.partitions": "2",
            "spark.default.parallelism": "2",
            "spark.sql.session.timeZone": "UTC",
            "spark.ui.showConsoleProgress": "false",
        },
    )
    yield session
    session.stop()


def _mixed_records(i: int, rng: random.Random) -> list[tuple]:
    """10 records with every shape: null key, null value, empty value, headers, multi-byte lengths."""
    out = []
    for j in range(10):
        key = None if j == 3 else f"k{i}-{j}".encode()
        if j == 4:
            value = None
        elif j == 5:
            value = b""
        elif j == 6:
            value = rng.randbytes(300 if i % 2 else 6000)
        else:
            value = f"value {i}/{j} ".encode() * (j + 1)
        headers = [("trace", f"t{i}".encode()), ("empty", None), ("ünï", b"\x00\xff")] if j == 0 else []
        out.append((key, value, headers))
    return out


def write_mixed(log_dir: Path) -> WrittenPartition:
    """mixed-0: 30 idempotent batches of every codec over several segments, with a
    non-idempotent batch, a LogAppendTime batch, a committed and an aborted transaction
    (the log writes its .txnindex entry, as Kafka does) and a partial batch at the end."""
    rng = random.Random(7)
    batches: list[Batch] = []
    aborted_positions = []
    for i in range(30):
        ts = [T0 + i * 1000 + j for j in range(10)]
        batches.append(
            Batch(
                _mixed_records(i, rng),
                ts,
                codec=CODECS[i % 5],
                producer_id=AUDITED_PRODUCER,
                producer_epoch=0,
                base_sequence=10 * i,
                log_append_time=(i == 10),
            )
        )
        if i == 5:
            batches.append(Batch([(b"plain", b"no producer")] * 3, [T0 + i * 1000 + 500] * 3))
        if i == 12:
            for n in range(2):
                batches.append(
                    Batch(
                        [(b"tx", f"committed {n}".encode())],
                        [T0 + i * 1000 + 600 + n],
                        codec=compression.LZ4,
                        producer_id=TXN_COMMITTED,
                        producer_epoch=3,
                        base_sequence=n,
                        transactional=True,
                    )
                )
            batches.append(control_batch(TXN_COMMITTED, 3, COMMIT, T0 + i * 1000 + 700))
        if i == 20:
            for n in range(2):
                aborted_positions.append(len(batches))
                batches.append(
                    Batch(
                        [(b"tx", f"aborted {n}".encode())],
                        [T0 + i * 1000 + 600 + n],
                        producer_id=TXN_ABORTED,
                        producer_epoch=0,
                        base_sequence=n,
                        transactional=True,
                    )
                )
            aborted_positions.append(len(batches))
            batches.append(control_batch(TXN_ABORTED, 0, ABORT, T0 + i * 1000 + 700))
    written = write_partition(log_dir, "mixed", 0, batches, config=SMALL_SEGMENTS)
    first_aborted = written.base_offsets[aborted_positions[0]]
    marker = written.base_offsets[aborted_positions[-1]]
    written.rows = [r for r in written.rows if r.producer_id != TXN_ABORTED]
    # The log wrote the aborted transaction's .txnindex entry itself, in the marker's segment.
    entries = [e for p in written.directory.glob("*.txnindex") for e in decode_entries(p.read_bytes())]
    assert [(e.producer_id, e.first_offset, e.last_offset) for e in entries] == [
        (TXN_ABORTED, first_aborted, marker)
    ]
    # An append in progress: the first half of a batch after the last whole one.
    partial = Batch(
        [(b"partial", b"x" * 500)], [T0 + 99_000], producer_id=AUDITED_PRODUCER, base_sequence=300
    )
    last_segment = sorted(written.directory.glob("*.log"))[-1]
    with open(last_segment, "ab") as f:
        f.write(partial.encode()[:200])
    set_high_watermarks(log_dir, {("mixed", 0): written.log_end_offset})
    return written


@pytest.fixture(scope="session")
def crafted(tmp_path_factory) -> dict:
    """Two log dirs: dir A holds mixed-0 and mixed-1 (high watermark below its log end) and an
    internal topic; dir B holds other-0. Returns the dirs and the rows each partition must give."""
    dir_a = tmp_path_factory.mktemp("logs") / "a"
    dir_b = dir_a.parent / "b"
    dir_a.mkdir()
    dir_b.mkdir()
    mixed0 = write_mixed(dir_a)
    mixed1 = write_partition(
        dir_a,
        "mixed",
        1,
        [Batch([(f"m1-{i}-{j}".encode(), b"v") for j in range(10)], [T0 + i] * 10) for i in range(5)],
    )
    set_high_watermarks(dir_a, {("mixed", 1): 30})
    mixed1.rows = [r for r in mixed1.rows if r.offset < 30]
    internal = write_partition(dir_a, "__internal", 0, [Batch([(b"i", b"i")], [T0])])
    set_high_watermarks(dir_a, {("__internal", 0): internal.log_end_offset})
    other = write_partition(
        dir_b,
        "other",
        0,
        [Batch([(b"o", b"other %d" % i)], [T0 + i], codec=compression.ZSTD) for i in range(7)],
    )
    set_high_watermarks(dir_b, {("other", 0): other.log_end_offset})
    return {
        "dirs": [str(dir_a), str(dir_b)],
        "dir_a": dir_a,
        "dir_b": dir_b,
        "mixed0": mixed0,
        "mixed1": mixed1,
        "internal": internal,
        "other": other,
    }


@pytest.fixture(scope="session")
def crafted_log_dirs(crafted) -> LogDirs:
    return LogDirs.scan(crafted["dirs"])
