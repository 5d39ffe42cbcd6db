"""Producer snapshots: Kafka's byte layout, load/replay after restarts, corrupt files, which
snapshots are kept and deleted, snapshots written without fsync and fsynced later."""

from __future__ import annotations

import os
import struct

import pytest

from protocol.control_records import ControlRecordType, EndTransactionMarker
from protocol.errors import ErrorCode, KafkaError
from protocol.record_batch import CONTROL_MASK, TRANSACTIONAL_MASK, BatchHeader
from storage.producer_snapshot import CorruptSnapshotError, decode_snapshot, encode_snapshot
from storage.producer_state import AppendOrigin, ProducerStateManager
from storage.producer_state_entry import BatchMetadata, ProducerStateEntry
from tests.storage.fsync_recorder import record_fsyncs

T0 = 1_700_000_000_000
DAY = 86_400_000


def _crc32c_reference(data: bytes) -> int:
    """Bitwise CRC-32C (Castagnoli, reflected polynomial 0x82F63B78): independent of the code under test."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def header(
    pid: int, seq: int, count: int = 1, *, epoch: int = 0, ts: int = T0, attrs: int = 0
) -> BatchHeader:
    return BatchHeader(0, 49, -1, 2, 0, attrs, count - 1, ts, ts, pid, epoch, seq, count)


class Log:
    """Stand-in for PartitionLog: it keeps the appended headers so they can be replayed."""

    def __init__(
        self, psm: ProducerStateManager, batches: list[tuple[int, BatchHeader]] | None = None
    ) -> None:
        self.psm = psm
        self.batches: list[tuple[int, BatchHeader]] = batches if batches is not None else []
        self.end = self.batches[-1][0] + self.batches[-1][1].records_count if self.batches else 0

    def append(self, h: BatchHeader) -> BatchMetadata | int:
        dup = self.psm.check_append(h, AppendOrigin.CLIENT)
        if dup is not None:
            return dup
        first = self.end
        self.psm.update(h, first, h.max_timestamp, AppendOrigin.CLIENT)
        self.batches.append((first, h))
        self.end += h.records_count
        self.psm.update_map_end_offset(self.end)
        return first

    def restart(self, tmp_path, log_start: int = 0, **kw) -> Log:
        """A new manager over the same directory: load, then replay the log after the snapshot."""
        psm = ProducerStateManager(tmp_path, **kw)
        replay_from = psm.load(log_start, self.end)
        for first, h in self.batches:
            if first >= replay_from:
                # The control batches of these tests are COMMIT markers (read from the log in a replay).
                marker = EndTransactionMarker(ControlRecordType.COMMIT, 0) if h.is_control else None
                psm.update(h, first, h.max_timestamp, AppendOrigin.REPLICATION, marker)
        psm.update_map_end_offset(self.end)
        return Log(psm, list(self.batches))


def clock(t: int = T0):
    return lambda: t


# --------------------------------------------------------------------------- file format


def test_snapshot_bytes_match_kafkas_documented_layout(tmp_path):
    psm = ProducerStateManager(tmp_path, time_ms=clock())
    log = Log(psm)
    log.append(header(7, 0, 3, epoch=2, ts=T0 + 1))
    log.append(header(7, 3, 2, epoch=2, ts=T0 + 2))
    log.append(header(5, 10, 4, epoch=0, ts=T0 + 3, attrs=TRANSACTIONAL_MASK))
    psm.last_entry(5).coordinator_epoch = 9
    path = psm.take_snapshot()
    assert path.name == "00000000000000000009.snapshot"

    # ProducerId, Epoch, LastSequence, LastOffset, OffsetDelta, Timestamp, CoordinatorEpoch, CurrentTxnFirstOffset
    entries = struct.pack(">qhiqiqiq", 5, 0, 13, 8, 3, T0 + 3, 9, 5) + struct.pack(
        ">qhiqiqiq", 7, 2, 4, 4, 1, T0 + 2, -1, -1
    )
    body = struct.pack(">i", 2) + entries
    expected = struct.pack(">hI", 1, _crc32c_reference(body)) + body
    assert path.read_bytes() == expected
    assert len(entries) == 2 * 46


def test_entry_without_batches_is_written_with_kafkas_sentinels():
    entry = ProducerStateEntry(3, 4, coordinator_epoch=2, last_timestamp=T0)
    data = encode_snapshot([entry])
    assert data[10:] == struct.pack(">qhiqiqiq", 3, 4, -1, -1, 0, T0, 2, -1)
    (back,) = decode_snapshot(data)
    assert back.is_empty and back.producer_epoch == 4 and back.coordinator_epoch == 2


def test_empty_snapshot_is_ten_bytes():
    data = encode_snapshot([])
    assert data == struct.pack(">hIi", 1, _crc32c_reference(struct.pack(">i", 0)), 0)
    assert decode_snapshot(data) == []


def test_round_trip_restores_every_field(tmp_path):
    psm = ProducerStateManager(tmp_path, time_ms=clock())
    log = Log(psm)
    log.append(header(1, 0, 2, epoch=3, ts=T0 + 10))
    log.append(header(2, 5, 1, epoch=1, ts=T0 + 20, attrs=TRANSACTIONAL_MASK))
    psm.last_entry(1).coordinator_epoch = 6
    psm.take_snapshot()

    again = ProducerStateManager(tmp_path, time_ms=clock())
    assert again.load(0, log.end) == 3
    got = {pid: e for pid, e in again.active_producers().items()}
    assert set(got) == {1, 2}
    e1, e2 = got[1], got[2]
    assert (e1.producer_epoch, e1.last_seq, e1.first_seq, e1.last_data_offset, e1.last_timestamp) == (
        3,
        1,
        0,
        1,
        T0 + 10,
    )
    assert (e1.coordinator_epoch, e1.current_txn_first_offset) == (6, -1)
    assert (e2.producer_epoch, e2.last_seq, e2.last_data_offset, e2.current_txn_first_offset) == (1, 5, 2, 2)
    assert list(e2.batch_metadata) == [BatchMetadata(5, 2, 0, T0 + 20)]


@pytest.mark.parametrize(
    "damage",
    [
        lambda b: b[:-1],  # short
        lambda b: b[:5],  # shorter than the header
        lambda b: b[:10] + b"\x00" * 46 + b[56:],  # entry bytes changed: CRC
        lambda b: b"\x00\x02" + b[2:],  # unknown version
        lambda b: b + b"\x00",  # trailing byte: CRC
    ],
)
def test_corrupt_snapshot_bytes_are_refused(damage):
    data = encode_snapshot([ProducerStateEntry(1, 0, batches=[BatchMetadata(0, 0, 0, T0)])])
    with pytest.raises(CorruptSnapshotError):
        decode_snapshot(damage(data))


def test_wrong_entry_count_with_valid_crc_is_refused():
    data = bytearray(encode_snapshot([ProducerStateEntry(1, 0, batches=[BatchMetadata(0, 0, 0, T0)])]))
    struct.pack_into(">i", data, 6, 2)
    struct.pack_into(">I", data, 2, _crc32c_reference(bytes(data[6:])))
    with pytest.raises(CorruptSnapshotError):
        decode_snapshot(bytes(data))


# ------------------------------------------------------------------------ restart and replay


def test_restart_from_snapshot_then_replay_keeps_recent_retries_duplicates(tmp_path):
    log = Log(ProducerStateManager(tmp_path, time_ms=clock()))
    for seq in range(0, 20, 2):
        log.append(header(1, seq, 2))
    log.psm.take_snapshot()  # at 20, e.g. a segment roll
    for seq in range(20, 30, 2):
        log.append(header(1, seq, 2))
    # kill -9: no snapshot at the end; the restart replays offsets 20..29 from the log
    log2 = log.restart(tmp_path, time_ms=clock())
    for seq in range(20, 30, 2):
        dup = log2.append(header(1, seq, 2))
        assert isinstance(dup, BatchMetadata) and dup.first_offset == seq, seq
    # older than the rebuilt window: written before, so a certain duplicate
    with pytest.raises(KafkaError) as info:
        log2.append(header(1, 4, 2))
    assert info.value.error is ErrorCode.DUPLICATE_SEQUENCE_NUMBER
    assert log2.append(header(1, 30, 2)) == 30


def test_clean_shutdown_snapshot_keeps_only_the_last_batch(tmp_path):
    log = Log(ProducerStateManager(tmp_path, time_ms=clock()))
    for seq in range(0, 10, 2):
        log.append(header(1, seq, 2))
    log.psm.take_snapshot()
    log2 = log.restart(tmp_path, time_ms=clock())
    assert [b.first_seq for b in log2.psm.last_entry(1).batch_metadata] == [8]
    assert isinstance(log2.append(header(1, 8, 2)), BatchMetadata)
    for seq in (0, 2, 6):  # Kafka answers 45 here; the run since 0 makes them certain duplicates
        with pytest.raises(KafkaError) as info:
            log2.append(header(1, seq, 2))
        assert info.value.error is ErrorCode.DUPLICATE_SEQUENCE_NUMBER
    assert log2.end == 10


def test_corrupt_snapshot_is_deleted_and_state_rebuilt_from_the_log(tmp_path):
    log = Log(ProducerStateManager(tmp_path, time_ms=clock()))
    for seq in range(0, 12, 3):
        log.append(header(9, seq, 3, epoch=4))
    path = log.psm.take_snapshot()
    raw = bytearray(path.read_bytes())
    raw[20] ^= 0xFF
    path.write_bytes(bytes(raw))

    log2 = log.restart(tmp_path, time_ms=clock())
    assert not path.exists()
    entry = log2.psm.last_entry(9)
    assert entry.producer_epoch == 4
    assert [b.first_offset for b in entry.batch_metadata] == [0, 3, 6, 9]  # replayed from offset 0
    assert isinstance(log2.append(header(9, 3, 3, epoch=4)), BatchMetadata)


def test_corrupt_newest_snapshot_falls_back_to_the_next_older_one(tmp_path):
    log = Log(ProducerStateManager(tmp_path, time_ms=clock()))
    log.append(header(1, 0, 2))
    older = log.psm.take_snapshot()
    log.append(header(1, 2, 2))
    newer = log.psm.take_snapshot()
    newer.write_bytes(newer.read_bytes()[:-3])

    psm = ProducerStateManager(tmp_path, time_ms=clock())
    assert psm.load(0, log.end) == 2
    assert older.exists() and not newer.exists()
    assert psm.last_entry(1).last_seq == 1


def test_no_snapshot_means_replay_from_the_log_start(tmp_path):
    psm = ProducerStateManager(tmp_path, time_ms=clock())
    assert psm.load(5, 50) == 5
    assert psm.map_end_offset == 5
    assert dict(psm.active_producers()) == {}


def test_snapshots_beyond_the_log_end_or_at_or_below_the_log_start_are_deleted(tmp_path):
    log = Log(ProducerStateManager(tmp_path, time_ms=clock()))
    offsets = []
    for seq in range(4):
        log.append(header(1, seq, 1))
        offsets.append(log.psm.take_snapshot())
    # snapshots at 1, 2, 3, 4
    psm = ProducerStateManager(tmp_path, time_ms=clock())
    assert psm.load(2, 3) == 3
    assert psm.snapshot_offsets() == [3]
    assert not offsets[3].exists()  # beyond the log end (truncated log)


def test_expired_producers_are_dropped_on_load(tmp_path):
    log = Log(ProducerStateManager(tmp_path, time_ms=clock()))
    log.append(header(1, 0, 1, ts=T0))
    log.append(header(2, 0, 1, ts=T0 + DAY))
    log.append(header(3, 0, 1, ts=T0, attrs=TRANSACTIONAL_MASK))
    log.psm.take_snapshot()
    psm = ProducerStateManager(tmp_path, time_ms=clock(T0 + DAY))
    psm.load(0, log.end)
    assert set(psm.active_producers()) == {2, 3}


def test_take_snapshot_only_when_the_map_moved(tmp_path):
    psm = ProducerStateManager(tmp_path, time_ms=clock())
    assert psm.take_snapshot() is None
    log = Log(psm)
    log.append(header(1, 0, 1))
    assert psm.take_snapshot() is not None
    assert psm.take_snapshot() is None


def test_snapshot_write_leaves_no_temporary_file_and_stray_ones_are_removed(tmp_path):
    log = Log(ProducerStateManager(tmp_path, time_ms=clock()))
    log.append(header(1, 0, 1))
    log.psm.take_snapshot()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["00000000000000000001.snapshot"]
    (tmp_path / "00000000000000000007.snapshot.tmp").write_bytes(b"half a snapshot")
    (tmp_path / "notes.snapshot").write_bytes(b"not ours")
    psm = ProducerStateManager(tmp_path, time_ms=clock())
    assert psm.snapshot_offsets() == [1]
    assert not (tmp_path / "00000000000000000007.snapshot.tmp").exists()


def test_every_snapshot_is_kept_until_its_segment_goes(tmp_path):
    """Kafka keeps one snapshot per segment base (UnifiedLog.roll -> takeSnapshot) and deletes
    them with their segments, never by count: recovery from an old recovery point needs the
    one at the base of the segment it starts in."""
    log = Log(ProducerStateManager(tmp_path, time_ms=clock()))
    for seq in range(8):
        log.append(header(1, seq, 1))
        log.psm.take_snapshot()
    assert log.psm.snapshot_offsets() == list(range(1, 9))
    assert len(list(tmp_path.glob("*.snapshot"))) == 8
    # The cleaner merged the segments at 3 and 4 into the one at 2 (replaceSegments).
    log.psm.delete_snapshots([3, 4])
    assert log.psm.snapshot_offsets() == [1, 2, 5, 6, 7, 8]
    assert not (tmp_path / "00000000000000000003.snapshot").exists()
    log.append(header(1, 8, 1))
    assert log.psm.take_snapshot().name == "00000000000000000009.snapshot"


@pytest.mark.parametrize(
    ("bases", "kept"),
    [
        ([0, 2, 4], [2, 4, 5]),  # the newest stray lies above every base: the clean shutdown's
        ([0, 2, 5], [2, 5]),  # every stray lies below a base
        ([0], [5]),
    ],
)
def test_load_deletes_snapshots_at_no_segment_base(tmp_path, bases, kept):
    """Kafka's ProducerStateManager.removeStraySnapshots, called by LogLoader.load."""
    log = Log(ProducerStateManager(tmp_path, time_ms=clock()))
    for seq in range(5):
        log.append(header(1, seq, 1))
        log.psm.take_snapshot()
    psm = ProducerStateManager(tmp_path, time_ms=clock())
    assert psm.load(0, log.end, segment_bases=bases) == kept[-1]
    assert psm.snapshot_offsets() == kept
    assert sorted(int(p.name.split(".")[0]) for p in tmp_path.glob("*.snapshot")) == kept


