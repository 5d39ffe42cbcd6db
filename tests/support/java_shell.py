"""A long-lived Java client process (``tests/java/ClusterShell.java``): one Admin client, and
producers and consumers that stay open across broker kills, driven one command per line (tab
separated) with one JSON answer per line. The cluster tests use it where a scenario needs the
Java client's state (a transaction, a group member) to outlive a failover, which the one-shot
``MoldauClient`` commands cannot."""

from __future__ import annotations

import json
import subprocess
import threading
from typing import Any

from tests.support.java_runtime import JavaClientError, require_java


class JavaShell:
    """``ClusterShell BOOTSTRAP [prop=value ...]`` (or another ``main`` of tests/java speaking
    the same one-line protocol); call it with a command's words."""

    def __init__(self, bootstrap: str, *, main: str = "ClusterShell", **props: str) -> None:
        runtime = require_java()
        self.main = main
        cmd = runtime.command([bootstrap, *(f"{k}={v}" for k, v in props.items())], main=main)
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        self._err: list[str] = []
        threading.Thread(target=lambda: self._err.extend(self.proc.stderr), daemon=True).start()

    def __call__(self, *args: Any) -> dict[str, Any]:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write("\t".join(map(str, args)) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise JavaClientError(f"{self.main} died: {''.join(self._err)[-3000:]}")
        return json.loads(line)

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def __enter__(self) -> JavaShell:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
