"""The pytest plugin as a user gets it: the package built and installed, pytest run in a project.

A wheel is built from a copy of the sources (``pip wheel --no-deps``) and installed
(``pip install --no-deps --no-index``) into a fresh venv; the example project of
docs/TESTING.md (``docs/testing/``: a ``pytest.ini`` and test files, no conftest) is
copied to a temporary directory and ``python -m pytest`` runs there, with no ``-p``:
the fixtures come from the wheel's ``pytest11`` entry point.

The venv does not download the dependencies again (the clients, pytest, uvloop...):
a ``.pth`` file adds this interpreter's site-packages after its own, so the package
itself, its metadata and its entry point come from the wheel only (checked below).
``venv --system-site-packages`` would not do: from inside a venv it exposes the base
interpreter's packages, not the venv's.
"""

from __future__ import annotations

import os
import re
import shutil
import site
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from broker.testing.zookeeper import zookeeper_unavailable
from tests.support.broker_process import ROOT

pytestmark = [pytest.mark.integration, pytest.mark.timeout(900)]

EXAMPLES = ROOT / "docs" / "testing"
PACKAGES = ("broker", "protocol", "storage", "coordinator", "spark_jobs", "tools")
ENTRY_POINT = "broker.testing.plugin = broker.testing.plugin"
# The example project: 15 tests; brokers started: 9 moldau_broker, 1 restart after the
# crash, 1 from the factory, 1 session broker for 3 tests, and 2 moldau_cluster tests of
# 3 brokers each, one broker restarted after its crash.
EXAMPLE_TESTS = 15
EXAMPLE_BROKER_STARTS = 19


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTEST_ADDOPTS")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _run(cmd: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=timeout)


def _ok(result: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert result.returncode == 0, (
        f"{' '.join(map(str, result.args))} exited {result.returncode}\n"
        f"stdout:\n{result.stdout[-6000:]}\nstderr:\n{result.stderr[-3000:]}"
    )
    return result


@pytest.fixture(scope="module")
def user_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The python of a fresh venv with the package installed from its wheel."""
    base = tmp_path_factory.mktemp("plugin-user")
    began = time.monotonic()
    # A copy of the sources: the build writes build/ and *.egg-info next to them.
    src = base / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    for package in PACKAGES:
        shutil.copytree(ROOT / package, src / package, ignore=shutil.ignore_patterns("__pycache__"))
    wheels = base / "wheels"
    _ok(_run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(src)], base))
    (wheel,) = wheels.glob("moldau-*.whl")
    with zipfile.ZipFile(wheel) as z:
        entry_points = next(n for n in z.namelist() if n.endswith(".dist-info/entry_points.txt"))
        assert "[pytest11]\n" + ENTRY_POINT in z.read(entry_points).decode()
        assert "broker/testing/plugin.py" in z.namelist()
    built = time.monotonic()

    venv = base / "venv"
    _ok(_run([sys.executable, "-m", "venv", "--without-pip", str(venv)], base))
    python = venv / "bin" / "python"
    own_site = Path(
        _ok(
            _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], base)
        ).stdout.strip()
    )
    # The dependencies: this interpreter's site-packages, after the venv's own (a plain path
    # line: the .pth files there, such as an editable install of this repository, do not run).
    (own_site / "moldau_test_dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    _ok(
        _run(
            [
                sys.executable,
                "-m",
                "pip",
                "--python",
                str(python),
                "install",
                "-q",
                "--no-deps",
                "--no-index",
                str(wheel),
            ],
            base,
        )
    )
    installed = time.monotonic()
    print(
        f"\nwheel built in {built - began:.1f} s, venv made and wheel installed in {installed - built:.1f} s",
        file=sys.stderr,
    )

    # The package, its metadata and its entry point are the wheel's, not this checkout's.
    probe = _ok(
        _run(
            [
                str(python),
                "-c",
                "import broker.testing.plugin as p, importlib.metadata as m; print(p.__file__); "
                "print([str(e.value) for e in m.distribution('moldau').entry_points if e.group == 'pytest11'])",
            ],
            base,
        )
    ).stdout.splitlines()
    assert probe[0].startswith(str(own_site)), probe
    assert probe[1] == "['broker.testing.plugin']", probe
    return python


def _project(base: Path) -> Path:
    project = base / "project"
    shutil.copytree(EXAMPLES, project, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    return project


def _needs_zookeeper() -> None:
    """The cluster fixtures start the system's ZooKeeper; CI has it (MOLDAU_REQUIRE_ALL makes
    this skip a failure there)."""
    reason = zookeeper_unavailable()
    if reason:
        pytest.skip(f"moldau_cluster needs a ZooKeeper: {reason}")


def test_the_example_project_passes_with_the_installed_plugin(user_python: Path, tmp_path: Path) -> None:
    _needs_zookeeper()
    project = _project(tmp_path)
    assert not list(project.glob("conftest.py"))
    result = _ok(_run([str(user_python), "-m", "pytest", "-p", "no:cacheprovider", "-rA"], project))
    out = result.stdout
    header = next(line for line in out.splitlines() if line.startswith("plugins:"))
    assert "moldau-0.1.0" in header, header  # loaded through the entry point
    assert re.search(rf"\b{EXAMPLE_TESTS} passed\b", out), out[-3000:]
    assert "failed" not in out.splitlines()[-1] and "error" not in out.splitlines()[-1], out[-3000:]
    starts = re.search(r"^moldau: (\d+) broker starts, median (\d+) ms, max (\d+) ms$", out, re.M)
    assert starts, out[-3000:]
    assert int(starts.group(1)) == EXAMPLE_BROKER_STARTS  # the session broker started once
    print(f"\n{starts.group(0)}", file=sys.stderr)  # start-up time: printed, not asserted


CLI_OVERRIDE_TEST = """
def test_the_command_line_wins_over_the_ini_file(moldau_broker):
    assert moldau_broker.config["num.partitions"] == 7
    assert moldau_broker.config["auto.create.topics.enable"] is True
