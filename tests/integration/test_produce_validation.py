"""Every produce validation rule on the wire (issue 4, points 1, 2 and 4), each with its error code.

Batches are built with ``protocol.records.build_batch`` and bent by hand (header fields, CRC,
lengths, magic), sent with the WireClient and answered per partition as Kafka's
``ProduceRequest.validateRecords``, ``UnifiedLog.analyzeAndValidateRecords``, ``LogValidator``
and ``ProducerStateManager`` would. After every refused request the same connection still
gets a good batch appended, and (autouse fixture) a fresh connection is served too.

Knowingly different from Kafka, pinned here: bytes after the one batch are refused with
CORRUPT_MESSAGE (Kafka drops a trailing partial batch silently); undecompressable data is
CORRUPT_MESSAGE (Kafka: UNKNOWN_SERVER_ERROR); an unknown codec id is INVALID_RECORD (Kafka:
UNKNOWN_SERVER_ERROR).
"""

from __future__ import annotations

import struct
import time
from collections.abc import Iterator

import pytest

from protocol import compression
from protocol.errors import ErrorCode
from protocol.headers import RequestHeader, encode_request_header
from protocol.messages import FetchRequest, MetadataRequest, ProduceRequest, ProduceResponse
from protocol.record_batch import (
    CRC_OFFSET,
    HEADER,
    INT32_MAX,
    LOG_APPEND_TIME,
    compute_crc,
    is_valid_crc,
    read_header,
)
from protocol.records import build_batch
from tests.integration.test_idempotent_produce import (
    create_topic,
    idempotent_batch,
    init_producer_id,
    produce_on,
    produce_request,
    produce_wire,
    producer_states,
    read_partition,
    unique_topic,
    wire,
)
from tests.support.broker_process import BrokerProcess
from tests.support.wire_client import WireClient

pytestmark = pytest.mark.integration

NONE = ErrorCode.NONE.code
CORRUPT_MESSAGE = ErrorCode.CORRUPT_MESSAGE.code  # 2
UNKNOWN_TOPIC_OR_PARTITION = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code  # 3
MESSAGE_TOO_LARGE = ErrorCode.MESSAGE_TOO_LARGE.code  # 10
NOT_ENOUGH_REPLICAS = ErrorCode.NOT_ENOUGH_REPLICAS.code  # 19
INVALID_REQUIRED_ACKS = ErrorCode.INVALID_REQUIRED_ACKS.code  # 21
INVALID_TIMESTAMP = ErrorCode.INVALID_TIMESTAMP.code  # 32
OUT_OF_ORDER = ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER.code  # 45
INVALID_PRODUCER_EPOCH = ErrorCode.INVALID_PRODUCER_EPOCH.code  # 47
UNSUPPORTED_COMPRESSION_TYPE = ErrorCode.UNSUPPORTED_COMPRESSION_TYPE.code  # 76
INVALID_RECORD = ErrorCode.INVALID_RECORD.code  # 87

MAIN = "validation-main"  # 2 partitions, defaults
SMALL = "validation-small"  # max.message.bytes=1024
LAT = "validation-log-append-time"  # message.timestamp.type=LogAppendTime
BOUNDS = "validation-time-bounds"  # CreateTime within an hour either way
ISR2 = "validation-min-isr-2"  # min.insync.replicas=2
HOUR_MS = 3_600_000

_FIELDS = (
    "base_offset",
    "batch_length",
    "partition_leader_epoch",
    "magic",
    "crc",
    "attributes",
    "last_offset_delta",
    "base_timestamp",
    "max_timestamp",
    "producer_id",
    "producer_epoch",
    "base_sequence",
    "records_count",
)


@pytest.fixture(scope="module")
def vbroker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerProcess]:
    b = BrokerProcess(tmp_path_factory.mktemp("produce-validation") / "data")
    b.start()
    create_topic(b, MAIN, partitions=2)
    create_topic(b, SMALL, partitions=1, configs={"max.message.bytes": "1024"})
    create_topic(b, LAT, partitions=1, configs={"message.timestamp.type": "LogAppendTime"})
    create_topic(
        b,
        BOUNDS,
        partitions=1,
        configs={
            "message.timestamp.before.max.ms": str(HOUR_MS),
            "message.timestamp.after.max.ms": str(HOUR_MS),
        },
    )
    create_topic(b, ISR2, partitions=1, configs={"min.insync.replicas": "2"})
    yield b
    b.stop()


