"""Idempotence across a leader change, on the wire (issue 13, Deliver 6).

A batch with a fixed producer id, epoch and sequence is appended and committed by the
leader, but its answer never reaches the producer (the response is dropped by the
in-process harness's ``control``). The leader is then killed. The producer retries the
SAME batch at the new leader, which holds the producer state it replicated from the old
one (``ProducerStateManager`` on the follower, ``PartitionLog.append_as_follower``): the
retry is a duplicate, answered with the ORIGINAL offset and appended nowhere, and the next
sequence is accepted after it (Kafka's ``ProducerStateManager`` / ``UnifiedLog.analyzeAndValidateProducerState``).
Every replica's log then holds the batch exactly once, at the same offset.
"""

from __future__ import annotations

import socket
from collections import Counter
from typing import Any

import pytest

from protocol.errors import ErrorCode
from protocol.messages import ApiKey, InitProducerIdRequest, ProduceResponse
from tests.cluster.test_replication import (  # noqa: F401 (cluster: the in-process fixture)
    cluster,
    create_topic,
    leader_of,
    partition_view,
    replica_records,
    replicas_in_sync,
    wait_until,
)
from tests.integration.test_idempotent_produce import idempotent_batch, produce_on
from tests.support.cluster import Cluster
from tests.support.interception import DropResponse
from tests.support.wire_client import WireClient

pytestmark = pytest.mark.integration

TOPIC = "idem"


def client(cluster: Cluster, i: int, timeout: float = 10.0) -> WireClient:  # noqa: F811 (the fixture imported above)
    host, port = cluster.address(i).rsplit(":", 1)
    return WireClient(host, int(port), client_id="idempotent-producer", timeout=timeout)


def produce_at(cluster: Cluster, i: int, batch: bytes) -> ProduceResponse.PartitionProduceResponse:  # noqa: F811
    with client(cluster, i) as c:
        return produce_on(c, TOPIC, 0, batch)


def test_a_batch_retried_after_the_leader_died_is_a_duplicate_at_its_original_offset(
    cluster: Cluster,  # noqa: F811 (the in-process fixture)
) -> None:
    create_topic(cluster, TOPIC, config={"min.insync.replicas": "2"})
    leader = leader_of(cluster, TOPIC)
    wait_until(lambda: partition_view(cluster, leader, TOPIC)[2] == (0, 1, 2), "the full ISR")
    with client(cluster, leader) as c:
        init = c.request(InitProducerIdRequest(transactional_id=None, transaction_timeout_ms=60_000), 4)
    assert init.error_code == 0, init
    pid, epoch = init.producer_id, init.producer_epoch

    first = produce_at(cluster, leader, idempotent_batch(pid, epoch, 0, 2, tag="first"))
    assert first.error_code == 0 and first.base_offset == 0, first

    # The second batch (sequences 2-4) is appended and committed, but its answer is lost.
    lost = idempotent_batch(pid, epoch, 2, 3, tag="lost")
    dropped = cluster.control(
        leader,
        ApiKey.PRODUCE,
        lambda r: DropResponse() if r.client_id == "idempotent-producer" else None,
    )
    with client(cluster, leader, timeout=3.0) as c, pytest.raises((socket.timeout, TimeoutError)):
        produce_on(c, TOPIC, 0, lost)
    assert dropped.handled
    wait_until(lambda: replicas_in_sync(cluster, TOPIC, 0, [0, 1, 2]), "the batch on every replica")
    assert partition_view(cluster, leader, TOPIC)[4] == 5  # committed: high watermark past it

    cluster.kill(leader)
    survivors = [i for i in range(3) if i != leader]

    def retried_at_new_leader() -> tuple[int, Any] | None:
        for i in survivors:
            view = partition_view(cluster, i, TOPIC)
            if view is not None and view[0] == i:
                answer = produce_at(cluster, i, lost)  # the SAME batch: pid, epoch, sequence 2
                if answer.error_code != ErrorCode.NOT_LEADER_OR_FOLLOWER.code:
                    return i, answer
        return None

    new_leader, retry = wait_until(retried_at_new_leader, "an answer from the new leader")
    assert new_leader != leader
    assert retry.error_code == 0 and retry.base_offset == 2, retry  # the original offset
    assert partition_view(cluster, new_leader, TOPIC)[3] == 5  # nothing appended

    following = produce_at(cluster, new_leader, idempotent_batch(pid, epoch, 5, 1, tag="next"))
    assert following.error_code == 0 and following.base_offset == 5, following
    # a sequence gap is still refused: the new leader tracks this producer's sequences
    gap = produce_at(cluster, new_leader, idempotent_batch(pid, epoch, 9, 1, tag="gap"))
    assert gap.error_code == ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER.code, gap

    cluster.start_broker(leader)
    wait_until(lambda: replicas_in_sync(cluster, TOPIC, 0, [0, 1, 2]), "the restarted replica caught up", 120)
    logs = [replica_records(cluster.log_dir(i), TOPIC, 0) for i in range(3)]
    assert logs[0] == logs[1] == logs[2]
    values = [v.decode() for _, _, v in logs[0]]
    assert [o for o, _, _ in logs[0]] == list(range(6))
    assert [v.split("|")[0] for v in values] == ["first"] * 2 + ["lost"] * 3 + ["next"]
    assert Counter(values).most_common(1)[0][1] == 1  # every record once
