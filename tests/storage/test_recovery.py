"""Crash recovery: truncated and corrupted segments come back as exactly the last whole valid
batch, nothing before it lost, indexes identical to a fresh rebuild, producer state intact."""

from __future__ import annotations

import errno
import random
import shutil
import time
from pathlib import Path

import pytest

from protocol.errors import ErrorCode, KafkaError
from protocol.record_batch import read_header
from protocol.records import build_batch
from storage.log_config import LogConfig, resolve_topic_defaults
from storage.log_manager import LogManager
from storage.partition_log import PartitionLog
from storage.producer_snapshot import decode_snapshot, snapshot_file_name
from tests.broker.test_log_dir_failure import _fail_calls_under
from tests.storage.batch_factory import BASE_TS, make_batch
from tests.storage.log_factory import append_batches, open_log, read_all


def crash(plog: PartitionLog) -> None:
    """What kill -9 leaves: no trimmed indexes, no snapshot, no checkpoint."""
    plog.close_handlers()


def index_files(directory: Path) -> dict[str, bytes]:
    return {
        p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.suffix in (".index", ".timeindex")
    }


def fresh_rebuild(directory: Path, tmp: Path, **config) -> dict[str, bytes]:
    """Indexes rebuilt from the .log files alone."""
    fresh = tmp / "fresh" / directory.name
    if fresh.parent.exists():
        shutil.rmtree(fresh.parent)
    fresh.mkdir(parents=True)
    for p in directory.glob("*.log"):
        shutil.copy(p, fresh / p.name)
    plog = open_log(fresh.parent, name=directory.name, clean=False, recovery_point=0, **config)
    plog.close()
    return index_files(fresh)


def expected_after_cut(spans, segment_base, cut, next_segment_bases):
    """(log end offset, bytes kept) for a log whose segment ``segment_base`` was cut at ``cut``."""
    kept = []
    pos = 0
    for info, raw in spans:
        if info.base_offset < segment_base:
            kept.append(raw)
            continue
        if any(info.base_offset >= b for b in next_segment_bases):
            break
        if pos + len(raw) > cut:
            break
        kept.append(raw)
        pos += len(raw)
    leo = segment_base
    if kept:
        leo = max(read_header(r).base_offset + read_header(r).last_offset_delta + 1 for r in kept)
        leo = max(leo, segment_base)
    return leo, b"".join(kept)


CONFIG = dict(segment_bytes=700, index_interval_bytes=60, segment_index_bytes=1024)


def test_active_segment_cut_at_every_byte_of_its_last_batches(tmp_path):
    src = tmp_path / "src"
    plog = open_log(src, **CONFIG)
    spans = append_batches(plog, [2, 1, 3, 2, 1, 2, 3, 1, 2, 2, 1, 3] * 2, value_size=8)
    bases = [s.base_offset for s in plog.segments()]
    assert len(bases) >= 3
    active = bases[-1]
    originals = index_files(src / "t-0")
    crash(plog)
    active_log = f"{active:020d}.log"
    full = (src / "t-0" / active_log).read_bytes()
    in_active = [raw for info, raw in spans if info.base_offset >= active]
    start = len(full) - len(in_active[-1]) - len(in_active[-2]) - 1
    for cut in range(start, len(full) + 1):
        work = tmp_path / "work"
        if work.exists():
            shutil.rmtree(work)
        shutil.copytree(src, work)
        with open(work / "t-0" / active_log, "r+b") as f:
            f.truncate(cut)
        got = open_log(work, clean=False, recovery_point=active, **CONFIG)
        leo, data = expected_after_cut(spans, active, cut, [])
        assert got.log_end_offset == leo, cut
        got.update_high_watermark(got.log_end_offset)
        assert read_all(got) == data
        got.close()
        rebuilt = index_files(work / "t-0")
        assert rebuilt == fresh_rebuild(work / "t-0", tmp_path, **CONFIG)
        for name, content in rebuilt.items():  # untouched segments keep their own indexes
            if not name.startswith(f"{active:020d}"):
                assert originals[name] == content


