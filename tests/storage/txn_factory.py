"""Transactional batches and markers for storage tests."""

from __future__ import annotations

from protocol.control_records import build_end_txn_marker_batch
from protocol.records import build_batch
from storage.log_types import LogAppendInfo
from storage.partition_log import PartitionLog
from storage.producer_state import AppendOrigin
from tests.storage.batch_factory import BASE_TS


class TxnProducer:
    """One transactional producer id writing to one PartitionLog (sequences kept here)."""

    def __init__(self, plog: PartitionLog, producer_id: int, epoch: int = 0) -> None:
        self.plog = plog
        self.producer_id = producer_id
        self.epoch = epoch
        self.seq = 0

    def send(self, n: int = 1, *, tag: str = "") -> LogAppendInfo:
        records = [(f"k{i}".encode(), f"{tag or self.producer_id}:{self.seq + i}".encode()) for i in range(n)]
        batch = build_batch(
            records,
            producer_id=self.producer_id,
            producer_epoch=self.epoch,
            base_sequence=self.seq,
            transactional=True,
            timestamp=BASE_TS,
        )
        self.seq += n
        info = self.plog.append_as_leader(memoryview(bytearray(batch)), 0, now_ms=BASE_TS)
        self.plog.update_high_watermark(self.plog.log_end_offset)
        return info

    def end(self, committed: bool, coordinator_epoch: int = 0, *, epoch: int | None = None) -> LogAppendInfo:
        return append_marker(
            self.plog, self.producer_id, self.epoch if epoch is None else epoch, committed, coordinator_epoch
        )


def append_marker(
    plog: PartitionLog, producer_id: int, epoch: int, committed: bool, coordinator_epoch: int = 0
) -> LogAppendInfo:
    batch = build_end_txn_marker_batch(
        producer_id=producer_id,
        producer_epoch=epoch,
        committed=committed,
        coordinator_epoch=coordinator_epoch,
        timestamp=BASE_TS,
    )
    info = plog.append_as_leader(
        memoryview(bytearray(batch)), 0, now_ms=BASE_TS, origin=AppendOrigin.COORDINATOR
    )
    plog.update_high_watermark(plog.log_end_offset)
    return info
