"""Helpers of the secured-cluster tests (tests/cluster/test_secured_*.py): a secured 3-broker ZooKeeper cluster as an operator configures it: a CLIENT listener
(SASL_PLAINTEXT: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512) and a BROKER listener (SASL_PLAINTEXT,
SCRAM-SHA-256) used between brokers, Kafka's AclAuthorizer with only the brokers' own user and
``admin`` as super users. Clients are authenticated wire clients (PLAIN or SCRAM) and
confluent-kafka."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

from broker.security.scram import MECHANISMS, ScramSaslClient
from broker.security.scram_users import main as scram_users
from protocol.messages import (
    MetadataRequest,
    SaslAuthenticateRequest,
    SaslHandshakeRequest,
)
from tests.support.cluster import Cluster
from tests.support.wire_client import WireClient

BROKER_USER, BROKER_PASSWORD = "broker", "broker-secret"
PLAIN_USERS = {"admin": "admin-secret", "alice": "alice-secret", "bob": "bob-secret"}
PLAIN_JAAS = (
    "org.apache.kafka.common.security.plain.PlainLoginModule required "
    + " ".join(f'user_{u}="{p}"' for u, p in PLAIN_USERS.items())
    + ";"
)
SCRAM_JAAS = (
    "org.apache.kafka.common.security.scram.ScramLoginModule required"
    f' username="{BROKER_USER}" password="{BROKER_PASSWORD}";'
)


def wait_until(condition: Callable[[], Any], what: str, timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    last = None
    while True:
        last = condition()
        if last:
            return last
        assert time.monotonic() < deadline, f"no {what} within {timeout} s (last {last!r})"
        time.sleep(0.1)


def client_address(cluster: Cluster, i: int, listener: str = "CLIENT") -> tuple[str, int]:
    node = cluster._node(i)
    return "127.0.0.1", node.ports[listener]


def bootstrap(cluster: Cluster, *brokers: int) -> str:
    ids = brokers or tuple(i for i in range(cluster.n) if cluster.alive(i))
    return ",".join("{}:{}".format(*client_address(cluster, i)) for i in ids)


def plain_client(cluster: Cluster, i: int, user: str, password: str | None = None) -> WireClient:
    """A wire client authenticated with PLAIN on broker ``i``'s CLIENT listener."""
    host, port = client_address(cluster, i)
    c = WireClient(host, port)
    assert c.request(SaslHandshakeRequest(mechanism="PLAIN"), 1).error_code == 0
    pw = PLAIN_USERS[user] if password is None else password
    auth = c.request(SaslAuthenticateRequest(auth_bytes=f"\0{user}\0{pw}".encode()), 2)
    assert auth.error_code == 0, auth.error_message
    return c


def scram_authenticate(
    cluster: Cluster,
    i: int,
    user: str,
    password: str,
    mechanism: str = "SCRAM-SHA-256",
    listener: str = "CLIENT",
) -> tuple[int, WireClient]:
    """SCRAM exchange on broker ``i``: (error code of the failing/last step, the client)."""
    host, port = client_address(cluster, i, listener)
    c = WireClient(host, port)
    assert c.request(SaslHandshakeRequest(mechanism=mechanism), 1).error_code == 0
    sc = ScramSaslClient(MECHANISMS[mechanism], user, password)
    first = c.request(SaslAuthenticateRequest(auth_bytes=sc.first_message()), 2)
    if first.error_code:
        return first.error_code, c
    final = c.request(SaslAuthenticateRequest(auth_bytes=sc.final_message(first.auth_bytes)), 2)
    return final.error_code, c


def client_conf(
    cluster: Cluster, user: str, *brokers: int, mechanism: str = "PLAIN", password: str | None = None
) -> dict:
    return {
        "bootstrap.servers": bootstrap(cluster, *brokers),
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": mechanism,
        "sasl.username": user,
        "sasl.password": PLAIN_USERS.get(user, "") if password is None else password,
    }


def cluster_formed(cluster: Cluster) -> bool:
    for i in range(cluster.n):
        if not cluster.alive(i):
            continue
        with plain_client(cluster, i, "admin") as c:
            md = c.request(MetadataRequest(topics=[], allow_auto_topic_creation=False), 9)
            if md.controller_id < 0 or len(md.brokers) != sum(cluster.alive(j) for j in range(cluster.n)):
                return False
    return True


def secured_overrides(**extra: str) -> dict[str, str]:
    return {
        "listeners": "CLIENT://127.0.0.1:0,BROKER://127.0.0.1:0",
        "listener.security.protocol.map": "CLIENT:SASL_PLAINTEXT,BROKER:SASL_PLAINTEXT",
        "inter.broker.listener.name": "BROKER",
        "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
        "listener.name.broker.sasl.enabled.mechanisms": "SCRAM-SHA-256",
        "sasl.mechanism.inter.broker.protocol": "SCRAM-SHA-256",
        "listener.name.broker.scram-sha-256.sasl.jaas.config": SCRAM_JAAS,
        "listener.name.client.plain.sasl.jaas.config": PLAIN_JAAS,
        "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
        "super.users": f"User:{BROKER_USER};User:admin",
        "offsets.topic.num.partitions": "1",
        "transaction.state.log.num.partitions": "1",
        "group.initial.rebalance.delay.ms": "0",
        "zookeeper.session.timeout.ms": "6000",
        "replica.fetch.backoff.ms": "200",
        **extra,
    }


def make_secured_cluster(zookeeper, base_dir, **extra: str) -> Cluster:
    chroot = f"/rsec_{uuid.uuid4().hex[:8]}"
    assert (
        scram_users(
            [
                "--zookeeper",
                zookeeper.connect(chroot),
                "--entity-name",
                BROKER_USER,
                "--add-config",
                f"SCRAM-SHA-256=[iterations=4096,password={BROKER_PASSWORD}]",
            ]
        )
        == 0
    )
    c = Cluster(
        3, zookeeper=zookeeper, zk_chroot=chroot, base_dir=base_dir, overrides=secured_overrides(**extra)
    )
    c.start()
    try:
        wait_until(lambda: cluster_formed(c), "the cluster to form")
    except BaseException:
        c.close()
        raise
    return c
