"""Every shell command in README.md and docs/*.md works as written.

The convention: a fenced block tagged ``sh``, ``bash`` or ``shell`` is a list of commands,
one a line (a line ending in ``\\`` continues on the next; ``#`` lines are comments); in a
``console`` block the commands are the lines starting with ``$ ``. Blocks with other tags
(``python``, none) are not shell commands.

Each command is either run, started as a server (``SERVED``: started, checked to answer a
Kafka Metadata request, stopped with SIGTERM, exit code 0) or listed in ``NOT_RUN`` with the
reason. The commands a block runs go to one ``bash -eu`` in order, so each must exit 0.
The README's ``python`` blocks run against its broker, except those ``PYTHON_NOT_RUN`` names.

Commands run in a scratch checkout: a temporary directory with links to the project's files
and ``.venv`` linked to the running interpreter's venv, so ``./tools/run-broker`` and
``.venv/bin/...`` work as in a fresh clone after ``./tools/test-all``, and what they write
(``./data``, ``./demo.parquet``) never lands in the repository. The README's broker listens
on 127.0.0.1:9092 as documented; tests that start it hold a lock so two never run at once.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.broker_process import ROOT

pytestmark = pytest.mark.integration

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL_TAGS = {"sh", "bash", "shell"}
README_BROKER = ("127.0.0.1", 9092)

# The README's cluster by hand: ZooKeeper and three brokers on fixed ports (2181, 9092-9094).
CLUSTER_BY_HAND = (
    "the README's three-broker cluster: tests/zookeeper/test_docker_compose.py runs it as written"
)
# Commands (by how they start) the suite cannot run, and why.
NOT_RUN = {
    "./tools/test-all": "installs Debian and Python packages and runs this whole suite (CI runs it)",
    "docker-compose up": "needs a Docker daemon and network access for images",
    "mkdir -p cluster": CLUSTER_BY_HAND,
    "printf '%s\\n' dataDir=": CLUSTER_BY_HAND,
    "printf '%s\\n' zookeeper.connect=": CLUSTER_BY_HAND,
    "java -cp /usr/share/java/zookeeper.jar": CLUSTER_BY_HAND,
    ".venv/bin/python -m broker cluster/": CLUSTER_BY_HAND,
    "kcat -b 127.0.0.1:9093": CLUSTER_BY_HAND,
    "echo 'k1:hello' | kcat -b 127.0.0.1:9093": CLUSTER_BY_HAND,
    ".venv/bin/python bench/spark_bench.py": "a benchmark: writes and reads 256 MiB to 1 GiB, minutes",
    "PYSPARK_PYTHON=/opt/moldau/.venv/bin/python ./tools/spark-submit --master yarn": "needs a YARN cluster",
}
# README Python blocks the README test does not run (by a string they hold), and why.
PYTHON_NOT_RUN = {
    "127.0.0.1:9093": CLUSTER_BY_HAND,
}
# Long-running commands: started, checked to serve, stopped with SIGTERM.
SERVED = {
    "./tools/run-broker": README_BROKER,
}


@dataclass(frozen=True)
class Command:
    doc: str  # path relative to the repository
    block: int  # index of the shell block in the document
    text: str  # as written, continuation lines included

    def starts_with(self, prefix: str) -> bool:
        return self.text.startswith(prefix)

    @property
    def bare(self) -> str:
        """The command without a trailing ``  # comment``."""
        return re.sub(r"\s+#[^'\"]*$", "", self.text).strip()


def shell_blocks(path: Path) -> list[list[str]]:
    """The commands of each shell block of a Markdown file."""
    blocks: list[list[str]] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)```(\S*)\s*$", lines[i])
        i += 1
        if not m:
            continue
        indent, tag = m.group(1), m.group(2)
        body = []
        while i < len(lines) and lines[i].strip() != "```":
            body.append(lines[i][len(indent) :] if lines[i].startswith(indent) else lines[i])
            i += 1
        i += 1
        if tag in SHELL_TAGS:
            blocks.append(_commands(body, console=False))
        elif tag == "console":
            blocks.append(_commands(body, console=True))
    return blocks


def _commands(body: list[str], *, console: bool) -> list[str]:
    out: list[str] = []
    current: list[str] = []
    for line in body:
        if current:
            current.append(line)
        elif console:
            if line.startswith("$ "):
                current.append(line[2:])
        elif line.strip() and not line.lstrip().startswith("#"):
            current.append(line)
        if current and not line.rstrip().endswith("\\"):
            out.append("\n".join(current))
            current = []
    if current:
        out.append("\n".join(current))
    return out


def all_commands(doc: Path) -> list[Command]:
    name = str(doc.relative_to(ROOT))
    return [Command(name, b, text) for b, cmds in enumerate(shell_blocks(doc)) for text in cmds]


def not_run_reason(cmd: Command) -> str | None:
    return next((why for prefix, why in NOT_RUN.items() if cmd.starts_with(prefix)), None)


def python_not_run_reason(code: str) -> str | None:
    return next((why for marker, why in PYTHON_NOT_RUN.items() if marker in code), None)


def served_address(cmd: Command) -> tuple[str, int] | None:
    return next((addr for prefix, addr in SERVED.items() if cmd.bare == prefix), None)


