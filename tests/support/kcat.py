"""kcat (Debian's build on librdkafka 2.0.2, an old client worth keeping working) for tests.

Metadata listing (``-L -J``), producing lines from stdin (``-P``, keys with ``-K :``,
compression with ``-z``, idempotence with ``-X enable.idempotence=true``) and consuming with a
JSON envelope (``-C -e -J``, or ``-G group`` for a balanced consumer group).

Tests call :func:`require_kcat`, which skips when kcat is not installed. To see what librdkafka
sends and receives, set ``MOLDAU_KCAT_DEBUG=protocol,broker`` (any ``-d`` contexts) or pass
``debug=...``: kcat's debug log then goes to the test's stderr.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# librdkafka waits this long (-m) for the first metadata before giving up.
METADATA_TIMEOUT_S = 15


class KcatError(Exception):
    """kcat exited with an error (the message carries its stderr)."""


def kcat_path() -> str | None:
    return shutil.which("kcat") or shutil.which("kafkacat")


def require_kcat() -> str:
    """For tests: the kcat binary, or skip the test."""
    import pytest

    path = kcat_path()
    if path is None:
        pytest.skip("kcat is not installed (Debian package kcat)")
    return path


def kcat_version() -> str:
    """kcat's ``-V`` banner, e.g. "Version 1.7.1 (... librdkafka 2.0.2 ...)"."""
    path = kcat_path()
    if path is None:
        raise KcatError("kcat is not installed")
    proc = subprocess.run([path, "-V"], capture_output=True, text=True, timeout=10)
    return (proc.stdout + proc.stderr).strip()


@dataclass
class KcatResult:
    returncode: int
    stdout: str
    stderr: str
    command: list[str]

    def json_lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.stdout.splitlines() if line.strip()]


@dataclass(frozen=True)
class KcatMessage:
    """One consumed message from kcat's JSON envelope."""

    topic: str
    partition: int
    offset: int
    timestamp: int
    key: str | None
    value: str | None


