"""docker-compose.yml and the Dockerfile: valid for Debian's docker-compose, and the broker command
lines they hold really work (run here against a local ZooKeeper, no Docker engine needed); the
README's cluster by hand (ZooKeeper and three ``python -m broker`` lines) works as written."""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from broker.config import BrokerConfig
from protocol.errors import ErrorCode
from protocol.messages import CreateTopicsRequest, MetadataRequest, MetadataResponse
from tests.support.broker_process import BrokerProcess
from tests.support.wire_client import WireClient
from tests.support.zookeeper_server import free_port, zookeeper_available
from tests.test_docs_commands import (
    CLUSTER_BY_HAND,
    Command,
    _commands,
    _env,
    _readme_port_lock,
    checkout,
    not_run_reason,
    python_not_run_reason,
    require_tools,
    run_block,
)

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
README = ROOT / "README.md"
BROKERS = {"moldau-1": (1, 9092), "moldau-2": (2, 9093), "moldau-3": (3, 9094)}  # service: id, host port
REPLICATION = {
    "default.replication.factor": 3,
    "min.insync.replicas": 2,
    "offsets.topic.replication.factor": 3,
}
# Printed when a cluster check fails: the three brokers run, but do not act as one cluster.
NEEDS_WIRING = (
    "the brokers do not form one cluster: is the ZooKeeper-mode controller wired into the broker "
    "(controller election, UpdateMetadata to every broker)?"
)

__all__ = ["checkout"]  # the scratch-checkout fixture of tests/test_docs_commands.py