# ---------------------------------------------------------------------------- scratch checkout


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A fresh-clone look-alike: links to the project's files and to this interpreter's venv."""
    if sys.prefix == sys.base_prefix:
        pytest.skip("the suite runs outside a venv: there is no .venv to link")
    root = tmp_path / "checkout"
    root.mkdir()
    skip = {".venv", ".git", ".cache", "data", "__pycache__", ".pytest_cache", ".ruff_cache", ".hypothesis"}
    for entry in ROOT.iterdir():
        if entry.name not in skip and not entry.name.endswith(".egg-info"):
            (root / entry.name).symlink_to(entry)
    (root / ".venv").symlink_to(Path(sys.prefix))
    return root


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "MOLDAU_LOG_LEVEL")}
    env["PYTHONUNBUFFERED"] = "1"
    return env


def run_block(cwd: Path, commands: list[str], timeout: float = 900) -> subprocess.CompletedProcess:
    script = "set -eu\n" + "\n".join(commands) + "\n"
    result = subprocess.run(
        ["bash", "-c", script], cwd=cwd, env=_env(), capture_output=True, text=True, timeout=timeout
    )
    assert result.returncode == 0, (
        f"exit code {result.returncode} of:\n{script}\nstdout:\n{result.stdout[-3000:]}\n"
        f"stderr:\n{result.stderr[-3000:]}"
    )
    return result


@contextlib.contextmanager
def _readme_port_lock() -> Iterator[None]:
    """One README broker at a time on this machine (pytest-xdist workers run tests in parallel)."""
    with open(Path(tempfile.gettempdir()) / "moldau-docs-9092.lock", "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


@contextlib.contextmanager
def served(cwd: Path, cmd: Command) -> Iterator[subprocess.Popen]:
    """Start a long-running command, wait until it answers Kafka requests, SIGTERM it at the end."""
    from protocol.messages import MetadataRequest
    from tests.support.wire_client import WireClient

    address = served_address(cmd)
    assert address is not None
    stderr = open(cwd / "served.stderr", "w+")  # noqa: SIM115 (read back on failure)
    proc = subprocess.Popen(
        ["bash", "-c", "exec " + cmd.bare], cwd=cwd, env=_env(), stdout=stderr, stderr=stderr
    )
    try:
        deadline = time.monotonic() + 120  # a first run may install packages
        while True:
            assert proc.poll() is None, f"{cmd.text} exited ({proc.returncode}):\n{_read(stderr)}"
            try:
                with WireClient(*address, timeout=5) as wire:
                    brokers = wire.request(MetadataRequest(topics=None), 12).brokers
                assert [(b.host, b.port) for b in brokers] == [address]
                break
            except OSError:
                assert time.monotonic() < deadline, f"{cmd.text} did not serve:\n{_read(stderr)}"
                time.sleep(0.1)
        yield proc
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0, _read(stderr)
        assert "shut down cleanly" in _read(stderr)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        stderr.close()


def _read(f) -> str:
    f.flush()
    f.seek(0)
    return f.read()[-4000:]


def python_blocks(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def run_readme(cwd: Path, *, with_python: bool = True) -> None:
    """The README's first command as written, then every other README command against it."""
    require_tools("kcat")
    commands = all_commands(ROOT / "README.md")
    server = next(c for c in commands if served_address(c))
    with _readme_port_lock(), served(cwd, server):
        for block in sorted({c.block for c in commands}):
            runnable = [
                c.text
                for c in commands
                if c.block == block and not not_run_reason(c) and not served_address(c)
            ]
            if runnable:
                run_block(cwd, runnable)
        if with_python:
            for code in python_blocks(ROOT / "README.md"):
                if python_not_run_reason(code):
                    continue
                result = subprocess.run(
                    [str(cwd / ".venv" / "bin" / "python"), "-c", code],
                    cwd=cwd,
                    env=_env(),
                    capture_output=True,
                    text=True,
                    timeout=120,
                )
                assert result.returncode == 0, result.stderr[-3000:]


def require_tools(*names: str) -> None:
    for name in names:
        if shutil.which(name) is None:
            pytest.skip(f"{name} is not installed (./tools/test-all installs it)")


# ---------------------------------------------------------------------------- tests


def test_readme_opens_with_exactly_the_two_commands() -> None:
    first = shell_blocks(ROOT / "README.md")[0]
    assert [c.split("#")[0].strip() for c in first] == ["./tools/run-broker", "./tools/test-all"]


def test_every_command_is_run_or_listed_with_a_reason() -> None:
    commands = [c for doc in DOCS for c in all_commands(doc)]
    assert commands, "no shell blocks found: the convention changed?"
    for prefix in [*NOT_RUN, *SERVED]:
        assert any(c.starts_with(prefix) for c in commands), f"stale entry: {prefix!r} is in no document"
    for marker in PYTHON_NOT_RUN:
        assert any(marker in code for code in python_blocks(ROOT / "README.md")), f"stale entry: {marker!r}"
    for c in commands:
        assert not (not_run_reason(c) and served_address(c)), c


def test_readme_commands(checkout: Path) -> None:
    run_readme(checkout)
    assert (checkout / "data" / "demo-0").is_dir()  # written where the README says: ./data


@pytest.mark.timeout(1800)  # SPARK.md: five Spark jobs, each starting a JVM (minutes on a busy machine)
@pytest.mark.parametrize("doc", [d for d in DOCS if d.name != "README.md"], ids=lambda d: d.name)
def test_doc_commands(checkout: Path, doc: Path) -> None:
    commands = [c for c in all_commands(doc) if not not_run_reason(c)]
    if not commands:
        return  # nothing to run in this document
    assert not any(served_address(c) for c in commands), "a served command outside the README"
    if any("spark" in c.text for c in commands):
        pytest.importorskip("pyspark")
        require_tools("java")
    # The documents' examples read what the README's commands wrote (topic demo under ./data).
    run_readme(checkout, with_python=False)
    for block in sorted({c.block for c in commands}):
        run_block(checkout, [c.text for c in commands if c.block == block])
    if doc.name == "SPARK.md":
        assert list((checkout / "demo.parquet").glob("topic=demo/partition=0/*.parquet"))
