"""The exactly-once checker the client tests rely on (``parse_value``, ``check_exactly_once``).

Pure Python, no JVM or broker: logs are built here in the Java driver's value format
(``m1|<instance>|<key index>|<seq>|`` padded with '.', record n of a producer has key index
n % keys and seq n // keys; with keys=0 key index "-" and seq n), then damaged on purpose.
"""

from __future__ import annotations

import random

import pytest

from tests.support.java_client import ProducedValue, check_exactly_once, parse_value

Record = tuple[int, int, bytes]


def driver_value(instance: str, n: int, keys: int, size: int = 24) -> bytes:
    """What the driver's ``produce`` writes as record n (ProduceCommand.value)."""
    key = str(n % keys) if keys > 0 else "-"
    seq = n // keys if keys > 0 else n
    header = f"m1|{instance}|{key}|{seq}|".encode()
    return header + b"." * max(0, size - len(header))


def produced_log(expected: dict[str, tuple[int, int]], partitions: int) -> list[Record]:
    """A log as the broker would keep it: each key in one partition, records in send order."""
    next_offset = [0] * partitions
    out: list[Record] = []
    for instance, (count, keys) in expected.items():
        for n in range(count):
            partition = (n % keys) % partitions if keys > 0 else n % partitions
            out.append((partition, next_offset[partition], driver_value(instance, n, keys)))
            next_offset[partition] += 1
    return out


def find(log: list[Record], instance: str, key: str, seq: int) -> int:
    """Index in ``log`` of the record carrying (instance, key, seq)."""
    wanted = ProducedValue(instance, key, seq)
    (index,) = [i for i, (_p, _o, v) in enumerate(log) if parse_value(v) == wanted]
    return index


# ---------------------------------------------------------------- parse_value


@pytest.mark.parametrize("wrap", [bytes, bytearray, memoryview, lambda b: b.decode()])
def test_parse_value_reads_the_driver_format_from_bytes_or_str(wrap):
    assert parse_value(wrap(b"m1|inst-a|7|42|..........")) == ProducedValue("inst-a", "7", 42)
    assert parse_value(wrap(b"m1|b|-|0|")) == ProducedValue("b", "-", 0)  # keys=0, unpadded


@pytest.mark.parametrize(
    "value",
    [
        None,
        b"",
        b"hello",
        b"m2|a|0|1|....",  # another magic
        b"m1|a|0|1",  # header cut before its last separator
        b"m1|a|0|x|....",  # seq not a number
        b"\xff\xfe|a|0|1|",  # not ASCII
    ],
)
def test_parse_value_is_none_for_values_the_driver_did_not_write(value):
    assert parse_value(value) is None


# ---------------------------------------------------------------- check_exactly_once


@pytest.mark.parametrize("keys", [4, 0])
def test_a_complete_log_in_order_is_exactly_once_whatever_order_it_is_read_in(keys):
    expected = {"a": (40, keys), "b": (25, keys)}
    log = produced_log(expected, partitions=3)
    log.append((1, 10_000, b"not from the driver"))
    random.Random(7).shuffle(log)  # the checker sorts by (partition, offset) itself
    report = check_exactly_once(log, expected)
    assert report.ok, str(report)
    assert (report.duplicates, report.missing, report.out_of_order) == ([], [], [])
    assert report.foreign == 1


def test_a_duplicate_is_reported_with_both_places_and_nothing_else():
    expected = {"a": (12, 3)}
    log = produced_log(expected, partitions=2)
    original = log[find(log, "a", "1", 2)]  # record n=7
    end = max(o for p, o, _v in log if p == original[0]) + 1
    log.append((original[0], end, original[2]))  # written again later, as a retried batch would be
    report = check_exactly_once(log, expected)
    assert not report.ok
    assert report.duplicates == [
        (ProducedValue("a", "1", 2), [(original[0], original[1]), (original[0], end)])
    ]
    assert report.missing == [] and report.out_of_order == []
    assert "duplicates=1" in str(report)


def test_a_reordered_key_in_a_partition_is_out_of_order():
    expected = {"a": (12, 3)}
    log = produced_log(expected, partitions=2)
    i, j = find(log, "a", "2", 1), find(log, "a", "2", 2)  # key 2: seq 1 then seq 2, same partition
    (pi, oi, vi), (pj, oj, vj) = log[i], log[j]
    assert pi == pj and oi < oj
    log[i], log[j] = (pi, oi, vj), (pj, oj, vi)  # seq 2 now sits before seq 1
    report = check_exactly_once(log, expected)
    assert not report.ok
    assert report.out_of_order == [f"a key 2 partition {pi}: seq 1 at offset {oj} after seq 2 at offset {oi}"]
    assert report.duplicates == [] and report.missing == []


def test_order_is_per_key_and_partition_only():
    expected = {"a": (8, 2)}
    log = produced_log(expected, partitions=1)
    # swap two records of different keys: each key's own sequence stays increasing
    i, j = find(log, "a", "0", 1), find(log, "a", "1", 0)
    (pi, oi, vi), (pj, oj, vj) = log[i], log[j]
    log[i], log[j] = (pi, oi, vj), (pj, oj, vi)
    # and a key's first record, moved to a later partition, is not compared with its later ones
    k = find(log, "a", "0", 0)
    log[k] = (5, 0, log[k][2])
    report = check_exactly_once(log, expected)
    assert report.ok, str(report)


@pytest.mark.parametrize("keys", [3, 0])
def test_a_missing_record_is_reported_by_instance_key_and_seq(keys):
    expected = {"a": (9, keys), "b": (4, keys)}
    log = produced_log(expected, partitions=2)
    key, seq = ("1", 1) if keys else ("-", 4)  # record n=4 of "a"
    del log[find(log, "a", key, seq)]
    report = check_exactly_once(log, expected)
    assert not report.ok
    assert report.missing == [("a", key, seq)]
    assert report.duplicates == [] and report.out_of_order == []


def test_records_beyond_those_seen_are_missing():
    report = check_exactly_once(produced_log({"a": (5, 2)}, partitions=1), {"a": (7, 2)})
    assert report.missing == [("a", "1", 2), ("a", "0", 3)]
