"""The transaction coordinator on a lone broker's real logs, with a fake marker writer.

Covers the ``__transaction_state`` codecs, InitProducerId (epochs, fencing, KIP-360,
producer id rotation, timeouts), AddPartitionsToTxn and verification, EndTxn with its
markers (retries, unknown leaders, deleted partitions), the timeout abort, id expiry,
Describe/List and the reload after a restart.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Sequence

import pytest

from broker.replica_manager import ReplicaManager
from coordinator.controller import Controller, ControllerTopicStore
from coordinator.transaction_coordinator import TransactionCoordinator
from coordinator.transaction_log import (
    TRANSACTION_STATE_TOPIC,
    TxnLogValue,
    decode_txn_key,
    decode_txn_value,
    encode_txn_key,
    encode_txn_value,
)
from coordinator.transaction_markers import NO_LEADER
from coordinator.transaction_metadata import MAX_PRODUCER_EPOCH, TxnState
from coordinator.transaction_seams import TxnMarker
from coordinator.transaction_state_manager import TransactionConfig
from protocol.errors import ErrorCode
from protocol.primitives import (
    INT16,
    INT32,
    INT64,
    write_compact_array_length,
    write_compact_string,
    write_uvarint,
)
from storage.log_config import resolve_topic_defaults
from storage.log_manager import LogManager

E = ErrorCode
S = TxnState


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000_000

    def time_ms(self) -> int:
        return self.now


class Ids:
    def __init__(self) -> None:
        self._next = itertools.count(1000)

    def generate_producer_id(self) -> int:
        return next(self._next)


class Writer:
    """Records markers; answers each partition ``errors[tp]`` (popped per call) or NONE."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, TxnMarker]] = []
        self.errors: dict[tuple[str, int], list[ErrorCode]] = {}
        self.written = asyncio.Event()

    async def write_txn_markers(self, broker_id: int, markers: Sequence[TxnMarker]):
        out = []
        for m in markers:
            self.sent.append((broker_id, m))
            answer = {}
            for tp in m.partitions:
                queue = self.errors.get(tp)
                answer[tp] = queue.pop(0) if queue else E.NONE
            out.append(answer)
        self.written.set()
        return out


class Env:
    def __init__(self, tmp_path, **config) -> None:
        self.tmp_path = tmp_path
        self.clock = Clock()
        self.ids = Ids()
        self.writer = Writer()
        self.leaders: dict[tuple[str, int], int | None] = {}
        config.setdefault("num_partitions", 3)
        self.config = TransactionConfig(**config)
        self.lm: LogManager | None = None

    def open(self) -> TransactionCoordinator:
        self.lm = LogManager([self.tmp_path / "logs"], resolve_topic_defaults({}))
        self.lm.startup()
        rm = ReplicaManager(0, self.lm, self.clock.time_ms)
        controller = Controller(self.lm, 0, time_ms=self.clock.time_ms)
        controller.load_from_logs()
        controller.register_listener(rm)
        controller.startup()
        self.rm = rm
        return TransactionCoordinator(
            rm,
            self.ids,
            self.writer,
            lambda t, p: self.leaders.get((t, p), 0),
            config=self.config,
            local=ControllerTopicStore(self.lm, controller),
            time_ms=self.clock.time_ms,
        )

    async def start(self) -> TransactionCoordinator:
        tc = self.open()
        await tc.start()
        while tc.find_coordinator("x") is not E.NONE:
            await asyncio.sleep(0.01)
        return tc

    async def close(self, tc: TransactionCoordinator) -> None:
        await tc.stop()
        assert self.lm is not None
        self.lm.shutdown()


async def settle(tc: TransactionCoordinator, txn_id: str, state: TxnState) -> None:
    """Wait (bounded) until the id reaches ``state`` (markers and completion are tasks)."""
    async with asyncio.timeout(10):
        while True:
            meta = tc.txns.get(tc.partition_for(txn_id), {}).get(txn_id)
            if meta is not None and meta.state is state and not meta.pending_in_progress:
                return
            await asyncio.sleep(0.005)


def run(coro):
    return asyncio.run(coro)


# ---------------------------------------------------------------------- codecs


