"""The data source over a replicated cluster's log dirs after failures (``brokerLogDirs``).

One scenario (``tests/spark/crashed_cluster.py``, real broker processes: SIGKILLed leaders,
a follower restarted past DeleteRecords, transactions, a last SIGKILL) is read back and
compared with what a Kafka consumer read from the live cluster. The targeted tests damage
a copy of one broker's log dir as a crash or a copy taken while the broker ran leaves it.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from spark_jobs.log_files import LogDirs
from spark_jobs.options import parse_options
from spark_jobs.planner import plan_batch
from spark_jobs.range_reader import read_range
from storage.checkpoints import LOG_START_OFFSET_CHECKPOINT, OffsetCheckpointFile

pytestmark = [pytest.mark.spark, pytest.mark.integration]

pytest.importorskip("confluent_kafka")

from tests.spark.crashed_cluster import BEHIND, DELETED_BEFORE, TOPIC, TXN_TOPIC, run_failures  # noqa: E402


@pytest.fixture(scope="module")
def crashed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return run_failures(tmp_path_factory.mktemp("crashed"))


def read_plain(options: dict[str, str]) -> list[tuple[int, int, bytes]]:
    """The data source's reader without Spark: (partition, offset, value) in read order."""
    out = []
    for r in plan_batch(parse_options(options, streaming=False)).reads:
        for b in read_range(r, check_crcs=True, fail_on_data_loss=True):
            d = b.to_pydict()
            out.extend(zip(d["partition"], d["offset"], d["value"], strict=True))
    return out


def ordered(dirs: list[Path], first: int) -> str:
    """``brokerLogDirs`` of the brokers, broker ``first``'s dirs first."""
    return ";".join(str(d) for d in [dirs[first]] + [d for i, d in enumerate(dirs) if i != first])


def survivor(crashed: dict[str, Any]) -> int:
    """A broker stopped cleanly at the end: its copy has the highest high watermark."""
    return next(i for i in range(3) if i != crashed["killed"])


def damaged_copy(crashed: dict[str, Any], tmp_path: Path, which: int) -> list[Path]:
    """The three log dirs, broker ``which``'s replaced by a copy (to damage)."""
    dirs = list(crashed["dirs"])
    dirs[which] = tmp_path / f"copy-{which}"
    shutil.copytree(crashed["dirs"][which], dirs[which])
    return dirs


def partition_truth(crashed: dict[str, Any], partition: int) -> list[tuple[int, int, bytes]]:
    return [r for r in crashed["truth"] if r[0] == partition]


# ---------------------------------------------------------------------- the scenario's copies


def test_the_consumer_sees_every_acknowledged_record_once(crashed):
    """Sanity of the ground truth: Kafka's broker (ReplicaManager.appendRecords with acks=all)
    never loses an acknowledged record across clean leader elections."""
    assert len({(p, v) for p, _o, v in crashed["truth"]}) == len(crashed["truth"])
    kept = [(p, o, v) for p, o, v in crashed["acked"] if p == 0 or o >= DELETED_BEFORE]
    assert set(kept) == set(crashed["truth"])


@pytest.mark.parametrize("first", [0, 1, 2])
def test_broker_log_dirs_give_what_a_consumer_reads(crashed, first):
    """Kafka's consumer (Fetcher over the leader, from UnifiedLog.logStartOffset up to the high
    watermark) is the truth: every committed record once, in offset order, nothing deleted by
    DeleteRecords, whichever broker is listed first (the SIGKILLed one included)."""
    got = read_plain({"brokerLogDirs": ordered(crashed["dirs"], first), "topics": TOPIC})
    assert sorted(got) == crashed["truth"]
    for p in (0, 1):
        offsets = [o for q, o, _v in got if q == p]
        assert offsets == sorted(offsets)


@pytest.mark.parametrize("broker", [0, 1, 2])
def test_each_copy_alone_is_a_prefix_of_the_truth(crashed, broker):
    """Below its own high watermark every replica's copy holds the committed records (Kafka's
    UnifiedLog high watermark is committed data: Partition.maybeIncrementLeaderHW). Alone, a
    copy cannot know of a DeleteRecords its checkpoint missed."""
    got = read_plain({"logDirs": str(crashed["dirs"][broker]), "topics": TOPIC})
    truth = {(p, o): v for p, o, v in crashed["truth"]}
    for p, o, v in got:
        if p == 1 and o < DELETED_BEFORE:
            continue
        assert truth.get((p, o)) == v, (p, o, v)


@pytest.mark.parametrize("broker", [0, 1, 2])
def test_each_copy_reads_committed_transactions_only(crashed, broker):
    """read_committed over any replica's copy: Kafka's follower writes the same .txnindex
    (UnifiedLog.appendAsFollower -> ProducerStateManager completed transactions)."""
    alone = str(crashed["dirs"][broker])
    truth = {(p, o): v for p, o, v in crashed["txn_truth"]}
    for p, o, v in read_plain({"logDirs": alone, "topics": TXN_TOPIC}):
        assert truth.get((p, o)) == v, (p, o, v)
    raw = read_plain({"logDirs": alone, "topics": TXN_TOPIC, "isolationLevel": "read_uncommitted"})
    if broker != crashed["killed"]:
        assert any(v.endswith(b"-a") for _p, _o, v in raw)  # aborted records are on disk
    got = read_plain({"brokerLogDirs": ordered(crashed["dirs"], broker), "topics": TXN_TOPIC})
    assert sorted(got) == crashed["txn_truth"]


