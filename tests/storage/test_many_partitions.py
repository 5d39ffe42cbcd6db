"""Many partitions: a clean restart loads every one, fsyncs nothing per partition, and leaves
each idle partition holding one file descriptor (its active .log; the indexes are lazy)."""

from __future__ import annotations

import os
import uuid

from storage.log_config import resolve_topic_defaults
from storage.log_manager import LogManager
from tests.storage.batch_factory import make_batch
from tests.storage.fsync_recorder import record_fsyncs

TOPICS = 10
PER_TOPIC = 100


def _fds_under(directory) -> int:
    prefix = str(directory)
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}").startswith(prefix):
                count += 1
        except OSError:
            continue
    return count


def test_a_clean_restart_of_many_partitions_loads_all_without_per_partition_writes(tmp_path, monkeypatch):
    log_dir = tmp_path / "logs"
    lm = LogManager([log_dir], resolve_topic_defaults({}))
    lm.startup()
    ends = {}
    for t in range(TOPICS):
        for plog in lm.create_topic(f"many-{t}", PER_TOPIC, uuid.uuid4(), {}):
            plog.leader_epoch_cache.assign(0, 0)  # as Partition.make_leader does
            if plog.partition % 7 == 0:
                plog.append_as_leader(memoryview(make_batch(3)), 0)
            ends[(plog.topic, plog.partition)] = plog.log_end_offset
    assert _fds_under(log_dir) <= TOPICS * PER_TOPIC + 1  # .log each (+ the dir lock)
    lm.shutdown()
    epochs_before = {
        p: (log_dir / f"{p[0]}-{p[1]}" / "leader-epoch-checkpoint").stat().st_mtime_ns for p in ends
    }

    fsyncs = record_fsyncs(monkeypatch)
    again = LogManager([log_dir], resolve_topic_defaults({}))
    again.startup()
    try:
        loaded = {(p.topic, p.partition): p.log_end_offset for p in again.logs()}
        assert loaded == ends
        for plog in again.logs():
            plog.leader_epoch_cache.assign(0, plog.log_end_offset)
        # Only the log dir itself is fsynced (the clean-shutdown marker removed).
        assert [p for _t, p in fsyncs.calls] == [os.path.realpath(log_dir)]
        after = {p: (log_dir / f"{p[0]}-{p[1]}" / "leader-epoch-checkpoint").stat().st_mtime_ns for p in ends}
        assert after == epochs_before
        # One descriptor per idle partition (its active .log) and the dir's .lock.
        assert _fds_under(log_dir) == TOPICS * PER_TOPIC + 1
        # Served: a partition reads back its records and takes new ones (its indexes open then).
        plog = again.get_log("many-0", 7)
        assert plog is not None and plog.read(0, 1 << 20).records
        plog.append_as_leader(memoryview(make_batch(2)), 0)
        assert plog.log_end_offset == ends[("many-0", 7)] + 2
    finally:
        again.shutdown()
