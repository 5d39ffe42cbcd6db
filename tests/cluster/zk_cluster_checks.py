"""What the ZooKeeper-mode cluster tests read: every broker's Metadata, the controller, znodes.

The cluster tests (``test_zk_cluster_*.py``) run three broker processes on a real ZooKeeper
(``tests.support.cluster.Cluster(mode="subprocess")``) and check the cluster from outside, as
Kafka's own tools would: Metadata v12 over raw frames (leader epochs, the controller id,
topic ids) from each broker, and Kafka's znodes through kazoo.
"""

from __future__ import annotations

import base64
import contextlib
import json
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kazoo.client import KazooClient

from protocol.messages import MetadataRequest
from tests.support.cluster import Cluster
from tests.support.wire_client import WireClient
from tests.support.zookeeper_server import ZooKeeperServer

SESSION_TIMEOUT_MS = 6000

# Short timeouts so a crash is noticed, and groups form, within seconds.
OVERRIDES = {
    "zookeeper.session.timeout.ms": str(SESSION_TIMEOUT_MS),
    "group.initial.rebalance.delay.ms": "0",
    "offsets.topic.num.partitions": "3",
    "default.replication.factor": "3",
    "num.partitions": "2",
}

METADATA_VERSION = 12  # leader epochs (v7+), topic ids (v10+), the controller id (v1+)


