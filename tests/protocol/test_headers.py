"""Request/response headers, against the generated RequestHeader/ResponseHeader codecs."""

from __future__ import annotations

import pytest

from protocol import headers
from protocol.messages import ApiVersionsRequest, MetadataRequest, RequestHeader, ResponseHeader
from protocol.primitives import DecodeError


@pytest.mark.parametrize("client_id", ["my-client", "", None])
@pytest.mark.parametrize("version", [1, 2])
def test_request_header_matches_generated_codec(version, client_id):
    gen = RequestHeader(request_api_key=3, request_api_version=9, correlation_id=77, client_id=client_id)
    raw = bytes(gen.encode(version))
    hdr, pos = headers.decode_request_header(raw, version)
    assert (hdr.api_key, hdr.api_version, hdr.correlation_id) == (3, 9, 77)
    assert hdr.client_id == client_id
    assert pos == len(raw)
    w = bytearray()
    headers.encode_request_header(w, hdr)
    assert bytes(w) == raw


def test_client_id_is_an_int16_string_even_in_header_v2():
    raw = bytes(
        RequestHeader(request_api_key=18, request_api_version=3, correlation_id=1, client_id="abc").encode(2)
    )
    assert raw[8:10] == b"\x00\x03"  # int16 length, not a compact varint
    assert raw[-1] == 0  # then the header's empty tag buffer


def test_header_version_follows_flexible_versions():
    assert headers.request_header_version(3, 8) == 1
    assert headers.request_header_version(3, 9) == 2
    assert headers.response_header_version(3, 9) == 1
    assert headers.response_header_version(18, 3) == 0  # KIP-511: ApiVersions response header is v0
    assert headers.request_header_version(18, 3) == 2


@pytest.mark.parametrize("version", [0, 1])
def test_response_header_matches_generated_codec(version):
    assert headers.response_header_bytes(99, version) == bytes(
        ResponseHeader(correlation_id=99).encode(version)
    )


def test_full_request_frame_body_offset():
    w = bytearray()
    headers.encode_request_header(w, headers.RequestHeader(3, 12, 5, "c", 2))
    body = MetadataRequest(topics=None).encode(12)
    frame = bytes(w + body)
    _hdr, pos = headers.decode_request_header(frame)
    assert MetadataRequest.decode(frame, 12, pos).topics is None


@pytest.mark.parametrize("raw", [b"", b"\x00\x12\x00", b"\x00\x12\x00\x03\x00\x00\x00\x01\x00\x09ab"])
def test_bad_headers_raise_decode_error(raw):
    with pytest.raises(DecodeError):
        headers.decode_request_header(raw)


def test_api_versions_v3_request_decodes_after_v2_header():
    w = bytearray()
    headers.encode_request_header(w, headers.RequestHeader(18, 3, 1, "x", 2))
    w += ApiVersionsRequest(client_software_name="moldau-test", client_software_version="1.0").encode(3)
    _hdr, pos = headers.decode_request_header(bytes(w))
    assert ApiVersionsRequest.decode(bytes(w), 3, pos).client_software_name == "moldau-test"
