"""``tools.dump_log`` (Kafka's kafka-dump-log): output lines, index checks, exit status.

Segments are written by ``storage.segment.LogSegment`` (unit tests) and by a broker
subprocess fed by the Java client (integration test); kafka-python's record parser is the
independent oracle for what the ``.log`` holds.
"""

from __future__ import annotations

import base64
import io
import json
import os
import re
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from kafka.record import MemoryRecords

from coordinator.group_offsets import (
    GroupRecord,
    MemberRecord,
    OffsetAndMetadata,
    encode_group_key,
    encode_group_value,
    encode_offset_key,
    encode_offset_value,
)
from protocol import compression
from protocol.messages import ConsumerProtocolAssignment, ConsumerProtocolSubscription
from protocol.record_batch import read_header
from protocol.records import build_batch
from storage.producer_snapshot import write_snapshot_file
from storage.producer_state_entry import BatchMetadata, ProducerStateEntry
from storage.segment import LogSegment
from tests.support.broker_process import ROOT, BrokerProcess
from tests.support.java_client import JavaClient, require_java
from tools.dump_log import main, run

PREFIX = "00000000000000000000"
FIELD = re.compile(r"(\w+): (\S+)")
KAFKA_PYTHON_CODECS = {0: "none", 1: "gzip", 2: "snappy", 3: "lz4", 4: "zstd"}


