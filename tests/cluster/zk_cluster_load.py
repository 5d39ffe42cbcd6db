"""Client load for the cluster failover tests: producers and a consumer running through faults.

``ConfluentLoad`` produces (idempotent, acks=all) from a thread and records every delivery
report; ``ConfluentReader`` reads assigned partitions from the beginning in a thread;
``java_producer`` starts the Java driver's ``produce --stdin-control`` (progress lines while it
runs, a summary with every acked offset and every error at the end) and ``java_reader`` its
``consume --assign all --stdin-control`` (a line per record).
"""

from __future__ import annotations

import threading
from typing import Any

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition

from tests.support.java_client import JavaClient, JavaProcess, consume_args, produce_args


class ConfluentLoad:
    """A confluent-kafka producer sending one record every ``interval`` seconds until ``stop``."""

    def __init__(self, bootstrap: str, topic: str, *, interval: float = 0.02) -> None:
        self.topic = topic
        self.interval = interval
        self.producer = Producer(
            {
                "bootstrap.servers": bootstrap,
                "enable.idempotence": True,
                "acks": "all",
                "linger.ms": 5,
                "message.timeout.ms": 120_000,
            }
        )
        self.acked: list[tuple[int, int, str]] = []  # (partition, offset, value)
        self.errors: list[str] = []
        self.sent = 0
        self.unflushed = -1
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name=f"produce-{topic}", daemon=True)
        self._thread.start()

    def _on_delivery(self, err: Any, msg: Any) -> None:
        with self._lock:
            if err is not None:
                self.errors.append(str(err))
            else:
                self.acked.append((msg.partition(), msg.offset(), msg.value().decode()))

    def _run(self) -> None:
        n = 0
        while not self._stop.is_set():
            self.producer.produce(self.topic, key=f"k{n % 16}", value=f"c|{n}", on_delivery=self._on_delivery)
            self.sent += 1
            n += 1
            self.producer.poll(self.interval)
        self.unflushed = self.producer.flush(120)

    def acked_count(self) -> int:
        with self._lock:
            return len(self.acked)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(150)
        assert not self._thread.is_alive(), "the confluent-kafka producer did not finish flushing"


class ConfluentReader:
    """A confluent-kafka consumer reading ``partitions`` of ``topic`` from offset 0 (no group)."""

    def __init__(self, bootstrap: str, topic: str, partitions: int) -> None:
        self.consumer = Consumer(
            {
                "bootstrap.servers": bootstrap,
                "group.id": f"reader-{topic}",
                "enable.auto.commit": False,
                "auto.offset.reset": "earliest",
            }
        )
        self.consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        self.records: list[tuple[int, int, str]] = []
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name=f"consume-{topic}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            msg = self.consumer.poll(0.5)
            if msg is None:
                continue
            if msg.error():
                if msg.error().code() != KafkaError._PARTITION_EOF:
                    self.errors.append(str(msg.error()))
                continue
            value = msg.value()
            with self._lock:
                self.records.append(
                    (msg.partition(), msg.offset(), value.decode(errors="replace") if value else "")
                )
        self.consumer.close()

    def positions(self) -> set[tuple[int, int]]:
        with self._lock:
            return {(p, o) for p, o, _ in self.records}

    def values(self) -> dict[tuple[int, int], str]:
        with self._lock:
            return {(p, o): v for p, o, v in self.records}

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(30)


def java_producer(bootstrap: str, topic: str, *, throughput: int = 100) -> JavaProcess:
    """The Java driver producing (idempotent, acks=all, default retries) until ``.stop()``."""
    args = produce_args(
        topic=topic,
        count=0,
        acks="all",
        idempotence=True,
        throughput=throughput,
        progress_every=20,
        stdin_control=True,
    )
    return JavaClient(bootstrap).start("produce", *args)


def java_acked(proc: JavaProcess) -> int:
    """The Java producer's acked count from its latest progress line (0 before the first)."""
    progress = [line for line in list(proc.lines) if line.get("event") == "progress"]
    return progress[-1]["acked"] if progress else 0


def java_acked_offsets(summary: dict[str, Any]) -> set[tuple[int, int]]:
    """(partition, offset) of every record the Java producer's summary says was acked."""
    out = set()
    for partition, acks in summary["partitions"].items():
        for first, last in acks["ranges"]:
            out.update((int(partition), o) for o in range(first, last + 1))
    return out


def java_reader(bootstrap: str, topic: str) -> JavaProcess:
    """The Java driver reading every partition of ``topic`` from the beginning (no group)
    until ``.stop()``; its record lines carry partition ``p``, offset ``o`` and value ``v``."""
    args = consume_args(topic=topic, assign="all", timeout_ms=600_000, commit="none", stdin_control=True)
    return JavaClient(bootstrap).start("consume", *args)


def java_positions(proc: JavaProcess) -> set[tuple[int, int]]:
    """(partition, offset) of every record the Java consumer printed so far."""
    return {(line["p"], line["o"]) for line in list(proc.lines) if "o" in line and "p" in line}
