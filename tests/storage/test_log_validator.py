"""LogValidator: one test per check, with crafted batches (build_batch, then bytes corrupted).

kafka-python's DefaultRecordBatch is the independent oracle for CRCs and record decoding
after the validator rewrote a batch in place.
"""

from __future__ import annotations

import struct

import cramjam
import pytest
from kafka.record.default_records import DefaultRecordBatch

from protocol import compression
from protocol.errors import ErrorCode, KafkaError
from protocol.record_batch import (
    CONTROL_MASK,
    HEADER,
    HEADER_SIZE,
    TIMESTAMP_TYPE_MASK,
    compute_crc,
    read_header,
)
from protocol.records import build_batch, decode_batch, encode_record
from storage import log_validator
from storage.log_config import LogConfig
from storage.log_validator import ValidatedBatch, validate_batch_for_append
from storage.producer_state import AppendOrigin
from storage.record_scan import RecordValidationError

NOW = 1_700_000_000_000
HOUR = 3_600_000
CODECS = [compression.GZIP, compression.SNAPPY, compression.LZ4, compression.ZSTD]
ALL_CODECS = [compression.NONE, *CODECS]

_CRC = struct.Struct(">I")


def batch(n: int = 3, **kw) -> bytearray:
    """A valid batch of ``n`` keyed records at NOW (keyword arguments go to build_batch)."""
    kw.setdefault("timestamp", NOW)
    return bytearray(build_batch([(b"k%d" % i, b"value-%d" % i) for i in range(n)], **kw))


def reseal(buf: bytearray) -> bytearray:
    """Recompute the CRC after a crafted change, so the check under test is the one hit."""
    _CRC.pack_into(buf, 17, compute_crc(buf, 0, len(buf)))
    return buf


def set_field(buf: bytearray, fmt: str, offset: int, value: int, *, crc: bool = True) -> bytearray:
    struct.pack_into(fmt, buf, offset, value)
    return reseal(buf) if crc else buf


def raw_batch(
    section: bytes,
    count: int,
    *,
    codec: int = compression.NONE,
    last_offset_delta: int | None = None,
    base_ts: int = NOW,
    max_ts: int = NOW,
    attrs: int = 0,
    producer_id: int = -1,
    producer_epoch: int = -1,
    base_sequence: int = -1,
) -> bytearray:
    """A batch around an arbitrary (uncompressed) records section, compressed with ``codec``."""
    body = compression.compress(codec, section) if codec else section
    size = HEADER_SIZE + len(body)
    out = bytearray(size)
    HEADER.pack_into(
        out,
        0,
        0,
        size - 12,
        -1,
        2,
        0,
        attrs | codec,
        count - 1 if last_offset_delta is None else last_offset_delta,
        base_ts,
        max_ts,
        producer_id,
        producer_epoch,
        base_sequence,
        count,
    )
    out[HEADER_SIZE:] = body
    return reseal(out)


def records_section(specs: list[tuple[int, int, bytes | None]]) -> bytes:
    """Records from (offset_delta, timestamp_delta, key) triples."""
    w = bytearray()
    for off, ts, key in specs:
        encode_record(w, off, ts, key, b"v")
    return bytes(w)


# The future bound these tests check against unless they pass a config (Kafka 3.9's default
# is Long.MAX: no bound; Kafka 4.0's is one hour).
HOUR_AHEAD = LogConfig(message_timestamp_after_max_ms=3_600_000)


def validate(
    buf, cfg: LogConfig | None = None, *, now: int = NOW, origin=AppendOrigin.CLIENT
) -> ValidatedBatch:
    return validate_batch_for_append(
        None if buf is None else memoryview(buf), config=cfg or HOUR_AHEAD, now_ms=now, origin=origin
    )


def rejects(buf, code: ErrorCode, cfg: LogConfig | None = None, **kw) -> KafkaError:
    with pytest.raises(KafkaError) as info:
        validate(buf, cfg, **kw)
    assert info.value.error is code, info.value
    return info.value


# ------------------------------------------------------------------- framing (validateRecords)


def test_valid_uncompressed_batch_is_accepted_unchanged():
    buf = batch(5, producer_id=7, producer_epoch=0, base_sequence=0)
    before = bytes(buf)
    v = validate(buf)
    assert v.log_append_time == -1
    assert v.header == read_header(before)
    assert bytes(buf) == before


