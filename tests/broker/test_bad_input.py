"""Bad input over a raw socket: a closed connection or a Kafka error, never a crash.

Each case sends what no real client would, then shows that another connection
(and a real client) still gets served.
"""

from __future__ import annotations

import socket
import struct

import pytest

from protocol.errors import ErrorCode
from protocol.headers import RequestHeader, encode_request_header
from protocol.messages import ApiVersionsRequest, ApiVersionsResponse, MetadataRequest, ProduceRequest
from tests.support.wire_client import WireClient

pytestmark = pytest.mark.integration


def _still_serving(broker) -> None:
    with WireClient(broker.host, broker.port) as other:
        resp = other.request(MetadataRequest(topics=None), 12)
        assert resp.brokers[0].port == broker.port
    from confluent_kafka.admin import AdminClient

    md = AdminClient({"bootstrap.servers": broker.bootstrap}).list_topics(timeout=10)
    assert md.brokers


def _header(api_key: int, version: int, header_version: int = 1, client_id: str | None = "bad") -> bytes:
    w = bytearray()
    encode_request_header(w, RequestHeader(api_key, version, 7, client_id, header_version))
    return bytes(w)


@pytest.fixture(scope="module")
def small_broker(tmp_path_factory):
    from tests.support.broker_process import BrokerProcess

    b = BrokerProcess(tmp_path_factory.mktemp("bad-input") / "data", {"socket.request.max.bytes": "4096"})
    b.start()
    yield b
    b.stop()


def test_unknown_api_key_closes_the_connection(small_broker):
    with WireClient(small_broker.host, small_broker.port) as c:
        c.send_frame(_header(9999, 0))
        assert c.is_closed_by_peer()
    small_broker.wait_for_log("unknown or unsupported API key 9999")
    _still_serving(small_broker)


def test_unsupported_version_closes_the_connection(small_broker):
    with WireClient(small_broker.host, small_broker.port) as c:
        c.send_frame(_header(3, 99))
        assert c.is_closed_by_peer()
    _still_serving(small_broker)


def test_produce_v2_is_advertised_but_refused(small_broker):
    with WireClient(small_broker.host, small_broker.port) as c:
        versions = c.request(ApiVersionsRequest(), 0)
        produce = next(k for k in versions.api_keys if k.api_key == 0)
        assert produce.min_version == 0  # KAFKA-18659
        c.send_frame(_header(0, 2) + b"\x00" * 10)
        assert c.is_closed_by_peer()
    _still_serving(small_broker)


def test_unsupported_api_versions_version_gets_a_v0_error_response(small_broker):
    with WireClient(small_broker.host, small_broker.port) as c:
        c.send_frame(_header(18, 99, header_version=2) + b"\x00garbage-the-broker-must-not-parse")
        corr, resp = c.recv(18, 0, header_version=0)
        assert corr == 7
        assert resp.error_code == ErrorCode.UNSUPPORTED_VERSION.code
        assert [(k.api_key, k.min_version, k.max_version) for k in resp.api_keys] == [(18, 0, 4)]
        # the connection stays usable: the client retries with a version we speak
        assert c.request(ApiVersionsRequest(), 0).error_code == 0


def test_api_versions_v3_validates_client_software(small_broker):
    with WireClient(small_broker.host, small_broker.port) as c:
        bad = c.request(
            ApiVersionsRequest(client_software_name="-bad name", client_software_version="1.0"), 3
        )
        assert bad.error_code == ErrorCode.INVALID_REQUEST.code and bad.api_keys == []
        good = c.request(
            ApiVersionsRequest(client_software_name="moldau-test", client_software_version="1.0.0"), 3
        )
        assert good.error_code == 0 and {k.api_key for k in good.api_keys} >= {0, 1, 3, 18}


def test_header_that_does_not_parse_closes_the_connection(small_broker):
    with WireClient(small_broker.host, small_broker.port) as c:
        # client_id announces 500 bytes but 3 follow
        c.send_frame(struct.pack(">hhih", 3, 1, 5, 500) + b"abc")
        assert c.is_closed_by_peer()
    _still_serving(small_broker)


def test_body_that_does_not_parse_closes_the_connection(small_broker):
    with WireClient(small_broker.host, small_broker.port) as c:
        body = bytes(MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name="abc")]).encode(4))
        c.send_frame(_header(3, 4) + body[:-3])
        assert c.is_closed_by_peer()
        small_broker.wait_for_log("MetadataRequest|Metadata v4 does not decode")
    _still_serving(small_broker)


def test_frame_shorter_than_a_header_closes_the_connection(small_broker):
    with WireClient(small_broker.host, small_broker.port) as c:
        c.send_frame(b"\x00\x03\x00")
        assert c.is_closed_by_peer()
    _still_serving(small_broker)


def test_oversized_frame_is_refused_before_its_body_is_sent(small_broker):
    with WireClient(small_broker.host, small_broker.port) as c:
        c.send_raw(struct.pack(">i", 4097))  # socket.request.max.bytes=4096 on this broker
        assert c.is_closed_by_peer()  # closed although no body byte was sent
    small_broker.wait_for_log("frame size 4097")
    _still_serving(small_broker)


def test_negative_size_closes_the_connection(small_broker):
    with WireClient(small_broker.host, small_broker.port) as c:
        c.send_raw(struct.pack(">i", -5))
        assert c.is_closed_by_peer()
    _still_serving(small_broker)


def test_half_sent_frame_then_disconnect(small_broker):
    s = socket.create_connection((small_broker.host, small_broker.port))
    s.sendall(struct.pack(">i", 100) + b"\x00\x03\x00\x0c")
    s.close()
    _still_serving(small_broker)


def test_pipelined_requests_are_answered_in_order(small_broker):
    with WireClient(small_broker.host, small_broker.port) as c:
        frames = b"".join(
            struct.pack(">i", len(f)) + f
            for f in (
                c.encode_request(MetadataRequest(topics=None), 12, correlation_id=i) for i in range(1, 51)
            )
        )
        c.send_raw(frames)  # all at once, in one write
        got = [c.recv(3, 12)[0] for _ in range(50)]
        assert got == list(range(1, 51))


def test_acks_zero_failure_closes_the_connection(small_broker):
    from protocol.records import build_batch

    with WireClient(small_broker.host, small_broker.port) as c:
        req = ProduceRequest(
            acks=0,
            timeout_ms=1000,
            topic_data=[
                ProduceRequest.TopicProduceData(
                    name="no-such-topic",
                    partition_data=[
                        ProduceRequest.PartitionProduceData(index=0, records=build_batch([(b"k", b"v")]))
                    ],
                )
            ],
        )
        c.send(req, 9)
        assert c.is_closed_by_peer()
    _still_serving(small_broker)


def test_api_versions_response_header_is_v0_even_for_flexible_versions(small_broker):
    with WireClient(small_broker.host, small_broker.port) as c:
        c.send(ApiVersionsRequest(client_software_name="x", client_software_version="1"), 3)
        frame = c.recv_frame()
        # correlation id, then directly the body: no tag buffer in the header (KIP-511)
        resp = ApiVersionsResponse.decode(frame, 3, 4)
        assert resp.error_code == 0
