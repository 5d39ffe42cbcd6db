"""File work taken off the event loop in storage: leader-epoch checkpoints written off the loop
(Kafka's ``truncateFromStartAsyncFlush`` / ``truncateFromEndAsyncFlush``, and LeaderAndIsr's
new epochs written ahead), producer snapshots kept until their segments go (Kafka's
``onLogStartOffsetIncremented`` / ``deleteSegments``), and retention in slices, the loop let
go between them, the unlinks in an executor."""

from __future__ import annotations

import asyncio
import errno
import itertools
import threading
import uuid

import storage.log_background as background
from storage.leader_epoch import LeaderEpochFileCache, write_pending_checkpoints
from storage.local_log import rename_for_deletion
from storage.log_config import resolve_topic_defaults
from storage.log_manager import LogManager
from tests.storage.batch_factory import BASE_TS
from tests.storage.log_factory import append_batches, open_log


def _file(cache: LeaderEpochFileCache) -> bytes:
    return cache.path.read_bytes()


def _cache(tmp_path, errors=None) -> LeaderEpochFileCache:
    (tmp_path / "t-0").mkdir(exist_ok=True)
    report = (lambda exc, what: errors.append((exc, what))) if errors is not None else None
    cache = LeaderEpochFileCache(tmp_path / "t-0", **({"on_write_error": report} if report else {}))
    cache.assign(0, 0)
    cache.assign(1, 10)
    cache.assign(2, 20)
    return cache


def test_a_pending_write_taken_before_a_newer_write_does_not_bring_old_entries_back(tmp_path):
    cache = _cache(tmp_path)
    cache.truncate_from_start(15, flush=False)
    assert cache.dirty
    pending = cache.pending_write()
    cache.assign(3, 30)  # written at once (an append's new epoch), after the pending was taken
    assert cache.write_pending(pending) is None  # skipped: newer entries are in the file
    cache.written(pending, None)
    assert _file(cache) == b"0\n3\n1 15\n2 20\n3 30\n"
    assert not cache.dirty


def test_a_pending_write_records_the_file_and_an_error_goes_to_the_dir(tmp_path, monkeypatch):
    errors: list = []
    cache = _cache(tmp_path, errors)
    cache.truncate_from_start(12, flush=False)
    pending = cache.pending_write()
    assert cache.pending_write() is not None  # a second one while in flight: written again
    [error] = write_pending_checkpoints([pending])
    assert error is None and _file(cache) == b"0\n2\n1 12\n2 20\n"

    def failing_write(*_a, **_k):
        raise OSError(errno.EIO, "I/O error")

    cache.truncate_from_start(21, flush=False)
    failed = cache.pending_write()
    monkeypatch.setattr(cache._file, "write_at", failing_write)
    error = cache.write_pending(failed)
    assert isinstance(error, OSError)
    cache.written(failed, error)
    assert [str(e[0]) for e in errors] == ["[Errno 5] I/O error"] and cache.dirty


def test_a_pending_write_into_a_deleted_partition_dir_is_no_error(tmp_path):
    cache = _cache(tmp_path)
    cache.truncate_from_start(15, flush=False)
    pending = cache.pending_write()
    (tmp_path / "t-0").rename(tmp_path / "t-0.abc-delete")  # a topic deletion meanwhile
    assert cache.write_pending(pending) is None


def test_a_pending_write_does_not_reach_a_topic_created_again_under_the_same_name(tmp_path):
    """A write taken before the topic was deleted and created again (same ``t-0`` path, a new
    directory) goes nowhere: the new log's checkpoint keeps its own entries."""
    old = _cache(tmp_path)
    old.truncate_from_start(15, flush=False)
    pending = old.pending_write()
    (tmp_path / "t-0").rename(tmp_path / "t-0.abc-delete")
    (tmp_path / "t-0").mkdir()
    new = LeaderEpochFileCache(tmp_path / "t-0")
    new.assign(0, 0)
    before = _file(new)
    assert old.write_pending(pending) is None
    assert _file(new) == before
    assert not list((tmp_path / "t-0").glob("*.tmp"))


