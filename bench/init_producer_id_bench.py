"""InitProducerId requests per second, embedded block source vs ZooKeeper block source.

Starts its own ZooKeeper (Debian's zookeeper package) and one broker per
source, plus a reference broker whose single huge block needs no lease while
measured, then drives InitProducerId v1 from several connections, each
keeping ``--pipeline`` requests in flight (requests are pre-encoded and
answers read at fixed offsets, so the client costs little). Rounds alternate
between the brokers so that noise from other work on the machine hits all
alike. Every id is checked to be unique. COORDINATOR_LOAD_IN_PROGRESS answers
(the block ran out before the next lease arrived) are counted and retried at
once, far more eagerly than real clients (which back off 100-500 ms).

With blocks leased in the background (prefetch at 90%, earlier when demand
outruns the lease), the ZooKeeper round trips and the lease file's fsyncs are
amortised over ``producer.id.block.size`` ids, so both sources should show
about the same rate. At tens of thousands of InitProducerId per second (no
real workload asks that many: a producer asks once per session) a 1000-id
block lasts a few tens of milliseconds, about one lease, so both then stay
below the reference.

    .venv/bin/python bench/init_producer_id_bench.py [--requests 100000] [--block-size 1000]
"""

from __future__ import annotations

import argparse
import socket
import struct
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from protocol.headers import RequestHeader, encode_request_header  # noqa: E402
from protocol.messages import InitProducerIdRequest  # noqa: E402
from tests.support.broker_process import BrokerProcess  # noqa: E402
from tests.support.zookeeper_server import ZooKeeperServer  # noqa: E402

API_KEY, VERSION = 22, 1
LOAD_IN_PROGRESS = 14
# v1 response after the 4-byte size: correlation id, throttle, error code, producer id, epoch
RESPONSE = struct.Struct(">iihqh")


def encoded_request() -> bytes:
    w = bytearray()
    encode_request_header(w, RequestHeader(API_KEY, VERSION, 1, "bench", 1))
    InitProducerIdRequest(transactional_id=None, transaction_timeout_ms=60000).write(w, VERSION)
    return struct.pack(">i", len(w)) + bytes(w)


def recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("broker closed the connection")
        buf += chunk
    return bytes(buf)


class Worker(threading.Thread):
    def __init__(self, port: int, count: int, pipeline: int) -> None:
        super().__init__(daemon=True)
        self.port, self.count, self.pipeline = port, count, pipeline
        self.ids: list[int] = []
        self.retries = 0
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            request = encoded_request()
            with socket.create_connection(("127.0.0.1", self.port)) as s:
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                in_flight = 0
                while len(self.ids) < self.count:
                    want = min(self.pipeline - in_flight, self.count - len(self.ids) - in_flight)
                    if want > 0:
                        s.sendall(request * want)
                        in_flight += want
                    size = struct.unpack(">i", recv_exact(s, 4))[0]
                    _, _, err, pid, _ = RESPONSE.unpack(recv_exact(s, size))
                    in_flight -= 1
                    if err == 0:
                        self.ids.append(pid)
                    elif err == LOAD_IN_PROGRESS:
                        self.retries += 1
                    else:
                        raise RuntimeError(f"InitProducerId error {err}")
                while in_flight:  # drain
                    size = struct.unpack(">i", recv_exact(s, 4))[0]
                    recv_exact(s, size)
                    in_flight -= 1
        except BaseException as exc:
            self.error = exc


def run_load(port: int, requests: int, connections: int, pipeline: int) -> tuple[float, list[int], int]:
    per = requests // connections
    workers = [Worker(port, per, pipeline) for _ in range(connections)]
    t0 = time.perf_counter()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    elapsed = time.perf_counter() - t0
    for w in workers:
        if w.error:
            raise w.error
    return elapsed, [i for w in workers for i in w.ids], sum(w.retries for w in workers)


def measure(broker: BrokerProcess, args: argparse.Namespace) -> tuple[float, int, set[int]]:
    assert broker.port is not None
    elapsed, ids, retries = run_load(broker.port, args.requests, args.connections, args.pipeline)
    unique = set(ids)
    if len(unique) != len(ids):
        raise SystemExit("a producer id was handed out twice")
    return len(ids) / elapsed, retries, unique


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--requests", type=int, default=50_000, help="InitProducerId requests per round")
    p.add_argument("--rounds", type=int, default=3, help="rounds, alternating the sources")
    p.add_argument("--connections", type=int, default=4)
    p.add_argument("--pipeline", type=int, default=8, help="requests in flight per connection")
    p.add_argument("--block-size", type=int, default=1000, help="producer.id.block.size")
    args = p.parse_args(argv)
    common = {"producer.id.block.size": str(args.block_size)}
    with tempfile.TemporaryDirectory(prefix="moldau-bench-") as tmp:
        base = Path(tmp)
        zk = ZooKeeperServer(base / "zookeeper").start()
        brokers = {
            "embedded (file)": BrokerProcess(base / "embedded", common),
            "ZooKeeper": BrokerProcess(
                base / "zk", {**common, "zookeeper.connect": zk.connect("/moldau"), "broker.id": "1"}
            ),
            # the ceiling: one block big enough that no lease happens while measuring
            "no lease (ref.)": BrokerProcess(base / "reference", {"producer.id.block.size": "1000000000"}),
        }
        try:
            for name, b in brokers.items():
                try:
                    b.start()
                except RuntimeError:
                    raise SystemExit(
                        f"{name} broker did not start; ZooKeeper log:\n{zk.log_tail()}"
                    ) from None
                assert b.port is not None
                run_load(b.port, 5000, args.connections, args.pipeline)  # warm-up
            rates: dict[str, list[float]] = {name: [] for name in brokers}
            retries: dict[str, int] = dict.fromkeys(brokers, 0)
            seen: dict[str, set[int]] = {name: set() for name in brokers}
            for _ in range(args.rounds):  # alternate, so machine noise hits both alike
                for name, b in brokers.items():
                    rate, n_retries, ids = measure(b, args)
                    if seen[name] & ids:
                        raise SystemExit(f"{name}: a producer id was handed out twice")
                    seen[name] |= ids
                    rates[name].append(rate)
                    retries[name] += n_retries
            blocks = {
                name: sum("leased producer-id block" in line for line in b.lines)
                for name, b in brokers.items()
            }
        finally:
            for b in brokers.values():
                if b.alive():
                    b.stop()
            zk.stop()
    print(
        f"\nInitProducerId v1: {args.rounds} rounds of {args.requests} requests per source, "
        f"{args.connections} connections x {args.pipeline} in flight, "
        f"producer.id.block.size={args.block_size}\n"
    )
    print(
        f"{'source':<16} {'median req/s':>12} {'best req/s':>11} {'retried (14)':>13} {'blocks leased':>14}"
    )
    for name in brokers:
        r = sorted(rates[name])
        print(f"{name:<16} {r[len(r) // 2]:>12.0f} {r[-1]:>11.0f} {retries[name]:>13} {blocks[name]:>14}")
    emb, zkr, ref = (sorted(rates[n])[len(rates[n]) // 2] for n in brokers)
    print(f"\nZooKeeper / embedded (median): {zkr / emb:.2f};  embedded / no lease: {emb / ref:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
