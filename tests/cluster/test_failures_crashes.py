"""Jepsen-style failure combinations on an in-process ZooKeeper-mode cluster (3 brokers, RF 3,
min.insync.replicas=2, idempotent acks=all confluent-kafka producers): acknowledged records
survive in every replica exactly once, in order, at their acknowledged offsets; no stall."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from confluent_kafka import Producer

from protocol.messages import ApiKey
from tests.cluster.failure_scenarios import (
    BASE_OVERRIDES,
    chroot,
    controller_of,
    create_topic,
    formed,
    meta_state,
    produce_acked,
    produce_raw,
    pview,
    replica_records,
    wait_until,
)
from tests.support.cluster import Cluster
from tests.support.interception import Close, Drop

pytestmark = [pytest.mark.integration, pytest.mark.zookeeper]


@pytest.fixture
def cluster(zookeeper_shared: Any, tmp_path):
    with Cluster(
        3, zookeeper=zookeeper_shared, zk_chroot=chroot("fail"), base_dir=tmp_path, overrides=BASE_OVERRIDES
    ) as c:
        wait_until(lambda: formed(c), "the cluster formed")
        yield c


class Stream:
    """An idempotent acks=all producer streaming to partition 0 from a thread."""

    def __init__(self, cluster: Cluster, topic: str) -> None:
        self.producer = Producer(
            {
                "bootstrap.servers": cluster.bootstrap,
                "acks": "all",
                "enable.idempotence": True,
                "linger.ms": 2,
                "message.timeout.ms": 120_000,
            }
        )
        self.topic = topic
        self.acked: dict[bytes, int] = {}
        self.errors: list[Any] = []
        self.sent = 0
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _report(self, err: Any, msg: Any) -> None:
        with self._lock:
            if err is not None:
                self.errors.append(err)
            else:
                self.acked[msg.value()] = msg.offset()

    def _run(self) -> None:
        n = 0
        while not self._stop.is_set():
            self.producer.produce(self.topic, value=b"s%07d" % n, partition=0, on_delivery=self._report)
            n += 1
            self.sent = n
            self.producer.poll(0.003)
        self.unflushed = self.producer.flush(120)

    def count(self) -> int:
        with self._lock:
            return len(self.acked)

    def progressed(self, by: int = 100, timeout: float = 60) -> None:
        start = self.count()
        wait_until(lambda: self.count() >= start + by, f"{by} more acknowledgements", timeout)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(150)
        assert not self._thread.is_alive()


def check_logs(cluster: Cluster, topic: str, stream: Stream) -> None:
    def same() -> bool:
        ends = {pview(cluster, i, topic)[3:] for i in range(3)}
        return len(ends) == 1

    wait_until(same, "every replica at one end and HW", 90)
    logs = [replica_records(cluster.log_dir(i), topic, 0) for i in range(3)]
    assert logs[0] == logs[1] == logs[2], "replicas differ"
    values = [v for _, _, v in logs[0] if v.startswith(b"s")]
    assert len(values) == len(set(values)), "a record twice"
    assert values == sorted(values), "reordered"
    by_value = {v: o for o, _, v in logs[0]}
    lost = {v: o for v, o in stream.acked.items() if by_value.get(v) != o}
    assert not lost, f"{len(lost)} acknowledged records lost or moved, e.g. {list(lost.items())[:3]}"
    assert not stream.errors, stream.errors[:3]
    assert len(stream.acked) == stream.sent


def test_the_controller_and_a_leader_killed_together(cluster: Cluster) -> None:
    """KafkaController.onControllerFailover (the new controller handles both dead brokers:
    ZkReplicaStateMachine.startup's OfflineReplica, OfflinePartitionLeaderElection): the one
    survivor leads; with min.insync.replicas=2 acks=all waits (NOT_ENOUGH_REPLICAS, retried)
    until a second replica is back, and nothing acknowledged is lost."""
    topic = "ctl-and-leader"
    c = controller_of(cluster)
    a, b = [i for i in range(3) if i != c]
    create_topic(cluster, topic, [[a, c, b]], {"min.insync.replicas": "2"})
    stream = Stream(cluster, topic)
    try:
        stream.progressed(300)
        cluster.kill(a)
        cluster.kill(c)
        wait_until(lambda: (v := pview(cluster, b, topic)) is not None and v[0] == b, "b leading")
        cluster.start_broker(c)
        stream.progressed(100)
        cluster.start_broker(a)
        wait_until(lambda: pview(cluster, b, topic)[2] == (0, 1, 2), "everyone back in the ISR")
        stream.progressed(100)
    finally:
        stream.stop()
    check_logs(cluster, topic, stream)


def test_all_three_brokers_killed_and_restarted(cluster: Cluster) -> None:
    """LogLoader recovery after kill -9 of every replica, then KafkaController failover and
    follower truncation by leader epoch (KIP-101/279): acknowledged records survive."""
    topic = "all-dead"
    c = controller_of(cluster)
    a, b = [i for i in range(3) if i != c]
    create_topic(cluster, topic, [[a, b, c]], {"min.insync.replicas": "2"})
    stream = Stream(cluster, topic)
    try:
        stream.progressed(300)
        for i in (b, c, a):
            cluster.kill(i)
        for i in (a, b, c):
            cluster.start_broker(i)
        wait_until(lambda: formed(cluster), "the cluster formed again")
        stream.progressed(300, timeout=90)
    finally:
        stream.stop()
    wait_until(
        lambda: meta_state(cluster, c, topic) is not None and len(meta_state(cluster, c, topic).isr) == 3,
        "full ISR",
        60,
    )
    check_logs(cluster, topic, stream)


def test_the_controller_dies_with_an_isr_shrink_in_flight(cluster: Cluster) -> None:
    """AlterPartitionManager / Partition.handleAlterPartitionError: an ISR shrink the controller
    never answers (it dies), then the new controller's LeaderAndIsr; the leader proposes its
    ISR again to the new controller, so a cut-off follower does leave the ISR, acks=all is
    answered (NOT_ENOUGH_REPLICAS below min.insync), and once healed it returns: no stall."""
    topic = "shrink-lost"
    c = controller_of(cluster)
    leader, f = [i for i in range(3) if i != c]
    create_topic(cluster, topic, [[leader, f, c]], {"min.insync.replicas": "2"})
    first = produce_acked(cluster, topic, [b"first-%d" % i for i in range(50)])
    dropped = cluster.control(c, ApiKey.ALTER_PARTITION, lambda r: Drop(), keep=True)
    # f's fetches fail at the leader (connection closed); the control plane between them
    # still works, as f may be the next controller
    fetch_cut = cluster.control(
        leader, ApiKey.FETCH, lambda r: Close() if r.source_broker == f else None, keep=True
    )
    produce_acked(cluster, topic, [b"lag"], acks="1", **{"enable.idempotence": False})
    wait_until(
        lambda: (
            cluster.run(lambda: cluster.broker(leader).replica_manager.get_partition(topic, 0).pending_isr)
            is not None
        ),
        "a pending shrink",
    )
    dropped.remove()
    cluster.kill(c)
    # the new controller removes c from the ISR; the leader must get f out too
    wait_until(lambda: pview(cluster, leader, topic)[2] == (leader,), "the ISR down to the leader", 60)
    error, _ = produce_raw(cluster, leader, topic, b"refused", acks=-1, timeout_ms=5000)
    assert error == 19
    fetch_cut.remove()
    wait_until(
        lambda: pview(cluster, leader, topic)[2] == tuple(sorted((leader, f))), "f back in the ISR", 60
    )
    more = produce_acked(cluster, topic, [b"more-%d" % i for i in range(20)])
    cluster.start_broker(c)
    wait_until(lambda: pview(cluster, leader, topic)[2] == (0, 1, 2), "c back in the ISR", 60)
    wait_until(lambda: pview(cluster, c, topic)[3] == pview(cluster, leader, topic)[3], "c caught up")
    records = {v: o for o, _, v in replica_records(cluster.log_dir(c), topic, 0)}
    for v, o in {**first, **more}.items():
        assert records.get(v) == o


def test_a_parked_acks_all_produce_completes_when_the_controller_drops_a_dead_follower(
    cluster: Cluster,
) -> None:
    """KafkaController.onBrokerFailure (OfflineReplica: the dead follower leaves the ISR, the
    leader is re-elected with a new epoch) -> Partition.makeLeader (resetReplicaState keeps
    the other follower's log end offset) -> maybeIncrementLeaderHW and the DelayedProduce
    completion: an acks=all produce waiting for a follower that dies is answered NONE as soon
    as the ISR no longer holds it (it does not wait for replica.lag.time.max.ms or its timeout)."""
    import concurrent.futures

    topic = "parked"
    c = controller_of(cluster)
    leader, f = [i for i in range(3) if i != c]
    create_topic(cluster, topic, [[leader, f, c]], {"min.insync.replicas": "2"})
    first = produce_acked(cluster, topic, [b"first-%d" % i for i in range(10)])
    fetch_cut = cluster.control(
        leader, ApiKey.FETCH, lambda r: Close() if r.source_broker == f else None, keep=True
    )
    end = pview(cluster, leader, topic)[3]
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        future = pool.submit(produce_raw, cluster, leader, topic, b"parked", -1, 60_000)
        wait_until(lambda: pview(cluster, leader, topic)[3] > end or future.done(), "the produce appended")
        assert not future.done()
        cluster.kill(f)
        error, offset = future.result(90)
    fetch_cut.remove()
    assert error == 0, error
    records = {v: o for o, _, v in replica_records(cluster.log_dir(c), topic, 0)}
    assert records.get(b"parked") == offset
    for v, o in first.items():
        assert records.get(v) == o


def test_an_idempotent_retry_across_a_leader_epoch_bump_of_the_same_leader_is_a_duplicate(
    cluster: Cluster,
) -> None:
    """ProducerStateManager (the batch window survives Partition.makeLeader with a new epoch)
    and UnifiedLog.analyzeAndValidateProducerState: a committed batch whose answer was lost
    is retried after the controller re-elected the same leader with a higher epoch (a
    follower died: OfflineReplica); the retry is answered as a duplicate at its original
    offset, and the next sequence follows it."""
    from protocol.messages import InitProducerIdRequest
    from tests.integration.test_idempotent_produce import idempotent_batch, produce_on
    from tests.support.interception import DropResponse
    from tests.support.wire_client import WireClient

    topic = "idem-epoch"
    c = controller_of(cluster)
    leader, f = [i for i in range(3) if i != c]
    create_topic(cluster, topic, [[leader, f, c]], {"min.insync.replicas": "2"})

    def wire(timeout: float = 10.0) -> WireClient:
        return WireClient("127.0.0.1", cluster.port(leader), client_id="idem", timeout=timeout)

    with wire() as w:
        init = w.request(InitProducerIdRequest(transactional_id=None, transaction_timeout_ms=60_000), 4)
        pid, epoch = init.producer_id, init.producer_epoch
        assert produce_on(w, topic, 0, idempotent_batch(pid, epoch, 0, 2, tag="a")).error_code == 0
    lost = idempotent_batch(pid, epoch, 2, 3, tag="lost")
    dropped = cluster.control(
        leader, ApiKey.PRODUCE, lambda r: DropResponse() if r.client_id == "idem" else None
    )
    with wire(3.0) as w, pytest.raises((OSError, TimeoutError)):
        produce_on(w, topic, 0, lost)
    assert dropped.handled
    wait_until(lambda: pview(cluster, leader, topic)[4] == 5, "the lost batch committed")
    leader_epoch = pview(cluster, leader, topic)[1]
    cluster.kill(f)
    wait_until(lambda: pview(cluster, leader, topic)[1] > leader_epoch, "a new leader epoch, same leader")
    assert pview(cluster, leader, topic)[0] == leader
    with wire() as w:
        retry = produce_on(w, topic, 0, lost)
        assert (retry.error_code, retry.base_offset) == (0, 2), retry
        nxt = produce_on(w, topic, 0, idempotent_batch(pid, epoch, 5, 1, tag="next"))
        assert (nxt.error_code, nxt.base_offset) == (0, 5), nxt
    wait_until(lambda: len(replica_records(cluster.log_dir(c), topic, 0)) == 6, "c at 6 records")
    values = [v.split(b"|")[0] for _, _, v in replica_records(cluster.log_dir(c), topic, 0)]
    assert values == [b"a"] * 2 + [b"lost"] * 3 + [b"next"]
