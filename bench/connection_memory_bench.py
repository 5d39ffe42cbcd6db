#!/usr/bin/env python3
"""Broker memory under many connections and slow big frames.

Starts a Moldau broker subprocess on 127.0.0.1 and prints its resident memory
(VmRSS from /proc/<pid>/status):

- baseline: the idle broker;
- (a) with N idle connections (default 2,000), each of which has made one
  ApiVersions round trip and then sends nothing;
- (b) with M connections (default 20) that each declare a 100,000,000-byte
  frame (``socket.request.max.bytes`` raised to match) and trickle its bytes
  slowly (a slice every 0.25 s), while another client makes ApiVersions round
  trips (median and slowest printed).

Target: (a) and (b) each under baseline + 100 MB.

File descriptors: the bench raises its soft RLIMIT_NOFILE to the hard limit
before starting the broker, which inherits it; with a hard limit below
N + 100 it says so and lowers N. Only 127.0.0.1 is used. The run stops by
itself: every phase has a fixed length and every socket a timeout.

Usage: python bench/connection_memory_bench.py [--idle N] [--trickle M] [--seconds S]
"""

from __future__ import annotations

import argparse
import contextlib
import resource
import socket
import statistics
import struct
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from protocol.headers import RequestHeader, encode_request_header  # noqa: E402
from protocol.messages import ApiVersionsRequest  # noqa: E402
from tests.support.broker_process import BrokerProcess  # noqa: E402

MB = 1_000_000
BIG_FRAME = 100_000_000
_SIZE = struct.Struct(">i")


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def api_versions_frame(correlation_id: int) -> bytes:
    w = bytearray()
    encode_request_header(w, RequestHeader(18, 0, correlation_id, "bench", 1))
    ApiVersionsRequest().write(w, 0)
    return _SIZE.pack(len(w)) + bytes(w)


def recv_exact(sock: socket.socket, n: int) -> bytes:
    chunks = []
    while n:
        chunk = sock.recv(n)
        if not chunk:
            raise ConnectionError("closed by the broker")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def round_trip(sock: socket.socket, correlation_id: int) -> None:
    sock.sendall(api_versions_frame(correlation_id))
    (size,) = _SIZE.unpack(recv_exact(sock, 4))
    body = recv_exact(sock, size)
    assert _SIZE.unpack_from(body, 0)[0] == correlation_id


def raise_fd_limit(wanted: int) -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else max(soft, wanted)
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        print(f"RLIMIT_NOFILE soft limit raised from {soft} to {target} (inherited by the broker)")
    return target


def idle_connections(broker: BrokerProcess, n: int) -> list[socket.socket]:
    socks = []
    for i in range(n):
        s = socket.create_connection((broker.host, broker.port), timeout=30)
        round_trip(s, i + 1)
        socks.append(s)
    return socks


def trickle(broker: BrokerProcess, m: int, seconds: float) -> tuple[int, list[float], int]:
    """M connections trickling 100 MB frames; returns (peak RSS KiB, round trips of
    another client in s, bytes sent)."""
    pid = broker.proc.pid
    socks = []
    for _ in range(m):
        s = socket.create_connection((broker.host, broker.port), timeout=30)
        s.setblocking(False)
        s.send(_SIZE.pack(BIG_FRAME))
        socks.append(s)
    other = socket.create_connection((broker.host, broker.port), timeout=30)
    piece = b"\x00" * 50_000
    sent = 0
    peak = 0
    times: list[float] = []
    deadline = time.monotonic() + seconds
    corr = 0
    while time.monotonic() < deadline:
        for s in socks:
            # BlockingIOError: a connection the broker does not read now (pool full).
            with contextlib.suppress(BlockingIOError):
                sent += s.send(piece)
        corr += 1
        t0 = time.monotonic()
        round_trip(other, corr)
        times.append(time.monotonic() - t0)
        peak = max(peak, rss_kib(pid))
        time.sleep(0.25)
    for s in socks:
        s.close()
    other.close()
    return peak, times, sent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--idle", type=int, default=2000)
    ap.add_argument("--trickle", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=10.0)
    args = ap.parse_args()

    limit = raise_fd_limit(args.idle + 200)
    if limit < args.idle + 100:
        args.idle = max(0, limit - 100)
        print(f"RLIMIT_NOFILE hard limit {limit}: idle connections lowered to {args.idle}")

    with tempfile.TemporaryDirectory(prefix="moldau-conn-bench-") as tmp:
        broker = BrokerProcess(Path(tmp) / "data", {"socket.request.max.bytes": str(BIG_FRAME)})
        broker.start()
        try:
            pid = broker.proc.pid
            warm = socket.create_connection((broker.host, broker.port), timeout=30)
            round_trip(warm, 1)
            warm.close()
            time.sleep(0.5)
            baseline = rss_kib(pid)
            print(f"\nbaseline, idle broker:                      {baseline / 1024:8.1f} MiB RSS")

            socks = idle_connections(broker, args.idle)
            time.sleep(0.5)
            with_idle = rss_kib(pid)
            print(
                f"(a) {args.idle:>5} idle connections:              {with_idle / 1024:8.1f} MiB RSS"
                f"  (+{(with_idle - baseline) / 1024:.1f} MiB,"
                f" {(with_idle - baseline) * 1024 / max(args.idle, 1):,.0f} B per connection)"
            )
            for s in socks:
                s.close()
            time.sleep(0.5)

            before = rss_kib(pid)
            peak, times, sent = trickle(broker, args.trickle, args.seconds)
            print(
                f"(b) {args.trickle:>5} x 100 MB frames, trickled:      {peak / 1024:8.1f} MiB RSS peak"
                f"  (+{(peak - before) / 1024:.1f} MiB; {sent / MB:.1f} MB sent in {args.seconds:.0f} s;"
                f" another client's ApiVersions: median {statistics.median(times) * 1000:.1f} ms,"
                f" slowest {max(times) * 1000:.1f} ms)"
            )
        finally:
            broker.stop()
    ok = with_idle - baseline < 100 * 1024 and peak - before < 100 * 1024
    print(f"\ntarget (each under baseline + 100 MB): {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
