"""``bench/produce_request_bench.py`` runs with tiny settings, so it does not rot: one broker,
and ``--replicas 3`` (three broker subprocesses with a real ZooKeeper, RF 3, min.insync 2)
with ``--cpu-profile``, every answer checked by the bench itself (error code, base offset).
No figure's size is checked (that is the bench's job, on a quiet machine)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support.broker_process import ROOT
from tests.support.zookeeper_server import zookeeper_available

pytestmark = pytest.mark.integration


def _bench(*args: str) -> str:
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "produce_request_bench.py"), "--trials", "1", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def test_one_broker_answers_every_request():
    out = _bench("--frames", "16384", "--acks", "1,-1", "--requests", "500")
    assert "frame 16384 acks 1: " in out and "frame 16384 acks -1: " in out
    assert out.count(" user), ") == 2 and out.count(" sleeps/request, ") == 2
    assert "user us" in out and "sleeps" in out  # the medians' table


def test_three_brokers_replicate_every_request_and_profile_each_broker(tmp_path):
    missing = zookeeper_available()
    if missing:
        pytest.skip(missing)
    profiles = tmp_path / "prof"
    out = _bench(
        "--replicas", "3", "--frames", "16384", "--acks", "-1", "--requests", "500", "--cpu-profile", str(profiles)
    )  # fmt: skip
    assert ", the leader " in out and "leader us/request" in out
    names = sorted(p.name for p in profiles.iterdir())
    assert len(names) == 3 and sum(n.endswith("-leader.txt") for n in names) == 1, names


def test_three_brokers_under_cprofile_write_a_stats_file_each(tmp_path):
    missing = zookeeper_available()
    if missing:
        pytest.skip(missing)
    stats = tmp_path / "cprofile"
    _bench(
        "--replicas", "3", "--frames", "16384", "--acks", "-1", "--requests", "200", "--cprofile", str(stats)
    )
    names = sorted(p.name for p in stats.iterdir())
    assert [n.rsplit("-", 1)[1] for n in names] == ["0.prof", "1.prof", "2.prof"], names
