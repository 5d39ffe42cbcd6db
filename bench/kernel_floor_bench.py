#!/usr/bin/env python3
"""The kernel's own CPU per GB for a broker's system calls on this machine: a floor under any
broker's figures in broker_bench.py, whatever language it is written in.

Each workload is a loop doing only the system calls a broker must make, against a peer process
on loopback TCP (forked, so its CPU is not counted), and reports the serving process's user and
system CPU time (``getrusage``) per GiB of payload, median of ``--rounds`` with min-max and
spread. The user time is the loop's own (a few Python lines per call); the system time is the
floor.

- ``fetch, sendfile``: a page-cached file sent in 1 MiB slices with ``os.sendfile``, the way
  Moldau serves a consumer's Fetch (a 1 KiB-record topic, ``max.partition.fetch.bytes`` 1 MiB);
  ``fetch, send``: the same bytes sent from memory with ``send``, for comparison.
- ``produce N KiB``: frames of N KiB (16: the Java client's default ``batch.size``; 256) read
  whole with ``recv_into``, written to a file with ``pwrite`` and answered with a 60-byte frame,
  five in flight (the idempotent producer's ``max.in.flight``): a Produce request's system
  calls without any parsing, validation or bookkeeping. Blocking sockets, so no ``epoll_wait``:
  the broker's own loop pays that too.
- ``produce 16 KiB, bare uvloop server``: the least a pure-Python asyncio broker can do per
  request, user time included: a ``BufferedProtocol`` on uvloop that reads into one buffer,
  takes each whole frame as a view, computes its CRC-32C (as every batch is checked),
  ``pwrite``s it and answers the frames of one read with one write. No request decoding, no
  log, no index, no producer state: the floor under Moldau's produce path in Python.
- ``round trip``: two processes pass a 16 KiB message and a 60-byte answer back and forth
  (one in flight), each side waiting for the other either blocked in ``poll`` (as an event
  loop waits: the kernel puts it to sleep and the other side's write wakes it) or spinning on
  ``poll`` with no timeout for up to 50 us before it blocks. Per round trip: the CPU of one
  side and the wall time. What a wake-up costs on this machine: a replicated produce is a
  chain of them (client, leader, followers, leader, client), and on a virtual machine a
  sleeping CPU is woken by an interrupt the hypervisor delivers.

Usage: python bench/kernel_floor_bench.py [--rounds R] [--gib G] [--trips T]
The file it writes and reads lives in a temporary directory under the working directory (the
disk the broker's ``./data`` is on).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import select
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

GIB = 1 << 30
MIB = 1 << 20
FETCH_SLICE = MIB
ANSWER = b"\x00" * 60
ANSWER_FRAME = len(ANSWER).to_bytes(4, "big") + ANSWER  # a produce answer's size and bytes
IN_FLIGHT = 5
BARE_SERVER = "produce 16 KiB, bare uvloop server"
ROUND_TRIP_MESSAGE = 16 * 1024
ROUND_TRIP_SPIN_S = 50e-6


def _cpu() -> tuple[float, float]:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime, usage.ru_stime


def _peer(body: Callable[[socket.socket], None]) -> tuple[socket.socket, int]:
    """A connected socket whose other end runs ``body`` in a forked process; (socket, pid)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    pid = os.fork()
    if pid == 0:  # the peer: never returns
        code = 0
        try:
            server.close()
            body(socket.create_connection(("127.0.0.1", port)))
        except BaseException:  # reported by the exit status
            code = 1
        os._exit(code)
    conn, _ = server.accept()
    server.close()
    return conn, pid


def _reap(pid: int) -> None:
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError("the peer process failed")


def _drain(sock: socket.socket) -> None:
    """A consumer's socket: read until the other end closes."""
    view = memoryview(bytearray(MIB))
    while sock.recv_into(view):
        pass


