"""Control records (COMMIT / ABORT markers) in Kafka's byte format."""

from __future__ import annotations

import pytest

from protocol.control_records import (
    ControlRecordType,
    EndTransactionMarker,
    build_end_txn_marker_batch,
    control_key,
    end_txn_marker_value,
    parse_control_key,
    parse_end_txn_marker,
    read_end_txn_marker,
)
from protocol.primitives import DecodeError
from protocol.record_batch import CONTROL_MASK, NO_SEQUENCE, TRANSACTIONAL_MASK, is_valid_crc, read_header
from protocol.records import build_batch, decode_batch


def test_key_and_value_bytes_are_kafkas() -> None:
    # ControlRecordType.recordKey: version int16 0, type int16; EndTransactionMarker value:
    # version int16 0, coordinatorEpoch int32.
    assert control_key(ControlRecordType.ABORT) == b"\x00\x00\x00\x00"
    assert control_key(ControlRecordType.COMMIT) == b"\x00\x00\x00\x01"
    assert end_txn_marker_value(7) == b"\x00\x00\x00\x00\x00\x07"


@pytest.mark.parametrize("committed", [True, False])
def test_marker_batch_header_and_record(committed: bool) -> None:
    raw = build_end_txn_marker_batch(
        producer_id=4242,
        producer_epoch=3,
        committed=committed,
        coordinator_epoch=9,
        timestamp=1_700_000_000_123,
    )
    header = read_header(raw)
    assert header.attributes == CONTROL_MASK | TRANSACTIONAL_MASK  # no compression, CreateTime
    assert (header.producer_id, header.producer_epoch) == (4242, 3)
    assert header.base_sequence == NO_SEQUENCE
    assert header.records_count == 1 and header.last_offset_delta == 0
    assert header.base_timestamp == header.max_timestamp == 1_700_000_000_123
    assert is_valid_crc(raw, 0, header)
    (record,) = decode_batch(raw)
    assert record.key == (b"\x00\x00\x00\x01" if committed else b"\x00\x00\x00\x00")
    assert record.value == b"\x00\x00\x00\x00\x00\x09"
    assert record.headers == []
    marker = read_end_txn_marker(raw)
    assert marker == EndTransactionMarker(
        ControlRecordType.COMMIT if committed else ControlRecordType.ABORT, 9
    )
    assert marker.committed is committed


def test_unknown_control_types_are_tolerated_and_bad_ones_refused() -> None:
    assert parse_control_key(b"\x00\x00\x00\x09") is ControlRecordType.UNKNOWN
    other = build_batch([(b"\x00\x00\x00\x02", b"x")], control=True, transactional=False, timestamp=1)
    assert read_end_txn_marker(other) is None
    with pytest.raises(DecodeError):
        parse_control_key(b"\x00")
    with pytest.raises(DecodeError):
        parse_end_txn_marker(ControlRecordType.COMMIT, b"\x00\x00\x00")
    with pytest.raises(DecodeError):
        read_end_txn_marker(build_batch([(b"k", b"v")], timestamp=1))
