#!/usr/bin/env python3
"""One broker with many partitions (default 10,000 over 100 topics) and many producers.

Phases, against a broker subprocess (``tests/support/broker_process.py``) on a fresh log dir:

1. create the topics (CreateTopics, 10 topics a request); file descriptors per partition
   and resident memory per idle partition, from ``/proc/<pid>/fd`` and ``/proc/<pid>/status``
   (growth over the broker before the topics, divided by the partitions);
2. Metadata for all topics (v12, one connection, back to back), right after the last restart:
   the first answer (which encodes every topic's entry) and the median and spread of the others;
3. restart after a clean shutdown, ``--rounds`` times: the time from spawning the process to
   its "broker N started" line (the listener is open then), and the log manager's own
   "loaded ... in N ms"; then checks that every partition is served (ListOffsets of all of
   them, one request per topic) and reports descriptors and memory again;
4. per-batch produce cost with the records spread over 10, 1,000 and 10,000 partitions
   (``--spread``): one connection sends acks=1 Produce requests of one 1 KiB-record batch,
   partition after partition; the broker's CPU time (user+system, ``/proc/<pid>/stat``) per
   batch and the client's round trip, medians over the rounds;
5. ``--producers`` (default 500) idempotent aiokafka producers in one process, each sending
   ``--sends`` records with ``send_and_wait`` to partitions of the topics: each request's
   latency as the producer sees it, p50/p99/max (the client process's own load included),
   the broker's CPU share meanwhile, and the broker's own Produce times (p50/p99 as the
   upper bounds of its TotalTimeMs histogram buckets, from its Prometheus endpoint).

Every figure is printed; medians are over ``--rounds`` rounds (their spread is printed). The
machine's load average is printed with them: on a shared machine compare runs, never trust
one. Usage::

    python bench/scale_bench.py                     # everything, about 3-6 minutes
    python bench/scale_bench.py --topics 10 --partitions 1000 --producers 50   # smoke
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from protocol.messages import (  # noqa: E402
    CreateTopicsRequest,
    ListOffsetsRequest,
    MetadataRequest,
    MetadataResponse,
    ProduceRequest,
)
from protocol.records import build_batch  # noqa: E402
from tests.support.broker_process import BrokerProcess  # noqa: E402
from tests.support.wire_client import WireClient  # noqa: E402

CLK_TCK = os.sysconf("SC_CLK_TCK")


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime + stime


def spread(values: list[float]) -> str:
    med = statistics.median(values)
    return f"median {med:.3g} (min {min(values):.3g}, max {max(values):.3g}, n={len(values)})"


def p99(values: list[float]) -> float:
    if len(values) < 2:
        return max(values, default=0.0)
    return statistics.quantiles(values, n=100)[98]


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def topic_names(topics: int) -> list[str]:
    return [f"scale-{i:03d}" for i in range(topics)]


def create_topics(client: WireClient, names: list[str], per_topic: int) -> float:
    started = time.monotonic()
    for i in range(0, len(names), 10):
        request = CreateTopicsRequest(
            topics=[
                CreateTopicsRequest.CreatableTopic(name=n, num_partitions=per_topic, replication_factor=1)
                for n in names[i : i + 10]
            ],
            timeout_ms=600_000,
        )
        for t in client.request(request, 7).topics:
            if t.error_code:
                raise SystemExit(f"creating {t.name}: error {t.error_code} {t.error_message}")
    return time.monotonic() - started


def metadata_rounds(client: WireClient, rounds: int) -> tuple[list[float], int]:
    """Round trips of Metadata (all topics, v12) up to the answer's last byte; the answer is
    decoded once, after the timing (decoding 10,000 partitions in Python is the client's
    cost, not the broker's)."""
    times = []
    frame = b""
    for _ in range(rounds):
        request = client.encode_request(MetadataRequest(topics=None), 12)
        started = time.perf_counter()
        client.send_frame(request)
        frame = client.recv_frame()
        times.append(time.perf_counter() - started)
    answer = MetadataResponse.decode(frame, 12, 5)
    return times, sum(len(t.partitions) for t in answer.topics if not t.is_internal)


def check_served(client: WireClient, names: list[str], per_topic: int) -> int:
    """ListOffsets (latest) of every partition; the count answered without error."""
    served = 0
    for name in names:
        request = ListOffsetsRequest(
            replica_id=-1,
            isolation_level=0,
            topics=[
                ListOffsetsRequest.ListOffsetsTopic(
                    name=name,
                    partitions=[
                        ListOffsetsRequest.ListOffsetsPartition(partition_index=p, timestamp=-1)
                        for p in range(per_topic)
                    ],
                )
            ],
        )
        for t in client.request(request, 7).topics:
            served += sum(1 for p in t.partitions if p.error_code == 0)
    return served


def restart_rounds(broker: BrokerProcess, rounds: int) -> tuple[list[float], list[float], list[float]]:
    """Per round: seconds to "started", the log manager's loading time, and the broker's
    CPU seconds (user+system) until "started", which the machine's load inflates less."""
    starts, loads, cpus = [], [], []
    for _ in range(rounds):
        broker.stop(300)
        started = time.monotonic()
        broker.start(300)
        starts.append(time.monotonic() - started)
        cpus.append(cpu_seconds(broker.proc.pid))
        loaded = [m for line in broker.lines if (m := re.search(r"partition logs .* in (\d+) ms", line))]
        if loaded:
            loads.append(int(loaded[-1].group(1)) / 1000)
    return starts, loads, cpus


def produce_cost(broker: BrokerProcess, names: list[str], per_topic: int, spread_over: int, batches: int):
    """(broker CPU µs per batch, client round trip µs median) over ``batches`` Produce requests."""
    value = b"v" * 1024
    batch = build_batch([(None, value)])
    targets = [(names[(i // per_topic) % len(names)], i % per_topic) for i in range(spread_over)]
    requests = [
        ProduceRequest(
            acks=1,
            timeout_ms=30_000,
            topic_data=[
                ProduceRequest.TopicProduceData(
                    name=topic, partition_data=[ProduceRequest.PartitionProduceData(index=p, records=batch)]
                )
            ],
        )
        for topic, p in targets
    ]
    pid = broker.proc.pid
    with WireClient(broker.host, broker.port, timeout=60) as client:
        encoded = [client.encode_request(r, 9) for r in requests]
        for frame in encoded[: min(50, len(encoded))]:  # warm up the connection
            client.send_frame(frame)
            client.recv(0, 9)
        trips = []
        cpu_before = cpu_seconds(pid)
        for i in range(batches):
            started = time.perf_counter()
            client.send_frame(encoded[i % len(encoded)])
            client.recv(0, 9)
            trips.append(time.perf_counter() - started)
        cpu = cpu_seconds(pid) - cpu_before
    return cpu / batches * 1e6, statistics.median(trips) * 1e6


async def many_producers(
    bootstrap: str, broker_pid: int, names: list[str], per_topic: int, producers: int, sends: int
):
    from aiokafka import AIOKafkaProducer

    clients = [
        AIOKafkaProducer(bootstrap_servers=bootstrap, enable_idempotence=True, acks="all", linger_ms=0)
        for _ in range(producers)
    ]
    started = time.monotonic()
    for i in range(0, producers, 50):
        await asyncio.gather(*(c.start() for c in clients[i : i + 50]))
    start_s = time.monotonic() - started
    latencies: list[float] = []

    async def run(n: int, client) -> None:
        topic = names[n % len(names)]
        for k in range(sends):
            t0 = time.perf_counter()
            await client.send_and_wait(topic, b"x" * 100, partition=(n + k) % per_topic)
            latencies.append(time.perf_counter() - t0)

    started = time.monotonic()
    cpu_before = cpu_seconds(broker_pid)
    await asyncio.gather(*(run(n, c) for n, c in enumerate(clients)))
    elapsed = time.monotonic() - started
    broker_cpu = cpu_seconds(broker_pid) - cpu_before
    await asyncio.gather(*(c.stop() for c in clients))
    return start_s, elapsed, latencies, broker_cpu


def produce_time_buckets(port: int) -> dict[float, float]:
    """The broker's own Produce TotalTimeMs histogram (cumulative counts by upper bound, ms),
    from its Prometheus endpoint."""
    import urllib.request

    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30).read().decode()
    out: dict[float, float] = {}
    for line in text.splitlines():
        if line.startswith("kafka_network_requestmetrics_totaltimems_bucket") and 'request="Produce"' in line:
            le = re.search(r'le="([^"]+)"', line)
            if le:
                out[float(le.group(1))] = float(line.rsplit(" ", 1)[1])
    return out


def bucket_quantile(before: dict[float, float], after: dict[float, float], q: float) -> float:
    """The upper bound of the bucket holding quantile ``q`` of the observations in between."""
    bounds = sorted(after)
    total = after[bounds[-1]] - before.get(bounds[-1], 0)
    for bound in bounds:
        if after[bound] - before.get(bound, 0) >= q * total:
            return bound
    return float("inf")


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument(
        "--partitions", type=int, default=10_000, help="in all, spread evenly over the topics"
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--spread", default="10,1000,10000", help='partition counts for the produce cost ("" for none)'
    )
    parser.add_argument("--batches", type=int, default=3000, help="Produce requests per produce-cost round")
    parser.add_argument("--producers", type=int, default=500)
    parser.add_argument("--sends", type=int, default=20, help="records per producer (one request each)")
    parser.add_argument("--dir", type=Path, help="log dir parent (default: a temporary directory)")
    args = parser.parse_args()
    per_topic = args.partitions // args.topics
    total = per_topic * args.topics
    names = topic_names(args.topics)
    print(
        f"{total} partitions ({args.topics} topics x {per_topic}); load average {load()}; {os.cpu_count()} cpus"
    )

    with tempfile.TemporaryDirectory(prefix="moldau-scale-", dir=args.dir) as tmp:
        metrics_port = free_port()
        broker = BrokerProcess(
            Path(tmp) / "data", {"num.partitions": "1", "metrics.prometheus.port": str(metrics_port)}
        )
        broker.start(300)
        try:
            pid = broker.proc.pid
            with WireClient(broker.host, broker.port, timeout=600) as client:
                client.request(MetadataRequest(topics=None), 12)
                base_fds, base_rss = fds(pid), rss_kib(pid)
                created = create_topics(client, names, per_topic)
                print(f"create: {created:.1f} s for {total} partitions")
                print(
                    f"after creation: {(fds(pid) - base_fds) / total:.2f} file descriptors and "
                    f"{(rss_kib(pid) - base_rss) / total:.1f} KiB resident memory per partition"
                )
            starts, loads, cpus = restart_rounds(broker, args.rounds)
            print(
                f"restart after a clean shutdown, s: {spread(starts)}; log loading, s: {spread(loads)}; "
                f"broker CPU until started, s: {spread(cpus)}"
            )
            pid = broker.proc.pid
            with WireClient(broker.host, broker.port, timeout=600) as client:
                times, answered = metadata_rounds(client, 1 + 10 * args.rounds)
                ms = [t * 1000 for t in times]
                print(
                    f"Metadata, all topics ({answered} partitions), round trip to the last byte, ms: "
                    f"first after start {ms[0]:.1f} (encodes every topic's entry), then {spread(ms[1:])}"
                )
                served = check_served(client, names, per_topic)
                print(f"partitions served after the restart: {served} of {total}")
                idle_fds, idle_rss = fds(pid), rss_kib(pid)
            # Against a broker with no topic at all, for the per-partition figures.
            with tempfile.TemporaryDirectory(prefix="moldau-scale-empty-", dir=args.dir) as empty_dir:
                empty = BrokerProcess(Path(empty_dir) / "data")
                empty.start(60)
                try:
                    with WireClient(empty.host, empty.port) as c:
                        c.request(MetadataRequest(topics=None), 12)
                    empty_fds, empty_rss = fds(empty.proc.pid), rss_kib(empty.proc.pid)
                finally:
                    empty.stop()
            print(
                f"idle after restart: {(idle_fds - empty_fds) / total:.2f} file descriptors and "
                f"{(idle_rss - empty_rss) / total:.1f} KiB resident memory per partition "
                f"({idle_fds} descriptors, {idle_rss / 1024:.0f} MiB in all)"
            )
            for spread_over in (int(s) for s in args.spread.split(",") if s):
                spread_over = min(spread_over, total)
                cpu, trip = [], []
                for _ in range(args.rounds):
                    c, t = produce_cost(broker, names, per_topic, spread_over, args.batches)
                    cpu.append(c)
                    trip.append(t)
                print(
                    f"produce over {spread_over:>5} partitions: broker CPU per batch, µs: {spread(cpu)}; "
                    f"round trip, µs: {spread(trip)}"
                )
            if args.producers:
                buckets_before = produce_time_buckets(metrics_port)
                start_s, elapsed, lat, broker_cpu = asyncio.run(
                    many_producers(
                        broker.bootstrap, broker.proc.pid, names, per_topic, args.producers, args.sends
                    )
                )
                ms = [x * 1000 for x in lat]
                print(
                    f"{args.producers} idempotent producers (aiokafka, one process): started in {start_s:.1f} s; "
                    f"{len(lat)} sends in {elapsed:.1f} s, broker CPU {broker_cpu:.1f} s "
                    f"({broker_cpu / max(elapsed, 1e-9) * 100:.0f}% of one core); per-send latency ms "
                    f"p50 {statistics.median(ms):.1f}, p99 {p99(ms):.1f}, max {max(ms):.1f}"
                )
                buckets_after = produce_time_buckets(metrics_port)
                print(
                    "  the broker's own Produce time (TotalTimeMs histogram, bucket upper bounds), ms: "
                    f"p50 <= {bucket_quantile(buckets_before, buckets_after, 0.5)}, "
                    f"p99 <= {bucket_quantile(buckets_before, buckets_after, 0.99)}"
                )
            print(f"load average at the end {load()}")
        finally:
            broker.stop(300)


if __name__ == "__main__":
    main()
