"""The log cleaner and transactions: aborted records go, the last stable offset bounds the
cleaning, markers of transactions without batches left go after their delete horizon
(KIP-534) and the .txnindex keeps the entries of aborted transactions with batches left."""

from __future__ import annotations

import io

from protocol.control_records import read_end_txn_marker
from protocol.record_batch import DELETE_HORIZON_MASK
from protocol.records import build_batch
from storage.transaction_index import AbortedTxn
from tests.storage.test_log_cleaner import NOW, append, clean_once, compacted_log, make_cleaner, read_batches
from tests.storage.txn_factory import append_marker
from tools import dump_log

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


# ---------------------------------------------------------------------- markers (KIP-534)

PID_C = 503


def roll(plog, tag: str, n: int = 40) -> None:
    """Plain records on keys of their own: rolls segments and makes the log dirty again."""
    for i in range(n):
        append(plog, [(f"filler{i}".encode(), tag.encode() + b"x" * 60)])


def clean_at(plog, tmp_path, now: int) -> None:
    assert clean_once(make_cleaner([plog], tmp_path, now=now)) is not None


def markers(plog) -> dict[int, tuple[int, bool, int]]:
    """Offset -> (producer id, has a delete horizon, base timestamp) of each control batch."""
    return {
        h.base_offset: (h.producer_id, bool(h.attributes & DELETE_HORIZON_MASK), h.base_timestamp)
        for h, _ in read_batches(plog)
        if h.is_control
    }


def committed_view(plog) -> dict[bytes, list[bytes | None]]:
    """What a read_committed consumer reads: records below the LSO, aborted transactions left out
    (as a consumer does with the fetch's aborted transactions)."""
    lso = plog.last_stable_offset
    aborted = plog.collect_aborted_transactions(0, lso)
    out: dict[bytes, list[bytes | None]] = {}
    for header, records in read_batches(plog):
        if header.is_control or header.base_offset >= lso:
            continue
        if header.is_transactional and any(
            t.producer_id == header.producer_id and t.first_offset <= header.base_offset <= t.last_offset
            for t in aborted
        ):
            continue
        for r in records:
            out.setdefault(r.key, []).append(r.value)
    return out


def assert_reloads_consistently(plog, tmp_path):
    """Producer state rebuilt from the cleaned log: same LSO, no open transaction, same reads."""
    lso, view = plog.last_stable_offset, committed_view(plog)
    assert lso == plog.log_end_offset
    plog.close()
    again = compacted_log(tmp_path)
    again.update_high_watermark(again.log_end_offset)  # a broker takes it from its checkpoint
    assert again.last_stable_offset == lso
    for pid in (PID_A, PID_B, PID_C):
        entry = again.producer_state.last_entry(pid)
        assert entry is None or entry.current_txn_first_offset == -1
    assert committed_view(again) == view
    return again


