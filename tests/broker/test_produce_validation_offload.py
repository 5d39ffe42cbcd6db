"""Produced batches whose validation is too much work for the event loop (many compressed
records, a large inflation, a large recompression) are validated on the ReplicaManager's
worker thread, and every partition's appends stay in their order.

Kafka validates records on its request handler threads (``LogValidator`` under
``UnifiedLog.append``), so one large compressed batch never stops other clients; Moldau's
handlers share one event loop. ``storage.log_validator`` charges a request's record work to
an ``InlineBudget``; past it a batch raises ``NeedsOffload`` and the ReplicaManager validates
it off the loop, then appends it in its partition's order.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Callable

import pytest

import broker.replica_manager as replica_manager_module
from broker.replica_manager import ReplicaManager
from protocol import compression
from protocol.errors import ErrorCode
from protocol.record_batch import compute_crc, iter_batches, read_header
from protocol.records import build_batch, decode_batch
from storage.log_manager import LogManager
from storage.log_validator import INLINE_DECOMPRESSED_BYTES, INLINE_WORK_UNITS
from storage.producer_state import AppendOrigin
from tests.storage.batch_factory import BASE_TS, make_batch

ME = 0
HEAVY = INLINE_WORK_UNITS * 2  # records: more than one request may walk on the loop
PID = 4000


def leader(lm: LogManager, topic: str = "t", partitions: int = 1, **overrides) -> ReplicaManager:
    lm.create_topic(topic, partitions, uuid.uuid4(), overrides)
    rm = ReplicaManager(ME, lm, lambda: BASE_TS)
    rm.lead_local_logs()
    return rm


def append(rm: ReplicaManager, *batches: tuple[tuple[str, int], bytes | bytearray], acks: int = 1):
    return rm.append_records(
        [(key, memoryview(bytearray(batch))) for key, batch in batches],
        required_acks=acks,
        origin=AppendOrigin.CLIENT,
        produce_version=9,
    )


def gzip_batch(n: int, *, base_sequence: int = -1, producer_id: int = -1) -> bytearray:
    return make_batch(
        n,
        value_size=1,
        producer_id=producer_id,
        producer_epoch=0 if producer_id >= 0 else -1,
        base_sequence=base_sequence,
        compression_type=compression.GZIP,
    )


class WorkerValidations:
    """Records which partitions' batches the worker thread validated (the wrapped validator
    is the one the ReplicaManager hands to its executor). ``gate``: each validation waits
    for it, so a test can show the event loop ran meanwhile."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, gate: threading.Event | None = None) -> None:
        self.threads: list[str] = []
        self.batch_sizes: list[int] = []
        self.gate_opened: list[bool] = []
        original: Callable = getattr(replica_manager_module, "validate_batch_for_append", None)

        def validate(records, **kwargs):
            self.threads.append(threading.current_thread().name)
            self.batch_sizes.append(records.size)
            if gate is not None:
                self.gate_opened.append(gate.wait(30))
            return original(records, **kwargs)

        monkeypatch.setattr(replica_manager_module, "validate_batch_for_append", validate, raising=False)


def read_all(lm: LogManager, topic: str = "t", partition: int = 0) -> list[tuple[int, int]]:
    """(base offset, records) of every batch of the partition's log."""
    plog = lm.get_log(topic, partition)
    data = plog.read(0, 1 << 30).records
    raw = bytes(data) if not hasattr(data, "read_all") else data.read_all()
    return [(h.base_offset, h.records_count) for _, h in iter_batches(raw)]


def test_a_heavy_batch_is_validated_on_the_worker_while_the_event_loop_runs(log_manager, monkeypatch):
    """LogValidator work of a batch of many compressed records (Kafka: a request handler
    thread) does not hold the event loop: the loop runs while the worker validates it."""
    rm = leader(log_manager)
    gate = threading.Event()
    worker = WorkerValidations(monkeypatch, gate)

    async def main():
        pending = append(rm, (("t", 0), gzip_batch(HEAVY)))
        assert not isinstance(pending, dict)  # answered once appended
        asyncio.get_running_loop().call_soon(gate.set)  # runs only if the loop is free
        return await pending

    results = asyncio.run(main())
    assert worker.threads and all(name.startswith("produce-validation") for name in worker.threads)
    assert worker.gate_opened == [True]
    info = results[("t", 0)].info
    assert results[("t", 0)].error is None and (info.base_offset, info.last_offset) == (0, HEAVY - 1)
    assert read_all(log_manager) == [(0, HEAVY)]


