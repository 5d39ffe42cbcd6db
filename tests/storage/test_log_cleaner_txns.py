"""The log cleaner and transactions: aborted records go, markers and .txnindex entries stay,
the last stable offset bounds the cleaning."""

from __future__ import annotations

from protocol.control_records import read_end_txn_marker
from protocol.records import build_batch
from storage.transaction_index import AbortedTxn
from tests.storage.test_log_cleaner import NOW, append, clean_once, compacted_log, make_cleaner, read_batches
from tests.storage.txn_factory import append_marker

PID_A, PID_B = 501, 502


def txn_send(plog, pid: int, seq: int, records) -> int:
    raw = bytearray(
        build_batch(
            records, producer_id=pid, producer_epoch=0, base_sequence=seq, transactional=True, timestamp=NOW
        )
    )
    info = plog.append_as_leader(memoryview(raw), 0, now_ms=NOW)
    plog.update_high_watermark(plog.log_end_offset)
    return info.base_offset


def all_aborted(plog) -> list[AbortedTxn]:
    return [t for seg in plog.segments() for t in seg.txn_index.all_aborted_txns()]


def test_aborted_records_are_removed_and_markers_kept(tmp_path):
    plog = compacted_log(tmp_path)
    append(plog, [(b"k1", b"plain-1"), (b"k2", b"plain-2")])
    # An aborted transaction overwrites k1 and k2: its records must not shadow the plain ones.
    txn_send(plog, PID_A, 0, [(b"k1", b"aborted-1"), (b"k2", b"aborted-2")])
    txn_send(plog, PID_B, 0, [(b"k3", b"committed-3")])
    append_marker(plog, PID_A, 0, committed=False)
    append_marker(plog, PID_B, 0, committed=True)
    for i in range(40):  # roll segments so the transactions are below the active one
        append(plog, [(f"filler{i}".encode(), b"x" * 60)])
    aborted_before = all_aborted(plog)
    assert [(t.producer_id, t.first_offset) for t in aborted_before] == [(PID_A, 2)]
    assert len(plog.segments()) > 2
    assert clean_once(make_cleaner([plog], tmp_path)) is not None

    values = {}
    markers = []
    for header, records in read_batches(plog):
        if header.is_control:
            markers.append((header.producer_id, header.base_offset))
            continue
        for r in records:
            values.setdefault(r.key, []).append(r.value)
    assert values[b"k1"] == [b"plain-1"] and values[b"k2"] == [b"plain-2"]  # the aborted ones are gone
    assert values[b"k3"] == [b"committed-3"]
    assert markers == [(PID_A, 5), (PID_B, 6)]  # markers stay
    assert all_aborted(plog) == aborted_before  # and so does the .txnindex entry, in the cleaned segment
    assert plog.collect_aborted_transactions(0, plog.log_end_offset) == aborted_before


def test_cleaning_stops_at_the_last_stable_offset(tmp_path):
    plog = compacted_log(tmp_path)
    append(plog, [(b"k", b"v0")])
    txn_send(plog, PID_A, 0, [(b"k", b"open")])  # offset 1, never ended
    for i in range(40):
        append(plog, [(b"k", f"v{i + 1}".encode() + b"x" * 60)])
    assert plog.last_stable_offset == 1
    clean_once(make_cleaner([plog], tmp_path))
    # Nothing at or past the LSO was cleaned: the open transaction's record is still there.
    batches = read_batches(plog)
    assert any(r.value == b"open" for _h, records in batches for r in records)
    assert plog.producer_state.last_entry(PID_A).current_txn_first_offset == 1


def test_cleaned_log_reloads_with_its_txnindex(tmp_path):
    plog = compacted_log(tmp_path)
    txn_send(plog, PID_A, 0, [(b"k1", b"aborted")])
    append_marker(plog, PID_A, 0, committed=False)
    for i in range(40):
        append(plog, [(f"f{i}".encode(), b"x" * 60)])
    clean_once(make_cleaner([plog], tmp_path))
    expected = all_aborted(plog)
    assert expected == [AbortedTxn(PID_A, 0, 1, 2)]
    plog.close()
    again = compacted_log(tmp_path)
    assert all_aborted(again) == expected
    ((header, _),) = [(h, r) for h, r in read_batches(again) if h.is_control]
    raw = again.read(header.base_offset, 1 << 20).records
    assert read_end_txn_marker(raw[: header.size]).committed is False
