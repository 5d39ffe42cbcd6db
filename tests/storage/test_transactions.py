"""Transactions on a partition log: producer state, last stable offset, ``.txnindex``."""

from __future__ import annotations

import shutil
import struct

import pytest

from protocol.control_records import build_end_txn_marker_batch
from protocol.errors import ErrorCode, KafkaError
from storage.partition_log import PartitionLog
from storage.producer_snapshot import decode_snapshot
from storage.producer_state import AppendOrigin
from storage.transaction_index import ABORTED_TXN_SIZE, AbortedTxn
from tests.storage.log_factory import append_batches, open_log
from tests.storage.txn_factory import TxnProducer, append_marker


def txn_index_bytes(plog, base: int = 0) -> bytes:
    path = plog.dir / f"{base:020d}.txnindex"
    return path.read_bytes() if path.exists() else b""


# ------------------------------------------------------------------ producer state and LSO


def test_open_transaction_holds_the_lso_at_its_first_offset(tmp_path):
    plog = open_log(tmp_path)
    append_batches(plog, [2])  # 0-1, not transactional
    p = TxnProducer(plog, 1000)
    assert p.send(3).base_offset == 2
    assert p.send(1).base_offset == 5
    assert plog.high_watermark == 6
    assert plog.last_stable_offset == 2
    assert plog.producer_state.last_entry(1000).current_txn_first_offset == 2
    info = p.end(committed=True)
    assert info.base_offset == 6
    assert plog.producer_state.last_entry(1000).current_txn_first_offset == -1
    assert plog.last_stable_offset == plog.high_watermark == 7
    assert txn_index_bytes(plog) == b""  # commits are not indexed


def test_lso_is_the_oldest_open_transaction_of_several(tmp_path):
    plog = open_log(tmp_path)
    a, b, c = TxnProducer(plog, 1), TxnProducer(plog, 2), TxnProducer(plog, 3)
    a.send()  # 0
    b.send()  # 1
    c.send()  # 2
    assert plog.last_stable_offset == 0
    b.end(committed=True)  # 3: b ends, a still open
    assert plog.last_stable_offset == 0
    a.end(committed=False)  # 4: now c's is the oldest
    assert plog.last_stable_offset == 2
    c.end(committed=True)
    assert plog.last_stable_offset == plog.high_watermark == 6
    assert [t.first_offset for t in plog.producer_state.ongoing_txns()] == []


def test_a_marker_waits_for_the_high_watermark_before_the_lso_passes_it(tmp_path):
    plog = open_log(tmp_path)
    p = TxnProducer(plog, 7)
    p.send(2)
    plog.update_high_watermark(0)
    marker = build_end_txn_marker_batch(
        producer_id=7, producer_epoch=0, committed=True, coordinator_epoch=0, timestamp=0
    )
    # At offset 2; the high watermark stays below it (a follower has not fetched it).
    plog.append_as_leader(memoryview(bytearray(marker)), 0, origin=AppendOrigin.COORDINATOR)
    plog.update_high_watermark(2)
    assert plog.last_stable_offset == 0  # Kafka's unreplicatedTxns
    plog.update_high_watermark(3)
    assert plog.last_stable_offset == 3


def test_an_empty_transaction_marker_completes_nothing(tmp_path):
    plog = open_log(tmp_path)
    append_marker(plog, 9, 0, committed=False)
    assert plog.last_stable_offset == plog.high_watermark == 1
    assert txn_index_bytes(plog) == b""
    assert plog.producer_state.last_entry(9).coordinator_epoch == 0


def test_a_marker_of_an_older_coordinator_epoch_is_fenced(tmp_path):
    plog = open_log(tmp_path)
    p = TxnProducer(plog, 5)
    p.send()
    p.end(committed=True, coordinator_epoch=4)
    p.send()
    with pytest.raises(KafkaError) as info:
        p.end(committed=False, coordinator_epoch=3)
    assert info.value.error is ErrorCode.TRANSACTION_COORDINATOR_FENCED
    assert plog.last_stable_offset == 2  # still open, nothing appended
    assert plog.log_end_offset == 3
    p.end(committed=False, coordinator_epoch=4)
    assert plog.last_stable_offset == 4