def test_null_records_are_invalid_record():
    rejects(None, ErrorCode.INVALID_RECORD)


def test_empty_records_are_invalid_record():
    rejects(bytearray(), ErrorCode.INVALID_RECORD)


def test_fewer_than_12_bytes_is_no_batch_invalid_record():
    rejects(batch()[:11], ErrorCode.INVALID_RECORD)


def test_batch_length_below_14_is_corrupt_message():
    buf = batch()
    set_field(buf, ">i", 8, 13, crc=False)
    rejects(buf, ErrorCode.CORRUPT_MESSAGE)


def test_truncated_batch_is_no_whole_batch_invalid_record():
    # ByteBufferLogInputStream returns no batch when the buffer is shorter than batchLength + 12.
    rejects(batch()[:-1], ErrorCode.INVALID_RECORD)


@pytest.mark.parametrize("magic", [3, 127, -1])
def test_magic_outside_0_to_2_is_corrupt_message(magic):
    buf = batch()
    set_field(buf, ">b", 16, magic, crc=False)
    rejects(buf, ErrorCode.CORRUPT_MESSAGE)


@pytest.mark.parametrize("magic", [0, 1])
def test_old_magic_is_invalid_record(magic):
    buf = batch()
    set_field(buf, ">b", 16, magic, crc=False)
    rejects(buf, ErrorCode.INVALID_RECORD)


def test_two_batches_are_invalid_record():
    rejects(batch() + batch(), ErrorCode.INVALID_RECORD)


@pytest.mark.parametrize("extra", [b"\x00", b"\x00" * 11, bytes(batch())[:40]])
def test_trailing_partial_bytes_are_corrupt_message(extra):
    rejects(batch() + extra, ErrorCode.CORRUPT_MESSAGE)


def test_trailing_bytes_with_impossible_length_are_corrupt_message():
    trailing = bytearray(12)
    struct.pack_into(">i", trailing, 8, 3)
    rejects(batch() + trailing, ErrorCode.CORRUPT_MESSAGE)


def test_second_batch_with_bad_magic_is_corrupt_message():
    second = batch()
    set_field(second, ">b", 16, 9, crc=False)
    rejects(batch() + second, ErrorCode.CORRUPT_MESSAGE)


# ------------------------------------------------------ analyzeAndValidateRecords / append


def test_base_offset_not_zero_from_client_is_invalid_record():
    buf = batch()
    set_field(buf, ">q", 0, 42, crc=False)  # baseOffset is outside the CRC
    rejects(buf, ErrorCode.INVALID_RECORD)


def test_base_offset_not_zero_is_fine_for_replication():
    buf = batch()
    set_field(buf, ">q", 0, 42, crc=False)
    assert validate(buf, origin=AppendOrigin.REPLICATION).header.base_offset == 42


def test_batch_above_max_message_bytes_is_message_too_large():
    buf = batch(10)
    rejects(buf, ErrorCode.MESSAGE_TOO_LARGE, LogConfig(max_message_bytes=len(buf) - 1))
    assert validate(buf, LogConfig(max_message_bytes=len(buf))).header.records_count == 10


def test_replication_ignores_max_message_bytes():
    buf = batch(10)
    validate(buf, LogConfig(max_message_bytes=10), origin=AppendOrigin.REPLICATION)


def test_batch_above_segment_bytes_is_record_list_too_large():
    buf = batch(10)
    rejects(buf, ErrorCode.RECORD_LIST_TOO_LARGE, LogConfig(segment_bytes=len(buf) - 1))


def test_batch_shorter_than_its_header_is_corrupt_message():
    buf = batch()[:40]
    struct.pack_into(">i", buf, 8, 40 - 12)
    rejects(buf, ErrorCode.CORRUPT_MESSAGE)


@pytest.mark.parametrize("offset", [21, 30, 45, 57, 70, -1])
def test_any_byte_change_under_the_crc_is_corrupt_message(offset):
    buf = batch()
    buf[offset] ^= 0x01
    rejects(buf, ErrorCode.CORRUPT_MESSAGE)


def test_crc_mismatch_in_compressed_batch_is_corrupt_message():
    buf = batch(compression_type=compression.ZSTD)
    buf[-2] ^= 0xFF
    rejects(buf, ErrorCode.CORRUPT_MESSAGE)