def test_random_cuts_anywhere_in_a_large_log(tmp_path):
    rng = random.Random(20240611)
    config = dict(segment_bytes=64 * 1024, index_interval_bytes=4096)
    src = tmp_path / "src"
    plog = open_log(src, **config)
    counts = [rng.randint(1, 20) for _ in range(1500)]
    spans = append_batches(plog, counts, value_size=30)
    segs = [(s.base_offset, s.size) for s in plog.segments()]
    assert len(segs) >= 5
    crash(plog)
    for _ in range(12):
        i = rng.randrange(len(segs))
        base, size = segs[i]
        cut = rng.randrange(size + 1)
        work = tmp_path / "work"
        if work.exists():
            shutil.rmtree(work)
        shutil.copytree(src, work)
        with open(work / "t-0" / f"{base:020d}.log", "r+b") as f:
            f.truncate(cut)
        # Recovery point 0: every segment is scanned; the cut segment ends the log.
        got = open_log(work, clean=False, recovery_point=0, **config)
        leo, data = expected_after_cut(spans, base, cut, [b for b, _ in segs[i + 1 :]])
        assert got.log_end_offset == leo
        if cut < size:
            assert [s.base_offset for s in got.segments()] == [b for b, _ in segs[: i + 1]]
        got.update_high_watermark(leo)
        assert read_all(got) == data
        got.close()
        assert index_files(work / "t-0") == fresh_rebuild(work / "t-0", tmp_path, **config)


@pytest.mark.parametrize("where", ["active", "middle"])
def test_flipped_bit_truncates_right_before_the_bad_batch(tmp_path, where):
    plog = open_log(tmp_path, **CONFIG)
    spans = append_batches(plog, [2] * 25, value_size=8)
    bases = [s.base_offset for s in plog.segments()]
    crash(plog)
    seg_base = bases[-1] if where == "active" else bases[1]
    in_seg = [
        (info, raw)
        for info, raw in spans
        if seg_base <= info.base_offset
        and info.base_offset < (bases[bases.index(seg_base) + 1] if seg_base != bases[-1] else 1 << 62)
    ]
    victim = len(in_seg) // 2
    pos = sum(len(raw) for _, raw in in_seg[:victim])
    path = tmp_path / "t-0" / f"{seg_base:020d}.log"
    data = bytearray(path.read_bytes())
    data[pos + len(in_seg[victim][1]) - 3] ^= 0x04  # a bit inside the last record
    path.write_bytes(bytes(data))
    got = open_log(tmp_path, clean=False, recovery_point=bases[0], **CONFIG)
    assert got.log_end_offset == in_seg[victim][0].base_offset
    assert [s.base_offset for s in got.segments()][-1] == seg_base
    got.update_high_watermark(got.log_end_offset)
    expected = b"".join(raw for info, raw in spans if info.base_offset < in_seg[victim][0].base_offset)
    assert read_all(got) == expected
    got.close()
    assert index_files(tmp_path / "t-0") == fresh_rebuild(tmp_path / "t-0", tmp_path / "x", **CONFIG)


def test_segments_below_the_recovery_point_are_not_scanned(tmp_path):
    plog = open_log(tmp_path, **CONFIG)
    append_batches(plog, [2] * 25, value_size=8)
    bases = [s.base_offset for s in plog.segments()]
    leo = plog.log_end_offset
    crash(plog)
    first = tmp_path / "t-0" / f"{bases[0]:020d}.log"
    data = bytearray(first.read_bytes())
    data[-2] ^= 0xFF  # corrupt, but flushed long ago (below the recovery point): Kafka trusts it
    first.write_bytes(bytes(data))
    got = open_log(tmp_path, clean=False, recovery_point=bases[-1], **CONFIG)
    assert got.log_end_offset == leo
    assert first.stat().st_size == len(data)


