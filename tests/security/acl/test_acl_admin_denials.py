"""Each handler's refusal as Kafka's ``KafkaApis`` answers it, on the wire (issue 15).

One in-process ZooKeeper-mode broker (a real ZooKeeper, so the controller APIs are served)
with Kafka's AclAuthorizer: ``admin`` is the super user and the broker's own principal,
``alice`` an authenticated user (SASL/PLAIN) without ACLs. Each test sends a request as
alice and asserts Kafka's error code (TOPIC_AUTHORIZATION_FAILED 29, GROUP_AUTHORIZATION_FAILED
30, CLUSTER_AUTHORIZATION_FAILED 31, TRANSACTIONAL_ID_AUTHORIZATION_FAILED 53), then grants the
ACL the request needs and asserts it passes. The ACLs a test grants are deleted after it.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from broker.broker import Broker
from broker.config import BrokerConfig
from broker.testing.inprocess import LoopThread
from coordinator.acl_model import (
    CLUSTER_NAME,
    AccessControlEntry,
    AclBinding,
    AclOperation,
    AclPermissionType,
    PatternType,
    ResourcePattern,
    ResourceType,
)
from protocol.errors import ErrorCode
from protocol.messages import (
    AlterConfigsRequest,
    CreatePartitionsRequest,
    CreateTopicsRequest,
    DeleteAclsRequest,
    DeleteGroupsRequest,
    DeleteRecordsRequest,
    DeleteTopicsRequest,
    DescribeAclsRequest,
    DescribeConfigsRequest,
    DescribeGroupsRequest,
    DescribeLogDirsRequest,
    DescribeProducersRequest,
    ElectLeadersRequest,
    FetchRequest,
    FindCoordinatorRequest,
    IncrementalAlterConfigsRequest,
    LeaderAndIsrRequest,
    ListGroupsRequest,
    MetadataRequest,
    OffsetCommitRequest,
    OffsetDeleteRequest,
    OffsetFetchRequest,
    OffsetForLeaderEpochRequest,
    SaslAuthenticateRequest,
    SaslHandshakeRequest,
    StopReplicaRequest,
    UpdateMetadataRequest,
)
from tests.support.polling import wait_until
from tests.support.wire_client import WireClient

pytestmark = pytest.mark.integration

PASSWORDS = {"admin": "admin-secret", "alice": "alice-secret"}
JAAS = (
    "org.apache.kafka.common.security.plain.PlainLoginModule required "
    'username="admin" password="admin-secret" '
    + " ".join(f'user_{u}="{p}"' for u, p in PASSWORDS.items())
    + ";"
)
TOPIC_AUTH, GROUP_AUTH, CLUSTER_AUTH, TXN_AUTH = (
    ErrorCode.TOPIC_AUTHORIZATION_FAILED.code,
    ErrorCode.GROUP_AUTHORIZATION_FAILED.code,
    ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code,
    ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code,
)
Op, T = AclOperation, ResourceType
TOPIC_RESOURCE, BROKER_RESOURCE = 2, 4  # ConfigResource.Type


class SecuredBroker:
    def __init__(self, log_dir: Any, zookeeper_connect: str) -> None:
        self.thread = LoopThread("acl-denials")
        self.broker = Broker(
            BrokerConfig(
                {
                    "log.dirs": str(log_dir),
                    "broker.id": "0",
                    "zookeeper.connect": zookeeper_connect,
                    "listeners": "SASL_PLAINTEXT://127.0.0.1:0",
                    "inter.broker.listener.name": "SASL_PLAINTEXT",
                    "sasl.enabled.mechanisms": "PLAIN",
                    "sasl.mechanism.inter.broker.protocol": "PLAIN",
                    "listener.name.sasl_plaintext.plain.sasl.jaas.config": JAAS,
                    "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
                    "super.users": "User:admin",
                    "offsets.topic.num.partitions": "1",
                    "offsets.topic.replication.factor": "1",
                    "group.initial.rebalance.delay.ms": "0",
                }
            )
        )
        self.thread.call(self.broker.start())
        self.port = self.broker.advertised[0].port
        wait_until(
            lambda: self.broker.metadata_cache.controller_id == 0, "the broker knows itself the controller"
        )

    def controller_epoch(self) -> int:
        """The epoch the controller runs at (an older one is STALE_CONTROLLER_EPOCH)."""
        return self.broker.replica_manager.controller_epoch

    def client(self, user: str) -> WireClient:
        c = WireClient("127.0.0.1", self.port)
        assert c.request(SaslHandshakeRequest(mechanism="PLAIN"), 1).error_code == 0
        password = PASSWORDS[user]
        auth = c.request(SaslAuthenticateRequest(auth_bytes=f"\0{user}\0{password}".encode()), 2)
        assert auth.error_code == 0, auth.error_message
        return c

    def grant(self, rtype: ResourceType, name: str, *ops: AclOperation, user: str = "alice") -> None:
        bindings = [
            AclBinding(
                ResourcePattern(rtype, name, PatternType.LITERAL),
                AccessControlEntry(f"User:{user}", "*", op, AclPermissionType.ALLOW),
            )
            for op in ops
        ]
        assert self.thread.call(self.broker.authorizer.create_acls(bindings)) == [None] * len(bindings)

    def close(self) -> None:
        self.thread.call(self.broker.stop())
        self.thread.close()


@pytest.fixture(scope="module")
def secured(tmp_path_factory: pytest.TempPathFactory, zookeeper_shared: Any) -> Iterator[SecuredBroker]:
    chroot = f"/denials_{uuid.uuid4().hex[:8]}"
    b = SecuredBroker(tmp_path_factory.mktemp("acl-denials"), zookeeper_shared.connect(chroot))
    yield b
    b.close()


@pytest.fixture(scope="module")
def admin(secured: SecuredBroker) -> Iterator[WireClient]:
    with secured.client("admin") as c:
        yield c


# Every ACL: resource type, pattern type, operation and permission ANY (1), any name,
# principal and host (null), as Kafka's AclBindingFilter.ANY.
ANY_ACL = {
    "resource_type_filter": 1,
    "resource_name_filter": None,
    "pattern_type_filter": 1,
    "principal_filter": None,
    "host_filter": None,
    "operation": 1,
    "permission_type": 1,
}


@pytest.fixture(autouse=True)
def no_acls_left(admin: WireClient) -> Iterator[None]:
    """The broker is shared by the module: the ACLs a test granted are deleted after it (by
    the admin, through DeleteAcls), so no test runs with another's grants."""
    yield
    deleted = admin.request(DeleteAclsRequest(filters=[DeleteAclsRequest.DeleteAclsFilter(**ANY_ACL)]), 3)
    assert [f.error_code for f in deleted.filter_results] == [0]

    def none_left() -> bool:
        described = admin.request(DescribeAclsRequest(**ANY_ACL), 3)
        return described.error_code == 0 and not described.resources

    wait_until(none_left, "no ACL left after the test")