def test_key_and_value_v0_round_trip():
    key = encode_txn_key("my-txn")
    assert key == INT16.pack(0) + INT16.pack(6) + b"my-txn"
    assert decode_txn_key(key) == "my-txn"
    v = TxnLogValue(7, 3, 60000, S.ONGOING, frozenset({("a", 1), ("a", 0), ("b", 2)}), 123, 100)
    raw = encode_txn_value(v)
    assert raw[:2] == INT16.pack(0)
    assert decode_txn_value(raw) == v
    empty = TxnLogValue(7, 4, 60000, S.EMPTY, frozenset(), 200, -1)
    raw = encode_txn_value(empty)
    # Empty writes a null partition array (int32 -1) after the status byte
    assert raw[2 + 8 + 2 + 4 + 1 : 2 + 8 + 2 + 4 + 1 + 4] == INT32.pack(-1)
    assert decode_txn_value(raw) == empty


def test_value_v1_flexible_with_tagged_fields_decodes():
    w = bytearray(INT16.pack(1) + INT64.pack(9) + INT16.pack(2) + INT32.pack(1000) + bytes([2]))
    write_compact_array_length(w, 1)
    write_compact_string(w, "t")
    write_compact_array_length(w, 1)
    w += INT32.pack(4)
    write_uvarint(w, 0)  # the topic entry's tagged fields
    w += INT64.pack(55) + INT64.pack(50)
    write_uvarint(w, 2)  # two tagged fields
    write_uvarint(w, 0)
    write_uvarint(w, 8)
    w += INT64.pack(8)
    write_uvarint(w, 2)
    write_uvarint(w, 2)
    w += INT16.pack(2)
    v = decode_txn_value(bytes(w))
    assert (v.producer_id, v.producer_epoch, v.timeout_ms, v.state) == (9, 2, 1000, S.PREPARE_COMMIT)
    assert v.partitions == frozenset({("t", 4)})
    assert (v.last_update_ms, v.start_ms, v.previous_producer_id, v.client_transaction_version) == (
        55,
        50,
        8,
        2,
    )


# ---------------------------------------------------------------------- InitProducerId


def test_init_assigns_then_bumps_the_epoch(tmp_path):
    async def body():
        env = Env(tmp_path)
        tc = await env.start()
        r1 = await tc.init_producer_id("t1", 60000, None)
        r2 = await tc.init_producer_id("t1", 60000, None)
        other = await tc.init_producer_id("t2", 60000, None)
        assert (r1.error, r1.producer_epoch) == (E.NONE, 0)
        assert (r2.error, r2.producer_id, r2.producer_epoch) == (E.NONE, r1.producer_id, 1)
        assert other.producer_id != r1.producer_id
        assert (await tc.init_producer_id("t1", 0, None)).error is E.INVALID_TRANSACTION_TIMEOUT
        assert (await tc.init_producer_id("t1", 900_001, None)).error is E.INVALID_TRANSACTION_TIMEOUT
        assert (await tc.init_producer_id("", 1000, None)).error is E.INVALID_REQUEST
        # the old epoch is fenced
        assert await tc.add_partitions("t1", r1.producer_id, 0, [("x", 0)]) is E.PRODUCER_FENCED
        assert await tc.add_partitions("t1", 4242, 1, [("x", 0)]) is E.INVALID_PRODUCER_ID_MAPPING
        await env.close(tc)

    run(body())


def test_kip_360_bump_retry_and_stale_epoch(tmp_path):
    async def body():
        env = Env(tmp_path)
        tc = await env.start()
        r = await tc.init_producer_id("t", 60000, None)
        pid = r.producer_id
        b1 = await tc.init_producer_id("t", 60000, (pid, 0))
        assert (b1.error, b1.producer_epoch) == (E.NONE, 1)
        retry = await tc.init_producer_id("t", 60000, (pid, 0))  # the bump's response was lost
        assert (retry.error, retry.producer_epoch) == (E.NONE, 1)
        b2 = await tc.init_producer_id("t", 60000, (pid, 1))
        assert (b2.error, b2.producer_epoch) == (E.NONE, 2)
        stale = await tc.init_producer_id("t", 60000, (pid, 0))
        assert stale.error is E.PRODUCER_FENCED
        other_pid = await tc.init_producer_id("t", 60000, (pid + 77, 2))
        assert other_pid.error is E.PRODUCER_FENCED
        await env.close(tc)

    run(body())


def test_exhausted_epoch_moves_to_a_new_producer_id(tmp_path):
    async def body():
        env = Env(tmp_path)
        tc = await env.start()
        r = await tc.init_producer_id("t", 60000, None)
        meta = tc.txns[tc.partition_for("t")]["t"]
        meta.producer_epoch = MAX_PRODUCER_EPOCH - 1
        rotated = await tc.init_producer_id("t", 60000, None)
        assert rotated.error is E.NONE
        assert rotated.producer_id != r.producer_id and rotated.producer_epoch == 0
        assert meta.last_producer_id == r.producer_id
        await env.close(tc)

    run(body())


