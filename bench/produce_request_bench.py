#!/usr/bin/env python3
"""Broker CPU per Produce request: a raw-socket producer sending pre-built frames.

The Java client's own CPU and batching make its figures move; this driver costs little and
sends the same request again and again, so the broker's CPU per request is what it measures.
Per workload a fresh broker (``python -m broker`` from ``--tree``, a fresh log dir) gets a
topic of one partition (replication factor 1), an idempotent producer id (InitProducerId),
and ``--requests`` Produce v9 requests of one batch of 1 KiB records (or ``--record-size``),
``--in-flight`` at a time on one connection: each batch carries the next base sequence and
its CRC-32C is recomputed, so every request is a fresh append that passes the broker's
idempotence checks (a repeated sequence would be answered as a duplicate without an append).
Every answer is checked (error code 0, the expected base offset).

Figures: the broker process's CPU (user + system, /proc/<pid>/stat, all its threads) from
the first measured request to the last answer, per request (microseconds) and per GiB of
batch bytes; of it the user time (the interpreter: the kernel's share moves much more from
run to run); the times the brokers went to sleep waiting for work (voluntary context
switches, /proc/<pid>/task/*/status), per request: each is a wake-up, which on a virtual
machine costs far more than the system call that caused it (bench/kernel_floor_bench.py's
round trips); wall time is printed too but means little on a shared machine.

``--replicas 3``: the same against three brokers (``python -m broker`` each, a ZooKeeper
started by the bench) and a topic of replication factor 3 with ``min.insync.replicas`` 2, the
requests sent to its leader once every replica is in the ISR: the CPU is then that of all
three brokers (the leader's share printed too), so with acks -1 it is the whole replication
path's cost per produced batch, without a client's CPU to share the cores with.

To compare two trees, give several ``--tree``: each trial runs every tree once per workload,
in an order alternating by trial, and the report gives the median of the trials per tree.

Usage: python bench/produce_request_bench.py [--tree DIR ...] [--trials N] [--requests N]
       [--frames 16384,262144] [--acks 1,-1] [--replicas N] [--profile DIR] [--cpu-profile DIR]
``--profile DIR`` runs py-spy (next to the interpreter) on the broker during each measured
phase and writes collapsed stacks (py-spy raw format) there; ``--cpu-profile DIR`` has every
broker sample its own stacks by CPU time (bench/cpu_sampler; read them with
bench/cpu_sampler/top.py). Its attribution of system calls is rough (the signal is taken at
the kernel's tick): the brokers' user and system times (/proc/<pid>/stat) say how much is
the kernel's.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from broker_bench import process_cpu_times  # noqa: E402

from broker.testing.zookeeper import ZooKeeperProcess  # noqa: E402
from protocol.headers import RequestHeader, encode_request_header, request_header_version  # noqa: E402
from protocol.messages import (  # noqa: E402
    RESPONSES,
    CreateTopicsRequest,
    InitProducerIdRequest,
    MetadataRequest,
    ProduceRequest,
)
from protocol.record_batch import compute_crc  # noqa: E402
from protocol.records import build_batch  # noqa: E402

PRODUCE_VERSION = 9
_SIZE = struct.Struct(">i")
_SEQUENCE = struct.Struct(">i")
_CRC = struct.Struct(">I")
BASE_SEQUENCE_AT = 53  # in a RecordBatch v2 (protocol/record_batch.py)
CRC_AT = 17
ATTRIBUTES_AT = 21  # the CRC covers the batch from its attributes on


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


CPU_SAMPLER = ROOT / "bench" / "cpu_sampler"  # its sitecustomize samples a broker's CPU time


def broker_env(tree: Path) -> dict[str, str]:
    """A broker's environment: ``tree`` on the path, and the CPU sampler with ``--cpu-profile``
    (MOLDAU_CPU_SAMPLER_DIR set in this process)."""
    path = [str(tree)]
    if os.environ.get("MOLDAU_CPU_SAMPLER_DIR"):
        path.append(str(CPU_SAMPLER))
    return dict(os.environ, PYTHONPATH=os.pathsep.join(path), MOLDAU_LOG_LEVEL="WARNING")


def cpu_profile_signal(pids: Iterable[int], sig: signal.Signals) -> bool:
    """With ``--cpu-profile``: SIGUSR1 starts each broker's CPU sampler, SIGUSR2 stops it
    (it then writes ``<pid>.txt``); False when not profiling."""
    if not os.environ.get("MOLDAU_CPU_SAMPLER_DIR"):
        return False
    for pid in pids:
        os.kill(pid, sig)
    return True


def collect_cpu_profiles(brokers: dict[int, tuple[int, int]], leader: int, label: str) -> None:
    """The samplers' files renamed ``<label>-broker-<id>[-leader].txt`` (collapsed stacks)."""
    directory = Path(os.environ["MOLDAU_CPU_SAMPLER_DIR"])
    deadline = time.monotonic() + 30
    for broker_id, (pid, _) in brokers.items():
        written = directory / f"{pid}.txt"
        while not written.exists() and time.monotonic() < deadline:
            time.sleep(0.05)  # the broker writes it from its signal handler
        role = "-leader" if broker_id == leader else ""
        if written.exists():
            written.replace(directory / f"{label}-broker-{broker_id}{role}.txt")


