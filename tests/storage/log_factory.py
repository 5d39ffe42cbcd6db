"""PartitionLog construction and filling for storage tests."""

from __future__ import annotations

from pathlib import Path

from protocol.record_batch import read_header
from storage.log_config import LogConfig
from storage.log_types import LogAppendInfo
from storage.partition_log import PartitionLog
from tests.storage.batch_factory import BASE_TS, make_batch


def open_log(
    directory: Path, *, name: str = "t-0", clean: bool = True, recovery_point: int = 0, **config
) -> PartitionLog:
    """A PartitionLog over ``directory/name`` with LogConfig(**config) (file deletion immediate)."""
    config.setdefault("file_delete_delay_ms", 0)
    return PartitionLog(
        directory / name,
        LogConfig(**config),
        had_clean_shutdown=clean,
        recovery_point=recovery_point,
    )


def append_batches(
    plog: PartitionLog,
    counts: list[int],
    *,
    value_size: int = 20,
    ts_start: int = BASE_TS,
    ts_step: int = 10,
    epoch: int = 0,
) -> list[tuple[LogAppendInfo, bytes]]:
    """Append batches of ``counts`` records; returns (append info, bytes as written)."""
    out = []
    for i, n in enumerate(counts):
        b = make_batch(n, value_size=value_size, timestamp=ts_start + i * ts_step, tag=len(out) + i)
        view = memoryview(b)
        info = plog.append_as_leader(view, epoch, now_ms=ts_start + i * ts_step)
        out.append((info, bytes(b)))
    plog.update_high_watermark(plog.log_end_offset)
    return out


def read_all(plog: PartitionLog, start: int | None = None) -> bytes:
    """Every batch from ``start`` (default log start) to the log end, segment by segment."""
    offset = plog.log_start_offset if start is None else start
    out = bytearray()
    while offset < plog.log_end_offset:
        data = plog.read(offset, 1 << 30, max_offset=plog.log_end_offset).records
        assert data, f"no data at offset {offset}"
        out += data
        pos = 0
        while pos < len(data):
            h = read_header(data, pos)
            pos += h.size
            offset = h.base_offset + h.last_offset_delta + 1
    return bytes(out)
