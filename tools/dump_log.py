"""Dump a partition's files as Kafka's ``kafka-dump-log.sh`` does (``DumpLogSegments``).

::

    python -m tools.dump_log --files F1[,F2...] [--deep-iteration] [--print-data-log]
        [--verify-index-only] [--index-sanity-check] [--max-bytes N] [--max-message-size N]
        [--offsets-decoder] [--skip-record-metadata]

Files by suffix, with Kafka's output lines: ``.log`` (batches; records with
``--deep-iteration``; keys and values as UTF-8 with ``--print-data-log``), ``.index`` and
``.timeindex`` (entries, each checked against the ``.log`` of the same segment),
``.snapshot`` (producer state), ``.txnindex`` (aborted transactions). Other files are
reported as "Ignoring unknown file".

Exit status as Kafka's tool: 1 when a file cannot be read or decoded (the message on
stderr, the remaining files are not dumped); 0 otherwise, also when index mismatches,
out-of-order timestamps or non-consecutive offsets were found: those are listed on stderr
after all files. A corrupt producer snapshot is reported on stderr and does not stop the
run (Kafka's ``dumpProducerIdSnapshot``).

Differences from Kafka: only magic v2 batches (all Moldau writes) are decoded; an index
entry whose position does not hold a whole batch is listed as a mismatch with log offset
-1 (Kafka stops with an exception); ``.index`` entries whose offsets do not increase are
also listed ("Non-increasing offsets in :<file>", a Moldau addition); the Java
decoder-class options and the KRaft, transaction-log and share-group decoders are not
offered.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import struct
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from protocol import compression
from protocol.primitives import DecodeError
from protocol.record_batch import (
    CURRENT_MAGIC,
    DELETE_HORIZON_MASK,
    LOG_APPEND_TIME,
    NO_SEQUENCE,
    NO_TIMESTAMP,
    BatchHeader,
    increment_sequence,
    is_valid_crc,
)
from protocol.records import Record, decode_batch
from storage.index import CorruptIndexError
from storage.log_dump import (
    CorruptTxnIndexError,
    header_at,
    iter_log_batches,
    open_log_read_only,
    read_aborted_txns,
    read_offset_index,
    read_producer_snapshot,
    read_time_index,
    sibling,
)
from storage.producer_snapshot import CorruptSnapshotError
from storage.segment import INDEX_SUFFIX, LOG_SUFFIX, TIME_INDEX_SUFFIX, TXN_INDEX_SUFFIX

SNAPSHOT_SUFFIX = ".snapshot"  # LogFileUtils.PRODUCER_SNAPSHOT_FILE_SUFFIX
RECORD_INDENT = "|"
INT32_MAX = 2**31 - 1
DEFAULT_MAX_MESSAGE_SIZE = 5 * 1024 * 1024  # DumpLogSegments --max-message-size default

# ControlRecordType ids (key: version int16, type int16); EndTransactionMarker value:
# version int16, coordinatorEpoch int32.
_CONTROL_KEY = struct.Struct(">hh")
_END_TXN_VALUE = struct.Struct(">hi")
CONTROL_TYPES = {
    0: "ABORT",
    1: "COMMIT",
    2: "LEADER_CHANGE",
    3: "SNAPSHOT_HEADER",
    4: "SNAPSHOT_FOOTER",
    5: "KRAFT_VERSION",
    6: "KRAFT_VOTERS",
}


class DumpError(Exception):
    """A file that cannot be read or decoded: the run stops with exit status 1."""


@dataclass
class Options:
    files: list[str]
    print_data_log: bool = False
    deep_iteration: bool = False
    verify_index_only: bool = False
    index_sanity_check: bool = False
    max_bytes: int = INT32_MAX
    max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE
    offsets_decoder: bool = False
    skip_record_metadata: bool = False


@dataclass
class Findings:
    """What the checks found, printed to stderr after every file (as Kafka does)."""

    index_mismatches: dict[str, dict[int, int]] = field(default_factory=dict)
    index_non_increasing: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    time_mismatches: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    time_out_of_order: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    time_offset_not_found: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    non_consecutive: dict[str, dict[int, int]] = field(default_factory=dict)

    def print(self, err: TextIO) -> None:
        for name, by_offset in self.index_mismatches.items():
            err.write(f"Mismatches in :{name}\n")
            # Kafka keeps them in a TreeMap in reverse order
            for index_offset in sorted(by_offset, reverse=True):
                err.write(f"  Index offset: {index_offset}, log offset: {by_offset[index_offset]}\n")
        for name, pairs in self.index_non_increasing.items():
            err.write(f"Non-increasing offsets in :{name}\n")
            for offset, previous in pairs:
                err.write(f"  Index offset: {offset}, previous index offset: {previous}\n")
        for name, pairs in self.time_mismatches.items():
            err.write(f"Found timestamp mismatch in :{name}\n")
            for index_ts, log_ts in pairs:
                err.write(f"  Index timestamp: {index_ts}, log timestamp: {log_ts}\n")
        for name, pairs in self.time_out_of_order.items():
            err.write(f"Found out of order timestamp in :{name}\n")
            for index_ts, previous in pairs:
                err.write(f"  Index timestamp: {index_ts}, Previously indexed timestamp: {previous}\n")
        for pairs in self.time_offset_not_found.values():
            err.write("The following indexed offsets are not found in the log.\n")
            for index_offset, log_offset in pairs:
                err.write(f"Indexed offset: {index_offset}, found log offset: {log_offset}\n")
        for name, by_offset in self.non_consecutive.items():
            err.write(f"Non-consecutive offsets in {name}\n")
            # Kafka prepends each pair to its list: the last gap found is printed first.
            for previous in sorted(by_offset, reverse=True):
                err.write(f"  {previous} is followed by {by_offset[previous]}\n")


# ------------------------------------------------------------------ .log


def timestamp_type_name(header: BatchHeader) -> str:
    return "LogAppendTime" if header.timestamp_type == LOG_APPEND_TIME else "CreateTime"


def batch_line(buf: Any, position: int, header: BatchHeader) -> str:
    """One batch as ``DumpLogSegments.printBatchLevel`` prints a v2 batch."""
    delete_horizon = (
        f"OptionalLong[{header.base_timestamp}]"
        if header.attributes & DELETE_HORIZON_MASK
        else "OptionalLong.empty"
    )
    return (
        f"baseOffset: {header.base_offset} lastOffset: {header.last_offset} "
        f"count: {header.records_count} baseSequence: {header.base_sequence} "
        f"lastSequence: {header.last_sequence} producerId: {header.producer_id} "
        f"producerEpoch: {header.producer_epoch} partitionLeaderEpoch: {header.partition_leader_epoch} "
        f"isTransactional: {_bool(header.is_transactional)} isControl: {_bool(header.is_control)} "
        f"deleteHorizonMs: {delete_horizon} position: {position} "
        f"{timestamp_type_name(header)}: {header.max_timestamp} size: {header.size} "
        f"magic: {header.magic} compresscodec: {compression.NAMES.get(header.compression, 'unknown')} "
        f"crc: {header.crc} isvalid: {_bool(is_valid_crc(buf, position, header))}"
    )


def _bool(value: bool) -> str:
    return "true" if value else "false"


def record_sequence(header: BatchHeader, record: Record) -> int:
    """Kafka's ``DefaultRecord.sequence``: the batch's base sequence plus the offset delta."""
    if header.base_sequence == NO_SEQUENCE:
        return NO_SEQUENCE
    return increment_sequence(header.base_sequence, record.offset - header.base_offset)


def control_record_text(record: Record) -> str:
    """Kafka's ``printControlRecord`` for the transaction markers Moldau can hold."""
    key = record.key or b""
    if len(key) < _CONTROL_KEY.size:
        return " controlType: UNKNOWN(-1)"
    _version, type_id = _CONTROL_KEY.unpack_from(key)
    name = CONTROL_TYPES.get(type_id, "UNKNOWN")
    if type_id in (0, 1):
        value = record.value or b""
        if len(value) < _END_TXN_VALUE.size:
            raise DecodeError(f"end transaction marker at offset {record.offset} is too short")
        _value_version, coordinator_epoch = _END_TXN_VALUE.unpack_from(value)
        return f" endTxnMarker: {name} coordinatorEpoch: {coordinator_epoch}"
    return f" controlType: {name}({type_id})"