def test_a_light_batch_waits_behind_a_deferred_one_of_the_same_partition(log_manager, monkeypatch):
    """Appends to one partition keep their order (Kafka: the partition's lock, taken in
    arrival order): an idempotent producer's next batch, pipelined behind a heavy one, is
    appended after it (not refused as OUT_OF_ORDER_SEQUENCE); another partition's is not held."""
    rm = leader(log_manager, partitions=2)
    worker = WorkerValidations(monkeypatch)

    async def main():
        first = append(rm, (("t", 0), gzip_batch(HEAVY, producer_id=PID, base_sequence=0)))
        second = append(rm, (("t", 0), make_batch(1, producer_id=PID, producer_epoch=0, base_sequence=HEAVY)))
        other = append(rm, (("t", 1), make_batch(1)))
        assert isinstance(other, dict) and other[("t", 1)].info.base_offset == 0  # not held
        assert not isinstance(second, dict)
        return await first, await second

    first, second = asyncio.run(main())
    assert first[("t", 0)].error is None and second[("t", 0)].error is None
    assert second[("t", 0)].info.base_offset == HEAVY
    assert read_all(log_manager) == [(0, HEAVY), (HEAVY, 1)]
    assert len(worker.threads) == 1  # the light batch was validated on the loop, at its turn


def test_a_request_s_batches_share_one_budget(log_manager, monkeypatch):
    """Many partitions, each light: once their walks together pass the loop's budget, the
    request's later batches are validated on the worker."""
    per_batch = INLINE_WORK_UNITS * 2 // 5  # two fit in the budget, the third does not
    rm = leader(log_manager, partitions=4)
    worker = WorkerValidations(monkeypatch)

    async def main():
        pending = append(rm, *[(("t", p), gzip_batch(per_batch)) for p in range(4)])
        assert not isinstance(pending, dict)
        return await pending

    results = asyncio.run(main())
    assert all(r.error is None and r.info.num_records == per_batch for r in results.values())
    assert len(worker.threads) == 2  # partitions 2 and 3
    for p in range(4):
        assert read_all(log_manager, partition=p) == [(0, per_batch)]


def test_a_batch_inflating_past_the_loop_s_share_is_inflated_on_the_worker(log_manager, monkeypatch):
    """A few compressed bytes may inflate to megabytes: past INLINE_DECOMPRESSED_BYTES the batch
    goes to the worker, which still refuses more than max_decompressed_bytes
    (MESSAGE_TOO_LARGE, as before)."""
    rm = leader(log_manager, partitions=2)
    worker = WorkerValidations(monkeypatch)
    inflating = build_batch(
        [(None, bytes(INLINE_DECOMPRESSED_BYTES + 1))], compression_type=compression.GZIP, timestamp=BASE_TS
    )
    bomb = build_batch(
        [(None, bytes(65 * 1024 * 1024))], compression_type=compression.GZIP, timestamp=BASE_TS
    )
    assert len(inflating) < 8192 and len(bomb) < 1024 * 1024

    async def main():
        pending = append(rm, (("t", 0), inflating), (("t", 1), bomb))
        assert not isinstance(pending, dict)
        return await pending

    results = asyncio.run(main())
    assert results[("t", 0)].error is None
    assert results[("t", 1)].error.error is ErrorCode.MESSAGE_TOO_LARGE
    assert len(worker.threads) == 2
    assert read_all(log_manager) == [(0, 1)] and read_all(log_manager, partition=1) == []