def test_partition_leader_epoch_is_outside_the_crc():
    buf = batch()
    set_field(buf, ">i", 12, 99, crc=False)
    assert validate(buf).header.partition_leader_epoch == 99


@pytest.mark.parametrize("codec", [5, 6, 7])
def test_unknown_compression_codec_is_invalid_record(codec):
    buf = batch()
    set_field(buf, ">h", 21, codec)
    rejects(buf, ErrorCode.INVALID_RECORD)


# ----------------------------------------------------------------- LogValidator.validateBatch


def test_record_count_not_matching_last_offset_delta_is_invalid_record():
    buf = batch(3)
    set_field(buf, ">i", 57, 4)  # recordsCount
    rejects(buf, ErrorCode.INVALID_RECORD)


def test_negative_last_offset_delta_is_invalid_record():
    buf = batch(3)
    set_field(buf, ">i", 23, -1)
    rejects(buf, ErrorCode.INVALID_RECORD)


@pytest.mark.parametrize("count", [0, -5])
def test_record_count_not_positive_is_invalid_record(count):
    buf = batch(1)
    set_field(buf, ">i", 23, count - 1)
    set_field(buf, ">i", 57, count)
    rejects(buf, ErrorCode.INVALID_RECORD)


def test_control_batch_from_a_client_is_invalid_record():
    buf = batch(control=True)
    rejects(buf, ErrorCode.INVALID_RECORD)


def test_control_batch_from_the_coordinator_is_accepted():
    buf = batch(control=True)
    assert validate(buf, origin=AppendOrigin.COORDINATOR).header.attributes & CONTROL_MASK


def test_producer_id_with_negative_base_sequence_is_invalid_record():
    rejects(batch(producer_id=3, producer_epoch=0, base_sequence=-1), ErrorCode.INVALID_RECORD)


def test_non_idempotent_batch_may_have_no_sequence():
    validate(batch(producer_id=-1, base_sequence=-1))


def test_uncompressed_record_count_that_cannot_fit_is_invalid_record():
    buf = raw_batch(records_section([(0, 0, b"k")]), 1)
    # claim 100 records: 100 * 7 bytes cannot fit in the section
    set_field(buf, ">i", 23, 99)
    set_field(buf, ">i", 57, 100)
    rejects(buf, ErrorCode.INVALID_RECORD)


def test_uncompressed_batch_records_are_never_walked(monkeypatch):
    def walked(*args, **kwargs):
        raise AssertionError("uncompressed records must not be walked on the produce path")

    monkeypatch.setattr(log_validator, "scan_records", walked)
    validate(batch(50, producer_id=1, producer_epoch=0, base_sequence=0))
    # LogAppendTime is a header rewrite too, no walk
    validate(batch(50), LogConfig(message_timestamp_type="LogAppendTime"))


# ------------------------------------------------------------------------ compressed batches


@pytest.mark.parametrize("codec", CODECS)
def test_every_codec_is_validated_and_accepted(codec):
    buf = batch(20, compression_type=codec)
    v = validate(buf)
    assert v.header.compression == codec
    assert [r.key for r in decode_batch(buf)] == [b"k%d" % i for i in range(20)]


def test_snappy_raw_without_xerial_framing_is_accepted():
    section = records_section([(i, 0, b"k") for i in range(4)])
    body = bytes(cramjam.snappy.compress_raw(section))
    buf = raw_batch(b"", 4, codec=compression.SNAPPY)
    buf[HEADER_SIZE:] = body
    struct.pack_into(">i", buf, 8, len(buf) - 12)
    reseal(buf)
    validate(buf)


@pytest.mark.parametrize("codec", CODECS)
def test_undecompressable_data_is_corrupt_message(codec):
    buf = raw_batch(b"", 3, codec=codec)
    buf[HEADER_SIZE:] = b"\x13\x37 this is not compressed data \xff\x00\xfe"
    struct.pack_into(">i", buf, 8, len(buf) - 12)
    rejects(reseal(buf), ErrorCode.CORRUPT_MESSAGE)


@pytest.mark.parametrize("codec", CODECS)
def test_truncated_compressed_stream_is_corrupt_message(codec):
    section = records_section([(i, 0, b"key") for i in range(30)])
    good = raw_batch(section, 30, codec=codec)
    buf = good[:-8]
    struct.pack_into(">i", buf, 8, len(buf) - 12)
    rejects(reseal(buf), ErrorCode.CORRUPT_MESSAGE)