def test_marker_of_an_emptied_transaction_goes_after_its_delete_horizon(tmp_path):
    plog = compacted_log(tmp_path)
    txn_send(plog, PID_B, 0, [(b"k3", b"committed-3")])
    m1 = append_marker(plog, PID_B, 0, committed=True).base_offset
    txn_send(plog, PID_B, 1, [(b"k9", b"committed-9")])  # PID_B's last data batch: kept
    m2 = append_marker(plog, PID_B, 0, committed=True).base_offset
    txn_send(plog, PID_C, 0, [(b"k5", b"committed-5")])  # never superseded
    m3 = append_marker(plog, PID_C, 0, committed=True).base_offset
    txn_send(plog, PID_C, 1, [(b"k6", b"committed-6")])
    m4 = append_marker(plog, PID_C, 0, committed=True).base_offset
    append(plog, [(b"k3", b"plain-3")])  # supersedes the first transaction's only record
    roll(plog, "a")
    retention = plog.config.delete_retention_ms

    # Round 1 removes the first transaction's batch; its marker was read with it, so stays.
    clean_at(plog, tmp_path, NOW)
    assert markers(plog) == {
        m: (pid, False, NOW) for m, pid in ((m1, PID_B), (m2, PID_B), (m3, PID_C), (m4, PID_C))
    }
    assert committed_view(plog)[b"k3"] == [b"plain-3"]

    # Round 2 finds the marker's transaction empty: the marker gets its delete horizon.
    roll(plog, "b")
    t2 = NOW + 5_000
    clean_at(plog, tmp_path, t2)
    got = markers(plog)
    assert got[m1] == (PID_B, True, t2 + retention)
    assert (
        got[m2] == (PID_B, False, NOW) and got[m3] == (PID_C, False, NOW) and got[m4] == (PID_C, False, NOW)
    )
    ((header, _),) = [(h, r) for h, r in read_batches(plog) if h.base_offset == m1]
    raw = plog.read(m1, 1 << 20).records
    assert read_end_txn_marker(raw[: header.size]).committed is True  # the same marker, rebuilt

    # A round before the horizon keeps it; the first one at the horizon removes it.
    roll(plog, "c")
    clean_at(plog, tmp_path, t2 + retention - 1)
    assert m1 in markers(plog)
    roll(plog, "d")
    clean_at(plog, tmp_path, t2 + retention)
    got = markers(plog)
    assert m1 not in got
    # Markers whose transactions still have data (k9, PID_B's last batch; k5, k6) stay.
    assert got == {m2: (PID_B, False, NOW), m3: (PID_C, False, NOW), m4: (PID_C, False, NOW)}
    view = committed_view(plog)
    assert view[b"k3"] == [b"plain-3"] and view[b"k5"] == [b"committed-5"] and view[b"k9"] == [b"committed-9"]
    assert_reloads_consistently(plog, tmp_path)


def test_aborted_transaction_goes_then_its_marker_and_txnindex_entry(tmp_path):
    plog = compacted_log(tmp_path)
    append(plog, [(b"k1", b"plain-1")])
    txn_send(plog, PID_A, 0, [(b"k1", b"aborted-1")])
    abort = append_marker(plog, PID_A, 0, committed=False).base_offset
    txn_send(plog, PID_A, 1, [(b"k8", b"committed-8")])  # PID_A's last data batch
    commit = append_marker(plog, PID_A, 0, committed=True).base_offset
    roll(plog, "a")
    retention = plog.config.delete_retention_ms
    assert all_aborted(plog) == [AbortedTxn(PID_A, 1, abort, abort + 1)]

    clean_at(plog, tmp_path, NOW)
    assert committed_view(plog)[b"k1"] == [b"plain-1"]
    assert not any(r.value == b"aborted-1" for _h, rs in read_batches(plog) for r in rs)
    assert markers(plog)[abort] == (PID_A, False, NOW)
    assert all_aborted(plog) == [AbortedTxn(PID_A, 1, abort, abort + 1)]  # read with its batch: kept

    roll(plog, "b")
    clean_at(plog, tmp_path, NOW + 1)
    assert markers(plog)[abort] == (PID_A, True, NOW + 1 + retention)
    assert all_aborted(plog) == []  # no aborted record left for it to hide

    roll(plog, "c")
    clean_at(plog, tmp_path, NOW + 1 + retention)
    assert markers(plog) == {commit: (PID_A, False, NOW)}
    view = committed_view(plog)
    assert view[b"k1"] == [b"plain-1"] and view[b"k8"] == [b"committed-8"]
    assert_reloads_consistently(plog, tmp_path)


