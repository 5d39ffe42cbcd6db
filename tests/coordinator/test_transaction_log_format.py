"""``__transaction_state`` records byte for byte against Kafka's schemas, hand-packed with
``struct`` rather than Moldau's primitives: ``TransactionLogKey`` v0 (int16 version 0,
string TransactionalId) and ``TransactionLogValue`` v0 (not flexible: int64 ProducerId,
int16 ProducerEpoch, int32 TransactionTimeoutMs, int8 TransactionStatus, nullable array
TransactionPartitions of (string Topic, array of int32 PartitionIds), int64
TransactionLastUpdateTimestampMs, int64 TransactionStartTimestampMs), as in Kafka's
TransactionLogKey.json / TransactionLogValue.json. Strings are int16 length + UTF-8, arrays
int32 count (-1 for null)."""

from __future__ import annotations

import struct

from coordinator.transaction_log import (
    TxnLogValue,
    decode_txn_key,
    decode_txn_value,
    encode_txn_key,
    encode_txn_value,
)
from coordinator.transaction_metadata import TxnState


def kafka_string(s: str) -> bytes:
    raw = s.encode()
    return struct.pack(">h", len(raw)) + raw


def test_key_v0_bytes():
    raw = struct.pack(">h", 0) + kafka_string("payments-tx")
    assert decode_txn_key(raw) == "payments-tx"
    assert encode_txn_key("payments-tx") == raw


def test_value_v0_with_partitions_bytes():
    # PrepareCommit (status 2) of producer 4711 epoch 3 over orders-0, orders-2 and audit-5
    raw = (
        struct.pack(">hqhib", 0, 4711, 3, 60_000, 2)
        + struct.pack(">i", 2)  # two topics
        + kafka_string("audit")
        + struct.pack(">ii", 1, 5)
        + kafka_string("orders")
        + struct.pack(">iii", 2, 0, 2)
        + struct.pack(">qq", 1_700_000_000_500, 1_700_000_000_000)
    )
    v = decode_txn_value(raw)
    assert v == TxnLogValue(
        producer_id=4711,
        producer_epoch=3,
        timeout_ms=60_000,
        state=TxnState.PREPARE_COMMIT,
        partitions=frozenset({("orders", 0), ("orders", 2), ("audit", 5)}),
        last_update_ms=1_700_000_000_500,
        start_ms=1_700_000_000_000,
    )
    assert encode_txn_value(v) == raw


def test_value_v0_empty_has_a_null_partition_array():
    # Kafka's TransactionLog.valueToBytes writes null partitions for Empty
    raw = struct.pack(">hqhib", 0, 9, 0, 900_000, 0) + struct.pack(">i", -1) + struct.pack(">qq", 42, -1)
    v = decode_txn_value(raw)
    assert (v.state, v.partitions, v.start_ms) == (TxnState.EMPTY, frozenset(), -1)
    assert encode_txn_value(v) == raw
