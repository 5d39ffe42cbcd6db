#!/usr/bin/env python3
"""Replication's cost: RF 3 on three brokers against RF 1 on one, with Kafka's reference client.

In one run, alternating the two setups round by round:

- RF 1: one Moldau broker (a subprocess), a topic of one partition (``--partitions N``: N),
  replication factor 1;
- RF 3: three Moldau brokers (``python -m broker`` subprocesses) with a real ZooKeeper, a
  topic of as many partitions (their leaders spread over the brokers), replication factor 3,
  ``min.insync.replicas=2``;

the Java client's producer perf tool (kafka-producer-perf-test's equivalent, tests/java) with
the idempotent producer, acks=all, max.in.flight 5, 1 KiB records, the client's default
batches (batch.size 16384, linger.ms 5; ``--batch-size N`` for others, with linger.ms 10).
Prints, each as the median of the measured rounds with min-max and spread: MB/s, the p99
produce latency (send to acknowledgement, sampled per record by the perf tool), and the
brokers' CPU seconds (user + system, /proc/<pid>/stat) summed over every broker of the setup,
per GB of record values; and the RF3/RF1 ratio of the throughput medians (the target: 0.40 or
more on a 2-core machine that runs everything).

The machinery (CPU accounting, the one client JVM, fresh brokers per round, a discarded
warm-up round, a GC of the client and a sync before each phase, spread) is broker_bench.py's.
Every broker, the ZooKeeper server and the client share the machine: the RF 3 figures include
the cost of three brokers and ZooKeeper on the same cores.

Usage: python bench/replication_bench.py [--rounds R] [--records N] [--warmup-rounds W] [--batch-size N] [--partitions P]
       [--json FILE] [--compare EARLIER.json [--tolerance PCT]] [--profile DIR] [--cpu-profile DIR]
``--profile DIR`` samples the brokers with py-spy (wall-clock time: on a busy machine a
process waiting for a core shows where it was preempted); ``--cpu-profile DIR`` has each
broker sample its own stacks by CPU time (bench/cpu_sampler), the figure to trust for where
the CPU per GB goes.
Needs a JDK (the client) and Debian's zookeeper package.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from broker_bench import (  # noqa: E402
    GB,
    LARGE_BATCHES,
    ClientJvm,
    CpuSnapshot,
    PerfJavaRuntime,
    RunningBroker,
    _cell,
    find_jcmd,
    java_children,
    load_average,
    machine_info,
    run_moldau,
    spread,
)

from tests.support.cluster import Cluster  # noqa: E402
from tests.support.java_client import JavaClient, prepare  # noqa: E402
from tests.support.zookeeper_server import ZooKeeperServer, zookeeper_available  # noqa: E402

RECORD_SIZE = 1024
RF1 = "RF 1, 1 broker"
RF3 = "RF 3, 3 brokers"
SETUPS = (RF1, RF3)
RF3_TOPIC_CONFIGS = {"min.insync.replicas": "2"}
ISR_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Setup:
    """The brokers of one setup in one round, and the topic the phase writes to."""

    name: str
    brokers: Sequence[RunningBroker]
    replication: int
    configs: dict[str, str]

    @property
    def bootstrap(self) -> str:
        return ",".join(b.bootstrap for b in self.brokers)


@dataclass(frozen=True)
class Sample:
    round: int
    warmup: bool
    setup: str
    records: int
    mb_per_sec: float
    p99_ms: float
    wall_seconds: float
    broker_cpu_seconds: float  # summed over the setup's brokers
    leader_cpu_seconds: float  # the partition leader's share of it
    others_cores: float

    @property
    def cpu_seconds_per_gb(self) -> float:
        return self.broker_cpu_seconds / (self.records * RECORD_SIZE / GB)

    @property
    def leader_cpu_seconds_per_gb(self) -> float:
        return self.leader_cpu_seconds / (self.records * RECORD_SIZE / GB)

    def as_dict(self) -> dict[str, Any]:
        return {
            **dataclasses.asdict(self),
            "cpu_seconds_per_gb": self.cpu_seconds_per_gb,
            "leader_cpu_seconds_per_gb": self.leader_cpu_seconds_per_gb,
        }


@contextlib.contextmanager
def run_rf1(tmp: Path) -> Iterator[Setup]:
    with run_moldau(tmp) as broker:
        yield Setup(RF1, [broker], 1, {})


@contextlib.contextmanager
def run_rf3(tmp: Path, zookeeper: ZooKeeperServer, round_no: int) -> Iterator[Setup]:
    # A fresh chroot per round: the shared ZooKeeper keeps no state between rounds' clusters.
    cluster = Cluster(
        3,
        zookeeper=zookeeper,
        zk_chroot=f"/bench-{round_no}-{time.monotonic_ns()}",
        mode="subprocess",
        base_dir=tmp / f"cluster-{round_no}",
    )
    with cluster:
        brokers = []
        for i in range(3):
            proc = cluster.broker(i).proc  # type: ignore[union-attr]
            brokers.append(RunningBroker(f"broker-{i}", cluster.address(i), proc.pid))
        yield Setup(RF3, brokers, 3, RF3_TOPIC_CONFIGS)


def create_topic(jvm: ClientJvm, setup: Setup, topic: str, count: int = 1) -> int:
    """The topic, and (RF 3) every replica in the ISR before anything is measured; the id of
    its first partition's leader."""
    jvm.client.bootstrap = setup.bootstrap
    created = jvm.client.create_topic(topic, count, setup.replication, configs=setup.configs)
    if not created.get("ok"):
        raise RuntimeError(f"{setup.name}: creating {topic} failed: {created}")
    deadline = time.monotonic() + ISR_TIMEOUT_S
    while True:
        described = jvm.client.describe_topics(topic)
        partitions = described[0].get("partitions", []) if described and described[0].get("ok") else []
        in_sync = [p for p in partitions if len(p.get("isr", [])) == setup.replication]
        if len(in_sync) == len(partitions) == count:
            return int(min(partitions, key=lambda p: p["partition"])["leader"])
        if time.monotonic() > deadline:
            raise RuntimeError(
                f"{setup.name}: {topic} not fully in sync after {ISR_TIMEOUT_S:.0f} s: {described}"
            )
        time.sleep(0.2)  # polling an observable condition (the ISR) with a deadline


