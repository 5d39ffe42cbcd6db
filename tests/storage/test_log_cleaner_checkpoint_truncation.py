"""The cleaner checkpoint when a (follower) log is truncated below it."""

from __future__ import annotations

import asyncio
import uuid

from protocol.records import build_batch, decode_all
from storage.log_cleaner_manager import CleanerConfig
from storage.log_config import resolve_topic_defaults
from storage.log_manager import LogManager

NOW = 1_700_000_000_000


def append(plog, records) -> None:
    raw = bytearray(build_batch(records, timestamp=NOW))
    plog.append_as_leader(memoryview(raw), 0, now_ms=NOW)
    plog.update_high_watermark(plog.log_end_offset)


def test_truncation_below_the_cleaner_checkpoint_lowers_it(tmp_path):
    """Kafka ``LogManager.truncateTo`` / ``truncateFullyAndStartAt`` ->
    ``maybeTruncateCleanerCheckpointToActiveSegmentBaseOffset`` (``LogCleanerManager.maybeTruncateCheckpoint``):
    a log truncated below its cleaner checkpoint gets the checkpoint lowered to its active
    segment's base offset, so the records written again after the truncation point are dirty
    and get compacted. Otherwise they count as already clean and two versions of a key written
    there both stay."""
    lm = LogManager(
        [tmp_path / "d"], resolve_topic_defaults({}), cleaner=CleanerConfig(), time_ms=lambda: NOW
    )
    lm.startup()
    try:
        lm.create_topic(
            "c",
            1,
            uuid.uuid4(),
            {"cleanup.policy": ["compact"], "segment.bytes": 1000, "min.cleanable.dirty.ratio": 0.01},
        )
        plog = lm.get_log("c", 0)
        for r in range(12):
            append(plog, [(f"k{k}".encode(), f"v{r}".encode()) for k in range(5)])
        cleaner = lm.cleaner

        async def clean() -> int | None:
            return await cleaner.clean_filthiest_log()

        first = asyncio.run(clean())
        assert first is not None and first == plog.segments()[-1].base_offset
        assert cleaner.manager.checkpoint(plog) == first
        # A follower truncates (KIP-101/279: the new leader's log diverges) below the checkpoint,
        # then takes the new leader's records: key "x" twice, then other keys past the old checkpoint.
        truncate_at = first - 5
        plog.truncate_to(truncate_at)
        restart = plog.log_end_offset
        assert restart < first
        append(plog, [(b"x", b"1")])
        append(plog, [(b"x", b"2")])
        while plog.log_end_offset < first + 60:
            append(plog, [(f"y{plog.log_end_offset}".encode(), b"y") for _ in range(1)])
        assert len(plog.segments()) > 2
        for _ in range(3):
            asyncio.run(clean())
        cleaner.close()
        xs = []
        offset = plog.log_start_offset
        while offset < plog.log_end_offset:
            for header, records in decode_all(plog.read(offset, 1 << 24).records):
                xs += [(r.offset, r.value) for r in records if r.key == b"x"]
                offset = header.next_offset
        assert xs == [(restart + 1, b"2")]
    finally:
        lm.shutdown()
