"""RecordBatch v2 header view, CRC-32C, in-place patches and the four codecs.

kafka-python's record classes serve as an independent decoder.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kafka.record.default_records import DefaultRecordBatch

from protocol import compression
from protocol.record_batch import (
    HEADER_SIZE,
    LOG_APPEND_TIME,
    decrement_sequence,
    increment_sequence,
    is_valid_crc,
    iter_batches,
    read_header,
    set_base_offset,
    set_log_append_time,
    set_partition_leader_epoch,
)
from protocol.records import build_batch, decode_batch

CODECS = [compression.NONE, compression.GZIP, compression.SNAPPY, compression.LZ4, compression.ZSTD]


@pytest.mark.parametrize("codec", CODECS)
def test_built_batches_decode_with_kafka_python(codec):
    recs = [(b"k%d" % i, b"v" * i, [("h", b"x%d" % i)]) for i in range(20)] + [(None, None)]
    raw = build_batch(recs, compression_type=codec, producer_id=7, producer_epoch=2, base_sequence=40)
    theirs = DefaultRecordBatch(raw)
    assert theirs.validate_crc()
    assert theirs.producer_id == 7 and theirs.producer_epoch == 2 and theirs.base_sequence == 40
    assert theirs.compression_type == codec
    got = [(r.key, r.value, [(k, v) for k, v in r.headers]) for r in theirs]
    assert got == [(k, v, list(h[0] if h else [])) for k, v, *h in recs]
    ours = decode_batch(raw)
    assert [(r.key, r.value) for r in ours] == [(k, v) for k, v, *_ in recs]


def test_header_fields():
    raw = build_batch(
        [(b"a", b"b"), (b"c", b"d")],
        base_offset=10,
        producer_id=3,
        producer_epoch=1,
        base_sequence=2147483647,
        timestamps=[1000, 1500],
    )
    h = read_header(raw)
    assert h.size == len(raw) and h.magic == 2 and h.records_count == 2
    assert h.last_offset == 11 and h.next_offset == 12
    assert h.base_timestamp == 1000 and h.max_timestamp == 1500
    assert h.last_sequence == 0  # wraps past Integer.MAX_VALUE
    assert is_valid_crc(raw, 0, h)


def test_patching_offset_and_leader_epoch_keeps_the_crc():
    buf = bytearray(build_batch([(b"k", b"v")] * 3))
    set_base_offset(buf, 0, 123456)
    set_partition_leader_epoch(buf, 0, 9)
    h = read_header(buf)
    assert (h.base_offset, h.partition_leader_epoch) == (123456, 9)
    assert is_valid_crc(buf, 0, h)
    assert DefaultRecordBatch(bytes(buf)).validate_crc()
    assert [r.offset for r in decode_batch(buf)] == [123456, 123457, 123458]


def test_log_append_time_recomputes_the_crc():
    buf = bytearray(build_batch([(b"k", b"v")] * 2, timestamps=[5, 6]))
    set_log_append_time(buf, 0, len(buf), 999)
    h = read_header(buf)
    assert h.timestamp_type == LOG_APPEND_TIME and h.max_timestamp == 999
    assert is_valid_crc(buf, 0, h) and DefaultRecordBatch(bytes(buf)).validate_crc()
    assert [r.timestamp for r in decode_batch(buf)] == [999, 999]


def test_flipped_bit_breaks_the_crc():
    buf = bytearray(build_batch([(b"k", b"v")]))
    buf[HEADER_SIZE + 2] ^= 0x10
    assert not is_valid_crc(buf, 0, read_header(buf))


def test_iter_batches_stops_at_a_partial_batch():
    a, b = build_batch([(b"a", b"1")]), build_batch([(b"b", b"2")], base_offset=1)
    data = a + b + b[: len(b) // 2]
    assert [pos for pos, _ in iter_batches(data)] == [0, len(a)]


@given(st.integers(0, 2147483647), st.integers(0, 1000))
def test_sequence_arithmetic_wraps(seq, n):
    assert decrement_sequence(increment_sequence(seq, n), n) == seq
    assert 0 <= increment_sequence(seq, n) <= 2147483647


@settings(max_examples=50)
@given(st.sampled_from(CODECS), st.binary(max_size=5000))
def test_codecs_round_trip(codec, data):
    assert compression.decompress(codec, compression.compress(codec, data)) == data


def test_snappy_reads_xerial_framing_of_kafka_python_and_raw_snappy():
    from kafka import codec as kc

    data = b"hello moldau " * 5000
    assert compression.decompress(compression.SNAPPY, kc.snappy_encode(data, xerial_compatible=True)) == data
    assert compression.decompress(compression.SNAPPY, kc.snappy_encode(data, xerial_compatible=False)) == data
    assert kc.snappy_decode(compression.compress(compression.SNAPPY, data)) == data
    assert compression.decompress(compression.LZ4, kc.lz4_encode(data)) == data
    assert kc.lz4_decode(compression.compress(compression.LZ4, data)) == data
    assert compression.decompress(compression.ZSTD, kc.zstd_encode(data)) == data
    assert compression.decompress(compression.GZIP, kc.gzip_encode(data)) == data


@pytest.mark.parametrize("codec", CODECS[1:])
def test_corrupt_compressed_data_raises_compression_error(codec):
    with pytest.raises(compression.CompressionError):
        compression.decompress(codec, b"\x00garbage-bytes-that-are-not-compressed")