"""


def test_command_line_overrides(user_python: Path, tmp_path: Path) -> None:
    project = _project(tmp_path)
    (project / "test_cli_override.py").write_text(CLI_OVERRIDE_TEST)
    args = [str(user_python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_cli_override.py"]
    overrides = [
        "--moldau-override",
        "num.partitions=7",
        "--moldau-override",
        "auto.create.topics.enable=true",
    ]
    result = _ok(_run([*args, *overrides], project))
    assert "1 passed" in result.stdout

    # Without them the ini file's value holds, and the test fails as it should.
    assert _run(args, project).returncode == 1

    bad = _run([*args, "--moldau-override", "no.such.key=1"], project)
    assert bad.returncode == 4, bad.stdout + bad.stderr  # a usage error, before any test
    assert "unknown keys no.such.key" in bad.stderr
    chosen = _run([*args, "--moldau-override", f"log.dirs={tmp_path}"], project)
    assert chosen.returncode == 4, chosen.stdout + chosen.stderr
    assert "log.dirs is chosen by the fixtures" in chosen.stderr


SESSION_RESET_TEST = """
def test_1_leaves_faults_and_a_dead_broker(moldau_broker_session):
    moldau_broker_session.drop_requests("CreateTopics", count=100)
    moldau_broker_session.fill_disk()
    moldau_broker_session.kill()


def test_2_finds_it_running_and_clean(moldau_broker_session):
    assert moldau_broker_session.alive
    moldau_broker_session.create_topic("after-the-reset", timeout=30)  # times out if the fault stayed
    assert not moldau_broker_session.disk_full_reported()
"""


def test_the_session_broker_is_reset_after_each_test(user_python: Path, tmp_path: Path) -> None:
    project = _project(tmp_path)
    (project / "test_session_reset.py").write_text(SESSION_RESET_TEST)
    result = _ok(
        _run([str(user_python), "-m", "pytest", "-p", "no:cacheprovider", "test_session_reset.py"], project)
    )
    assert "2 passed" in result.stdout
    assert "moldau: 2 broker starts" in result.stdout  # the first start, the restart after the kill


CLUSTER_TEST = """
import pytest
from confluent_kafka import Consumer, Producer

from broker.testing.cluster import InProcessCluster


def test_the_factory_and_the_fault_hooks(moldau_cluster_factory):
    cluster = moldau_cluster_factory(brokers=2, overrides={"replica.lag.time.max.ms": 1000})
    assert isinstance(cluster, InProcessCluster) and cluster.size == 2
    assert len(cluster.bootstrap_servers.split(",")) == 2
    cluster.create_topic("pairs", partitions=2, replication_factor=2)
    cluster.wait_in_sync("pairs")
    assert {len(cluster.partition("pairs", p).replicas) for p in (0, 1)} == {2}

    producer = Producer({"bootstrap.servers": cluster.bootstrap_servers, "acks": "all"})
    for i in range(20):
        producer.produce("pairs", value=b"%d" % i, partition=i % 2)
    assert producer.flush(30) == 0

    victim = cluster.leader("pairs", 0)
    cluster.restart(victim, clean=False)  # crash and recover
    cluster.wait_in_sync("pairs")
    dropped = cluster.drop_responses("Fetch", broker=cluster.leader("pairs", 1))
    consumer = Consumer({"bootstrap.servers": cluster.bootstrap_servers, "group.id": "g",
                         "auto.offset.reset": "earliest", "socket.timeout.ms": 2000})
    consumer.subscribe(["pairs"])
    got = []
    while len(got) < 20:
        message = consumer.poll(10)
        assert message is not None and message.error() is None
        got.append(message.value())
    consumer.close()
    assert sorted(got) == sorted(b"%d" % i for i in range(20))
    assert dropped.handled == 1  # a Fetch answer (a consumer's or the follower's) was lost


@pytest.mark.moldau_cluster(brokers=1)
def test_the_marker_sizes_the_cluster(moldau_cluster):
    assert moldau_cluster.size == 1 and moldau_cluster.controller() == 0


@pytest.mark.moldau_cluster(brokers=2, overrides={"zookeeper.connect": "elsewhere:2181"})
def test_the_cluster_chooses_its_zookeeper(moldau_cluster):
    pass
"""


def test_the_cluster_fixtures_as_a_user_gets_them(user_python: Path, tmp_path: Path) -> None:
    _needs_zookeeper()
    project = _project(tmp_path)
    (project / "test_cluster_hooks.py").write_text(CLUSTER_TEST)
    result = _run(
        [str(user_python), "-m", "pytest", "-p", "no:cacheprovider", "-rA", "test_cluster_hooks.py"], project
    )
    out = result.stdout
    assert re.search(r"\b2 passed, 1 error\b", out), out[-4000:]
    assert "zookeeper.connect is chosen for it" in out, out[-4000:]
    assert "moldau: 4 broker starts" in out, out[-4000:]  # 2, the crashed one again, 1