def start_broker(tree: Path, overrides: dict[str, str], cprofile: Path | None = None) -> subprocess.Popen:
    """``python -m broker`` from ``tree`` with ``overrides`` (under cProfile, writing to ``cprofile``)."""
    cmd = [sys.executable, *(["-m", "cProfile", "-o", str(cprofile)] if cprofile else []), "-m", "broker"]
    for key, value in overrides.items():
        cmd += ["--override", f"{key}={value}"]
    return subprocess.Popen(
        cmd, cwd=tree, env=broker_env(tree), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


@contextlib.contextmanager
def broker(tree: Path, tmp: Path, cprofile: Path | None = None) -> Iterator[tuple[int, int]]:
    """(pid, port) of a fresh broker started from ``tree`` (under cProfile, writing to ``cprofile``)."""
    port = free_port()
    log_dir = tmp / f"log-{time.monotonic_ns()}"
    overrides = {
        "log.dirs": str(log_dir),
        "listeners": f"PLAINTEXT://127.0.0.1:{port}",
        "num.partitions": "1",
    }
    proc = start_broker(tree, overrides, cprofile)
    try:
        _wait_listening(proc, port, tree)
        yield proc.pid, port
    finally:
        proc.terminate()
        proc.wait(30)
        shutil.rmtree(log_dir, ignore_errors=True)


@contextlib.contextmanager
def one_broker(tree: Path, tmp: Path, cprofile: Path | None) -> Iterator[dict[int, tuple[int, int]]]:
    with broker(tree, tmp, cprofile) as (pid, port):
        yield {0: (pid, port)}


@contextlib.contextmanager
def cluster(
    tree: Path, tmp: Path, zookeeper: ZooKeeperProcess, replicas: int, cprofile: Path | None = None
) -> Iterator[dict[int, tuple[int, int]]]:
    """{broker id: (pid, port)} of ``replicas`` fresh brokers from ``tree`` sharing ``zookeeper``
    (a chroot of their own), each registered before this yields; under cProfile with
    ``cprofile``, broker N writing ``<cprofile stem>-broker-N.prof``."""
    chroot = f"/bench-{time.monotonic_ns()}"
    procs: dict[int, tuple[subprocess.Popen, int]] = {}
    log_dirs = []
    try:
        for broker_id in range(replicas):
            port = free_port()
            log_dir = tmp / f"log-{time.monotonic_ns()}-{broker_id}"
            log_dirs.append(log_dir)
            overrides = {
                "broker.id": str(broker_id),
                "log.dirs": str(log_dir),
                "listeners": f"PLAINTEXT://127.0.0.1:{port}",
                "zookeeper.connect": zookeeper.connect(chroot),
                "controlled.shutdown.max.retries": "1",
            }
            stats = cprofile.with_name(f"{cprofile.stem}-broker-{broker_id}.prof") if cprofile else None
            procs[broker_id] = (start_broker(tree, overrides, stats), port)
        for proc, port in procs.values():
            _wait_listening(proc, port, tree)
        yield {broker_id: (proc.pid, port) for broker_id, (proc, port) in procs.items()}
    finally:
        for proc, _ in procs.values():
            proc.terminate()
        for proc, _ in procs.values():
            proc.wait(60)
        for log_dir in log_dirs:
            shutil.rmtree(log_dir, ignore_errors=True)


def _wait_listening(proc: subprocess.Popen, port: int, tree: Path) -> None:
    deadline = time.monotonic() + 60
    while True:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"broker from {tree} did not start ({proc.returncode})")
        time.sleep(0.1)  # polling a port with a deadline