@contextlib.contextmanager
def profiled(setup: Setup, leader: int, directory: Path | None, tag: str) -> Iterator[None]:
    """With ``--profile DIR``: py-spy samples every broker of the setup during the phase
    (collapsed stacks, ``DIR/<tag>-<setup>-<broker>[-leader].txt``; flamegraph.pl reads them)."""
    if directory is None:
        yield
        return
    py_spy = Path(sys.executable).parent / "py-spy"
    directory.mkdir(parents=True, exist_ok=True)
    procs = []
    for i, broker in enumerate(setup.brokers):
        role = "-leader" if i == leader or len(setup.brokers) == 1 else ""
        name = f"{tag}-{setup.name.split(',')[0].replace(' ', '')}-{broker.name}{role}.txt"
        command = [str(py_spy), "record", "--format", "raw", "--rate", "100", "-o", str(directory / name)]
        procs.append(
            subprocess.Popen(
                [*command, "-p", str(broker.pid)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
    try:
        yield
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGINT)
        for proc in procs:
            proc.wait(30)


CPU_SAMPLER = ROOT / "bench" / "cpu_sampler"  # its sitecustomize samples a broker's CPU time


def enable_cpu_sampler(directory: Path) -> None:
    """Brokers started from now on load the CPU sampler (bench/cpu_sampler/sitecustomize.py)."""
    directory.mkdir(parents=True, exist_ok=True)
    os.environ["MOLDAU_CPU_SAMPLER_DIR"] = str(directory.resolve())
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(CPU_SAMPLER), os.environ.get("PYTHONPATH")]))


@contextlib.contextmanager
def cpu_profiled(setup: Setup, leader: int, directory: Path | None, tag: str) -> Iterator[None]:
    """With ``--cpu-profile DIR``: every broker samples its own stacks by CPU time during the
    phase (collapsed stacks, ``DIR/cpu-<tag>-<setup>-<broker>[-leader].txt``)."""
    if directory is None:
        yield
        return
    for broker in setup.brokers:
        os.kill(broker.pid, signal.SIGUSR1)
    try:
        yield
    finally:
        for broker in setup.brokers:
            os.kill(broker.pid, signal.SIGUSR2)
        deadline = time.monotonic() + 30
        for i, broker in enumerate(setup.brokers):
            written = directory / f"{broker.pid}.txt"
            while not written.exists() and time.monotonic() < deadline:
                time.sleep(0.05)  # the broker writes it from its signal handler
            role = "-leader" if i == leader or len(setup.brokers) == 1 else ""
            name = f"cpu-{tag}-{setup.name.split(',')[0].replace(' ', '')}-{broker.name}{role}.txt"
            if written.exists():
                written.replace(directory / name)


