"""segment rolls and retention against Kafka's UnifiedLog / LogSegment."""

from __future__ import annotations

from tests.storage.batch_factory import BASE_TS, make_batch
from tests.storage.log_factory import open_log


def _append(plog, ts: int, n: int = 1) -> None:
    plog.append_as_leader(memoryview(make_batch(n, timestamp=ts)), 0, now_ms=ts)
    plog.update_high_watermark(plog.log_end_offset)


def test_compacted_log_rolls_at_max_compaction_lag_ms(tmp_path):
    """Kafka ``LogConfig.maxSegmentMs`` (used by ``UnifiedLog.maybeRoll`` -> ``LogSegment.shouldRoll``):
    for a compacted log with max.compaction.lag.ms > 0 the roll time is
    min(max.compaction.lag.ms, segment.ms), so the active segment (never cleaned) is closed in
    time for the cleaner to honour max.compaction.lag.ms."""
    plog = open_log(tmp_path, cleanup_policy=("compact",), max_compaction_lag_ms=1_000)
    try:
        _append(plog, BASE_TS)
        _append(plog, BASE_TS + 2_000)
        assert [s.base_offset for s in plog.segments()] == [0, 1]
    finally:
        plog.close()


def test_retention_ms_stops_at_a_segment_with_a_future_timestamp(tmp_path):
    """Kafka ``UnifiedLog.deleteRetentionMsBreachedSegments``: a segment's largestTimestamp
    (a future one too) decides, and deletion stops at the first segment not breached."""
    plog = open_log(tmp_path, segment_bytes=200, retention_ms=1_000)
    try:
        now = BASE_TS + 100_000
        _append(plog, BASE_TS)
        plog.roll()
        _append(plog, now + 50_000)  # future
        plog.roll()
        _append(plog, BASE_TS)
        plog.roll()
        _append(plog, BASE_TS)
        assert plog.delete_old_segments(now) == 1
        assert plog.log_start_offset == 1
    finally:
        plog.close()


def test_retention_bytes_deletes_while_the_excess_covers_a_whole_segment(tmp_path):
    """Kafka ``UnifiedLog.deleteRetentionSizeBreachedSegments``: diff = size - retention.bytes,
    delete oldest segments while diff - segment.size >= 0."""
    plog = open_log(tmp_path, retention_ms=-1)
    try:
        for _ in range(4):
            _append(plog, BASE_TS)
            plog.roll()
        _append(plog, BASE_TS)
        seg = plog.segments()[0].size
        total = plog.size_in_bytes
        cfg = plog.config
        import dataclasses

        plog.config = dataclasses.replace(cfg, retention_bytes=total - 2 * seg)
        assert plog.delete_old_segments(BASE_TS) == 2
        plog.config = dataclasses.replace(cfg, retention_bytes=plog.size_in_bytes - seg + 1)
        assert plog.delete_old_segments(BASE_TS) == 0
    finally:
        plog.close()


def test_retention_breached_active_segment_is_rolled_and_deleted_up_to_the_high_watermark(tmp_path):
    """Kafka ``UnifiedLog.deletableSegments`` / ``deleteSegments``: every segment (the active one
    with data too) breached and below the high watermark -> roll, delete all; a segment reaching
    past the high watermark stays."""
    plog = open_log(tmp_path, retention_ms=1_000)
    try:
        _append(plog, BASE_TS)
        plog.roll()
        _append(plog, BASE_TS)
        plog.update_high_watermark(1)
        assert plog.delete_old_segments(BASE_TS + 10_000) == 1
        assert plog.log_start_offset == 1
        plog.update_high_watermark(2)
        assert plog.delete_old_segments(BASE_TS + 10_000) == 1
        assert (plog.log_start_offset, plog.log_end_offset, len(plog.segments())) == (2, 2, 1)
    finally:
        plog.close()
