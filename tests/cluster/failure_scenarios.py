"""Helpers of the Jepsen-style cluster scenarios: a cuttable TCP relay in front of ZooKeeper,
an in-process cluster builder, acks=all producing with a record of what was acknowledged,
and the independent reader of every replica's segment files (kafka-python's parser)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from kafka.record import MemoryRecords

from protocol.messages import ProduceRequest
from protocol.records import build_batch
from tests.support.cluster import Cluster
from tests.support.wire_client import WireClient


def wait_until(condition: Callable[[], Any], what: str, timeout: float = 60.0, step: float = 0.05) -> Any:
    deadline = time.monotonic() + timeout
    last: Any = None
    while True:
        last = condition()
        if last is not None and last is not False:
            return last
        if time.monotonic() > deadline:
            raise AssertionError(f"no {what} within {timeout} s (last: {last!r})")
        time.sleep(step)


class TcpRelay:
    """A byte relay to ``target``; ``cut()`` closes every relayed connection and refuses
    (accept, close) new ones until ``heal()``: a network partition towards ``target``."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self._server = socket.socket()
        self._server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._server.bind(("127.0.0.1", 0))
        self._server.listen(64)
        self.port = self._server.getsockname()[1]
        self._cut = threading.Event()
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self._socks: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            if self._cut.is_set():
                client.close()
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            with self._lock:
                self._socks += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data or self._cut.is_set():
                    break
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                s.close()

    def cut(self) -> None:
        self._cut.set()
        with self._lock:
            socks, self._socks = self._socks, []
        for s in socks:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                s.close()

    def heal(self) -> None:
        self._cut.clear()

    def close(self) -> None:
        self._closed.set()
        self.cut()
        with contextlib.suppress(OSError):
            self._server.close()


BASE_OVERRIDES = {
    "offsets.topic.num.partitions": "1",
    "replica.lag.time.max.ms": "3000",
    "replica.fetch.backoff.ms": "200",
    "zookeeper.session.timeout.ms": "6000",
    "auto.leader.rebalance.enable": "false",
}


def formed(cluster: Cluster) -> bool:
    def look() -> bool:
        caches = [cluster.broker(i).metadata_cache for i in range(cluster.n) if cluster.alive(i)]
        return all(c.controller_id >= 0 and len(c.get_alive_brokers()) == cluster.n for c in caches)

    return cluster.run(look)


def replica_records(
    log_dir: Path, topic: str, partition: int
) -> list[tuple[int, bytes | None, bytes | None]]:
    """Every record of one replica, read from its segment files (not through the broker)."""
    directory = log_dir / f"{topic}-{partition}"
    out: list[tuple[int, bytes | None, bytes | None]] = []
    for segment in sorted(directory.glob("*.log")):
        records = MemoryRecords(segment.read_bytes())
        while records.has_next():
            batch = records.next_batch()
            assert batch.validate_crc(), f"corrupt batch in {segment}"
            out.extend((r.offset, r.key, r.value) for r in batch)
    return out


def pview(cluster: Cluster, i: int, topic: str, partition: int = 0) -> tuple | None:
    """(leader, leader epoch, ISR, log end offset, high watermark) of broker i's replica."""

    def look() -> tuple | None:
        p = cluster.broker(i).replica_manager.get_partition(topic, partition)
        if p is None:
            return None
        return p.leader_id, p.leader_epoch, tuple(sorted(p.isr)), p.log.log_end_offset, p.log.high_watermark

    return cluster.run(look)


def meta_state(cluster: Cluster, i: int, topic: str, partition: int = 0) -> Any:
    return cluster.run(lambda: cluster.broker(i).metadata_cache.partition_state(topic, partition))


def controller_of(cluster: Cluster) -> int:
    def agreed() -> tuple[int] | None:
        ids = {
            cluster.run(lambda i=i: cluster.broker(i).metadata_cache.controller_id)
            for i in range(cluster.n)
            if cluster.alive(i)
        }
        return (ids.pop(),) if len(ids) == 1 and -1 not in ids else None

    return wait_until(agreed, "an agreed controller")[0]


