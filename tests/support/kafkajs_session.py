"""KafkaJS sessions a test steers while they run: ``tests/node/kafkajs_cluster_driver.js`` as a
subprocess, its JSON lines read as they come and control words ("go", "stop") written to its
stdin, so a test can kill brokers between a client's steps (tests/cluster/test_kafkajs_*.py).
The one-shot commands of ``tests/node/kafkajs_driver.js`` are ``tests.support.kafkajs_client``."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from typing import Any

from tests.support.kafkajs_client import ROOT, require_kafkajs

DRIVER = ROOT / "tests" / "node" / "kafkajs_cluster_driver.js"


class Driver:
    def __init__(self, bootstrap: str, command: str, timeout: float = 55.0, **args: Any) -> None:
        runtime = require_kafkajs()
        spec = {"command": command, "brokers": bootstrap.split(","), "timeoutMs": int(timeout * 1000), **args}
        self.timeout = timeout
        self.proc = subprocess.Popen(
            [runtime.node, str(DRIVER), json.dumps(spec)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=runtime.env(),
        )
        self.lines: list[dict[str, Any]] = []
        self._q: queue.Queue = queue.Queue()
        self.stderr: list[str] = []
        self._readers = [
            threading.Thread(target=self._read, daemon=True),
            threading.Thread(target=self._read_err, daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            if raw.strip():
                line = json.loads(raw)
                self.lines.append(line)
                self._q.put(line)
        self._q.put(None)

    def _read_err(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            self.stderr.append(raw)

    def send(self, word: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(word + "\n")
        self.proc.stdin.flush()

    def wait_for(self, pred, what: str, timeout: float = 40.0) -> dict[str, Any]:
        for line in list(self.lines):
            if pred(line):
                return line
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(
                    f"no {what} within {timeout}s; last lines {self.lines[-5:]}\n{''.join(self.stderr[-30:])}"
                )
            try:
                line = self._q.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise AssertionError(
                    f"driver ended before {what}: {self.lines[-5:]}\n{''.join(self.stderr[-40:])}"
                )
            if pred(line):
                return line

    def finish(self) -> list[dict[str, Any]]:
        try:
            self.proc.wait(self.timeout + 20)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
        for reader in self._readers:  # every line the driver wrote is read
            reader.join(10)
        return self.lines

    def events(self, name: str) -> list[dict[str, Any]]:
        return [line for line in self.lines if line.get("event") == name]


def run(bootstrap: str, command: str, timeout: float = 55.0, **args: Any) -> Driver:
    d = Driver(bootstrap, command, timeout, **args)
    d.finish()
    return d
