"""KafkaJS (npm ``kafkajs``, pinned below) as a test client: a Node driver and its Python wrapper.

KafkaJS is a pure JavaScript client with its own protocol code (it picks its own API versions,
batches its own way and runs its own group and transaction state machines), so it catches
what the clients built on Kafka's Java code or librdkafka do not.

The driver ``tests/node/kafkajs_driver.js`` takes one command as a JSON object (its first
argument) and prints one JSON object per line: records as ``{"p", "o", "k", "v"}``, events as
``{"event": ...}``, and on failure ``{"error", "type"}`` with exit status 1.
:class:`KafkaJSClient` builds the commands and returns the parsed lines.

KafkaJS is installed once, with npm, into ``$MOLDAU_CACHE_DIR/kafkajs/<version>`` (default
``<repo>/.cache``; gitignored) by ``python -m tests.support.kafkajs_client --prepare``, which
``tools/test-all`` runs before pytest. Tests never reach the network: where the package is not
installed they skip with the reason (and fail in CI, ``MOLDAU_REQUIRE_ALL=1``), as they do
where there is no ``node``.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DRIVER = ROOT / "tests" / "node" / "kafkajs_driver.js"
KAFKAJS_VERSION = "2.2.4"  # the last 2.x release; the driver is written against its API


class KafkaJSUnavailable(Exception):
    """No node, or KafkaJS not installed in the cache: KafkaJS tests are skipped."""


class KafkaJSClientError(Exception):
    """The driver failed: a client error, a crash or a timeout."""


def cache_root() -> Path:
    """``$MOLDAU_CACHE_DIR`` or ``<repo>/.cache`` (gitignored); the Java jars live there too."""
    env = os.environ.get("MOLDAU_CACHE_DIR")
    return Path(env) if env else ROOT / ".cache"


def install_dir() -> Path:
    return cache_root() / "kafkajs" / KAFKAJS_VERSION


def _installed(directory: Path) -> bool:
    package = directory / "node_modules" / "kafkajs" / "package.json"
    try:
        return json.loads(package.read_text())["version"] == KAFKAJS_VERSION
    except (OSError, ValueError, KeyError):
        return False


@contextlib.contextmanager
def _locked(directory: Path) -> Iterator[None]:
    """An exclusive lock, so parallel preparations install once."""
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / ".lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def prepare() -> Path:
    """Install KafkaJS into the cache with npm (once); its directory. Needs the network."""
    if not shutil.which("node") or not shutil.which("npm"):
        raise KafkaJSUnavailable("node and npm are needed to install KafkaJS")
    directory = install_dir()
    with _locked(directory):
        if not _installed(directory):
            cmd = ["npm", "install", "--prefix", str(directory), "--no-audit", "--no-fund", "--no-save"]
            proc = subprocess.run(
                [*cmd, "--loglevel=error", f"kafkajs@{KAFKAJS_VERSION}"], capture_output=True, text=True
            )
            if proc.returncode != 0 or not _installed(directory):
                raise KafkaJSClientError(
                    f"npm install kafkajs@{KAFKAJS_VERSION} failed:\n{proc.stderr[-3000:]}"
                )
    return directory


@dataclass(frozen=True)
class KafkaJSRuntime:
    node: str
    modules: Path  # the node_modules holding kafkajs

    def command(self, spec: dict[str, Any]) -> list[str]:
        return [self.node, str(DRIVER), json.dumps(spec)]

    def env(self) -> dict[str, str]:
        # KafkaJS 2 warns on every producer that its default partitioner changed in 2.0.
        return dict(os.environ, NODE_PATH=str(self.modules), KAFKAJS_NO_PARTITIONER_WARNING="1")


def kafkajs_runtime() -> KafkaJSRuntime:
    """node and the installed KafkaJS, without installing anything (raises KafkaJSUnavailable)."""
    node = shutil.which("node")
    if not node:
        raise KafkaJSUnavailable("no node on PATH")
    directory = install_dir()
    if not _installed(directory):
        raise KafkaJSUnavailable(
            f"kafkajs {KAFKAJS_VERSION} is not installed in {directory}: "
            "run `python -m tests.support.kafkajs_client --prepare` (tools/test-all does)"
        )
    return KafkaJSRuntime(node, directory / "node_modules")


def require_kafkajs() -> KafkaJSRuntime:
    """For tests: the runtime, or skip the test with the reason."""
    import pytest

    try:
        return kafkajs_runtime()
    except KafkaJSUnavailable as e:
        pytest.skip(f"KafkaJS unavailable: {e}")


# ---------------------------------------------------------------- running the driver


@dataclass
class KafkaJSResult:
    lines: list[dict[str, Any]]
    stderr: str

    def records(self) -> list[dict[str, Any]]:
        return [line for line in self.lines if "o" in line and "p" in line]

    def events(self, name: str) -> list[dict[str, Any]]:
        return [line for line in self.lines if line.get("event") == name]

    def event(self, name: str) -> dict[str, Any]:
        found = self.events(name)
        if len(found) != 1:
            raise KafkaJSClientError(
                f"expected one {name!r} event, got {found}\nstderr:\n{self.stderr[-3000:]}"
            )
        return found[0]


class KafkaJSClient:
    """The driver pointed at one broker (see the module docstring for the commands)."""

    def __init__(self, bootstrap: str, *, runtime: KafkaJSRuntime | None = None) -> None:
        self.bootstrap = bootstrap
        self.runtime = runtime or kafkajs_runtime()

    def run(self, command: str, timeout: float = 120.0, **args: Any) -> KafkaJSResult:
        spec = {"command": command, "brokers": [self.bootstrap], "timeoutMs": int(timeout * 1000), **args}
        cmd = self.runtime.command(spec)
        try:
            # A little over the driver's own deadline, so it reports its state first.
            proc = subprocess.run(
                cmd,
                capture_output=True,
                text=True,
                timeout=timeout + 30,
                env=self.runtime.env(),
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired as e:
            raise KafkaJSClientError(f"{command} did not finish within {timeout + 30}s; stderr:\n{e.stderr}")
        lines = []
        for raw in proc.stdout.splitlines():
            if raw.strip():
                try:
                    lines.append(json.loads(raw))
                except json.JSONDecodeError:
                    raise KafkaJSClientError(f"non-JSON line from the driver: {raw!r}\n{proc.stderr[-3000:]}")
        if proc.returncode != 0:
            detail = lines[-1] if lines else {}
            raise KafkaJSClientError(
                f"KafkaJS {command} exited {proc.returncode}: {detail}\nstderr:\n{proc.stderr[-5000:]}"
            )
        return KafkaJSResult(lines, proc.stderr)

    # Each wraps one driver command; messages are {"key", "value", "partition"?} with str values.

    def create_topic(self, topic: str, partitions: int) -> KafkaJSResult:
        return self.run("create-topic", topic=topic, partitions=partitions)

    def produce(
        self,
        topic: str,
        messages: Sequence[dict[str, Any]],
        *,
        compression: str = "none",
        send_size: int | None = None,
    ) -> KafkaJSResult:
        """Plain (non-transactional) acks=all sends, ``send_size`` messages per send."""
        return self.run(
            "produce", topic=topic, messages=list(messages), compression=compression, sendSize=send_size
        )

    def transactions(
        self, topic: str, transactional_id: str, steps: Sequence[tuple[str, Sequence[dict[str, Any]]]]
    ) -> KafkaJSResult:
        """One transaction per step, ``("commit" | "abort", messages)``, by one producer."""
        return self.run(
            "transactions",
            topic=topic,
            transactionalId=transactional_id,
            steps=[{"end": end, "messages": list(messages)} for end, messages in steps],
        )

    def consume(
        self,
        topic: str,
        group: str,
        expect: int,
        *,
        read_uncommitted: bool = False,
        auto_commit: bool = True,
        idle_ms: int = 2000,
        timeout: float = 90.0,
    ) -> KafkaJSResult:
        """Consume from the beginning in a group until ``expect`` records and then ``idle_ms`` of
        nothing more (extra records would be seen); the group's offsets are committed."""
        return self.run(
            "consume",
            timeout=timeout,
            topic=topic,
            groupId=group,
            expect=expect,
            readUncommitted=read_uncommitted,
            autoCommit=auto_commit,
            idleMs=idle_ms,
        )

    def copy_exactly_once(
        self,
        source: str,
        sink: str,
        group: str,
        transactional_id: str,
        total: int,
        *,
        abort_every: int,
        max_bytes_per_partition: int = 1024,
    ) -> KafkaJSResult:
        """Consume-transform-produce with ``transaction.sendOffsets``: every ``abort_every``-th
        batch is aborted and re-read; ends when ``total`` records were copied in committed
        transactions."""
        return self.run(
            "copy-exactly-once",
            source=source,
            sink=sink,
            groupId=group,
            transactionalId=transactional_id,
            total=total,
            abortEvery=abort_every,
            maxBytesPerPartition=max_bytes_per_partition,
        )

    def open_transaction(
        self,
        topic: str,
        group: str,
        transactional_id: str,
        transactional: Sequence[str],
        plain: Sequence[str],
        *,
        open_ms: int = 3000,
    ) -> KafkaJSResult:
        """A plain record, then an open transaction's and more plain ones; a read_committed
        consumer runs ``open_ms`` before the commit (event ``open``) and until all are read."""
        return self.run(
            "open-transaction",
            topic=topic,
            groupId=group,
            transactionalId=transactional_id,
            transactional=list(transactional),
            plain=list(plain),
            openMs=open_ms,
        )

    def fence(self, topic: str, transactional_id: str) -> KafkaJSResult:
        """A second producer with the same transactional id fences the first (its commit fails)."""
        return self.run("fence", topic=topic, transactionalId=transactional_id)

    def group_of_two(self, topic: str, group: str, expect: int, *, idle_ms: int = 2000) -> KafkaJSResult:
        """Two consumers of one group: their assignments, records and the group's description."""
        return self.run("group-of-two", topic=topic, groupId=group, expect=expect, idleMs=idle_ms)

    def fetch_offsets(self, group: str, topic: str) -> dict[int, int]:
        result = self.run("fetch-offsets", groupId=group, topic=topic)
        return {int(p["partition"]): int(p["offset"]) for p in result.event("offsets")["partitions"]}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prepare", action="store_true", help="install KafkaJS into the cache with npm")
    ns = parser.parse_args(argv)
    if not ns.prepare:
        parser.print_help()
        return 2
    try:
        directory = prepare()
    except KafkaJSUnavailable as e:
        print(f"KafkaJS unavailable, its tests will be skipped: {e}")
        return 0
    print(f"KafkaJS {KAFKAJS_VERSION} ready in {directory}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
