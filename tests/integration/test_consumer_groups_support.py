"""Support for the consumer-group integration tests (no tests here).

A broker subprocess with settings for quick rebalances, and wire-client helpers for
topics, the coordinator and the consumer protocol's metadata.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from protocol.errors import ErrorCode
from protocol.messages import (
    ConsumerProtocolAssignment,
    ConsumerProtocolSubscription,
    CreateTopicsRequest,
    FindCoordinatorRequest,
)
from tests.support.broker_process import BrokerProcess
from tests.support.wire_client import WireClient

# Fast rebalances: no initial delay, few offsets partitions (each is a directory).
GROUP_OVERRIDES = {
    "group.initial.rebalance.delay.ms": "0",
    "offsets.topic.num.partitions": "5",
}


def start_group_broker(path: Any, overrides: Mapping[str, str] | None = None) -> BrokerProcess:
    """A broker subprocess with :data:`GROUP_OVERRIDES` (and ``overrides``)."""
    b = BrokerProcess(path, {**GROUP_OVERRIDES, **(overrides or {})})
    b.start()
    return b


def wire(b: BrokerProcess, client_id: str = "group-test") -> WireClient:
    assert b.port is not None
    return WireClient(b.host, b.port, client_id=client_id)


def create_topic(b: BrokerProcess, name: str, partitions: int = 3) -> None:
    with wire(b) as c:
        resp = c.request(
            CreateTopicsRequest(
                topics=[
                    CreateTopicsRequest.CreatableTopic(
                        name=name, num_partitions=partitions, replication_factor=1
                    )
                ],
                timeout_ms=10_000,
            ),
            4,
        )
        assert resp.topics[0].error_code in (0, ErrorCode.TOPIC_ALREADY_EXISTS.code), resp


def find_coordinator(b: BrokerProcess, group: str, version: int = 1, timeout: float = 30.0) -> Any:
    """What every client does first: FindCoordinator until it answers (the first call starts
    creating __consumer_offsets, answered COORDINATOR_NOT_AVAILABLE meanwhile)."""
    deadline = time.monotonic() + timeout
    with wire(b) as c:
        while True:
            resp = c.request(FindCoordinatorRequest(key=group, key_type=0), version)
            if resp.error_code == 0:
                return resp
            assert resp.error_code == ErrorCode.COORDINATOR_NOT_AVAILABLE.code, resp
            assert time.monotonic() < deadline, "the coordinator never became available"
            time.sleep(0.02)


def subscription(*topics: str) -> bytes:
    """A consumer's JoinGroup metadata (ConsumerProtocolSubscription v0 with its version prefix)."""
    return b"\x00\x00" + bytes(ConsumerProtocolSubscription(topics=list(topics)).encode(0))


def assignment(topic: str, partitions: list[int]) -> bytes:
    body = ConsumerProtocolAssignment(
        assigned_partitions=[ConsumerProtocolAssignment.TopicPartition(topic=topic, partitions=partitions)]
    )
    return b"\x00\x00" + bytes(body.encode(0))