def test_truncate_head_keeps_snapshots_and_producers_in_memory_only(tmp_path):
    """Kafka's onLogStartOffsetIncremented: no file work (snapshots go with their segments)."""
    log = Log(ProducerStateManager(tmp_path, time_ms=clock()))
    for seq in range(3):
        log.append(header(1, seq, 1))
        log.psm.take_snapshot()
    log.psm.truncate_head(2)
    assert log.psm.snapshot_offsets() == [1, 2, 3]
    assert log.psm.last_entry(1) is not None
    log.psm.truncate_head(10)
    assert log.psm.snapshot_offsets() == [1, 2, 3]
    assert len(list(tmp_path.glob("*.snapshot"))) == 3
    assert log.psm.map_end_offset == 10


def test_remove_snapshots_below_forgets_them_and_leaves_the_files_to_the_caller(tmp_path):
    log = Log(ProducerStateManager(tmp_path, time_ms=clock()))
    for seq in range(3):
        log.append(header(1, seq, 1))
        log.psm.take_snapshot()
    removed = log.psm.remove_snapshots_below(3)
    assert sorted(p.name for p in removed) == [f"{o:020d}.snapshot" for o in (1, 2)]
    assert log.psm.snapshot_offsets() == [3]
    assert all(p.exists() for p in removed)  # renamed off the loop with their segments
    assert log.psm.last_entry(1) is not None