@pytest.fixture(autouse=True)
def still_serving(vbroker: BrokerProcess) -> Iterator[None]:
    """After each test, another client is still served: Metadata, and a produce appended."""
    yield
    assert vbroker.alive(), "the broker died"
    with wire(vbroker, "bystander") as c:
        md = c.request(MetadataRequest(topics=None), 12)
        assert MAIN in {t.name for t in md.topics}
        answer = produce_on(c, MAIN, 1, build_batch([(b"k", b"bystander")]))
        assert answer.error_code == NONE, answer


def patched(batch: bytes, *, fix_crc: bool = True, **fields: int) -> bytes:
    """The batch with header fields replaced (CRC recomputed unless ``fix_crc`` is False)."""
    values = dict(zip(_FIELDS, HEADER.unpack_from(batch, 0), strict=True))
    values.update(fields)
    out = bytearray(batch)
    HEADER.pack_into(out, 0, *(values[f] for f in _FIELDS))
    if fix_crc:
        struct.pack_into(">I", out, CRC_OFFSET, compute_crc(out, 0, len(out)))
    return bytes(out)


def good_batch(value: bytes = b"v", count: int = 1) -> bytes:
    return build_batch([(b"k", value)] * count)


def assert_refused(
    c: WireClient,
    code: int,
    records: bytes | None,
    *,
    topic: str = MAIN,
    partition: int = 0,
    version: int = 9,
    acks: int = -1,
) -> ProduceResponse.PartitionProduceResponse:
    """``records`` is refused with ``code`` (no offset), then the same connection appends a
    good batch: a refused batch is an answer, not a broken connection."""
    answer = produce_on(c, topic, partition, records, acks=acks, version=version)
    assert answer.error_code == code, f"expected {ErrorCode.for_code(code).name}, got {answer}"
    assert answer.base_offset == -1, answer
    ok = produce_on(c, MAIN, 0, good_batch(b"after"))
    assert ok.error_code == NONE, ok
    return answer


# ------------------------------------------------------------------------- framing (validateRecords)


def test_two_batches_for_one_partition_are_invalid_record(vbroker):
    with wire(vbroker) as c:
        assert_refused(c, INVALID_RECORD, good_batch(b"a") + good_batch(b"b"))


def test_no_batch_is_invalid_record(vbroker):
    with wire(vbroker) as c:
        assert_refused(c, INVALID_RECORD, b"")
        assert_refused(c, INVALID_RECORD, None)


def legacy_v1_message(value: bytes, timestamp: int) -> bytes:
    """A magic-1 message set entry (LegacyRecord): offset, size, crc, magic, attributes,
    timestamp, key, value. Bytes 21-22, where a magic-2 batch keeps its attributes, are
    bits 39..24 of the timestamp here."""
    body = struct.pack(">bbq", 1, 0, timestamp) + struct.pack(">i", -1)
    body += struct.pack(">i", len(value)) + value
    crc = 0  # never checked: the magic is refused first
    return struct.pack(">qiI", 0, 4 + len(body), crc) + body


def _timestamp_with_byte_22(byte: int) -> int:
    return (1_700_000_000_000 & ~(0xFF << 24)) | (byte << 24)


@pytest.mark.parametrize(
    ("byte_22", "version"),
    [(0x00, 9), (0x10, 9), (0x04, 6)],
    ids=["plain", "transactional-bit-lookalike", "zstd-lookalike-below-v7"],
)
def test_magic_1_message_set_is_invalid_record(vbroker, byte_22, version):
    """Kafka checks the magic before anything else (ProduceRequest.validateRecords), and a
    legacy batch is never transactional nor zstd: whatever its timestamp bytes look like
    through a magic-2 lens, the answer is INVALID_RECORD."""
    with wire(vbroker) as c:
        legacy = legacy_v1_message(b"old", _timestamp_with_byte_22(byte_22))
        assert_refused(c, INVALID_RECORD, legacy, version=version)


def test_magic_0_is_invalid_record(vbroker):
    with wire(vbroker) as c:
        assert_refused(c, INVALID_RECORD, patched(good_batch(), magic=0))


def test_unknown_magic_is_corrupt_message(vbroker):
    with wire(vbroker) as c:
        assert_refused(c, CORRUPT_MESSAGE, patched(good_batch(), magic=3))


# ------------------------------------------------------------------------- length and CRC


