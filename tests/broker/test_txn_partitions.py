"""The replica manager's transaction side: KIP-890 verification of transactional appends and
WriteTxnMarkers with its completion listeners (broker/txn_partitions.py)."""

from __future__ import annotations

import asyncio
import functools
import uuid
from collections.abc import Sequence

import pytest

from broker.replica_manager import ReplicaManager
from coordinator.transaction_seams import TxnMarker
from protocol.errors import ErrorCode
from protocol.records import build_batch
from storage.log_config import resolve_topic_defaults
from storage.log_manager import LogManager
from storage.producer_state import AppendOrigin
from tests.storage.batch_factory import BASE_TS

ME = 0
PID = 4000


def run_async(fn):
    """Run an async test in its own event loop (the suite has no asyncio plugin)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return asyncio.run(fn(*args, **kwargs))

    return wrapper


class RecordingVerifier:
    """Answers a fixed error per partition and records each call; ``gate`` holds answers back."""

    def __init__(self, answer: ErrorCode = ErrorCode.NONE) -> None:
        self.answer = answer
        self.calls: list[tuple[str, int, int, list]] = []
        self.gate: asyncio.Event | None = None

    async def verify(
        self, transactional_id: str, producer_id: int, producer_epoch: int, partitions: Sequence
    ):
        self.calls.append((transactional_id, producer_id, producer_epoch, list(partitions)))
        if self.gate is not None:
            await self.gate.wait()
        return dict.fromkeys(partitions, self.answer)


class Listener:
    def __init__(self, fail: bool = False) -> None:
        self.seen: list[tuple[int, bool, list[int]]] = []
        self.fail = fail

    def on_txn_completed(self, producer_id, committed, offsets_partitions) -> None:
        self.seen.append((producer_id, committed, sorted(offsets_partitions)))
        if self.fail:
            raise RuntimeError("boom")


@pytest.fixture
def log_manager(tmp_path):
    lm = LogManager([tmp_path / "logs"], resolve_topic_defaults({}))
    lm.startup()
    lm.create_topic("t", 2, uuid.uuid4(), {})
    lm.create_topic("__consumer_offsets", 2, uuid.uuid4(), {})
    yield lm
    lm.shutdown()


def rm_with(lm: LogManager, verifier) -> ReplicaManager:
    rm = ReplicaManager(ME, lm, lambda: BASE_TS, transaction_verifier=verifier)
    rm.lead_local_logs()
    return rm


def txn_batch(seq: int, n: int = 1) -> memoryview:
    records = [(b"k", f"v{seq + i}".encode()) for i in range(n)]
    batch = build_batch(
        records, producer_id=PID, producer_epoch=0, base_sequence=seq, transactional=True, timestamp=BASE_TS
    )
    return memoryview(bytearray(batch))


async def produce(rm: ReplicaManager, seq: int, partitions=(("t", 0),), txn_id: str | None = "tx"):
    result = rm.append_records(
        [(key, txn_batch(seq)) for key in partitions],
        required_acks=1,
        origin=AppendOrigin.CLIENT,
        produce_version=9,
        transactional_id=txn_id,
    )
    if not isinstance(result, dict):
        result = await result
    return {key: (r.error.error if r.error else ErrorCode.NONE) for key, r in result.items()}


def marker(committed: bool, *partitions, coordinator_epoch: int = 0) -> TxnMarker:
    return TxnMarker(PID, 0, committed, coordinator_epoch, tuple(partitions))


@run_async
async def test_first_transactional_batch_is_verified_once(log_manager):
    verifier = RecordingVerifier()
    rm = rm_with(log_manager, verifier)
    assert await produce(rm, 0, (("t", 0), ("t", 1))) == {("t", 0): ErrorCode.NONE, ("t", 1): ErrorCode.NONE}
    assert verifier.calls == [("tx", PID, 0, [("t", 0), ("t", 1)])]
    assert await produce(rm, 1) == {("t", 0): ErrorCode.NONE}
    assert len(verifier.calls) == 1  # its transaction is open on t-0: no second verification
    await rm.write_txn_markers([marker(True, ("t", 0), ("t", 1))])
    assert await produce(rm, 2) == {("t", 0): ErrorCode.NONE}
    assert len(verifier.calls) == 2  # a new transaction: verified again


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (ErrorCode.INVALID_TXN_STATE, ErrorCode.INVALID_TXN_STATE),
        (ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.NOT_ENOUGH_REPLICAS),
        (ErrorCode.NOT_COORDINATOR, ErrorCode.NOT_ENOUGH_REPLICAS),
        (ErrorCode.CONCURRENT_TRANSACTIONS, ErrorCode.NOT_ENOUGH_REPLICAS),
        (ErrorCode.PRODUCER_FENCED, ErrorCode.INVALID_PRODUCER_EPOCH),
        (ErrorCode.TRANSACTION_ABORTABLE, ErrorCode.INVALID_TXN_STATE),  # below Produce v11
    ],
)
@run_async
async def test_verification_errors_become_produce_errors(log_manager, answer, expected):
    rm = rm_with(log_manager, RecordingVerifier(answer))
    assert await produce(rm, 0) == {("t", 0): expected}
    assert rm.get_partition("t", 0).log.log_end_offset == 0  # nothing appended


@run_async
async def test_a_marker_during_verification_refuses_the_batch(log_manager):
    verifier = RecordingVerifier()
    verifier.gate = asyncio.Event()
    rm = rm_with(log_manager, verifier)
    pending = asyncio.ensure_future(produce(rm, 0))
    while not verifier.calls:
        await asyncio.sleep(0)
    # The coordinator aborts (e.g. the transaction timed out) before the verification answers.
    assert await rm.write_txn_markers([marker(False, ("t", 0))]) == [{("t", 0): ErrorCode.NONE}]
    verifier.gate.set()
    assert await pending == {("t", 0): ErrorCode.INVALID_TXN_STATE}
    plog = rm.get_partition("t", 0).log
    assert plog.log_end_offset == 1 and plog.last_stable_offset == 1  # only the marker, no open transaction


@run_async
async def test_markers_reach_the_completion_listeners_for_offsets_partitions(log_manager):
    rm = rm_with(log_manager, RecordingVerifier())
    listener = Listener()
    rm.add_txn_completion_listener(listener)
    results = await rm.write_txn_markers(
        [
            marker(True, ("t", 0), ("__consumer_offsets", 1), ("__consumer_offsets", 7)),
            marker(False, ("t", 1)),
        ]
    )
    assert results == [
        {
            ("t", 0): ErrorCode.NONE,
            ("__consumer_offsets", 1): ErrorCode.NONE,
            ("__consumer_offsets", 7): ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        },
        {("t", 1): ErrorCode.NONE},
    ]
    assert listener.seen == [(PID, True, [1])]
    failing = Listener(fail=True)
    rm.add_txn_completion_listener(failing)
    results = await rm.write_txn_markers([marker(False, ("__consumer_offsets", 0))])
    assert results == [{("__consumer_offsets", 0): ErrorCode.UNKNOWN_SERVER_ERROR}]


@run_async
async def test_a_marker_for_a_partition_led_elsewhere_is_not_leader_or_follower(log_manager):
    from coordinator.cluster_state import PartitionState

    rm = rm_with(log_manager, RecordingVerifier())
    rm.on_topics_changed({}, [PartitionState("t", 1, 1, 1, (1, ME), (1, ME))])  # another broker leads t-1
    results = await rm.write_txn_markers([marker(True, ("t", 0), ("t", 1))])
    assert results == [{("t", 0): ErrorCode.NONE, ("t", 1): ErrorCode.NOT_LEADER_OR_FOLLOWER}]


@run_async
async def test_a_parked_read_committed_fetch_wakes_when_the_lso_moves(log_manager):
    from broker.fetch_params import FetchParams, FetchPartitionInfo
    from storage.log_types import FetchIsolation

    rm = rm_with(log_manager, RecordingVerifier())
    assert await produce(rm, 0) == {("t", 0): ErrorCode.NONE}  # offset 0, open: LSO 0
    params = FetchParams(
        max_wait_ms=60_000, min_bytes=1, max_bytes=1 << 20, isolation=FetchIsolation.TXN_COMMITTED
    )
    pending = rm.fetch_messages(params, [(("t", 0), FetchPartitionInfo(fetch_offset=0, max_bytes=1 << 20))])
    assert not isinstance(pending, list)  # nothing below the LSO: parked
    waiting = asyncio.ensure_future(pending)
    assert await produce(rm, 1) == {("t", 0): ErrorCode.NONE}  # the high watermark moves, the LSO not
    await asyncio.sleep(0)
    assert not waiting.done()
    await rm.write_txn_markers([marker(False, ("t", 0))])
    [answer] = await asyncio.wait_for(waiting, 10)
    assert answer.last_stable_offset == 3
    assert [(t.producer_id, t.first_offset) for t in answer.aborted_transactions] == [(PID, 0)]
