"""A real ZooKeeper server (Debian's zookeeper package) as a subprocess, for tests and benches.

``ZooKeeperServer(data_dir).start()`` runs ``ZooKeeperServerMain`` with its own
``zoo.cfg``: client port on 127.0.0.1 (a free port picked once, kept across
restarts so clients reconnect to the same address), no admin server, its own
data dir, a short tick (sessions of 1-10 s are allowed) and the ``ruok``
and ``srvr`` four-letter words, which tell when it serves. ``stop()``, ``kill()`` and
``restart()`` let a test take ZooKeeper away and bring it back mid-test; the
data dir is kept, so znodes survive a restart.

The ``zookeeper`` fixture gives a fresh server per test; ``zookeeper_shared``
one per module (tests then isolate themselves with a chroot each).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

ZOOKEEPER_JAR = Path("/usr/share/java/zookeeper.jar")  # its manifest carries the class path
SLF4J_SIMPLE_JAR = Path("/usr/share/java/slf4j-simple.jar")


def zookeeper_available() -> str | None:
    """None if a ZooKeeper server can be started here, else why not."""
    if shutil.which("java") is None:
        return "java is not installed"
    if not ZOOKEEPER_JAR.exists():
        return f"{ZOOKEEPER_JAR} is missing (Debian package zookeeper)"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ZooKeeperServer:
    """One standalone ZooKeeper server process."""

    def __init__(self, data_dir: Path, *, port: int | None = None, tick_time_ms: int = 500) -> None:
        self.dir = Path(data_dir)
        self.port = port or free_port()
        self.tick_time_ms = tick_time_ms
        self.proc: subprocess.Popen | None = None
        self.log_path = self.dir / "zookeeper.log"

    @property
    def connect_string(self) -> str:
        return f"127.0.0.1:{self.port}"

    def connect(self, chroot: str = "") -> str:
        """``zookeeper.connect`` for this server, with an optional chroot (``/moldau``)."""
        return self.connect_string + chroot

    def _write_config(self) -> Path:
        data = self.dir / "data"
        data.mkdir(parents=True, exist_ok=True)
        cfg = self.dir / "zoo.cfg"
        cfg.write_text(
            "\n".join(
                [
                    f"tickTime={self.tick_time_ms}",
                    f"dataDir={data}",
                    f"clientPort={self.port}",
                    "clientPortAddress=127.0.0.1",
                    "admin.enableServer=false",
                    "4lw.commands.whitelist=ruok,srvr,stat",
                    "maxClientCnxns=0",
                    # sessions between 2 and 20 ticks: 1 s .. 10 s
                    "",
                ]
            )
        )
        return cfg

    def start(self, timeout: float = 60.0) -> ZooKeeperServer:
        reason = zookeeper_available()
        if reason:
            pytest.skip(f"ZooKeeper unavailable: {reason}")
        cfg = self._write_config()
        classpath = f"{ZOOKEEPER_JAR}:{SLF4J_SIMPLE_JAR}"
        cmd = [
            "java",
            "-Xmx128m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-Dzookeeper.admin.enableServer=false",
            "-cp",
            classpath,
            "org.apache.zookeeper.server.ZooKeeperServerMain",
            str(cfg),
        ]
        log = open(self.log_path, "ab")  # noqa: SIM115 - handed to the child
        try:
            self.proc = subprocess.Popen(
                cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=self.dir
            )
        finally:
            log.close()
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"ZooKeeper exited with {self.proc.returncode}:\n{self.log_tail()}")
            if self.serving():
                return self
            if time.monotonic() > deadline:
                self.kill()
                raise RuntimeError(f"ZooKeeper did not answer ruok within {timeout} s:\n{self.log_tail()}")
            time.sleep(0.1)

    def _four_letter_word(self, word: bytes) -> bytes:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1.0) as s:
                s.sendall(word)
                chunks = []
                while chunk := s.recv(4096):
                    chunks.append(chunk)
                return b"".join(chunks)
        except OSError:
            return b""

    def ruok(self) -> bool:
        """True when the server answers ``ruok`` with ``imok`` (it runs)."""
        return self._four_letter_word(b"ruok") == b"imok"

    def serving(self) -> bool:
        """True when it runs and serves sessions (``srvr`` reports its mode)."""
        return self.ruok() and b"Mode:" in self._four_letter_word(b"srvr")

    def stop(self, timeout: float = 30.0) -> None:
        """SIGTERM and wait; the port stops answering."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def restart(self) -> ZooKeeperServer:
        self.stop()
        return self.start()

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def log_tail(self, lines: int = 30) -> str:
        with contextlib.suppress(OSError):
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        return ""

    def __enter__(self) -> ZooKeeperServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@pytest.fixture
def zookeeper(tmp_path):
    """A fresh ZooKeeper for this test (it may stop and restart it)."""
    server = ZooKeeperServer(tmp_path / "zookeeper")
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def zookeeper_shared(tmp_path_factory):
    """One ZooKeeper for a module; each test should use its own chroot."""
    server = ZooKeeperServer(tmp_path_factory.mktemp("zookeeper"))
    server.start()
    yield server
    server.stop()


@pytest.fixture
def zk_chroot(request) -> str:
    """A chroot unique to this test: ``/t_<test name>``."""
    name = "".join(c if c.isalnum() else "_" for c in request.node.name)[:80]
    return f"/t_{name}_{os.getpid()}"