def test_truncate_fully_forgets_everything(tmp_path):
    log = Log(ProducerStateManager(tmp_path, time_ms=clock()))
    log.append(header(1, 0, 1))
    log.psm.take_snapshot()
    log.psm.truncate_fully_and_start_at(100)
    assert dict(log.psm.active_producers()) == {}
    assert log.psm.snapshot_offsets() == [] and list(tmp_path.iterdir()) == []
    assert log.psm.map_end_offset == 100
    assert log.psm.take_snapshot() is not None  # an (empty) snapshot at 100


def test_replayed_end_transaction_marker_is_restored(tmp_path):
    log = Log(ProducerStateManager(tmp_path, time_ms=clock()))
    log.append(header(1, 0, 2, attrs=TRANSACTIONAL_MASK))
    marker = header(1, -1, 1, attrs=TRANSACTIONAL_MASK | CONTROL_MASK)
    log.psm.update(
        marker, log.end, T0, AppendOrigin.COORDINATOR, EndTransactionMarker(ControlRecordType.COMMIT, 0)
    )
    log.batches.append((log.end, marker))
    log.end += 1
    log2 = log.restart(tmp_path, time_ms=clock())
    entry = log2.psm.last_entry(1)
    assert entry.current_txn_first_offset == -1 and entry.last_seq == 1


