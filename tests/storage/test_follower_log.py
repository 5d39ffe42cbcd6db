"""PartitionLog as a follower: ``append_as_follower`` (offsets and epochs as the leader wrote
them, CRC checked, the leader's producer state) and ``truncate_to`` (KIP-101/279)."""

from __future__ import annotations

import os
import time

import pytest

from protocol.errors import ErrorCode, KafkaError
from protocol.record_batch import iter_batches
from storage.partition_log import PartitionLog
from storage.producer_state import AppendOrigin
from tests.storage.batch_factory import make_batch
from tests.storage.log_factory import open_log, read_all

NOW = int(time.time() * 1000)  # producers older than producer.id.expiration.ms are dropped at loads


def leader_append(plog: PartitionLog, n: int, epoch: int, *, pid: int = -1, seq: int = -1, tag: int = 0):
    batch = make_batch(
        n, producer_id=pid, producer_epoch=0 if pid >= 0 else -1, base_sequence=seq, tag=tag, timestamp=NOW
    )
    return plog.append_as_leader(memoryview(batch), epoch, now_ms=NOW, origin=AppendOrigin.CLIENT)


def producers(plog: PartitionLog) -> dict[int, tuple]:
    return {
        pid: (e.producer_epoch, e.last_seq, e.last_data_offset, e.last_timestamp)
        for pid, e in plog.producer_state.active_producers().items()
    }


@pytest.fixture
def logs(tmp_path):
    leader = open_log(tmp_path / "leader")
    follower = open_log(tmp_path / "follower")
    yield leader, follower
    leader.close()
    follower.close()


def fill_leader(leader: PartitionLog) -> None:
    leader_append(leader, 3, 0, pid=7, seq=0, tag=1)
    leader_append(leader, 2, 0, tag=2)
    leader_append(leader, 4, 2, pid=7, seq=3, tag=3)
    leader_append(leader, 1, 2, pid=9, seq=0, tag=4)
    leader_append(leader, 5, 5, pid=9, seq=1, tag=5)


def test_a_follower_holds_the_leaders_bytes_offsets_epochs_and_producer_state(logs):
    leader, follower = logs
    fill_leader(leader)
    data = leader.read(0, 1 << 20).records
    # in two fetches, the second starting where the first stopped
    cut = next(pos for pos, h in iter_batches(data) if h.base_offset == 5)
    assert follower.append_as_follower(memoryview(data)[:cut]) == cut
    assert follower.log_end_offset == 5
    assert follower.append_as_follower(memoryview(data)[cut:]) == len(data) - cut
    assert follower.log_end_offset == leader.log_end_offset == 15
    assert read_all(follower) == read_all(leader)
    assert follower.leader_epoch_cache.entries() == leader.leader_epoch_cache.entries()
    assert [(e.epoch, e.start_offset) for e in follower.leader_epoch_cache.entries()] == [
        (0, 0),
        (2, 5),
        (5, 10),
    ]
    assert producers(follower) == producers(leader)
    assert producers(follower)[9][1:3] == (5, 14)
    # a retried client batch is a duplicate on the follower too (its original offsets)
    retry = make_batch(5, producer_id=9, producer_epoch=0, base_sequence=1, tag=5, timestamp=NOW)
    dup = follower.append_as_leader(memoryview(retry), 6, now_ms=NOW)
    assert dup.duplicate and dup.base_offset == 10


def test_batches_already_held_are_skipped_and_a_trailing_partial_batch_ignored(logs):
    leader, follower = logs
    fill_leader(leader)
    data = bytes(leader.read(0, 1 << 20).records)
    first_size = next(iter_batches(data))[1].size
    follower.append_as_follower(data[: first_size - 1])  # less than one batch: nothing
    assert follower.log_end_offset == 0
    follower.append_as_follower(data)
    assert follower.append_as_follower(data) == 0  # a repeated fetch adds nothing
    assert read_all(follower) == read_all(leader)


def test_a_corrupt_or_unordered_fetch_is_refused_whole(logs):
    leader, follower = logs
    fill_leader(leader)
    data = bytearray(leader.read(0, 1 << 20).records)
    bad = bytearray(data)
    bad[-3] ^= 0xFF  # inside the last batch's records: its CRC no longer holds
    with pytest.raises(KafkaError) as caught:
        follower.append_as_follower(bad)
    assert caught.value.error is ErrorCode.CORRUPT_MESSAGE
    assert follower.log_end_offset == 0  # nothing written, not even the good batches
    batches = list(iter_batches(data))
    first_pos, first = batches[0]
    second_pos, second = batches[1]
    swapped = data[second_pos : second_pos + second.size] + data[first_pos : first_pos + first.size]
    with pytest.raises(KafkaError) as caught:
        follower.append_as_follower(swapped)
    assert caught.value.error is ErrorCode.CORRUPT_MESSAGE
    assert follower.log_end_offset == 0


