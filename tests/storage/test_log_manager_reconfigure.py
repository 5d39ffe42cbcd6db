"""LogManager reconfiguration without a restart: new topic defaults (a dynamic broker config)
and new topic overrides reach every PartitionLog, and retention acts on them at once."""

from __future__ import annotations

import time
import uuid

from storage.log_config import resolve_topic_defaults
from storage.log_manager import LogManager
from tests.storage.batch_factory import make_batch

HOUR_MS = 3_600_000


def fill(lm: LogManager, topic: str, batches: int, timestamp: int) -> None:
    plog = lm.get_log(topic, 0)
    for _ in range(batches):
        plog.append_as_leader(memoryview(make_batch(1, value_size=100, timestamp=timestamp)), 0)
    plog.update_high_watermark(plog.log_end_offset)


def test_new_defaults_and_overrides_apply_to_existing_logs(tmp_path):
    lm = LogManager([tmp_path / "logs"], resolve_topic_defaults({"log.segment.bytes": 200}))
    lm.startup()
    try:
        lm.create_topic("plain", 1, uuid.uuid4(), {})
        lm.create_topic("kept", 1, uuid.uuid4(), {"retention.ms": -1})
        old = int(time.time() * 1000) - 2 * HOUR_MS
        fill(lm, "plain", 5, old)
        fill(lm, "kept", 5, old)
        assert lm.topic_overrides("kept") == {"retention.ms": -1}
        assert lm.topic_overrides("plain") == {}
        assert lm.topic_overrides("missing") is None

        for plog in lm.logs():
            assert plog.delete_old_segments() == 0  # 7 days: nothing is old enough

        lm.set_topic_defaults(resolve_topic_defaults({"log.segment.bytes": 200, "log.retention.ms": HOUR_MS}))
        plain, kept = lm.get_log("plain", 0), lm.get_log("kept", 0)
        assert (plain.config.retention_ms, kept.config.retention_ms) == (HOUR_MS, -1)
        assert plain.delete_old_segments() > 0 and plain.log_start_offset == 5
        assert kept.delete_old_segments() == 0

        lm.set_topic_overrides("kept", {"retention.ms": HOUR_MS // 2})
        assert kept.config.retention_ms == HOUR_MS // 2 and kept.config.segment_bytes == 200
        assert kept.delete_old_segments() > 0 and kept.log_start_offset == 5
    finally:
        lm.shutdown()
