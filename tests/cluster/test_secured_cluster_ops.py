"""Replication, ISR changes (AlterPartition), controlled shutdown and a consumer group on a
secured cluster: every inter-broker request goes over the SASL_PLAINTEXT BROKER listener as
the brokers' super user; clients are ACL-limited SASL users."""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Iterator

import pytest
from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import (
    AclBinding,
    AclOperation,
    AclPermissionType,
    AdminClient,
    NewTopic,
    ResourcePatternType,
    ResourceType,
)

from protocol.messages import MetadataRequest
from tests.cluster.secured_cluster import client_conf, make_secured_cluster, plain_client, wait_until
from tests.support.cluster import Cluster

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def cluster(zookeeper_shared, tmp_path_factory) -> Iterator[Cluster]:
    c = make_secured_cluster(
        zookeeper_shared,
        tmp_path_factory.mktemp("secops"),
        **{"replica.lag.time.max.ms": "3000", "offsets.topic.replication.factor": "3"},
    )
    try:
        yield c
    finally:
        c.close()


def partition(cluster: Cluster, via: int, topic: str, p: int = 0):
    with plain_client(cluster, via, "admin") as c:
        md = c.request(
            MetadataRequest(
                topics=[MetadataRequest.MetadataRequestTopic(name=topic)], allow_auto_topic_creation=False
            ),
            9,
        )
    t = md.topics[0]
    if t.error_code or len(t.partitions) <= p:
        return None
    part = next(x for x in t.partitions if x.partition_index == p)
    return part.leader_id, sorted(part.isr_nodes)


def alive(cluster: Cluster) -> list[int]:
    return [i for i in range(cluster.n) if cluster.alive(i)]


def grant(admin: AdminClient, *bindings: AclBinding) -> None:
    for f in admin.create_acls(list(bindings)).values():
        f.result(30)


def test_isr_shrinks_and_expands_and_leadership_moves_over_the_secured_listener(cluster, caplog) -> None:
    """AlterPartitionManager (ISR shrink on a dead follower, expansion on its return) and
    KafkaServer.controlledShutdown use the inter-broker listener's SASL credentials; the
    controller (ClusterAction as a super user) applies them."""
    try:
        _isr_and_controlled_shutdown(cluster, caplog)
    finally:  # the module's later tests need three brokers whatever failed here
        for i in range(cluster.n):
            if not cluster.alive(i):
                cluster.start_broker(i)


def _isr_and_controlled_shutdown(cluster: Cluster, caplog: pytest.LogCaptureFixture) -> None:
    topic = f"isr-{uuid.uuid4().hex[:6]}"
    admin = AdminClient(client_conf(cluster, "admin"))
    admin.create_topics([NewTopic(topic, 1, 3, config={"min.insync.replicas": "2"})])[topic].result(60)
    wait_until(lambda: (v := partition(cluster, 0, topic)) and v[1] == [0, 1, 2], "full ISR")
    leader = partition(cluster, 0, topic)[0]
    follower = next(i for i in range(3) if i != leader)
    other = next(i for i in range(3) if i not in (leader, follower))
    cluster.kill(follower)
    wait_until(lambda: (v := partition(cluster, leader, topic)) and follower not in v[1], "ISR shrink")
    p = Producer({**client_conf(cluster, "admin", leader), "acks": "all"})
    p.produce(topic, b"a")
    assert p.flush(30) == 0
    cluster.start_broker(follower)
    wait_until(lambda: (v := partition(cluster, leader, topic)) and v[1] == [0, 1, 2], "ISR expansion")
    # controlled shutdown of the leader: the controller answers once it has moved the
    # leadership; the other brokers learn of it by UpdateMetadata, which may arrive after the
    # answer (KafkaController.doControlledShutdown sends it through the channel manager)
    with caplog.at_level(logging.INFO, logger="broker.controlled_shutdown"):
        cluster.stop(leader)
    succeeded = rf"broker {leader}: controlled shutdown request to controller \d+ succeeded"
    assert re.search(succeeded, caplog.text), caplog.text
    v = wait_until(lambda: (v := partition(cluster, other, topic)) and v[0] != leader and v, "new leader")
    assert v[0] in (follower, other) and leader not in v[1], v
    cluster.start_broker(leader)
    wait_until(lambda: (v := partition(cluster, other, topic)) and v[1] == [0, 1, 2], "ISR after restart")


