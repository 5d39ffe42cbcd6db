"""Transactions on a cluster whose inter-broker listener is SASL_PLAINTEXT (SCRAM-SHA-256).

Kafka's ``TransactionMarkerChannelManager`` and ``AddPartitionsToTxnManager`` send their
WriteTxnMarkers and AddPartitionsToTxn(verify_only) requests through a NetworkClient built by
``NetworkClientUtils``/``ChannelBuilders.clientChannelBuilder`` with the inter-broker
listener's security protocol and ``sasl.mechanism.inter.broker.protocol`` (as the controller
channel and the replica fetchers do), so transactions spanning partitions led by several
brokers commit on a secured cluster exactly as on a PLAINTEXT one."""

from __future__ import annotations

import time
import uuid

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from protocol.messages import MetadataRequest
from tests.cluster.secured_cluster import client_conf, make_secured_cluster, plain_client, wait_until

pytestmark = pytest.mark.integration


def leaders(cluster, topic: str, n: int) -> dict[int, int] | None:
    with plain_client(cluster, 0, "admin") as c:
        md = c.request(
            MetadataRequest(
                topics=[MetadataRequest.MetadataRequestTopic(name=topic)], allow_auto_topic_creation=False
            ),
            9,
        )
    t = md.topics[0]
    if t.error_code or len(t.partitions) != n or any(p.leader_id < 0 for p in t.partitions):
        return None
    return {p.partition_index: p.leader_id for p in t.partitions}


@pytest.mark.parametrize("verification", ["true", "false"])
def test_transaction_spanning_leaders_commits_over_sasl_inter_broker_listener(
    zookeeper_shared, tmp_path, verification: str
) -> None:
    """TransactionMarkerChannelManager (WriteTxnMarkers) and AddPartitionsToTxnManager
    (AddPartitionsToTxn v4 verify_only, KIP-890; ``verification=false`` leaves only the
    markers) use the inter-broker listener's security (KafkaServer.startup builds them with
    config.interBrokerListenerName / interBrokerSecurityProtocol and
    saslMechanismInterBrokerProtocol): a committed transaction over partitions led by several
    brokers becomes visible to read_committed consumers."""
    cluster = make_secured_cluster(
        zookeeper_shared, tmp_path, **{"transaction.partition.verification.enable": verification}
    )
    try:
        _commit_and_read(cluster)
    finally:
        cluster.close()


def _commit_and_read(cluster) -> None:
    topic = f"txn-{uuid.uuid4().hex[:6]}"
    admin = AdminClient(client_conf(cluster, "admin"))
    admin.create_topics([NewTopic(topic, 3, 3)])[topic].result(60)
    spread = wait_until(lambda: leaders(cluster, topic, 3), "leaders")
    assert len(set(spread.values())) > 1, spread

    errors: list = []
    p = Producer(
        {
            **client_conf(cluster, "admin"),
            "transactional.id": "secured-txn",
            "message.timeout.ms": 10_000,
            "error_cb": errors.append,
            "log_level": 0,
        }
    )
    p.init_transactions(30)
    p.begin_transaction()
    for q in range(3):
        p.produce(topic, value=f"v{q}".encode(), partition=q)
    assert p.flush(30) == 0
    p.commit_transaction(30)

    c = Consumer(
        {
            **client_conf(cluster, "admin"),
            "group.id": f"g-{uuid.uuid4().hex[:6]}",
            "auto.offset.reset": "earliest",
            "isolation.level": "read_committed",
            "log_level": 0,
            "enable.auto.commit": False,
        }
    )
    c.subscribe([topic])
    seen: list[str] = []
    deadline = time.monotonic() + 15
    try:
        while len(seen) < 3 and time.monotonic() < deadline:
            m = c.poll(0.5)
            if m is not None and not m.error():
                seen.append(m.value().decode())
    finally:
        c.close()
    assert sorted(seen) == ["v0", "v1", "v2"], (seen, spread)