def test_a_marker_of_an_older_producer_epoch_is_refused(tmp_path):
    plog = open_log(tmp_path)
    p = TxnProducer(plog, 5, epoch=3)
    p.send()
    with pytest.raises(KafkaError) as info:
        p.end(committed=True, epoch=2)
    assert info.value.error is ErrorCode.INVALID_PRODUCER_EPOCH


def test_non_transactional_batch_of_a_producer_in_a_transaction_is_refused(tmp_path):
    from protocol.records import build_batch

    plog = open_log(tmp_path)
    p = TxnProducer(plog, 5)
    p.send()
    plain = build_batch([(b"k", b"v")], producer_id=5, producer_epoch=0, base_sequence=1)
    with pytest.raises(KafkaError) as info:
        plog.append_as_leader(memoryview(bytearray(plain)), 0)
    assert info.value.error is ErrorCode.INVALID_TXN_STATE


def test_snapshot_holds_the_open_transaction_and_a_restart_restores_the_lso(tmp_path):
    plog = open_log(tmp_path)
    append_batches(plog, [1])
    a, b = TxnProducer(plog, 11), TxnProducer(plog, 12)
    a.send(2)  # 1-2
    b.send()  # 3
    a.end(committed=False)  # 4
    plog.close()
    snaps = sorted(plog.dir.glob("*.snapshot"))
    entries = {e.producer_id: e for e in decode_snapshot(snaps[-1].read_bytes())}
    assert entries[12].current_txn_first_offset == 3  # CurrentTxnFirstOffset
    assert entries[11].current_txn_first_offset == -1
    again = open_log(tmp_path)
    again.update_high_watermark(again.log_end_offset)
    assert again.last_stable_offset == 3
    TxnProducer(again, 12).end(committed=True)
    assert again.last_stable_offset == again.log_end_offset == 6


def test_replay_without_snapshots_rebuilds_open_transactions(tmp_path):
    plog = open_log(tmp_path)
    a, b = TxnProducer(plog, 21), TxnProducer(plog, 22)
    a.send()
    b.send()
    b.end(committed=False)
    plog.close()
    for snap in plog.dir.glob("*.snapshot"):
        snap.unlink()
    again = open_log(tmp_path)
    again.update_high_watermark(again.log_end_offset)
    assert again.last_stable_offset == 0
    assert again.producer_state.last_entry(22).current_txn_first_offset == -1
    assert again.producer_state.last_entry(21).current_txn_first_offset == 0


# ------------------------------------------------------------------ .txnindex


def test_txnindex_entries_are_kafkas_34_bytes(tmp_path):
    plog = open_log(tmp_path)
    a, b = TxnProducer(plog, 0x0102030405060708), TxnProducer(plog, 77)
    a.send(2)  # 0-1
    b.send()  # 2
    a.end(committed=False)  # 3: b's transaction still open -> LSO field 2
    b.end(committed=False)  # 4: none open -> 5
    data = txn_index_bytes(plog)
    assert len(data) == 2 * ABORTED_TXN_SIZE == 68
    assert data == struct.pack(">hqqqq", 0, 0x0102030405060708, 0, 3, 2) + struct.pack(
        ">hqqqq", 0, 77, 2, 4, 5
    )
    assert data[:2] == b"\x00\x00" and data[2:10] == bytes(range(1, 9))
    assert plog.collect_aborted_transactions(0, 5) == [
        AbortedTxn(0x0102030405060708, 0, 3, 2),
        AbortedTxn(77, 2, 4, 5),
    ]


def test_aborted_transactions_overlapping_a_range(tmp_path):
    plog = open_log(tmp_path)
    for pid in (1, 2, 3):
        p = TxnProducer(plog, pid)
        p.send(2)
        p.end(committed=pid != 2)
    # pid 1: 0-1 commit at 2; pid 2: 3-4 abort at 5; pid 3: 6-7 commit at 8
    assert plog.collect_aborted_transactions(0, 3) == []  # [0, 3) ends before pid 2 starts
    assert [t.producer_id for t in plog.collect_aborted_transactions(0, 4)] == [2]
    assert [t.producer_id for t in plog.collect_aborted_transactions(5, 9)] == [2]  # its marker is at 5
    assert plog.collect_aborted_transactions(6, 9) == []