def test_batch_length_below_the_minimum_is_corrupt_message(vbroker):
    with wire(vbroker) as c:
        assert_refused(c, CORRUPT_MESSAGE, patched(good_batch(), batch_length=13, fix_crc=False))


def test_framing_is_checked_before_the_codec(vbroker):
    """A zstd batch with an impossible length at v6: Kafka's ProduceRequest.validateRecords
    reads the batch (CorruptRecordException: CORRUPT_MESSAGE) before it looks at the codec."""
    zstd = build_batch([(b"k", b"v" * 50)], compression_type=compression.ZSTD)
    with wire(vbroker) as c:
        assert_refused(c, CORRUPT_MESSAGE, patched(zstd, batch_length=13, fix_crc=False), version=6)


def test_batch_shorter_than_its_header_is_corrupt_message(vbroker):
    with wire(vbroker) as c:
        short = patched(good_batch(), batch_length=40 - 12, fix_crc=False)[:40]
        assert_refused(c, CORRUPT_MESSAGE, short)


def test_batch_length_beyond_the_bytes_sent_is_invalid_record(vbroker):
    """ByteBufferLogInputStream finds no whole batch: "at least one record batch"."""
    batch = good_batch()
    with wire(vbroker) as c:
        assert_refused(c, INVALID_RECORD, patched(batch, batch_length=len(batch) - 12 + 10, fix_crc=False))


def test_bytes_after_the_batch_are_corrupt_message(vbroker):
    """Moldau refuses a trailing partial batch (Kafka appends the first batch and drops it)."""
    with wire(vbroker) as c:
        assert_refused(c, CORRUPT_MESSAGE, good_batch() + b"\x00" * 7)
        assert_refused(c, CORRUPT_MESSAGE, good_batch() + good_batch()[:30])


def test_crc_mismatch_is_corrupt_message(vbroker):
    batch = bytearray(good_batch(b"payload"))
    batch[-3] ^= 0xFF  # a byte of the value
    with wire(vbroker) as c:
        assert_refused(c, CORRUPT_MESSAGE, bytes(batch))
        # The header is covered too (attributes onwards).
        assert_refused(c, CORRUPT_MESSAGE, patched(good_batch(), base_timestamp=12345, fix_crc=False))


# ------------------------------------------------------------------------- batch header (LogValidator)


def test_record_count_not_matching_last_offset_delta_is_invalid_record(vbroker):
    batch = good_batch(count=2)
    with wire(vbroker) as c:
        assert_refused(c, INVALID_RECORD, patched(batch, records_count=3))
        assert_refused(c, INVALID_RECORD, patched(batch, records_count=0, last_offset_delta=-1))
        assert_refused(c, INVALID_RECORD, patched(batch, last_offset_delta=5))


def test_control_batch_from_a_client_is_invalid_record(vbroker):
    with wire(vbroker) as c:
        assert_refused(c, INVALID_RECORD, build_batch([(b"\x00\x00\x00\x01", b"\x00" * 6)], control=True))


def test_base_offset_other_than_zero_is_invalid_record(vbroker):
    """UnifiedLog.analyzeAndValidateRecords: a client batch must start at offset 0 (outside the
    CRC, so this batch is otherwise intact)."""
    with wire(vbroker) as c:
        assert_refused(c, INVALID_RECORD, patched(good_batch(), base_offset=5, fix_crc=False))


def test_producer_id_with_negative_sequence_is_invalid_record(vbroker):
    with wire(vbroker) as c:
        assert_refused(c, INVALID_RECORD, build_batch([(b"k", b"v")], producer_id=77, producer_epoch=0))


def test_transactional_batch_without_transactional_id_is_refused(vbroker):
    """KafkaApis.handleProduceRequest: transactional records in a request without a
    transactional id get TRANSACTIONAL_ID_AUTHORIZATION_FAILED."""
    pid, epoch = init_producer_id(vbroker)
    batch = build_batch(
        [(b"k", b"v")], producer_id=pid, producer_epoch=epoch, base_sequence=0, transactional=True
    )
    with wire(vbroker) as c:
        assert_refused(c, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code, batch)


def test_batch_above_max_message_bytes_is_message_too_large(vbroker):
    with wire(vbroker) as c:
        fits = good_batch(b"x" * 900)
        assert len(fits) <= 1024
        assert produce_on(c, SMALL, 0, fits).error_code == NONE
        too_big = good_batch(b"x" * 1000)
        assert len(too_big) > 1024
        assert_refused(c, MESSAGE_TOO_LARGE, too_big, topic=SMALL)