# --------------------------------------------------------------------------- fsync of snapshots


def test_an_unsynced_snapshot_is_the_same_file_and_is_fsynced_by_sync_snapshots(tmp_path, monkeypatch):
    fsyncs = record_fsyncs(monkeypatch)
    psm = ProducerStateManager(tmp_path, time_ms=clock())
    log = Log(psm)
    log.append(header(7, 0, 3, epoch=2))
    path = psm.take_snapshot(sync=False)
    assert not fsyncs.calls and psm.has_unsynced_snapshots
    assert path.read_bytes() == encode_snapshot(psm.active_producers().values())
    assert not list(tmp_path.glob("*.tmp"))

    assert psm.sync_snapshots() == 1
    assert [p for _t, p in fsyncs.calls] == [os.path.realpath(path), os.path.realpath(tmp_path)]
    assert not psm.has_unsynced_snapshots
    assert psm.sync_snapshots() == 0 and len(fsyncs.calls) == 2


def test_take_snapshot_fsyncs_file_then_directory_by_default(tmp_path, monkeypatch):
    fsyncs = record_fsyncs(monkeypatch)
    psm = ProducerStateManager(tmp_path, time_ms=clock())
    Log(psm).append(header(7, 0))
    path = psm.take_snapshot()
    # the file is fsynced under its temporary name, before the rename
    assert [p for _t, p in fsyncs.calls] == [os.path.realpath(path) + ".tmp", os.path.realpath(tmp_path)]
    assert not psm.has_unsynced_snapshots


