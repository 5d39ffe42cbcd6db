"""``bench/kernel_floor_bench.py`` runs end to end with tiny settings, so it does not rot.

Every workload (the two fetch loops, the two produce loops and the bare uvloop server against
a forked peer, the two round-trip loops) must finish and print its row; no figure's size is checked (that is the bench's
job, on a quiet machine).
"""

from __future__ import annotations

import subprocess
import sys

from tests.support.broker_process import ROOT


def test_kernel_floor_bench_runs_every_workload(tmp_path):
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "kernel_floor_bench.py"),
            "--rounds",
            "2",
            "--gib",
            "0.02",
            "--trips",
            "200",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,  # its scratch file goes under the working directory
    )
    assert result.returncode == 0, result.stderr[-3000:]
    rows = [line.split("  ")[0] for line in result.stdout.splitlines()]
    for workload in (
        "fetch, sendfile 1 MiB slices",
        "fetch, send from memory",
        "produce 16 KiB frames",
        "produce 256 KiB frames",
        "produce 16 KiB, bare uvloop server",
        "round trip, blocking",
        "round trip, spinning 50 us",
    ):
        assert workload in rows, result.stdout
    assert "us of CPU per 16 KiB request" in result.stdout
    assert list(tmp_path.iterdir()) == []  # the scratch directory is gone
