"""The Produce handler's one-pass decoder gives the generic decoders' objects, or None."""

from __future__ import annotations

import struct

import pytest

from broker.handlers.produce import decode_produce_request
from protocol.headers import RequestHeader, decode_request_header, encode_request_header
from protocol.messages import ProduceRequest
from protocol.records import build_batch

TopicData = ProduceRequest.TopicProduceData
PartitionData = ProduceRequest.PartitionProduceData
BATCH = build_batch([(b"k", b"v" * 300)] * 3, producer_id=7, producer_epoch=1, base_sequence=0)


def frame_of(request: ProduceRequest, version: int, client_id: str | None = "client") -> bytearray:
    w = bytearray()
    encode_request_header(w, RequestHeader(0, version, 42, client_id, 2 if version >= 9 else 1))
    request.write(w, version)
    return w


def generic(frame: bytearray, version: int) -> tuple[str | None, ProduceRequest]:
    mv = memoryview(frame)
    header, pos = decode_request_header(mv)
    return header.client_id, ProduceRequest.decode(mv, version, pos, exact=False)


def as_plain(request: ProduceRequest) -> tuple:
    return (
        request.transactional_id,
        request.acks,
        request.timeout_ms,
        request.unknown_tagged_fields,
        [
            (
                t.name,
                t.topic_id,
                t.unknown_tagged_fields,
                [
                    (p.index, bytes(p.records), type(p.records), p.unknown_tagged_fields)
                    for p in t.partition_data
                ],
            )
            for t in request.topic_data
        ],
    )


REQUESTS = {
    "one partition": ProduceRequest(
        acks=-1,
        timeout_ms=30000,
        topic_data=[TopicData(name="t", partition_data=[PartitionData(index=0, records=BATCH)])],
    ),
    "transactional, several": ProduceRequest(
        transactional_id="tx-é",
        acks=1,
        timeout_ms=5,
        topic_data=[
            TopicData(
                name="topic-ü", partition_data=[PartitionData(index=i, records=BATCH) for i in range(3)]
            ),
            TopicData(name="b" * 100, partition_data=[PartitionData(index=9, records=BATCH * 2)]),
        ],
    ),
    "no topics": ProduceRequest(acks=0, timeout_ms=0, topic_data=[]),
    "large records": ProduceRequest(
        acks=1,
        timeout_ms=1,
        topic_data=[TopicData(name="t", partition_data=[PartitionData(index=0, records=BATCH * 700)])],
    ),
}


@pytest.mark.parametrize("version", range(3, 12))
@pytest.mark.parametrize("name", sorted(REQUESTS))
@pytest.mark.parametrize("client_id", ["client", None, ""])
def test_same_objects_as_the_generic_decoders(version: int, name: str, client_id: str | None) -> None:
    frame = frame_of(REQUESTS[name], version, client_id)
    fast = decode_produce_request(memoryview(frame), version)
    assert fast is not None
    expected_client, expected = generic(frame, version)
    assert fast[0] == expected_client
    assert as_plain(fast[1]) == as_plain(expected)
    assert fast[1] == expected


@pytest.mark.parametrize("version", [3, 8, 9, 11])
def test_records_are_views_of_the_frame(version: int) -> None:
    frame = frame_of(REQUESTS["one partition"], version)
    _, request = decode_produce_request(memoryview(frame), version)  # type: ignore[misc]
    records = request.topic_data[0].partition_data[0].records
    records[0] = 0x55  # the append patches batches in place
    assert frame.find(bytes(records)) > 0


@pytest.mark.parametrize("version", range(3, 12))
def test_truncated_frames_are_left_to_the_generic_decoders(version: int) -> None:
    frame = frame_of(REQUESTS["transactional, several"], version)
    body_end = len(frame)
    for cut in range(8, body_end, 37):
        assert decode_produce_request(memoryview(frame[:cut]), version) is None


def test_null_records_and_tagged_fields_are_left_to_the_generic_decoders() -> None:
    request = ProduceRequest(
        acks=1,
        timeout_ms=1,
        topic_data=[TopicData(name="t", partition_data=[PartitionData(index=0, records=None)])],
    )
    for version in (3, 9):
        assert decode_produce_request(memoryview(frame_of(request, version)), version) is None
    tagged = ProduceRequest(
        acks=1,
        timeout_ms=1,
        topic_data=[
            TopicData(
                name="t",
                partition_data=[PartitionData(index=0, records=BATCH, unknown_tagged_fields=[(5, b"x")])],
            )
        ],
    )
    frame = frame_of(tagged, 9)
    assert decode_produce_request(memoryview(frame), 9) is None
    assert generic(frame, 9)[1].topic_data[0].partition_data[0].unknown_tagged_fields == [(5, b"x")]
    request_tags = ProduceRequest(acks=1, timeout_ms=1, topic_data=[], unknown_tagged_fields=[(1, b"y")])
    assert decode_produce_request(memoryview(frame_of(request_tags, 10)), 10) is None


def test_bad_utf8_is_replaced_as_the_generic_decoders_do() -> None:
    # Java's new String(bytes, UTF_8) (Kafka's readString): U+FFFD, the request is served.
    frame = frame_of(REQUESTS["one partition"], 5, "ab")
    frame[10:12] = b"\xff\xfe"  # the client id
    fast = decode_produce_request(memoryview(frame), 5)
    assert fast is not None and fast[0] == "\ufffd\ufffd" == generic(frame, 5)[0]


def test_bad_lengths_are_left_to_the_generic_decoders() -> None:
    frame = frame_of(REQUESTS["one partition"], 5)
    struct.pack_into(">h", frame, 8, -2)  # a client id length below -1
    assert decode_produce_request(memoryview(frame), 5) is None
