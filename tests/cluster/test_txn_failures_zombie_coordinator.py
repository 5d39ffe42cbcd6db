"""A deposed transaction coordinator (cut from ZooKeeper only) keeps sending the markers of a
transaction its successor already completed."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from broker.testing.interception import Close
from protocol.messages import ApiKey
from tests.cluster.failure_scenarios import create_topic, relayed_cluster, wait_until
from tests.cluster.txn_failure_scenarios import (
    COMMIT,
    OVERRIDES,
    TIMEOUT_S,
    batches,
    describe,
    read_committed,
    txn_producer,
)
from tests.support.cluster import Cluster

pytestmark = [pytest.mark.integration, pytest.mark.zookeeper]

SESSION_MS = 4000
# How long a WriteTxnMarkers waits for the followers (acks=-1): the deposed leader's wait for
# followers it lost must end before the coordinator writes the marker to its successor.
MARKER_WAIT_MS = 8000


@pytest.fixture
def relayed(zookeeper_shared: Any, tmp_path):
    overrides = {
        **OVERRIDES,
        "zookeeper.session.timeout.ms": str(SESSION_MS),
        "request.timeout.ms": str(MARKER_WAIT_MS),
    }
    with relayed_cluster(zookeeper_shared, tmp_path, "txnzk", overrides) as found:
        yield found


def owners(cluster: Cluster) -> list[int]:
    out = []
    for i in range(cluster.n):
        owned = cluster.run(lambda i=i: cluster.broker(i).transactions.owned_partitions)
        if owned and 0 in owned:
            out.append(i)
    return out


def test_markers_of_a_deposed_coordinator_are_fenced(relayed) -> None:
    """ProducerStateManager / ProducerAppendInfo.checkCoordinatorEpoch and
    TransactionMarkerRequestCompletionHandler (TRANSACTION_COORDINATOR_FENCED stops the
    sending): once the successor's COMMIT marker (higher coordinator epoch) is in the
    partition and the producer opened its next transaction there, a late COMMIT marker of the
    deposed coordinator must not commit that open transaction."""
    cluster, relays = relayed
    topic = "zombiecoord"
    p = txn_producer(cluster, "zc")
    p.init_transactions(TIMEOUT_S)
    [old] = wait_until(lambda: owners(cluster), "the coordinator")
    lead = next(i for i in range(3) if i != old)
    other = 3 - old - lead
    create_topic(cluster, topic, [[lead, other, old]], {"min.insync.replicas": "2"})
    pid = describe(cluster, old, "zc").producer_id

    held = {"on": True, "late": 0}

    def from_old(r: Any) -> Any:
        if r.source_broker != old:
            return None
        if held["on"]:
            return Close()
        held["late"] += 1
        return None

    cluster.control(lead, ApiKey.WRITE_TXN_MARKERS, from_old, keep=True)
    p.begin_transaction()
    t1 = [f"t1-{i}".encode() for i in range(3)]
    for v in t1:
        p.produce(topic, value=v, partition=0)
    p.commit_transaction(TIMEOUT_S)  # PrepareCommit durable on `old`, its markers refused
    # clients cannot reach the old coordinator; its ZooKeeper session expires
    cluster.isolate(old, from_brokers=False)
    relays[old].cut()

    def successor() -> int | None:
        found = [i for i in owners(cluster) if i != old]
        return found[0] + 1 if found else None

    new = wait_until(successor, "a new coordinator", 60) - 1
    wait_until(
        lambda: describe(cluster, new, "zc").state == "CompleteCommit", "T1 completed by the successor", 60
    )
    assert old in owners(cluster), "the deposed coordinator heard of its deposition"
    # the producer's next transaction, open on the partition
    p.begin_transaction()
    t2 = [f"t2-{i}".encode() for i in range(3)]
    for v in t2:
        p.produce(topic, value=v, partition=0)
    assert p.flush(TIMEOUT_S) == 0
    n_batches = len(batches(cluster.log_dir(lead), topic, 0))
    # the deposed coordinator's retried COMMIT marker now reaches the leader
    held["on"] = False
    wait_until(lambda: held["late"] >= 1, "a late marker of the deposed coordinator", 30)
    commits = [b for b in batches(cluster.log_dir(lead), topic, 0) if b[1] == pid and b[3] == COMMIT]
    assert len(commits) == 1, (
        f"a COMMIT marker after the open transaction: {batches(cluster.log_dir(lead), topic, 0)}"
    )
    assert len(batches(cluster.log_dir(lead), topic, 0)) == n_batches
    assert Counter(read_committed(f"{cluster.address(lead)},{cluster.address(other)}", topic, 3)) == Counter(
        t1
    )
    relays[old].heal()
    cluster.rejoin(old)
    p.abort_transaction(TIMEOUT_S)
    assert Counter(read_committed(cluster.bootstrap, topic, 3)) == Counter(t1)


@pytest.mark.parametrize("commit", [True, False])
def test_deposed_leader_truncates_its_marker_live_and_leads_again(relayed, commit: bool) -> None:
    """UnifiedLog.truncateTo (ProducerStateManager.truncateAndReload, TransactionIndex
    truncation) on a live broker: the data partition's leader appends a marker its followers
    never fetch, is cut from ZooKeeper (a follower is elected, the coordinator writes the
    marker there), returns and truncates its marker as a follower, then leads again after a
    preferred election: its LSO, .txnindex and read_committed answers are the others'."""
    from confluent_kafka import ElectionType, TopicPartition
    from confluent_kafka.admin import AdminClient

    from broker.testing.interception import Drop
    from tests.cluster.failure_scenarios import pview
    from tests.cluster.txn_failure_scenarios import ABORT, converged, markers, values

    cluster, relays = relayed
    topic = "livetrunc"
    p = txn_producer(cluster, "lt")
    p.init_transactions(TIMEOUT_S)
    [c] = wait_until(lambda: owners(cluster), "the coordinator")
    lead, f = [i for i in range(3) if i != c]
    create_topic(cluster, topic, [[lead, f, c]], {"min.insync.replicas": "2"})
    pid = describe(cluster, c, "lt").producer_id
    p.begin_transaction()
    sent = [f"x{i}".encode() for i in range(5)]
    for v in sent:
        p.produce(topic, value=v, partition=0)
    assert p.flush(TIMEOUT_S) == 0
    wait_until(lambda: pview(cluster, f, topic)[3] == 5 and pview(cluster, c, topic)[3] == 5, "replicated")
    dropped: set[int] = set()

    def drop(r: Any) -> Any:
        if r.source_broker is None:
            return None
        dropped.add(r.source_broker)
        return Drop()

    ctl = cluster.control(lead, ApiKey.FETCH, drop, keep=True)
    wait_until(lambda: dropped >= {f, c}, "both followers' fetches lost")
    kind = COMMIT if commit else ABORT
    if commit:
        p.commit_transaction(TIMEOUT_S)
    else:
        p.abort_transaction(TIMEOUT_S)
    wait_until(
        lambda: markers(cluster.log_dir(lead), topic, 0) == [(pid, 0, kind)], "the marker on the leader"
    )
    relays[lead].cut()
    wait_until(lambda: (v := pview(cluster, f, topic)) is not None and v[0] == f, "f leading", 60)
    ctl.remove()
    wait_until(
        lambda: describe(cluster, c, "lt").state == ("CompleteCommit" if commit else "CompleteAbort"),
        "the transaction completed",
        60,
    )
    relays[lead].heal()
    converged(cluster, topic)
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap})
    wait_until(
        lambda: (
            sorted(cluster.run(lambda: cluster.broker(c).metadata_cache.partition_state(topic, 0)).isr)
            == [0, 1, 2]
        ),
        "the old leader back in the ISR",
        90,
    )
    admin.elect_leaders(ElectionType.PREFERRED, [TopicPartition(topic, 0)]).result(60)
    wait_until(
        lambda: (v := pview(cluster, lead, topic)) is not None and v[0] == lead, "lead leading again", 60
    )
    for i in range(3):
        assert markers(cluster.log_dir(i), topic, 0) == [(pid, 0, kind)], (
            i,
            markers(cluster.log_dir(i), topic, 0),
        )
        assert values(cluster.log_dir(i), topic, 0) == sent, i
    idx = [
        {fl.name: fl.read_bytes() for fl in sorted((cluster.log_dir(i) / f"{topic}-0").glob("*.txnindex"))}
        for i in range(3)
    ]
    assert idx[0] == idx[1] == idx[2], idx
    st = cluster.run(
        lambda: (lambda pp: (pp.log.last_stable_offset, pp.log.high_watermark, pp.log.log_end_offset))(
            cluster.broker(lead).replica_manager.get_partition(topic, 0)
        )
    )
    assert st == (6, 6, 6), st
    want = sent if commit else []
    assert Counter(read_committed(cluster.address(lead), topic, len(want))) == Counter(want)
