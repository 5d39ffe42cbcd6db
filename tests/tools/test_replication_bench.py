"""``bench/replication_bench.py`` runs end to end with tiny settings, so it does not rot.

Both setups (RF 1 on one broker; RF 3 on three broker subprocesses with a real ZooKeeper,
min.insync.replicas 2) must produce every record through the Java client, and the report
must carry every figure the bench publishes and the ``--batch-size`` and ``--partitions`` it
ran with. No figure's
size is checked (that is the bench's job, on a quiet machine).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.support.broker_process import ROOT
from tests.support.java_client import require_java
from tests.support.zookeeper_server import zookeeper_available

pytestmark = pytest.mark.integration


def test_replication_bench_runs_both_setups_end_to_end(tmp_path):
    require_java()
    missing = zookeeper_available()
    if missing:
        pytest.skip(missing)
    out = tmp_path / "run.json"
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "replication_bench.py"),
            "--rounds",
            "2",
            "--warmup-rounds",
            "0",
            "--records",
            "20000",
            # The option's path end to end, at the client's default size. 20,000 records, so
            # that each phase takes several clock ticks of broker CPU (3,000 took one or two).
            "--batch-size",
            "16384",
            # A topic of three partitions (RF 3: one led by each broker): the bench waits for
            # every one of them in sync before it measures.
            "--partitions",
            "3",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=os.environ,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "RF3/RF1 throughput:" in result.stdout
    assert "batch.size 16384, linger.ms 10, 3 partitions" in result.stdout
    report = json.loads(out.read_text())
    assert report["config"]["batch_size"] == 16384
    assert report["config"]["partitions"] == 3
    samples = report["samples"]
    assert sorted((s["setup"], s["round"]) for s in samples) == [
        ("RF 1, 1 broker", 0),
        ("RF 1, 1 broker", 1),
        ("RF 3, 3 brokers", 0),
        ("RF 3, 3 brokers", 1),
    ]
    for s in samples:
        assert s["records"] == 20000
        assert s["mb_per_sec"] > 0 and s["p99_ms"] >= 0 and s["broker_cpu_seconds"] > 0, s
    summary = report["summary"]
    for setup in ("RF 1, 1 broker", "RF 3, 3 brokers"):
        for metric in ("mb_per_sec", "p99_ms", "cpu_seconds_per_gb"):
            assert summary[setup][metric]["n"] == 2
            assert (
                summary[setup][metric]["min"]
                <= summary[setup][metric]["median"]
                <= summary[setup][metric]["max"]
            )
    ratio = summary["ratio"]["mb_per_sec_of_medians"]
    assert ratio == pytest.approx(
        summary["RF 3, 3 brokers"]["mb_per_sec"]["median"] / summary["RF 1, 1 broker"]["mb_per_sec"]["median"]
    )