@pytest.fixture
def alice(secured: SecuredBroker) -> Iterator[WireClient]:
    with secured.client("alice") as c:
        yield c


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def create_topic(admin: WireClient, name: str) -> None:
    topic = CreateTopicsRequest.CreatableTopic(name=name, num_partitions=1, replication_factor=1)
    r = admin.request(CreateTopicsRequest(topics=[topic], timeout_ms=30_000), 5)
    assert [t.error_code for t in r.topics] == [0]

    def has_leader() -> bool:
        m = admin.request(MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name=name)]), 9)
        return m.topics[0].error_code == 0 and m.topics[0].partitions[0].leader_id == 0

    wait_until(has_leader, f"{name} has a leader")


@pytest.fixture
def topic(admin: WireClient) -> str:
    name = unique("t")
    create_topic(admin, name)
    return name


# -- topics ------------------------------------------------------------------------------


def test_create_topics(secured: SecuredBroker, alice: WireClient) -> None:
    name = unique("new")

    def create() -> int:
        t = CreateTopicsRequest.CreatableTopic(name=name, num_partitions=1, replication_factor=1)
        return alice.request(CreateTopicsRequest(topics=[t], timeout_ms=30_000), 5).topics[0].error_code

    assert create() == TOPIC_AUTH
    secured.grant(T.TOPIC, name, Op.CREATE)
    assert create() == 0


def test_delete_topics(secured: SecuredBroker, alice: WireClient, topic: str) -> None:
    def delete(name: str) -> int:
        return (
            alice.request(DeleteTopicsRequest(topic_names=[name], timeout_ms=30_000), 5)
            .responses[0]
            .error_code
        )

    # KafkaApis.handleDeleteTopicsRequest: without Delete an unknown topic is
    # TOPIC_AUTHORIZATION_FAILED too (its existence is not revealed); with Delete it is unknown
    missing = unique("missing")
    assert delete(missing) == TOPIC_AUTH
    secured.grant(T.TOPIC, missing, Op.DELETE)
    assert delete(missing) == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code
    assert delete(topic) == TOPIC_AUTH
    secured.grant(T.TOPIC, topic, Op.DESCRIBE)
    assert delete(topic) == TOPIC_AUTH  # Describe is not Delete
    secured.grant(T.TOPIC, topic, Op.DELETE)
    assert delete(topic) == 0