@pytest.mark.parametrize("codec", CODECS)
def test_malformed_record_inside_compressed_batch_is_invalid_record(codec):
    section = bytearray(records_section([(0, 0, b"a"), (1, 0, b"b"), (2, 0, b"c")]))
    # second record: make its key length run past the record
    first_len = section[0] >> 1
    second = 1 + first_len
    section[second + 4] = 0x7E  # keyLength varint (zigzag 63)
    err = rejects(raw_batch(bytes(section), 3, codec=codec), ErrorCode.INVALID_RECORD)
    assert isinstance(err, RecordValidationError)
    assert err.record_errors[0][0] == 1


@pytest.mark.parametrize("codec", CODECS)
def test_fewer_records_than_declared_in_compressed_batch_is_invalid_record(codec):
    section = records_section([(i, 0, b"k") for i in range(3)])
    rejects(raw_batch(section, 5, codec=codec), ErrorCode.INVALID_RECORD)


@pytest.mark.parametrize("codec", CODECS)
def test_more_records_than_declared_in_compressed_batch_is_invalid_record(codec):
    section = records_section([(i, 0, b"k") for i in range(5)])
    err = rejects(raw_batch(section, 3, codec=codec), ErrorCode.INVALID_RECORD)
    assert "remaining" in str(err)


@pytest.mark.parametrize("codec", CODECS)
def test_non_sequential_offset_deltas_are_invalid_record_with_record_errors(codec):
    section = records_section([(0, 0, b"a"), (1, 0, b"b"), (5, 0, b"c"), (3, 0, b"d")])
    err = rejects(raw_batch(section, 4, codec=codec), ErrorCode.INVALID_RECORD)
    assert isinstance(err, RecordValidationError)
    assert [i for i, _ in err.record_errors] == [2]


@pytest.mark.parametrize("codec", CODECS)
def test_decompression_beyond_the_bound_is_message_too_large(codec, monkeypatch):
    monkeypatch.setattr(log_validator, "MIN_DECOMPRESSED_LIMIT", 1 << 20)
    monkeypatch.setattr(log_validator, "DECOMPRESSION_RATIO_LIMIT", 2)
    cfg = LogConfig(max_message_bytes=256 * 1024)  # inflating beyond 1 MiB is refused
    # 64 records of 32 KiB zero values: 2 MiB inflated, tiny compressed
    section = bytearray()
    for i in range(64):
        encode_record(section, i, 0, b"k", bytes(32 * 1024))
    buf = raw_batch(bytes(section), 64, codec=codec)
    assert len(buf) <= cfg.max_message_bytes
    rejects(buf, ErrorCode.MESSAGE_TOO_LARGE, cfg)
    # the bound grows with max.message.bytes: 2 * 2 MiB lets the same batch through
    validate(buf, LogConfig(max_message_bytes=2 << 20))


# ---------------------------------------------------------------------------- timestamps


@pytest.mark.parametrize("codec", ALL_CODECS)
def test_log_append_time_rewrites_max_timestamp_and_keeps_a_valid_crc(codec):
    buf = batch(5, compression_type=codec, timestamp=NOW - 10 * HOUR)
    v = validate(buf, LogConfig(message_timestamp_type="LogAppendTime"), now=NOW + 1)
    assert v.log_append_time == NOW + 1
    assert v.header.max_timestamp == NOW + 1
    assert v.header.attributes & TIMESTAMP_TYPE_MASK
    assert v.header == read_header(buf)
    oracle = DefaultRecordBatch(bytes(buf))
    assert oracle.validate_crc()
    assert oracle.timestamp_type == 1
    assert [r.timestamp for r in oracle] == [NOW + 1] * 5


@pytest.mark.parametrize("codec", ALL_CODECS)
def test_log_append_time_set_by_a_client_is_invalid_timestamp(codec):
    buf = batch(3, compression_type=codec, log_append_time=True)
    err = rejects(buf, ErrorCode.INVALID_TIMESTAMP, LogConfig(message_timestamp_type="LogAppendTime"))
    assert [i for i, _ in err.record_errors] == [0, 1, 2]


def test_create_time_in_range_is_accepted_as_sent():
    buf = batch(3, timestamps=[NOW - 5, NOW, NOW + 5])
    before = bytes(buf)
    assert validate(buf).log_append_time == -1
    assert bytes(buf) == before


