"""TxnOffsetCommit answers a failed KIP-890 verification as Kafka 3.9's GroupCoordinator.handleTxnCommitOffsets does."""

from __future__ import annotations

import pytest

from protocol.errors import ErrorCode
from protocol.messages import InitProducerIdRequest
from tests.support.wire_broker import client, cluster, create_topic, unique  # noqa: F401
from tests.transactions.test_transactions_wire import txn_offset_commit

pytestmark = pytest.mark.integration


def _commit(c, txn, group, pid, epoch, topic, version):
    ((code,),) = txn_offset_commit(c, txn, group, pid, epoch, {topic: 5}, version)
    return ErrorCode.for_code(code)


def test_txn_offset_commit_v4_without_add_offsets_is_transaction_abortable(client):  # noqa: F811
    """GroupCoordinator.handleTxnCommitOffsets passes genericError for TxnOffsetCommit v4+
    (defaultError below), so AddPartitionsToTxnManager keeps the coordinator's
    TRANSACTION_ABORTABLE (KIP-890) instead of turning it into INVALID_TXN_STATE."""
    topic = unique("tocv4")
    create_topic(client, topic)
    txn = unique("tocv4-txn")
    init = InitProducerIdRequest(transactional_id=txn, transaction_timeout_ms=60_000)
    r = client.request(init, 4)
    assert r.error_code == 0
    group = unique("tocv4-g")
    # below v4: INVALID_TXN_STATE (defaultError), as Moldau answers
    assert (
        _commit(client, txn, group, r.producer_id, r.producer_epoch, topic, 3) is ErrorCode.INVALID_TXN_STATE
    )
    assert (
        _commit(client, txn, group, r.producer_id, r.producer_epoch, topic, 4)
        is ErrorCode.TRANSACTION_ABORTABLE
    )


def test_txn_offset_commit_while_commit_completes_is_concurrent_transactions(client, monkeypatch):  # noqa: F811
    """GroupCoordinator.handleTxnCommitOffsets -> GroupMetadataManager.maybeConvertOffsetCommitError:
    a verification answer of CONCURRENT_TRANSACTIONS (TransactionCoordinator.
    handleVerifyPartitionsInTransaction, state PrepareCommit) is returned as is; only Produce
    (ReplicaManager.handleProduceAppend) turns it into NOT_ENOUGH_REPLICAS."""
    from broker.txn_marker_channel import TxnMarkerChannel
    from protocol.messages import AddOffsetsToTxnRequest, DescribeTransactionsRequest, EndTxnRequest

    held = {"on": True}
    real = TxnMarkerChannel.write_txn_markers

    async def hold(self, broker_id, markers):
        if not held["on"]:
            return await real(self, broker_id, markers)
        return [dict.fromkeys(m.partitions, ErrorCode.NOT_ENOUGH_REPLICAS) for m in markers]

    monkeypatch.setattr(TxnMarkerChannel, "write_txn_markers", hold)
    try:
        topic = unique("tocc")
        create_topic(client, topic)
        txn = unique("tocc-txn")
        group = unique("tocc-g")
        r = client.request(InitProducerIdRequest(transactional_id=txn, transaction_timeout_ms=60_000), 4)
        pid, epoch = r.producer_id, r.producer_epoch
        add = AddOffsetsToTxnRequest(
            transactional_id=txn, producer_id=pid, producer_epoch=epoch, group_id=group
        )
        assert client.request(add, 3).error_code == 0
        end = EndTxnRequest(transactional_id=txn, producer_id=pid, producer_epoch=epoch, committed=True)
        assert client.request(end, 3).error_code == 0
        state = client.request(DescribeTransactionsRequest(transactional_ids=[txn]), 0).transaction_states[0]
        assert state.transaction_state == "PrepareCommit"
        assert _commit(client, txn, group, pid, epoch, topic, 3) is ErrorCode.CONCURRENT_TRANSACTIONS
    finally:
        held["on"] = False