def test_acl_limited_consumer_group_on_the_secured_cluster(cluster) -> None:
    """A user with Read on a topic and a group (KafkaApis.handleJoinGroupRequest,
    handleOffsetCommitRequest ...) consumes and commits through the group coordinator, which
    may be any broker; without Read on the group it gets GROUP_AUTHORIZATION_FAILED."""
    topic = f"grp-{uuid.uuid4().hex[:6]}"
    group = f"g-{uuid.uuid4().hex[:6]}"
    admin = AdminClient(client_conf(cluster, "admin"))
    admin.create_topics([NewTopic(topic, 3, 3)])[topic].result(60)
    wait_until(lambda: all(partition(cluster, i, topic, 2) for i in alive(cluster)), "the topic")
    p = Producer(client_conf(cluster, "admin"))
    for i in range(30):
        p.produce(topic, f"m{i}".encode(), partition=i % 3)
    assert p.flush(30) == 0

    def consume(expect: int) -> tuple[list[str], list]:
        errors: list = []
        c = Consumer(
            {
                **client_conf(cluster, "bob"),
                "group.id": group,
                "auto.offset.reset": "earliest",
                "enable.auto.commit": False,
                "error_cb": errors.append,
            }
        )
        c.subscribe([topic])
        got: list[str] = []
        deadline = time.monotonic() + 30
        try:
            while len(got) < expect and time.monotonic() < deadline:
                m = c.poll(0.5)
                if m is None:
                    continue
                if m.error():
                    errors.append(m.error())
                    if m.error().code() == KafkaError.GROUP_AUTHORIZATION_FAILED:
                        break
                    continue
                got.append(m.value().decode())
            if got:
                c.commit(asynchronous=False)
        finally:
            c.close()
        return got, errors

    got, errors = consume(30)
    assert not got and any(e.code() == KafkaError.GROUP_AUTHORIZATION_FAILED for e in errors), errors
    grant(
        admin,
        AclBinding(
            ResourceType.TOPIC,
            topic,
            ResourcePatternType.LITERAL,
            "User:bob",
            "*",
            AclOperation.READ,
            AclPermissionType.ALLOW,
        ),
        AclBinding(
            ResourceType.GROUP,
            group,
            ResourcePatternType.LITERAL,
            "User:bob",
            "*",
            AclOperation.READ,
            AclPermissionType.ALLOW,
        ),
    )

    def all_consumed():
        r = consume(30)
        return r if len(r[0]) == 30 else None

    got, errors = wait_until(all_consumed, "bob's records")
    c = Consumer({**client_conf(cluster, "bob"), "group.id": group})
    committed = c.committed([TopicPartition(topic, q) for q in range(3)], timeout=30)
    c.close()
    assert sorted(tp.offset for tp in committed) == [10, 10, 10]


def test_controller_failover_on_the_secured_cluster(cluster) -> None:
    """KafkaController.onControllerFailover on another broker: its ControllerChannelManager
    authenticates to every broker (SASL, super user) and elects new leaders."""
    topic = f"cf-{uuid.uuid4().hex[:6]}"
    admin = AdminClient(client_conf(cluster, "admin"))
    admin.create_topics([NewTopic(topic, 3, 3)])[topic].result(60)
    wait_until(
        lambda: all((v := partition(cluster, 0, topic, q)) and v[1] == [0, 1, 2] for q in range(3)),
        "full ISRs",
    )
    with plain_client(cluster, 0, "admin") as c:
        controller = c.request(MetadataRequest(topics=[], allow_auto_topic_creation=False), 9).controller_id
    cluster.kill(controller)
    rest = [i for i in range(3) if i != controller]
    wait_until(
        lambda: all((v := partition(cluster, rest[0], topic, q)) and v[0] in rest for q in range(3)),
        "new leaders",
    )
    p = Producer({**client_conf(cluster, "admin", *rest), "acks": "all", "message.timeout.ms": 20000})
    for q in range(3):
        p.produce(topic, b"after", partition=q)
    assert p.flush(30) == 0
    cluster.start_broker(controller)
    wait_until(
        lambda: all((v := partition(cluster, rest[0], topic, q)) and v[1] == [0, 1, 2] for q in range(3)),
        "full ISRs again",
    )