def test_reinit_aborts_the_ongoing_transaction_first(tmp_path):
    async def body():
        env = Env(tmp_path)
        tc = await env.start()
        r = await tc.init_producer_id("t", 60000, None)
        assert await tc.add_partitions("t", r.producer_id, 0, [("x", 0), ("x", 1)]) is E.NONE
        again = await tc.init_producer_id("t", 60000, None)
        assert again.error is E.CONCURRENT_TRANSACTIONS
        await settle(tc, "t", S.COMPLETE_ABORT)
        [(broker, marker)] = env.writer.sent
        assert broker == 0 and not marker.committed
        assert marker.producer_epoch == 1 and set(marker.partitions) == {("x", 0), ("x", 1)}
        done = await tc.init_producer_id("t", 60000, None)
        assert (done.error, done.producer_id, done.producer_epoch) == (E.NONE, r.producer_id, 2)
        # the fenced producer cannot end its transaction any more
        assert await tc.end_txn("t", r.producer_id, 0, True) is E.PRODUCER_FENCED
        await env.close(tc)

    run(body())


# ---------------------------------------------------------------------- AddPartitions, EndTxn


def test_commit_sends_markers_and_completes(tmp_path):
    async def body():
        env = Env(tmp_path)
        env.leaders[("y", 0)] = 2
        tc = await env.start()
        r = await tc.init_producer_id("t", 60000, None)
        pid = r.producer_id
        assert await tc.end_txn("t", pid, 0, True) is E.INVALID_TXN_STATE  # nothing to end
        # Kafka 3.8+: TRANSACTION_ABORTABLE for a partition not in the transaction (the broker
        # that asked answers INVALID_TXN_STATE to Produce below v11)
        assert tc.verify_partitions("t", pid, 0, [("x", 0)]) == {("x", 0): E.TRANSACTION_ABORTABLE}
        assert await tc.add_partitions("t", pid, 0, [("x", 0)]) is E.NONE
        assert await tc.add_partitions("t", pid, 0, [("y", 0)]) is E.NONE
        assert tc.verify_partitions("t", pid, 0, [("x", 0), ("x", 9)]) == {
            ("x", 0): E.NONE,
            ("x", 9): E.TRANSACTION_ABORTABLE,
        }
        assert tc.verify_partitions("t", pid, 1, [("x", 0)]) == {("x", 0): E.PRODUCER_FENCED}
        d = tc.describe("t")
        assert (d.state, d.partitions) == ("Ongoing", {"x": [0], "y": [0]})
        assert await tc.end_txn("t", pid, 0, True) is E.NONE
        await settle(tc, "t", S.COMPLETE_COMMIT)
        by_broker = {b: m for b, m in env.writer.sent}
        assert by_broker[0].partitions == (("x", 0),) and by_broker[2].partitions == (("y", 0),)
        assert all(m.committed and m.producer_epoch == 0 for m in by_broker.values())
        assert await tc.end_txn("t", pid, 0, True) is E.NONE  # a retry of a completed commit
        assert await tc.end_txn("t", pid, 0, False) is E.INVALID_TXN_STATE
        assert tc.describe("t").partitions == {}
        # the next transaction
        assert await tc.add_partitions("t", pid, 0, [("x", 1)]) is E.NONE
        assert await tc.end_txn("t", pid, 0, False) is E.NONE
        await settle(tc, "t", S.COMPLETE_ABORT)
        assert not env.writer.sent[-1][1].committed
        await env.close(tc)

    run(body())


def test_markers_are_retried_and_wait_for_a_leader(tmp_path):
    async def body():
        env = Env(tmp_path)
        env.writer.errors[("x", 0)] = [E.NOT_LEADER_OR_FOLLOWER, E.NOT_ENOUGH_REPLICAS]
        env.leaders[("x", 1)] = NO_LEADER
        env.leaders[("gone", 0)] = None
        tc = await env.start()
        r = await tc.init_producer_id("t", 60000, None)
        pid = r.producer_id
        assert await tc.add_partitions("t", pid, 0, [("x", 0), ("x", 1), ("gone", 0)]) is E.NONE
        assert await tc.end_txn("t", pid, 0, True) is E.NONE
        # a second EndTxn while the markers are out: CONCURRENT_TRANSACTIONS
        assert await tc.end_txn("t", pid, 0, True) is E.CONCURRENT_TRANSACTIONS
        assert await tc.add_partitions("t", pid, 0, [("x", 2)]) is E.CONCURRENT_TRANSACTIONS
        async with asyncio.timeout(10):
            while sum(1 for _, m in env.writer.sent if ("x", 0) in m.partitions) < 3:
                await asyncio.sleep(0.01)
        assert tc.describe("t").state == "PrepareCommit"  # x-1 has no leader yet
        env.leaders[("x", 1)] = 0
        await settle(tc, "t", S.COMPLETE_COMMIT)
        assert not any(("gone", 0) in m.partitions for _, m in env.writer.sent)
        await env.close(tc)

    run(body())


