"""Shared steps of the coordinator-move scenarios (three ZooKeeper-mode broker processes,
tests.cluster.client_cluster, one __consumer_offsets partition)."""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterator

from kafka import KafkaProducer

from tests.cluster.client_cluster import coordinator, create, live
from tests.cluster.zk_cluster_checks import wait_until
from tests.support.group_driver import GroupDriver, wait_for

SESSION = "10000"


class Producer:
    def __init__(self, c, topic: str) -> None:
        self.c, self.topic = c, topic
        self.sent: dict[int, int] = {}

    def send(self, per_partition: int, partitions=(0, 1)) -> dict[int, int]:
        p = KafkaProducer(
            bootstrap_servers=[self.c.address(i) for i in live(self.c)],
            acks="all",
            retries=20,
            request_timeout_ms=10000,
        )
        try:
            fs = [p.send(self.topic, b"v", partition=q) for q in partitions for _ in range(per_partition)]
            p.flush(60)
            for f in fs:
                md = f.get(60)
                self.sent[md.partition] = max(self.sent.get(md.partition, 0), md.offset + 1)
        finally:
            p.close(5)
        return dict(self.sent)


def stable(d: GroupDriver, names: list[str], partitions: int = 2):
    """Every consumer's last poll in the same generation > 0, the partitions all assigned."""
    last = {}
    for n in names:
        d.drain(n)
        polls = [e for e in d.events[n] if e["t"] == "poll"]
        if not polls:
            return None
        last[n] = polls[-1]
    gens = {e["gen"] for e in last.values()}
    assigned = sorted(x for e in last.values() for x in e["assignment"])
    if len(gens) == 1 and min(gens) > 0 and len(assigned) == partitions and len(set(assigned)) == partitions:
        return {n: (e["gen"], e["member"]) for n, e in last.items()}
    return None


def duplicates(d: GroupDriver, names: list[str]) -> dict[int, list[int]]:
    seen = Counter((p, o) for n in names for p, o in d.records(n))
    out: dict[int, list[int]] = {}
    for (p, o), k in sorted(seen.items()):
        if k > 1:
            out.setdefault(p, []).append(o)
    return out


def history(d: GroupDriver, names: list[str]) -> dict:
    return {n: {"gens": d.generations(n), "rebalances": d.rebalances(n)} for n in names}


def commit_all(d: GroupDriver, names: list[str]) -> None:
    for n in names:
        r = d("commit", n)
        assert r["ok"], (n, r)


def consume(d: GroupDriver, names: list[str], want: dict[int, int], timeout: float = 60) -> None:
    wait_for(lambda: d.consumed_all(names, want), f"records up to {want}", timeout)


class GroupScenario:
    """Topic ``t_{name}_{tag}`` (two partitions, three replicas) and group ``g_{name}_{tag}``
    on cluster ``c``; Java consumers of the group in a GroupDriver (``driven``) with
    ``session.timeout.ms`` SESSION and, when ``static``, group.instance.id ``{member}-{tag}``."""

    def __init__(
        self, c, name: str, assignor: str, static: bool, *, tag: str | None = None, **configs: str
    ) -> None:
        self.c, self.assignor, self.static = c, assignor, static
        self.tag = tag or f"{assignor.replace('-', '_')}_{'s' if static else 'd'}"
        self.topic, self.group = f"t_{name}_{self.tag}", f"g_{name}_{self.tag}"
        create(c, self.topic, [[0, 1, 2], [1, 2, 0]], **configs)
        self.prod = Producer(c, self.topic)
        self.names = ["A", "B"]
        self.before: dict = {}
        self.d: GroupDriver

    @contextlib.contextmanager
    def driven(self) -> Iterator[GroupScenario]:
        """A GroupDriver on the live brokers, its consumers closed at the end."""
        with GroupDriver(",".join(self.c.address(i) for i in live(self.c))) as d:
            self.d = d
            yield self

    @contextlib.contextmanager
    def stable_group(self, commit: bool = True) -> Iterator[GroupScenario]:
        """``driven``, with A and B started, 10 records a partition read, the group Stable
        (``before``: each member's generation and member id) and, with ``commit``, the
        positions committed."""
        with self.driven():
            self.start(*self.names)
            self.flow(10)
            self.before = self.wait_stable()
            if commit:
                self.commit()
            yield self

    def start(self, *names: str, instance: str | None = None) -> None:
        for n in names:
            if instance is None:
                inst = f"{n}-{self.tag}" if self.static else ""
            else:
                inst = instance
            self.d.start(n, self.group, self.topic, self.assignor, inst, **{"session.timeout.ms": SESSION})

    def flow(self, per_partition: int, names: list[str] | None = None, timeout: float = 60) -> None:
        """Send ``per_partition`` records to each partition and wait until ``names`` read them."""
        self.prod.send(per_partition)
        self.read(names, timeout)

    def read(self, names: list[str] | None = None, timeout: float = 60) -> None:
        """Wait until ``names`` read every record sent."""
        consume(self.d, names or self.names, self.prod.sent, timeout=timeout)

    def commit(self, names: list[str] | None = None) -> None:
        commit_all(self.d, names or self.names)

    def wait_stable(self, names: list[str] | None = None, what: str = "a stable group"):
        return wait_until(lambda: stable(self.d, names or self.names), what, 60)

    def coordinator(self) -> int:
        return coordinator(self.c, self.group, 0)


def assert_unchanged(s: GroupScenario, *, generations: bool = False) -> None:
    """The group as ``before`` (the same generation and member ids, Stable), no record read
    twice; with ``generations``, each member's last (generation, member id) its ``before``."""
    d, names = s.d, s.names
    after = stable(d, names)
    h = history(d, names)
    assert after == s.before, h
    assert not duplicates(d, names), (duplicates(d, names), h)
    if generations:
        for n in names:
            assert d.generations(n)[-1] == s.before[n], h
