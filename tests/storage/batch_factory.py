"""Record batches for storage tests, built with protocol.records.build_batch."""

from __future__ import annotations

from protocol.records import build_batch

BASE_TS = 1_700_000_000_000


def make_batch(
    n: int = 1,
    *,
    value_size: int = 10,
    timestamp: int = BASE_TS,
    timestamps: list[int] | None = None,
    producer_id: int = -1,
    producer_epoch: int = -1,
    base_sequence: int = -1,
    compression_type: int = 0,
    tag: int = 0,
) -> bytearray:
    """A client batch (base offset 0) of ``n`` records with distinct values."""
    records = [
        (f"k{i}".encode(), (f"{tag}:{i}:".encode() + b"x" * value_size)[: max(value_size, 1)])
        for i in range(n)
    ]
    return bytearray(
        build_batch(
            records,
            timestamp=timestamp,
            timestamps=timestamps,
            producer_id=producer_id,
            producer_epoch=producer_epoch,
            base_sequence=base_sequence,
            compression_type=compression_type,
        )
    )
