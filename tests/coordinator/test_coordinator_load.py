"""Loading coordinator partitions: the log end read again at every step, and the event loop
never held by the work that grows with the data.

Kafka's ``GroupMetadataManager.doLoadGroupsAndOffsets`` reads while ``currOffset <
logEndOffset`` with ``logEndOffset`` a def (so what is appended during the load, a
transaction's marker, is replayed), on the coordinator's scheduler thread (the request
handlers go on serving meanwhile); ``TransactionStateManager.loadTransactionMetadata`` the
same for ``__transaction_state``. Nothing here is asserted on timing.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

import coordinator.group_metadata_manager as gmm
import coordinator.transaction_state_manager as tsm
from broker.broker import Broker
from broker.config import BrokerConfig
from broker.testing.inprocess import LoopThread
from coordinator.group_offsets import (
    GroupRecord,
    MemberRecord,
    OffsetAndMetadata,
    OffsetStore,
    encode_group_key,
    encode_group_value,
    encode_offset_key,
    encode_offset_value,
)
from coordinator.groups import GroupCoordinator, OffsetCommitEntry
from coordinator.offsets_topic import PartitionReader, scan_data_records
from coordinator.transaction_log import TxnLogValue, encode_txn_key, encode_txn_value
from coordinator.transaction_metadata import TxnState
from coordinator.transaction_seams import TxnMarker
from protocol.control_records import build_end_txn_marker_batch
from protocol.errors import ErrorCode
from protocol.messages import ApiVersionsRequest
from protocol.records import build_batch
from storage.log_manager import LogManager
from storage.producer_state import AppendOrigin
from tests.coordinator.test_groups import ManualClock, embedded_partitions, make_coordinator
from tests.coordinator.test_transaction_coordinator import Env
from tests.support.wire_client import WireClient

OFFSETS = "__consumer_offsets"
PROBE_DEADLINE_S = 5.0
HOLD_LIMIT_S = 30.0


def zk_mode_coordinator(log_manager: LogManager, clock: ManualClock) -> tuple[GroupCoordinator, object]:
    """A coordinator of one ``__consumer_offsets`` partition that loads it when elected
    (``GroupCoordinator.onElection``), and its ReplicaManager."""
    store, rm = embedded_partitions(log_manager, clock)
    gc = GroupCoordinator(
        store,
        rm,
        broker_id=0,
        offsets_topic_partitions=1,
        time_ms=clock.time_ms,
        timers=clock,
        initial_rebalance_delay_ms=0,
    )
    rm.add_txn_completion_listener(gc)
    gc.follow_leadership()
    return gc, rm


def append(rm, records: list[tuple[bytes, bytes | None]], now: int) -> None:
    key = (OFFSETS, 0)
    batch = memoryview(bytearray(build_batch(records, timestamp=now)))
    result = rm.append_records([(key, batch)], required_acks=1, origin=AppendOrigin.COORDINATOR)
    assert result[key].error is None


def group_with_member(group_id: str, now: int) -> list[tuple[bytes, bytes | None]]:
    """A Stable group's metadata record (one member, session timeout 30 s) and one offset."""
    record = GroupRecord(
        "consumer", 1, "range", "m1", now, [MemberRecord("m1", None, "c", "/h", 30000, 30000, b"", b"")]
    )
    return [
        (encode_group_key(group_id), encode_group_value(record)),
        (encode_offset_key(group_id, "t", 0), encode_offset_value(OffsetAndMetadata(5, -1, "", now))),
    ]


# ---------------------------------------------------------------- markers during a load