def test_truncate_to_cuts_segments_indexes_epochs_and_producer_state(tmp_path):
    plog = open_log(tmp_path, segment_bytes=400, index_interval_bytes=1)
    leader_append(plog, 2, 0, pid=5, seq=0, tag=0)  # 0-1
    leader_append(plog, 2, 1, pid=5, seq=2, tag=1)  # 2-3
    plog.roll()
    leader_append(plog, 2, 1, pid=5, seq=4, tag=2)  # 4-5
    plog.producer_state.take_snapshot()
    leader_append(plog, 2, 3, pid=5, seq=6, tag=3)  # 6-7
    leader_append(plog, 2, 3, pid=6, seq=0, tag=4)  # 8-9
    plog.roll()
    leader_append(plog, 2, 4, pid=5, seq=8, tag=5)  # 10-11
    plog.update_high_watermark(12)
    assert len(plog.segments()) >= 3
    before = read_all(plog)
    expected_state = None

    # the state as a log that only ever held offsets 0-6 (batch 6-7 straddles 7: removed whole)
    reference = open_log(tmp_path, name="ref-0")
    reference.append_as_follower(read_all(plog)[: sum(h.size for _, h in list(iter_batches(before))[:3])])
    expected_state = producers(reference)
    reference.close()

    assert plog.truncate_to(7) is True
    assert plog.log_end_offset == 6
    assert plog.high_watermark == 6 and plog.recovery_point <= 6
    assert [s.base_offset for s in plog.segments()] == [0, 4]
    assert [(e.epoch, e.start_offset) for e in plog.leader_epoch_cache.entries()] == [(0, 0), (1, 2)]
    assert producers(plog) == expected_state and 6 not in producers(plog)
    assert plog.producer_state.last_entry(5).last_seq == 5
    assert all(o <= 6 for o in plog.producer_state.snapshot_offsets())
    assert read_all(plog) == before[: len(read_all(plog))]
    assert plog.read(5, 1 << 20).records  # the index still finds offsets below the cut
    # the log takes appends again at 6 (a follower continuing from its leader)
    info = leader_append(plog, 1, 6, pid=5, seq=6, tag=9)
    assert info.base_offset == 6 and plog.leader_epoch_cache.latest_epoch == 6
    assert plog.truncate_to(100) is False
    plog.close()

    # and it reloads the same after a clean restart
    again = open_log(tmp_path)
    assert again.log_end_offset == 7
    assert [(e.epoch, e.start_offset) for e in again.leader_epoch_cache.entries()] == [(0, 0), (1, 2), (6, 6)]
    again.close()


def test_a_straddling_fetched_batch_makes_the_follower_take_the_leaders_history(logs):
    leader, follower = logs
    # the follower wrote 0-1 and 2-4 in epoch 0; the leader has 0-1, then 2-5 in epoch 1
    leader_append(leader, 2, 0, tag=1)
    leader_append(leader, 4, 1, tag=2)
    follower.append_as_follower(_first_batch(leader))
    follower.append_as_leader(memoryview(make_batch(3, tag=3, timestamp=NOW)), 0, now_ms=NOW)
    assert follower.log_end_offset == 5
    # the leader's 2-5 reaches past the follower's end: the follower's 2-4 gives way to it
    follower.append_as_follower(leader.read(0, 1 << 20).records)
    assert read_all(follower) == read_all(leader)
    assert follower.leader_epoch_cache.entries() == leader.leader_epoch_cache.entries()


def _first_batch(plog: PartitionLog) -> bytes:
    data = plog.read(0, 1 << 20).records
    _, header = next(iter_batches(data))
    return bytes(data[: header.size])


def test_truncating_below_the_log_start_restarts_the_log_there(tmp_path):
    plog = open_log(tmp_path)
    leader_append(plog, 5, 0)
    plog.update_high_watermark(5)
    plog.delete_records_before(3)
    plog.truncate_to(2)
    assert plog.log_start_offset == plog.log_end_offset == 2
    assert plog.leader_epoch_cache.entries() == []
    plog.close()


def test_a_fetched_set_is_written_at_once_and_rolls_as_a_whole(tmp_path, monkeypatch):
    # Kafka's UnifiedLog.append: one roll check and one segment write for a fetched set.
    leader = open_log(tmp_path / "leader")
    for tag in range(6):
        leader_append(leader, 3, 0, pid=4, seq=3 * tag, tag=tag)
    data = bytes(leader.read(0, 1 << 20).records)
    sizes = [h.size for _, h in iter_batches(data)]
    follower = open_log(tmp_path / "follower", segment_bytes=sum(sizes[:4]), index_interval_bytes=1)
    writes: list[int] = []
    real_pwrite = os.pwrite

    def counting_pwrite(fd, buf, position):
        if len(buf) >= min(sizes):  # record writes, not index entries
            writes.append(len(buf))
        return real_pwrite(fd, buf, position)

    monkeypatch.setattr(os, "pwrite", counting_pwrite)
    head = sum(sizes[:3])
    assert follower.append_as_follower(data[:head]) == head
    assert follower.append_as_follower(data[head:]) == len(data) - head  # does not fit: a new segment
    assert writes == [head, len(data) - head]
    assert [s.base_offset for s in follower.segments()] == [0, 9]
    assert read_all(follower) == read_all(leader)
    assert producers(follower) == producers(leader)
    for offset in range(18):  # every batch is indexed and found
        [(_, found)] = list(iter_batches(follower.read(offset, 1).records))[:1]
        assert found.base_offset <= offset <= found.last_offset
    # a fetched set larger than a segment goes batch by batch, each segment within its size
    small = open_log(tmp_path / "small", segment_bytes=max(sizes) + 1)
    writes.clear()
    assert small.append_as_follower(data) == len(data)
    assert writes == sizes
    assert [s.base_offset for s in small.segments()] == [0, 3, 6, 9, 12, 15]
    assert read_all(small) == read_all(leader)
