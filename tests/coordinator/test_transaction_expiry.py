"""Transactional id expiry and the coordinator's periodic jobs, against Kafka 3.9's
TransactionStateManager (removeExpiredTransactionalIds, writeTombstonesForExpiredTransactionalIds)
and TransactionCoordinator.startup, on a lone broker's real logs with the fake marker writer of
tests/coordinator/test_transaction_coordinator.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from coordinator import transaction_log
from coordinator.transaction_log import TRANSACTION_STATE_TOPIC, decode_txn_key
from protocol.record_batch import iter_batches
from protocol.records import decode_all
from tests.coordinator.test_transaction_coordinator import E, Env, run


async def _wait(cond: Callable[[], bool], timeout_s: float = 10) -> bool:
    """Poll ``cond`` until it holds (True) or the deadline passes (False)."""
    try:
        async with asyncio.timeout(timeout_s):
            while not cond():
                await asyncio.sleep(0.005)
    except TimeoutError:
        return False
    return True


def _batches(env: Env) -> int:
    data = env.rm.read_records(TRANSACTION_STATE_TOPIC, 0, 0, 1 << 24, max_offset=1 << 40)
    return sum(1 for _ in iter_batches(memoryview(data)))


def test_expiry_does_not_remove_an_id_reinitialized_after_the_check(tmp_path):
    """TransactionStateManager.removeExpiredTransactionalIds checks ``shouldExpire`` and calls
    ``prepareDead`` under the metadata's lock in one step, so an id re-initialized right after
    the check is never removed: its pending Dead makes InitProducerId answer
    CONCURRENT_TRANSACTIONS (the client retries), or its new last-update time keeps it."""

    async def body():
        env = Env(tmp_path, id_expiration_ms=1000)
        tc = await env.start()
        first = await tc.init_producer_id("idle", 60000, None)
        env.clock.now += 1001
        assert tc.expire_transactional_ids() == 1
        again = await tc.init_producer_id("idle", 60000, None)
        if again.error is E.NONE:
            # Re-initialized: the id must survive the expiration run.
            assert again.producer_id == first.producer_id
            assert await _wait(lambda: not tc._background)
            assert tc.describe("idle").error is E.NONE
            assert (
                await tc.add_partitions("idle", again.producer_id, again.producer_epoch, [("x", 0)]) is E.NONE
            )
        else:  # Kafka's order: Dead is pending, the client retries
            assert again.error is E.CONCURRENT_TRANSACTIONS
        await env.close(tc)

    run(body())


def test_expired_ids_tombstones_are_written_in_one_batch_per_partition(tmp_path):
    """TransactionStateManager.removeExpiredTransactionalIds / writeTombstonesForExpiredTransactionalIds:
    the tombstones of one expiration run are built into one MemoryRecords per
    ``__transaction_state`` partition (a new batch only when ``max.message.bytes`` is reached)
    and appended once, not one single-record append per id."""

    async def body():
        env = Env(tmp_path, id_expiration_ms=1000, num_partitions=1)
        tc = await env.start()
        ids = [f"id-{i}" for i in range(50)]
        for txn_id in ids:
            assert (await tc.init_producer_id(txn_id, 60000, None)).error is E.NONE
        before = _batches(env)
        env.clock.now += 1001
        assert tc.expire_transactional_ids() == len(ids)
        assert await _wait(lambda: all(tc.describe(i).error is E.TRANSACTIONAL_ID_NOT_FOUND for i in ids))
        assert _batches(env) - before == 1
        await env.close(tc)

    run(body())


def test_periodic_timers_do_not_accumulate_handles(tmp_path):
    """TransactionCoordinator.startup schedules ``transaction-abort`` (and the state manager
    ``transactionalId-expiration``) once as periodic tasks: nothing grows with the runs (one
    pending timer handle per job, never one more per run)."""

    async def body():
        env = Env(tmp_path, abort_timed_out_interval_ms=1, remove_expired_interval_ms=1)
        tc = await env.start()
        runs = 0
        real = tc.abort_timed_out_transactions

        def counted() -> int:
            nonlocal runs
            runs += 1
            return real()

        tc.abort_timed_out_transactions = counted  # type: ignore[method-assign]
        assert await _wait(lambda: runs >= 100)
        assert len(tc._timers) <= 2
        await env.close(tc)

    run(body())


def test_tombstone_batches_split_at_max_message_bytes():
    """removeExpiredTransactionalIds: a MemoryRecordsBuilder limited to the partition's
    ``max.message.bytes`` takes tombstones while ``hasRoomFor`` holds (always the first), then a
    new batch starts; every id is in exactly one batch, in order, with a null value."""
    ids = [f"transactional-id-{i:04d}" for i in range(300)]
    batches = transaction_log.tombstone_batches(ids, 1000, 1_700_000_000_000)
    assert len(batches) > 1
    seen: list[str] = []
    for batch_ids, raw in batches:
        assert len(raw) <= 1000
        [(_header, records)] = decode_all(raw)
        assert [decode_txn_key(r.key) for r in records] == batch_ids
        assert all(r.value is None for r in records)
        seen += batch_ids
    assert seen == ids
    # a batch is never empty: one id larger than the limit still goes alone
    [(only, raw)] = transaction_log.tombstone_batches(["x" * 2000], 1000, 0)
    assert only == ["x" * 2000] and len(raw) > 1000


def test_the_expiration_timer_expires_idle_ids(tmp_path):
    """TransactionStateManager.enableTransactionalIdExpiration: the periodic
    ``transactionalId-expiration`` job removes the idle ids (here in slices of the event loop)
    with one tombstone batch per partition."""

    async def body():
        env = Env(tmp_path, id_expiration_ms=1000, num_partitions=1, remove_expired_interval_ms=10)
        tc = await env.start()
        ids = [f"id-{i}" for i in range(30)]
        for txn_id in ids:
            assert (await tc.init_producer_id(txn_id, 60000, None)).error is E.NONE
        before = _batches(env)
        env.clock.now += 1001
        assert await _wait(lambda: all(tc.describe(i).error is E.TRANSACTIONAL_ID_NOT_FOUND for i in ids))
        assert _batches(env) - before == 1
        await env.close(tc)

    run(body())
