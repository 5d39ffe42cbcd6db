"""Transaction request edge cases against Kafka 3.9's KafkaApis / TransactionStateManager."""

from __future__ import annotations

from protocol.messages import AddPartitionsToTxnRequest as A
from protocol.messages import EndTxnRequest, InitProducerIdRequest, ListTransactionsRequest, ProduceRequest
from protocol.records import build_batch
from tests.support.polling import wait_until
from tests.support.wire_broker import client, cluster, create_topic, unique  # noqa: F401 (fixtures)


def _listed(client, pid: int, duration_ms: int) -> dict[str, str]:  # noqa: F811
    req = ListTransactionsRequest(producer_id_filters=[pid], duration_filter=duration_ms)
    resp = client.request(req, 1)
    assert resp.error_code == 0
    return {t.transactional_id: t.transaction_state for t in resp.transaction_states}


def test_list_transactions_duration_filter_keeps_completed_transactions(client):  # noqa: F811
    """Kafka's TransactionStateManager.listTransactionStates (KIP-994, ListTransactions v1)
    drops a transaction only when ``now - txnStartTimestamp <= filterDurationMs``, whatever
    its state (TransactionStateManagerTest.testListTransactionsFiltering: duration 0 lists
    PrepareCommit, CompleteCommit, CompleteAbort, PrepareEpochFence too). A committed
    transaction (CompleteCommit) is therefore listed with DurationFilter 0 once a
    millisecond has passed since it started."""
    topic = unique("txlist")
    create_topic(client, topic)
    txn = unique("txlist")
    init = client.request(InitProducerIdRequest(transactional_id=txn, transaction_timeout_ms=60_000), 4)
    assert init.error_code == 0
    pid, epoch = init.producer_id, init.producer_epoch
    add = A(
        v3_and_below_transactional_id=txn,
        v3_and_below_producer_id=pid,
        v3_and_below_producer_epoch=epoch,
        v3_and_below_topics=[A.AddPartitionsToTxnTopic(name=topic, partitions=[0])],
    )
    (r,) = client.request(add, 3).results_by_topic_v3_and_below
    assert r.results_by_partition[0].partition_error_code == 0
    batch = build_batch(
        [(b"k", b"v")], producer_id=pid, producer_epoch=epoch, base_sequence=0, transactional=True
    )
    produce = ProduceRequest(
        transactional_id=txn,
        acks=-1,
        timeout_ms=10_000,
        topic_data=[
            ProduceRequest.TopicProduceData(
                name=topic, partition_data=[ProduceRequest.PartitionProduceData(index=0, records=batch)]
            )
        ],
    )
    assert client.request(produce, 9).responses[0].partition_responses[0].error_code == 0
    end = EndTxnRequest(transactional_id=txn, producer_id=pid, producer_epoch=epoch, committed=True)
    assert client.request(end, 3).error_code == 0
    wait_until(lambda: _listed(client, pid, -1).get(txn) == "CompleteCommit", "CompleteCommit")
    wait_until(
        lambda: _listed(client, pid, 0).get(txn) == "CompleteCommit",
        "the committed transaction listed with DurationFilter 0",
        timeout=10.0,
    )
