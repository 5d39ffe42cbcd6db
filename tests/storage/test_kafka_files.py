"""The files are Kafka's: .log decoded by an independent decoder (kafka-python), .index and
.timeindex checked entry by entry against Kafka's layout and LogSegment.append rule."""

from __future__ import annotations

import struct

from kafka.record import MemoryRecords

from storage.log_config import LogConfig
from storage.partition_log import PartitionLog
from tests.storage.batch_factory import BASE_TS, make_batch

INTERVAL = 300


def decode_with_kafka_python(data: bytes) -> list[dict]:
    out = []
    position = 0
    records = MemoryRecords(data)
    while records.has_next():
        batch = records.next_batch()
        assert batch.validate_crc()
        recs = list(batch)
        size = 12 + struct.unpack_from(">i", data, position + 8)[0]
        out.append(
            dict(
                position=position,
                size=size,
                base_offset=batch.base_offset,
                last_offset=batch.base_offset + batch.last_offset_delta,
                epoch=batch.leader_epoch,
                max_timestamp=batch.max_timestamp,
                values=[r.value for r in recs],
                offsets=[r.offset for r in recs],
            )
        )
        position += size
    assert position == len(data)  # no trailing bytes
    return out


def kafka_indexes(batches: list[dict], base: int, interval: int) -> tuple[bytes, bytes]:
    """Kafka's LogSegment.append rule, plus the final time entry of an inactive segment."""
    index, timeindex = b"", b""
    since = 0
    max_ts, max_off = -1, base
    last_indexed_ts = -1
    for b in batches:
        if b["max_timestamp"] > max_ts:
            max_ts, max_off = b["max_timestamp"], b["last_offset"]
        if since > interval:
            index += struct.pack(">ii", b["last_offset"] - base, b["position"])
            if max_ts > last_indexed_ts:
                timeindex += struct.pack(">qi", max_ts, max_off - base)
                last_indexed_ts = max_ts
            since = 0
        since += b["size"]
    if max_ts > last_indexed_ts:
        timeindex += struct.pack(">qi", max_ts, max_off - base)
    return index, timeindex


def test_segments_are_kafka_files(tmp_path):
    plog = PartitionLog(
        tmp_path / "events-3",
        LogConfig(segment_bytes=3000, index_interval_bytes=INTERVAL),
    )
    produced = []
    for i in range(60):
        n = 1 + (i * 7) % 9
        codec = (0, 0, 1, 2, 3, 4)[i % 6]
        ts = [BASE_TS + 37 * i + (d * 5 if i % 4 else -d) for d in range(n)]  # not always increasing
        b = make_batch(n, value_size=25, timestamps=ts, compression_type=codec, tag=i)
        info = plog.append_as_leader(memoryview(b), i // 20)
        produced.append((info, n, i))
    plog.close()
    logs = sorted((tmp_path / "events-3").glob("*.log"))
    assert len(logs) > 3
    all_offsets, all_values = [], []
    for path in logs:
        base = int(path.name[:20])
        batches = decode_with_kafka_python(path.read_bytes())
        assert batches[0]["base_offset"] == base
        for b in batches:
            all_offsets.extend(b["offsets"])
            all_values.extend(b["values"])
            assert (
                b["epoch"] == next(i for info, _, i in produced if info.base_offset == b["base_offset"]) // 20
            )
        index, timeindex = kafka_indexes(batches, base, INTERVAL)
        assert path.with_suffix(".index").read_bytes() == index
        assert path.with_suffix(".timeindex").read_bytes() == timeindex
    assert all_offsets == list(range(sum(n for _, n, _ in produced)))
    expected_values = [(f"{i}:{k}:".encode() + b"x" * 25)[:25] for _, n, i in produced for k in range(n)]
    assert all_values == expected_values
    assert (tmp_path / "events-3" / "leader-epoch-checkpoint").read_bytes() == b"0\n3\n0 0\n1 %d\n2 %d\n" % (
        produced[20][0].base_offset,
        produced[40][0].base_offset,
    )


def test_active_segment_files_are_preallocated_then_trimmed_on_close(tmp_path):
    plog = PartitionLog(tmp_path / "t-0", LogConfig(segment_index_bytes=1003, index_interval_bytes=10))
    for _ in range(5):
        plog.append_as_leader(memoryview(make_batch(2)), 0)
    d = tmp_path / "t-0"
    assert (d / "00000000000000000000.index").stat().st_size == 1000
    assert (d / "00000000000000000000.timeindex").stat().st_size == 996
    plog.close()
    assert (d / "00000000000000000000.index").stat().st_size == 4 * 8
    assert (d / "00000000000000000000.timeindex").stat().st_size == 1 * 12