def test_fenced_marker_stops_sending(tmp_path):
    async def body():
        env = Env(tmp_path)
        env.writer.errors[("x", 0)] = [E.TRANSACTION_COORDINATOR_FENCED]
        tc = await env.start()
        r = await tc.init_producer_id("t", 60000, None)
        assert await tc.add_partitions("t", r.producer_id, 0, [("x", 0)]) is E.NONE
        assert await tc.end_txn("t", r.producer_id, 0, True) is E.NONE
        async with asyncio.timeout(10):
            while tc.markers.pending("t") or not env.writer.sent:
                await asyncio.sleep(0.01)
        assert tc.describe("t").state == "PrepareCommit" and len(env.writer.sent) == 1
        await env.close(tc)

    run(body())


# ---------------------------------------------------------------------- timers


def test_timed_out_transaction_is_aborted_and_its_producer_fenced(tmp_path):
    async def body():
        env = Env(tmp_path)
        tc = await env.start()
        r = await tc.init_producer_id("t", 5000, None)
        assert await tc.add_partitions("t", r.producer_id, 0, [("x", 0)]) is E.NONE
        env.clock.now += 5000
        assert tc.abort_timed_out_transactions() == 0  # not past its timeout yet
        env.clock.now += 1
        assert tc.abort_timed_out_transactions() == 1
        await settle(tc, "t", S.COMPLETE_ABORT)
        assert tc.describe("t").producer_epoch == 1
        assert await tc.end_txn("t", r.producer_id, 0, True) is E.PRODUCER_FENCED
        await env.close(tc)

    run(body())


def test_idle_transactional_ids_expire(tmp_path):
    async def body():
        env = Env(tmp_path, id_expiration_ms=1000)
        tc = await env.start()
        await tc.init_producer_id("idle", 5000, None)
        r = await tc.init_producer_id("busy", 5000, None)
        assert await tc.add_partitions("busy", r.producer_id, 0, [("x", 0)]) is E.NONE
        env.clock.now += 1001
        assert tc.expire_transactional_ids() == 1
        async with asyncio.timeout(10):
            while tc.describe("idle").error is not E.TRANSACTIONAL_ID_NOT_FOUND:
                await asyncio.sleep(0.01)
        assert tc.describe("busy").state == "Ongoing"
        await env.close(tc)
        tc = await env.start()  # the tombstone survives a reload
        assert tc.describe("idle").error is E.TRANSACTIONAL_ID_NOT_FOUND
        assert tc.describe("busy").state == "Ongoing"
        await env.close(tc)

    run(body())


# ---------------------------------------------------------------------- reload


def test_reload_resumes_prepared_commits(tmp_path):
    async def body():
        env = Env(tmp_path)
        env.leaders[("x", 0)] = NO_LEADER  # the markers cannot go out before the restart
        tc = await env.start()
        r = await tc.init_producer_id("t", 60000, None)
        assert await tc.add_partitions("t", r.producer_id, 0, [("x", 0)]) is E.NONE
        assert await tc.end_txn("t", r.producer_id, 0, True) is E.NONE
        r2 = await tc.init_producer_id("open", 60000, None)
        assert await tc.add_partitions("open", r2.producer_id, 0, [("x", 1)]) is E.NONE
        await env.close(tc)
        assert env.writer.sent == []
        env.leaders[("x", 0)] = 0
        tc = await env.start()
        await settle(tc, "t", S.COMPLETE_COMMIT)
        assert [m.committed for _, m in env.writer.sent] == [True]
        d = tc.describe("open")
        assert (d.state, d.producer_id, d.partitions) == ("Ongoing", r2.producer_id, {"x": [1]})
        env.clock.now += 60001
        assert tc.abort_timed_out_transactions() == 1
        await settle(tc, "open", S.COMPLETE_ABORT)
        await env.close(tc)

    run(body())