def create_topic(cluster: Cluster, name: str, assignment: list[list[int]], config: dict[str, str]) -> None:
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    new = NewTopic(name, len(assignment), replica_assignment=assignment, config=config)
    admin.create_topics([new], operation_timeout=30, request_timeout=40)[name].result(60)

    def in_sync() -> bool:
        for p, replicas in enumerate(assignment):
            for i in range(cluster.n):
                if not cluster.alive(i):
                    continue
                s = meta_state(cluster, i, name, p)
                if s is None or s.leader != replicas[0] or sorted(s.isr) != sorted(replicas):
                    return False
        return True

    wait_until(in_sync, f"{name} led by its preferred replicas, all in sync")


def producer(cluster: Cluster, **conf: Any) -> Any:
    from confluent_kafka import Producer

    return Producer(
        {
            "bootstrap.servers": conf.pop("bootstrap", None) or cluster.bootstrap,
            "acks": "all",
            "enable.idempotence": True,
            "linger.ms": 2,
            **conf,
        }
    )


def produce_acked(
    cluster: Cluster, topic: str, values: list[bytes], timeout: float = 60, **conf: Any
) -> dict[bytes, int]:
    """acks=all, idempotent; {value: offset} of the acknowledged records (errors raised)."""
    p = producer(cluster, **conf)
    acked: dict[bytes, int] = {}
    errors: list[Any] = []

    def report(err: Any, msg: Any) -> None:
        if err is not None:
            errors.append(err)
        else:
            acked[msg.value()] = msg.offset()

    for v in values:
        p.produce(topic, value=v, partition=0, on_delivery=report)
        p.poll(0)
    assert p.flush(timeout) == 0, "records still undelivered"
    assert not errors, errors[:3]
    return acked


def chroot(prefix: str) -> str:
    return f"/{prefix}_{uuid.uuid4().hex[:8]}"


def produce_raw(
    cluster: Cluster, i: int, topic: str, value: bytes, acks: int, timeout_ms: int
) -> tuple[int, int]:
    """One Produce v9 of one record to broker i: (error code, base offset)."""
    batch = build_batch([(None, value)])
    request = ProduceRequest(
        acks=acks,
        timeout_ms=timeout_ms,
        topic_data=[
            ProduceRequest.TopicProduceData(
                name=topic, partition_data=[ProduceRequest.PartitionProduceData(index=0, records=batch)]
            )
        ],
    )
    with WireClient(
        "127.0.0.1", cluster.port(i), client_id="failure-scenarios", timeout=timeout_ms / 1000 + 20
    ) as client:
        response = client.request(request, 9)
    part = response.responses[0].partition_responses[0]
    return part.error_code, part.base_offset


@contextlib.contextmanager
def relayed_cluster(
    zookeeper: Any, base_dir: Path, prefix: str, overrides: Mapping[str, str]
) -> Iterator[tuple[Cluster, list[TcpRelay]]]:
    """Three brokers each reaching ZooKeeper through its own ``TcpRelay`` (so one broker can be
    cut off from ZooKeeper alone), formed; the relays close with the cluster."""
    root = chroot(prefix)
    host, port = zookeeper.connect("").split("/")[0].rsplit(":", 1)
    relays = [TcpRelay((host, int(port))) for _ in range(3)]
    try:
        with Cluster(
            3,
            zookeeper=zookeeper,
            zk_chroot=root,
            base_dir=base_dir,
            overrides=dict(overrides),
            broker_overrides={
                i: {"zookeeper.connect": f"127.0.0.1:{r.port}{root}"} for i, r in enumerate(relays)
            },
        ) as c:
            wait_until(lambda: formed(c), "the cluster formed")
            yield c, relays
    finally:
        for r in relays:
            r.close()