def test_aborted_transactions_across_segments(tmp_path):
    plog = open_log(tmp_path, segment_bytes=300)
    p = TxnProducer(plog, 1)
    for _ in range(8):
        p.send(1, tag="x" * 40)
    p.end(committed=False)
    assert len(plog.segments()) > 2
    marker_seg = plog.segments()[-1]
    assert txn_index_bytes(plog, marker_seg.base_offset) == struct.pack(">hqqqq", 0, 1, 0, 8, 9)
    # A fetch from the first segment finds it in a later segment's index.
    assert plog.collect_aborted_transactions(0, 2) == [AbortedTxn(1, 0, 8, 9)]


def test_txnindex_is_deleted_with_its_segment(tmp_path):
    plog = open_log(tmp_path, segment_bytes=300, retention_bytes=1)
    p = TxnProducer(plog, 1)
    p.send(1, tag="x" * 40)
    p.end(committed=False)
    first = plog.segments()[0]
    assert first.txn_index.path.exists()
    for _ in range(6):
        append_batches(plog, [1], value_size=60)
    plog.delete_old_segments()
    assert plog.log_start_offset > 0
    assert not list(plog.dir.glob("00000000000000000000.*"))


def test_truncation_drops_entries_past_the_new_end(tmp_path):
    plog = open_log(tmp_path)
    a = TxnProducer(plog, 1)
    a.send()
    a.end(committed=False)  # marker at 1
    b = TxnProducer(plog, 2)
    b.send()
    b.end(committed=False)  # marker at 3
    plog.truncate_to(3)
    assert [t.producer_id for t in plog.segments()[0].txn_index.all_aborted_txns()] == [1]
    assert len(txn_index_bytes(plog)) == ABORTED_TXN_SIZE
    assert plog.producer_state.last_entry(2).current_txn_first_offset == 2


def _three_transactions(plog):
    a, b, c = TxnProducer(plog, 1), TxnProducer(plog, 2), TxnProducer(plog, 3)
    append_batches(plog, [3])
    a.send(2)
    b.send(1)
    a.end(committed=False)
    c.send(1)
    b.end(committed=True)
    c.end(committed=False)
    d = TxnProducer(plog, 4)
    d.send(2)  # open at the crash
    return d


def test_txnindex_is_rebuilt_when_the_segment_is_recovered(tmp_path):
    plog = open_log(tmp_path)
    _three_transactions(plog)
    expected = txn_index_bytes(plog)
    assert len(expected) == 2 * ABORTED_TXN_SIZE
    lso = plog.last_stable_offset
    plog.close()
    seg = plog.dir / "00000000000000000000"
    seg.with_suffix(".txnindex").unlink()
    seg.with_suffix(".index").unlink()  # a missing index makes the loader recover the segment
    again = open_log(tmp_path)
    assert txn_index_bytes(again) == expected
    again.update_high_watermark(again.log_end_offset)
    assert again.last_stable_offset == lso


def test_unclean_shutdown_mid_transaction_rebuilds_txnindex_and_lso(tmp_path):
    plog = open_log(tmp_path, segment_bytes=400)
    d = _three_transactions(plog)
    expected = {s.base_offset: txn_index_bytes(plog, s.base_offset) for s in plog.segments()}
    lso = plog.last_stable_offset
    assert lso == d.plog.producer_state.last_entry(4).current_txn_first_offset
    # "kill -9": copy the files as they are, without close(); recover from offset 0.
    crashed = tmp_path / "crashed"
    shutil.copytree(plog.dir, crashed / plog.dir.name)
    for path in (crashed / plog.dir.name).glob("*.txnindex"):
        path.write_bytes(b"garbage")  # a torn index must not survive recovery
    again = open_log(crashed, clean=False, recovery_point=0, segment_bytes=400)
    got = {s.base_offset: txn_index_bytes(again, s.base_offset) for s in again.segments()}
    assert got == expected
    again.update_high_watermark(again.log_end_offset)
    assert again.last_stable_offset == lso
    assert again.producer_state.last_entry(4).current_txn_first_offset == lso


