"""Run a Moldau broker as a real subprocess for integration tests.

The broker listens on an ephemeral port (``listeners=PLAINTEXT://127.0.0.1:0``);
the port is read from its "listening on" log line, so tests never race for a port.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_LISTENING = re.compile(r"listening on PLAINTEXT://([^:]+):(\d+)")
_STARTED = re.compile(r"broker (\d+) started")


class BrokerProcess:
    """One broker subprocess with its own log directory."""

    def __init__(
        self,
        log_dir: Path,
        overrides: Mapping[str, str] | None = None,
        *,
        port: int = 0,
        properties_file: Path | None = None,
        extra_args: Iterable[str] = (),
    ) -> None:
        self.log_dir = Path(log_dir)
        self.overrides = dict(overrides or {})
        self.requested_port = port
        self.properties_file = properties_file
        self.extra_args = list(extra_args)
        self.proc: subprocess.Popen | None = None
        self.port: int | None = None
        self.host = "127.0.0.1"
        self.lines: list[str] = []
        self._reader: threading.Thread | None = None

    @property
    def bootstrap(self) -> str:
        return f"{self.host}:{self.port}"

    def command(self) -> list[str]:
        cmd = [sys.executable, "-m", "broker"]
        if self.properties_file:
            cmd.append(str(self.properties_file))
        props = {
            "log.dirs": str(self.log_dir),
            "listeners": f"PLAINTEXT://127.0.0.1:{self.port or self.requested_port}",
            **self.overrides,
        }
        for k, v in props.items():
            cmd += ["--override", f"{k}={v}"]
        return cmd + self.extra_args

    def start(self, timeout: float = 60.0) -> BrokerProcess:
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        env.setdefault("MOLDAU_LOG_LEVEL", "INFO")
        proc = subprocess.Popen(
            self.command(),
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        # Each start has its own lines, event and reader: the reader of a killed
        # process may still be draining its stderr when the next one starts.
        self.proc = proc
        self.lines = lines = []
        started = threading.Event()
        ready = threading.Event()  # the "broker N started" line was seen
        self._reader = threading.Thread(
            target=self._read_stderr, args=(proc, lines, started, ready), daemon=True
        )
        self._reader.start()
        if not started.wait(timeout):
            self.kill()
            raise RuntimeError("broker did not start:\n" + "\n".join(lines[-40:]))
        if not ready.is_set():
            # stderr closed before the started line: the broker is exiting
            proc.wait(timeout)
            raise RuntimeError(f"broker exited at start ({proc.returncode}):\n" + "\n".join(lines[-40:]))
        return self

    def _read_stderr(
        self, proc: subprocess.Popen, lines: list[str], started: threading.Event, ready: threading.Event
    ) -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            line = line.rstrip("\n")
            lines.append(line)
            m = _LISTENING.search(line)
            if m and self.port in (None, 0) and proc is self.proc:
                self.port = int(m.group(2))
            if _STARTED.search(line):
                ready.set()
                started.set()
        started.set()  # exited: unblock start()

    def wait_for_log(self, pattern: str, timeout: float = 30.0) -> str:
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in list(self.lines):
                if rx.search(line):
                    return line
            time.sleep(0.05)
        raise AssertionError(f"no log line matching {pattern!r}; last lines:\n" + "\n".join(self.lines[-20:]))

    def stop(self, timeout: float = 30.0) -> int:
        """Graceful stop (SIGTERM); returns the exit code."""
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else 0
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise

    def kill(self) -> None:
        """kill -9: an unclean shutdown."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def restart(self, *, clean: bool = True) -> BrokerProcess:
        """Stop (gracefully or with kill -9) and start again on the same port and data."""
        if clean:
            self.stop()
        else:
            self.kill()
        return self.start()

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def __enter__(self) -> BrokerProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        if self.alive():
            self.stop()


def wait_for_port(host: str, port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection((host, port), timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