class Kcat:
    """kcat pointed at one bootstrap address."""

    def __init__(
        self,
        bootstrap: str,
        *,
        config: Mapping[str, Any] | None = None,
        debug: str | None = None,
        path: str | None = None,
    ) -> None:
        self.bootstrap = bootstrap
        self.config = dict(config or {})
        self.debug = debug if debug is not None else os.environ.get("MOLDAU_KCAT_DEBUG")
        self.path = path or kcat_path()
        if self.path is None:
            raise KcatError("kcat is not installed")

    def _command(self, args: Sequence[str], config: Mapping[str, Any] | None) -> list[str]:
        cmd = [self.path, "-b", self.bootstrap, "-m", str(METADATA_TIMEOUT_S)]
        for k, v in {**self.config, **(config or {})}.items():
            cmd += ["-X", f"{k}={v}"]
        if self.debug:
            cmd += ["-d", self.debug]
        return [*cmd, *args]

    def run(
        self,
        args: Sequence[str],
        *,
        input: str | None = None,
        config: Mapping[str, Any] | None = None,
        timeout: float = 60.0,
        check: bool = True,
    ) -> KcatResult:
        cmd = self._command(args, config)
        try:
            proc = subprocess.run(
                cmd,
                input=input,
                stdin=None if input is not None else subprocess.DEVNULL,
                capture_output=True,
                text=True,
                errors="surrogateescape",
                timeout=timeout,
            )
        except subprocess.TimeoutExpired as e:
            raise KcatError(f"kcat did not finish within {timeout}s: {' '.join(cmd)}\nstderr:\n{e.stderr}")
        if self.debug and proc.stderr:
            sys.stderr.write(proc.stderr)
        result = KcatResult(proc.returncode, proc.stdout, proc.stderr, cmd)
        if check and proc.returncode != 0:
            raise KcatError(f"kcat exited {proc.returncode}: {' '.join(cmd)}\nstderr:\n{proc.stderr[-5000:]}")
        return result

    # ---------------------------------------------------------------- metadata

    def metadata(self, topic: str | None = None) -> dict[str, Any]:
        """``kcat -L -J``: brokers, controller id and topics with their partitions."""
        args = ["-L", "-J"]
        if topic is not None:
            args += ["-t", topic]
        result = self.run(args)
        lines = result.json_lines()
        if len(lines) != 1:
            raise KcatError(f"expected one JSON document from kcat -L -J, got {result.stdout!r}")
        return lines[0]

    def partition_counts(self) -> dict[str, int]:
        """Topic name -> number of partitions, for topics listed without an error."""
        return {t["topic"]: len(t["partitions"]) for t in self.metadata()["topics"] if not t.get("error")}

    # ---------------------------------------------------------------- produce

    def produce(
        self,
        topic: str,
        messages: Iterable[tuple[str | None, str] | str],
        *,
        idempotence: bool = False,
        compression: str | None = None,
        partition: int | None = None,
        acks: str | None = None,
        config: Mapping[str, Any] | None = None,
        timeout: float = 120.0,
    ) -> KcatResult:
        """Produce lines from stdin: ``(key, value)`` pairs with ``-K :`` or bare values.

        Keys must not contain ':' and neither keys nor values a newline (kcat's delimiters).
        A delivery failure makes kcat exit non-zero, which raises KcatError.
        """
        lines = []
        keyed = None
        for m in messages:
            is_pair = isinstance(m, tuple)
            if keyed is None:
                keyed = is_pair
            elif keyed != is_pair:
                raise ValueError("mix of keyed and unkeyed messages")
            key, value = m if is_pair else (None, m)
            if key is not None and (":" in key or "\n" in key):
                raise ValueError(f"key {key!r} contains kcat's key delimiter or a newline")
            if "\n" in value:
                raise ValueError("values must not contain newlines (kcat's message delimiter)")
            lines.append(f"{key or ''}:{value}" if keyed else value)
        args = ["-P", "-t", topic]
        if keyed:
            args += ["-K", ":"]
        if compression is not None:
            args += ["-z", compression]
        if partition is not None:
            args += ["-p", str(partition)]
        cfg: dict[str, Any] = {}
        if idempotence:
            cfg["enable.idempotence"] = "true"
        if acks is not None:
            cfg["acks"] = acks
        cfg.update(config or {})
        return self.run(args, input="".join(line + "\n" for line in lines), config=cfg, timeout=timeout)

    # ---------------------------------------------------------------- consume

    def consume(
        self,
        topic: str,
        *,
        group: str | None = None,
        count: int | None = None,
        offset: str = "beginning",
        partition: int | None = None,
        config: Mapping[str, Any] | None = None,
        timeout: float = 60.0,
    ) -> list[KcatMessage]:
        """Consume with the JSON envelope and exit at the end of the partitions (``-e``).

        With ``group``, kcat runs librdkafka's balanced KafkaConsumer (``-G``), which commits
        offsets (auto commit) before it exits; ``offset`` then only applies when the group has
        no committed offset (auto.offset.reset).
        """
        cfg: dict[str, Any] = {}
        if group is not None:
            cfg["auto.offset.reset"] = "earliest" if offset == "beginning" else "latest"
            args = ["-G", group, "-J", "-e", topic]
        else:
            args = ["-C", "-J", "-e", "-t", topic, "-o", offset]
            if partition is not None:
                args += ["-p", str(partition)]
        if count is not None:
            args += ["-c", str(count)]
        cfg.update(config or {})
        result = self.run(args, config=cfg, timeout=timeout)
        return [_message(d) for d in result.json_lines()]

    def query_offset(self, topic: str, partition: int, timestamp: int) -> int:
        """``kcat -Q``: the first offset at or after ``timestamp`` (-1 latest, -2 earliest)."""
        result = self.run(["-Q", "-J", "-t", f"{topic}:{partition}:{timestamp}"])
        doc = result.json_lines()[0]
        entry = doc[topic][str(partition)] if topic in doc else doc[str(partition)]
        if entry.get("error"):
            raise KcatError(f"kcat -Q {topic}:{partition}:{timestamp}: {entry['error']}")
        return int(entry["offset"])


def _message(d: Mapping[str, Any]) -> KcatMessage:
    return KcatMessage(
        topic=d["topic"],
        partition=int(d["partition"]),
        offset=int(d["offset"]),
        timestamp=int(d.get("ts", -1)),
        key=d.get("key"),
        value=d.get("payload"),
    )
