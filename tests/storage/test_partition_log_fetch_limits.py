"""What a fetch learns from the log besides its records: whether a whole batch did not fit the
read's max_bytes (``FetchDataInfo.limited``: Kafka's read would have filled max_bytes with a
partial batch there), and the bytes between two offsets (``PartitionLog.bytes_between``,
Kafka's ``LogOffsetMetadata.positionDiff``)."""

from __future__ import annotations

import itertools

from tests.storage.log_factory import append_batches, open_log


def test_limited_says_a_whole_batch_below_max_offset_did_not_fit(tmp_path):
    plog = open_log(tmp_path)
    sizes = [info.size for info, _ in append_batches(plog, [2, 2, 2, 2])]  # offsets 0-7
    total = sum(sizes)
    assert not plog.read(0, total).limited
    assert not plog.read(0, 1 << 20).limited
    cut = plog.read(0, sizes[0] + sizes[1] // 2)
    assert cut.limited and len(cut.records) == sizes[0]
    # KIP-74: an oversized first batch is returned whole; the next one did not fit
    first = plog.read(0, 1)
    assert first.limited and len(first.records) == sizes[0]
    assert not plog.read(6, 1).limited  # the last batch alone: nothing more to read
    nothing = plog.read(0, 1, min_one_batch=False)
    assert nothing.limited and nothing.records == b""
    # batches at or past max_offset are not readable: not fitting them limits nothing
    assert not plog.read(0, sizes[0] + sizes[1], max_offset=4).limited
    assert plog.read(0, sizes[0] + sizes[1] - 1, max_offset=4).limited


def test_bytes_between_is_the_position_difference_across_segments(tmp_path):
    plog = open_log(tmp_path, segment_bytes=400, index_interval_bytes=100)
    appended = append_batches(plog, [2] * 12)
    assert len(plog.segments()) > 2
    starts = [info.base_offset for info, _ in appended] + [plog.log_end_offset]
    sizes = [info.size for info, _ in appended]
    for (i, a), (j, b) in itertools.combinations(enumerate(starts), 2):
        assert plog.bytes_between(a, b) == sum(sizes[i:j]), (a, b)
        assert plog.bytes_between(b, a) == 0
    # an offset inside a batch counts from that batch's start
    assert plog.bytes_between(1, 5) == sum(sizes[0:2])
    assert plog.bytes_between(0, plog.log_end_offset) == plog.size_in_bytes