def string_decoder(record: Record) -> tuple[str | None, str | None]:
    """Kafka's ``StringDecoder`` for key and value (UTF-8; absent when null)."""
    key = None if record.key is None else record.key.decode("utf-8", "replace")
    value = None if record.value is None else record.value.decode("utf-8", "replace")
    return key, value


def record_line(header: BatchHeader, record: Record, opts: Options, parser: Callable) -> str:
    """One record as ``DumpLogSegments.dumpBatchRecords`` prints it."""
    out = ""
    if not opts.skip_record_metadata:
        out = (
            f"{RECORD_INDENT} offset: {record.offset} {timestamp_type_name(header)}: {record.timestamp} "
            f"keySize: {-1 if record.key is None else len(record.key)} "
            f"valueSize: {-1 if record.value is None else len(record.value)} "
            f"sequence: {record_sequence(header, record)} "
            f"headerKeys: [{','.join(k for k, _ in record.headers)}]"
        )
        if header.is_control:
            out += control_record_text(record)
    if opts.print_data_log and not header.is_control:
        prefix = RECORD_INDENT + " " if opts.skip_record_metadata else " "
        key, value = parser(record)
        if key is not None:
            out += f"{prefix}key: {key}"
            prefix = " "
        if value is not None:
            out += f"{prefix}payload: {value}"
    return out