def test_undecompressable_batch_is_corrupt_message(vbroker):
    """Moldau's answer (Kafka fails the request with UNKNOWN_SERVER_ERROR from the codec)."""
    gz = build_batch([(b"k", b"v" * 100)], compression_type=compression.GZIP)
    mangled = bytearray(gz)
    mangled[61:] = b"\x00" * (len(gz) - 61)
    with wire(vbroker) as c:
        assert_refused(c, CORRUPT_MESSAGE, patched(bytes(mangled)))


def test_unknown_codec_is_invalid_record(vbroker):
    with wire(vbroker) as c:
        assert_refused(c, INVALID_RECORD, patched(good_batch(), attributes=5))


@pytest.mark.parametrize("codec", sorted(compression.NAMES))
def test_every_codec_is_accepted_and_read_back(vbroker, codec):
    topic = unique_topic(f"codec-{compression.NAMES[codec]}")
    create_topic(vbroker, topic, partitions=1)
    values = [f"value {i} ".encode() * 20 for i in range(10)]
    answer = produce_wire(vbroker, topic, 0, build_batch([(b"k", v) for v in values], compression_type=codec))
    assert (answer.error_code, answer.base_offset) == (NONE, 0), answer
    (batch,) = read_partition(vbroker, topic, 0)
    assert batch.header.compression == codec
    assert [r.value for r in batch.records] == values


# ------------------------------------------------------------------------- request level


def test_unknown_topic_or_partition(vbroker):
    with wire(vbroker) as c:
        assert_refused(c, UNKNOWN_TOPIC_OR_PARTITION, good_batch(), topic="validation-no-such-topic")
        assert_refused(c, UNKNOWN_TOPIC_OR_PARTITION, good_batch(), partition=7)
        assert_refused(c, UNKNOWN_TOPIC_OR_PARTITION, good_batch(), partition=-1)
        # Produce does not create topics (only Metadata may).
        md = c.request(MetadataRequest(topics=None), 12)
        assert "validation-no-such-topic" not in {t.name for t in md.topics}


def test_errors_are_per_partition(vbroker):
    """One request, a good and a bad partition: the good one is appended all the same."""
    topic = unique_topic("per-partition")
    create_topic(vbroker, topic, partitions=1)
    request = ProduceRequest(
        acks=-1,
        timeout_ms=1000,
        topic_data=[
            ProduceRequest.TopicProduceData(
                name=topic,
                partition_data=[
                    ProduceRequest.PartitionProduceData(index=0, records=good_batch(b"kept")),
                    ProduceRequest.PartitionProduceData(index=3, records=good_batch()),
                ],
            )
        ],
    )
    with wire(vbroker) as c:
        answers = c.request(request, 9).responses[0].partition_responses
    assert [(a.index, a.error_code) for a in answers] == [(0, NONE), (3, UNKNOWN_TOPIC_OR_PARTITION)]
    assert [r.value for b in read_partition(vbroker, topic, 0) for r in b.records] == [b"kept"]


@pytest.mark.parametrize("acks", [2, -2, 5])
def test_bad_acks_is_invalid_required_acks_for_every_partition(vbroker, acks):
    request = ProduceRequest(
        acks=acks,
        timeout_ms=1000,
        topic_data=[
            ProduceRequest.TopicProduceData(
                name=MAIN,
                partition_data=[
                    ProduceRequest.PartitionProduceData(index=p, records=good_batch()) for p in (0, 1)
                ],
            )
        ],
    )
    with wire(vbroker) as c:
        resp = c.request(request, 9)
        answers = resp.responses[0].partition_responses
        assert [(a.index, a.error_code) for a in answers] == [
            (0, INVALID_REQUIRED_ACKS),
            (1, INVALID_REQUIRED_ACKS),
        ]
        assert produce_on(c, MAIN, 0, good_batch()).error_code == NONE


def test_zstd_below_produce_v7_is_unsupported_compression_type(vbroker):
    zstd = build_batch([(b"k", b"v" * 50)], compression_type=compression.ZSTD)
    with wire(vbroker) as c:
        for version in (3, 6):
            assert_refused(c, UNSUPPORTED_COMPRESSION_TYPE, zstd, version=version)
        assert produce_on(c, MAIN, 0, zstd, version=7).error_code == NONE
        assert (
            produce_on(c, MAIN, 0, build_batch([(b"k", b"g")], compression_type=1), version=3).error_code
            == NONE
        )


