"""LogManager: topics over log.dirs, Kafka's checkpoint and marker files, restarts (clean,
unclean, kill -9), meta.properties, background retention / flush / checkpoints, producer
snapshots fsynced off the loop and at shutdown."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from pathlib import Path

import pytest

from protocol.errors import ErrorCode, KafkaError
from storage import log_manager as log_manager_module
from storage.checkpoints import OffsetCheckpointFile
from storage.log_config import resolve_topic_defaults
from storage.log_dir_failure import LogDirError
from storage.log_manager import LogManager, LogManagerIntervals
from storage.partition_metadata import read_meta_properties, uuid_to_kafka_str
from tests.storage.batch_factory import make_batch
from tests.storage.fsync_recorder import record_fsyncs

REPO = Path(__file__).resolve().parents[2]


def manager(dirs, **kw) -> LogManager:
    lm = LogManager(dirs, resolve_topic_defaults({}), **kw)
    lm.startup()
    return lm


def produce(plog, batches=3, records=2, **kw):
    for _ in range(batches):
        plog.append_as_leader(memoryview(make_batch(records, timestamp=int(time.time() * 1000), **kw)), 0)
    plog.update_high_watermark(plog.log_end_offset)


def test_topics_spread_over_log_dirs_with_partition_metadata(tmp_path):
    dirs = [tmp_path / "d1", tmp_path / "d2"]
    lm = manager(dirs)
    topic_id = uuid.uuid4()
    logs = lm.create_topic("orders", 4, topic_id, {})
    assert [(p.topic, p.partition) for p in logs] == [("orders", i) for i in range(4)]
    assert sorted(len(list(d.glob("orders-*"))) for d in dirs) == [2, 2]
    for plog in logs:
        assert (
            plog.dir / "partition.metadata"
        ).read_text() == f"version: 0\ntopic_id: {uuid_to_kafka_str(topic_id)}"
        assert plog.dir.name == f"orders-{plog.partition}"
    info = lm.topics()["orders"]
    assert (info.topic_id, info.partitions, info.overrides) == (topic_id, 4, {})
    assert lm.get_log("orders", 3) is logs[3] and lm.get_log("orders", 4) is None
    with pytest.raises(KafkaError) as exc:
        lm.create_topic("orders", 1, uuid.uuid4(), {})
    assert exc.value.error is ErrorCode.TOPIC_ALREADY_EXISTS
    lm.shutdown()


def test_clean_restart_keeps_everything_and_consumes_the_marker(tmp_path):
    d = tmp_path / "d"
    lm = manager([d])
    lm.create_topic("a", 2, uuid.uuid4(), {"retention.ms": 1234})
    produce(lm.get_log("a", 1), batches=4)
    lm.get_log("a", 1).update_high_watermark(6)
    lm.shutdown()
    assert json.loads((d / ".kafka_cleanshutdown").read_text()) == {"version": 0, "brokerEpoch": -1}
    assert (d / "recovery-point-offset-checkpoint").read_text().splitlines()[:2] == ["0", "2"]
    assert OffsetCheckpointFile(d / "recovery-point-offset-checkpoint").read() == {("a", 0): 0, ("a", 1): 8}
    assert OffsetCheckpointFile(d / "replication-offset-checkpoint").read() == {("a", 0): 0, ("a", 1): 6}
    assert (d / "log-start-offset-checkpoint").read_text() == "0\n0\n"
    lm = manager([d])
    assert not (d / ".kafka_cleanshutdown").exists()
    plog = lm.get_log("a", 1)
    assert (plog.log_end_offset, plog.high_watermark, plog.recovery_point) == (8, 6, 8)
    assert lm.topics()["a"].overrides == {"retention.ms": 1234}
    assert plog.config.retention_ms == 1234
    lm.shutdown()


def test_log_start_offset_checkpoint_survives_restart(tmp_path):
    d = tmp_path / "d"
    lm = manager([d])
    lm.create_topic("a", 1, uuid.uuid4(), {})
    plog = lm.get_log("a", 0)
    produce(plog, batches=5)
    plog.delete_records_before(3)
    lm.checkpoint_now()
    assert (d / "log-start-offset-checkpoint").read_text() == "0\n1\na 0 3\n"
    lm.shutdown()
    lm = manager([d])
    assert lm.get_log("a", 0).log_start_offset == 3
    lm.shutdown()


def test_unclean_restart_recovers_from_the_recovery_point(tmp_path, caplog, monkeypatch):
    d = tmp_path / "d"
    lm = manager([d])
    lm.create_topic("a", 1, uuid.uuid4(), {})
    plog = lm.get_log("a", 0)
    produce(plog, batches=5)
    lm.shutdown()
    (d / ".kafka_cleanshutdown").unlink()  # as if the broker had died
    seg = d / "a-0" / "00000000000000000000.log"
    with open(seg, "r+b") as f:
        f.truncate(seg.stat().st_size - 1)
    monkeypatch.setattr(log_manager_module, "PROGRESS_LOG_INTERVAL_S", 0.0)
    with caplog.at_level(logging.INFO, logger="storage"):
        lm = manager([d])
    assert lm.get_log("a", 0).log_end_offset == 8  # the torn last batch is gone
    assert any("recovering a-0" in r.getMessage() for r in caplog.records)
    lm.shutdown()


def test_kill_minus_nine_loses_nothing_that_was_written(tmp_path):
    d = tmp_path / "d"
    script = textwrap.dedent(
        f"""
        import os, signal, sys, time, uuid
        sys.path.insert(0, {str(REPO)!r})
        from storage.log_config import resolve_topic_defaults
        from storage.log_manager import LogManager
        from tests.storage.batch_factory import make_batch
        lm = LogManager([{str(d)!r}], resolve_topic_defaults({{"log.segment.bytes": 2000}}))
        lm.startup()
        lm.create_topic("k", 1, uuid.uuid4(), {{}})
        plog = lm.get_log("k", 0)
        now = int(time.time() * 1000)
        for seq in range(0, 60, 3):
            b = make_batch(3, timestamp=now, producer_id=77, producer_epoch=0, base_sequence=seq)
            plog.append_as_leader(memoryview(b), 0)
        print(plog.log_end_offset, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == -9, proc.stderr
    leo = int(proc.stdout.split()[0])
    assert not (d / ".kafka_cleanshutdown").exists()
    lm = manager([d])
    plog = lm.get_log("k", 0)
    assert plog.log_end_offset == leo == 60
    retry = make_batch(
        3, timestamp=int(time.time() * 1000), producer_id=77, producer_epoch=0, base_sequence=57
    )
    info = plog.append_as_leader(memoryview(retry), 0)
    assert info.duplicate and info.base_offset == 57
    lm.shutdown()


def test_a_second_manager_cannot_take_the_same_dir(tmp_path):
    lm = manager([tmp_path / "d"])
    with pytest.raises(LogDirError):
        manager([tmp_path / "d"])
    lm.shutdown()
    manager([tmp_path / "d"]).shutdown()


def test_add_partitions_and_overrides(tmp_path):
    lm = manager([tmp_path / "d"])
    lm.create_topic("t", 2, uuid.uuid4(), {"segment.bytes": 5000})
    new = lm.add_partitions("t", 5)
    assert [p.partition for p in new] == [2, 3, 4]
    assert all(p.config.segment_bytes == 5000 for p in new)
    assert lm.topics()["t"].partitions == 5
    for bad in (5, 3):
        with pytest.raises(KafkaError) as exc:
            lm.add_partitions("t", bad)
        assert exc.value.error is ErrorCode.INVALID_PARTITIONS
    with pytest.raises(KafkaError) as exc:
        lm.add_partitions("nope", 3)
    assert exc.value.error is ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    lm.set_topic_overrides("t", {"retention.bytes": 10})
    assert all(p.config.retention_bytes == 10 and p.config.segment_bytes == 1073741824 for p in lm.logs())
    stored = json.loads((tmp_path / "d" / "topic-config-overrides.json").read_text())
    assert stored == {"version": 1, "topics": {"t": {"retention.bytes": 10}}}
    lm.shutdown()


def test_delete_topic_renames_then_removes(tmp_path):
    d = tmp_path / "d"
    lm = manager([d])
    lm.create_topic("gone", 2, uuid.uuid4(), {"retention.ms": 5})
    produce(lm.get_log("gone", 0))
    lm.delete_topic("gone")
    assert "gone" not in lm.topics() and lm.get_log("gone", 0) is None
    assert not [p for p in d.iterdir() if p.name.startswith("gone")]
    assert json.loads((d / "topic-config-overrides.json").read_text())["topics"] == {}
    with pytest.raises(KafkaError) as exc:
        lm.delete_topic("gone")
    assert exc.value.error is ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    again = lm.create_topic("gone", 1, uuid.uuid4(), {})
    assert again[0].log_end_offset == 0
    lm.shutdown()


def test_startup_skips_and_cleans_special_dirs(tmp_path):
    d = tmp_path / "d"
    (d / "t-0.0123456789abcdef0123456789abcdef-delete").mkdir(parents=True)
    (d / "t-0.0123456789abcdef0123456789abcdef-delete" / "00000000000000000000.log").write_bytes(b"x")
    (d / "t-1.0123456789abcdef0123456789abcdef-future").mkdir()
    (d / "t-2.0123456789abcdef0123456789abcdef-stray").mkdir()
    (d / "not-a-partition").mkdir()
    lm = manager([d])
    assert lm.topics() == {}
    names = sorted(p.name for p in d.iterdir() if p.is_dir())
    assert names == [
        "not-a-partition",
        "t-1.0123456789abcdef0123456789abcdef-future",
        "t-2.0123456789abcdef0123456789abcdef-stray",
    ]
    lm.shutdown()


def test_unreadable_checkpoint_means_full_recovery(tmp_path):
    d = tmp_path / "d"
    lm = manager([d])
    lm.create_topic("a", 1, uuid.uuid4(), {})
    produce(lm.get_log("a", 0))
    lm.shutdown()
    (d / ".kafka_cleanshutdown").unlink()
    (d / "recovery-point-offset-checkpoint").write_text("7\nbogus\n")
    lm = manager([d])
    assert lm.get_log("a", 0).log_end_offset == 6
    lm.shutdown()


def test_meta_properties(tmp_path):
    dirs = [tmp_path / "d1", tmp_path / "d2"]
    lm = manager(dirs)
    broker_id, cluster_id = lm.ensure_meta_properties(-1, None)
    assert broker_id == 0 and len(cluster_id) == 22
    for d in dirs:
        meta = read_meta_properties(d)
        assert (meta.version, meta.broker_id, meta.cluster_id) == (0, 0, cluster_id)
    assert lm.ensure_meta_properties(0, cluster_id) == (0, cluster_id)
    assert lm.ensure_meta_properties(-1, None) == (0, cluster_id)
    with pytest.raises(LogDirError, match=r"broker\.id"):
        lm.ensure_meta_properties(5, None)
    with pytest.raises(LogDirError, match="Cluster ID"):
        lm.ensure_meta_properties(0, "AAAAAAAAAAAAAAAAAAAAAA")
    lm.shutdown()
    fresh = manager([tmp_path / "d3"])
    assert fresh.ensure_meta_properties(9, "given-cluster") == (9, "given-cluster")
    fresh.shutdown()


async def wait_for(condition, timeout=20.0):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached")
        await asyncio.sleep(0.01)


def test_background_tasks(tmp_path):
    d = tmp_path / "d"
    intervals = LogManagerIntervals(
        retention_check_ms=20,
        flush_check_ms=20,
        recovery_point_checkpoint_ms=20,
        log_start_offset_checkpoint_ms=20,
        high_watermark_checkpoint_ms=20,
        producer_expiration_check_ms=20,
    )
    lm = LogManager([d], resolve_topic_defaults({}), intervals=intervals)
    lm.startup()
    lm.create_topic(
        "r", 1, uuid.uuid4(), {"segment.bytes": 300, "retention.ms": 1, "file.delete.delay.ms": 0}
    )
    lm.create_topic("f", 1, uuid.uuid4(), {"flush.messages": 4})

    async def scenario():
        task = asyncio.create_task(lm.run_background_tasks())
        try:
            r = lm.get_log("r", 0)
            old = int(time.time() * 1000) - 10_000
            for _ in range(6):
                r.append_as_leader(memoryview(make_batch(2, timestamp=old)), 0)
            r.update_high_watermark(r.log_end_offset)
            await wait_for(lambda: r.log_start_offset == r.log_end_offset == 12)
            # The segments' files are renamed and unlinked in an executor after the log start
            # moved (file.delete.delay.ms=0): gone once that job is done, none left behind.
            await wait_for(lambda: not list((d / "r-0").glob("*.deleted")))
            assert sorted(p.name for p in (d / "r-0").glob("*.log")) == [f"{12:020d}.log"]
            f = lm.get_log("f", 0)
            produce(f, batches=3, records=2)  # 6 messages >= flush.messages
            await wait_for(lambda: f.recovery_point == 6)
            await wait_for(
                lambda: OffsetCheckpointFile(d / "recovery-point-offset-checkpoint").read().get(("f", 0)) == 6
            )
            await wait_for(
                lambda: OffsetCheckpointFile(d / "replication-offset-checkpoint").read().get(("f", 0)) == 6
            )
            f.delete_records_before(4)  # only starts above the first segment's base are written
            await wait_for(
                lambda: OffsetCheckpointFile(d / "log-start-offset-checkpoint").read() == {("f", 0): 4}
            )
        finally:
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    asyncio.run(scenario())
    lm.shutdown()


def test_damaged_partition_metadata_is_rewritten_with_the_topics_id(tmp_path):
    """An unreadable partition.metadata loads as no topic id (Kafka's initializeTopicId); the
    topic's id (a sibling's here, as the embedded controller passes it) is written back."""
    d = tmp_path / "d"
    lm = manager([d])
    topic_id = uuid.uuid4()
    lm.create_topic("m", 2, topic_id, {})
    lm.shutdown()
    (d / "m-1" / "partition.metadata").write_text("garbage")
    lm = manager([d])
    assert lm.topics()["m"].topic_id == topic_id
    assert lm.get_log("m", 1).topic_id is None
    lm.assign_missing_topic_ids("m", topic_id)
    assert lm.get_log("m", 1).topic_id == topic_id
    assert (d / "m-1" / "partition.metadata").read_text().endswith(uuid_to_kafka_str(topic_id))
    lm.shutdown()


def test_partitions_disagreeing_on_the_topic_id_stop_startup(tmp_path):
    d = tmp_path / "d"
    lm = manager([d])
    lm.create_topic("m", 2, uuid.uuid4(), {})
    lm.shutdown()
    (d / "m-1" / "partition.metadata").write_text(f"version: 0\ntopic_id: {uuid_to_kafka_str(uuid.uuid4())}")
    with pytest.raises(LogDirError, match="topic id"):
        manager([d])


@pytest.mark.parametrize("content", ["{not json", '{"version": 2, "topics": {}}', "[]"])
def test_unusable_overrides_file_stops_startup(tmp_path, content):
    d = tmp_path / "d"
    d.mkdir()
    (d / "topic-config-overrides.json").write_text(content)
    with pytest.raises(LogDirError):
        manager([d])


def idempotent_batches(plog, count, *, pid=77, records=2):
    now = int(time.time() * 1000)
    for i in range(count):
        batch = make_batch(
            records, timestamp=now, producer_id=pid, producer_epoch=0, base_sequence=i * records
        )
        plog.append_as_leader(memoryview(batch), 0)
    plog.update_high_watermark(plog.log_end_offset)


def test_the_flusher_fsyncs_a_roll_snapshot_off_the_loop(tmp_path, monkeypatch):
    d = tmp_path / "d"
    lm = manager([d], intervals=LogManagerIntervals(flush_check_ms=60_000))  # only a roll wakes it
    lm.create_topic("s", 1, uuid.uuid4(), {"segment.bytes": 300})
    plog = lm.get_log("s", 0)
    idempotent_batches(plog, 1)  # leader-epoch-checkpoint of epoch 0, fsynced on the loop
    fsyncs = record_fsyncs(monkeypatch)

    async def scenario():
        loop_thread = threading.get_ident()
        task = asyncio.create_task(lm.run_background_tasks())
        try:
            await asyncio.sleep(0)  # let run_background_tasks install its wakeup event
            idempotent_batches(plog, 8)
            assert len(plog.segments()) > 2
            snaps = sorted((d / "s-0").glob("*.snapshot"))
            assert snaps and fsyncs.on_thread(loop_thread) == []
            await wait_for(lambda: not plog.producer_state.has_unsynced_snapshots)
            await wait_for(lambda: plog.recovery_point == plog.log_end_offset)
            assert fsyncs.on_thread(loop_thread) == []
            assert all(os.path.realpath(s) in fsyncs.off_thread(loop_thread) for s in snaps)
        finally:
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    asyncio.run(scenario())
    lm.shutdown()


def test_clean_shutdown_leaves_every_producer_snapshot_fsynced(tmp_path, monkeypatch):
    d = tmp_path / "d"
    lm = manager([d])
    lm.create_topic("s", 1, uuid.uuid4(), {"segment.bytes": 300})
    plog = lm.get_log("s", 0)
    fsyncs = record_fsyncs(monkeypatch)
    idempotent_batches(plog, 8)
    plog.roll("requested")  # the newest snapshot is a roll's: close() has nothing newer to write
    assert plog.producer_state.has_unsynced_snapshots
    lm.shutdown()
    snaps = sorted((d / "s-0").glob("*.snapshot"))
    assert snaps and all(fsyncs.synced(s) for s in snaps)
    assert (d / ".kafka_cleanshutdown").exists()