def dump_log(path: Path, opts: Options, findings: Findings, out: TextIO) -> None:
    out.write(f"Log starting offset: {int(path.name.split('.', 1)[0])}\n")
    parser = offsets_decoder if opts.offsets_decoder else string_decoder
    with open_log_read_only(path) as buf:
        end = min(len(buf), opts.max_bytes)
        valid_bytes = 0
        last_offset = -1
        for position, header in iter_log_batches(buf, end):
            if header.magic != CURRENT_MAGIC:
                raise DumpError(f"Unsupported magic {header.magic} of the batch at position {position}")
            out.write(batch_line(buf, position, header) + "\n")
            if opts.deep_iteration:
                batch = memoryview(buf)[position : position + header.size]
                try:
                    records = decode_batch(batch, header)
                finally:
                    batch.release()
                for record in records:
                    # DumpLogSegments.dumpLog: the first record's offset is taken as it is.
                    if last_offset != -1 and record.offset != last_offset + 1:
                        findings.non_consecutive.setdefault(str(path.absolute()), {})[last_offset] = (
                            record.offset
                        )
                    last_offset = record.offset
                    out.write(record_line(header, record, opts, parser) + "\n")
            valid_bytes += header.size
        trailing = len(buf) - valid_bytes
        if trailing > 0 and opts.max_bytes == INT32_MAX:
            out.write(f"Found {trailing} invalid bytes at the end of {path.name}\n")


# ------------------------------------------------------------------ indexes


def dump_index(path: Path, opts: Options, findings: Findings, out: TextIO) -> None:
    """``DumpLogSegments.dumpIndex``: every entry, each checked against the segment's ``.log``."""
    log_path = sibling(path, LOG_SUFFIX)
    index = read_offset_index(path)
    with open_log_read_only(log_path) as buf:
        if index.entries == 0:
            out.write(f"{path} is empty.\n")
            return
        if opts.index_sanity_check:
            index.sanity_check()
            out.write(f"{path} passed sanity check.\n")
            return
        name = str(path.absolute())
        previous = None
        for i in range(index.entries):
            entry = index.entry(i)
            # A crash can leave zero entries in the preallocated file: stop at the first one.
            if entry.offset == index.base_offset and i > 0:
                return
            header = header_at(buf, entry.position, entry.position + opts.max_message_size)
            log_offset = -1 if header is None else header.last_offset
            if log_offset != entry.offset:
                findings.index_mismatches.setdefault(name, {})[entry.offset] = log_offset
            if previous is not None and entry.offset <= previous:
                findings.index_non_increasing.setdefault(name, []).append((entry.offset, previous))
            previous = entry.offset
            if not opts.verify_index_only:
                out.write(f"offset: {entry.offset} position: {entry.position}\n")


