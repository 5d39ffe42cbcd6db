"""docker-compose.yml and the Dockerfile: valid for Debian's docker-compose, and the broker command
line they hold really works (run here against a local ZooKeeper, no Docker engine needed)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from broker.config import BrokerConfig
from protocol.messages import MetadataRequest
from tests.support.broker_process import BrokerProcess
from tests.support.wire_client import WireClient
from tests.support.zookeeper_server import free_port

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"


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


def test_docker_compose_config_validates():
    exe = shutil.which("docker-compose")
    if exe is None:
        pytest.skip("docker-compose is not installed")
    out = subprocess.run([exe, "-f", str(COMPOSE), "config", "-q"], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr


def test_compose_has_zookeeper_and_a_broker_using_it():
    cfg = compose_config()
    services = cfg["services"]
    assert {"zookeeper", "moldau-1"} <= set(services)
    zk = services["zookeeper"]
    assert zk["image"].startswith("zookeeper:")
    assert "healthcheck" in zk
    broker = services["moldau-1"]
    assert broker["build"]["context"] == str(ROOT)
    assert broker["depends_on"]["zookeeper"]["condition"] == "service_healthy"
    assert {"published": 9092, "target": 9092} in [
        {"published": int(p["published"]), "target": int(p["target"])} for p in broker["ports"]
    ]
    props = overrides_of(broker["command"])
    assert props["zookeeper.connect"] == "zookeeper:2181/moldau"
    assert props["broker.id"] == "1"
    # the usual split: containers use the internal name, the host uses localhost and the published port
    config = BrokerConfig(props)
    assert not config.unknown
    adv = {lst.name: (lst.host, lst.port) for lst in config.advertised_listeners}
    assert adv == {"INTERNAL": ("moldau-1", 29092), "EXTERNAL": ("localhost", 9092)}
    assert {lst.name: lst.host for lst in config.listeners} == {"INTERNAL": "0.0.0.0", "EXTERNAL": "0.0.0.0"}
    assert broker["hostname"] == "moldau-1"
    assert any(v.endswith(":/var/lib/moldau:rw") or v.endswith(":/var/lib/moldau") for v in broker["volumes"])
    assert props["log.dirs"].startswith("/var/lib/moldau/")


def test_dockerfile_builds_from_python_slim_and_runs_the_broker():
    text = (ROOT / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11-slim$", text, re.M)
    assert re.search(r"pip install \.", text)
    assert '"python", "-m", "broker"' in text
    cmd = json.loads(re.search(r"^CMD (\[.*?\])", text, re.M | re.S).group(1).replace("\\\n", ""))
    config = BrokerConfig(overrides_of(cmd))
    assert [str(lst) for lst in config.advertised_listeners] == ["PLAINTEXT://localhost:9092"]
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert ".venv" in ignored and ".git" in ignored


@pytest.mark.zookeeper
@pytest.mark.integration
def test_the_compose_broker_command_serves_both_listeners(tmp_path, zookeeper):
    """The compose file's broker command line, with ZooKeeper and ports moved to this host."""
    props = overrides_of(compose_config()["services"]["moldau-1"]["command"])
    internal, external = free_port(), free_port()
    props["zookeeper.connect"] = zookeeper.connect("/moldau")
    props["listeners"] = f"INTERNAL://127.0.0.1:{internal},EXTERNAL://127.0.0.1:{external}"
    props["advertised.listeners"] = f"INTERNAL://moldau-1:29092,EXTERNAL://localhost:{external}"
    props["log.dirs"] = str(tmp_path / "data")
    b = BrokerProcess(tmp_path / "data", props)
    b.start()
    try:
        with WireClient("127.0.0.1", external) as c:
            brokers = c.request(MetadataRequest(topics=None), 12).brokers
            assert [(x.node_id, x.host, x.port) for x in brokers] == [(1, "localhost", external)]
        with WireClient("127.0.0.1", internal) as c:
            brokers = c.request(MetadataRequest(topics=None), 12).brokers
            assert [(x.node_id, x.host, x.port) for x in brokers] == [(1, "moldau-1", 29092)]
        b.wait_for_log(r"registered broker 1 in ZooKeeper at /brokers/ids/1")
    finally:
        b.stop()