def test_clean_shutdown_skips_recovery_but_rebuilds_missing_indexes(tmp_path):
    plog = open_log(tmp_path, **CONFIG)
    append_batches(plog, [2] * 25, value_size=8)
    bases = [s.base_offset for s in plog.segments()]
    plog.close()
    before = index_files(tmp_path / "t-0")
    (tmp_path / "t-0" / f"{bases[1]:020d}.index").unlink()
    (tmp_path / "t-0" / f"{bases[2]:020d}.timeindex").write_bytes(b"\x00" * 13)  # corrupt size
    got = open_log(tmp_path, **CONFIG)
    got.close()
    assert index_files(tmp_path / "t-0") == before


def test_a_whole_batch_of_garbage_after_valid_data(tmp_path):
    plog = open_log(tmp_path)
    spans = append_batches(plog, [3, 3])
    crash(plog)
    path = tmp_path / "t-0" / "00000000000000000000.log"
    with open(path, "ab") as f:
        f.write(bytes(range(256)) * 4)
    got = open_log(tmp_path, clean=False)
    assert got.log_end_offset == 6
    assert path.read_bytes() == b"".join(raw for _, raw in spans)


def test_log_start_checkpoint_beyond_the_recovered_end_restarts_the_log(tmp_path):
    plog = open_log(tmp_path)
    append_batches(plog, [3, 3])
    crash(plog)
    got = PartitionLog(tmp_path / "t-0", LogConfig(), log_start_offset=50, had_clean_shutdown=False)
    assert (got.log_start_offset, got.log_end_offset) == (50, 50)
    assert [s.base_offset for s in got.segments()] == [50]
    assert not (tmp_path / "t-0" / "00000000000000000000.log").exists()


def test_leader_epochs_rebuilt_from_batches_and_cut_to_the_log(tmp_path):
    plog = open_log(tmp_path)
    append_batches(plog, [2], epoch=1)
    append_batches(plog, [2], epoch=3)
    spans = append_batches(plog, [2], epoch=4)
    crash(plog)
    path = tmp_path / "t-0" / "00000000000000000000.log"
    with open(path, "r+b") as f:
        f.truncate(path.stat().st_size - len(spans[0][1]) + 1)  # the epoch-4 batch is lost
    got = open_log(tmp_path, clean=False)
    assert got.leader_epoch_cache.entries() == [(1, 0), (3, 2)]
    got.close_handlers()
    (tmp_path / "t-0" / "leader-epoch-checkpoint").unlink()
    again = open_log(tmp_path, clean=False)
    assert again.leader_epoch_cache.entries() == [(1, 0), (3, 2)]
    assert (tmp_path / "t-0" / "leader-epoch-checkpoint").read_bytes() == b"0\n2\n1 0\n3 2\n"


def _leader_batch(base_offset: int, n: int, epoch: int) -> bytes:
    return build_batch(
        [(b"k", b"v%d" % i) for i in range(n)],
        base_offset=base_offset,
        partition_leader_epoch=epoch,
        timestamp=BASE_TS,
    )


def test_epochs_cut_at_load_do_not_come_back_after_a_second_crash(tmp_path):
    """Kafka LogLoader.load -> LeaderEpochFileCache.truncateFromEndAsyncFlush drops the
    epochs past the recovered log end and schedules the checkpoint write at once
    (scheduler.scheduleOnce(writeIfDirExists)). Left in the file, the dropped epoch comes
    back once a follower has appended batches of its latest epoch past the stale entry's
    start and is killed again: it is reloaded as if this log had written there, and
    OffsetForLeaderEpoch (end_offset_for_epoch) answers a wrong end offset."""
    plog = open_log(tmp_path)
    append_batches(plog, [2, 2], epoch=0)  # offsets 0-3
    append_batches(plog, [2], epoch=1)  # 4-5
    spans = append_batches(plog, [2], epoch=2)  # 6-7: written, never flushed
    crash(plog)
    seg = tmp_path / "t-0" / "00000000000000000000.log"
    with open(seg, "r+b") as f:
        f.truncate(seg.stat().st_size - len(spans[0][1]))  # the epoch-2 batch is lost

    got = open_log(tmp_path, clean=False)
    assert got.log_end_offset == 6
    assert got.leader_epoch_cache.entries() == [(0, 0), (1, 4)]
    assert (tmp_path / "t-0" / "leader-epoch-checkpoint").read_bytes() == b"0\n2\n0 0\n1 4\n"
    # As a follower: the leader's log continues epoch 1 up to offset 9.
    got.append_as_follower(_leader_batch(6, 4, epoch=1))
    assert got.log_end_offset == 10
    crash(got)  # killed again, before any epoch change

    again = open_log(tmp_path, clean=False)
    assert again.log_end_offset == 10
    assert again.leader_epoch_cache.entries() == [(0, 0), (1, 4)]
    assert tuple(again.end_offset_for_epoch(1)) == (1, 10)


