"""Support for the consumer-group integration tests (no tests here).

``GroupBrokerProcess`` is a broker subprocess with the group coordinator running. Until
``broker/broker.py`` builds the coordinator itself, its launcher builds one from the broker's
config before the listeners open (and stops it before the logs close); once the broker wires
its own, the launcher leaves it alone. Also: wire-client helpers for topics and groups.
"""

from __future__ import annotations

import sys
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

# Runs ``python -m broker`` with a group coordinator attached when the broker has none.
LAUNCHER = """
import sys
import time
from broker import server as _server
from coordinator.groups import GroupCoordinator

_start, _stop = _server.KafkaServer.start, _server.KafkaServer.stop


async def start(self):
    b = self.broker
    if b.groups is None:
        cfg = b.config
        b.groups = GroupCoordinator(
            b.log_manager,
            broker_id=b.broker_id,
            offsets_topic_partitions=cfg["offsets.topic.num.partitions"],
            offsets_segment_bytes=cfg["offsets.topic.segment.bytes"],
            offsets_retention_ms=cfg["offsets.retention.minutes"] * 60_000,
            offsets_retention_check_ms=cfg["offsets.retention.check.interval.ms"],
            initial_rebalance_delay_ms=cfg["group.initial.rebalance.delay.ms"],
            min_session_timeout_ms=cfg["group.min.session.timeout.ms"],
            max_session_timeout_ms=cfg["group.max.session.timeout.ms"],
            max_group_size=cfg["group.max.size"],
            offset_metadata_max_bytes=cfg["offset.metadata.max.bytes"],
        )
        b._test_owned_groups = True
        await b.groups.start()
    await _start(self)


async def stop(self):
    await _stop(self)
    b = self.broker
    if getattr(b, "_test_owned_groups", False) and b.groups is not None:
        await b.groups.stop()
        b.groups = None


_server.KafkaServer.start, _server.KafkaServer.stop = start, stop
from broker.cli import main

sys.exit(main(sys.argv[1:]))
"""

# Fast rebalances: no initial delay, few offsets partitions (each is a directory).
GROUP_OVERRIDES = {
    "group.initial.rebalance.delay.ms": "0",
    "offsets.topic.num.partitions": "5",
}


class GroupBrokerProcess(BrokerProcess):
    def command(self) -> list[str]:
        cmd = super().command()
        assert cmd[1:3] == ["-m", "broker"], cmd
        return [sys.executable, "-c", LAUNCHER, *cmd[3:]]


def start_group_broker(path: Any, overrides: Mapping[str, str] | None = None) -> GroupBrokerProcess:
    b = GroupBrokerProcess(path, {**GROUP_OVERRIDES, **(overrides or {})})
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
