"""The segment's remembered tail (the last batches appended, found without the offset index)
answers every lookup as the file itself does, whatever the log went through.

Random sequences of leader appends, follower runs (gaps between batches, batches straddling
the log end), truncations, rolls and restarts at an offset; after each step every segment's
``translate_offset`` is compared, for every offset around the log and every batch start, with a
segment opened afresh on the same files (no tail: the offset index and the headers only).
"""

from __future__ import annotations

import random

import pytest

from protocol.record_batch import set_base_offset
from storage.segment import LogSegment
from tests.storage.batch_factory import BASE_TS, make_batch
from tests.storage.log_factory import open_log


def _assert_tail_agrees(plog) -> None:
    for seg in plog.segments():
        fresh = LogSegment(seg.dir, seg.base_offset, index_interval_bytes=1 << 30, max_index_size=4096)
        try:
            assert fresh.size == seg.size
            starts = sorted({0, seg.size, *(b.position for b in fresh.iter_batch_positions())})
            for offset in range(seg.base_offset - 1, plog.log_end_offset + 2):
                for start in starts:
                    assert seg.translate_offset(offset, start) == fresh.translate_offset(offset, start), (
                        seg,
                        offset,
                        start,
                    )
        finally:
            fresh.close_handlers()


def _follower_run(rnd: random.Random, plog, step: int) -> bytes:
    """Batches from at or a little below the log end, with gaps between some of them."""
    offset = max(plog.log_start_offset, plog.log_end_offset - rnd.randint(0, 4))
    data = bytearray()
    for i in range(rnd.randint(1, 4)):
        n = rnd.randint(1, 3)
        batch = make_batch(
            n, value_size=rnd.randint(1, 40), timestamp=BASE_TS + step, tag=1000 + step * 10 + i
        )
        set_base_offset(batch, 0, offset)
        data += batch
        offset += n + rnd.choice((0, 0, 2))
    return bytes(data)


@pytest.mark.parametrize("seed", range(4))
def test_the_tail_answers_as_the_file_does_through_appends_truncations_and_rolls(tmp_path, seed):
    rnd = random.Random(seed)
    plog = open_log(
        tmp_path, segment_bytes=rnd.choice((600, 1500)), index_interval_bytes=rnd.choice((1, 100, 4096))
    )
    try:
        for step in range(50):
            op = rnd.random()
            if op < 0.5:
                batch = make_batch(
                    rnd.randint(1, 4), value_size=rnd.randint(1, 60), timestamp=BASE_TS + step, tag=step
                )
                plog.append_as_leader(memoryview(batch), 0, now_ms=BASE_TS + step)
            elif op < 0.7:
                plog.append_as_follower(memoryview(_follower_run(rnd, plog, step)))
            elif op < 0.85:
                if plog.log_end_offset > plog.log_start_offset:
                    plog.truncate_to(rnd.randint(plog.log_start_offset, plog.log_end_offset))
            elif op < 0.93:
                plog.roll("test")
            else:
                plog.truncate_fully_and_start_at(plog.log_end_offset + rnd.randint(0, 3))
            _assert_tail_agrees(plog)
    finally:
        plog.close()
