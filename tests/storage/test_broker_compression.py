"""The broker's own compression (``compression.type`` other than ``producer``, Kafka's
``LogValidator`` with a target codec unlike the batch's) and Kafka's LZ4 frame.

Every batch a topic receives is written with the topic's codec at its level
(``compression.gzip.level`` / ``lz4`` / ``zstd``, KIP-390), records unchanged; the batch on
disk is read back with kafka-python's record parser (an independent decoder). Real clients
reading such topics: tests/integration/test_broker_compression_clients.py.
"""

from __future__ import annotations

import lz4.frame
import pytest
from kafka.record import MemoryRecords

from protocol import compression
from protocol.control_records import build_end_txn_marker_batch
from protocol.errors import ErrorCode, KafkaError
from protocol.record_batch import CONTROL_MASK, read_header
from protocol.records import build_batch
from storage.producer_state import AppendOrigin
from tests.storage.batch_factory import BASE_TS, make_batch
from tests.storage.log_factory import open_log

CODECS = {"uncompressed": 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}


def records_on_disk(plog) -> list[tuple[int, int, bytes | None, bytes | None]]:
    """(codec, offset, key, value) of every record in the log's segment files."""
    out = []
    for segment in sorted(plog.dir.glob("*.log")):
        records = MemoryRecords(segment.read_bytes())
        while records.has_next():
            batch = records.next_batch()
            assert batch.validate_crc()
            out.extend((batch.compression_type, r.offset, r.key, r.value) for r in batch)
    return out


@pytest.mark.parametrize("target", sorted(CODECS))
@pytest.mark.parametrize("source", [0, 1, 3, 4])
def test_batches_are_written_with_the_topics_codec(tmp_path, target, source):
    plog = open_log(tmp_path, compression_type=target)
    try:
        batch = make_batch(
            20, value_size=300, compression_type=source, producer_id=7, producer_epoch=0, base_sequence=0
        )
        second = make_batch(5, compression_type=source, producer_id=7, producer_epoch=0, base_sequence=20)
        # what was produced, read before the appends patch the offsets into the batches
        expected = [(r.offset, r.key, r.value) for r in _records(batch)] + [
            (r.offset + 20, r.key, r.value) for r in _records(second)
        ]
        info = plog.append_as_leader(memoryview(batch), 0)
        assert (info.base_offset, info.last_offset) == (0, 19)
        plog.append_as_leader(memoryview(second), 0)
        got = records_on_disk(plog)
        assert {codec for codec, *_ in got} == {CODECS[target]}
        assert [(o, k, v) for _, o, k, v in got] == expected
        # The producer's idempotence holds on the rewritten batch: a retry is a duplicate.
        again = plog.append_as_leader(
            memoryview(
                make_batch(5, compression_type=source, producer_id=7, producer_epoch=0, base_sequence=20)
            ),
            0,
        )
        assert again.duplicate and again.base_offset == 20
        assert plog.log_end_offset == 25
    finally:
        plog.close()


def test_a_rewritten_batch_is_inflated_once(tmp_path, monkeypatch):
    """The records the validation inflated and walked are the ones compressed again (the
    validation's rewrites touch the header only): one inflation per rewritten batch."""
    import storage.log_validator as log_validator

    inflations = []
    original = log_validator._decompress

    def counted(*args, **kwargs):
        inflations.append(args[0])
        return original(*args, **kwargs)

    monkeypatch.setattr(log_validator, "_decompress", counted)
    plog = open_log(tmp_path, compression_type="zstd", message_timestamp_type="LogAppendTime")
    try:
        plog.append_as_leader(memoryview(make_batch(20, compression_type=compression.GZIP)), 0)
        assert inflations == [compression.GZIP]
        assert {codec for codec, *_ in records_on_disk(plog)} == {CODECS["zstd"]}
    finally:
        plog.close()


def _records(batch: bytearray):
    records = MemoryRecords(bytes(batch))
    return list(records.next_batch())


def test_producer_keeps_the_producers_codec(tmp_path):
    plog = open_log(tmp_path, compression_type="producer")
    try:
        plog.append_as_leader(memoryview(make_batch(3, compression_type=1)), 0)
        plog.append_as_leader(memoryview(make_batch(3)), 0)
        assert [codec for codec, *_ in records_on_disk(plog)] == [1, 1, 1, 0, 0, 0]
    finally:
        plog.close()


def test_a_batch_grown_past_max_message_bytes_by_the_broker_is_refused(tmp_path):
    """UnifiedLog.append checks the size again when the broker rewrote the batch."""
    batch = make_batch(1, value_size=5000, compression_type=4)  # zstd of one repeated value: small
    size = len(batch)
    plog = open_log(tmp_path, compression_type="uncompressed", max_message_bytes=size + 100)
    try:
        with pytest.raises(KafkaError) as caught:
            plog.append_as_leader(memoryview(batch), 0)
        assert caught.value.error is ErrorCode.MESSAGE_TOO_LARGE
        assert plog.log_end_offset == 0
    finally:
        plog.close()


def test_uncompressed_control_batches_stay_uncompressed(tmp_path):
    """LogValidator: control records are not compressed unless they were written compressed."""
    plog = open_log(tmp_path, compression_type="gzip")
    try:
        txn = build_batch(
            [(b"k", b"v")], producer_id=3, producer_epoch=0, base_sequence=0, transactional=True
        )
        plog.append_as_leader(memoryview(bytearray(txn)), 0)
        marker = build_end_txn_marker_batch(
            producer_id=3, producer_epoch=0, committed=True, coordinator_epoch=0, timestamp=BASE_TS
        )
        plog.append_as_leader(memoryview(bytearray(marker)), 0, origin=AppendOrigin.COORDINATOR)
        segment = sorted(plog.dir.glob("*.log"))[0].read_bytes()
        first = read_header(segment, 0)
        second = read_header(segment, first.size)
        assert first.compression == 1
        assert second.attributes & CONTROL_MASK and second.compression == 0
    finally:
        plog.close()


@pytest.mark.parametrize("level", [None, 1, 12])
def test_lz4_frames_are_kafkas(level):
    """Kafka's Lz4BlockOutputStream frame: independent 64 KiB blocks and no checksums (FLG
    0x60, BD 0x40), which Kafka's Lz4BlockInputStream requires (it refuses linked blocks)."""
    data = bytes(range(256)) * 1000 + b"x" * 100_000
    frame = compression.compress(compression.LZ4, data, level)
    assert frame[:7] == bytes.fromhex("04224d18604082")
    assert lz4.frame.decompress(frame) == data
    assert compression.decompress(compression.LZ4, frame) == data
    assert compression.compress(compression.LZ4, b"") == bytes.fromhex("04224d18604082") + b"\0\0\0\0"


def test_levels_change_what_is_written(tmp_path):
    """KIP-390: the topic's level is the one compressed at (gzip 1 against 9 here)."""
    batch = make_batch(200, value_size=500)
    written = {}
    for level in (1, 9):
        plog = open_log(tmp_path / str(level), compression_type="gzip", compression_gzip_level=level)
        try:
            plog.append_as_leader(memoryview(bytearray(batch)), 0)
            segment = sorted(plog.dir.glob("*.log"))[0].read_bytes()
            written[level] = segment[61:]  # the compressed records
        finally:
            plog.close()
    assert written[1] != written[9]
    assert compression.decompress(1, written[1]) == compression.decompress(1, written[9])
