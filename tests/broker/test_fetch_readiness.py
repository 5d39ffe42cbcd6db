"""A parked fetch (Kafka's DelayedFetch) decides readiness from the partitions' counters: appends
that do not make it ready never read the log, and the read it parked with gives back its
descriptors (FileRecords)."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import os
import uuid

from broker.fetch_params import FetchParams, FetchPartitionInfo
from broker.replica_manager import ReplicaManager
from storage.file_records import FileRecords
from storage.log_config import resolve_topic_defaults
from storage.log_manager import LogManager
from storage.log_types import FetchIsolation
from storage.partition_log import PartitionLog
from storage.producer_state import AppendOrigin
from tests.storage.batch_factory import BASE_TS, make_batch


def open_log_files() -> int:
    """Descriptors open on .log files (the segment's own and any FileRecords): index files open
    lazily at their first write, so counting every descriptor would count them too."""
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):  # closed since the listing
            count += os.readlink(f"/proc/self/fd/{fd}").endswith(".log")
    return count


def test_appends_below_min_bytes_never_read_the_log_and_the_answer_reads_it_once(tmp_path, monkeypatch):
    reads: list[bool] = []
    read = PartitionLog.read

    def counting_read(self, *args, **kwargs):
        reads.append(kwargs.get("file_records", False))
        return read(self, *args, **kwargs)

    monkeypatch.setattr(PartitionLog, "read", counting_read)
    batch = make_batch(100, value_size=200, timestamp=BASE_TS)

    async def scenario():
        lm = LogManager([tmp_path / "logs"], resolve_topic_defaults({}))
        lm.startup()
        lm.create_topic("t", 1, uuid.uuid4(), {})
        rm = ReplicaManager(0, lm, lambda: BASE_TS)
        rm.lead_local_logs()
        rm.append_records(
            [(("t", 0), make_batch(100, value_size=200))], required_acks=1, origin=AppendOrigin.CLIENT
        )
        fds = open_log_files()
        params = FetchParams(
            max_wait_ms=60_000,
            min_bytes=len(batch) * 6,
            max_bytes=1 << 24,
            isolation=FetchIsolation.HIGH_WATERMARK,
            file_records=True,
        )
        pending = rm.fetch_messages(
            params, [(("t", 0), FetchPartitionInfo(fetch_offset=0, max_bytes=1 << 24))]
        )
        assert inspect.isawaitable(pending) and reads == [True]
        assert open_log_files() == fds  # the first read's FileRecords were closed
        waiting = asyncio.ensure_future(pending)
        for _ in range(4):  # 5 batches readable: still under min_bytes
            rm.append_records(
                [(("t", 0), make_batch(100, value_size=200))], required_acks=1, origin=AppendOrigin.CLIENT
            )
            await asyncio.sleep(0)
        assert not waiting.done() and reads == [True]  # readiness came from the counters
        rm.append_records(
            [(("t", 0), make_batch(100, value_size=200))], required_acks=1, origin=AppendOrigin.CLIENT
        )
        [data] = await asyncio.wait_for(waiting, 30)
        assert reads == [True, True]
        assert isinstance(data.records, FileRecords) and len(data.records) == 6 * len(batch)
        data.records.close()
        assert open_log_files() == fds
        lm.shutdown()

    asyncio.run(scenario())
