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
batch bytes; wall time is printed too but means little on a shared machine.

To compare two trees, give several ``--tree``: each trial runs every tree once per workload,
in an order alternating by trial, and the report gives the median of the trials per tree.

Usage: python bench/produce_request_bench.py [--tree DIR ...] [--trials N] [--requests N]
       [--frames 16384,262144] [--acks 1,-1] [--profile DIR]
``--profile DIR`` runs py-spy (next to the interpreter) on the broker during each measured
phase and writes collapsed stacks (py-spy raw format) there.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from broker_bench import process_cpu_seconds  # noqa: E402

from protocol.headers import RequestHeader, encode_request_header, request_header_version  # noqa: E402
from protocol.messages import RESPONSES, CreateTopicsRequest, InitProducerIdRequest, ProduceRequest  # noqa: E402
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


@contextlib.contextmanager
def broker(tree: Path, tmp: Path, cprofile: Path | None = None) -> Iterator[tuple[int, int]]:
    """(pid, port) of a fresh broker started from ``tree`` (under cProfile, writing to ``cprofile``)."""
    port = free_port()
    log_dir = tmp / f"log-{time.monotonic_ns()}"
    cmd = [sys.executable, *(["-m", "cProfile", "-o", str(cprofile)] if cprofile else []), "-m", "broker"]
    for key, value in {
        "log.dirs": str(log_dir),
        "listeners": f"PLAINTEXT://127.0.0.1:{port}",
        "num.partitions": "1",
    }.items():
        cmd += ["--override", f"{key}={value}"]
    env = dict(os.environ, PYTHONPATH=str(tree), MOLDAU_LOG_LEVEL="WARNING")
    proc = subprocess.Popen(cmd, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"broker from {tree} did not start ({proc.returncode})")
            time.sleep(0.1)
        yield proc.pid, port
    finally:
        proc.terminate()
        proc.wait(30)
        shutil.rmtree(log_dir, ignore_errors=True)


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


def run_workload(
    pid: int,
    port: int,
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
    conn = Connection(port)
    topic = "bench"
    created = conn.request(
        CreateTopicsRequest(
            topics=[CreateTopicsRequest.CreatableTopic(name=topic, num_partitions=1, replication_factor=1)],
            timeout_ms=30000,
        ),
        7,
    )
    assert created.topics[0].error_code == 0, created.topics[0]  # type: ignore[attr-defined]
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
    cpu0 = wall0 = 0.0
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
            cpu0, wall0 = process_cpu_seconds(pid), time.monotonic()
        check(conn.recv_frame(), answered)
        answered += 1
        if sent < total:
            send_next()
    cpu = process_cpu_seconds(pid) - cpu0
    wall = time.monotonic() - wall0
    if spy is not None:
        spy.send_signal(2)
        spy.wait(60)
    conn.sock.close()
    return Result(cpu / requests * 1e6, cpu / (requests * size) * 2**30, wall / requests * 1e6)


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
    parser.add_argument("--profile", type=Path)
    parser.add_argument("--cprofile", type=Path, help="run the broker under cProfile, its stats files here")
    args = parser.parse_args()
    trees = [t.resolve() for t in (args.tree or [ROOT])]
    frames = [int(f) for f in args.frames.split(",")]
    acks_values = [int(a) for a in args.acks.split(",")]
    results: dict[tuple[str, int, int], list[Result]] = {}
    print(f"load average {os.getloadavg()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="produce-bench-") as tmp:
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
                        with broker(tree, Path(tmp), stats) as (pid, port):
                            r = run_workload(
                                pid,
                                port,
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
                            f"{r.cpu_us_per_request:.1f} us/request, {r.cpu_s_per_gib:.2f} CPU s/GiB, "
                            f"wall {r.wall_us_per_request:.1f} us/request",
                            flush=True,
                        )
    print(f"\nmedians of {args.trials} trials (load average now {os.getloadavg()})")
    print(f"{'tree':<40} {'frame':>7} {'acks':>4} {'us/request':>11} {'CPU s/GiB':>10}  range us/request")
    for (tree, frame_size, acks), rs in results.items():
        us = [r.cpu_us_per_request for r in rs]
        gib = [r.cpu_s_per_gib for r in rs]
        print(
            f"{tree:<40} {frame_size:>7} {acks:>4} {statistics.median(us):>11.1f} "
            f"{statistics.median(gib):>10.2f}  {min(us):.1f}-{max(us):.1f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
