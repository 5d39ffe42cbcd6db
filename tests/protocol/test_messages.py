"""Generated message codecs: round trips, an independent encoder as oracle, hostile bytes."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import protocol.messages as messages
from protocol.messages import REQUESTS, RESPONSES
from protocol.primitives import DecodeError
from tests.protocol.strategies import struct_strategy

ALL = [
    getattr(messages, name) for name in messages.__all__ if name not in ("REQUESTS", "RESPONSES", "ApiKey")
]
CASES = [
    pytest.param(cls, v, id=f"{cls.NAME}-v{v}")
    for cls in ALL
    for v in range(cls.VALID_VERSIONS[0], cls.VALID_VERSIONS[1] + 1)
]
FAST = settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))


def test_registry_covers_every_request_and_response():
    assert set(REQUESTS) == set(RESPONSES)
    assert REQUESTS[0] is messages.ProduceRequest and RESPONSES[18] is messages.ApiVersionsResponse
    assert len(REQUESTS) >= 50


def test_registry_has_the_zookeeper_mode_inter_broker_apis():
    # Kafka 3.x ApiKeys: what a ZooKeeper-mode controller sends its brokers, and AlterPartition (KIP-497)
    expected = {
        messages.ApiKey.LEADER_AND_ISR: ("LeaderAndIsr", 4, (0, 7)),
        messages.ApiKey.STOP_REPLICA: ("StopReplica", 5, (0, 4)),
        messages.ApiKey.UPDATE_METADATA: ("UpdateMetadata", 6, (0, 8)),
        messages.ApiKey.CONTROLLED_SHUTDOWN: ("ControlledShutdown", 7, (0, 3)),
        messages.ApiKey.ALTER_PARTITION: ("AlterPartition", 56, (0, 3)),
    }
    for key, (name, number, versions) in expected.items():
        assert key == number
        assert REQUESTS[key] is getattr(messages, f"{name}Request")
        assert RESPONSES[key] is getattr(messages, f"{name}Response")
        assert REQUESTS[key].VALID_VERSIONS == RESPONSES[key].VALID_VERSIONS == versions


@pytest.mark.parametrize(("cls", "version"), CASES)
def test_round_trip(cls, version):
    @FAST
    @given(struct_strategy(cls, version))
    def check(msg):
        raw = msg.encode(version)
        assert cls.decode(bytes(raw), version) == msg
        # decoding from a memoryview (how the server decodes frames) gives the same
        assert cls.decode(memoryview(bytes(raw)), version) == msg

    check()


@pytest.mark.parametrize(("cls", "version"), CASES)
def test_random_bytes_raise_only_decode_error(cls, version):
    @FAST
    @given(st.binary(max_size=64))
    def check(data):
        with contextlib.suppress(DecodeError):
            cls.decode(data, version)

    check()


@pytest.mark.parametrize(("cls", "version"), CASES)
def test_truncations_raise_only_decode_error(cls, version):
    @FAST
    @given(struct_strategy(cls, version), st.data())
    def check(msg, data):
        raw = bytes(msg.encode(version))
        if not raw:
            return
        cut = data.draw(st.integers(0, len(raw) - 1))
        try:
            cls.decode(raw[:cut], version)
        except DecodeError:
            pass
        else:  # a prefix can only decode if what was cut was empty trailing structure
            raise AssertionError("a truncated message decoded")

    check()