def dump(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    rc = run(list(args), out, err)
    return rc, out.getvalue(), err.getvalue()


def fields(line: str) -> dict[str, str]:
    return dict(FIELD.findall(line))


def write_segment(directory: Path, batches: list[bytes]) -> Path:
    """A closed segment at base offset 0 with an index entry for every batch after the first."""
    directory.mkdir(parents=True, exist_ok=True)
    seg = LogSegment(directory, 0, index_interval_bytes=1, max_index_size=1024 * 1024)
    for batch in batches:
        header = read_header(batch)
        seg.append(batch, header.last_offset, header.max_timestamp)
    seg.close()
    return directory


def sample_batches() -> list[bytes]:
    """Four batches, one per codec after none, keyed records with headers, one null key and value."""
    out = []
    offset = 0
    for i, codec in enumerate(("none", "gzip", "snappy", "lz4", "zstd")):
        records = [
            (f"k{offset + j}".encode(), f"v{offset + j}".encode(), [("a", b"1"), ("b", None)])
            for j in range(3)
        ]
        if i == 0:
            records.append((None, None, []))
        out.append(
            build_batch(
                records,
                base_offset=offset,
                compression_type=compression.BY_NAME[codec],
                producer_id=42,
                producer_epoch=3,
                base_sequence=offset,
                timestamp=1_700_000_000_000 + i,
                partition_leader_epoch=5,
            )
        )
        offset += len(records)
    return out


def kafka_python_batches(data: bytes) -> list[dict]:
    """The batches and records of a ``.log`` as kafka-python's parser reads them."""
    out = []
    position = 0
    records = MemoryRecords(data)
    while records.has_next():
        batch = records.next_batch()
        size = 12 + struct.unpack_from(">i", data, position + 8)[0]
        out.append(
            dict(
                position=position,
                size=size,
                batch=batch,
                crc_ok=batch.validate_crc(),
                records=list(batch),
            )
        )
        position += size
    return out


def check_log_dump_against_kafka_python(out: str, data: bytes) -> list[dict[str, str]]:
    """Every batch and record line of a ``--print-data-log`` dump equals kafka-python's reading."""
    lines = out.splitlines()
    expected = kafka_python_batches(data)
    batch_lines = [fields(x) for x in lines if x.startswith("baseOffset: ")]
    record_lines = [fields(x) for x in lines if x.startswith("| offset: ")]
    assert len(batch_lines) == len(expected)
    i = 0
    for got, exp in zip(batch_lines, expected, strict=True):
        b = exp["batch"]
        assert int(got["baseOffset"]) == b.base_offset
        assert int(got["lastOffset"]) == b.base_offset + b.last_offset_delta
        assert int(got["count"]) == b.records_count == len(exp["records"])
        assert int(got["baseSequence"]) == b.base_sequence
        assert int(got["lastSequence"]) == b.last_sequence
        assert int(got["producerId"]) == b.producer_id
        assert int(got["producerEpoch"]) == b.producer_epoch
        assert int(got["partitionLeaderEpoch"]) == b.leader_epoch
        assert got["isTransactional"] == str(b.is_transactional).lower()
        assert got["isControl"] == str(b.is_control_batch).lower()
        assert int(got["position"]) == exp["position"]
        assert int(got["size"]) == exp["size"]
        assert int(got["CreateTime"]) == b.max_timestamp
        assert got["compresscodec"] == KAFKA_PYTHON_CODECS[b.compression_type]
        assert int(got["crc"]) == b.crc
        assert got["isvalid"] == str(exp["crc_ok"]).lower()
        for r in exp["records"]:
            rec = record_lines[i]
            i += 1
            assert int(rec["offset"]) == r.offset
            assert int(rec["CreateTime"]) == r.timestamp
            assert int(rec["keySize"]) == (-1 if r.key is None else len(r.key))
            assert int(rec["valueSize"]) == (-1 if r.value is None else len(r.value))
            expected_seq = -1 if b.base_sequence < 0 else b.base_sequence + r.offset - b.base_offset
            assert int(rec["sequence"]) == expected_seq
            assert rec["headerKeys"] == "[" + ",".join(k for k, _ in r.headers) + "]"
            assert rec.get("key") == (None if r.key is None else r.key.decode())
            assert rec.get("payload") == (None if r.value is None else r.value.decode())
    assert i == len(record_lines)
    return record_lines


# ------------------------------------------------------------------ unit: crafted segments


def test_log_dump_matches_kafka_python_for_every_codec(tmp_path):
    d = write_segment(tmp_path / "t-0", sample_batches())
    log = d / f"{PREFIX}.log"
    rc, out, err = dump("--files", str(log), "--print-data-log")
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[:2] == [f"Dumping {log}", "Log starting offset: 0"]
    records = check_log_dump_against_kafka_python(out, log.read_bytes())
    assert {f["compresscodec"] for f in map(fields, lines) if "compresscodec" in f} == {
        "none",
        "gzip",
        "snappy",
        "lz4",
        "zstd",
    }
    assert len(records) == 16
    assert err == ""
    # Kafka's exact record line (null key and value: sizes -1, no key/payload)
    assert (
        "| offset: 3 CreateTime: 1700000000000 keySize: -1 valueSize: -1 sequence: 3 headerKeys: []" in lines
    )
    assert (
        "| offset: 0 CreateTime: 1700000000000 keySize: 2 valueSize: 2 sequence: 0 headerKeys: [a,b] key: k0 payload: v0"
        in lines
    )


def test_shallow_dump_prints_batches_only_and_kafkas_batch_line(tmp_path):
    d = write_segment(tmp_path / "t-0", sample_batches()[:1])
    log = d / f"{PREFIX}.log"
    rc, out, _ = dump("--files", str(log))
    assert rc == 0
    header = read_header(log.read_bytes())
    assert out.splitlines()[2] == (
        "baseOffset: 0 lastOffset: 3 count: 4 baseSequence: 0 lastSequence: 3 producerId: 42 "
        "producerEpoch: 3 partitionLeaderEpoch: 5 isTransactional: false isControl: false "
        "deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 1700000000000 "
        f"size: {header.size} magic: 2 compresscodec: none crc: {header.crc} isvalid: true"
    )
    assert len(out.splitlines()) == 3


def test_control_batch_prints_end_txn_marker(tmp_path):
    data = build_batch(
        [(b"k", b"v")], base_offset=0, producer_id=9, producer_epoch=0, base_sequence=0, transactional=True
    )
    marker = build_batch(
        [(struct.pack(">hh", 0, 1), struct.pack(">hi", 0, 17))],
        base_offset=1,
        producer_id=9,
        producer_epoch=0,
        transactional=True,
        control=True,
    )
    d = write_segment(tmp_path / "t-0", [data, marker])
    rc, out, _ = dump("--files", str(d / f"{PREFIX}.log"), "--print-data-log")
    assert rc == 0
    lines = out.splitlines()
    assert lines[-1].endswith("headerKeys: [] endTxnMarker: COMMIT coordinatorEpoch: 17")
    assert "payload" not in lines[-1]
    assert fields(lines[-2])["isControl"] == "true"
    assert fields(lines[-2])["isTransactional"] == "true"


def test_index_and_time_index_dump_and_verify_clean(tmp_path):
    d = write_segment(tmp_path / "t-0", sample_batches())
    log_lines = [fields(x) for x in dump("--files", str(d / f"{PREFIX}.log"))[1].splitlines()[2:]]
    by_position = {int(b["position"]): b for b in log_lines}
    rc, out, err = dump("--files", f"{d / PREFIX}.index,{d / PREFIX}.timeindex")
    assert rc == 0
    assert err == ""
    lines = out.splitlines()
    index_lines = [fields(x) for x in lines if x.startswith("offset: ")]
    time_lines = [fields(x) for x in lines if x.startswith("timestamp: ")]
    assert len(index_lines) == len(log_lines) - 1  # every batch but the first
    for entry in index_lines:
        assert by_position[int(entry["position"])]["lastOffset"] == entry["offset"]
    assert [int(t["timestamp"]) for t in time_lines] == [1_700_000_000_000 + i for i in range(1, 5)]
    assert [t["offset"] for t in time_lines] == [b["lastOffset"] for b in log_lines[1:]]


def test_planted_index_error_is_listed_and_exit_status_stays_zero(tmp_path):
    d = write_segment(tmp_path / "t-0", sample_batches())
    index = d / f"{PREFIX}.index"
    entries = [struct.unpack_from(">ii", index.read_bytes(), i) for i in range(0, index.stat().st_size, 8)]
    # entry 1 now points at the batch of entry 2: the batch there ends at another offset
    with open(index, "r+b") as f:
        f.seek(8)
        f.write(struct.pack(">ii", entries[1][0], entries[2][1]))
    rc, out, err = dump("--files", str(index), "--verify-index-only")
    assert rc == 0  # as Kafka: mismatches are printed, not an error status
    assert out.splitlines() == [f"Dumping {index}"]  # --verify-index-only prints no entries
    assert err.splitlines() == [
        f"Mismatches in :{index.absolute()}",
        f"  Index offset: {entries[1][0]}, log offset: {entries[2][0]}",
    ]


def test_planted_index_position_off_a_batch_and_non_increasing_offset(tmp_path):
    d = write_segment(tmp_path / "t-0", sample_batches())
    index = d / f"{PREFIX}.index"
    raw = bytearray(index.read_bytes())
    first_rel, first_pos = struct.unpack_from(">ii", raw, 0)
    second_rel, _ = struct.unpack_from(">ii", raw, 8)
    struct.pack_into(">ii", raw, 0, first_rel, first_pos + 3)  # inside a batch
    struct.pack_into(">ii", raw, 16, second_rel, struct.unpack_from(">ii", raw, 16)[1])  # repeats offset
    index.write_bytes(bytes(raw))
    rc, _out, err = dump("--files", str(index))
    assert rc == 0
    assert f"Mismatches in :{index.absolute()}" in err
    assert f"  Index offset: {first_rel}, log offset: -1" in err
    assert f"Non-increasing offsets in :{index.absolute()}" in err
    assert f"  Index offset: {second_rel}, previous index offset: {second_rel}" in err
    # the index's own sanity check refuses it: exit status 1 with the reason
    rc, _out, err = dump("--files", str(index), "--index-sanity-check")
    assert rc == 1
    assert "out of order" in err


def test_planted_time_index_errors(tmp_path):
    d = write_segment(tmp_path / "t-0", sample_batches())
    tindex = d / f"{PREFIX}.timeindex"
    raw = bytearray(tindex.read_bytes())
    ts0, _rel0 = struct.unpack_from(">qi", raw, 0)
    ts1, rel1 = struct.unpack_from(">qi", raw, 12)
    struct.pack_into(">qi", raw, 12, ts0 - 5, rel1)  # wrong timestamp, and below the previous entry
    tindex.write_bytes(bytes(raw))
    rc, _out, err = dump("--files", str(tindex), "--verify-index-only")
    assert rc == 0
    name = tindex.absolute()
    assert err.splitlines() == [
        f"Found timestamp mismatch in :{name}",
        f"  Index timestamp: {ts0 - 5}, log timestamp: {ts1}",
        f"Found out of order timestamp in :{name}",
        f"  Index timestamp: {ts0 - 5}, Previously indexed timestamp: {ts0}",
    ]


def test_index_sanity_check_passes_and_empty_index(tmp_path):
    d = write_segment(tmp_path / "t-0", sample_batches())
    rc, out, _ = dump("--files", f"{d / PREFIX}.index,{d / PREFIX}.timeindex", "--index-sanity-check")
    assert rc == 0
    assert f"{d / PREFIX}.index passed sanity check." in out
    assert f"{d / PREFIX}.timeindex passed sanity check." in out
    e = write_segment(tmp_path / "u-0", sample_batches()[:1])  # one batch: no index entry
    rc, out, _ = dump("--files", f"{e / PREFIX}.index")
    assert rc == 0
    assert out.splitlines()[-1] == f"{e / PREFIX}.index is empty."


def test_unreadable_files_exit_one_and_unknown_files_are_ignored(tmp_path):
    missing = tmp_path / f"{PREFIX}.log"
    rc, out, err = dump("--files", str(missing))
    assert rc == 1
    assert out == f"Dumping {missing}\nLog starting offset: 0\n"  # printed before the open, as Kafka
    assert "No such file" in err
    assert not missing.exists()  # a read-only tool creates nothing
    other = tmp_path / "leader-epoch-checkpoint"
    other.write_text("0\n0\n")
    rc, _out, err = dump("--files", str(other))
    assert rc == 0
    assert err == f"Ignoring unknown file {other}\n"
    d = write_segment(tmp_path / "t-0", sample_batches())
    (d / f"{PREFIX}.index").write_bytes(struct.pack(">iii", 5, 256, 7))  # not whole 8-byte entries
    rc, _out, err = dump("--files", f"{d / PREFIX}.index", "--index-sanity-check")
    assert rc == 1
    assert "neither positive nor a multiple of 8" in err


def test_damaged_batch_is_shown_invalid(tmp_path):
    batches = sample_batches()
    d = write_segment(tmp_path / "t-0", batches)
    log = d / f"{PREFIX}.log"
    raw = bytearray(log.read_bytes())
    raw[raw.index(b"v0")] = ord("w")  # the first record's value (the batch is uncompressed)
    log.write_bytes(bytes(raw))
    rc, out, _ = dump("--files", str(log), "--print-data-log")
    assert rc == 0
    records = check_log_dump_against_kafka_python(out, bytes(raw))
    assert records[0]["payload"] == "w0"
    assert [fields(x)["isvalid"] for x in out.splitlines() if x.startswith("baseOffset")] == [
        "false",
        "true",
        "true",
        "true",
        "true",
    ]
    # a record running past its batch: deep iteration stops there with exit status 1
    damaged = bytearray(raw)
    damaged[61] = 0x7E  # the first record's length varint (63 bytes)
    log.write_bytes(bytes(damaged))
    rc, out, err = dump("--files", str(log), "--deep-iteration")
    assert rc == 1
    assert err == "record length runs past the batch\n"
    assert out.splitlines()[-1].startswith("baseOffset: 0 ")
    # a length no batch can have: the dump stops there with exit status 1
    struct.pack_into(">i", raw, len(batches[0]) + 8, 10)
    log.write_bytes(bytes(raw))
    rc, out, err = dump("--files", str(log))
    assert rc == 1
    assert len([x for x in out.splitlines() if x.startswith("baseOffset")]) == 1
    assert "below the minimum" in err


def test_trailing_bytes_and_max_bytes(tmp_path):
    batches = sample_batches()
    d = write_segment(tmp_path / "t-0", batches)
    log = d / f"{PREFIX}.log"
    with open(log, "ab") as f:
        f.write(batches[0][:30])  # a torn batch at the end
    rc, out, _ = dump("--files", str(log))
    assert rc == 0
    assert out.splitlines()[-1] == f"Found 30 invalid bytes at the end of {log.name}"
    limit = len(batches[0]) + len(batches[1]) + 5
    rc, out, _ = dump("--files", str(log), "--max-bytes", str(limit))
    assert rc == 0
    assert [fields(x)["baseOffset"] for x in out.splitlines()[2:]] == ["0", "4"]  # no trailing-bytes line


def test_producer_snapshot_and_txn_index(tmp_path):
    snap = tmp_path / f"{PREFIX[:-2]}42.snapshot"
    write_snapshot_file(
        snap,
        [
            ProducerStateEntry(
                7, 2, coordinator_epoch=-1, last_timestamp=1000, batches=[BatchMetadata(9, 19, 4, 1000)]
            ),
            ProducerStateEntry(8, 0, coordinator_epoch=3, last_timestamp=2000, current_txn_first_offset=30),
        ],
    )
    txn = tmp_path / f"{PREFIX}.txnindex"
    txn.write_bytes(struct.pack(">hqqqq", 0, 8, 30, 35, 36) + struct.pack(">hqqqq", 0, 11, 40, 41, 41))
    rc, out, err = dump("--files", f"{snap},{txn}")
    assert rc == 0, err
    assert out.splitlines() == [
        f"Dumping {snap}",
        "producerId: 7 producerEpoch: 2 coordinatorEpoch: -1 currentTxnFirstOffset: OptionalLong.empty "
        "lastTimestamp: 1000 firstSequence: 5 lastSequence: 9 lastOffset: 19 offsetDelta: 4 timestamp: 1000",
        "producerId: 8 producerEpoch: 0 coordinatorEpoch: 3 currentTxnFirstOffset: OptionalLong[30] "
        "lastTimestamp: 2000",
        f"Dumping {txn}",
        "version: 0 producerId: 8 firstOffset: 30 lastOffset: 35 lastStableOffset: 36",
        "version: 0 producerId: 11 firstOffset: 40 lastOffset: 41 lastStableOffset: 41",
    ]
    # a corrupt snapshot is reported and the run goes on (Kafka's dumpProducerIdSnapshot)
    raw = bytearray(snap.read_bytes())
    raw[-1] ^= 1
    snap.write_bytes(bytes(raw))
    rc, out, err = dump("--files", f"{snap},{txn}")
    assert rc == 0
    assert "CRC is no longer valid" in err
    assert "version: 0 producerId: 8" in out
    txn.write_bytes(txn.read_bytes()[:-1])
    rc, _out, err = dump("--files", str(txn))
    assert rc == 1
    assert "is corrupt" in err


def test_offsets_decoder(tmp_path):
    key = encode_offset_key("g1", "orders", 3)
    value = encode_offset_value(OffsetAndMetadata(17, 4, "meta", 1234))
    d = write_segment(
        tmp_path / "__consumer_offsets-0", [build_batch([(key, value), (key, None)], timestamp=5)]
    )
    rc, out, err = dump("--files", str(d / f"{PREFIX}.log"), "--offsets-decoder")
    assert rc == 0, err
    records = [x for x in out.splitlines() if x.startswith("| ")]
    k = '{"type":"1","data":{"group":"g1","topic":"orders","partition":3}}'
    assert records[0].endswith(
        f' key: {k} payload: {{"version":"3","data":{{"offset":17,"leaderEpoch":4,"metadata":"meta","commitTimestamp":1234}}}}'
    )
    assert records[1].endswith(f" key: {k} payload: <DELETE>")


def test_offsets_decoder_group_metadata(tmp_path):
    subscription = struct.pack(">h", 1) + ConsumerProtocolSubscription(
        topics=["orders"],
        owned_partitions=[ConsumerProtocolSubscription.TopicPartition(topic="orders", partitions=[1])],
    ).encode(1)
    assignment = struct.pack(">h", 0) + ConsumerProtocolAssignment(
        assigned_partitions=[ConsumerProtocolAssignment.TopicPartition(topic="orders", partitions=[0, 1])]
    ).encode(0)
    member = MemberRecord("m-1", None, "c1", "/127.0.0.1", 300000, 45000, subscription, assignment)
    values = [
        encode_group_value(GroupRecord("consumer", 4, "range", "m-1", 99, [member])),
        encode_group_value(GroupRecord("connect", 1, "p", "m-1", 99, [member])),
    ]
    key = encode_group_key("g1")
    d = write_segment(
        tmp_path / "__consumer_offsets-0", [build_batch([(key, v) for v in values], timestamp=5)]
    )
    rc, out, err = dump("--files", str(d / f"{PREFIX}.log"), "--offsets-decoder")
    assert rc == 0, err
    lines = [x for x in out.splitlines() if x.startswith("| ")]
    key_text, _, value_text = lines[0].split(" key: ", 1)[1].partition(" payload: ")
    assert json.loads(key_text) == {"type": "2", "data": {"group": "g1"}}
    value = json.loads(value_text)
    assert value["version"] == "3"
    assert value["data"]["members"] == [
        {
            "memberId": "m-1",
            "groupInstanceId": None,
            "clientId": "c1",
            "clientHost": "/127.0.0.1",
            "rebalanceTimeout": 300000,
            "sessionTimeout": 45000,
            "subscription": {
                "topics": ["orders"],
                "userData": None,
                "ownedPartitions": [{"topic": "orders", "partitions": [1]}],
            },
            "assignment": {
                "assignedPartitions": [{"topic": "orders", "partitions": [0, 1]}],
                "userData": None,
            },
        }
    ]
    other = json.loads(lines[1].split(" payload: ", 1)[1])["data"]["members"][0]
    assert other["subscription"] == base64.b64encode(subscription).decode()  # not the consumer protocol


def test_console_script_entry_point_runs_as_a_module(tmp_path):
    d = write_segment(tmp_path / "t-0", sample_batches()[:2])
    proc = subprocess.run(
        [sys.executable, "-m", "tools.dump_log", "--files", str(d / f"{PREFIX}.log"), "--deep-iteration"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert sum(1 for x in proc.stdout.splitlines() if x.startswith("| offset: ")) == 7
    assert "payload" not in proc.stdout  # --deep-iteration alone prints no data


def test_console_script_points_at_main():
    import importlib
    import tomllib

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    module, _, attr = scripts["moldau-dump-log"].partition(":")
    assert getattr(importlib.import_module(module), attr) is main


# ------------------------------------------------------------------ the documented command lines


def documented_commands() -> list[str]:
    """The ``python -m tools.dump_log`` lines of docs/OPERATIONS.md's ```text blocks."""
    text = (ROOT / "docs" / "OPERATIONS.md").read_text()
    blocks = re.findall(r"```text\n(.*?)```", text, re.S)
    return [
        line.strip()
        for b in blocks
        for line in b.splitlines()
        if line.strip().startswith("python -m tools.dump_log")
    ]


def run_documented(command: str, cwd: Path) -> subprocess.CompletedProcess:
    """Run a documented line as written, through the shell, with this interpreter as ``python``."""
    env = dict(
        os.environ,
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        PYTHONPATH=str(ROOT),
    )
    return subprocess.run(
        ["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


# ------------------------------------------------------------------ integration: the Java client


@pytest.mark.integration
@pytest.mark.java
def test_java_client_log_dumped_and_checked(tmp_path):
    runtime = require_java()
    data = tmp_path / "data"
    broker = BrokerProcess(data, {"log.index.interval.bytes": "512", "num.partitions": "1"})
    broker.start()
    try:
        client = JavaClient(broker.bootstrap, runtime=runtime)
        with client.session() as c:
            assert c.create_topic("my-topic", 1)["ok"]
            runs = {}
            for codec, count in (("lz4", 300), ("zstd", 200)):
                summary = c.produce(
                    "my-topic",
                    count,
                    keys=8,
                    headers=2,
                    value_size=40,
                    compression=codec,
                    batch_size=1024,
                    linger_ms=5,
                ).last
                assert summary["ok"], summary
                runs[codec] = summary
            consumed = c.consume("my-topic", group="my-group", expect=500, print_records=False).last
            assert consumed["count"] == 500, consumed
    finally:
        assert broker.stop() == 0  # a clean stop writes the producer snapshot
    part = data / "my-topic-0"
    log = part / f"{PREFIX}.log"
    snapshots = sorted(part.glob("*.snapshot"))
    assert snapshots, sorted(p.name for p in part.iterdir())

    # The documented command lines, run from a directory holding data/ as the docs say.
    commands = documented_commands()
    assert commands
    outputs = {command: run_documented(command, tmp_path) for command in commands}
    for command, proc in outputs.items():
        assert proc.returncode == 0, (command, proc.stderr)
    log_dump = next(p for c, p in outputs.items() if ".log" in c and "--print-data-log" in c)
    assert log_dump.stderr == ""
    records = check_log_dump_against_kafka_python(log_dump.stdout, log.read_bytes())
    assert len(records) == 500

    # What the records are: the Java driver's keys, values and headers, in send order per producer.
    batches = [fields(x) for x in log_dump.stdout.splitlines() if x.startswith("baseOffset: ")]
    by_instance: dict[str, list[dict[str, str]]] = {}
    for rec in records:
        magic, instance, key_index, _seq, _ = rec["payload"].split("|", 4)
        assert magic == "m1"
        assert rec["key"] == f"k{key_index}"
        assert rec["headerKeys"] == "[h0,h1]"
        by_instance.setdefault(instance, []).append(rec)
    # header values (the dump prints only their keys, as Kafka): read with kafka-python
    for batch in kafka_python_batches(log.read_bytes()):
        for r in batch["records"]:
            _, _, key_index, seq, _ = r.value.decode().split("|", 4)
            assert r.headers == [(f"h{i}", f"{key_index}:{seq}:{i}".encode()) for i in range(2)]
    assert set(by_instance) == {runs["lz4"]["instance"], runs["zstd"]["instance"]}
    for codec, summary in runs.items():
        recs = by_instance[summary["instance"]]
        assert len(recs) == (300 if codec == "lz4" else 200)
        assert [int(r["sequence"]) for r in recs] == list(range(len(recs)))  # idempotent: sequences from 0
        assert [(int(r["payload"].split("|")[3]), r["key"]) for r in recs] == [
            (n // 8, f"k{n % 8}") for n in range(len(recs))
        ]
        offsets = {int(r["offset"]) for r in recs}
        codecs = {b["compresscodec"] for b in batches if int(b["baseOffset"]) in offsets}
        assert codecs == {codec}
        pids = {b["producerId"] for b in batches if int(b["baseOffset"]) in offsets}
        assert len(pids) == 1 and int(next(iter(pids))) >= 0
        summary["producerId"] = next(iter(pids))
        summary["lastOffset"] = max(offsets)
    assert runs["lz4"]["producerId"] != runs["zstd"]["producerId"]

    # .index and .timeindex: entries point at batches ending at their offset, no findings
    index_dump = next(p for c, p in outputs.items() if ".index" in c and "verify" not in c)
    by_position = {b["position"]: b for b in batches}
    index_entries = [fields(x) for x in index_dump.stdout.splitlines() if x.startswith("offset: ")]
    time_entries = [fields(x) for x in index_dump.stdout.splitlines() if x.startswith("timestamp: ")]
    assert len(index_entries) >= 5
    assert time_entries
    for entry in index_entries:
        assert by_position[entry["position"]]["lastOffset"] == entry["offset"]
    assert index_dump.stderr == ""

    # the snapshot: one line per producer, its last sequence and offset
    snap_dump = next(p for c, p in outputs.items() if ".snapshot" in c)
    snap_lines = {
        fields(x)["producerId"]: fields(x)
        for x in snap_dump.stdout.splitlines()
        if x.startswith("producerId: ")
    }
    for codec, summary in runs.items():
        line = snap_lines[summary["producerId"]]
        assert int(line["lastSequence"]) == (300 if codec == "lz4" else 200) - 1
        assert int(line["lastOffset"]) == summary["lastOffset"]

    # the group's commits and membership, decoded as Kafka's --offsets-decoder does
    offsets_dump = next(p for c, p in outputs.items() if "--offsets-decoder" in c)
    commits, groups = [], []
    for line in offsets_dump.stdout.splitlines():
        if line.startswith("| offset: "):
            key_text, _, value_text = line.split(" key: ", 1)[1].partition(" payload: ")
            key, value = json.loads(key_text), json.loads(value_text)
            (commits if key["type"] == "1" else groups).append((key, value))
    assert commits[-1][0]["data"] == {"group": "my-group", "topic": "my-topic", "partition": 0}
    assert commits[-1][1]["data"]["offset"] == 500
    members = [m for _, v in groups for m in v["data"]["members"]]
    assert members, groups
    assert all(v["data"]["protocolType"] == "consumer" for _, v in groups)
    assert members[0]["subscription"]["topics"] == ["my-topic"]
    assert members[0]["assignment"]["assignedPartitions"] == [{"topic": "my-topic", "partitions": [0]}]

    # a planted index error is caught by the documented verify command
    index = part / f"{PREFIX}.index"
    raw = bytearray(index.read_bytes())
    rel, _pos = struct.unpack_from(">ii", raw, 8)
    struct.pack_into(">ii", raw, 8, rel, struct.unpack_from(">ii", raw, 24)[1])
    index.write_bytes(bytes(raw))
    verify = next(c for c in commands if "--verify-index-only" in c)
    proc = run_documented(verify, tmp_path)
    assert proc.returncode == 0
    assert f"Mismatches in :{index.absolute()}" in proc.stderr
    assert f"  Index offset: {rel}, log offset: " in proc.stderr


def _segment_at(directory: Path, base: int, offsets: list[int]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    seg = LogSegment(directory, base, index_interval_bytes=1, max_index_size=1024 * 1024)
    for offset in offsets:
        batch = build_batch(
            [(b"k", f"v{offset}".encode(), [])], base_offset=offset, timestamp=1_700_000_000_000
        )
        seg.append(batch, offset, 1_700_000_000_000)
    seg.close()
    return directory / f"{base:020d}.log"


def test_deep_iteration_of_a_segment_not_starting_at_zero_reports_no_gap(tmp_path):
    """DumpLogSegments.dumpLog starts with ``lastOffset = -1`` and takes the first record's
    offset as it is: a rolled segment (or a follower's) based at 100 has no gap at its start."""
    log = _segment_at(tmp_path / "t-0", 100, [100, 101, 102])
    rc, out, err = dump("--files", str(log), "--deep-iteration")
    assert rc == 0
    assert out.count("| offset: ") == 3
    assert "Non-consecutive offsets" not in err, err


def test_deep_iteration_lists_gaps_newest_first(tmp_path):
    """DumpLogSegments prepends each (last, next) pair to its list, so the gaps print newest
    first; the segment's first record is not one (a compacted segment based at 100)."""
    log = _segment_at(tmp_path / "t-0", 100, [100, 103, 104, 110])
    rc, _out, err = dump("--files", str(log), "--deep-iteration")
    assert rc == 0
    lines = err.splitlines()
    assert lines[0] == f"Non-consecutive offsets in {log.absolute()}"
    assert lines[1:] == ["  104 is followed by 110", "  100 is followed by 103"]