def test_a_failed_epoch_checkpoint_write_at_load_takes_the_dir_offline(tmp_path, monkeypatch):
    """The epochs cut at load cannot be written (Kafka: CheckpointFileWithFailureHandler.write
    -> maybeAddOfflineLogDir): the load fails with KAFKA_STORAGE_ERROR, as a failed write of a
    recovered segment's epoch does, and the LogManager starts with the other dirs."""
    dir_a, dir_b = tmp_path / "a", tmp_path / "b"
    plog = open_log(dir_a)
    append_batches(plog, [2], epoch=0)
    spans = append_batches(plog, [2], epoch=1)
    crash(plog)
    seg = dir_a / "t-0" / "00000000000000000000.log"
    with open(seg, "r+b") as f:
        f.truncate(seg.stat().st_size - len(spans[0][1]))  # the epoch-1 batch is lost
    append_batches(open_log(dir_b, name="u-0"), [2], epoch=0)
    checkpoint = dir_a / "t-0" / "leader-epoch-checkpoint"
    written = checkpoint.read_bytes()
    with monkeypatch.context() as patch:
        _fail_calls_under(patch, checkpoint, errno.EIO, calls=("write",))
        with pytest.raises(KafkaError) as exc:
            open_log(dir_a, clean=False)
        assert exc.value.error is ErrorCode.KAFKA_STORAGE_ERROR
        lm = LogManager([dir_a, dir_b], resolve_topic_defaults({}))
        lm.startup()
    try:
        assert lm.failure_channel.offline_dirs() == [dir_a]
        assert lm.get_log("t", 0) is None and lm.get_log("u", 0).log_end_offset == 2
    finally:
        lm.shutdown()
    assert checkpoint.read_bytes() == written  # read again (and cut) at the next start


def test_leftover_files_are_cleaned_and_swaps_completed(tmp_path):
    plog = open_log(tmp_path, segment_bytes=400)
    spans = append_batches(plog, [2] * 10)
    bases = [s.base_offset for s in plog.segments()]
    plog.close()
    d = tmp_path / "t-0"
    (d / "00000000000000000999.log.deleted").write_bytes(b"x")
    (d / "00000000000000000999.index.cleaned").write_bytes(b"x")
    (d / "00000000000000000777.index").write_bytes(b"")  # no .log
    # A cleaner's committed swap: the first segment's content, swapped in.
    first = d / f"{bases[0]:020d}.log"
    (d / (first.name + ".swap")).write_bytes(first.read_bytes())
    first.unlink()
    got = open_log(tmp_path, segment_bytes=400)
    names = sorted(p.name for p in d.iterdir())
    assert not [n for n in names if n.endswith((".deleted", ".cleaned", ".swap"))]
    assert "00000000000000000777.index" not in names
    got.update_high_watermark(got.log_end_offset)
    assert read_all(got) == b"".join(raw for _, raw in spans)


def test_recovery_reports_progress(tmp_path):
    plog = open_log(tmp_path)
    append_batches(plog, [2] * 10)
    crash(plog)
    seen = []
    PartitionLog(
        tmp_path / "t-0", LogConfig(), had_clean_shutdown=False, progress=lambda *a: seen.append(a)
    ).close()
    assert seen and seen[-1][1] == seen[-1][2] > 0


# ------------------------------------------------------------------ producer state


def idempotent(seq: int, n: int = 2, pid: int = 4242, epoch: int = 0) -> bytearray:
    return make_batch(
        n, timestamp=int(time.time() * 1000), producer_id=pid, producer_epoch=epoch, base_sequence=seq
    )


