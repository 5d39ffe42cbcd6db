"""The cleaner and an aborted transaction whose ABORT marker lies past the cleaned range (a transaction
across a segment roll): its records must not shadow the committed values of their keys."""

from __future__ import annotations

from tests.storage.test_log_cleaner import append, clean_once, compacted_log, make_cleaner, read_batches
from tests.storage.test_log_cleaner_txns import txn_send
from tests.storage.txn_factory import append_marker

PID = 601


def test_aborted_records_whose_marker_is_in_the_active_segment_do_not_shadow_committed_ones(tmp_path):
    plog = compacted_log(tmp_path)
    append(plog, [(b"k1", b"committed")])  # offset 0
    txn_send(plog, PID, 0, [(b"k1", b"aborted")])  # offset 1, transaction of PID
    plog.roll()  # the transaction spans a segment roll
    append_marker(plog, PID, 0, committed=False)  # offset 2: ABORT, in the active segment
    assert plog.last_stable_offset == plog.log_end_offset == 3
    assert [(t.producer_id, t.first_offset) for t in plog.collect_aborted_transactions(0, 3)] == [(PID, 1)]

    assert clean_once(make_cleaner([plog], tmp_path)) is not None

    # Kafka's Cleaner (buildOffsetMap / cleanSegments -> UnifiedLog.collectAbortedTransactions,
    # which walks the .txnindex of later segments too) leaves out the aborted record: k1's
    # committed value stays. Here the aborted record counts as committed and removes it, so a
    # read_committed consumer no longer sees any value of k1.
    values = [
        (h.base_offset, r.value)
        for h, records in read_batches(plog)
        if not h.is_control
        for r in records
        if r.key == b"k1"
    ]
    assert (0, b"committed") in values