@pytest.mark.parametrize("codec", ALL_CODECS)
def test_create_time_too_far_in_the_future_is_invalid_timestamp_naming_the_record(codec):
    buf = batch(3, compression_type=codec, timestamps=[NOW, NOW + 1, NOW + 2 * HOUR])
    err = rejects(buf, ErrorCode.INVALID_TIMESTAMP)
    assert isinstance(err, RecordValidationError)
    assert [i for i, _ in err.record_errors] == [2]
    assert "out of range" in err.record_errors[0][1]


@pytest.mark.parametrize("codec", ALL_CODECS)
def test_create_time_too_old_for_before_max_ms_is_invalid_timestamp(codec):
    cfg = LogConfig(message_timestamp_before_max_ms=HOUR)
    buf = batch(3, compression_type=codec, timestamps=[NOW - 2 * HOUR, NOW, NOW])
    err = rejects(buf, ErrorCode.INVALID_TIMESTAMP, cfg)
    assert [i for i, _ in err.record_errors] == [0]
    # default before.max.ms is Long.MAX: a very old timestamp is fine
    validate(batch(3, compression_type=codec, timestamp=1))


def test_by_default_any_future_timestamp_is_accepted():
    """Kafka 3.9: message.timestamp.after.max.ms defaults to Long.MAX_VALUE (ServerLogConfigs)."""
    assert LogConfig().message_timestamp_after_max_ms == 2**63 - 1
    validate(batch(2, compression_type=1, timestamps=[NOW, NOW + 1000 * 24 * HOUR]), LogConfig())
    validate(batch(1, timestamp=NOW + 1000 * 24 * HOUR), LogConfig())


def test_after_max_ms_boundary_is_inclusive():
    validate(batch(1, timestamp=NOW + HOUR))
    rejects(batch(1, timestamp=NOW + HOUR + 1), ErrorCode.INVALID_TIMESTAMP)


@pytest.mark.parametrize("codec", CODECS)
def test_compressed_batch_middle_record_out_of_range_is_caught(codec):
    buf = batch(3, compression_type=codec, timestamps=[NOW, NOW + 3 * HOUR, NOW])
    # the header max would expose it too; hide it to prove every record is checked
    set_field(buf, ">q", 35, NOW)
    err = rejects(buf, ErrorCode.INVALID_TIMESTAMP)
    assert [i for i, _ in err.record_errors] == [1]


def test_uncompressed_middle_record_out_of_range_is_not_caught_by_design():
    # Documented difference: uncompressed batches are checked through baseTimestamp and
    # maxTimestamp only (no per-record walk on the produce path).
    buf = batch(3, timestamps=[NOW, NOW + 3 * HOUR, NOW])
    set_field(buf, ">q", 35, NOW)
    validate(buf)


@pytest.mark.parametrize("codec", ALL_CODECS)
def test_wrong_max_timestamp_in_header_is_corrected_when_records_were_walked(codec):
    buf = batch(3, compression_type=codec, timestamps=[NOW, NOW + 7, NOW + 3])
    # claim a max far in the future: out of range for uncompressed (error path walks), and
    # plainly wrong for compressed
    set_field(buf, ">q", 35, NOW + 5 * HOUR)
    v = validate(buf)
    assert v.header.max_timestamp == NOW + 7
    assert DefaultRecordBatch(bytes(buf)).validate_crc()


def test_records_without_timestamp_are_not_range_checked():
    section = records_section([(0, 0, b"a"), (1, 0, b"b")])
    buf = raw_batch(section, 2, base_ts=-1, max_ts=-1)
    validate(buf, LogConfig(message_timestamp_before_max_ms=1))


@pytest.mark.parametrize("codec", ALL_CODECS)
def test_client_log_append_time_on_create_time_topic_is_checked_and_stored_as_create_time(codec):
    buf = batch(3, compression_type=codec, log_append_time=True, timestamp=NOW - 1)
    v = validate(buf)
    assert v.log_append_time == -1
    assert not v.header.attributes & TIMESTAMP_TYPE_MASK
    assert v.header.max_timestamp == NOW - 1
    assert DefaultRecordBatch(bytes(buf)).validate_crc()


def test_client_log_append_time_with_out_of_range_max_is_invalid_timestamp():
    buf = batch(2, log_append_time=True, timestamp=NOW + 2 * HOUR)
    err = rejects(buf, ErrorCode.INVALID_TIMESTAMP)
    assert [i for i, _ in err.record_errors] == [0, 1]