def test_an_assign_written_ahead_is_not_written_again(tmp_path, monkeypatch):
    cache = _cache(tmp_path)
    pending = cache.prepare_assign(5, 25)
    assert cache.latest_epoch == 2  # the cache does not change before the write
    assert write_pending_checkpoints([pending]) == [None]
    cache.written(pending, None)
    assert _file(cache) == b"0\n4\n0 0\n1 10\n2 20\n5 25\n"
    writes: list = []
    monkeypatch.setattr(cache._file, "write", lambda *a, **k: writes.append(a))
    assert cache.assign(5, 25)
    assert writes == [] and cache.latest_epoch == 5
    assert cache.prepare_assign(5, 30) is None  # already the latest epoch


def test_delete_records_leaves_the_epoch_checkpoint_to_the_hook(tmp_path):
    plog = open_log(tmp_path, segment_bytes=400)
    append_batches(plog, [2] * 6)
    plog.update_high_watermark(plog.log_end_offset)
    before = plog.leader_epoch_cache.path.read_bytes()
    asked: list = []
    plog.on_epoch_checkpoint_dirty = lambda log: asked.append(log) or True
    plog.delete_records_before(5)
    assert asked == [plog] and plog.leader_epoch_cache.dirty
    assert plog.leader_epoch_cache.path.read_bytes() == before
    plog.on_epoch_checkpoint_dirty = None  # without a hook (tools, tests): written at once
    plog.delete_records_before(7)
    assert not plog.leader_epoch_cache.dirty
    assert plog.leader_epoch_cache.path.read_bytes() == b"0\n1\n0 7\n"


def test_producer_snapshots_go_with_their_segments_not_with_delete_records(tmp_path):
    plog = open_log(tmp_path, segment_bytes=400, file_delete_delay_ms=60_000)
    append_batches(plog, [2] * 10)
    plog.update_high_watermark(plog.log_end_offset)
    snapshots = sorted(p.name for p in plog.dir.glob("*.snapshot"))
    assert len(snapshots) >= 3
    bases = [s.base_offset for s in plog.segments()]
    third = bases[2]
    plog.delete_records_before(third + 1)
    assert sorted(p.name for p in plog.dir.glob("*.snapshot")) == snapshots  # memory only
    removed = plog.remove_old_segments(BASE_TS)
    assert [s.base_offset for s in removed.segments] == bases[:2]
    assert plog.segments()[0].base_offset == third and plog.log_start_offset == third + 1
    assert all(o >= third for o in plog.producer_state.snapshot_offsets())
    assert all(p.exists() for p in removed.snapshots)  # the files wait for the renames
    paths = rename_for_deletion(removed.segments, removed.snapshots)
    assert not any(p.exists() for p in removed.snapshots)
    assert sorted(p.name for p in plog.dir.glob("*.snapshot.deleted")) == sorted(
        p.name + ".deleted" for p in removed.snapshots
    )
    plog.schedule_file_deletion(paths, BASE_TS)
    assert plog.purge_deleted_files(BASE_TS + 60_000) == 1
    assert not list(plog.dir.glob("*.deleted"))


def test_removed_segments_answer_out_of_range_before_their_files_are_renamed(tmp_path):
    plog = open_log(tmp_path, segment_bytes=400, retention_ms=1)
    append_batches(plog, [2] * 10)
    plog.update_high_watermark(plog.log_end_offset)
    held = plog.read(0, 10_000, file_records=True).records  # a fetch answer still being sent
    removed = plog.remove_old_segments(BASE_TS + 10**6)
    assert removed is not None and plog.log_start_offset == plog.segments()[0].base_offset
    try:
        plog.read(0, 100)
    except Exception as exc:  # KafkaError(OFFSET_OUT_OF_RANGE)
        assert "OFFSET_OUT_OF_RANGE" in repr(exc.error)
    else:
        raise AssertionError("a read below the new log start offset was served")
    rename_for_deletion(removed.segments, removed.snapshots)
    data = held.read() if hasattr(held, "read") else held
    assert len(data) > 0  # what was read before keeps its own descriptor