def test_partitions_not_owned_and_loading(tmp_path):
    async def body():
        env = Env(tmp_path)
        tc = await env.start()
        tc.follow_leadership()
        p = tc.partition_for("t")
        assert (await tc.init_producer_id("t", 1000, None)).error is E.NOT_COORDINATOR
        tc.on_election(p, 3)
        assert (await tc.init_producer_id("t", 1000, None)).error is E.COORDINATOR_LOAD_IN_PROGRESS
        await tc.state._load_tasks[p]
        assert p in tc.owned_partitions and p not in tc.loading
        assert (await tc.init_producer_id("t", 1000, None)).error is E.NONE
        tc.on_resignation(p, 4)
        assert tc.describe("t").error is E.NOT_COORDINATOR
        await env.close(tc)

    run(body())


def test_describe_and_list(tmp_path):
    async def body():
        env = Env(tmp_path)
        tc = await env.start()
        a = await tc.init_producer_id("a", 60000, None)
        b = await tc.init_producer_id("b", 60000, None)
        assert await tc.add_partitions("b", b.producer_id, 0, [("x", 0)]) is E.NONE
        env.clock.now += 10
        error, unknown, found = tc.list_transactions([], [])
        assert error is E.NONE and unknown == []
        assert sorted((t.transactional_id, t.state) for t in found) == [("a", "Empty"), ("b", "Ongoing")]
        _, unknown, found = tc.list_transactions(["Ongoing", "Bogus"], [])
        assert unknown == ["Bogus"] and [t.transactional_id for t in found] == ["b"]
        _, _, found = tc.list_transactions([], [a.producer_id])
        assert [t.transactional_id for t in found] == ["a"]
        # Every state counts from its start; Empty has none (-1) and is always listed
        # (TransactionStateManager.listTransactionStates).
        _, _, found = tc.list_transactions([], [], duration_ms=5)
        assert sorted(t.transactional_id for t in found) == ["a", "b"]
        _, _, found = tc.list_transactions([], [], duration_ms=50)
        assert [t.transactional_id for t in found] == ["a"]
        _, _, found = tc.list_transactions([], [], id_pattern="a|c")
        assert [t.transactional_id for t in found] == ["a"]
        assert tc.list_transactions([], [], id_pattern="(")[0] is E.INVALID_REGULAR_EXPRESSION
        d = tc.describe("b")
        assert (d.error, d.state, d.timeout_ms, d.producer_id, d.start_ms) == (
            E.NONE,
            "Ongoing",
            60000,
            b.producer_id,
            env.clock.now - 10,
        )
        assert tc.describe("nope").error is E.TRANSACTIONAL_ID_NOT_FOUND
        assert tc.describe("").error is E.INVALID_REQUEST
        await env.close(tc)

    run(body())


def test_state_topic_configs(tmp_path):
    async def body():
        env = Env(tmp_path, segment_bytes=1_048_576)
        tc = await env.start()
        assert env.lm is not None
        cfg = env.rm.get_log_config(TRANSACTION_STATE_TOPIC, 0)
        assert cfg is not None
        assert cfg.cleanup_policy == ["compact"] or "compact" in str(cfg.cleanup_policy)
        assert cfg.segment_bytes == 1_048_576
        assert cfg.min_insync_replicas == 1  # 2 capped at the replication factor of 1
        assert len(tc.txns) == 0 and tc.topic.existing_partitions() == 3
        await env.close(tc)

    run(body())


@pytest.mark.parametrize("committed", [True, False])
def test_end_of_either_kind_while_completing_is_concurrent(tmp_path, committed):
    async def body():
        env = Env(tmp_path)
        env.leaders[("x", 0)] = NO_LEADER
        tc = await env.start()
        r = await tc.init_producer_id("t", 60000, None)
        assert await tc.add_partitions("t", r.producer_id, 0, [("x", 0)]) is E.NONE
        assert await tc.end_txn("t", r.producer_id, 0, committed) is E.NONE
        # the pending CompleteCommit/CompleteAbort is checked before the state (endTransaction)
        assert await tc.end_txn("t", r.producer_id, 0, not committed) is E.CONCURRENT_TRANSACTIONS
        assert await tc.end_txn("t", r.producer_id, 0, committed) is E.CONCURRENT_TRANSACTIONS
        assert (await tc.init_producer_id("t", 60000, None)).error is E.CONCURRENT_TRANSACTIONS
        await env.close(tc)

    run(body())