def test_commit_marker_appended_during_the_load_applies_the_offsets(log_manager):
    """A COMMIT marker the transaction coordinator appends while the partition loads is
    replayed: the transaction's offsets are committed once the load ends (before, the
    loader stopped at the log end it saw first and ``on_txn_completed`` finds no pending
    offsets of a loading group, so they stayed pending for good: OffsetFetch kept the old
    offset, require_stable answered UNSTABLE_OFFSET_COMMIT until the next reload)."""
    clock = ManualClock()
    gc = make_coordinator(log_manager, clock, offsets_topic_partitions=1)
    gc.topic.partitions.add_txn_completion_listener(gc)
    gc.commit_offsets("g", "", None, -1, [OffsetCommitEntry("t", 0, 3)])
    errors = asyncio.run(gc.commit_txn_offsets("g", 77, 0, "", None, -1, [OffsetCommitEntry("t", 0, 10)]))
    assert errors == [ErrorCode.NONE]
    asyncio.run(gc.stop())
    gc2, rm = zk_mode_coordinator(log_manager, clock)

    async def scenario() -> None:
        await gc2.start()
        gc2.on_election(0, 1)
        load = gc2._load_tasks[0]
        await asyncio.sleep(0)  # the loader has read the partition and waits for its decoding
        assert not load.done() and 0 in gc2.loading
        [errs] = await rm.write_txn_markers([TxnMarker(77, 0, True, 0, ((OFFSETS, 0),))])
        assert errs == {(OFFSETS, 0): ErrorCode.NONE}
        await load

    asyncio.run(scenario())
    try:
        assert not gc2.has_pending_offset_commit("g", "t", 0)
        [(_, _, om)] = gc2.fetch_offsets("g", [("t", 0)])
        assert om is not None and om.committed_offset == 10
    finally:
        asyncio.run(gc2.stop())


def test_abort_marker_appended_during_the_load_drops_the_pending_offsets(log_manager):
    """The ABORT marker of a group's only (transactional) commit lands during the load: no
    offset stays pending, and the group, which has nothing left, is not loaded."""
    clock = ManualClock()
    gc = make_coordinator(log_manager, clock, offsets_topic_partitions=1)
    errors = asyncio.run(gc.commit_txn_offsets("h", 78, 0, "", None, -1, [OffsetCommitEntry("t", 0, 10)]))
    assert errors == [ErrorCode.NONE]
    asyncio.run(gc.stop())
    gc2, rm = zk_mode_coordinator(log_manager, clock)

    async def scenario() -> None:
        await gc2.start()
        gc2.on_election(0, 1)
        load = gc2._load_tasks[0]
        await asyncio.sleep(0)
        [errs] = await rm.write_txn_markers([TxnMarker(78, 0, False, 0, ((OFFSETS, 0),))])
        assert errs == {(OFFSETS, 0): ErrorCode.NONE}
        await load

    asyncio.run(scenario())
    try:
        assert not gc2.has_pending_offset_commit("h", "t", 0)
        assert "h" not in gc2.groups
        [(_, _, om)] = gc2.fetch_offsets("h", [("t", 0)])
        assert om is None
    finally:
        asyncio.run(gc2.stop())


def _txn_batch(records, producer_id: int, base_offset: int, now: int) -> bytes:
    return build_batch(
        records,
        base_offset=base_offset,
        producer_id=producer_id,
        producer_epoch=0,
        base_sequence=0,
        timestamp=now,
        transactional=True,
    )


def _marker(producer_id: int, committed: bool, base_offset: int, now: int) -> bytes:
    return build_end_txn_marker_batch(
        producer_id=producer_id,
        producer_epoch=0,
        committed=committed,
        coordinator_epoch=0,
        timestamp=now,
        base_offset=base_offset,
    )


def test_group_load_rebuilds_what_a_later_chunk_changes():
    """``GroupLoad.build`` after a first chunk, then a marker in a later chunk (what the
    loader does when a marker lands after it built the groups): the rebuilt state is the
    one of a replay of everything at once."""
    clock = ManualClock()
    now = clock.time_ms()
    gc = GroupCoordinator(None, None, broker_id=0, time_ms=clock.time_ms, timers=clock)  # type: ignore[arg-type]
    load = gmm.GroupLoad(OFFSETS, 0, gc._group_from_record, clock.time_ms)
    first = (
        build_batch(group_with_member("g", now), base_offset=0, timestamp=now)
        + _txn_batch(
            [(encode_offset_key("g", "t", 0), encode_offset_value(OffsetAndMetadata(9, -1, "", now)))],
            5,
            2,
            now,
        )
        + _txn_batch(
            [(encode_offset_key("h", "t", 0), encode_offset_value(OffsetAndMetadata(7, -1, "", now)))],
            6,
            3,
            now,
        )
    )
    assert load.consume(memoryview(first), 0) == 4
    load.build()
    assert set(load.built) == {"g", "h"} and load.bare == {"h"}
    assert sorted((pid, group) for pid, group, _, _ in load.open_commits) == [(5, "g"), (6, "h")]
    assert load.offsets == {"g": {("t", 0): OffsetAndMetadata(5, -1, "", now)}} and load.n_offsets == 1
    g_before = load.built["g"]
    # Producer 5 commits, producer 6 aborts.
    later = _marker(5, True, 4, now) + _marker(6, False, 5, now)
    assert load.consume(memoryview(later), 4) == 6
    assert load.stale
    load.build()
    assert set(load.built) == {"g"} and not load.bare and load.open_commits == []
    assert load.built["g"] is not g_before  # rebuilt: its records changed
    assert load.offsets == {"g": {("t", 0): OffsetAndMetadata(9, -1, "", now)}}
    assert load.written_at == {"g": {("t", 0): 2}}  # the transaction's batch


