"""A ZooKeeper server for test clusters: the system's ZooKeeper, run as a Java subprocess.

``moldau_cluster`` (``broker/testing/plugin.py``) needs a ZooKeeper its brokers share. This
runs ``org.apache.zookeeper.server.ZooKeeperServerMain`` from the ZooKeeper jar of the
system (Debian's and Ubuntu's ``zookeeper`` package: ``/usr/share/java/zookeeper.jar``,
whose manifest carries its class path; ``MOLDAU_ZOOKEEPER_JAR`` names another jar) with
``java`` from the PATH: a standalone server on a free port of 127.0.0.1, its own data
dir, no admin server, a short tick (sessions of 1-10 s), answering the ``ruok`` and
``srvr`` four-letter words that tell when it serves. ``stop()``, ``kill()`` and
``restart()`` take it away and bring it back (same port, same data dir, so clients
reconnect to the same address and znodes survive).

:func:`zookeeper_unavailable` says why a server cannot be started here (no ``java``, no
jar), so a fixture can skip with that reason.
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

DEFAULT_JAR = Path("/usr/share/java/zookeeper.jar")
SLF4J_SIMPLE_JAR = Path("/usr/share/java/slf4j-simple.jar")  # its logging, if installed


def zookeeper_jar() -> Path:
    return Path(os.environ.get("MOLDAU_ZOOKEEPER_JAR") or DEFAULT_JAR)


def zookeeper_unavailable() -> str | None:
    """None if a ZooKeeper server can be started here, else why not."""
    if shutil.which("java") is None:
        return "java is not on the PATH"
    jar = zookeeper_jar()
    if not jar.exists():
        return f"{jar} is missing (install the zookeeper package, or set MOLDAU_ZOOKEEPER_JAR)"
    return None


def free_port() -> int:
    """A port of 127.0.0.1 that is free now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ZooKeeperProcess:
    """One standalone ZooKeeper server process with its data in ``data_dir``."""

    def __init__(self, data_dir: str | Path, *, port: int | None = None, tick_time_ms: int = 500) -> None:
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

    def start(self, timeout: float = 60.0) -> ZooKeeperProcess:
        reason = zookeeper_unavailable()
        if reason:
            raise RuntimeError(f"cannot start ZooKeeper: {reason}")
        data = self.dir / "data"
        data.mkdir(parents=True, exist_ok=True)
        cfg = self.dir / "zoo.cfg"
        cfg.write_text(
            f"tickTime={self.tick_time_ms}\ndataDir={data}\nclientPort={self.port}\n"
            "clientPortAddress=127.0.0.1\nadmin.enableServer=false\n"
            "4lw.commands.whitelist=ruok,srvr\nmaxClientCnxns=0\n"
        )
        classpath = [str(zookeeper_jar())] + ([str(SLF4J_SIMPLE_JAR)] if SLF4J_SIMPLE_JAR.exists() else [])
        cmd = [
            "java",
            "-Xmx128m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-Dzookeeper.admin.enableServer=false",
            "-cp",
            ":".join(classpath),
            "org.apache.zookeeper.server.ZooKeeperServerMain",
            str(cfg),
        ]
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=self.dir
            )
        deadline = time.monotonic() + timeout
        while not self.serving():
            if self.proc.poll() is not None:
                raise RuntimeError(f"ZooKeeper exited with {self.proc.returncode}:\n{self.log_tail()}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"ZooKeeper did not serve within {timeout} s:\n{self.log_tail()}")
            time.sleep(0.05)
        return self

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
        """SIGTERM and wait (SIGKILL after ``timeout``); the port stops answering."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()

    def kill(self) -> None:
        """SIGKILL: ZooKeeper goes away at once, as in a crash."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def restart(self) -> ZooKeeperProcess:
        """Stop and start again on the same port with the same data."""
        self.stop()
        return self.start()

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def log_tail(self, lines: int = 30) -> str:
        with contextlib.suppress(OSError):
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        return ""

    def __enter__(self) -> ZooKeeperProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
