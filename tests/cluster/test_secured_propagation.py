"""ACLs and SCRAM credentials kept in ZooKeeper, seen by every broker of a secured cluster
(SASL_PLAINTEXT clients and inter-broker listener, AclAuthorizer, super users: the brokers'
own user and admin)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from confluent_kafka import KafkaError, Producer
from confluent_kafka.admin import (
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    AdminClient,
    NewTopic,
    ResourcePatternType,
    ResourceType,
    ScramCredentialInfo,
    ScramMechanism,
    UserScramCredentialDeletion,
    UserScramCredentialUpsertion,
)

from protocol.errors import ErrorCode
from protocol.messages import AlterUserScramCredentialsRequest, MetadataRequest
from tests.cluster.secured_cluster import (
    client_conf,
    make_secured_cluster,
    plain_client,
    scram_authenticate,
    wait_until,
)
from tests.support.cluster import Cluster

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def cluster(zookeeper_shared, tmp_path_factory) -> Iterator[Cluster]:
    c = make_secured_cluster(zookeeper_shared, tmp_path_factory.mktemp("secprop"))
    try:
        yield c
    finally:
        c.close()


def admin(cluster: Cluster, *brokers: int) -> AdminClient:
    return AdminClient(client_conf(cluster, "admin", *brokers))


def topic_error(cluster: Cluster, i: int, user: str, topic: str) -> int:
    with plain_client(cluster, i, user) as c:
        md = c.request(
            MetadataRequest(
                topics=[MetadataRequest.MetadataRequestTopic(name=topic)], allow_auto_topic_creation=False
            ),
            9,
        )
    return md.topics[0].error_code


def produce_errors(cluster: Cluster, user: str, topic: str, *brokers: int, **conf) -> list:
    errors: list = []
    p = Producer({**client_conf(cluster, user, *brokers), "message.timeout.ms": 15_000, **conf})
    p.produce(topic, b"x", on_delivery=lambda err, _m: errors.append(err))
    p.flush(30)
    return [e.code() if e is not None else None for e in errors]


def write_acl(topic: str, user: str) -> AclBinding:
    return AclBinding(
        ResourceType.TOPIC,
        topic,
        ResourcePatternType.LITERAL,
        f"User:{user}",
        "*",
        AclOperation.WRITE,
        AclPermissionType.ALLOW,
    )


def test_acl_made_on_one_broker_applies_on_all_and_its_removal_revokes_everywhere(cluster) -> None:
    """AclAuthorizer.createAcls / deleteAcls + AclChangedNotificationHandler: every broker's
    cache follows /kafka-acl-changes."""
    topic = f"acl-{uuid.uuid4().hex[:6]}"
    a = admin(cluster)
    a.create_topics([NewTopic(topic, 1, 3)])[topic].result(60)
    wait_until(lambda: all(topic_error(cluster, i, "admin", topic) == 0 for i in range(3)), "the topic")
    for i in range(3):
        assert topic_error(cluster, i, "alice", topic) == ErrorCode.TOPIC_AUTHORIZATION_FAILED.code
    assert produce_errors(cluster, "alice", topic) == [KafkaError.TOPIC_AUTHORIZATION_FAILED]

    a1 = admin(cluster, 1)
    for f in a1.create_acls([write_acl(topic, "alice")]).values():
        f.result(30)
    for i in range(3):
        wait_until(lambda i=i: topic_error(cluster, i, "alice", topic) == 0, f"the ACL on broker {i}")
    assert produce_errors(cluster, "alice", topic, acks="all") == [None]

    flt = AclBindingFilter(
        ResourceType.TOPIC,
        topic,
        ResourcePatternType.LITERAL,
        None,
        None,
        AclOperation.ANY,
        AclPermissionType.ANY,
    )
    a2 = admin(cluster, 2)
    deleted = a2.delete_acls([flt])[flt].result(30)
    assert len(deleted) == 1
    for i in range(3):
        wait_until(
            lambda i=i: topic_error(cluster, i, "alice", topic) == ErrorCode.TOPIC_AUTHORIZATION_FAILED.code,
            f"the deletion on broker {i}",
        )
    assert produce_errors(cluster, "alice", topic) == [KafkaError.TOPIC_AUTHORIZATION_FAILED]


def _upsert(cluster: Cluster, broker: int, user: str, password: str, mechanism=ScramMechanism.SCRAM_SHA_256):
    a = admin(cluster, broker)
    info = ScramCredentialInfo(mechanism, 4096)
    a.alter_user_scram_credentials([UserScramCredentialUpsertion(user, info, password.encode())])[
        user
    ].result(30)


def test_scram_credentials_changed_and_deleted_on_one_broker_follow_on_the_others(cluster) -> None:
    """ZkAdminManager.alterUserScramCredentials writes /config/users/<user> and a
    /config/changes notification; every broker's UserConfigHandler updates its
    CredentialCache, so a new password works (and the old one fails, SASL_AUTHENTICATION_FAILED)
    on every broker, and a deleted credential no longer authenticates anywhere. Only the
    controller writes (KafkaApis.handleAlterUserScramCredentialsRequest: NOT_CONTROLLER
    elsewhere, for each user, before authorization); librdkafka sends it to the controller."""
    user = f"carol{uuid.uuid4().hex[:4]}"
    with plain_client(cluster, 0, "admin") as c:
        controller = c.request(MetadataRequest(topics=[]), 9).controller_id
    other = next(i for i in range(3) if cluster.broker_id(i) != controller)
    A = AlterUserScramCredentialsRequest
    upsert = A.ScramCredentialUpsertion(
        name=user, mechanism=1, iterations=4096, salt=b"s", salted_password=b"p"
    )
    with plain_client(cluster, other, "admin") as c:
        refused = c.request(A(deletions=[], upsertions=[upsert]), 0).results
    assert [(r.user, r.error_code) for r in refused] == [(user, ErrorCode.NOT_CONTROLLER.code)]
    _upsert(cluster, other, user, "first")
    for i in range(3):
        wait_until(lambda i=i: scram_authenticate(cluster, i, user, "first")[0] == 0, f"{user} on broker {i}")
    _upsert(cluster, 1, user, "second")
    for i in range(3):
        wait_until(lambda i=i: scram_authenticate(cluster, i, user, "second")[0] == 0, f"new pw on {i}")
        assert scram_authenticate(cluster, i, user, "first")[0] == ErrorCode.SASL_AUTHENTICATION_FAILED.code
    # a second mechanism, then the first one deleted: the other stays
    _upsert(cluster, 2, user, "third", ScramMechanism.SCRAM_SHA_512)
    a = admin(cluster, 0)
    a.alter_user_scram_credentials([UserScramCredentialDeletion(user, ScramMechanism.SCRAM_SHA_256)])[
        user
    ].result(30)
    for i in range(3):
        wait_until(
            lambda i=i: (
                scram_authenticate(cluster, i, user, "second")[0] == ErrorCode.SASL_AUTHENTICATION_FAILED.code
            ),
            f"the deletion on broker {i}",
        )
        assert scram_authenticate(cluster, i, user, "third", "SCRAM-SHA-512")[0] == 0
    a.alter_user_scram_credentials([UserScramCredentialDeletion(user, ScramMechanism.SCRAM_SHA_512)])[
        user
    ].result(30)
    for i in range(3):
        wait_until(
            lambda i=i: (
                scram_authenticate(cluster, i, user, "third", "SCRAM-SHA-512")[0]
                == ErrorCode.SASL_AUTHENTICATION_FAILED.code
            ),
            f"the last deletion on broker {i}",
        )


def test_restarted_broker_reads_acls_and_credentials_made_while_it_was_down(cluster) -> None:
    """AclAuthorizer.configure/loadCache and DynamicConfigManager.startup read /kafka-acl and
    /config/users before the broker serves; replication to it resumes over SASL."""
    topic = f"rs-{uuid.uuid4().hex[:6]}"
    user = f"dave{uuid.uuid4().hex[:4]}"
    a = admin(cluster)
    a.create_topics([NewTopic(topic, 1, 3)])[topic].result(60)
    wait_until(lambda: all(topic_error(cluster, i, "admin", topic) == 0 for i in range(3)), "the topic")
    cluster.stop(2)
    a01 = admin(cluster, 0, 1)
    for f in a01.create_acls([write_acl(topic, "bob")]).values():
        f.result(30)
    _upsert(cluster, 0, user, "dave-secret")
    cluster.start_broker(2)
    assert topic_error(cluster, 2, "bob", topic) == 0
    assert scram_authenticate(cluster, 2, user, "dave-secret")[0] == 0
    # the restarted broker rejoins: the controller and the fetchers authenticate to it again
    wait_until(lambda: produce_errors(cluster, "bob", topic, 2, acks="all") == [None], "bob's produce")


def _expire_session(cluster: Cluster, i: int) -> int:
    from kazoo.client import KazooClient

    def ids():
        zk = cluster.broker(i).zookeeper
        return zk.hosts + (zk.chroot or ""), zk.kazoo.client_id, zk.broker_epoch

    hosts, client_id, epoch = cluster.run(ids)
    other = KazooClient(hosts=hosts, client_id=client_id)
    other.start(timeout=30)
    other.stop()
    other.close()
    return epoch


def test_acl_and_credential_changes_after_a_session_expiry_still_reach_the_broker(cluster) -> None:
    """ZkNodeChangeNotificationListener re-reads (and re-watches) the change paths after
    a new ZooKeeper session (its ZkStateChangeHandler.afterInitializingSession /
    KafkaZkClient's re-registered child-change handlers): ACLs and SCRAM users created after
    broker 2's session expired reach it."""
    topic = f"ex-{uuid.uuid4().hex[:6]}"
    user = f"erin{uuid.uuid4().hex[:4]}"
    a = admin(cluster, 0)
    a.create_topics([NewTopic(topic, 1, 3)])[topic].result(60)
    wait_until(lambda: all(topic_error(cluster, i, "admin", topic) == 0 for i in range(3)), "the topic")
    old = _expire_session(cluster, 2)
    wait_until(
        lambda: cluster.run(lambda: cluster.broker(2).zookeeper.broker_epoch) not in (None, old),
        "broker 2's new session",
    )
    for f in a.create_acls([write_acl(topic, "alice")]).values():
        f.result(30)
    _upsert(cluster, 0, user, "erin-secret")
    wait_until(lambda: topic_error(cluster, 2, "alice", topic) == 0, "the ACL on broker 2")
    wait_until(lambda: scram_authenticate(cluster, 2, user, "erin-secret")[0] == 0, "the user on broker 2")


@pytest.mark.parametrize("user", ["frank@example.com", "g=h,i", "sp ace*"])
def test_scram_user_with_characters_needing_escaping_authenticates_on_another_broker(cluster, user) -> None:
    """Sanitizer.sanitize/desanitize of /config/users/<name> and ScramFormatter.username
    (=2C, =3D): a user made through broker 0 authenticates on broker 2."""
    _upsert(cluster, 0, user, "pw-1")
    wait_until(lambda: scram_authenticate(cluster, 2, user, "pw-1")[0] == 0, f"{user} on broker 2")