def test_dump_log_prints_the_txnindex_and_markers_the_log_wrote(tmp_path):
    import io

    from tools.dump_log import run

    plog = open_log(tmp_path)
    a, b = TxnProducer(plog, 31), TxnProducer(plog, 32)
    a.send(2)
    b.send()
    a.end(committed=False, coordinator_epoch=7)
    plog.close()
    seg = plog.dir / "00000000000000000000"
    out, err = io.StringIO(), io.StringIO()
    assert run(["--files", f"{seg}.txnindex,{seg}.log", "--deep-iteration"], out, err) == 0, err.getvalue()
    lines = out.getvalue().splitlines()
    assert "version: 0 producerId: 31 firstOffset: 0 lastOffset: 3 lastStableOffset: 2" in lines
    assert any("endTxnMarker: ABORT coordinatorEpoch: 7" in line for line in lines), lines


def test_a_follower_builds_the_same_txnindex_and_lso_from_the_leaders_batches(tmp_path):
    from tests.storage.log_factory import read_all

    leader = open_log(tmp_path, name="t-0")
    a, b = TxnProducer(leader, 1), TxnProducer(leader, 2)
    a.send(2)
    b.send()
    a.end(committed=False)
    b.send()
    follower = open_log(tmp_path / "follower", name="t-0")
    follower.append_as_follower(read_all(leader))
    follower.update_high_watermark(leader.high_watermark)
    assert txn_index_bytes(follower) == txn_index_bytes(leader) != b""
    assert follower.last_stable_offset == leader.last_stable_offset == 2
    assert follower.producer_state.last_entry(1).coordinator_epoch == 0


# ------------------------------------------------------------------ log start past an open transaction


def test_log_start_past_an_open_transactions_first_offset(tmp_path):
    """DeleteRecords and retention move the log start past the first offset of a transaction
    still open: the LSO is the log start offset (Kafka's ``UnifiedLog``
    ``maybeIncrementFirstUnstableOffset``: max(first unstable offset, log start offset)),
    the producer state keeps the transaction's real first offset (``onLogStartOffsetIncremented``
    keeps ongoing transactions; DescribeProducers shows it as CurrentTxnStartOffset), a
    snapshot taken then holds it and a restart from that snapshot agrees; the commit marker
    moves the LSO to the high watermark."""
    plog = open_log(tmp_path, retention_ms=-1)  # only the log start offset deletes segments
    append_batches(plog, [2])  # 0-1
    p = TxnProducer(plog, 4242)
    p.send(2)  # 2-3, open
    plog.roll()
    append_batches(plog, [3])  # 4-6 in the next segment
    assert plog.last_stable_offset == 2
    assert plog.delete_records_before(5) == 5
    assert plog.delete_old_segments() == 1  # the segment with the transaction's first batch
    assert plog.log_start_offset == 5 and [s.base_offset for s in plog.segments()] == [4]

    def check(log) -> None:
        assert log.last_stable_offset == log.log_start_offset == 5
        assert log.producer_state.active_producers()[4242].current_txn_first_offset == 2
        assert [(t.producer_id, t.first_offset) for t in log.producer_state.ongoing_txns()] == [(4242, 2)]

    check(plog)
    snapshot = plog.producer_state.take_snapshot()
    assert snapshot is not None
    entries = {e.producer_id: e for e in decode_snapshot(snapshot.read_bytes())}
    assert entries[4242].current_txn_first_offset == 2
    plog.close()

    again = PartitionLog(plog.dir, plog.config, log_start_offset=5, high_watermark=7)
    check(again)
    TxnProducer(again, 4242).end(committed=True)  # 7
    assert again.last_stable_offset == again.high_watermark == 8
    assert again.producer_state.active_producers()[4242].current_txn_first_offset == -1