# ---------------------------------------------------------------- the log end, read again


def test_the_reader_reads_to_the_log_end_of_each_step(log_manager):
    """``PartitionReader`` (both coordinators' loads) reads what is appended after it started,
    as Kafka's loaders do (their ``logEndOffset`` is read again at every step)."""
    clock = ManualClock()
    gc = make_coordinator(log_manager, clock, offsets_topic_partitions=1)
    gc.topic.ensure_created()
    rm = gc.topic.partitions
    now = clock.time_ms()
    append(
        rm, [(encode_offset_key("g", "t", 0), encode_offset_value(OffsetAndMetadata(1, -1, "", now)))], now
    )
    reader = PartitionReader(rm, OFFSETS, 0, 1)  # one batch per chunk

    def next_offsets() -> list[int] | None:
        data = reader.next_chunk()
        if data is None:
            return None
        records, nxt = scan_data_records(data, reader.position)
        reader.advance(nxt)
        return [offset for offset, _, _ in records]

    assert next_offsets() == [0]
    assert next_offsets() is None
    append(
        rm, [(encode_offset_key("g", "t", 1), encode_offset_value(OffsetAndMetadata(2, -1, "", now)))], now
    )
    assert next_offsets() == [1]
    assert next_offsets() is None
    asyncio.run(gc.stop())


def test_transaction_state_record_appended_during_the_load_is_loaded(tmp_path):
    """A ``__transaction_state`` record appended while its partition loads is loaded too
    (``loadTransactionMetadata`` re-reads the log end at every step)."""

    async def body() -> None:
        env = Env(tmp_path)
        tc = await env.start()
        assert (await tc.init_producer_id("t", 60000, None)).error is ErrorCode.NONE
        tc.follow_leadership()
        p = tc.partition_for("t")
        other = next(f"u{i}" for i in range(1000) if tc.partition_for(f"u{i}") == p)
        tc.on_election(p, 3)
        load = tc.state._load_tasks[p]
        await asyncio.sleep(0)  # the loader has read the partition and waits for its decoding
        assert not load.done()
        value = TxnLogValue(4242, 0, 60000, TxnState.EMPTY, frozenset(), 1, -1)
        await tc.state.topic.append(p, encode_txn_key(other), encode_txn_value(value))
        await load
        assert {"t", other} <= set(tc.txns[p])
        assert tc.txns[p][other].producer_id == 4242
        await env.close(tc)

    asyncio.run(body())


# ---------------------------------------------------------------- the event loop stays free


def _fill_offsets(broker: Broker) -> None:
    gc = broker.groups
    gc.topic.ensure_created()
    rm = broker.replica_manager
    now = broker.clock.time_ms()
    key = (OFFSETS, gc.partition_for("g"))
    for start in range(0, 2000, 500):
        records = [
            (encode_offset_key("g", "t", i), encode_offset_value(OffsetAndMetadata(i, -1, "", now)))
            for i in range(start, start + 500)
        ]
        batch = memoryview(bytearray(build_batch(records, timestamp=now)))
        result = rm.append_records([(key, batch)], required_acks=1, origin=AppendOrigin.COORDINATOR)
        assert result[key].error is None


async def _fill_transactions(broker: Broker) -> None:
    tc = broker.transactions
    for _ in range(1000):
        if tc.find_coordinator("x") is ErrorCode.NONE:
            break
        await asyncio.sleep(0.01)
    for i in range(20):
        assert (await tc.init_producer_id(f"txn-{i}", 60_000, None)).error is ErrorCode.NONE