class Connection:
    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.correlation = 0

    def frame(self, request: object, version: int) -> bytes:
        self.correlation += 1
        key = request.API_KEY  # type: ignore[attr-defined]
        w = bytearray()
        header = RequestHeader(key, version, self.correlation, "bench", request_header_version(key, version))
        encode_request_header(w, header)
        request.write(w, version)  # type: ignore[attr-defined]
        return _SIZE.pack(len(w)) + bytes(w)

    def recv_exact(self, size: int) -> bytes:
        chunks = bytearray()
        while len(chunks) < size:
            got = self.sock.recv(size - len(chunks))
            if not got:
                raise ConnectionError("broker closed the connection")
            chunks += got
        return bytes(chunks)

    def recv_frame(self) -> bytes:
        return self.recv_exact(_SIZE.unpack(self.recv_exact(4))[0])

    def request(self, request: object, version: int) -> object:
        self.sock.sendall(self.frame(request, version))
        frame = self.recv_frame()
        key = request.API_KEY  # type: ignore[attr-defined]
        flexible = version >= RESPONSES[key].FLEXIBLE_VERSIONS[0]
        return RESPONSES[key].decode(frame, version, 5 if flexible else 4)


def batch_of(frame_size: int, record_size: int) -> tuple[int, bytes]:
    """(record count, a batch template) of as many records as fit in ``frame_size`` bytes."""
    value = os.urandom(record_size)
    count = 1
    while (
        len(build_batch([(None, value)] * (count + 1), producer_id=0, producer_epoch=0, base_sequence=0))
        <= frame_size
    ):
        count += 1
    return count, build_batch([(None, value)] * count, producer_id=0, producer_epoch=0, base_sequence=0)


@dataclass
class Result:
    cpu_us_per_request: float
    cpu_s_per_gib: float
    wall_us_per_request: float
    leader_cpu_us_per_request: float  # the partition leader's share (all of it with one broker)
    user_us_per_request: float  # of cpu_us_per_request, the user time (all brokers)
    sleeps_per_request: float  # voluntary context switches of all brokers


def voluntary_switches(pid: int) -> int:
    """How often the process's threads went to sleep (blocked waiting) since they started."""
    total = 0
    for status in Path(f"/proc/{pid}/task").glob("*/status"):
        with contextlib.suppress(OSError):  # a thread that ended meanwhile
            for line in status.read_text().splitlines():
                if line.startswith("voluntary_ctxt_switches:"):
                    total += int(line.split()[1])
    return total


def _controller(brokers: dict[int, tuple[int, int]]) -> int:
    """The controller's id (CreateTopics goes to it), once one is elected."""
    if len(brokers) == 1:
        return next(iter(brokers))
    conn = Connection(next(iter(brokers.values()))[1])
    deadline = time.monotonic() + 60
    try:
        while True:
            answer = conn.request(MetadataRequest(topics=[]), 9)
            if answer.controller_id in brokers:  # type: ignore[attr-defined]
                return answer.controller_id  # type: ignore[attr-defined]
            if time.monotonic() > deadline:
                raise RuntimeError("no controller elected after 60 s")
            time.sleep(0.1)  # polling the metadata with a deadline
    finally:
        conn.sock.close()


def _leader_in_sync(conn: Connection, topic: str, replicas: int) -> int | None:
    """The partition's leader once every replica is in its ISR, else None."""
    answer = conn.request(MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name=topic)]), 9)
    partitions = answer.topics[0].partitions if answer.topics else []  # type: ignore[attr-defined]
    if not partitions or partitions[0].error_code != 0 or len(partitions[0].isr_nodes) < replicas:
        return None
    return partitions[0].leader_id