def compose_config() -> dict:
    """``docker-compose config`` (validated, normalised) as a dict."""
    exe = shutil.which("docker-compose")
    if exe is None:
        pytest.skip("docker-compose is not installed (Debian package docker-compose)")
    out = subprocess.run(
        [exe, "-f", str(COMPOSE), "config"], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert out.returncode == 0, out.stderr
    # docker-compose's own interpreter has PyYAML: let it turn the YAML into JSON
    shebang = Path(exe).read_text(errors="replace").splitlines()[0]
    python = shebang[2:].strip().split()[0] if shebang.startswith("#!") else "python3"
    conv = subprocess.run(
        [python, "-c", "import json,sys,yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)"],
        input=out.stdout,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert conv.returncode == 0, conv.stderr
    return json.loads(conv.stdout)


def overrides_of(command: list[str]) -> dict[str, str]:
    assert command[0::2] == ["--override"] * (len(command) // 2), command
    return dict(arg.split("=", 1) for arg in command[1::2])


def metadata(host: str, port: int, topics: list[str] | None = None) -> MetadataResponse:
    with WireClient(host, port, timeout=10) as c:
        request = MetadataRequest(
            topics=None if topics is None else [MetadataRequest.MetadataRequestTopic(name=t) for t in topics],
            allow_auto_topic_creation=False,
        )
        return c.request(request, 12)


def wait_for_one_cluster(
    addresses: dict[int, tuple[str, int]], expected: set[tuple[int, str, int]], timeout: float = 90.0
) -> int:
    """Poll every broker's Metadata until each lists exactly ``expected`` (id, host, port) and
    all name the same live controller; return the controller id."""
    deadline = time.monotonic() + timeout
    while True:
        seen: dict[int, object] = {}
        for broker_id, (host, port) in addresses.items():
            try:
                md = metadata(host, port)
                seen[broker_id] = ({(b.node_id, b.host, b.port) for b in md.brokers}, md.controller_id)
            except OSError as e:
                seen[broker_id] = repr(e)
        views = list(seen.values())
        controllers = {v[1] for v in views if isinstance(v, tuple)}
        if (
            all(isinstance(v, tuple) and v[0] == expected for v in views)
            and len(controllers) == 1
            and controllers <= {b[0] for b in expected}
        ):
            return controllers.pop()
        if time.monotonic() > deadline:
            raise AssertionError(f"{NEEDS_WIRING}\nexpected {sorted(expected)} everywhere; seen {seen}")
        time.sleep(0.2)


# ---------------------------------------------------------------------------- the compose file


def test_docker_compose_config_validates():
    exe = shutil.which("docker-compose")
    if exe is None:
        pytest.skip("docker-compose is not installed")
    out = subprocess.run([exe, "-f", str(COMPOSE), "config", "-q"], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr


def test_compose_has_zookeeper_and_three_brokers_using_it():
    cfg = compose_config()
    services = cfg["services"]
    assert set(services) == {"zookeeper", *BROKERS}
    zk = services["zookeeper"]
    assert zk["image"].startswith("zookeeper:")
    assert "healthcheck" in zk
    volumes_used: list[str] = []
    for name, (broker_id, host_port) in BROKERS.items():
        broker = services[name]
        assert broker["build"]["context"] == str(ROOT)
        assert broker["depends_on"]["zookeeper"]["condition"] == "service_healthy"
        assert broker["hostname"] == name
        # its own published port: the host port is the EXTERNAL listener's port in the container
        assert [(int(p["published"]), int(p["target"])) for p in broker["ports"]] == [(host_port, host_port)]
        props = overrides_of(broker["command"])
        assert props["broker.id"] == str(broker_id)
        assert props["zookeeper.connect"] == "zookeeper:2181/moldau"
        assert props["inter.broker.listener.name"] == "INTERNAL"
        # the command line really parses, every key is known and acted on
        config = BrokerConfig(props)
        assert not config.unknown and not config.no_effect, (config.unknown, config.no_effect)
        assert config.broker_id == broker_id
        for key, value in REPLICATION.items():
            assert config.get(key) == value, key
        # the usual split: brokers and containers use the internal name, the host localhost
        adv = {lst.name: (lst.host, lst.port) for lst in config.advertised_listeners}
        assert adv == {"INTERNAL": (name, 29092), "EXTERNAL": ("localhost", host_port)}
        assert {(lst.name, lst.host, lst.port) for lst in config.listeners} == {
            ("INTERNAL", "0.0.0.0", 29092),
            ("EXTERNAL", "0.0.0.0", host_port),
        }
        # its own named volume, holding its log dirs
        (volume,) = broker["volumes"]
        source, target = volume.split(":")[:2]
        assert target == "/var/lib/moldau" and source in cfg["volumes"], volume
        assert props["log.dirs"].startswith("/var/lib/moldau/")
        volumes_used.append(source)
    assert len(set(volumes_used)) == len(BROKERS)


def test_compose_header_describes_the_cluster():
    header = "\n".join(line for line in COMPOSE.read_text().splitlines() if line.startswith("#"))
    assert "share nothing" not in header and "cluster of one" not in header
    assert "localhost:9092,localhost:9093,localhost:9094" in header


def test_dockerfile_builds_from_python_slim_and_runs_the_broker():
    text = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11-slim$", text, re.M)
    assert re.search(r"pip install \.", text)
    assert '"python", "-m", "broker"' in text
    cmd = json.loads(re.search(r"^CMD (\[.*?\])", text, re.M | re.S).group(1).replace("\\\n", ""))
    config = BrokerConfig(overrides_of(cmd))
    assert [str(lst) for lst in config.advertised_listeners] == ["PLAINTEXT://localhost:9092"]
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert ".venv" in ignored and ".git" in ignored and "cluster" in ignored


@pytest.mark.zookeeper
@pytest.mark.integration
@pytest.mark.timeout(300)
def test_the_compose_broker_commands_form_one_cluster(tmp_path, zookeeper):
    """The compose file's three broker command lines, with ZooKeeper, hosts and ports moved to
    this host: one cluster, each broker telling each listener's clients about all three."""
    services = compose_config()["services"]
    brokers: dict[int, BrokerProcess] = {}
    internal: dict[int, tuple[str, int]] = {}
    external: dict[int, tuple[str, int]] = {}
    try:
        for name, (broker_id, _) in BROKERS.items():
            props = overrides_of(services[name]["command"])
            int_port, ext_port = free_port(), free_port()
            props["zookeeper.connect"] = zookeeper.connect("/moldau")
            props["listeners"] = f"INTERNAL://127.0.0.1:{int_port},EXTERNAL://127.0.0.1:{ext_port}"
            # INTERNAL must reach the other brokers here: 127.0.0.1 stands for moldau-N
            props["advertised.listeners"] = f"INTERNAL://127.0.0.1:{int_port},EXTERNAL://localhost:{ext_port}"
            props["log.dirs"] = str(tmp_path / name)
            brokers[broker_id] = BrokerProcess(tmp_path / name, props).start()
            internal[broker_id] = ("127.0.0.1", int_port)
            external[broker_id] = ("127.0.0.1", ext_port)
        for broker_id, b in brokers.items():
            b.wait_for_log(rf"registered broker {broker_id} in ZooKeeper at /brokers/ids/{broker_id}")
        controller = wait_for_one_cluster(
            external, {(i, "localhost", port) for i, (_, port) in external.items()}
        )
        wait_for_one_cluster(internal, {(i, host, port) for i, (host, port) in internal.items()})

        # default.replication.factor=3: a topic created without one gets a replica on each broker
        request = CreateTopicsRequest(
            topics=[
                CreateTopicsRequest.CreatableTopic(name="rf-default", num_partitions=3, replication_factor=-1)
            ],
            timeout_ms=30_000,
        )
        with WireClient(*external[controller], timeout=40) as c:
            (created,) = c.request(request, 7).topics
        assert created.error_code == ErrorCode.NONE.code, (created.error_code, created.error_message)
        assert created.replication_factor == 3
        deadline = time.monotonic() + 60
        for broker_id, address in external.items():
            while True:
                (topic,) = metadata(*address, ["rf-default"]).topics
                if topic.error_code == ErrorCode.NONE.code and all(
                    p.leader_id in brokers for p in topic.partitions
                ):
                    break
                assert time.monotonic() < deadline, f"broker {broker_id}: {topic}"
                time.sleep(0.2)
            assert sorted(sorted(p.replica_nodes) for p in topic.partitions) == [[1, 2, 3]] * 3
    finally:
        codes = {broker_id: b.stop(timeout=90) for broker_id, b in brokers.items()}
    assert codes == dict.fromkeys(brokers, 0)


# ---------------------------------------------------------------------------- the README's cluster by hand


def readme_cluster_steps() -> list[tuple[str, str]]:
    """The README's cluster-by-hand commands (``("sh", command)``) and Python examples
    (``("python", code)``), in document order: those tests/test_docs_commands.py leaves to us."""
    steps: list[tuple[str, str]] = []
    lines = README.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"^```(\S*)\s*$", lines[i])
        i += 1
        if not m:
            continue
        body = []
        while i < len(lines) and lines[i].strip() != "```":
            body.append(lines[i])
            i += 1
        i += 1
        if m.group(1) in ("sh", "bash", "shell"):
            for text in _commands(body, console=False):
                if not_run_reason(Command("README.md", 0, text)) == CLUSTER_BY_HAND:
                    steps.append(("sh", text))
        elif m.group(1) == "python":
            code = "\n".join(body) + "\n"
            if python_not_run_reason(code) == CLUSTER_BY_HAND:
                steps.append(("python", code))
    return steps


@contextlib.contextmanager
def background(cwd: Path, command: str, log: Path) -> Iterator[subprocess.Popen]:
    """``command &`` as the README's reader runs it; SIGTERM (then SIGKILL) at the end if still running."""
    out = open(log, "w")  # noqa: SIM115 (closed below)
    proc = subprocess.Popen(
        ["bash", "-c", "exec " + command.rstrip().removesuffix("&")],
        cwd=cwd,
        env=_env(),
        stdout=out,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
    )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(90)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        out.close()


@pytest.mark.zookeeper
@pytest.mark.integration
@pytest.mark.timeout(600)
def test_readme_cluster_by_hand_works_as_written(checkout: Path, tmp_path: Path):
    """ZooKeeper and three brokers started with the README's lines (ports 2181, 9092-9094), then
    its RF-3 topic creation and kcat lines; every broker's Metadata lists all three brokers, the
    topics have 3 replicas, and SIGTERM stops each broker cleanly (exit 0)."""
    reason = zookeeper_available()
    if reason:
        pytest.skip(f"ZooKeeper unavailable: {reason}")
    require_tools("kcat")
    steps = readme_cluster_steps()
    started = [text for kind, text in steps if kind == "sh" and text.rstrip().endswith("&")]
    assert any("ZooKeeperServerMain" in text for text in started), steps
    broker_lines = [text for text in started if "-m broker" in text]
    assert len(broker_lines) == 3, started
    addresses = {
        int(re.search(r"broker\.id=(\d+)", text).group(1)): (
            re.search(r"listeners=PLAINTEXT://([\d.]+):(\d+)", text).group(1),
            int(re.search(r"listeners=PLAINTEXT://([\d.]+):(\d+)", text).group(2)),
        )
        for text in broker_lines
    }
    assert sorted(addresses) == [1, 2, 3] and len(set(addresses.values())) == 3
    assert any(kind == "python" for kind, _ in steps) and steps[-1][0] == "sh"

    # ZooKeeper first, so it is stopped last (an ExitStack unwinds in reverse)
    with _readme_port_lock(), contextlib.ExitStack() as stack:
        servers: list[tuple[str, subprocess.Popen, Path]] = []
        cluster_checked = False
        for kind, text in steps:
            if kind == "sh" and text.rstrip().endswith("&"):
                log = tmp_path / f"background-{len(servers)}.log"
                servers.append((text, stack.enter_context(background(checkout, text, log)), log))
                continue
            if servers and not cluster_checked:
                for text_, proc, log in servers:
                    assert proc.poll() is None, (
                        f"{text_} exited ({proc.returncode}):\n{log.read_text()[-3000:]}"
                    )
                wait_for_one_cluster(addresses, {(i, h, p) for i, (h, p) in addresses.items()})
                cluster_checked = True
            if kind == "sh":
                run_block(checkout, [text], timeout=120)
            else:
                result = subprocess.run(
                    [str(checkout / ".venv" / "bin" / "python"), "-c", text],
                    cwd=checkout,
                    env=_env(),
                    capture_output=True,
                    text=True,
                    timeout=120,
                )
                assert result.returncode == 0, result.stderr[-3000:]
        assert cluster_checked

        # every topic the README made (and __consumer_offsets, if made) has a replica on each broker
        md = metadata(*addresses[1])
        assert md.topics, "the README's steps created no topic"
        for topic in md.topics:
            assert topic.error_code == ErrorCode.NONE.code, topic
            assert all(sorted(p.replica_nodes) == [1, 2, 3] for p in topic.partitions), topic

        # SIGTERM, one broker at a time (a controlled shutdown each), then ZooKeeper
        for text, proc, log in servers:
            if "-m broker" in text:
                proc.send_signal(signal.SIGTERM)
                assert proc.wait(90) == 0, log.read_text()[-3000:]
                assert "shut down cleanly" in log.read_text()