def _probe_during_load(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    fill: Callable[[Broker], object],
    module: object,
    decoder: str,
) -> None:
    """Fill a lone broker, restart it with ``module.decoder`` held on its first record
    (``threading.Event``) and check that another connection's ApiVersions is answered
    while the load waits for it (as tests/broker/test_loop_holders_storage.py does)."""
    log_dir = tmp_path / "logs"
    values = {
        "log.dirs": str(log_dir),
        "listeners": "PLAINTEXT://127.0.0.1:0",
        "offsets.topic.num.partitions": "1",
        "transaction.state.log.num.partitions": "1",
        "transaction.state.log.replication.factor": "1",
        "transaction.state.log.min.isr": "1",
    }
    loop = LoopThread("load-fill")
    broker = Broker(BrokerConfig(values))
    try:
        loop.call(broker.start())
        port = broker.server.bound[0][1]

        async def run_fill() -> None:
            done = fill(broker)
            if asyncio.iscoroutine(done):
                await done

        loop.call(run_fill())
        loop.call(broker.stop(), timeout=60)
    finally:
        loop.close()

    entered, release = threading.Event(), threading.Event()
    original = getattr(module, decoder)

    def held(value):
        if not entered.is_set():
            entered.set()
            release.wait(HOLD_LIMIT_S)
        return original(value)

    monkeypatch.setattr(module, decoder, held)
    values["listeners"] = f"PLAINTEXT://127.0.0.1:{port}"
    loop = LoopThread("load-probe")
    broker = Broker(BrokerConfig(values))
    try:
        starting = asyncio.run_coroutine_threadsafe(broker.start(), loop.loop)
        assert entered.wait(60), "the load never decoded a record"
        try:
            with WireClient("127.0.0.1", port, timeout=PROBE_DEADLINE_S) as probe:
                try:
                    answer = probe.request(ApiVersionsRequest(), 0)
                except TimeoutError:
                    pytest.fail("the event loop did not answer ApiVersions while the load ran")
                assert answer.error_code == 0
        finally:
            release.set()
        starting.result(60)
    finally:
        release.set()
        with contextlib.suppress(Exception):
            loop.call(broker.stop(), timeout=60)
        loop.close()


def test_offsets_load_does_not_hold_the_event_loop(tmp_path, monkeypatch):
    """Measured before: a 5 MiB chunk of ~50,000 offset commits held the loop ~0.6 s to
    decode, and the install of 5,000 groups with 50,000 offsets another ~0.6 s."""
    _probe_during_load(tmp_path, monkeypatch, _fill_offsets, gmm, "decode_offset_value")


def test_transaction_state_load_does_not_hold_the_event_loop(tmp_path, monkeypatch):
    _probe_during_load(tmp_path, monkeypatch, _fill_transactions, tsm, "decode_txn_value")


def test_resignation_while_a_decode_runs_installs_nothing(log_manager, monkeypatch):
    """The load is cancelled while its executor job decodes: the job finishes on its thread,
    its result is dropped, nothing is installed; the next election loads the partition."""
    clock = ManualClock()
    gc, rm = zk_mode_coordinator(log_manager, clock)
    gc.topic.ensure_created()
    append(rm, group_with_member("g", clock.time_ms()), clock.time_ms())
    entered, release, finished = threading.Event(), threading.Event(), threading.Event()
    original = gmm.decode_offset_value

    def held(value):
        if not entered.is_set():
            entered.set()
            release.wait(HOLD_LIMIT_S)
            try:
                return original(value)
            finally:
                finished.set()
        return original(value)

    monkeypatch.setattr(gmm, "decode_offset_value", held)

    async def scenario() -> None:
        await gc.start()
        gc.on_election(0, 1)
        load = gc._load_tasks[0]
        while not entered.is_set():  # the decode runs on the executor's thread
            await asyncio.sleep(0.001)
        gc.on_resignation(0, 2)
        release.set()
        with pytest.raises(asyncio.CancelledError):
            await load
        await asyncio.get_running_loop().run_in_executor(None, finished.wait, HOLD_LIMIT_S)
        await asyncio.sleep(0)
        assert gc.groups == {} and gc.offsets.groups() == [] and 0 not in gc.owned_partitions
        gc.on_election(0, 3)
        await gc._load_tasks[0]
        assert 0 in gc.owned_partitions and 0 not in gc.loading
        assert gc.groups["g"].members.keys() == {"m1"}
        [(_, _, om)] = gc.fetch_offsets("g", [("t", 0)])
        assert om is not None and om.committed_offset == 5

    try:
        asyncio.run(scenario())
    finally:
        release.set()
        asyncio.run(gc.stop())


