"""Property tests: hostile bytes never raise anything but KafkaError; valid batches pass.

kafka-python's DefaultRecordBatch checks the CRC of every batch the validator accepted
(and possibly rewrote), as an independent oracle.
"""

from __future__ import annotations

import struct

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kafka.record.default_records import DefaultRecordBatch

from protocol import compression
from protocol.errors import KafkaError
from protocol.record_batch import HEADER_SIZE, compute_crc, read_header
from protocol.records import build_batch, records_section
from storage.log_config import LogConfig
from storage.log_validator import validate_batch_for_append
from storage.producer_state import AppendOrigin

NOW = 1_700_000_000_000
CONFIGS = [
    LogConfig(),
    LogConfig(message_timestamp_type="LogAppendTime"),
    LogConfig(cleanup_policy=("compact",), message_timestamp_before_max_ms=3_600_000),
]
_CRC = struct.Struct(">I")

codecs = st.sampled_from([0, 1, 2, 3, 4])
configs = st.sampled_from(CONFIGS)
origins = st.sampled_from(list(AppendOrigin))
PROPS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _outcome(buf: bytearray, cfg: LogConfig, origin: AppendOrigin) -> None:
    """Validate; anything but KafkaError fails the test. Accepted batches must be CRC-valid."""
    try:
        v = validate_batch_for_append(memoryview(buf), config=cfg, now_ms=NOW, origin=origin)
    except KafkaError:
        return
    assert DefaultRecordBatch(bytes(buf[: v.header.size])).validate_crc()
    assert v.header == read_header(buf)


def _reseal(buf: bytearray) -> bytearray:
    if len(buf) >= HEADER_SIZE:
        _CRC.pack_into(buf, 17, compute_crc(buf, 0, len(buf)))
    return buf


record = st.tuples(
    st.one_of(st.none(), st.binary(max_size=20)),
    st.one_of(st.none(), st.binary(max_size=60)),
    st.lists(st.tuples(st.text(max_size=5), st.one_of(st.none(), st.binary(max_size=8))), max_size=2),
)


@st.composite
def valid_batches(draw):
    items = draw(st.lists(record, min_size=1, max_size=12))
    codec = draw(codecs)
    timestamps = draw(
        st.lists(st.integers(NOW - 10_000, NOW + 10_000), min_size=len(items), max_size=len(items))
    )
    pid = draw(st.sampled_from([-1, 0, 12345]))
    return bytearray(
        build_batch(
            items,
            compression_type=codec,
            timestamps=timestamps,
            producer_id=pid,
            producer_epoch=0 if pid >= 0 else -1,
            base_sequence=draw(st.integers(0, 2**31 - 1)) if pid >= 0 else -1,
        )
    )


@PROPS
@given(st.binary(max_size=300), configs, origins)
def test_random_bytes_raise_only_kafka_errors(data, cfg, origin):
    _outcome(bytearray(data), cfg, origin)


@PROPS
@given(st.binary(min_size=HEADER_SIZE - 12, max_size=200), configs, origins)
def test_random_bodies_behind_a_plausible_header_raise_only_kafka_errors(body, cfg, origin):
    # a frame with a consistent length and magic 2 gets past the framing checks
    buf = bytearray(12) + bytearray(body)
    struct.pack_into(">i", buf, 8, len(buf) - 12)
    buf[16] = 2
    _outcome(_reseal(buf), cfg, origin)


@PROPS
@given(valid_batches(), configs)
def test_valid_batches_are_accepted(buf, cfg):
    if "compact" in cfg.cleanup_policy:
        return  # null keys are refused there
    v = validate_batch_for_append(memoryview(buf), config=cfg, now_ms=NOW)
    assert DefaultRecordBatch(bytes(buf)).validate_crc()
    assert v.header.records_count == read_header(buf).records_count


@PROPS
@given(
    valid_batches(),
    st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), min_size=1, max_size=4),
    st.booleans(),
    configs,
    origins,
)
def test_mutated_batches_raise_only_kafka_errors(buf, flips, reseal, cfg, origin):
    for pos, value in flips:
        buf[pos % len(buf)] = value
    _outcome(_reseal(buf) if reseal else buf, cfg, origin)


@PROPS
@given(
    valid_batches(),
    st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), min_size=1, max_size=3),
    st.integers(-2, 2),
    configs,
)
def test_mutated_records_inside_a_sound_envelope_raise_only_kafka_errors(buf, flips, count_change, cfg):
    # corrupt the (decompressed) records, then recompress and reseal, so the record walk sees it
    header = read_header(buf)
    section = bytearray(records_section(bytes(buf), header))
    if section:
        for pos, value in flips:
            section[pos % len(section)] = value
    body = compression.compress(header.compression, bytes(section)) if header.compression else bytes(section)
    out = bytearray(buf[:HEADER_SIZE]) + body
    struct.pack_into(">i", out, 8, len(out) - 12)
    count = header.records_count + count_change
    struct.pack_into(">i", out, 23, count - 1)
    struct.pack_into(">i", out, 57, count)
    _outcome(_reseal(out), cfg, AppendOrigin.CLIENT)
