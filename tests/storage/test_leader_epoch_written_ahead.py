"""Leader-epoch checkpoints written ahead, off the event loop: the cache's side.

A write still in flight that is older than the one the file is known to hold cannot change the
file (``LeaderEpochFileCache._write`` skips it), so it does not make the cache dirty: an
``assign`` whose checkpoint LeaderAndIsr wrote ahead writes nothing while a background write
(a truncation's, Kafka's ``truncateFromEndAsyncFlush``) is still queued. A follower's append
whose new epochs were written ahead (``PartitionLog.follower_epoch_checkpoint``, the replica
fetcher's executor job) assigns them without writing; a crash between that write and the
append leaves entries past the log end in the file, which the next load cuts.
"""

from __future__ import annotations

from storage.checkpoints import LeaderEpochCheckpointFile
from storage.leader_epoch import LeaderEpochFileCache, write_pending_checkpoints
from tests.storage.batch_factory import BASE_TS, make_batch
from tests.storage.log_factory import open_log


def _file_entries(cache: LeaderEpochFileCache) -> list[tuple[int, int]]:
    return [tuple(e) for e in LeaderEpochCheckpointFile(cache.path).read()]


def _entries(cache: LeaderEpochFileCache) -> list[tuple[int, int]]:
    return [tuple(e) for e in cache.entries()]


def _cache(tmp_path) -> LeaderEpochFileCache:
    (tmp_path / "t-0").mkdir(exist_ok=True)
    cache = LeaderEpochFileCache(tmp_path / "t-0")
    cache.assign(0, 0)
    cache.assign(1, 10)
    cache.assign(2, 20)
    return cache


def _record_writes(monkeypatch, cache: LeaderEpochFileCache) -> list[tuple]:
    """Writes made through ``_flush`` (on the calling thread), recorded, then done."""
    writes: list[tuple] = []
    real = cache._file.write
    monkeypatch.setattr(
        cache._file, "write", lambda entries, **k: writes.append(tuple(entries)) or real(entries, **k)
    )
    return writes


def test_an_older_write_in_flight_does_not_make_an_assign_written_ahead_write_again(tmp_path, monkeypatch):
    """A former leader, now a follower, cut its last epoch: the background write is queued (in
    flight). LeaderAndIsr makes it leader again and writes the new epoch ahead; ``assign`` must
    find the file written, whatever the older write is doing (it used to write on the loop)."""
    cache = _cache(tmp_path)
    cache.truncate_from_end(20, flush=False)  # epoch 2 had nothing: cut
    background = cache.pending_write()  # queued by the log manager, not run yet
    assert background is not None and cache.dirty
    ahead = cache.prepare_assign(3, 20)
    assert write_pending_checkpoints([ahead]) == [None]
    cache.written(ahead, None)
    writes = _record_writes(monkeypatch, cache)
    assert cache.assign(3, 20)
    assert writes == []
    assert not cache.dirty  # the older write in flight cannot change the file any more
    # The older write runs late: skipped, the file keeps the newer entries.
    assert cache.write_pending(background) is None
    cache.written(background, None)
    assert _file_entries(cache) == [(0, 0), (1, 10), (3, 20)] == _entries(cache)
    assert not cache.dirty


def test_a_newer_write_in_flight_still_makes_the_cache_dirty(tmp_path, monkeypatch):
    """A write taken after the file's last known one may still replace it: entries equal to the
    file's are dirty until it is recorded, or an older state would stay in the file."""
    cache = _cache(tmp_path)
    cache.truncate_from_end(20, flush=False)
    background = cache.pending_write()  # [(0, 0), (1, 10)], newer than the file's
    writes = _record_writes(monkeypatch, cache)
    assert cache.assign(2, 20)  # the entries are the file's again, but the write is in flight
    assert writes == [((0, 0), (1, 10), (2, 20))]  # written again, with a newer ticket
    assert cache.write_pending(background) is None  # so the in-flight one is skipped
    cache.written(background, None)
    assert _file_entries(cache) == [(0, 0), (1, 10), (2, 20)] == _entries(cache)
    assert not cache.dirty


def test_a_write_in_flight_then_a_flush_then_the_write_recorded(tmp_path):
    """The file's ticket moves with a flush on the loop: an in-flight write older than it is
    skipped and, once recorded, leaves the cache clean."""
    cache = _cache(tmp_path)
    cache.truncate_from_start(15, flush=False)
    background = cache.pending_write()
    cache.truncate_from_start(16)  # written at once, newer
    assert not cache.dirty
    assert write_pending_checkpoints([background]) == [None]
    cache.written(background, None)
    assert _file_entries(cache) == [(1, 16), (2, 20)] and not cache.dirty