def dump_time_index(path: Path, opts: Options, findings: Findings, out: TextIO) -> None:
    """``DumpLogSegments.dumpTimeIndex``: each entry's timestamp checked against its batch."""
    log_path = sibling(path, LOG_SUFFIX)
    offset_index = read_offset_index(sibling(path, INDEX_SUFFIX))
    time_index = read_time_index(path)
    with open_log_read_only(log_path) as buf:
        if opts.index_sanity_check:
            time_index.sanity_check()
            out.write(f"{path} passed sanity check.\n")
            return
        name = str(path.absolute())
        previous_ts = NO_TIMESTAMP
        for i in range(time_index.entries):
            entry = time_index.entry(i)
            if entry.offset == time_index.base_offset and i > 0:
                return
            start = offset_index.lookup(entry.offset).position
            match = _first_batch_reaching(buf, start, entry.offset)
            if match is None:
                findings.time_offset_not_found.setdefault(name, []).append((entry.offset, -1))
            elif match[1].last_offset != entry.offset:
                findings.time_offset_not_found.setdefault(name, []).append(
                    (entry.offset, match[1].last_offset)
                )
            else:
                position, header = match
                batch = memoryview(buf)[position : position + header.size]
                try:
                    max_ts = max((r.timestamp for r in decode_batch(batch, header)), default=NO_TIMESTAMP)
                finally:
                    batch.release()
                if max_ts != entry.timestamp:
                    findings.time_mismatches.setdefault(name, []).append((entry.timestamp, max_ts))
                if previous_ts >= entry.timestamp:
                    findings.time_out_of_order.setdefault(name, []).append((entry.timestamp, previous_ts))
            if not opts.verify_index_only:
                out.write(f"timestamp: {entry.timestamp} offset: {entry.offset}\n")
            previous_ts = entry.timestamp


def _first_batch_reaching(buf: Any, start: int, offset: int) -> tuple[int, BatchHeader] | None:
    """The first whole batch from ``start`` whose last offset is >= ``offset``."""
    if start < 0 or start >= len(buf):
        return None
    for position, header in iter_log_batches(buf, start=start):
        if header.last_offset >= offset:
            return position, header
    return None


# ------------------------------------------------------------------ snapshot, txnindex


def dump_producer_snapshot(path: Path, out: TextIO, err: TextIO) -> None:
    """``DumpLogSegments.dumpProducerIdSnapshot``: one line per producer."""
    try:
        entries = read_producer_snapshot(path)
    except CorruptSnapshotError as exc:
        err.write(f"{exc}\n")
        return
    for e in entries:
        txn_first = (
            f"OptionalLong[{e.current_txn_first_offset}]"
            if e.current_txn_first_offset >= 0
            else "OptionalLong.empty"
        )
        line = (
            f"producerId: {e.producer_id} producerEpoch: {e.producer_epoch} "
            f"coordinatorEpoch: {e.coordinator_epoch} currentTxnFirstOffset: {txn_first} "
            f"lastTimestamp: {e.last_timestamp}"
        )
        if e.batch_metadata:
            b = e.batch_metadata[0]
            line += (
                f" firstSequence: {b.first_seq} lastSequence: {b.last_seq} lastOffset: {b.last_offset} "
                f"offsetDelta: {b.offset_delta} timestamp: {b.timestamp}"
            )
        out.write(line + "\n")


def dump_txn_index(path: Path, out: TextIO) -> None:
    for t in read_aborted_txns(path):
        out.write(
            f"version: {t.version} producerId: {t.producer_id} firstOffset: {t.first_offset} "
            f"lastOffset: {t.last_offset} lastStableOffset: {t.last_stable_offset}\n"
        )