def test_loaded_groups_get_their_heartbeats_in_slices(log_manager, monkeypatch):
    """``onGroupLoaded`` (the members' heartbeat deadlines) runs in slices while the
    partition is still loading; a group no longer installed by its slice is skipped."""
    monkeypatch.setattr(gmm, "LOADED_GROUPS_PER_TURN", 2)
    clock = ManualClock()
    gc, rm = zk_mode_coordinator(log_manager, clock)
    gc.topic.ensure_created()
    ids = [f"g{i}" for i in range(5)]
    append(rm, [r for g in ids for r in group_with_member(g, clock.time_ms())], clock.time_ms())
    loaded: list[tuple[str, bool]] = []
    original = gc.membership.on_group_loaded

    def on_group_loaded(group):
        loaded.append((group.group_id, 0 in gc.loading))
        if group.group_id == "g0":
            del gc.groups["g4"]  # removed (say, its topic deleted) before its slice
        original(group)

    monkeypatch.setattr(gc.membership, "on_group_loaded", on_group_loaded)

    async def scenario() -> None:
        await gc.start()
        gc.on_election(0, 1)
        await gc._load_tasks[0]

    try:
        asyncio.run(scenario())
        assert loaded == [(g, True) for g in ids[:4]]
        assert all(gc.groups[g].members["m1"].heartbeat_timer is not None for g in ids[:4])
    finally:
        asyncio.run(gc.stop())


def test_resignation_unloads_in_slices_only_its_own_groups(log_manager, monkeypatch):
    """On resignation the partition's groups leave the coordinator at once (NOT_COORDINATOR,
    nothing of them left for a re-election's load to meet) and are unloaded (timers
    cancelled) in slices; a re-election's load meanwhile keeps its own groups."""
    monkeypatch.setattr(gmm, "UNLOADED_GROUPS_PER_TURN", 2)
    clock = ManualClock()
    gc, rm = zk_mode_coordinator(log_manager, clock)
    gc.topic.ensure_created()
    ids = [f"g{i}" for i in range(5)]
    append(rm, [r for g in ids for r in group_with_member(g, clock.time_ms())], clock.time_ms())

    async def scenario() -> None:
        await gc.start()
        gc.on_election(0, 1)
        await gc._load_tasks[0]
        old = [gc.groups[g] for g in ids]
        assert all(g.members["m1"].heartbeat_timer is not None for g in old)
        gc.on_resignation(0, 2)
        assert gc.groups == {} and gc.offsets.groups() == []
        assert gc.describe_group("g0")[0] is ErrorCode.NOT_COORDINATOR
        unloaded = [g.members["m1"].heartbeat_timer is None for g in old]
        assert unloaded == [True, True, False, False, False]  # the first slice only
        assert all(str(g.state) == "Dead" for g in old)
        gc.on_election(0, 3)
        await gc._load_tasks[0]
        for _ in range(5):
            await asyncio.sleep(0)
        assert all(g.members["m1"].heartbeat_timer is None for g in old)
        new = [gc.groups[g] for g in ids]
        assert not any(n is o for n, o in zip(new, old, strict=True))
        assert all(str(g.state) == "Stable" and g.members["m1"].heartbeat_timer is not None for g in new)
        assert gc.offsets.get("g3", "t", 0) is not None

    try:
        asyncio.run(scenario())
    finally:
        asyncio.run(gc.stop())


# ---------------------------------------------------------------- OffsetStore.install


def test_offset_store_install_keeps_the_written_at_rule():
    """The bulk install takes a load's groups over; a group already in the store keeps an
    offset whose record is newer (``put``'s rule)."""
    om = OffsetAndMetadata
    store = OffsetStore()
    store.put("a", "t", 0, om(1, -1, "", 0), 50)
    store.install(
        {"a": {("t", 0): om(2, -1, "", 0), ("t", 1): om(3, -1, "", 0)}, "b": {("t", 0): om(4, -1, "", 0)}},
        {"a": {("t", 0): 40, ("t", 1): 41}, "b": {("t", 0): 42}},
    )
    assert store.get("a", "t", 0) == om(1, -1, "", 0)  # written at 50, after 40
    assert store.get("a", "t", 1) == om(3, -1, "", 0)
    assert store.get("b", "t", 0) == om(4, -1, "", 0)
    assert not store.put("b", "t", 0, om(5, -1, "", 0), 41)  # 42 is newer
    assert store.put("b", "t", 0, om(6, -1, "", 0), 43)