def test_create_partitions(secured: SecuredBroker, alice: WireClient, topic: str) -> None:
    def grow() -> int:
        t = CreatePartitionsRequest.CreatePartitionsTopic(name=topic, count=2, assignments=None)
        return alice.request(CreatePartitionsRequest(topics=[t], timeout_ms=30_000), 2).results[0].error_code

    assert grow() == TOPIC_AUTH
    secured.grant(T.TOPIC, topic, Op.ALTER)
    assert grow() == 0


def test_delete_records(secured: SecuredBroker, alice: WireClient, topic: str) -> None:
    def delete() -> int:
        p = DeleteRecordsRequest.DeleteRecordsPartition(partition_index=0, offset=0)
        t = DeleteRecordsRequest.DeleteRecordsTopic(name=topic, partitions=[p])
        r = alice.request(DeleteRecordsRequest(topics=[t], timeout_ms=30_000), 2)
        return r.topics[0].partitions[0].error_code

    assert delete() == TOPIC_AUTH
    secured.grant(T.TOPIC, topic, Op.DELETE)
    assert delete() == 0


def test_describe_producers(secured: SecuredBroker, alice: WireClient, topic: str) -> None:
    def describe() -> int:
        t = DescribeProducersRequest.TopicRequest(name=topic, partition_indexes=[0])
        return alice.request(DescribeProducersRequest(topics=[t]), 0).topics[0].partitions[0].error_code

    assert describe() == TOPIC_AUTH
    secured.grant(T.TOPIC, topic, Op.READ)
    assert describe() == 0


def test_offset_for_leader_epoch(secured: SecuredBroker, alice: WireClient, topic: str) -> None:
    def ask(replica_id: int) -> int:
        p = OffsetForLeaderEpochRequest.OffsetForLeaderPartition(partition=0, leader_epoch=0)
        t = OffsetForLeaderEpochRequest.OffsetForLeaderTopic(topic=topic, partitions=[p])
        r = alice.request(OffsetForLeaderEpochRequest(replica_id=replica_id, topics=[t]), 4)
        return r.topics[0].partitions[0].error_code

    # KafkaApis: ClusterAction allows every topic, else (KIP-320) Describe on each topic
    assert ask(-1) == TOPIC_AUTH
    assert ask(1) == TOPIC_AUTH
    secured.grant(T.TOPIC, topic, Op.DESCRIBE)
    assert ask(-1) == 0


# -- configs -----------------------------------------------------------------------------


def test_describe_configs(secured: SecuredBroker, alice: WireClient, topic: str) -> None:
    def describe(rtype: int, name: str) -> int:
        res = DescribeConfigsRequest.DescribeConfigsResource(
            resource_type=rtype, resource_name=name, configuration_keys=None
        )
        return alice.request(DescribeConfigsRequest(resources=[res]), 4).results[0].error_code

    assert describe(TOPIC_RESOURCE, topic) == TOPIC_AUTH
    assert describe(BROKER_RESOURCE, "0") == CLUSTER_AUTH
    secured.grant(T.TOPIC, topic, Op.DESCRIBE_CONFIGS)
    assert describe(TOPIC_RESOURCE, topic) == 0
    assert describe(BROKER_RESOURCE, "0") == CLUSTER_AUTH
    secured.grant(T.CLUSTER, CLUSTER_NAME, Op.DESCRIBE_CONFIGS)
    assert describe(BROKER_RESOURCE, "0") == 0


def test_alter_configs_and_incremental(secured: SecuredBroker, alice: WireClient, topic: str) -> None:
    def alter(rtype: int, name: str, key: str, value: str) -> int:
        c = AlterConfigsRequest.AlterableConfig(name=key, value=value)
        res = AlterConfigsRequest.AlterConfigsResource(resource_type=rtype, resource_name=name, configs=[c])
        return alice.request(AlterConfigsRequest(resources=[res]), 2).responses[0].error_code

    def incremental(rtype: int, name: str, key: str, value: str) -> int:
        c = IncrementalAlterConfigsRequest.AlterableConfig(name=key, config_operation=0, value=value)
        res = IncrementalAlterConfigsRequest.AlterConfigsResource(
            resource_type=rtype, resource_name=name, configs=[c]
        )
        return alice.request(IncrementalAlterConfigsRequest(resources=[res]), 1).responses[0].error_code

    for send in (alter, incremental):
        assert send(TOPIC_RESOURCE, topic, "retention.ms", "600000") == TOPIC_AUTH
        assert send(BROKER_RESOURCE, "0", "log.cleaner.threads", "1") == CLUSTER_AUTH
    secured.grant(T.TOPIC, topic, Op.ALTER_CONFIGS)
    secured.grant(T.CLUSTER, CLUSTER_NAME, Op.ALTER_CONFIGS)
    for send in (alter, incremental):
        assert send(TOPIC_RESOURCE, topic, "retention.ms", "600000") == 0
        assert send(BROKER_RESOURCE, "0", "log.cleaner.threads", "1") == 0