@pytest.mark.parametrize("first", [0, 1, 2])
def test_a_follower_restarted_from_the_leaders_log_start(crashed, first):
    """Kafka's follower out of range below the leader's log start truncates fully and starts
    there (AbstractFetcherThread.handleOutOfRangeError -> truncateFullyAndStartAt); a
    consumer reads [log start, high watermark) whichever copy is listed first."""
    got = read_plain({"brokerLogDirs": ordered(crashed["dirs"], first), "topics": BEHIND})
    assert got == crashed["behind_truth"]
    alone = read_plain({"logDirs": str(crashed["dirs"][crashed["behind_follower"]]), "topics": BEHIND})
    assert set(alone) <= set(crashed["behind_truth"])


def test_spark_reads_every_committed_record_once(spark, crashed):
    """End to end through Spark: rows equal what Kafka's consumer read; the audit is clean."""
    from spark_jobs.audit import audit, is_clean

    options = {"brokerLogDirs": ordered(crashed["dirs"], crashed["killed"]), "topics": TOPIC}
    rows = (
        spark.read.format("moldau").options(**options).load().select("partition", "offset", "value").collect()
    )
    assert sorted((r.partition, r.offset, bytes(r.value)) for r in rows) == crashed["truth"]
    result = audit(spark, options)
    assert is_clean(result), result["anomalies"]


# ---------------------------------------------------------------------- targeted damage


def test_records_deleted_by_delete_records_stay_deleted(crashed, tmp_path):
    """Kafka: DeleteRecords is acknowledged once every replica's log start offset passed the
    offset (DelayedDeleteRecords on the low watermark); a consumer's earliest is then the
    leader's log start offset (UnifiedLog.logStartOffset), so a deleted record never reads
    again. A SIGKILLed broker's log-start-offset-checkpoint (written periodically) may predate
    the DeleteRecords: here a cleanly stopped copy whose checkpoint lost that entry, with the
    same high watermark as the others, is listed first."""
    best = survivor(crashed)
    dirs = damaged_copy(crashed, tmp_path, best)
    ckpt = OffsetCheckpointFile(dirs[best] / LOG_START_OFFSET_CHECKPOINT)
    ckpt.write({tp: o for tp, o in ckpt.read().items() if tp != (TOPIC, 1)})
    assert LogDirs.scan([dirs[best]]).partitions[(TOPIC, 1)].log_start_offset < DELETED_BEFORE
    got = read_plain({"brokerLogDirs": ordered(dirs, best), "topics": TOPIC, "partitions": "1"})
    assert got == partition_truth(crashed, 1)


def test_a_copy_whose_checkpoint_is_past_its_whole_batches_does_not_hide_records(crashed, tmp_path):
    """A log dir copied while its broker ran: the segment copied before a later
    replication-offset-checkpoint, so the copy's last batch is torn and its checkpointed high
    watermark lies past its last whole batch. Kafka never takes a high watermark past the log
    end (UnifiedLog.updateHighWatermark: min(hw, logEndOffset); LogLoader recovery drops the
    torn batch), so that copy's high watermark is its log end and the records are read from a
    replica that holds them."""
    best = survivor(crashed)
    dirs = damaged_copy(crashed, tmp_path, best)
    last = sorted((dirs[best] / f"{TOPIC}-0").glob("*.log"))[-1]
    data = last.read_bytes()
    pos, last_pos = 0, 0
    while pos + 12 <= len(data):
        last_pos = pos
        pos += 12 + int.from_bytes(data[pos + 8 : pos + 12], "big")
    with open(last, "r+b") as f:
        f.truncate(last_pos + 30)  # the last batch cut in its header
    got = read_plain({"brokerLogDirs": ordered(dirs, best), "topics": TOPIC, "partitions": "0"})
    assert got == partition_truth(crashed, 0)


def test_a_committed_cleaner_swap_left_by_a_crash_is_read(crashed, tmp_path):
    """A SIGKILL inside the cleaner's swap after its commit point: the old segment is renamed
    .deleted, the cleaned one is still .swap. Kafka's LogLoader completes the swap
    (removeTempFilesAndCollectSwapFiles, then the .swap files renamed to their final names),
    so those offsets are part of the log; the reader reads the .swap in place."""
    best = survivor(crashed)
    dirs = damaged_copy(crashed, tmp_path, best)
    part = dirs[best] / f"{TOPIC}-0"
    middle = sorted(p.name.split(".")[0] for p in part.glob("*.log"))[1]
    for suffix in (".log", ".index", ".timeindex"):
        f = part / (middle + suffix)
        shutil.copyfile(f, part / (middle + suffix + ".swap"))
        f.rename(part / (middle + suffix + ".deleted"))
    got = read_plain({"brokerLogDirs": ordered(dirs, best), "topics": TOPIC, "partitions": "0"})
    assert got == partition_truth(crashed, 0)