def test_client_log_append_time_without_timestamp_is_invalid_timestamp():
    section = records_section([(0, 0, b"a")])
    buf = raw_batch(section, 1, base_ts=-1, max_ts=-1, attrs=TIMESTAMP_TYPE_MASK)
    rejects(buf, ErrorCode.INVALID_TIMESTAMP)


def test_replication_skips_timestamp_checks_and_rewrites():
    buf = batch(2, timestamp=NOW + 10 * HOUR)
    before = bytes(buf)
    v = validate(buf, LogConfig(message_timestamp_type="LogAppendTime"), origin=AppendOrigin.REPLICATION)
    assert v.log_append_time == -1
    assert bytes(buf) == before


def test_coordinator_appends_get_log_append_time():
    buf = batch(2)
    v = validate(buf, LogConfig(message_timestamp_type="LogAppendTime"), origin=AppendOrigin.COORDINATOR)
    assert v.log_append_time == NOW


# ------------------------------------------------------------------------- compacted topics


@pytest.mark.parametrize("codec", ALL_CODECS)
def test_compacted_topic_refuses_records_without_key(codec):
    section = records_section([(0, 0, b"a"), (1, 0, None), (2, 0, b"c"), (3, 0, None)])
    cfg = LogConfig(cleanup_policy=("compact",))
    err = rejects(raw_batch(section, 4, codec=codec), ErrorCode.INVALID_RECORD, cfg)
    assert [i for i, _ in err.record_errors] == [1, 3]
    validate(raw_batch(section, 4, codec=codec))  # fine on a delete topic


@pytest.mark.parametrize("codec", ALL_CODECS)
def test_compacted_topic_accepts_keyed_records(codec):
    validate(batch(5, compression_type=codec), LogConfig(cleanup_policy=("compact", "delete")))


def test_compacted_topic_does_not_look_at_an_uncompressed_batchs_offset_deltas():
    """LogValidator.assignOffsetsNonCompressed counts an uncompressed batch's records and never
    reads their offset deltas, compacted topic or not (validateKey looks at the key only)."""
    section = records_section([(0, 0, b"a"), (3, 0, b"b")])
    compacted = LogConfig(cleanup_policy=("compact",))
    validate(raw_batch(section, 2, last_offset_delta=1), compacted)


@pytest.mark.parametrize("codec", [compression.NONE, compression.GZIP])
def test_a_record_with_no_key_and_a_bad_timestamp_has_only_its_key_error(codec):
    """LogValidator.validateRecord returns a record's key error and checks its timestamp only
    when the key is fine: one INVALID_RECORD error per record, so the answer is INVALID_RECORD."""
    cfg = LogConfig(cleanup_policy=("compact",), message_timestamp_before_max_ms=HOUR)
    section = records_section([(0, 0, None), (1, 0, None)])
    old = NOW - 2 * HOUR
    err = rejects(raw_batch(section, 2, codec=codec, base_ts=old, max_ts=old), ErrorCode.INVALID_RECORD, cfg)
    assert [i for i, _ in err.record_errors] == [0, 1]
    assert "without key" in err.record_errors[0][1]


def test_an_lz4_frame_of_dependent_blocks_is_corrupt():
    """KafkaLZ4BlockInputStream.readHeader refuses a frame without the block-independence flag
    ("Dependent block stream is unsupported"), a dictionary id or another version: the batch is
    refused (CORRUPT_MESSAGE here, Kafka: UNKNOWN_SERVER_ERROR) instead of stored unreadable."""
    import lz4.frame

    section = records_section([(0, 0, b"k")])
    good = raw_batch(section, 1, codec=compression.LZ4)
    validate(bytearray(good))
    linked = lz4.frame.LZ4FrameCompressor(block_linked=True)
    frame = linked.begin() + linked.compress(section) + linked.flush()
    assert not frame[4] & 0x20  # FLG: blocks depend on each other (a valid frame otherwise)
    assert lz4.frame.decompress(frame) == section
    batch_of_it = bytearray(good[:HEADER_SIZE]) + frame
    struct.pack_into(">i", batch_of_it, 8, len(batch_of_it) - 12)  # batch length
    err = rejects(reseal(batch_of_it), ErrorCode.CORRUPT_MESSAGE)
    assert "Dependent block stream is unsupported" in str(err)
