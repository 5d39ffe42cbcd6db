"""Readers of a broker's transactional state shared by the transaction tests: the batches
and control markers in a partition's segment files (read with kafka-python's parser, not
Moldau's), its ``.txnindex`` bytes and the expected Kafka ``AbortedTxn`` entries, and the
coordinator's view of a transactional id through DescribeTransactions; and the check that a
broker rebuilds its ``.txnindex`` files to the same bytes."""

from __future__ import annotations

import struct
import time
from pathlib import Path

from kafka.record import MemoryRecords

from protocol.messages import DescribeTransactionsRequest
from tests.support.broker_process import BrokerProcess
from tests.support.wire_client import WireClient

TIMEOUT_S = 60
COMMIT, ABORT = 1, 0


def batches(log_dir: Path, topic: str, partition: int) -> list[tuple[int, int, int | None]]:
    """(base offset, producer id, COMMIT=1 / ABORT=0 for a control batch, else None) of each
    batch in the partition's segment files, read with kafka-python's parser."""
    out = []
    for segment in sorted((log_dir / f"{topic}-{partition}").glob("*.log")):
        records = MemoryRecords(segment.read_bytes())
        while records.has_next():
            batch = records.next_batch()
            kind = None
            if batch.is_control_batch:
                (_version, kind) = struct.unpack(">hh", next(iter(batch)).key[:4])
            out.append((batch.base_offset, batch.producer_id, kind))
    return out


def markers(log_dir: Path, topic: str, partition: int) -> list[tuple[int, int]]:
    """(producer id, COMMIT=1 / ABORT=0) of each control batch in the partition's segments."""
    return [(pid, kind) for _, pid, kind in batches(log_dir, topic, partition) if kind is not None]


def txn_index(log_dir: Path, topic: str, partition: int) -> dict[str, bytes]:
    """The partition's ``.txnindex`` files by name."""
    return {f.name: f.read_bytes() for f in sorted((log_dir / f"{topic}-{partition}").glob("*.txnindex"))}


def expected_aborted_entries(log: list[tuple[int, int, int | None]]) -> bytes:
    """The ``.txnindex`` bytes a single-segment partition log implies: one 34-byte AbortedTxn
    (version 0, producer id, first offset, the ABORT marker's offset, the LSO right after the
    marker) per ABORT marker, in marker order. The LSO is Kafka's
    ``ProducerStateManager.lastStableOffset(completedTxn)``: the first offset of the oldest
    other transaction still open at the marker, else the marker's offset + 1."""
    first: dict[int, int] = {}  # producer id -> first offset of its open transaction
    out = b""
    for offset, pid, kind in log:
        if kind is None:
            if pid >= 0 and pid not in first:
                first[pid] = offset
            continue
        start = first.pop(pid)
        lso = min(first.values(), default=offset + 1)
        if kind == ABORT:
            out += struct.pack(">hqqqq", 0, pid, start, offset, lso)
    return out


def check_txn_indexes_rebuilt(b: BrokerProcess, topic: str, partitions: int) -> dict[int, dict[str, bytes]]:
    """Stop the broker; each partition's ``.txnindex`` must be one file holding what its log
    implies (``expected_aborted_entries``). Then delete the partitions' indexes (without its
    offset index a segment is recovered: read and rebuilt), start and stop the broker again:
    the rebuilt ``.txnindex`` files hold the same bytes. Returns the indexes by partition;
    the broker is left stopped."""
    b.stop()
    indexes = {}
    for p in range(partitions):
        indexes[p] = txn_index(b.log_dir, topic, p)
        assert list(indexes[p].values()) == [expected_aborted_entries(batches(b.log_dir, topic, p))]
        for stale in (b.log_dir / f"{topic}-{p}").glob("*.*index"):
            stale.unlink()
    b.start()
    b.stop()
    assert {p: txn_index(b.log_dir, topic, p) for p in range(partitions)} == indexes
    return indexes


def transaction_state(bootstrap: str, transactional_id: str) -> tuple[str, int]:
    host, port = bootstrap.rsplit(":", 1)
    with WireClient(host, int(port)) as client:
        state = client.request(DescribeTransactionsRequest(transactional_ids=[transactional_id]), 0)
    s = state.transaction_states[0]
    assert s.error_code == 0, s
    return s.transaction_state, s.producer_id


def wait_for_state(bootstrap: str, transactional_id: str, want: str) -> int:
    """The producer id once DescribeTransactions shows ``want`` for the transactional id."""
    deadline = time.monotonic() + TIMEOUT_S
    while True:
        try:
            state, producer_id = transaction_state(bootstrap, transactional_id)
        except (OSError, AssertionError):  # the coordinator still loading after a restart
            state, producer_id = None, -1
        if state == want:
            return producer_id
        assert time.monotonic() < deadline, f"{transactional_id} is {state}, not {want}"
        time.sleep(0.1)
