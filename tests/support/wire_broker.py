"""One in-process broker per test module and raw wire clients for request-level tests.

Import the fixtures into a test module: ``from tests.support.wire_broker import client, cluster``."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from protocol.messages import CreateTopicsRequest, FindCoordinatorRequest, MetadataRequest
from tests.support.cluster import Cluster
from tests.support.polling import wait_until
from tests.support.wire_client import WireClient

OVERRIDES = {
    "offsets.topic.num.partitions": "1",
    "offsets.topic.replication.factor": "1",
    "transaction.state.log.num.partitions": "1",
    "transaction.state.log.replication.factor": "1",
    "transaction.state.log.min.isr": "1",
    "group.initial.rebalance.delay.ms": "0",
}


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    c = Cluster(1, base_dir=tmp_path_factory.mktemp("wire-broker"), overrides=OVERRIDES)
    c.start()
    try:
        with WireClient("127.0.0.1", c.port(0)) as w:
            for key_type in (0, 1):
                req = FindCoordinatorRequest(key="any", key_type=key_type)
                wait_until(lambda req=req: w.request(req, 2).error_code == 0, f"coordinator {key_type}")
        yield c
    finally:
        c.close()


@pytest.fixture
def client(cluster: Cluster) -> Iterator[WireClient]:
    with WireClient("127.0.0.1", cluster.port(0)) as c:
        yield c


def create_topic(c: WireClient, name: str, partitions: int = 1, config: dict[str, str] | None = None) -> None:
    topic = CreateTopicsRequest.CreatableTopic(
        name=name,
        num_partitions=partitions,
        replication_factor=1,
        configs=[
            CreateTopicsRequest.CreatableTopicConfig(name=k, value=v) for k, v in (config or {}).items()
        ],
    )
    r = c.request(CreateTopicsRequest(topics=[topic], timeout_ms=30_000), 5)
    assert [t.error_code for t in r.topics] == [0], r.topics

    def has_leader() -> bool:
        m = c.request(MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name=name)]), 9)
        return m.topics[0].error_code == 0 and all(p.leader_id >= 0 for p in m.topics[0].partitions)

    wait_until(has_leader, f"{name} has a leader")


def call(c: WireClient, message: Any, version: int) -> Any:
    return c.request(message, version)