# -- groups ------------------------------------------------------------------------------


def commit_as_admin(admin: WireClient, group: str, topic: str) -> None:
    """A committed offset makes the group exist (a simple consumer group, state Empty)."""
    p = OffsetCommitRequest.OffsetCommitRequestPartition(partition_index=0, committed_offset=0)
    t = OffsetCommitRequest.OffsetCommitRequestTopic(name=topic, partitions=[p])
    req = OffsetCommitRequest(group_id=group, generation_id_or_member_epoch=-1, member_id="", topics=[t])
    # __consumer_offsets is made by the first FindCoordinator; NOT_COORDINATOR until it is loaded
    find = FindCoordinatorRequest(key=group, key_type=0)
    wait_until(lambda: admin.request(find, 3).error_code == 0, f"the coordinator of {group}")
    wait_until(
        lambda: [p.error_code for t in admin.request(req, 8).topics for p in t.partitions] == [0],
        f"an offset committed for {group}",
    )


def test_describe_and_delete_groups(
    secured: SecuredBroker, alice: WireClient, admin: WireClient, topic: str
) -> None:
    group = unique("g")
    commit_as_admin(admin, group, topic)

    def describe() -> int:
        return alice.request(DescribeGroupsRequest(groups=[group]), 5).groups[0].error_code

    def delete() -> int:
        return alice.request(DeleteGroupsRequest(groups_names=[group]), 2).results[0].error_code

    assert describe() == GROUP_AUTH
    assert delete() == GROUP_AUTH
    secured.grant(T.GROUP, group, Op.DESCRIBE)
    assert describe() == 0
    assert delete() == GROUP_AUTH
    secured.grant(T.GROUP, group, Op.DELETE)
    assert delete() == 0


def test_offset_fetch_and_delete(
    secured: SecuredBroker, alice: WireClient, admin: WireClient, topic: str
) -> None:
    group = unique("g")
    commit_as_admin(admin, group, topic)

    def fetch() -> tuple[int, list[int]]:
        t = OffsetFetchRequest.OffsetFetchRequestTopic(name=topic, partition_indexes=[0])
        r = alice.request(OffsetFetchRequest(group_id=group, topics=[t]), 7)
        return r.error_code, [p.error_code for t in r.topics for p in t.partitions]

    def delete() -> tuple[int, list[int]]:
        p = OffsetDeleteRequest.OffsetDeleteRequestPartition(partition_index=0)
        t = OffsetDeleteRequest.OffsetDeleteRequestTopic(name=topic, partitions=[p])
        r = alice.request(OffsetDeleteRequest(group_id=group, topics=[t]), 0)
        return r.error_code, [p.error_code for t in r.topics for p in t.partitions]

    assert fetch()[0] == GROUP_AUTH
    assert delete()[0] == GROUP_AUTH
    secured.grant(T.GROUP, group, Op.DESCRIBE, Op.DELETE)
    assert fetch() == (0, [TOPIC_AUTH])  # the group is allowed, the topic is not
    assert delete() == (0, [TOPIC_AUTH])
    secured.grant(T.TOPIC, topic, Op.READ)
    assert fetch() == (0, [0])
    assert delete() == (0, [0])


def test_find_coordinator(secured: SecuredBroker, alice: WireClient) -> None:
    group, txn = unique("g"), unique("txn")

    def find(key: str, key_type: int) -> int:
        return alice.request(FindCoordinatorRequest(key=key, key_type=key_type), 3).error_code

    assert find(group, 0) == GROUP_AUTH
    assert find(txn, 1) == TXN_AUTH
    secured.grant(T.GROUP, group, Op.DESCRIBE)
    secured.grant(T.TRANSACTIONAL_ID, txn, Op.DESCRIBE)
    # the internal topics are created on first use: COORDINATOR_NOT_AVAILABLE until then
    wait_until(lambda: find(group, 0) == 0, "the group coordinator is found")
    wait_until(lambda: find(txn, 1) == 0, "the transaction coordinator is found")