def run_phase(
    jvm: ClientJvm,
    setup: Setup,
    topic: str,
    leader: int,
    records: int,
    round_no: int,
    warmup: bool,
    profile_dir: Path | None = None,
    cpu_profile_dir: Path | None = None,
    producer: dict[str, Any] | None = None,
) -> Sample:
    jvm.client.bootstrap = setup.bootstrap
    jvm.collect_garbage()
    os.sync()
    broker_pids = [b.pid for b in setup.brokers]
    pids = [*broker_pids, jvm.pid, os.getpid()]
    with (
        profiled(setup, leader, None if warmup else profile_dir, f"round{round_no}"),
        cpu_profiled(setup, leader, None if warmup else cpu_profile_dir, f"round{round_no}"),
    ):
        before = CpuSnapshot.take(pids)
        result = jvm.client.perf_produce(topic, records, RECORD_SIZE, properties=producer)
        after = CpuSnapshot.take(pids)
    if not result["ok"] or result["acked"] != records:
        raise RuntimeError(f"{setup.name}: perf-produce failed: {result}")
    wall = after.wall - before.wall
    used = {pid: after.processes[pid] - before.processes[pid] for pid in pids}
    others = (after.machine_busy - before.machine_busy) - sum(used.values())
    return Sample(
        round=round_no,
        warmup=warmup,
        setup=setup.name,
        records=records,
        mb_per_sec=result["mb_per_sec"],
        p99_ms=float(result["p99_ms"]),
        wall_seconds=wall,
        broker_cpu_seconds=sum(used[pid] for pid in broker_pids),
        # Cluster brokers have ids 0..N-1 in the order of setup.brokers; RF 1's one broker leads.
        leader_cpu_seconds=used[broker_pids[leader if len(broker_pids) > 1 else 0]],
        others_cores=max(0.0, others) / wall,
    )


