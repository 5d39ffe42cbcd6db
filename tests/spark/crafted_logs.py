"""Partition logs written directly through storage's PartitionLog, with the rows a reader must see.

Batches are appended with ``AppendOrigin.REPLICATION`` (framing and CRC checks only, no
producer-state rules, as a follower copies a leader), so tests can write what a broker
would refuse: control batches, duplicate and skipped sequences, old timestamps.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from protocol import compression
from protocol.records import build_batch
from storage.checkpoints import HIGH_WATERMARK_CHECKPOINT, OffsetCheckpointFile
from storage.log_config import LogConfig
from storage.partition_log import PartitionLog
from storage.producer_state import AppendOrigin

SEQUENCE_SPACE = 1 << 31
ABORT, COMMIT = 0, 1


@dataclass(frozen=True)
class Row:
    """One record as the data source must return it (timestamp in ms)."""

    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    timestamp: int
    timestamp_type: int
    headers: tuple[tuple[str, bytes | None], ...] | None
    producer_id: int
    producer_epoch: int
    sequence: int


@dataclass
class Batch:
    """A batch to append: records are (key, value[, headers]); offsets are assigned by the log."""

    records: Sequence[tuple]
    timestamps: Sequence[int]
    codec: int = compression.NONE
    producer_id: int = -1
    producer_epoch: int = -1
    base_sequence: int = -1
    log_append_time: bool = False
    transactional: bool = False
    control: bool = False

    def encode(self) -> bytes:
        return build_batch(
            self.records,
            compression_type=self.codec,
            producer_id=self.producer_id,
            producer_epoch=self.producer_epoch,
            base_sequence=self.base_sequence,
            timestamps=self.timestamps,
            log_append_time=self.log_append_time,
            transactional=self.transactional,
            control=self.control,
        )


def control_batch(producer_id: int, epoch: int, marker: int, timestamp: int) -> Batch:
    """A transaction marker (Kafka's EndTransactionMarker: key version+type, value version+coordinator epoch)."""
    key = struct.pack(">hh", 0, marker)
    value = struct.pack(">hi", 0, 0)
    return Batch(
        [(key, value)],
        [timestamp],
        producer_id=producer_id,
        producer_epoch=epoch,
        transactional=True,
        control=True,
    )


@dataclass
class WrittenPartition:
    topic: str
    partition: int
    directory: Path
    rows: list[Row] = field(default_factory=list)
    base_offsets: list[int] = field(default_factory=list)
    log_end_offset: int = 0


def write_partition(
    log_dir: Path,
    topic: str,
    partition: int,
    batches: Iterable[Batch],
    *,
    config: LogConfig | None = None,
) -> WrittenPartition:
    """Append the batches (opening the log, possibly an existing one) and close it again."""
    directory = log_dir / f"{topic}-{partition}"
    plog = PartitionLog(directory, config or LogConfig())
    out = WrittenPartition(topic, partition, directory)
    try:
        for batch in batches:
            raw = bytearray(batch.encode())
            info = plog.append_as_leader(memoryview(raw), 0, origin=AppendOrigin.REPLICATION)
            out.base_offsets.append(info.base_offset)
            if batch.control:
                continue
            max_ts = max(batch.timestamps)
            for i, rec in enumerate(batch.records):
                headers = tuple(rec[2]) if len(rec) > 2 and rec[2] else None
                seq = -1 if batch.base_sequence < 0 else (batch.base_sequence + i) % SEQUENCE_SPACE
                out.rows.append(
                    Row(
                        topic,
                        partition,
                        info.base_offset + i,
                        rec[0],
                        rec[1],
                        max_ts if batch.log_append_time else batch.timestamps[i],
                        1 if batch.log_append_time else 0,
                        headers,
                        batch.producer_id,
                        batch.producer_epoch,
                        seq,
                    )
                )
        out.log_end_offset = plog.log_end_offset
    finally:
        plog.close()
    return out


def set_high_watermarks(log_dir: Path, marks: dict[tuple[str, int], int]) -> None:
    """Merge entries into the log dir's replication-offset-checkpoint, as the broker writes it."""
    ckpt = OffsetCheckpointFile(log_dir / HIGH_WATERMARK_CHECKPOINT)
    current = ckpt.read()
    current.update(marks)
    ckpt.write(current)


def rows_of(df_rows: Iterable) -> list[Row]:
    """Spark rows (the data source's schema) as comparable Rows."""
    out = []
    for r in df_rows:
        ts = r["timestamp"]
        out.append(
            Row(
                r["topic"],
                r["partition"],
                r["offset"],
                None if r["key"] is None else bytes(r["key"]),
                None if r["value"] is None else bytes(r["value"]),
                round(ts.timestamp() * 1000),
                r["timestampType"],
                None if r["headers"] is None else tuple((h["key"], h["value"]) for h in r["headers"]),
                r["producerId"],
                r["producerEpoch"],
                r["sequence"],
            )
        )
    return sorted(out, key=lambda x: (x.topic, x.partition, x.offset))


def arrow_rows(batches: Iterable) -> list[Row]:
    """Arrow batches from the reader as comparable Rows."""
    out = []
    for b in batches:
        for r in b.to_pylist():
            ts = r["timestamp"]
            out.append(
                Row(
                    r["topic"],
                    r["partition"],
                    r["offset"],
                    r["key"],
                    r["value"],
                    round(ts.timestamp() * 1000),
                    r["timestampType"],
                    None if r["headers"] is None else tuple((h["key"], h["value"]) for h in r["headers"]),
                    r["producerId"],
                    r["producerEpoch"],
                    r["sequence"],
                )
            )
    return out