def test_retention_pass_works_in_slices_and_unlinks_off_the_loop(tmp_path, monkeypatch):
    """Kafka's ``kafka-log-retention`` thread deletes old segments off the request threads. Here
    the pass removes and renames ``RETENTION_SLICE_SEGMENTS`` segments at a time on the loop and
    lets it go between slices (another callback runs between any two slices of one log), and
    unlinks the ``.deleted`` files in an executor."""
    monkeypatch.setattr(background, "RETENTION_SLICE_SEGMENTS", 2)
    lm = LogManager([tmp_path], resolve_topic_defaults({}))
    lm.startup()
    try:
        lm.create_topic(
            "r", 1, uuid.uuid4(), {"segment.bytes": 400, "retention.ms": 1, "file.delete.delay.ms": 0}
        )
        plog = lm.get_log("r", 0)
        append_batches(plog, [2] * 20)
        plog.update_high_watermark(plog.log_end_offset)
        before = len(plog.segments())
        assert before > 6
        events: list[object] = []
        real_rename, real_unlink = background.rename_for_deletion, background.unlink_all

        def rename(segments, others=()):
            events.append(("rename", len(segments), threading.current_thread()))
            return real_rename(segments, others)

        def unlink(paths):
            events.append(("unlink", threading.current_thread()))
            return real_unlink(paths)

        monkeypatch.setattr(background, "rename_for_deletion", rename)
        monkeypatch.setattr(background, "unlink_all", unlink)

        async def scenario() -> None:
            loop = asyncio.get_running_loop()
            done = asyncio.Event()

            def tick() -> None:  # once per turn of the loop
                events.append("tick")
                if not done.is_set():
                    loop.call_soon(tick)

            loop.call_soon(tick)
            await lm.background.retention_pass()
            done.set()

        asyncio.run(scenario())
        renames = [e for e in events if isinstance(e, tuple) and e[0] == "rename"]
        assert sum(n for _, n, _ in renames) == before and all(n <= 2 for _, n, _ in renames)
        assert all(t is threading.main_thread() for _, _, t in renames)  # with their removal
        # Between two slices of the log the loop ran something else.
        slices = [i for i, e in enumerate(events) if isinstance(e, tuple) and e[0] == "rename"]
        assert all("tick" in events[a:b] for a, b in itertools.pairwise(slices))
        unlinks = [e for e in events if isinstance(e, tuple) and e[0] == "unlink"]
        assert unlinks and all(t is not threading.main_thread() for _, t in unlinks)
        assert len(plog.segments()) == 1
        assert not list(plog.dir.glob("*.deleted"))  # no delay: unlinked by each slice's job
        assert [p.name for p in plog.dir.glob("*.log")] == [f"{plog.log_end_offset:020d}.log"]
    finally:
        lm.shutdown()


def test_the_log_manager_writes_cut_epoch_checkpoints_off_the_loop(tmp_path):
    lm = LogManager([tmp_path], resolve_topic_defaults({}))
    lm.startup()
    try:
        lm.create_topic("e", 1, uuid.uuid4(), {"segment.bytes": 400})
        plog = lm.get_log("e", 0)
        append_batches(plog, [2] * 4)
        plog.update_high_watermark(plog.log_end_offset)

        async def delete_records() -> bytes:
            plog.delete_records_before(5)
            written_at_once = plog.leader_epoch_cache.path.read_bytes()
            await lm.background.write_epoch_checkpoints_now()
            return written_at_once

        at_once = asyncio.run(delete_records())
        assert at_once != b"0\n1\n0 5\n"
        assert plog.leader_epoch_cache.path.read_bytes() == b"0\n1\n0 5\n"
        assert not plog.leader_epoch_cache.dirty
    finally:
        lm.shutdown()