@pytest.mark.parametrize("rolled", [False, True])
def test_duplicate_is_recognised_after_an_unclean_shutdown(tmp_path, rolled):
    plog = open_log(tmp_path, segment_bytes=300 if rolled else 10**6)
    infos = [plog.append_as_leader(memoryview(idempotent(seq)), 0) for seq in range(0, 12, 2)]
    assert (len(plog.segments()) > 1) == rolled
    crash(plog)
    got = open_log(tmp_path, clean=False, segment_bytes=300 if rolled else 10**6)
    again = got.append_as_leader(memoryview(idempotent(10)), 0)
    assert again.duplicate and again.base_offset == infos[-1].base_offset
    assert got.log_end_offset == infos[-1].last_offset + 1
    nxt = got.append_as_leader(memoryview(idempotent(12)), 0)
    assert not nxt.duplicate and nxt.base_offset == infos[-1].last_offset + 1
    with pytest.raises(KafkaError) as exc:
        got.append_as_leader(memoryview(idempotent(20)), 0)
    assert exc.value.error is ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER


def test_a_batch_lost_in_the_crash_is_accepted_again(tmp_path):
    plog = open_log(tmp_path)
    infos = [plog.append_as_leader(memoryview(idempotent(seq)), 0) for seq in range(0, 8, 2)]
    crash(plog)
    path = tmp_path / "t-0" / "00000000000000000000.log"
    with open(path, "r+b") as f:
        f.truncate(path.stat().st_size - 5)  # the last batch is torn
    got = open_log(tmp_path, clean=False)
    assert got.log_end_offset == infos[-1].base_offset
    retry = got.append_as_leader(memoryview(idempotent(6)), 0)
    assert not retry.duplicate and retry.base_offset == infos[-1].base_offset


