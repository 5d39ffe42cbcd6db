"""A transaction between PrepareCommit/PrepareAbort and CompleteCommit/CompleteAbort, against
Kafka 3.9's TransactionCoordinator.endTransaction, TransactionStateManager.loadTransactionsForTxnTopicPartition
and TransactionMarkerRequestCompletionHandler, on a lone broker's real logs with the fake
marker writer of tests/coordinator/test_transaction_coordinator.py.
"""

from __future__ import annotations

import asyncio

import pytest

from coordinator.transaction_markers import NO_LEADER
from tests.coordinator.test_transaction_coordinator import E, Env, S, run, settle


@pytest.mark.parametrize("committed", [True, False])
def test_end_of_the_other_kind_while_markers_are_out_is_concurrent(tmp_path, committed):
    """TransactionCoordinator.endTransaction: once PrepareCommit/PrepareAbort is written the
    metadata carries the pending CompleteCommit/CompleteAbort (``prepareComplete`` in
    ``sendTxnMarkersCallback``) until the markers are in and Complete* is written, and
    ``pendingTransitionInProgress`` is checked before the state: an EndTxn of the other kind
    answers CONCURRENT_TRANSACTIONS (retriable), not INVALID_TXN_STATE (fatal for the Java
    client and librdkafka)."""

    async def body():
        env = Env(tmp_path)
        env.leaders[("x", 0)] = NO_LEADER  # the markers cannot be written yet
        tc = await env.start()
        r = await tc.init_producer_id("t", 60000, None)
        assert await tc.add_partitions("t", r.producer_id, 0, [("x", 0)]) is E.NONE
        assert await tc.end_txn("t", r.producer_id, 0, committed) is E.NONE
        assert await tc.end_txn("t", r.producer_id, 0, not committed) is E.CONCURRENT_TRANSACTIONS
        await env.close(tc)

    run(body())


def test_end_of_the_other_kind_after_a_reload_is_concurrent(tmp_path):
    """TransactionStateManager.loadTransactionsForTxnTopicPartition: a loaded PrepareCommit gets
    ``prepareComplete`` (pending CompleteCommit) before its markers are sent again, so an
    EndTxn(abort) answers CONCURRENT_TRANSACTIONS while they are out."""

    async def body():
        env = Env(tmp_path)
        env.leaders[("x", 0)] = NO_LEADER
        tc = await env.start()
        r = await tc.init_producer_id("t", 60000, None)
        assert await tc.add_partitions("t", r.producer_id, 0, [("x", 0)]) is E.NONE
        assert await tc.end_txn("t", r.producer_id, 0, True) is E.NONE
        await env.close(tc)
        tc = await env.start()  # the coordinator restarts: PrepareCommit is loaded and resumed
        assert tc.describe("t").state == "PrepareCommit"
        assert await tc.end_txn("t", r.producer_id, 0, False) is E.CONCURRENT_TRANSACTIONS
        await env.close(tc)

    run(body())


def test_describe_lists_only_partitions_still_waiting_for_their_marker(tmp_path):
    """TransactionMarkerRequestCompletionHandler.onComplete: a partition whose marker was
    written is removed from the transaction (``txnMetadata.removePartition``), so
    DescribeTransactions (kafka-transactions.sh describe) of a transaction stuck in
    PrepareCommit lists only the partitions still waiting for their marker; a partition
    whose topic is gone is removed too (TransactionMarkerChannelManager.addTxnMarkersToBrokerQueue)."""

    async def body():
        env = Env(tmp_path)
        env.leaders[("x", 1)] = NO_LEADER  # x-1 has no leader: its marker waits
        env.leaders[("gone", 0)] = None  # deleted: its marker is dropped
        tc = await env.start()
        r = await tc.init_producer_id("t", 60000, None)
        tps = [("x", 0), ("x", 1), ("gone", 0)]
        assert await tc.add_partitions("t", r.producer_id, 0, tps) is E.NONE
        assert await tc.end_txn("t", r.producer_id, 0, True) is E.NONE
        async with asyncio.timeout(10):
            while tc.describe("t").partitions != {"x": [1]}:
                await asyncio.sleep(0.005)
        d = tc.describe("t")
        assert (d.state, d.partitions) == ("PrepareCommit", {"x": [1]})
        assert any(("x", 0) in m.partitions for _, m in env.writer.sent)
        env.leaders[("x", 1)] = 0
        await settle(tc, "t", S.COMPLETE_COMMIT)
        assert tc.describe("t").partitions == {}
        await env.close(tc)

    run(body())


def test_list_transactions_while_a_partition_loads_lists_nothing(tmp_path):
    """TransactionStateManager.listTransactionStates: while any ``__transaction_state``
    partition is loading the response carries COORDINATOR_LOAD_IN_PROGRESS and no transaction
    states (the admin client retries), not the transactions of the partitions already loaded."""

    async def body():
        env = Env(tmp_path)
        tc = env.open()
        tc.follow_leadership()
        await tc.start()
        async with asyncio.timeout(10):
            while tc.find_coordinator("x") is not E.NONE:
                await asyncio.sleep(0.01)
        ids = {tc.partition_for(f"id-{i}"): f"id-{i}" for i in range(20)}
        (p1, loaded), (p2, _) = sorted(ids.items())[:2]
        tc.on_election(p1, 1)
        await tc.state._load_tasks[p1]
        assert (await tc.init_producer_id(loaded, 60000, None)).error is E.NONE
        assert [t.transactional_id for t in tc.list_transactions([], [])[2]] == [loaded]
        tc.on_election(p2, 1)  # loading
        assert tc.list_transactions(["Bogus"], []) == (E.COORDINATOR_LOAD_IN_PROGRESS, [], [])
        assert tc.list_transactions([], []) == (E.COORDINATOR_LOAD_IN_PROGRESS, [], [])
        await env.close(tc)

    run(body())