def test_marker_stays_while_the_producers_last_batch_is_kept(tmp_path):
    plog = compacted_log(tmp_path)
    txn_send(plog, PID_A, 0, [(b"k1", b"aborted-1")])  # PID_A's last data batch, aborted
    abort = append_marker(plog, PID_A, 0, committed=False).base_offset
    roll(plog, "a")
    for i, extra in enumerate("bcd"):
        clean_at(plog, tmp_path, NOW + i * 2 * plog.config.delete_retention_ms)
        roll(plog, extra)
    # The emptied batch is kept for the producer's state, so its transaction is not empty.
    ((header, records),) = [
        (h, r) for h, r in read_batches(plog) if h.producer_id == PID_A and not h.is_control
    ]
    assert header.records_count == 0 and records == []
    assert markers(plog) == {abort: (PID_A, False, NOW)}
    assert all_aborted(plog) == [AbortedTxn(PID_A, 0, abort, abort + 1)]
    assert_reloads_consistently(plog, tmp_path)


def segment_of(plog, offset: int):
    return [seg for seg in plog.segments() if seg.base_offset <= offset][-1]


def test_marker_in_a_later_group_than_its_kept_data_stays(tmp_path):
    plog = compacted_log(tmp_path)
    roll(plog, "a", 10)
    txn_send(plog, PID_B, 0, [(b"k4", b"committed-4")])  # never superseded
    plog.roll()
    marker = append_marker(plog, PID_B, 0, committed=True).base_offset
    txn_send(plog, PID_B, 1, [(b"k9", b"committed-9")])
    append_marker(plog, PID_B, 0, committed=True)
    roll(plog, "b")
    assert segment_of(plog, marker - 1).size + segment_of(plog, marker).size > plog.config.segment_bytes
    for i, extra in enumerate("cd"):
        clean_at(plog, tmp_path, NOW + i * 2 * plog.config.delete_retention_ms)
        roll(plog, extra)
    # The transaction's batch is in the group before its marker's: the marker is not empty.
    assert markers(plog)[marker] == (PID_B, False, NOW)
    assert committed_view(plog)[b"k4"] == [b"committed-4"]
    assert_reloads_consistently(plog, tmp_path)


def test_marker_only_producer_keeps_its_last_marker_emptied(tmp_path):
    plog = compacted_log(tmp_path)
    # An epoch bump's abort without data (InitProducerId on an ongoing transactional id).
    marker = append_marker(plog, PID_C, 3, committed=False).base_offset
    roll(plog, "a")
    retention = plog.config.delete_retention_ms
    clean_at(plog, tmp_path, NOW)
    assert markers(plog)[marker] == (PID_C, True, NOW + retention)
    roll(plog, "b")
    clean_at(plog, tmp_path, NOW + retention)
    ((header, records),) = [(h, r) for h, r in read_batches(plog) if h.producer_id == PID_C]
    # Kept emptied (isBatchLastRecordOfProducer): its epoch still fences the producer.
    assert header.is_control and header.records_count == 0 and records == []
    assert header.producer_epoch == 3 and not header.attributes & DELETE_HORIZON_MASK
    again = assert_reloads_consistently(plog, tmp_path)
    assert again.producer_state.last_entry(PID_C).producer_epoch == 3


def test_dump_log_prints_a_markers_delete_horizon(tmp_path):
    plog = compacted_log(tmp_path)
    txn_send(plog, PID_B, 0, [(b"k3", b"committed-3")])
    marker = append_marker(plog, PID_B, 0, committed=True).base_offset
    txn_send(plog, PID_B, 1, [(b"k9", b"committed-9")])
    append_marker(plog, PID_B, 0, committed=True)
    append(plog, [(b"k3", b"plain-3")])
    roll(plog, "a")
    clean_at(plog, tmp_path, NOW)
    roll(plog, "b")
    clean_at(plog, tmp_path, NOW + 7)
    out = io.StringIO()
    assert dump_log.run(["--files", str(segment_of(plog, marker).log_path)], out, io.StringIO()) == 0
    (line,) = [ln for ln in out.getvalue().splitlines() if ln.startswith(f"baseOffset: {marker} ")]
    horizon = NOW + 7 + plog.config.delete_retention_ms
    assert f"isControl: true deleteHorizonMs: OptionalLong[{horizon}] " in line
    assert f" CreateTime: {horizon} " not in line  # the batch's max timestamp, not its base
