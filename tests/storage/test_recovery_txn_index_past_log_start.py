""".txnindex rebuilt after an unclean shutdown when the log start offset lies inside
the first recovered segment."""

from __future__ import annotations

from storage.log_config import LogConfig
from storage.partition_log import PartitionLog
from tests.storage.log_factory import append_batches, open_log
from tests.storage.test_recovery import crash
from tests.storage.txn_factory import TxnProducer


def test_aborted_txn_survives_recovery_with_log_start_inside_first_recovered_segment(tmp_path):
    plog = open_log(tmp_path)
    append_batches(plog, [2, 2, 2])  # offsets 0..5
    assert plog.delete_records_before(2) == 2  # log start 2, inside segment 0
    p = TxnProducer(plog, 777)
    p.send(2)  # offsets 6..7
    p.end(committed=False)  # abort marker at 8
    plog.roll()  # segment 9, roll snapshot at 9
    append_batches(plog, [2, 2])
    before = plog.collect_aborted_transactions(2, plog.log_end_offset)
    assert [(t.producer_id, t.first_offset, t.last_offset) for t in before] == [(777, 6, 8)]
    leo = plog.log_end_offset
    crash(plog)

    got = PartitionLog(
        tmp_path / "t-0",
        LogConfig(file_delete_delay_ms=0),
        log_start_offset=2,
        recovery_point=2,  # the recovery point follows the log start offset
        high_watermark=leo,
        had_clean_shutdown=False,
    )
    assert got.log_start_offset == 2 and got.log_end_offset == leo
    after = got.collect_aborted_transactions(2, got.log_end_offset)
    # read_committed consumers must still be told the transaction at 6..8 was aborted
    assert [(t.producer_id, t.first_offset, t.last_offset) for t in after] == [(777, 6, 8)]