def test_min_insync_replicas_above_the_replicas_is_capped_at_the_replication_factor(vbroker):
    # Kafka 3.9's Partition.effectiveMinIsr: min(min.insync.replicas, replicas); one replica
    # in sync is enough for acks=all on a replication-factor-1 topic with min.insync.replicas=2.
    with wire(vbroker) as c:
        for acks in (-1, 1):
            answer = produce_on(c, ISR2, 0, good_batch(), acks=acks)
            assert answer.error_code == NONE, answer


# ------------------------------------------------------------------------- timestamps


@pytest.mark.parametrize("codec", [compression.NONE, compression.GZIP])
def test_log_append_time_topic_stamps_the_batch_and_recomputes_the_crc(vbroker, codec):
    created = int(time.time() * 1000) - 24 * HOUR_MS  # far in the past: not what is kept
    batch = build_batch([(b"k", b"a"), (b"k", b"b")], timestamp=created, compression_type=codec)
    with wire(vbroker) as c:
        before = int(time.time() * 1000)
        answer = produce_on(c, LAT, 0, batch)
        after = int(time.time() * 1000)
    assert answer.error_code == NONE, answer
    assert before <= answer.log_append_time_ms <= after, answer
    stored = next(b for b in read_partition(vbroker, LAT, 0) if b.header.base_offset == answer.base_offset)
    h = stored.header
    assert h.timestamp_type == LOG_APPEND_TIME
    assert h.max_timestamp == answer.log_append_time_ms
    assert [r.timestamp for r in stored.records] == [answer.log_append_time_ms] * 2
    assert [r.value for r in stored.records] == [b"a", b"b"]
    # The CRC on disk matches the rewritten header: read the raw batch back and check it.
    with wire(vbroker) as c:
        raw = (
            c.request(
                FetchRequest(
                    max_wait_ms=0,
                    topics=[
                        FetchRequest.FetchTopic(
                            topic=LAT,
                            partitions=[
                                FetchRequest.FetchPartition(
                                    partition=0, fetch_offset=answer.base_offset, partition_max_bytes=1 << 20
                                )
                            ],
                        )
                    ],
                ),
                12,
            )
            .responses[0]
            .partitions[0]
            .records
        )
    raw_header = read_header(raw, 0)
    assert raw_header.base_offset == answer.base_offset
    assert is_valid_crc(raw, 0, raw_header)
    assert raw_header.crc != read_header(batch, 0).crc


def test_log_append_time_from_a_client_is_invalid_timestamp(vbroker):
    """LogValidator.validateTimestamp: "Producer should not set timestamp type to LogAppendTime"."""
    with wire(vbroker) as c:
        assert_refused(c, INVALID_TIMESTAMP, build_batch([(b"k", b"v")], log_append_time=True), topic=LAT)


