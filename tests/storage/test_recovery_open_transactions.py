"""Recovery after an unclean shutdown with transactions open at the crash: the last stable offset and
the .txnindex entries of later aborts."""

from __future__ import annotations

from storage.log_config import LogConfig
from storage.partition_log import PartitionLog
from tests.storage.log_factory import append_batches, open_log
from tests.storage.test_recovery import crash
from tests.storage.txn_factory import TxnProducer


def reopen(tmp_path, **kw):
    return PartitionLog(tmp_path / "t-0", LogConfig(file_delete_delay_ms=0), had_clean_shutdown=False, **kw)


def test_open_txn_spanning_a_roll_keeps_lso_and_abort_is_indexed(tmp_path):
    plog = open_log(tmp_path)
    append_batches(plog, [2])  # 0..1
    p = TxnProducer(plog, 55)
    p.send(2)  # 2..3
    plog.roll()  # snapshot at 4 with txn open from 2
    append_batches(plog, [2])  # 4..5
    p.send(1)  # 6
    q = TxnProducer(plog, 66)
    q.send(1)  # 7
    leo = plog.log_end_offset
    assert plog.last_stable_offset == 2
    crash(plog)
    got = reopen(tmp_path, recovery_point=4, high_watermark=leo)
    assert got.last_stable_offset == 2
    p.plog = got
    p.end(committed=False)
    assert got.last_stable_offset == 7
    aborted = got.collect_aborted_transactions(0, got.log_end_offset)
    assert [(t.producer_id, t.first_offset, t.last_offset, t.last_stable_offset) for t in aborted] == [
        (55, 2, 8, 7)
    ]


def test_open_txn_all_recovered(tmp_path):
    plog = open_log(tmp_path)
    append_batches(plog, [2])
    p = TxnProducer(plog, 55)
    p.send(2)  # 2..3
    plog.roll()
    p.send(1)  # 4
    p.end(committed=False)  # 5
    q = TxnProducer(plog, 66)
    q.send(1)  # 6
    plog.roll()
    p.send(1)  # 7
    p.end(committed=False)  # 8
    before = [tuple(t) for t in plog.collect_aborted_transactions(0, plog.log_end_offset)]
    leo = plog.log_end_offset
    crash(plog)
    got = reopen(tmp_path, recovery_point=0, high_watermark=leo)
    after = [tuple(t) for t in got.collect_aborted_transactions(0, got.log_end_offset)]
    assert after == before
    assert got.last_stable_offset == 6
