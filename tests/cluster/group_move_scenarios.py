"""Shared steps of the coordinator-move scenarios (three ZooKeeper-mode broker processes,
tests.cluster.client_cluster, one __consumer_offsets partition)."""

from __future__ import annotations

from collections import Counter

from kafka import KafkaProducer

from tests.cluster.client_cluster import live
from tests.support.group_driver import GroupDriver, wait_for


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
