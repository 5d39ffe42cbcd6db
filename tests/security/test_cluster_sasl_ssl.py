"""A 3-broker ZooKeeper cluster whose brokers talk SASL_SSL (SCRAM-SHA-512) to each other
(issue 15): the controller's requests and the replica fetchers authenticate as the broker's
user, acks=all records reach every replica, and SCRAM users made through one broker
(AlterUserScramCredentials, stored in ZooKeeper) authenticate on the others.

The brokers run Kafka's AclAuthorizer with the broker's user as the only super user besides
the test's PLAINTEXT clients (``User:ANONYMOUS``, which the replication helpers use): without
ClusterAction the controller's LeaderAndIsr/UpdateMetadata and the followers' fetches would be
refused, so replication working shows the inter-broker principal is authorized as Kafka's."""

from __future__ import annotations

import uuid

import pytest
from confluent_kafka import KafkaError, Producer
from confluent_kafka.admin import (
    AclBinding,
    AclOperation,
    AclPermissionType,
    AdminClient,
    ResourcePatternType,
    ResourceType,
    ScramCredentialInfo,
    ScramMechanism,
    UserScramCredentialUpsertion,
)

from broker.security.scram_users import main as scram_users
from coordinator.principal import KafkaPrincipal
from tests.cluster.test_replication import (
    cluster_formed,
    consume_all,
    create_topic,
    leader_of,
    produce,
    replica_records,
    replicas_in_sync,
    wait_until,
)
from tests.security.conftest import ADMIN, ADMIN_PASSWORD, scram_jaas
from tests.support.cluster import Cluster
from tests.support.zookeeper_server import zookeeper_shared

__all__ = ["zookeeper_shared"]
pytestmark = pytest.mark.integration


def _sasl_ssl_client(certs, user: str, password: str) -> dict:
    return {
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.username": user,
        "sasl.password": password,
        "ssl.ca.location": str(certs.ca),
    }


@pytest.fixture
def secure_cluster(tmp_path, zookeeper_shared, certs):
    chroot = f"/sec_{uuid.uuid4().hex[:8]}"
    # The brokers' own user exists before they start (kafka-configs.sh --zookeeper, as for Kafka).
    assert (
        scram_users(
            [
                "--zookeeper",
                zookeeper_shared.connect(chroot),
                "--entity-name",
                ADMIN,
                "--add-config",
                f"SCRAM-SHA-512=[iterations=4096,password={ADMIN_PASSWORD}]",
            ]
        )
        == 0
    )
    overrides = {
        "listeners": "PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0",
        "inter.broker.listener.name": "SASL_SSL",
        "sasl.enabled.mechanisms": "SCRAM-SHA-512",
        "sasl.mechanism.inter.broker.protocol": "SCRAM-SHA-512",
        "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config": scram_jaas(ADMIN, ADMIN_PASSWORD),
        "ssl.keystore.type": "PEM",
        "ssl.keystore.location": str(certs.broker_keystore),
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": str(certs.ca),
        "offsets.topic.num.partitions": "1",
        "replica.fetch.backoff.ms": "200",
        "zookeeper.session.timeout.ms": "6000",
        "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
        "super.users": f"User:{ADMIN};User:ANONYMOUS",
    }
    with Cluster(
        3, zookeeper=zookeeper_shared, zk_chroot=chroot, base_dir=tmp_path, overrides=overrides
    ) as c:
        wait_until(lambda: cluster_formed(c), "every broker knowing the controller and its peers")
        yield c


def _sasl_ssl_address(cluster: Cluster, i: int) -> str:
    port = next(a.port for a in cluster.broker(i).advertised if a.name == "SASL_SSL")
    return f"127.0.0.1:{port}"


def test_replication_over_sasl_ssl_between_brokers(secure_cluster: Cluster) -> None:
    cluster = secure_cluster
    create_topic(cluster, "secure-rf3", config={"min.insync.replicas": "3"})
    values = [f"value-{i}".encode() for i in range(200)]
    assert sorted(produce(cluster, "secure-rf3", values)) == list(range(200))
    assert [(o, v) for o, _, v in consume_all(cluster, "secure-rf3", 200)] == list(enumerate(values))
    wait_until(
        lambda: replicas_in_sync(cluster, "secure-rf3", 0, [0, 1, 2]), "every replica at the leader's end"
    )
    logs = [replica_records(cluster.log_dir(i), "secure-rf3", 0) for i in range(3)]
    assert logs[0] == logs[1] == logs[2] and len(logs[0]) == 200

    # Every connection between the brokers is on SASL_SSL and authenticated as the broker's user.
    leader = leader_of(cluster, "secure-rf3")

    def inter_broker_principals() -> list[tuple[str, KafkaPrincipal]]:
        conns = cluster.broker(leader).server.connections
        return [(c.listener, c.auth.principal) for c in conns if c.listener == "SASL_SSL"]

    seen = cluster.run(inter_broker_principals)
    assert seen and all(p == KafkaPrincipal("User", ADMIN) for _, p in seen), seen


def test_scram_users_made_through_one_broker_authenticate_on_the_others(
    secure_cluster: Cluster, certs
) -> None:
    cluster = secure_cluster
    admin = AdminClient(
        {"bootstrap.servers": _sasl_ssl_address(cluster, 0), **_sasl_ssl_client(certs, ADMIN, ADMIN_PASSWORD)}
    )
    info = ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192)
    futures = admin.alter_user_scram_credentials(
        [UserScramCredentialUpsertion("carol", info, b"carol-secret")]
    )
    futures["carol"].result(30)
    described = admin.describe_user_scram_credentials(["carol"])["carol"].result(30)
    assert [(c.mechanism, c.iterations) for c in described.scram_credential_infos] == [
        (ScramMechanism.SCRAM_SHA_512, 8192)
    ]

    create_topic(cluster, "carols")
    # carol is no super user: without an ACL her records are refused
    refused: list = []
    producer = Producer(
        {
            "bootstrap.servers": _sasl_ssl_address(cluster, 1),
            "message.timeout.ms": 10_000,
            **_sasl_ssl_client(certs, "carol", "carol-secret"),
        }
    )
    producer.produce("carols", b"refused", on_delivery=lambda err, _msg: refused.append(err))
    producer.flush(30)
    assert [e.code() for e in refused] == [KafkaError.TOPIC_AUTHORIZATION_FAILED], refused
    write = AclBinding(
        ResourceType.TOPIC, "carols", ResourcePatternType.LITERAL, "User:carol", "*",
        AclOperation.WRITE, AclPermissionType.ALLOW,
    )  # fmt: skip
    for future in admin.create_acls([write]).values():
        future.result(30)
    for i in (1, 2):  # the other brokers learned carol from the /config/changes notification
        errors: list = []
        producer = Producer(
            {
                "bootstrap.servers": _sasl_ssl_address(cluster, i),
                "error_cb": errors.append,
                "acks": "all",
                **_sasl_ssl_client(certs, "carol", "carol-secret"),
            }
        )
        producer.produce("carols", b"hello")
        assert producer.flush(30) == 0, errors