def fetch_round(path: Path, size: int, total: int, use_sendfile: bool) -> tuple[float, float]:
    """User and system seconds to send ``total`` bytes of the file in 1 MiB slices."""
    fd = os.open(path, os.O_RDONLY)
    data = memoryview(os.pread(fd, size, 0)) if not use_sendfile else None
    conn, pid = _peer(_drain)
    try:
        out = conn.fileno()
        user0, sys0 = _cpu()
        sent_total = 0
        while sent_total < total:
            position = sent_total % size
            n = min(FETCH_SLICE, size - position, total - sent_total)
            done = 0
            while done < n:
                if data is None:
                    done += os.sendfile(out, fd, position + done, n - done)
                else:
                    done += conn.send(data[position + done : position + n])
            sent_total += n
        user1, sys1 = _cpu()
    finally:
        conn.close()
        os.close(fd)
    _reap(pid)
    return user1 - user0, sys1 - sys0


def _producer(frame_size: int, requests: int) -> Callable[[socket.socket], None]:
    frame = frame_size.to_bytes(4, "big") + os.urandom(frame_size)

    def run(sock: socket.socket) -> None:
        answer = memoryview(bytearray(len(ANSWER_FRAME)))
        sent = answered = 0
        while sent < min(IN_FLIGHT, requests):
            sock.sendall(frame)
            sent += 1
        while answered < requests:
            if not _recv_exactly(sock, answer):
                raise ConnectionError("the broker side closed early")
            answered += 1
            if sent < requests:
                sock.sendall(frame)
                sent += 1
        sock.close()

    return run


def _recv_exactly(sock: socket.socket, view: memoryview) -> bool:
    got = 0
    while got < len(view):
        n = sock.recv_into(view[got:])
        if not n:
            return False
        got += n
    return True


