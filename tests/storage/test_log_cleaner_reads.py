"""Fetch reads of a compacted log (PartitionLog.read) after and during cleaning.

A cleaned segment whose records were all superseded keeps only emptied batches (an active
producer's last batch, the group's last batch: storage.log_cleaner). Every answer must still
be whole batches from the first whose last offset >= the fetch offset (an offset compaction
removed reads from the next batch), and hold the next record there is: librdkafka takes an
answer without a record for a too small fetch size, doubles it, and after a few such answers
fails the partition with MSG_SIZE_TOO_LARGE ("might be too large to fetch").
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from protocol.record_batch import HEADER_SIZE, is_valid_crc, read_header
from protocol.records import decode_batch
from storage.partition_log import PartitionLog
from tests.storage.test_log_cleaner import clean_once, compacted_log, fill, make_cleaner

KEYS = 50
ROUNDS = 10


def superseded_log(tmp_path: Path) -> PartitionLog:
    """``ROUNDS`` updates of ``KEYS`` keys in 2000-byte segments: every segment below the last
    round's is superseded whole by it."""
    plog = compacted_log(tmp_path)
    fill(plog, KEYS, ROUNDS)
    return plog


def records_on_disk(plog: PartitionLog) -> dict[int, tuple[bytes | None, bytes | None]]:
    """offset -> (key, value) of every record, read straight from the segment files."""
    out = {}
    for seg in plog.segments():
        for pos, header in seg.iter_headers():
            for r in decode_batch(seg.pread(pos, header.size), header):
                out[r.offset] = (r.key, r.value)
    return out


def split_answer(data: bytes) -> list[tuple]:
    """(header, records) of each batch of an answer, which must be whole, valid batches."""
    out = []
    pos = 0
    while pos < len(data):
        header = read_header(data, pos)
        assert pos + header.size <= len(data), f"a cut batch at byte {pos} of the answer"
        assert is_valid_crc(data, pos, header), f"a bad batch at byte {pos} of the answer"
        out.append((header, decode_batch(data[pos : pos + header.size], header)))
        pos += header.size
    return out


def check_answer(plog: PartitionLog, offset: int, data: bytes, originals: dict) -> list[tuple]:
    """The answer at ``offset`` starts with the batch holding it or the next one, holds a record
    at or after it, and every record is the one written at that offset."""
    batches = split_answer(data)
    assert batches, f"nothing at {offset} (log end {plog.log_end_offset})"
    assert batches[0][0].last_offset >= offset
    previous = offset - 1
    for header, records in batches:
        assert header.base_offset > previous or header is batches[0][0]
        previous = header.last_offset
        for r in records:
            assert originals[r.offset] == (r.key, r.value), r.offset
    assert any(r.offset >= offset for _h, rs in batches for r in rs), (
        f"the answer at {offset} holds no record: {[(h.base_offset, h.records_count) for h, _ in batches]}"
    )
    return batches


def emptied_segments(plog: PartitionLog) -> list[int]:
    """Bases of the inactive segments that hold batches, none with a record."""
    out = []
    for seg in plog.segments()[:-1]:
        counts = [h.records_count for _pos, h in seg.iter_headers()]
        if counts and not any(counts):
            out.append(seg.base_offset)
    return out


def test_every_fetch_offset_of_a_cleaned_log_reads_the_next_record(tmp_path):
    plog = superseded_log(tmp_path)
    originals = records_on_disk(plog)
    clean_once(make_cleaner([plog], tmp_path))
    assert len(emptied_segments(plog)) >= 3  # what this test is about
    surviving = sorted(records_on_disk(plog))
    for max_bytes in (1, HEADER_SIZE, 1 << 20):
        for offset in range(plog.log_start_offset, plog.log_end_offset):
            data = plog.read(offset, max_bytes, max_offset=plog.high_watermark).records
            batches = check_answer(plog, offset, data, originals)
            first = min(r.offset for _h, rs in batches for r in rs if r.offset >= offset)
            assert first == next(o for o in surviving if o >= offset)  # no record skipped


def test_a_consumer_reads_a_cleaned_log_without_an_answer_lacking_records(tmp_path):
    """librdkafka's loop: fetch, take the records at or after the offset, go on after the
    answer's last batch."""
    plog = superseded_log(tmp_path)
    originals = records_on_disk(plog)
    clean_once(make_cleaner([plog], tmp_path))
    assert emptied_segments(plog)
    offset, consumed, answers = 0, [], 0
    while offset < plog.high_watermark:
        data = plog.read(offset, 1 << 20, max_offset=plog.high_watermark).records
        batches = check_answer(plog, offset, data, originals)
        consumed += [r.offset for _h, rs in batches for r in rs if r.offset >= offset]
        offset = batches[-1][0].next_offset
        answers += 1
    assert consumed == sorted(records_on_disk(plog))
    assert answers <= len(plog.segments())


def test_a_follower_read_of_a_cleaned_log_copies_every_batch_the_emptied_ones_too(tmp_path):
    plog = superseded_log(tmp_path)
    clean_once(make_cleaner([plog], tmp_path))
    on_disk = [
        (h.base_offset, h.last_offset, h.records_count) for s in plog.segments() for _p, h in s.iter_headers()
    ]
    assert any(count == 0 for _b, _l, count in on_disk)
    copied = []
    offset = plog.log_start_offset
    while offset < plog.log_end_offset:
        data = plog.read(offset, 1).records
        for header, _records in split_answer(data):
            copied.append((header.base_offset, header.last_offset, header.records_count))
            offset = header.next_offset
    assert copied == on_disk


def test_reads_stay_whole_while_a_round_swaps_segments_in(tmp_path):
    """Fetches interleaved with a cleaning round on one loop (the swap happens between two of
    them, as on the broker): each answer is whole batches of what was written, holding the
    next record; a position taken before a swap reads on after it."""
    plog = superseded_log(tmp_path)
    originals = records_on_disk(plog)
    cleaner = make_cleaner([plog], tmp_path)
    seen_layouts = set()

    async def reader(done: asyncio.Event) -> int:
        reads = 0
        offset = 0
        while not done.is_set():
            seen_layouts.add(plog.segments())
            if offset >= plog.high_watermark:
                offset = 0
            data = plog.read(offset, 300, max_offset=plog.high_watermark).records
            batches = check_answer(plog, offset, data, originals)
            offset = batches[0][0].next_offset  # one batch at a time: many reads a round
            reads += 1
            await asyncio.sleep(0)
        return reads

    async def go() -> int:
        done = asyncio.Event()
        task = asyncio.create_task(reader(done))
        try:
            assert await cleaner.clean_filthiest_log() is not None
        finally:
            cleaner.close()
            done.set()
        return await task

    assert asyncio.run(go()) > 0
    assert len(seen_layouts) >= 3  # reads ran before, between and after the swaps
    # And once more, from every offset, over the final layout.
    for offset in range(plog.log_end_offset):
        check_answer(plog, offset, plog.read(offset, 1).records, originals)