def run_workload(
    brokers: dict[int, tuple[int, int]],
    *,
    frame_size: int,
    record_size: int,
    acks: int,
    requests: int,
    in_flight: int,
    warmup: int,
    profile: Path | None,
    label: str,
) -> Result:
    """``brokers``: {broker id: (pid, port)}; one broker, or a cluster whose topic gets a
    replica on each (min.insync.replicas 2)."""
    replicas = len(brokers)
    admin = Connection(brokers[_controller(brokers)][1])
    topic = "bench"
    created = admin.request(
        CreateTopicsRequest(
            topics=[
                CreateTopicsRequest.CreatableTopic(
                    name=topic,
                    num_partitions=1,
                    replication_factor=replicas,
                    configs=[CreateTopicsRequest.CreatableTopicConfig(name="min.insync.replicas", value="2")]
                    if replicas > 1
                    else [],
                )
            ],
            timeout_ms=30000,
        ),
        7,
    )
    assert created.topics[0].error_code == 0, created.topics[0]  # type: ignore[attr-defined]
    deadline = time.monotonic() + 60
    while (leader := _leader_in_sync(admin, topic, replicas)) is None:
        if time.monotonic() > deadline:
            raise RuntimeError(f"{topic}: no leader with {replicas} replicas in sync after 60 s")
        time.sleep(0.1)  # polling the ISR (metadata) with a deadline
    admin.sock.close()
    pid, port = brokers[leader]
    # The controller's view names the leader before the leader has its LeaderAndIsr: wait for
    # the leader's own view (its UpdateMetadata follows the LeaderAndIsr) before producing.
    own = Connection(port)
    try:
        while _leader_in_sync(own, topic, replicas) != leader:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{topic}: broker {leader} does not see itself lead after 60 s")
            time.sleep(0.1)  # polling the leader's metadata with a deadline
    finally:
        own.sock.close()
    pids = [p for p, _ in brokers.values()]
    conn = Connection(port)
    init = conn.request(InitProducerIdRequest(transactional_id=None, transaction_timeout_ms=60000), 4)
    assert init.error_code == 0, init  # type: ignore[attr-defined]
    producer_id, producer_epoch = init.producer_id, init.producer_epoch  # type: ignore[attr-defined]

    count, batch = batch_of(frame_size, record_size)
    batch = bytearray(batch)
    struct.pack_into(">qh", batch, 43, producer_id, producer_epoch)
    request = ProduceRequest(
        transactional_id=None,
        acks=acks,
        timeout_ms=30000,
        topic_data=[
            ProduceRequest.TopicProduceData(
                name=topic,
                partition_data=[ProduceRequest.PartitionProduceData(index=0, records=bytes(batch))],
            )
        ],
    )
    template = bytearray(conn.frame(request, PRODUCE_VERSION))
    at = template.find(batch)
    assert at > 0
    size = len(batch)
    response_type = RESPONSES[0]

    sequence = 0
    sent = 0
    answered = 0
    total = warmup + requests

    def send_next() -> None:
        nonlocal sequence, sent
        _SIZE.pack_into(template, 8, sent + 1000)  # the correlation id
        _SEQUENCE.pack_into(template, at + BASE_SEQUENCE_AT, sequence)
        _CRC.pack_into(template, at + CRC_AT, compute_crc(template, at, size))
        conn.sock.sendall(template)
        sequence += count
        sent += 1

    def check(frame: bytes, n: int) -> None:
        (correlation,) = struct.unpack_from(">i", frame, 0)
        assert correlation == n + 1000, (correlation, n)
        if n % 97 == 0 or n == total - 1:
            answer = response_type.decode(frame, PRODUCE_VERSION, 5)
            p = answer.responses[0].partition_responses[0]
            assert p.error_code == 0 and p.base_offset == n * count, (p.error_code, p.base_offset, n)

    for _ in range(in_flight):
        send_next()
    spy = None
    cpu0: dict[int, float] = {}
    wall0 = 0.0
    while answered < total:
        if answered == warmup:
            if profile is not None:
                profile.mkdir(parents=True, exist_ok=True)
                spy = subprocess.Popen(
                    [
                        str(Path(sys.executable).parent / "py-spy"),
                        "record",
                        "--native",
                        "-r",
                        "500",
                        "-f",
                        "raw",
                        "-o",
                        str(profile / f"{label}.txt"),
                        "-p",
                        str(pid),
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                time.sleep(1.0)
            cpu_profile_signal(pids, signal.SIGUSR1)
            cpu0 = {p: process_cpu_times(p) for p in pids}
            sleeps0 = sum(voluntary_switches(p) for p in pids)
            wall0 = time.monotonic()
        check(conn.recv_frame(), answered)
        answered += 1
        if sent < total:
            send_next()
    times = {p: process_cpu_times(p) for p in pids}
    sleeps = sum(voluntary_switches(p) for p in pids) - sleeps0
    used = {p: sum(times[p]) - sum(cpu0[p]) for p in pids}
    user = sum(times[p][0] - cpu0[p][0] for p in pids)
    if cpu_profile_signal(pids, signal.SIGUSR2):
        collect_cpu_profiles(brokers, leader, label)
    wall = time.monotonic() - wall0
    cpu = sum(used.values())
    if spy is not None:
        spy.send_signal(2)
        spy.wait(60)
    conn.sock.close()
    return Result(
        cpu / requests * 1e6,
        cpu / (requests * size) * 2**30,
        wall / requests * 1e6,
        used[pid] / requests * 1e6,
        user / requests * 1e6,
        sleeps / requests,
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tree", action="append", type=Path, help="a source tree to run the broker from")
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--requests", type=int, default=20000, help="measured requests per 16 KiB workload")
    parser.add_argument("--frames", default="16384,262144")
    parser.add_argument("--acks", default="1,-1")
    parser.add_argument("--record-size", type=int, default=1024)
    parser.add_argument("--in-flight", type=int, default=5)
    parser.add_argument(
        "--replicas",
        type=int,
        default=1,
        help="brokers (with a ZooKeeper) and replicas of the topic, min.insync.replicas 2 above 1",
    )
    parser.add_argument("--profile", type=Path)
    parser.add_argument(
        "--cpu-profile",
        type=Path,
        help="each broker samples its stacks by CPU time in the measured requests (bench/cpu_sampler)",
    )
    parser.add_argument(
        "--cprofile",
        type=Path,
        help="run the broker (each broker, with --replicas) under cProfile, its stats files here",
    )
    args = parser.parse_args()
    trees = [t.resolve() for t in (args.tree or [ROOT])]
    if args.cpu_profile is not None:
        args.cpu_profile.mkdir(parents=True, exist_ok=True)
        os.environ["MOLDAU_CPU_SAMPLER_DIR"] = str(args.cpu_profile.resolve())
    frames = [int(f) for f in args.frames.split(",")]
    acks_values = [int(a) for a in args.acks.split(",")]
    results: dict[tuple[str, int, int], list[Result]] = {}
    print(f"load average {os.getloadavg()}", flush=True)
    with contextlib.ExitStack() as stack:
        tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="produce-bench-"))
        zookeeper = None
        if args.replicas > 1:
            zookeeper = ZooKeeperProcess(Path(tmp) / "zookeeper")
            zookeeper.start()
            stack.callback(zookeeper.stop)
        for trial in range(args.trials):
            order = trees if trial % 2 == 0 else trees[::-1]
            for frame_size in frames:
                # The same bytes per workload: fewer requests of larger frames.
                requests = max(500, args.requests * 16384 // frame_size)
                for acks in acks_values:
                    for tree in order:
                        label = f"{tree.name}-{frame_size}-acks{acks}-t{trial}"
                        if args.cprofile is not None:
                            args.cprofile.mkdir(parents=True, exist_ok=True)
                        stats = args.cprofile / f"{label}.prof" if args.cprofile else None
                        starter = (
                            cluster(tree, Path(tmp), zookeeper, args.replicas, stats)
                            if zookeeper is not None
                            else one_broker(tree, Path(tmp), stats)
                        )
                        with starter as running:
                            r = run_workload(
                                running,
                                frame_size=frame_size,
                                record_size=args.record_size,
                                acks=acks,
                                requests=requests,
                                in_flight=args.in_flight,
                                warmup=max(200, requests // 10),
                                profile=args.profile,
                                label=label,
                            )
                        results.setdefault((str(tree), frame_size, acks), []).append(r)
                        print(
                            f"trial {trial} {tree} frame {frame_size} acks {acks}: "
                            f"{r.cpu_us_per_request:.1f} us/request ({r.user_us_per_request:.1f} user), "
                            f"{r.cpu_s_per_gib:.2f} CPU s/GiB, {r.sleeps_per_request:.2f} sleeps/request, "
                            f"wall {r.wall_us_per_request:.1f} us/request"
                            + (
                                f", the leader {r.leader_cpu_us_per_request:.1f} us"
                                if args.replicas > 1
                                else ""
                            ),
                            flush=True,
                        )
    print(f"\nmedians of {args.trials} trials (load average now {os.getloadavg()})")
    print(
        f"{'tree':<40} {'frame':>7} {'acks':>4} {'us/request':>11} {'CPU s/GiB':>10}  range us/request"
        + f"  {'user us':>8}  {'sleeps':>6}"
        + ("  leader us/request" if args.replicas > 1 else "")
    )
    for (tree, frame_size, acks), rs in results.items():
        us = [r.cpu_us_per_request for r in rs]
        gib = [r.cpu_s_per_gib for r in rs]
        leader = statistics.median(r.leader_cpu_us_per_request for r in rs)
        user = statistics.median(r.user_us_per_request for r in rs)
        sleeps = statistics.median(r.sleeps_per_request for r in rs)
        print(
            f"{tree:<40} {frame_size:>7} {acks:>4} {statistics.median(us):>11.1f} "
            f"{statistics.median(gib):>10.2f}  {f'{min(us):.1f}-{max(us):.1f}':<16}"
            + f"  {user:>8.1f}  {sleeps:>6.2f}"
            + (f"  {leader:.1f}" if args.replicas > 1 else "")
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