def damage_snapshot(path: Path, how: str) -> None:
    """What a crash can leave of a snapshot written without fsync (the rename may have reached disk)."""
    data = path.read_bytes()
    if how == "torn":
        path.write_bytes(data[: len(data) // 2])
    elif how == "zeroed":
        path.write_bytes(b"\x00" * len(data))
    elif how == "empty":
        path.write_bytes(b"")
    elif how == "flipped":
        path.write_bytes(data[:-1] + bytes([data[-1] ^ 0x01]))
    else:
        assert how == "missing"
        path.unlink()


def test_producer_known_only_to_snapshots_survives_recovery_from_a_lagging_recovery_point(tmp_path):
    """Kafka keeps a producer snapshot at every segment base (UnifiedLog.roll ->
    takeSnapshot); LogLoader.recoverSegment rebuilds the state of the first segment past the
    recovery-point checkpoint from the snapshot at its base (UnifiedLog.rebuildProducerState ->
    truncateAndReload), so a producer whose batches all lie below the log start offset is
    still known and its retry is a duplicate. With only the newest few snapshots kept, none
    is left at or below that base: the state is replayed from the log start offset, the
    producer is forgotten and its retry appended a second time."""
    config = dict(segment_bytes=400)
    plog = open_log(tmp_path, **config)
    first = plog.append_as_leader(memoryview(idempotent(0, pid=8)), 0)
    while len(plog.segments()) < 10:
        plog.append_as_leader(memoryview(make_batch(3, value_size=40, timestamp=int(time.time() * 1000))), 0)
    plog.update_high_watermark(plog.log_end_offset)
    bases = [s.base_offset for s in plog.segments()]
    plog.delete_records_before(bases[2])
    plog.delete_old_segments()
    assert plog.log_start_offset == bases[2]
    assert plog.producer_state.last_entry(8) is not None
    assert plog.producer_state.snapshot_offsets() == bases[2:]
    # The recovery-point checkpoint (written every 60 s) is a few rolls behind when killed.
    recovery_point = bases[-4]
    plog.flush()
    crash(plog)

    got = open_log(tmp_path, clean=False, recovery_point=recovery_point, **config)
    assert got.log_start_offset == bases[2]  # retention removed the segments below it
    assert got.producer_state.last_entry(8) is not None
    retry = got.append_as_leader(memoryview(idempotent(0, pid=8)), 0)
    assert retry.duplicate and retry.base_offset == first.base_offset


def test_recovery_takes_a_snapshot_at_the_end_of_each_segment_it_recovers(tmp_path):
    """Kafka LogLoader.recoverSegment takes a snapshot once a segment is recovered, so every
    segment base keeps one after a recovery: a second crash whose recovery point lies in the
    segments recovered the first time, after retention passed the snapshot the first
    recovery started from, still finds one at its base."""
    config = dict(segment_bytes=400)
    plog = open_log(tmp_path, **config)
    first = plog.append_as_leader(memoryview(idempotent(0, pid=8)), 0)
    while len(plog.segments()) < 10:
        plog.append_as_leader(memoryview(make_batch(3, value_size=40, timestamp=int(time.time() * 1000))), 0)
    bases = [s.base_offset for s in plog.segments()]
    plog.flush()
    crash(plog)

    got = open_log(tmp_path, clean=False, recovery_point=bases[2], **config)
    assert got.producer_state.snapshot_offsets() == bases[1:]
    got.update_high_watermark(got.log_end_offset)
    got.delete_records_before(bases[4])
    got.delete_old_segments()
    assert got.log_start_offset == bases[4] and got.producer_state.last_entry(8) is not None
    crash(got)

    again = open_log(tmp_path, clean=False, recovery_point=bases[5], **config)
    assert again.log_start_offset == bases[4]  # the first segment left
    assert again.producer_state.last_entry(8) is not None
    retry = again.append_as_leader(memoryview(idempotent(0, pid=8)), 0)
    assert retry.duplicate and retry.base_offset == first.base_offset


@pytest.mark.parametrize("how", ["torn", "zeroed", "empty", "flipped", "missing"])
@pytest.mark.parametrize("which", ["newest", "all"])
def test_an_unsynced_roll_snapshot_lost_or_torn_in_a_crash_is_recovered_from(tmp_path, how, which):
    config = dict(segment_bytes=300)
    plog = open_log(tmp_path, **config)
    pids = (4242, 77)
    infos = [
        plog.append_as_leader(memoryview(idempotent(seq, pid=pid)), 0)
        for seq in range(0, 16, 2)
        for pid in pids
    ]
    snaps = sorted((tmp_path / "t-0").glob("*.snapshot"))
    assert len(snaps) >= 2 and plog.producer_state.has_unsynced_snapshots  # rolls wrote them, no fsync yet
    before = {
        pid: (e.producer_epoch, e.last_seq, e.last_data_offset)
        for pid, e in plog.producer_state.active_producers().items()
    }
    crash(plog)
    for snap in snaps if which == "all" else snaps[-1:]:
        damage_snapshot(snap, how)

    got = open_log(tmp_path, clean=False, **config)
    after = {
        pid: (e.producer_epoch, e.last_seq, e.last_data_offset)
        for pid, e in got.producer_state.active_producers().items()
    }
    assert after == before
    # a damaged snapshot is deleted, never trusted; the recovery wrote a new one at the end of
    # each segment it recovered (Kafka's LogLoader.recoverSegment)
    assert got.producer_state.snapshot_offsets() == [s.base_offset for s in got.segments()[1:]]
    for offset in got.producer_state.snapshot_offsets():
        decode_snapshot((tmp_path / "t-0" / snapshot_file_name(offset)).read_bytes())
    last = infos[-1]
    again = got.append_as_leader(memoryview(idempotent(14, pid=pids[-1])), 0)
    assert again.duplicate and again.base_offset == last.base_offset
    nxt = got.append_as_leader(memoryview(idempotent(16, pid=pids[-1])), 0)
    assert not nxt.duplicate and nxt.base_offset == last.last_offset + 1
    with pytest.raises(KafkaError) as exc:
        got.append_as_leader(memoryview(idempotent(20, pid=pids[0])), 0)
    assert exc.value.error is ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER
