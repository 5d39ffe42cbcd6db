"""``__transaction_state`` compacted by the log cleaner, then loaded again.

Kafka compacts the transaction log (``cleanup.policy=compact``, TransactionLog): the
coordinator's state after a reload from the cleaned log must be what it was before,
as every transactional id's latest record (and a removed id's tombstone, or nothing)
survives the cleaning. Here several ids go through many state changes (each a record of
the same key), the log is rolled and cleaned by a real ``LogCleaner`` round, and a new
coordinator loads it: every id's metadata is as before and the log holds fewer records.
"""

from __future__ import annotations

import asyncio

from coordinator.transaction_coordinator import TransactionCoordinator
from coordinator.transaction_log import TRANSACTION_STATE_TOPIC
from coordinator.transaction_metadata import TxnState
from storage.log_config import resolve_topic_defaults
from storage.log_manager import LogManager
from tests.coordinator.test_transaction_coordinator import E, Env, settle
from tests.storage.test_log_cleaner import clean_once, make_cleaner, read_batches

S = TxnState
IDS = ("committed", "aborted", "ongoing", "bumped", "empty", "expired")


def state_of(tc: TransactionCoordinator) -> dict[str, tuple]:
    """Every id's metadata as the coordinator holds it (what the log records)."""
    out = {}
    for txns in tc.txns.values():
        for tid, m in txns.items():
            out[tid] = (
                m.producer_id,
                m.last_producer_id,
                m.producer_epoch,
                m.last_producer_epoch,
                m.timeout_ms,
                m.state,
                frozenset(m.partitions),
                m.start_ms,
                m.last_update_ms,
            )
    return out


def records_of(log_dir) -> int:
    lm = LogManager([log_dir], resolve_topic_defaults({}))
    lm.startup()
    try:
        return sum(len(records) for _h, records in read_batches(lm.get_log(TRANSACTION_STATE_TOPIC, 0)))
    finally:
        lm.shutdown()


def clean_transaction_log(log_dir, now_ms: int) -> int | None:
    """Roll the transaction log's active segment (the cleaner leaves the active one alone),
    then run one cleaner round on it, as the broker's cleaner thread would."""
    lm = LogManager([log_dir], resolve_topic_defaults({}))
    lm.startup()
    try:
        plog = lm.get_log(TRANSACTION_STATE_TOPIC, 0)
        assert plog.config.cleanup_policy == ("compact",)  # as Kafka creates it
        plog.roll()
        return clean_once(make_cleaner([plog], log_dir, now=now_ms))
    finally:
        lm.shutdown()


def test_the_state_reloaded_from_the_cleaned_log_is_the_state_before(tmp_path):
    env = Env(tmp_path, num_partitions=1, id_expiration_ms=60_000)
    log_dir = tmp_path / "logs"

    async def write_states() -> dict[str, tuple]:
        tc = await env.start()
        expired = await tc.init_producer_id("expired", 60_000, None)
        assert expired.error is E.NONE
        env.clock.now += 30_000
        for round_ in range(3):  # many records per key: old ones are what cleaning removes
            for tid, commit in (("committed", True), ("aborted", False)):
                r = await tc.init_producer_id(tid, 60_000, None)
                assert (
                    await tc.add_partitions(tid, r.producer_id, r.producer_epoch, [("x", round_)]) is E.NONE
                )
                assert await tc.end_txn(tid, r.producer_id, r.producer_epoch, commit) is E.NONE
                await settle(tc, tid, S.COMPLETE_COMMIT if commit else S.COMPLETE_ABORT)
            await tc.init_producer_id("bumped", 60_000, None)  # a new epoch each time
            env.clock.now += 1_000
        r = await tc.init_producer_id("ongoing", 60_000, None)
        assert (
            await tc.add_partitions("ongoing", r.producer_id, r.producer_epoch, [("x", 0), ("x", 1)])
            is E.NONE
        )
        await tc.init_producer_id("empty", 60_000, None)
        env.clock.now += 30_000  # "expired" idle past transactional.id.expiration.ms
        assert tc.expire_transactional_ids() == 1
        async with asyncio.timeout(10):
            while tc.describe("expired").error is not E.TRANSACTIONAL_ID_NOT_FOUND:
                await asyncio.sleep(0.01)
        before = state_of(tc)
        await env.close(tc)
        return before

    async def reload() -> tuple[dict[str, tuple], dict[str, str]]:
        tc = await env.start()
        try:
            return state_of(tc), {tid: tc.describe(tid).state for tid in IDS}
        finally:
            await env.close(tc)

    before = asyncio.run(write_states())
    assert set(before) == {"committed", "aborted", "ongoing", "bumped", "empty"}
    assert before["bumped"][2] == 2 and before["ongoing"][5] is S.ONGOING
    written = records_of(log_dir)

    assert clean_transaction_log(log_dir, env.clock.now) is not None  # a round cleaned it
    cleaned = records_of(log_dir)
    assert cleaned < written, (cleaned, written)
    # every id's latest record is kept (the expired one's tombstone at most)
    assert len(before) <= cleaned <= len(before) + 1

    after, described = asyncio.run(reload())
    assert after == before
    assert described == {
        "committed": "CompleteCommit",
        "aborted": "CompleteAbort",
        "ongoing": "Ongoing",
        "bumped": "Empty",
        "empty": "Empty",
        "expired": "",  # TRANSACTIONAL_ID_NOT_FOUND: the tombstone (or nothing) stays
    }