def wait_until(
    condition: Callable[[], Any],
    what: str,
    timeout: float = 30.0,
    step: float = 0.1,
    *,
    detail: Callable[[], Any] | None = None,
) -> Any:
    """Poll ``condition`` until it is truthy (returned) or fail after ``timeout`` seconds
    (the message shows the last result, and ``detail()`` if given: what was seen instead)."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while True:
        last = condition()
        if last:
            return last
        if time.monotonic() >= deadline:
            seen = f"; seen: {detail()!r}" if detail is not None else ""
            raise AssertionError(f"no {what} within {timeout} s (last: {last!r}){seen}")
        time.sleep(step)


def start_cluster(zookeeper: ZooKeeperServer, chroot: str, base_dir: Path, **overrides: str) -> Cluster:
    """Three broker processes (ids 0-2) on ``zookeeper`` under ``chroot``, returned once every
    broker names all three and the same controller (the tests compare brokers' views at once)."""
    cluster = Cluster(
        3,
        zookeeper=zookeeper,
        zk_chroot=chroot,
        mode="subprocess",
        overrides={**OVERRIDES, **overrides},
        base_dir=base_dir,
    )
    cluster.start()
    try:
        wait_until(
            lambda: (v := agreed_metadata(cluster)) is not None and v.controller >= 0 and len(v.brokers) == 3,
            "the three brokers to agree on the cluster",
            60,
        )
    except BaseException:
        cluster.close()
        raise
    return cluster


# ---------------------------------------------------------------------- Metadata


@dataclass(frozen=True)
class PartitionView:
    leader: int
    leader_epoch: int
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    offline: tuple[int, ...]
    error: int


@dataclass(frozen=True)
class MetadataView:
    """One broker's answer to Metadata v12 for every topic."""

    brokers: dict[int, tuple[str, int]]
    controller: int
    cluster_id: str | None
    topic_errors: dict[str, int]
    topic_ids: dict[str, str]
    partitions: dict[tuple[str, int], PartitionView]

    def topic(self, name: str) -> dict[int, PartitionView]:
        return {p: v for (t, p), v in self.partitions.items() if t == name}

    def leaders(self, name: str) -> dict[int, int]:
        return {p: v.leader for p, v in self.topic(name).items()}


def metadata(cluster: Cluster, i: int, topics: Sequence[str] | None = None) -> MetadataView:
    """Broker ``i``'s Metadata v12 (all topics, or ``topics``; no auto-creation)."""
    host, port = cluster.address(i).rsplit(":", 1)
    request = MetadataRequest(
        topics=None if topics is None else [MetadataRequest.MetadataRequestTopic(name=t) for t in topics],
        allow_auto_topic_creation=False,
    )
    with WireClient(host, int(port), client_id="zk-cluster-test") as client:
        response = client.request(request, METADATA_VERSION)
    partitions: dict[tuple[str, int], PartitionView] = {}
    for t in response.topics:
        for p in t.partitions:
            partitions[(t.name, p.partition_index)] = PartitionView(
                p.leader_id,
                p.leader_epoch,
                tuple(p.replica_nodes),
                tuple(p.isr_nodes),
                tuple(p.offline_replicas),
                p.error_code,
            )
    return MetadataView(
        brokers={b.node_id: (b.host, b.port) for b in response.brokers},
        controller=response.controller_id,
        cluster_id=response.cluster_id,
        topic_errors={t.name: t.error_code for t in response.topics},
        topic_ids={t.name: kafka_uuid(t.topic_id) for t in response.topics},
        partitions=partitions,
    )


def raw_metadata(cluster: Cluster, i: int, topics: Sequence[str] | None) -> Any:
    """Broker ``i``'s Metadata v12 response as decoded (no auto-creation)."""
    with WireClient("127.0.0.1", cluster.port(i)) as client:
        request = MetadataRequest(
            topics=None if topics is None else [MetadataRequest.MetadataRequestTopic(name=t) for t in topics],
            allow_auto_topic_creation=False,
        )
        return client.request(request, METADATA_VERSION)


def controller_index(cluster: Cluster) -> int:
    """The index of the broker every live broker names as controller (waits for them to agree)."""

    def agreed() -> tuple[int] | None:
        ids = {raw_metadata(cluster, i, []).controller_id for i in range(cluster.n) if cluster.alive(i)}
        return (ids.pop(),) if len(ids) == 1 and -1 not in ids else None

    (found,) = wait_until(agreed, "agreed controller")
    return next(i for i in range(cluster.n) if cluster.broker_id(i) == found)


def try_metadata(cluster: Cluster, i: int, topics: Sequence[str] | None = None) -> MetadataView | None:
    """``metadata`` or None while the broker does not answer (down, starting)."""
    try:
        return metadata(cluster, i, topics)
    except (OSError, ConnectionError):
        return None


def live_brokers(cluster: Cluster) -> list[int]:
    return [i for i in range(cluster.n) if cluster.alive(i)]


def agreed_metadata(
    cluster: Cluster, topics: Sequence[str] | None = None, brokers: Sequence[int] | None = None
) -> MetadataView | None:
    """The view every broker in ``brokers`` (default: the live ones) shares, or None if they differ."""
    views = []
    for i in live_brokers(cluster) if brokers is None else brokers:
        view = try_metadata(cluster, i, topics)
        if view is None:
            return None
        views.append(view)
    first = views[0]
    for other in views[1:]:
        if (other.brokers, other.controller, other.partitions, other.topic_ids) != (
            first.brokers,
            first.controller,
            first.partitions,
            first.topic_ids,
        ):
            return None
    return first


def controller_id(cluster: Cluster) -> int:
    """The controller every live broker names (waits for them to agree)."""
    view = wait_until(
        lambda: (v := agreed_metadata(cluster)) is not None and v.controller >= 0 and v,
        "controller id agreed by every live broker",
    )
    return view.controller


def topic_ready(
    view: MetadataView | None, topic: str, partitions: int, replication: int, live: Sequence[int]
) -> bool:
    """``topic`` has its partitions, each with a live leader and ``replication`` replicas."""
    if view is None or view.topic_errors.get(topic) != 0:
        return False
    parts = view.topic(topic)
    return len(parts) == partitions and all(
        v.error == 0 and v.leader in live and len(v.replicas) == replication for v in parts.values()
    )


def wait_topic_everywhere(
    cluster: Cluster, topic: str, partitions: int, replication: int = 3, timeout: float = 30.0
) -> MetadataView:
    """Wait until every live broker agrees on ``topic``, fully led; its agreed view."""
    live = live_brokers(cluster)
    return wait_until(
        lambda: (
            (v := agreed_metadata(cluster, [topic])) is not None
            and topic_ready(v, topic, partitions, replication, live)
            and v
        ),
        f"topic {topic} led everywhere, agreed by brokers {live}",
        timeout,
    )


# ---------------------------------------------------------------------- ZooKeeper


@contextlib.contextmanager
def zk_session(cluster: Cluster) -> Iterator[KazooClient]:
    """A kazoo session in the cluster's chroot."""
    assert cluster.zookeeper is not None
    client = KazooClient(hosts=cluster.zookeeper.connect(cluster.zk_chroot), timeout=10.0)
    client.start(timeout=30)
    try:
        yield client
    finally:
        client.stop()
        client.close()


def read_json(zk: KazooClient, path: str) -> tuple[dict[str, Any], bytes, Any]:
    """(parsed, raw bytes, stat) of a JSON znode."""
    raw, stat = zk.get(path)
    return json.loads(raw), raw, stat


def partition_state(zk: KazooClient, topic: str, partition: int) -> dict[str, Any]:
    return read_json(zk, f"/brokers/topics/{topic}/partitions/{partition}/state")[0]


def controller_epoch(zk: KazooClient) -> int:
    return int(zk.get("/controller_epoch")[0])


def kafka_uuid(value: uuid.UUID) -> str:
    """Kafka's ``Uuid.toString``: URL-safe base64 of the 16 bytes, no padding."""
    return base64.urlsafe_b64encode(value.bytes).rstrip(b"=").decode()


def kafka_json(obj: dict[str, Any]) -> bytes:
    """JSON as Kafka's Jackson writes it: compact, keys in the order given."""
    return json.dumps(obj, separators=(",", ":")).encode()


def topic_summary(cluster: Cluster, topic: str) -> dict[int, Any]:
    """Each live broker's (leader, leader epoch, ISR) per partition of ``topic``: for messages."""
    out: dict[int, Any] = {}
    for i in live_brokers(cluster):
        view = try_metadata(cluster, i, [topic])
        out[i] = (
            None
            if view is None
            else {p: (v.leader, v.leader_epoch, v.isr) for p, v in view.topic(topic).items()}
        )
    return out


def restore_brokers(cluster: Cluster) -> None:
    """Start every broker a failed test left down, and wait until all agree on the cluster
    again: the tests of a module share it."""
    for i in range(cluster.n):
        if not cluster.alive(i):
            cluster.start_broker(i)
    wait_until(
        lambda: (
            (v := agreed_metadata(cluster)) is not None and v.controller >= 0 and len(v.brokers) == cluster.n
        ),
        "every broker up and agreeing on the cluster",
        60,
    )