def test_log_append_time_and_recompression_of_a_heavy_batch_happen_once_on_the_worker(
    log_manager, monkeypatch
):
    """NeedsOffload comes before any byte of the batch changes: the worker validates the
    producer's bytes as they came, so a LogAppendTime topic stamps them once (a second
    validation of stamped bytes would refuse them) and a topic's compression.type rewrites
    them once."""
    rm = leader(
        log_manager,
        topic="lat",
        **{"message.timestamp.type": "LogAppendTime", "compression.type": "lz4"},
    )
    worker = WorkerValidations(monkeypatch)

    async def main():
        pending = append(rm, (("lat", 0), gzip_batch(HEAVY)))
        assert not isinstance(pending, dict)
        return await pending

    results = asyncio.run(main())
    result = results[("lat", 0)]
    assert result.error is None and result.info.log_append_time == BASE_TS
    assert len(worker.threads) == 1
    raw = log_manager.get_log("lat", 0).read(0, 1 << 30).records
    raw = bytes(raw) if not hasattr(raw, "read_all") else raw.read_all()
    ((_, header),) = list(iter_batches(raw))
    assert header.compression == compression.LZ4 and header.max_timestamp == BASE_TS
    assert len(decode_batch(raw)) == HEAVY


def test_an_abandoned_answer_still_appends_and_frees_the_partition(log_manager, monkeypatch):
    """The connection of a deferred append goes away (its answer cancelled): the append is
    done all the same (Kafka finishes a request already in its handler) and the partition's
    next append is not left waiting behind it."""
    rm = leader(log_manager)
    WorkerValidations(monkeypatch)

    async def main():
        first = asyncio.ensure_future(append(rm, (("t", 0), gzip_batch(HEAVY))))
        await asyncio.sleep(0)
        first.cancel()
        second = append(rm, (("t", 0), make_batch(1)))
        assert not isinstance(second, dict)
        return await second

    results = asyncio.run(main())
    assert results[("t", 0)].info.base_offset == HEAVY
    assert read_all(log_manager) == [(0, HEAVY), (HEAVY, 1)]


def test_a_heavy_batch_refused_on_the_worker_answers_the_loop_s_error(log_manager, monkeypatch):
    """Errors found on the worker are the ones the loop would answer: a batch of records
    whose offset deltas are not 0, 1, 2... is INVALID_RECORD with its record errors (KIP-467)."""
    rm = leader(log_manager)
    WorkerValidations(monkeypatch)
    batch = gzip_batch(HEAVY)
    header = read_header(batch, 0)
    body = compression.decompress(compression.GZIP, bytes(batch[61:]))
    # The first record's offset delta (its fourth byte: length, attributes, timestamp delta)
    # becomes 1, a delta the record's index (0) does not match.
    body = body[:3] + b"\x02" + body[4:]
    rebuilt = bytearray(batch[:61]) + compression.compress(compression.GZIP, body)
    rebuilt[8:12] = (len(rebuilt) - 12).to_bytes(4, "big")
    rebuilt[17:21] = compute_crc(rebuilt, 0, len(rebuilt)).to_bytes(4, "big")
    assert header.records_count == HEAVY

    async def main():
        pending = append(rm, (("t", 0), rebuilt))
        assert not isinstance(pending, dict)
        return await pending

    result = asyncio.run(main())[("t", 0)]
    assert result.error.error is ErrorCode.INVALID_RECORD
    assert result.error.record_errors[0][0] == 0
    assert read_all(log_manager) == []


def test_close_ends_the_validation_worker(log_manager, monkeypatch):
    """The worker thread a heavy batch started ends when the ReplicaManager closes (the
    broker closes it at its stop, after its listeners)."""
    rm = leader(log_manager)
    WorkerValidations(monkeypatch)

    async def main():
        return await append(rm, (("t", 0), gzip_batch(HEAVY)))

    assert asyncio.run(main())[("t", 0)].error is None
    threads = list(rm._validation_executor._threads)
    assert threads and all(t.is_alive() for t in threads)
    rm.close()
    for t in threads:
        t.join(30)
    assert not any(t.is_alive() for t in threads)


def test_the_broker_closes_its_replica_manager_at_stop(tmp_path):
    """Broker.start registers ReplicaManager.close with the rest of its shutdown."""
    from tests.support.cluster import Cluster

    cluster = Cluster(1, base_dir=tmp_path)
    cluster.start()
    rm = cluster.broker(0).replica_manager
    cluster.close()
    assert rm._validation_executor._shutdown
