"""Transactions in the Spark data source: read_committed (the default) returns exactly the
committed records, never reads past the last stable offset, and never returns control batches.

The logs are written by the broker's own storage (``PartitionLog``): transactional batches,
COMMIT / ABORT markers appended with origin COORDINATOR (``.txnindex`` entries for the
aborts), producer snapshots at rolls and at close.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from protocol.records import build_batch
from spark_jobs.log_files import LogDirs
from storage.log_config import LogConfig
from storage.partition_log import PartitionLog
from tests.spark.crafted_logs import set_high_watermarks
from tests.storage.batch_factory import BASE_TS
from tests.storage.txn_factory import TxnProducer

TOPIC = "txns"


def write_log(log_dir: Path, *, leave_open: bool = True, segment_bytes: int = 1024) -> dict:
    """Plain records, committed and aborted transactions interleaved, and (``leave_open``) a
    transaction still open followed by plain records. Returns the expected values."""
    plog = PartitionLog(
        log_dir / f"{TOPIC}-0", LogConfig(segment_bytes=segment_bytes, file_delete_delay_ms=0)
    )
    everything: list[bytes] = []  # every data record, in offset order

    aborted: set[bytes] = set()

    def plain(value: str) -> None:
        batch = build_batch([(b"p", value.encode())], timestamp=BASE_TS)
        plog.append_as_leader(memoryview(bytearray(batch)), 0)
        everything.append(value.encode())

    def send(p: TxnProducer, n: int, tag: str, into: list) -> None:
        for _ in range(n):
            value = f"{tag}:{p.seq}"
            p.send(1, tag=tag)
            into.append(value.encode())
            everything.append(value.encode())

    plain("before")
    a, b, c = TxnProducer(plog, 101), TxnProducer(plog, 102), TxnProducer(plog, 103)
    a_rows: list[bytes] = []
    b_rows: list[bytes] = []
    c_rows: list[bytes] = []
    for round_ in range(4):
        send(a, 3, f"a{round_}", a_rows)
        send(b, 2, f"b{round_}", b_rows)
        plain(f"middle{round_}")
        send(c, 2, f"c{round_}", c_rows)
        a.end(committed=True)
        b.end(committed=False)
        send(c, 1, f"c{round_}", c_rows)
        c.end(committed=round_ % 2 == 0)
        aborted.update(b_rows + (c_rows if round_ % 2 else []))
        a_rows, b_rows, c_rows = [], [], []
    committed = [v for v in everything if v not in aborted]
    lso = None
    if leave_open:
        d = TxnProducer(plog, 104)
        lso = plog.log_end_offset
        send(d, 2, "open", [])
        after = build_batch([(b"p", b"after")], timestamp=BASE_TS)
        plog.append_as_leader(memoryview(bytearray(after)), 0)
        everything.append(b"after")
    assert plog.last_stable_offset == (lso if lso is not None else plog.log_end_offset)
    hw = plog.log_end_offset
    segments = len(plog.segments())
    plog.close()
    set_high_watermarks(log_dir, {(TOPIC, 0): hw})
    return {"committed": committed, "everything": everything, "lso": lso, "hw": hw, "segments": segments}


def test_lso_rebuilt_from_snapshot_and_headers(tmp_path):
    expected = write_log(tmp_path)
    assert expected["segments"] > 3
    pf = LogDirs.scan([tmp_path]).partitions[(TOPIC, 0)]
    assert pf.high_watermark == expected["hw"]
    assert pf.last_stable_offset == expected["lso"]
    assert pf.open_transactions == {104: expected["lso"]}
    # The same without any producer snapshot: all from the batch headers.
    for snap in (tmp_path / f"{TOPIC}-0").glob("*.snapshot"):
        snap.unlink()
    pf = LogDirs.scan([tmp_path]).partitions[(TOPIC, 0)]
    assert pf.last_stable_offset == expected["lso"]
    assert pf.end_offset(read_committed=False) == expected["hw"]


def test_a_high_watermark_inside_a_transaction_keeps_it_open(tmp_path):
    expected = write_log(tmp_path, leave_open=False)
    pf = LogDirs.scan([tmp_path]).partitions[(TOPIC, 0)]
    assert pf.last_stable_offset == pf.high_watermark == expected["hw"]
    # A high watermark just before the last marker: the last transaction of c is open there
    # (the snapshot at the log end is past it and is not used).
    set_high_watermarks(tmp_path, {(TOPIC, 0): expected["hw"] - 1})
    pf = LogDirs.scan([tmp_path]).partitions[(TOPIC, 0)]
    assert 103 in pf.open_transactions
    assert pf.last_stable_offset == pf.open_transactions[103] < pf.high_watermark


@pytest.mark.spark
def test_spark_read_committed_returns_exactly_the_committed_rows(spark, tmp_path):
    expected = write_log(tmp_path)
    df = spark.read.format("moldau").option("topics", TOPIC).load(str(tmp_path))
    rows = df.orderBy("offset").collect()
    assert [r.value for r in rows] == expected["committed"]
    assert max(r.offset for r in rows) < expected["lso"]  # nothing at or past the LSO
    uncommitted = (
        spark.read.format("moldau")
        .option("topics", TOPIC)
        .option("isolationLevel", "read_uncommitted")
        .load(str(tmp_path))
        .orderBy("offset")
        .collect()
    )
    # Every data record below the high watermark, aborted ones too; no control batch is a row.
    assert [r.value for r in uncommitted] == expected["everything"]
    assert all(not r.key.startswith(b"\x00\x00\x00") for r in uncommitted)


@pytest.mark.spark
def test_audit_reports_open_and_hanging_transactions(spark, tmp_path):
    from spark_jobs.audit import audit, is_clean

    expected = write_log(tmp_path)
    options = {"logDirs": str(tmp_path), "topics": TOPIC}
    fresh = audit(spark, options, now_ms=BASE_TS + 1000)
    assert fresh["openTransactions"] == [
        {
            "topic": TOPIC,
            "partition": 0,
            "producerId": 104,
            "firstOffset": expected["lso"],
            "firstTimestamp": BASE_TS,
            "lastStableOffset": expected["lso"],
            "highWatermark": expected["hw"],
            "hanging": False,
        }
    ]
    assert fresh["totals"]["openTransactions"] == 1 and is_clean(fresh)
    late = audit(spark, options, now_ms=BASE_TS + 900_001)
    assert late["totals"]["hangingTransactions"] == 1 and not is_clean(late)
