"""Retention's renames happen with the segments' removal, on the loop: a topic deleted and
re-created while the retention pass waits (here, on an executor busy with other file work)
keeps its own files."""

from __future__ import annotations

import asyncio
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

from storage.log_config import resolve_topic_defaults
from storage.log_manager import LogManager
from tests.storage.log_factory import append_batches


class _GatedExecutor(ThreadPoolExecutor):
    """A default executor whose jobs wait for ``gate`` (an executor busy with other file work)."""

    def __init__(self) -> None:
        super().__init__(max_workers=2)
        self.gate = threading.Event()
        self.submitted = threading.Event()

    def submit(self, fn, /, *args, **kwargs):
        def gated():
            self.gate.wait(10)
            return fn(*args, **kwargs)

        self.submitted.set()
        return super().submit(gated)


def test_retention_rename_in_flight_does_not_take_a_recreated_topics_segment(tmp_path):
    """Kafka's ``LocalLog.removeAndDeleteSegments`` / ``deleteSegmentFiles`` rename the deleted
    segments' files ``.deleted`` under the log's lock, before ``LogManager.asyncDelete`` can
    rename the dir; a topic of the same name created afterwards keeps its own
    ``00000000000000000000.log``. Renamed later, by path, off the loop (as Moldau did for a
    while), the path would name the new topic's active segment and its records would be lost."""
    lm = LogManager([tmp_path], resolve_topic_defaults({}))
    lm.startup()
    try:
        overrides = {"segment.bytes": 400, "retention.ms": 1}
        lm.create_topic("r", 1, uuid.uuid4(), overrides)
        plog = lm.get_log("r", 0)
        append_batches(plog, [2] * 10)
        assert plog.segments()[0].base_offset == 0 and len(plog.segments()) > 2

        async def scenario():
            executor = _GatedExecutor()
            loop = asyncio.get_running_loop()
            loop.set_default_executor(executor)
            try:
                task = asyncio.create_task(lm.background.retention_pass())
                while not executor.submitted.is_set():
                    await asyncio.sleep(0)
                # The segments left the log on the loop; their renames wait in the executor.
                lm.delete_topic("r")
                lm.create_topic("r", 1, uuid.uuid4(), {"segment.bytes": 400})
                new = lm.get_log("r", 0)
                append_batches(new, [2, 2])
                executor.gate.set()
                await task
                return new
            finally:
                executor.gate.set()
                executor.shutdown(wait=True)

        new = asyncio.run(scenario())
        end = new.log_end_offset
        assert end == 4
        files = sorted(p.name for p in new.dir.iterdir())
    finally:
        lm.shutdown()
    # The new topic's records survive a restart.
    again = LogManager([tmp_path], resolve_topic_defaults({}))
    again.startup()
    try:
        assert again.get_log("r", 0).log_end_offset == end, files
    finally:
        again.shutdown()
