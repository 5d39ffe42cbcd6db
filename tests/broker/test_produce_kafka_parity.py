"""Produce answers as Kafka 3.9 gives them, on a real broker: TRANSACTION_ABORTABLE for a transactional
batch to a partition not in the transaction from v11, and invalid acks after the per-partition checks."""

from __future__ import annotations

import uuid

import pytest

from protocol.errors import ErrorCode
from protocol.messages import (
    CreateTopicsRequest,
    FindCoordinatorRequest,
    InitProducerIdRequest,
    ProduceRequest,
)
from protocol.records import build_batch
from tests.support.broker_process import BrokerProcess
from tests.support.polling import wait_until
from tests.support.wire_client import WireClient

pytestmark = pytest.mark.integration

E = ErrorCode
TOPIC = "rt"


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory):
    b = BrokerProcess(
        tmp_path_factory.mktemp("produce-parity") / "data",
        {"transaction.state.log.num.partitions": "2", "offsets.topic.num.partitions": "2"},
    )
    b.start()
    yield b
    b.stop()


@pytest.fixture(scope="module")
def client(broker):
    with WireClient(broker.host, broker.port) as c:
        for key_type in (1, 0):
            request = FindCoordinatorRequest(key="any", key_type=key_type)
            wait_until(
                lambda request=request: c.request(request, 1).error_code == 0,
                f"a coordinator of key type {key_type}",
            )
        c.request(
            CreateTopicsRequest(
                topics=[
                    CreateTopicsRequest.CreatableTopic(name=TOPIC, num_partitions=2, replication_factor=1)
                ],
                timeout_ms=10_000,
            ),
            5,
        )
        yield c


def _produce(c: WireClient, partitions, *, version: int, acks: int = -1, txn_id: str | None = None):
    req = ProduceRequest(
        transactional_id=txn_id,
        acks=acks,
        timeout_ms=10_000,
        topic_data=[
            ProduceRequest.TopicProduceData(
                name=topic, partition_data=[ProduceRequest.PartitionProduceData(index=p, records=r)]
            )
            for topic, p, r in partitions
        ],
    )
    resp = c.request(req, version)
    return {(t.name, p.index): p for t in resp.responses for p in t.partition_responses}


@pytest.mark.parametrize("version, expected", [(11, E.TRANSACTION_ABORTABLE), (10, E.INVALID_TXN_STATE)])
def test_transactional_produce_to_a_partition_not_added_is_transaction_abortable_from_v11(
    client, version, expected
):
    """Kafka 3.8+ ``TransactionCoordinator.handleVerifyPartitionsInTransaction`` answers
    TRANSACTION_ABORTABLE for a partition not in the transaction; ``AddPartitionsToTxnManager``
    keeps it for Produce v11 (genericError) and maps it to INVALID_TXN_STATE only below."""
    txn = f"abortable-{uuid.uuid4().hex[:6]}"
    r = client.request(InitProducerIdRequest(transactional_id=txn, transaction_timeout_ms=60_000), 4)
    assert r.error_code == 0
    batch = build_batch(
        [(b"k", b"v")],
        producer_id=r.producer_id,
        producer_epoch=r.producer_epoch,
        base_sequence=0,
        transactional=True,
    )
    # no AddPartitionsToTxn: the partition is not in the producer's transaction
    got = _produce(client, [(TOPIC, 0, batch)], version=version, txn_id=txn)[(TOPIC, 0)]
    assert E.for_code(got.error_code) is expected


def test_invalid_acks_keeps_unknown_partition_and_bad_records_errors(client):
    """Kafka's KafkaApis.handleProduceRequest answers unknown partitions
    (UNKNOWN_TOPIC_OR_PARTITION) and records failing ProduceRequest.validateRecords before
    ReplicaManager.appendRecords checks acks; only the partitions that reach it get
    INVALID_REQUIRED_ACKS."""
    good = build_batch([(b"k", b"v")])
    unknown = f"nope-{uuid.uuid4().hex[:6]}"
    got = _produce(client, [(TOPIC, 0, good), (TOPIC, 1, b"\x00" * 8), (unknown, 0, good)], version=9, acks=2)
    assert {k: E.for_code(v.error_code) for k, v in got.items()} == {
        (TOPIC, 0): E.INVALID_REQUIRED_ACKS,
        (TOPIC, 1): E.INVALID_RECORD,  # ProduceRequest.validateRecords: no record batch
        (unknown, 0): E.UNKNOWN_TOPIC_OR_PARTITION,
    }
