#!/usr/bin/env python3
"""Topic creation against a broker subprocess while another client measures Metadata.

For each size (default 100, 1,000 and 2,000 partitions) one connection sends CreateTopics
(waiting for the answer) while a second connection sends Metadata (all topics) back to back;
prints the creation time, the Metadata round trips' count, p99 and max during the creation,
then the broker's file descriptors per partition (from /proc/<pid>/fd) and its resident memory
per idle partition (RSS growth over the partitions created, from /proc/<pid>/status).

The figures depend on the disk (each partition costs several fsyncs) and on the machine's
load: compare runs on one machine, never publish a single run.

Usage: python bench/topic_creation_bench.py [--sizes 100,1000,2000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from protocol.messages import CreateTopicsRequest, MetadataRequest  # noqa: E402
from tests.support.broker_process import BrokerProcess  # noqa: E402
from tests.support.wire_client import WireClient  # noqa: E402


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def _fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def _p99(values: list[float]) -> float:
    if len(values) < 2:
        return max(values, default=0.0)
    return statistics.quantiles(values, n=100)[98]


def _create(client: WireClient, name: str, partitions: int) -> float:
    request = CreateTopicsRequest(
        topics=[
            CreateTopicsRequest.CreatableTopic(name=name, num_partitions=partitions, replication_factor=1)
        ],
        timeout_ms=600_000,
    )
    started = time.monotonic()
    answer = client.request(request, 7)
    elapsed = time.monotonic() - started
    error = answer.topics[0].error_code
    if error:
        raise SystemExit(f"creating {name}: error {error} {answer.topics[0].error_message}")
    return elapsed


def run(sizes: list[int]) -> None:
    with tempfile.TemporaryDirectory(prefix="moldau-topic-bench-") as tmp:
        broker = BrokerProcess(Path(tmp) / "data")
        broker.start()
        try:
            pid = broker.proc.pid
            with (
                WireClient(broker.host, broker.port, timeout=600) as admin,
                WireClient(broker.host, broker.port, timeout=600) as probe,
            ):
                probe.request(MetadataRequest(topics=None), 12)
                base_fds, base_rss = _fds(pid), _rss_kib(pid)
                total = 0
                print(f"{'partitions':>10} {'create s':>9} {'metadata n':>10} {'p99 ms':>8} {'max ms':>8}")
                for size in sizes:
                    done = threading.Event()
                    latencies: list[float] = []

                    def measure(done: threading.Event = done, latencies: list[float] = latencies) -> None:
                        while not done.is_set():
                            started = time.monotonic()
                            probe.request(MetadataRequest(topics=None), 12)
                            latencies.append(time.monotonic() - started)

                    thread = threading.Thread(target=measure)
                    thread.start()
                    try:
                        elapsed = _create(admin, f"bench-{size}", size)
                    finally:
                        done.set()
                        thread.join()
                    total += size
                    print(
                        f"{size:>10} {elapsed:>9.2f} {len(latencies):>10} "
                        f"{_p99(latencies) * 1000:>8.1f} {max(latencies, default=0) * 1000:>8.1f}"
                    )
                fds, rss = _fds(pid), _rss_kib(pid)
                print(
                    f"file descriptors per partition: {(fds - base_fds) / total:.2f} ({fds - base_fds} for {total})"
                )
                print(
                    f"RSS per idle partition: {(rss - base_rss) / total:.1f} KiB ({(rss - base_rss) / 1024:.1f} MiB)"
                )
        finally:
            broker.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000,2000", help="partition counts, comma-separated")
    args = parser.parse_args()
    run([int(s) for s in args.sizes.split(",")])


if __name__ == "__main__":
    main()