# ------------------------------------------------------------------ __consumer_offsets


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def offsets_decoder(record: Record) -> tuple[str | None, str | None]:
    """Kafka's ``OffsetsMessageParser``: key and value of a ``__consumer_offsets`` record as JSON."""
    # Imported here: only this option needs the coordinator's record formats.
    from coordinator import group_offsets as go

    if record.key is None:
        raise DumpError(
            f"Failed to decode message at offset {record.offset} using the specified decoder "
            "(message had a missing key)"
        )
    try:
        key_version = struct.unpack_from(">h", record.key)[0]
        key = go.decode_key(record.key)
        if key is None:
            return f"Unknown record type {key_version} at offset {record.offset}, skipping.", None
        if isinstance(key, go.OffsetKey):
            key_json = {"group": key.group, "topic": key.topic, "partition": key.partition}
        else:
            key_json = {"group": key.group}
        key_text = _json({"type": str(key_version), "data": key_json})
        if record.value is None:
            return key_text, "<DELETE>"
        value_version = struct.unpack_from(">h", record.value)[0]
        if isinstance(key, go.OffsetKey):
            data = _offset_value_json(go.decode_offset_value(record.value), value_version)
        else:
            data = _group_value_json(go.decode_group_value(record.value), value_version)
        return key_text, _json({"version": str(value_version), "data": data})
    except (DecodeError, struct.error, IndexError, ValueError) as exc:
        return f"Error at offset {record.offset}, skipping. {exc}", None


def _offset_value_json(om: Any, version: int) -> dict[str, Any]:
    """OffsetCommitValue's fields for its version (OffsetCommitValueJsonConverter)."""
    data: dict[str, Any] = {"offset": om.committed_offset}
    if version >= 3:
        data["leaderEpoch"] = om.leader_epoch
    data["metadata"] = om.metadata
    data["commitTimestamp"] = om.commit_timestamp_ms
    if version == 1:
        data["expireTimestamp"] = -1 if om.expire_timestamp_ms is None else om.expire_timestamp_ms
    return data


def _group_value_json(group: Any, version: int) -> dict[str, Any]:
    """GroupMetadataValue's fields for its version (GroupMetadataValueJsonConverter)."""
    from protocol.messages import ConsumerProtocolAssignment, ConsumerProtocolSubscription

    data: dict[str, Any] = {
        "protocolType": group.protocol_type,
        "generation": group.generation,
        "protocol": group.protocol,
        "leader": group.leader,
    }
    if version >= 2:
        data["currentStateTimestamp"] = group.current_state_timestamp_ms
    members = []
    for m in group.members:
        member: dict[str, Any] = {"memberId": m.member_id}
        if version >= 3:
            member["groupInstanceId"] = m.group_instance_id
        member["clientId"] = m.client_id
        member["clientHost"] = m.client_host
        if version >= 1:
            member["rebalanceTimeout"] = m.rebalance_timeout_ms
        member["sessionTimeout"] = m.session_timeout_ms
        member["subscription"] = _consumer_protocol_json(
            group.protocol_type, m.subscription, ConsumerProtocolSubscription
        )
        member["assignment"] = _consumer_protocol_json(
            group.protocol_type, m.assignment, ConsumerProtocolAssignment
        )
        members.append(member)
    data["members"] = members
    return data


def _consumer_protocol_json(protocol_type: str, data: bytes, message: Any) -> Any:
    """A member's subscription or assignment: decoded for ``consumer`` groups, else base64.

    As Kafka's ``OffsetsMessageParser.replaceField``: bytes that do not decode stay base64.
    """
    if protocol_type == "consumer" and len(data) >= 2:
        try:
            version = struct.unpack_from(">h", data)[0]
            decoded, _ = message.decode_from(data, version, 2)
            return message_json(decoded, version)
        except (DecodeError, struct.error):
            pass
    return base64.b64encode(data).decode("ascii")


def message_json(struct_value: Any, version: int) -> dict[str, Any]:
    """A generated message as Kafka's generated ``JsonConverter.write``: the version's fields, camelCase."""
    out: dict[str, Any] = {}
    for f in struct_value.FIELDS:
        if f.versions is None or not f.versions[0] <= version <= f.versions[1]:
            continue
        out[f.name[:1].lower() + f.name[1:]] = _json_value(getattr(struct_value, f.attr), version)
    return out


def _json_value(value: Any, version: int) -> Any:
    if isinstance(value, bytes | bytearray | memoryview):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, list):
        return [_json_value(v, version) for v in value]
    if hasattr(value, "FIELDS"):
        return message_json(value, version)
    return value


