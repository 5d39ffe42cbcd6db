"""Helpers of tests/cluster/test_librdkafka_failures.py: confluent-kafka (librdkafka) clients
on the 3-process cluster of tests.cluster.client_cluster. A consumer group whose members each
poll in a thread of their own and commit every batch synchronously, recording which records
were read again after their commit succeeded; an idempotent producer of round-robin input;
librdkafka's log lines and error_cb errors of a client, kept in memory."""

from __future__ import annotations

import contextlib
import logging
import threading
import uuid
from collections import defaultdict
from typing import Any

from confluent_kafka import Consumer, KafkaError, KafkaException, Message, Producer, TopicPartition

from tests.cluster.zk_cluster_checks import wait_until
from tests.support.cluster import Cluster


class _KeepLines(logging.Handler):
    def __init__(self, log: ClientLog) -> None:
        super().__init__()
        self.log = log

    def emit(self, record: logging.LogRecord) -> None:
        with self.log.lock:
            self.log.lines.append(record.getMessage())


class ClientLog:
    """The log lines (librdkafka's ``logger``) and errors (its ``error_cb``) of one client;
    ``config()`` gives both settings."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.errors: list[KafkaError] = []
        self.lock = threading.Lock()
        self.logger = logging.Logger(f"librdkafka.{id(self)}", logging.DEBUG)
        self.logger.propagate = False
        self.logger.addHandler(_KeepLines(self))

    def config(self) -> dict[str, Any]:
        return {"logger": self.logger, "error_cb": self.error_cb}

    def error_cb(self, err: KafkaError) -> None:
        with self.lock:
            self.errors.append(err)

    def fatal(self) -> list[KafkaError]:
        with self.lock:
            return [e for e in self.errors if e.fatal()]

    def grep(self, *words: str) -> list[str]:
        """The lines holding every one of ``words``."""
        with self.lock:
            return [line for line in self.lines if all(w in line for w in words)]


class Member:
    """One confluent-kafka Consumer of a group, subscribed to ``topic``; ``assigned`` follows
    its rebalance callbacks (incrementally for cooperative-sticky), ``events`` lists them."""

    def __init__(self, name: str, conf: dict[str, Any], topic: str) -> None:
        self.name = name
        self.assigned: set[int] = set()
        self.events: list[tuple[str, list[int]]] = []
        self.cooperative = conf["partition.assignment.strategy"] == "cooperative-sticky"
        self.consumer = Consumer(conf)
        self.consumer.subscribe(
            [topic], on_assign=self._on_assign, on_revoke=self._on_revoke, on_lost=self._on_lost
        )

    def _on_assign(self, _: Consumer, parts: list[TopicPartition]) -> None:
        ps = [p.partition for p in parts]
        self.events.append(("assign", ps))
        if self.cooperative:
            self.assigned |= set(ps)
        else:
            self.assigned = set(ps)

    def _on_revoke(self, _: Consumer, parts: list[TopicPartition]) -> None:
        ps = [p.partition for p in parts]
        self.events.append(("revoke", ps))
        self.assigned -= set(ps)

    def _on_lost(self, _: Consumer, parts: list[TopicPartition]) -> None:
        ps = [p.partition for p in parts]
        self.events.append(("lost", ps))
        self.assigned -= set(ps)


class Group:
    """Members of one group, each polled by a thread of its own. Each batch is processed
    (recorded in ``consumed``), then its offsets are committed with
    ``commit(asynchronous=False)``; the records of a successful commit are 'committed', and a
    committed record read again lands in ``double_after_commit``."""

    def __init__(self, bootstrap: str, group: str, topic: str, strategy: str, **extra: Any) -> None:
        self.bootstrap, self.group, self.topic, self.strategy = bootstrap, group, topic, strategy
        self.extra = extra
        self.members: list[Member] = []
        self.consumed: dict[int, list[tuple[str, int]]] = defaultdict(list)  # partition -> (member, offset)
        self.committed_records: set[tuple[int, int]] = set()
        self.double_after_commit: list[tuple[int, int, str]] = []
        self.commit_errors: list[str] = []
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.threads: list[threading.Thread] = []
        self.closed: set[str] = set()
        self.errors: list[BaseException] = []
        self.to_close: list[str] = []

    def conf(self, name: str, **over: Any) -> dict[str, Any]:
        """Manual commits, earliest reset, a 10 s session (unless ``extra`` / ``over`` say
        otherwise), 1 s heartbeats, metadata refreshed every 2 s."""
        return {
            "bootstrap.servers": self.bootstrap,
            "group.id": self.group,
            "partition.assignment.strategy": self.strategy,
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
            "session.timeout.ms": 10_000,
            "heartbeat.interval.ms": 1000,
            "max.poll.interval.ms": 60_000,
            "topic.metadata.refresh.interval.ms": 2000,
            "client.id": name,
            **self.extra,
            **over,
        }

    def add(self, name: str, **over: Any) -> None:
        """Start a member ``name`` (config ``over`` on top of ``conf``) in a thread of its own."""
        t = threading.Thread(target=self._run, args=(name, over), daemon=True)
        self.threads.append(t)
        t.start()

    def remove(self, name: str) -> None:
        """Have member ``name`` closed by its thread (then it is in ``closed``)."""
        with self.lock:
            self.to_close.append(name)

    def member(self, name: str) -> Member:
        return next(m for m in self.members if m.name == name)

    def _run(self, name: str, over: dict[str, Any]) -> None:
        m = None
        try:
            m = Member(name, self.conf(name, **over), self.topic)
            with self.lock:
                self.members.append(m)
            while not self.stop.is_set():
                with self.lock:
                    if name in self.to_close:
                        self.to_close.remove(name)
                        self.members.remove(m)
                        break
                self._poll(m)
        except BaseException as e:
            self.errors.append(e)
        finally:
            if m is not None:
                with contextlib.suppress(KafkaException):  # the test is over for this member
                    m.consumer.close()
                self.closed.add(name)

    def _poll(self, m: Member) -> None:
        msgs = m.consumer.consume(num_messages=50, timeout=0.1)
        last: dict[int, int] = {}
        batch = []
        for msg in msgs:
            if msg.error():
                continue
            p, o = msg.partition(), msg.offset()
            with self.lock:
                if (p, o) in self.committed_records:
                    self.double_after_commit.append((p, o, m.name))
                self.consumed[p].append((m.name, o))
            batch.append((p, o))
            last[p] = o
        if not last:
            return
        try:
            m.consumer.commit(
                offsets=[TopicPartition(self.topic, p, o + 1) for p, o in last.items()], asynchronous=False
            )
        except KafkaException as e:
            self.commit_errors.append(f"{m.name}: {e}")
            return
        with self.lock:
            self.committed_records.update(batch)

    def offsets(self) -> dict[int, set[int]]:
        """The offsets read so far, by partition."""
        with self.lock:
            return {p: {o for _, o in v} for p, v in self.consumed.items()}

    def assignments(self) -> dict[str, set[int]]:
        return {m.name: set(m.assigned) for m in list(self.members)}

    def rebalance_events(
        self, kinds: tuple[str, ...] = ("revoke", "lost")
    ) -> list[tuple[str, tuple[str, list[int]]]]:
        """Every member's rebalance callbacks of ``kinds`` so far, as (member, event)."""
        return [(m.name, e) for m in list(self.members) for e in m.events if e[0] in kinds]

    def balanced(self, members: int, partitions: int) -> bool:
        """``members`` members, every partition assigned once, the same number to each."""
        a = self.assignments()
        if len(a) != members:
            return False
        parts = sorted(p for s in a.values() for p in s)
        return parts == list(range(partitions)) and all(len(s) == partitions // members for s in a.values())

    def close(self) -> None:
        """Stop and close every member."""
        self.stop.set()
        for t in self.threads:
            t.join(60)


def wait_consumed(g: Group, ends: dict[int, int], timeout: float = 60) -> None:
    """Wait until ``g`` has read every offset below ``ends`` of each partition (a member's
    error raised at once)."""

    def done() -> bool:
        if g.errors:
            raise g.errors[0]
        seen = g.offsets()
        return all(seen.get(p, set()) >= set(range(e)) for p, e in ends.items())

    def missing() -> Any:
        seen = g.offsets()
        return (
            {p: sorted(set(range(e)) - seen.get(p, set()))[:10] for p, e in ends.items()},
            g.assignments(),
            g.commit_errors[-5:],
        )

    wait_until(
        done, "everything consumed (missing, assignments, commit errors)", timeout, 0.2, detail=missing
    )


class Input:
    """Records written to ``topic``'s ``partitions`` in turn by an idempotent acks=all
    producer; ``ends`` the delivered end offset of each partition."""

    def __init__(self, cluster: Cluster, topic: str, partitions: int) -> None:
        self.cluster, self.topic, self.partitions = cluster, topic, partitions
        self.ends = dict.fromkeys(range(partitions), 0)
        self.produced = 0

    def produce(self, n: int) -> None:
        """``n`` more records, all of them delivered."""
        p = Producer({"bootstrap.servers": self.cluster.bootstrap, "enable.idempotence": True, "acks": "all"})
        got: dict[int, int] = {}
        errors: list[KafkaError] = []

        def report(err: KafkaError | None, msg: Message) -> None:
            if err is not None:
                errors.append(err)
            else:
                got[msg.partition()] = max(got.get(msg.partition(), -1), msg.offset())

        for i in range(n):
            k = self.produced + i
            p.produce(
                self.topic, value=f"m{k:06d}".encode(), partition=k % self.partitions, on_delivery=report
            )
        assert p.flush(90) == 0
        assert not errors, errors[:3]
        self.produced += n
        for part, o in got.items():
            self.ends[part] = max(self.ends[part], o + 1)


def fill(cluster: Cluster, topic: str, n: int) -> None:
    """``n`` records ``i00000``... into partition 0 of ``topic`` (idempotent, acks=all)."""
    p = Producer({"bootstrap.servers": cluster.bootstrap, "enable.idempotence": True, "acks": "all"})
    for i in range(n):
        p.produce(topic, value=f"i{i:05d}".encode(), partition=0)
    assert p.flush(60) == 0


def read_committed(cluster: Cluster, topic: str, timeout: float = 60) -> list[str]:
    """Partition 0 of ``topic`` as a read_committed consumer sees it, from the start to the
    end (librdkafka's partition EOF)."""
    k = Consumer(
        {
            "bootstrap.servers": cluster.bootstrap,
            "group.id": f"reader-{uuid.uuid4().hex[:6]}",
            "isolation.level": "read_committed",
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
            "enable.partition.eof": True,
        }
    )
    k.assign([TopicPartition(topic, 0, 0)])
    out: list[str] = []

    def at_end() -> bool:
        m = k.poll(1.0)
        if m is None:
            return False
        if m.error():
            return m.error().code() == KafkaError._PARTITION_EOF
        out.append(m.value().decode())
        return False

    try:
        wait_until(at_end, f"the end of {topic}", timeout, 0, detail=lambda: f"{len(out)} records read")
        return out
    finally:
        k.close()