def test_list_groups_is_filtered_not_denied(
    secured: SecuredBroker, alice: WireClient, admin: WireClient, topic: str
) -> None:
    group = unique("listed")
    commit_as_admin(admin, group, topic)

    def listed() -> tuple[int, set[str]]:
        r = alice.request(ListGroupsRequest(), 4)
        return r.error_code, {g.group_id for g in r.groups}

    # KafkaApis.handleListGroupsRequest: Describe on the cluster lists all, else the
    # groups the principal may describe
    code, groups = listed()
    assert code == 0 and group not in groups
    secured.grant(T.GROUP, group, Op.DESCRIBE)
    code, groups = listed()
    assert code == 0 and group in groups


# -- cluster -----------------------------------------------------------------------------


def test_describe_log_dirs(secured: SecuredBroker, alice: WireClient) -> None:
    def describe() -> int:
        return alice.request(DescribeLogDirsRequest(topics=None), 4).error_code

    assert describe() == CLUSTER_AUTH
    secured.grant(T.CLUSTER, CLUSTER_NAME, Op.DESCRIBE)
    assert describe() == 0


def test_elect_leaders(secured: SecuredBroker, alice: WireClient, topic: str) -> None:
    def elect() -> tuple[int, list[int]]:
        tp = ElectLeadersRequest.TopicPartitions(topic=topic, partitions=[0])
        r = alice.request(ElectLeadersRequest(election_type=0, topic_partitions=[tp], timeout_ms=30_000), 2)
        return r.error_code, [p.error_code for t in r.replica_election_results for p in t.partition_result]

    assert elect() == (CLUSTER_AUTH, [CLUSTER_AUTH])
    secured.grant(T.CLUSTER, CLUSTER_NAME, Op.ALTER)
    # the only replica already leads: nothing to elect, but the request was authorized
    assert elect() == (0, [ErrorCode.ELECTION_NOT_NEEDED.code])


# -- inter-broker requests: ClusterAction (issue 15, Deliver 5) ---------------------------


def _leader_and_isr(secured: SecuredBroker, c: WireClient) -> int:
    req = LeaderAndIsrRequest(
        controller_id=0, controller_epoch=secured.controller_epoch(), broker_epoch=-1, topic_states=[]
    )
    return c.request(req, 7).error_code


def _update_metadata(secured: SecuredBroker, c: WireClient) -> int:
    req = UpdateMetadataRequest(
        controller_id=0, controller_epoch=secured.controller_epoch(), broker_epoch=-1, topic_states=[]
    )
    return c.request(req, 8).error_code


def _stop_replica(secured: SecuredBroker, c: WireClient) -> int:
    req = StopReplicaRequest(
        controller_id=0, controller_epoch=secured.controller_epoch(), broker_epoch=-1, topic_states=[]
    )
    return c.request(req, 4).error_code


CONTROLLER_REQUESTS = [_leader_and_isr, _update_metadata, _stop_replica]


def _follower_fetch(c: WireClient, topic: str) -> int:
    p = FetchRequest.FetchPartition(partition=0, fetch_offset=0, partition_max_bytes=1 << 16)
    req = FetchRequest(
        replica_id=1, max_wait_ms=0, topics=[FetchRequest.FetchTopic(topic=topic, partitions=[p])]
    )
    r = c.request(req, 12)
    return r.responses[0].partitions[0].error_code


def test_the_broker_principal_passes_controller_requests(secured: SecuredBroker, admin: WireClient) -> None:
    for send in CONTROLLER_REQUESTS:
        assert send(secured, admin) == 0, send.__name__


def test_controller_requests_and_follower_fetches_need_cluster_action(
    secured: SecuredBroker, alice: WireClient, admin: WireClient, topic: str
) -> None:
    # KafkaApis.handleLeaderAndIsrRequest / handleUpdateMetadataRequest / handleStopReplicaRequest:
    # authorizeClusterOperation(CLUSTER_ACTION) throws, the error response carries 31
    for send in CONTROLLER_REQUESTS:
        assert send(secured, alice) == CLUSTER_AUTH, send.__name__
    # KafkaApis.handleFetchRequest: a follower (replica_id set) without ClusterAction gets
    # TOPIC_AUTHORIZATION_FAILED for every partition, even with Read on the topic
    secured.grant(T.TOPIC, topic, Op.READ)
    assert _follower_fetch(alice, topic) == TOPIC_AUTH
    assert _follower_fetch(admin, topic) != TOPIC_AUTH

    # an ACL, not only super.users, grants it
    secured.grant(T.CLUSTER, CLUSTER_NAME, Op.CLUSTER_ACTION)
    for send in CONTROLLER_REQUESTS:
        assert send(secured, alice) == 0, send.__name__
    assert _follower_fetch(alice, topic) != TOPIC_AUTH
