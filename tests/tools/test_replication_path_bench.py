"""``bench/replication_path_bench.py`` runs with tiny settings, so it does not rot: every
acks=-1 append completes (the bench checks the leader's high watermark) and the figure is
printed. Its size is not checked (that is the bench's job)."""

from __future__ import annotations

import subprocess
import sys

from tests.support.broker_process import ROOT


def test_replication_path_bench_replicates_every_batch():
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "replication_path_bench.py"),
            "--batches",
            "40",
            "--burst",
            "3",
            "--trials",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "replication path, burst 3: CPU " in result.stdout
    assert " s/GiB " in result.stdout and " us per 16 KiB batch" in result.stdout