def test_prepare_assigns_is_what_the_assigns_leave(tmp_path, monkeypatch):
    cache = _cache(tmp_path)
    assigns = [(3, 30), (5, 40), (6, 41)]
    ahead = cache.prepare_assigns(assigns)
    assert _entries(cache) == [(0, 0), (1, 10), (2, 20)]  # unchanged until the append
    assert write_pending_checkpoints([ahead]) == [None]
    cache.written(ahead, None)
    assert cache.holds_assigns(assigns)
    writes = _record_writes(monkeypatch, cache)
    for epoch, start in assigns:
        cache.assign(epoch, start, flush=False)
    assert writes == [] and not cache.dirty
    assert _file_entries(cache) == _entries(cache) == [(0, 0), (1, 10), (2, 20), (3, 30), (5, 40), (6, 41)]
    assert cache.prepare_assigns([(6, 50)]) is None  # already the latest epoch: nothing to write
    # a cut first (a straddling fetched batch), then the assigns
    ahead = cache.prepare_assigns([(7, 35)], truncated_to=35)
    assert ahead.entries == ((0, 0), (1, 10), (2, 20), (3, 30), (7, 35))


def test_a_written_ahead_state_already_in_the_file_is_not_written_again(tmp_path):
    cache = _cache(tmp_path)
    ahead = cache.prepare_assigns([(3, 30)])
    write_pending_checkpoints([ahead])
    cache.written(ahead, None)
    # the append did not happen (the fetcher's partition changed meanwhile): asked again
    assert cache.prepare_assigns([(3, 30)]) is None
    assert cache.holds_assigns([(3, 30)])


def _fetched(*epochs_and_counts: tuple[int, int], base: int = 0) -> bytes:
    """Batches as a leader wrote them: (epoch, records) each, offsets from ``base``."""
    out = bytearray()
    offset = base
    for epoch, n in epochs_and_counts:
        batch = bytearray(make_batch(n, timestamp=BASE_TS, tag=offset))
        batch[0:8] = offset.to_bytes(8, "big")
        batch[12:16] = epoch.to_bytes(4, "big")  # partitionLeaderEpoch is outside the CRC
        out += batch
        offset += n
    return bytes(out)


def test_a_follower_append_written_ahead_assigns_every_epoch_without_writing(tmp_path, monkeypatch):
    plog = open_log(tmp_path)
    try:
        records = _fetched((0, 2), (1, 2), (3, 2))
        checked = plog.check_follower_records(records)
        ahead = plog.follower_epoch_checkpoint(checked)
        assert ahead is not None and ahead.entries == ((0, 0), (1, 2), (3, 4))
        assert write_pending_checkpoints([ahead]) == [None]
        ahead.cache.written(ahead, None)
        cache = plog.leader_epoch_cache
        writes = _record_writes(monkeypatch, cache)
        assert plog.append_as_follower(checked) == len(records)
        assert writes == []  # not even for the first epoch, whose entries are a prefix of the file's
        assert _entries(cache) == _file_entries(cache) == [(0, 0), (1, 2), (3, 4)]
        assert plog.log_end_offset == 6 and not cache.dirty
    finally:
        plog.close()


def test_a_follower_append_checked_before_the_log_changed_is_checked_again(tmp_path):
    plog = open_log(tmp_path)
    try:
        checked = plog.check_follower_records(_fetched((0, 2), (1, 2)))
        plog.append_as_follower(_fetched((0, 1)))  # offset 0 appended meanwhile
        assert plog.append_as_follower(checked) > 0
        assert plog.log_end_offset == 4
        assert _entries(plog.leader_epoch_cache) == [(0, 0), (1, 2)]
    finally:
        plog.close()


def test_a_crash_between_the_written_ahead_epochs_and_the_append_leaves_no_epoch_past_the_log_end(tmp_path):
    """The file holds the new epoch before the batches are in the log; after a crash there
    (the append never ran), the load cuts the epoch cache to the log end and writes it."""
    plog = open_log(tmp_path)
    plog.append_as_follower(_fetched((0, 3)))
    checked = plog.check_follower_records(_fetched((0, 3), (4, 2)))
    ahead = plog.follower_epoch_checkpoint(checked)
    assert ahead.entries == ((0, 0), (4, 3))
    write_pending_checkpoints([ahead])
    ahead.cache.written(ahead, None)
    assert _file_entries(plog.leader_epoch_cache) == [(0, 0), (4, 3)]
    plog.close()  # no append: as a crash right after the write (the segments hold offsets 0-2)
    again = open_log(tmp_path, clean=False)
    try:
        assert again.log_end_offset == 3
        assert _entries(again.leader_epoch_cache) == [(0, 0)]
        assert _file_entries(again.leader_epoch_cache) == [(0, 0)]
    finally:
        again.close()