def run_rounds(args: argparse.Namespace, runtime: PerfJavaRuntime, jcmd: str | None) -> list[Sample]:
    samples: list[Sample] = []
    total = args.warmup_rounds + args.rounds
    with (
        tempfile.TemporaryDirectory(prefix="moldau-repl-bench-") as tmp_name,
        JavaClient("127.0.0.1:9", runtime=runtime).session() as client,
    ):
        tmp = Path(tmp_name)
        jvms = java_children()
        if len(jvms) != 1:
            raise RuntimeError(f"expected one client JVM among this process's children, found {jvms}")
        jvm = ClientJvm(client, jvms[0], jcmd)
        zookeeper = ZooKeeperServer(tmp / "zookeeper")
        zookeeper.start()
        try:
            for round_no in range(total):
                warmup = round_no < args.warmup_rounds
                records = max(1, args.records // 5) if warmup else args.records
                tag = "warm-up" if warmup else f"round {round_no - args.warmup_rounds + 1}/{args.rounds}"
                order = SETUPS if round_no % 2 == 0 else SETUPS[::-1]
                for name in order:
                    print(f"{tag}: {name} ...", file=sys.stderr, flush=True)
                    starter = run_rf1(tmp) if name == RF1 else run_rf3(tmp, zookeeper, round_no)
                    with starter as setup:
                        prime = f"repl-{round_no}-prime"
                        create_topic(jvm, setup, prime)
                        primed = jvm.client.perf_produce(prime, 2000, RECORD_SIZE)
                        if not primed["ok"]:
                            raise RuntimeError(f"{name}: the first records failed: {primed}")
                        topic = f"repl-{round_no}"
                        leader = create_topic(jvm, setup, topic, args.partitions)
                        samples.append(
                            run_phase(
                                jvm,
                                setup,
                                topic,
                                leader,
                                records,
                                round_no,
                                warmup,
                                args.profile,
                                args.cpu_profile,
                                producer_properties(args),
                            )
                        )
        finally:
            zookeeper.stop()
    return samples


def producer_properties(args: argparse.Namespace) -> dict[str, Any] | None:
    """The producer's batching: the client's defaults, or ``--batch-size`` with linger.ms 10
    (broker_bench.py's large batches)."""
    if args.batch_size is None:
        return None
    return {**LARGE_BATCHES, "batch.size": args.batch_size}


def batches_label(batch_size: int | None) -> str:
    if batch_size is None:
        return "client-default batches (batch.size 16384, linger.ms 5)"
    return f"batch.size {batch_size}, linger.ms 10"


def partitions_label(partitions: int) -> str:
    return "one partition" if partitions == 1 else f"{partitions} partitions"


def summarize(samples: Sequence[Sample]) -> dict[str, Any]:
    measured = [s for s in samples if not s.warmup]
    summary: dict[str, Any] = {}
    for name in SETUPS:
        mine = [s for s in measured if s.setup == name]
        summary[name] = {
            "mb_per_sec": spread([s.mb_per_sec for s in mine]),
            "p99_ms": spread([s.p99_ms for s in mine]),
            "cpu_seconds_per_gb": spread([s.cpu_seconds_per_gb for s in mine]),
            "leader_cpu_seconds_per_gb": spread([s.leader_cpu_seconds_per_gb for s in mine]),
            "wall_seconds": spread([s.wall_seconds for s in mine]),
        }
    rf1 = {s.round: s for s in measured if s.setup == RF1}
    rf3 = {s.round: s for s in measured if s.setup == RF3}
    paired = [rf3[r].mb_per_sec / rf1[r].mb_per_sec for r in sorted(rf1.keys() & rf3.keys())]
    summary["ratio"] = {
        "mb_per_sec_of_medians": summary[RF3]["mb_per_sec"]["median"] / summary[RF1]["mb_per_sec"]["median"],
        "mb_per_sec_paired_by_round": spread(paired),
        "cpu_seconds_per_gb_of_medians": summary[RF3]["cpu_seconds_per_gb"]["median"]
        / summary[RF1]["cpu_seconds_per_gb"]["median"],
    }
    summary["others_cores"] = spread([s.others_cores for s in measured])
    return summary


def print_report(report: dict[str, Any]) -> None:
    machine, config, summary = report["machine"], report["config"], report["summary"]
    print()
    print(
        "Java kafka-clients 4.3 perf producer; idempotent, acks=all, max.in.flight 5, 1 KiB records, "
        f"{batches_label(config.get('batch_size'))}, {partitions_label(config.get('partitions', 1))}"
    )
    print(
        f"machine: {machine['cores']} cores, {machine['cpu_model']}, {machine['memory_gib']} GiB, "
        f"Linux {machine['kernel']}"
    )
    print(f"python:  {machine['python']} (Moldau)   java: {machine['java']} (client)")
    print(f"load average before: {report['load_before']}   after: {report['load_after']}")
    print(
        f"rounds:  median of {config['rounds']} measured, after {config['warmup_rounds']} warm-up round(s) "
        f"discarded; {config['records']:,} records per phase"
    )
    print("RF 3: three broker subprocesses and ZooKeeper on this machine, min.insync.replicas=2")
    print("CPU s/GB: user + system time of every broker of the setup, per GiB of record values")
    print("each cell: median, min-max, (max-min)/median; ! marks a spread over 15%")
    print()
    head = f"{'setup':<16} {'MB/s':>8} {'min-max':^17} {'spread':>7} "
    head += f"{'p99 ms':>8} {'min-max':^17} {'spread':>7} {'CPU s/GB':>8} {'min-max':^17} {'spread':>7}"
    print(head)
    print("-" * len(head))
    for name in SETUPS:
        entry = summary[name]
        print(
            f"{name:<16} {_cell(entry['mb_per_sec'], ',.1f')} {_cell(entry['p99_ms'], ',.0f')} "
            f"{_cell(entry['cpu_seconds_per_gb'], ',.2f')}"
        )
    ratio = summary["ratio"]
    paired = ratio["mb_per_sec_paired_by_round"]
    print()
    print(
        f"RF3/RF1 throughput: {ratio['mb_per_sec_of_medians']:.2f} of the medians "
        f"(by round {paired['min']:.2f}-{paired['max']:.2f}); target 0.40 or more: "
        f"{'met' if ratio['mb_per_sec_of_medians'] >= 0.40 else 'NOT met'}"
    )
    print(f"RF3/RF1 broker CPU per GB: {ratio['cpu_seconds_per_gb_of_medians']:.2f}")
    leader = summary[RF3]["leader_cpu_seconds_per_gb"]["median"]
    print(
        f"RF 3 CPU s/GB (medians): the leader {leader:.2f}, "
        f"the two followers {summary[RF3]['cpu_seconds_per_gb']['median'] - leader:.2f} together"
    )
    others = summary["others_cores"]
    print(
        f"other processes during the measured phases: median {others['median']:.2f} cores "
        f"(max {others['max']:.2f})"
    )
    if others["max"] > 0.25:
        print("the machine was not quiet: these figures are not for publishing")


def compare(report: dict[str, Any], earlier: dict[str, Any], tolerance_pct: float) -> bool:
    """Each median and the ratio against an earlier run's; True when all are within tolerance."""
    print(f"\nagainst the earlier run (within {tolerance_pct:g}%?)")
    if report["config"].get("batch_size") != earlier["config"].get("batch_size"):
        print("  (the two runs used different batches: not the same measurement)")
    if report["config"].get("partitions", 1) != earlier["config"].get("partitions", 1):
        print("  (the two runs used different partition counts: not the same measurement)")
    rows = [
        (
            f"{name} {metric}",
            report["summary"][name][metric]["median"],
            earlier["summary"][name][metric]["median"],
        )
        for name in SETUPS
        for metric in ("mb_per_sec", "p99_ms", "cpu_seconds_per_gb")
    ]
    rows.append(
        (
            "RF3/RF1 MB/s",
            report["summary"]["ratio"]["mb_per_sec_of_medians"],
            earlier["summary"]["ratio"]["mb_per_sec_of_medians"],
        )
    )
    all_ok = True
    for label, now, before in rows:
        dev = 100.0 * (now / before - 1) if before else float("inf")
        ok = abs(dev) <= tolerance_pct
        all_ok &= ok
        print(
            f"  {label:<34} {before:>9,.2f} -> {now:>9,.2f} {dev:+6.1f}% {'ok' if ok else 'NOT REPRODUCED'}"
        )
    return all_ok


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5, help="measured rounds (default 5)")
    ap.add_argument("--warmup-rounds", type=int, default=1, help="discarded rounds at 1/5 of the records")
    ap.add_argument("--records", type=int, default=150_000, help="1 KiB records per phase (default 150,000)")
    ap.add_argument(
        "--batch-size",
        type=int,
        help="the producer's batch.size, with linger.ms 10 (default: the client's, 16384 and 5 ms); "
        "262144 is broker_bench.py's large batches",
    )
    ap.add_argument(
        "--partitions",
        type=int,
        default=1,
        help="partitions of the measured topic in both setups (default 1; RF 3 spreads their leaders "
        "over the three brokers as Kafka's assignment does)",
    )
    ap.add_argument("--json", type=Path, help="also write every sample and the summary to this file")
    ap.add_argument("--compare", type=Path, help="an earlier --json file: is each median within tolerance?")
    ap.add_argument("--tolerance", type=float, default=15.0, help="for --compare, in %% (default 15)")
    ap.add_argument(
        "--profile", type=Path, help="py-spy every broker in the measured phases; stacks go to this directory"
    )
    ap.add_argument(
        "--cpu-profile",
        type=Path,
        help="every broker samples its stacks by CPU time in the measured phases (bench/cpu_sampler)",
    )
    args = ap.parse_args(argv)
    if args.cpu_profile is not None:
        enable_cpu_sampler(args.cpu_profile)
    if args.rounds < 1 or args.warmup_rounds < 0 or args.records < 1 or args.partitions < 1:
        ap.error("--rounds, --records and --partitions must be >= 1, --warmup-rounds >= 0")
    if args.batch_size is not None and args.batch_size < RECORD_SIZE + 100:
        ap.error(f"--batch-size must hold a record: at least {RECORD_SIZE + 100}")
    missing = zookeeper_available()
    if missing:
        print(f"cannot run: {missing}", file=sys.stderr)
        return 2

    base = prepare()
    runtime = PerfJavaRuntime(**{f.name: getattr(base, f.name) for f in dataclasses.fields(base)})
    machine = machine_info(runtime, None)
    load_before = load_average()
    started = time.monotonic()
    samples = run_rounds(args, runtime, find_jcmd(runtime.java))
    report = {
        "machine": machine,
        "config": {
            "rounds": args.rounds,
            "warmup_rounds": args.warmup_rounds,
            "records": args.records,
            "record_size": RECORD_SIZE,
            "batch_size": args.batch_size,
            "partitions": args.partitions,
            "rf3_topic_configs": RF3_TOPIC_CONFIGS,
        },
        "load_before": load_before,
        "load_after": load_average(),
        "duration_seconds": round(time.monotonic() - started, 1),
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