def test_create_time_outside_the_bounds_is_invalid_timestamp(vbroker):
    now = int(time.time() * 1000)
    with wire(vbroker) as c:
        for ts in (now - 2 * HOUR_MS, now + 2 * HOUR_MS):
            answer = assert_refused(
                c, INVALID_TIMESTAMP, build_batch([(b"k", b"v")], timestamp=ts), topic=BOUNDS
            )
            # KIP-467 record errors from v8: which record, and why.
            assert [e.batch_index for e in answer.record_errors] == [0], answer
            assert answer.record_errors[0].batch_index_error_message, answer
            assert answer.error_message, answer
        # v7 has no record errors; the code is the same.
        old = produce_on(c, BOUNDS, 0, build_batch([(b"k", b"v")], timestamp=now - 2 * HOUR_MS), version=7)
        assert old.error_code == INVALID_TIMESTAMP, old
        inside = produce_on(c, BOUNDS, 0, build_batch([(b"k", b"v")], timestamp=now - HOUR_MS // 2))
        assert (inside.error_code, inside.log_append_time_ms) == (NONE, -1), inside


# ------------------------------------------------------------------------- acks=0 and versions


def test_acks_zero_gets_no_response_and_the_record_is_written(vbroker):
    topic = unique_topic("acks0")
    create_topic(vbroker, topic, partitions=1)
    with wire(vbroker) as c:
        silent = c.send(produce_request(topic, 0, good_batch(b"quiet"), acks=0), 9)
        asked = c.send(MetadataRequest(topics=None), 12)
        correlation, _ = c.recv(3, 12)
        # The first answer on the connection is the Metadata one: acks=0 was not answered.
        assert (silent, correlation) == (asked - 1, asked)
    (batch,) = read_partition(vbroker, topic, 0)
    assert [r.value for r in batch.records] == [b"quiet"]


def test_acks_zero_failure_closes_the_connection(vbroker):
    with wire(vbroker) as c:
        c.send(produce_request(MAIN, 0, patched(good_batch(), magic=3), acks=0), 9)
        assert c.is_closed_by_peer()


@pytest.mark.parametrize("version", [0, 1, 2, 12])
def test_produce_versions_not_served_close_the_connection(vbroker, version):
    """v0-2 are advertised (KAFKA-18659) but refused, as Kafka 4 does; v12+ are not served.
    The version is refused before the body is read, so one (v0-2 shaped) body serves all."""
    w = bytearray()
    encode_request_header(w, RequestHeader(0, version, 1, "old-client", 2 if version >= 9 else 1))
    # acks, timeout, one topic with one partition and a batch (v0-2 layout: no transactional id)
    body = struct.pack(">hii", 1, 1000, 1) + struct.pack(">h", len(MAIN)) + MAIN.encode()
    records = good_batch()
    body += struct.pack(">iii", 1, 0, len(records)) + records
    with wire(vbroker) as c:
        c.send_frame(bytes(w) + body)
        assert c.is_closed_by_peer()


# ------------------------------------------------------------------------- idempotence rules


@pytest.fixture
def fresh(vbroker: BrokerProcess) -> tuple[str, int, int]:
    """A new one-partition topic and a new producer id: (topic, producer id, epoch)."""
    topic = unique_topic("idem")
    create_topic(vbroker, topic, partitions=1)
    pid, epoch = init_producer_id(vbroker)
    return topic, pid, epoch


def test_duplicate_of_a_cached_batch_answers_its_original_offset_and_time(vbroker):
    """On a LogAppendTime topic, so the kept timestamp is the broker's: a re-send of a cached
    batch is NONE with the first answer's base offset and log append time, and appends nothing."""
    pid, epoch = init_producer_id(vbroker)
    with wire(vbroker) as c:
        first = produce_on(c, LAT, 0, idempotent_batch(pid, epoch, 0, 2))
        second = produce_on(c, LAT, 0, idempotent_batch(pid, epoch, 2, 3))
        assert first.error_code == second.error_code == NONE
        # Let the broker's clock pass the second append, so a re-stamp would show.
        while int(time.time() * 1000) <= second.log_append_time_ms + 1:
            time.sleep(0.002)
        for original, seq, count in ((first, 0, 2), (second, 2, 3)):
            again = produce_on(c, LAT, 0, idempotent_batch(pid, epoch, seq, count))
            assert again.error_code == NONE, again
            assert (again.base_offset, again.log_append_time_ms) == (
                original.base_offset,
                original.log_append_time_ms,
            ), (again, original)
        following = produce_on(c, LAT, 0, idempotent_batch(pid, epoch, 5, 1))
    assert following.base_offset == second.base_offset + 3, following
    mine = [b for b in read_partition(vbroker, LAT, 0) if b.header.producer_id == pid]
    assert [(b.header.base_sequence, b.header.records_count) for b in mine] == [(0, 2), (2, 3), (5, 1)]


def test_duplicate_on_a_create_time_topic_answers_the_batch_timestamp(vbroker, fresh):
    """Kafka's UnifiedLog.append sets the answer's log append time to the cached batch's
    timestamp for a duplicate, on CreateTime topics too (the first answer had -1)."""
    topic, pid, epoch = fresh
    created = int(time.time() * 1000) - 5000
    batch = idempotent_batch(pid, epoch, 0, 2, timestamp=created)
    with wire(vbroker) as c:
        first = produce_on(c, topic, 0, batch)
        again = produce_on(c, topic, 0, batch)
    assert (first.error_code, first.base_offset, first.log_append_time_ms) == (NONE, 0, -1), first
    assert (again.error_code, again.base_offset, again.log_append_time_ms) == (NONE, 0, created), again
    assert len(read_partition(vbroker, topic, 0)) == 1


def test_stale_epoch_is_invalid_producer_epoch(vbroker, fresh):
    topic, pid, _ = fresh
    with wire(vbroker) as c:
        assert produce_on(c, topic, 0, idempotent_batch(pid, 3, 0, 2)).error_code == NONE
        assert produce_on(c, topic, 0, idempotent_batch(pid, 4, 0, 1)).error_code == NONE
        assert_refused(c, INVALID_PRODUCER_EPOCH, idempotent_batch(pid, 3, 2, 1), topic=topic)
        # Even the exact re-send of the old epoch's batch: no longer a duplicate.
        assert_refused(c, INVALID_PRODUCER_EPOCH, idempotent_batch(pid, 3, 0, 2), topic=topic)
    assert producer_states(vbroker, topic)[pid].producer_epoch == 4


def test_sequence_gap_is_out_of_order(vbroker, fresh):
    topic, pid, epoch = fresh
    with wire(vbroker) as c:
        assert produce_on(c, topic, 0, idempotent_batch(pid, epoch, 0, 3)).error_code == NONE
        assert_refused(c, OUT_OF_ORDER, idempotent_batch(pid, epoch, 4, 1), topic=topic)
        answer = produce_on(c, topic, 0, idempotent_batch(pid, epoch, 3, 1))
        assert (answer.error_code, answer.base_offset) == (NONE, 3), answer


def test_epoch_bump_must_start_at_sequence_zero(vbroker, fresh):
    topic, pid, epoch = fresh
    with wire(vbroker) as c:
        assert produce_on(c, topic, 0, idempotent_batch(pid, epoch, 0, 3)).error_code == NONE
        assert_refused(c, OUT_OF_ORDER, idempotent_batch(pid, epoch + 1, 3, 1), topic=topic)
        assert_refused(c, OUT_OF_ORDER, idempotent_batch(pid, epoch + 1, 1, 1), topic=topic)
        assert produce_on(c, topic, 0, idempotent_batch(pid, epoch + 1, 0, 1)).error_code == NONE
    state = producer_states(vbroker, topic)[pid]
    assert (state.producer_epoch, state.last_sequence) == (epoch + 1, 0)


def test_new_producer_is_accepted_at_any_sequence(vbroker, fresh):
    topic, pid, epoch = fresh
    with wire(vbroker) as c:
        answer = produce_on(c, topic, 0, idempotent_batch(pid, epoch, 1000, 2))
        assert (answer.error_code, answer.base_offset) == (NONE, 0), answer
        assert produce_on(c, topic, 0, idempotent_batch(pid, epoch, 1002, 1)).error_code == NONE
        # A producer seen first at a non-zero epoch is accepted at any sequence as well.
        other, _ = init_producer_id(vbroker)
        assert produce_on(c, topic, 0, idempotent_batch(other, 7, 55, 1)).error_code == NONE
    states = producer_states(vbroker, topic)
    assert states[pid].last_sequence == 1002
    assert (states[other].producer_epoch, states[other].last_sequence) == (7, 55)


def test_sequence_wraps_from_int32_max_to_zero(vbroker, fresh):
    topic, pid, epoch = fresh
    with wire(vbroker) as c:
        ending = produce_on(c, topic, 0, idempotent_batch(pid, epoch, INT32_MAX - 2, 3))  # ..2147483647
        assert ending.error_code == NONE, ending
        assert producer_states(vbroker, topic)[pid].last_sequence == INT32_MAX
        assert_refused(c, OUT_OF_ORDER, idempotent_batch(pid, epoch, 1, 1), topic=topic)
        assert produce_on(c, topic, 0, idempotent_batch(pid, epoch, 0, 2)).error_code == NONE
        # A batch whose range itself crosses the wrap: 2147483646, 2147483647, 0, 1.
        other, other_epoch = init_producer_id(vbroker)
        crossing = idempotent_batch(other, other_epoch, INT32_MAX - 1, 4)
        assert produce_on(c, topic, 0, crossing).error_code == NONE
        # Its re-send is a duplicate, found by its wrapped (first, last) range.
        again = produce_on(c, topic, 0, crossing)
        assert again.error_code == NONE and again.base_offset == 5, again
        assert produce_on(c, topic, 0, idempotent_batch(other, other_epoch, 2, 1)).error_code == NONE
    states = producer_states(vbroker, topic)
    assert states[pid].last_sequence == 1
    assert states[other].last_sequence == 2
