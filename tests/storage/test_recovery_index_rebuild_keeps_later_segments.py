"""A segment rebuilt because its index is missing (not because it is past the
recovery point) must not take the later segments with it when its log is cut."""

from __future__ import annotations

from tests.storage.log_factory import append_batches, open_log

CONFIG = dict(segment_bytes=700, index_interval_bytes=60, segment_index_bytes=1024)


def test_missing_index_and_bad_tail_in_an_old_segment_keeps_later_segments(tmp_path):
    plog = open_log(tmp_path, **CONFIG)
    append_batches(plog, [2, 1, 3, 2, 1, 2, 3, 1, 2, 2, 1, 3] * 2, value_size=8)
    bases = [s.base_offset for s in plog.segments()]
    assert len(bases) >= 3
    leo = plog.log_end_offset
    plog.close()  # clean shutdown
    d = tmp_path / "t-0"
    first = d / f"{bases[0]:020d}"
    (first.with_suffix(".index")).unlink()  # the index is gone
    data = bytearray((first.with_suffix(".log")).read_bytes())
    data[-1] ^= 0xFF  # and the last batch of that old segment is damaged
    first.with_suffix(".log").write_bytes(bytes(data))

    got = open_log(tmp_path, clean=True, **CONFIG)
    # Kafka (LogLoader.loadSegmentFiles -> recoverSegment) cuts that segment only.
    assert [s.base_offset for s in got.segments()] == bases
    assert got.log_end_offset == leo