def test_sync_snapshots_skips_a_snapshot_deleted_meanwhile(tmp_path, monkeypatch):
    fsyncs = record_fsyncs(monkeypatch)
    psm = ProducerStateManager(tmp_path, time_ms=clock())
    Log(psm).append(header(7, 0))
    path = psm.take_snapshot(sync=False)
    psm.truncate_fully_and_start_at(100)  # deletes it
    assert not path.exists()
    assert psm.sync_snapshots() == 1
    assert [p for _t, p in fsyncs.calls] == [os.path.realpath(tmp_path)]
    assert not psm.has_unsynced_snapshots


def test_a_snapshot_written_while_sync_snapshots_runs_stays_pending(tmp_path, monkeypatch):
    fsyncs = record_fsyncs(monkeypatch)
    psm = ProducerStateManager(tmp_path, time_ms=clock())
    log = Log(psm)
    log.append(header(7, 0))
    first = psm.take_snapshot(sync=False)
    written_meanwhile = []

    def loop_writes_during_the_fsync(path: str) -> None:
        # the loop rolls again while the executor thread is inside sync_snapshots
        if path == os.path.realpath(first) and not written_meanwhile:
            log.append(header(7, 1))
            written_meanwhile.append(psm.take_snapshot(sync=False))

    fsyncs.before = loop_writes_during_the_fsync
    assert psm.sync_snapshots() == 1
    (second,) = written_meanwhile
    assert not fsyncs.synced(second) and psm.has_unsynced_snapshots
    fsyncs.before = None
    assert psm.sync_snapshots() == 1
    assert fsyncs.synced(second) and not psm.has_unsynced_snapshots


def test_a_given_directory_listing_finds_the_same_snapshots_as_a_scan(tmp_path):
    # A start lists each partition directory once and hands the names over: only snapshot
    # files count (not a directory so named), an interrupted write's .tmp is removed.
    log = Log(ProducerStateManager(tmp_path, time_ms=clock()))
    log.append(header(1, 0, 2))
    snap = log.psm.take_snapshot()
    (tmp_path / "00000000000000000007.snapshot").mkdir()
    (tmp_path / "00000000000000000009.snapshot.tmp").write_bytes(b"cut")
    listing = os.listdir(tmp_path)
    scanned = ProducerStateManager(tmp_path, time_ms=clock())
    assert not (tmp_path / "00000000000000000009.snapshot.tmp").exists()
    given = ProducerStateManager(tmp_path, time_ms=clock(), listing=listing)
    assert given.snapshot_offsets() == scanned.snapshot_offsets() == [2]
    assert given.load(0, log.end, listing=listing) == 2 == scanned.load(0, log.end)
    assert given.last_entry(1).last_seq == 1 and snap.exists()
