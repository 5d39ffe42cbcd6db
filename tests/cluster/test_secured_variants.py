"""Other operator configurations of the secured cluster: ``security.inter.broker.protocol``
instead of ``inter.broker.listener.name``, PLAIN between brokers."""

from __future__ import annotations

import uuid

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from protocol.messages import MetadataRequest, SaslAuthenticateRequest, SaslHandshakeRequest
from tests.cluster.secured_cluster import wait_until
from tests.support.cluster import Cluster
from tests.support.wire_client import WireClient

pytestmark = pytest.mark.integration

USERS = {"admin": "admin-secret", "broker": "broker-secret"}
JAAS = (
    "org.apache.kafka.common.security.plain.PlainLoginModule required"
    ' username="broker" password="broker-secret" '
    + " ".join(f'user_{u}="{p}"' for u, p in USERS.items())
    + ";"
)


def _isr(cluster: Cluster, i: int, topic: str):
    with WireClient("127.0.0.1", cluster.port(i)) as c:
        assert c.request(SaslHandshakeRequest(mechanism="PLAIN"), 1).error_code == 0
        assert c.request(SaslAuthenticateRequest(auth_bytes=b"\0admin\0admin-secret"), 2).error_code == 0
        md = c.request(
            MetadataRequest(
                topics=[MetadataRequest.MetadataRequestTopic(name=topic)], allow_auto_topic_creation=False
            ),
            9,
        )
    t = md.topics[0]
    return None if t.error_code or not t.partitions else sorted(t.partitions[0].isr_nodes)


def test_security_inter_broker_protocol_with_plain(zookeeper_shared, tmp_path) -> None:
    """KafkaConfig.interBrokerListenerName from security.inter.broker.protocol=SASL_PLAINTEXT,
    sasl.mechanism.inter.broker.protocol=PLAIN: replication and acks=all work, brokers are
    authorized as User:broker (super user)."""
    overrides = {
        "listeners": "SASL_PLAINTEXT://127.0.0.1:0",
        "security.inter.broker.protocol": "SASL_PLAINTEXT",
        "sasl.enabled.mechanisms": "PLAIN",
        "sasl.mechanism.inter.broker.protocol": "PLAIN",
        "listener.name.sasl_plaintext.plain.sasl.jaas.config": JAAS,
        "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
        "super.users": "User:broker;User:admin",
        "offsets.topic.num.partitions": "1",
        "transaction.state.log.num.partitions": "1",
        "zookeeper.session.timeout.ms": "6000",
    }
    with Cluster(
        3,
        zookeeper=zookeeper_shared,
        zk_chroot=f"/rv_{uuid.uuid4().hex[:8]}",
        base_dir=tmp_path,
        overrides=overrides,
    ) as cluster:
        conf = {
            "bootstrap.servers": cluster.bootstrap,
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "PLAIN",
            "sasl.username": "admin",
            "sasl.password": "admin-secret",
        }
        a = AdminClient(conf)
        wait_until(lambda: len(a.list_topics(timeout=10).brokers) == 3, "three brokers")
        a.create_topics([NewTopic("pv", 1, 3, config={"min.insync.replicas": "3"})])["pv"].result(60)
        wait_until(lambda: _isr(cluster, 0, "pv") == [0, 1, 2], "full ISR")
        p = Producer({**conf, "acks": "all", "message.timeout.ms": 20000})
        for i in range(10):
            p.produce("pv", f"{i}".encode())
        assert p.flush(30) == 0