def produce_round(directory: Path, frame_size: int, total: int) -> tuple[float, float]:
    """User and system seconds to take ``total`` bytes of ``frame_size`` frames: recv, pwrite, answer."""
    requests = max(IN_FLIGHT, total // frame_size)
    conn, pid = _peer(_producer(frame_size, requests))
    path = directory / "segment.log"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    head = memoryview(bytearray(4))
    body = memoryview(bytearray(frame_size))
    try:
        user0, sys0 = _cpu()
        position = 0
        for _ in range(requests):
            if not _recv_exactly(conn, head):
                raise ConnectionError("the producer closed early")
            size = int.from_bytes(head, "big")
            if not _recv_exactly(conn, body[:size]):
                raise ConnectionError("the producer closed early")
            position += os.pwrite(fd, body[:size], position)
            conn.sendall(ANSWER_FRAME)
        user1, sys1 = _cpu()
    finally:
        conn.close()
        os.close(fd)
        path.unlink()
    _reap(pid)
    return user1 - user0, sys1 - sys0


class _BareProduceServer(asyncio.BufferedProtocol):
    """The least a Python broker does per produce: frame, CRC-32C, pwrite, answer."""

    def __init__(self, fd: int, requests: int, done: asyncio.Future[None]) -> None:
        import crc32c  # the package Moldau checks batches with

        self._crc = crc32c.crc32c
        self._fd = fd
        self._left = requests
        self._done = done
        self._buf = bytearray(MIB)
        self._view = memoryview(self._buf)
        self._start = self._end = self._position = 0
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def connection_lost(self, exc: Exception | None) -> None:
        if not self._done.done():
            self._done.set_exception(ConnectionError(f"the producer went away: {exc}"))

    def get_buffer(self, sizehint: int) -> memoryview:
        if self._end == len(self._buf):  # keep the unread tail: move it to the front
            n = self._end - self._start
            self._buf[:n] = self._view[self._start : self._end]
            self._start, self._end = 0, n
        return self._view[self._end :]

    def buffer_updated(self, nbytes: int) -> None:
        self._end += nbytes
        view, start, end = self._view, self._start, self._end
        answers = 0
        while end - start >= 4:
            size = int.from_bytes(view[start : start + 4], "big")
            if end - start - 4 < size:
                break
            frame = view[start + 4 : start + 4 + size]
            self._crc(frame)
            self._position += os.pwrite(self._fd, frame, self._position)
            start += 4 + size
            answers += 1
        self._start, self._end = (0, 0) if start == end else (start, end)
        if answers:
            self.transport.write(ANSWER_FRAME * answers)  # type: ignore[union-attr]
            self._left -= answers
            if self._left <= 0 and not self._done.done():
                self._done.set_result(None)


def bare_server_round(directory: Path, frame_size: int, total: int) -> tuple[float, float]:
    """User and system seconds of a uvloop server taking ``total`` bytes of ``frame_size`` frames."""
    import uvloop

    requests = max(IN_FLIGHT, total // frame_size)
    path = directory / "segment.log"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    conn, pid = _peer(_producer(frame_size, requests))
    times: list[tuple[float, float]] = []

    async def serve() -> None:
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        times.append(_cpu())
        transport, _ = await loop.connect_accepted_socket(
            lambda: _BareProduceServer(fd, requests, done), conn
        )
        try:
            await done
        finally:
            times.append(_cpu())
            transport.close()

    try:
        uvloop.run(serve())
    finally:
        os.close(fd)
        path.unlink()
    _reap(pid)
    (user0, sys0), (user1, sys1) = times
    return user1 - user0, sys1 - sys0


def _wait_readable(poller: select.poll, spin_s: float) -> None:
    """Block in ``poll`` until the socket is readable, after spinning up to ``spin_s``."""
    if spin_s:
        end = time.perf_counter() + spin_s
        while time.perf_counter() < end:
            if poller.poll(0):
                return
    poller.poll()


def _poller(sock: socket.socket) -> select.poll:
    """A poll object watching ``sock`` for input; Nagle off, as the broker's sockets."""
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    poller = select.poll()
    poller.register(sock.fileno(), select.POLLIN)
    return poller


def _receive(sock: socket.socket, poller: select.poll, view: memoryview, spin_s: float) -> None:
    """Fill ``view`` from the socket, waiting as ``_wait_readable`` does before each read."""
    got = 0
    while got < len(view):
        _wait_readable(poller, spin_s)
        n = sock.recv_into(view[got:])
        if not n:
            raise ConnectionError("the other side closed early")
        got += n


def _answerer(trips: int, spin_s: float) -> Callable[[socket.socket], None]:
    def run(sock: socket.socket) -> None:
        poller = _poller(sock)
        message = memoryview(bytearray(ROUND_TRIP_MESSAGE))
        for _ in range(trips):
            _receive(sock, poller, message, spin_s)
            sock.sendall(ANSWER_FRAME)
        sock.close()

    return run


def round_trip_round(trips: int, spin_s: float) -> tuple[float, float, float]:
    """User and system seconds of one side, and the wall seconds, for ``trips`` round trips."""
    conn, pid = _peer(_answerer(trips, spin_s))
    poller = _poller(conn)
    message = os.urandom(ROUND_TRIP_MESSAGE)
    answer = memoryview(bytearray(len(ANSWER_FRAME)))
    try:
        user0, sys0 = _cpu()
        wall0 = time.perf_counter()
        for _ in range(trips):
            conn.sendall(message)
            _receive(conn, poller, answer, spin_s)
        wall = time.perf_counter() - wall0
        user1, sys1 = _cpu()
    finally:
        conn.close()
    _reap(pid)
    return user1 - user0, sys1 - sys0, wall


def spread(values: list[float]) -> str:
    median = statistics.median(values)
    # A spread of a median under a clock tick's worth (getrusage counts in ticks) means nothing.
    pct = f"{100.0 * (max(values) - min(values)) / median:5.1f}%" if median >= 0.01 else "     -"
    return f"{median:6.3f} {min(values):6.3f}-{max(values):<6.3f} {pct}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5, help="rounds per workload (default 5)")
    ap.add_argument("--gib", type=float, default=1.0, help="GiB per round of the fetch workloads (default 1)")
    ap.add_argument(
        "--trips", type=int, default=20000, help="round trips per round-trip round (default 20,000)"
    )
    args = ap.parse_args()
    fetch_total = int(args.gib * GIB)
    produce_total = fetch_total // 4  # written to the page cache: a quarter keeps dirty pages modest
    with tempfile.TemporaryDirectory(prefix="moldau-kernel-floor-", dir=Path.cwd()) as tmp_name:
        tmp = Path(tmp_name)
        source = tmp / "records.log"
        file_size = 256 * MIB
        with open(source, "wb") as f:
            block = os.urandom(MIB)
            for _ in range(file_size // MIB):
                f.write(block)
        workloads: list[tuple[str, int, Callable[[], tuple[float, float]]]] = [
            (
                "fetch, sendfile 1 MiB slices",
                fetch_total,
                lambda: fetch_round(source, file_size, fetch_total, True),
            ),
            (
                "fetch, send from memory",
                fetch_total,
                lambda: fetch_round(source, file_size, fetch_total, False),
            ),
            ("produce 16 KiB frames", produce_total, lambda: produce_round(tmp, 16 * 1024, produce_total)),
            ("produce 256 KiB frames", produce_total, lambda: produce_round(tmp, 256 * 1024, produce_total)),
            (BARE_SERVER, produce_total, lambda: bare_server_round(tmp, 16 * 1024, produce_total)),
        ]
        results: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name, _, _ in workloads}
        trips: dict[str, tuple[list[float], list[float]]] = {}
        for round_no in range(args.rounds):
            for name, spin_s in (
                ("round trip, blocking", 0.0),
                ("round trip, spinning 50 us", ROUND_TRIP_SPIN_S),
            ):
                print(f"round {round_no + 1}/{args.rounds}: {name} ...", file=sys.stderr, flush=True)
                user, system, wall = round_trip_round(args.trips, spin_s)
                cpu_us, wall_us = trips.setdefault(name, ([], []))
                cpu_us.append((user + system) / args.trips * 1e6)
                wall_us.append(wall / args.trips * 1e6)
            # Alternate the order by round, as broker_bench.py does, so drift hits all alike.
            order = workloads if round_no % 2 == 0 else workloads[::-1]
            for name, total, run in order:
                print(f"round {round_no + 1}/{args.rounds}: {name} ...", file=sys.stderr, flush=True)
                user, system = run()
                results[name][0].append(user * GIB / total)
                results[name][1].append(system * GIB / total)
    print()
    print(f"CPU seconds per GiB of the serving process, median of {args.rounds} rounds (min-max, spread)")
    print(f"{'workload':<34} {'system (the floor)':^28} {'user (the loop)':^28} {'user + system':^28}")
    for name, _, _ in workloads:
        user_values, system_values = results[name]
        both = [u + s for u, s in zip(user_values, system_values, strict=True)]
        print(f"{name:<34} {spread(system_values):^28} {spread(user_values):^28} {spread(both):^28}")
    bare = statistics.median(u + s for u, s in zip(*results[BARE_SERVER], strict=True))
    per_request = bare * 16 * 1024 / GIB * 1e6
    print(f"\nthe bare uvloop server: {per_request:.1f} us of CPU per 16 KiB request")
    print(
        f"\nRound trips between two processes (16 KiB one way, 60 bytes back), us per round trip, {args.trips:,} a round"
    )
    print(f"{'workload':<34} {'CPU of one side':^28} {'wall':^28}")
    for name, (cpu_us, wall_us) in trips.items():
        print(f"{name:<34} {spread(cpu_us):^28} {spread(wall_us):^28}")


if __name__ == "__main__":
    main()