# ------------------------------------------------------------------ main


def parse_args(argv: Sequence[str] | None) -> Options:
    p = argparse.ArgumentParser(
        prog="moldau-dump-log",
        description="This tool helps to parse a log file and dump its contents to the console, "
        "useful for debugging a seemingly corrupt log segment.",
    )
    p.add_argument(
        "--files",
        required=True,
        metavar="file1,file2,...",
        help="REQUIRED: The comma separated list of data and index log files to be dumped.",
    )
    p.add_argument(
        "--print-data-log",
        action="store_true",
        help="If set, printing the messages content when dumping data logs. "
        "Automatically set if any decoder option is specified.",
    )
    p.add_argument(
        "--verify-index-only",
        action="store_true",
        help="If set, just verify the index log without printing its content.",
    )
    p.add_argument(
        "--index-sanity-check",
        action="store_true",
        help="If set, just checks the index sanity without printing its content. This is the same "
        "check that is executed on broker startup to determine if an index needs rebuilding or not.",
    )
    p.add_argument(
        "--max-message-size",
        type=int,
        default=DEFAULT_MAX_MESSAGE_SIZE,
        metavar="size",
        help="Size of largest message.",
    )
    p.add_argument(
        "--max-bytes",
        type=int,
        default=INT32_MAX,
        metavar="size",
        help="Limit the amount of total batches read in bytes avoiding reading the whole .log file(s).",
    )
    p.add_argument(
        "--deep-iteration",
        action="store_true",
        help="If set, uses deep instead of shallow iteration. Automatically set if print-data-log is enabled.",
    )
    p.add_argument(
        "--offsets-decoder",
        action="store_true",
        help="If set, log data will be parsed as offset data from the __consumer_offsets topic.",
    )
    p.add_argument(
        "--skip-record-metadata",
        action="store_true",
        help="Skip metadata when printing records. This flag also skips control records.",
    )
    a = p.parse_args(argv)
    print_data = a.print_data_log or a.offsets_decoder
    return Options(
        files=a.files.split(","),
        print_data_log=print_data,
        deep_iteration=a.deep_iteration or print_data,
        verify_index_only=a.verify_index_only,
        index_sanity_check=a.index_sanity_check,
        max_bytes=a.max_bytes,
        max_message_size=a.max_message_size,
        offsets_decoder=a.offsets_decoder,
        skip_record_metadata=a.skip_record_metadata,
    )


def dump_file(path: Path, opts: Options, findings: Findings, out: TextIO, err: TextIO) -> None:
    suffix = path.suffix
    if suffix == LOG_SUFFIX:
        dump_log(path, opts, findings, out)
    elif suffix == INDEX_SUFFIX:
        dump_index(path, opts, findings, out)
    elif suffix == TIME_INDEX_SUFFIX:
        dump_time_index(path, opts, findings, out)
    elif suffix == SNAPSHOT_SUFFIX:
        dump_producer_snapshot(path, out, err)
    elif suffix == TXN_INDEX_SUFFIX:
        dump_txn_index(path, out)
    else:
        err.write(f"Ignoring unknown file {path}\n")


def run(argv: Sequence[str] | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """The tool; returns its exit status (1 when a file cannot be read or decoded)."""
    out = out or sys.stdout
    err = err or sys.stderr
    opts = parse_args(argv)
    findings = Findings()
    try:
        for name in opts.files:
            path = Path(name)
            out.write(f"Dumping {path}\n")
            dump_file(path, opts, findings, out, err)
    except BrokenPipeError:
        raise
    except (
        OSError,
        DecodeError,
        DumpError,
        CorruptIndexError,
        CorruptTxnIndexError,
        ValueError,
    ) as exc:
        out.flush()
        err.write(f"{exc}\n")
        return 1
    out.flush()
    findings.print(err)
    return 0


def main() -> None:
    try:
        sys.exit(run())
    except BrokenPipeError:
        # piped into head and the like: stop quietly (and keep the exit flush from failing again)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)


if __name__ == "__main__":
    main()
